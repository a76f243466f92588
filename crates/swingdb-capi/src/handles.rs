//! The handles C holds: databases, connections and results, and the calls on
//! them (open, attach, connect, execute, fetch).

use crate::columns::{kind_of, swingdb_chunk};
use crate::values::{params_of, swingdb_value};
use crate::{guarded, swingdb_error, text};
use std::ffi::{c_char, CString};
use std::ptr::null_mut;
use swingdb::arrow::array::{Array, ArrayRef, RecordBatch, StringArray};
use swingdb::arrow::compute::concat;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::{Connection, Database, Error, Interrupt, OpenOptions, QueryResult, ShareOptions};

/// An open database.
pub struct swingdb_database {
    db: Database,
    path: Option<CString>,
}

/// A connection: its own transaction state and registrations.
pub struct swingdb_connection {
    con: Connection,
    interrupt: Interrupt,
}

/// A statement's result, fetched in chunks.
pub struct swingdb_result {
    result: QueryResult,
    schema: SchemaRef,
    names: Vec<CString>,
    types: Vec<CString>,
    /// Rows of a batch read past the last fetch's end.
    pending: Option<RecordBatch>,
    done: bool,
}

fn boxed<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Opens the database at `path`, or an in-memory one for NULL.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_open(
    path: *const c_char,
    read_only: i32,
    error: *mut swingdb_error,
) -> *mut swingdb_database {
    guarded(error, null_mut(), || {
        let options = OpenOptions { read_only: read_only != 0, ..OpenOptions::default() };
        if path.is_null() {
            return Ok(boxed(swingdb_database { db: Database::in_memory_with(options)?, path: None }));
        }
        // SAFETY: per the contract.
        let path = unsafe { text(path, "the database path") }?;
        let db = Database::open(path, options)?;
        let shown = CString::new(db.path().to_string_lossy().as_bytes()).ok();
        Ok(boxed(swingdb_database { db, path: shown }))
    })
}

/// Attaches the shared snapshot `name`.
///
/// # Safety
/// `name` is a NUL-terminated string; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_attach(
    name: *const c_char,
    read_only: i32,
    error: *mut swingdb_error,
) -> *mut swingdb_database {
    guarded(error, null_mut(), || {
        // SAFETY: per the contract.
        let name = unsafe { text(name, "the snapshot name") }?;
        let db = Database::attach(name, OpenOptions { read_only: read_only != 0, ..OpenOptions::default() })?;
        let shown = CString::new(db.path().to_string_lossy().as_bytes()).ok();
        Ok(boxed(swingdb_database { db, path: shown }))
    })
}

/// Closes a database handle (its connections and results stay usable).
///
/// # Safety
/// `db` is NULL or a handle from swingdb_open / swingdb_attach, freed once.
#[no_mangle]
pub unsafe extern "C" fn swingdb_database_free(db: *mut swingdb_database) {
    if !db.is_null() {
        // SAFETY: per the contract, made by Box::into_raw.
        drop(unsafe { Box::from_raw(db) });
    }
}

/// The database's directory, or NULL for an in-memory one.
///
/// # Safety
/// `db` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_database_path(db: *const swingdb_database) -> *const c_char {
    // SAFETY: per the contract.
    let db = unsafe { &*db };
    match (&db.path, db.db.is_in_memory()) {
        (Some(path), false) => path.as_ptr(),
        _ => std::ptr::null(),
    }
}

/// The committed version of the database.
///
/// # Safety
/// `db` is a live handle; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_database_version(db: *const swingdb_database, error: *mut swingdb_error) -> i64 {
    // SAFETY: per the contract.
    let db = unsafe { &*db };
    guarded(error, -1, || Ok(db.db.version()? as i64))
}

/// A new connection to `db`.
///
/// # Safety
/// `db` is a live handle; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_connect(
    db: *const swingdb_database,
    error: *mut swingdb_error,
) -> *mut swingdb_connection {
    // SAFETY: per the contract.
    let db = unsafe { &*db };
    guarded(error, null_mut(), || {
        let con = db.db.connect()?;
        let interrupt = con.interrupt_handle();
        Ok(boxed(swingdb_connection { con, interrupt }))
    })
}

