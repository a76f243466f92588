//! Aggregation into few groups: `GROUP BY` columns of few distinct values
//! (a status flag, a country, a year) grouped without hashing every row.
//!
//! DataFusion's hash aggregation hashes each row's grouping values and
//! compares them with the stored values of the group the hash finds: for two
//! one-letter strings (TPC-H Q1, 6M rows into 4 groups) that was 38 % of the
//! query's time. When the statistics promise at most [`FEW_GROUPS`] groups,
//! [`FewGroupsAggregation`] (the last physical optimizer rule) replaces the
//! aggregation's first (or only) phase with [`FewGroupsAggregateExec`], which
//! gives rows group ids through [`keys::FewGroupValues`] and feeds the same
//! accumulators DataFusion would. Estimates can be wrong: when the values
//! turn out too many for its table, the operator moves the groups found so
//! far into DataFusion's own group values and goes on with those.
//!
//! A filter under the aggregation (with projections between, or none) is
//! computed by the operator too: where it keeps most of a batch, the batch
//! is aggregated whole with the dropped rows masked out instead of copied
//! without them (see [`FewGroupsAggregateExec`]).
//!
//! Without GROUP BY (`SELECT sum(x) FROM t WHERE ...`), the operator puts
//! every row in one group ([`Strategy::One`]) for the sake of the filter it
//! computes as a mask, where that pays: DataFusion's ungrouped aggregation
//! sat over a FilterExec that copied every kept row first (eight sums of
//! TPC-H Q1 without its GROUP BY: 110 -> 55 ms at SF1).
//!
//! The same operator groups by one integer column of dense values (the
//! statistics' range at most [`dense::MAX_SPARSITY`] times their distinct
//! count) with [`dense::DenseKeys`], in both phases: group ids are read from
//! an array indexed by the key instead of a hash table (EXPLAIN shows
//! `DenseKeysAggregateExec`). Few such values go this way too unless there
//! is a filter to compute as a mask: on the micro-benchmark's 500 groups of
//! 26.8M rows, the array took the query from 173-182 ms to 56-78 ms.

mod dense;
mod exec;
mod keys;

pub use exec::{FewGroupsAggregateExec, Strategy};

use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{Result, ScalarValue, Statistics};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateInputMode, AggregateOutputMode};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, InputOrderMode, StatisticsArgs, StatisticsContext};
use std::sync::Arc;

/// Most groups the input's statistics may estimate for an aggregation to be
/// computed by [`FewGroupsAggregateExec`].
pub const FEW_GROUPS: usize = 1024;

/// The physical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub struct FewGroupsAggregation;

