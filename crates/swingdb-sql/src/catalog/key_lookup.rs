//! Lookups by key or index: a scan whose filters pin the columns of a
//! PRIMARY KEY, UNIQUE key or plain index (`CREATE INDEX`) to constants
//! (`k = 5`, `k IN (1, 2)`, `a = 1 AND b = 'x'`), pin a prefix of them
//! (`a = 1` on `PRIMARY KEY (a, b)`), or bound the first one (`k BETWEEN 10
//! AND 20`, `c > 'm'`) finds the rows through the runs
//! (`storage::keys::runs`: each segment's values, sorted, with their rows'
//! positions; saved beside large segments, kept in memory for small ones)
//! instead of reading the segments: binary searches per segment, then only
//! those rows are taken. A segment where the lookup finds more than one
//! row in [`MOST_FOUND`] (a wide range, a common value) is read whole
//! instead, as by any scan; so is one whose key values repeat (which a
//! table whose key held never has). The rows are the scan's own: the
//! transaction's version of the table, its deleted rows left out, so every
//! visibility rule of the scan holds. DataFusion's filter stays above the
//! scan, so the rows found only have to include every matching one.
//!
//! A key's runs leave out rows with a NULL in any of its columns, so a
//! prefix or a range of a key is looked up only where the columns after it
//! are NOT NULL (a row `(1, NULL)` matches `a = 1`); an index's runs hold
//! every row (a NULL sorts first, and equals no constant). Only types whose SQL equality and
//! order are those of Arrow's row format take part (integers, DECIMAL,
//! dates, timestamps, strings); a float does not (`-0.0 = 0.0` in SQL, not
//! in bytes), nor a constant of another type than the column's (DataFusion
//! casts constants to the column's type where it can; what it cannot is
//! left to the filter), but for integers of another width that convert
//! without loss (bound parameters are Int64s).

use crate::catalog::pinned::{as_type, pinned_columns};
use crate::optimizer::sorted_range::{orders_as_sql, KeyRange};
use datafusion::arrow::array::ArrayRef;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Expr;
use std::collections::HashMap;
use std::ops::Range;
use swingdb_storage::error::Result;
use swingdb_storage::keys::columns::KeyColumns;
use swingdb_storage::keys::runs::{lookup_run, run_name, Bound, KeyRun, RunKind};
use swingdb_storage::segment::store::SegmentView;
use swingdb_storage::{SegmentMeta, SegmentStore, TableMeta};

/// Most values one lookup searches (the product of a composite key's
/// lists); past it the scan reads the segments.
const MAX_VALUES: usize = 4096;

/// A segment where a lookup that may find many rows (a prefix, a range, a
/// plain index) finds more than one row in this many is read whole: taking
/// rows copies them, reading hands over the mapped columns.
pub const MOST_FOUND: u64 = 8;

/// The runs a scan's filters select rows of, and what they select.
pub struct KeyLookup {
    /// The key as constraints name it (`PRIMARY KEY (k)`), or the index's name.
    name: String,
    /// The run's columns, in order.
    columns: Vec<String>,
    key: KeyColumns,
    kind: RunKind,
    /// The name of the runs in the store (see [`run_name`]).
    run_name: String,
    probes: Probes,
    /// Whether each probe is a whole value of a key: at most one row each.
    unique: bool,
}

/// What a lookup searches each run for.
enum Probes {
    /// Values of the run's first columns (all of them, or a prefix), as
    /// row-format bytes, sorted and distinct.
    Values(Vec<Box<[u8]>>),
    /// A range of the first column's values (row-format bytes, inclusive?).
    Range { low: Option<(Box<[u8]>, bool)>, high: Option<(Box<[u8]>, bool)> },
}

/// A key or index of a table: its name, columns and runs' kind.
struct Candidate<'a> {
    name: String,
    columns: &'a [String],
    kind: RunKind,
}

