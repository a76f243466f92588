//! Origins: where the rows of a segment that replaced others came from, so
//! that a row deleted by a transaction in a segment that was since compacted
//! or rewritten can still be found (see `storage::rebase`).
//!
//! Compaction merges small segments into one, and a segment whose deleted
//! rows grew too many is rewritten without them (see `storage::deleted`).
//! Either way the new segment holds the rows of its sources that were not
//! deleted, source after source, each in its order: its `origin` list
//! names each source, its rows and the rows then deleted, which is all it
//! takes to tell where a row of a source is now. Without it a transaction
//! that deleted or updated a row of a merged segment would conflict with the
//! compaction, although nobody else touched its rows.
//!
//! Origins are kept for the [`MAX_ORIGINS`] most recent sources of a table:
//! a transaction that began before an older merge conflicts with it, as it
//! did before origins existed. A clustered table's compaction sorts the rows
//! it merges, so its segments have none.

use crate::manifest::deleted::DeletedRows;
use crate::manifest::{Origin, SegmentMeta};

/// Most sources a table's segments name in their origins.
pub const MAX_ORIGINS: usize = 64;

/// The origins of a segment holding the rows of `sources` not deleted, in
/// order, where each source's deleted rows are `deleted` of it.
pub fn origins<'a>(sources: impl IntoIterator<Item = (&'a SegmentMeta, &'a DeletedRows)>) -> Vec<Origin> {
    sources
        .into_iter()
        .map(|(s, deleted)| Origin { file: s.file.clone(), rows: s.rows, deleted: deleted.clone() })
        .collect()
}

/// Drops the origins of the oldest segments (the first) of a table until at
/// most [`MAX_ORIGINS`] sources are named.
pub fn limit_origins(segments: &mut [SegmentMeta]) {
    let mut named: usize = segments.iter().map(|s| s.origin.len()).sum();
    for segment in segments.iter_mut() {
        if named <= MAX_ORIGINS {
            break;
        }
        named -= segment.origin.len();
        segment.origin.clear();
    }
}

/// Where rows `positions` of segment `file` are in `merged`, which holds
/// them if its origins name `file`: `None` when they do not, `Some(Err(()))`
/// when one of the rows was already deleted when it was merged (it is in no
/// segment now: someone else deleted it).
pub fn moved(merged: &SegmentMeta, file: &str, positions: &DeletedRows) -> Option<Result<DeletedRows, ()>> {
    let at = merged.origin.iter().position(|o| o.file == file)?;
    let source = &merged.origin[at];
    let offset: u64 = merged.origin[..at].iter().map(|o| o.rows - o.deleted.len()).sum();
    if source.deleted.overlap(positions) > 0 || positions.end() > source.rows {
        return Some(Err(()));
    }
    // A row's place among its source's rows not deleted at the merge: its
    // position less the deleted rows before it (both ascend: one walk).
    let mut gaps = source.deleted.runs().peekable();
    let mut below = 0u64;
    let moved = positions.positions().map(|p| {
        while let Some((start, end)) = gaps.next_if(|&(start, _)| start < p) {
            below += end - start;
        }
        offset + p - below
    });
    Some(Ok(DeletedRows::of(moved.collect::<Vec<_>>())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(file: &str, rows: u64, deleted: &[u64]) -> SegmentMeta {
        let mut s: SegmentMeta = serde_json::from_value(serde_json::json!({
            "file": file, "rows": rows, "bytes": 0, "crc32": 0, "stats": []
        }))
        .unwrap();
        s.deleted = DeletedRows::of(deleted.iter().copied());
        s
    }

    #[test]
    fn rows_of_merged_segments_are_found_in_the_merge() {
        let a = segment("a", 4, &[1]); // rows 0, 2, 3 -> 0, 1, 2
        let b = segment("b", 3, &[]); // rows 0, 1, 2 -> 3, 4, 5
        let mut merged = segment("m", 6, &[]);
        merged.origin = origins([&a, &b].map(|s| (s, &s.deleted)));
        let at = |file, rows: &[u64]| moved(&merged, file, &DeletedRows::of(rows.iter().copied()));
        assert_eq!(at("a", &[3]).unwrap().unwrap().positions().collect::<Vec<_>>(), [2]);
        assert_eq!(at("b", &[0, 2]).unwrap().unwrap().positions().collect::<Vec<_>>(), [3, 5]);
        assert_eq!(at("a", &[1]), Some(Err(())), "deleted before the merge: someone else's");
        assert_eq!(at("c", &[0]), None);
    }

    #[test]
    fn only_the_newest_origins_are_kept() {
        let sources: Vec<SegmentMeta> = (0..40).map(|i| segment(&format!("s{i}"), 1, &[])).collect();
        let refs: Vec<&SegmentMeta> = sources.iter().collect();
        let merged =
            |file| SegmentMeta { origin: origins(refs.iter().map(|s| (*s, &s.deleted))), ..segment(file, 40, &[]) };
        let mut segments = vec![merged("old"), segment("plain", 1, &[]), merged("new")];
        limit_origins(&mut segments);
        assert_eq!(segments.iter().map(|s| s.origin.len()).collect::<Vec<_>>(), [0, 0, 40]);
    }
}
