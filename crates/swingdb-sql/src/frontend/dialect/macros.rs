//! DuckDB's macros: `CREATE MACRO add(a, b := 1) AS a + b` (scalar) and
//! `CREATE MACRO recent(n) AS TABLE SELECT ... LIMIT n` (table), also
//! spelled `CREATE FUNCTION`. A macro is stored as its statement; a query
//! calling one has the call replaced by the body, with each parameter
//! replaced by the argument given for it (in parentheses) or its default,
//! before it is planned. A scalar body reads its parameters only (and
//! tables in subqueries), as in DuckDB.

use super::tokens::{is_word, Tokens};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, MacroArg, MacroDefinition, ObjectName, Query,
    Statement, TableAlias, TableFactor, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use datafusion::sql::sqlparser::tokenizer::Token;
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// How many rounds of expansion a statement may need (macros calling
/// macros); more is taken for a macro that calls itself.
const MAX_DEPTH: usize = 32;

/// DuckDB's spellings sqlparser does not read: `CREATE [OR REPLACE] [TEMP]
/// FUNCTION f(...) AS ...` (a macro) as `CREATE ... MACRO`, and `DROP MACRO
/// [TABLE] name` as `DROP FUNCTION name`. `None` if there is none.
pub(super) fn rewrite_macro_statements(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let tokens = &text.tokens;
    let words = text.words();
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for start in text.statement_starts() {
        let Some(at) = words.iter().position(|&w| w == start) else { continue };
        let word = |k: usize| words.get(at + k).map(|&i| &tokens[i].token);
        if word(0).is_some_and(|t| is_word(t, "CREATE")) {
            let mut k = 1;
            if word(1).is_some_and(|t| is_word(t, "OR")) {
                k += 2;
            }
            if word(k).is_some_and(|t| is_word(t, "TEMP") || is_word(t, "TEMPORARY")) {
                k += 1;
            }
            // A macro has `AS` after its parameters where a SQL function has `RETURNS`.
            let is_macro = after_parameters(&text, &words[at + k..]).is_some_and(|t| is_word(t, "AS"));
            if word(k).is_some_and(|t| is_word(t, "FUNCTION")) && is_macro {
                let i = words[at + k];
                edits.push((text.start(i)?..text.end(i)?, "MACRO"));
            }
        } else if word(0).is_some_and(|t| is_word(t, "DROP")) && word(1).is_some_and(|t| is_word(t, "MACRO")) {
            let i = words[at + 1];
            let to = match word(2).is_some_and(|t| is_word(t, "TABLE")) {
                true => text.end(words[at + 2])?,
                false => text.end(i)?,
            };
            edits.push((text.start(i)?..to, "FUNCTION"));
        }
    }
    text.edited(edits)
}

/// The word after the parenthesis that closes the first one opened in `words`.
fn after_parameters<'a>(text: &'a Tokens, words: &[usize]) -> Option<&'a Token> {
    let mut depth = 0usize;
    for (n, &i) in words.iter().enumerate() {
        match &text.tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen if depth == 1 => return words.get(n + 1).map(|&j| &text.tokens[j].token),
            Token::RParen => depth = depth.checked_sub(1)?,
            Token::SemiColon => return None,
            _ => {}
        }
    }
    None
}

/// A stored macro: its parameters (with defaults) and body.
#[derive(Debug, Clone)]
pub struct Macro {
    name: String,
    params: Vec<MacroArg>,
    body: MacroDefinition,
}

