/*
 * Result columns as R vectors through ALTREP, reading the engine's Arrow
 * buffers in place (for a stored table: the memory-mapped segment file).
 *
 * A column whose Arrow layout is R's (doubles, 32-bit integers, 64-bit
 * integers as bit64's integer64) and which has no NULLs is "direct": its data
 * pointer, as read-only code asks for it (DATAPTR_RO, DATAPTR_OR_NULL), is
 * the Arrow buffer itself. Every other column (NULLs, dates, timestamps,
 * booleans, strings) is converted lazily: Elt and Get_region compute each
 * element from the buffers (NULL -> NA through the validity bitmap), and the
 * whole vector is converted only when code asks for its data pointer.
 *
 * R never writes into base data. Any C code that calls REAL() / INTEGER()
 * asks for a writable pointer (Dataptr with writeable = TRUE); that gets a
 * private copy (data2), never the mapped pages, and every later read comes
 * from the copy. Duplicating a vector (copy-on-modify) builds an ordinary
 * vector from the read-only buffer without copying it twice.
 *
 * data1 is an external pointer to the column (its owner keeps the Arrow
 * buffers, so the mapping, alive after dbDisconnect or DROP TABLE, until R
 * collects the vector); data2 is the materialized vector or NULL.
 */
#include "swingdb_r.h"

#include <R_ext/Altrep.h>
#include <math.h>
#include <string.h>

static R_altrep_class_t real_class, integer_class, logical_class, string_class;

typedef struct {
  swingdb_column c;
  int integer64; /* INT64 handed out as integer64 bits (else converted to double) */
} rcolumn;

static void column_finalize(SEXP ptr) {
  rcolumn *col = (rcolumn *)R_ExternalPtrAddr(ptr);
  if (col) {
    swingdb_column_free(col->c.owner);
    free(col);
    R_ClearExternalPtr(ptr);
  }
}

static rcolumn *column_of(SEXP x) {
  return (rcolumn *)R_ExternalPtrAddr(R_altrep_data1(x));
}

static int is_null_at(const swingdb_column *c, R_xlen_t i) {
  if (!c->validity) return 0;
  int64_t bit = c->validity_bit + i;
  return !((c->validity[bit >> 3] >> (bit & 7)) & 1);
}

static int direct(const rcolumn *col) {
  const swingdb_column *c = &col->c;
  if (c->null_count != 0) return 0;
  return c->kind == SWINGDB_COLUMN_FLOAT64 || c->kind == SWINGDB_COLUMN_INT32 ||
         (c->kind == SWINGDB_COLUMN_INT64 && col->integer64);
}

static double na_integer64(void) {
  int64_t na = INT64_MIN;
  double d;
  memcpy(&d, &na, sizeof d);
  return d;
}

/* Element i of a double-valued column (REALSXP). */
static double real_at(const rcolumn *col, R_xlen_t i) {
  const swingdb_column *c = &col->c;
  if (is_null_at(c, i)) return (c->kind == SWINGDB_COLUMN_INT64 && col->integer64) ? na_integer64() : NA_REAL;
  switch (c->kind) {
    case SWINGDB_COLUMN_FLOAT64:
      return ((const double *)c->values)[i];
    case SWINGDB_COLUMN_INT64:
      if (col->integer64) {
        double d;
        memcpy(&d, (const int64_t *)c->values + i, sizeof d);
        return d;
      }
      return (double)((const int64_t *)c->values)[i];
    case SWINGDB_COLUMN_DATE32:
      return (double)((const int32_t *)c->values)[i];
    case SWINGDB_COLUMN_TIMESTAMP:
    case SWINGDB_COLUMN_TIME:
      /* Ticks per second divide exactly (60e9 ns are 60 s, where times 1e-9
       * would be 60.00000000000001). */
      if (c->unit < 1) return (double)((const int64_t *)c->values)[i] / (double)llround(1.0 / c->unit);
      return (double)((const int64_t *)c->values)[i] * c->unit;
    default:
      return NA_REAL;
  }
}

