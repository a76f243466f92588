//! `SegmentSource`: the data source of a scan of stored segments. It is
//! DataFusion's in-memory source with four changes:
//! - It reports no byte size. The in-memory source sums the capacity of every
//!   batch's buffers, and the batches of a scan are slices of a whole mapped
//!   segment file, so each slice counted the whole file (a 21 MB join partner
//!   of a 1 GB table claimed 900 MB). Without a byte size, DataFusion's join
//!   planning falls back to the exact row counts, which are right.
//! - Its columns carry the segments' bounds and distinct counts (the in-memory
//!   source knows only NULL counts), from which DataFusion estimates how many
//!   rows joins, filters and GROUP BYs produce, and so which side of a join to
//!   build a hash table from.
//! - Its streams give the scheduler a turn after every batch (see
//!   [`taking_turns`]).
//! - It applies the runtime filters that joins and top-k sorts above it
//!   publish (see [`crate::optimizer::runtime_filter`]), before it decodes
//!   the columns they do not read.
//! - Its batches hold encoded columns as stored (see
//!   [`swingdb_storage::encoding`]); its streams decode them a batch at a
//!   time, so that no more than a batch of a column is decoded at once.
//! - Its batches come unchecked: its streams check each segment's columns
//!   when they reach it (see [`ScanChecks`]).
//! - Its streams drop the rows the filter right above drops before they
//!   decode the other columns (see [`prefiltered`]).

use crate::catalog::prefilter::prefiltered;
use crate::operators::slices;
use crate::optimizer::runtime_filter::{filtered, is_runtime_filter};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{ColumnStatistics, Result, Statistics};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::{DataSource, OpenArgs};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::{EquivalenceProperties, LexOrdering, Partitioning, PhysicalExpr, PhysicalSortExpr};
use datafusion::physical_plan::execution_plan::SchedulingType;
use datafusion::physical_plan::filter_pushdown::FilterPushdownPropagation;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayFormatType, SortOrderPushdownResult};
use futures::{Stream, StreamExt};
use std::any::Any;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use swingdb_storage::encoding::decode_batch;
use swingdb_storage::segment::scan_checks::ScanChecks;

/// See the module documentation. Plans show the scan's notes: how far a
/// clustered table's range filter narrowed it (`clustered by k: 10 of 100 rows
/// read`) and the table's indexes it does not use (`indexes not used: ...`).
#[derive(Debug, Clone)]
pub struct SegmentSource {
    memory: MemorySourceConfig,
    /// What `memory`'s batches need checked before their values are read.
    checks: Arc<ScanChecks>,
    /// Per column of `memory`'s schema before any projection.
    columns: Arc<[ColumnStatistics]>,
    notes: Arc<[Arc<str>]>,
    /// Filters operators above publish while the query runs.
    runtime_filters: Vec<Arc<dyn PhysicalExpr>>,
    /// A condition the filter right above the scan implies, under which the
    /// runtime filters are judged (see [`filtered`]).
    condition_above: Option<Arc<dyn PhysicalExpr>>,
    /// A column (of `memory`'s schema before any projection) no value of
    /// which is in two partitions (see `ordered_scan`).
    range_key: Option<usize>,
    /// The deterministic condition of the filter right above the scan, over
    /// its output columns, evaluated before decoding (see [`prefiltered`]).
    prefilter: Option<Arc<dyn PhysicalExpr>>,
}

impl SegmentSource {
    /// Scans `memory`'s batches (slices of mapped segments, which `checks`
    /// checks), whose columns have the statistics `columns`; plans show
    /// `notes` after the scan.
    pub fn new(
        memory: MemorySourceConfig,
        checks: ScanChecks,
        columns: Vec<ColumnStatistics>,
        notes: Vec<Arc<str>>,
    ) -> Self {
        Self {
            memory,
            checks: Arc::new(checks),
            columns: columns.into(),
            notes: notes.into(),
            runtime_filters: Vec::new(),
            condition_above: None,
            range_key: None,
            prefilter: None,
        }
    }

    /// This scan, whose partitions share no value of column `key` (of
    /// `memory`'s schema) when `key` is given.
    pub fn with_range_key(self, key: Option<usize>) -> Self {
        Self { range_key: key, ..self }
    }

    /// The output column, if any, no value of which is in two partitions.
    pub fn range_key(&self) -> Option<usize> {
        let key = self.range_key?;
        match self.memory.projection() {
            Some(projection) => projection.iter().position(|&c| c == key),
            None => Some(key),
        }
    }

    /// This scan without the runtime filters for which `unwanted` holds.
    pub fn without_runtime_filters(&self, unwanted: impl Fn(&Arc<dyn PhysicalExpr>) -> bool) -> Self {
        let runtime_filters = self.runtime_filters.iter().filter(|f| !unwanted(f)).cloned().collect();
        Self { runtime_filters, ..self.clone() }
    }

