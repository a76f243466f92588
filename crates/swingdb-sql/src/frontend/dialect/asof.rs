//! DuckDB's `ASOF JOIN`: each row of the left side joins the one row of the
//! right side that matches its equalities and is the closest by the one
//! inequality (`a.t >= b.t`: the latest `b.t` not after `a.t`); `ASOF LEFT
//! JOIN` keeps left rows without a match. (Snowflake's `ASOF JOIN b
//! MATCH_CONDITION (a.t >= b.t) ON a.k = b.k` means the same.)
//!
//! Planned as the join it is plus the condition that the right row's value
//! is the closest one, found by a correlated subquery over the right side:
//! `a JOIN b ON a.k = b.k AND a.t >= b.t AND b.t = (SELECT max(r.t) FROM b r
//! WHERE a.k = r.k AND a.t >= r.t)`, which the engine runs once per distinct
//! `(a.k, a.t)` (see `sql::optimizer::subquery`). Right rows that tie on the closest
//! value all join (DuckDB keeps one of them, unspecified which).

use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, BinaryOperator, Expr, Ident, Join, JoinConstraint, JoinOperator,
    TableAlias, TableFactor, TableWithJoins, Value,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, Result};

/// What the right side is called inside the subquery that finds the closest row.
const INNER: &str = "__swingdb_asof";

/// Rewrites the ASOF joins of `from` (see the module documentation).
pub fn rewrite(from: &mut TableWithJoins) -> Result<()> {
    for k in 0..from.joins.len() {
        if !matches!(from.joins[k].join_operator, JoinOperator::AsOf { .. }) {
            continue;
        }
        let left = if k == 0 { &from.relation } else { &from.joins[k - 1].relation };
        let left_name = factor_name(left);
        from.joins[k] = rewrite_join(&from.joins[k], left_name)?;
    }
    Ok(())
}

/// The name columns of `factor` are qualified with: its alias, else its table's name.
fn factor_name(factor: &TableFactor) -> Option<Ident> {
    match factor {
        TableFactor::Table { alias: Some(alias), .. } | TableFactor::Derived { alias: Some(alias), .. } => {
            Some(alias.name.clone())
        }
        TableFactor::Table { name, .. } => name.0.last()?.as_ident().cloned(),
        _ => None,
    }
}

fn refuse(what: &str) -> Error {
    Error::programming(format!("ASOF JOIN {what}, as in `a ASOF JOIN b ON a.k = b.k AND a.t >= b.t`"))
}

fn rewrite_join(join: &Join, left: Option<Ident>) -> Result<Join> {
    let JoinOperator::AsOf { match_condition, constraint } = &join.join_operator else { return Ok(join.clone()) };
    let outer = matches!(match_condition, Expr::Value(v) if v.value == Value::Boolean(false));
    let right = factor_name(&join.relation).ok_or_else(|| refuse("needs a name for its right side (an alias)"))?;
    let mut conditions = Vec::new();
    if !matches!(match_condition, Expr::Value(v) if matches!(v.value, Value::Boolean(_))) {
        conditions.push(match_condition.clone());
    }
    match constraint {
        JoinConstraint::On(on) => split_conjuncts(on, &mut conditions),
        JoinConstraint::Using(columns) => {
            let left = left.ok_or_else(|| refuse("USING needs a named table on its left"))?;
            for (i, column) in columns.iter().enumerate() {
                let column = column
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .cloned()
                    .ok_or_else(|| refuse("USING takes column names"))?;
                let op = if i + 1 == columns.len() { BinaryOperator::GtEq } else { BinaryOperator::Eq };
                let side = |table: &Ident| Box::new(Expr::CompoundIdentifier(vec![table.clone(), column.clone()]));
                conditions.push(Expr::BinaryOp { left: side(&left), op, right: side(&right) });
            }
        }
        _ => return Err(refuse("needs ON or USING conditions")),
    }
    for condition in &conditions {
        check_qualified(condition)?;
    }
    let inequalities: Vec<usize> = (0..conditions.len())
        .filter(|&i| {
            matches!(
                &conditions[i],
                Expr::BinaryOp {
                    op: BinaryOperator::Gt | BinaryOperator::GtEq | BinaryOperator::Lt | BinaryOperator::LtEq,
                    ..
                }
            )
        })
        .collect();
    let [at] = inequalities.as_slice() else {
        return Err(refuse("needs exactly one inequality (>=, >, <=, <) among its conditions"));
    };
    let Expr::BinaryOp { left: l, op, right: r } = &conditions[*at] else {
        unreachable!("an inequality is a binary operation")
    };
    // The right side's operand, and whether the closest value is the largest.
    let (closest, largest) = match (refers_to(r, &right), refers_to(l, &right)) {
        (true, false) => (r.as_ref().clone(), matches!(op, BinaryOperator::Gt | BinaryOperator::GtEq)),
        (false, true) => (l.as_ref().clone(), matches!(op, BinaryOperator::Lt | BinaryOperator::LtEq)),
        _ => return Err(refuse("needs its inequality to compare a left column with a right one")),
    };
    let mut inner_relation = join.relation.clone();
    match &mut inner_relation {
        TableFactor::Table { alias, .. } | TableFactor::Derived { alias, .. } => {
            let columns = alias.as_ref().map(|a| a.columns.clone()).unwrap_or_default();
            *alias = Some(TableAlias { explicit: true, name: Ident::new(INNER), columns, at: None });
        }
        _ => return Err(refuse("takes a table or a subquery on its right")),
    }
    let inner_conditions: Vec<String> = conditions.iter().map(|c| renamed(c, &right).to_string()).collect();
    let sql = format!(
        "SELECT {}({}) FROM {inner_relation} WHERE {}",
        if largest { "max" } else { "min" },
        renamed(&closest, &right),
        inner_conditions.join(" AND ")
    );
    let subquery = Parser::new(&GenericDialect {})
        .try_with_sql(&sql)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::internal(format!("ASOF JOIN subquery: {e}")))?;
    conditions.push(Expr::BinaryOp {
        left: Box::new(closest),
        op: BinaryOperator::Eq,
        right: Box::new(Expr::Subquery(subquery)),
    });
    let on = conditions.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    let constraint = JoinConstraint::On(on.expect("an ASOF join has at least its inequality"));
    let join_operator = if outer { JoinOperator::LeftOuter(constraint) } else { JoinOperator::Inner(constraint) };
    Ok(Join { relation: join.relation.clone(), global: join.global, join_operator })
}

