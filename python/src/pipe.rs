//! Pipes between processes: readers, writers and the waiting list.

use crate::errors::{engine, guarded, to_py, DataError, ProgrammingError};
use crate::result::PyResult_;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Arc;
use swingdb::arrow::ffi::FFI_ArrowSchema;

/// A pipe URL from a name or `db://` URL plus keyword options.
pub(crate) fn pipe_url(url: &str, options: Vec<(String, String)>) -> PyResult<swingdb::PipeUrl> {
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
pub(crate) fn pipe_reader(py: Python<'_>, url: String, options: Vec<(String, String)>) -> PyResult<PyResult_> {
    let url = pipe_url(&url, options)?;
    let result = engine(py, || swingdb::Database::pipe_reader(&url))?;
    Ok(PyResult_::new(result))
}

/// The ends of pipes waiting for a partner: `(name, role, pid, seconds)`.
#[pyfunction]
pub(crate) fn pipes_waiting(py: Python<'_>) -> PyResult<Vec<(String, String, u32, f64)>> {
    let list = engine(py, swingdb::waiting_pipes)?;
    Ok(list.into_iter().map(|w| (w.name, w.role.as_str().to_string(), w.pid, w.waited)).collect())
}

/// Writes Arrow data into a pipe (`swingdb.pipe.writer`).
#[pyclass(name = "PipeWriter", module = "swingdb._swingdb", frozen)]
pub(crate) struct PyPipeWriter {
    pub(crate) writer: Mutex<Option<swingdb::PipeWriter>>,
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
        let reader = crate::arrow_py::stream_reader(&data, "read the data as Arrow")?;
        py.detach(|| {
            let mut guard = self.writer.lock();
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
            let writer = self.writer.lock().take();
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
            if let Some(mut w) = self.writer.lock().take() {
                w.abort(&why);
            }
        })
    }
}
