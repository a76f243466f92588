//! [`SingleRow`]: the rows of a scalar subquery DataFusion runs once before
//! its query, checked to be at most one as they arrive. A second row is a
//! mistake in the statement (PostgreSQL's cardinality violation, a
//! `ProgrammingError` in its drivers and in DuckDB's), raised as such and
//! with its fix, the way per-key subqueries raise it
//! (`optimizer::subquery`), rather than as DataFusion's execution error,
//! whose kind says a value was wrong.

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{internal_err, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::metrics::MetricsSet;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, Distribution, ExecutionPlan, PlanProperties};
use futures::StreamExt;
use std::sync::Arc;
use swingdb_storage::error::Error;

/// The name of DataFusion's operator that runs uncorrelated scalar
/// subqueries once; its first child is its input, the others the subqueries.
const SCALAR_SUBQUERY: &str = "ScalarSubqueryExec";

/// A physical optimizer rule, first of all (so that kept plans have it too):
/// [`check_scalar_subqueries`].
#[derive(Debug)]
pub struct CheckScalarSubqueries;

impl PhysicalOptimizerRule for CheckScalarSubqueries {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        check_scalar_subqueries(plan)
    }

    fn name(&self) -> &str {
        "check_scalar_subqueries"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `plan` with the subqueries of each scalar-subquery operator read through a
/// [`SingleRow`] (in one partition).
pub fn check_scalar_subqueries(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    Ok(plan
        .transform_up(|node| {
            if node.name() != SCALAR_SUBQUERY || node.children().iter().skip(1).all(|c| c.is::<SingleRow>()) {
                return Ok(Transformed::no(node));
            }
            let children: Vec<Arc<dyn ExecutionPlan>> = node.children().into_iter().cloned().collect();
            let checked = children
                .into_iter()
                .enumerate()
                .map(|(i, child)| match i {
                    0 => child,
                    _ => Arc::new(SingleRow::new(child)) as Arc<dyn ExecutionPlan>,
                })
                .collect();
            let recompute = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute);
            Ok(Transformed::yes(node.replace_children(checked, recompute)?))
        })?
        .data)
}

/// The error of a subquery used as an expression that gave a second row;
/// `at`: the outer values it ran for (`t.a = 1`), when it runs per key.
pub fn more_than_one_row(at: Option<String>) -> Error {
    let at = at.map(|at| format!(" (for {at})")).unwrap_or_default();
    Error::programming(format!(
        "more than one row returned by a subquery used as an expression{at}; \
         add LIMIT 1 or an aggregate such as min(...) to the subquery"
    ))
}

/// Passes on its input's rows (in one partition) and fails at a second one.
#[derive(Debug)]
pub struct SingleRow {
    input: Arc<dyn ExecutionPlan>,
}

impl SingleRow {
    /// `input`'s rows, its partitions merged into one.
    fn new(input: Arc<dyn ExecutionPlan>) -> Self {
        let input = match input.properties().output_partitioning().partition_count() {
            1 => input,
            _ => Arc::new(CoalescePartitionsExec::new(input)),
        };
        Self { input }
    }
}

impl DisplayAs for SingleRow {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "SingleRow")
    }
}

impl ExecutionPlan for SingleRow {
    fn name(&self) -> &str {
        "SingleRow"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue) // none of its own
    }

    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn required_input_distribution(&self) -> Vec<Distribution> {
        vec![Distribution::SinglePartition]
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        match (children.pop(), children.is_empty()) {
            (Some(input), true) => Ok(Arc::new(Self::new(input))),
            _ => internal_err!("SingleRow needs one input"),
        }
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let schema = self.input.schema();
        let mut rows = 0;
        let checked = self.input.execute(partition, context)?.map(move |batch| {
            let batch = batch?;
            rows += batch.num_rows();
            if rows > 1 {
                return Err(more_than_one_row(None).into());
            }
            Ok(batch)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        self.input.metrics()
    }
}