    /// This scan, under a filter whose condition implies `condition` (over
    /// this scan's output columns; deterministic).
    pub fn under_filter(&self, condition: Arc<dyn PhysicalExpr>) -> Self {
        Self { condition_above: Some(condition), ..self.clone() }
    }

    /// This scan, right under a filter of the deterministic condition
    /// `condition` (over this scan's output columns).
    pub fn prefiltered_by(&self, condition: Arc<dyn PhysicalExpr>) -> Self {
        Self { prefilter: Some(condition), ..self.clone() }
    }

    /// The in-memory source this scan reads: slices of the mapped segments,
    /// unchecked (see [`ScanChecks`]).
    pub fn memory(&self) -> &MemorySourceConfig {
        &self.memory
    }

    /// Whether operators above have handed this scan runtime filters.
    pub fn has_runtime_filters(&self) -> bool {
        !self.runtime_filters.is_empty()
    }

    /// Keeps a source derived from ours (projected, limited, repartitioned) ours.
    fn rewrap(&self, source: Arc<dyn DataSource>) -> Arc<dyn DataSource> {
        match source.downcast_ref::<MemorySourceConfig>() {
            Some(memory) => Arc::new(SegmentSource { memory: memory.clone(), ..self.clone() }),
            None => source,
        }
    }

    /// The statistics of output column `index`, when known.
    fn column(&self, index: usize) -> Option<&ColumnStatistics> {
        let original = match self.memory.projection() {
            Some(projection) => *projection.get(index)?,
            None => index,
        };
        self.columns.get(original)
    }
}

