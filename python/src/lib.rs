//! `swingdb._swingdb`: the Python extension module. A thin face over the core:
//! it converts arguments, maps errors onto the DB-API exceptions, releases the
//! GIL while the engine works, and exports results through the Arrow C stream
//! interface (`__arrow_c_stream__`), so no result byte is copied on the way.

mod arrow_py;
mod convert;
mod udf;

/// Large allocations on huge pages (see `swingdb::LargeOnHugePages`).
#[global_allocator]
static ALLOCATOR: swingdb::LargeOnHugePages = swingdb::LargeOnHugePages;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyCapsule, PyDict, PyFloat, PyInt, PyString, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use swingdb::arrow::array::RecordBatchReader;
use swingdb::arrow::datatypes::{i256, SchemaRef};
use swingdb::arrow::error::ArrowError;
use swingdb::arrow::ffi::FFI_ArrowSchema;
use swingdb::arrow::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::datafusion::scalar::ScalarValue;
use swingdb::{ErrorKind, OpenOptions};

create_exception!(_swingdb, Warning, PyException, "DB-API Warning.");
create_exception!(_swingdb, Error, PyException, "Base class of all swingdb errors (DB-API Error).");
create_exception!(_swingdb, InterfaceError, Error, "Misuse of the swingdb interface.");
create_exception!(_swingdb, DatabaseError, Error, "An error of the database.");
create_exception!(
    _swingdb,
    DataError,
    DatabaseError,
    "A value does not fit (wrong type, out of range, division by zero)."
);
create_exception!(
    _swingdb,
    OperationalError,
    DatabaseError,
    "The database could not do what was asked (I/O, read-only, missing file)."
);
create_exception!(
    _swingdb,
    IntegrityError,
    DatabaseError,
    "A constraint was violated (e.g. NULL into a NOT NULL column)."
);
create_exception!(_swingdb, InternalError, DatabaseError, "A bug in swingdb; please report it.");
create_exception!(
    _swingdb,
    ProgrammingError,
    DatabaseError,
    "Bad SQL or API use: syntax error, unknown table or column."
);
create_exception!(_swingdb, NotSupportedError, DatabaseError, "Valid SQL that swingdb does not support yet.");
create_exception!(
    _swingdb,
    ConflictError,
    OperationalError,
    "Another transaction committed a conflicting change first; retry."
);
create_exception!(_swingdb, CorruptionError, DatabaseError, "A stored file is damaged; the message names it.");
create_exception!(
    _swingdb,
    InterruptError,
    OperationalError,
    "The statement was cancelled by `interrupt()`; nothing it did was kept."
);

thread_local! {
    /// The exception a signal handler raised (KeyboardInterrupt for Ctrl-C)
    /// while this thread's statement ran: the statement is cancelled and this
    /// is what Python sees instead of `InterruptError`.
    static SIGNALLED: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// The engine's signal check: runs Python's signal handlers (only the main
/// thread has any, so other threads answer at once without taking the GIL).
/// An exception one raises cancels the running statement and is kept to be
/// raised in its place.
fn check_python_signals() -> bool {
    // SAFETY: plain system calls without arguments.
    if unsafe { libc::gettid() != libc::getpid() } {
        return false;
    }
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(raised) => {
            SIGNALLED.with(|s| *s.borrow_mut() = Some(raised));
            true
        }
    })
}

fn to_py(err: swingdb::Error) -> PyErr {
    let msg = err.message().to_string();
    match err.kind() {
        ErrorKind::Programming => ProgrammingError::new_err(msg),
        ErrorKind::Data => DataError::new_err(msg),
        ErrorKind::Integrity => IntegrityError::new_err(msg),
        ErrorKind::Operational => OperationalError::new_err(msg),
        ErrorKind::Conflict => ConflictError::new_err(msg),
        ErrorKind::Corruption => CorruptionError::new_err(msg),
        ErrorKind::NotSupported => NotSupportedError::new_err(msg),
        ErrorKind::Internal => InternalError::new_err(msg),
        ErrorKind::Interrupted => {
            SIGNALLED.with(|s| s.borrow_mut().take()).unwrap_or_else(|| InterruptError::new_err(msg))
        }
    }
}

/// Runs `f`, turning core errors into Python exceptions and a panic (a bug)
/// into `InternalError` instead of unwinding into Python. Call it without the GIL.
fn guarded<T>(f: impl FnOnce() -> swingdb::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!("internal error (please report): {what}")))
        }
    }
}

