//! The names of a query's result columns (the select list whose columns the
//! user receives), given on the result's schema, which costs nothing per row.
//!
//! Repeats: SQLite, PostgreSQL and DuckDB answer `SELECT a, a FROM t` and
//! `SELECT 1 AS x, 2 AS x`; DataFusion refuses any plan whose columns share a
//! name. Later repeats of a name are planned under a private alias and given
//! their name back (Arrow allows repeated names).
//!
//! Expressions: an unnamed one is named as the user wrote it (`42`, `a + b`,
//! as SQLite and DuckDB name it), not as DataFusion shows its plan
//! (`Int64(42)`, `t.a + t.b`). Its plan is left alone (an alias would change
//! what ORDER BY and DISTINCT match); the name goes on the column at its
//! position, so only select lists without `*` are named so.

use crate::frontend::dialect::syntax::rewrite_expr;
use crate::frontend::parse::identifier;
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions, visit_expressions_mut, DescribeAlias, Expr, Ident, Query, Select, SelectItem, SetExpr,
    SetQuantifier, Statement, Value, VisitMut, VisitorMut,
};
use futures::StreamExt;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::sync::Arc;
use swingdb_storage::error::Result;

/// Prefix of the private aliases of repeated names; the suffix keeps them apart.
const PRIVATE: &str = "__swingdb_repeat_";

/// The names a query's result columns get back.
#[derive(Debug, Default, Clone)]
pub struct OutputNames {
    /// Private alias -> real name, for repeated names.
    renames: HashMap<String, String>,
    /// (position, SQL text) of unnamed expressions, when positions are known.
    written: Vec<(usize, String)>,
    /// Columns of the select list that `written` counts in.
    width: usize,
}

/// The name an unaliased select item gets, when it is a plain column.
fn plain_name(expr: &Expr) -> Option<String> {
    let ident = match expr {
        Expr::Identifier(i) => i,
        Expr::CompoundIdentifier(parts) => parts.last()?,
        _ => return None,
    };
    Some(identifier(ident))
}

/// Whether `expr` calls DuckDB's `COLUMNS(...)`.
fn has_columns_call(expr: &Expr) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("columns") => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// A key under which DataFusion may name the column of `expr` alike with
/// another: its text with DuckDB's spellings rewritten (`max_by` is
/// `arg_max`) and without casts, in lower case (`x + 1` and `X + 1` are one
/// name to DataFusion). A column whose key another one already has is
/// planned under a private alias (a needless alias changes nothing the user
/// sees); a cast beside its operand (`SELECT x, CAST(x AS INT)`) is aliased
/// so, and a derived table names it as written, as DuckDB does.
fn engine_key(expr: &Expr) -> String {
    let mut bare = expr.clone();
    // A spelling that does not fit (wrong arguments) fails later, when planned.
    let _ = rewrite_expr(&mut bare);
    let _ = visit_expressions_mut(&mut bare, |e| {
        while let Expr::Cast { expr: inner, .. } = e {
            *e = std::mem::replace(inner.as_mut(), Expr::value(Value::Null));
        }
        ControlFlow::<()>::Continue(())
    });
    bare.to_string().to_lowercase()
}

/// Whether `expr` holds a subquery.
fn has_subquery(expr: &Expr) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

impl OutputNames {
    /// `schema` (the planned query's) with its columns named back; `None`
    /// when no name changes.
    pub fn renamed(&self, schema: &Schema) -> Option<Schema> {
        let width = schema.fields().len();
        let written: HashMap<usize, &String> = match width == self.width {
            true => self.written.iter().map(|(i, name)| (*i, name)).collect(),
            false => HashMap::new(),
        };
        if self.renames.is_empty() && written.is_empty() {
            return None;
        }
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match self.renames.get(f.name()).or_else(|| written.get(&i).copied()) {
                Some(name) => f.as_ref().clone().with_name(name),
                None => f.as_ref().clone(),
            })
            .collect();
        Some(Schema::new_with_metadata(fields, schema.metadata().clone()))
    }
}

/// The select list that names a query's columns: its own, or the first of a
/// set operation's (`SELECT a, a FROM t UNION ALL ...` is named `a, a`, as in
/// DuckDB). None where columns are matched by name (`UNION BY NAME`), whose
/// names cannot be aliased.
fn leftmost_select(body: &mut SetExpr) -> Option<&mut Select> {
    match body {
        SetExpr::Select(select) => Some(select),
        SetExpr::Query(query) => leftmost_select(query.body.as_mut()),
        SetExpr::SetOperation { left, set_quantifier, .. } => match set_quantifier {
            SetQuantifier::ByName | SetQuantifier::AllByName | SetQuantifier::DistinctByName => None,
            _ => leftmost_select(left),
        },
        _ => None,
    }
}

