//! Result columns for numpy that pyarrow converts only by importing more of
//! itself: `to_numpy` of strings and bytes imports pandas (~0.3 s of a fresh
//! process's first query) and `cast` imports pyarrow.compute (~40 ms). Here
//! they are done on the Arrow buffers directly.

use crate::arrow_py::{from_pyarrow, to_pyarrow};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use swingdb::arrow::array::{Array, AsArray};
use swingdb::arrow::compute::cast;
use swingdb::arrow::datatypes::DataType;

/// Columns longer than three of these are sampled (runs of this many values at
/// the start, middle and end) to tell whether they have few distinct values.
const SAMPLE: usize = 4096;
/// A sample with at most one distinct value in this many rows marks a column of
/// few values (flags, codes, categories): each value becomes one Python object
/// that all its rows share, instead of one object per row (lineitem SF1's
/// l_shipmode, 6M rows: 451 -> about 180 ms when this was done in Python).
const FEW_DISTINCT: usize = 8;

/// The value at a row of a string or binary array, as bytes (None for NULL).
type Values<'a> = Box<dyn Fn(usize) -> Option<&'a [u8]> + 'a>;

/// Whether the array holds text (Python `str`) rather than bytes, and its values.
fn values_of(array: &dyn Array) -> PyResult<(bool, Values<'_>)> {
    fn get<'a, A: Array>(a: &'a A, value: impl Fn(&'a A, usize) -> &'a [u8] + 'a) -> Values<'a> {
        Box::new(move |i| a.is_valid(i).then(|| value(a, i)))
    }
    Ok(match array.data_type() {
        DataType::Utf8 => (true, get(array.as_string::<i32>(), |a, i| a.value(i).as_bytes())),
        DataType::LargeUtf8 => (true, get(array.as_string::<i64>(), |a, i| a.value(i).as_bytes())),
        DataType::Utf8View => (true, get(array.as_string_view(), |a, i| a.value(i).as_bytes())),
        DataType::Binary => (false, get(array.as_binary::<i32>(), |a, i| a.value(i))),
        DataType::LargeBinary => (false, get(array.as_binary::<i64>(), |a, i| a.value(i))),
        DataType::BinaryView => (false, get(array.as_binary_view(), |a, i| a.value(i))),
        DataType::FixedSizeBinary(_) => (false, get(array.as_fixed_size_binary(), |a, i| a.value(i))),
        other => return Err(PyTypeError::new_err(format!("no Python objects for Arrow type {other}"))),
    })
}

/// One Python `str` (or `bytes`) of `value`. Python decodes the UTF-8 itself,
/// so invalid text is an error, never undefined behaviour.
fn object(py: Python<'_>, text: bool, value: &[u8]) -> PyResult<Py<PyAny>> {
    let len = value.len() as ffi::Py_ssize_t;
    // SAFETY: both functions copy `len` bytes from a valid slice and return a
    // new reference, or NULL with a Python error set.
    unsafe {
        let ptr = if text {
            ffi::PyUnicode_FromStringAndSize(value.as_ptr().cast(), len)
        } else {
            ffi::PyBytes_FromStringAndSize(value.as_ptr().cast(), len)
        };
        Ok(Bound::from_owned_ptr_or_err(py, ptr)?.unbind())
    }
}

/// Whether a sample of the column has at most one distinct value in FEW_DISTINCT rows.
fn few_distinct(rows: usize, values: &Values<'_>) -> bool {
    if rows <= 3 * SAMPLE {
        return false;
    }
    let middle = rows / 2 - SAMPLE / 2;
    let sample = (0..SAMPLE).chain(middle..middle + SAMPLE).chain(rows - SAMPLE..rows);
    let distinct: HashSet<Option<&[u8]>> = sample.map(values).collect();
    distinct.len() * FEW_DISTINCT <= 3 * SAMPLE
}

/// A numpy array of `rows` Python objects, every one None, and where its
/// object pointers are.
fn empty_objects(py: Python<'_>, rows: usize) -> PyResult<(Bound<'_, PyAny>, *mut *mut ffi::PyObject)> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", "O")?;
    let out = py.import("numpy")?.getattr("empty")?.call((rows,), Some(&kwargs))?;
    let data = out.getattr("__array_interface__")?.get_item("data")?.get_item(0)?.extract::<usize>()?;
    Ok((out, data as *mut *mut ffi::PyObject))
}

/// The strings (or bytes) of a pyarrow string, binary or dictionary-of-those
/// array as a numpy object array, None for NULLs.
#[pyfunction]
pub fn objects<'py>(py: Python<'py>, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let array = from_pyarrow(array)?;
    let rows = array.len();
    let (out, slots) = empty_objects(py, rows)?;
    let put = |row: usize, obj: Py<PyAny>| {
        // SAFETY: `out` was just created by this function, nothing else holds
        // it, and it is a contiguous array of `rows` object pointers (each a
        // reference to None) while the GIL is held: the slot takes over the
        // new reference and the one it held is released.
        unsafe {
            let slot = slots.add(row);
            let old = std::mem::replace(&mut *slot, obj.into_ptr());
            ffi::Py_XDECREF(old);
        }
    };
    if let Some(dictionary) = array.as_any_dictionary_opt() {
        // Each dictionary value becomes one object, shared by all its rows.
        let (text, values) = values_of(dictionary.values().as_ref())?;
        let made = (0..dictionary.values().len())
            .map(|i| values(i).map(|v| object(py, text, v)).transpose())
            .collect::<PyResult<Vec<_>>>()?;
        for (row, key) in dictionary.normalized_keys().into_iter().enumerate() {
            if let (true, Some(obj)) = (dictionary.is_valid(row), &made[key]) {
                put(row, obj.clone_ref(py));
            }
        }
        return Ok(out);
    }
    let (text, values) = values_of(array.as_ref())?;
    if few_distinct(rows, &values) {
        let mut made: HashMap<&[u8], Py<PyAny>> = HashMap::new();
        for row in 0..rows {
            if let Some(v) = values(row) {
                let obj = match made.entry(v) {
                    Entry::Occupied(known) => known.get().clone_ref(py),
                    Entry::Vacant(new) => new.insert(object(py, text, v)?).clone_ref(py),
                };
                put(row, obj);
            }
        }
    } else {
        for row in 0..rows {
            if let Some(v) = values(row) {
                put(row, object(py, text, v)?);
            }
        }
    }
    Ok(out)
}

/// A pyarrow array cast to float64 by the engine's cast kernel (DECIMAL
/// columns for numpy, which has no decimal type).
#[pyfunction]
pub fn as_float64<'py>(py: Python<'py>, array: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let array = from_pyarrow(array)?;
    let floats = cast(&array, &DataType::Float64).map_err(|e| PyValueError::new_err(e.to_string()))?;
    to_pyarrow(py, &floats)
}
