//! Whether a column's values ascend through a segment (NULLs first), the
//! order a `CLUSTER BY` table's writes leave its first key column in. Scans
//! check it before narrowing a range filter to a slice of the segment, so a
//! segment that is not sorted (written by an older build, by a compaction, or
//! damaged) is read whole instead of answered wrongly.

use datafusion::arrow::array::{make_comparator, Array, ArrayRef, AsArray, PrimitiveArray, RecordBatch};
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::*;
use std::cmp::Ordering;

/// The order a clustered table's rows are written in: ascending, NULLs first.
pub const CLUSTER_ORDER: SortOptions = SortOptions { descending: false, nulls_first: true };

/// Whether column `column` of `batches`, one after the other, ascends (see [`ascends`]).
pub fn column_ascends(batches: &[RecordBatch], column: usize) -> bool {
    let arrays: Vec<ArrayRef> = batches.iter().map(|b| b.column(column).clone()).collect();
    ascends(&arrays)
}

/// Whether the values of `arrays`, one after the other, ascend (each no
/// greater than the next, in Arrow's sort order) with every NULL before the
/// first value.
pub fn ascends(arrays: &[ArrayRef]) -> bool {
    let mut previous: Option<(&ArrayRef, usize)> = None;
    for array in arrays {
        let nulls = array.null_count();
        if nulls > 0 && (previous.is_some() || array.slice(0, nulls).null_count() != nulls) {
            return false;
        }
        if nulls == array.len() {
            continue;
        }
        if let Some((last, at)) = previous {
            match make_comparator(last, array, CLUSTER_ORDER) {
                Ok(cmp) if cmp(at, nulls) != Ordering::Greater => {}
                _ => return false,
            }
        }
        if !values_ascend(&array.slice(nulls, array.len() - nulls)) {
            return false;
        }
        previous = Some((array, array.len() - 1));
    }
    true
}

/// Whether the (non-NULL) values of `array` ascend.
fn values_ascend(array: &ArrayRef) -> bool {
    fn primitive<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>) -> bool
    where
        T::Native: PartialOrd,
    {
        array.values().windows(2).all(|w| w[0] <= w[1])
    }
    match array.data_type() {
        DataType::Int8 => primitive(array.as_primitive::<Int8Type>()),
        DataType::Int16 => primitive(array.as_primitive::<Int16Type>()),
        DataType::Int32 => primitive(array.as_primitive::<Int32Type>()),
        DataType::Int64 => primitive(array.as_primitive::<Int64Type>()),
        DataType::UInt8 => primitive(array.as_primitive::<UInt8Type>()),
        DataType::UInt16 => primitive(array.as_primitive::<UInt16Type>()),
        DataType::UInt32 => primitive(array.as_primitive::<UInt32Type>()),
        DataType::UInt64 => primitive(array.as_primitive::<UInt64Type>()),
        DataType::Date32 => primitive(array.as_primitive::<Date32Type>()),
        DataType::Date64 => primitive(array.as_primitive::<Date64Type>()),
        DataType::Decimal128(..) => primitive(array.as_primitive::<Decimal128Type>()),
        DataType::Timestamp(TimeUnit::Second, _) => primitive(array.as_primitive::<TimestampSecondType>()),
        DataType::Timestamp(TimeUnit::Millisecond, _) => primitive(array.as_primitive::<TimestampMillisecondType>()),
        DataType::Timestamp(TimeUnit::Microsecond, _) => primitive(array.as_primitive::<TimestampMicrosecondType>()),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => primitive(array.as_primitive::<TimestampNanosecondType>()),
        _ => match make_comparator(array, array, CLUSTER_ORDER) {
            Ok(cmp) => (1..array.len()).all(|i| cmp(i - 1, i) != Ordering::Greater),
            Err(_) => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::ascends;
    use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, StringArray};
    use std::sync::Arc;

    fn ints(values: &[Option<i64>]) -> ArrayRef {
        Arc::new(Int64Array::from(values.to_vec()))
    }

    #[test]
    fn values_ascend_across_arrays_with_nulls_only_at_the_start() {
        assert!(ascends(&[ints(&[None, None, Some(1), Some(1)]), ints(&[Some(1), Some(5)]), ints(&[])]));
        assert!(ascends(&[ints(&[None]), ints(&[None, Some(2)])]));
        assert!(!ascends(&[ints(&[Some(1), Some(3)]), ints(&[Some(2)])]), "falls between arrays");
        assert!(!ascends(&[ints(&[Some(1), Some(0)])]), "falls inside one");
        assert!(!ascends(&[ints(&[Some(1), None])]), "a NULL after a value");
        assert!(!ascends(&[ints(&[Some(1)]), ints(&[None, Some(2)])]), "a NULL in a later array");
        assert!(!ascends(&[ints(&[None, Some(1), None, Some(2)])]), "NULLs not all first");
        let words: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), Some("ab"), Some("b")]));
        assert!(ascends(&[words]));
        let words: ArrayRef = Arc::new(StringArray::from(vec![Some("b"), Some("ab")]));
        assert!(!ascends(&[words]));
        // NaN sorts last in Arrow's order.
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![-1.0, 2.0, f64::NAN]));
        assert!(ascends(&[floats]));
    }
}
