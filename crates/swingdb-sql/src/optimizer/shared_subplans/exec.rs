//! Executes a [`SharedPlan`]: the first of its uses to be asked for rows
//! computes the subplan (all its partitions, in a task of its own) and keeps
//! the batches; every use, that one included, then streams the kept batches
//! as one partition.
//!
//! Each use is planned from its own copy of the subplan; the copies are equal
//! (see the parent module), so whichever runs gives the rows of all. A use
//! whose copy was planned with another schema than the one that ran (never
//! expected) computes its own rows rather than read those.

use super::SharedPlan;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, DataFusionError, Result, Statistics};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{LogicalPlan, UserDefinedLogicalNode};
use datafusion::physical_expr::{EquivalenceProperties, Partitioning, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    collect, ChildStats, DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, SendableRecordBatchStream,
    StatisticsArgs,
};
use datafusion::physical_planner::{ExtensionPlanner, PhysicalPlanner};
use futures::TryStreamExt;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::OnceCell;

/// The rows the uses of one [`SharedPlan`] share, once computed.
#[derive(Debug)]
pub struct SharedRows {
    /// Tells shared results apart in EXPLAIN.
    pub id: usize,
    computed: OnceCell<Computed>,
}

/// A shared subplan's output and the schema of the copy that produced it.
#[derive(Debug)]
struct Computed {
    schema: SchemaRef,
    batches: Arc<Vec<RecordBatch>>,
}

impl SharedRows {
    /// Rows not computed yet.
    pub fn new(id: usize) -> Self {
        Self { id, computed: OnceCell::new() }
    }
}

/// Plans [`SharedPlan`] nodes as [`SharedExec`].
#[derive(Debug, Default)]
pub struct SharedPlanner;

#[async_trait::async_trait]
impl ExtensionPlanner for SharedPlanner {
    async fn plan_extension(
        &self,
        _planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        _logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        _session: &dyn datafusion::catalog::Session,
        _planning_ctx: &datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        let Some(node) = node.as_any().downcast_ref::<SharedPlan>() else { return Ok(None) };
        let Some(input) = physical_inputs.first() else { return internal_err!("SharedPlan without an input") };
        Ok(Some(Arc::new(SharedExec::new(input.clone(), node.rows.clone(), node.uses))))
    }
}

/// One use of a subplan shared by several (see the module's doc). It passes
/// nothing of its parent down (no filter, projection, sort, limit or
/// distribution: DataFusion's defaults for an operator it does not know), so
/// its copy of the subplan is optimized as if it stood alone.
#[derive(Debug)]
pub struct SharedExec {
    input: Arc<dyn ExecutionPlan>,
    rows: Arc<SharedRows>,
    uses: usize,
    properties: Arc<PlanProperties>,
}

impl SharedExec {
    fn new(input: Arc<dyn ExecutionPlan>, rows: Arc<SharedRows>, uses: usize) -> Self {
        // One partition, no ordering: the kept rows are all batches of the
        // copy that ran, in the order they arrived.
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(input.schema()),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Final,
            Boundedness::Bounded,
        ));
        Self { input, rows, uses, properties }
    }

    /// This use, over `children` (its input made anew), run again: every
    /// use of one shared result gets the same fresh rows from `fresh` (by the
    /// address of the rows they shared), so the result is computed once again.
    pub fn renewed(
        &self,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
        fresh: &mut HashMap<usize, Arc<SharedRows>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(input) = children.pop() else { return internal_err!("SharedExec needs one input") };
        let rows =
            fresh.entry(Arc::as_ptr(&self.rows) as usize).or_insert_with(|| Arc::new(SharedRows::new(self.rows.id)));
        Ok(Arc::new(Self::new(input, rows.clone(), self.uses)))
    }
}

impl DisplayAs for SharedExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "SharedExec: computed once for {} uses (#{})", self.uses, self.rows.id)
    }
}

impl ExecutionPlan for SharedExec {
    fn name(&self) -> &str {
        "SharedExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(input) = children.pop() else { return internal_err!("SharedExec needs one input") };
        Ok(Arc::new(Self::new(input, self.rows.clone(), self.uses)))
    }

    /// A plan run again (a recursive query's next iteration) computes afresh:
    /// this use no longer shares the rows of the last run.
    fn reset_state(self: Arc<Self>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(Self::new(self.input.clone(), Arc::new(SharedRows::new(self.rows.id)), self.uses)))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return internal_err!("SharedExec has one partition, asked for {partition}");
        }
        let (input, rows, schema) = (self.input.clone(), self.rows.clone(), self.schema());
        let batches = async move {
            let computed = rows
                .computed
                .get_or_try_init(|| async {
                    // In a task of its own: it progresses whichever use waits.
                    let task = SpawnedTask::spawn(collect(input.clone(), context.clone()));
                    let batches = task.join().await.map_err(|e| DataFusionError::External(Box::new(e)))??;
                    Ok::<_, DataFusionError>(Computed { schema: input.schema(), batches: Arc::new(batches) })
                })
                .await?;
            if computed.schema != input.schema() {
                return collect(input, context).await;
            }
            Ok(computed.batches.as_ref().clone())
        };
        let stream = futures::stream::once(batches)
            .map_ok(|batches| futures::stream::iter(batches.into_iter().map(Ok)))
            .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue) // none of its own
    }

    /// The input's statistics, of all its partitions (this has one).
    fn child_stats_requests(&self, _partition: Option<usize>) -> Vec<ChildStats> {
        vec![ChildStats::At(None)]
    }

    fn statistics_from_inputs(
        &self,
        input_stats: &[Arc<Statistics>],
        _args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        match input_stats.first() {
            Some(stats) => Ok(stats.clone()),
            None => Ok(Arc::new(Statistics::new_unknown(&self.schema()))),
        }
    }
}
