//! Deletion vectors: the rows of a segment that left its table while the
//! segment stayed.
//!
//! A DELETE, or the UPDATE that replaces a row by a new version written
//! elsewhere, marks the row's position in the segment's [`DeletedRows`]
//! (kept in the manifest beside the segment) instead of rewriting the
//! segment without it: a one-row change costs that row, not its segment's
//! rows, and two transactions that change different rows of one segment
//! both commit (see `storage::rebase`). Readers skip the marked rows (see
//! `storage::store::SegmentView`); a segment with some loses its zero-copy
//! hand-out to numpy and friends (its live rows are gathered), so a segment
//! whose marks grow past [`REWRITE_FRACTION`] of its rows, or past
//! [`max_ranges`] runs, is rewritten without them instead.
//!
//! A position, once marked, stays marked for as long as the segment's name
//! exists: the rows of a segment never change, and marks are only added
//! (a transaction that rolls back drops its version of the table whole).

use datafusion::arrow::array::BooleanArray;
use datafusion::arrow::buffer::BooleanBuffer;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// A segment is rewritten without its deleted rows instead of marking them
/// once more than this fraction of its rows would be marked: by then most
/// readers copy the live rows out anyway.
pub const REWRITE_FRACTION: f64 = 0.25;

/// Most runs of consecutive deleted rows any segment's marks hold, however
/// large the segment: their manifest entry stays about a megabyte.
pub const MAX_RANGES: usize = 1 << 16;

/// Most runs of consecutive deleted rows the marks of a segment of `rows`
/// rows hold before it is rewritten without them: one per 512 rows, at least
/// 512, at most [`MAX_RANGES`]. A commit writes only the marks it adds (see
/// `manifest/delta.rs`), so many marks cost the manifest's whole copies and
/// the in-memory merges (linear in the runs), not every commit's record;
/// while a rewrite costs the whole segment. With a fixed 512, random
/// single-row UPDATEs of a 10M-row table rewrote its 170 MB segment (and
/// its key's index) every 512 commits: a 3 s stall, and a conflict for every
/// other process whose UPDATE rewrote it too meanwhile.
pub fn max_ranges(rows: u64) -> usize {
    ((rows / 512) as usize).clamp(512, MAX_RANGES)
}

/// The deleted rows of one segment, by position: sorted, disjoint,
/// non-adjacent ranges `start..end`. Cloning shares them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeletedRows(Arc<[(u64, u64)]>);

impl DeletedRows {
    /// The rows at `positions` (in any order, repeats allowed).
    pub fn of(positions: impl IntoIterator<Item = u64>) -> Self {
        let mut sorted: Vec<u64> = positions.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for p in sorted {
            match ranges.last_mut() {
                Some((_, end)) if *end == p => *end += 1,
                _ => ranges.push((p, p + 1)),
            }
        }
        Self(ranges.into())
    }

    /// Whether no row is deleted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many rows are deleted.
    pub fn len(&self) -> u64 {
        self.0.iter().map(|(s, e)| e - s).sum()
    }

    /// How many runs of consecutive rows the marks hold.
    pub fn ranges(&self) -> usize {
        self.0.len()
    }

    /// The largest deleted position plus one (0 when none is).
    pub fn end(&self) -> u64 {
        self.0.last().map_or(0, |&(_, end)| end)
    }

    /// Whether the row at `position` is deleted.
    pub fn contains(&self, position: u64) -> bool {
        let at = self.0.partition_point(|&(_, end)| end <= position);
        self.0.get(at).is_some_and(|&(start, _)| start <= position)
    }

    /// The deleted positions, ascending.
    pub fn positions(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().flat_map(|&(s, e)| s..e)
    }

    /// Rows deleted here or in `other` (a merge of the two sorted lists:
    /// linear, as every commit that marks a row does it).
    pub fn union(&self, other: &DeletedRows) -> DeletedRows {
        if other.is_empty() {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        let mut ranges: Vec<(u64, u64)> = Vec::with_capacity(self.0.len() + other.0.len());
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if x <= y => a.next(),
                (Some(_), Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, _) => b.next(),
            };
            let Some(&(start, end)) = next else { break };
            match ranges.last_mut() {
                Some((_, last)) if *last >= start => *last = (*last).max(end),
                _ => ranges.push((start, end)),
            }
        }
        Self(ranges.into())
    }

    /// The runs of deleted rows, `start..end`, ascending.
    pub fn runs(&self) -> &[(u64, u64)] {
        &self.0
    }

    /// Rows deleted here and not in `other`.
    pub fn minus(&self, other: &DeletedRows) -> DeletedRows {
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut j = 0;
        for &(start, end) in self.0.iter() {
            let mut from = start;
            while j < other.0.len() && other.0[j].1 <= from {
                j += 1;
            }
            let mut k = j;
            while from < end {
                match other.0.get(k) {
                    Some(&(s, e)) if s < end => {
                        if s > from {
                            out.push((from, s));
                        }
                        from = from.max(e);
                        k += 1;
                    }
                    _ => {
                        out.push((from, end));
                        from = end;
                    }
                }
            }
        }
        Self(out.into())
    }

    /// How many rows are deleted both here and in `other`.
    pub fn overlap(&self, other: &DeletedRows) -> u64 {
        let (mut i, mut j, mut both) = (0, 0, 0);
        while let (Some(&(a, b)), Some(&(c, d))) = (self.0.get(i), other.0.get(j)) {
            both += b.min(d).saturating_sub(a.max(c));
            if b <= d {
                i += 1;
            } else {
                j += 1;
            }
        }
        both
    }

    /// Whether every row deleted in `other` is deleted here too.
    pub fn covers(&self, other: &DeletedRows) -> bool {
        self.overlap(other) == other.len()
    }

    /// Which of the `len` rows from position `start` on are kept (not
    /// deleted), or `None` when all are.
    pub fn kept(&self, start: u64, len: usize) -> Option<BooleanArray> {
        let end = start + len as u64;
        let first = self.0.partition_point(|&(_, e)| e <= start);
        if self.0.get(first).is_none_or(|&(s, _)| s >= end) {
            return None;
        }
        let mut keep = vec![true; len];
        for &(s, e) in self.0[first..].iter().take_while(|&&(s, _)| s < end) {
            for row in s.max(start)..e.min(end) {
                keep[(row - start) as usize] = false;
            }
        }
        Some(BooleanArray::new(BooleanBuffer::from(keep), None))
    }

    /// Why these marks cannot belong to a segment of `rows` rows, if they cannot.
    pub fn problem(&self, rows: u64) -> Option<String> {
        let ordered = self.0.iter().all(|&(s, e)| s < e) && self.0.windows(2).all(|w| w[0].1 < w[1].0);
        match (ordered, self.end() <= rows) {
            (false, _) => Some("its deleted rows are not sorted, disjoint ranges".to_string()),
            (_, false) => Some(format!("it marks row {} deleted but holds {rows} rows", self.end() - 1)),
            _ => None,
        }
    }
}

