//! Joins keyed on what identifies a row of one side. When a join's equalities
//! include every GROUP BY column of an aggregate on one side, each row of the
//! other side matches at most one group: the other equalities (on aggregated
//! values) decide nothing a hash lookup needs, and they stop DataFusion's
//! runtime filter (built from all join keys) from passing the aggregate, since
//! it would test values the aggregate has not computed yet. Checked after the
//! lookup instead (as the join's filter), they leave a runtime filter on the
//! group columns only, which DataFusion pushes below the aggregate: the
//! aggregate then reads only the rows of groups the join can match.
//!
//! This is the shape of a decorrelated comparison with an aggregate over the
//! correlated key, such as TPC-H Q2's `ps_supplycost = (SELECT
//! min(ps_supplycost) ... WHERE p_partkey = ps_partkey)`: before, the minimum
//! was computed for every part and then joined with the few parts the outer
//! query keeps.
//!
//! For the same reason a semi join whose other side is unique on its keys
//! becomes an inner join keeping the first side's columns (each row matches
//! at most one row there, so the rows are the same): DataFusion gives a
//! runtime filter only to a join input whose rows the join keeps, which a
//! semi join's lookup side is not. In Q2 that side is the aggregate.
//!
//! Applied to the final logical plan (DataFusion's optimizer moves equalities
//! from a join's filter back into its keys, and semi joins are its own
//! rewrite of the subquery), only to joins where NULL equals nothing (moving
//! `a = b` from the keys to the filter keeps its meaning) and whatever their
//! type: the filter is part of the join's ON condition.

use datafusion::common::tree_node::Transformed;
use datafusion::common::{Column, NullEquality, Result};
use datafusion::logical_expr::{and, Expr, Join, JoinType, LogicalPlan, Projection};
use std::collections::HashSet;
use std::sync::Arc;

/// `plan` with the equalities of joins on a unique key of one side beyond that
/// key moved into the join's filter (see the module's doc).
pub fn key_joins_on_unique_columns(plan: LogicalPlan) -> Result<LogicalPlan> {
    Ok(plan
        .transform_up_with_subqueries(|node| match node {
            LogicalPlan::Join(join) => {
                let narrowed = narrow_keys(join)?;
                let transformed = narrowed.transformed;
                semi_as_inner(narrowed.data).map(|t| Transformed::new_transformed(t.data, t.transformed || transformed))
            }
            other => Ok(Transformed::no(other)),
        })?
        .data)
}

/// A semi join whose lookup side is unique on its join keys, as an inner join
/// and a projection of the kept side's columns (see the module's doc).
fn semi_as_inner(join: Join) -> Result<Transformed<LogicalPlan>> {
    let lookup_right = match join.join_type {
        JoinType::LeftSemi => true,
        JoinType::RightSemi => false,
        _ => return Ok(Transformed::no(LogicalPlan::Join(join))),
    };
    let lookup = if lookup_right { &join.right } else { &join.left };
    let keys: HashSet<&Column> = join
        .on
        .iter()
        .filter_map(|(l, r)| match if lookup_right { r } else { l } {
            Expr::Column(c) => Some(c),
            _ => None,
        })
        .collect();
    let unique = unique_columns(lookup);
    if join.null_equality != NullEquality::NullEqualsNothing
        || join.null_aware
        || !unique.is_some_and(|u| u.iter().all(|c| keys.contains(c)))
    {
        return Ok(Transformed::no(LogicalPlan::Join(join)));
    }
    let kept: Vec<Expr> = (if lookup_right { &join.left } else { &join.right })
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    // Columns named alike on both sides cannot be joined into one schema: such a join stays a semi join.
    let Ok(inner) = Join::try_new(
        join.left.clone(),
        join.right.clone(),
        join.on.clone(),
        join.filter.clone(),
        JoinType::Inner,
        join.join_constraint,
        join.null_equality,
        false,
    ) else {
        return Ok(Transformed::no(LogicalPlan::Join(join)));
    };
    let projection = Projection::try_new(kept, Arc::new(LogicalPlan::Join(inner)))?;
    Ok(Transformed::yes(LogicalPlan::Projection(projection)))
}

fn narrow_keys(join: Join) -> Result<Transformed<Join>> {
    if join.null_equality != NullEquality::NullEqualsNothing || join.null_aware || join.on.len() < 2 {
        return Ok(Transformed::no(join));
    }
    let keep = |side: usize| -> Option<Vec<bool>> {
        let plan = if side == 0 { &join.left } else { &join.right };
        let unique = unique_columns(plan)?;
        let keys: Vec<bool> = join
            .on
            .iter()
            .map(|pair| matches!(if side == 0 { &pair.0 } else { &pair.1 }, Expr::Column(c) if unique.contains(c)))
            .collect();
        let covered: HashSet<&Column> = join
            .on
            .iter()
            .zip(&keys)
            .filter(|(_, &key)| key)
            .filter_map(|(pair, _)| match if side == 0 { &pair.0 } else { &pair.1 } {
                Expr::Column(c) => Some(c),
                _ => None,
            })
            .collect();
        let all_covered = unique.iter().all(|c| covered.contains(c));
        (all_covered && keys.iter().any(|k| !k)).then_some(keys)
    };
    let Some(keys) = keep(1).or_else(|| keep(0)) else { return Ok(Transformed::no(join)) };
    let mut join = join;
    let mut on = Vec::new();
    let mut moved = Vec::new();
    for ((left, right), key) in join.on.into_iter().zip(keys) {
        if key {
            on.push((left, right));
        } else {
            moved.push(left.eq(right));
        }
    }
    join.on = on;
    join.filter = moved.into_iter().chain(join.filter.take()).reduce(and);
    Ok(Transformed::yes(join))
}

