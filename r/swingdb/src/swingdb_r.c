/*
 * The R package's entry points (.Call): connections, statements with bound
 * values, fetching results into ALTREP vectors, and data frames in.
 *
 * Every entry point first releases the R vectors the engine has stopped
 * using (their buffers may be dropped on the engine's threads, but R's
 * memory management runs on R's thread only). Failures are raised as R
 * conditions by the R function raise_error() of the package, after every
 * engine resource of the call is freed (an R error jumps out of C).
 */
#include "swingdb_r.h"

#include <stdint.h>
#include <string.h>

typedef struct {
  swingdb_database *db;
  swingdb_connection *con;
} rconnection;

static void release_vectors(void) {
  void *owners[64];
  size_t n;
  while ((n = swingdb_take_released(owners, 64)) > 0)
    for (size_t i = 0; i < n; i++) R_ReleaseObject((SEXP)owners[i]);
}

/* Raises the error as an R condition of the package (does not return). */
static void fail(swingdb_error *error) {
  SEXP kind = PROTECT(Rf_ScalarInteger(error->kind));
  SEXP message = PROTECT(Rf_mkCharCE(error->message ? error->message : "unknown error", CE_UTF8));
  SEXP text = PROTECT(Rf_ScalarString(message));
  int interrupted = error->kind == SWINGDB_INTERRUPTED;
  swingdb_error_clear(error);
  /* Stopped by Ctrl-C: R's own interrupt (what tryCatch(interrupt = ) and the
   * console expect), which also consumes the pending request. */
  if (interrupted) R_CheckUserInterrupt();
  SEXP ns = PROTECT(R_FindNamespace(Rf_mkString("swingdb")));
  SEXP call = PROTECT(Rf_lang3(Rf_install("raise_error"), kind, text));
  Rf_eval(call, ns);
  UNPROTECT(5);
  Rf_error("swingdb: raise_error returned");
}

/* Raises an error of the package's own (does not return). */
static void fail_with(int kind, const char *message) {
  SEXP k = PROTECT(Rf_ScalarInteger(kind));
  SEXP text = PROTECT(Rf_mkString(message));
  SEXP ns = PROTECT(R_FindNamespace(Rf_mkString("swingdb")));
  SEXP call = PROTECT(Rf_lang3(Rf_install("raise_error"), k, text));
  Rf_eval(call, ns);
  UNPROTECT(4);
  Rf_error("%s", message);
}

/* ---- connections ---- */

static void connection_finalize(SEXP ptr) {
  rconnection *c = (rconnection *)R_ExternalPtrAddr(ptr);
  if (!c) return;
  swingdb_connection_free(c->con);
  swingdb_database_free(c->db);
  free(c);
  R_ClearExternalPtr(ptr);
}

static rconnection *connection_of(SEXP ptr) {
  if (TYPEOF(ptr) != EXTPTRSXP || !R_ExternalPtrAddr(ptr))
    fail_with(SWINGDB_PROGRAMMING, "the connection is closed (dbDisconnect was called); open a new one with dbConnect()");
  return (rconnection *)R_ExternalPtrAddr(ptr);
}

/* R's flag of a pending Ctrl-C (set by its signal handler; read, not consumed:
 * R raises the interrupt itself once the statement has stopped). */
extern int R_interrupts_pending;
static int stop_requested(void) { return R_interrupts_pending != 0; }

SEXP swingdb_r_connect(SEXP path, SEXP read_only, SEXP snapshot) {
  release_vectors();
  swingdb_set_signal_check(stop_requested);
  swingdb_error error = {0, NULL};
  swingdb_database *db;
  if (snapshot != R_NilValue)
    db = swingdb_attach(Rf_translateCharUTF8(STRING_ELT(snapshot, 0)), Rf_asLogical(read_only), &error);
  else
    db = swingdb_open(path == R_NilValue ? NULL : Rf_translateCharUTF8(STRING_ELT(path, 0)), Rf_asLogical(read_only), &error);
  if (!db) fail(&error);
  swingdb_connection *con = swingdb_connect(db, &error);
  if (!con) {
    swingdb_database_free(db);
    fail(&error);
  }
  rconnection *c = (rconnection *)malloc(sizeof(rconnection));
  c->db = db;
  c->con = con;
  SEXP ptr = PROTECT(R_MakeExternalPtr(c, Rf_install("swingdb_connection"), R_NilValue));
  R_RegisterCFinalizerEx(ptr, connection_finalize, TRUE);
  UNPROTECT(1);
  return ptr;
}