impl KeyLookup {
    /// The lookup of `table` that `filters` select the fewest rows of, if
    /// any does: a whole key's values first, then values or a prefix of an
    /// index, then a range; fewer values first.
    pub fn from_filters(table: &TableMeta, filters: &[Expr]) -> Option<Self> {
        let pinned = pinned_columns(filters);
        let keys = table.constraints.keys().map(|(name, columns)| Candidate { name, columns, kind: RunKind::Key });
        let indexes = table.constraints.indexes.iter().map(|(name, columns)| Candidate {
            name: name.clone(),
            columns,
            kind: RunKind::Index,
        });
        let mut best: Option<((u8, usize), Self)> = None;
        for candidate in keys.chain(indexes) {
            let Some(lookup) = Self::of_candidate(table, candidate, filters, &pinned) else { continue };
            let rank = match &lookup.probes {
                Probes::Values(values) => (u8::from(!lookup.unique), values.len()),
                Probes::Range { .. } => (2, 1),
            };
            if best.as_ref().is_none_or(|(b, _)| rank < *b) {
                best = Some((rank, lookup));
            }
        }
        best.map(|(_, lookup)| lookup)
    }

    /// The lookup of `candidate` if `pinned` holds its first columns (with
    /// constants of their types) or `filters` bound its first one.
    fn of_candidate(
        table: &TableMeta,
        candidate: Candidate,
        filters: &[Expr],
        pinned: &HashMap<&str, Vec<ScalarValue>>,
    ) -> Option<Self> {
        let Candidate { name, columns, kind } = candidate;
        let mut lists: Vec<Vec<ScalarValue>> = Vec::new();
        for column in columns {
            let field = table.schema.field_with_name(column).ok()?;
            let Some(values) = pinned.get(column.as_str()).filter(|_| orders_as_sql(field.data_type())) else { break };
            let Some(list) = values.iter().map(|v| as_type(v, field.data_type())).collect::<Option<Vec<_>>>() else {
                break;
            };
            lists.push(list);
        }
        let whole = lists.len() == columns.len();
        // A key's runs leave out rows with a NULL, which a prefix or a range
        // of the columns before it would match (an index's runs have them).
        let rest_not_null = |from: usize| {
            kind == RunKind::Index
                || columns[from..].iter().all(|c| table.schema.field_with_name(c).is_ok_and(|f| !f.is_nullable()))
        };
        let key = KeyColumns::new(&table.schema, columns).ok()?;
        let probes = if !lists.is_empty() && (whole || rest_not_null(lists.len())) {
            let prefix = KeyColumns::new(&table.schema, &columns[..lists.len()]).ok()?;
            Probes::Values(combinations(&prefix, &lists)?)
        } else {
            let first = table.schema.field_with_name(columns.first()?).ok()?;
            let range = KeyRange::from_filters(filters, first.name(), first.data_type())?;
            if !rest_not_null(1) {
                return None;
            }
            let column = KeyColumns::new(&table.schema, &columns[..1]).ok()?;
            let (low, high) = range.bounds();
            let encode = |bound: Option<(&ScalarValue, bool)>| match bound {
                None => Some(None),
                Some((value, inclusive)) => Some(Some((encode_one(&column, value)?, inclusive))),
            };
            Probes::Range { low: encode(low)?, high: encode(high)? }
        };
        Some(Self {
            name,
            columns: columns.to_vec(),
            run_name: run_name(table, &key, kind),
            key,
            kind,
            unique: whole && kind == RunKind::Key,
            probes,
        })
    }

    /// What EXPLAIN says of the lookup: `key lookup on PRIMARY KEY (k)`,
    /// `index lookup on i (c)`.
    pub fn describe(&self) -> String {
        match self.kind {
            RunKind::Key => format!("key lookup on {}", self.name),
            RunKind::Index => format!("index lookup on {} ({})", self.name, self.columns.join(", ")),
        }
    }

    /// The name of the plain index the lookup uses, if it is one's.
    pub fn index(&self) -> Option<&str> {
        (self.kind == RunKind::Index).then_some(self.name.as_str())
    }

    /// The run's columns, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// Whether the lookup names whole values of a key: one row at most each.
    pub fn finds_one_row_each(&self) -> bool {
        self.unique
    }

