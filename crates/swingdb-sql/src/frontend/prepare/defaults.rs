//! `DEFAULT` (and NULL for an identity column) in `INSERT ... VALUES`.

use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use crate::Tables;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    Expr as SqlExpr, Ident, ObjectName, SetExpr, Statement as SqlStatement, TableObject, Value as SqlValue,
};
use swingdb_storage::error::{Error, ErrorKind, Result};

/// `INSERT ... VALUES` with `DEFAULT` for a column (PostgreSQL, DuckDB), or
/// NULL for an identity column (SQLite's way to ask for the next number):
/// DataFusion plans neither, so a column given so in every row is taken off
/// the statement, and gets its DEFAULT (or next number) as a column left out.
pub(crate) fn take_default_values(statement: &mut DFStatement, tables: &Tables, own: &str) -> Result<()> {
    let DFStatement::Statement(s) = statement else { return Ok(()) };
    let SqlStatement::Insert(insert) = s.as_mut() else { return Ok(()) };
    let TableObject::TableName(name) = &insert.table else { return Ok(()) };
    let Some(meta) = object_name(name, own).ok().and_then(|n| tables.lock().get(&n).cloned()) else {
        return Ok(());
    };
    let Some(SetExpr::Values(values)) = insert.source.as_mut().map(|q| q.body.as_mut()) else { return Ok(()) };
    let columns: Vec<String> = match insert.columns.is_empty() {
        true => meta.schema.fields().iter().map(|f| f.name().clone()).collect(),
        false => insert
            .columns
            .iter()
            .map(|c| c.0.last().and_then(|p| p.as_ident()).map(identifier).unwrap_or_default())
            .collect(),
    };
    if values.rows.iter().any(|row| row.len() != columns.len()) {
        return Ok(()); // DataFusion says what is wrong
    }
    let is_default = |e: &SqlExpr| matches!(e, SqlExpr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DEFAULT"));
    let is_null = |e: &SqlExpr| matches!(e, SqlExpr::Value(v) if matches!(v.value, SqlValue::Null));
    let mut dropped = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        let identity = meta.constraints.identity.contains_key(column);
        let defaulted = |row: &Vec<SqlExpr>| is_default(&row[i]) || (identity && is_null(&row[i]));
        let count = values.rows.iter().filter(|row| defaulted(row)).count();
        if count == values.rows.len() {
            dropped.push(i);
        } else if values.rows.iter().any(|row| is_default(&row[i])) {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("DEFAULT for column '{column}' in some rows of VALUES but not all is not supported yet; split the INSERT"),
            ));
        }
    }
    if dropped.is_empty() {
        return Ok(());
    }
    if dropped.len() == columns.len() {
        return Err(Error::new(
            ErrorKind::NotSupported,
            "VALUES of DEFAULTs only is not supported yet; name one column with a value",
        ));
    }
    insert.columns = columns
        .iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, c)| ObjectName::from(vec![Ident::with_quote('"', c)]))
        .collect();
    for row in values.rows.iter_mut() {
        let mut i = 0;
        row.retain(|_| {
            i += 1;
            !dropped.contains(&(i - 1))
        });
    }
    Ok(())
}
