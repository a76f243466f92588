//! PIVOT and UNPIVOT (the standard form and DuckDB's statements, which
//! `dialect::text` turns into it), planned as the queries they mean, once
//! the columns of their input are known:
//!
//! - `t PIVOT (sum(x) AS s FOR y IN ('a', 'b' AS bb))` groups by every
//!   column of `t` that neither the aggregates nor `y` read, with one
//!   column per value and aggregate: `sum(x) FILTER (WHERE y IS NOT DISTINCT
//!   FROM 'a')`, named as DuckDB names it (`a`, or `a_s` when there are
//!   several aggregates). `IN (ANY)` (DuckDB's PIVOT without IN) and `IN
//!   (subquery)` take the distinct values the input has now, in order.
//!   DuckDB's `PIVOT ... GROUP BY g` groups by `g` only.
//! - `t UNPIVOT [INCLUDE NULLS] (v FOR n IN (a, b AS bb))`: every column but
//!   `a` and `b`, then `n` (`'a'`, `'bb'`) and `v` (`a`'s or `b`'s value), one
//!   row per input row and column, without the rows whose value is NULL
//!   unless INCLUDE NULLS says so.

use super::planned;
use crate::frontend::quote::{identifier, string};
use datafusion::arrow::array::Array;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::execution::context::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, Expr, GroupByExpr, Ident, NullInclusion, PivotValueSource, Query,
    SelectItem, SetExpr, Statement, TableAlias, TableFactor, TableWithJoins, VisitMut, VisitorMut, With,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// Most columns one PIVOT may make (DuckDB's `pivot_limit` is 100,000).
const MAX_PIVOT_VALUES: usize = 10_000;

/// Most PIVOT and UNPIVOT clauses one statement may have.
const MAX_PIVOTS: usize = 64;

/// Rewrites every PIVOT and UNPIVOT of `statement`, innermost first.
pub async fn rewrite(statement: &mut DFStatement, state: &SessionState) -> Result<()> {
    let query = match statement {
        DFStatement::Statement(s) => s.as_mut(),
        DFStatement::Explain(explain) => return Box::pin(rewrite(&mut explain.statement, state)).await,
        _ => return Ok(()),
    };
    let _ = query.visit(&mut GroupedPivots);
    let with = match query {
        Statement::Query(q) => q.with.clone(),
        _ => None,
    };
    for _ in 0..MAX_PIVOTS {
        let Some(factor) = innermost(query) else { return Ok(()) };
        let planned = match &factor {
            TableFactor::Pivot { .. } => pivot(&factor, with.as_ref(), state).await?,
            _ => unpivot(&factor, with.as_ref(), state).await?,
        };
        let mut put = Put(Some(planned));
        let _ = query.visit(&mut put);
    }
    match innermost(query) {
        Some(_) => {
            Err(Error::programming(format!("a statement may have at most {MAX_PIVOTS} PIVOT and UNPIVOT clauses")))
        }
        None => Ok(()),
    }
}

