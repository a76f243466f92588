//! Query results as Python sees them: Arrow C streams that never unwind into foreign code.

use crate::errors::*;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use swingdb::arrow::array::RecordBatchReader;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::arrow::error::ArrowError;
use swingdb::arrow::ffi::FFI_ArrowSchema;
use swingdb::arrow::ffi_stream::FFI_ArrowArrayStream;
use swingdb::arrow::record_batch::RecordBatch;

/// A reader that turns a panic (a bug) into an error: the C stream interface
/// calls it from foreign code, where unwinding would abort the process.
/// The first error it meets is also kept in `error`, so that the Python side
/// can raise it as its DB-API class (through the C interface only its text
/// travels, and pyarrow would raise its own exception types).
pub(crate) struct PanicSafe {
    pub(crate) result: swingdb::QueryResult,
    pub(crate) error: Arc<Mutex<Option<swingdb::Error>>>,
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

/// The result of one statement; export it with `__arrow_c_stream__`.
#[pyclass(name = "Result", module = "swingdb._swingdb", frozen)]
pub(crate) struct PyResult_ {
    pub(crate) result: Mutex<Option<swingdb::QueryResult>>,
    /// The error that ended the exported stream, if one did.
    pub(crate) error: Arc<Mutex<Option<swingdb::Error>>>,
}

impl PyResult_ {
    pub(crate) fn new(result: swingdb::QueryResult) -> Self {
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