/// Closes a connection; an open transaction is rolled back.
///
/// # Safety
/// `con` is NULL or a handle from swingdb_connect, freed once.
#[no_mangle]
pub unsafe extern "C" fn swingdb_connection_free(con: *mut swingdb_connection) {
    if !con.is_null() {
        // SAFETY: per the contract, made by Box::into_raw.
        drop(unsafe { Box::from_raw(con) });
    }
}

/// Whether an explicit transaction is open.
///
/// # Safety
/// `con` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_in_transaction(con: *const swingdb_connection) -> i32 {
    // SAFETY: per the contract.
    i32::from(unsafe { &*con }.con.in_transaction())
}

/// Cancels what the connection runs now.
///
/// # Safety
/// `con` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_interrupt(con: *const swingdb_connection) {
    // SAFETY: per the contract.
    unsafe { &*con }.interrupt.interrupt();
}

/// Installs the process-wide stop check (Ctrl-C).
#[no_mangle]
pub extern "C" fn swingdb_set_signal_check(check: Option<extern "C" fn() -> i32>) {
    if let Some(check) = check {
        swingdb::set_signal_check(Box::new(move || check() != 0));
    }
}

/// Runs one statement.
///
/// # Safety
/// `con` is a live handle, `sql` a NUL-terminated string, `params` points at
/// `nparams` values (or is NULL with 0); `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_execute(
    con: *const swingdb_connection,
    sql: *const c_char,
    params: *const swingdb_value,
    nparams: usize,
    error: *mut swingdb_error,
) -> *mut swingdb_result {
    // SAFETY: per the contract.
    let con = unsafe { &*con };
    guarded(error, null_mut(), || {
        // SAFETY: per the contract.
        let sql = unsafe { text(sql, "the statement") }?;
        let params = if nparams == 0 {
            Vec::new()
        } else {
            // SAFETY: per the contract.
            params_of(unsafe { std::slice::from_raw_parts(params, nparams) })?
        };
        let result = con.con.execute(sql, &params)?.gathered();
        Ok(boxed(result_of(result)))
    })
}

fn result_of(result: QueryResult) -> swingdb_result {
    let schema = result.schema();
    let c = |s: &str| CString::new(s.replace('\0', " ")).unwrap_or_default();
    let names = schema.fields().iter().map(|f| c(f.name())).collect();
    let types = schema.fields().iter().map(|f| c(&swingdb::sql_type_name(f.data_type()))).collect();
    let done = result.rows_affected().is_some();
    swingdb_result { result, schema, names, types, pending: None, done }
}

/// Frees a result (columns taken from it stay valid).
///
/// # Safety
/// `result` is NULL or a handle from swingdb_execute, freed once.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_free(result: *mut swingdb_result) {
    if !result.is_null() {
        // SAFETY: per the contract, made by Box::into_raw.
        drop(unsafe { Box::from_raw(result) });
    }
}

/// Rows a DML statement changed, or -1 for a query.
///
/// # Safety
/// `result` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_rows_affected(result: *const swingdb_result) -> i64 {
    // SAFETY: per the contract.
    unsafe { &*result }.result.rows_affected().map_or(-1, |n| n as i64)
}

/// The number of result columns.
///
/// # Safety
/// `result` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_ncol(result: *const swingdb_result) -> usize {
    // SAFETY: per the contract.
    unsafe { &*result }.names.len()
}

/// Column `i`'s name.
///
/// # Safety
/// `result` is a live handle and `i` below its column count.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_column_name(result: *const swingdb_result, i: usize) -> *const c_char {
    // SAFETY: per the contract.
    unsafe { &*result }.names[i].as_ptr()
}

/// Column `i`'s SQL type name.
///
/// # Safety
/// `result` is a live handle and `i` below its column count.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_column_type(result: *const swingdb_result, i: usize) -> *const c_char {
    // SAFETY: per the contract.
    unsafe { &*result }.types[i].as_ptr()
}