/// The first PIVOT or UNPIVOT whose input has none, found depth first.
fn innermost(statement: &mut Statement) -> Option<TableFactor> {
    struct Find;
    impl VisitorMut for Find {
        type Break = TableFactor;
        fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<TableFactor> {
            match factor {
                TableFactor::Pivot { .. } | TableFactor::Unpivot { .. } => ControlFlow::Break(factor.clone()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    match statement.visit(&mut Find) {
        ControlFlow::Break(factor) => Some(factor),
        ControlFlow::Continue(()) => None,
    }
}

/// Puts the planned form in place of the first PIVOT or UNPIVOT found as [`innermost`] finds it.
struct Put(Option<TableFactor>);

impl VisitorMut for Put {
    type Break = ();
    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        if matches!(factor, TableFactor::Pivot { .. } | TableFactor::Unpivot { .. }) {
            if let Some(planned) = self.0.take() {
                *factor = planned;
            }
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// DuckDB's `PIVOT t ON y USING agg GROUP BY g`, which `dialect::text` spells
/// `SELECT * FROM t PIVOT (agg FOR y IN (ANY)) GROUP BY g`: the pivot's input
/// becomes `(SELECT g, <the columns agg and y read> FROM t)`, so that it
/// groups by `g` only, and the outer GROUP BY goes.
struct GroupedPivots;

impl VisitorMut for GroupedPivots {
    type Break = ();
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let SetExpr::Select(select) = query.body.as_mut() else { return ControlFlow::Continue(()) };
        let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else { return ControlFlow::Continue(()) };
        let shape = matches!(select.projection.as_slice(), [SelectItem::Wildcard(_)])
            && modifiers.is_empty()
            && !groups.is_empty();
        let [TableWithJoins { relation: TableFactor::Pivot { table, aggregate_functions, value_column, .. }, joins }] =
            select.from.as_mut_slice()
        else {
            return ControlFlow::Continue(());
        };
        if !shape || !joins.is_empty() {
            return ControlFlow::Continue(());
        }
        let mut items: Vec<String> = groups.iter().map(ToString::to_string).collect();
        let read = aggregate_functions.iter().map(|a| &a.expr).chain(value_column.iter());
        for column in read_columns(read) {
            if !groups
                .iter()
                .any(|g| matches!(g, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(&column_name(&column))))
            {
                items.push(column);
            }
        }
        let sql = format!("SELECT {} FROM {table}", items.join(", "));
        if let Ok(query) = Parser::new(&GenericDialect {}).try_with_sql(&sql).and_then(|mut p| p.parse_query()) {
            **table = TableFactor::Derived { lateral: false, subquery: query, alias: None, sample: None };
            select.group_by = GroupByExpr::Expressions(Vec::new(), Vec::new());
        }
        ControlFlow::Continue(())
    }
}

/// The columns `exprs` read (the last part of each column reference), as written.
fn read_columns<'a>(exprs: impl Iterator<Item = &'a Expr>) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for expr in exprs {
        let _ = visit_expressions(expr, |e| {
            let name = match e {
                Expr::Identifier(i) => Some(i.to_string()),
                Expr::CompoundIdentifier(parts) => parts.last().map(ToString::to_string),
                _ => None,
            };
            if let Some(name) = name.filter(|n| !columns.contains(n)) {
                columns.push(name);
            }
            ControlFlow::<()>::Continue(())
        });
    }
    columns
}

/// `expr` with each unquoted column name that is not one of `columns` but
/// matches one of them in another case spelled as that column, quoted (as
/// unquoted names match any case elsewhere, see `sql::frontend::case_fold`).
fn respelled(expr: &Expr, columns: &[String]) -> Expr {
    let mut expr = expr.clone();
    let respell = |ident: &mut Ident| {
        let name = crate::frontend::parse::identifier(ident);
        if ident.quote_style.is_some() || columns.contains(&name) {
            return;
        }
        let matching: Vec<&String> = columns.iter().filter(|c| c.eq_ignore_ascii_case(&name)).collect();
        if let [exact] = matching.as_slice() {
            *ident = Ident::with_quote('"', exact.as_str());
        }
    };
    let _ = visit_expressions_mut(&mut expr, |e| {
        match e {
            Expr::Identifier(ident) => respell(ident),
            Expr::CompoundIdentifier(parts) => parts.last_mut().into_iter().for_each(respell),
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    expr
}

/// The name of the column `written` (a column reference as written) reads.
fn column_name(written: &str) -> String {
    match written.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
        Some(quoted) => quoted.replace("\"\"", "\""),
        None => written.to_lowercase(),
    }
}

/// The query `sql` (built here from parts of a parsed statement), as a derived table named `alias`.
fn derived(sql: &str, alias: Option<TableAlias>) -> Result<TableFactor> {
    let subquery = Parser::new(&GenericDialect {})
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::programming(format!("PIVOT/UNPIVOT could not be planned: {e}")))?;
    Ok(TableFactor::Derived { lateral: false, subquery, alias, sample: None })
}

async fn pivot(factor: &TableFactor, with: Option<&With>, state: &SessionState) -> Result<TableFactor> {
    let TableFactor::Pivot { table, aggregate_functions, value_column, value_source, default_on_null, alias } = factor
    else {
        return Err(Error::internal("not a PIVOT"));
    };
    let input = planned::columns(&table.to_string(), with, state).await?;
    let mut aggregate_functions = aggregate_functions.clone();
    for aggregate in &mut aggregate_functions {
        aggregate.expr = respelled(&aggregate.expr, &input);
    }
    let value_column: Vec<Expr> = value_column.iter().map(|c| respelled(c, &input)).collect();
    let read: Vec<String> = read_columns(aggregate_functions.iter().map(|a| &a.expr).chain(value_column.iter()))
        .iter()
        .map(|c| column_name(c))
        .collect();
    let groups: Vec<String> = input.into_iter().filter(|c| !read.contains(c)).collect();
    let on: Vec<String> = value_column.iter().map(ToString::to_string).collect();
    let on_list = on.join(", ");
    // Each value (one literal per pivoted column) and the name its columns get.
    let values: Vec<(Vec<String>, String)> = match value_source {
        PivotValueSource::List(values) => values
            .iter()
            .map(|v| {
                let parts: Vec<&Expr> = match &v.expr {
                    Expr::Tuple(parts) if on.len() > 1 => parts.iter().collect(),
                    expr => vec![expr],
                };
                if parts.len() != on.len() {
                    return Err(Error::programming(format!(
                        "PIVOT value {} has {} parts for {} columns ({on_list})",
                        v.expr,
                        parts.len(),
                        on.len()
                    )));
                }
                let name = match &v.alias {
                    Some(alias) => alias.value.clone(),
                    None => parts.iter().map(|p| value_name(p)).collect::<Vec<_>>().join("_"),
                };
                Ok((parts.iter().map(ToString::to_string).collect(), name))
            })
            .collect::<Result<_>>()?,
        // Every combination of each column's values, as DuckDB pivots.
        PivotValueSource::Any(_) => {
            let mut combinations = vec![(Vec::new(), Vec::new())];
            for column in &on {
                let values = distinct_values(
                    &format!("SELECT DISTINCT {column} FROM {table} ORDER BY 1 NULLS LAST"),
                    with,
                    state,
                )
                .await?;
                if combinations.len().saturating_mul(values.len()) > MAX_PIVOT_VALUES {
                    return Err(too_many(&on_list));
                }
                combinations = combinations
                    .into_iter()
                    .flat_map(|(literals, names): (Vec<String>, Vec<String>)| {
                        values.iter().map(move |(l, n)| {
                            ([literals.clone(), l.clone()].concat(), [names.clone(), vec![n.clone()]].concat())
                        })
                    })
                    .collect();
            }
            combinations.into_iter().map(|(literals, names)| (literals, names.join("_"))).collect()
        }
        PivotValueSource::Subquery(query) => distinct_values(&query.to_string(), with, state).await?,
    };
    if values.len() > MAX_PIVOT_VALUES {
        return Err(too_many(&on_list));
    }
    let mut items: Vec<String> = groups.iter().map(|g| identifier(g)).collect();
    for (value, name) in &values {
        for aggregate in &aggregate_functions {
            let Expr::Function(function) = &aggregate.expr else {
                return Err(Error::programming(format!(
                    "PIVOT takes aggregate function calls (sum(x), count(*)), not '{}'",
                    aggregate.expr
                )));
            };
            if function.filter.is_some() || function.over.is_some() {
                return Err(Error::programming(format!("PIVOT takes plain aggregate calls, not '{function}'")));
            }
            let matches: Vec<String> =
                on.iter().zip(value).map(|(c, v)| format!("({c} IS NOT DISTINCT FROM ({v}))")).collect();
            let mut call = format!("{function} FILTER (WHERE {})", matches.join(" AND "));
            if let Some(default) = default_on_null {
                call = format!("coalesce({call}, {default})");
            }
            let label = match (aggregate_functions.len(), &aggregate.alias) {
                (1, _) => name.clone(),
                (_, Some(alias)) => format!("{name}_{}", alias.value),
                (_, None) => format!("{name}_{function}"),
            };
            items.push(format!("{call} AS {}", identifier(&label)));
        }
    }
    let group_by = match groups.is_empty() {
        true => String::new(),
        false => format!(" GROUP BY {}", groups.iter().map(|g| identifier(g)).collect::<Vec<_>>().join(", ")),
    };
    derived(&format!("SELECT {} FROM {table}{group_by}", items.join(", ")), alias.clone())
}

fn too_many(on: &str) -> Error {
    Error::programming(format!(
        "PIVOT on {on} would make more than {MAX_PIVOT_VALUES} columns; pivot on fewer values (IN (...)) or filter first"
    ))
}

/// The name a PIVOT value written as `expr` gives its columns: a literal's
/// value as it reads (`2024`, `Oslo`), anything else as written.
fn value_name(expr: &Expr) -> String {
    match expr {
        Expr::Value(value) => value.value.clone().into_string().unwrap_or_else(|| value.to_string()),
        expr => expr.to_string(),
    }
}

/// The rows of `sql`, each as literals (one per column) and as the name of
/// the columns its values make (the values joined by `_`; NULL is named
/// "NULL", as in DuckDB).
async fn distinct_values(sql: &str, with: Option<&With>, state: &SessionState) -> Result<Vec<(Vec<String>, String)>> {
    let batches = planned::run(sql, with, state).await?.collect().await?;
    let options = FormatOptions::default().with_null("NULL");
    let mut values = Vec::new();
    for batch in &batches {
        let mut columns = Vec::new();
        for array in batch.columns() {
            let sql_type = crate::frontend::types::sql_name(array.data_type());
            columns.push((array, sql_type, ArrayFormatter::try_new(array.as_ref(), &options)?));
        }
        for row in 0..batch.num_rows() {
            let mut literals = Vec::new();
            let mut names = Vec::new();
            for (array, sql_type, formatter) in &columns {
                let text = formatter.value(row).to_string();
                literals.push(match array.is_null(row) {
                    true => "NULL".to_string(),
                    false => format!("CAST({} AS {sql_type})", string(&text)),
                });
                names.push(text);
            }
            values.push((literals, names.join("_")));
        }
        if values.len() > MAX_PIVOT_VALUES {
            break;
        }
    }
    Ok(values)
}

async fn unpivot(factor: &TableFactor, with: Option<&With>, state: &SessionState) -> Result<TableFactor> {
    let TableFactor::Unpivot { table, value, name, columns, null_inclusion, alias } = factor else {
        return Err(Error::internal("not an UNPIVOT"));
    };
    let Expr::Identifier(value) = value else {
        return Err(Error::new(
            ErrorKind::NotSupported,
            format!("UNPIVOT into several value columns ({value}) is not supported; unpivot into one"),
        ));
    };
    let input = planned::columns(&table.to_string(), with, state).await?;
    let mut columns = columns.clone();
    for column in &mut columns {
        column.expr = respelled(&column.expr, &input);
    }
    let unpivoted: Vec<String> = read_columns(columns.iter().map(|c| &c.expr)).iter().map(|c| column_name(c)).collect();
    let kept: Vec<String> = input.into_iter().filter(|c| !unpivoted.contains(c)).map(|c| identifier(&c)).collect();
    let labels: Vec<String> = columns
        .iter()
        .map(|c| match (&c.alias, &c.expr) {
            (Some(alias), _) => alias.value.clone(),
            (None, Expr::Identifier(i)) => crate::frontend::parse::identifier(i),
            (None, expr) => expr.to_string(),
        })
        .collect();
    let cases: Vec<String> =
        columns.iter().zip(&labels).map(|(c, label)| format!("WHEN {} THEN {}", string(label), c.expr)).collect();
    let names: Vec<String> = labels.iter().map(|l| format!("({})", string(l))).collect();
    let (name, value) =
        (identifier(&crate::frontend::parse::identifier(name)), identifier(&crate::frontend::parse::identifier(value)));
    let items = kept.into_iter().chain([
        format!("__swingdb_unpivot.n AS {name}"),
        format!("CASE __swingdb_unpivot.n {} END AS {value}", cases.join(" ")),
    ]);
    let mut sql = format!(
        "SELECT {} FROM {table} CROSS JOIN (VALUES {}) AS __swingdb_unpivot(n)",
        items.collect::<Vec<_>>().join(", "),
        names.join(", ")
    );
    if !matches!(null_inclusion, Some(NullInclusion::IncludeNulls)) {
        sql = format!("SELECT * FROM ({sql}) WHERE {value} IS NOT NULL");
    }
    derived(&sql, alias.clone())
}
