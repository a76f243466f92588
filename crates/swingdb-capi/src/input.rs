//! Columns in from C, in the layouts of R's vectors (`swingdb_input_column`),
//! stored as a table or registered in place.
//!
//! Doubles, 32- and 64-bit integers are not copied when the caller gives an
//! owner: their memory becomes the Arrow values buffer, and NULLs (R's NA
//! sentinels) become a validity bitmap beside it. Buffers may be dropped on
//! any of the engine's threads, while R's memory may only be released on R's
//! own; so a dropped buffer's owner goes into a queue that the caller drains
//! on its thread ([`swingdb_take_released`]).

use crate::handles::connection;
use crate::{guarded, swingdb_error, text};
use parking_lot::Mutex;
use std::ffi::c_char;
use std::panic::RefUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;
use swingdb::arrow::array::{
    ArrayRef, BinaryBuilder, BooleanArray, DictionaryArray, Int32Array, Int64Array, PrimitiveArray, RecordBatch,
    StringArray, StringBuilder, Time64NanosecondArray, TimestampMicrosecondArray,
};
use swingdb::arrow::buffer::{Buffer, NullBuffer, ScalarBuffer};
use swingdb::arrow::datatypes::{ArrowPrimitiveType, Date32Type, Field, Float64Type, Int32Type, Int64Type, Schema};
use swingdb::Error;

/// One input column (see `swingdb_input_column` in the header).
#[repr(C)]
pub struct swingdb_input_column {
    name: *const c_char,
    kind: i32,
    length: i64,
    values: *const u8,
    lengths: *const i64,
    levels: *const *const c_char,
    nlevels: i64,
    timezone: *const c_char,
    owner: *mut std::ffi::c_void,
}

/// Owners whose memory the engine no longer uses, for the caller to release.
static RELEASED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// A caller's memory lent to an Arrow buffer; dropping it queues the owner.
struct Lent(usize);

impl Drop for Lent {
    fn drop(&mut self) {
        RELEASED.lock().push(self.0);
    }
}

impl RefUnwindSafe for Lent {}

/// Rows of a registered table per batch: the scan's unit of parallelism.
const BATCH_ROWS: usize = 1 << 16;

const NA_INT32: i32 = i32::MIN;

/// Whether `x` is R's NA (a NaN whose low word is 1954), not a plain NaN.
fn r_na(x: f64) -> bool {
    x.is_nan() && (x.to_bits() & 0xffff_ffff) == 1954
}

/// The `len` values at `ptr`, borrowed for the buffer's life when `owner`
/// is given and the memory is aligned, else copied.
///
/// # Safety
/// `ptr` points at `len` values that stay alive and unchanged until the owner
/// comes back through the queue.
unsafe fn values<T: ArrowPrimitiveType>(
    ptr: *const u8,
    len: usize,
    owner: *mut std::ffi::c_void,
) -> ScalarBuffer<T::Native> {
    let bytes = len * std::mem::size_of::<T::Native>();
    let aligned = (ptr as usize).is_multiple_of(std::mem::align_of::<T::Native>());
    if len > 0 && !owner.is_null() && aligned {
        if let Some(nn) = NonNull::new(ptr.cast_mut()) {
            // SAFETY: per the contract, the memory outlives the buffer (the
            // owner is released only once the buffer is dropped).
            let buffer = unsafe { Buffer::from_custom_allocation(nn, bytes, Arc::new(Lent(owner as usize))) };
            return ScalarBuffer::new(buffer, 0, len);
        }
    }
    if !owner.is_null() {
        drop(Lent(owner as usize)); // copied: the caller's memory is free again
    }
    if len == 0 {
        return ScalarBuffer::from(Vec::<T::Native>::new());
    }
    // SAFETY: per the contract, `len` values at `ptr`.
    let slice = unsafe { std::slice::from_raw_parts(ptr.cast::<T::Native>(), len) };
    ScalarBuffer::from(slice.to_vec())
}

