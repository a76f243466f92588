//! Rebasing: how a commit combines one transaction's change of a table with
//! what other transactions committed to it since the transaction began.
//!
//! A transaction changes a table by adding segments (`A`: new rows, the new
//! versions of updated rows), by marking rows of segments deleted (`M`:
//! DELETE, and the old versions of updated rows; see `storage::deleted`),
//! and by removing whole segments (`R`: compaction, and segments rewritten
//! because their marks grew too many). Under `commit.lock` (see
//! `storage::dir`), [`rebase`] compares three versions of the table:
//! `before` (where the transaction started), `mine` (as it leaves it) and
//! `now` (the newest committed version).
//!
//! # The rules
//!
//! * Nobody changed the table since (`now` is `before`): `mine` stands.
//! * The change is applied to `now` when every segment in `R` is in `now`
//!   as it was in `before` (the same rows, the same rows deleted), and every
//!   segment in `M` is still in `now` with none of the rows this transaction
//!   deleted there deleted by another meanwhile: `now` without `R`, each
//!   segment of `M` with both transactions' deleted rows, and `A` where the
//!   first of `R` was (at the end otherwise). So appends never conflict with
//!   appends, nor with UPDATEs and DELETEs; an UPDATE or DELETE conflicts
//!   only with a commit that changed or deleted one of the same rows (row
//!   identity is the segment and the row's position in it, as PostgreSQL's
//!   is the tuple's location). A segment that was compacted or rewritten
//!   meanwhile (by the other commit, or by this transaction) is followed to
//!   the segment that holds its rows now, by that segment's origins (see
//!   `storage::origin`); where none says so (a clustered table's compaction,
//!   two merges since), removing a segment that holds a changed row is a
//!   conflict although the rows may differ. Segment
//!   names are never reused and a committed segment's rows never change (see
//!   `storage::inline`); deleted rows only accumulate: so a segment of the
//!   same name, rows and deleted rows has the same rows in the table, and
//!   nothing another commit did to rows this one changed can go unseen.
//! * Keys are checked again by the caller on the combined table (against
//!   the rows others committed since), still under the lock: a duplicate is
//!   an `IntegrityError`, as if the transactions had run one after the other.
//!   CHECKs need no second look: they judge each row alone, and a change of
//!   their definition is DDL (below).
//! * Conflicts remain (a `ConflictError`; nothing is written, the
//!   transaction can run again) for: DDL on either side (columns, keys,
//!   CHECKs, defaults, a view or sequence definition, CREATE/DROP); a table
//!   with a FOREIGN KEY to itself (its rows' parents may have been removed);
//!   both sides numbering an identity column (both handed out the same next
//!   values, which a statement may have returned to its caller); and a table
//!   the transaction only *relied on* (see below) that changed since.
//! * A table whose rows the transaction relied on without changing them (the
//!   parent of rows it inserted, the children of rows it removed: see
//!   `storage::foreign_keys`) is kept in the transaction's tables as an equal
//!   copy. Such a copy is [`Rebase::Relied`] when the table is unchanged since
//!   (nothing is written for it: other transactions relying on it do not
//!   conflict with this one), and a conflict when it changed, for the change
//!   may have removed a parent or added a child the check did not see.
//!
//! What stays possible is what snapshot isolation allows (write skew between
//! transactions that read what the other changes: see docs/architecture.md).
//!
//! # Interleavings
//!
//! The decision runs under `commit.lock`, so `now` cannot change while it is
//! made, and the combined table is published under the same lock with a new
//! version number (see `storage::dir`). Everything a transaction wrote before
//! the lock (its segment files, its own compaction) names files of its own
//! lease only, so another process's commit, compaction or collection in
//! between can only change `now`, which is read after the lock is taken.
//! Segments of `now` that the combined table keeps are referenced by the
//! newest manifest, so no collection can have removed their files.

use crate::manifest::deleted::DeletedRows;
use crate::manifest::origin::moved;
use crate::manifest::{Constraints, SegmentMeta, TableMeta};
use std::collections::HashMap;

/// What a commit does with one table it changed.
#[derive(Debug, PartialEq)]
pub enum Rebase {
    /// Nobody changed the table since the transaction began: its version stands.
    Mine,
    /// The transaction only relied on the table, which nobody changed: nothing to write.
    Relied,
    /// The transaction's change applied to the newest version.
    Combined(Box<TableMeta>),
    /// The change cannot be combined with what was committed since: why.
    Conflict(String),
}