/// The conditions `expr` ANDs together, in order.
fn split_conjuncts(expr: &Expr, out: &mut Vec<Expr>) {
    match expr {
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            split_conjuncts(left, out);
            split_conjuncts(right, out);
        }
        Expr::Nested(inner) => split_conjuncts(inner, out),
        other => out.push(other.clone()),
    }
}

/// Refuses a column that does not say which side it is from: the subquery
/// reads the right side again, where it could mean another column.
fn check_qualified(condition: &Expr) -> Result<()> {
    let found = visit_expressions(condition, |e| match e {
        Expr::Identifier(ident) => ControlFlow::Break(ident.value.clone()),
        _ => ControlFlow::Continue(()),
    });
    match found {
        ControlFlow::Break(column) => {
            Err(refuse(&format!("needs its columns qualified by their table: '{column}' could be on either side")))
        }
        ControlFlow::Continue(()) => Ok(()),
    }
}

fn same_name(a: &Ident, b: &Ident) -> bool {
    match (a.quote_style, b.quote_style) {
        (None, None) => a.value.eq_ignore_ascii_case(&b.value),
        _ => a.value == b.value,
    }
}

/// Whether `expr` reads a column of the side named `side`.
fn refers_to(expr: &Expr, side: &Ident) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 && same_name(&parts[parts.len() - 2], side) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// `expr` with the columns of the side named `side` read from the subquery's copy of it.
fn renamed(expr: &Expr, side: &Ident) -> Expr {
    let mut expr = expr.clone();
    let _ = visit_expressions_mut(&mut expr, |e| {
        if let Expr::CompoundIdentifier(parts) = e {
            if parts.len() >= 2 && same_name(&parts[parts.len() - 2], side) {
                let column = parts[parts.len() - 1].clone();
                *parts = vec![Ident::new(INNER), column];
            }
        }
        ControlFlow::<()>::Continue(())
    });
    expr
}

#[cfg(test)]
mod tests {
    use crate::frontend::parse::parse;

    fn rewritten(sql: &str) -> String {
        let mut statement = parse(sql).unwrap().remove(0);
        crate::frontend::dialect::syntax::rewrite(&mut statement).unwrap();
        statement.to_string()
    }

    #[test]
    fn the_closest_right_row_is_found_by_a_subquery() {
        assert_eq!(
            rewritten("SELECT * FROM a ASOF JOIN b ON a.k = b.k AND a.t >= b.t"),
            "SELECT * FROM a INNER JOIN b ON a.k = b.k AND a.t >= b.t AND b.t = (SELECT max(__swingdb_asof.t) FROM b AS __swingdb_asof \
             WHERE a.k = __swingdb_asof.k AND a.t >= __swingdb_asof.t)"
        );
        assert_eq!(
            rewritten("SELECT * FROM a x ASOF LEFT JOIN b y USING (k, t)"),
            "SELECT * FROM a x LEFT OUTER JOIN b y ON x.k = y.k AND x.t >= y.t AND y.t = (SELECT max(__swingdb_asof.t) FROM b AS __swingdb_asof \
             WHERE x.k = __swingdb_asof.k AND x.t >= __swingdb_asof.t)"
        );
        assert!(rewritten("SELECT * FROM a ASOF JOIN b ON b.t < a.t").contains("(SELECT max(__swingdb_asof.t)"));
        assert!(rewritten("SELECT * FROM a ASOF JOIN b ON a.t < b.t").contains("(SELECT min(__swingdb_asof.t)"));
    }

    #[test]
    fn conditions_the_join_cannot_mean_are_refused() {
        for sql in [
            "SELECT * FROM a ASOF JOIN b ON a.k = b.k",
            "SELECT * FROM a ASOF JOIN b ON a.t >= b.t AND a.u <= b.u",
            "SELECT * FROM a ASOF JOIN b ON k = b.k AND a.t >= b.t",
            "SELECT * FROM a ASOF JOIN b ON a.t >= a.u",
        ] {
            let mut statement = parse(sql).unwrap().remove(0);
            let err = crate::frontend::dialect::syntax::rewrite(&mut statement).unwrap_err();
            assert!(err.message().starts_with("ASOF JOIN needs"), "{sql}: {err}");
        }
    }
}
