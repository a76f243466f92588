//! The shapes of short statements, recognized once per SQL text, which run
//! without DataFusion's planning:
//! - a fast insert (see `fast_insert.rs`): `INSERT INTO t [(columns)]
//!   VALUES (?, 'x', -1.5, ...)`, one row of placeholders and literals;
//! - a point read (see `point_read.rs`): `SELECT columns FROM t WHERE k = ?
//!   [AND ...]`, plain columns of one table whose key the equalities pin.

use crate::frontend::names::object_name;
use crate::frontend::parse::{identifier, parse};
use crate::SCHEMA;
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, SelectItem, SetExpr, Statement as SqlStatement, TableFactor, TableObject, UnaryOperator,
    Value,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// How many statement texts a connection remembers the shape of.
pub(crate) const REMEMBERED: usize = 256;

/// Longest statement text recognized as a short statement: longer ones are
/// never short, and are neither parsed twice nor remembered.
pub(super) const MAX_TEXT: usize = 4096;

/// A recognized `INSERT ... VALUES (placeholders and literals)`.
#[derive(Debug)]
pub struct PreparedInsert {
    pub(super) table: String,
    /// The columns named, or `None` for all in order.
    pub(super) columns: Option<Vec<String>>,
    /// Where each value comes from.
    pub(super) values: Vec<RowValue>,
    /// The literals typed by the connection's planner, on first use (`None`:
    /// one is not a plain literal to it, so the general path runs).
    pub(super) typed: OnceLock<Option<Vec<Option<ScalarValue>>>>,
}

/// Where a value of the row comes from.
#[derive(Debug)]
pub(crate) enum RowValue {
    /// The parameter of this number (0-based).
    Param(usize),
    /// A literal (a number, a string, a boolean, NULL, or a signed number),
    /// as its SQL text: typed by the planner as the general path types it.
    Literal(String),
}

/// `e` as a value of a short statement: a placeholder or a plain literal.
fn row_value(e: &Expr) -> Option<RowValue> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Placeholder(p) => p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1).map(RowValue::Param),
            Value::Number(..) | Value::SingleQuotedString(_) | Value::Boolean(_) | Value::Null => {
                Some(RowValue::Literal(e.to_string()))
            }
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus | UnaryOperator::Plus, expr } => match expr.as_ref() {
            Expr::Value(v) if matches!(v.value, Value::Number(..)) => Some(RowValue::Literal(e.to_string())),
            _ => None,
        },
        _ => None,
    }
}

impl PreparedInsert {
    /// The parameters the values take (0-based).
    pub(super) fn params(&self) -> impl Iterator<Item = usize> + '_ {
        self.values.iter().filter_map(|v| match v {
            RowValue::Param(p) => Some(*p),
            RowValue::Literal(_) => None,
        })
    }
}

/// A recognized short statement.
#[derive(Debug, Clone)]
pub enum Short {
    /// `INSERT ... VALUES (placeholders and literals)`.
    Insert(Arc<PreparedInsert>),
    /// `SELECT columns FROM t WHERE key = value [AND ...]`.
    Read(Arc<PointRead>),
}

/// The statement shapes of the SQL texts seen, by text (`None`: no short statement).
pub(crate) type Remembered = HashMap<String, Option<Short>>;

/// `sql` as a short statement, if it is one.
pub(super) fn recognize(sql: &str) -> Option<Short> {
    let mut statements = parse(sql).ok()?;
    let [DFStatement::Statement(statement)] = statements.as_mut_slice() else { return None };
    match statement.as_ref() {
        SqlStatement::Insert(insert) => recognize_insert(insert).map(|i| Short::Insert(Arc::new(i))),
        SqlStatement::Query(query) => recognize_read(query).map(|r| Short::Read(Arc::new(r))),
        _ => None,
    }
}

