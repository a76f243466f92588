//! FOREIGN KEY enforcement (RESTRICT): every row's referencing values, when
//! none is NULL, are a key of the referenced (parent) table. A write of a
//! child checks the rows it adds against the parent's key index (see
//! [`crate::keys`]); a write of a parent that removes rows (DELETE, UPDATE,
//! replacing the table) checks every child row against the parent's keys
//! after it. A change is refused whole, naming the row and the key.
//!
//! Across transactions (connections or processes), a child insert and a
//! parent delete touch different tables, so the commit check that catches
//! two writers of one table would let both commit. Each side therefore keeps
//! a copy of the other table among its own as relied on
//! ([`ForeignKeyCheck::touched`]): the commit writes nothing for it, but
//! fails with a ConflictError if the table changed since the transaction
//! began (see `storage::rebase`), and, retried, the transaction sees the
//! other's change. Two transactions that only insert children both commit.

use crate::error::{Error, ErrorKind, Result};
use crate::keys::columns::{describe_row, KeyColumns};
use crate::keys::{check_keys, KeyIndexes};
use crate::{ForeignKey, SegmentStore, TableMeta};
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::compute::cast;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// The FOREIGN KEYs of `tables` that reference table `name` (a self-reference
/// of `name` included), each with the name and table it belongs to.
pub fn referencing<'a>(
    tables: &'a BTreeMap<String, Arc<TableMeta>>,
    name: &'a str,
) -> impl Iterator<Item = (&'a String, &'a TableMeta, &'a ForeignKey)> + 'a {
    tables
        .iter()
        .flat_map(|(child, meta)| meta.constraints.foreign_keys.iter().map(move |fk| (child, meta.as_ref(), fk)))
        .filter(move |(_, _, fk)| fk.parent == name)
}

/// What a checked write must also mark as written.
#[derive(Debug, Default)]
pub struct ForeignKeyCheck {
    /// Other tables whose rows the check relied on.
    pub touched: Vec<String>,
}

/// Checks the FOREIGN KEYs a write of table `name` (from `before` to `after`)
/// could break, `tables` being the other tables as the transaction sees them.
pub fn check_foreign_keys(
    store: &SegmentStore,
    indexes: &mut KeyIndexes,
    tables: &BTreeMap<String, Arc<TableMeta>>,
    name: &str,
    before: Option<&TableMeta>,
    after: &TableMeta,
) -> Result<ForeignKeyCheck> {
    let mut check = ForeignKeyCheck::default();
    let added = after.added_rows(before);
    // Rows this write adds must find their parent row.
    for fk in &after.constraints.foreign_keys {
        let parent = if fk.parent == name { after } else { table(tables, &fk.parent)? };
        if added.is_empty() {
            continue;
        }
        for &(segment, from) in &added {
            check_rows(store, indexes, name, after, (segment, from), fk, parent)?;
        }
        if fk.parent != name {
            check.touched.push(fk.parent.clone());
        }
    }
    // Rows this write removes must not be referenced.
    if after.removes_rows_of(before) {
        for (child_name, child, fk) in referencing(tables, name).filter(|(child, _, _)| child.as_str() != name) {
            for segment in &child.segments {
                check_rows(store, indexes, child_name, child, (segment, 0), fk, after)
                    .map_err(|e| removal_error(e, child_name))?;
            }
            check.touched.push(child_name.clone());
        }
        // A self-reference: the rows kept must still find theirs (rows the
        // write added were checked above).
        let old: HashSet<&str> = before.iter().flat_map(|t| t.segments.iter().map(|s| s.file.as_str())).collect();
        for fk in after.constraints.foreign_keys.iter().filter(|fk| fk.parent == name) {
            for segment in after.segments.iter().filter(|s| old.contains(s.file.as_str())) {
                check_rows(store, indexes, name, after, (segment, 0), fk, after)?;
            }
        }
    }
    Ok(check)
}

/// `e` (a row of `child` whose parent row a write removes), with the way out.
fn removal_error(e: Error, child: &str) -> Error {
    match e.kind() {
        ErrorKind::Integrity => Error::new(
            ErrorKind::Integrity,
            format!("{} after this change; delete or change the referencing rows of '{child}' first", e.message()),
        ),
        _ => e,
    }
}

fn table<'a>(tables: &'a BTreeMap<String, Arc<TableMeta>>, name: &str) -> Result<&'a TableMeta> {
    tables.get(name).map(|t| t.as_ref()).ok_or_else(|| {
        Error::new(ErrorKind::Integrity, format!("table '{name}', which a FOREIGN KEY references, does not exist"))
    })
}

/// Checks the rows of `segment` of `child` (named `child_name`), from the
/// given row on, against the key of `parent` that `fk` references.
fn check_rows(
    store: &SegmentStore,
    indexes: &mut KeyIndexes,
    child_name: &str,
    child: &TableMeta,
    (segment, from): (&crate::SegmentMeta, usize),
    fk: &ForeignKey,
    parent: &TableMeta,
) -> Result<()> {
    let (key_name, _) =
        parent.constraints.keys().find(|(_, columns)| *columns == fk.parent_columns.as_slice()).ok_or_else(|| {
            Error::programming(format!("{} of table '{child_name}': table '{}' has no such key", fk.sql(), fk.parent))
        })?;
    check_keys(store, indexes, &fk.parent, parent)?;
    let index =
        indexes.get(&(fk.parent.clone(), key_name.clone())).ok_or_else(|| Error::internal("a key index is missing"))?;
    let parent_key = KeyColumns::new(&parent.schema, &fk.parent_columns)?;
    let child_key = KeyColumns::new(&child.schema, &fk.columns)?;
    for batch in store.map(child, segment)?.batches_from(Some(&child_key.positions), from)? {
        // The parent's types, so that equal values encode equally.
        let arrays = batch
            .columns()
            .iter()
            .zip(&parent_key.positions)
            .map(|(array, &p)| Ok(cast(array, parent.schema.field(p).data_type())?))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let mut missing = None;
        parent_key.for_each(&arrays, |key, row| {
            if missing.is_none() && !index.contains(key) {
                missing = Some(row);
            }
        })?;
        if let Some(row) = missing {
            let values = describe_row(fk.columns.iter().zip(batch.columns()), row)?;
            return Err(Error::new(
                ErrorKind::Integrity,
                format!(
                    "{} of table '{child_name}' fails for the row with {values}: table '{}' has no such ({})",
                    fk.sql(),
                    fk.parent,
                    fk.parent_columns.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
