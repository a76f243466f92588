//! Query results as Python sees them. The rows read so far are kept here, as
//! the engine's own batches (for stored tables, views of the mapped segment
//! files), so that a result can be read again in any form: Python rows and
//! numpy columns made here, without any Python package, or Arrow C streams
//! for pyarrow, polars, pandas and DuckDB.

use crate::column::PyColumn;
use crate::errors::{guarded, InterfaceError, InternalError, NotSupportedError, OperationalError, ProgrammingError};
use crate::values::python_rows;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use swingdb::arrow::array::{new_empty_array, ArrayRef, RecordBatchIterator, RecordBatchReader};
use swingdb::arrow::compute::concat;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::arrow::error::ArrowError;
use swingdb::arrow::ffi::FFI_ArrowSchema;
use swingdb::arrow::ffi_stream::FFI_ArrowArrayStream;
use swingdb::arrow::record_batch::RecordBatch;

/// A reader that turns a panic (a bug) into an error: the C stream interface
/// calls it from foreign code, where unwinding would abort the process.
struct PanicSafe(swingdb::QueryResult);

impl Iterator for PanicSafe {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        catch_unwind(AssertUnwindSafe(|| self.0.next())).unwrap_or_else(|_| {
            Some(Err(ArrowError::ExternalError(Box::new(swingdb::Error::internal(
                "internal error (please report): panic while reading a result",
            )))))
        })
    }
}

impl RecordBatchReader for PanicSafe {
    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }
}

/// `schema` for Arrow's C interface, which carries names as C strings.
fn ffi_schema(schema: &SchemaRef) -> PyResult<FFI_ArrowSchema> {
    if let Some(field) = schema.fields().iter().find(|f| f.name().contains('\0')) {
        return Err(ProgrammingError::new_err(format!(
            "result column {:?} contains a NUL character, which cannot be handed to Python; rename it with AS",
            field.name()
        )));
    }
    FFI_ArrowSchema::try_from(schema.as_ref()).map_err(|e| InternalError::new_err(e.to_string()))
}

/// The Arrow stream protocol's `requested_schema`, which these exports do not honour.
fn refuse_requested_schema(requested_schema: Option<Bound<'_, PyAny>>) -> PyResult<()> {
    match requested_schema {
        Some(s) if !s.is_none() => {
            Err(NotSupportedError::new_err("requested_schema is not supported; cast after import"))
        }
        _ => Ok(()),
    }
}

/// `reader` as an Arrow C stream capsule (its batches handed over by reference).
fn stream_capsule<'py>(py: Python<'py>, reader: Box<dyn RecordBatchReader + Send>) -> PyResult<Bound<'py, PyCapsule>> {
    ffi_schema(&reader.schema())?;
    PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), c"arrow_array_stream")
}

/// What has been read of a result.
#[derive(Default)]
struct Reading {
    /// The rows not read yet; None once all were read or streamed out.
    rest: Option<swingdb::QueryResult>,
    /// Every batch read and kept, in order.
    kept: Vec<RecordBatch>,
    /// Rows were passed on without being kept: the result cannot be read again.
    streamed: bool,
}

impl Reading {
    /// The next batch of the rest (None at its end), a panic (a bug) becoming an error.
    fn pull(&mut self) -> PyResult<Option<RecordBatch>> {
        let Some(rest) = self.rest.as_mut() else { return Ok(None) };
        let batch = guarded(|| rest.next_batch())?;
        if batch.is_none() {
            self.rest = None;
        }
        Ok(batch)
    }

    /// The next batch of the rest to keep; refused once rows were streamed out.
    fn next(&mut self) -> PyResult<Option<RecordBatch>> {
        if self.streamed {
            return Err(InterfaceError::new_err(
                "this result was streamed out (fetch_record_batch or the Arrow stream protocol), which does not keep rows; run the query again",
            ));
        }
        self.pull()
    }
}

/// The result of one statement.
#[pyclass(name = "Result", module = "swingdb._swingdb", frozen)]
pub(crate) struct PyResult_ {
    schema: SchemaRef,
    rows_affected: Option<u64>,
    reading: Mutex<Reading>,
}

impl PyResult_ {
    pub(crate) fn new(result: swingdb::QueryResult) -> Self {
        Self {
            schema: result.schema(),
            rows_affected: result.rows_affected(),
            reading: Mutex::new(Reading { rest: Some(result), ..Reading::default() }),
        }
    }

    /// Runs `f` on what has been read, with the GIL released *before* waiting
    /// for the lock (another thread may hold it while the engine computes).
    fn reading<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Reading) -> PyResult<T> + Send) -> PyResult<T> {
        py.detach(|| f(&mut self.reading.lock()))
    }

    /// The kept batches (shared, not copied).
    fn kept_batches(&self, py: Python<'_>) -> Vec<RecordBatch> {
        py.detach(|| self.reading.lock().kept.clone())
    }
}

#[pymethods]
impl PyResult_ {
    /// Rows changed by an INSERT, UPDATE or DELETE, else None.
    #[getter]
    fn rows_affected(&self) -> Option<u64> {
        self.rows_affected
    }

    /// The column names.
    fn names(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Whether each column may hold NULLs.
    fn nullable(&self) -> Vec<bool> {
        self.schema.fields().iter().map(|f| f.is_nullable()).collect()
    }

    /// Whether each column holds numbers (which a display aligns right).
    fn numeric(&self) -> Vec<bool> {
        self.schema.fields().iter().map(|f| f.data_type().is_numeric()).collect()
    }

    /// Each column's type as SQL names it (`BIGINT`, `DECIMAL(10,2)`, `VARCHAR`).
    fn sql_types(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| swingdb::sql_type_name(f.data_type())).collect()
    }

