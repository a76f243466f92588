//! Lookups by key: a scan whose filters pin every column of a PRIMARY KEY or
//! UNIQUE key to constants (`k = 5`, `k IN (1, 2)`, `a = 1 AND b = 'x'`)
//! finds the rows through the key's runs (`storage::keys::runs`: each
//! segment's keys, sorted, with their rows' positions; saved beside large
//! segments, kept in memory for small ones) instead of reading the
//! segments: a binary search per segment and value, then only those rows
//! are taken. A segment whose keys repeat (which a table whose key held
//! never has) has no run and is read whole, as by any scan. The rows are the scan's own: the
//! transaction's version of the table, its deleted rows left out, so every
//! visibility rule of the scan holds. DataFusion's filter stays above the
//! scan, so the rows found only have to include every matching one.
//!
//! Only types whose SQL equality is byte equality of Arrow's row format take
//! part (integers, DECIMAL, dates, timestamps, strings); a float key does not
//! (`-0.0 = 0.0` in SQL, not in bytes), nor a constant of another type than
//! the column's (DataFusion casts constants to the column's type where it
//! can; what it cannot is left to the filter), but for integers of another
//! width that convert without loss (bound parameters are Int64s).

use crate::optimizer::sorted_range::orders_as_sql;
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::utils::{split_binary, split_conjunction};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::error::Result;
use swingdb_storage::keys::columns::KeyColumns;
use swingdb_storage::keys::runs::{lookup_run, run_name, KeyRun};
use swingdb_storage::segment::store::SegmentView;
use swingdb_storage::{SegmentMeta, SegmentStore, TableMeta};

/// Most key values one lookup searches (the product of a composite key's
/// lists); past it the scan reads the segments.
const MAX_VALUES: usize = 4096;

/// The key values a scan's filters pin one key to.
pub struct KeyLookup {
    /// The key as its constraint is written (`PRIMARY KEY (k)`), for EXPLAIN.
    pub name: String,
    /// The key's columns, in key order.
    columns: Vec<String>,
    key: KeyColumns,
    /// The name of the key's runs in the store (see [`run_name`]).
    run_name: String,
    /// The values, as row-format bytes of the key's columns.
    values: Vec<Box<[u8]>>,
}

impl KeyLookup {
    /// The key of `table` that `filters` pin to the fewest values, if any does.
    pub fn from_filters(table: &TableMeta, filters: &[Expr]) -> Option<Self> {
        let pinned = pinned_columns(filters);
        if pinned.is_empty() {
            return None;
        }
        let mut best: Option<Self> = None;
        for (name, columns) in table.constraints.keys() {
            let Some(lookup) = Self::of_key(table, name, columns, &pinned) else { continue };
            if best.as_ref().is_none_or(|b| lookup.values.len() < b.values.len()) {
                best = Some(lookup);
            }
        }
        best
    }

    /// The lookup of key `columns` (named `name`) if `pinned` holds each of
    /// its columns, with constants of its type.
    fn of_key(
        table: &TableMeta,
        name: String,
        columns: &[String],
        pinned: &HashMap<&str, Vec<ScalarValue>>,
    ) -> Option<Self> {
        let mut lists: Vec<Vec<ScalarValue>> = Vec::with_capacity(columns.len());
        for column in columns {
            let field = table.schema.field_with_name(column).ok()?;
            if !orders_as_sql(field.data_type()) {
                return None;
            }
            let values = pinned.get(column.as_str())?;
            lists.push(values.iter().map(|v| as_type(v, field.data_type())).collect::<Option<Vec<_>>>()?);
        }
        let combinations = lists.iter().try_fold(1usize, |n, l| n.checked_mul(l.len()))?;
        if combinations == 0 || combinations > MAX_VALUES {
            return None;
        }
        // Every combination of the columns' values, column by column.
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(lists.len());
        let mut repeat = combinations;
        for list in &lists {
            repeat /= list.len().max(1);
            let cycle = combinations / (repeat * list.len()).max(1);
            let values = (0..cycle).flat_map(|_| list.iter().flat_map(|v| std::iter::repeat_n(v.clone(), repeat)));
            arrays.push(ScalarValue::iter_to_array(values).ok()?);
        }
        let key = KeyColumns::new(&table.schema, columns).ok()?;
        let mut values: Vec<Box<[u8]>> = Vec::with_capacity(combinations);
        key.for_each(&arrays, |value, _| values.push(value.into())).ok()?;
        values.sort_unstable();
        values.dedup();
        Some(Self { name, columns: columns.to_vec(), run_name: run_name(table, &key), key, values })
    }