/// The kind column `i` arrives as.
///
/// # Safety
/// `result` is a live handle and `i` below its column count.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_column_kind(result: *const swingdb_result, i: usize) -> i32 {
    // SAFETY: per the contract.
    kind_of(unsafe { &*result }.schema.field(i).data_type())
}

/// Whether every row was fetched.
///
/// # Safety
/// `result` is a live handle.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_done(result: *const swingdb_result) -> i32 {
    // SAFETY: per the contract.
    let result = unsafe { &*result };
    i32::from(result.done && result.pending.is_none())
}

/// The next rows, at most `max_rows` (all when negative).
///
/// # Safety
/// `result` is a live handle, `rows` writable; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_result_fetch(
    result: *mut swingdb_result,
    max_rows: i64,
    rows: *mut i64,
    error: *mut swingdb_error,
) -> *mut swingdb_chunk {
    // SAFETY: per the contract.
    let result = unsafe { &mut *result };
    guarded(error, null_mut(), || {
        let batch = fetch(result, usize::try_from(max_rows).ok())?;
        // SAFETY: per the contract.
        unsafe { *rows = batch.num_rows() as i64 };
        Ok(boxed(swingdb_chunk::of(batch.columns().to_vec())))
    })
}

/// Up to `limit` rows (all for None) as one batch, each column one array.
fn fetch(result: &mut swingdb_result, limit: Option<usize>) -> swingdb::Result<RecordBatch> {
    let mut parts: Vec<RecordBatch> = Vec::new();
    let mut have = 0usize;
    while limit.is_none_or(|limit| have < limit) {
        let next = match result.pending.take() {
            Some(batch) => Some(batch),
            None if result.done => None,
            None => result.result.next_batch()?,
        };
        let Some(batch) = next else {
            result.done = true;
            break;
        };
        have += batch.num_rows();
        parts.push(batch);
    }
    if let Some(limit) = limit {
        if have > limit {
            let last = parts.pop().expect("rows beyond the limit came in a batch");
            let keep = last.num_rows() - (have - limit);
            parts.push(last.slice(0, keep));
            result.pending = Some(last.slice(keep, last.num_rows() - keep));
        }
    }
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one part"));
    }
    if parts.is_empty() {
        return Ok(RecordBatch::new_empty(result.schema.clone()));
    }
    // Several batches: each column becomes one array (a copy; a gathered
    // result of stored data arrives as one batch and is not copied).
    let columns = (0..result.schema.fields().len())
        .map(|i| {
            let arrays: Vec<&dyn Array> = parts.iter().map(|b| b.column(i).as_ref()).collect();
            concat(&arrays)
        })
        .collect::<Result<Vec<ArrayRef>, _>>()
        .map_err(Error::from)?;
    RecordBatch::try_new(result.schema.clone(), columns).map_err(Error::from)
}

/// Publishes what the connection sees as the snapshot `name` (see the core's
/// `Connection::share`); returns its rows, or -1 on failure.
///
/// # Safety
/// `con` is a live handle, `name` a NUL-terminated string; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_share(
    con: *const swingdb_connection,
    name: *const c_char,
    persist: i32,
    replace: i32,
    error: *mut swingdb_error,
) -> i64 {
    // SAFETY: per the contract.
    let con = unsafe { &*con };
    guarded(error, -1, || {
        // SAFETY: per the contract.
        let name = unsafe { text(name, "the snapshot name") }?;
        let info = con.con.share(name, ShareOptions { persist: persist != 0, replace: replace != 0 })?;
        Ok(info.rows as i64)
    })
}

/// The tables and views the connection sees, as one TEXT column.
///
/// # Safety
/// `con` is a live handle; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_table_names(
    con: *const swingdb_connection,
    error: *mut swingdb_error,
) -> *mut swingdb_chunk {
    // SAFETY: per the contract.
    let con = unsafe { &*con };
    guarded(error, null_mut(), || {
        let names = StringArray::from(con.con.table_names()?);
        Ok(boxed(swingdb_chunk::of(vec![std::sync::Arc::new(names) as ArrayRef])))
    })
}

/// The connection behind a handle, for the input module.
pub(crate) fn connection(con: &swingdb_connection) -> &Connection {
    &con.con
}