static int integer_at(const rcolumn *col, R_xlen_t i) {
  if (is_null_at(&col->c, i)) return NA_INTEGER;
  return ((const int32_t *)col->c.values)[i];
}

static int logical_at(const rcolumn *col, R_xlen_t i) {
  const swingdb_column *c = &col->c;
  if (is_null_at(c, i)) return NA_LOGICAL;
  int64_t bit = c->values_bit + i;
  return (((const uint8_t *)c->values)[bit >> 3] >> (bit & 7)) & 1;
}

static SEXP string_at(const rcolumn *col, R_xlen_t i) {
  const swingdb_column *c = &col->c;
  if (is_null_at(c, i)) return NA_STRING;
  int64_t start = c->offsets[i], end = c->offsets[i + 1];
  if (end - start > INT_MAX) Rf_error("swingdb: a text value of %lld bytes does not fit in an R string", (long long)(end - start));
  return Rf_mkCharLenCE((const char *)c->data + start, (int)(end - start), CE_UTF8);
}

/* A new ordinary vector holding the column's values (no ALTREP). */
static SEXP plain_copy(SEXP x) {
  rcolumn *col = column_of(x);
  R_xlen_t n = (R_xlen_t)col->c.length;
  SEXP data2 = R_altrep_data2(x);
  SEXPTYPE type = TYPEOF(x);
  SEXP out = PROTECT(Rf_allocVector(type, n));
  if (data2 != R_NilValue) {
    if (type == STRSXP)
      for (R_xlen_t i = 0; i < n; i++) SET_STRING_ELT(out, i, STRING_ELT(data2, i));
    else
      memcpy(DATAPTR(out), DATAPTR_RO(data2), (size_t)n * (type == REALSXP ? sizeof(double) : sizeof(int)));
  } else if (direct(col)) {
    memcpy(DATAPTR(out), col->c.values, (size_t)n * (type == REALSXP ? sizeof(double) : sizeof(int)));
  } else {
    switch (type) {
      case REALSXP: {
        double *p = REAL(out);
        for (R_xlen_t i = 0; i < n; i++) p[i] = real_at(col, i);
        break;
      }
      case INTSXP: {
        int *p = INTEGER(out);
        for (R_xlen_t i = 0; i < n; i++) p[i] = integer_at(col, i);
        break;
      }
      case LGLSXP: {
        int *p = LOGICAL(out);
        for (R_xlen_t i = 0; i < n; i++) p[i] = logical_at(col, i);
        break;
      }
      case STRSXP:
        for (R_xlen_t i = 0; i < n; i++) SET_STRING_ELT(out, i, string_at(col, i));
        break;
      default:
        break;
    }
  }
  UNPROTECT(1);
  return out;
}

/* The private copy every later access reads (made on the first request). */
static SEXP materialized(SEXP x) {
  SEXP data2 = R_altrep_data2(x);
  if (data2 == R_NilValue) {
    data2 = plain_copy(x);
    R_set_altrep_data2(x, data2);
  }
  return data2;
}

static R_xlen_t column_length(SEXP x) { return (R_xlen_t)column_of(x)->c.length; }

static void *column_dataptr(SEXP x, Rboolean writeable) {
  if (!writeable && R_altrep_data2(x) == R_NilValue && direct(column_of(x))) return (void *)column_of(x)->c.values;
  return DATAPTR(materialized(x));
}

static const void *column_dataptr_or_null(SEXP x) {
  SEXP data2 = R_altrep_data2(x);
  if (data2 != R_NilValue) return DATAPTR_RO(data2);
  rcolumn *col = column_of(x);
  return direct(col) ? col->c.values : NULL;
}

static SEXP column_duplicate(SEXP x, Rboolean deep) {
  SEXP out = PROTECT(plain_copy(x));
  DUPLICATE_ATTRIB(out, x);
  UNPROTECT(1);
  return out;
}

