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

/// Ranges per chunk of [`DeletedRows`]: a change copies the chunks it
/// touches (at most about twice this many ranges each) and shares the others.
/// Comparing two versions' marks (a commit's record, the key index catching
/// up) reads the ranges of the chunks they do not share, several times a
/// statement: 256 made that a tenth of a single-row UPDATE's CPU on a 1M-row
/// table; with 64, a 10M-row segment's most marks are some 300 chunks.
const CHUNK: usize = 64;

/// One chunk of marks: sorted, disjoint, non-adjacent ranges.
type Chunk = Arc<[(u64, u64)]>;

/// The deleted rows of one segment, by position: sorted, disjoint,
/// non-adjacent ranges `start..end`, held in shared chunks of about
/// [`CHUNK`] ranges. A single-row UPDATE of a segment with many marks
/// (a large table taking random writes) marks one row more: it copies the
/// chunk the row falls in, never the others, and comparing the marks of two
/// versions skips the chunks they share. So a statement's cost does not grow
/// with the marks the segment already holds. Cloning shares them.
#[derive(Debug, Clone, Default)]
pub struct DeletedRows {
    chunks: Arc<[Chunk]>,
    /// How many rows are deleted.
    rows: u64,
    /// How many ranges the chunks hold.
    ranges: usize,
}

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
        Self::from_ranges(&ranges)
    }

    /// Marks holding `ranges` as they are (sorted and merged by the caller;
    /// [`Self::problem`] tells marks read from a file that are not).
    fn from_ranges(ranges: &[(u64, u64)]) -> Self {
        let mut chunks = Vec::with_capacity(ranges.len().div_ceil(CHUNK));
        push_chunks(&mut chunks, ranges);
        Self::from_chunks(chunks, ranges.iter().map(|&(s, e)| e.saturating_sub(s)).sum())
    }

    /// Marks of `chunks`, which hold `rows` rows (known to the caller: a
    /// union's is its sides' less their overlap, without a pass over every
    /// range it shares).
    fn from_chunks(chunks: Vec<Chunk>, rows: u64) -> Self {
        let ranges = chunks.iter().map(|c| c.len()).sum();
        Self { chunks: chunks.into(), rows, ranges }
    }

    /// Whether no row is deleted.
    pub fn is_empty(&self) -> bool {
        self.ranges == 0
    }

    /// How many rows are deleted.
    pub fn len(&self) -> u64 {
        self.rows
    }

    /// How many runs of consecutive rows the marks hold.
    pub fn ranges(&self) -> usize {
        self.ranges
    }

    /// The largest deleted position plus one (0 when none is).
    pub fn end(&self) -> u64 {
        self.chunks.last().and_then(|c| c.last()).map_or(0, |&(_, end)| end)
    }

    /// Whether the row at `position` is deleted.
    pub fn contains(&self, position: u64) -> bool {
        self.runs_from(position).next().is_some_and(|(start, _)| start <= position)
    }

    /// The deleted positions, ascending.
    pub fn positions(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs().flat_map(|(s, e)| s..e)
    }

    /// The runs of deleted rows, `start..end`, ascending.
    pub fn runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.chunks.iter().flat_map(|c| c.iter().copied())
    }

    /// The runs that end after `position`, ascending (the first may hold it).
    fn runs_from(&self, position: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let at = self.chunks.partition_point(|c| c.last().is_some_and(|&(_, end)| end <= position));
        let within = self.chunks.get(at).map_or(0, |c| c.partition_point(|&(_, end)| end <= position));
        self.chunks.get(at..).unwrap_or_default().iter().enumerate().flat_map(move |(i, c)| {
            let skip = if i == 0 { within } else { 0 };
            c[skip..].iter().copied()
        })
    }

    /// Whether `self` holds a chunk equal to `chunk` (the very chunk, shared,
    /// or one of the same ranges: versions of a table read from the commit
    /// log and made in memory mark the same row in chunks of their own):
    /// then its rows are marked in both.
    fn shares(&self, chunk: &Chunk) -> bool {
        let Some(&(first, _)) = chunk.first() else { return true };
        let at = self.chunks.partition_point(|c| c.first().is_some_and(|&(s, _)| s < first));
        self.chunks.get(at).is_some_and(|c| Arc::ptr_eq(c, chunk) || c == chunk)
    }

    /// Rows deleted here or in `other`. The chunks of `self` that no range
    /// of `other` overlaps or adjoins are shared with the result; the others
    /// are merged with `other`'s ranges and cut into chunks again.
    pub fn union(&self, other: &DeletedRows) -> DeletedRows {
        if other.is_empty() {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        let mut out: Vec<Chunk> = Vec::with_capacity(self.chunks.len() + 1);
        // Ranges being merged (from `other`, and from chunks of `self` they
        // touch), unsorted, and the largest end among them.
        let mut open: Vec<(u64, u64)> = Vec::new();
        let mut open_end = 0u64;
        let mut theirs = other.runs().peekable();
        let mut mine = self.chunks.iter().peekable();
        loop {
            let next = theirs.peek().copied();
            match mine.peek() {
                // The next chunk, unless a range of `other` comes before it
                // (and does not adjoin it).
                Some(c) if next.is_none_or(|r| r.1 >= c[0].0) => {
                    let (first, last) = (c[0].0, c[c.len() - 1].1);
                    let touched = next.is_some_and(|r| r.0 <= last) || (!open.is_empty() && open_end >= first);
                    // A short merged stretch takes the next chunk along, so
                    // that chunks stay near their size.
                    if touched || (!open.is_empty() && open.len() < CHUNK / 2) {
                        open.extend_from_slice(c);
                        open_end = open_end.max(last);
                    } else {
                        flush(&mut out, &mut open);
                        out.push(Arc::clone(c));
                    }
                    mine.next();
                }
                _ => {
                    let Some(r) = next else { break };
                    // Joined to the chunk before it (so that marks falling
                    // between chunks do not each make a chunk of their own).
                    if open.is_empty() {
                        if let Some(previous) = out.pop() {
                            open.extend_from_slice(&previous);
                            open_end = previous[previous.len() - 1].1;
                        }
                    }
                    open.push(r);
                    open_end = open_end.max(r.1);
                    theirs.next();
                }
            }
        }
        flush(&mut out, &mut open);
        DeletedRows::from_chunks(out, self.rows + other.rows - self.overlap(other))
    }

    /// Rows deleted here and not in `other` (chunks the two share hold none).
    pub fn minus(&self, other: &DeletedRows) -> DeletedRows {
        let mut out: Vec<(u64, u64)> = Vec::new();
        for chunk in self.chunks.iter().filter(|c| !other.shares(c)) {
            for &(start, end) in chunk.iter() {
                let mut from = start;
                for (s, e) in other.runs_from(start) {
                    if s >= end || from >= end {
                        break;
                    }
                    if s > from {
                        out.push((from, s));
                    }
                    from = from.max(e);
                }
                if from < end {
                    out.push((from, end));
                }
            }
        }
        Self::from_ranges(&out)
    }

    /// How many rows are deleted both here and in `other`.
    pub fn overlap(&self, other: &DeletedRows) -> u64 {
        let (few, many) = if self.ranges <= other.ranges { (self, other) } else { (other, self) };
        let mut both = 0;
        for chunk in few.chunks.iter() {
            if many.shares(chunk) {
                both += chunk.iter().map(|&(s, e)| e - s).sum::<u64>();
                continue;
            }
            for &(start, end) in chunk.iter() {
                for (s, e) in many.runs_from(start).take_while(|&(s, _)| s < end) {
                    both += e.min(end) - s.max(start);
                }
            }
        }
        both
    }

    /// Whether every row deleted in `other` is deleted here too.
    pub fn covers(&self, other: &DeletedRows) -> bool {
        // Runs are merged: a run of `other` is covered only by one run here.
        other.chunks.iter().all(|chunk| {
            self.shares(chunk)
                || chunk
                    .iter()
                    .all(|&(start, end)| self.runs_from(start).next().is_some_and(|(s, e)| s <= start && end <= e))
        })
    }

    /// Which of the `len` rows from position `start` on are kept (not
    /// deleted), or `None` when all are.
    pub fn kept(&self, start: u64, len: usize) -> Option<BooleanArray> {
        let end = start + len as u64;
        let mut within = self.runs_from(start).take_while(|&(s, _)| s < end).peekable();
        within.peek()?;
        let mut keep = vec![true; len];
        for (s, e) in within {
            for row in s.max(start)..e.min(end) {
                keep[(row - start) as usize] = false;
            }
        }
        Some(BooleanArray::new(BooleanBuffer::from(keep), None))
    }

    /// Why these marks cannot belong to a segment of `rows` rows, if they cannot.
    pub fn problem(&self, rows: u64) -> Option<String> {
        let mut previous_end = None;
        let ordered = self.runs().all(|(s, e)| {
            let fits = s < e && previous_end.is_none_or(|p| p < s);
            previous_end = Some(e);
            fits
        });
        match (ordered, self.end() <= rows) {
            (false, _) => Some("its deleted rows are not sorted, disjoint ranges".to_string()),
            (_, false) => Some(format!("it marks row {} deleted but holds {rows} rows", self.end() - 1)),
            _ => None,
        }
    }
}

