//! SQL text to statements, with limits that keep deep input from crashing the
//! process: the parser's recursion limit for nesting it recurses on, and an
//! expression-depth limit for the long operator chains (`a OR b OR ...`) it
//! builds without recursing, which every later stage (planning, optimizing,
//! executing, even dropping the tree) would walk recursively.

use crate::frontend::params::number_placeholders;
use datafusion::error::DataFusionError;
use datafusion::sql::parser::{CopyToSource, DFParserBuilder, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{Expr, Ident, Query, SetExpr, Statement as SqlStatement, Visit, Visitor};
use datafusion::sql::sqlparser::dialect::{DuckDbDialect, GenericDialect, PostgreSqlDialect};
use datafusion::sql::sqlparser::parser::{Parser as SqlParser, ParserError};
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, Result};

/// Deepest nesting of expressions and subqueries a statement may have (DuckDB's
/// `max_expression_depth` default). Plans at this depth run on the stacks the
/// engine's threads get (see `sql::core::runtime`).
pub const MAX_EXPRESSION_DEPTH: usize = 1000;

/// Most items one SELECT list may have (PostgreSQL allows 1,664). DataFusion
/// plans a select list in time that grows with the square of its length
/// (8,000 items: about 4 s here); past this a clear error beats a long wait.
pub const MAX_SELECT_ITEMS: usize = 10_000;

/// How deep the parser may recurse (parentheses, subqueries, function calls
/// inside each other).
pub const PARSER_RECURSION_LIMIT: usize = 200;

/// Stack the parse needs per byte of SQL text, at most: a statement cannot
/// nest deeper than it has characters, and dropping a parsed tree takes one
/// small stack frame per level.
const STACK_PER_BYTE: usize = 64;

/// Stack kept free for everything else.
const STACK_RESERVE: usize = 1 << 20;

/// The name an identifier stands for: as written when quoted, folded to
/// lower case when not (as PostgreSQL and DuckDB fold them).
pub fn identifier(ident: &Ident) -> String {
    if ident.quote_style.is_some() {
        ident.value.clone()
    } else {
        ident.value.to_lowercase()
    }
}

/// Parses `sql` (one or more `;`-separated statements, `?` or `$n`
/// placeholders) and checks every statement against the depth limit.
pub fn parse(sql: &str) -> Result<Vec<DFStatement>> {
    let sql = number_placeholders(sql)?;
    let sql = crate::frontend::dialect::text::rewrite(&sql);
    // Parsing, checking and (for refused input) dropping a tree walk it
    // recursively: make sure the stack can hold the deepest tree this text can
    // make, on a larger stack of its own if the current one is too small.
    let needed = sql.len().saturating_mul(STACK_PER_BYTE).saturating_add(STACK_RESERVE);
    if stacker::remaining_stack().is_some_and(|left| left >= needed) {
        parse_checked(&sql)
    } else {
        stacker::grow(needed, || parse_checked(&sql))
    }
}

fn parse_checked(sql: &str) -> Result<Vec<DFStatement>> {
    let statements = match DFParserBuilder::new(sql)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .build()
        .and_then(|mut p| p.parse_statements())
    {
        Ok(statements) => statements.into_iter().collect::<Vec<_>>(),
        // DataFusion's parser knows only its own COPY ... TO syntax; the
        // PostgreSQL / DuckDB style COPY t FROM|TO 'file' (FORMAT ...) parses
        // with sqlparser's own. Not with its PostgreSQL dialect: that one
        // re-parses every function argument after a failed try (named
        // arguments), which takes time exponential in the nesting of calls
        // around a syntax error (20 levels: 3 s, 30: hours).
        Err(e) => match SqlParser::new(&GenericDialect {})
            .with_recursion_limit(PARSER_RECURSION_LIMIT)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_statements())
        {
            Ok(parsed) if parsed.iter().any(|s| matches!(s, SqlStatement::Copy { .. })) => {
                parsed.into_iter().map(|s| DFStatement::Statement(Box::new(s))).collect()
            }
            _ => match parse_alter_using(sql).or_else(|| parse_duckdb_attach(sql)) {
                Some(parsed) => parsed,
                None => return Err(syntax_error(e)),
            },
        },
    };
    for statement in &statements {
        check_depth(statement)?;
    }
    Ok(statements)
}

