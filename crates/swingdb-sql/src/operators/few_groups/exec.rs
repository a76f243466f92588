//! [`FewGroupsAggregateExec`]: a hash aggregation whose group ids come from
//! [`FewGroupValues`] or [`DenseKeys`], and which may compute the filter
//! under it as a mask.

use super::dense::DenseKeys;
use super::keys::FewGroupValues;
use crate::operators::slices;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::{and, filter, filter_record_batch, prep_null_mask_filter};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::is_volatile;
use datafusion::physical_plan::aggregates::group_values::{new_group_values, GroupValues};
use datafusion::physical_plan::aggregates::order::GroupOrdering;
use datafusion::physical_plan::aggregates::{
    aggregate_expressions, AggregateExec, AggregateInputMode, AggregateOutputMode,
};
use datafusion::physical_plan::execution_plan::{
    Boundedness, ChildrenPropertiesMode, EmissionType, ReplaceChildrenOptions,
};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::metrics::{BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use std::sync::Arc;

/// How [`FewGroupsAggregateExec`] gives rows group ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// [`FewGroupValues`]: the grouping columns' values are few.
    Few,
    /// [`DenseKeys`] over keys the statistics put in `min..=max`.
    Dense {
        /// The smallest key the statistics allow.
        min: i64,
        /// The largest key the statistics allow.
        max: i64,
    },
    /// No grouping columns: every row is in the one group.
    One,
}

/// Does what the [`AggregateExec`] it replaces does (same input, output
/// schema, partitioning and mode), computing group ids with
/// [`FewGroupValues`] (the first phase of a two-phase aggregation, or a
/// single-phase one) or [`DenseKeys`] (any phase), and falling back to
/// DataFusion's own when the groups turn out too many or too sparse.
///
/// When the aggregate's input is a filter (under projections, or none), the
/// operator reads the filter's input and computes the filter itself: a batch
/// whose rows the filter mostly keeps is aggregated whole, the rows it drops
/// masked out, instead of being copied without them first (FilterExec copied
/// the 98.5 % of lineitem that TPC-H Q1 keeps: a fifth of the query). See
/// [`Aggregation::add_filtered`].
#[derive(Debug)]
pub struct FewGroupsAggregateExec {
    aggregate: Arc<AggregateExec>,
    strategy: Strategy,
    /// The filter under the aggregate, when computed here.
    fold: Option<Arc<Fold>>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

/// The plans from `aggregate`'s input down through its projections: the
/// last is the first that is not a projection.
fn plans_to_filter(aggregate: &AggregateExec) -> Vec<&Arc<dyn ExecutionPlan>> {
    let mut plans = vec![aggregate.input()];
    while let Some(projection) = plans.last().and_then(|p| p.downcast_ref::<ProjectionExec>()) {
        plans.push(projection.input());
    }
    plans
}

/// A filter under an aggregate, and the projections between them, as
/// [`FewGroupsAggregateExec`] computes them (taken from the plans once,
/// not at every batch).
#[derive(Debug)]
struct Fold {
    predicate: Arc<dyn PhysicalExpr>,
    /// The filter's own projection of its input's columns.
    columns: Option<Vec<usize>>,
    /// Each projection's output schema and expressions, nearest the filter
    /// first.
    projections: Vec<(SchemaRef, Vec<Arc<dyn PhysicalExpr>>)>,
}

impl Fold {
    /// The filter under `aggregate`, when it may be computed there: the
    /// filter has no row limit, and no expression evaluated on the rows it
    /// drops is volatile, so that each kept row's values are what they would
    /// be without the dropped ones. (Expressions that fail on a dropped row
    /// are handled when they do: see [`Aggregation::add_filtered`].)
    fn of(aggregate: &AggregateExec) -> Option<Self> {
        let plans = plans_to_filter(aggregate);
        let (filter, above) = plans.split_last()?;
        let filter = filter.downcast_ref::<FilterExec>()?;
        let projections: Vec<&ProjectionExec> =
            above.iter().rev().filter_map(|p| p.downcast_ref::<ProjectionExec>()).collect();
        let stable = |e: &Arc<dyn PhysicalExpr>| !is_volatile(e);
        let keys_stable = aggregate.group_expr().expr().iter().all(|(e, _)| stable(e))
            && aggregate.filter_expr().iter().flatten().all(stable);
        let arguments_stable = aggregate.aggr_expr().iter().all(|a| a.expressions().iter().all(stable));
        let projections_stable = projections.iter().all(|p| p.expr().iter().all(|e| stable(&e.expr)));
        if filter.fetch().is_some() || !(keys_stable && arguments_stable && projections_stable) {
            return None;
        }
        Some(Self {
            predicate: filter.predicate().clone(),
            columns: filter.projection().as_ref().map(|columns| columns.to_vec()),
            projections: projections
                .iter()
                .map(|p| (p.schema(), p.expr().iter().map(|e| e.expr.clone()).collect()))
                .collect(),
        })
    }