/// Equal when they mark the same rows (chunks shared by both are not compared).
impl PartialEq for DeletedRows {
    fn eq(&self, other: &Self) -> bool {
        if (self.rows, self.ranges) != (other.rows, other.ranges) {
            return false;
        }
        let aligned = self.chunks.len() == other.chunks.len()
            && self.chunks.iter().zip(other.chunks.iter()).all(|(a, b)| a.len() == b.len());
        if aligned {
            return self.chunks.iter().zip(other.chunks.iter()).all(|(a, b)| Arc::ptr_eq(a, b) || a == b);
        }
        self.runs().eq(other.runs())
    }
}

impl Eq for DeletedRows {}

/// Sorts and merges `open` (overlapping or adjoining ranges become one) and
/// appends it to `out` as chunks of [`CHUNK`] to twice that many ranges
/// (fewer if there are fewer), emptying it.
fn flush(out: &mut Vec<Chunk>, open: &mut Vec<(u64, u64)>) {
    if open.is_empty() {
        return;
    }
    open.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(open.len());
    for &(start, end) in open.iter() {
        match merged.last_mut() {
            Some((_, last)) if *last >= start => *last = (*last).max(end),
            _ => merged.push((start, end)),
        }
    }
    open.clear();
    push_chunks(out, &merged);
}

