//! Arrow arrays between Rust and pyarrow through the Arrow C data interface:
//! both directions share the buffers, no value is copied.

use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use swingdb::arrow::array::{make_array, ArrayRef};
use swingdb::arrow::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use swingdb::arrow::ffi_stream::ArrowArrayStreamReader;

use crate::errors::{DataError, ProgrammingError};

/// `array` as a pyarrow array sharing its buffers.
pub fn to_pyarrow<'py>(py: Python<'py>, array: &ArrayRef) -> PyResult<Bound<'py, PyAny>> {
    let (ffi_array, ffi_schema) =
        to_ffi(&array.to_data()).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let schema = PyCapsule::new_with_value(py, ffi_schema, c"arrow_schema")?;
    let array = PyCapsule::new_with_value(py, ffi_array, c"arrow_array")?;
    py.import("pyarrow")?.getattr("Array")?.call_method1("_import_from_c_capsule", (schema, array))
}

/// An object with `__arrow_c_array__` as an Arrow array sharing its buffers.
pub fn from_pyarrow(answer: &Bound<'_, PyAny>) -> PyResult<ArrayRef> {
    let pair = answer.call_method0("__arrow_c_array__")?;
    let pair = pair.cast::<PyTuple>()?;
    let schema = pair.get_item(0)?;
    let schema = schema.cast::<PyCapsule>()?;
    let array = pair.get_item(1)?;
    let array = array.cast::<PyCapsule>()?;
    let schema_ptr = schema.pointer_checked(Some(c"arrow_schema"))?;
    let array_ptr = array.pointer_checked(Some(c"arrow_array"))?;
    // SAFETY: the capsules hold an ArrowSchema and an ArrowArray (checked by
    // name); from_raw moves the array out, leaving a released one behind for
    // its capsule to drop; the schema is only read.
    let data = unsafe {
        let ffi_array = FFI_ArrowArray::from_raw(array_ptr.as_ptr().cast());
        from_ffi(ffi_array, &*(schema_ptr.as_ptr() as *const FFI_ArrowSchema))
    }
    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(make_array(data))
}

/// The Arrow C stream of `data` (an object with `__arrow_c_stream__`), moved
/// out of its capsule; a stream that cannot be read is a `DataError` saying
/// "cannot {what}: ...".
pub fn stream_reader(data: &Bound<'_, PyAny>, what: &str) -> PyResult<ArrowArrayStreamReader> {
    let capsule = data.call_method0("__arrow_c_stream__")?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| ProgrammingError::new_err("__arrow_c_stream__ did not return a capsule"))?;
    let raw = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule holds an ArrowArrayStream (checked by name); from_raw
    // moves it out and leaves a released stream behind for the capsule to drop.
    unsafe { ArrowArrayStreamReader::from_raw(raw.as_ptr().cast()) }
        .map_err(|e| DataError::new_err(format!("cannot {what}: {e}")))
}
