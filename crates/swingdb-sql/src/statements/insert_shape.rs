//! The shape of a fast insert (see `fast_insert.rs`):
//! `INSERT INTO t [(columns)] VALUES (?, 'x', -1.5, ...)`, one row of
//! placeholders and literals, recognized once per SQL text.

use crate::frontend::names::object_name;
use crate::frontend::parse::{identifier, parse};
use crate::SCHEMA;
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, SetExpr, Statement as SqlStatement, TableObject, UnaryOperator, Value};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// How many statement texts a connection remembers the shape of.
pub(crate) const REMEMBERED: usize = 256;

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

impl PreparedInsert {
    /// The parameters the values take (0-based).
    pub(super) fn params(&self) -> impl Iterator<Item = usize> + '_ {
        self.values.iter().filter_map(|v| match v {
            RowValue::Param(p) => Some(*p),
            RowValue::Literal(_) => None,
        })
    }
}

/// The statement shapes of the SQL texts seen, by text (`None`: not a fast insert).
pub(crate) type Remembered = HashMap<String, Option<Arc<PreparedInsert>>>;

/// `sql` as a fast insert, if it is one.
pub(crate) fn recognize(sql: &str) -> Option<PreparedInsert> {
    let mut statements = parse(sql).ok()?;
    let [DFStatement::Statement(statement)] = statements.as_mut_slice() else { return None };
    let SqlStatement::Insert(insert) = statement.as_ref() else { return None };
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
    let values = row
        .iter()
        .map(|e| match e {
            Expr::Value(v) => match &v.value {
                Value::Placeholder(p) => {
                    p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1).map(RowValue::Param)
                }
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
        })
        .collect::<Option<Vec<RowValue>>>()?;
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