SEXP swingdb_r_disconnect(SEXP ptr) {
  release_vectors();
  if (TYPEOF(ptr) == EXTPTRSXP) connection_finalize(ptr);
  return R_NilValue;
}

SEXP swingdb_r_is_valid(SEXP ptr) {
  return Rf_ScalarLogical(TYPEOF(ptr) == EXTPTRSXP && R_ExternalPtrAddr(ptr) != NULL);
}

SEXP swingdb_r_in_transaction(SEXP ptr) {
  return Rf_ScalarLogical(swingdb_in_transaction(connection_of(ptr)->con));
}

SEXP swingdb_r_database_info(SEXP ptr) {
  rconnection *c = connection_of(ptr);
  swingdb_error error = {0, NULL};
  int64_t version = swingdb_database_version(c->db, &error);
  if (version < 0) fail(&error);
  const char *path = swingdb_database_path(c->db);
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(out, 0, path ? Rf_mkString(path) : Rf_ScalarString(NA_STRING));
  SET_VECTOR_ELT(out, 1, Rf_ScalarReal((double)version));
  UNPROTECT(1);
  return out;
}

SEXP swingdb_r_share(SEXP ptr, SEXP name, SEXP persist, SEXP replace) {
  release_vectors();
  swingdb_error error = {0, NULL};
  int64_t rows = swingdb_share(connection_of(ptr)->con, Rf_translateCharUTF8(STRING_ELT(name, 0)), Rf_asLogical(persist),
                               Rf_asLogical(replace), &error);
  if (rows < 0) fail(&error);
  return Rf_ScalarReal((double)rows);
}

SEXP swingdb_r_tables(SEXP ptr) {
  release_vectors();
  swingdb_error error = {0, NULL};
  SEXP holder = PROTECT(swingdb_column_holder());
  swingdb_chunk *chunk = swingdb_table_names(connection_of(ptr)->con, &error);
  if (!chunk) fail(&error);
  int taken = swingdb_chunk_take(chunk, 0, swingdb_holder_column(holder), &error);
  swingdb_chunk_free(chunk);
  if (taken < 0) fail(&error);
  SEXP names = PROTECT(swingdb_vector_of(holder, 0));
  SEXP out = PROTECT(Rf_allocVector(STRSXP, XLENGTH(names)));
  for (R_xlen_t i = 0; i < XLENGTH(names); i++) SET_STRING_ELT(out, i, STRING_ELT(names, i));
  UNPROTECT(3);
  return out;
}

/* ---- statements ---- */

/* Kinds of bound values as the R side prepares them (see bind_kind() in R). */
enum { P_NULL, P_LOGICAL, P_INTEGER, P_DOUBLE, P_TEXT, P_DATE, P_TIMESTAMP, P_BLOB, P_TIME, P_INTEGER64 };

