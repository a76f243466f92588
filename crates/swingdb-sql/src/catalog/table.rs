//! `SegmentTable`: the DataFusion `TableProvider` over a stored table. A scan
//! prunes segments by their min/max statistics, maps the survivors, narrows
//! the sorted ones of a clustered table to a range filter's rows, and hands
//! DataFusion zero-copy slices of the mapped batches.

use crate::catalog::key_lookup::KeyLookup;
use crate::catalog::segment_stats::SegmentStats;
use crate::catalog::source::SegmentSource;
use crate::catalog::taken_rows::rows_at;
use crate::operators::few_groups::FEW_GROUPS;
use crate::optimizer::ordered_scan;
use crate::optimizer::rules::is_enabled;
use crate::optimizer::sorted_range::KeyRange;
use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, ColumnStatistics, Constraint, Constraints, DFSchema, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::Result as DFResult;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_optimizer::pruning::PruningPredicateBuilder;
use datafusion::physical_plan::ExecutionPlan;
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::encoding::{decode_batch, with_stored_types};
use swingdb_storage::error::Result;
use swingdb_storage::segment::scan_checks::ScanChecks;
use swingdb_storage::segment::store::{live_rows, nullable, SegmentView};
use swingdb_storage::{DistinctSketch, SegmentMeta, SegmentStore, TableMeta};

/// A stored table as seen by one snapshot.
#[derive(Debug)]
pub struct SegmentTable {
    meta: Arc<TableMeta>,
    store: Arc<SegmentStore>,
    /// With `Some(name)`, scans add a UInt64 column of that name holding each
    /// row's id (see [`SegmentTable::split_row_id`]); DML uses it to find rows.
    row_id: Option<SchemaRef>,
    /// DEFAULT expressions by column, which INSERT fills in for columns it omits.
    defaults: HashMap<String, Expr>,
    /// The keys, for the planner's functional dependencies (`SELECT *` with
    /// `GROUP BY` the primary key).
    keys: Constraints,
}

/// Bits of a row id that hold the row's position inside its segment.
const ROW_BITS: u32 = 40;

impl SegmentTable {
    /// The table `meta`, read through `store`.
    pub fn new(meta: Arc<TableMeta>, store: Arc<SegmentStore>) -> Self {
        let position = |c: &String| meta.schema.index_of(c).ok();
        let keys = meta
            .constraints
            .primary_key
            .iter()
            .map(|k| Constraint::PrimaryKey(k.iter().filter_map(position).collect()));
        let unique = meta.constraints.unique.iter().chain(meta.constraints.unique_indexes.values());
        let unique = unique.map(|k| Constraint::Unique(k.iter().filter_map(position).collect()));
        let keys = Constraints::new_unverified(keys.chain(unique).collect());
        Self { meta, store, row_id: None, defaults: HashMap::new(), keys }
    }

    /// The same table with the DEFAULT expressions `defaults` (by column).
    pub fn with_defaults(mut self, defaults: HashMap<String, Expr>) -> Self {
        self.defaults = defaults;
        self
    }

    /// The same table with an extra row-id column called `name`.
    pub fn with_row_ids(mut self, name: &str) -> Self {
        let mut fields = self.meta.schema.fields().to_vec();
        fields.push(Arc::new(Field::new(name, DataType::UInt64, false)));
        self.row_id = Some(Arc::new(Schema::new(fields)));
        self
    }

    /// (segment index, row inside the segment) of a row id.
    pub fn split_row_id(id: u64) -> (usize, usize) {
        ((id >> ROW_BITS) as usize, (id & ((1 << ROW_BITS) - 1)) as usize)
    }

    /// Per segment, whether it may hold rows matching `filters` (by its statistics).
    fn kept_segments(&self, state: Option<&dyn Session>, filters: &[Expr]) -> DFResult<Vec<bool>> {
        match (state, conjunction(filters.iter().cloned())) {
            (Some(state), Some(predicate)) => self.prune(state, predicate),
            _ => Ok(vec![true; self.meta.segments.len()]),
        }
    }