/// `insert` as a fast insert, if it is one.
fn recognize_insert(insert: &datafusion::sql::sqlparser::ast::Insert) -> Option<PreparedInsert> {
    let plain = insert.or.is_none()
        && insert.on.is_none()
        && insert.returning.is_none()
        && !insert.overwrite
        && insert.partitioned.is_none()
        && insert.after_columns.is_empty()
        && !insert.has_table_keyword
        && insert.assignments.is_empty()
        && insert.settings.is_none()
        && insert.format_clause.is_none()
        && insert.table_alias.is_none();
    let TableObject::TableName(name) = &insert.table else { return None };
    let query = insert.source.as_ref()?;
    if !plain
        || query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return None;
    }
    let SetExpr::Values(values) = query.body.as_ref() else { return None };
    let [row] = values.rows.as_slice() else { return None };
    let values = row.iter().map(row_value).collect::<Option<Vec<RowValue>>>()?;
    let columns = match insert.columns.as_slice() {
        [] => None,
        named => Some(
            named.iter().map(|c| c.0.last().and_then(|p| p.as_ident()).map(identifier)).collect::<Option<Vec<_>>>()?,
        ),
    };
    if columns.as_ref().is_some_and(|c| c.len() != values.len()) {
        return None;
    }
    Some(PreparedInsert { table: object_name(name, SCHEMA).ok()?, columns, values, typed: OnceLock::new() })
}

/// A recognized point read: `SELECT columns FROM t WHERE c = value [AND
/// ...]`, where the columns are the table's own (`*`, `c`, `t.c`, `c AS
/// name`) and the equalities compare columns with placeholders or literals.
/// Whether the equalities pin exactly one key of the table is known only
/// when it runs (see `point_read.rs`).
#[derive(Debug)]
pub struct PointRead {
    pub(super) table: String,
    /// The select list, item by item.
    pub(super) items: Vec<Selected>,
    /// The columns the equalities compare, each once, with their values.
    pub(super) pinned: Vec<String>,
    /// The values, by equality (as `pinned`).
    pub(super) values: Vec<RowValue>,
    /// The literals typed by the connection's planner, on first use (see
    /// [`PreparedInsert::typed`]).
    pub(super) typed: OnceLock<Option<Vec<Option<ScalarValue>>>>,
}

/// An item of a point read's select list.
#[derive(Debug)]
pub(crate) enum Selected {
    /// `*`: every column of the table, in order.
    All,
    /// A column of the table (its name as the table spells it, after
    /// folding) and the name of the result's column.
    Column { column: String, name: String },
}

/// `query` as a point read, if it is one. Whatever clause the parser keeps
/// beside the select list, the table and the WHERE (DISTINCT, GROUP BY,
/// ORDER BY, LIMIT, a join, a sample, ...) shows in its text: the query
/// must print as those three alone.
fn recognize_read(query: &datafusion::sql::sqlparser::ast::Query) -> Option<PointRead> {
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let [from] = select.from.as_slice() else { return None };
    let TableFactor::Table { name, alias, .. } = &from.relation else { return None };
    let where_ = select.selection.as_ref()?;
    let alias_text = match alias {
        None => String::new(),
        Some(a) if a.columns.is_empty() && a.at.is_none() => format!(" {a}"),
        Some(_) => return None,
    };
    let items: Vec<String> = select.projection.iter().map(|i| i.to_string()).collect();
    let plain = format!("SELECT {} FROM {name}{alias_text} WHERE {where_}", items.join(", "));
    if query.to_string() != plain || !from.joins.is_empty() {
        return None;
    }
    let table = object_name(name, SCHEMA).ok()?;
    // The name columns may be qualified with: the alias, else the table's.
    let qualifier = match alias {
        Some(a) => identifier(&a.name),
        None => identifier(name.0.last()?.as_ident()?),
    };
    let column = |e: &Expr| -> Option<String> {
        match e {
            Expr::Identifier(c) => Some(identifier(c)),
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [q, c] if identifier(q) == qualifier => Some(identifier(c)),
                _ => None,
            },
            _ => None,
        }
    };
    let items = select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::Wildcard(options) if options.to_string().is_empty() => Some(Selected::All),
            SelectItem::UnnamedExpr(e) => column(e).map(|c| Selected::Column { name: c.clone(), column: c }),
            SelectItem::ExprWithAlias { expr, alias } => {
                column(expr).map(|c| Selected::Column { column: c, name: identifier(alias) })
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let mut pinned = Vec::new();
    let mut values = Vec::new();
    for conjunct in conjuncts(where_) {
        let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = conjunct else { return None };
        let (c, value) = match (column(left), column(right)) {
            (Some(c), None) => (c, row_value(right)?),
            (None, Some(c)) => (c, row_value(left)?),
            _ => return None,
        };
        if pinned.contains(&c) {
            return None;
        }
        pinned.push(c);
        values.push(value);
    }
    Some(PointRead { table, items, pinned, values, typed: OnceLock::new() })
}

/// The operands of `e`'s top-level ANDs.
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => {
            let mut all = conjuncts(left);
            all.extend(conjuncts(right));
            all
        }
        other => vec![other],
    }
}
