//! PRIMARY KEY and UNIQUE enforcement. A [`KeyIndex`] holds the key values
//! of one version of a table (as Arrow row-format bytes, which compare equal
//! exactly when the values do). A write is checked by moving the index to the
//! new version: the keys of segments that left (rewritten by UPDATE/DELETE,
//! merged by compaction, undone by a rollback) are dropped, from the index's
//! own per-segment lists (their files may be gone), and those of new segments
//! read and added, so an insert costs its own rows, not the table's.
//!
//! The keys of a segment with many rows are a sorted run persisted beside it
//! (see [`crate::keys::runs`]), mapped rather than hashed, so the first write
//! after opening a large table costs a few file maps, not reading every key.
//! The keys of smaller segments are hashed in memory. Indexes live one per
//! connection, table and key, and are built when first needed. Two
//! transactions that add the same key in different connections or processes
//! each see only their own: the second to commit combines its rows with the
//! first's under the commit lock and checks its keys again there, moving its
//! index to the combined table (which reads only the rows committed
//! meanwhile), so it fails with the duplicate (see `storage::rebase`):
//! uniqueness holds across them.

use crate::error::{Error, ErrorKind, Result};
use crate::keys::columns::KeyColumns;
use crate::keys::runs::{has_saved_run, Indexed, KeyRun, RunKind};
use crate::manifest::deleted::DeletedRows;
use crate::{SegmentMeta, SegmentStore, TableMeta};
use datafusion::arrow::array::UInt64Array;
use datafusion::arrow::compute::take;
use datafusion::arrow::datatypes::SchemaRef;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub mod columns;
mod fence;
pub mod foreign;
pub mod runs;

/// The key values of one key over the segments of one version of a table.
#[derive(Debug, Default)]
pub struct KeyIndex {
    /// The schema indexed (a change of it starts the index afresh).
    schema: Option<SchemaRef>,
    /// Every key value of the segments hashed.
    keys: HashSet<Key>,
    /// The key values of each segment hashed, by name.
    segments: HashMap<String, IndexedSegment>,
    /// The runs of the segments with a run, by file. A run holds the keys of
    /// all the segment's rows, deleted ones too (runs are shared by every
    /// version of the table); those are in `dead`.
    runs: HashMap<String, Arc<KeyRun>>,
    /// Per segment with a run and deleted rows: those rows and their keys.
    dead: HashMap<String, DeadKeys>,
}

/// The deleted rows of a segment with a run, and their keys.
type DeadKeys = (DeletedRows, HashSet<Key>);

/// How to undo one change of a run's [`DeadKeys`].
enum DeadUndo {
    /// They were replaced whole (or removed): what they were, if anything.
    Replaced(Option<DeadKeys>),
    /// They grew: the deleted rows before, and the keys added.
    Grew { deleted: DeletedRows, keys: Vec<Key> },
}

/// One key value in the row format (shared by the set and a segment's list).
type Key = Arc<[u8]>;

/// A connection's key indexes, by (table, key).
pub type KeyIndexes = HashMap<(String, String), KeyIndex>;

/// Checks every key of `table` (named `name`) over its segments, updating the
/// indexes; an `IntegrityError` naming the table, the key and the value that
/// occurs twice, with the index left as it was.
pub fn check_keys(store: &SegmentStore, indexes: &mut KeyIndexes, name: &str, table: &TableMeta) -> Result<()> {
    for (key, columns) in table.constraints.keys() {
        let index = indexes.entry((name.to_string(), key.clone())).or_default();
        if let Some(value) = index.update(store, table, columns)? {
            return Err(duplicate_error(table, name, &key, columns, &value));
        }
    }
    Ok(())
}

/// A key with the position of its row in its segment.
type Placed = (u64, Key);

/// Segments indexed by one update, to be kept or undone together.
#[derive(Default)]
struct Added {
    /// Hashed: (segment, its rows now, the keys added with their rows' positions).
    hashed: Vec<(String, u64, Vec<Placed>)>,
    /// Segments whose run was added.
    runs: Vec<String>,
    /// How to undo each change of the runs' dead keys, in the order made.
    dead: Vec<(String, DeadUndo)>,
    /// Keys of hashed segments' rows deleted since they were read: (segment, position, key).
    killed: Vec<(String, u64, Key)>,
}