    /// Marks the result as read whole: consecutive computed batches of
    /// fixed-width columns then arrive as one, so numpy can view them. Only
    /// before anything was read.
    fn read_whole(&self, py: Python<'_>) -> PyResult<()> {
        self.reading(py, |r| {
            if r.kept.is_empty() && !r.streamed {
                r.rest = r.rest.take().map(|rest| rest.gathered());
            }
            Ok(())
        })
    }

    /// Reads and keeps batches until at least `rows` rows are kept (None: all);
    /// returns the rows kept. The GIL is released while the engine computes.
    #[pyo3(signature = (rows=None))]
    fn keep(&self, py: Python<'_>, rows: Option<usize>) -> PyResult<usize> {
        self.reading(py, |r| {
            let mut kept: usize = r.kept.iter().map(|b| b.num_rows()).sum();
            while rows.is_none_or(|rows| kept < rows) {
                let Some(batch) = r.next()? else { break };
                kept += batch.num_rows();
                r.kept.push(batch);
            }
            Ok(kept)
        })
    }

    /// Whether rows were passed on without being kept (the result cannot be read again).
    #[getter]
    fn streamed(&self, py: Python<'_>) -> bool {
        py.detach(|| self.reading.lock().streamed)
    }

    /// Whether every row has been read and kept.
    #[getter]
    fn complete(&self, py: Python<'_>) -> bool {
        py.detach(|| {
            let r = self.reading.lock();
            r.rest.is_none() && !r.streamed
        })
    }

    /// Kept rows `start..start + count` (as many as there are) as tuples of Python values.
    fn rows<'py>(&self, py: Python<'py>, start: usize, count: usize) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let batches = self.kept_batches(py);
        let names = self.names();
        let mut out = Vec::new();
        let mut skip = start;
        for batch in batches {
            if out.len() >= count {
                break;
            }
            if skip >= batch.num_rows() {
                skip -= batch.num_rows();
                continue;
            }
            let take = (batch.num_rows() - skip).min(count - out.len());
            if batch.num_columns() == 0 {
                out.extend((0..take).map(|_| PyTuple::empty(py)));
            } else {
                out.extend(python_rows(py, &names, batch.columns(), skip, take)?);
            }
            skip = 0;
        }
        Ok(out)
    }

    /// Kept column `index` as one array, for numpy (one piece when the engine
    /// gave one: a view of its buffers; else joined, which copies).
    fn column(&self, py: Python<'_>, index: usize) -> PyResult<PyColumn> {
        let field = self.schema.fields().get(index).ok_or_else(|| ProgrammingError::new_err("no such column"))?;
        let batches = self.kept_batches(py);
        let pieces: Vec<&ArrayRef> = batches.iter().map(|b| b.column(index)).collect();
        let array = match pieces.as_slice() {
            [] => new_empty_array(field.data_type()),
            [one] => (*one).clone(),
            many => {
                let many: Vec<&dyn swingdb::arrow::array::Array> = many.iter().map(|a| a.as_ref()).collect();
                py.detach(|| concat(&many)).map_err(|e| OperationalError::new_err(e.to_string()))?
            }
        };
        Ok(PyColumn::new(field.name().clone(), array))
    }

    /// The kept batches as Arrow data (`__arrow_c_stream__`), shared, not copied.
    fn kept(&self, py: Python<'_>) -> Batches {
        Batches { schema: self.schema.clone(), batches: self.kept_batches(py) }
    }

    /// The next batch not read yet, passed on without being kept (after
    /// which the result cannot be read again), or None at the end.
    fn take_batch(&self, py: Python<'_>) -> PyResult<Option<Batches>> {
        let batch = self.reading(py, |r| {
            let batch = r.pull()?;
            r.streamed |= batch.is_some();
            Ok(batch)
        })?;
        Ok(batch.map(|b| Batches { schema: self.schema.clone(), batches: vec![b] }))
    }

    /// The Arrow schema, as a PyCapsule (Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        PyCapsule::new_with_value(py, ffi_schema(&self.schema)?, c"arrow_schema")
    }

    /// Exports every row as an Arrow C stream: the kept batches, then the rest
    /// as the engine computes it, passed on without being kept (after which
    /// the result cannot be read again). No buffer is copied.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        refuse_requested_schema(requested_schema)?;
        ffi_schema(&self.schema)?;
        let (kept, rest) = self.reading(py, |r| {
            let rest = r.rest.take();
            r.streamed |= rest.is_some();
            Ok((r.kept.clone(), rest))
        })?;
        let kept = kept.into_iter().map(Ok);
        let reader: Box<dyn RecordBatchReader + Send> = match rest {
            Some(rest) => {
                let schema = rest.schema();
                Box::new(RecordBatchIterator::new(kept.chain(PanicSafe(rest)), schema))
            }
            None => Box::new(RecordBatchIterator::new(kept, self.schema.clone())),
        };
        stream_capsule(py, reader)
    }
}

/// Batches of a result as Arrow data, for pyarrow (`pyarrow.table(...)`,
/// `RecordBatchReader.from_stream(...)`); each export shares the buffers.
#[pyclass(name = "Batches", module = "swingdb._swingdb", frozen)]
pub(crate) struct Batches {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl Batches {
    /// The Arrow schema, as a PyCapsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        PyCapsule::new_with_value(py, ffi_schema(&self.schema)?, c"arrow_schema")
    }

    /// The batches as an Arrow C stream.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        refuse_requested_schema(requested_schema)?;
        let batches = self.batches.clone().into_iter().map(Ok);
        stream_capsule(py, Box::new(RecordBatchIterator::new(batches, self.schema.clone())))
    }
}