    /// `batch` (of the filter's input, taken by its projection) through the
    /// projections up to the aggregate.
    fn project(&self, mut batch: RecordBatch) -> Result<RecordBatch> {
        for (schema, exprs) in &self.projections {
            let columns =
                exprs.iter().map(|e| e.evaluate(&batch)?.into_array(batch.num_rows())).collect::<Result<Vec<_>>>()?;
            let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            batch = RecordBatch::try_new_with_options(schema.clone(), columns, &options)?;
        }
        Ok(batch)
    }
}

/// Whether the operator would compute the filter under `aggregate` itself.
pub fn folds_filter(aggregate: &AggregateExec) -> bool {
    Fold::of(aggregate).is_some()
}

/// The bytes a row of the filter under `aggregate` hands on (what a
/// FilterExec copies per kept row; strings counted as 16), when the operator
/// would compute that filter itself.
pub fn folded_row_bytes(aggregate: &AggregateExec) -> Option<usize> {
    Fold::of(aggregate)?;
    let filter = plans_to_filter(aggregate).last()?.schema();
    Some(filter.fields().iter().map(|f| f.data_type().primitive_width().unwrap_or(16)).sum())
}

impl FewGroupsAggregateExec {
    /// Replaces `aggregate`, for which [`super::strategy`] chose `strategy`.
    pub fn new(aggregate: Arc<AggregateExec>, strategy: Strategy) -> Self {
        let fold = Fold::of(&aggregate).map(Arc::new);
        // No output ordering (the rule takes only aggregates that claim
        // none), the aggregate's partitioning; all rows come at the end.
        // The aggregate's equal columns, constants and unique keys hold for
        // these rows too, and are kept: the rule runs after the plan's sorts
        // were placed, and a parent rebuilt over this operator must see every
        // equivalence those sorts relied on (a window over `PARTITION BY c0,
        // c1` of `GROUP BY c0, c1` with `c0 = c1` is sorted on `c0` only).
        let mut equivalences = aggregate.properties().equivalence_properties().clone();
        equivalences.clear_orderings();
        let properties = Arc::new(PlanProperties::new(
            equivalences,
            aggregate.properties().output_partitioning().clone(),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Self { aggregate, strategy, fold, properties, metrics: ExecutionPlanMetricsSet::new() }
    }

    /// How this operator gives rows group ids.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The plans from the aggregate's input down to the folded filter.
    fn folded_plans(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        plans_to_filter(&self.aggregate)
    }
}

impl DisplayAs for FewGroupsAggregateExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.name().trim_end_matches("AggregateExec"))?;
        self.aggregate.fmt_as(t, f)?;
        if self.fold.is_some() {
            for plan in self.folded_plans() {
                write!(f, "; computing ")?;
                plan.fmt_as(t, f)?;
            }
        }
        Ok(())
    }
}

