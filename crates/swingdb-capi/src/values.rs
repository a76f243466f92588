//! Parameter values from C (`swingdb_value`) as SQL values.

use std::ffi::c_char;
use swingdb::datafusion::scalar::ScalarValue;
use swingdb::Error;

/// One parameter value (see `swingdb_value` in the header).
#[repr(C)]
pub struct swingdb_value {
    kind: i32,
    is_null: i32,
    i: i64,
    f: f64,
    bytes: *const c_char,
    len: usize,
    tz: *const c_char,
}

/// The values of `params`, in order.
pub(crate) fn params_of(params: &[swingdb_value]) -> swingdb::Result<Vec<ScalarValue>> {
    params.iter().enumerate().map(|(i, v)| value(i, v)).collect()
}

fn value(index: usize, v: &swingdb_value) -> swingdb::Result<ScalarValue> {
    let null = v.is_null != 0;
    let bytes = || -> swingdb::Result<Vec<u8>> {
        if v.bytes.is_null() {
            return Ok(Vec::new());
        }
        // SAFETY: the caller's value points at `len` bytes.
        Ok(unsafe { std::slice::from_raw_parts(v.bytes.cast::<u8>(), v.len) }.to_vec())
    };
    let some = |x: i64| (!null).then_some(x);
    Ok(match v.kind {
        0 => ScalarValue::Null,
        1 => ScalarValue::Boolean((!null).then_some(v.i != 0)),
        2 => ScalarValue::Int64(some(v.i)),
        3 => ScalarValue::Float64((!null).then_some(v.f)),
        4 => ScalarValue::Utf8(if null {
            None
        } else {
            Some(
                String::from_utf8(bytes()?)
                    .map_err(|_| Error::data(format!("parameter {} is not valid UTF-8 text", index + 1)))?,
            )
        }),
        5 => ScalarValue::Date32(if null {
            None
        } else {
            Some(i32::try_from(v.i).map_err(|_| Error::data(format!("parameter {}: date out of range", index + 1)))?)
        }),
        6 => {
            let tz = if v.tz.is_null() {
                None
            } else {
                // SAFETY: the caller's zone is a NUL-terminated string.
                let tz = unsafe { std::ffi::CStr::from_ptr(v.tz) }.to_string_lossy().into_owned();
                Some(tz.into())
            };
            ScalarValue::TimestampMicrosecond(some(v.i), tz)
        }
        7 => ScalarValue::Binary(if null { None } else { Some(bytes()?) }),
        // Nanoseconds, the unit of SQL's TIME (DataFusion compares times of one unit only).
        8 => ScalarValue::Time64Nanosecond(some(v.i)),
        other => return Err(Error::programming(format!("parameter {}: unknown value kind {other}", index + 1))),
    })
}