/// [`guarded`], with the GIL released while the engine works.
fn engine<T: Send>(py: Python<'_>, f: impl FnOnce() -> swingdb::Result<T> + Send) -> PyResult<T> {
    py.detach(|| guarded(f))
}

/// Converts one Python parameter value. Dates, datetimes and decimals arrive
/// from the Python layer as tagged tuples.
fn scalar(index: usize, value: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    if value.is_none() {
        return Ok(ScalarValue::Null);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(ScalarValue::Boolean(Some(value.extract()?)));
    }
    if value.is_instance_of::<PyInt>() {
        return match value.extract::<i64>() {
            Ok(v) => Ok(ScalarValue::Int64(Some(v))),
            Err(_) => {
                Err(DataError::new_err(format!("parameter {} ({value}) does not fit in a 64-bit integer", index + 1)))
            }
        };
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(ScalarValue::Float64(Some(value.extract()?)));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(ScalarValue::Utf8(Some(value.extract()?)));
    }
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(ScalarValue::Binary(Some(bytes.as_bytes().to_vec())));
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        // Tagged values from the Python layer; anything else is the caller's mistake.
        return tagged(index, tuple).map_err(|e| {
            let py = tuple.py();
            if e.is_instance_of::<DataError>(py) {
                return e; // a tagged value that does not fit (a decimal too large)
            }
            ProgrammingError::new_err(format!("parameter {} has unsupported type tuple; use None, bool, int, float, str, bytes, date, datetime or Decimal", index + 1))
        });
    }
    Err(ProgrammingError::new_err(format!(
        "parameter {} has unsupported type {}; use None, bool, int, float, str, bytes, date, datetime or Decimal",
        index + 1,
        value.get_type().name()?
    )))
}

/// A file-reading option's value: a list of strings (`names`) as a list, a
/// dict of strings (`columns`, `types`) as a struct, anything else as a
/// parameter.
fn option_value(index: usize, value: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
    use swingdb::arrow::datatypes::{DataType, Field};
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut fields = swingdb::datafusion::common::scalar::ScalarStructBuilder::new();
        for (key, item) in dict.iter() {
            let (key, item): (String, String) = (key.extract()?, item.extract()?);
            fields = fields.with_scalar(Field::new(key, DataType::Utf8, true), ScalarValue::Utf8(Some(item)));
        }
        return fields.build().map_err(|e| ProgrammingError::new_err(e.to_string()));
    }
    if value.is_instance_of::<pyo3::types::PyList>() {
        let items: Vec<String> = value.extract()?;
        let items: Vec<ScalarValue> = items.into_iter().map(|s| ScalarValue::Utf8(Some(s))).collect();
        return Ok(ScalarValue::List(ScalarValue::new_list_nullable(&items, &DataType::Utf8)));
    }
    scalar(index, value)
}

/// A tagged tuple of the Python layer (`("date", days)`, ...) as a value.
fn tagged(index: usize, tuple: &Bound<'_, PyTuple>) -> PyResult<ScalarValue> {
    {
        let tag: String = tuple.get_item(0)?.extract()?;
        match tag.as_str() {
            "timestamp" => {
                let micros: i64 = tuple.get_item(1)?.extract()?;
                let tz: Option<String> = tuple.get_item(2)?.extract()?;
                return Ok(ScalarValue::TimestampMicrosecond(Some(micros), tz.map(Into::into)));
            }
            "date" => return Ok(ScalarValue::Date32(Some(tuple.get_item(1)?.extract()?))),
            "decimal" => {
                let digits: String = tuple.get_item(1)?.extract()?;
                let scale: i8 = tuple.get_item(2)?.extract()?;
                let precision = digits.trim_start_matches('-').len().max(scale as usize).max(1) as u8;
                if precision <= 38 {
                    let v: i128 = digits
                        .parse()
                        .map_err(|_| DataError::new_err(format!("parameter {}: bad decimal", index + 1)))?;
                    return Ok(ScalarValue::Decimal128(Some(v), precision, scale));
                }
                let v = i256::from_string(&digits)
                    .ok_or_else(|| DataError::new_err(format!("parameter {}: decimal too large", index + 1)))?;
                return Ok(ScalarValue::Decimal256(Some(v), precision.min(76), scale));
            }
            _ => {}
        }
    }
    Err(ProgrammingError::new_err("not a tagged value"))
}