    /// The batches of the segments `keep` marks, in segment order, with the
    /// columns of `projection` (indices into [`TableProvider::schema`], all
    /// when `None`): zero-copy views into the mapped files, whose columns
    /// the returned checks check as the scan reaches them (see
    /// [`ScanChecks`]). Encoded columns come as stored, each batch with its
    /// own schema: the scan decodes them a slice at a time (see
    /// [`SegmentSource`]).
    /// With `lookup`, only the rows it finds are taken from each segment
    /// that has the key's run (see `key_lookup`).
    fn batches_of(
        &self,
        keep: &[bool],
        filters: &[Expr],
        projection: Option<&[usize]>,
        lookup: Option<&KeyLookup>,
    ) -> DFResult<(Vec<RecordBatch>, ScanChecks)> {
        let width = self.meta.schema.fields().len();
        let all: Vec<usize> = (0..self.schema().fields().len()).collect();
        let projection = projection.unwrap_or(&all);
        let schema = self.projected_schema(Some(projection))?;
        let stored = stored_columns(projection, width);
        let key = self.key_range(filters);
        let views = self
            .meta
            .segments
            .iter()
            .zip(keep)
            .enumerate()
            .filter(|(_, (_, k))| **k)
            .map(|(index, (seg, _))| Ok((index, self.store.map(&self.meta, seg)?)))
            .collect::<swingdb_storage::error::Result<Vec<(usize, SegmentView)>>>()?;
        let mut checks = ScanChecks::default();
        let mut out = Vec::new();
        for (index, view) in views {
            let segment = &self.meta.segments[index];
            let found = match lookup {
                Some(lookup) => lookup.positions(&self.store, &self.meta, segment)?,
                None => None,
            };
            if let Some(positions) = found {
                // Copies of a few rows, which the scan's checks (by address in
                // the mapping) would not recognize: the columns are checked now
                // (once per handle).
                let batches = view.stored_batches(Some(&stored))?;
                out.extend(rows_at(batches, &positions, (index as u64) << ROW_BITS, projection, &stored, &schema)?);
                continue;
            }
            let mut ranges = match &key {
                Some((column, range)) if view.ascends(*column)? => {
                    let keys = view.all_batches(Some(&[*column]))?;
                    Some(keys.into_iter().map(|b| range.rows_within(b.column(0))).collect::<Vec<_>>().into_iter())
                }
                _ => None,
            };
            // Positions count the segment's deleted rows too (row ids name
            // rows by position); those rows are dropped last.
            let mut row = 0u64;
            for batch in view.stored_batches_checked_later(&stored, &mut checks)? {
                let mut position = row;
                row += batch.num_rows() as u64;
                let batch = match ranges.as_mut().and_then(|r| r.next()) {
                    Some(rows) if rows.is_empty() => continue,
                    Some(rows) => {
                        position += rows.start as u64;
                        batch.slice(rows.start, rows.len())
                    }
                    None => batch,
                };
                let base = ((index as u64) << ROW_BITS) + position;
                let columns: Vec<ArrayRef> = projection
                    .iter()
                    .map(|&i| match stored.iter().position(|&s| s == i) {
                        Some(at) => batch.column(at).clone(),
                        None => Arc::new((base..base + batch.num_rows() as u64).collect::<UInt64Array>()) as ArrayRef,
                    })
                    .collect();
                let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
                let schema = with_stored_types(&schema, &columns);
                if view.deleted().is_empty() {
                    out.push(RecordBatch::try_new_with_options(schema, columns, &options)?);
                    continue;
                }
                let all = RecordBatch::try_new_with_options(nullable(&schema), columns, &options)?;
                out.push(live_rows(&all, view.deleted(), position, &schema)?);
            }
        }
        checks.read_first();
        Ok((out, checks))
    }

    /// The rows `lookup` finds (in segment order, then position), with the
    /// table columns `columns`, decoded to the table's types: a point read's
    /// answer, without a scan (see `statements::point_read`).
    pub fn rows_found(&self, lookup: &KeyLookup, columns: &[usize]) -> Result<Vec<RecordBatch>> {
        let schema = self.projected_schema(Some(columns))?;
        let stored = stored_columns(columns, self.meta.schema.fields().len());
        let mut out = Vec::new();
        for (index, segment) in self.meta.segments.iter().enumerate() {
            let (view, positions) = match lookup.positions(&self.store, &self.meta, segment)? {
                Some(positions) if positions.is_empty() => continue,
                Some(positions) => (self.store.map(&self.meta, segment)?, positions),
                None => {
                    let view = self.store.map(&self.meta, segment)?;
                    let positions = lookup.positions_in(segment, &view)?;
                    (view, positions)
                }
            };
            if positions.is_empty() {
                continue;
            }
            let batches = view.stored_batches(Some(&stored))?;
            for batch in rows_at(batches, &positions, (index as u64) << ROW_BITS, columns, &stored, &schema)? {
                out.push(decode_batch(&batch, &schema)?);
            }
        }
        Ok(out)
    }

