//! The shape of a fast insert (see `fast_insert.rs`):
//! `INSERT INTO t [(columns)] VALUES (?, ?, ...)`, recognized once per SQL text.

use crate::sql::frontend::names::object_name;
use crate::sql::frontend::parse::{identifier, parse};
use crate::sql::SCHEMA;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, SetExpr, Statement as SqlStatement, TableObject, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// How many statement texts a connection remembers the shape of.
pub(crate) const REMEMBERED: usize = 256;

/// A recognized `INSERT ... VALUES (placeholders)`.
#[derive(Debug)]
pub(crate) struct PreparedInsert {
    pub(super) table: String,
    /// The columns named, or `None` for all in order.
    pub(super) columns: Option<Vec<String>>,
    /// For each value, the parameter it is (0-based).
    pub(super) params: Vec<usize>,
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
    let params = row
        .iter()
        .map(|e| match e {
            Expr::Value(v) => match &v.value {
                Value::Placeholder(p) => p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    let columns = match insert.columns.as_slice() {
        [] => None,
        named => Some(
            named.iter().map(|c| c.0.last().and_then(|p| p.as_ident()).map(identifier)).collect::<Option<Vec<_>>>()?,
        ),
    };
    if columns.as_ref().is_some_and(|c| c.len() != params.len()) {
        return None;
    }
    Some(PreparedInsert { table: object_name(name, SCHEMA).ok()?, columns, params })
}
