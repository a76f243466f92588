//! `Database` and `Connection`: the handles Python holds.

use crate::errors::{engine, guarded, to_py, DataError, ProgrammingError};
use crate::params::{option_value, scalar};
use crate::pipe::pipe_url;
use crate::result::PyResult_;
use crate::snapshot::snapshot_dict;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use std::sync::Arc;
use swingdb::arrow::array::RecordBatchReader;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::arrow::ffi::FFI_ArrowSchema;
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::OpenOptions;

/// Imports an object with `__arrow_c_stream__` as batches, sharing its buffers.
pub(crate) fn import_stream(
    py: Python<'_>,
    name: &str,
    data: &Bound<'_, PyAny>,
) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    let reader = crate::arrow_py::stream_reader(data, &format!("import '{name}' as Arrow data"))?;
    let schema = reader.schema();
    let batches = py
        .detach(|| reader.collect::<Result<Vec<_>, _>>())
        .map_err(|e| DataError::new_err(format!("cannot import '{name}' as Arrow data: {e}")))?;
    Ok((schema, batches))
}

/// A progress hook that calls a Python callable with the rows stored so far.
pub(crate) fn progress_hook(progress: Option<Py<PyAny>>) -> Option<swingdb::ProgressHook> {
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
pub(crate) struct PyDatabase {
    pub(crate) db: swingdb::Database,
}

#[pymethods]
impl PyDatabase {
    #[new]
    #[pyo3(signature = (path=None, read_only=false, verify_checksums=true, external_access=true, recover=false))]
    fn new(
        py: Python<'_>,
        path: Option<String>,
        read_only: bool,
        verify_checksums: bool,
        external_access: bool,
        recover: bool,
    ) -> PyResult<Self> {
        let options = OpenOptions { read_only, create: true, verify_checksums, external_access, recover };
        let db = engine(py, || match path {
            None => swingdb::Database::in_memory_with(options),
            Some(p) => swingdb::Database::open(p, options),
        })?;
        Ok(Self { db })
    }

    /// Attaches snapshot `name` as a new private database of this process.
    #[staticmethod]
    #[pyo3(signature = (name, verify_checksums=true, external_access=true))]
    fn attach(py: Python<'_>, name: String, verify_checksums: bool, external_access: bool) -> PyResult<Self> {
        let options =
            OpenOptions { read_only: false, create: false, verify_checksums, external_access, recover: false };
        let db = engine(py, || swingdb::Database::attach(&name, options))?;
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
pub(crate) struct PyConnection {
    pub(crate) con: Mutex<Option<swingdb::Connection>>,
    /// Kept outside the lock, which the running statement holds.
    pub(crate) interrupt: swingdb::Interrupt,
}

impl PyConnection {
    /// Runs `f` on the connection. The GIL is released *before* waiting for the
    /// connection's lock: a thread that waits for another thread's statement
    /// must not hold the GIL that statement needs to hand back its result.
    pub(crate) fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&swingdb::Connection) -> swingdb::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let guard = self.con.lock();
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

    /// Runs the plain `INSERT ... VALUES (?, ...)` `sql` once per row of
    /// `rows` (lists of positional values) as one statement; the rows it
    /// stored, or `None` (nothing done) when it is to be run row by row.
    fn executemany_insert(
        &self,
        py: Python<'_>,
        sql: String,
        rows: Vec<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<Option<u64>> {
        let values = rows
            .iter()
            .map(|row| row.iter().enumerate().map(|(i, v)| scalar(i, v)).collect::<PyResult<Vec<_>>>())
            .collect::<PyResult<Vec<_>>>()?;
        let done = self.with(py, |c| c.execute_many(&sql, &values))?;
        Ok(done.map(|result| result.rows_affected().unwrap_or(0)))
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

    /// How many times an autocommit statement of this connection ran again
    /// after losing a conflict (for benchmarks and tests).
    fn _conflict_retries(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |c| Ok(c.conflict_retries()))
    }

    /// Turns the short way of single-row parameterised INSERTs on or off (for tests).
    fn _set_fast_inserts(&self, py: Python<'_>, on: bool) -> PyResult<()> {
        self.with(py, |c| {
            c.set_fast_inserts(on);
            Ok(())
        })
    }

    /// How many statements ran by key without planning (for tests).
    fn _keyed_statements(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |c| Ok(c.keyed_statements()))
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
        let function = crate::udf::PythonFunction::new(name.to_lowercase(), call, types, returns, volatile);
        self.with(py, |c| {
            c.session().register_udf(swingdb::datafusion::logical_expr::ScalarUDF::new_from_impl(function));
            Ok(())
        })
    }

    /// Sets how many seconds a statement that commits on its own is run
    /// again after losing a conflict with another commit (0: never).
    fn set_conflict_timeout(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(ProgrammingError::new_err(format!("timeout must be 0 or more seconds, not {seconds}")));
        }
        self.with(py, |c| {
            c.set_conflict_timeout(std::time::Duration::from_secs_f64(seconds));
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
        py.detach(|| self.con.lock().as_ref().is_some_and(|c| c.in_transaction()))
    }

    /// Names of the tables.
    fn table_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.with(py, |c| c.table_names())
    }

    /// Closes the connection, rolling back an open transaction.
    fn close(&self, py: Python<'_>) {
        py.detach(|| drop(self.con.lock().take()));
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.con.lock().is_none())
    }
}
