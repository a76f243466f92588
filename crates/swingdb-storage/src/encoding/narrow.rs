//! The encodings of numeric columns in tables with `compression = 'light'`
//! (see [`crate::encoding::mode`]): compact, still plain Arrow, and decoded
//! by a widening copy at memory speed.
//!
//! - An integer, date, time, timestamp or duration column is stored in the
//!   narrowest of Arrow's `Int8`, `Int16` and `Int32` that holds every value
//!   of the segment (byte-aligned bit packing, with a frame of reference of
//!   zero): TPC-H's keys take 4 bytes instead of 8, its line numbers 1, its
//!   dates 2 instead of 4. A column whose values need its own width stays
//!   as it is.
//! - A `DOUBLE` column whose values are all decimals of at most
//!   [`MAX_FLOAT_SCALE`] digits after the point and 9 digits in all (prices,
//!   rates, measurements), as Arrow `Decimal32(9, s)` of the same values:
//!   every value is checked to come back bit for bit (what ALP does per
//!   vector, here per segment), so `-0.0`, NaN and infinities, or one value
//!   of more digits, keep the column as it is.
//!
//! Other Arrow readers (pyarrow, polars) read such columns as the narrow
//! integers and decimals: the same values, in other types. Light tables
//! then bit-pack them where that saves an eighth or more (see
//! [`crate::encoding::packed`]); zstd tables compress them.

use crate::error::Result;
use datafusion::arrow::array::{make_array, Array, ArrayRef, AsArray, Decimal32Array, Float64Array, PrimitiveArray};
use datafusion::arrow::compute::{cast, max, min};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
};
use std::sync::Arc;

/// Most digits after the point a float column is stored as a decimal with.
pub const MAX_FLOAT_SCALE: i8 = 6;

/// Most digits (and the precision) of a float column stored as a decimal.
const FLOAT_PRECISION: u8 = 9;

/// The integer type whose values a column of table type `table` holds (its
/// Arrow physical type), if it is one this module narrows.
fn integer_type(table: &DataType) -> Option<DataType> {
    match table {
        DataType::Int16 => Some(DataType::Int16),
        DataType::Int32 | DataType::Date32 | DataType::Time32(_) => Some(DataType::Int32),
        DataType::Int64 | DataType::Date64 | DataType::Time64(_) | DataType::Timestamp(..) | DataType::Duration(_) => {
            Some(DataType::Int64)
        }
        _ => None,
    }
}

/// Whether a segment column of type `stored` holds a table column of type
/// `table` narrowed by this module.
pub fn stores(stored: &DataType, table: &DataType) -> bool {
    if let (Some(wide), DataType::Int8 | DataType::Int16 | DataType::Int32) = (integer_type(table), stored) {
        return stored.primitive_width() < wide.primitive_width();
    }
    matches!((stored, table), (DataType::Decimal32(FLOAT_PRECISION, s), DataType::Float64) if (0..=MAX_FLOAT_SCALE).contains(s))
}

/// The pieces `arrays` of one column of type `table`, narrowed (see the
/// module documentation), if that stores them in fewer bytes.
pub fn narrow(table: &DataType, arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    if table == &DataType::Float64 {
        return decimal_floats(arrays);
    }
    let wide = integer_type(table)?;
    let values: Vec<PrimitiveArray<Int64Type>> = arrays
        .iter()
        .map(|a| cast(&retyped(a, &wide).ok()?, &DataType::Int64).ok().map(|a| a.as_primitive::<Int64Type>().clone()))
        .collect::<Option<_>>()?;
    let low = values.iter().filter_map(min).min().unwrap_or(0);
    let high = values.iter().filter_map(max).max().unwrap_or(0);
    let within = |lo: i64, hi: i64| lo <= low && high <= hi;
    let narrow: DataType = if within(i8::MIN.into(), i8::MAX.into()) {
        DataType::Int8
    } else if within(i16::MIN.into(), i16::MAX.into()) {
        DataType::Int16
    } else if within(i32::MIN.into(), i32::MAX.into()) {
        DataType::Int32
    } else {
        return None;
    };
    if narrow.primitive_width() >= wide.primitive_width() {
        return None;
    }
    // NULL slots may hold anything: they keep their low bits.
    fn to<T: ArrowPrimitiveType>(values: &[PrimitiveArray<Int64Type>], f: fn(i64) -> T::Native) -> Vec<ArrayRef> {
        values.iter().map(|v| Arc::new(v.unary::<_, T>(f)) as ArrayRef).collect()
    }
    Some(match narrow {
        DataType::Int8 => to::<Int8Type>(&values, |v| v as i8),
        DataType::Int16 => to::<Int16Type>(&values, |v| v as i16),
        _ => to::<Int32Type>(&values, |v| v as i32),
    })
}

/// `array`'s values (of a narrowed column, see [`stores`]) as type `table`,
/// in fresh memory.
pub fn widen(array: &ArrayRef, table: &DataType) -> Result<ArrayRef> {
    if let DataType::Decimal32(_, scale) = array.data_type() {
        let scale = *scale;
        let floats: Float64Array = array.as_primitive::<Decimal32Type>().unary(|n| float_of(n, scale));
        return Ok(Arc::new(floats));
    }
    let wide = integer_type(table).expect("a narrowed column's table type is an integer's");
    retyped(&cast(array, &wide)?, table)
}