/// DuckDB's `ATTACH [IF NOT EXISTS] 'path' [AS alias] [(READ_ONLY, TYPE t)]`,
/// which only sqlparser's DuckDB dialect reads (the generic one wants `AS`
/// and no options): parsed with it, for scripts with such a statement.
fn parse_duckdb_attach(sql: &str) -> Option<Vec<DFStatement>> {
    if !sql.to_ascii_lowercase().contains("attach") {
        return None;
    }
    let parsed = SqlParser::new(&DuckDbDialect {})
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .ok()?;
    match parsed.iter().any(|s| matches!(s, SqlStatement::AttachDuckDBDatabase { .. })) {
        true => Some(parsed.into_iter().map(|s| DFStatement::Statement(Box::new(s))).collect()),
        false => None,
    }
}

/// Deepest parenthesis nesting [`parse_alter_using`] parses: past it, the
/// PostgreSQL dialect's retries could take long (see [`parse_checked`]).
const ALTER_USING_MAX_DEPTH: usize = 8;

/// `ALTER TABLE ... ALTER COLUMN c TYPE t USING expr`, whose `USING` only
/// sqlparser's PostgreSQL dialect reads: parsed with it, for statements that
/// start with ALTER TABLE, say USING and nest shallowly.
fn parse_alter_using(sql: &str) -> Option<Vec<DFStatement>> {
    let tokens = Tokenizer::new(&GenericDialect {}, sql).tokenize().ok()?;
    let mut words = tokens.iter().filter_map(|t| match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    });
    let starts_alter = words.next().as_deref() == Some("ALTER") && words.next().as_deref() == Some("TABLE");
    if !starts_alter || !words.any(|w| w == "USING") {
        return None;
    }
    let mut depth = 0usize;
    for t in &tokens {
        match t {
            Token::LParen => {
                depth += 1;
                if depth > ALTER_USING_MAX_DEPTH {
                    return None;
                }
            }
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let parsed = SqlParser::new(&PostgreSqlDialect {})
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .ok()?;
    parsed
        .iter()
        .all(|s| matches!(s, SqlStatement::AlterTable(_)))
        .then(|| parsed.into_iter().map(|s| DFStatement::Statement(Box::new(s))).collect())
}

fn syntax_error(e: DataFusionError) -> Error {
    if matches!(e.find_root(), DataFusionError::SQL(cause, _) if matches!(**cause, ParserError::RecursionLimitExceeded))
    {
        return Error::programming(format!(
            "statement nested too deeply: the parser allows {PARSER_RECURSION_LIMIT} levels of parentheses, subqueries \
             and calls inside each other; simplify it or split it into steps (common table expressions, views)"
        ));
    }
    Error::syntax(e.to_string().trim_start_matches("SQL error: "))
}

/// Counts how deep expressions and queries nest, stopping at the limit, and
/// checks the length of every select list.
struct Depth {
    now: usize,
    too_wide: Option<usize>,
}

impl Visitor for Depth {
    type Break = ();

    fn pre_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
        self.enter()
    }
    fn post_visit_expr(&mut self, _: &Expr) -> ControlFlow<()> {
        self.now -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let SetExpr::Select(select) = query.body.as_ref() {
            if select.projection.len() > MAX_SELECT_ITEMS {
                self.too_wide = Some(select.projection.len());
                return ControlFlow::Break(());
            }
        }
        self.enter()
    }
    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.now -= 1;
        ControlFlow::Continue(())
    }
}