/// The validity of values where `is_null` holds for NULLs; None when there are none.
fn validity<V: Copy>(values: &[V], is_null: impl Fn(V) -> bool) -> Option<NullBuffer> {
    if !values.iter().any(|&v| is_null(v)) {
        return None;
    }
    Some(NullBuffer::from_iter(values.iter().map(|&v| !is_null(v))))
}

/// A slice of the caller's values.
///
/// # Safety
/// `ptr` points at `len` values of `T` (any pointer when `len` is 0).
unsafe fn slice<'a, T>(ptr: *const u8, len: usize) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(ptr.cast::<T>(), len) }
}

/// The C strings of `ptr` (`len` of them; NULL pointers are NULLs).
///
/// # Safety
/// `ptr` points at `len` pointers, each NULL or a NUL-terminated string.
unsafe fn strings<'a>(ptr: *const *const c_char, len: usize) -> swingdb::Result<Vec<Option<&'a str>>> {
    // SAFETY: per the contract.
    let ptrs = unsafe { slice::<*const c_char>(ptr.cast(), len) };
    ptrs.iter().map(|&p| if p.is_null() { Ok(None) } else { unsafe { text(p, "a text value") }.map(Some) }).collect()
}

/// The column as an Arrow array.
///
/// # Safety
/// The column's pointers are as the header says.
unsafe fn array_of(col: &swingdb_input_column, name: &str) -> swingdb::Result<ArrayRef> {
    let len = usize::try_from(col.length).map_err(|_| Error::programming(format!("column {name}: negative length")))?;
    let ptr = col.values;
    // SAFETY (all below): per the header, `values` holds `len` values of the kind's layout.
    Ok(match col.kind {
        1 => {
            let nulls = validity(unsafe { slice::<f64>(ptr, len) }, r_na);
            let values = unsafe { values::<Float64Type>(ptr, len, col.owner) };
            Arc::new(PrimitiveArray::<Float64Type>::new(values, nulls)) as ArrayRef
        }
        2 => {
            let nulls = validity(unsafe { slice::<i32>(ptr, len) }, |v| v == NA_INT32);
            Arc::new(Int32Array::new(unsafe { values::<Int32Type>(ptr, len, col.owner) }, nulls))
        }
        8 => {
            let nulls = validity(unsafe { slice::<i64>(ptr, len) }, |v| v == i64::MIN);
            Arc::new(Int64Array::new(unsafe { values::<Int64Type>(ptr, len, col.owner) }, nulls))
        }
        3 => Arc::new(
            unsafe { slice::<i32>(ptr, len) }
                .iter()
                .map(|&v| (v != NA_INT32).then_some(v != 0))
                .collect::<BooleanArray>(),
        ),
        4 => {
            let days = unsafe { slice::<f64>(ptr, len) };
            let out: PrimitiveArray<Date32Type> =
                days.iter().map(|&d| (!d.is_nan() && d.is_finite()).then(|| d.floor() as i32)).collect();
            Arc::new(out)
        }
        5 => {
            let secs = unsafe { slice::<f64>(ptr, len) };
            let micros: TimestampMicrosecondArray =
                secs.iter().map(|&s| s.is_finite().then(|| (s * 1e6).round() as i64)).collect();
            let tz = if col.timezone.is_null() {
                None
            } else {
                let tz = unsafe { text(col.timezone, "the time zone") }?;
                (!tz.is_empty()).then(|| tz.to_string())
            };
            Arc::new(micros.with_timezone_opt(tz))
        }
        10 => {
            // Nanoseconds, the unit of SQL's TIME.
            let secs = unsafe { slice::<f64>(ptr, len) };
            let nanos: Time64NanosecondArray =
                secs.iter().map(|&s| s.is_finite().then(|| (s * 1e9).round() as i64)).collect();
            Arc::new(nanos)
        }
        6 => {
            let values = unsafe { strings(ptr.cast(), len) }?;
            let mut out = StringBuilder::with_capacity(len, 0);
            values.into_iter().for_each(|v| out.append_option(v));
            Arc::new(out.finish())
        }
        7 => {
            let levels = unsafe { strings(col.levels, usize::try_from(col.nlevels).unwrap_or(0)) }?;
            let nlevels = levels.len() as i32;
            let codes = unsafe { slice::<i32>(ptr, len) };
            let keys: Int32Array =
                codes.iter().map(|&c| if c == NA_INT32 || c < 1 || c > nlevels { None } else { Some(c - 1) }).collect();
            let dictionary = StringArray::from(levels);
            Arc::new(DictionaryArray::try_new(keys, Arc::new(dictionary)).map_err(Error::from)?)
        }
        9 => {
            let ptrs = unsafe { slice::<*const u8>(ptr, len) };
            let lengths = unsafe { slice::<i64>(col.lengths.cast(), len) };
            let mut out = BinaryBuilder::new();
            for (&p, &n) in ptrs.iter().zip(lengths) {
                if p.is_null() {
                    out.append_null();
                } else {
                    out.append_value(unsafe { slice::<u8>(p, n as usize) });
                }
            }
            Arc::new(out.finish())
        }
        other => return Err(Error::programming(format!("column {name}: unknown input kind {other}"))),
    })
}