/// `array` (of a type whose values are integers of `to`'s width) as type
/// `to`: the same buffers.
fn retyped(array: &ArrayRef, to: &DataType) -> Result<ArrayRef> {
    if array.data_type() == to {
        return Ok(array.clone());
    }
    Ok(make_array(array.to_data().into_builder().data_type(to.clone()).build()?))
}

/// The float a decimal of unscaled value `n` and scale `scale` stores; what
/// [`decimal_floats`] checks every value against.
fn float_of(n: i32, scale: i8) -> f64 {
    f64::from(n) / 10f64.powi(i32::from(scale))
}

/// The float pieces `arrays` as `Decimal32(9, s)` of the same values, for
/// the smallest scale `s` that stores every one of them exactly, if any.
fn decimal_floats(arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    let floats = arrays.iter().map(|a| a.as_primitive_opt::<Float64Type>()).collect::<Option<Vec<_>>>()?;
    let limit = 10f64.powi(i32::from(FLOAT_PRECISION)) - 1.0;
    let exact = |scale: i8| {
        let factor = 10f64.powi(i32::from(scale));
        floats.iter().all(|f| {
            f.iter().flatten().all(|v| {
                let n = (v * factor).round();
                n.abs() <= limit && float_of(n as i32, scale).to_bits() == v.to_bits()
            })
        })
    };
    let scale = (0..=MAX_FLOAT_SCALE).find(|&s| exact(s))?;
    let factor = 10f64.powi(i32::from(scale));
    floats
        .iter()
        .map(|f| {
            // NULL slots may hold anything: a value beyond 32 bits saturates.
            let n: Decimal32Array = f.unary(|v| (v * factor).round() as i32);
            Some(Arc::new(n.with_precision_and_scale(FLOAT_PRECISION, scale).ok()?) as ArrayRef)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Date32Array, Int64Array, TimestampMicrosecondArray};

    /// `array` narrowed as one piece: its stored type and values read back.
    fn round_trip(array: ArrayRef) -> Option<DataType> {
        let table = array.data_type().clone();
        let stored = narrow(&table, std::slice::from_ref(&array))?.remove(0);
        assert!(stores(stored.data_type(), &table), "{} for {table}", stored.data_type());
        assert_eq!(&widen(&stored, &table).unwrap(), &array, "{table} via {}", stored.data_type());
        Some(stored.data_type().clone())
    }

    #[test]
    fn integers_and_dates_take_the_narrowest_width_of_their_values() {
        let ints = |v: Vec<Option<i64>>| Arc::new(Int64Array::from(v)) as ArrayRef;
        assert_eq!(round_trip(ints(vec![Some(1), None, Some(-128), Some(127)])), Some(DataType::Int8));
        assert_eq!(round_trip(ints(vec![Some(128), None])), Some(DataType::Int16));
        assert_eq!(round_trip(ints(vec![Some(-32_769), Some(7)])), Some(DataType::Int32));
        assert_eq!(round_trip(ints(vec![Some(i64::from(i32::MAX) + 1)])), None, "needs its own width");
        assert_eq!(round_trip(ints(vec![None, None])), Some(DataType::Int8), "all NULL");
        let dates: ArrayRef = Arc::new(Date32Array::from(vec![Some(8_035), None, Some(10_591)]));
        assert_eq!(round_trip(dates), Some(DataType::Int16), "TPC-H's dates in 2 bytes");
        let utc = TimestampMicrosecondArray::from(vec![Some(1_000_000), Some(-5)]).with_timezone("UTC");
        assert_eq!(round_trip(Arc::new(utc)), Some(DataType::Int32), "its time zone comes back");
        // Pieces narrow together, to the width the widest needs.
        let pieces = [ints(vec![Some(1)]), ints(vec![Some(40_000)])];
        let stored = narrow(&DataType::Int64, &pieces).unwrap();
        assert!(stored.iter().all(|s| s.data_type() == &DataType::Int32));
        assert_eq!(&widen(&stored[0], &DataType::Int64).unwrap(), &pieces[0]);
    }

    #[test]
    fn floats_of_few_decimals_are_stored_as_decimals_and_come_back_bit_for_bit() {
        let floats = |v: Vec<Option<f64>>| Arc::new(Float64Array::from(v)) as ArrayRef;
        assert_eq!(round_trip(floats(vec![Some(0.1), None, Some(-2.75), Some(1e3)])), Some(DataType::Decimal32(9, 2)));
        assert_eq!(round_trip(floats(vec![Some(3.0), Some(-7.0)])), Some(DataType::Decimal32(9, 0)));
        assert_eq!(round_trip(floats(vec![Some(0.123456)])), Some(DataType::Decimal32(9, 6)));
        for kept in [0.1234567, -0.0, f64::NAN, f64::INFINITY, 1e10, 1.0 / 3.0] {
            assert_eq!(round_trip(floats(vec![Some(1.5), Some(kept)])), None, "{kept}");
        }
    }
}