static void value_of(swingdb_value *v, int kind, SEXP values, R_xlen_t row, SEXP tz) {
  memset(v, 0, sizeof *v);
  switch (kind) {
    case P_LOGICAL: {
      int x = LOGICAL_ELT(values, row);
      v->kind = SWINGDB_VALUE_BOOL;
      v->is_null = x == NA_LOGICAL;
      v->i = x;
      break;
    }
    case P_INTEGER: {
      int x = INTEGER_ELT(values, row);
      v->kind = SWINGDB_VALUE_INT64;
      v->is_null = x == NA_INTEGER;
      v->i = x;
      break;
    }
    case P_DOUBLE: {
      double x = REAL_ELT(values, row);
      v->kind = SWINGDB_VALUE_FLOAT64;
      v->is_null = R_IsNA(x);
      v->f = x;
      break;
    }
    case P_INTEGER64: {
      double x = REAL_ELT(values, row);
      int64_t i;
      memcpy(&i, &x, sizeof i);
      v->kind = SWINGDB_VALUE_INT64;
      v->is_null = i == INT64_MIN;
      v->i = i;
      break;
    }
    case P_TEXT: {
      SEXP x = STRING_ELT(values, row);
      v->kind = SWINGDB_VALUE_TEXT;
      v->is_null = x == NA_STRING;
      if (!v->is_null) {
        v->bytes = Rf_translateCharUTF8(x);
        v->len = strlen(v->bytes);
      }
      break;
    }
    case P_DATE: {
      double x = REAL_ELT(values, row);
      v->kind = SWINGDB_VALUE_DATE;
      v->is_null = ISNAN(x);
      v->i = (int64_t)floor(x);
      break;
    }
    case P_TIMESTAMP:
    case P_TIME: {
      double x = REAL_ELT(values, row);
      v->kind = kind == P_TIME ? SWINGDB_VALUE_TIME : SWINGDB_VALUE_TIMESTAMP;
      v->is_null = !R_FINITE(x);
      v->i = (int64_t)llround(x * (kind == P_TIME ? 1e9 : 1e6)); /* TIME in ns, TIMESTAMP in us */
      if (kind == P_TIMESTAMP && tz != R_NilValue && STRING_ELT(tz, 0) != NA_STRING && strlen(CHAR(STRING_ELT(tz, 0))) > 0)
        v->tz = CHAR(STRING_ELT(tz, 0));
      break;
    }
    case P_BLOB: {
      SEXP x = VECTOR_ELT(values, row);
      v->kind = SWINGDB_VALUE_BLOB;
      v->is_null = x == R_NilValue;
      if (!v->is_null) {
        v->bytes = (const char *)RAW(x);
        v->len = (size_t)XLENGTH(x);
      }
      break;
    }
    default:
      v->kind = SWINGDB_VALUE_NULL;
      v->is_null = 1;
  }
}

static void result_finalize(SEXP ptr) {
  swingdb_result *r = (swingdb_result *)R_ExternalPtrAddr(ptr);
  if (r) {
    swingdb_result_free(r);
    R_ClearExternalPtr(ptr);
  }
}

static swingdb_result *result_of(SEXP ptr) {
  if (TYPEOF(ptr) != EXTPTRSXP || !R_ExternalPtrAddr(ptr))
    fail_with(SWINGDB_PROGRAMMING, "the result was cleared (dbClearResult) or its connection closed");
  return (swingdb_result *)R_ExternalPtrAddr(ptr);
}

/* Runs sql with row `row` (0-based) of the bound values. */
SEXP swingdb_r_execute(SEXP ptr, SEXP sql, SEXP kinds, SEXP values, SEXP tzs, SEXP row) {
  release_vectors();
  rconnection *c = connection_of(ptr);
  R_xlen_t n = XLENGTH(kinds), r = (R_xlen_t)Rf_asReal(row);
  swingdb_value *params = n ? (swingdb_value *)R_alloc((size_t)n, sizeof(swingdb_value)) : NULL;
  for (R_xlen_t i = 0; i < n; i++) value_of(&params[i], INTEGER(kinds)[i], VECTOR_ELT(values, i), r, VECTOR_ELT(tzs, i));
  swingdb_error error = {0, NULL};
  swingdb_result *result = swingdb_execute(c->con, Rf_translateCharUTF8(STRING_ELT(sql, 0)), params, (size_t)n, &error);
  if (!result) fail(&error);
  SEXP out = PROTECT(R_MakeExternalPtr(result, Rf_install("swingdb_result"), ptr));
  R_RegisterCFinalizerEx(out, result_finalize, TRUE);
  UNPROTECT(1);
  return out;
}

SEXP swingdb_r_result_info(SEXP res) {
  swingdb_result *r = result_of(res);
  size_t n = swingdb_result_ncol(r);
  SEXP names = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)n));
  SEXP types = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)n));
  SEXP kinds = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)n));
  for (size_t i = 0; i < n; i++) {
    SET_STRING_ELT(names, (R_xlen_t)i, Rf_mkCharCE(swingdb_result_column_name(r, i), CE_UTF8));
    SET_STRING_ELT(types, (R_xlen_t)i, Rf_mkChar(swingdb_result_column_type(r, i)));
    INTEGER(kinds)[i] = swingdb_result_column_kind(r, i);
  }
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 4));
  SET_VECTOR_ELT(out, 0, names);
  SET_VECTOR_ELT(out, 1, types);
  SET_VECTOR_ELT(out, 2, kinds);
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal((double)swingdb_result_rows_affected(r)));
  UNPROTECT(4);
  return out;
}

SEXP swingdb_r_result_done(SEXP res) { return Rf_ScalarLogical(swingdb_result_done(result_of(res))); }