/// A reader that turns a panic (a bug) into an error: the C stream interface
/// calls it from foreign code, where unwinding would abort the process.
/// The first error it meets is also kept in `error`, so that the Python side
/// can raise it as its DB-API class (through the C interface only its text
/// travels, and pyarrow would raise its own exception types).
struct PanicSafe {
    result: swingdb::QueryResult,
    error: Arc<Mutex<Option<swingdb::Error>>>,
}

impl Iterator for PanicSafe {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        let item = catch_unwind(AssertUnwindSafe(|| self.result.next())).unwrap_or_else(|_| {
            Some(Err(ArrowError::ExternalError(Box::new(swingdb::Error::internal(
                "internal error (please report): panic while reading a result",
            )))))
        });
        match item {
            Some(Err(e)) => {
                let err = swingdb::Error::from(e);
                let message = err.message().to_string();
                self.error.lock().unwrap().get_or_insert(err);
                Some(Err(ArrowError::ExternalError(message.into())))
            }
            other => other,
        }
    }
}

impl RecordBatchReader for PanicSafe {
    fn schema(&self) -> SchemaRef {
        self.result.schema()
    }
}

/// Imports an object with `__arrow_c_stream__` as batches, sharing its buffers.
fn import_stream(py: Python<'_>, name: &str, data: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    let capsule = data.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| ProgrammingError::new_err("__arrow_c_stream__ did not return a capsule"))?;
    let raw = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule holds an ArrowArrayStream (checked by name); from_raw
    // moves it out and leaves a released stream behind for the capsule to drop.
    let reader = unsafe { ArrowArrayStreamReader::from_raw(raw.as_ptr().cast()) }
        .map_err(|e| DataError::new_err(format!("cannot import '{name}' as Arrow data: {e}")))?;
    let schema = reader.schema();
    let batches = py
        .detach(|| reader.collect::<Result<Vec<_>, _>>())
        .map_err(|e| DataError::new_err(format!("cannot import '{name}' as Arrow data: {e}")))?;
    Ok((schema, batches))
}

/// A progress hook that calls a Python callable with the rows stored so far.
fn progress_hook(progress: Option<Py<PyAny>>) -> Option<swingdb::ProgressHook> {
    progress.map(|callback| {
        Arc::new(move |rows: u64| {
            Python::attach(|py| {
                // A failing progress callback must not fail the load.
                let _ = callback.call1(py, (rows,));
            })
        }) as swingdb::ProgressHook
    })
}

/// An open database handle.
#[pyclass(name = "Database", module = "swingdb._swingdb", frozen)]
struct PyDatabase {
    db: swingdb::Database,
}

#[pymethods]
impl PyDatabase {
    #[new]
    #[pyo3(signature = (path=None, read_only=false, verify_checksums=true, external_access=true))]
    fn new(
        py: Python<'_>,
        path: Option<String>,
        read_only: bool,
        verify_checksums: bool,
        external_access: bool,
    ) -> PyResult<Self> {
        let options = OpenOptions { read_only, create: true, verify_checksums, external_access };
        let db = engine(py, || match path {
            None => swingdb::Database::in_memory_with(options),
            Some(p) => swingdb::Database::open(p, options),
        })?;
        Ok(Self { db })
    }

    /// A new connection.
    fn connect(&self, py: Python<'_>) -> PyResult<PyConnection> {
        let con = engine(py, || self.db.connect())?;
        let interrupt = con.interrupt_handle();
        Ok(PyConnection { con: Mutex::new(Some(con)), interrupt })
    }

    /// The database directory.
    #[getter]
    fn path(&self) -> String {
        self.db.path().display().to_string()
    }

    /// Whether this is a private in-memory database.
    #[getter]
    fn in_memory(&self) -> bool {
        self.db.is_in_memory()
    }

    /// The newest committed version.
    fn version(&self, py: Python<'_>) -> PyResult<u64> {
        engine(py, || self.db.version())
    }

    /// Checks size, checksum and structure of every segment of the newest version.
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = engine(py, || self.db.verify())?;
        let d = PyDict::new(py);
        d.set_item("version", r.version)?;
        d.set_item("tables", r.tables)?;
        d.set_item("segments", r.segments)?;
        d.set_item("rows", r.rows)?;
        Ok(d)
    }

    /// Removes old versions and segments that no reader pins.
    fn collect_garbage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = engine(py, || self.db.collect_garbage())?;
        let d = PyDict::new(py);
        d.set_item("manifests", r.manifests)?;
        d.set_item("segments", r.segments)?;
        d.set_item("leases", r.leases)?;
        Ok(d)
    }
}

