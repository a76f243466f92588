//! Python parameter values as SQL values.

use crate::errors::{DataError, ProgrammingError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple};
use swingdb::arrow::datatypes::i256;
use swingdb::datafusion::scalar::ScalarValue;

/// Converts one Python parameter value. Dates, datetimes and decimals arrive
/// from the Python layer as tagged tuples.
pub(crate) fn scalar(index: usize, value: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
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
pub(crate) fn option_value(index: usize, value: &Bound<'_, PyAny>) -> PyResult<ScalarValue> {
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
pub(crate) fn tagged(index: usize, tuple: &Bound<'_, PyTuple>) -> PyResult<ScalarValue> {
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
