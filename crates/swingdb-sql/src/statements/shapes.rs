//! The shapes of short statements, recognized once per SQL text, which run
//! without DataFusion's planning:
//! - a fast insert (see `fast_insert.rs`): `INSERT INTO t [(columns)]
//!   VALUES (?, 'x', -1.5, ...)`, one row of placeholders and literals;
//! - a point read (see `point_read.rs`): `SELECT columns FROM t WHERE k = ?
//!   [AND ...]`, plain columns of one table whose key the equalities pin;
//! - a write by key (see `keyed_write.rs`): `UPDATE t SET c = ?, ... WHERE
//!   k = ?` and `DELETE FROM t WHERE k = ?`.

use crate::frontend::names::object_name;
use crate::frontend::parse::{identifier, parse};
use crate::SCHEMA;
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    AssignmentTarget, BinaryOperator, Expr, FromTable, SelectItem, SetExpr, Statement as SqlStatement, TableFactor,
    TableObject, TableWithJoins, UnaryOperator, Value,
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
    /// The literals, typed on first use.
    pub(super) typed: Typed,
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

/// Literals typed by the connection's planner on first use, as the general
/// path types them, `None` in place of each parameter; `None` if one does
/// not plan to a plain literal (then the general path runs).
pub(super) type Typed = OnceLock<Option<Vec<Option<ScalarValue>>>>;

/// A recognized short statement.
#[derive(Debug, Clone)]
pub enum Short {
    /// `INSERT ... VALUES (placeholders and literals)`.
    Insert(Arc<PreparedInsert>),
    /// `SELECT columns FROM t WHERE key = value [AND ...]`.
    Read(Arc<PointRead>),
    /// `UPDATE t SET c = value ... WHERE key = value` or `DELETE FROM t WHERE key = value`.
    Write(Arc<KeyedWrite>),
}

impl Short {
    /// The table it reads or writes, as named (unqualified).
    pub(crate) fn table(&self) -> &str {
        match self {
            Short::Insert(insert) => &insert.table,
            Short::Read(read) => &read.table,
            Short::Write(write) => &write.table,
        }
    }
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
        SqlStatement::Update(update) => recognize_update(update).map(|w| Short::Write(Arc::new(w))),
        SqlStatement::Delete(delete) => recognize_delete(delete).map(|w| Short::Write(Arc::new(w))),
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
    /// The literals, typed on first use.
    pub(super) typed: Typed,
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
    let column = |e: &Expr| column_of(e, &qualifier);
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
    let (pinned, values) = equalities(where_, &qualifier)?;
    Some(PointRead { table, items, pinned, values, typed: OnceLock::new() })
}

/// The column `e` names (plain, or qualified with `qualifier`), folded.
fn column_of(e: &Expr, qualifier: &str) -> Option<String> {
    match e {
        Expr::Identifier(c) => Some(identifier(c)),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [q, c] if identifier(q) == qualifier => Some(identifier(c)),
            _ => None,
        },
        _ => None,
    }
}