/// How the transaction's version `mine` of table `name` combines with the
/// newest committed `now`, both derived from `before` (`None`: no such
/// table; see the module docs for the rules).
pub fn rebase(name: &str, before: Option<&TableMeta>, mine: Option<&TableMeta>, now: Option<&TableMeta>) -> Rebase {
    let relied = only_relied_on(before, mine);
    if before.map(|t| t.modified) == now.map(|t| t.modified) {
        return if relied { Rebase::Relied } else { Rebase::Mine };
    }
    let conflict = |why: &str| Rebase::Conflict(format!("table '{name}' {why}"));
    let (Some(before), Some(mine), Some(now)) = (before, mine, now) else {
        return conflict("was created, dropped or replaced by another transaction, or this one, meanwhile");
    };
    if relied {
        return conflict("was changed by another transaction meanwhile, and this one relied on its rows (FOREIGN KEY)");
    }
    // A table created in a transaction has version 0 until its commit: one
    // that replaced `before` (DROP and CREATE, CREATE OR REPLACE) is no change of it.
    if mine.modified != before.modified {
        return conflict("was dropped and created again by this transaction, and changed by another meanwhile");
    }
    if !mine.is_table() || !same_definition(before, mine) || !same_definition(before, now) {
        return conflict("was redefined (columns, keys, constraints) by another transaction, or this one, meanwhile");
    }
    if mine.constraints.foreign_keys.iter().any(|fk| fk.parent == name) {
        return conflict("references itself (FOREIGN KEY) and was changed by another transaction meanwhile");
    }
    let numbered = |t: &TableMeta| t.constraints.identity != before.constraints.identity;
    if numbered(mine) && numbered(now) {
        return conflict("had rows numbered (identity column) by another transaction and this one meanwhile");
    }
    let had = before.segments_by_name();
    let kept = mine.segments_by_name();
    let present = now.segments_by_name();
    // A committed segment never grows (only a transaction's own tail does),
    // and its deleted rows stay deleted.
    if mine
        .segments
        .iter()
        .any(|s| had.get(s.file.as_str()).is_some_and(|h| h.rows != s.rows || !s.deleted.covers(&h.deleted)))
    {
        return conflict("has a segment that changed its rows (this is a bug)");
    }
    let changed_too = || conflict("had rows changed by another transaction that this one changed too");
    let added: Vec<&SegmentMeta> = mine.segments.iter().filter(|s| !had.contains_key(s.file.as_str())).collect();
    // Rows to mark deleted on top of what the combined table's segments have
    // deleted: by segment of `now`, and by segment this transaction added.
    let mut on_now: HashMap<&str, DeletedRows> = HashMap::new();
    let mut on_added: HashMap<&str, DeletedRows> = HashMap::new();
    // Segments this transaction removed whole: unchanged since, or changed
    // only by rows deleted that are not among those it left out, found
    // where it put the segment's other rows (see `storage::origin`).
    let removed: Vec<&str> =
        before.segments.iter().map(|s| s.file.as_str()).filter(|f| !kept.contains_key(f)).collect();
    for file in &removed {
        let old = had[file];
        let theirs = match present.get(file) {
            Some(p) if same_rows(Some(p), Some(old)) => continue,
            Some(p) if p.rows == old.rows && p.deleted.covers(&old.deleted) => p.deleted.minus(&old.deleted),
            _ => return changed_too(),
        };
        // Not where this transaction deleted rows of its own segment either
        // (an UPDATE of the same row after the rewrite).
        match added.iter().find_map(|a| Some((*a, moved(a, file, &theirs)?))) {
            Some((at, Ok(rows))) if rows.overlap(&at.deleted) == 0 => join(&mut on_added, at.file.as_str(), rows),
            _ => return changed_too(),
        }
    }
    // Segments in which it deleted rows: none of those rows deleted by
    // another meanwhile, in the segment or where a compaction moved it.
    for segment in &mine.segments {
        let Some(old) = had.get(segment.file.as_str()) else { continue };
        if segment.deleted == old.deleted {
            continue;
        }
        let mine_new = segment.deleted.minus(&old.deleted);
        if let Some(theirs) = present.get(segment.file.as_str()).filter(|p| p.rows == old.rows) {
            if mine_new.overlap(&theirs.deleted) > 0 {
                return changed_too();
            }
            join(&mut on_now, theirs.file.as_str(), mine_new);
            continue;
        }
        let found = now.segments.iter().find_map(|m| Some((m, moved(m, &segment.file, &mine_new)?)));
        match found {
            Some((merged, Ok(rows))) if rows.overlap(&merged.deleted) == 0 => {
                join(&mut on_now, merged.file.as_str(), rows)
            }
            _ => return changed_too(),
        }
    }
    let marked = |segment: &SegmentMeta, marks: &HashMap<&str, DeletedRows>| match marks.get(segment.file.as_str()) {
        None => Some(segment.clone()),
        Some(rows) => {
            let deleted = segment.deleted.union(rows);
            (deleted.len() < segment.rows).then(|| SegmentMeta { deleted, ..segment.clone() })
        }
    };
    let added: Vec<SegmentMeta> = added.iter().filter_map(|s| marked(s, &on_added)).collect();
    let mut segments = Vec::with_capacity(now.segments.len() + mine.segments.len());
    let mut added = Some(added);
    for segment in &now.segments {
        if removed.contains(&segment.file.as_str()) {
            segments.extend(added.take().into_iter().flatten());
        } else {
            segments.extend(marked(segment, &on_now));
        }
    }
    segments.extend(added.into_iter().flatten());
    let mut combined = now.with_segments(segments);
    if numbered(mine) {
        combined.constraints.identity = mine.constraints.identity.clone();
    }
    Rebase::Combined(Box::new(combined))
}

