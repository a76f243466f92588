//! The order of inner joins.
//!
//! DataFusion joins tables in the order the query names them (it only
//! chooses which side of each join to hash). TPC-H Q7 names supplier,
//! lineitem, orders, customer and two nations: joined in that order at SF10,
//! the 15M orders were hashed (2 GB) to meet 18M lineitem rows, and the two
//! nations that keep 2 of 25 countries came last, so every intermediate result
//! held all countries. DuckDB, PostgreSQL and SQLite choose the order by
//! estimated sizes; so does swingdb now, greedily: of the inputs of a tree of
//! three or more inner joins, the two whose join is estimated smallest are
//! joined first, then again over the results, until one is left (for Q7:
//! each nation with its suppliers or customers first).
//!
//! Estimates come from the same statistics and filter estimates the physical
//! planner uses (each input planned alone: a table scan under filters,
//! aliases, column selections and semi or anti joins); a join of `a` and `b`
//! on keys of `d_a` and `d_b` distinct values keeps `|a| |b| / max(d_a, d_b)`
//! rows (on several keys, by the most selective one). A tree with an input that cannot be estimated (a subquery's
//! aggregate, a table without statistics, a pipe) keeps the query's order. Only
//! inner joins with plain equality (not `IS NOT DISTINCT FROM`) and
//! conditions without subqueries or volatile functions are reordered; each
//! condition is applied at the first join that has all its columns, and each
//! join's output keeps only the columns still needed above it.

use crate::catalog::table::SegmentTable;
use crate::optimizer::selectivity::FilterSelectivity;
use datafusion::catalog::default_table_source::source_as_provider;
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{Column, DFSchema, NullEquality, Result};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::utils::{conjunction, split_conjunction_owned};
use datafusion::logical_expr::{BinaryExpr, Expr, JoinType, LogicalPlan, LogicalPlanBuilder, Operator};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::{ExecutionPlan, StatisticsArgs, StatisticsContext};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// `plan` with every tree of three or more inner joins put in the order
/// estimated cheapest (see the module documentation).
pub async fn order_joins(plan: LogicalPlan, session: &dyn Session) -> Result<LogicalPlan> {
    let mut inputs = vec![];
    collect_inputs(&plan, &mut inputs);
    if inputs.is_empty() {
        return Ok(plan);
    }
    let mut estimates = HashMap::new();
    for input in inputs {
        if let std::collections::hash_map::Entry::Vacant(slot) = estimates.entry(input.clone()) {
            // An input that cannot be estimated keeps its tree's order; it
            // never fails the query.
            slot.insert(estimate(&input, session).await.unwrap_or(None));
        }
    }
    reorder(plan, &estimates)
}

/// A join input's estimated rows, and distinct values by column name.
#[derive(Debug, Clone)]
struct Estimate {
    rows: f64,
    distinct: HashMap<String, f64>,
}

/// Adds to `inputs` the inputs of every reorderable join tree in `plan`.
fn collect_inputs(plan: &LogicalPlan, inputs: &mut Vec<LogicalPlan>) {
    if let Some((leaves, _)) = reorderable(plan) {
        for leaf in leaves {
            collect_inputs(&leaf, inputs);
            inputs.push(leaf);
        }
        return;
    }
    for child in plan.inputs() {
        collect_inputs(child, inputs);
    }
    // Subqueries in expressions are planned on their own.
}

/// The inputs and conditions of the inner-join tree rooted at `plan`, when
/// it joins three or more inputs and may be reordered.
fn reorderable(plan: &LogicalPlan) -> Option<(Vec<LogicalPlan>, Vec<Expr>)> {
    if !is_inner_join(plan) {
        return None;
    }
    let (mut leaves, mut conditions) = (vec![], vec![]);
    flatten(plan, &mut leaves, &mut conditions);
    let movable = conditions.iter().all(|c| !c.is_volatile() && !has_subquery(c));
    (leaves.len() >= 3 && movable).then_some((leaves, conditions))
}

