//! DuckDB's spellings that DataFusion would plan otherwise, or not at all,
//! rewritten in the parsed statement before it is planned. Each either means
//! what it means in DuckDB or is refused with an error: a clause is never
//! ignored (a `TABLESAMPLE` that DataFusion dropped returned every row).
//!
//! - `FROM t` in a subquery (`SELECT * FROM (FROM t)`): every column, as
//!   `SELECT * FROM t` (statements that start with FROM get their
//!   `SELECT *` from the parser's text rewrite, see `sql::frontend::parse`).
//! - `a // b`, DuckDB's integer division: integer operands divide truncating
//!   toward zero (`-7 // 2` is -3), others divide exactly (`7.5 // 2` is
//!   3.75), which is what `/` does here; DuckDB's `/` always divides
//!   exactly (`7 / 2` is 3.5), ours keeps the SQL standard's, SQLite's and
//!   PostgreSQL's integer division.
//! - `t TABLESAMPLE BERNOULLI (p)` / `SYSTEM (p)` / `p PERCENT` / `p%`:
//!   each row is kept with probability `p` %, independently (SYSTEM samples
//!   rows too, not blocks). `t TABLESAMPLE n ROWS` (or `n` without unit, as
//!   in DuckDB): `n` rows drawn uniformly, all of them if there are fewer.
//!   `REPEATABLE (seed)`, `BUCKET` and `OFFSET` are refused: a seeded
//!   sample must not differ between runs, and the engine's parallel scans
//!   give no stable row order to seed by.
//! - `a ^ b`: power, bound as DuckDB binds it (see `dialect::power`).
//! - `1e3`, and numbers of more than 38 digits: DOUBLE (see `dialect::numbers`).
//! - `ORDER BY ALL`: by every output column, left to right.
//! - `SEMI JOIN` / `ANTI JOIN`: see `dialect::semi_joins`; `ASOF JOIN`: see
//!   `dialect::asof`; lambdas (`x -> x * 2`): see `dialect::lambdas`.
//! - `l[2:]`, `(expr).field`: see `field_access`.
//! - `SHOW TABLES`, `SHOW ALL TABLES`: see `dialect::show`; the types of
//!   `information_schema.columns`: see `dialect::information_schema`.
//! - Function names (`list_value`, `strftime`, `arg_max`, `a ^@ b`...): see
//!   `dialect::functions`.

use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, AccessExpr, BinaryOperator, DataType as SqlDataType, Expr, Function,
    FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident, ObjectName, OrderBy, OrderByExpr,
    OrderByKind, Query, SelectFlavor, SelectItem, SetExpr, Subscript, TableFactor, TableSample, TableSampleKind,
    TableSampleMethod, TableSampleUnit, UnaryOperator, Value, ValueWithSpan, VisitMut, VisitorMut,
    WildcardAdditionalOptions,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use regex::Regex;