/// Stored as a flat list `[start, end, start, end, ...]`.
impl Serialize for DeletedRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().flat_map(|&(s, e)| [s, e]))
    }
}

impl<'de> Deserialize<'de> for DeletedRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let flat = Vec::<u64>::deserialize(deserializer)?;
        if flat.len() % 2 != 0 {
            return Err(serde::de::Error::custom("deleted rows are not pairs of start and end"));
        }
        Ok(Self(flat.chunks(2).map(|p| (p[0], p[1])).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_become_ranges_and_read_back() {
        let d = DeletedRows::of([7, 3, 4, 5, 9, 4]);
        assert_eq!(d.0.as_ref(), &[(3, 6), (7, 8), (9, 10)]);
        assert_eq!((d.len(), d.ranges(), d.end()), (5, 3, 10));
        assert_eq!(d.positions().collect::<Vec<_>>(), vec![3, 4, 5, 7, 9]);
        for p in 0..12 {
            assert_eq!(d.contains(p), [3, 4, 5, 7, 9].contains(&p), "{p}");
        }
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, "[3,6,7,8,9,10]");
        assert_eq!(serde_json::from_str::<DeletedRows>(&json).unwrap(), d);
        assert!(serde_json::from_str::<DeletedRows>("[1,2,3]").is_err());
    }

    #[test]
    fn union_overlap_and_cover() {
        let a = DeletedRows::of([1, 2, 3, 10]);
        let b = DeletedRows::of([3, 4, 11, 20]);
        let both = a.union(&b);
        assert_eq!(both.positions().collect::<Vec<_>>(), vec![1, 2, 3, 4, 10, 11, 20]);
        assert_eq!(both.ranges(), 3, "adjacent runs merge");
        assert_eq!(a.overlap(&b), 1);
        assert_eq!(a.overlap(&DeletedRows::of([5, 6])), 0);
        assert!(both.covers(&a) && both.covers(&b) && !a.covers(&b));
        assert!(a.covers(&DeletedRows::default()));
        assert_eq!(both.minus(&a).positions().collect::<Vec<_>>(), vec![4, 11, 20]);
        assert_eq!(both.minus(&both), DeletedRows::default());
        let wide = DeletedRows::of(0..10);
        let holes = DeletedRows::of([0, 3, 4, 9, 12]);
        assert_eq!(wide.minus(&holes).positions().collect::<Vec<_>>(), vec![1, 2, 5, 6, 7, 8]);
        assert_eq!(wide.minus(&DeletedRows::default()), wide);
    }

    #[test]
    fn union_is_the_set_union_of_random_marks() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            let a: Vec<u64> = (0..next(40)).map(|_| next(100)).collect();
            let b: Vec<u64> = (0..next(40)).map(|_| next(100)).collect();
            let both = DeletedRows::of(a.clone()).union(&DeletedRows::of(b.clone()));
            assert_eq!(both, DeletedRows::of(a.into_iter().chain(b)), "merged and sorted alike");
        }
    }

    #[test]
    fn large_segments_hold_more_runs_of_marks() {
        assert_eq!(max_ranges(1_000), 512);
        assert_eq!(max_ranges(10_000_000), 19_531);
        assert_eq!(max_ranges(1 << 40), MAX_RANGES);
    }

    #[test]
    fn kept_masks_a_window_of_rows() {
        let d = DeletedRows::of([2, 3, 8]);
        assert_eq!(d.kept(4, 4), None, "no deleted row in 4..8");
        let mask = d.kept(0, 5).unwrap();
        assert_eq!(mask.iter().map(Option::unwrap).collect::<Vec<_>>(), vec![true, true, false, false, true]);
        let mask = d.kept(3, 6).unwrap();
        assert_eq!(mask.iter().map(Option::unwrap).collect::<Vec<_>>(), vec![false, true, true, true, true, false]);
    }

    #[test]
    fn marks_that_do_not_fit_their_segment_are_a_problem() {
        assert_eq!(DeletedRows::of([0, 4]).problem(5), None);
        assert!(DeletedRows::of([5]).problem(5).unwrap().contains("row 5"));
        let unsorted = DeletedRows(vec![(4, 5), (1, 2)].into());
        assert!(unsorted.problem(9).is_some());
        assert!(DeletedRows(vec![(2, 2)].into()).problem(9).is_some(), "an empty range");
    }
}
