//! Correlated subqueries DataFusion cannot run. DataFusion unnests the common
//! shapes into joins (`EXISTS`/`IN` in WHERE, aggregated scalar subqueries
//! correlated by equality); others, such as `(SELECT count(*) FROM t1 AS x
//! WHERE x.b < t1.b)` in the select list, a subquery in ORDER BY or JOIN ON,
//! `EXISTS (...)` as a value, or a scalar subquery without an aggregate, it
//! refuses while planning. swingdb plans those as a [`node::PerKeySubquery`]:
//! the subquery runs once per distinct value of the outer columns it reads,
//! which is correct for every shape and costs one run per distinct key (shown
//! by EXPLAIN).
//!
//! Two rules find them: [`PlanRefusedSubqueries`] (analyzer, last) takes the
//! subqueries DataFusion's plan checks would refuse, and
//! [`PlanRemainingSubqueries`] (optimizer, last) those its rewrites left in
//! place; [`PerKeySubqueryPlanner`] gives the node its operator.

mod exec;
mod node;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{not_impl_err, Column, Result};
use datafusion::logical_expr::expr::{Exists, InSubquery, SetComparison};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::logical_plan::check_subquery_expr;
use datafusion::logical_expr::utils::split_conjunction;
use datafusion::logical_expr::{BinaryExpr, Expr, Extension, LogicalPlan, Operator, Projection, Subquery};
use datafusion::optimizer::{AnalyzerRule, OptimizerConfig, OptimizerRule};
pub use exec::PerKeySubqueryPlanner;
use node::{outer_keys, with_own_columns, PerKeySubquery};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Analyzer rule: plans per key the subqueries DataFusion's plan checks refuse
/// (a correlated scalar subquery without an aggregate, any subquery in ORDER BY
/// or JOIN ON, correlation inside operators DataFusion cannot unnest).
#[derive(Debug, Default)]
pub struct PlanRefusedSubqueries;

impl AnalyzerRule for PlanRefusedSubqueries {
    fn name(&self) -> &str {
        "plan_refused_subqueries"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|node| plan_per_key(node, &refused)).data()
    }
}

/// Optimizer rule: plans per key the subqueries still in the plan after
/// DataFusion's unnesting rules (the physical planner has no operator for
/// them), except uncorrelated scalar subqueries, which DataFusion's physical
/// planner runs once before the query when its
/// `enable_physical_uncorrelated_scalar_subquery` is on (the default): as a
/// per-key subquery they were planned anew at every run (about 3 ms of TPC-H
/// Q11's 30). Those holding subqueries of their own are still taken here,
/// since the physical planner would meet the inner ones unplanned.
#[derive(Debug, Default)]
pub struct PlanRemainingSubqueries;

impl OptimizerRule for PlanRemainingSubqueries {
    fn name(&self) -> &str {
        "plan_remaining_subqueries"
    }

    fn rewrite(&self, plan: LogicalPlan, config: &dyn OptimizerConfig) -> Result<Transformed<LogicalPlan>> {
        let run_once = config.options().optimizer.enable_physical_uncorrelated_scalar_subquery;
        plan.transform_up(|node| plan_per_key(node, &|_, expr| Ok(!(run_once && runs_once(expr)))))
    }
}

