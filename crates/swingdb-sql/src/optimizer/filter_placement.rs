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
//!
//! The rule also takes a runtime filter off any scan that does not read the
//! column it was computed for. DataFusion 55 hands filters down by column
//! name, so where a join's two inputs both have a column `b`, a filter on one
//! input's `b` also reached the other input's scan and dropped rows that
//! match (apache/datafusion#25244, #25296; fixed upstream after 55.2). Here
//! each join key and top-k sort column is traced down by position to the
//! scan column it is read from, and a scan keeps a filter only when it
//! holds each key in that key's own column.
//!
//! [`ConditionAboveScans`], run after the filters' conditions took their
//! final form, tells each scan the condition of the filter right above it,
//! which the scan evaluates before decoding its encoded columns (see
//! `catalog::prefilter`); and each scan that keeps a runtime filter the cheap
//! part of that condition (its comparisons of fixed-width values), under
//! which the scan judges and applies its runtime filters (see
//! `runtime_filter::filtered`).

use crate::catalog::source::SegmentSource;
use crate::operators::grace_join::GraceHashJoinExec;
use crate::optimizer::conjunction::fixed_width_comparisons;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::JoinType;
use datafusion::common::Result;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_expr::expressions::{Column, DynamicFilterPhysicalExpr};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::is_volatile;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::AggregateExec;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
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
        || plan
            .downcast_ref::<RepartitionExec>()
            .is_some_and(|r| matches!(r.partitioning(), Partitioning::RoundRobinBatch(_)))
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

/// A scan (by address) and one of its columns.
type ScanColumn = (*const (), usize);

/// The scan and column that column `index` of `plan`'s output is read from,
/// traced by position; `None` where it is computed, or passes an operator
/// this does not know.
fn scan_column(plan: &Arc<dyn ExecutionPlan>, index: usize) -> Option<ScanColumn> {
    if plan.downcast_ref::<DataSourceExec>().is_some() {
        return Some((Arc::as_ptr(plan) as *const (), index));
    }
    if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
        let column = projection.expr().get(index)?.expr.downcast_ref::<Column>()?;
        return scan_column(projection.input(), column.index());
    }
    if let Some(filter) = plan.downcast_ref::<FilterExec>() {
        let index = match filter.projection() {
            Some(columns) => *columns.get(index)?,
            None => index,
        };
        return scan_column(filter.input(), index);
    }
    if let Some(join) = hash_join(plan.as_ref()) {
        let index = match &join.projection {
            Some(columns) => *columns.get(index)?,
            None => index,
        };
        let left = join.left().schema().fields().len();
        return match join.join_type() {
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full if index < left => {
                scan_column(join.left(), index)
            }
            JoinType::Inner | JoinType::Left | JoinType::Right | JoinType::Full => {
                scan_column(join.right(), index - left)
            }
            JoinType::LeftSemi | JoinType::LeftAnti => scan_column(join.left(), index),
            JoinType::RightSemi | JoinType::RightAnti => scan_column(join.right(), index),
            _ => None,
        };
    }
    if let Some(aggregate) = plan.downcast_ref::<AggregateExec>() {
        let groups = aggregate.group_expr();
        let column = groups.is_single().then(|| groups.expr().get(index)).flatten()?.0.downcast_ref::<Column>()?;
        return scan_column(aggregate.input(), column.index());
    }
    let same_columns = plan.downcast_ref::<RepartitionExec>().is_some()
        || plan.downcast_ref::<CoalescePartitionsExec>().is_some()
        || plan.name() == "CoalesceBatchesExec"
        || plan.downcast_ref::<SortExec>().is_some()
        || plan.downcast_ref::<SortPreservingMergeExec>().is_some()
        || plan.downcast_ref::<GlobalLimitExec>().is_some()
        || plan.downcast_ref::<LocalLimitExec>().is_some();
    match same_columns {
        true => scan_column(plan.children().first()?, index),
        false => None,
    }
}

/// `plan` as a hash join: one, or the hash join a grace hash join runs
/// (same inputs and output).
fn hash_join(plan: &dyn ExecutionPlan) -> Option<&HashJoinExec> {
    plan.downcast_ref::<HashJoinExec>().or_else(|| plan.downcast_ref::<GraceHashJoinExec>().map(|g| g.hash_join()))
}