    /// The first `CLUSTER BY` column (its index) and the range `filters` put
    /// on it, if they do: each segment whose key ascends is read only where
    /// the range can match (see `sorted_range`).
    fn key_range(&self, filters: &[Expr]) -> Option<(usize, KeyRange)> {
        let key = self.meta.constraints.cluster_by.first()?;
        let index = self.meta.schema.index_of(key).ok()?;
        Some((index, KeyRange::from_filters(filters, key, self.meta.schema.field(index).data_type())?))
    }

    /// What the segments' statistics say about the columns of `projection`
    /// (indices into [`TableProvider::schema`]), for DataFusion's estimates of
    /// join and GROUP BY sizes: bounds, NULL counts and distinct counts, all
    /// inexact (a scan may skip segments, and deleted rows leave bounds wide).
    /// A column some segment has no statistic for gets none.
    fn column_statistics(&self, projection: &[usize]) -> Vec<ColumnStatistics> {
        projection.iter().map(|&index| self.column_statistic(index).unwrap_or_default()).collect()
    }

    fn column_statistic(&self, index: usize) -> Option<ColumnStatistics> {
        let data_type = self.meta.schema.fields().get(index)?.data_type();
        let (mut nulls, mut min, mut max, mut distinct) =
            (0u64, None::<ScalarValue>, None::<ScalarValue>, None::<DistinctSketch>);
        let (mut bounded, mut sketched) = (true, true);
        let fill = self.meta.fill_sketch(index);
        for segment in &self.meta.segments {
            let mut stats = self.meta.column_stats(segment, index)?;
            if self.meta.segment_column(segment, index).is_none() {
                stats.distinct = fill.clone();
            }
            nulls += stats.nulls;
            if stats.nulls >= segment.rows {
                continue;
            }
            let parse = |text: &Option<String>| {
                text.as_ref().and_then(|t| ScalarValue::try_from_string(t.clone(), data_type).ok())
            };
            match (parse(&stats.min), parse(&stats.max)) {
                (Some(low), Some(high)) if bounded => {
                    min = Some(match min {
                        Some(m) if m.partial_cmp(&low).is_some_and(|o| o.is_le()) => m,
                        _ => low,
                    });
                    max = Some(match max {
                        Some(m) if m.partial_cmp(&high).is_some_and(|o| o.is_ge()) => m,
                        _ => high,
                    });
                }
                _ => bounded = false,
            }
            match (&stats.distinct, sketched) {
                (Some(sketch), true) => distinct = Some(distinct.map_or_else(|| sketch.clone(), |d| d.merged(sketch))),
                _ => sketched = false,
            }
        }
        let inexact = |value: Option<ScalarValue>, known: bool| match value {
            Some(v) if known => Precision::Inexact(v),
            _ => Precision::Absent,
        };
        let mut statistic = ColumnStatistics::new_unknown();
        statistic.null_count = Precision::Inexact(nulls as usize);
        statistic.min_value = inexact(min, bounded);
        statistic.max_value = inexact(max, bounded);
        statistic.distinct_count = match distinct {
            Some(sketch) if sketched => Precision::Inexact(sketch.estimate() as usize),
            // Every row NULL.
            None if sketched => Precision::Inexact(0),
            _ => Precision::Absent,
        };
        Some(statistic)
    }

    /// The schema of scans with `projection` (all columns when `None`).
    fn projected_schema(&self, projection: Option<&[usize]>) -> DFResult<SchemaRef> {
        Ok(match projection {
            Some(p) => Arc::new(self.schema().project(p)?),
            None => self.schema(),
        })
    }

    /// Which segments may hold rows matching `predicate`. Pruning is only an
    /// optimization: whatever it cannot reason about keeps every segment.
    fn prune(&self, state: &dyn Session, predicate: Expr) -> DFResult<Vec<bool>> {
        let all = vec![true; self.meta.segments.len()];
        let Ok(predicate) = predicate
            .transform(|e| match e {
                Expr::Column(c) if c.relation.is_some() => {
                    Ok(Transformed::yes(Expr::Column(Column::new_unqualified(c.name))))
                }
                other => Ok(Transformed::no(other)),
            })
            .map(|t| t.data)
        else {
            return Ok(all);
        };
        let df_schema = DFSchema::try_from(self.meta.schema.as_ref().clone())?;
        let Ok(physical) = state.create_physical_expr(predicate, &df_schema) else { return Ok(all) };
        match PruningPredicateBuilder::new().with_file_schema(self.meta.schema.clone()).build(physical) {
            Some(p) => Ok(p.prune(&SegmentStats { meta: &self.meta }).unwrap_or(all)),
            None => Ok(all),
        }
    }
}

