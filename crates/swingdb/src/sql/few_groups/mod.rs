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

mod exec;
mod keys;

pub use exec::FewGroupsAggregateExec;

use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateInputMode};
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
            if !replaceable(aggregate) {
                return Ok(Transformed::no(node));
            }
            let few = FewGroupsAggregateExec::new(Arc::new(aggregate.clone()));
            Ok(Transformed::yes(Arc::new(few) as Arc<dyn ExecutionPlan>))
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

/// Whether `aggregate` reads input rows (not partial states) into groups of
/// plain grouping columns that the statistics say are few, with nothing
/// [`FewGroupsAggregateExec`] does not do: grouping sets, a limit, an
/// ordered input or output, aggregates that need ordered input or lack a
/// group accumulator.
fn replaceable(aggregate: &AggregateExec) -> bool {
    let group_by = aggregate.group_expr();
    let Ok(input) = StatisticsContext::new().compute(aggregate.input().as_ref(), &StatisticsArgs::new()) else { return false };
    let schema = aggregate.input_schema();
    aggregate.mode().input_mode() == AggregateInputMode::Raw
        && group_by.is_single()
        && !group_by.expr().is_empty()
        && aggregate.limit_options().is_none()
        && aggregate.dynamic_expressions_produced().is_empty()
        && *aggregate.input_order_mode() == InputOrderMode::Linear
        && aggregate.properties().output_ordering().is_none()
        && aggregate.aggr_expr().iter().all(|a| a.groups_accumulator_supported() && a.order_bys().is_empty())
        && group_by.expr().iter().all(|(e, _)| e.data_type(&schema).is_ok_and(|t| keys::supported(&t)))
        && estimated_groups(group_by.expr().iter().map(|(e, _)| e), &input).is_some_and(|n| n <= FEW_GROUPS)
}

/// The product of the grouping columns' distinct counts, if every grouping
/// expression is a column whose count the statistics know.
fn estimated_groups<'a>(
    exprs: impl Iterator<Item = &'a Arc<dyn datafusion::physical_expr::PhysicalExpr>>,
    input: &datafusion::common::Statistics,
) -> Option<usize> {
    exprs.map(|e| {
        let column = e.downcast_ref::<Column>()?;
        match input.column_statistics.get(column.index())?.distinct_count {
            Precision::Exact(n) | Precision::Inexact(n) if n > 0 => Some(n),
            _ => None,
        }
    })
    .try_fold(1usize, |product, n| Some(product.saturating_mul(n?)))
}