fn is_inner_join(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Join(join) if join.join_type == JoinType::Inner
        && join.null_equality == NullEquality::NullEqualsNothing && !join.null_aware)
}

fn has_subquery(expr: &Expr) -> bool {
    expr.exists(|e| Ok(matches!(e, Expr::ScalarSubquery(_) | Expr::Exists(_) | Expr::InSubquery(_)))).unwrap_or(true)
}

/// Whether `plan` is an inner join, under column selections and filters.
fn joins_below(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Projection(p) if p.expr.iter().all(|e| matches!(e, Expr::Column(_))) => joins_below(&p.input),
        LogicalPlan::Filter(f) => joins_below(&f.input),
        plan => is_inner_join(plan),
    }
}

/// Splits an inner-join tree into its inputs and its conditions (join keys
/// as equalities, join filters, and filters between the joins).
fn flatten(plan: &LogicalPlan, leaves: &mut Vec<LogicalPlan>, conditions: &mut Vec<Expr>) {
    match plan {
        LogicalPlan::Join(join) if is_inner_join(plan) => {
            for side in [&join.left, &join.right] {
                match joins_below(side) {
                    true => flatten(side, leaves, conditions),
                    false => leaves.push(side.as_ref().clone()),
                }
            }
            conditions.extend(join.on.iter().map(|(l, r)| {
                Expr::BinaryExpr(BinaryExpr::new(Box::new(l.clone()), Operator::Eq, Box::new(r.clone())))
            }));
            if let Some(filter) = &join.filter {
                conditions.extend(split_conjunction_owned(filter.clone()));
            }
        }
        LogicalPlan::Projection(p) => flatten(&p.input, leaves, conditions),
        LogicalPlan::Filter(f) => {
            conditions.extend(split_conjunction_owned(f.predicate.clone()));
            flatten(&f.input, leaves, conditions);
        }
        other => leaves.push(other.clone()),
    }
}

/// The estimate of a join input: a table scan under filters, aliases, column
/// selections and semi or anti joins (which keep at most their left side's
/// rows), planned alone; `None` for anything else.
async fn estimate(input: &LogicalPlan, session: &dyn Session) -> Result<Option<Estimate>> {
    let mut conditions = vec![];
    let mut node = input;
    let scan = loop {
        match node {
            LogicalPlan::SubqueryAlias(a) => node = &a.input,
            LogicalPlan::Projection(p) if p.expr.iter().all(|e| matches!(e, Expr::Column(_))) => node = &p.input,
            LogicalPlan::Filter(f) => {
                conditions.extend(split_conjunction_owned(f.predicate.clone()));
                node = &f.input;
            }
            LogicalPlan::Join(j) if matches!(j.join_type, JoinType::LeftSemi | JoinType::LeftAnti) => node = &j.left,
            LogicalPlan::TableScan(scan) => break scan,
            _ => return Ok(None),
        }
    };
    for filter in &scan.filters {
        if !conditions.contains(filter) {
            conditions.push(filter.clone());
        }
    }
    if conditions.iter().any(|c| c.is_volatile() || has_subquery(c)) {
        return Ok(None);
    }
    // Only tables whose scan only maps data: stored tables and registered
    // memory data (a pipe's scan would open the pipe).
    let Ok(provider) = source_as_provider(&scan.source) else { return Ok(None) };
    if provider.downcast_ref::<SegmentTable>().is_none() && provider.downcast_ref::<MemTable>().is_none() {
        return Ok(None);
    }
    let mut plan: Arc<dyn ExecutionPlan> = provider.scan(session, scan.projection.as_ref(), &[], None).await?;
    let schema = DFSchema::try_from_qualified_schema(scan.table_name.clone(), &plan.schema())?;
    if let Some(predicate) = conjunction(conditions) {
        // Qualified as the scan's output, whatever alias the input gives it.
        let predicate = predicate
            .transform(|e| match e {
                Expr::Column(c) => {
                    Ok(Transformed::yes(Expr::Column(Column::new(Some(scan.table_name.clone()), c.name))))
                }
                e => Ok(Transformed::no(e)),
            })
            .data()?;
        let predicate = session.create_physical_expr(predicate, &schema)?;
        plan = FilterSelectivity.optimize(Arc::new(FilterExec::try_new(predicate, plan)?), session.config_options())?;
    }
    let stats = StatisticsContext::new().compute(plan.as_ref(), &StatisticsArgs::new())?;
    let rows = match stats.num_rows {
        Precision::Exact(n) | Precision::Inexact(n) => n as f64,
        Precision::Absent => return Ok(None),
    };
    let distinct = plan
        .schema()
        .fields()
        .iter()
        .zip(&stats.column_statistics)
        .filter_map(|(field, column)| match column.distinct_count {
            Precision::Exact(n) | Precision::Inexact(n) if n > 0 => Some((field.name().clone(), n as f64)),
            _ => None,
        })
        .collect();
    Ok(Some(Estimate { rows, distinct }))
}

