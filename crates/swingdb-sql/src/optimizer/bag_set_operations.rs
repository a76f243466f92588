//! `INTERSECT ALL` and `EXCEPT ALL` with the SQL standard's bag semantics: a
//! row that is `m` times on the left and `n` times on the right is `min(m,
//! n)` times in the intersection and `max(m - n, 0)` times in the difference.
//! DataFusion plans both as a semi (anti) join on every column, which keeps
//! all `m` copies of a left row with any match (and drops all of them):
//! `VALUES 1,1,1,2 INTERSECT ALL VALUES 1,2,2` gave 1,1,1,2 instead of 1,2.
//!
//! An analyzer rule numbers the copies of each row on both sides
//! (`row_number() OVER (PARTITION BY every column)`) and joins on the number
//! too, so that the `i`-th copy on the left meets the `i`-th on the right
//! (as DuckDB does). The distinct forms (`INTERSECT`, `EXCEPT`), whose left
//! side DataFusion makes distinct first, stay as they are.
//!
//! The pattern is recognized by what only a set operation builds, before
//! the optimizer turns subqueries into joins: a semi or anti join on every
//! column pairwise (cast to a common type where the sides' types differ),
//! with NULLs equal, and nothing else.

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{Column, NullEquality, Result as DFResult};
use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::{
    Distinct, Expr, ExprFunctionExt, Join, JoinType, LogicalPlan, LogicalPlanBuilder, Projection,
};
use datafusion::optimizer::AnalyzerRule;
use std::sync::Arc;

/// The analyzer rule that gives `INTERSECT ALL` and `EXCEPT ALL` bag semantics.
#[derive(Debug, Default)]
pub struct BagSetOperations;

impl AnalyzerRule for BagSetOperations {
    fn name(&self) -> &str {
        "bag_set_operations"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(rewrite).data()
    }
}

/// The names of the copy numbers on each side.
const LEFT_COPY: &str = "__swingdb_left_copy";
const RIGHT_COPY: &str = "__swingdb_right_copy";

/// Whether `join` is what `INTERSECT ALL` / `EXCEPT ALL` plan (see the module docs).
fn is_bag_set_operation(join: &Join) -> bool {
    let (left, right) = (join.left.schema(), join.right.schema());
    matches!(join.join_type, JoinType::LeftSemi | JoinType::LeftAnti)
        && join.null_equality == NullEquality::NullEqualsNull
        && join.filter.is_none()
        && !join.null_aware
        && !matches!(join.left.as_ref(), LogicalPlan::Distinct(Distinct::All(_)))
        && left.fields().len() == right.fields().len()
        && join.on.len() == left.fields().len()
        && join.on.iter().enumerate().all(|(i, (l, r))| match (key_column(l), key_column(r)) {
            (Some(lc), Some(rc)) => {
                left.index_of_column(lc).ok() == Some(i) && right.index_of_column(rc).ok() == Some(i)
            }
            _ => false,
        })
}

/// The column a join key reads: itself, or under the cast type coercion put
/// on it when the two sides' types differ.
fn key_column(key: &Expr) -> Option<&Column> {
    match key {
        Expr::Column(c) => Some(c),
        Expr::Cast(cast) => key_column(&cast.expr),
        Expr::TryCast(cast) => key_column(&cast.expr),
        _ => None,
    }
}

/// `plan` with the copy number of each row among its equals, as `name`.
fn numbered(plan: Arc<LogicalPlan>, name: &str) -> DFResult<LogicalPlan> {
    let columns: Vec<Expr> = plan.schema().columns().into_iter().map(Expr::Column).collect();
    let copy = row_number().partition_by(columns).build()?.alias(name);
    LogicalPlanBuilder::from(plan).window(vec![copy])?.build()
}

fn rewrite(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let LogicalPlan::Join(join) = plan else { return Ok(Transformed::no(plan)) };
    if !is_bag_set_operation(&join) {
        return Ok(Transformed::no(LogicalPlan::Join(join)));
    }
    let output: Vec<Expr> = join.left.schema().columns().into_iter().map(Expr::Column).collect();
    let left = numbered(join.left, LEFT_COPY)?;
    let right = numbered(join.right, RIGHT_COPY)?;
    let mut on = join.on;
    on.push((Expr::Column(Column::from_name(LEFT_COPY)), Expr::Column(Column::from_name(RIGHT_COPY))));
    let joined = Join::try_new(
        Arc::new(left),
        Arc::new(right),
        on,
        None,
        join.join_type,
        join.join_constraint,
        NullEquality::NullEqualsNull,
        false,
    )?;
    let projected = Projection::try_new(output, Arc::new(LogicalPlan::Join(joined)))?;
    Ok(Transformed::yes(LogicalPlan::Projection(projected)))
}
