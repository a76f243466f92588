//! A query that is one group without an aggregate: `HAVING` without `GROUP
//! BY`, or DuckDB's `GROUP BY ()`. The SQL standard (and PostgreSQL, DuckDB,
//! SQLite) makes such a query one group of all its rows, so `SELECT 1 FROM t
//! HAVING 1 = 2` has no row and `SELECT 1 FROM t HAVING true` has one, also
//! when `t` is empty. DataFusion plans a HAVING only over an aggregate and
//! refused these when the query had none ("HAVING clause references ... must
//! appear in the GROUP BY clause"). Such a select gets `count(*) >= 0` (true
//! for every group) added to its HAVING, so that DataFusion plans the one
//! group; a select item that reads a column outside an aggregate is then
//! refused as DuckDB refuses it.

use datafusion::execution::context::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Query, Select, SelectItem, SetExpr, Visit, VisitMut, Visitor, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// Makes every select of `statement` that is one group without an aggregate
/// plan as one (see the module documentation).
pub fn rewrite(statement: &mut DFStatement, state: &SessionState) {
    struct Rewrite<'a>(&'a SessionState);
    impl VisitorMut for Rewrite<'_> {
        type Break = ();
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            one_group_selects(query.body.as_mut(), self.0);
            ControlFlow::Continue(())
        }
    }
    match statement {
        DFStatement::Statement(s) => {
            let _ = s.visit(&mut Rewrite(state));
        }
        DFStatement::Explain(explain) => rewrite(&mut explain.statement, state),
        _ => {}
    }
}

/// The selects of a set expression (through its set operations).
fn one_group_selects(body: &mut SetExpr, state: &SessionState) {
    match body {
        SetExpr::Select(select) => make_one_group(select, state),
        SetExpr::SetOperation { left, right, .. } => {
            one_group_selects(left, state);
            one_group_selects(right, state);
        }
        _ => {}
    }
}

fn make_one_group(select: &mut Select, state: &SessionState) {
    let GroupByExpr::Expressions(keys, modifiers) = &mut select.group_by else { return };
    let empty_tuple = matches!(keys.as_slice(), [Expr::Tuple(items)] if items.is_empty());
    if !modifiers.is_empty() || !(keys.is_empty() || empty_tuple) {
        return;
    }
    if keys.is_empty() && select.having.is_none() {
        return; // an ordinary select, or an aggregate over all rows
    }
    keys.clear();
    if has_aggregate(select, state) {
        return; // DataFusion plans the one group itself
    }
    let always = Parser::new(&GenericDialect {})
        .try_with_sql("count(*) >= 0")
        .and_then(|mut p| p.parse_expr())
        .expect("a constant expression parses");
    select.having = Some(match select.having.take() {
        Some(having) => Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(having))),
            op: BinaryOperator::And,
            right: Box::new(always),
        },
        None => always,
    });
}

/// Whether the select list or HAVING of `select` calls an aggregate function
/// of `state` (not as a window, and not inside a subquery).
fn has_aggregate(select: &Select, state: &SessionState) -> bool {
    struct Find<'a> {
        state: &'a SessionState,
        depth: usize,
    }
    impl Visitor for Find<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            match expr {
                Expr::Function(f) if self.depth == 0 && f.over.is_none() => {
                    let name = f.name.0.last().map(|part| part.to_string().to_lowercase()).unwrap_or_default();
                    match self.state.aggregate_functions().contains_key(name.trim_matches('"')) {
                        true => ControlFlow::Break(()),
                        false => ControlFlow::Continue(()),
                    }
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    let mut find = Find { state, depth: 0 };
    let items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    items.chain(select.having.iter()).any(|e| e.visit(&mut find).is_break())
}