/// A connection: runs SQL.
#[pyclass(name = "Connection", module = "swingdb._swingdb", frozen)]
struct PyConnection {
    con: Mutex<Option<swingdb::Connection>>,
    /// Kept outside the lock, which the running statement holds.
    interrupt: swingdb::Interrupt,
}

impl PyConnection {
    /// Runs `f` on the connection. The GIL is released *before* waiting for the
    /// connection's lock: a thread that waits for another thread's statement
    /// must not hold the GIL that statement needs to hand back its result.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&swingdb::Connection) -> swingdb::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let guard = self.con.lock().unwrap();
            let con = guard.as_ref().ok_or_else(|| ProgrammingError::new_err("the connection is closed"))?;
            guarded(|| f(con))
        })
    }
}

#[pymethods]
impl PyConnection {
    /// Runs SQL with positional parameters; returns a result. `progress`, if
    /// given, is called with the number of rows stored so far.
    #[pyo3(signature = (sql, params=None, progress=None))]
    fn execute(
        &self,
        py: Python<'_>,
        sql: String,
        params: Option<Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<PyResult_> {
        // A dict names its values ($name / :name placeholders); they are
        // numbered like positional ones before the statement is parsed.
        let mut sql = sql;
        let values = match params {
            None => Vec::new(),
            Some(named) if named.is_instance_of::<PyDict>() => {
                let named = named.cast::<PyDict>()?;
                let pairs = named
                    .iter()
                    .enumerate()
                    .map(|(i, (k, v))| Ok((k.extract::<String>()?, scalar(i, &v)?)))
                    .collect::<PyResult<Vec<_>>>()?;
                let (numbered, values) = py.detach(|| swingdb::name_placeholders(&sql, &pairs)).map_err(to_py)?;
                sql = numbered;
                values
            }
            Some(list) => list
                .extract::<Vec<Bound<'_, PyAny>>>()?
                .iter()
                .enumerate()
                .map(|(i, v)| scalar(i, v))
                .collect::<PyResult<Vec<_>>>()?,
        };
        let hook = progress_hook(progress);
        let has_hook = hook.is_some();
        let result = self.with(py, |c| {
            c.set_progress(hook);
            let result = c.execute(&sql, &values);
            if has_hook {
                c.set_progress(None);
            }
            result
        })?;
        Ok(PyResult_::new(result))
    }

    /// Publishes what this connection sees as snapshot `name`; returns its description.
    #[pyo3(signature = (name, persist=false, replace=false))]
    fn share<'py>(&self, py: Python<'py>, name: String, persist: bool, replace: bool) -> PyResult<Bound<'py, PyDict>> {
        let info = self.with(py, |c| c.share(&name, swingdb::ShareOptions { persist, replace }))?;
        snapshot_dict(py, &info)
    }

    /// Sends the table `source` (`is_table`) or the rows of the query `source`
    /// into pipe `url` (a name or `db://...`; `options` as `(key, value)`
    /// pairs); waits for the importer. Returns the rows it took.
    #[pyo3(signature = (url, source, is_table, options=Vec::new()))]
    fn pipe_to(
        &self,
        py: Python<'_>,
        url: String,
        source: String,
        is_table: bool,
        options: Vec<(String, String)>,
    ) -> PyResult<u64> {
        let url = pipe_url(&url, options)?;
        self.with(py, |c| {
            let source =
                if is_table { swingdb::PipeSource::Table(&source) } else { swingdb::PipeSource::Query(&source) };
            c.pipe_to(&url, source)
        })
    }

    /// Receives pipe `url` into table `table` (new with `create`, else
    /// appended to); waits for the exporter. Returns the rows.
    #[pyo3(signature = (url, table, create, options=Vec::new()))]
    fn pipe_from(
        &self,
        py: Python<'_>,
        url: String,
        table: String,
        create: bool,
        options: Vec<(String, String)>,
    ) -> PyResult<u64> {
        let url = pipe_url(&url, options)?;
        self.with(py, |c| c.pipe_from(&url, &table, create))
    }

    /// Makes an object with `__arrow_c_stream__` queryable as table `name`,
    /// sharing its buffers (nothing is copied).
    fn register(&self, py: Python<'_>, name: String, data: Bound<'_, PyAny>) -> PyResult<()> {
        let (schema, batches) = import_stream(py, &name, &data)?;
        self.with(py, |c| c.register(&name, schema, batches))
    }

    /// Stores `data` (with `__arrow_c_stream__`) as the new table `name`
    /// (`create`) or appends it; the name is passed as a name, never as SQL.
    /// Returns the rows stored.
    #[pyo3(signature = (name, data, create, progress=None))]
    fn store(
        &self,
        py: Python<'_>,
        name: String,
        data: Bound<'_, PyAny>,
        create: bool,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<u64> {
        let (schema, batches) = import_stream(py, &name, &data)?;
        let hook = progress_hook(progress);
        let has_hook = hook.is_some();
        self.with(py, |c| {
            c.set_progress(hook);
            let result = c.store(&name, schema, batches, create);
            if has_hook {
                c.set_progress(None);
            }
            Ok(result?.rows_affected().unwrap_or(0))
        })
    }

    /// Removes a registration; returns whether there was one.
    fn unregister(&self, py: Python<'_>, name: String) -> PyResult<bool> {
        self.with(py, |c| Ok(c.unregister(&name)))
    }

    /// How many statements were answered from a plan kept from an earlier
    /// run of the same query (for tests).
    fn _cached_plan_uses(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |c| Ok(c.cached_plan_uses()))
    }

    /// Turns the short way of single-row parameterised INSERTs on or off (for tests).
    fn _set_fast_inserts(&self, py: Python<'_>, on: bool) -> PyResult<()> {
        self.with(py, |c| {
            c.set_fast_inserts(on);
            Ok(())
        })
    }

    /// Makes the Python callable `call` the SQL function `name`. `types` is a
    /// pyarrow schema: one field per parameter, then the answer's. `call`
    /// takes the number of rows and one pyarrow array per parameter and
    /// answers an array.
    fn create_function(
        &self,
        py: Python<'_>,
        name: String,
        call: Py<PyAny>,
        types: Bound<'_, PyAny>,
        volatile: bool,
    ) -> PyResult<()> {
        let capsule = types.call_method0("__arrow_c_schema__")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let raw = capsule.pointer_checked(Some(c"arrow_schema"))?;
        // SAFETY: the capsule holds an ArrowSchema (checked by name); it is only read.
        let ffi = unsafe { &*(raw.as_ptr() as *const FFI_ArrowSchema) };
        let schema =
            swingdb::arrow::datatypes::Schema::try_from(ffi).map_err(|e| ProgrammingError::new_err(e.to_string()))?;
        let mut types: Vec<_> = schema.fields().iter().map(|f| f.data_type().clone()).collect();
        let returns =
            types.pop().ok_or_else(|| ProgrammingError::new_err("create_function needs the answer's type"))?;
        let function = udf::PythonFunction::new(name.to_lowercase(), call, types, returns, volatile);
        self.with(py, |c| {
            c.session().register_udf(swingdb::datafusion::logical_expr::ScalarUDF::new_from_impl(function));
            Ok(())
        })
    }

    /// Sets (None: removes) the callable that shows the progress of
    /// statements running longer than `after` seconds: called with
    /// (rows, bytes, total rows or None, seconds so far), and with no
    /// arguments when the statement ends.
    fn set_progress_display(&self, display: Option<Py<PyAny>>, after: f64) {
        let display = display.map(|callback| {
            Arc::new(move |report: Option<&swingdb::ProgressReport>| {
                Python::attach(|py| {
                    // A failing display must not fail the statement.
                    let _ = match report {
                        Some(r) => callback.call1(py, (r.rows, r.bytes, r.total_rows, r.elapsed.as_secs_f64())),
                        None => callback.call0(py),
                    };
                })
            }) as swingdb::ProgressDisplay
        });
        self.interrupt.set_progress_display(display, std::time::Duration::from_secs_f64(after.max(0.0)));
    }

    /// Makes the file(s) at `path` (kind: csv, parquet, json, arrow), read
    /// with `options` (read_csv's, by name), queryable as `name` (see
    /// `register`); neither becomes SQL text.
    fn register_file(
        &self,
        py: Python<'_>,
        name: String,
        path: String,
        kind: String,
        options: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<()> {
        use swingdb::{FileKind, ReadOptions};
        let kind = FileKind::from_name(&kind)
            .ok_or_else(|| ProgrammingError::new_err(format!("unknown file kind '{kind}'")))?;
        let mut read = ReadOptions::default();
        for (i, (name, value)) in options.iter().enumerate() {
            read.set(kind.function_name(), name, &option_value(i, value)?).map_err(|e| to_py(e.into()))?;
        }
        self.with(py, |c| c.register_file(&name, &path, kind, &read))
    }

    /// Removes the SQL function `name` made by create_function.
    fn remove_function(&self, py: Python<'_>, name: String) -> PyResult<()> {
        self.with(py, |c| {
            c.session().deregister_udf(&name.to_lowercase());
            Ok(())
        })
    }

    /// Cancels the statement or fetch running on this connection (from any
    /// thread); it raises InterruptError and keeps nothing.
    fn interrupt(&self) {
        self.interrupt.interrupt();
    }

    /// Whether an explicit transaction is open.
    #[getter]
    fn in_transaction(&self, py: Python<'_>) -> bool {
        py.detach(|| self.con.lock().unwrap().as_ref().is_some_and(|c| c.in_transaction()))
    }

    /// Names of the tables.
    fn table_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with(py, |c| c.table_names())
    }

    /// Closes the connection, rolling back an open transaction.
    fn close(&self, py: Python<'_>) {
        py.detach(|| drop(self.con.lock().unwrap().take()));
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.con.lock().unwrap().is_none())
    }
}