static Rboolean column_inspect(SEXP x, int pre, int deep, int pvec, void (*inspect_subtree)(SEXP, int, int, int)) {
  rcolumn *col = column_of(x);
  Rprintf("swingdb column (%s, %lld rows, %lld NULL)\n",
          R_altrep_data2(x) != R_NilValue ? "materialized copy" : direct(col) ? "in place" : "lazy",
          (long long)col->c.length, (long long)col->c.null_count);
  return TRUE;
}

static double real_elt(SEXP x, R_xlen_t i) {
  SEXP data2 = R_altrep_data2(x);
  return data2 != R_NilValue ? REAL_ELT(data2, i) : real_at(column_of(x), i);
}

static R_xlen_t real_get_region(SEXP x, R_xlen_t start, R_xlen_t n, double *buf) {
  R_xlen_t len = column_length(x);
  if (start >= len) return 0;
  if (n > len - start) n = len - start;
  const double *p = (const double *)column_dataptr_or_null(x);
  if (p) {
    memcpy(buf, p + start, (size_t)n * sizeof(double));
  } else {
    rcolumn *col = column_of(x);
    for (R_xlen_t i = 0; i < n; i++) buf[i] = real_at(col, start + i);
  }
  return n;
}

static int integer_elt(SEXP x, R_xlen_t i) {
  SEXP data2 = R_altrep_data2(x);
  return data2 != R_NilValue ? INTEGER_ELT(data2, i) : integer_at(column_of(x), i);
}

static R_xlen_t integer_get_region(SEXP x, R_xlen_t start, R_xlen_t n, int *buf) {
  R_xlen_t len = column_length(x);
  if (start >= len) return 0;
  if (n > len - start) n = len - start;
  const int *p = (const int *)column_dataptr_or_null(x);
  if (p) {
    memcpy(buf, p + start, (size_t)n * sizeof(int));
  } else {
    rcolumn *col = column_of(x);
    for (R_xlen_t i = 0; i < n; i++) buf[i] = integer_at(col, start + i);
  }
  return n;
}

static int logical_elt(SEXP x, R_xlen_t i) {
  SEXP data2 = R_altrep_data2(x);
  return data2 != R_NilValue ? LOGICAL_ELT(data2, i) : logical_at(column_of(x), i);
}

static R_xlen_t logical_get_region(SEXP x, R_xlen_t start, R_xlen_t n, int *buf) {
  R_xlen_t len = column_length(x);
  if (start >= len) return 0;
  if (n > len - start) n = len - start;
  SEXP data2 = R_altrep_data2(x);
  rcolumn *col = column_of(x);
  for (R_xlen_t i = 0; i < n; i++) buf[i] = data2 != R_NilValue ? LOGICAL_ELT(data2, start + i) : logical_at(col, start + i);
  return n;
}

static SEXP string_elt(SEXP x, R_xlen_t i) {
  SEXP data2 = R_altrep_data2(x);
  return data2 != R_NilValue ? STRING_ELT(data2, i) : string_at(column_of(x), i);
}

static void string_set_elt(SEXP x, R_xlen_t i, SEXP v) { SET_STRING_ELT(materialized(x), i, v); }

static void register_common(R_altrep_class_t cls) {
  R_set_altrep_Length_method(cls, column_length);
  R_set_altrep_Duplicate_method(cls, column_duplicate);
  R_set_altrep_Inspect_method(cls, column_inspect);
  R_set_altvec_Dataptr_method(cls, column_dataptr);
  R_set_altvec_Dataptr_or_null_method(cls, column_dataptr_or_null);
}

