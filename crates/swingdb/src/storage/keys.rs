//! PRIMARY KEY and UNIQUE enforcement. A [`KeyIndex`] holds the key values
//! of one version of a table (as Arrow row-format bytes, which compare equal
//! exactly when the values do). A write is checked by moving the index to the
//! new version: the keys of segments that left (rewritten by UPDATE/DELETE,
//! merged by compaction, undone by a rollback) are dropped, from the index's
//! own per-segment lists (their files may be gone), and those of new segments
//! read and added, so an insert costs its own rows, not the table's.
//!
//! Indexes live in memory, one per connection, table and key, and are built
//! from the segments when first needed (after opening, or in another
//! connection). Two transactions that add the same key in different
//! connections or processes both change the table, so the second to commit
//! fails with a conflict (see `storage::dir`): uniqueness holds across them.

use super::{SegmentMeta, SegmentStore, TableMeta};
use crate::error::{Error, ErrorKind, Result};
use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The key values of one key over the segments of one version of a table.
#[derive(Debug, Default)]
pub struct KeyIndex {
    /// The schema indexed (a change of it starts the index afresh).
    schema: Option<SchemaRef>,
    /// Every key value.
    keys: HashSet<Key>,
    /// The key values of each segment indexed, by file.
    segments: HashMap<String, IndexedSegment>,
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
        if let Some((segment, row)) = index.update(store, table, columns)? {
            return Err(duplicate_error(store, table, name, &key, columns, &segment, row));
        }
    }
    Ok(())
}

impl KeyIndex {
    /// Whether `key` (row-format bytes) is one of the indexed values.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.keys.contains(key)
    }

    /// Moves the index to `table`'s segments. On a key found twice, leaves the
    /// index as it was and returns where the second one is (segment file, row).
    fn update(&mut self, store: &SegmentStore, table: &TableMeta, columns: &[String]) -> Result<Option<(String, usize)>> {
        if self.schema.as_ref() != Some(&table.schema) {
            *self = KeyIndex { schema: Some(table.schema.clone()), ..KeyIndex::default() };
        }
        let now: HashMap<&str, u64> = table.segments.iter().map(|s| (s.file.as_str(), s.rows)).collect();
        // Segments that left, or hold fewer rows than were indexed under
        // their name (a tail a failed statement grew, then restored).
        let gone: Vec<String> = self
            .segments
            .iter()
            .filter(|(f, indexed)| now.get(f.as_str()).is_none_or(|&rows| rows < indexed.rows))
            .map(|(f, _)| f.clone())
            .collect();
        for file in &gone {
            for key in &self.segments[file].keys {
                self.keys.remove(key);
            }
        }
        let undo = |index: &mut KeyIndex, added: &[(String, u64, Vec<Key>)]| {
            for (_, _, keys) in added {
                keys.iter().for_each(|k| {
                    index.keys.remove(k);
                });
            }
            for file in &gone {
                index.keys.extend(index.segments[file].keys.iter().cloned());
            }
        };
        // The rows of each segment past those indexed under its name (a
        // segment's rows under a name never change; a tail only grows).
        let mut added: Vec<(String, u64, Vec<Key>)> = Vec::new();
        for segment in &table.segments {
            let from = match self.segments.get(&segment.file) {
                Some(indexed) if !gone.contains(&segment.file) => indexed.rows,
                _ => 0,
            };
            if from == segment.rows {
                continue;
            }
            let mut keys = Vec::with_capacity((segment.rows - from) as usize);
            let mut duplicate = None;
            let read = for_each_key(store, table, segment, from as usize, columns, |key, row| {
                if duplicate.is_some() {
                    return;
                }
                let key: Key = key.into();
                if self.keys.insert(key.clone()) {
                    keys.push(key);
                } else {
                    duplicate = Some((segment.file.clone(), row));
                }
            });
            added.push((segment.file.clone(), segment.rows, keys));
            if read.is_err() || duplicate.is_some() {
                undo(self, &added);
                read?;
                return Ok(duplicate);
            }
        }
        for file in gone {
            self.segments.remove(&file);
        }
        for (file, rows, keys) in added {
            let indexed = self.segments.entry(file).or_default();
            indexed.rows = rows;
            indexed.keys.extend(keys);
        }
        Ok(None)
    }
}

/// The keys of one segment's rows that an index holds.
#[derive(Debug, Default)]
struct IndexedSegment {
    /// How many of the segment's rows were read (its first ones).
    rows: u64,
    /// Their non-NULL keys.
    keys: Vec<Key>,
}

/// A key's columns of a table and the converter of their values to
/// row-format bytes (which compare equal exactly when the values do).
pub struct KeyColumns {
    /// The key's column positions in the table.
    pub positions: Vec<usize>,
    converter: RowConverter,
}

impl KeyColumns {
    /// The key made of `columns` (names) of a table shaped `schema`.
    pub fn new(schema: &Schema, columns: &[String]) -> Result<Self> {
        let positions = columns
            .iter()
            .map(|c| schema.index_of(c).map_err(|_| Error::corruption(format!("a key names a missing column '{c}'"))))
            .collect::<Result<Vec<usize>>>()?;
        let fields = positions.iter().map(|&i| SortField::new(schema.field(i).data_type().clone())).collect();
        Ok(Self { positions, converter: RowConverter::new(fields)? })
    }

    /// Calls `f(key, row)` for each row of `key_columns` (the key's arrays, in
    /// order) whose values are all non-NULL: NULLs are distinct from
    /// everything, each other included, so they never collide.
    pub fn for_each(&self, key_columns: &[ArrayRef], mut f: impl FnMut(&[u8], usize)) -> Result<()> {
        let rows = self.converter.convert_columns(key_columns)?;
        for row in 0..rows.num_rows() {
            if !key_columns.iter().any(|c| c.is_null(row)) {
                f(rows.row(row).as_ref(), row);
            }
        }
        Ok(())
    }
}

/// Calls `f(key, row)` for each non-NULL key of `segment` (of `table`) from row `from` on.
fn for_each_key(store: &SegmentStore, table: &TableMeta, segment: &SegmentMeta, from: usize, columns: &[String], mut f: impl FnMut(Box<[u8]>, usize)) -> Result<()> {
    let key = KeyColumns::new(&table.schema, columns)?;
    let mut offset = from;
    for batch in store.map(table, segment)?.batches_from(Some(&key.positions), from)? {
        key.for_each(batch.columns(), |value, row| f(value.into(), offset + row))?;
        offset += batch.num_rows();
    }
    Ok(())
}

/// The error for the key at `row` of `segment`, which another row already has.
fn duplicate_error(store: &SegmentStore, table: &TableMeta, name: &str, key: &str, columns: &[String], segment: &str, row: usize) -> Error {
    let shown = (|| -> Result<String> {
        let meta = table.segments.iter().find(|s| s.file == segment).ok_or_else(|| Error::internal("segment left the table"))?;
        let mut row = row;
        for batch in store.map(table, meta)?.batches(Some(&KeyColumns::new(&table.schema, columns)?.positions))? {
            if row < batch.num_rows() {
                let values = columns
                    .iter()
                    .zip(batch.columns())
                    .map(|(c, array)| Ok(format!("{c} = {}", ScalarValue::try_from_array(array, row)?)));
                return Ok(values.collect::<Result<Vec<_>>>()?.join(", "));
            }
            row -= batch.num_rows();
        }
        Err(Error::internal("row beyond the segment"))
    })()
    .unwrap_or_else(|_| "a value".to_string());
    Error::new(ErrorKind::Integrity, format!("duplicate key in table '{name}': {key} already has {shown}"))
}