/// Adds `rows` to the rows to mark deleted in segment `at`.
fn join<'k>(marks: &mut HashMap<&'k str, DeletedRows>, at: &'k str, rows: DeletedRows) {
    let joined = marks.get(at).map_or_else(|| rows.clone(), |d| d.union(&rows));
    marks.insert(at, joined);
}

/// Whether a transaction's version `mine` of a table is its version
/// `before` unchanged: a copy it keeps only because it relied on the rows.
pub fn only_relied_on(before: Option<&TableMeta>, mine: Option<&TableMeta>) -> bool {
    let same = |a: &TableMeta, b: &TableMeta| {
        same_definition(a, b) && a.constraints.identity == b.constraints.identity && segment_rows(a) == segment_rows(b)
    };
    matches!((before, mine), (Some(b), Some(m)) if b.modified == m.modified && same(b, m))
}

fn segment_rows(t: &TableMeta) -> Vec<(&str, u64, &DeletedRows)> {
    t.segments.iter().map(|s| (s.file.as_str(), s.rows, &s.deleted)).collect()
}

/// Whether `a` and `b` are one segment with the same rows in its table.
fn same_rows(a: Option<&SegmentMeta>, b: Option<&SegmentMeta>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.rows == b.rows && a.deleted == b.deleted,
        (a, b) => a.is_none() && b.is_none(),
    }
}