impl PhysicalOptimizerRule for FewGroupsAggregation {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(aggregate) = node.downcast_ref::<AggregateExec>() else {
                return Ok(Transformed::no(node));
            };
            let Some(strategy) = strategy(aggregate) else {
                return Ok(Transformed::no(node));
            };
            let replaced = FewGroupsAggregateExec::new(Arc::new(aggregate.clone()), strategy);
            Ok(Transformed::yes(Arc::new(replaced) as Arc<dyn ExecutionPlan>))
        })
        .data()
    }

    fn name(&self) -> &str {
        "few_groups_aggregation"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// How `aggregate` is to be computed by [`FewGroupsAggregateExec`], if it
/// is: it has nothing the operator does not do (grouping sets, a limit, an
/// ordered input or output, aggregates that need ordered input or lack a
/// group accumulator), and either reads input rows (not partial states)
/// into groups of plain grouping columns that the statistics say are few,
/// or groups by one integer column of dense values.
fn strategy(aggregate: &AggregateExec) -> Option<Strategy> {
    let group_by = aggregate.group_expr();
    let schema = aggregate.input_schema();
    let plain = group_by.is_single()
        && aggregate.limit_options().is_none()
        && aggregate.dynamic_expressions_produced().is_empty()
        && *aggregate.input_order_mode() == InputOrderMode::Linear
        && aggregate.properties().output_ordering().is_none()
        && aggregate.aggr_expr().iter().all(|a| a.groups_accumulator_supported() && a.order_bys().is_empty());
    if !plain {
        return None;
    }
    if group_by.expr().is_empty() {
        // No GROUP BY: one group of every input row, when there is a filter
        // to compute as a mask and that saves more than masking costs. A
        // masked row costs each aggregate about what copying 8 bytes costs
        // (DataFusion's ungrouped aggregation adds whole arrays in
        // vectorized kernels, its `count(*)` reads only their length), and
        // the mask saves the filter's copy of its columns. On 6M rows kept
        // by a date filter: four DECIMAL sums 134 -> 65 ms, `count(*)` alone
        // 7 -> 14 ms (so not taken). A final phase merges one partial state
        // per partition: DataFusion's does that.
        // Only a first phase: over no rows it passes on no partial state, and
        // the final phase answers (`count` 0, `min` NULL).
        let first = aggregate.mode().input_mode() == AggregateInputMode::Raw
            && aggregate.mode().output_mode() == AggregateOutputMode::Partial;
        let pays = exec::folded_row_bytes(aggregate).is_some_and(|bytes| bytes >= 8 * aggregate.aggr_expr().len());
        return (first && pays).then_some(Strategy::One);
    }
    if aggregate.mode().input_mode() == AggregateInputMode::Partial {
        // A final phase: dense when the keys of the first phase's input are.
        return match first_phase(aggregate.input())? {
            FirstPhase::Replaced(first) => {
                matches!(first.strategy(), Strategy::Dense { .. }).then_some(first.strategy())
            }
            FirstPhase::DataFusion(first) => dense_keys(first, &*input_statistics(first)?).map(|dense| dense.strategy),
        };
    }
    let input = input_statistics(aggregate)?;
    let few = group_by.expr().iter().all(|(e, _)| e.data_type(&schema).is_ok_and(|t| keys::supported(&t)))
        && estimated_groups(group_by.expr().iter().map(|(e, _)| e), &input).is_some_and(|n| n <= FEW_GROUPS);
    let dense = dense_keys(aggregate, &input);
    if few {
        // One integer column of few values that fill their range, with no
        // filter under it to compute as a mask: an array read per row costs
        // less than finding each value in the column's table of keys.
        return match dense {
            Some(dense) if !exec::folds_filter(aggregate) => Some(dense.strategy),
            _ => Some(Strategy::Few),
        };
    }
    let dense = dense?;
    if aggregate.mode().output_mode() == AggregateOutputMode::Final {
        return Some(dense.strategy);
    }
    // A first phase holds every group its partition meets until the end:
    // dense only when each partition can expect at least two rows per group.
    // Otherwise DataFusion's, which passes rows on as partial states once it
    // sees grouping barely reduce them (on 16 cores, 2.68M groups of 26.8M
    // rows would be kept 16 times over), and the final phase is dense.
    let partitions = aggregate.input().properties().output_partitioning().partition_count().max(1);
    let rows = *input.num_rows.get_value()?;
    (dense.distinct.saturating_mul(2 * partitions) <= rows).then_some(dense.strategy)
}

/// A grouping by one integer column that [`dense::DenseKeys`] suits.
struct Dense {
    strategy: Strategy,
    /// The statistics' estimate of the column's distinct values.
    distinct: usize,
}

/// The statistics of `aggregate`'s input.
fn input_statistics(aggregate: &AggregateExec) -> Option<Arc<Statistics>> {
    StatisticsContext::new().compute(aggregate.input().as_ref(), &StatisticsArgs::new()).ok()
}

/// Whether `aggregate` (reading input rows, whose statistics are `input`)
/// groups by one integer column whose statistics put its values in a range
/// at most [`dense::MAX_SPARSITY`] times their distinct count, and at most
/// [`dense::MAX_SLOTS`] wide.
fn dense_keys(aggregate: &AggregateExec, input: &Statistics) -> Option<Dense> {
    let [(key, _)] = aggregate.group_expr().expr() else { return None };
    let column = key.downcast_ref::<Column>()?;
    if !key.data_type(&aggregate.input_schema()).is_ok_and(|t| dense::supported(&t)) {
        return None;
    }
    let statistics = input.column_statistics.get(column.index())?;
    let bound = |value: &Precision<ScalarValue>| match value.get_value()?.cast_to(&DataType::Int64).ok()? {
        ScalarValue::Int64(Some(v)) => Some(v),
        _ => None,
    };
    let (min, max) = (bound(&statistics.min_value)?, bound(&statistics.max_value)?);
    let distinct = *statistics.distinct_count.get_value()?;
    let width = max.checked_sub(min)?.checked_add(1)?;
    let dense = width <= dense::MAX_SLOTS as i64 && width <= distinct.saturating_mul(dense::MAX_SPARSITY) as i64;
    dense.then_some(Dense { strategy: Strategy::Dense { min, max }, distinct })
}

/// The first phase of a two-phase aggregation, as computed.
enum FirstPhase<'a> {
    Replaced(&'a FewGroupsAggregateExec),
    DataFusion(&'a AggregateExec),
}

/// The first phase under a final aggregation's input, through
/// repartitioning and merging of partitions.
fn first_phase(input: &Arc<dyn ExecutionPlan>) -> Option<FirstPhase<'_>> {
    if let Some(replaced) = input.downcast_ref::<FewGroupsAggregateExec>() {
        return Some(FirstPhase::Replaced(replaced));
    }
    if let Some(aggregate) = input.downcast_ref::<AggregateExec>() {
        return (aggregate.mode().output_mode() == AggregateOutputMode::Partial)
            .then_some(FirstPhase::DataFusion(aggregate));
    }
    let passes =
        input.downcast_ref::<RepartitionExec>().is_some() || input.downcast_ref::<CoalescePartitionsExec>().is_some();
    match input.children().as_slice() {
        [child] if passes => first_phase(child),
        _ => None,
    }
}

/// The product of the grouping columns' distinct counts, if every grouping
/// expression is a column whose count the statistics know.
fn estimated_groups<'a>(
    exprs: impl Iterator<Item = &'a Arc<dyn datafusion::physical_expr::PhysicalExpr>>,
    input: &Statistics,
) -> Option<usize> {
    exprs
        .map(|e| {
            let column = e.downcast_ref::<Column>()?;
            match input.column_statistics.get(column.index())?.distinct_count {
                Precision::Exact(n) | Precision::Inexact(n) if n > 0 => Some(n),
                _ => None,
            }
        })
        .try_fold(1usize, |product, n| Some(product.saturating_mul(n?)))
}
