// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

//! Utilizing exact statistics from sources to avoid scanning data
use datafusion_common::Result;
use datafusion_common::stats::Precision;
use datafusion_common::config::ConfigOptions;
use datafusion_common::scalar::ScalarValue;
use datafusion_common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion_physical_plan::aggregates::{
    AggregateExec, AggregateInputMode, AggregateMode,
};
use datafusion_physical_plan::placeholder_row::PlaceholderRowExec;
use datafusion_physical_plan::projection::{ProjectionExec, ProjectionExpr};
use datafusion_physical_plan::statistics::{StatisticsArgs, StatisticsContext};
use datafusion_physical_plan::udaf::{
    AggregateFunctionExpr, StatisticsArgs as PlanStatisticsArgs,
};
use datafusion_physical_plan::{ExecutionPlan, expressions};
use std::sync::Arc;

use crate::PhysicalOptimizerRule;

/// Optimizer that uses available statistics for aggregate functions
#[derive(Default, Debug)]
pub struct AggregateStatistics {}

impl AggregateStatistics {
    #[expect(missing_docs)]
    pub fn new() -> Self {
        Self {}
    }
}

impl PhysicalOptimizerRule for AggregateStatistics {
    #[cfg_attr(feature = "recursive_protection", recursive::recursive)]
    #[expect(clippy::allow_attributes)] // See https://github.com/apache/datafusion/issues/18881#issuecomment-3621545670
    #[allow(clippy::only_used_in_recursion)] // See https://github.com/rust-lang/rust-clippy/issues/14566
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(partial_agg_exec) = take_optimizable(&plan) {
            let partial_agg_exec = partial_agg_exec
                .downcast_ref::<AggregateExec>()
                .expect("take_optimizable() ensures that this is a AggregateExec");
            let stats = StatisticsContext::new()
                .compute(partial_agg_exec.input().as_ref(), &StatisticsArgs::new())?;
            let mut projections = vec![];
            for expr in partial_agg_exec.aggr_expr() {
                let field = expr.field();
                let args = expr.expressions();
                let statistics_args = PlanStatisticsArgs {
                    statistics: &stats,
                    return_type: field.data_type(),
                    is_distinct: expr.is_distinct(),
                    exprs: args.as_slice(),
                };
                if let Some((optimizable_statistic, name)) =
                    take_optimizable_value_from_statistics(&statistics_args, expr)
                {
                    projections.push(ProjectionExpr {
                        expr: expressions::lit(optimizable_statistic),
                        alias: name.to_owned(),
                    });
                } else {
                    // TODO: we need all aggr_expr to be resolved (cf TODO fullres)
                    break;
                }
            }

            // TODO fullres: use statistics even if not all aggr_expr could be resolved
            if projections.len() == partial_agg_exec.aggr_expr().len() {
                // input can be entirely removed
                Ok(Arc::new(ProjectionExec::try_new(
                    projections,
                    Arc::new(PlaceholderRowExec::new(plan.schema())),
                )?))
            } else {
                plan.map_children(|child| {
                    self.optimize(child, config).map(Transformed::yes)
                })
                .data()
            }
        } else {
            plan.map_children(|child| self.optimize(child, config).map(Transformed::yes))
                .data()
        }
    }

    fn name(&self) -> &str {
        "aggregate_statistics"
    }

    /// This rule will change the nullable properties of the schema, disable the schema check.
    fn schema_check(&self) -> bool {
        false
    }
}

/// Returns an `AggregateExec` whose statistics can replace the aggregate with
/// literal values: either a `Single`/`SinglePartitioned` aggregate, or a
/// `Final` aggregate wrapping a `Partial`. Must have no GROUP BY and no
/// filters.
fn take_optimizable(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    let agg_exec = plan.downcast_ref::<AggregateExec>()?;

    if matches!(
        agg_exec.mode(),
        AggregateMode::Single | AggregateMode::SinglePartitioned
    ) && agg_exec.group_expr().is_empty()
        && agg_exec.filter_expr().iter().all(|e| e.is_none())
    {
        return Some(Arc::clone(plan));
    }

    if agg_exec.mode().input_mode() == AggregateInputMode::Partial
        && agg_exec.group_expr().is_empty()
    {
        let mut child = Arc::clone(agg_exec.input());
        loop {
            if let Some(partial_agg_exec) = child.downcast_ref::<AggregateExec>()
                && partial_agg_exec.mode().input_mode() == AggregateInputMode::Raw
                && partial_agg_exec.group_expr().is_empty()
                && partial_agg_exec.filter_expr().iter().all(|e| e.is_none())
            {
                return Some(child);
            }
            if let [childrens_child] = child.children().as_slice() {
                child = Arc::clone(childrens_child);
            } else {
                break;
            }
        }
    }
    None
}

/// If this agg_expr is a max that is exactly defined in the statistics, return it.
fn take_optimizable_value_from_statistics(
    statistics_args: &PlanStatisticsArgs,
    agg_expr: &AggregateFunctionExpr,
) -> Option<(ScalarValue, String)> {
    let value = agg_expr.fun().value_from_stats(statistics_args)?;
    // swingdb: a SUM of no values is NULL, but the statistics' sum of no rows
    // is 0 (`SELECT sum(c) FROM (SELECT 1.5 AS c FROM empty)` gave 0.0, and
    // -0.0 for `-0.0 AS c`): a sum is taken from the statistics only where
    // they show its argument holds a value.
    if agg_expr.fun().name() == "sum" && !value.is_null() && !holds_a_value(statistics_args) {
        return None;
    }
    Some((value, agg_expr.name().to_string()))
}

/// swingdb: whether the statistics show a non-NULL value in the single
/// column (perhaps cast) that an aggregate reads.
fn holds_a_value(args: &PlanStatisticsArgs) -> bool {
    let Precision::Exact(rows) = args.statistics.num_rows else {
        return false;
    };
    let [expr] = args.exprs else {
        return false;
    };
    let column = expr.downcast_ref::<expressions::Column>().or_else(|| {
        expr.downcast_ref::<expressions::CastExpr>()?
            .expr()
            .downcast_ref::<expressions::Column>()
    });
    let Some(column) = column else {
        return false;
    };
    match args.statistics.column_statistics.get(column.index()) {
        Some(stats) => matches!(stats.null_count, Precision::Exact(nulls) if rows > nulls),
        None => false,
    }
}

// See tests in datafusion/core/tests/physical_optimizer