impl Macro {
    /// Checks a `CREATE MACRO` statement's parts: parameters named once,
    /// those with defaults last. Returns the statement to store (without OR
    /// REPLACE and TEMP, named `name`).
    pub fn definition(name: &str, args: Option<&[MacroArg]>, body: &MacroDefinition) -> Result<String> {
        let params = args.unwrap_or_default();
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.name.value.eq_ignore_ascii_case(&p.name.value)) {
                return Err(Error::programming(format!("macro '{name}' names parameter '{}' twice", p.name.value)));
            }
            if p.default_expr.is_none() && params[..i].iter().any(|q| q.default_expr.is_some()) {
                return Err(Error::programming(format!(
                    "macro '{name}': parameter '{}' has no default but comes after one that has; put parameters with defaults last",
                    p.name.value
                )));
            }
        }
        if let MacroDefinition::Expr(body) = body {
            let mut unbound = Unbound { params, queries: 0, lambdas: 0, found: None };
            let _ = body.clone().visit(&mut unbound);
            if let Some(column) = unbound.found {
                return Err(Error::programming(format!(
                    "macro '{name}' reads '{column}', which is not one of its parameters; a macro reads its parameters only \
                     (add a parameter and pass the column), or a table in a subquery"
                )));
            }
        }
        let statement = Statement::CreateMacro {
            or_replace: false,
            temporary: false,
            name: ObjectName::from(vec![Ident::with_quote('"', name)]),
            args: Some(params.to_vec()),
            definition: body.clone(),
        };
        Ok(statement.to_string())
    }

    /// The macro a stored statement defines.
    pub fn parse(sql: &str) -> Result<Self> {
        let parsed = Parser::parse_sql(&GenericDialect {}, sql)
            .map_err(|e| Error::corruption(format!("stored macro {sql:?} does not parse: {e}")))?;
        match parsed.into_iter().next() {
            Some(Statement::CreateMacro { name, args, definition, .. }) => Ok(Self {
                name: name.0.last().and_then(|p| p.as_ident()).map_or_else(String::new, |i| i.value.clone()),
                params: args.unwrap_or_default(),
                body: definition,
            }),
            _ => Err(Error::corruption(format!("stored macro {sql:?} is not a CREATE MACRO statement"))),
        }
    }

    /// Each parameter's value in a call with `args`.
    fn bind(&self, args: &[FunctionArg]) -> Result<Vec<(String, Expr)>> {
        let mut given: Vec<Option<Expr>> = vec![None; self.params.len()];
        let positional = self.params.iter().filter(|p| p.default_expr.is_none()).count();
        let mut next = 0;
        for arg in args {
            let (at, value) = match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => {
                    next += 1;
                    (next - 1, e)
                }
                FunctionArg::Named { name, arg: FunctionArgExpr::Expr(e), .. } => {
                    let at =
                        self.params.iter().position(|p| p.name.value.eq_ignore_ascii_case(&name.value)).ok_or_else(
                            || {
                                Error::programming(format!(
                                    "macro '{}' has no parameter '{}' (it has: {})",
                                    self.name,
                                    name.value,
                                    self.param_list()
                                ))
                            },
                        )?;
                    (at, e)
                }
                other => {
                    return Err(Error::programming(format!("macro '{}' cannot take the argument {other}", self.name)))
                }
            };
            if at >= self.params.len() || given[at].is_some() {
                return Err(self.wrong_count(args.len()));
            }
            given[at] = Some(value.clone());
        }
        if given[..positional].iter().any(Option::is_none) {
            return Err(self.wrong_count(args.len()));
        }
        Ok(self
            .params
            .iter()
            .zip(given)
            .map(|(p, value)| {
                (p.name.value.clone(), value.or_else(|| p.default_expr.clone()).expect("defaults fill the rest"))
            })
            .collect())
    }

    fn param_list(&self) -> String {
        self.params.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", ")
    }

    fn wrong_count(&self, given: usize) -> Error {
        Error::programming(format!(
            "macro {}({}) was called with {given} argument{}",
            self.name,
            self.param_list(),
            if given == 1 { "" } else { "s" }
        ))
    }
}

/// Finds a column a scalar macro's body names that is none of its
/// parameters (outside subqueries and lambdas, which bind their own), which
/// DuckDB refuses as well: the body would read whatever the caller's query
/// has under that name.
struct Unbound<'a> {
    params: &'a [MacroArg],
    queries: usize,
    lambdas: usize,
    found: Option<String>,
}

impl VisitorMut for Unbound<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.queries += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.queries -= 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::Lambda(_) => self.lambdas += 1,
            _ if self.queries > 0 || self.lambdas > 0 => {}
            Expr::Identifier(ident) if !self.params.iter().any(|p| p.name.value.eq_ignore_ascii_case(&ident.value)) => {
                self.found = Some(ident.value.clone());
                return ControlFlow::Break(());
            }
            Expr::CompoundIdentifier(parts) => {
                self.found = Some(parts.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join("."));
                return ControlFlow::Break(());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if matches!(expr, Expr::Lambda(_)) {
            self.lambdas -= 1;
        }
        ControlFlow::Continue(())
    }
}

/// Replaces each identifier that names a parameter with its value.
struct Substitute<'a>(&'a [(String, Expr)]);

impl VisitorMut for Substitute<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(ident) = expr {
            let found = self.0.iter().find(|(name, _)| match ident.quote_style {
                Some(_) => *name == ident.value,
                None => name.eq_ignore_ascii_case(&ident.value),
            });
            if let Some((_, value)) = found {
                *expr = Expr::Nested(Box::new(value.clone()));
            }
        }
        ControlFlow::Continue(())
    }
}

/// Replaces one round of macro calls.
struct Expand<'a> {
    find: &'a dyn Fn(&str) -> Option<Result<Macro>>,
    expanded: bool,
}

impl Expand<'_> {
    fn lookup(&self, name: &ObjectName) -> ControlFlow<Error, Option<Macro>> {
        let [part] = name.0.as_slice() else { return ControlFlow::Continue(None) };
        let Some(ident) = part.as_ident() else { return ControlFlow::Continue(None) };
        let key = if ident.quote_style.is_some() { ident.value.clone() } else { ident.value.to_lowercase() };
        match (self.find)(&key) {
            None => ControlFlow::Continue(None),
            Some(Ok(m)) => ControlFlow::Continue(Some(m)),
            Some(Err(e)) => ControlFlow::Break(e),
        }
    }
}