impl KeyIndex {
    /// Whether `key` (row-format bytes) is one of the indexed values.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.keys.contains(key) || self.in_runs(key)
    }

    /// Whether a row of a segment with a run, and not deleted, has `key`.
    fn in_runs(&self, key: &[u8]) -> bool {
        self.runs.iter().any(|(file, run)| run.contains(key) && !self.is_dead(file, key))
    }

    /// Whether `key` is the key of a deleted row of segment `file` (with a run).
    fn is_dead(&self, file: &str, key: &[u8]) -> bool {
        self.dead.get(file).is_some_and(|(_, keys)| keys.contains(key))
    }

    /// Moves the index to `table`'s segments. On a key value found twice,
    /// leaves the index as it was and returns the value.
    fn update(&mut self, store: &SegmentStore, table: &TableMeta, columns: &[String]) -> Result<Option<Vec<u8>>> {
        if self.schema.as_ref() != Some(&table.schema) {
            *self = KeyIndex { schema: Some(table.schema.clone()), ..KeyIndex::default() };
        }
        let key = KeyColumns::new(&table.schema, columns)?;
        let now = table.segments_by_name();
        // Segments that left, or hold fewer rows than were hashed under
        // their name (a tail a failed statement grew, then restored), or
        // fewer deleted rows (a failed statement's marks undone).
        let gone: Vec<String> = self
            .segments
            .iter()
            .filter(|(f, indexed)| {
                now.get(f.as_str()).is_none_or(|s| s.rows < indexed.rows || !s.deleted.covers(&indexed.deleted))
            })
            .map(|(f, _)| f.clone())
            .collect();
        for file in &gone {
            for key in self.segments[file].keys.iter().flatten() {
                self.keys.remove(key);
            }
        }
        let mut added = Added::default();
        // Rows of the others deleted since they were hashed: their keys leave.
        for (file, indexed) in self.segments.iter_mut().filter(|(f, _)| !gone.contains(f)) {
            let newly = now[file.as_str()].deleted.minus(&indexed.deleted);
            for position in newly.positions() {
                if let Some(key) = indexed.keys.get_mut(position as usize).and_then(Option::take) {
                    self.keys.remove(&key);
                    added.killed.push((file.clone(), position, key));
                }
            }
        }
        let gone_runs: Vec<(String, Arc<KeyRun>)> =
            self.runs.extract_if(|file, _| !now.contains_key(file.as_str())).collect();
        for (file, _) in &gone_runs {
            added.dead.push((file.clone(), DeadUndo::Replaced(self.dead.remove(file))));
        }
        let outcome = self.add_segments(store, table, &key, &gone, &gone_runs, &mut added);
        if !matches!(outcome, Ok(None)) {
            for (_, _, keys) in &added.hashed {
                for (_, key) in keys {
                    self.keys.remove(key);
                }
            }
            for file in &added.runs {
                self.runs.remove(file);
            }
            for (file, undo) in added.dead.into_iter().rev() {
                match undo {
                    DeadUndo::Replaced(Some(dead)) => drop(self.dead.insert(file, dead)),
                    DeadUndo::Replaced(None) => drop(self.dead.remove(&file)),
                    DeadUndo::Grew { deleted, keys } => {
                        let (marks, set) = self.dead.get_mut(&file).expect("grown in this update");
                        *marks = deleted;
                        for key in keys {
                            set.remove(&key);
                        }
                    }
                }
            }
            for (file, position, key) in added.killed {
                self.keys.insert(key.clone());
                self.segments.get_mut(&file).expect("indexed").keys[position as usize] = Some(key);
            }
            for file in &gone {
                self.keys.extend(self.segments[file].keys.iter().flatten().cloned());
            }
            self.runs.extend(gone_runs);
            return outcome;
        }
        for file in gone {
            self.segments.remove(&file);
        }
        for (file, indexed) in self.segments.iter_mut() {
            indexed.deleted = now[file.as_str()].deleted.clone();
        }
        for (file, rows, keys) in added.hashed {
            let indexed = self.segments.entry(file.clone()).or_default();
            indexed.rows = rows;
            indexed.deleted = now[file.as_str()].deleted.clone();
            indexed.keys.resize(rows as usize, None);
            for (position, key) in keys {
                indexed.keys[position as usize] = Some(key);
            }
        }
        Ok(None)
    }

    /// Indexes the rows of `table`'s segments not indexed yet, recording
    /// them in `added` (the runs of segments that left, `gone_runs`, give
    /// those rewritten from them theirs); stops at the first value found
    /// twice and returns it.
    /// Deleted rows of segments with a run are taken out first, so that the
    /// new version of an updated row does not collide with its old one.
    fn add_segments(
        &mut self,
        store: &SegmentStore,
        table: &TableMeta,
        key: &KeyColumns,
        gone: &[String],
        gone_runs: &[(String, Arc<KeyRun>)],
        added: &mut Added,
    ) -> Result<Option<Vec<u8>>> {
        let with_runs: Vec<&SegmentMeta> = table.segments.iter().filter(|s| self.runs.contains_key(&s.file)).collect();
        for segment in with_runs {
            self.mark_dead(store, table, segment, key, added)?;
        }
        for segment in &table.segments {
            if self.runs.contains_key(&segment.file) {
                continue;
            }
            // The rows of a segment past those hashed under its name (a
            // segment's rows under a name never change; a tail only grows).
            let from = match self.segments.get(&segment.file) {
                Some(indexed) if !gone.contains(&segment.file) => indexed.rows,
                _ => 0,
            };
            if from == segment.rows {
                continue;
            }
            if from == 0 && has_saved_run(segment) {
                // A segment rewritten from one whose run left the index (an
                // UPDATE or DELETE dropped its deleted rows) takes that run
                // less those rows: its origin says it holds exactly the
                // source's other rows, in order (see `manifest::origin`).
                let rewritten_from = match segment.origin.as_slice() {
                    [origin] if origin.rows - origin.deleted.len() == segment.rows => gone_runs
                        .iter()
                        .find(|(file, _)| file == &origin.file)
                        .map(|(_, run)| (run.as_ref(), &origin.deleted)),
                    _ => None,
                };
                let run = match KeyRun::of_segment(store, table, segment, key, RunKind::Key, rewritten_from)? {
                    Indexed::Duplicate(value) => return Ok(Some(value)),
                    Indexed::Run(run) => run,
                };
                self.runs.insert(segment.file.clone(), Arc::new(run));
                added.runs.push(segment.file.clone());
                self.mark_dead(store, table, segment, key, added)?;
                if let Some(value) = self.shared_with(&segment.file) {
                    return Ok(Some(value));
                }
                if let Some(run) = self.runs.get_mut(&segment.file).and_then(Arc::get_mut) {
                    run.save(store.dir());
                }
                continue;
            }
            added.hashed.push((segment.file.clone(), segment.rows, Vec::new()));
            let keys = &mut added.hashed.last_mut().expect("just pushed").2;
            let mut duplicate = None;
            let mut fresh: HashSet<Key> = HashSet::new();
            for_each_key(store, table, segment, from, key, |value, position| {
                if duplicate.is_some() {
                    return;
                }
                let value: Key = value.into();
                if self.contains(&value) || !fresh.insert(value.clone()) {
                    duplicate = Some(value.to_vec());
                } else {
                    keys.push((position, value));
                }
            })?;
            self.keys.extend(fresh);
            if duplicate.is_some() {
                return Ok(duplicate);
            }
        }
        Ok(None)
    }

    /// Records the keys of `segment`'s deleted rows (it has a run) as dead,
    /// reading only the rows deleted since it was last asked.
    fn mark_dead(
        &mut self,
        store: &SegmentStore,
        table: &TableMeta,
        segment: &SegmentMeta,
        key: &KeyColumns,
        added: &mut Added,
    ) -> Result<()> {
        let known = self.dead.get(&segment.file).map(|(deleted, _)| deleted);
        if known.unwrap_or(&DeletedRows::default()) == &segment.deleted {
            return Ok(());
        }
        // Deleted rows only accumulate under a name: the keys known dead
        // grow by those of the rows deleted since (the set is added to in
        // place, and what was added recorded to undo: it holds a key per
        // deleted row, and an UPDATE deletes one). Anything else is read afresh.
        let grows = known.is_some_and(|old| segment.deleted.covers(old));
        let newly = match known {
            Some(old) if grows => segment.deleted.minus(old),
            _ => segment.deleted.clone(),
        };
        // Only the newly deleted rows' keys are taken out of the batches: a
        // segment with a run has thousands of rows, an UPDATE deletes a few.
        let mut keys: Vec<Key> = Vec::new();
        let mut start = 0u64;
        for batch in store.map(table, segment)?.all_batches(Some(&key.positions))? {
            let end = start + batch.num_rows() as u64;
            let within = newly.runs().flat_map(|(from, to)| from.max(start)..to.min(end));
            let rows: UInt64Array = within.map(|p| p - start).collect();
            if !rows.is_empty() {
                let columns = batch.columns().iter().map(|c| take(c, &rows, None)).collect::<Result<Vec<_>, _>>()?;
                key.for_each(&columns, |value, _| keys.push(value.into()))?;
            }
            start = end;
        }
        let file = segment.file.clone();
        if grows {
            let (marks, set) = self.dead.get_mut(&file).expect("known above");
            let deleted = std::mem::replace(marks, segment.deleted.clone());
            let keys = keys.into_iter().filter(|k| set.insert(k.clone())).collect();
            added.dead.push((file, DeadUndo::Grew { deleted, keys }));
        } else {
            let old = self.dead.insert(file.clone(), (segment.deleted.clone(), keys.into_iter().collect()));
            added.dead.push((file, DeadUndo::Replaced(old)));
        }
        Ok(())
    }

    /// A live value the run of segment `file` holds that the index holds
    /// elsewhere too, if any.
    fn shared_with(&self, file: &str) -> Option<Vec<u8>> {
        let run = &self.runs[file];
        let live_here = |k: &[u8]| !self.is_dead(file, k);
        let searches = self.keys.len() * (usize::BITS - run.len().leading_zeros()) as usize;
        let hashed = if searches < run.len() {
            self.keys.iter().find(|k| run.contains(k) && live_here(k)).map(|k| k.to_vec())
        } else {
            run.iter().find(|k| self.keys.contains(*k) && live_here(k)).map(<[u8]>::to_vec)
        };
        hashed.or_else(|| {
            self.runs
                .iter()
                .filter(|(other, _)| other.as_str() != file)
                .find_map(|(other, other_run)| other_run.shared_where(run, |k| live_here(k) && !self.is_dead(other, k)))
        })
    }
}

