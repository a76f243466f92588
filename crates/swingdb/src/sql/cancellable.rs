//! [`Cancellable`]: wraps each inner operator of a physical plan so that a
//! cancelled statement stops computing at its next batch.
//!
//! Dropping a plan's streams stops DataFusion's tasks only where they yield,
//! and some operators compute for seconds without yielding (a cross join
//! feeding an aggregate turns out batch after batch from memory). Checked
//! between batches of every operator, a raised flag ends the plan with an
//! error within one batch's work, so cancelled work does not keep running
//! on the engine's threads after the caller has moved on.

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::metrics::MetricsSet;
use datafusion::physical_plan::analyze::AnalyzeExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `plan` with every operator that has inputs wrapped in a [`Cancellable`]
/// watching `cancelled`; `EXPLAIN ANALYZE` as it is (it prints the plan it ran).
pub fn make_cancellable(plan: Arc<dyn ExecutionPlan>, cancelled: &Arc<AtomicBool>) -> Result<Arc<dyn ExecutionPlan>> {
    if plan.is::<AnalyzeExec>() {
        return Ok(plan);
    }
    Ok(plan
        .transform_up(|node| {
            if node.children().is_empty() {
                return Ok(Transformed::no(node));
            }
            Ok(Transformed::yes(Arc::new(Cancellable { input: node, cancelled: cancelled.clone() }) as Arc<dyn ExecutionPlan>))
        })?
        .data)
}

/// An operator that passes its input's batches on unchanged, and fails once
/// its statement is cancelled. It has its input's properties in every respect.
#[derive(Debug)]
pub struct Cancellable {
    input: Arc<dyn ExecutionPlan>,
    cancelled: Arc<AtomicBool>,
}

impl DisplayAs for Cancellable {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Cancellable")
    }
}

impl ExecutionPlan for Cancellable {
    fn name(&self) -> &str {
        "Cancellable"
    }

    fn downcast_delegate(&self) -> Option<&dyn ExecutionPlan> {
        Some(self.input.as_ref())
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

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let input = children.pop().ok_or_else(|| DataFusionError::Internal("Cancellable needs one input".into()))?;
        Ok(Arc::new(Self { input, cancelled: self.cancelled.clone() }))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let schema = self.input.schema();
        let cancelled = self.cancelled.clone();
        let input = self.input.execute(partition, context)?;
        let checked = input.map(move |batch| match cancelled.load(Ordering::Relaxed) {
            true => Err(DataFusionError::Execution("the statement was cancelled".into())),
            false => batch,
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        self.input.metrics()
    }
}