impl ExecutionPlan for FewGroupsAggregateExec {
    fn name(&self) -> &str {
        match self.strategy {
            Strategy::Few => "FewGroupsAggregateExec",
            Strategy::Dense { .. } => "DenseKeysAggregateExec",
            Strategy::One => "OneGroupAggregateExec",
        }
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        match self.fold {
            Some(_) => self.folded_plans().last().expect("the filter").children(),
            None => vec![self.aggregate.input()],
        }
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
        if self.fold.is_some() {
            // The new input goes under the filter, and the plans up to the
            // aggregate are rebuilt over it.
            for plan in self.folded_plans().into_iter().rev() {
                children = vec![plan.clone().replace_children(children, recompute)?];
            }
        }
        let plan = self.aggregate.clone().replace_children(children, recompute)?;
        let Some(aggregate) = plan.downcast_ref::<AggregateExec>() else {
            return internal_err!("FewGroupsAggregateExec lost its aggregate");
        };
        Ok(Arc::new(Self::new(Arc::new(aggregate.clone()), self.strategy)))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        let mut recursion = self.aggregate.apply_expressions(f)?;
        if self.fold.is_some() {
            for plan in self.folded_plans() {
                if recursion == TreeNodeRecursion::Stop {
                    break;
                }
                recursion = plan.apply_expressions(f)?;
            }
        }
        Ok(recursion)
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let (aggregate, strategy) = (self.aggregate.clone(), self.strategy);
        let fold = self.fold.clone();
        let mut input = self.children()[0].execute(partition, context.clone())?;
        let metrics = BaselineMetrics::new(&self.metrics, partition);
        let fell_back = MetricBuilder::new(&self.metrics).counter(FELL_BACK, partition);
        let masked = MetricBuilder::new(&self.metrics).counter(MASKED, partition);
        let schema = aggregate.schema();
        let batch_size = context.session_config().batch_size();
        let output = async move {
            let mut state = Aggregation::new(&aggregate, strategy, fell_back, masked)?;
            while let Some(batch) = input.next().await {
                let batch = batch?;
                let _timer = metrics.elapsed_compute().timer();
                for part in slices(batch, CHUNK_ROWS) {
                    match &fold {
                        Some(fold) => state.add_filtered(fold, &part)?,
                        None => state.add(&part)?,
                    }
                }
            }
            let _timer = metrics.elapsed_compute().timer();
            let output = state.finish()?;
            metrics.record_output(output.num_rows());
            let pieces: Vec<Result<RecordBatch>> = slices(output, batch_size).map(Ok).collect();
            metrics.output_batches().add(pieces.len());
            Ok::<_, datafusion::error::DataFusionError>(futures::stream::iter(pieces))
        };
        let stream = futures::stream::once(output).map(|r| match r {
            Ok(slices) => slices.boxed(),
            Err(e) => futures::stream::iter(vec![Err(e)]).boxed(),
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream.flatten())))
    }
}

/// Rows of an input batch aggregated at a time: the values each step
/// computes for them (the filter's mask, projected expressions, 128-bit
/// sums' arguments: 128 KiB a column) are still in the processor's cache
/// when the next step reads them (TPC-H Q1 at SF1, batches of 32K rows:
/// 4 % less time than a batch at a time).
const CHUNK_ROWS: usize = 8192;

/// The metric (EXPLAIN ANALYZE) counting partitions whose groups turned out
/// too many and moved to DataFusion's group values.
const FELL_BACK: &str = "moved_to_hash_table";

/// `condition` with NULL as false, as a filter takes it. (arrow's
/// `prep_null_mask_filter` panics on an array without NULLs.)
fn null_as_false(condition: &BooleanArray) -> BooleanArray {
    match condition.null_count() {
        0 => condition.clone(),
        _ => prep_null_mask_filter(condition),
    }
}

/// The metric counting batches aggregated whole with the folded filter's
/// dropped rows masked out.
const MASKED: &str = "masked_batches";

/// The least fraction of a batch's rows the folded filter must keep for the
/// batch to be aggregated whole, the others masked (numerator, denominator).
/// A masked row costs what aggregating it costs; a copied one what copying
/// its columns costs. On TPC-H Q1 (8 aggregates, 2 grouping strings) the
/// aggregation took about 30 ns a row and the filter's copy about 20, so
/// masking pays above ~60 % kept; lighter aggregations (one count) cost
/// little more than the copy, so 3/4 leaves a margin.
const MASK_AT_LEAST: (usize, usize) = (3, 4);

/// A batch's grouping keys, and each aggregate's arguments and FILTER
/// clause, evaluated (before any group or total changes, so that a batch
/// whose evaluation fails leaves the aggregation as it was).
struct Inputs {
    rows: usize,
    keys: Vec<ArrayRef>,
    values: Vec<Vec<ArrayRef>>,
    filters: Vec<Option<BooleanArray>>,
}

impl Inputs {
    /// The rows `mask` keeps.
    fn kept(self, mask: &BooleanArray) -> Result<Self> {
        let keep = |arrays: Vec<ArrayRef>| arrays.iter().map(|a| Ok(filter(a, mask)?)).collect::<Result<Vec<_>>>();
        Ok(Self {
            rows: mask.true_count(),
            keys: keep(self.keys)?,
            values: self.values.into_iter().map(keep).collect::<Result<_>>()?,
            filters: self
                .filters
                .into_iter()
                .map(|f| f.map(|f| Ok(filter(&f, mask)?.as_boolean().clone())).transpose())
                .collect::<Result<_>>()?,
        })
    }
}