impl DataSource for SegmentSource {
    fn open(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let rows = context.session_config().batch_size();
        let stored = sliced(checked(self.memory.open(partition, context)?, &self.checks)?, rows);
        Ok(taking_turns(decoded(filtered(
            prefiltered(stored, self.prefilter.as_ref()),
            &self.runtime_filters,
            self.condition_above.as_ref(),
        ))))
    }

    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.memory.fmt_as(t, f)?;
        for filter in &self.runtime_filters {
            write!(f, ", runtime filter: {filter}")?;
        }
        if self.condition_above.is_some() && !self.runtime_filters.is_empty() {
            write!(f, ", judged under the filter above")?;
        }
        for note in self.notes.iter() {
            write!(f, ", {note}")?;
        }
        Ok(())
    }

    fn repartitioned(
        &self,
        target_partitions: usize,
        repartition_file_min_size: usize,
        output_ordering: Option<LexOrdering>,
    ) -> Result<Option<Arc<dyn DataSource>>> {
        // Partitions cut anew no longer keep a key's values apart.
        let unkeyed = Self { range_key: None, ..self.clone() };
        if output_ordering.is_none() {
            // DataFusion's own even cut sorts the slices by size first: rows
            // then came out of stored order, and a table read whole reached
            // numpy copied (its slices no longer lay side by side), as one
            // of 6 or 7 segments did. Cut in stored order instead.
            let Some(partitions) = contiguous(self.memory.partitions(), target_partitions) else { return Ok(None) };
            let memory = MemorySourceConfig::try_new(
                &partitions,
                self.memory.original_schema(),
                self.memory.projection().clone(),
            )?;
            return Ok(Some(unkeyed.rewrap(Arc::new(memory))));
        }
        Ok(self
            .memory
            .repartitioned(target_partitions, repartition_file_min_size, output_ordering)?
            .map(|s| unkeyed.rewrap(s)))
    }

    fn output_partitioning(&self) -> Partitioning {
        self.memory.output_partitioning()
    }

    fn eq_properties(&self) -> EquivalenceProperties {
        self.memory.eq_properties()
    }

    fn scheduling_type(&self) -> SchedulingType {
        self.memory.scheduling_type()
    }

    fn partition_statistics(&self, partition: Option<usize>) -> Result<Arc<Statistics>> {
        let mut stats = Arc::unwrap_or_clone(self.memory.partition_statistics(partition)?);
        stats.total_byte_size = Precision::Absent;
        let rows = stats.num_rows;
        for (index, column) in stats.column_statistics.iter_mut().enumerate() {
            let Some(known) = self.column(index) else { continue };
            column.min_value = known.min_value.clone();
            column.max_value = known.max_value.clone();
            // A part of the rows has at most as many distinct values as rows.
            column.distinct_count = match (known.distinct_count, rows.get_value()) {
                (Precision::Inexact(distinct), Some(&rows)) => Precision::Inexact(distinct.min(rows)),
                (distinct, _) => distinct,
            };
        }
        Ok(Arc::new(stats))
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn DataSource>> {
        self.memory.with_fetch(limit).map(|s| self.rewrap(s))
    }

    fn fetch(&self) -> Option<usize> {
        self.memory.fetch()
    }

    fn metrics(&self) -> ExecutionPlanMetricsSet {
        self.memory.metrics()
    }

    fn try_swapping_with_projection(&self, projection: &ProjectionExprs) -> Result<Option<Arc<dyn DataSource>>> {
        Ok(self.memory.try_swapping_with_projection(projection)?.map(|s| self.rewrap(s)))
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn DataSource>>> {
        // Filters known when planning stay where they are (the filter above
        // the scan applies them); runtime filters are applied by the scan too,
        // which the operator publishing them does not need to be told.
        let mut ours = self.clone();
        ours.runtime_filters.extend(filters.iter().filter(|f| is_runtime_filter(f)).cloned());
        let added = ours.runtime_filters.len() > self.runtime_filters.len();
        let mut result = self.memory.try_pushdown_filters(filters, config)?;
        result.updated_node = match result.updated_node.take() {
            Some(node) => Some(ours.rewrap(node)),
            None => added.then(|| Arc::new(ours) as Arc<dyn DataSource>),
        };
        Ok(result)
    }

    fn try_pushdown_sort(&self, order: &[PhysicalSortExpr]) -> Result<SortOrderPushdownResult<Arc<dyn DataSource>>> {
        Ok(self.memory.try_pushdown_sort(order)?.map(|s| self.rewrap(s)))
    }

    fn with_preserve_order(&self, preserve_order: bool) -> Option<Arc<dyn DataSource>> {
        self.memory.with_preserve_order(preserve_order).map(|s| self.rewrap(s))
    }

    /// Also the runtime filters: a join computes its filter only if it finds a
    /// consumer of it below.
    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        for filter in &self.runtime_filters {
            if f(filter)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        self.memory.apply_expressions(f)
    }

    fn with_new_state(&self, state: Arc<dyn Any + Send + Sync>) -> Option<Arc<dyn DataSource>> {
        self.memory.with_new_state(state).map(|s| self.rewrap(s))
    }

    fn create_sibling_state(&self, config: &ConfigOptions) -> Option<Arc<dyn Any + Send + Sync>> {
        self.memory.create_sibling_state(config)
    }

    fn open_with_args(&self, args: OpenArgs) -> Result<SendableRecordBatchStream> {
        let rows = args.context.session_config().batch_size();
        let stored = sliced(checked(self.memory.open_with_args(args)?, &self.checks)?, rows);
        Ok(taking_turns(decoded(filtered(
            prefiltered(stored, self.prefilter.as_ref()),
            &self.runtime_filters,
            self.condition_above.as_ref(),
        ))))
    }
}

/// The batches of `partitions`, in order, cut into `target` runs of about
/// equal rows, each a run of batches that follow one another; `None` where
/// there are fewer batches than runs, or as many partitions already (what
/// DataFusion's cut answers then too).
fn contiguous(partitions: &[Vec<RecordBatch>], target: usize) -> Option<Vec<Vec<RecordBatch>>> {
    let batches: Vec<&RecordBatch> = partitions.iter().flatten().collect();
    if partitions.is_empty() || partitions.len() >= target || batches.len() < target {
        return None;
    }
    let mut left: usize = batches.iter().map(|b| b.num_rows()).sum();
    let mut runs: Vec<Vec<RecordBatch>> = vec![Vec::new(); target];
    let (mut run, mut in_run) = (0, 0);
    for batch in batches {
        let share = left.div_ceil(target - run);
        runs[run].push(batch.clone());
        in_run += batch.num_rows();
        if in_run >= share && run + 1 < target {
            (left, run, in_run) = (left - in_run, run + 1, 0);
        }
    }
    Some(runs)
}

/// `stream` (a scan's), each batch handed on once `checks` passed for it.
fn checked(stream: SendableRecordBatchStream, checks: &Arc<ScanChecks>) -> Result<SendableRecordBatchStream> {
    if checks.is_empty() {
        return Ok(stream);
    }
    checks.check_sizes()?;
    let checks = checks.clone();
    let schema = stream.schema();
    let batches = stream.map(move |batch| {
        let batch = batch?;
        checks.check(&batch)?;
        Ok(batch)
    });
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
}

/// `stream` (a scan's, its batches as stored) with its batches cut into
/// slices of at most `rows` rows (no copy), before they are prefiltered and
/// decoded: a stored batch holds a whole segment's rows (125,000 of TPC-H
/// lineitem's), and decoded whole its widened decimals and strings (8 MB for
/// Q1) left the processor's cache before the operators above read them.
fn sliced(stream: SendableRecordBatchStream, rows: usize) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let batches = stream.flat_map(move |batch| {
        let pieces: Vec<Result<RecordBatch>> = match batch {
            Ok(batch) if batch.num_rows() > rows => slices(batch, rows).map(Ok).collect(),
            other => vec![other],
        };
        futures::stream::iter(pieces)
    });
    Box::pin(RecordBatchStreamAdapter::new(schema, batches))
}