/// The stored columns (below `width`: not the row ids) that the output
/// columns `columns` read, each once, in order of first use.
fn stored_columns(columns: &[usize], width: usize) -> Vec<usize> {
    let mut stored: Vec<usize> = Vec::new();
    for &i in columns.iter().filter(|&&i| i < width) {
        if !stored.contains(&i) {
            stored.push(i);
        }
    }
    stored
}

/// Largest slice a scan hands DataFusion, so operators never see huge batches.
const MAX_SLICE_ROWS: usize = 1 << 17;

/// Distinct values per partition an ascending column needs to cut the
/// partitions by it: with fewer, a cut moved to the next change of value can
/// leave partitions of very unequal sizes.
const MIN_RANGE_KEY_VALUES: usize = 1000;

/// Cuts batches into zero-copy slices of at most `size` rows (a multiple of
/// `batch_size`), so that DataFusion can spread them over its partitions.
///
/// DataFusion's scans cut every slice into pieces of `batch_size` rows and a
/// remainder, and operators that coalesce their output (a filter) pass pieces
/// of more than half a batch through untouched but copy smaller ones. So a
/// batch whose rows leave a remainder of at most half a batch ends instead in
/// two (three, for a remainder of one row) slices of over half a batch each,
/// made of its last rows: a filter that keeps every row then copies nothing,
/// and its result reaches numpy as one array (lineitem SF1, 4 columns: 23-33 ms
/// -> 1 ms; a tail of 4,671 rows copied by the filter made numpy join, that is
/// copy, every column).
pub fn slice_batches(batches: Vec<RecordBatch>, size: usize, batch_size: usize) -> Vec<RecordBatch> {
    let batch_size = batch_size.max(1);
    let size = (size / batch_size).max(1) * batch_size;
    let mut out = Vec::new();
    for batch in batches {
        let rows = batch.num_rows();
        let tail = short_tail(rows, batch_size);
        let body = rows - tail.map_or(0, |(rows, _)| rows);
        if tail.is_none() && rows <= size {
            out.push(batch);
            continue;
        }
        let mut offset = 0;
        while offset < body {
            let len = size.min(body - offset);
            out.push(batch.slice(offset, len));
            offset += len;
        }
        if let Some((tail_rows, pieces)) = tail {
            for i in 0..pieces {
                let len = tail_rows / pieces + usize::from(i < tail_rows % pieces);
                out.push(batch.slice(offset, len));
                offset += len;
            }
        }
    }
    out
}

/// For a batch of `rows` whose remainder after whole batches is at most half
/// a batch: how many of its last rows to cut into how many equal slices, each
/// over half a batch and at most a whole one (see [`slice_batches`]).
fn short_tail(rows: usize, batch_size: usize) -> Option<(usize, usize)> {
    let remainder = rows % batch_size;
    if rows <= batch_size || remainder == 0 || remainder > batch_size / 2 {
        return None;
    }
    // Two slices of (batch + remainder) rows are over half a batch each unless
    // the remainder is one row of an even batch size: then three of 2 batches + 1.
    if remainder == 1 && batch_size.is_multiple_of(2) && rows > 2 * batch_size {
        return Some((2 * batch_size + 1, 3));
    }
    Some((batch_size + remainder, 2))
}

#[async_trait]
impl TableProvider for SegmentTable {
    fn schema(&self) -> SchemaRef {
        self.row_id.clone().unwrap_or_else(|| self.meta.schema.clone())
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.defaults.get(column)
    }

