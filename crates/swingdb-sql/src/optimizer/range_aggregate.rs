//! GROUP BY finished inside each partition when the partitions share no
//! value of a grouping column.
//!
//! DataFusion aggregates in two steps: each partition aggregates its rows
//! (`Partial`), the partial results are hash-repartitioned by the grouping
//! keys, and each partition finishes its share (`FinalPartitioned`). When
//! the rows reach the aggregate from a scan whose partitions hold disjoint
//! runs of one of the grouping columns (a column the table is stored in the
//! order of, see `ordered_scan`), every group already lies in one partition:
//! one step per partition (`SinglePartitioned`) gives the same groups without
//! the repartition and the second hash table. On rows that also arrive in
//! the column's order, DataFusion's aggregate streams (keeps only the groups
//! of the current value). TPC-H Q18's `GROUP BY l_orderkey` over lineitem
//! (15 M groups at SF10) spent 8 s of CPU in the two hash tables.
//!
//! A column keeps its partitions apart only through operators that pass
//! each partition's rows on within the partition: projections, filters,
//! coalescing of batches, sorts within partitions, and the probe side of a
//! hash join that collects its build side whole. Where the old plan's parent
//! relied on the hash partitioning the final step produced (a partitioned
//! join, another aggregate), the rows are hash-repartitioned after the
//! aggregate instead, which moves one row per group rather than every
//! partial one.

use crate::catalog::source::SegmentSource;
use datafusion::common::config::ConfigOptions;
use datafusion::common::{JoinType, Result};
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::{Distribution, ExecutionPlan, Partitioning};
use std::sync::Arc;

/// The physical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub struct RangeAggregation;

impl PhysicalOptimizerRule for RangeAggregation {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        rewrite(plan, false)
    }

    fn name(&self) -> &str {
        "range_aggregation"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `plan` with its two-step aggregates over range-partitioned rows made one
/// step; `hashed` says whether `plan`'s parent relies on `plan`'s hash
/// partitioning.
fn rewrite(plan: Arc<dyn ExecutionPlan>, hashed: bool) -> Result<Arc<dyn ExecutionPlan>> {
    if let Some((single, coalesced)) = one_step(&plan)? {
        // The one step does not need its input hashed, whatever it declares.
        let input = rewrite(single.input().clone(), false)?;
        let single = Arc::new(single).replace_children(vec![input], recompute())?;
        return Ok(match (coalesced, hashed, plan.properties().output_partitioning()) {
            (true, _, _) => Arc::new(CoalescePartitionsExec::new(single)),
            (false, true, partitioning @ Partitioning::Hash(..)) => {
                Arc::new(RepartitionExec::try_new(single, partitioning.clone())?)
            }
            _ => single,
        });
    }
    let children = plan.children();
    if children.is_empty() {
        return Ok(plan);
    }
    let passes_hash = hashed && matches!(plan.properties().output_partitioning(), Partitioning::Hash(..));
    let required = plan.input_distribution_requirements();
    let mut rewritten = Vec::with_capacity(children.len());
    let mut changed = false;
    for (index, child) in children.into_iter().enumerate() {
        let relies = passes_hash || required.child_distribution(index).is_some_and(keyed);
        let new = rewrite(child.clone(), relies)?;
        changed |= !Arc::ptr_eq(&new, child);
        rewritten.push(new);
    }
    match changed {
        true => plan.replace_children(rewritten, recompute()),
        false => Ok(plan),
    }
}

/// Whether `distribution` asks for rows partitioned by keys (operators not
/// yet moved to DataFusion 55's name still say `HashPartitioned`).
#[allow(deprecated)]
fn keyed(distribution: &Distribution) -> bool {
    matches!(distribution, Distribution::KeyPartitioned(_) | Distribution::HashPartitioned(_))
}

/// Rebuilding a plan over new children works out its properties anew.
fn recompute() -> ReplaceChildrenOptions {
    ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute)
}

/// Skips the batch-coalescing operators on top of `plan`.
fn under_coalescing(mut plan: &Arc<dyn ExecutionPlan>) -> &Arc<dyn ExecutionPlan> {
    while plan.name() == "CoalesceBatchesExec" {
        plan = plan.children()[0];
    }
    plan
}