/// The result of one statement; export it with `__arrow_c_stream__`.
#[pyclass(name = "Result", module = "swingdb._swingdb", frozen)]
struct PyResult_ {
    result: Mutex<Option<swingdb::QueryResult>>,
    /// The error that ended the exported stream, if one did.
    error: Arc<Mutex<Option<swingdb::Error>>>,
}

impl PyResult_ {
    fn new(result: swingdb::QueryResult) -> Self {
        Self { result: Mutex::new(Some(result)), error: Arc::default() }
    }
}

#[pymethods]
impl PyResult_ {
    /// Rows changed by an INSERT, UPDATE or DELETE, else None.
    #[getter]
    fn rows_affected(&self) -> Option<u64> {
        self.result.lock().unwrap().as_ref().and_then(|r| r.rows_affected())
    }

    /// The error that ended the exported stream as its DB-API exception
    /// (not raised), or None.
    fn stream_error(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.error.lock().unwrap().clone().map(|e| to_py(e).into_value(py).into_any())
    }

    /// Marks the result as read whole: consecutive computed batches of
    /// fixed-width columns then arrive as one, so numpy can view them.
    fn read_whole(&self) {
        let mut guard = self.result.lock().unwrap();
        if let Some(result) = guard.take() {
            *guard = Some(result.gathered());
        }
    }