/// How rows are given group ids: few values, dense integers, or
/// DataFusion's general way once they were too many or too sparse.
enum Groups {
    Few(FewGroupValues),
    Dense(DenseKeys),
    /// No grouping columns: group 0 holds every row, made by the first
    /// row. A group accumulator may take a group it was never given a row
    /// for as holding values (DataFusion's `min` answered its starting
    /// value), so over no rows there is no group, and the final phase
    /// answers for no rows.
    One,
    Any(Box<dyn GroupValues>),
}

/// The state of one partition's aggregation.
struct Aggregation {
    aggregate: Arc<AggregateExec>,
    groups: Groups,
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    arguments: Vec<Vec<Arc<dyn PhysicalExpr>>>,
    group_ids: Vec<usize>,
    /// Whether the input is partial states (a final phase), merged rather
    /// than added.
    merging: bool,
    fell_back: Count,
    masked: Count,
}

impl Aggregation {
    fn new(aggregate: &Arc<AggregateExec>, strategy: Strategy, fell_back: Count, masked: Count) -> Result<Self> {
        // The grouping expressions read the rows that arrive: partial states
        // in a final phase. `input_schema()` is the first phase's input, whose
        // columns are others (a key of another type stood at the same index).
        let input = aggregate.input().schema();
        let types =
            aggregate.group_expr().expr().iter().map(|(e, _)| e.data_type(&input)).collect::<Result<Vec<_>>>()?;
        let accumulators =
            aggregate.aggr_expr().iter().map(|a| a.create_groups_accumulator()).collect::<Result<Vec<_>>>()?;
        let arguments =
            aggregate_expressions(aggregate.aggr_expr(), aggregate.mode(), aggregate.group_expr().expr().len())?;
        let groups = match (strategy, types.as_slice()) {
            (Strategy::Few, _) => Groups::Few(FewGroupValues::new(&types)),
            (Strategy::Dense { min, max }, [key]) => match DenseKeys::new(key.clone(), min, max) {
                Some(dense) => Groups::Dense(dense),
                None => return internal_err!("dense keys over {min}..={max}"),
            },
            (Strategy::Dense { .. }, _) => return internal_err!("dense keys of {} columns", types.len()),
            (Strategy::One, []) => Groups::One,
            (Strategy::One, _) => return internal_err!("one group by {} columns", types.len()),
        };
        let merging = aggregate.mode().input_mode() == AggregateInputMode::Partial;
        Ok(Self {
            aggregate: aggregate.clone(),
            groups,
            accumulators,
            arguments,
            group_ids: vec![],
            merging,
            fell_back,
            masked,
        })
    }

    /// Aggregates a batch of the aggregate's input.
    fn add(&mut self, batch: &RecordBatch) -> Result<()> {
        let inputs = self.evaluate(batch)?;
        self.apply(inputs, None)
    }

    /// Aggregates the rows of a batch of the folded filter's input that the
    /// filter keeps. When it keeps at least [`MASK_AT_LEAST`] of them, the
    /// projections, keys and arguments are computed on the whole batch and
    /// the dropped rows masked out; if that fails (say, a division by zero
    /// that the filter was there to avoid), or it keeps fewer, the kept rows
    /// are copied out first as FilterExec does, and only they decide.
    fn add_filtered(&mut self, fold: &Fold, batch: &RecordBatch) -> Result<()> {
        let rows = batch.num_rows();
        let mask = fold.predicate.evaluate(batch)?.into_array(rows)?;
        let mask = null_as_false(mask.as_boolean());
        let kept = mask.true_count();
        if kept == 0 {
            return Ok(());
        }
        let batch = match &fold.columns {
            Some(columns) => batch.project(columns)?,
            None => batch.clone(),
        };
        if kept == rows {
            return self.add(&fold.project(batch)?);
        }
        let (at_least, of) = MASK_AT_LEAST;
        if kept * of >= rows * at_least && matches!(self.groups, Groups::Few(_) | Groups::One) {
            if let Ok(inputs) = fold.project(batch.clone()).and_then(|whole| self.evaluate(&whole)) {
                self.masked.add(1);
                return self.apply(inputs, Some(&mask));
            }
        }
        self.add(&fold.project(filter_record_batch(&batch, &mask)?)?)
    }