/// Aliases the repeated names of a query's top-level select list privately
/// and notes the text of its unnamed expressions: what to name back.
pub fn plan_output_names(statement: &mut DFStatement) -> OutputNames {
    let mut names = OutputNames::default();
    let DFStatement::Statement(s) = statement else { return names };
    let query = match s.as_mut() {
        Statement::Query(query) => query,
        // `DESCRIBE SELECT ...` lists the columns under the names the query gives them.
        Statement::Explain { describe_alias: DescribeAlias::Describe | DescribeAlias::Desc, statement, .. } => {
            match statement.as_mut() {
                Statement::Query(query) => query,
                _ => return names,
            }
        }
        _ => return names,
    };
    let Some(select) = leftmost_select(query.body.as_mut()) else { return names };
    // DuckDB's COLUMNS(...) expands into items that name themselves
    // (`sql::frontend::dialect::columns`): positions are not known yet.
    if select.projection.iter().any(|item| matches!(item, SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } if has_columns_call(e))) {
        return names;
    }
    let mut seen = HashSet::new();
    // The keys of the columns planned under their own names (see `engine_key`).
    let mut keys = HashSet::new();
    let stars =
        select.projection.iter().any(|i| matches!(i, SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)));
    names.width = select.projection.len();
    for (i, item) in select.projection.iter_mut().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(expr) => match plain_name(expr) {
                Some(name) => (expr.clone(), name),
                None => {
                    let text = expr.to_string();
                    // A repeat plans under a private alias, as repeated names
                    // do. DataFusion names a subquery after its own column
                    // (`count(*)`), or `(<subquery>)`: an unnamed expression
                    // with a subquery always gets a private alias, so that it
                    // repeats no other column's name.
                    if !has_subquery(expr) && seen.insert(format!("expression {text}")) && keys.insert(engine_key(expr))
                    {
                        if !stars {
                            names.written.push((i, text));
                        }
                    } else {
                        let private = format!("{PRIVATE}{i}");
                        *item = SelectItem::ExprWithAlias {
                            expr: expr.clone(),
                            alias: Ident::with_quote('"', private.clone()),
                        };
                        names.renames.insert(private, text);
                    }
                    continue;
                }
            },
            SelectItem::ExprWithAlias { expr, alias } => (expr.clone(), identifier(alias)),
            _ => continue,
        };
        if !seen.insert(name.clone()) || !keys.insert(name.to_lowercase()) {
            let private = format!("{PRIVATE}{i}");
            *item = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('"', private.clone()) };
            names.renames.insert(private, name);
        }
    }
    names
}

/// Aliases, in every select list of `statement` (derived tables, CTEs,
/// views, subqueries, each branch of a UNION), each unnamed expression that
/// DataFusion would name as an earlier column of its list (see
/// [`engine_key`]) with its own text, as DuckDB names it: DataFusion refuses
/// `SELECT * FROM (SELECT a + 1, A + 1 FROM t)`. Runs after
/// [`plan_output_names`], whose private aliases leave no such repeat in the
/// top-level list.
pub fn alias_engine_repeats(statement: &mut DFStatement) {
    struct Lists;
    impl VisitorMut for Lists {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            alias_in(query.body.as_mut());
            ControlFlow::Continue(())
        }
    }
    if let DFStatement::Statement(s) = statement {
        let _ = s.visit(&mut Lists);
    }
}

/// [`alias_engine_repeats`] in the select lists of `body` (nested queries
/// are visited on their own). The names of plain columns and aliases are
/// taken first: `SELECT CAST(a AS INT), a` aliases the cast. A name given
/// twice (`SELECT a, a`, `SELECT x.a, y.a`, `SELECT 1 AS a, 2 AS a`) is
/// `a`, then `a_1`, `a_2`, ... as DuckDB names the columns of a derived
/// table; in a set operation's later inputs, whose names nothing reads,
/// that only lets DataFusion plan them.
fn alias_in(body: &mut SetExpr) {
    match body {
        SetExpr::Select(select) => {
            let named = |item: &SelectItem| match item {
                SelectItem::UnnamedExpr(expr) => plain_name(expr),
                SelectItem::ExprWithAlias { alias, .. } => Some(identifier(alias)),
                _ => None,
            };
            let mut keys: HashSet<String> =
                select.projection.iter().filter_map(named).map(|name| name.to_lowercase()).collect();
            // Names the list's columns have: their own and the aliases given here.
            let mut taken = keys.clone();
            let mut seen = HashSet::new();
            for item in select.projection.iter_mut() {
                if let Some(name) = named(item) {
                    if !seen.insert(name.to_lowercase()) {
                        let alias = free_name(&name, &mut taken);
                        keys.insert(alias.to_lowercase());
                        let expr = match item {
                            SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => expr.clone(),
                            _ => unreachable!("only named items have a name"),
                        };
                        *item = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('"', alias) };
                    }
                    continue;
                }
                let SelectItem::UnnamedExpr(expr) = item else { continue };
                if !keys.insert(engine_key(expr)) && !has_subquery(expr) {
                    // Its text, unless an earlier repeat took it (`SELECT 1, 1, 1`: `1_1`).
                    let alias = Ident::with_quote('"', free_name(&expr.to_string(), &mut taken));
                    *item = SelectItem::ExprWithAlias { expr: expr.clone(), alias };
                }
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            alias_in(left);
            alias_in(right);
        }
        _ => {}
    }
}

/// The first of `name`, `name_1`, `name_2`, ... (as DuckDB numbers repeated
/// names) that is not in `taken` (lower case), now taken.
fn free_name(name: &str, taken: &mut HashSet<String>) -> String {
    let mut candidates = std::iter::once(name.to_string()).chain((1..).map(|n| format!("{name}_{n}")));
    let free = candidates.find(|n| !taken.contains(&n.to_lowercase())).expect("a free name");
    taken.insert(free.to_lowercase());
    free
}

/// `stream` with its columns named back.
pub fn restore_names(stream: SendableRecordBatchStream, names: OutputNames) -> Result<SendableRecordBatchStream> {
    let Some(schema) = names.renamed(&stream.schema()) else { return Ok(stream) };
    let schema = Arc::new(schema);
    let out = schema.clone();
    let renamed = stream.map(move |batch| Ok(RecordBatch::try_new(out.clone(), batch?.columns().to_vec())?));
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, renamed)))
}
