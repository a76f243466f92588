//! DuckDB's `COLUMNS(...)` in a select list: the item is repeated for each
//! column of the FROM clause that `COLUMNS` picks, with that column in its
//! place: `COLUMNS(*)` every column, `COLUMNS('regex')` those whose name the
//! regular expression matches (anywhere in the name, as DuckDB's
//! `regexp_matches`), `COLUMNS(c -> c LIKE 'a%')` those the lambda is true
//! for. `min(COLUMNS(*))` is `min(a), min(b), ...`, named `a`, `b` as in DuckDB.

use super::planned;
use datafusion::arrow::array::AsArray;
use datafusion::execution::context::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Query,
    SelectItem, SetExpr, Statement, TableWithJoins, Value, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, Result};

/// Most select lists with COLUMNS(...) one statement may have.
const MAX_LISTS: usize = 64;

/// Expands every `COLUMNS(...)` of `statement` (see the module documentation).
pub async fn rewrite(statement: &mut DFStatement, state: &SessionState) -> Result<()> {
    let s = match statement {
        DFStatement::Statement(s) => s.as_mut(),
        DFStatement::Explain(explain) => return Box::pin(rewrite(&mut explain.statement, state)).await,
        _ => return Ok(()),
    };
    let with = match s {
        Statement::Query(q) => q.with.clone(),
        _ => None,
    };
    for _ in 0..MAX_LISTS {
        let Some((from, selectors)) = first_list(s) else { return Ok(()) };
        let from: Vec<String> = from.iter().map(ToString::to_string).collect();
        let columns = planned::columns(&from.join(", "), with.as_ref(), state).await?;
        let mut picked = Vec::new();
        for selector in &selectors {
            picked.push(pick(selector, &columns, state).await?);
        }
        let _ = s.visit(&mut Expand(Some(picked)));
    }
    if first_list(s).is_none() {
        return Ok(());
    }
    Err(Error::programming(format!("a statement may have at most {MAX_LISTS} select lists with COLUMNS(...)")))
}

/// The `COLUMNS(...)` call in `expr`, if any.
fn selector(expr: &Expr) -> Option<Expr> {
    let found = visit_expressions(expr, |e| match e {
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("columns") => ControlFlow::Break(e.clone()),
        _ => ControlFlow::Continue(()),
    });
    match found {
        ControlFlow::Break(e) => Some(e),
        ControlFlow::Continue(()) => None,
    }
}

fn item_expr(item: &SelectItem) -> Option<&Expr> {
    match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

/// The FROM clause and the COLUMNS calls (one per item, in order) of the
/// first select list that has some.
fn first_list(statement: &mut Statement) -> Option<(Vec<TableWithJoins>, Vec<Expr>)> {
    struct Find;
    impl VisitorMut for Find {
        type Break = (Vec<TableWithJoins>, Vec<Expr>);
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<Self::Break> {
            if let SetExpr::Select(select) = query.body.as_ref() {
                let selectors: Vec<Expr> =
                    select.projection.iter().filter_map(item_expr).filter_map(selector).collect();
                if !selectors.is_empty() {
                    return ControlFlow::Break((select.from.clone(), selectors));
                }
            }
            ControlFlow::Continue(())
        }
    }
    match statement.visit(&mut Find) {
        ControlFlow::Break(found) => Some(found),
        ControlFlow::Continue(()) => None,
    }
}

/// The columns among `columns` that `selector` (a COLUMNS call) picks.
async fn pick(selector: &Expr, columns: &[String], state: &SessionState) -> Result<Vec<String>> {
    let Expr::Function(function) = selector else { return Err(Error::internal("not a COLUMNS call")) };
    let refuse = || {
        Error::programming(format!(
            "{selector} is not a selector; write COLUMNS(*), COLUMNS('regex') or COLUMNS(c -> c LIKE 'a%')"
        ))
    };
    let FunctionArguments::List(list) = &function.args else { return Err(refuse()) };
    let [arg] = list.args.as_slice() else { return Err(refuse()) };
    let arg = match arg {
        FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => return Ok(columns.to_vec()),
        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => e,
        _ => return Err(refuse()),
    };
    if let Expr::Value(v) = arg {
        let Value::SingleQuotedString(pattern) = &v.value else { return Err(refuse()) };
        let regex = regex::Regex::new(pattern)
            .map_err(|e| Error::programming(format!("COLUMNS('{pattern}'): not a regular expression: {e}")))?;
        return Ok(columns.iter().filter(|c| regex.is_match(c)).cloned().collect());
    }
    let Some((params, body)) = super::lambdas::split_lambda(arg) else { return Err(refuse()) };
    let [param] = params.as_slice() else { return Err(refuse()) };
    let mut picked = Vec::new();
    for column in columns {
        let mut test = body.clone();
        let _ = visit_expressions_mut(&mut test, |e| {
            if matches!(e, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(&param.value)) {
                *e = Expr::value(Value::SingleQuotedString(column.clone()));
            }
            ControlFlow::<()>::Continue(())
        });
        let batches = planned::run(&format!("SELECT ({test}) IS TRUE"), None, state).await?.collect().await?;
        if batches
            .first()
            .is_some_and(|b| b.num_rows() == 1 && b.column(0).as_boolean_opt().is_some_and(|v| v.value(0)))
        {
            picked.push(column.clone());
        }
    }
    Ok(picked)
}

/// Puts the picked columns in place of the COLUMNS calls of the first select list that has some.
struct Expand(Option<Vec<Vec<String>>>);

impl VisitorMut for Expand {
    type Break = ();
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let SetExpr::Select(select) = query.body.as_mut() else { return ControlFlow::Continue(()) };
        if !select.projection.iter().filter_map(item_expr).any(|e| selector(e).is_some()) {
            return ControlFlow::Continue(());
        }
        let Some(picked) = self.0.take() else { return ControlFlow::Break(()) };
        let mut picked = picked.into_iter();
        let mut items = Vec::new();
        let mut names = std::collections::HashSet::new();
        for item in std::mem::take(&mut select.projection) {
            if item_expr(&item).and_then(selector).is_none() {
                items.push(item);
                continue;
            }
            for column in picked.next().unwrap_or_default() {
                let ident = match column.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
                    true => Ident::new(&column),
                    false => Ident::with_quote('"', &column),
                };
                let mut item = item.clone();
                if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = &mut item {
                    let _ = visit_expressions_mut(e, |e| {
                        if matches!(e, Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("columns")) {
                            *e = Expr::Identifier(ident.clone());
                        }
                        ControlFlow::<()>::Continue(())
                    });
                }
                // Named as DuckDB names it, after its column (`min(COLUMNS(*))`
                // gives `a`, `b`), unless an earlier item has that name.
                if let SelectItem::UnnamedExpr(e) = &item {
                    if !matches!(e, Expr::Identifier(_)) {
                        let name = if names.insert(column.clone()) { column.clone() } else { e.to_string() };
                        item = SelectItem::ExprWithAlias { expr: e.clone(), alias: Ident::with_quote('"', name) };
                    }
                }
                items.push(item);
            }
        }
        select.projection = items;
        ControlFlow::Break(())
    }
}