    /// Each column's type as SQL names it (`BIGINT`, `DECIMAL(10,2)`, `VARCHAR`).
    fn sql_types(&self) -> PyResult<Vec<String>> {
        let guard = self.result.lock().unwrap();
        let result = guard.as_ref().ok_or_else(|| InterfaceError::new_err("this result was already consumed"))?;
        Ok(result.schema().fields().iter().map(|f| swingdb::sql_type_name(f.data_type())).collect())
    }

    /// The Arrow schema, as a PyCapsule (Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let guard = self.result.lock().unwrap();
        let result = guard.as_ref().ok_or_else(|| InterfaceError::new_err("this result was already consumed"))?;
        let schema = result.schema();
        if let Some(field) = schema.fields().iter().find(|f| f.name().contains('\0')) {
            // Arrow's C interface carries names as C strings.
            return Err(ProgrammingError::new_err(format!(
                "result column {:?} contains a NUL character, which cannot be handed to Python; rename it with AS",
                field.name()
            )));
        }
        let schema = FFI_ArrowSchema::try_from(schema.as_ref()).map_err(|e| InternalError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// Exports the rows as an Arrow C stream (consumes the result). Batches are
    /// handed over by reference: no buffer is copied.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        if requested_schema.is_some_and(|s| !s.is_none()) {
            return Err(NotSupportedError::new_err("requested_schema is not supported; cast after import"));
        }
        let result = self
            .result
            .lock()
            .unwrap()
            .take()
            .ok_or_else(|| InterfaceError::new_err("this result was already consumed"))?;
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(PanicSafe { result, error: self.error.clone() });
        PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), c"arrow_array_stream")
    }
}