/// `plan` with its reorderable join trees reordered where every input has
/// an estimate.
fn reorder(plan: LogicalPlan, estimates: &HashMap<LogicalPlan, Option<Estimate>>) -> Result<LogicalPlan> {
    if let Some((leaves, conditions)) = reorderable(&plan) {
        let known: Option<Vec<Estimate>> = leaves.iter().map(|l| estimates.get(l).cloned().flatten()).collect();
        if let Some(known) = known {
            let leaves = leaves.into_iter().map(|l| reorder(l, estimates)).collect::<Result<Vec<_>>>()?;
            return join_greedily(&plan, leaves, known, conditions);
        }
    }
    plan.map_children(|child| reorder(child, estimates).map(Transformed::yes)).data()
}

/// A join input or the join of several: its plan, estimated rows, distinct
/// values per column, and columns.
struct Part {
    plan: LogicalPlan,
    rows: f64,
    distinct: HashMap<Column, f64>,
    columns: HashSet<Column>,
}

impl Part {
    fn new(plan: LogicalPlan, estimate: Estimate) -> Self {
        let columns: HashSet<Column> = plan.schema().columns().into_iter().collect();
        let distinct = columns
            .iter()
            .filter_map(|c| estimate.distinct.get(&c.name).map(|d| (c.clone(), d.min(estimate.rows))))
            .collect();
        Self { plan, rows: estimate.rows, distinct, columns }
    }

    fn has(&self, expr: &Expr) -> bool {
        let used = expr.column_refs();
        !used.is_empty() && used.iter().all(|c| self.columns.contains(c))
    }

    /// Distinct values of the key expression `key` (one that is not a
    /// column of known distinct values counts as unique).
    fn distinct(&self, key: &Expr) -> f64 {
        let distinct = match key {
            Expr::Column(c) => self.distinct.get(c).copied().unwrap_or(self.rows),
            _ => self.rows,
        };
        distinct.clamp(1.0, self.rows.max(1.0))
    }
}

/// The equality `condition` as (key of `a`, key of `b`), if it joins them.
fn key_pair<'e>(condition: &'e Expr, a: &Part, b: &Part) -> Option<(&'e Expr, &'e Expr)> {
    let Expr::BinaryExpr(BinaryExpr { left, op: Operator::Eq, right }) = condition else { return None };
    if a.has(left) && b.has(right) {
        Some((left, right))
    } else if a.has(right) && b.has(left) {
        Some((right, left))
    } else {
        None
    }
}