impl VisitorMut for Expand<'_> {
    type Break = Error;

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<Error> {
        let Expr::Function(call) = expr else { return ControlFlow::Continue(()) };
        let Some(m) = self.lookup(&call.name)? else { return ControlFlow::Continue(()) };
        let args = match &call.args {
            FunctionArguments::List(list) if list.duplicate_treatment.is_none() && list.clauses.is_empty() => {
                list.args.clone()
            }
            FunctionArguments::None => Vec::new(),
            _ => return ControlFlow::Break(Error::programming(format!("macro '{}' takes plain arguments", m.name))),
        };
        let MacroDefinition::Expr(body) = &m.body else {
            return ControlFlow::Break(Error::programming(format!(
                "'{}' is a table macro; use it in FROM: SELECT * FROM {}(...)",
                m.name, m.name
            )));
        };
        if call.over.is_some() || call.filter.is_some() {
            return ControlFlow::Break(Error::programming(format!(
                "macro '{}' is not an aggregate or window function",
                m.name
            )));
        }
        let values = match m.bind(&args) {
            Ok(values) => values,
            Err(e) => return ControlFlow::Break(e),
        };
        let mut body = body.clone();
        let _ = body.visit(&mut Substitute(&values));
        *expr = Expr::Nested(Box::new(body));
        self.expanded = true;
        ControlFlow::Continue(())
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<Error> {
        let TableFactor::Table { name, args: Some(args), alias, .. } = factor else { return ControlFlow::Continue(()) };
        let Some(m) = self.lookup(name)? else { return ControlFlow::Continue(()) };
        let MacroDefinition::Table(query) = &m.body else {
            return ControlFlow::Break(Error::programming(format!(
                "'{}' is a scalar macro; call it in an expression, not in FROM",
                m.name
            )));
        };
        let values = match m.bind(&args.args) {
            Ok(values) => values,
            Err(e) => return ControlFlow::Break(e),
        };
        let mut subquery: Box<Query> = query.clone();
        let _ = subquery.visit(&mut Substitute(&values));
        let alias = alias.clone().unwrap_or(TableAlias {
            explicit: true,
            name: Ident::with_quote('"', &m.name),
            columns: Vec::new(),
            at: None,
        });
        *factor = TableFactor::Derived { lateral: false, subquery, alias: Some(alias), sample: None };
        self.expanded = true;
        ControlFlow::Continue(())
    }
}

/// Replaces the calls of macros in `statement`; `find` gives the macro of a
/// name (as the catalog keeps it), if there is one.
pub fn expand(statement: &mut DFStatement, find: &dyn Fn(&str) -> Option<Result<Macro>>) -> Result<()> {
    let DFStatement::Statement(statement) = statement else { return Ok(()) };
    if matches!(statement.as_ref(), Statement::CreateMacro { .. }) {
        return Ok(()); // a body is expanded where it is called
    }
    for _ in 0..MAX_DEPTH {
        let mut round = Expand { find, expanded: false };
        if let ControlFlow::Break(e) = statement.visit(&mut round) {
            return Err(e);
        }
        if !round.expanded {
            return Ok(());
        }
    }
    Err(Error::new(
        ErrorKind::Programming,
        format!("macros call each other more than {MAX_DEPTH} deep (does one call itself?)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_defined_as_expressions_are_macros_and_drop_macro_drops_a_function() {
        assert_eq!(
            rewrite_macro_statements("CREATE OR REPLACE FUNCTION f(a) AS a + 1").unwrap(),
            "CREATE OR REPLACE MACRO f(a) AS a + 1"
        );
        assert_eq!(rewrite_macro_statements("CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL AS 'x'"), None);
        assert_eq!(
            rewrite_macro_statements("drop macro table t; DROP MACRO IF EXISTS m").unwrap(),
            "drop FUNCTION t; DROP FUNCTION IF EXISTS m"
        );
    }

    #[test]
    fn calls_bind_arguments_by_position_name_and_default() {
        let m = Macro::parse("CREATE MACRO m(a, b := 2) AS a * 10 + b").unwrap();
        let find = |name: &str| (name == "m").then(|| Ok(m.clone()));
        let mut parsed =
            crate::frontend::parse::parse("SELECT m(1), m(1, 3), m(b := 4, a := 5), m(m(1))").unwrap().remove(0);
        expand(&mut parsed, &find).unwrap();
        assert_eq!(
            parsed.to_string(),
            "SELECT ((1) * 10 + (2)), ((1) * 10 + (3)), ((5) * 10 + (4)), ((((1) * 10 + (2))) * 10 + (2))"
        );
        for (sql, message) in [
            ("SELECT m()", "was called with 0 arguments"),
            ("SELECT m(1, 2, 3)", "with 3 arguments"),
            ("SELECT m(1, c := 2)", "no parameter 'c'"),
        ] {
            let mut parsed = crate::frontend::parse::parse(sql).unwrap().remove(0);
            let e = expand(&mut parsed, &find).unwrap_err();
            assert!(e.message().contains(message), "{sql}: {}", e.message());
        }
        let looping = Macro::parse("CREATE MACRO m(a) AS m(a)").unwrap();
        let mut parsed = crate::frontend::parse::parse("SELECT m(1)").unwrap().remove(0);
        assert!(expand(&mut parsed, &|_| Some(Ok(looping.clone())))
            .unwrap_err()
            .message()
            .contains("more than 32 deep"));
    }
}
