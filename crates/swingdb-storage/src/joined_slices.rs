//! Joins consecutive slices of one buffer back into one array, without copying.
//! Scans hand DataFusion small slices (for parallelism); a result that is a
//! plain read of stored (or registered) data should still reach numpy as one
//! contiguous array per column, pointing at the original memory.

use datafusion::arrow::array::{make_array, ArrayData, ArrayRef, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer};
use datafusion::arrow::datatypes::DataType;
use std::ptr::NonNull;
use std::sync::Arc;

/// Byte width of each element of the buffer that gets re-spanned: values for
/// fixed-width types, offsets for variable-width ones; None for booleans
/// (bit-addressed) and types that are never joined.
fn spanned_width(dt: &DataType) -> Option<usize> {
    match dt {
        DataType::Boolean => None,
        DataType::Utf8 | DataType::Binary => Some(4),
        DataType::LargeUtf8 | DataType::LargeBinary => Some(8),
        dt => dt.primitive_width(),
    }
}

fn is_variable(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary)
}

/// Bitmaps (validity, booleans) continue when they share one buffer and the
/// bit ranges meet.
fn bits_continue(a: &BooleanBuffer, b: &BooleanBuffer) -> bool {
    a.inner().as_ptr() == b.inner().as_ptr() && a.inner().len() == b.inner().len() && a.offset() + a.len() == b.offset()
}

fn bools(data: &ArrayData) -> BooleanBuffer {
    BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len())
}

/// Whether column `b` starts exactly where column `a` ends, in the same allocation.
fn column_continues(a: &ArrayData, b: &ArrayData) -> bool {
    if a.data_type() != b.data_type() || !a.child_data().is_empty() {
        return false;
    }
    let nulls_ok = match (a.nulls(), b.nulls()) {
        (None, None) => true,
        (Some(x), Some(y)) => bits_continue(x.inner(), y.inner()),
        _ => false,
    };
    if !nulls_ok {
        return false;
    }
    if a.data_type() == &DataType::Boolean {
        return bits_continue(&bools(a), &bools(b));
    }
    let Some(width) = spanned_width(a.data_type()) else { return false };
    let (x, y) = (&a.buffers()[0], &b.buffers()[0]);
    let same_allocation = x.data_ptr() == y.data_ptr();
    // For strings, b's first offset is a's last one: the offset buffers overlap by one entry.
    let meets = x.as_ptr() as usize + a.len() * width == y.as_ptr() as usize;
    let values_shared = !is_variable(a.data_type())
        || (a.buffers()[1].as_ptr() == b.buffers()[1].as_ptr() && a.buffers()[1].len() == b.buffers()[1].len());
    a.offset() == 0 && b.offset() == 0 && same_allocation && meets && values_shared
}

/// Whether every column of `b` continues the same column of `a`.
pub fn continues(a: &RecordBatch, b: &RecordBatch) -> bool {
    a.schema() == b.schema()
        && a.num_columns() > 0
        && a.columns().iter().zip(b.columns()).all(|(x, y)| column_continues(&x.to_data(), &y.to_data()))
}

/// One batch spanning `run`, whose batches each [`continue`](continues) the one before.
pub fn join_run(run: &[RecordBatch]) -> RecordBatch {
    if run.len() == 1 {
        return run[0].clone();
    }
    let rows: usize = run.iter().map(|b| b.num_rows()).sum();
    let columns: Vec<ArrayRef> =
        (0..run[0].num_columns()).map(|i| make_array(join_column(&run[0].column(i).to_data(), rows))).collect();
    RecordBatch::try_new(run[0].schema(), columns).expect("joined columns match the schema")
}

fn join_column(first: &ArrayData, len: usize) -> ArrayData {
    let nulls = first.nulls().map(|n| NullBuffer::new(BooleanBuffer::new(n.inner().inner().clone(), n.offset(), len)));
    let (offset, buffers) = if first.data_type() == &DataType::Boolean {
        (first.offset(), vec![first.buffers()[0].clone()])
    } else {
        let width = spanned_width(first.data_type()).expect("checked by continues");
        let entries = if is_variable(first.data_type()) { len + 1 } else { len };
        let head = first.buffers()[0].clone();
        let ptr = NonNull::new(head.as_ptr() as *mut u8).expect("buffers are never null");
        // SAFETY: the run's buffers lie back to back in the allocation `head`
        // belongs to (checked by `continues`); owning `head` keeps all of it alive.
        let spanned = unsafe { Buffer::from_custom_allocation(ptr, entries * width, Arc::new(head)) };
        let mut buffers = vec![spanned];
        buffers.extend(first.buffers()[1..].iter().cloned());
        (0, buffers)
    };
    let builder = ArrayData::builder(first.data_type().clone()).len(len).offset(offset).nulls(nulls).buffers(buffers);
    // SAFETY: the joined array covers exactly the bytes of valid arrays that lie
    // back to back in one allocation, so it is valid too.
    unsafe { builder.build_unchecked() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::write::write_segment;
    use crate::MappedSegment;
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
        let meta = write_segment(&path, &batch.schema(), std::slice::from_ref(&batch)).unwrap();
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let full = &seg.batches(None).unwrap()[0];
        let (x, y) = (full.slice(0, 3 * 8 + 1), full.slice(3 * 8 + 1, n as usize - 25));
        assert!(continues(&x, &y));
        let merged = join_run(&[x.clone(), y.clone()]);
        assert_eq!(&merged, full);
        let address = |b: &RecordBatch| b.column(0).to_data().buffers()[0].as_ptr();
        assert_eq!(address(&merged), address(full), "same memory, not a copy");
        // Out of order, or not from a mapping: no merge.
        assert!(!continues(&y, &x));
        assert!(!continues(&make(0..10), &make(10..20)), "separate allocations are never joined");
        let heap = make(0..100);
        let run = [heap.slice(0, 10), heap.slice(10, 30), heap.slice(40, 60)];
        assert!(continues(&run[0], &run[1]) && continues(&run[1], &run[2]));
        assert_eq!(join_run(&run), heap, "slices of one heap allocation join back too");
        assert_eq!(merged.column(1).null_count(), full.column(1).null_count());
    }
}
