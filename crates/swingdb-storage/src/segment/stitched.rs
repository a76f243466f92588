//! The columns of several mapped segments as one array each, without copying:
//! the file pages that hold each segment's values are mapped side by side
//! into one new region of address space (`mmap` with `MAP_FIXED`, read-only,
//! shared: the same page-cache pages the segments' own mappings show), so a
//! table of many segments still reaches numpy as one array per column
//! pointing at its files.
//!
//! Pages line up only where the writer put them so: each piece after the
//! first must start on a page of its file, and each piece before the last
//! must end on one. Segment files put large buffers on pages (see
//! [`crate::segment::ipc_file::PAGE_ALIGNED_MIN`]) and segments cut for their size
//! hold whole pages of rows (see [`crate::segment::writer::PAGE_ROWS`]); anything else
//! (older files, small or computed pieces, pages of another size) is not
//! stitched, but copied together.
//!
//! Only values are stitched. Bits (validity, booleans) are joined by copying
//! them: one bit per row.
//!
//! Interleavings with other processes: none to reason about. Segment files
//! are never modified after they are published; one deleted while a region
//! maps it stays readable (the mapping holds its inode), as the segments' own
//! mappings do. The region is this process's only.

use crate::segment::joined_buffers::bitmap;
use crate::segment::{is_mapping_start, locate_mapped};
use datafusion::arrow::array::{make_array, Array, ArrayData, ArrayRef, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer};
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::error::ArrowError;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::{Arc, LazyLock};

/// Where stitched regions' arrays start (see [`is_stitched_start`]).
static STARTS: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(Default::default);

/// Whether `address` is where a stitched array's values start.
fn is_stitched_start(address: usize) -> bool {
    STARTS.lock().contains(&address)
}

/// Whether `address` starts an allocation of file pages, not of memory the
/// process allocated: where a segment file is mapped, or where a stitched
/// array's values start.
pub fn starts_file_pages(address: usize) -> bool {
    is_mapping_start(address) || is_stitched_start(address)
}

/// One region of address space whose pages map segment files.
#[derive(Debug)]
struct Region {
    start: usize,
    len: usize,
    /// Where the values start in it (registered in [`STARTS`]).
    values: usize,
}

impl Drop for Region {
    fn drop(&mut self) {
        STARTS.lock().remove(&self.values);
        // SAFETY: `start..start + len` was mapped by `stitch_values` and
        // nothing points into it once its owner (this) is dropped.
        unsafe { libc::munmap(self.start as *mut libc::c_void, self.len) };
    }
}