use std::ops::ControlFlow;
use std::sync::LazyLock;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// Rewrites the DuckDB spellings of the expression `expr` and of those in
/// it, as [`rewrite`] does in a statement: two spellings of one function
/// (`arg_max` and `max_by`) become the same expression.
pub fn rewrite_expr(expr: &mut Expr) -> Result<()> {
    let outcome = visit_expressions_mut(expr, |e| match rewrite_one(e) {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => ControlFlow::Break(e),
    });
    match outcome {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

/// The rewrites of one expression, its operands already rewritten.
fn rewrite_one(expr: &mut Expr) -> Result<()> {
    if let Expr::BinaryOp { op: op @ BinaryOperator::DuckIntegerDivide, .. } = expr {
        *op = BinaryOperator::Divide;
    }
    super::numbers::rewrite(expr);
    super::power::rewrite(expr);
    timestamp_without_seconds(expr);
    field_access(expr);
    like_without_escape(expr);
    super::lambdas::rewrite(expr).and_then(|()| super::functions::rewrite(expr))
}

/// Rewrites `statement`'s DuckDB spellings (see the module documentation);
/// an error for a sample this engine cannot draw as asked.
pub fn rewrite(statement: &mut DFStatement) -> Result<()> {
    struct Rewrite;
    impl VisitorMut for Rewrite {
        type Break = Error;
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<Error> {
            match rewrite_one(expr) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<Error> {
            if let SetExpr::Select(select) = query.body.as_mut() {
                if select.flavor == SelectFlavor::FromFirstNoSelect && select.projection.is_empty() {
                    select.projection.push(SelectItem::Wildcard(WildcardAdditionalOptions::default()));
                    select.flavor = SelectFlavor::Standard;
                }
                select.from.iter_mut().for_each(super::semi_joins::rewrite);
                if let Err(e) = select.from.iter_mut().try_for_each(super::asof::rewrite) {
                    return ControlFlow::Break(e);
                }
            }
            match order_by_all(query) {
                Ok(()) => {
                    order_by_positions(query);
                    ControlFlow::Continue(())
                }
                Err(e) => ControlFlow::Break(e),
            }
        }
        fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<Error> {
            if let TableFactor::NestedJoin { table_with_joins, .. } = factor {
                super::semi_joins::rewrite(table_with_joins);
                if let Err(e) = super::asof::rewrite(table_with_joins) {
                    return ControlFlow::Break(e);
                }
            }
            match sample_table(factor)
                .and_then(|()| super::information_schema::rewrite_table(factor))
                .and_then(|()| super::duckdb_catalog::rewrite_table(factor))
            {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(e),
            }
        }
    }
    match statement {
        DFStatement::Statement(s) => match super::show::rewrite(s).map(|()| s.visit(&mut Rewrite))? {
            ControlFlow::Break(e) => Err(e),
            ControlFlow::Continue(()) => Ok(()),
        },
        DFStatement::Explain(explain) => rewrite(&mut explain.statement),
        DFStatement::CopyTo(_) | DFStatement::CreateExternalTable(_) | DFStatement::Reset(_) => Ok(()),
    }
}

/// `x LIKE p` without `ESCAPE` has no escape character, as in the SQL
/// standard, DuckDB and SQLite (`'b%c' LIKE '%\%%'` is false: the pattern
/// asks for a backslash). DataFusion escapes with `\` only, so the
/// statement says so (`ESCAPE '\'`, which also makes the rewrite happen once
/// in a view's stored text) and the pattern's backslashes are doubled (in a
/// literal, or by `replace`). An `ESCAPE` given is kept.
fn like_without_escape(expr: &mut Expr) {
    let (Expr::Like { pattern, escape_char, .. } | Expr::ILike { pattern, escape_char, .. }) = expr else {
        return;
    };
    if escape_char.is_some() {
        return;
    }
    *escape_char = Some(Value::SingleQuotedString("\\".into()).with_empty_span());
    let text = |s: &str| Expr::value(Value::SingleQuotedString(s.to_string()));
    match pattern.as_mut() {
        Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_)) => {
            if let Value::SingleQuotedString(text) = &mut v.value {
                *text = text.replace('\\', "\\\\");
            }
        }
        other => {
            let args = [other.clone(), text("\\"), text("\\\\")];
            *other = Expr::Function(Function {
                name: ObjectName::from(vec![Ident::new("replace")]),
                uses_odbc_syntax: false,
                parameters: FunctionArguments::None,
                args: FunctionArguments::List(FunctionArgumentList {
                    duplicate_treatment: None,
                    args: args.into_iter().map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e))).collect(),
                    clauses: vec![],
                }),
                filter: None,
                null_treatment: None,
                over: None,
                within_group: vec![],
            });
        }
    }
}

/// `TIMESTAMP '2024-01-01 10:00'` (and the same string cast to a
/// timestamp): seconds may be left out, as in DuckDB and PostgreSQL;
/// Arrow's parser wants them, so `:00` is added to such a literal.
fn timestamp_without_seconds(expr: &mut Expr) {
    let (data_type, value) = match expr {
        Expr::TypedString(typed) => (&typed.data_type, &mut typed.value.value),
        Expr::Cast { data_type, expr: inner, .. } => match inner.as_mut() {
            Expr::Value(v) => (&*data_type, &mut v.value),
            _ => return,
        },
        _ => return,
    };
    if !matches!(data_type, SqlDataType::Timestamp(..) | SqlDataType::Datetime(_) | SqlDataType::TimestampNtz(_)) {
        return;
    }
    static MINUTES: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}$").expect("valid"));
    if let Value::SingleQuotedString(text) = value {
        if MINUTES.is_match(text.trim()) {
            *text = format!("{}:00", text.trim());
        }
    }
}

/// Subscripts and fields as DuckDB reads them: `l[2:]` and `l[:2]` (open
/// ends, which DataFusion's planner refuses) run to the end and from the
/// start; `(expr).field` and `{'a': 1}.a` take a struct's field (DataFusion
/// takes only `expr['field']`). String subscripts: see `dialect::subscripts`.
fn field_access(expr: &mut Expr) {
    let Expr::CompoundFieldAccess { access_chain, .. } = expr else { return };
    for access in access_chain {
        match access {
            AccessExpr::Subscript(Subscript::Slice { lower_bound, upper_bound, .. }) => {
                lower_bound.get_or_insert_with(|| Expr::value(Value::Number("1".into(), false)));
                upper_bound.get_or_insert_with(|| Expr::UnaryOp {
                    op: UnaryOperator::Minus,
                    expr: Box::new(Expr::value(Value::Number("1".into(), false))),
                });
            }
            AccessExpr::Dot(Expr::Identifier(field)) => {
                *access = AccessExpr::Dot(Expr::value(Value::SingleQuotedString(field.value.clone())));
            }
            _ => {}
        }
    }
}