/// Whether `expr` is a scalar subquery DataFusion's physical planner runs
/// once: it reads no outer column and holds no subquery itself.
fn runs_once(expr: &Expr) -> bool {
    let Expr::ScalarSubquery(subquery) = expr else { return false };
    let nested = subquery.subquery.exists(|node| {
        let mut found = false;
        node.apply_expressions(|e| {
            found = e.exists(|inner| Ok(subquery_of(inner).is_some()))?;
            Ok(if found { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
        })?;
        Ok(found)
    });
    subquery.outer_ref_columns.is_empty() && matches!(nested, Ok(false))
}

/// The subquery of a subquery expression.
fn subquery_of(expr: &Expr) -> Option<&Subquery> {
    match expr {
        Expr::ScalarSubquery(subquery)
        | Expr::Exists(Exists { subquery, .. })
        | Expr::InSubquery(InSubquery { subquery, .. })
        | Expr::SetComparison(SetComparison { subquery, .. }) => Some(subquery),
        _ => None,
    }
}

/// Whether DataFusion's checks refuse subquery expression `expr` of `node` for
/// a reason per-key evaluation removes. A subquery with several columns where
/// one is needed keeps DataFusion's error, which says so.
fn refused(node: &LogicalPlan, expr: &Expr) -> Result<bool> {
    let Some(subquery) = subquery_of(expr) else { return Ok(false) };
    if !matches!(expr, Expr::Exists(_)) && subquery.subquery.schema().fields().len() != 1 {
        return Ok(false);
    }
    // DataFusion rewrites `x op ALL|ANY (...)` into EXISTS tests that only its
    // WHERE unnesting handles (and loses the column's name doing so elsewhere).
    let compared_outside_where = matches!(expr, Expr::SetComparison(_)) && !matches!(node, LogicalPlan::Filter(_));
    Ok(compared_outside_where
        || unnesting_ignores_nulls(node, expr)
        || reaches_past_parent(&subquery.subquery, &with_own_columns(&subquery.subquery, &HashSet::new())?)?
        || check_subquery_expr(node, &subquery.subquery, expr).is_err())
}

/// Whether a subquery nested in `plan` reads columns of a query further out
/// than `plan` (`scope`: the columns `plan` and the queries between can name).
/// DataFusion's unnesting turns such a reference into a plain column of a
/// query that does not have it; planned per key, the outer value is bound
/// before the nested subquery is planned.
fn reaches_past_parent(plan: &LogicalPlan, scope: &HashSet<Column>) -> Result<bool> {
    let mut reaches = false;
    plan.apply(|node| {
        node.apply_expressions(|expr| {
            expr.apply(|e| {
                let Some(nested) = subquery_of(e) else { return Ok(TreeNodeRecursion::Continue) };
                let mut outside = false;
                nested.subquery.apply(|inner| {
                    inner.apply_expressions(|inner_expr| {
                        inner_expr.apply(|x| {
                            if let Expr::OuterReferenceColumn(_, column) = x {
                                outside |= !scope.contains(column);
                            }
                            Ok(TreeNodeRecursion::Continue)
                        })
                    })
                })?;
                reaches =
                    outside || reaches_past_parent(&nested.subquery, &with_own_columns(&nested.subquery, scope)?)?;
                Ok(if reaches { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Jump })
            })
        })
    })?;
    Ok(reaches)
}

/// Whether DataFusion's unnesting of `[NOT] IN (SELECT ...)` in a WHERE would
/// treat its NULL (unknown) answer as false where that changes rows: its
/// semi and mark joins know only true and false, which is right where the
/// test is reached from the predicate through AND and OR alone, not negated;
/// its NULL-aware anti join is right for `NOT IN` as a whole conjunct, but
/// only when uncorrelated and compared with a column. Elsewhere (`NOT (x IN ...)`, `... IS NULL`, a
/// correlated `NOT IN`) the test is planned per key, which keeps SQL's rules.
fn unnesting_ignores_nulls(node: &LogicalPlan, expr: &Expr) -> bool {
    let (LogicalPlan::Filter(filter), Expr::InSubquery(_)) = (node, expr) else { return false };
    let mut safe = Vec::new();
    for conjunct in split_conjunction(&filter.predicate) {
        match conjunct {
            // The anti join is NULL-aware only through its join key: a left
            // side without a column of the input (`5 NOT IN (...)`) makes
            // none, and a NULL in the subquery was ignored.
            Expr::InSubquery(InSubquery { negated: true, subquery, expr })
                if subquery.outer_ref_columns.is_empty() && expr.any_column_refs() =>
            {
                safe.push(conjunct)
            }
            _ => positive_tests(conjunct, &mut safe),
        }
    }
    !safe.contains(&expr)
}

/// The `IN (SELECT ...)` tests reached from `expr` through AND and OR alone.
fn positive_tests<'a>(expr: &'a Expr, found: &mut Vec<&'a Expr>) {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::And | Operator::Or, right }) => {
            positive_tests(left, found);
            positive_tests(right, found);
        }
        Expr::InSubquery(InSubquery { negated: false, .. }) => found.push(expr),
        _ => {}
    }
}