/// The kernel's page size.
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// `batches` (of one schema, in order, every column fixed-width or bits) as
/// one batch: each column's values stitched where their pages line up (see
/// the module documentation), else copied together.
pub fn stitch(batches: &[RecordBatch]) -> Result<RecordBatch, ArrowError> {
    let Some(first) = batches.first() else { return Err(ArrowError::InvalidArgumentError("no batches".into())) };
    let columns = (0..first.num_columns())
        .map(|c| {
            let pieces: Vec<ArrayRef> = batches.iter().map(|b| b.column(c).clone()).collect();
            let data: Vec<ArrayData> = pieces.iter().map(|p| p.to_data()).collect();
            match stitch_column(&data) {
                Some(one) => Ok(one),
                None => concat(&pieces.iter().map(|p| p.as_ref()).collect::<Vec<_>>()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(first.schema(), columns)
}

/// Whether some column's values in `a` and in `b` (consecutive batches of
/// one schema) can be mapped side by side, without mapping anything.
pub fn stitches(a: &RecordBatch, b: &RecordBatch) -> bool {
    let page = page_size();
    (0..a.num_columns()).any(|c| {
        values(&[a.column(c).to_data(), b.column(c).to_data()]).is_some_and(|values| places(&values, page).is_some())
    })
}

/// The values buffer of each of `pieces`, exactly its rows' bytes, if their
/// type has fixed-width values.
fn values(pieces: &[ArrayData]) -> Option<Vec<Buffer>> {
    let width = match pieces.first()?.data_type() {
        DataType::Dictionary(..) | DataType::Boolean => return None,
        dt => dt.primitive_width()?,
    };
    Some(pieces.iter().map(|d| d.buffers()[0].slice_with_length(d.offset() * width, d.len() * width)).collect())
}

/// One array of `pieces` (of one type, in order).
fn stitch_column(pieces: &[ArrayData]) -> Option<ArrayRef> {
    let first = pieces.first()?;
    let len = pieces.iter().map(|d| d.len()).sum::<usize>();
    let nulls = pieces.iter().any(|d| d.null_count() > 0).then(|| {
        let bits = bitmap(pieces, len, |d| d.nulls().map(|n| n.inner().clone()));
        BooleanBuffer::new(bits, 0, len).into()
    });
    let buffer = match values(pieces) {
        Some(values) => stitch_values(&values)?,
        None if first.data_type() == &DataType::Boolean => {
            bitmap(pieces, len, |d| Some(BooleanBuffer::new(d.buffers()[0].clone(), d.offset(), d.len())))
        }
        None => return None,
    };
    let data =
        ArrayData::builder(first.data_type().clone()).len(len).nulls(nulls).buffers(vec![buffer]).build().ok()?;
    Some(make_array(data))
}

/// Where each of `values` is: its file, its offset in it and its length, if
/// pages line up (see the module documentation).
fn places(values: &[Buffer], page: usize) -> Option<Vec<(std::fs::File, usize, usize)>> {
    let last = values.len().checked_sub(1)?;
    let mut places = Vec::with_capacity(values.len());
    for (i, piece) in values.iter().enumerate() {
        let (file, offset) = locate_mapped(piece.as_ptr() as usize)?;
        let (offset, len) = (offset as usize, piece.len());
        if (i > 0 && offset % page != 0) || (i < last && (offset + len) % page != 0) {
            return None;
        }
        places.push((file, offset, len));
    }
    Some(places)
}

/// `values` (slices of mapped segments) as one buffer over their files'
/// pages mapped side by side, if pages line up.
fn stitch_values(values: &[Buffer]) -> Option<Buffer> {
    let page = page_size();
    let places = places(values, page)?;
    let lead = places[0].1 % page;
    let len = places.iter().map(|p| p.2).sum::<usize>();
    let region_len = (lead + len).next_multiple_of(page).max(page);
    // SAFETY: a fresh anonymous reservation, no address given.
    let start = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            region_len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if start == libc::MAP_FAILED {
        return None;
    }
    let region = Region { start: start as usize, len: region_len, values: start as usize + lead };
    let mut at = region.start;
    for (file, offset, len) in &places {
        let from = offset - offset % page;
        let span = (offset + len).next_multiple_of(page) - from;
        // SAFETY: `at..at + span` lies inside the reservation (the spans add
        // up to its length, see the module documentation), which this
        // mapping replaces; the file is a published segment, never modified.
        let mapped = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                span,
                libc::PROT_READ,
                libc::MAP_SHARED | libc::MAP_FIXED,
                file.as_raw_fd(),
                from as libc::off_t,
            )
        };
        if mapped == libc::MAP_FAILED {
            return None; // `region` unmaps the reservation
        }
        at += span;
    }
    STARTS.lock().insert(region.values);
    let values_at = NonNull::new(region.values as *mut u8).expect("mmap is never null");
    // SAFETY: `values_at..values_at + len` are the pieces' bytes, mapped
    // read-only for as long as the `Region` owner lives.
    Some(unsafe { Buffer::from_custom_allocation(values_at, len, Arc::new(region)) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::ipc_file::PAGE;
    use crate::segment::write::write_segment;
    use crate::segment::writer::PAGE_ROWS;
    use crate::segment::MappedSegment;
    use datafusion::arrow::array::{BooleanArray, Int64Array, Int8Array, StringArray};
    use datafusion::arrow::compute::concat_batches;
    use datafusion::arrow::datatypes::{Field, Schema};
    use std::path::Path;

    /// A segment of rows `range`: 64-bit integers (NULL every 7th), bytes,
    /// booleans and texts that compress (so that its body is compressed).
    fn segment(dir: &Path, name: &str, range: std::ops::Range<usize>) -> MappedSegment {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("b", DataType::Int8, false),
            Field::new("flag", DataType::Boolean, false),
            Field::new("text", DataType::Utf8, false),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from_iter(range.clone().map(|i| (i % 7 != 0).then_some(i as i64)))),
            Arc::new(Int8Array::from_iter_values(range.clone().map(|i| (i % 100) as i8))),
            Arc::new(BooleanArray::from_iter(range.clone().map(|i| Some(i % 3 == 0)))),
            Arc::new(StringArray::from_iter_values(range.map(|i| format!("row {i} of a text that compresses well")))),
        ];
        let path = dir.join(name);
        let meta = write_segment(&path, &schema, &[RecordBatch::try_new(schema.clone(), columns).unwrap()]).unwrap();
        MappedSegment::open(&path, &meta, true).unwrap()
    }

    #[test]
    fn values_of_segments_of_whole_pages_are_mapped_side_by_side_and_the_rest_copied() {
        let dir = tempfile::tempdir().unwrap();
        let p = PAGE_ROWS;
        let segments = [
            segment(dir.path(), "a.arrow", 0..2 * p),
            segment(dir.path(), "b.arrow", 2 * p..4 * p),
            segment(dir.path(), "c.arrow", 4 * p..4 * p + 10_000),
        ];
        let read: Vec<RecordBatch> = segments.iter().map(|s| s.batches(None).unwrap()[0].clone()).collect();
        assert!(matches!(read[0].column(3).data_type(), DataType::RunEndEncoded(..)), "a compressed body");
        // Values of 64 KiB or more start on a page of the file, in a compressed body too.
        let values = |b: &RecordBatch, c: usize| b.column(c).to_data().buffers()[0].as_ptr() as usize;
        assert_eq!(locate_mapped(values(&read[1], 0)).unwrap().1 % PAGE as u64, 0);
        let batches: Vec<RecordBatch> = read.iter().map(|b| b.project(&[0, 1, 2]).unwrap()).collect();
        let [a, b, c] = &batches[..] else { unreachable!() };
        assert!(stitches(a, b) && stitches(b, c), "a and b end on a page, b and c start on one");
        assert!(!stitches(c, a), "c's 10,000 rows end inside a page");
        assert!(stitches(&a.slice(1, 2 * p - 1), b), "the first piece may start anywhere");
        assert!(!stitches(a, &b.slice(1, 2 * p - 1)), "a later one must start on a page");
        let one = stitch(&batches).unwrap();
        assert_eq!(one, concat_batches(&a.schema(), &batches).unwrap());
        assert!(is_stitched_start(values(&one, 0)), "the integers are the files' pages");
        assert!(!is_stitched_start(values(&one, 1)), "10,000 bytes of c start inside a page: copied");
        let address = values(&one, 0);
        drop(one);
        assert!(!is_stitched_start(address), "unmapped with its last array");
    }
}