    fn constraints(&self) -> Option<&Constraints> {
        Some(&self.keys)
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> DFResult<Vec<TableProviderFilterPushDown>> {
        // Statistics only skip whole segments: DataFusion still filters the rows.
        // A condition holding a subquery stays above the scan, where the
        // subquery is planned (a scan has no input to answer it from).
        Ok(filters
            .iter()
            .map(|f| {
                match f.exists(|e| {
                    Ok(matches!(
                        e,
                        Expr::ScalarSubquery(_) | Expr::InSubquery(_) | Expr::Exists(_) | Expr::SetComparison(_)
                    ))
                }) {
                    Ok(false) => TableProviderFilterPushDown::Inexact,
                    _ => TableProviderFilterPushDown::Unsupported,
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        let all: Vec<usize> = (0..self.schema().fields().len()).collect();
        let projection = projection.map(|p| p.as_slice());
        let keep = self.kept_segments(Some(state), filters)?;
        let lookup = match is_enabled(state.config_options(), "key_lookup") {
            true => KeyLookup::from_filters(&self.meta, filters),
            false => None,
        };
        let (batches, checks) = self.batches_of(&keep, filters, projection, lookup.as_ref())?;
        let columns = self.column_statistics(projection.unwrap_or(&all));
        let schema = self.projected_schema(projection)?;
        // Enough slices for every partition to get several (DataFusion spreads
        // them), but no smaller than the configured batch size: per-batch
        // overhead then stays small for large tables, and plain reads hand over
        // few, large arrays.
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let config = state.config();
        let partitions = config.target_partitions().max(1);
        let batch_size = config.batch_size();
        let per_slice = (rows / (4 * partitions)).clamp(batch_size, MAX_SLICE_ROWS.max(batch_size));
        // Columns stored in ascending order are declared so; the most varied
        // of them cuts the partitions (see `ordered_scan`). A LIMIT keeps one
        // partition, so that it returns the first rows.
        let kept: Vec<&SegmentMeta> =
            self.meta.segments.iter().zip(&keep).filter(|(_, k)| **k).map(|(s, _)| s).collect();
        let ascending = ordered_scan::ascending_columns(
            &self.meta,
            &self.store,
            &kept,
            projection.unwrap_or(&all),
            &columns,
            FEW_GROUPS,
        )?;
        let range_key = match (partitions, limit) {
            (2.., None) => ordered_scan::range_key(&ascending, &columns, MIN_RANGE_KEY_VALUES * partitions),
            _ => None,
        };
        let runs = match range_key {
            Some(key) => ordered_scan::split_at_key_changes(&batches, key, partitions)?,
            None => vec![batches],
        };
        let runs: Vec<Vec<RecordBatch>> =
            runs.into_iter().map(|run| slice_batches(run, per_slice, batch_size)).collect();
        let orderings = ordered_scan::orderings(&schema, &ascending);
        let source =
            MemorySourceConfig::try_new(&runs, schema, None)?.try_with_sort_information(orderings)?.with_limit(limit);
        let mut notes: Vec<Arc<str>> = Vec::new();
        if let Some(lookup) = &lookup {
            notes.push(format!("{}: {rows} of {} rows read", lookup.describe(), self.meta.num_rows()).into());
        } else if let Some((index, _)) = self.key_range(filters) {
            let key = self.meta.schema.field(index).name();
            notes.push(format!("clustered by {key}: {rows} of {} rows read", self.meta.num_rows()).into());
        }
        let compression = self.meta.constraints.compression;
        if !compression.is_default() {
            notes.push(format!("compression={compression}: {}", compression.scan_note()).into());
        }
        let unused: Vec<String> = self
            .meta
            .constraints
            .indexes
            .iter()
            .filter(|(name, _)| lookup.as_ref().and_then(KeyLookup::index) != Some(name.as_str()))
            .map(|(name, columns)| format!("{name} ({})", columns.join(", ")))
            .collect();
        if !unused.is_empty() {
            notes.push(
                format!(
                    "indexes not used: {} (no equality, IN or range filter on their first columns)",
                    unused.join(", ")
                )
                .into(),
            );
        }
        Ok(DataSourceExec::from_data_source(
            SegmentSource::new(source, checks, columns, notes).with_range_key(range_key),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::slice_batches;
    use datafusion::arrow::array::{Array, Int64Array, RecordBatch};
    use std::sync::Arc;

    fn batch(rows: i64) -> RecordBatch {
        RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from_iter_values(0..rows)) as _)]).unwrap()
    }

    #[test]
    fn slices_cover_the_rows_in_order_without_copies_and_leave_no_short_tail() {
        let batch_size = 100;
        for rows in [1, 50, 99, 100, 101, 102, 150, 151, 199, 200, 201, 250, 1_001, 1_002, 10_049, 10_050, 10_051] {
            let whole = batch(rows);
            let start = whole.column(0).to_data().buffers()[0].as_ptr();
            let slices = slice_batches(vec![whole], 1_000, batch_size);
            let mut next = 0;
            for slice in &slices {
                let values = slice.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                assert!(values.len() <= 1_000, "{rows}: a slice of {}", values.len());
                assert_eq!(values.value(0), next, "{rows}: slices out of order");
                // A view of the same buffer, not a copy.
                assert_eq!(values.values().inner().as_ptr(), unsafe { start.add(8 * next as usize) });
                next += values.len() as i64;
                // What DataFusion's scan leaves after cutting whole batches off.
                let tail = values.len() % batch_size;
                // (A batch of one row over a whole one can only end in halves of 51 and 50.)
                if rows > batch_size as i64 && rows != batch_size as i64 + 1 {
                    assert!(tail == 0 || tail > batch_size / 2, "{rows}: a tail of {tail} rows");
                }
            }
            assert_eq!(next, rows);
        }
    }
}