/// Columns of `plan`'s output whose values together occur in at most one of
/// its rows (the GROUP BY columns of an aggregate, through what keeps rows
/// and columns apart), if it has such a set that this can tell.
fn unique_columns(plan: &LogicalPlan) -> Option<Vec<Column>> {
    match plan {
        LogicalPlan::Aggregate(aggregate) => {
            if aggregate.group_expr.is_empty() || aggregate.group_expr.iter().any(|e| matches!(e, Expr::GroupingSet(_)))
            {
                return None;
            }
            let columns = aggregate.schema.columns();
            Some(columns[..aggregate.group_expr.len()].to_vec())
        }
        LogicalPlan::Filter(filter) => unique_columns(&filter.input),
        LogicalPlan::Sort(sort) => unique_columns(&sort.input),
        LogicalPlan::Limit(limit) => unique_columns(&limit.input),
        LogicalPlan::SubqueryAlias(alias) => {
            let inner = unique_columns(&alias.input)?;
            let input_columns = alias.input.schema().columns();
            let output_columns = alias.schema.columns();
            inner.iter().map(|c| input_columns.iter().position(|i| i == c).map(|i| output_columns[i].clone())).collect()
        }
        LogicalPlan::Projection(projection) => {
            let inner = unique_columns(&projection.input)?;
            let output_columns = projection.schema.columns();
            inner
                .iter()
                .map(|c| {
                    projection
                        .expr
                        .iter()
                        .position(|e| matches!(e.clone().unalias(), Expr::Column(p) if p == *c))
                        .map(|i| output_columns[i].clone())
                })
                .collect()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::common::tree_node::TreeNode;
    use datafusion::functions_aggregate::expr_fn::min;
    use datafusion::logical_expr::{col, logical_plan::builder::LogicalTableSource, LogicalPlanBuilder};

    fn scan(name: &str) -> LogicalPlanBuilder {
        let schema = Schema::new(vec![Field::new("k", DataType::Int64, true), Field::new("v", DataType::Int64, true)]);
        LogicalPlanBuilder::scan(name, Arc::new(LogicalTableSource::new(Arc::new(schema))), None).unwrap()
    }

    /// The first join of `plan`.
    fn first_join(plan: &LogicalPlan) -> Join {
        let mut found = None;
        plan.apply(|node| {
            if let (LogicalPlan::Join(join), None) = (node, &found) {
                found = Some(join.clone());
            }
            Ok(datafusion::common::tree_node::TreeNodeRecursion::Continue)
        })
        .unwrap();
        found.unwrap()
    }

    /// How many keys the first join of `plan` has, and whether it has a filter.
    fn join_keys(plan: &LogicalPlan) -> (usize, bool) {
        let join = first_join(plan);
        (join.on.len(), join.filter.is_some())
    }

    #[test]
    fn equalities_beyond_the_group_key_move_to_the_filter() {
        let groups = scan("b").aggregate(vec![col("k")], vec![min(col("v")).alias("m")]).unwrap().alias("g").unwrap();
        let plan = scan("a")
            .join(groups.build().unwrap(), JoinType::Inner, (vec!["a.k", "a.v"], vec!["g.k", "g.m"]), None)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(join_keys(&plan), (2, false));
        assert_eq!(join_keys(&key_joins_on_unique_columns(plan).unwrap()), (1, true));
    }

    #[test]
    fn joins_not_covering_the_group_key_are_left_alone() {
        let groups = scan("b").aggregate(vec![col("k"), col("v")], vec![min(col("v")).alias("m")]).unwrap();
        let plan = scan("a")
            .join(groups.build().unwrap(), JoinType::Inner, (vec!["a.k", "a.v"], vec!["b.k", "m"]), None)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(join_keys(&key_joins_on_unique_columns(plan).unwrap()), (2, false));
    }

    #[test]
    fn semi_joins_on_a_unique_side_become_inner_joins_with_the_same_columns() {
        let groups = scan("b").aggregate(vec![col("k")], vec![min(col("v")).alias("m")]).unwrap().alias("g").unwrap();
        let plan = scan("a")
            .join(groups.build().unwrap(), JoinType::LeftSemi, (vec!["a.k"], vec!["g.k"]), None)
            .unwrap()
            .build()
            .unwrap();
        let rewritten = key_joins_on_unique_columns(plan.clone()).unwrap();
        assert_eq!(first_join(&rewritten).join_type, JoinType::Inner);
        assert_eq!(rewritten.schema().columns(), plan.schema().columns());
        // Not unique on the join key: stays a semi join.
        let plan = scan("a")
            .join(scan("b").build().unwrap(), JoinType::LeftSemi, (vec!["a.k"], vec!["b.k"]), None)
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(first_join(&key_joins_on_unique_columns(plan).unwrap()).join_type, JoinType::LeftSemi);
    }
}