/// The columns a WHERE of ANDed `column = value` compares (each once), and
/// their values; `None` for any other condition.
fn equalities(where_: &Expr, qualifier: &str) -> Option<(Vec<String>, Vec<RowValue>)> {
    let mut pinned = Vec::new();
    let mut values = Vec::new();
    for conjunct in conjuncts(where_) {
        let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = conjunct else { return None };
        let (c, value) = match (column_of(left, qualifier), column_of(right, qualifier)) {
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
    Some((pinned, values))
}

/// A recognized write by key: `UPDATE t SET c = value, ... WHERE k = value
/// [AND ...]` or `DELETE FROM t WHERE k = value [AND ...]`, the values
/// placeholders or literals (see `keyed_write.rs`).
#[derive(Debug)]
pub struct KeyedWrite {
    pub(super) table: String,
    /// The columns an UPDATE sets, each once, and what to (none for a DELETE).
    pub(super) set: Vec<(String, SetTo)>,
    /// The columns the equalities compare, each once.
    pub(super) pinned: Vec<String>,
    /// The values: those `set` takes, in order, then those of `pinned`.
    pub(super) values: Vec<RowValue>,
    /// The physical expressions of the `SetTo::Expression`s, planned once
    /// for the table's schema they were planned against (see `keyed_write.rs`).
    pub(super) planned: parking_lot::Mutex<Option<PlannedSet>>,
    /// Whether it is a DELETE.
    pub(super) delete: bool,
    /// The literals, typed on first use.
    pub(super) typed: Typed,
}

/// What an UPDATE sets a column to.
#[derive(Debug)]
pub(crate) enum SetTo {
    /// The next value of [`KeyedWrite::values`].
    Value,
    /// An expression over the row's columns and literals (no function, no
    /// subquery, no placeholder, no cast: it means the same at every run),
    /// as its SQL text.
    Expression(String),
}

/// Physical expressions planned for a table schema.
pub(crate) type PlannedSet =
    (datafusion::arrow::datatypes::SchemaRef, Option<Vec<Arc<dyn datafusion::physical_plan::PhysicalExpr>>>);

/// Whether `e` is built only of columns, literals, operators, CASE and
/// NULL tests: what evaluates the same at every run, so that its plan can
/// be kept (functions may not: `now()` is folded when planned).
fn plain_expression(e: &Expr) -> bool {
    datafusion::sql::sqlparser::ast::visit_expressions(e, |e| match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::BinaryOp { .. }
        | Expr::UnaryOp { .. }
        | Expr::Nested(_)
        | Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::Case { .. } => std::ops::ControlFlow::Continue(()),
        Expr::Value(v) if !matches!(v.value, Value::Placeholder(_)) => std::ops::ControlFlow::Continue(()),
        _ => std::ops::ControlFlow::Break(()),
    })
    .is_continue()
}

/// The table a plain `FROM t` / `UPDATE t` names (no alias, no join), and
/// the qualifier its columns may carry.
fn plain_table(from: &TableWithJoins) -> Option<(String, String)> {
    let TableFactor::Table { name, alias: None, .. } = &from.relation else { return None };
    if !from.joins.is_empty() {
        return None;
    }
    Some((object_name(name, SCHEMA).ok()?, identifier(name.0.last()?.as_ident()?)))
}

/// `update` as a write by key, if it is one: it must print as its table,
/// its assignments and its WHERE alone (see [`recognize_read`]).
fn recognize_update(update: &datafusion::sql::sqlparser::ast::Update) -> Option<KeyedWrite> {
    let where_ = update.selection.as_ref()?;
    let assignments: Vec<String> = update.assignments.iter().map(|a| a.to_string()).collect();
    let plain = format!("UPDATE {} SET {} WHERE {where_}", update.table, assignments.join(", "));
    if update.to_string() != plain {
        return None;
    }
    let (table, qualifier) = plain_table(&update.table)?;
    let mut set = Vec::new();
    let mut values = Vec::new();
    for assignment in &update.assignments {
        let AssignmentTarget::ColumnName(name) = &assignment.target else { return None };
        let [part] = name.0.as_slice() else { return None };
        let column = identifier(part.as_ident()?);
        if set.iter().any(|(c, _)| *c == column) {
            return None;
        }
        match row_value(&assignment.value) {
            Some(value) => {
                values.push(value);
                set.push((column, SetTo::Value));
            }
            None if plain_expression(&assignment.value) => {
                set.push((column, SetTo::Expression(assignment.value.to_string())));
            }
            None => return None,
        }
    }
    let (pinned, keys) = equalities(where_, &qualifier)?;
    values.extend(keys);
    Some(KeyedWrite { table, set, pinned, values, delete: false, typed: OnceLock::new(), planned: Default::default() })
}

/// `delete` as a write by key, if it is one (`DELETE FROM t WHERE ...`).
fn recognize_delete(delete: &datafusion::sql::sqlparser::ast::Delete) -> Option<KeyedWrite> {
    let where_ = delete.selection.as_ref()?;
    let FromTable::WithFromKeyword(from) = &delete.from else { return None };
    let [from] = from.as_slice() else { return None };
    if delete.to_string() != format!("DELETE FROM {from} WHERE {where_}") {
        return None;
    }
    let (table, qualifier) = plain_table(from)?;
    let (pinned, values) = equalities(where_, &qualifier)?;
    Some(KeyedWrite {
        table,
        set: Vec::new(),
        pinned,
        values,
        delete: true,
        typed: OnceLock::new(),
        planned: Default::default(),
    })
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
