//! Result columns for C: each Arrow array is brought to one of a few layouts
//! (`swingdb_column_kind` in the header) and handed out as pointers into its
//! buffers, with an owner that keeps them alive.
//!
//! Float64, Int32, Int64, Date32, Boolean and timestamps are handed out as
//! they are: for a read of a stored table the pointers are into the mapped
//! segment. Narrower or unsigned integers, Float32 and decimals are cast
//! (a copy) to the nearest layout without loss where one exists; strings to
//! 64-bit offsets; nested and other values to their text.

use std::ffi::CString;
use std::sync::Arc;
use swingdb::arrow::array::{Array, ArrayRef, AsArray, LargeStringBuilder};
use swingdb::arrow::compute::{cast, min};
use swingdb::arrow::datatypes::{DataType, Int32Type, TimeUnit};
use swingdb::arrow::util::display::{ArrayFormatter, FormatOptions};
use swingdb::Error;

const NULLS: i32 = 0;
const FLOAT64: i32 = 1;
const INT32: i32 = 2;
const INT64: i32 = 3;
const BOOL: i32 = 4;
const DATE32: i32 = 5;
const TIMESTAMP: i32 = 6;
const TIME: i32 = 7;
const TEXT: i32 = 8;
const BLOB: i32 = 9;

/// One column as C reads it (see `swingdb_column` in the header).
#[repr(C)]
pub struct swingdb_column {
    kind: i32,
    length: i64,
    null_count: i64,
    values: *const u8,
    values_bit: i64,
    validity: *const u8,
    validity_bit: i64,
    offsets: *const i64,
    data: *const u8,
    unit: f64,
    timezone: *const std::ffi::c_char,
    owner: *mut ColumnOwner,
}

/// What keeps a handed-out column's buffers alive.
pub struct ColumnOwner {
    _array: ArrayRef,
    _timezone: Option<CString>,
}

/// Columns of one fetch, taken out one by one.
pub struct swingdb_chunk {
    columns: Vec<Option<ArrayRef>>,
}

impl swingdb_chunk {
    pub(crate) fn of(columns: Vec<ArrayRef>) -> Self {
        Self { columns: columns.into_iter().map(Some).collect() }
    }
}

fn seconds_per(unit: &TimeUnit) -> f64 {
    match unit {
        TimeUnit::Second => 1.0,
        TimeUnit::Millisecond => 1e-3,
        TimeUnit::Microsecond => 1e-6,
        TimeUnit::Nanosecond => 1e-9,
    }
}

/// The kind a column of type `dt` arrives as.
pub(crate) fn kind_of(dt: &DataType) -> i32 {
    use DataType::*;
    match dt {
        Null => NULLS,
        Float16 | Float32 | Float64 | UInt64 | Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => {
            FLOAT64
        }
        Int8 | Int16 | Int32 | UInt8 | UInt16 => INT32,
        Int64 | UInt32 => INT64,
        Boolean => BOOL,
        Date32 => DATE32,
        Date64 | Timestamp(..) => TIMESTAMP,
        Time32(_) | Time64(_) | Duration(_) => TIME,
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => BLOB,
        Dictionary(_, value) => kind_of(value),
        _ => TEXT,
    }
}

/// `array` in the layout of its kind.
fn normalized(array: ArrayRef) -> swingdb::Result<ArrayRef> {
    use DataType::*;
    let to = |dt: DataType| cast(&array, &dt).map_err(Error::from);
    Ok(match array.data_type() {
        Null | Float64 | Int64 | Boolean | Date32 | Timestamp(..) | LargeUtf8 | LargeBinary => array.clone(),
        Int32 => {
            // R (the main caller) reads INT32_MIN as NA: such a column arrives as doubles.
            if min(array.as_primitive::<Int32Type>()) == Some(i32::MIN) {
                to(Float64)?
            } else {
                array.clone()
            }
        }
        Int8 | Int16 | UInt8 | UInt16 => to(Int32)?,
        UInt32 => to(Int64)?,
        Float16 | Float32 | UInt64 | Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => to(Float64)?,
        Date64 => to(Timestamp(TimeUnit::Millisecond, None))?,
        Time32(_) | Time64(_) => to(Time64(TimeUnit::Nanosecond))?,
        Duration(_) => to(Duration(TimeUnit::Nanosecond))?,
        Utf8 | Utf8View => to(LargeUtf8)?,
        Binary | BinaryView | FixedSizeBinary(_) => to(LargeBinary)?,
        Dictionary(_, value) => normalized(cast(&array, value).map_err(Error::from)?)?,
        _ => as_text(&array)?,
    })
}