void swingdb_register_vectors(DllInfo *dll) {
  real_class = R_make_altreal_class("swingdb_real", "swingdb", dll);
  register_common(real_class);
  R_set_altreal_Elt_method(real_class, real_elt);
  R_set_altreal_Get_region_method(real_class, real_get_region);

  integer_class = R_make_altinteger_class("swingdb_integer", "swingdb", dll);
  register_common(integer_class);
  R_set_altinteger_Elt_method(integer_class, integer_elt);
  R_set_altinteger_Get_region_method(integer_class, integer_get_region);

  logical_class = R_make_altlogical_class("swingdb_logical", "swingdb", dll);
  register_common(logical_class);
  R_set_altlogical_Elt_method(logical_class, logical_elt);
  R_set_altlogical_Get_region_method(logical_class, logical_get_region);

  string_class = R_make_altstring_class("swingdb_string", "swingdb", dll);
  register_common(string_class);
  R_set_altstring_Elt_method(string_class, string_elt);
  R_set_altstring_Set_elt_method(string_class, string_set_elt);
}

/* A list of raw vectors (blob values); NULL for NULLs. */
static SEXP blob_vector(const swingdb_column *c) {
  R_xlen_t n = (R_xlen_t)c->length;
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  for (R_xlen_t i = 0; i < n; i++) {
    if (is_null_at(c, i)) continue;
    int64_t start = c->offsets[i], len = c->offsets[i + 1] - start;
    SEXP raw = Rf_allocVector(RAWSXP, (R_xlen_t)len);
    SET_VECTOR_ELT(out, i, raw);
    if (len) memcpy(RAW(raw), c->data + start, (size_t)len);
  }
  UNPROTECT(1);
  return out;
}

static SEXP with_class(SEXP x, const char *a, const char *b) {
  PROTECT(x);
  SEXP cls = PROTECT(Rf_allocVector(STRSXP, b ? 2 : 1));
  SET_STRING_ELT(cls, 0, Rf_mkChar(a));
  if (b) SET_STRING_ELT(cls, 1, Rf_mkChar(b));
  Rf_setAttrib(x, R_ClassSymbol, cls);
  UNPROTECT(2);
  return x;
}