fn snapshot_dict<'py>(py: Python<'py>, info: &swingdb::SnapshotInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &info.name)?;
    d.set_item("path", info.path.display().to_string())?;
    d.set_item("persist", info.persist)?;
    d.set_item("pid", info.pid)?;
    d.set_item("source", &info.source)?;
    d.set_item("tables", info.tables.clone())?;
    d.set_item("rows", info.rows)?;
    d.set_item("bytes", info.bytes)?;
    d.set_item("created", info.created)?;
    d.set_item("attached", info.attached)?;
    d.set_item("damaged", &info.damaged)?;
    Ok(d)
}

/// Attaches snapshot `name` as a new private database of this process.
#[pyfunction]
#[pyo3(signature = (name, verify_checksums=true, external_access=true))]
fn attach(py: Python<'_>, name: String, verify_checksums: bool, external_access: bool) -> PyResult<PyDatabase> {
    let options = OpenOptions { read_only: false, create: false, verify_checksums, external_access };
    let db = engine(py, || swingdb::Database::attach(&name, options))?;
    Ok(PyDatabase { db })
}

/// The snapshots of this user that can be attached.
#[pyfunction]
fn snapshots(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let list = engine(py, swingdb::Database::snapshots)?;
    list.iter().map(|info| snapshot_dict(py, info)).collect()
}

/// Removes snapshot `name`; databases attached from it keep what they have.
#[pyfunction]
fn discard(py: Python<'_>, name: String) -> PyResult<()> {
    engine(py, || swingdb::Database::discard(&name))
}

/// A pipe URL from a name or `db://` URL plus keyword options.
fn pipe_url(url: &str, options: Vec<(String, String)>) -> PyResult<swingdb::PipeUrl> {
    use swingdb::PipeUrl;
    let mut parsed = if PipeUrl::is_pipe(url) { PipeUrl::parse(url) } else { PipeUrl::named(url) }.map_err(to_py)?;
    for (key, value) in options {
        parsed.set(&key, &value).map_err(to_py)?;
    }
    Ok(parsed)
}

/// The rows of pipe `url` as a result to stream (waits for the exporter).
#[pyfunction]
#[pyo3(signature = (url, options=Vec::new()))]
fn pipe_reader(py: Python<'_>, url: String, options: Vec<(String, String)>) -> PyResult<PyResult_> {
    let url = pipe_url(&url, options)?;
    let result = engine(py, || swingdb::Database::pipe_reader(&url))?;
    Ok(PyResult_::new(result))
}

/// The ends of pipes waiting for a partner: `(name, role, pid, seconds)`.
#[pyfunction]
fn pipes_waiting(py: Python<'_>) -> PyResult<Vec<(String, String, u32, f64)>> {
    let list = engine(py, || swingdb::waiting_pipes())?;
    Ok(list.into_iter().map(|w| (w.name, w.role.as_str().to_string(), w.pid, w.waited)).collect())
}

/// Writes Arrow data into a pipe (`swingdb.pipe.writer`).
#[pyclass(name = "PipeWriter", module = "swingdb._swingdb", frozen)]
struct PyPipeWriter {
    writer: Mutex<Option<swingdb::PipeWriter>>,
}

#[pymethods]
impl PyPipeWriter {
    /// Meets the importer of `url`; `schema` has `__arrow_c_schema__`.
    #[new]
    #[pyo3(signature = (url, schema, options=Vec::new()))]
    fn new(py: Python<'_>, url: String, schema: Bound<'_, PyAny>, options: Vec<(String, String)>) -> PyResult<Self> {
        let url = pipe_url(&url, options)?;
        let capsule = schema.call_method0("__arrow_c_schema__")?;
        let capsule = capsule
            .cast::<PyCapsule>()
            .map_err(|_| ProgrammingError::new_err("__arrow_c_schema__ did not return a capsule"))?;
        let raw = capsule.pointer_checked(Some(c"arrow_schema"))?;
        // SAFETY: the capsule holds an ArrowSchema (checked by name), borrowed for the conversion.
        let ffi = unsafe { &*(raw.as_ptr() as *const FFI_ArrowSchema) };
        let schema = swingdb::arrow::datatypes::Schema::try_from(ffi)
            .map_err(|e| ProgrammingError::new_err(format!("not an Arrow schema: {e}")))?;
        let writer = engine(py, || swingdb::PipeWriter::open(&url, Arc::new(schema)))?;
        Ok(Self { writer: Mutex::new(Some(writer)) })
    }