/// `ORDER BY ALL [ASC|DESC] [NULLS ...]`, which the generic parser reads as
/// a column named `all`: every output column in turn, by position where
/// the select list says how many there are (DataFusion's own ORDER BY ALL
/// takes plain columns only, and ignores it after UNION: refused there).
fn order_by_all(query: &mut Query) -> Result<()> {
    let Some(order_by) = query.order_by.as_mut() else { return Ok(()) };
    let OrderByKind::Expressions(exprs) = &order_by.kind else { return Ok(()) };
    let [OrderByExpr { expr: Expr::Identifier(ident), options, with_fill: None }] = exprs.as_slice() else {
        return Ok(());
    };
    if ident.quote_style.is_some() || !ident.value.eq_ignore_ascii_case("all") {
        return Ok(());
    }
    let options = *options;
    let columns = match query.body.as_ref() {
        SetExpr::Select(select) if select.projection.iter().any(|item| matches!(item, SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..))) => None,
        SetExpr::Select(select) => Some(select.projection.len()),
        _ => {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "ORDER BY ALL after UNION, EXCEPT or INTERSECT is not supported; order by the columns' positions (ORDER BY 1, 2)",
            ))
        }
    };
    order_by.kind = match columns {
        Some(n) => OrderByKind::Expressions(
            (1..=n)
                .map(|i| OrderByExpr {
                    expr: Expr::value(Value::Number(i.to_string(), false)),
                    options,
                    with_fill: None,
                })
                .collect(),
        ),
        None => OrderByKind::All(options),
    };
    Ok(())
}

/// `ORDER BY n` naming an unnamed expression of the select list: the item is
/// named as written (`-min(d)`, the name it gets anyway: see
/// `output_names`). DataFusion reads the position as a column named after
/// the expression, which it refuses when the query aggregates (`SELECT
/// -min(d) FROM t GROUP BY g ORDER BY 1`, also a constant item: "Column in
/// ORDER BY must be in GROUP BY or an aggregate function"); a named item it
/// finds. Plain columns, windows, subqueries and `COLUMNS(...)` keep their
/// position, as do lists with `*` and names already in the list.
fn order_by_positions(query: &mut Query) {
    let SetExpr::Select(select) = query.body.as_mut() else { return };
    let Some(OrderBy { kind: OrderByKind::Expressions(exprs), .. }) = query.order_by.as_ref() else { return };
    let wildcards = select
        .projection
        .iter()
        .any(|item| matches!(item, SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)));
    if wildcards {
        return;
    }
    for order in exprs {
        let Expr::Value(ValueWithSpan { value: Value::Number(n, _), .. }) = &order.expr else { continue };
        let Some(position) = n.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) else { continue };
        let Some(SelectItem::UnnamedExpr(item)) = select.projection.get(position) else { continue };
        let kept = visit_expressions(item, |e| match e {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) if std::ptr::eq(e, item) => ControlFlow::Break(()),
            Expr::Function(Function { over: Some(_), .. }) => ControlFlow::Break(()),
            // DuckDB's COLUMNS(...), expanded later into several items.
            Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("columns") => ControlFlow::Break(()),
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        });
        let name = item.to_string();
        let taken = select.projection.iter().any(|other| match other {
            SelectItem::ExprWithAlias { alias, .. } => alias.value.eq_ignore_ascii_case(&name),
            SelectItem::UnnamedExpr(Expr::Identifier(ident)) => ident.value.eq_ignore_ascii_case(&name),
            _ => false,
        });
        if kept.is_continue() && !taken {
            let expr = item.clone();
            select.projection[position] = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('"', name) };
        }
    }
}

/// How a sample is drawn.
enum Draw {
    /// Each row with this probability, in percent.
    Percent(Expr),
    /// This many rows, uniformly.
    Rows(Expr),
}