/// Whether two versions of a table have the same kind, columns and
/// constraints (identity counters aside, which writes advance).
fn same_definition(a: &TableMeta, b: &TableMeta) -> bool {
    let without_counters = |c: &Constraints| Constraints { identity: Default::default(), ..c.clone() };
    let counters = |c: &Constraints| c.identity.keys().cloned().collect::<Vec<_>>();
    a.schema == b.schema
        && a.definition == b.definition
        && a.column_ids == b.column_ids
        && counters(&a.constraints) == counters(&b.constraints)
        && without_counters(&a.constraints) == without_counters(&b.constraints)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::inline_segment::inline_segment;
    use crate::ForeignKey;
    use datafusion::arrow::array::{Int64Array, RecordBatch};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use std::sync::Arc;

    /// A table of one-row segments named by `names`, last changed in `modified`.
    fn table(names: &[&str], modified: u64) -> TableMeta {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
        let segments = names
            .iter()
            .map(|name| {
                let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![1]))]).unwrap();
                inline_segment(name.to_string(), batch).unwrap()
            })
            .collect();
        TableMeta::table(schema, segments, modified)
    }

    fn names(outcome: Rebase) -> Vec<String> {
        match outcome {
            Rebase::Combined(t) => t.segments.iter().map(|s| s.file.clone()).collect(),
            other => panic!("not combined: {other:?}"),
        }
    }

    fn conflict(outcome: Rebase) -> String {
        match outcome {
            Rebase::Conflict(why) => why,
            other => panic!("no conflict: {other:?}"),
        }
    }

    #[test]
    fn unchanged_tables_take_the_transactions_version_or_nothing() {
        let before = table(&["a"], 3);
        assert_eq!(rebase("t", Some(&before), Some(&table(&["a", "m"], 3)), Some(&before)), Rebase::Mine);
        assert_eq!(rebase("t", Some(&before), None, Some(&before)), Rebase::Mine);
        assert_eq!(rebase("t", None, Some(&table(&["m"], 0)), None), Rebase::Mine);
        assert_eq!(rebase("t", Some(&before), Some(&before.clone()), Some(&before)), Rebase::Relied);
    }

    #[test]
    fn appends_and_rewrites_of_other_segments_combine_in_commit_order() {
        let before = table(&["a", "b"], 3);
        let now = table(&["a", "b", "n"], 4);
        assert_eq!(
            names(rebase("t", Some(&before), Some(&table(&["a", "b", "m"], 3)), Some(&now))),
            ["a", "b", "n", "m"]
        );
        // An UPDATE that rewrote b: its segments take b's place.
        assert_eq!(
            names(rebase("t", Some(&before), Some(&table(&["a", "b2", "m"], 3)), Some(&now))),
            ["a", "b2", "m", "n"]
        );
        // The other rewrote a, this one b: both changes stand.
        let now = table(&["a2", "b"], 4);
        assert_eq!(names(rebase("t", Some(&before), Some(&table(&["a", "b2"], 3)), Some(&now))), ["a2", "b2"]);
        // A DELETE of every row keeps the rows committed meanwhile.
        let now = table(&["a", "b", "n"], 4);
        assert_eq!(names(rebase("t", Some(&before), Some(&table(&[], 3)), Some(&now))), ["n"]);
    }

    #[test]
    fn a_segment_both_rewrote_or_merged_conflicts() {
        let before = table(&["a", "b"], 3);
        let mine = table(&["a", "b2"], 3);
        assert!(
            conflict(rebase("t", Some(&before), Some(&mine), Some(&table(&["a", "b3"], 4)))).contains("changed too")
        );
        // The other's compaction merged b away: its rows may have moved anywhere.
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&table(&["ab"], 4)))).contains("changed too"));
    }

    /// `t` with the rows at `positions` of its segment `file` marked deleted too.
    fn deleting(t: &TableMeta, file: &str, positions: &[u64]) -> TableMeta {
        let mut t = t.clone();
        let segment = t.segments.iter_mut().find(|s| s.file == file).unwrap();
        segment.deleted = segment.deleted.union(&DeletedRows::of(positions.iter().copied()));
        t
    }

    /// A table of one segment `a` of 10 rows, last changed in `modified`.
    fn ten_rows(modified: u64) -> TableMeta {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from_iter_values(0..10))]).unwrap();
        TableMeta::table(schema, vec![inline_segment("a".into(), batch).unwrap()], modified)
    }

    #[test]
    fn deletes_of_different_rows_of_one_segment_combine() {
        let before = deleting(&ten_rows(3), "a", &[0]);
        let mut now = deleting(&before, "a", &[1, 2]);
        now.modified = 4;
        // An UPDATE of row 5: its old version deleted, its new one added.
        let mut mine = deleting(&before, "a", &[5]);
        mine.segments.extend(table(&["m"], 3).segments);
        let Rebase::Combined(t) = rebase("t", Some(&before), Some(&mine), Some(&now)) else { panic!("not combined") };
        assert_eq!(t.segments.iter().map(|s| s.file.as_str()).collect::<Vec<_>>(), ["a", "m"]);
        assert_eq!(t.segments[0].deleted.positions().collect::<Vec<_>>(), [0, 1, 2, 5]);
        assert_eq!(t.num_rows(), 7);
        // Deleting the last rows of a segment drops it.
        let mine = deleting(&before, "a", &[3, 4, 5, 6, 7, 8, 9]);
        let Rebase::Combined(t) = rebase("t", Some(&before), Some(&mine), Some(&now)) else { panic!("not combined") };
        assert!(t.segments.is_empty());
    }

    #[test]
    fn deletes_of_one_row_or_of_a_removed_segment_conflict() {
        let before = ten_rows(3);
        let mine = deleting(&before, "a", &[4, 7]);
        let mut now = deleting(&before, "a", &[7]);
        now.modified = 4;
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&now))).contains("changed too"));
        // The other rewrote or compacted the segment away.
        let mut now = table(&["b"], 4);
        now.schema = before.schema.clone();
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&now))).contains("changed too"));
        // This one removed the segment whole, the other deleted a row of it.
        let mut now = deleting(&before, "a", &[1]);
        now.modified = 4;
        let emptied = TableMeta { segments: vec![], ..before.clone() };
        assert!(conflict(rebase("t", Some(&before), Some(&emptied), Some(&now))).contains("changed too"));
    }

    #[test]
    fn deletes_follow_their_rows_into_a_compaction_or_rewrite() {
        use crate::manifest::origin::origins;
        let before = ten_rows(3);
        let b = table(&["b"], 3).segments.remove(0);
        let before = TableMeta { segments: vec![before.segments[0].clone(), b.clone()], ..before };
        let a = &before.segments[0];
        // Another commit deleted row 1 of a, then compacted a and b into m.
        let a_then = SegmentMeta { deleted: DeletedRows::of([1]), ..a.clone() };
        let mut m = ten_rows(4).segments.remove(0);
        m.origin = origins([(&a_then, &a_then.deleted), (&b, &b.deleted)]);
        m.file = "m".into();
        let now = TableMeta { segments: vec![m], modified: 4, ..before.clone() };
        // This one deleted row 5 of a: row 4 of m (row 1 was left out).
        let mine = deleting(&before, "a", &[5]);
        let Rebase::Combined(t) = rebase("t", Some(&before), Some(&mine), Some(&now)) else { panic!("not combined") };
        assert_eq!(t.segments[0].deleted.positions().collect::<Vec<_>>(), [4]);
        // Row 1 was deleted by the other: a conflict, merged or not.
        let mine = deleting(&before, "a", &[1]);
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&now))).contains("changed too"));
        // This one rewrote a without row 2 (as r); the other deleted row 7 of a.
        let a_then = SegmentMeta { deleted: DeletedRows::of([2]), ..a.clone() };
        let mut r = ten_rows(3).segments.remove(0);
        r.origin = origins([(a, &a_then.deleted)]);
        r.file = "r".into();
        let mine = TableMeta { segments: vec![r, b.clone()], ..before.clone() };
        let mut now = deleting(&before, "a", &[7]);
        now.modified = 4;
        let Rebase::Combined(t) = rebase("t", Some(&before), Some(&mine), Some(&now)) else { panic!("not combined") };
        assert_eq!(t.segments.iter().map(|s| s.file.as_str()).collect::<Vec<_>>(), ["r", "b"]);
        assert_eq!(t.segments[0].deleted.positions().collect::<Vec<_>>(), [6]);
        let mut now = deleting(&before, "a", &[2]);
        now.modified = 4;
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&now))).contains("changed too"));
        // ... and row 7 again once rewritten (at 6 of r): both changed it.
        let mine = deleting(&mine, "r", &[6]);
        let mut now = deleting(&before, "a", &[7]);
        now.modified = 4;
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&now))).contains("changed too"));
    }

    #[test]
    fn a_transaction_that_only_deleted_rows_is_no_mere_reliance() {
        let before = ten_rows(3);
        let mine = deleting(&before, "a", &[2]);
        assert!(!only_relied_on(Some(&before), Some(&mine)));
        assert_eq!(rebase("t", Some(&before), Some(&mine), Some(&before)), Rebase::Mine);
    }

    #[test]
    fn definitions_replacements_self_references_identities_and_relied_rows_conflict() {
        let before = table(&["a"], 3);
        let now = table(&["a", "n"], 4);
        let mine = table(&["a", "m"], 3);
        // Replaced in the transaction (DROP and CREATE): version 0 until committed.
        assert!(conflict(rebase("t", Some(&before), Some(&table(&["m"], 0)), Some(&now))).contains("created again"));
        assert!(conflict(rebase("t", Some(&before), None, Some(&now))).contains("created, dropped"));
        assert!(conflict(rebase("t", Some(&before), Some(&mine), None)).contains("created, dropped"));
        let mut altered = now.clone();
        altered.constraints.checks.push("n > 0".into());
        assert!(conflict(rebase("t", Some(&before), Some(&mine), Some(&altered))).contains("redefined"));
        let fk = ForeignKey { columns: vec!["n".into()], parent: "t".into(), parent_columns: vec![] };
        let (mut b, mut m, mut n) = (before.clone(), mine.clone(), now.clone());
        for t in [&mut b, &mut m, &mut n] {
            t.constraints.foreign_keys.push(fk.clone());
        }
        assert!(conflict(rebase("t", Some(&b), Some(&m), Some(&n))).contains("references itself"));
        let numbered = |t: &TableMeta, next: i64| {
            let mut t = t.clone();
            t.constraints.identity.insert("n".into(), next);
            t
        };
        let (b, n) = (numbered(&before, 1), numbered(&now, 2));
        assert!(conflict(rebase("t", Some(&b), Some(&numbered(&mine, 2)), Some(&n))).contains("identity"));
        // Only this transaction numbered rows: its counter goes on.
        match rebase("t", Some(&b), Some(&numbered(&mine, 2)), Some(&numbered(&now, 1))) {
            Rebase::Combined(t) => assert_eq!(t.constraints.identity["n"], 2),
            other => panic!("{other:?}"),
        }
        assert!(conflict(rebase("t", Some(&before), Some(&before.clone()), Some(&now))).contains("relied"));
    }
}
