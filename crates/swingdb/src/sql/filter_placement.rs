//! Where a hash join's runtime filter pays: a physical rule, run after
//! DataFusion's filter pushdown, that takes a join's runtime filter off the
//! scans whose rows reach that join through cheap operators only
//! (projections, coalescing, round-robin repartitioning).
//!
//! Evaluating a join's filter in a scan costs about what the join's own probe
//! costs (hash the keys, look them up), so for rows that go from the scan
//! straight into the join it only adds that cost again; it pays where the rows
//! it removes would first pass through an aggregate, another join, a sort or a
//! hash repartition. A scan keeps the filters of the joins it feeds through
//! such work (see `runtime_filter` for how it judges them), and a join whose
//! filter no scan keeps does not compute it at all (DataFusion computes a
//! filter only when something below consumes it).

use super::source::SegmentSource;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::Result;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, Partitioning};
use std::collections::HashMap;
use std::sync::Arc;

/// See the module documentation.
#[derive(Debug, Default)]
pub struct RuntimeFilterPlacement;

/// A scan, by address, and the ids of the join filters it should not apply.
type Unwanted = HashMap<*const (), Vec<u64>>;

/// Whether `plan` passes its input's rows on at about the cost of reading
/// them. A filter does not: a join's filter applied below it spares it most
/// rows (TPC-H Q19, whose string conditions on lineitem ran 3x slower when
/// its scan left the join's filter to the join).
fn cheap(plan: &dyn ExecutionPlan) -> bool {
    plan.downcast_ref::<ProjectionExec>().is_some()
        || plan.downcast_ref::<CoalescePartitionsExec>().is_some()
        || plan.name() == "CoalesceBatchesExec"
        || plan.downcast_ref::<RepartitionExec>().is_some_and(|r| matches!(r.partitioning(), Partitioning::RoundRobinBatch(_)))
}

/// Records, for each scan `plan` reaches through cheap operators, that it
/// should not apply the join filter `id`.
fn mark_direct_scans(plan: &Arc<dyn ExecutionPlan>, id: u64, unwanted: &mut Unwanted) {
    if plan.downcast_ref::<DataSourceExec>().is_some() {
        unwanted.entry(Arc::as_ptr(plan) as *const ()).or_default().push(id);
    } else if cheap(plan.as_ref()) {
        for child in plan.children() {
            mark_direct_scans(child, id, unwanted);
        }
    }
}

/// Whether `filter` is (or contains) one of the filters `ids`.
fn is_one_of(filter: &Arc<dyn PhysicalExpr>, ids: &[u64]) -> bool {
    filter.exists(|e| Ok(e.expression_id().is_some_and(|id| ids.contains(&id)))).unwrap_or(false)
}

impl PhysicalOptimizerRule for RuntimeFilterPlacement {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let mut unwanted = Unwanted::new();
        plan.apply(|node| {
            if let Some(join) = node.downcast_ref::<HashJoinExec>() {
                for id in node.dynamic_expressions_produced().iter().filter_map(|f| f.expression_id()) {
                    mark_direct_scans(join.right(), id, &mut unwanted);
                }
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        if unwanted.is_empty() {
            return Ok(plan);
        }
        plan.transform_up(|node| {
            let Some(ids) = unwanted.get(&(Arc::as_ptr(&node) as *const ())) else { return Ok(Transformed::no(node)) };
            let Some(scan) = node.downcast_ref::<DataSourceExec>() else { return Ok(Transformed::no(node)) };
            let Some(source) = scan.data_source().downcast_ref::<SegmentSource>() else { return Ok(Transformed::no(node)) };
            let kept = source.without_runtime_filters(|f| is_one_of(f, ids));
            Ok(Transformed::yes(Arc::new(scan.clone().with_data_source(Arc::new(kept))) as Arc<dyn ExecutionPlan>))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "runtime_filter_placement"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