/// Replaces a sampled table `t [AS a] TABLESAMPLE ...` by the derived table
/// `(SELECT * FROM t WHERE random() * 100 < p) AS a` or
/// `(SELECT * FROM t ORDER BY random() LIMIT n) AS a`.
fn sample_table(factor: &mut TableFactor) -> Result<()> {
    let (sample, alias) = match factor {
        TableFactor::Table { sample, alias, .. } | TableFactor::Derived { sample, alias, .. } => match sample.take() {
            Some(kind) => (kind, alias.take()),
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    let sample = match sample {
        TableSampleKind::BeforeTableAlias(s) | TableSampleKind::AfterTableAlias(s) => s,
    };
    let draw = draw(&sample)?;
    let (template, quantity) = match draw {
        Draw::Percent(p) => ("SELECT * FROM sampled WHERE random() * 100 < 0", p),
        Draw::Rows(n) => ("SELECT * FROM sampled ORDER BY random() LIMIT 0", n),
    };
    let mut query = template_query(template)?;
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(Error::internal("sample template is not a SELECT"));
    };
    // The template's `sampled` goes, the sampled table comes in.
    std::mem::swap(&mut select.from[0].relation, factor);
    let placeholder = match (&mut select.selection, query.limit_clause.as_mut()) {
        (Some(Expr::BinaryOp { right, .. }), _) => right.as_mut(),
        (None, Some(datafusion::sql::sqlparser::ast::LimitClause::LimitOffset { limit: Some(limit), .. })) => limit,
        _ => return Err(Error::internal("sample template has no quantity")),
    };
    *placeholder = Expr::Nested(Box::new(quantity));
    *factor = TableFactor::Derived { lateral: false, subquery: Box::new(query), alias, sample: None };
    Ok(())
}

/// The draw `sample` asks for, or why it cannot be made.
fn draw(sample: &TableSample) -> Result<Draw> {
    let refuse = |what: &str| {
        Err(Error::new(
            ErrorKind::NotSupported,
            format!("{what} in TABLESAMPLE is not supported; sample without it (TABLESAMPLE 10 PERCENT, TABLESAMPLE 100 ROWS)"),
        ))
    };
    if sample.seed.is_some() {
        return refuse("a seed (REPEATABLE)");
    }
    if sample.bucket.is_some() {
        return refuse("BUCKET");
    }
    if sample.offset.is_some() {
        return refuse("OFFSET");
    }
    let Some(quantity) = &sample.quantity else { return refuse("a sample without a size") };
    let by_method = matches!(
        sample.name,
        Some(
            TableSampleMethod::Bernoulli
                | TableSampleMethod::System
                | TableSampleMethod::Row
                | TableSampleMethod::Block
        )
    );
    Ok(match quantity.unit {
        Some(TableSampleUnit::Percent) => Draw::Percent(quantity.value.clone()),
        Some(TableSampleUnit::Rows) => Draw::Rows(quantity.value.clone()),
        // `BERNOULLI (10)`: percent, as the SQL standard and PostgreSQL say;
        // a bare number: rows, as DuckDB says.
        None if by_method => Draw::Percent(quantity.value.clone()),
        None => Draw::Rows(quantity.value.clone()),
    })
}

/// The parsed `sql`, a constant of this module.
fn template_query(sql: &str) -> Result<Query> {
    Parser::new(&GenericDialect {})
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_query())
        .map(|q| *q)
        .map_err(|e| Error::internal(format!("sample template: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse::parse;

    fn rewritten(sql: &str) -> Result<String> {
        let mut statement = parse(sql)?.remove(0);
        rewrite(&mut statement)?;
        Ok(statement.to_string())
    }

    #[test]
    fn from_first_without_select_selects_everything() {
        assert_eq!(rewritten("SELECT a FROM (FROM t) AS s").unwrap(), "SELECT a FROM (SELECT * FROM t) AS s");
    }

    #[test]
    fn integer_division_becomes_division() {
        assert_eq!(rewritten("SELECT 7 // 2, a // (b // c) FROM t").unwrap(), "SELECT 7 / 2, a / (b / c) FROM t");
    }

    #[test]
    fn samples_become_derived_tables_keeping_the_alias() {
        assert_eq!(
            rewritten("SELECT x.a FROM t AS x TABLESAMPLE BERNOULLI (10)").unwrap(),
            "SELECT x.a FROM (SELECT * FROM t WHERE random() * 100 < (10)) AS x"
        );
        assert_eq!(
            rewritten("SELECT * FROM t TABLESAMPLE 2 ROWS JOIN u ON true").unwrap(),
            "SELECT * FROM (SELECT * FROM t ORDER BY random() LIMIT (2)) JOIN u ON true"
        );
        assert_eq!(
            rewritten("SELECT * FROM t TABLESAMPLE 5").unwrap(),
            "SELECT * FROM (SELECT * FROM t ORDER BY random() LIMIT (5))"
        );
    }

    #[test]
    fn seeds_and_buckets_are_refused_not_ignored() {
        for sql in [
            "SELECT * FROM t TABLESAMPLE BERNOULLI (10) REPEATABLE (42)",
            "SELECT * FROM t TABLESAMPLE (BUCKET 1 OUT OF 4)",
        ] {
            let err = rewritten(sql).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::NotSupported, "{sql}: {}", err.message());
        }
    }
}