/// Any array as its values' text (nested values, intervals), NULL kept.
fn as_text(array: &ArrayRef) -> swingdb::Result<ArrayRef> {
    let formatter = ArrayFormatter::try_new(array.as_ref(), &FormatOptions::default()).map_err(Error::from)?;
    let mut out = LargeStringBuilder::new();
    for i in 0..array.len() {
        if array.is_null(i) {
            out.append_null();
        } else {
            out.append_value(formatter.value(i).to_string());
        }
    }
    Ok(Arc::new(out.finish()))
}

/// The C view of `array` (already normalized); the owner keeps it alive.
fn describe(array: ArrayRef) -> swingdb_column {
    use DataType::*;
    let data = array.to_data();
    let offset = data.offset();
    let (validity, validity_bit) = match data.nulls() {
        Some(nulls) if nulls.null_count() > 0 => (nulls.buffer().as_ptr(), nulls.offset() as i64),
        _ => (std::ptr::null(), 0),
    };
    let mut column = swingdb_column {
        kind: kind_of(array.data_type()),
        length: array.len() as i64,
        null_count: array.null_count() as i64,
        values: std::ptr::null(),
        values_bit: 0,
        validity,
        validity_bit,
        offsets: std::ptr::null(),
        data: std::ptr::null(),
        unit: 1.0,
        timezone: std::ptr::null(),
        owner: std::ptr::null_mut(),
    };
    let mut timezone = None;
    match array.data_type() {
        Null => column.null_count = array.len() as i64,
        Boolean => {
            column.values = data.buffers()[0].as_ptr();
            column.values_bit = offset as i64;
        }
        LargeUtf8 | LargeBinary => {
            // SAFETY: offsets of a valid array: length + 1 of them from `offset`.
            column.offsets = unsafe { data.buffers()[0].as_ptr().cast::<i64>().add(offset) };
            column.data = data.buffers()[1].as_ptr();
        }
        dt => {
            let width = dt.primitive_width().expect("normalized arrays of other kinds are fixed-width");
            // SAFETY: within the values buffer of a valid array.
            column.values = unsafe { data.buffers()[0].as_ptr().add(offset * width) };
            match dt {
                Timestamp(unit, tz) => {
                    column.unit = seconds_per(unit);
                    timezone = tz.as_ref().and_then(|tz| CString::new(tz.as_ref()).ok());
                }
                Time64(unit) | Duration(unit) => column.unit = seconds_per(unit),
                _ => {}
            }
        }
    }
    if let Some(tz) = &timezone {
        column.timezone = tz.as_ptr();
    }
    column.owner = Box::into_raw(Box::new(ColumnOwner { _array: array, _timezone: timezone }));
    column
}

/// The number of columns in a chunk.
///
/// # Safety
/// `chunk` is a live chunk.
#[no_mangle]
pub unsafe extern "C" fn swingdb_chunk_ncol(chunk: *const swingdb_chunk) -> usize {
    // SAFETY: per the contract.
    unsafe { &*chunk }.columns.len()
}

/// Moves column `i` out of the chunk.
///
/// # Safety
/// `chunk` is a live chunk, `column` writable; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_chunk_take(
    chunk: *mut swingdb_chunk,
    i: usize,
    column: *mut swingdb_column,
    error: *mut crate::swingdb_error,
) -> i32 {
    // SAFETY: per the contract.
    let chunk = unsafe { &mut *chunk };
    crate::guarded(error, -1, || {
        let array =
            chunk.columns.get_mut(i).and_then(Option::take).ok_or_else(|| {
                Error::programming(format!("column {i} of this chunk was taken already or is not there"))
            })?;
        let described = describe(normalized(array)?);
        // SAFETY: per the contract.
        unsafe { column.write(described) };
        Ok(0)
    })
}

/// Frees a chunk (and the columns not taken from it).
///
/// # Safety
/// `chunk` is NULL or a chunk from this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn swingdb_chunk_free(chunk: *mut swingdb_chunk) {
    if !chunk.is_null() {
        // SAFETY: per the contract, made by Box::into_raw.
        drop(unsafe { Box::from_raw(chunk) });
    }
}

/// Frees a column's buffers.
///
/// # Safety
/// `owner` is NULL or the owner of a taken column, freed once.
#[no_mangle]
pub unsafe extern "C" fn swingdb_column_free(owner: *mut ColumnOwner) {
    if !owner.is_null() {
        // SAFETY: per the contract, made by Box::into_raw.
        drop(unsafe { Box::from_raw(owner) });
    }
}