impl Depth {
    fn enter(&mut self) -> ControlFlow<()> {
        self.now += 1;
        if self.now > MAX_EXPRESSION_DEPTH {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// Refuses a statement whose expressions nest deeper than [`MAX_EXPRESSION_DEPTH`].
fn check_depth(statement: &DFStatement) -> Result<()> {
    let mut depth = Depth { now: 0, too_wide: None };
    let flow = match statement {
        DFStatement::Statement(s) => s.visit(&mut depth),
        DFStatement::CopyTo(copy) => match &copy.source {
            CopyToSource::Query(q) => q.visit(&mut depth),
            CopyToSource::Relation(_) => ControlFlow::Continue(()),
        },
        DFStatement::Explain(explain) => return check_depth(&explain.statement),
        _ => ControlFlow::Continue(()),
    };
    match flow {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) if depth.too_wide.is_some() => Err(Error::programming(format!(
            "a SELECT list has {} items, more than the {MAX_SELECT_ITEMS} swingdb plans; select fewer columns, \
             or pass many values as rows (VALUES or a registered table) rather than as columns",
            depth.too_wide.unwrap_or_default()
        ))),
        ControlFlow::Break(()) => Err(Error::programming(format!(
            "expression nested too deeply: more than {MAX_EXPRESSION_DEPTH} levels (a long chain of OR, AND or + counts \
             one level per operator); rewrite it, e.g. `x IN (1, 2, 3)` instead of `x = 1 OR x = 2 OR x = 3`, or join \
             with a table of the values"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(terms: usize, op: &str) -> String {
        let body = (0..terms).map(|i| format!("i = {i}")).collect::<Vec<_>>().join(&format!(" {op} "));
        format!("SELECT count(*) FROM t WHERE {body}")
    }

    #[test]
    fn long_chains_are_refused_with_a_clear_error_at_any_length() {
        // A chain of n terms nests n - 1 operators plus the comparison below them.
        assert!(parse(&chain(MAX_EXPRESSION_DEPTH - 2, "OR")).is_ok());
        for terms in [MAX_EXPRESSION_DEPTH + 1, 9_000, 200_000] {
            let err = parse(&chain(terms, "OR")).unwrap_err();
            assert_eq!(err.kind(), swingdb_storage::ErrorKind::Programming);
            assert!(err.message().contains("nested too deeply"), "{}", err.message());
        }
        let plus = format!("SELECT {}", vec!["1"; 10_000].join(" + "));
        assert!(parse(&plus).unwrap_err().message().contains("nested too deeply"));
    }

    #[test]
    fn overly_long_select_lists_are_refused() {
        let list = |n: usize| format!("SELECT {}", vec!["?"; n].join(", "));
        assert!(parse(&list(MAX_SELECT_ITEMS)).is_ok());
        let err = parse(&list(100_000)).unwrap_err();
        assert!(err.message().contains("100000 items"), "{}", err.message());
    }

    #[test]
    fn syntax_errors_inside_nested_calls_fail_fast() {
        // Exponential in the nesting with a parser that retries each argument.
        for sql in ["SELECT {} 1024 SELECT i", "SELECT {}1{} SELECT", "COPY (SELECT {}1{} x SELECT) TO 'f.csv'"] {
            let sql = sql.replacen("{}", &"upper(".repeat(40), 1).replacen("{}", &")".repeat(40), 1);
            let start = std::time::Instant::now();
            assert!(parse(&sql).is_err());
            assert!(start.elapsed() < std::time::Duration::from_secs(5), "{sql}: {:?}", start.elapsed());
        }
        let copy = parse("COPY t FROM 'data.csv' (FORMAT csv, HEADER false); COPY t TO 'out.parquet'").unwrap();
        assert_eq!(copy.len(), 2);
    }

    #[test]
    fn deep_parentheses_stop_at_the_parser_limit() {
        let nested = |n: usize| format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
        assert!(parse(&nested(PARSER_RECURSION_LIMIT / 4)).is_ok());
        let err = parse(&nested(100_000)).unwrap_err();
        assert!(err.message().contains("nested too deeply"), "{}", err.message());
    }

    #[test]
    fn deep_input_on_a_small_stack_does_not_overflow() {
        let sql = chain(50_000, "AND");
        let outcome =
            std::thread::Builder::new().stack_size(256 * 1024).spawn(move || parse(&sql).map(|_| ())).unwrap().join();
        assert!(outcome.unwrap().is_err());
    }
}