SEXP swingdb_r_result_clear(SEXP res) {
  release_vectors();
  if (TYPEOF(res) == EXTPTRSXP) result_finalize(res);
  return R_NilValue;
}

/* The next n rows (all for n < 0) as a list of column vectors. */
SEXP swingdb_r_fetch(SEXP res, SEXP n, SEXP integer64) {
  release_vectors();
  swingdb_result *r = result_of(res);
  double want = Rf_asReal(n);
  int as_integer64 = Rf_asLogical(integer64);
  /* Every R allocation comes before the engine hands out a column, or after
   * the column has an owner R will finalize: an allocation failure (an R
   * error, which jumps out of C) frees everything. */
  size_t ncol = swingdb_result_ncol(r);
  SEXP holders = PROTECT(Rf_allocVector(VECSXP, (R_xlen_t)ncol));
  for (size_t i = 0; i < ncol; i++) SET_VECTOR_ELT(holders, (R_xlen_t)i, swingdb_column_holder());
  SEXP out = PROTECT(Rf_allocVector(VECSXP, (R_xlen_t)ncol));
  int64_t rows = 0;
  swingdb_error error = {0, NULL};
  swingdb_chunk *chunk = swingdb_result_fetch(r, (ISNAN(want) || want < 0 || want > 9e18) ? -1 : (int64_t)want, &rows, &error);
  if (!chunk) fail(&error);
  for (size_t i = 0; i < ncol; i++) {
    if (swingdb_chunk_take(chunk, i, swingdb_holder_column(VECTOR_ELT(holders, (R_xlen_t)i)), &error) < 0) {
      swingdb_chunk_free(chunk);
      fail(&error);
    }
  }
  swingdb_chunk_free(chunk);
  for (size_t i = 0; i < ncol; i++) SET_VECTOR_ELT(out, (R_xlen_t)i, swingdb_vector_of(VECTOR_ELT(holders, (R_xlen_t)i), as_integer64));
  UNPROTECT(2);
  return out;
}

/* ---- data in ---- */

/* Kinds of input columns as the R side prepares them: the header's
 * swingdb_input_kind values. */
SEXP swingdb_r_store(SEXP ptr, SEXP name, SEXP columns, SEXP names, SEXP kinds, SEXP tzs, SEXP mode) {
  release_vectors();
  rconnection *c = connection_of(ptr);
  R_xlen_t ncol = XLENGTH(columns);
  swingdb_input_column *in = (swingdb_input_column *)R_alloc(ncol ? (size_t)ncol : 1, sizeof(swingdb_input_column));
  for (R_xlen_t j = 0; j < ncol; j++) {
    SEXP v = VECTOR_ELT(columns, j);
    swingdb_input_column *col = &in[j];
    memset(col, 0, sizeof *col);
    col->name = Rf_translateCharUTF8(STRING_ELT(names, j));
    col->kind = INTEGER(kinds)[j];
    col->length = (int64_t)XLENGTH(v);
    switch (col->kind) {
      case SWINGDB_INPUT_FLOAT64:
      case SWINGDB_INPUT_INT64:
      case SWINGDB_INPUT_DATE:
      case SWINGDB_INPUT_TIMESTAMP:
      case SWINGDB_INPUT_TIME:
        col->values = REAL_RO(v);
        break;
      case SWINGDB_INPUT_INT32:
      case SWINGDB_INPUT_LOGICAL:
      case SWINGDB_INPUT_FACTOR:
        col->values = TYPEOF(v) == LGLSXP ? (const void *)LOGICAL_RO(v) : (const void *)INTEGER_RO(v);
        break;
      case SWINGDB_INPUT_TEXT: {
        const char **p = (const char **)R_alloc(col->length ? (size_t)col->length : 1, sizeof(char *));
        for (R_xlen_t i = 0; i < XLENGTH(v); i++) {
          SEXP s = STRING_ELT(v, i);
          p[i] = s == NA_STRING ? NULL : Rf_translateCharUTF8(s);
        }
        col->values = p;
        break;
      }
      case SWINGDB_INPUT_BLOB: {
        const uint8_t **p = (const uint8_t **)R_alloc(col->length ? (size_t)col->length : 1, sizeof(uint8_t *));
        int64_t *lens = (int64_t *)R_alloc(col->length ? (size_t)col->length : 1, sizeof(int64_t));
        for (R_xlen_t i = 0; i < XLENGTH(v); i++) {
          SEXP b = VECTOR_ELT(v, i);
          p[i] = b == R_NilValue ? NULL : RAW(b);
          lens[i] = b == R_NilValue ? 0 : (int64_t)XLENGTH(b);
        }
        col->values = p;
        col->lengths = lens;
        break;
      }
      default:
        fail_with(SWINGDB_PROGRAMMING, "swingdb: unknown input column kind");
    }
    if (col->kind == SWINGDB_INPUT_FACTOR) {
      SEXP levels = Rf_getAttrib(v, R_LevelsSymbol);
      const char **p = (const char **)R_alloc(XLENGTH(levels) ? (size_t)XLENGTH(levels) : 1, sizeof(char *));
      for (R_xlen_t i = 0; i < XLENGTH(levels); i++) p[i] = Rf_translateCharUTF8(STRING_ELT(levels, i));
      col->levels = p;
      col->nlevels = XLENGTH(levels);
    }
    SEXP tz = VECTOR_ELT(tzs, j);
    if (tz != R_NilValue) col->timezone = Rf_translateCharUTF8(STRING_ELT(tz, 0));
  }
  /* Lend the vectors whose memory the engine can keep as it is; R may not
   * change them in place from now on (copy-on-modify makes a new vector). */
  for (R_xlen_t j = 0; j < ncol; j++) {
    int k = in[j].kind;
    if (k == SWINGDB_INPUT_FLOAT64 || k == SWINGDB_INPUT_INT32 || k == SWINGDB_INPUT_INT64) {
      SEXP v = VECTOR_ELT(columns, j);
      MARK_NOT_MUTABLE(v);
      R_PreserveObject(v);
      in[j].owner = v;
    }
  }
  swingdb_error error = {0, NULL};
  int64_t rows = swingdb_store(c->con, Rf_translateCharUTF8(STRING_ELT(name, 0)), in, (size_t)ncol, Rf_asInteger(mode), &error);
  release_vectors();
  if (rows < 0) fail(&error);
  return Rf_ScalarReal((double)rows);
}

