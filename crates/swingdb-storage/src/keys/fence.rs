//! A run's fence: every [`STRIDE`]-th of its sorted keys, copied into memory
//! the first time the run is searched, so that a search takes its first
//! steps there instead of in the run's bytes.
//!
//! A step of a binary search in a large run reads two offsets and a key,
//! three places far apart in a mapped file: about three cache misses a step,
//! twenty steps in a run of a million keys, for every point read by key and
//! every key checked on INSERT. Over the fence (a 64th of the keys, together
//! in memory and soon in cache) the search narrows to one stretch of
//! [`STRIDE`] keys, then finishes in the run in six steps. A run is kept by
//! the segment store once read (see `runs::lookup_run`), so the fence is
//! made once per run and process, by one pass over a 64th of its keys.

/// One key in this many is in the fence.
pub const STRIDE: usize = 64;

/// Every [`STRIDE`]-th key of a run, the first key included.
#[derive(Debug)]
pub struct Fence {
    /// The sampled keys, one after another.
    bytes: Vec<u8>,
    /// Where each sampled key ends in `bytes`.
    ends: Vec<usize>,
}

impl Fence {
    /// The fence of `count` sorted keys, the `i`-th of them `key(i)`.
    pub fn of<'k>(count: usize, key: impl Fn(usize) -> &'k [u8]) -> Self {
        let mut bytes = Vec::new();
        let mut ends = Vec::with_capacity(count.div_ceil(STRIDE));
        for i in (0..count).step_by(STRIDE) {
            bytes.extend_from_slice(key(i));
            ends.push(bytes.len());
        }
        Self { bytes, ends }
    }

    fn key(&self, j: usize) -> &[u8] {
        let start = if j == 0 { 0 } else { self.ends[j - 1] };
        &self.bytes[start..self.ends[j]]
    }

    /// Bounds `low..=high` of the index of the first of the `count` keys
    /// for which `past` holds (`past` is false, then true, along the sorted
    /// keys; `count` when it holds for none): it holds for the key at
    /// `high` (or `high` is `count`) and for none before `low`.
    pub fn narrow(&self, count: usize, past: impl Fn(&[u8]) -> bool) -> (usize, usize) {
        let first = first_past(0..self.ends.len(), |j| past(self.key(j)));
        // Sample `first` is the first that passes: keys up to the one before it do not.
        let start = if first == 0 { 0 } else { (first - 1) * STRIDE + 1 };
        (start, (first * STRIDE).min(count))
    }
}

/// The first index of `range` at which `past` holds (`past` is false, then
/// true, along it), found by binary search; the range's end if none.
pub fn first_past(range: std::ops::Range<usize>, past: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (range.start, range.end);
    while low < high {
        let middle = (low + high) / 2;
        if past(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}