/// Stores or registers the columns as table `name`; returns the rows.
///
/// # Safety
/// `con` is a live handle, `name` a NUL-terminated string, `columns` points at
/// `ncol` columns as the header says; `error` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn swingdb_store(
    con: *const crate::swingdb_connection,
    name: *const c_char,
    columns: *const swingdb_input_column,
    ncol: usize,
    mode: i32,
    error: *mut swingdb_error,
) -> i64 {
    // SAFETY: per the contract.
    let con = connection(unsafe { &*con });
    guarded(error, -1, || {
        // SAFETY: per the contract.
        let name = unsafe { text(name, "the table name") }?;
        let columns = if ncol == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(columns, ncol) } };
        if columns.is_empty() {
            return Err(Error::programming(format!("table {name} needs at least one column")));
        }
        let mut fields = Vec::with_capacity(ncol);
        let mut arrays = Vec::with_capacity(ncol);
        for col in columns {
            // SAFETY: per the contract.
            let column_name = unsafe { text(col.name, "a column name") }?;
            let array = unsafe { array_of(col, column_name) }?;
            fields.push(Field::new(column_name, array.data_type().clone(), true));
            arrays.push(array);
        }
        let rows = arrays[0].len();
        if let Some(bad) = arrays.iter().zip(columns).find(|(a, _)| a.len() != rows) {
            return Err(Error::programming(format!(
                "column lengths differ in table {name}: {} rows and {}",
                rows,
                bad.0.len()
            )));
        }
        let schema = Arc::new(Schema::new(fields));
        let whole = RecordBatch::try_new(schema.clone(), arrays).map_err(Error::from)?;
        let batches: Vec<RecordBatch> = (0..rows.max(1))
            .step_by(BATCH_ROWS)
            .map(|start| whole.slice(start.min(rows), BATCH_ROWS.min(rows - start.min(rows))))
            .collect();
        match mode {
            0 | 1 => {
                con.store(name, schema, batches, mode == 0)?;
            }
            2 => con.register(name, schema, batches)?,
            other => return Err(Error::programming(format!("unknown store mode {other}"))),
        }
        Ok(rows as i64)
    })
}

/// Removes a registration.
///
/// # Safety
/// `con` is a live handle, `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn swingdb_unregister(con: *const crate::swingdb_connection, name: *const c_char) -> i32 {
    // SAFETY: per the contract.
    let con = connection(unsafe { &*con });
    match unsafe { text(name, "the table name") } {
        Ok(name) => i32::from(con.unregister(name)),
        Err(_) => 0,
    }
}

/// Moves up to `cap` released owners into `out`.
///
/// # Safety
/// `out` points at room for `cap` pointers.
#[no_mangle]
pub unsafe extern "C" fn swingdb_take_released(out: *mut *mut std::ffi::c_void, cap: usize) -> usize {
    let mut queue = RELEASED.lock();
    let n = queue.len().min(cap);
    for (i, owner) in queue.drain(..n).enumerate() {
        // SAFETY: per the contract, room for `cap` >= n pointers.
        unsafe { *out.add(i) = owner as *mut std::ffi::c_void };
    }
    n
}