SEXP swingdb_r_unregister(SEXP ptr, SEXP name) {
  int had = swingdb_unregister(connection_of(ptr)->con, Rf_translateCharUTF8(STRING_ELT(name, 0)));
  release_vectors();
  return Rf_ScalarLogical(had);
}

SEXP swingdb_r_release(void) {
  release_vectors();
  return R_NilValue;
}

static const R_CallMethodDef calls[] = {
    {"swingdb_r_connect", (DL_FUNC)&swingdb_r_connect, 3},
    {"swingdb_r_disconnect", (DL_FUNC)&swingdb_r_disconnect, 1},
    {"swingdb_r_is_valid", (DL_FUNC)&swingdb_r_is_valid, 1},
    {"swingdb_r_in_transaction", (DL_FUNC)&swingdb_r_in_transaction, 1},
    {"swingdb_r_database_info", (DL_FUNC)&swingdb_r_database_info, 1},
    {"swingdb_r_tables", (DL_FUNC)&swingdb_r_tables, 1},
    {"swingdb_r_share", (DL_FUNC)&swingdb_r_share, 4},
    {"swingdb_r_execute", (DL_FUNC)&swingdb_r_execute, 6},
    {"swingdb_r_result_info", (DL_FUNC)&swingdb_r_result_info, 1},
    {"swingdb_r_result_done", (DL_FUNC)&swingdb_r_result_done, 1},
    {"swingdb_r_result_clear", (DL_FUNC)&swingdb_r_result_clear, 1},
    {"swingdb_r_fetch", (DL_FUNC)&swingdb_r_fetch, 3},
    {"swingdb_r_store", (DL_FUNC)&swingdb_r_store, 7},
    {"swingdb_r_unregister", (DL_FUNC)&swingdb_r_unregister, 2},
    {"swingdb_r_release", (DL_FUNC)&swingdb_r_release, 0},
    {"swingdb_r_vector_info", (DL_FUNC)&swingdb_r_vector_info, 1},
    {"swingdb_r_write_first", (DL_FUNC)&swingdb_r_write_first, 2},
    {NULL, NULL, 0}};

void R_init_swingdb(DllInfo *dll) {
  R_registerRoutines(dll, NULL, calls, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  swingdb_register_vectors(dll);
}