/// The keys of one segment's rows that an index holds.
#[derive(Debug, Default)]
struct IndexedSegment {
    /// How many of the segment's rows were read (its first ones).
    rows: u64,
    /// The rows deleted as far as the index knows (their keys are out).
    deleted: DeletedRows,
    /// The key of each row read, by position (`None`: NULL, or deleted).
    keys: Vec<Option<Key>>,
}

/// Calls `f(key, position)` for each non-NULL key of the rows of `segment`
/// (of `table`) not deleted, from position `from` on.
fn for_each_key(
    store: &SegmentStore,
    table: &TableMeta,
    segment: &SegmentMeta,
    from: u64,
    key: &KeyColumns,
    mut f: impl FnMut(&[u8], u64),
) -> Result<()> {
    let mut start = 0u64;
    for batch in store.map(table, segment)?.all_batches(Some(&key.positions))? {
        let rows = batch.num_rows() as u64;
        if start + rows > from {
            let skip = from.saturating_sub(start);
            let batch = batch.slice(skip as usize, (rows - skip) as usize);
            let first = start + skip;
            key.for_each(batch.columns(), |value, row| {
                let position = first + row as u64;
                if !segment.deleted.contains(position) {
                    f(value, position);
                }
            })?;
        }
        start += rows;
    }
    Ok(())
}

/// The error for `value` of key `key`, which the table holds twice.
fn duplicate_error(table: &TableMeta, name: &str, key: &str, columns: &[String], value: &[u8]) -> Error {
    let shown = KeyColumns::new(&table.schema, columns)
        .and_then(|k| k.describe(value))
        .unwrap_or_else(|_| "a value".to_string());
    Error::new(ErrorKind::Integrity, format!("duplicate key in table '{name}': {key} already has {shown}"))
}