    /// The positions of the live rows of `segment` (of `table`) holding one
    /// of the values, ascending; `None` when the segment has no run (its
    /// keys repeat) and is to be read whole.
    pub fn positions(
        &self,
        store: &SegmentStore,
        table: &TableMeta,
        segment: &SegmentMeta,
    ) -> Result<Option<Vec<u64>>> {
        let Some(run) = lookup_run(store, table, segment, &self.key, &self.run_name)? else { return Ok(None) };
        Ok(Some(self.found_in(&run, segment)))
    }

    /// The key's columns, in key order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The positions of the live rows of `segment` (mapped as `view`)
    /// holding one of the values, found by reading its key columns: for a
    /// segment without a run (see [`Self::positions`]).
    pub fn positions_in(&self, segment: &SegmentMeta, view: &SegmentView) -> Result<Vec<u64>> {
        let mut positions = Vec::new();
        let mut start = 0u64;
        for batch in view.all_batches(Some(&self.key.positions))? {
            self.key.for_each(batch.columns(), |value, row| {
                let at = start + row as u64;
                if self.values.binary_search_by(|v| v.as_ref().cmp(value)).is_ok() && !segment.deleted.contains(at) {
                    positions.push(at);
                }
            })?;
            start += batch.num_rows() as u64;
        }
        Ok(positions)
    }

    fn found_in(&self, run: &Arc<KeyRun>, segment: &SegmentMeta) -> Vec<u64> {
        let mut positions: Vec<u64> =
            self.values.iter().filter_map(|v| run.position(v)).filter(|&p| !segment.deleted.contains(p)).collect();
        positions.sort_unstable();
        positions
    }
}

/// `value` as a constant of `data_type`: itself if it is of that type; an
/// integer of another integer type (a bound parameter is an Int64 whatever
/// the column) converted if the conversion loses nothing, so that SQL's
/// comparison of the two (as the wider type) and equality in `data_type`
/// agree; else `None`, and the filter alone decides.
fn as_type(value: &ScalarValue, data_type: &DataType) -> Option<ScalarValue> {
    let from = value.data_type();
    if from == *data_type {
        return Some(value.clone());
    }
    if !(from.is_integer() && data_type.is_integer()) {
        return None;
    }
    // The common case, a bound parameter (Int64) for an INTEGER column, without arrays.
    if let (ScalarValue::Int64(Some(v)), DataType::Int32) = (value, data_type) {
        return i32::try_from(*v).ok().map(|v| ScalarValue::Int32(Some(v)));
    }
    let converted = value.cast_to(data_type).ok()?;
    (converted.cast_to(&from).ok()? == *value).then_some(converted)
}

/// `(column, constant)` of `c = v` or `v = c`.
fn equality(expr: &Expr) -> Option<(&str, &ScalarValue)> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::Eq, right }) => match (left.as_ref(), right.as_ref()) {
            (Expr::Column(c), Expr::Literal(v, _)) | (Expr::Literal(v, _), Expr::Column(c)) => {
                Some((c.name.as_str(), v))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The constants each column is pinned to by a conjunct of `filters`
/// (`c = v`, `v = c`, `c IN (v, ...)`, `c = v1 OR c = v2`), NULLs left out (they match nothing).
/// A column pinned twice keeps its first list: the rows it finds hold every
/// row both conjuncts keep, and the filter above drops the others.
fn pinned_columns(filters: &[Expr]) -> HashMap<&str, Vec<ScalarValue>> {
    let mut pinned: HashMap<&str, Vec<ScalarValue>> = HashMap::new();
    for conjunct in filters.iter().flat_map(|f| split_conjunction(f)) {
        let found = match conjunct {
            Expr::BinaryExpr(BinaryExpr { op: Operator::Eq | Operator::Or, .. }) => {
                // `c = v`, or `c = v1 OR c = v2 ...` (DataFusion's form of a short IN list).
                let mut column: Option<&str> = None;
                let mut values = Vec::new();
                let all = split_binary(conjunct, Operator::Or).into_iter().all(|e| match equality(e) {
                    Some((c, v)) if column.is_none_or(|seen| seen == c) => {
                        column = Some(c);
                        values.push(v.clone());
                        true
                    }
                    _ => false,
                });
                column.filter(|_| all).map(|c| (c, values))
            }
            Expr::InList(list) if !list.negated => match list.expr.as_ref() {
                Expr::Column(c) => list
                    .list
                    .iter()
                    .map(|e| match e {
                        Expr::Literal(v, _) => Some(v.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .map(|values| (c.name.as_str(), values)),
                _ => None,
            },
            _ => None,
        };
        if let Some((column, values)) = found {
            pinned.entry(column).or_insert_with(|| values.into_iter().filter(|v| !v.is_null()).collect());
        }
    }
    pinned
}