    /// The keys, arguments and FILTER clauses of a batch of the aggregate's input.
    fn evaluate(&self, batch: &RecordBatch) -> Result<Inputs> {
        let rows = batch.num_rows();
        let keys = self
            .aggregate
            .group_expr()
            .expr()
            .iter()
            .map(|(e, _)| e.evaluate(batch)?.into_array(rows))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let values = self
            .arguments
            .iter()
            .map(|arguments| arguments.iter().map(|e| e.evaluate(batch)?.into_array(rows)).collect::<Result<Vec<_>>>())
            .collect::<Result<Vec<_>>>()?;
        // FILTER clauses apply where rows are added, not to partial states.
        let filters = self
            .aggregate
            .filter_expr()
            .iter()
            .map(|f| match f {
                Some(f) if !self.merging => Ok(Some(null_as_false(f.evaluate(batch)?.into_array(rows)?.as_boolean()))),
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Inputs { rows, keys, values, filters })
    }

    /// Adds evaluated rows to their groups; rows that `mask` (if any)
    /// drops are in no group and no total.
    fn apply(&mut self, inputs: Inputs, mask: Option<&BooleanArray>) -> Result<()> {
        let interned = match &mut self.groups {
            Groups::Few(few) => few.intern(&inputs.keys, mask, &mut self.group_ids)?,
            Groups::Dense(dense) if mask.is_none() => dense.intern(&inputs.keys[0], &mut self.group_ids)?,
            Groups::Dense(_) => return internal_err!("a mask over dense keys"),
            Groups::One if inputs.rows == 0 => return Ok(()),
            Groups::One => {
                self.group_ids.clear();
                self.group_ids.resize(inputs.rows, 0);
                true
            }
            Groups::Any(_) => true,
        };
        if !interned {
            self.groups = Groups::Any(self.fall_back()?);
            self.fell_back.add(1);
            return self.apply(inputs, mask);
        }
        let groups = match (&mut self.groups, mask) {
            (Groups::Few(few), _) => few.len(),
            (Groups::Dense(dense), _) => dense.len(),
            (Groups::One, _) => 1,
            // DataFusion's group values would add the dropped rows' groups.
            (Groups::Any(_), Some(mask)) => return self.apply(inputs.kept(mask)?, None),
            (Groups::Any(any), None) => {
                any.intern(&inputs.keys, &mut self.group_ids)?;
                any.len()
            }
        };
        for ((accumulator, values), filter) in self.accumulators.iter_mut().zip(&inputs.values).zip(inputs.filters) {
            let filter = match (filter, mask) {
                (Some(f), Some(mask)) => Some(and(&f, mask)?),
                (f, None) => f,
                (None, Some(mask)) => Some(mask.clone()),
            };
            match self.merging {
                true => accumulator.merge_batch(values, &self.group_ids, groups)?,
                false => accumulator.update_batch(values, &self.group_ids, filter.as_ref(), groups)?,
            }
        }
        Ok(())
    }

    /// DataFusion's group ids holding the groups found so far, under the
    /// same ids.
    fn fall_back(&self) -> Result<Box<dyn GroupValues>> {
        let keys = match &self.groups {
            Groups::Few(few) => few.emit()?,
            Groups::Dense(dense) => dense.emit()?,
            Groups::One | Groups::Any(_) => return internal_err!("no fallback from {}", self.aggregate.name()),
        };
        let schema = self.aggregate.group_expr().group_schema(&self.aggregate.input_schema())?;
        let mut any = new_group_values(schema, &GroupOrdering::None)?;
        let mut ids = vec![];
        any.intern(&keys, &mut ids)?;
        if ids.iter().enumerate().any(|(i, id)| i != *id) {
            return internal_err!("group ids changed in the fallback");
        }
        Ok(any)
    }

    /// The groups' keys and, per aggregate, its partial state (first phase)
    /// or its value (single phase).
    fn finish(mut self) -> Result<RecordBatch> {
        let mut columns = match &mut self.groups {
            Groups::Few(few) => few.emit()?,
            Groups::Dense(dense) => dense.emit()?,
            Groups::One => vec![],
            Groups::Any(any) => any.emit(EmitTo::All)?,
        };
        let final_values = self.aggregate.mode().output_mode() == AggregateOutputMode::Final;
        for accumulator in &mut self.accumulators {
            match final_values {
                true => columns.push(accumulator.evaluate(EmitTo::All)?),
                false => columns.extend(accumulator.state(EmitTo::All)?),
            }
        }
        Ok(RecordBatch::try_new(self.aggregate.schema(), columns)?)
    }
}