/// Each of `keys` (over `input`'s output), traced to the scan column it is
/// read from; `None` for a key that is not a column read from a scan.
fn key_columns<'a>(
    keys: impl Iterator<Item = &'a Arc<dyn PhysicalExpr>>,
    input: &Arc<dyn ExecutionPlan>,
) -> Vec<Option<ScanColumn>> {
    keys.map(|key| key.downcast_ref::<Column>().and_then(|c| scan_column(input, c.index()))).collect()
}

/// For each runtime filter of a join or top-k sort, by id, the scan column
/// of each of its keys, in the order the filter holds them.
fn filter_targets(plan: &Arc<dyn ExecutionPlan>) -> Result<HashMap<u64, Vec<Option<ScanColumn>>>> {
    let mut targets = HashMap::new();
    plan.apply(|node| {
        let keys = if let Some(join) = node.downcast_ref::<HashJoinExec>() {
            Some(key_columns(join.on().iter().map(|(_, probe)| probe), join.right()))
        } else {
            node.downcast_ref::<SortExec>().map(|sort| key_columns(sort.expr().iter().map(|s| &s.expr), sort.input()))
        };
        if let Some(keys) = keys {
            for id in node.dynamic_expressions_produced().iter().filter_map(|f| f.expression_id()) {
                targets.insert(id, keys.clone());
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    Ok(targets)
}

/// Whether `filter`, applied by the scan at `scan`, holds a key of a join or
/// sort in a column other than the one that key is read from (or one it
/// cannot tell).
fn misplaced(filter: &Arc<dyn PhysicalExpr>, scan: *const (), targets: &HashMap<u64, Vec<Option<ScanColumn>>>) -> bool {
    let mut wrong = false;
    let _ = filter.apply(|e| {
        let Some(keys) = e.downcast_ref::<DynamicFilterPhysicalExpr>().and_then(|d| targets.get(&d.expression_id()?))
        else {
            return Ok(TreeNodeRecursion::Continue);
        };
        // The filter's children are its keys as this scan reads them.
        let held = e.children();
        wrong |= held.len() != keys.len()
            || held.iter().zip(keys).any(|(column, key)| match (column.downcast_ref::<Column>(), key) {
                (Some(column), Some(key)) => *key != (scan, column.index()),
                _ => true,
            });
        Ok(TreeNodeRecursion::Jump)
    });
    wrong
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
        let targets = filter_targets(&plan)?;
        plan.transform_up(|node| {
            let address = Arc::as_ptr(&node) as *const ();
            let Some(scan) = node.downcast_ref::<DataSourceExec>() else { return Ok(Transformed::no(node)) };
            let Some(source) = scan.data_source().downcast_ref::<SegmentSource>() else {
                return Ok(Transformed::no(node));
            };
            if !source.has_runtime_filters() {
                return Ok(Transformed::no(node));
            }
            let ids = unwanted.get(&address).map_or(&[][..], |ids| ids.as_slice());
            let kept = source.without_runtime_filters(|f| is_one_of(f, ids) || misplaced(f, address, &targets));
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

/// See the module documentation.
#[derive(Debug, Default)]
pub struct ConditionAboveScans;

impl PhysicalOptimizerRule for ConditionAboveScans {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(filter) = node.downcast_ref::<FilterExec>() else { return Ok(Transformed::no(node)) };
            let Some(scan) = filter.input().downcast_ref::<DataSourceExec>() else { return Ok(Transformed::no(node)) };
            let Some(source) = scan.data_source().downcast_ref::<SegmentSource>() else {
                return Ok(Transformed::no(node));
            };
            // A condition computed twice must give the same answer twice.
            if is_volatile(filter.predicate()) {
                return Ok(Transformed::no(node));
            }
            let mut source = source.prefiltered_by(filter.predicate().clone());
            if source.has_runtime_filters() {
                if let Some(condition) = fixed_width_comparisons(filter.predicate(), &filter.input().schema()) {
                    source = source.under_filter(condition);
                }
            }
            let under = Arc::new(scan.clone().with_data_source(Arc::new(source)));
            // The scan's output is the same: the filter's properties stand.
            let keep = ReplaceChildrenOptions::new(ChildrenPropertiesMode::Keep);
            Ok(Transformed::yes(node.clone().replace_children(vec![under], keep)?))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "condition_above_scans"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