/// Joins the parts two at a time, the pair estimated smallest first; pairs
/// with no equality between them only when no other pair is left.
fn join_greedily(
    original: &LogicalPlan,
    leaves: Vec<LogicalPlan>,
    estimates: Vec<Estimate>,
    conditions: Vec<Expr>,
) -> Result<LogicalPlan> {
    let output: Vec<Column> = original.schema().columns();
    let mut parts: Vec<Part> =
        leaves.into_iter().zip(estimates).map(|(plan, estimate)| Part::new(plan, estimate)).collect();
    let mut pending = conditions;
    while parts.len() > 1 {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in 0..parts.len() {
            for j in i + 1..parts.len() {
                let keys: Vec<(&Expr, &Expr)> =
                    pending.iter().filter_map(|c| key_pair(c, &parts[i], &parts[j])).collect();
                if keys.is_empty() {
                    continue;
                }
                // By the most selective key alone: keys of several columns
                // are usually correlated (lineitem's part and supplier pairs
                // are partsupp's), and taking them as independent put
                // TPC-H Q9's partsupp-lineitem join first, estimated 7x
                // too small.
                let (a, b) = (&parts[i], &parts[j]);
                let distinct = keys.iter().map(|(ka, kb)| a.distinct(ka).max(b.distinct(kb))).fold(1.0, f64::max);
                let rows = a.rows * b.rows / distinct;
                if best.is_none_or(|(least, _, _)| rows < least) {
                    best = Some((rows, i, j));
                }
            }
        }
        let (rows, i, j) = match best {
            Some(best) => best,
            None => {
                // No equality joins any two parts: the two smallest, crossed.
                let mut order: Vec<usize> = (0..parts.len()).collect();
                order.sort_by(|x, y| parts[*x].rows.total_cmp(&parts[*y].rows));
                let (i, j) = (order[0].min(order[1]), order[0].max(order[1]));
                (parts[i].rows * parts[j].rows, i, j)
            }
        };
        let b = parts.remove(j);
        let a = parts.remove(i);
        let (mut left_keys, mut right_keys, mut filters, mut rest) = (vec![], vec![], vec![], vec![]);
        for condition in pending {
            if let Some((l, r)) = key_pair(&condition, &a, &b) {
                left_keys.push(l.clone());
                right_keys.push(r.clone());
            } else if condition.column_refs().iter().all(|c| a.columns.contains(c) || b.columns.contains(c)) {
                filters.push(condition);
            } else {
                rest.push(condition);
            }
        }
        pending = rest;
        // The smaller part first: DataFusion hashes the left side unless
        // its statistics say otherwise.
        let (a, b, left_keys, right_keys) = match a.rows <= b.rows {
            true => (a, b, left_keys, right_keys),
            false => (b, a, right_keys, left_keys),
        };
        let joined = LogicalPlanBuilder::from(a.plan)
            .join_with_expr_keys(b.plan, JoinType::Inner, (left_keys, right_keys), conjunction(filters))?
            .build()?;
        // Only the columns still needed: the tree's output, and the pending
        // conditions'.
        let needed: HashSet<Column> =
            output.iter().cloned().chain(pending.iter().flat_map(|c| c.column_refs().into_iter().cloned())).collect();
        let kept: Vec<Expr> =
            joined.schema().columns().into_iter().filter(|c| needed.contains(c)).map(Expr::Column).collect();
        let plan = match kept.len() < joined.schema().fields().len() {
            true => LogicalPlanBuilder::from(joined).project(kept)?.build()?,
            false => joined,
        };
        let rows = rows.max(1.0);
        let distinct = a.distinct.into_iter().chain(b.distinct).map(|(c, d)| (c, d.min(rows))).collect();
        let columns = plan.schema().columns().into_iter().collect();
        parts.push(Part { plan, rows, distinct, columns });
    }
    let Some(part) = parts.pop() else { unreachable!("three or more inputs") };
    let mut plan = part.plan;
    if !pending.is_empty() {
        plan = LogicalPlanBuilder::from(plan).filter(conjunction(pending).expect("conditions"))?.build()?;
    }
    LogicalPlanBuilder::from(plan).project(output.into_iter().map(Expr::Column))?.build()
}
