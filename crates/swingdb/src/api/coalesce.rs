//! Joins adjacent slices of one mapped segment back into one array, without
//! copying. Scans hand DataFusion small slices (for parallelism); a result that
//! is a plain read of a stored table should still reach numpy as one contiguous
//! array per column, pointing into the segment file.

use crate::storage::segment::extend_mapped;
use datafusion::arrow::array::{make_array, ArrayData, ArrayRef, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer};
use datafusion::arrow::datatypes::DataType;

/// `a` followed by `b` as one batch, if every column of `b` continues the same
/// mapped buffers exactly where `a`'s end.
pub fn merge_adjacent(a: &RecordBatch, b: &RecordBatch) -> Option<RecordBatch> {
    if a.schema() != b.schema() || a.num_columns() == 0 {
        return None;
    }
    let columns = a
        .columns()
        .iter()
        .zip(b.columns())
        .map(|(x, y)| merge_arrays(&x.to_data(), &y.to_data()).map(make_array))
        .collect::<Option<Vec<ArrayRef>>>()?;
    RecordBatch::try_new(a.schema(), columns).ok()
}

fn follows(a: &Buffer, a_bytes: usize, b: &Buffer) -> bool {
    a.as_ptr() as usize + a_bytes == b.as_ptr() as usize
}

/// Bitmaps (validity, booleans) continue when they share one buffer and the
/// bit ranges meet.
fn merge_bits(a: &BooleanBuffer, b: &BooleanBuffer) -> Option<BooleanBuffer> {
    let same = a.inner().as_ptr() == b.inner().as_ptr() && a.inner().len() == b.inner().len();
    (same && a.offset() + a.len() == b.offset()).then(|| BooleanBuffer::new(a.inner().clone(), a.offset(), a.len() + b.len()))
}

fn merge_arrays(a: &ArrayData, b: &ArrayData) -> Option<ArrayData> {
    if a.data_type() != b.data_type() || !a.child_data().is_empty() {
        return None;
    }
    let len = a.len() + b.len();
    let nulls = match (a.nulls(), b.nulls()) {
        (None, None) => None,
        (Some(x), Some(y)) => Some(NullBuffer::new(merge_bits(x.inner(), y.inner())?)),
        _ => return None,
    };
    let (offset, buffers) = match a.data_type() {
        DataType::Boolean => {
            let x = BooleanBuffer::new(a.buffers()[0].clone(), a.offset(), a.len());
            let y = BooleanBuffer::new(b.buffers()[0].clone(), b.offset(), b.len());
            let merged = merge_bits(&x, &y)?;
            (merged.offset(), vec![merged.inner().clone()])
        }
        DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary => {
            let width = if matches!(a.data_type(), DataType::Utf8 | DataType::Binary) { 4 } else { 8 };
            let (oa, ob) = (&a.buffers()[0], &b.buffers()[0]);
            let (va, vb) = (&a.buffers()[1], &b.buffers()[1]);
            // b's first offset is a's last one: the offset buffers overlap by one entry.
            let values_shared = va.as_ptr() == vb.as_ptr() && va.len() == vb.len();
            if a.offset() != 0 || b.offset() != 0 || !values_shared || !follows(oa, a.len() * width, ob) {
                return None;
            }
            (0, vec![extend_mapped(oa, (len + 1) * width)?, va.clone()])
        }
        dt => {
            let width = dt.primitive_width()?;
            let (va, vb) = (&a.buffers()[0], &b.buffers()[0]);
            if a.offset() != 0 || b.offset() != 0 || !follows(va, a.len() * width, vb) {
                return None;
            }
            (0, vec![extend_mapped(va, len * width)?])
        }
    };
    let builder = ArrayData::builder(a.data_type().clone()).len(len).offset(offset).nulls(nulls).buffers(buffers);
    // SAFETY: the merged array covers exactly the bytes of two valid arrays that
    // lie back to back in one allocation (checked above), so it is valid too.
    Some(unsafe { builder.build_unchecked() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{write_segment, MappedSegment};
    use datafusion::arrow::array::{Array, BooleanArray, Int64Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    #[test]
    fn slices_of_a_mapped_segment_join_back_without_copying() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("b", DataType::Boolean, false),
        ]));
        let make = |range: std::ops::Range<i64>| {
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from_iter(range.clone().map(|i| (i % 7 != 0).then_some(i)))) as ArrayRef,
                    Arc::new(StringArray::from_iter(range.clone().map(|i| (i % 5 != 0).then(|| format!("v{i}"))))),
                    Arc::new(BooleanArray::from_iter(range.map(|i| Some(i % 3 == 0)))),
                ],
            )
            .unwrap()
        };
        let n = 1000;
        let batch = make(0..n);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let meta = write_segment(&path, &batch).unwrap();
        let seg = MappedSegment::open(&path, &meta, &schema, true).unwrap();
        let full = &seg.batches()[0];
        let (x, y) = (full.slice(0, 3 * 8 + 1), full.slice(3 * 8 + 1, n as usize - 25));
        let merged = merge_adjacent(&x, &y).expect("adjacent slices merge");
        assert_eq!(&merged, full);
        let address = |b: &RecordBatch| b.column(0).to_data().buffers()[0].as_ptr();
        assert_eq!(address(&merged), address(full), "same memory, not a copy");
        // Out of order, or not from a mapping: no merge.
        assert!(merge_adjacent(&y, &x).is_none());
        assert!(merge_adjacent(&make(0..10), &make(10..20)).is_none(), "heap arrays are never joined");
        assert_eq!(merged.column(1).null_count(), full.column(1).null_count());
    }
}