/// Appends `ranges` to `out` as chunks of [`CHUNK`] to twice that many
/// ranges each (one smaller chunk when there are fewer).
fn push_chunks(out: &mut Vec<Chunk>, ranges: &[(u64, u64)]) {
    let pieces = (ranges.len() / CHUNK).max(1);
    let size = ranges.len().div_ceil(pieces);
    out.extend(ranges.chunks(size.max(1)).map(Chunk::from));
}

/// Stored as a flat list `[start, end, start, end, ...]`.
impl Serialize for DeletedRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.runs().flat_map(|(s, e)| [s, e]))
    }
}

impl<'de> Deserialize<'de> for DeletedRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let flat = Vec::<u64>::deserialize(deserializer)?;
        if flat.len() % 2 != 0 {
            return Err(serde::de::Error::custom("deleted rows are not pairs of start and end"));
        }
        let ranges: Vec<(u64, u64)> = flat.chunks(2).map(|p| (p[0], p[1])).collect();
        Ok(Self::from_ranges(&ranges))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_become_ranges_and_read_back() {
        let d = DeletedRows::of([7, 3, 4, 5, 9, 4]);
        assert_eq!(d.runs().collect::<Vec<_>>(), [(3, 6), (7, 8), (9, 10)]);
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
        let mut next = crate::test_random::below(7);
        for _ in 0..200 {
            let a: Vec<u64> = (0..next(40)).map(|_| next(100)).collect();
            let b: Vec<u64> = (0..next(40)).map(|_| next(100)).collect();
            let both = DeletedRows::of(a.clone()).union(&DeletedRows::of(b.clone()));
            assert_eq!(both, DeletedRows::of(a.into_iter().chain(b)), "merged and sorted alike");
        }
    }

    /// The marks of `rows` as a plain sorted set, to check the chunked ones against.
    fn model(d: &DeletedRows) -> std::collections::BTreeSet<u64> {
        d.positions().collect()
    }

    #[test]
    fn chunked_marks_behave_as_sets_over_many_random_changes() {
        let mut next = crate::test_random::below(11);
        for round in 0..6 {
            let space = [3_000, 50_000, 400_000][round % 3];
            // Many ranges (several chunks), grown a few rows at a time, as
            // UPDATEs grow a large segment's marks.
            let mut marks = DeletedRows::of((0..2_000).map(|_| next(space)));
            let mut truth = model(&marks);
            for step in 0..300 {
                let before = marks.clone();
                let few: Vec<u64> = (0..1 + next(3)).map(|_| next(space)).collect();
                let wide = if step % 50 == 7 { (next(space)..).take(next(700) as usize).collect() } else { vec![] };
                let more = DeletedRows::of(few.iter().copied().chain(wide.iter().copied()));
                marks = marks.union(&more);
                truth.extend(few.iter().chain(wide.iter()).copied());
                assert_eq!(model(&marks), truth, "round {round} step {step}");
                assert_eq!(marks.problem(space + 1000), None, "sorted, disjoint, merged");
                assert_eq!(marks, DeletedRows::of(truth.iter().copied()), "equal to the same marks built at once");
                assert_eq!(marks.len(), truth.len() as u64);
                assert!(marks.covers(&before) && marks.covers(&more));
                assert_eq!(before.covers(&marks), model(&before) == truth);
                let added: Vec<u64> = truth.difference(&model(&before)).copied().collect();
                assert_eq!(marks.minus(&before).positions().collect::<Vec<_>>(), added);
                assert_eq!(before.minus(&marks), DeletedRows::default());
                let other = DeletedRows::of((0..300).map(|_| next(space)));
                let both = model(&other).intersection(&truth).count() as u64;
                assert_eq!((marks.overlap(&other), other.overlap(&marks)), (both, both));
                let expected: Vec<u64> = model(&other).difference(&truth).copied().collect();
                assert_eq!(other.minus(&marks).positions().collect::<Vec<_>>(), expected);
                let p = next(space);
                assert_eq!(marks.contains(p), truth.contains(&p));
                let (start, len) = (next(space), 1 + next(64) as usize);
                let kept: Vec<bool> = (start..start + len as u64).map(|r| !truth.contains(&r)).collect();
                match marks.kept(start, len) {
                    None => assert!(kept.iter().all(|&k| k)),
                    Some(mask) => assert_eq!(mask.iter().map(Option::unwrap).collect::<Vec<_>>(), kept),
                }
            }
            let json = serde_json::to_string(&marks).unwrap();
            assert_eq!(serde_json::from_str::<DeletedRows>(&json).unwrap(), marks);
        }
    }

    #[test]
    fn marking_one_row_more_copies_one_chunk_of_many() {
        let marks = DeletedRows::of((0..100_000).map(|i| i * 10));
        assert!(marks.chunks.len() >= 300);
        for row in [5, 12_345, 999_995, 2_000_000] {
            let more = marks.union(&DeletedRows::of([row]));
            // The very chunks (not copies of the same ranges, which `shares` also accepts).
            let shared = more.chunks.iter().filter(|c| marks.chunks.iter().any(|m| Arc::ptr_eq(m, c))).count();
            assert!(shared + 2 >= marks.chunks.len(), "row {row}: {shared} of {} chunks shared", marks.chunks.len());
            assert!(more.chunks.len() <= marks.chunks.len() + 1);
            assert!(more.covers(&marks) && !marks.covers(&more));
            assert_eq!(more.minus(&marks).positions().collect::<Vec<_>>(), [row]);
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
        let unsorted = DeletedRows::from_ranges(&[(4, 5), (1, 2)]);
        assert!(unsorted.problem(9).is_some());
        assert!(DeletedRows::from_ranges(&[(2, 2)]).problem(9).is_some(), "an empty range");
    }
}
