//! PRIMARY KEY and UNIQUE enforcement. A [`KeyIndex`] holds the key values
//! of a list of segments (as Arrow row-format bytes, which compare equal
//! exactly when the values do); a write that only appends segments is checked
//! by adding the new segments' keys, so an insert costs its own rows, not the
//! table's. Anything else (an UPDATE or DELETE rewrote segments, a rollback
//! dropped some) rebuilds the index from the table's segments.
//!
//! Indexes live in memory, one per connection, key and table version, and are
//! rebuilt from the segments when missing (after opening, or in another
//! connection). Two transactions that add the same key in different
//! connections or processes both change the table, so the second to commit
//! fails with a conflict (see `storage::dir`): uniqueness holds across them.

use super::{SegmentStore, TableMeta};
use crate::error::{Error, ErrorKind, Result};
use datafusion::arrow::array::Array;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use std::collections::{HashMap, HashSet};

/// The key values of one key over a prefix of a table's segments.
#[derive(Debug)]
pub struct KeyIndex {
    /// The segment files indexed, in table order.
    covered: Vec<String>,
    keys: HashSet<Box<[u8]>>,
}

/// A connection's key indexes, by (table, key).
pub type KeyIndexes = HashMap<(String, String), KeyIndex>;

/// Checks every key of `table` (named `name`) over its segments, updating the
/// indexes; an `IntegrityError` naming the table, the key and the value that
/// occurs twice, with the index left as it was.
pub fn check_keys(store: &SegmentStore, indexes: &mut KeyIndexes, name: &str, table: &TableMeta) -> Result<()> {
    for (key, columns) in table.constraints.keys() {
        let index = indexes
            .entry((name.to_string(), key.clone()))
            .or_insert_with(|| KeyIndex { covered: Vec::new(), keys: HashSet::new() });
        let appended = index.covered.len() <= table.segments.len()
            && index.covered.iter().zip(&table.segments).all(|(file, seg)| *file == seg.file);
        if !appended {
            *index = KeyIndex { covered: Vec::new(), keys: HashSet::new() };
        }
        index.add(store, table, name, &key, columns)?;
    }
    Ok(())
}

impl KeyIndex {
    /// Adds the keys of the table's segments beyond those covered.
    fn add(&mut self, store: &SegmentStore, table: &TableMeta, name: &str, key: &str, columns: &[String]) -> Result<()> {
        let positions = columns
            .iter()
            .map(|c| table.schema.index_of(c).map_err(|_| Error::corruption(format!("{key} of table '{name}' names a missing column '{c}'"))))
            .collect::<Result<Vec<usize>>>()?;
        let fields = positions.iter().map(|&i| SortField::new(table.schema.field(i).data_type().clone())).collect();
        let converter = RowConverter::new(fields)?;
        let mut added: Vec<Box<[u8]>> = Vec::new();
        let undo = |keys: &mut HashSet<Box<[u8]>>, added: &[Box<[u8]>]| added.iter().for_each(|k| {
            keys.remove(k);
        });
        for segment in &table.segments[self.covered.len()..] {
            for batch in store.map(table, segment)?.batches(Some(&positions))? {
                let rows = converter.convert_columns(batch.columns()).inspect_err(|_| undo(&mut self.keys, &added))?;
                for row in 0..batch.num_rows() {
                    // NULLs are distinct from everything, each other included.
                    if batch.columns().iter().any(|c| c.is_null(row)) {
                        continue;
                    }
                    let value: Box<[u8]> = rows.row(row).as_ref().into();
                    if self.keys.contains(&value) {
                        undo(&mut self.keys, &added);
                        let shown = columns
                            .iter()
                            .zip(batch.columns())
                            .map(|(c, array)| {
                                let v = ScalarValue::try_from_array(array, row).map(|v| v.to_string()).unwrap_or_default();
                                format!("{c} = {v}")
                            })
                            .collect::<Vec<_>>()
                            .join(", ");
                        return Err(Error::new(
                            ErrorKind::Integrity,
                            format!("duplicate key in table '{name}': {key} already has {shown}"),
                        ));
                    }
                    self.keys.insert(value.clone());
                    added.push(value);
                }
            }
        }
        self.covered.extend(table.segments[self.covered.len()..].iter().map(|s| s.file.clone()));
        Ok(())
    }
}
