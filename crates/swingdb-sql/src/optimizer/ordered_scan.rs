//! Scans of tables whose rows are stored in the order of a column: data
//! loaded in key or time order (ids, dates, TPC-H's order keys) often is,
//! without anyone declaring it.
//!
//! A column *ascends* through a scan when it has no NULLs, each segment's
//! values ascend (checked once per mapped segment, see `storage::ascending`),
//! and each segment's smallest value is at least the previous segment's
//! largest (from the segments' statistics, which rule most columns out
//! without reading them). The scan then declares that order to DataFusion,
//! which skips sorts on it and aggregates by it streaming.
//!
//! The scan also cuts its rows into its partitions itself, each a contiguous
//! run cut where the value of its most varied ascending column changes: no
//! value of that column is then in two partitions, so a GROUP BY that
//! includes it can be finished inside each partition without hash
//! repartitioning (see `range_aggregate`).

use crate::optimizer::sorted_range::orders_as_sql;
use datafusion::arrow::array::{make_comparator, RecordBatch};
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::Schema;
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, Result, ScalarValue};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use std::cmp::Ordering;
use std::sync::Arc;
use swingdb_storage::encoding::decode_runs;
use swingdb_storage::{SegmentMeta, SegmentStore, TableMeta};

/// Positions in `projection` (table column indices) of the columns with
/// more than `few` distinct values by `statistics` (indexed by position)
/// that ascend through `segments`, in that order (see the module
/// documentation). Columns of fewer values are left undeclared: grouping by
/// them is faster with `few_groups`, which takes unordered input only.
pub fn ascending_columns(
    meta: &TableMeta,
    store: &SegmentStore,
    segments: &[&SegmentMeta],
    projection: &[usize],
    statistics: &[ColumnStatistics],
    few: usize,
) -> Result<Vec<usize>> {
    let segments: Vec<&SegmentMeta> = segments.iter().copied().filter(|s| s.rows > 0).collect();
    let width = meta.schema.fields().len();
    let mut ascending = Vec::new();
    'columns: for (position, &index) in projection.iter().enumerate() {
        if index >= width || projection[..position].contains(&index) || distinct(statistics, position) <= few {
            continue;
        }
        let data_type = meta.schema.field(index).data_type();
        if !orders_as_sql(data_type) {
            continue;
        }
        let parse = |text: Option<String>| text.and_then(|t| ScalarValue::try_from_string(t, data_type).ok());
        let mut previous_max: Option<ScalarValue> = None;
        for segment in &segments {
            let Some(stats) = meta.column_stats(segment, index) else { continue 'columns };
            let (Some(min), Some(max)) = (parse(stats.min), parse(stats.max)) else { continue 'columns };
            let after_previous = previous_max
                .as_ref()
                .is_none_or(|p| matches!(p.partial_cmp(&min), Some(Ordering::Less | Ordering::Equal)));
            if stats.nulls > 0 || !after_previous {
                continue 'columns;
            }
            previous_max = Some(max);
        }
        for segment in &segments {
            if !store.map(meta, segment)?.ascends(index)? {
                continue 'columns;
            }
        }
        ascending.push(position);
    }
    Ok(ascending)
}

/// The orderings of a scan with `schema` whose columns at `positions` ascend
/// without NULLs: each column ascending, with NULLs first and last alike
/// (there are none, and a query may ask for either).
pub fn orderings(schema: &Schema, positions: &[usize]) -> Vec<LexOrdering> {
    let mut orderings = Vec::new();
    for &position in positions {
        let column = Arc::new(Column::new(schema.field(position).name(), position));
        for nulls_first in [false, true] {
            let sort = PhysicalSortExpr::new(column.clone(), SortOptions { descending: false, nulls_first });
            orderings.extend(LexOrdering::new([sort]));
        }
    }
    orderings
}

/// Of the ascending columns at `positions`, the one to cut partitions by:
/// the one with the most distinct values by `statistics` (indexed by
/// position), if it has at least `least` of them (fewer would leave
/// partitions of very unequal sizes).
pub fn range_key(positions: &[usize], statistics: &[ColumnStatistics], least: usize) -> Option<usize> {
    positions.iter().copied().filter(|&p| distinct(statistics, p) >= least).max_by_key(|&p| distinct(statistics, p))
}

/// The distinct values of the column at `position` by `statistics` (0 when unknown).
fn distinct(statistics: &[ColumnStatistics], position: usize) -> usize {
    match statistics.get(position).map(|s| s.distinct_count) {
        Some(Precision::Exact(n) | Precision::Inexact(n)) => n,
        _ => 0,
    }
}

/// `batches` (in order, column `key` ascending through them) cut into
/// `parts` contiguous runs of about equal rows, each cut where `key`'s value
/// changes, so that no value is in two runs. Runs may be empty (when one
/// value fills more than a run). Zero-copy: the runs hold slices of `batches`.
pub fn split_at_key_changes(batches: &[RecordBatch], key: usize, parts: usize) -> Result<Vec<Vec<RecordBatch>>> {
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    // The rows before each cut, in (batch, row) positions.
    let mut cuts = Vec::new();
    let mut last = (0, 0);
    for part in 1..parts {
        let target = total * part / parts;
        let at = next_change(batches, key, position(batches, target.max(1)), last)?;
        cuts.push(at);
        last = at;
    }
    cuts.push((batches.len(), 0));
    let mut runs = Vec::with_capacity(parts);
    let mut from = (0, 0);
    for to in cuts {
        let mut run = Vec::new();
        for (index, batch) in batches.iter().enumerate().take((to.0 + 1).min(batches.len())).skip(from.0) {
            let start = if index == from.0 { from.1 } else { 0 };
            let end = if index == to.0 { to.1 } else { batch.num_rows() };
            if end > start {
                run.push(batch.slice(start, end - start));
            }
        }
        runs.push(run);
        from = to;
    }
    Ok(runs)
}

/// The (batch, row) of global row `row` (the end of the last batch for the row count).
pub(super) fn position(batches: &[RecordBatch], mut row: usize) -> (usize, usize) {
    for (index, batch) in batches.iter().enumerate() {
        if row < batch.num_rows() {
            return (index, row);
        }
        row -= batch.num_rows();
    }
    (batches.len(), 0)
}

/// The first position at or after `at` whose `key` differs from the row
/// before `at` (or the end), never before `not_before`.
fn next_change(
    batches: &[RecordBatch],
    key: usize,
    at: (usize, usize),
    not_before: (usize, usize),
) -> Result<(usize, usize)> {
    let at = at.max(not_before);
    if at.0 >= batches.len() {
        return Ok((batches.len(), 0));
    }
    // The row before `at`: the value the cut must not split.
    let before = match at {
        (0, 0) => return Ok(at),
        (b, 0) => (b - 1, batches[b - 1].num_rows() - 1),
        (b, r) => (b, r - 1),
    };
    // A key stored in runs is compared on its values, not on its runs.
    let value = &decode_runs(batches[before.0].column(key))?;
    let options = SortOptions { descending: false, nulls_first: true };
    for (index, batch) in batches.iter().enumerate().skip(at.0) {
        let column = &decode_runs(batch.column(key))?;
        let compare = make_comparator(column, value, options)?;
        let start = if index == at.0 { at.1 } else { 0 };
        // Ascending: the rows equal to `value` come first; find the first greater.
        let (mut low, mut high) = (start, batch.num_rows());
        while low < high {
            let middle = low + (high - low) / 2;
            match compare(middle, before.1) {
                Ordering::Greater => high = middle,
                _ => low = middle + 1,
            }
        }
        if low < batch.num_rows() {
            return Ok((index, low));
        }
    }
    Ok((batches.len(), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, Int64Array};

    fn batch(values: &[i64]) -> RecordBatch {
        RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(values.to_vec())) as _)]).unwrap()
    }

    fn values(run: &[RecordBatch]) -> Vec<i64> {
        run.iter().flat_map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec()).collect()
    }

    #[test]
    fn runs_are_cut_where_the_key_changes_and_hold_every_row_once() {
        // A value running across batch boundaries, and one filling a whole batch.
        let batches = vec![batch(&[1, 1, 2, 2, 2]), batch(&[2, 3, 3]), batch(&[3, 3, 3]), batch(&[4, 5, 5, 6])];
        for parts in 1..=6 {
            let runs = split_at_key_changes(&batches, 0, parts).unwrap();
            assert_eq!(runs.len(), parts);
            let all: Vec<i64> = runs.iter().flat_map(|r| values(r)).collect();
            assert_eq!(all, vec![1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 5, 5, 6], "{parts} parts");
            for pair in runs.windows(2) {
                let (a, b) = (values(&pair[0]), values(&pair[1]));
                if let (Some(last), Some(first)) = (a.last(), b.first()) {
                    assert!(last < first, "{parts} parts: {a:?} then {b:?}");
                }
            }
        }
        let halves = split_at_key_changes(&batches, 0, 2).unwrap();
        assert_eq!((values(&halves[0]), values(&halves[1])), (vec![1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3], vec![4, 5, 5, 6]));
        // Zero-copy: a run's first slice is a view of the original buffer.
        let start = batches[0].column(0).to_data().buffers()[0].as_ptr();
        assert_eq!(halves[0][0].column(0).to_data().buffers()[0].as_ptr(), start);
    }

    #[test]
    fn one_value_everywhere_leaves_the_other_runs_empty() {
        let batches = vec![batch(&[7, 7, 7]), batch(&[7, 7])];
        let runs = split_at_key_changes(&batches, 0, 3).unwrap();
        assert_eq!(runs.iter().map(|r| values(r).len()).collect::<Vec<_>>(), vec![5, 0, 0]);
        assert!(split_at_key_changes(&[], 0, 2).unwrap().iter().all(|r| r.is_empty()));
    }

    #[test]
    fn the_most_varied_ascending_column_is_the_range_key() {
        let stat = |n: Option<usize>| ColumnStatistics {
            distinct_count: n.map_or(Precision::Absent, Precision::Inexact),
            ..Default::default()
        };
        let statistics = vec![stat(Some(10)), stat(Some(5000)), stat(None), stat(Some(4000))];
        assert_eq!(range_key(&[0, 1, 2, 3], &statistics, 100), Some(1));
        assert_eq!(range_key(&[0, 2, 3], &statistics, 100), Some(3));
        assert_eq!(range_key(&[0, 2], &statistics, 100), None, "too few values to cut evenly");
    }
}