    /// Sends every batch of `data` (with `__arrow_c_stream__`) as it is read.
    fn write(&self, py: Python<'_>, data: Bound<'_, PyAny>) -> PyResult<u64> {
        let capsule = data.call_method0("__arrow_c_stream__")?;
        let capsule = capsule
            .cast::<PyCapsule>()
            .map_err(|_| ProgrammingError::new_err("__arrow_c_stream__ did not return a capsule"))?;
        let raw = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
        // SAFETY: as in import_stream.
        let reader = unsafe { ArrowArrayStreamReader::from_raw(raw.as_ptr().cast()) }
            .map_err(|e| DataError::new_err(format!("cannot read the data as Arrow: {e}")))?;
        py.detach(|| {
            let mut guard = self.writer.lock().unwrap();
            let writer = guard.as_mut().ok_or_else(|| ProgrammingError::new_err("this pipe writer is closed"))?;
            let mut rows = 0;
            for batch in reader {
                let batch = batch.map_err(|e| DataError::new_err(format!("reading the data to send: {e}")))?;
                rows += batch.num_rows() as u64;
                guarded(|| writer.write(&batch))?;
            }
            Ok(rows)
        })
    }

    /// Ends the streams and waits for the importer to confirm; the rows it took.
    fn close(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| {
            let writer = self.writer.lock().unwrap().take();
            match writer {
                Some(mut w) => guarded(|| w.close()),
                None => Err(ProgrammingError::new_err("this pipe writer is closed")),
            }
        })
    }

    /// Gives up: the importer fails and keeps nothing.
    #[pyo3(signature = (why="the exporting program gave up".to_string()))]
    fn abort(&self, py: Python<'_>, why: String) {
        py.detach(|| {
            if let Some(mut w) = self.writer.lock().unwrap().take() {
                w.abort(&why);
            }
        })
    }
}

/// The segment file mapped at `address`, as `(fd, offset)` with a new file
/// descriptor the caller must close, or None if no stored segment is mapped there.
#[pyfunction]
fn mapped_file(address: usize) -> Option<(i32, u64)> {
    use std::os::fd::IntoRawFd;
    swingdb::locate_mapped(address).map(|(file, offset)| (file.into_raw_fd(), offset))
}

#[pymodule]
fn _swingdb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    swingdb::set_signal_check(Box::new(check_python_signals));
    m.add_class::<PyDatabase>()?;
    m.add_class::<PyConnection>()?;
    m.add_class::<PyResult_>()?;
    m.add_function(wrap_pyfunction!(mapped_file, m)?)?;
    m.add_function(wrap_pyfunction!(convert::objects, m)?)?;
    m.add_function(wrap_pyfunction!(convert::as_float64, m)?)?;
    m.add_function(wrap_pyfunction!(attach, m)?)?;
    m.add_function(wrap_pyfunction!(snapshots, m)?)?;
    m.add_function(wrap_pyfunction!(discard, m)?)?;
    m.add_function(wrap_pyfunction!(pipe_reader, m)?)?;
    m.add_function(wrap_pyfunction!(pipes_waiting, m)?)?;
    m.add_class::<PyPipeWriter>()?;
    // Whether the linker placed the code of a first use together (see build.rs).
    m.add("_hot_code_first", env!("SWINGDB_HOT_CODE_FIRST") == "true")?;
    for (name, ty) in [
        ("Warning", py.get_type::<Warning>()),
        ("Error", py.get_type::<Error>()),
        ("InterfaceError", py.get_type::<InterfaceError>()),
        ("DatabaseError", py.get_type::<DatabaseError>()),
        ("DataError", py.get_type::<DataError>()),
        ("OperationalError", py.get_type::<OperationalError>()),
        ("IntegrityError", py.get_type::<IntegrityError>()),
        ("InternalError", py.get_type::<InternalError>()),
        ("ProgrammingError", py.get_type::<ProgrammingError>()),
        ("NotSupportedError", py.get_type::<NotSupportedError>()),
        ("ConflictError", py.get_type::<ConflictError>()),
        ("CorruptionError", py.get_type::<CorruptionError>()),
        ("InterruptError", py.get_type::<InterruptError>()),
    ] {
        m.add(name, ty)?;
    }
    Ok(())
}