/// Names of the columns the per-key nodes add (projected away again, or
/// renamed to the expression's own name).
fn next_answer_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("__swingdb_subquery_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `node` with the subquery expressions `select` picks planned per key: each
/// becomes a [`PerKeySubquery`] over the input that has the columns it reads
/// and a column reference in `node`; output names and columns stay as they were.
fn plan_per_key(
    node: LogicalPlan,
    select: &dyn Fn(&LogicalPlan, &Expr) -> Result<bool>,
) -> Result<Transformed<LogicalPlan>> {
    let mut chosen: Vec<Expr> = Vec::new();
    node.apply_expressions(|expr| {
        expr.apply(|e| {
            if subquery_of(e).is_some() && !chosen.contains(e) && select(&node, e)? {
                chosen.push(e.clone());
            }
            Ok(TreeNodeRecursion::Continue)
        })
    })?;
    // A node without inputs (a scan given a condition) has no rows to answer
    // a subquery for; it stays for the planner to refuse.
    if chosen.is_empty() || node.inputs().is_empty() {
        return Ok(Transformed::no(node));
    }
    // Subqueries inside another's compared expression (`(SELECT ...) IN (SELECT ...)`)
    // are found after it; answer them first so it can read their column.
    chosen.reverse();
    let mut inputs: Vec<LogicalPlan> = node.inputs().into_iter().cloned().collect();
    let mut answers: Vec<(Expr, Expr)> = Vec::new();
    for expr in chosen {
        let bound = replace_answered(expr.clone(), &answers)?;
        let name = next_answer_name();
        let side = input_with_columns(&mut inputs, &bound)?;
        let Some(per_key) = PerKeySubquery::try_new(inputs[side].clone(), &bound, name.clone())? else {
            continue;
        };
        inputs[side] = LogicalPlan::Extension(Extension { node: Arc::new(per_key) });
        answers.push((expr, Expr::Column(Column::new_unqualified(name))));
    }
    // Sort keys name nothing; other expressions keep the name they had.
    let preserver = (!matches!(node, LogicalPlan::Sort(_))).then(|| NamePreserver::new(&node));
    let exprs = node
        .expressions()
        .into_iter()
        .map(|expr| {
            let saved = preserver.as_ref().map(|preserver| preserver.save(&expr));
            let replaced = replace_answered(expr, &answers)?;
            Ok(match saved {
                Some(saved) => saved.restore(replaced),
                None => replaced,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let original = node.schema().clone();
    let mut planned = node.with_new_exprs(exprs, inputs)?;
    if planned.schema().fields().len() != original.fields().len() {
        // Nodes that pass their input's columns through (filters, sorts,
        // joins) would also pass the answers on.
        let columns = original.columns().into_iter().map(Expr::Column).collect();
        planned = LogicalPlan::Projection(Projection::try_new(columns, Arc::new(planned))?);
    }
    Ok(Transformed::yes(planned))
}

/// `expr` with the subquery expressions already answered replaced by their columns.
fn replace_answered(expr: Expr, answers: &[(Expr, Expr)]) -> Result<Expr> {
    expr.transform_down(|e| {
        Ok(match answers.iter().find(|(answered, _)| *answered == e) {
            Some((_, column)) => Transformed::new(column.clone(), true, TreeNodeRecursion::Jump),
            None => Transformed::no(e),
        })
    })
    .data()
}

/// Which of the node's inputs has every column `expr` reads (for a join: the
/// side the subquery is correlated with). A projection under a sort lacks the
/// columns ORDER BY reads but does not show; it gets them added.
fn input_with_columns(inputs: &mut [LogicalPlan], expr: &Expr) -> Result<usize> {
    let mut needed: Vec<Column> = Vec::new();
    if let Some(subquery) = subquery_of(expr) {
        for input in inputs.iter() {
            let mut scope = input.schema().as_ref().clone();
            if let LogicalPlan::Projection(projection) = input {
                scope.merge(projection.input.schema());
            }
            outer_keys(&subquery.subquery, &scope, &HashSet::new(), &mut needed)?;
        }
    }
    if let Expr::InSubquery(InSubquery { expr, .. }) | Expr::SetComparison(SetComparison { expr, .. }) = expr {
        needed.extend(expr.column_refs().into_iter().cloned());
    }
    for (side, input) in inputs.iter_mut().enumerate() {
        if needed.iter().all(|column| input.schema().has_column(column)) {
            return Ok(side);
        }
        if let LogicalPlan::Projection(projection) = input {
            let under = projection.input.schema();
            if needed.iter().all(|column| projection.schema.has_column(column) || under.has_column(column)) {
                let mut exprs = projection.expr.clone();
                for column in &needed {
                    if !projection.schema.has_column(column) {
                        exprs.push(Expr::Column(column.clone()));
                    }
                }
                *input = LogicalPlan::Projection(Projection::try_new(exprs, projection.input.clone())?);
                return Ok(side);
            }
        }
    }
    if inputs.len() > 1 {
        return not_impl_err!(
            "a subquery in JOIN ... ON that reads columns of both joined tables is not supported; \
             move the condition to WHERE"
        );
    }
    Ok(0)
}
