//! How a mapped segment's pages come from disk. A page fault on a file
//! mapping reads around the page it faulted on, as much as the device's
//! read-ahead (8 MiB on this machine's disk) and half of it *before* the
//! page. A segment stores each column as one stretch of the file, so every
//! first touch of a column also read the end of the column before it: opening
//! a segment (which reads the 8-byte length in front of every buffer) read
//! 8 MiB per column, and a cold TPC-H Q6 on SF10 read 2.06 GB from disk for
//! the 0.96 GB of its four columns.
//!
//! So a mapping is read page by page while it is decoded ([`Advice::Random`]),
//! then as usual ([`Advice::Normal`]); and a column about to be read whole
//! (to check its checksum) is asked for whole ([`will_need`]): the kernel
//! queues all of its reads at once, and reads nothing else (a fault on a page
//! being read waits for it, and reads nothing around it).

use datafusion::arrow::array::ArrayData;
use datafusion::arrow::buffer::Buffer;

/// How the pages of a mapping are read when touched.
#[derive(Debug, Clone, Copy)]
pub enum Advice {
    /// Only the page touched.
    Random,
    /// Around the page touched (the kernel's default).
    Normal,
}

/// Advises the kernel how the pages of `mapping` (a whole mapped file) are
/// read from now on. Advice only: where the kernel refuses it, pages are read
/// as before.
pub fn advise(mapping: &Buffer, advice: Advice) {
    let flag = match advice {
        Advice::Random => libc::MADV_RANDOM,
        Advice::Normal => libc::MADV_NORMAL,
    };
    let start = mapping.as_ptr() as usize;
    madvise(start, start + mapping.len(), flag);
}

/// Asks the kernel to start reading, in the background, the pages of
/// `mapping` that hold the buffers of `arrays` (validity, values, offsets,
/// children: a dictionary's values, a compressed column's frames). Buffers
/// elsewhere (not in the mapping) are left alone.
pub fn will_need<'a>(mapping: &Buffer, arrays: impl IntoIterator<Item = &'a ArrayData>) {
    let start = mapping.as_ptr() as usize;
    let end = start + mapping.len();
    let mut ranges = Vec::new();
    for data in arrays {
        collect(data, start..end, &mut ranges);
    }
    ranges.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    for range in merged {
        for start in range.clone().step_by(WILL_NEED_CHUNK) {
            madvise(start, (start + WILL_NEED_CHUNK).min(range.end), libc::MADV_WILLNEED);
        }
    }
}

/// The bytes asked for by one `MADV_WILLNEED`: the kernel reads at most the
/// larger of the device's read-ahead and its largest request per call (and
/// drops the rest), so a column is asked for in pieces smaller than either
/// on common devices.
const WILL_NEED_CHUNK: usize = 512 << 10;

/// The address ranges of `data`'s buffers (and its children's) inside `within`.
fn collect(data: &ArrayData, within: std::ops::Range<usize>, out: &mut Vec<std::ops::Range<usize>>) {
    let mut add = |buffer: &Buffer| {
        let at = buffer.as_ptr() as usize;
        if within.contains(&at) && !buffer.is_empty() {
            out.push(at..(at + buffer.len()).min(within.end));
        }
    };
    if let Some(nulls) = data.nulls() {
        add(nulls.buffer());
    }
    data.buffers().iter().for_each(&mut add);
    for child in data.child_data() {
        collect(child, within.clone(), out);
    }
}

/// `madvise` over the whole pages that `start..end` touches.
fn madvise(start: usize, end: usize, advice: libc::c_int) {
    if end <= start {
        return;
    }
    let page = crate::huge_pages::page_size();
    let first = start / page * page;
    let last = end.next_multiple_of(page);
    // SAFETY: the range lies within a live file mapping (its pages hold the
    // caller's buffers); these advices change how pages are read from the
    // file, never their contents.
    unsafe { libc::madvise(first as *mut libc::c_void, last - first, advice) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, Int32Array};

    #[test]
    fn only_buffers_inside_the_mapping_are_collected() {
        let inside = Int32Array::from_iter_values(0..1000);
        let values = inside.to_data().buffers()[0].clone();
        let mapping = values.slice_with_length(0, values.len());
        let elsewhere = Int32Array::from_iter_values(0..10).to_data();
        let mut ranges = Vec::new();
        let start = mapping.as_ptr() as usize;
        collect(&inside.to_data(), start..start + mapping.len(), &mut ranges);
        collect(&elsewhere, start..start + mapping.len(), &mut ranges);
        assert_eq!(ranges, vec![start..start + 4000]);
    }
}
