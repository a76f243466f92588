//! RETURNING (PostgreSQL, SQLite, DuckDB): the clause that makes an INSERT,
//! UPDATE, DELETE, upsert or MERGE return rows it wrote. It is taken off the
//! statement so that DataFusion plans the plain write; the executor then
//! evaluates its items as a query over the rows written (see the executor's
//! `returning.rs`), in which the table is known by the name the statement
//! gave it.

use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    FromTable, Ident, ObjectName, OutputClause, SelectItem, Statement as SqlStatement, TableFactor, TableObject,
};
use swingdb_storage::error::{Error, ErrorKind, Result};

/// A statement's RETURNING clause.
#[derive(Debug, Clone)]
pub(crate) struct Returning {
    /// What each returned row holds (`*`, `t.*`, expressions with aliases).
    pub items: Vec<SelectItem>,
    /// The name the rows' columns are qualified by: the table's alias, else
    /// its name (last part).
    pub table: Ident,
    /// The statement's parameter values (RETURNING may use them too).
    pub params: Vec<ScalarValue>,
}

/// Takes the RETURNING clause off an INSERT, UPDATE or DELETE, returning it.
pub(crate) fn take_returning(statement: &mut DFStatement) -> Result<Option<Returning>> {
    let DFStatement::Statement(s) = statement else { return Ok(None) };
    let (items, table) = match s.as_mut() {
        SqlStatement::Insert(insert) => {
            let Some(items) = insert.returning.take() else { return Ok(None) };
            let TableObject::TableName(name) = &insert.table else {
                return Err(Error::new(ErrorKind::NotSupported, "RETURNING after INSERT INTO a table function"));
            };
            let table = insert.table_alias.as_ref().map(|a| a.alias.clone()).or_else(|| last_part(name));
            (items, table)
        }
        SqlStatement::Update(update) => {
            let Some(items) = update.returning.take() else { return Ok(None) };
            (items, named(&update.table.relation))
        }
        SqlStatement::Delete(delete) => {
            let Some(items) = delete.returning.take() else { return Ok(None) };
            let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) = &delete.from;
            (items, from.first().and_then(|t| named(&t.relation)))
        }
        _ => return Ok(None),
    };
    let table = table.ok_or_else(|| Error::programming("RETURNING needs the statement to name one table"))?;
    Ok(Some(Returning { items, table, params: Vec::new() }))
}

/// A MERGE's RETURNING clause (its `table` is the target as MERGE names it),
/// with the statement's parameter values.
pub(crate) fn merge_returning(
    output: &Option<OutputClause>,
    target: &TableFactor,
    params: &[ScalarValue],
) -> Result<Option<Returning>> {
    match output {
        None => Ok(None),
        Some(OutputClause::Returning { select_items, .. }) => {
            let table = named(target).ok_or_else(|| Error::programming("MERGE INTO needs a table name"))?;
            Ok(Some(Returning { items: select_items.clone(), table, params: params.to_vec() }))
        }
        Some(OutputClause::Output { .. }) => {
            Err(Error::new(ErrorKind::NotSupported, "MERGE ... OUTPUT is not supported; use RETURNING"))
        }
    }
}

/// The name `relation` is known by: its alias, else its table's name.
fn named(relation: &TableFactor) -> Option<Ident> {
    match relation {
        TableFactor::Table { alias: Some(alias), .. } => Some(alias.name.clone()),
        TableFactor::Table { name, .. } => last_part(name),
        _ => None,
    }
}

/// The last part of `name` (`t` of `main.t`), as the identifier it is.
fn last_part(name: &ObjectName) -> Option<Ident> {
    name.0.last().and_then(|p| p.as_ident()).cloned()
}
