//! [`FewGroupsAggregateExec`]: a first-phase (or only) hash aggregation whose
//! group ids come from [`FewGroupValues`].

use super::keys::FewGroupValues;
use datafusion::arrow::array::{ArrayRef, AsArray, BooleanArray, RecordBatch};
use datafusion::arrow::compute::prep_null_mask_filter;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::aggregates::group_values::{new_group_values, GroupValues};
use datafusion::physical_plan::aggregates::order::GroupOrdering;
use datafusion::physical_plan::aggregates::{aggregate_expressions, AggregateExec, AggregateOutputMode};
use datafusion::physical_plan::execution_plan::{Boundedness, ChildrenPropertiesMode, EmissionType, ReplaceChildrenOptions};
use datafusion::physical_plan::metrics::{BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
};
use futures::StreamExt;
use std::sync::Arc;

/// Does what the [`AggregateExec`] it replaces does (same input, output
/// schema, partitioning and mode: the first phase of a two-phase aggregation,
/// or a single-phase one), computing group ids with [`FewGroupValues`] and
/// falling back to DataFusion's own when the groups turn out too many.
#[derive(Debug)]
pub struct FewGroupsAggregateExec {
    aggregate: Arc<AggregateExec>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl FewGroupsAggregateExec {
    /// Replaces `aggregate`, which [`super::replaceable`] accepted.
    pub fn new(aggregate: Arc<AggregateExec>) -> Self {
        // No output ordering (the rule takes only aggregates that claim
        // none), the aggregate's partitioning; all rows come at the end.
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(aggregate.schema()),
            aggregate.properties().output_partitioning().clone(),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Self { aggregate, properties, metrics: ExecutionPlanMetricsSet::new() }
    }
}

impl DisplayAs for FewGroupsAggregateExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "FewGroups")?;
        self.aggregate.fmt_as(t, f)
    }
}

impl ExecutionPlan for FewGroupsAggregateExec {
    fn name(&self) -> &str {
        "FewGroupsAggregateExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![self.aggregate.input()]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
        let plan = self.aggregate.clone().replace_children(children, recompute)?;
        let Some(aggregate) = plan.downcast_ref::<AggregateExec>() else {
            return internal_err!("FewGroupsAggregateExec lost its aggregate");
        };
        Ok(Arc::new(Self::new(Arc::new(aggregate.clone()))))
    }

    fn apply_expressions(&self, f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>) -> Result<TreeNodeRecursion> {
        self.aggregate.apply_expressions(f)
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let aggregate = self.aggregate.clone();
        let mut input = aggregate.input().execute(partition, context.clone())?;
        let metrics = BaselineMetrics::new(&self.metrics, partition);
        let fell_back = MetricBuilder::new(&self.metrics).counter(FELL_BACK, partition);
        let schema = aggregate.schema();
        let batch_size = context.session_config().batch_size();
        let output = async move {
            let mut state = Aggregation::new(&aggregate, fell_back)?;
            while let Some(batch) = input.next().await {
                let batch = batch?;
                let _timer = metrics.elapsed_compute().timer();
                state.add(&batch)?;
            }
            let _timer = metrics.elapsed_compute().timer();
            let output = state.finish()?;
            metrics.record_output(output.num_rows());
            let slices: Vec<Result<RecordBatch>> = (0..output.num_rows())
                .step_by(batch_size.max(1))
                .map(|at| Ok(output.slice(at, batch_size.min(output.num_rows() - at))))
                .collect();
            metrics.output_batches().add(slices.len());
            Ok::<_, datafusion::error::DataFusionError>(futures::stream::iter(slices))
        };
        let stream = futures::stream::once(output).map(|r| match r {
            Ok(slices) => slices.boxed(),
            Err(e) => futures::stream::iter(vec![Err(e)]).boxed(),
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream.flatten())))
    }
}

/// The metric (EXPLAIN ANALYZE) counting partitions whose groups turned out
/// too many and moved to DataFusion's group values.
const FELL_BACK: &str = "moved_to_hash_table";

/// How rows are given group ids: few values, or DataFusion's general way
/// once they were too many.
enum Groups {
    Few(FewGroupValues),
    Any(Box<dyn GroupValues>),
}

/// The state of one partition's aggregation.
struct Aggregation {
    aggregate: Arc<AggregateExec>,
    groups: Groups,
    accumulators: Vec<Box<dyn GroupsAccumulator>>,
    arguments: Vec<Vec<Arc<dyn PhysicalExpr>>>,
    group_ids: Vec<usize>,
    fell_back: Count,
}

impl Aggregation {
    fn new(aggregate: &Arc<AggregateExec>, fell_back: Count) -> Result<Self> {
        let input = aggregate.input_schema();
        let types = aggregate
            .group_expr()
            .expr()
            .iter()
            .map(|(e, _)| e.data_type(&input))
            .collect::<Result<Vec<_>>>()?;
        let accumulators = aggregate.aggr_expr().iter().map(|a| a.create_groups_accumulator()).collect::<Result<Vec<_>>>()?;
        let arguments = aggregate_expressions(aggregate.aggr_expr(), aggregate.mode(), aggregate.group_expr().expr().len())?;
        Ok(Self { aggregate: aggregate.clone(), groups: Groups::Few(FewGroupValues::new(&types)), accumulators, arguments, group_ids: vec![], fell_back })
    }

    fn add(&mut self, batch: &RecordBatch) -> Result<()> {
        let rows = batch.num_rows();
        let keys = self
            .aggregate
            .group_expr()
            .expr()
            .iter()
            .map(|(e, _)| e.evaluate(batch)?.into_array(rows))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let groups = match &mut self.groups {
            Groups::Few(few) => {
                if few.intern(&keys, &mut self.group_ids)? {
                    few.len()
                } else {
                    let mut any = self.fall_back()?;
                    self.fell_back.add(1);
                    any.intern(&keys, &mut self.group_ids)?;
                    let n = any.len();
                    self.groups = Groups::Any(any);
                    n
                }
            }
            Groups::Any(any) => {
                any.intern(&keys, &mut self.group_ids)?;
                any.len()
            }
        };
        for ((accumulator, arguments), filter) in self.accumulators.iter_mut().zip(&self.arguments).zip(self.aggregate.filter_expr()) {
            let values = arguments.iter().map(|e| e.evaluate(batch)?.into_array(rows)).collect::<Result<Vec<_>>>()?;
            let filter: Option<BooleanArray> = match filter {
                Some(f) => {
                    let f = f.evaluate(batch)?.into_array(rows)?;
                    Some(prep_null_mask_filter(f.as_boolean()))
                }
                None => None,
            };
            accumulator.update_batch(&values, &self.group_ids, filter.as_ref(), groups)?;
        }
        Ok(())
    }

    /// DataFusion's group ids holding the groups found so far, under the
    /// same ids.
    fn fall_back(&self) -> Result<Box<dyn GroupValues>> {
        let Groups::Few(few) = &self.groups else { return internal_err!("fell back twice") };
        let schema = self.aggregate.group_expr().group_schema(&self.aggregate.input_schema())?;
        let mut any = new_group_values(schema, &GroupOrdering::None)?;
        let mut ids = vec![];
        any.intern(&few.emit()?, &mut ids)?;
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
