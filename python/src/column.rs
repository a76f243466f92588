//! Result columns for numpy, made from the Arrow buffers here (no pyarrow):
//! fixed-width values are handed to numpy in place through numpy's array
//! interface, bits are unpacked into bytes, and strings and other values
//! become object arrays of the Python values of `values.rs`. swingdb/_convert.py puts the pieces together.

use crate::errors::DataError;
use crate::values::python_values;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use swingdb::arrow::array::{Array, ArrayRef, AsArray};
use swingdb::arrow::buffer::{BooleanBuffer, Buffer};
use swingdb::arrow::compute::cast;
use swingdb::arrow::datatypes::{DataType, TimeUnit};

/// numpy's type string for values numpy can view as Arrow stores them, or None.
fn numpy_type(data_type: &DataType) -> Option<String> {
    let unit = |u: &TimeUnit| match u {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    };
    Some(match data_type {
        DataType::Int8 => "|i1".into(),
        DataType::Int16 => "<i2".into(),
        DataType::Int32 | DataType::Date32 => "<i4".into(),
        DataType::Int64 => "<i8".into(),
        DataType::UInt8 => "|u1".into(),
        DataType::UInt16 => "<u2".into(),
        DataType::UInt32 => "<u4".into(),
        DataType::UInt64 => "<u8".into(),
        DataType::Float16 => "<f2".into(),
        DataType::Float32 => "<f4".into(),
        DataType::Float64 => "<f8".into(),
        DataType::Date64 => "<M8[ms]".into(),
        DataType::Timestamp(u, _) => format!("<M8[{}]", unit(u)),
        DataType::Duration(u) => format!("<m8[{}]", unit(u)),
        _ => return None,
    })
}

/// Bytes numpy reads in place through its array interface
/// (`numpy.asarray(...)`); the array numpy makes keeps this object, and so
/// the Arrow buffer, alive.
#[pyclass(name = "ArrowBuffer", module = "swingdb._swingdb", frozen)]
pub(crate) struct ArrowBuffer {
    buffer: Buffer,
    /// Where the values start in `buffer`, in bytes.
    start: usize,
    len: usize,
    typestr: String,
    /// numpy may write to it (a buffer made here for one array), else read-only.
    writable: bool,
}

#[pymethods]
impl ArrowBuffer {
    /// numpy's array interface (version 3).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", (self.len,))?;
        d.set_item("typestr", &self.typestr)?;
        let address = self.buffer.as_ptr() as usize + self.start;
        d.set_item("data", (address, !self.writable))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

/// `bits` as one byte (0 or 1) per value, for numpy's bool type.
fn unpacked(bits: &BooleanBuffer) -> ArrowBuffer {
    let bytes: Vec<u8> = bits.iter().map(u8::from).collect();
    ArrowBuffer { len: bytes.len(), buffer: Buffer::from_vec(bytes), start: 0, typestr: "|b1".into(), writable: true }
}

/// One result column, whole.
#[pyclass(name = "Column", module = "swingdb._swingdb", frozen)]
pub(crate) struct PyColumn {
    name: String,
    array: ArrayRef,
}

impl PyColumn {
    pub(crate) fn new(name: String, array: ArrayRef) -> Self {
        Self { name, array }
    }
}

#[pymethods]
impl PyColumn {
    /// How many values are NULL.
    #[getter]
    fn null_count(&self) -> usize {
        self.array.logical_null_count()
    }

    /// How numpy gets the values: "view" (numpy reads them as they are),
    /// "date32" (32-bit days, for numpy's 64-bit dates), "bool" (bits),
    /// "decimal", or "values" (anything else: text, bytes, times, nested
    /// values, as Python objects).
    #[getter]
    fn kind(&self) -> &'static str {
        let t = self.array.data_type();
        match t {
            DataType::Date32 => "date32",
            DataType::Boolean => "bool",
            DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Decimal128(..) | DataType::Decimal256(..) => {
                "decimal"
            }
            _ if numpy_type(t).is_some() => "view",
            _ => "values",
        }
    }

    /// The values in place, for `numpy.asarray` (kinds "view" and "date32").
    fn values(&self) -> PyResult<ArrowBuffer> {
        let typestr = numpy_type(self.array.data_type())
            .ok_or_else(|| DataError::new_err(format!("column {:?} is not fixed-width", self.name)))?;
        let data = self.array.to_data();
        let width = self.array.data_type().primitive_width().unwrap_or(1);
        Ok(ArrowBuffer {
            buffer: data.buffers()[0].clone(),
            start: data.offset() * width,
            len: self.array.len(),
            typestr,
            writable: false,
        })
    }

    /// The booleans, one byte each (kind "bool"; values under NULLs undefined).
    fn bools(&self) -> PyResult<ArrowBuffer> {
        match self.array.as_boolean_opt() {
            Some(a) => Ok(unpacked(a.values())),
            None => Err(DataError::new_err(format!("column {:?} is not boolean", self.name))),
        }
    }

    /// Where the column is NULL, one byte each (None without NULLs).
    fn nulls(&self) -> Option<ArrowBuffer> {
        let nulls = self.array.logical_nulls()?;
        Some(unpacked(&!nulls.inner()))
    }

    /// The column cast to float64 by the engine's cast kernel (DECIMAL
    /// columns for numpy, which has no decimal type).
    fn as_float64(&self) -> PyResult<PyColumn> {
        let floats = cast(&self.array, &DataType::Float64).map_err(|e| DataError::new_err(e.to_string()))?;
        Ok(PyColumn::new(self.name.clone(), floats))
    }

    /// The values as a numpy object array of Python values (None for NULL);
    /// strings and bytes that many rows hold are one object they share (see
    /// [`python_values`]).
    fn python_objects<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let values = python_values(py, &self.name, self.array.as_ref())?;
        let (out, mut slots) = ObjectArray::new(py, values.len())?;
        for (row, value) in values.into_iter().enumerate() {
            slots.put(row, value);
        }
        Ok(out)
    }
}

/// The object pointers of a numpy object array made by [`ObjectArray::new`].
struct ObjectArray {
    slots: *mut *mut ffi::PyObject,
    rows: usize,
}

impl ObjectArray {
    /// A new numpy array of `rows` Python objects, every one None, and its slots.
    fn new(py: Python<'_>, rows: usize) -> PyResult<(Bound<'_, PyAny>, ObjectArray)> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", "O")?;
        let out = py.import("numpy")?.getattr("empty")?.call((rows,), Some(&kwargs))?;
        let interface = out.getattr("__array_interface__")?;
        let data = interface.get_item("data")?.cast_into::<PyTuple>()?.get_item(0)?.extract::<usize>()?;
        Ok((out, ObjectArray { slots: data as *mut *mut ffi::PyObject, rows }))
    }

    /// Puts `obj` in slot `row`, releasing the None it held.
    fn put(&mut self, row: usize, obj: Py<PyAny>) {
        assert!(row < self.rows, "object slot {row} out of {}", self.rows);
        // SAFETY: the array was just created by `new`, nothing else holds it,
        // and it is a contiguous array of `rows` object pointers (each a
        // reference to None) while the GIL is held (`&mut self` comes with a
        // `Bound` of the array): the slot takes over the new reference and
        // the one it held is released.
        unsafe {
            let slot = self.slots.add(row);
            let old = std::mem::replace(&mut *slot, obj.into_ptr());
            ffi::Py_XDECREF(old);
        }
    }
}