/// `stream` (a scan's) with its batches' encoded columns decoded to the
/// types of its schema.
fn decoded(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let to = schema.clone();
    let batches = stream.map(move |batch| Ok(decode_batch(&batch?, &to)?));
    Box::pin(RecordBatchStreamAdapter::new(schema, batches))
}

/// `stream`, giving the scheduler a turn after every batch (it returns
/// `Pending` once, having woken itself).
///
/// A scan of mapped segments never waits, so the operators above it (a
/// filter, a hash join's probe, a partial aggregation) would consume a whole
/// partition in one poll of their task. Tokio keeps a task woken by a running
/// one in that worker's LIFO slot, which no other worker may steal: when a
/// hash join's build side finished, the task of the second partition waited
/// there until the first partition was done, and the query ran on one core
/// (TPC-H Q19 SF1: 142 ms wall for 151 ms of CPU; with a turn per batch,
/// 83 ms for 154). A self-woken task goes to the back of its worker's queue,
/// where an idle worker takes it. A turn costs microseconds per batch of 32K
/// rows; outside a task (a caller polling the stream itself) none is taken.
fn taking_turns(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    Box::pin(RecordBatchStreamAdapter::new(stream.schema(), TakingTurns { stream, turn_due: false }))
}

/// See [`taking_turns`].
struct TakingTurns {
    stream: SendableRecordBatchStream,
    turn_due: bool,
}

impl Stream for TakingTurns {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // Only a task has a turn to give; a caller draining the stream itself
        // (a plain read, batch by batch into Python) would only wait longer.
        if std::mem::take(&mut self.turn_due) && tokio::task::try_id().is_some() {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let next = self.stream.as_mut().poll_next(cx);
        self.turn_due = matches!(next, Poll::Ready(Some(Ok(_))));
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Int64Array;
    use futures::task::{waker_ref, ArcWake};
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct CountingWaker(AtomicUsize);

    impl ArcWake for CountingWaker {
        fn wake_by_ref(arc_self: &Arc<Self>) {
            arc_self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// What polling a two-batch scan stream by hand sees.
    fn drain_two_batches() -> Vec<String> {
        let batch = RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vec![1, 2])) as _)]).unwrap();
        let inner = futures::stream::iter(vec![Ok(batch.clone()), Ok(batch.clone())]);
        let mut stream = taking_turns(Box::pin(RecordBatchStreamAdapter::new(batch.schema(), inner)));
        let waker = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker_ref = waker_ref(&waker);
        let mut cx = Context::from_waker(&waker_ref);
        let mut seen = Vec::new();
        loop {
            match stream.as_mut().poll_next(&mut cx) {
                Poll::Ready(Some(b)) => seen.push(format!("batch of {}", b.unwrap().num_rows())),
                Poll::Ready(None) => break,
                Poll::Pending => seen.push(format!("turn, woken {}", waker.0.load(Ordering::SeqCst))),
            }
        }
        seen
    }

    #[tokio::test]
    async fn a_scan_stream_gives_a_turn_after_each_batch_in_a_task_and_loses_none() {
        let in_task = tokio::spawn(async { drain_two_batches() }).await.unwrap();
        assert_eq!(in_task, ["batch of 2", "turn, woken 1", "batch of 2", "turn, woken 2"]);
        assert_eq!(drain_two_batches(), ["batch of 2", "batch of 2"], "outside a task no turn is taken");
    }

    #[test]
    fn partitions_cut_anew_keep_the_stored_order_of_slices_of_unequal_sizes() {
        let batch = |first: i64, rows: i64| {
            RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from_iter_values(first..first + rows)) as _)])
                .unwrap()
        };
        // Slices of 6 segments of 131,072 rows cut at 98,304 rows: unequal sizes,
        // which DataFusion's cut sorted by size.
        let (mut slices, mut at) = (Vec::new(), 0);
        for _ in 0..6 {
            for rows in [98_304, 32_768] {
                slices.push(batch(at, rows));
                at += rows;
            }
        }
        let runs = contiguous(&[slices], 2).unwrap();
        assert_eq!(runs.len(), 2);
        let values: Vec<i64> = runs
            .iter()
            .flatten()
            .flat_map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec())
            .collect();
        assert_eq!(values, (0..at).collect::<Vec<_>>(), "every row once, in stored order");
        let sizes: Vec<usize> = runs.iter().map(|r| r.iter().map(|b| b.num_rows()).sum()).collect();
        assert_eq!(sizes, [393_216, 393_216]);
        assert!(contiguous(&[vec![batch(0, 5)]], 2).is_none(), "fewer batches than partitions");
    }
}