/// For a final aggregate over the hash-repartitioned (or coalesced) output
/// of a partial one whose input's partitions share no value of a grouping
/// column: the one-step aggregate that replaces both, and whether its
/// partitions are to be coalesced into one (as the final step's were).
fn one_step(plan: &Arc<dyn ExecutionPlan>) -> Result<Option<(AggregateExec, bool)>> {
    let Some(last) = plan.downcast_ref::<AggregateExec>() else { return Ok(None) };
    let exchange = under_coalescing(last.input());
    let fits = match last.mode() {
        AggregateMode::FinalPartitioned => exchange
            .downcast_ref::<RepartitionExec>()
            .is_some_and(|r| matches!(r.partitioning(), Partitioning::Hash(..))),
        AggregateMode::Final => exchange.downcast_ref::<CoalescePartitionsExec>().is_some_and(|c| c.fetch().is_none()),
        _ => false,
    };
    if !fits {
        return Ok(None);
    }
    let Some(first) = under_coalescing(exchange.children()[0]).downcast_ref::<AggregateExec>() else {
        return Ok(None);
    };
    let groups = first.group_expr();
    if *first.mode() != AggregateMode::Partial || !groups.is_single() || groups.is_empty() {
        return Ok(None);
    }
    let keyed = groups
        .expr()
        .iter()
        .any(|(e, _)| e.downcast_ref::<Column>().is_some_and(|c| keeps_apart(first.input(), c.index())));
    if !keyed {
        return Ok(None);
    }
    let single = AggregateExec::try_new(
        AggregateMode::SinglePartitioned,
        groups.clone(),
        first.aggr_expr().to_vec(),
        first.filter_expr().to_vec(),
        first.input().clone(),
        first.input_schema(),
    )?
    .with_limit_options(last.limit_options());
    // The one step must answer in exactly the shape the two did.
    if single.schema() != last.schema() {
        return Ok(None);
    }
    Ok(Some((single, *last.mode() == AggregateMode::Final)))
}

/// Whether column `index` of `plan`'s output takes no value in two of its
/// partitions, traced through operators that keep each partition's rows in
/// their partition to a scan that cut its partitions by that column.
fn keeps_apart(plan: &Arc<dyn ExecutionPlan>, index: usize) -> bool {
    if let Some(scan) = plan.downcast_ref::<DataSourceExec>() {
        let Some(source) = scan.data_source().downcast_ref::<SegmentSource>() else { return false };
        return source.range_key() == Some(index);
    }
    if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
        let Some(column) = projection.expr().get(index).and_then(|e| e.expr.downcast_ref::<Column>()) else {
            return false;
        };
        return keeps_apart(projection.input(), column.index());
    }
    if let Some(filter) = plan.downcast_ref::<FilterExec>() {
        let index = match filter.projection() {
            Some(columns) => match columns.get(index) {
                Some(&i) => i,
                None => return false,
            },
            None => index,
        };
        return keeps_apart(filter.input(), index);
    }
    if let Some(join) = plan.downcast_ref::<HashJoinExec>() {
        // Each output partition holds the matches of one probe partition.
        if *join.partition_mode() != PartitionMode::CollectLeft {
            return false;
        }
        let index = match &join.projection {
            Some(columns) => match columns.get(index) {
                Some(&i) => i,
                None => return false,
            },
            None => index,
        };
        let left = join.left().schema().fields().len();
        return match join.join_type() {
            JoinType::Inner | JoinType::Right if index >= left => keeps_apart(join.right(), index - left),
            JoinType::RightSemi | JoinType::RightAnti => keeps_apart(join.right(), index),
            _ => false,
        };
    }
    let within_partitions = plan.name() == "CoalesceBatchesExec"
        || plan.downcast_ref::<SortExec>().is_some_and(|s| s.preserve_partitioning());
    match (within_partitions, plan.children().first()) {
        (true, Some(child)) => keeps_apart(child, index),
        _ => false,
    }
}