SEXP swingdb_column_holder(void) {
  rcolumn *col = (rcolumn *)calloc(1, sizeof(rcolumn));
  if (!col) Rf_error("swingdb: out of memory");
  SEXP ptr = PROTECT(R_MakeExternalPtr(col, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(ptr, column_finalize, TRUE);
  UNPROTECT(1);
  return ptr;
}

swingdb_column *swingdb_holder_column(SEXP holder) { return &((rcolumn *)R_ExternalPtrAddr(holder))->c; }

/* Frees a holder's column at once (for columns copied into R). */
static void release_holder(SEXP holder) { column_finalize(holder); }

SEXP swingdb_vector_of(SEXP holder, int integer64) {
  rcolumn *col = (rcolumn *)R_ExternalPtrAddr(holder);
  const swingdb_column *column = &col->c;
  if (column->kind == SWINGDB_COLUMN_NULLS) {
    SEXP out = PROTECT(Rf_allocVector(LGLSXP, (R_xlen_t)column->length));
    for (R_xlen_t i = 0; i < (R_xlen_t)column->length; i++) LOGICAL(out)[i] = NA_LOGICAL;
    release_holder(holder);
    UNPROTECT(1);
    return out;
  }
  if (column->kind == SWINGDB_COLUMN_BLOB) {
    SEXP out = PROTECT(blob_vector(column));
    release_holder(holder);
    SEXP cls = PROTECT(Rf_allocVector(STRSXP, 4));
    SET_STRING_ELT(cls, 0, Rf_mkChar("blob"));
    SET_STRING_ELT(cls, 1, Rf_mkChar("vctrs_list_of"));
    SET_STRING_ELT(cls, 2, Rf_mkChar("vctrs_vctr"));
    SET_STRING_ELT(cls, 3, Rf_mkChar("list"));
    Rf_setAttrib(out, R_ClassSymbol, cls);
    SEXP ptype = PROTECT(Rf_allocVector(RAWSXP, 0));
    Rf_setAttrib(out, Rf_install("ptype"), ptype);
    UNPROTECT(3);
    return out;
  }
  col->integer64 = integer64;
  SEXP ptr = PROTECT(holder);
  R_altrep_class_t cls;
  switch (column->kind) {
    case SWINGDB_COLUMN_INT32: cls = integer_class; break;
    case SWINGDB_COLUMN_BOOL: cls = logical_class; break;
    case SWINGDB_COLUMN_TEXT: cls = string_class; break;
    default: cls = real_class; break;
  }
  SEXP out = PROTECT(R_new_altrep(cls, ptr, R_NilValue));
  switch (column->kind) {
    case SWINGDB_COLUMN_INT64:
      if (integer64) with_class(out, "integer64", NULL);
      break;
    case SWINGDB_COLUMN_DATE32:
      with_class(out, "Date", NULL);
      break;
    case SWINGDB_COLUMN_TIMESTAMP:
      with_class(out, "POSIXct", "POSIXt");
      Rf_setAttrib(out, Rf_install("tzone"), Rf_mkString(column->timezone ? column->timezone : "UTC"));
      break;
    case SWINGDB_COLUMN_TIME:
      with_class(out, "hms", "difftime");
      Rf_setAttrib(out, Rf_install("units"), Rf_mkString("secs"));
      break;
    default:
      break;
  }
  UNPROTECT(2);
  return out;
}

/* What a vector is, for tests and benchmarks: list(altrep = "swingdb",
 * "other" (another package's ALTREP) or "", state = "in place" / "lazy" / "materialized copy" / "", address = the
 * read-only data pointer as a double, or NA when there is none without
 * converting). Never materializes. */
SEXP swingdb_r_vector_info(SEXP x) {
  const char *cls = "", *state = "";
  double address = NA_REAL;
  if (ALTREP(x)) {
    cls = "other";
    if (R_altrep_inherits(x, real_class) || R_altrep_inherits(x, integer_class) ||
        R_altrep_inherits(x, logical_class) || R_altrep_inherits(x, string_class)) {
      cls = "swingdb";
      rcolumn *col = column_of(x);
      state = R_altrep_data2(x) != R_NilValue ? "materialized copy" : direct(col) ? "in place" : "lazy";
    }
    const void *p = DATAPTR_OR_NULL(x);
    if (p) address = (double)(uintptr_t)p;
  } else if (TYPEOF(x) == REALSXP || TYPEOF(x) == INTSXP || TYPEOF(x) == LGLSXP) {
    address = (double)(uintptr_t)DATAPTR_RO(x);
  }
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
  SET_VECTOR_ELT(out, 0, Rf_mkString(cls));
  SET_VECTOR_ELT(out, 1, Rf_mkString(state));
  SET_VECTOR_ELT(out, 2, Rf_ScalarReal(address));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, 3));
  SET_STRING_ELT(names, 0, Rf_mkChar("altrep"));
  SET_STRING_ELT(names, 1, Rf_mkChar("state"));
  SET_STRING_ELT(names, 2, Rf_mkChar("address"));
  Rf_setAttrib(out, R_NamesSymbol, names);
  UNPROTECT(2);
  return out;
}

/* For tests: writes value into element 1 of x through its writable data
 * pointer (REAL() / INTEGER(), as any C code asking for write access does)
 * and returns what element 1 then reads. */
SEXP swingdb_r_write_first(SEXP x, SEXP value) {
  if (XLENGTH(x) < 1) Rf_error("write_first needs a vector of at least one element");
  switch (TYPEOF(x)) {
    case REALSXP:
      REAL(x)[0] = Rf_asReal(value);
      return Rf_ScalarReal(REAL_ELT(x, 0));
    case INTSXP:
      INTEGER(x)[0] = Rf_asInteger(value);
      return Rf_ScalarInteger(INTEGER_ELT(x, 0));
    default:
      Rf_error("write_first takes a double or integer vector");
  }
  return R_NilValue;
}
