//! The buffers of several arrays (the pieces of one column) as one array's:
//! values stay where the pieces hold them; only what must change is built
//! anew (bitmaps shifted, offsets rebased: a few bytes per row at most).

use datafusion::arrow::array::{ArrayData, BooleanBufferBuilder, OffsetSizeTrait};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer};
use datafusion::arrow::error::ArrowError;

/// The bitmap of `len` bits that `bits` gives for each of `columns` in turn
/// (all set where it gives none).
pub fn bitmap(columns: &[ArrayData], len: usize, bits: impl Fn(&ArrayData) -> Option<BooleanBuffer>) -> Buffer {
    let mut out = BooleanBufferBuilder::new(len);
    for column in columns {
        match bits(column) {
            Some(b) => out.append_buffer(&b),
            None => out.append_n(column.len(), true),
        }
    }
    out.finish().into_inner()
}

/// The offsets and values buffers of the strings (or bytes) of `columns` as
/// one array: the values where they are, the offsets rebased (or, for a single
/// array whose offsets start at 0, those too where they are).
pub fn variable<O: OffsetSizeTrait>(
    columns: &[ArrayData],
    name: &str,
) -> std::result::Result<[Vec<Buffer>; 2], ArrowError> {
    let ends = |d: &ArrayData| {
        let offsets = d.buffer::<O>(0);
        (offsets[0].as_usize(), offsets[d.len()].as_usize())
    };
    if let [one] = columns {
        if ends(one).0 == 0 {
            let size = std::mem::size_of::<O>();
            let offsets = one.buffers()[0].slice_with_length(one.offset() * size, (one.len() + 1) * size);
            return Ok([vec![offsets], vec![one.buffers()[1].slice_with_length(0, ends(one).1)]]);
        }
    }
    let len = columns.iter().map(|d| d.len()).sum::<usize>();
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::usize_as(0));
    let mut values = Vec::with_capacity(columns.len());
    let mut end = 0usize;
    for d in columns {
        let (first, last) = ends(d);
        let base = end;
        end += last - first;
        if O::from_usize(end).is_none() {
            return Err(ArrowError::InvalidArgumentError(format!(
                "column {name} holds more than {} bytes in one segment, more than its type's 32-bit offsets address",
                i32::MAX
            )));
        }
        offsets.extend(d.buffer::<O>(0)[1..=d.len()].iter().map(|&o| O::usize_as(o.as_usize() - first + base)));
        values.push(d.buffers()[1].slice_with_length(first, last - first));
    }
    Ok([vec![Buffer::from_vec(offsets)], values])
}

/// The buffers of the run-end encoded arrays `columns` (whole arrays with
/// `Int32` run ends and `LargeBinary` values, as packed columns are, see
/// [`crate::encoding::packed`]) as one array's, and its number of runs: the
/// run ends' (an empty validity, the ends shifted by the rows before each
/// piece), then the values' (an empty validity, offsets rebased, bytes where
/// they are). The parent array itself has no buffers.
pub fn run_end_encoded(
    columns: &[ArrayData],
    name: &str,
) -> std::result::Result<(usize, Vec<Vec<Buffer>>), ArrowError> {
    let unexpected =
        || ArrowError::InvalidArgumentError(format!("column {name}: a run-end encoded piece not written whole"));
    let mut ends: Vec<i32> = Vec::new();
    let mut values = Vec::with_capacity(columns.len());
    let mut rows = 0usize;
    for d in columns {
        let [run_ends, runs] = d.child_data() else { return Err(unexpected()) };
        let piece_ends = &run_ends.buffer::<i32>(0)[..run_ends.len()];
        let whole = d.offset() == 0 && run_ends.offset() == 0 && run_ends.null_count() == 0 && runs.null_count() == 0;
        if !whole || piece_ends.last().map_or(0, |&e| e as usize) != d.len() {
            return Err(unexpected());
        }
        for &end in piece_ends {
            ends.push(i32::try_from(rows + end as usize).map_err(|_| unexpected())?);
        }
        rows += d.len();
        values.push(runs.clone());
    }
    let [offsets, bytes] = variable::<i64>(&values, name)?;
    Ok((ends.len(), vec![Vec::new(), vec![Buffer::from_vec(ends)], Vec::new(), offsets, bytes]))
}
