/*
 * swingdb's C interface: open a database, run statements, and read results as
 * columns whose buffers are the engine's own (for stored tables, the
 * memory-mapped segment files). What the R package links; usable from any C.
 *
 * Conventions: a function that can fail takes a `swingdb_error *` last and
 * returns a negative number (or NULL) on failure, filling the error; free its
 * message with swingdb_error_clear. Handles are freed by their *_free
 * function; a column's buffers stay valid until its owner is freed, whatever
 * happens to the result, the connection or the database meanwhile.
 */
#ifndef SWINGDB_H
#define SWINGDB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct swingdb_database swingdb_database;
typedef struct swingdb_connection swingdb_connection;
typedef struct swingdb_result swingdb_result;
typedef struct swingdb_chunk swingdb_chunk;

/* The kind of a failure (the core's ErrorKind); 0 is no failure. */
enum swingdb_error_kind {
  SWINGDB_OK = 0,
  SWINGDB_PROGRAMMING = 1,
  SWINGDB_DATA = 2,
  SWINGDB_INTEGRITY = 3,
  SWINGDB_OPERATIONAL = 4,
  SWINGDB_CONFLICT = 5,
  SWINGDB_CORRUPTION = 6,
  SWINGDB_NOT_SUPPORTED = 7,
  SWINGDB_INTERNAL = 8,
  SWINGDB_INTERRUPTED = 9
};

typedef struct swingdb_error {
  int32_t kind;
  char *message; /* UTF-8, NUL-terminated; NULL when kind is SWINGDB_OK */
} swingdb_error;

void swingdb_error_clear(swingdb_error *error);

/* ---- databases and connections ---- */

/* Opens (creating unless read_only) the database directory `path`, or a
 * private in-memory database when path is NULL. */
swingdb_database *swingdb_open(const char *path, int read_only, swingdb_error *error);
/* Attaches the shared snapshot `name` (copy-on-write, other processes' work). */
swingdb_database *swingdb_attach(const char *name, int read_only, swingdb_error *error);
void swingdb_database_free(swingdb_database *db);
/* The database's directory (NULL for an in-memory one); owned by db. */
const char *swingdb_database_path(const swingdb_database *db);
/* The committed version of the database, or -1 on failure. */
int64_t swingdb_database_version(const swingdb_database *db, swingdb_error *error);

swingdb_connection *swingdb_connect(const swingdb_database *db, swingdb_error *error);
void swingdb_connection_free(swingdb_connection *con);
/* 1 while an explicit transaction (BEGIN) is open. */
int swingdb_in_transaction(const swingdb_connection *con);
/* Cancels what con runs now; callable from any thread. */
void swingdb_interrupt(const swingdb_connection *con);
/* Installs the process-wide check "did the user ask to stop" (Ctrl-C), asked
 * on the waiting thread while a statement runs (once; later calls are ignored). */
void swingdb_set_signal_check(int (*check)(void));

/* ---- statements ---- */

/* Kinds of parameter values. */
enum swingdb_value_kind {
  SWINGDB_VALUE_NULL = 0,
  SWINGDB_VALUE_BOOL = 1,      /* i: 0 or 1 */
  SWINGDB_VALUE_INT64 = 2,     /* i */
  SWINGDB_VALUE_FLOAT64 = 3,   /* f */
  SWINGDB_VALUE_TEXT = 4,      /* bytes, len: UTF-8 */
  SWINGDB_VALUE_DATE = 5,      /* i: days since 1970-01-01 */
  SWINGDB_VALUE_TIMESTAMP = 6, /* i: microseconds since the epoch; tz: zone or NULL */
  SWINGDB_VALUE_BLOB = 7,      /* bytes, len */
  SWINGDB_VALUE_TIME = 8       /* i: nanoseconds since midnight (SQL TIME's unit) */
};

/* One parameter value. A NULL of a known type is that kind with is_null set. */
typedef struct swingdb_value {
  int32_t kind;
  int32_t is_null;
  int64_t i;
  double f;
  const char *bytes;
  size_t len;
  const char *tz;
} swingdb_value;

/* Runs one statement with `nparams` values for its `?` / `$1` placeholders. */
swingdb_result *swingdb_execute(const swingdb_connection *con, const char *sql, const swingdb_value *params,
                                size_t nparams, swingdb_error *error);
void swingdb_result_free(swingdb_result *result);
/* Rows a DML statement changed, or -1 for a query. */
int64_t swingdb_result_rows_affected(const swingdb_result *result);
size_t swingdb_result_ncol(const swingdb_result *result);
/* Column i's name (UTF-8, NUL-terminated, owned by result). */
const char *swingdb_result_column_name(const swingdb_result *result, size_t i);
/* The swingdb_column_kind column i arrives as. */
int32_t swingdb_result_column_kind(const swingdb_result *result, size_t i);
/* Column i's SQL type name (INTEGER, DOUBLE, VARCHAR, ...; owned by result). */
const char *swingdb_result_column_type(const swingdb_result *result, size_t i);

/* Fetches the next rows, at most max_rows (all with max_rows < 0), as one
 * chunk of columns; *rows is 0 at the end. NULL on failure. */
swingdb_chunk *swingdb_result_fetch(swingdb_result *result, int64_t max_rows, int64_t *rows, swingdb_error *error);
/* Whether every row was fetched. */
int swingdb_result_done(const swingdb_result *result);

