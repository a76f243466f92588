//! Python values of Arrow arrays (`fetchone`/`fetchall`, the display, numpy
//! object columns), made here from the Arrow buffers rather than by pyarrow, so
//! fetching rows needs no Python package at all. Each column is converted
//! whole, then rows are zipped from the columns.
//!
//! The values are what DB-API drivers give: `int`, `float`, `bool`, `str`,
//! `bytes`, `decimal.Decimal`, `datetime.date` / `datetime` / `time` /
//! `timedelta` (timestamps with a zone carry it as `tzinfo`: `timezone.utc`,
//! a fixed `timezone` or a `zoneinfo.ZoneInfo`; nanoseconds are cut to
//! Python's microseconds), lists for lists, dicts for structs, lists of
//! `(key, value)` tuples for maps, and `(months, days, nanoseconds)` for
//! intervals of months, days and nanoseconds.

use crate::errors::{DataError, NotSupportedError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use swingdb::arrow::array::{Array, ArrayRef, AsArray};
use swingdb::arrow::datatypes::*;
use swingdb::arrow::temporal_conversions::{as_date, as_datetime, as_duration, as_time};
use swingdb::arrow::util::display::{ArrayFormatter, FormatOptions};

/// One Python `str` (or `bytes`) of `value`. Python decodes the UTF-8 itself,
/// so invalid text is an error, never undefined behaviour.
fn text_or_bytes(py: Python<'_>, text: bool, value: &[u8]) -> PyResult<Py<PyAny>> {
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

/// Columns longer than three of these are sampled (runs of this many values at
/// the start, middle and end) to tell whether they have few distinct values.
const SAMPLE: usize = 4096;
/// A sample with at most one distinct value in this many rows marks a column of
/// few values (flags, codes, categories): each value becomes one Python object
/// that all its rows share, instead of one object per row (lineitem SF1's
/// l_shipmode, 6M rows: 451 -> about 180 ms when this was done in Python).
const FEW_DISTINCT: usize = 8;

/// The value at a row of a string or binary array, as bytes (None for NULL).
type Bytes<'a> = Box<dyn Fn(usize) -> Option<&'a [u8]> + 'a>;

/// Whether a string or binary array holds text (Python `str`) rather than
/// bytes, and its values; None for other types.
fn bytes_of(array: &dyn Array) -> Option<(bool, Bytes<'_>)> {
    fn get<'a, A: Array>(a: &'a A, value: impl Fn(&'a A, usize) -> &'a [u8] + 'a) -> Bytes<'a> {
        Box::new(move |i| a.is_valid(i).then(|| value(a, i)))
    }
    Some(match array.data_type() {
        DataType::Utf8 => (true, get(array.as_string::<i32>(), |a, i| a.value(i).as_bytes())),
        DataType::LargeUtf8 => (true, get(array.as_string::<i64>(), |a, i| a.value(i).as_bytes())),
        DataType::Utf8View => (true, get(array.as_string_view(), |a, i| a.value(i).as_bytes())),
        DataType::Binary => (false, get(array.as_binary::<i32>(), |a, i| a.value(i))),
        DataType::LargeBinary => (false, get(array.as_binary::<i64>(), |a, i| a.value(i))),
        DataType::BinaryView => (false, get(array.as_binary_view(), |a, i| a.value(i))),
        DataType::FixedSizeBinary(_) => (false, get(array.as_fixed_size_binary(), |a, i| a.value(i))),
        _ => return None,
    })
}

/// Python's `decimal.Decimal`, looked up once.
fn decimal_class(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    DECIMAL.import(py, "decimal", "Decimal")
}

/// A value outside what Python's types hold (a year past 9999), as an error
/// naming the column.
fn out_of_range(column: &str, what: &str) -> PyErr {
    DataError::new_err(format!(
        "column {column:?} holds a {what} outside what Python can represent; CAST it to VARCHAR to fetch it as text"
    ))
}

/// Every value of `array` as a Python object (None for NULL), `column` naming
/// it in errors.
pub(crate) fn python_values(py: Python<'_>, column: &str, array: &dyn Array) -> PyResult<Vec<Py<PyAny>>> {
    let rows = array.len();
    let none = || py.None();
    // Applies `f` to each valid row.
    let each = |f: &dyn Fn(usize) -> PyResult<Py<PyAny>>| -> PyResult<Vec<Py<PyAny>>> {
        (0..rows).map(|i| if array.is_valid(i) { f(i) } else { Ok(none()) }).collect()
    };
    macro_rules! numbers {
        ($t:ty) => {{
            let a = array.as_primitive::<$t>();
            each(&|i| Ok(a.value(i).into_pyobject(py)?.into_any().unbind()))
        }};
    }
    macro_rules! temporal {
        ($t:ty, $convert:expr, $what:literal) => {{
            let a = array.as_primitive::<$t>();
            each(&|i| match $convert(a.value(i) as i64) {
                Some(v) => Ok(v.into_pyobject(py).map_err(|_| out_of_range(column, $what))?.into_any().unbind()),
                None => Err(out_of_range(column, $what)),
            })
        }};
    }
    match array.data_type() {
        DataType::Null => Ok((0..rows).map(|_| none()).collect()),
        DataType::Boolean => {
            let a = array.as_boolean();
            each(&|i| Ok(pyo3::types::PyBool::new(py, a.value(i)).to_owned().into_any().unbind()))
        }
        DataType::Int8 => numbers!(Int8Type),
        DataType::Int16 => numbers!(Int16Type),
        DataType::Int32 => numbers!(Int32Type),
        DataType::Int64 => numbers!(Int64Type),
        DataType::UInt8 => numbers!(UInt8Type),
        DataType::UInt16 => numbers!(UInt16Type),
        DataType::UInt32 => numbers!(UInt32Type),
        DataType::UInt64 => numbers!(UInt64Type),
        DataType::Float16 => {
            let a = array.as_primitive::<Float16Type>();
            each(&|i| Ok(a.value(i).to_f64().into_pyobject(py)?.into_any().unbind()))
        }
        DataType::Float32 => {
            let a = array.as_primitive::<Float32Type>();
            each(&|i| Ok((a.value(i) as f64).into_pyobject(py)?.into_any().unbind()))
        }
        DataType::Float64 => numbers!(Float64Type),
        DataType::Date32 => temporal!(Date32Type, as_date::<Date32Type>, "date"),
        DataType::Date64 => temporal!(Date64Type, as_date::<Date64Type>, "date"),
        DataType::Time32(TimeUnit::Second) => temporal!(Time32SecondType, as_time::<Time32SecondType>, "time"),
        DataType::Time32(_) => temporal!(Time32MillisecondType, as_time::<Time32MillisecondType>, "time"),
        DataType::Time64(TimeUnit::Microsecond) => {
            temporal!(Time64MicrosecondType, as_time::<Time64MicrosecondType>, "time")
        }
        DataType::Time64(_) => temporal!(Time64NanosecondType, as_time::<Time64NanosecondType>, "time"),
        DataType::Duration(unit) => match unit {
            TimeUnit::Second => temporal!(DurationSecondType, as_duration::<DurationSecondType>, "duration"),
            TimeUnit::Millisecond => {
                temporal!(DurationMillisecondType, as_duration::<DurationMillisecondType>, "duration")
            }
            TimeUnit::Microsecond => {
                temporal!(DurationMicrosecondType, as_duration::<DurationMicrosecondType>, "duration")
            }
            TimeUnit::Nanosecond => {
                temporal!(DurationNanosecondType, as_duration::<DurationNanosecondType>, "duration")
            }
        },
        DataType::Timestamp(unit, zone) => timestamps(py, column, array, *unit, zone.as_deref()),
        DataType::Interval(IntervalUnit::YearMonth) => numbers!(IntervalYearMonthType),
        DataType::Interval(IntervalUnit::DayTime) => {
            let a = array.as_primitive::<IntervalDayTimeType>();
            each(&|i| {
                let v = a.value(i);
                Ok((v.days, v.milliseconds).into_pyobject(py)?.into_any().unbind())
            })
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => {
            let a = array.as_primitive::<IntervalMonthDayNanoType>();
            each(&|i| {
                let v = a.value(i);
                Ok((v.months, v.days, v.nanoseconds).into_pyobject(py)?.into_any().unbind())
            })
        }
        DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Decimal128(..) | DataType::Decimal256(..) => {
            // Exact: through the decimal's text, which Python's Decimal parses.
            let decimal = decimal_class(py)?;
            let text = ArrayFormatter::try_new(array, &FormatOptions::default()).map_err(arrow_error)?;
            each(&|i| Ok(decimal.call1((text.value(i).to_string(),))?.unbind()))
        }
        DataType::Dictionary(..) => {
            let dictionary = array.as_any_dictionary();
            let values = python_values(py, column, dictionary.values().as_ref())?;
            let keys = dictionary.normalized_keys();
            each(&|i| Ok(values[keys[i]].clone_ref(py)))
        }
        DataType::List(_) => {
            let a = array.as_list::<i32>();
            lists(py, column, array, a.offsets().iter().map(|&o| o as usize), a.values())
        }
        DataType::LargeList(_) => {
            let a = array.as_list::<i64>();
            lists(py, column, array, a.offsets().iter().map(|&o| o as usize), a.values())
        }
        DataType::FixedSizeList(_, size) => {
            let a = array.as_fixed_size_list();
            let values = python_values(py, column, a.values().as_ref())?;
            let size = *size as usize;
            each(&|i| {
                let start = a.value_offset(i) as usize;
                Ok(PyList::new(py, values[start..start + size].iter().map(|v| v.clone_ref(py)))?.into_any().unbind())
            })
        }
        DataType::Struct(fields) => {
            let a = array.as_struct();
            let children = a
                .columns()
                .iter()
                .zip(fields)
                .map(|(child, f)| python_values(py, &format!("{column}.{}", f.name()), child.as_ref()))
                .collect::<PyResult<Vec<_>>>()?;
            each(&|i| {
                let dict = PyDict::new(py);
                for (values, f) in children.iter().zip(fields) {
                    dict.set_item(f.name(), values[i].clone_ref(py))?;
                }
                Ok(dict.into_any().unbind())
            })
        }
        DataType::Map(..) => {
            let a = array.as_map();
            let keys = python_values(py, column, a.keys().as_ref())?;
            let values = python_values(py, column, a.values().as_ref())?;
            let offsets: Vec<usize> = a.value_offsets().iter().map(|&o| o as usize).collect();
            each(&|i| {
                let pairs = (offsets[i]..offsets[i + 1])
                    .map(|j| PyTuple::new(py, [keys[j].clone_ref(py), values[j].clone_ref(py)]))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, pairs)?.into_any().unbind())
            })
        }
        _ => match bytes_of(array) {
            Some((text, value)) => texts(py, text, &value, rows),
            None => Err(NotSupportedError::new_err(format!(
                "column {column:?} has type {} that has no Python value here; CAST it to VARCHAR",
                array.data_type()
            ))),
        },
    }
}

/// The strings (or bytes) of `rows` rows; in a column of few distinct values
/// (see FEW_DISTINCT), each value is one object that all its rows share.
fn texts(py: Python<'_>, text: bool, value: &Bytes<'_>, rows: usize) -> PyResult<Vec<Py<PyAny>>> {
    let none = || Ok(py.None());
    if !few_distinct(rows, value) {
        return (0..rows).map(|i| value(i).map_or_else(none, |v| text_or_bytes(py, text, v))).collect();
    }
    let mut made: HashMap<&[u8], Py<PyAny>> = HashMap::new();
    (0..rows)
        .map(|i| {
            let Some(v) = value(i) else { return none() };
            Ok(match made.entry(v) {
                Entry::Occupied(known) => known.get().clone_ref(py),
                Entry::Vacant(new) => new.insert(text_or_bytes(py, text, v)?).clone_ref(py),
            })
        })
        .collect()
}

/// Whether a sample of the column has at most one distinct value in FEW_DISTINCT rows.
fn few_distinct(rows: usize, values: &Bytes<'_>) -> bool {
    if rows <= 3 * SAMPLE {
        return false;
    }
    let middle = rows / 2 - SAMPLE / 2;
    let sample = (0..SAMPLE).chain(middle..middle + SAMPLE).chain(rows - SAMPLE..rows);
    let distinct: HashSet<Option<&[u8]>> = sample.map(values).collect();
    distinct.len() * FEW_DISTINCT <= 3 * SAMPLE
}

/// The lists of a list array whose row `i` spans `offsets[i]..offsets[i + 1]`
/// of `values`.
fn lists(
    py: Python<'_>,
    column: &str,
    array: &dyn Array,
    offsets: impl Iterator<Item = usize>,
    values: &ArrayRef,
) -> PyResult<Vec<Py<PyAny>>> {
    let offsets: Vec<usize> = offsets.collect();
    // Only the values the rows span are converted (a sliced list array keeps all).
    let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
    let values = python_values(py, column, values.slice(first, last - first).as_ref())?;
    (0..array.len())
        .map(|i| {
            if array.is_null(i) {
                return Ok(py.None());
            }
            let items = values[offsets[i] - first..offsets[i + 1] - first].iter().map(|v| v.clone_ref(py));
            Ok(PyList::new(py, items)?.into_any().unbind())
        })
        .collect()
}

/// Timestamps as `datetime`s: naive without a zone, else aware in it.
fn timestamps(
    py: Python<'_>,
    column: &str,
    array: &dyn Array,
    unit: TimeUnit,
    zone: Option<&str>,
) -> PyResult<Vec<Py<PyAny>>> {
    // A naive date and time (the wall clock of a zoneless timestamp, UTC of a zoned one).
    let naive = |i: usize| {
        match unit {
            TimeUnit::Second => {
                as_datetime::<TimestampSecondType>(array.as_primitive::<TimestampSecondType>().value(i))
            }
            TimeUnit::Millisecond => {
                as_datetime::<TimestampMillisecondType>(array.as_primitive::<TimestampMillisecondType>().value(i))
            }
            TimeUnit::Microsecond => {
                as_datetime::<TimestampMicrosecondType>(array.as_primitive::<TimestampMicrosecondType>().value(i))
            }
            TimeUnit::Nanosecond => {
                as_datetime::<TimestampNanosecondType>(array.as_primitive::<TimestampNanosecondType>().value(i))
            }
        }
        .ok_or_else(|| out_of_range(column, "timestamp"))
    };
    let convert = |f: &dyn Fn(chrono::NaiveDateTime) -> PyResult<Py<PyAny>>| -> PyResult<Vec<Py<PyAny>>> {
        (0..array.len())
            .map(|i| match array.is_valid(i) {
                true => f(naive(i)?).map_err(|_| out_of_range(column, "timestamp")),
                false => Ok(py.None()),
            })
            .collect()
    };
    let zone = match zone {
        None => return convert(&|t| Ok(t.into_pyobject(py)?.into_any().unbind())),
        Some(zone) => zone,
    };
    if zone.eq_ignore_ascii_case("UTC") || zone == "Z" {
        return convert(&|t| Ok(t.and_utc().into_pyobject(py)?.into_any().unbind()));
    }
    if let Ok(offset) = chrono::FixedOffset::from_str(zone) {
        return convert(&|t| Ok(t.and_utc().with_timezone(&offset).into_pyobject(py)?.into_any().unbind()));
    }
    let named = chrono_tz::Tz::from_str(zone)
        .map_err(|_| DataError::new_err(format!("column {column:?} has the unknown time zone {zone:?}")))?;
    convert(&|t| Ok(t.and_utc().with_timezone(&named).into_pyobject(py)?.into_any().unbind()))
}

fn arrow_error(e: swingdb::arrow::error::ArrowError) -> PyErr {
    DataError::new_err(e.to_string())
}

/// Rows `start..start + count` of `columns` (the same length each) as tuples.
pub(crate) fn python_rows<'py>(
    py: Python<'py>,
    names: &[String],
    columns: &[ArrayRef],
    start: usize,
    count: usize,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let mut values = columns
        .iter()
        .zip(names)
        .map(|(c, name)| Ok(python_values(py, name, c.slice(start, count).as_ref())?.into_iter()))
        .collect::<PyResult<Vec<_>>>()?;
    // Each column gives its next value to each row in turn (moved, not copied).
    (0..count)
        .map(|_| PyTuple::new(py, values.iter_mut().map(|column| column.next().unwrap_or_else(|| py.None()))))
        .collect()
}