    /// The positions of the live rows of `segment` (of `table`) the lookup
    /// selects, ascending; `None` when the segment is to be read whole (it
    /// has no run, or the lookup selects too many of its rows, see
    /// [`MOST_FOUND`]).
    pub fn positions(
        &self,
        store: &SegmentStore,
        table: &TableMeta,
        segment: &SegmentMeta,
    ) -> Result<Option<Vec<u64>>> {
        let Some(run) = lookup_run(store, table, segment, &self.key, self.kind, &self.run_name)? else {
            return Ok(None);
        };
        let ranges = self.ranges(&run);
        let found: usize = ranges.iter().map(|r| r.len()).sum();
        if !self.unique && found as u64 * MOST_FOUND > segment.rows {
            return Ok(None);
        }
        let mut positions: Vec<u64> = ranges
            .into_iter()
            .flat_map(|r| r.map(|i| run.position_at(i)))
            .filter(|&p| !segment.deleted.contains(p))
            .collect();
        positions.sort_unstable();
        positions.dedup();
        Ok(Some(positions))
    }

    /// The ranges of `run`'s sorted values the probes select.
    fn ranges(&self, run: &KeyRun) -> Vec<Range<usize>> {
        match &self.probes {
            Probes::Values(values) => values
                .iter()
                .map(|value| {
                    let exactly = Bound { value, inclusive: true };
                    run.range(Some(exactly), Some(exactly))
                })
                .filter(|r| !r.is_empty())
                .collect(),
            Probes::Range { low, high } => vec![run.range(low.as_ref().map(bound), high.as_ref().map(bound))],
        }
    }

    /// The positions of the live rows of `segment` (mapped as `view`) the
    /// lookup selects, found by reading its columns: for a segment
    /// [`Self::positions`] leaves to be read whole.
    pub fn positions_in(&self, segment: &SegmentMeta, view: &SegmentView) -> Result<Vec<u64>> {
        let mut positions = Vec::new();
        let mut start = 0u64;
        for batch in view.all_batches(Some(&self.key.positions))? {
            self.key.for_each(batch.columns(), |value, row| {
                let at = start + row as u64;
                if self.selects(value) && !segment.deleted.contains(at) {
                    positions.push(at);
                }
            })?;
            start += batch.num_rows() as u64;
        }
        Ok(positions)
    }

    /// Whether the run value `value` (row-format bytes) is one the lookup selects.
    fn selects(&self, value: &[u8]) -> bool {
        match &self.probes {
            // The largest probe not above the value is the only one it can start with.
            Probes::Values(values) => {
                let at = values.partition_point(|v| v.as_ref() <= value);
                at > 0 && value.starts_with(&values[at - 1])
            }
            Probes::Range { low, high } => {
                low.as_ref().is_none_or(|l| bound(l).passes_low(value))
                    && high.as_ref().is_none_or(|h| bound(h).passes_high(value))
            }
        }
    }
}

/// Row-format bytes of every combination of `lists` (one list per column of
/// `columns`, in order), sorted and distinct; `None` past [`MAX_VALUES`] or
/// when there are none.
fn combinations(columns: &KeyColumns, lists: &[Vec<ScalarValue>]) -> Option<Vec<Box<[u8]>>> {
    let count = lists.iter().try_fold(1usize, |n, l| n.checked_mul(l.len()))?;
    if count == 0 || count > MAX_VALUES {
        return None;
    }
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(lists.len());
    let mut repeat = count;
    for list in lists {
        repeat /= list.len().max(1);
        let cycle = count / (repeat * list.len()).max(1);
        let values = (0..cycle).flat_map(|_| list.iter().flat_map(|v| std::iter::repeat_n(v.clone(), repeat)));
        arrays.push(ScalarValue::iter_to_array(values).ok()?);
    }
    let mut values: Vec<Box<[u8]>> = Vec::with_capacity(count);
    columns.for_each(&arrays, |value, _| values.push(value.into())).ok()?;
    values.sort_unstable();
    values.dedup();
    Some(values)
}

/// A range's end as a run's bound.
fn bound((value, inclusive): &(Box<[u8]>, bool)) -> Bound<'_> {
    Bound { value, inclusive: *inclusive }
}

/// Row-format bytes of `value` in the one column of `column`.
fn encode_one(column: &KeyColumns, value: &ScalarValue) -> Option<Box<[u8]>> {
    let mut out = None;
    column.for_each(&[value.to_array().ok()?], |bytes, _| out = Some(bytes.into())).ok()?;
    out
}
