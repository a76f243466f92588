//! Keeps a sort above the limit it sorts the rows of.
//!
//! `SELECT * FROM (SELECT * FROM t LIMIT 3 OFFSET 5) ORDER BY id DESC`
//! returned no row: DataFusion's sort enforcement (`EnsureRequirements`)
//! pushes a required ordering down through an operator that carries a fetch
//! (a LIMIT, or a projection forwarding one) whenever that operator's output
//! has no ordering at all, as if sorting before or after the limit were the
//! same. Below the limit, the sort picks other rows, and with an OFFSET it
//! was given the LIMIT's count and the offset then skipped all of them.
//!
//! [`ProtectLimits`] runs just before that rule and puts a [`LimitBarrier`]
//! over each operator with a fetch whose output is unordered: a barrier
//! says it keeps no input order and has no fetch, so the ordering stops
//! above it. [`RemoveLimitBarriers`] takes them out again right after, so
//! no later rule and no execution sees them. An operator whose output is
//! ordered is left alone: there DataFusion pushes a sort down only when the
//! order below already gives it (then sorting is moot).

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use std::sync::Arc;

/// The name of DataFusion's rule the barriers guard against.
const SORT_ENFORCEMENT: &str = "EnsureRequirements";

/// A pass-through that no ordering requirement passes (see the module documentation).
#[derive(Debug)]
pub struct LimitBarrier {
    input: Arc<dyn ExecutionPlan>,
}

impl DisplayAs for LimitBarrier {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "LimitBarrier")
    }
}

impl ExecutionPlan for LimitBarrier {
    fn name(&self) -> &str {
        "LimitBarrier"
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
        vec![false]
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let input = children.pop().ok_or_else(|| DataFusionError::Internal("LimitBarrier needs one input".into()))?;
        Ok(Arc::new(Self { input }))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        self.input.execute(partition, context)
    }
}

/// Puts a barrier over every unordered operator with a fetch (before sort enforcement).
#[derive(Debug, Default)]
pub struct ProtectLimits;

impl PhysicalOptimizerRule for ProtectLimits {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            if node.fetch().is_none()
                || node.properties().output_ordering().is_some()
                || node.downcast_ref::<LimitBarrier>().is_some()
            {
                return Ok(Transformed::no(node));
            }
            Ok(Transformed::yes(Arc::new(LimitBarrier { input: node }) as Arc<dyn ExecutionPlan>))
        })
        .data()
    }

    fn name(&self) -> &str {
        "protect_limits"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Takes the barriers out again (right after sort enforcement).
#[derive(Debug, Default)]
pub struct RemoveLimitBarriers;

impl PhysicalOptimizerRule for RemoveLimitBarriers {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| match node.downcast_ref::<LimitBarrier>() {
            Some(barrier) => Ok(Transformed::yes(barrier.input.clone())),
            None => Ok(Transformed::no(node)),
        })
        .data()
    }

    fn name(&self) -> &str {
        "remove_limit_barriers"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Places the two rules around DataFusion's sort enforcement in `rules`.
pub fn place(rules: &mut Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>) {
    let Some(at) = rules.iter().position(|r| r.name() == SORT_ENFORCEMENT) else { return };
    rules.insert(at + 1, Arc::new(RemoveLimitBarriers));
    rules.insert(at, Arc::new(ProtectLimits));
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;

    #[test]
    fn the_barriers_surround_sort_enforcement() {
        let mut rules = PhysicalOptimizer::new().rules;
        place(&mut rules);
        let names: Vec<&str> = rules.iter().map(|r| r.name()).collect();
        let at =
            names.iter().position(|n| *n == SORT_ENFORCEMENT).expect("DataFusion still has its sort enforcement rule");
        assert_eq!((names[at - 1], names[at + 1]), ("protect_limits", "remove_limit_barriers"));
    }
}