/* Kinds of result columns (each column is one contiguous array). */
enum swingdb_column_kind {
  SWINGDB_COLUMN_NULLS = 0,     /* only NULLs, no buffers */
  SWINGDB_COLUMN_FLOAT64 = 1,   /* values: double */
  SWINGDB_COLUMN_INT32 = 2,     /* values: int32 (never INT32_MIN: such columns arrive as FLOAT64) */
  SWINGDB_COLUMN_INT64 = 3,     /* values: int64 */
  SWINGDB_COLUMN_BOOL = 4,      /* values: bitmap, element 0 at bit values_bit */
  SWINGDB_COLUMN_DATE32 = 5,    /* values: int32 days since 1970-01-01 */
  SWINGDB_COLUMN_TIMESTAMP = 6, /* values: int64 in units of `unit` seconds; timezone */
  SWINGDB_COLUMN_TIME = 7,      /* values: int64 in units of `unit` seconds since midnight */
  SWINGDB_COLUMN_TEXT = 8,      /* offsets (int64, length + 1) into data, UTF-8 */
  SWINGDB_COLUMN_BLOB = 9       /* offsets (int64, length + 1) into data */
};

typedef struct swingdb_column {
  int32_t kind;
  int64_t length;
  int64_t null_count;
  const void *values;
  int64_t values_bit;
  const uint8_t *validity; /* bitmap, element 0 at bit validity_bit; NULL when no NULLs */
  int64_t validity_bit;
  const int64_t *offsets;
  const uint8_t *data;
  double unit;
  const char *timezone; /* NULL when none */
  void *owner;          /* keeps the buffers alive: swingdb_column_free */
} swingdb_column;

size_t swingdb_chunk_ncol(const swingdb_chunk *chunk);
/* Moves column i out of the chunk into *column (once per column). */
int swingdb_chunk_take(swingdb_chunk *chunk, size_t i, swingdb_column *column, swingdb_error *error);
void swingdb_chunk_free(swingdb_chunk *chunk);
/* Frees a column's buffers (any thread). */
void swingdb_column_free(void *owner);

/* ---- data in ---- */

/* Kinds of input columns, in the layouts of R's vectors. */
enum swingdb_input_kind {
  SWINGDB_INPUT_FLOAT64 = 1,   /* double; R's NA (NaN with payload 1954) is NULL */
  SWINGDB_INPUT_INT32 = 2,     /* int32; INT32_MIN is NULL */
  SWINGDB_INPUT_LOGICAL = 3,   /* int32 0 / 1; INT32_MIN is NULL */
  SWINGDB_INPUT_DATE = 4,      /* double days since 1970-01-01; NA is NULL */
  SWINGDB_INPUT_TIMESTAMP = 5, /* double seconds since the epoch; timezone */
  SWINGDB_INPUT_TEXT = 6,      /* values: const char *[length] UTF-8, NULL pointer is NULL */
  SWINGDB_INPUT_FACTOR = 7,    /* int32 codes from 1 into levels; INT32_MIN is NULL */
  SWINGDB_INPUT_INT64 = 8,     /* int64; INT64_MIN is NULL (bit64's integer64) */
  SWINGDB_INPUT_BLOB = 9,      /* values: const uint8_t *[length], lengths; NULL pointer is NULL */
  SWINGDB_INPUT_TIME = 10      /* double seconds since midnight */
};

typedef struct swingdb_input_column {
  const char *name;
  int32_t kind;
  int64_t length;
  const void *values;
  const int64_t *lengths;
  const char *const *levels;
  int64_t nlevels;
  const char *timezone;
  /* For FLOAT64, INT32 and INT64: when not NULL the engine keeps `values` in
   * place (no copy) until it hands owner back through swingdb_take_released;
   * the caller must keep the memory alive and unchanged until then. */
  void *owner;
} swingdb_input_column;

enum swingdb_store_mode {
  SWINGDB_STORE_CREATE = 0,   /* a new stored table */
  SWINGDB_STORE_APPEND = 1,   /* appended to a stored table, by position */
  SWINGDB_STORE_REGISTER = 2  /* queryable on this connection in place, not stored */
};

/* Stores or registers `ncol` equally long columns as table `name` (taken as
 * it is, never parsed as SQL). Returns the rows, or -1 on failure. */
int64_t swingdb_store(const swingdb_connection *con, const char *name, const swingdb_input_column *columns,
                      size_t ncol, int32_t mode, swingdb_error *error);
/* Removes a registration; 1 if there was one. */
int swingdb_unregister(const swingdb_connection *con, const char *name);
/* Owners of input columns the engine no longer uses, at most cap of them into
 * out; returns how many. Call from the thread that may free them. */
size_t swingdb_take_released(void **out, size_t cap);

/* The tables and views con sees, as a chunk of one TEXT column. */
swingdb_chunk *swingdb_table_names(const swingdb_connection *con, swingdb_error *error);

/* Publishes what the connection sees as the snapshot `name`, which any process
 * of this user can then attach (swingdb_attach). persist: keep it after this
 * database is closed; replace: point the name at it even if it names another
 * snapshot. Returns the snapshot's rows, or -1 with error filled. */
int64_t swingdb_share(const swingdb_connection *con, const char *name, int persist, int replace, swingdb_error *error);

#ifdef __cplusplus
}
#endif

#endif
