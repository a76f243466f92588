//! A table's storage parameters, in PostgreSQL's syntax: `CREATE TABLE t
//! (...) WITH (compression = 'zstd')` (also `CREATE TABLE t WITH (...) AS
//! SELECT ...`) and `ALTER TABLE t SET (compression = ...)`; and the
//! default for tables created without one, `SET default_compression`.
//! `compression` is the only parameter (see `swingdb_storage::Compression`
//! for its values); others are refused by name.

use crate::optimizer::rules::SwingOptions;
use datafusion::common::config::ConfigOptions;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    CreateTableOptions, Expr as SqlExpr, SqlOption, Statement as SqlStatement, Value,
};
use swingdb_storage::error::{Error, Result};
use swingdb_storage::Compression;

/// The compression a `CREATE TABLE` statement's `WITH (...)` names, taken
/// off the statement (which DataFusion would refuse); `None` when it has no
/// `WITH` clause.
pub(crate) fn take_storage_parameters(statement: &mut DFStatement) -> Result<Option<Compression>> {
    let DFStatement::Statement(s) = statement else { return Ok(None) };
    let SqlStatement::CreateTable(create) = s.as_mut() else { return Ok(None) };
    let CreateTableOptions::With(options) = &create.table_options else { return Ok(None) };
    let compression = compression_of(options)?;
    create.table_options = CreateTableOptions::None;
    Ok(Some(compression))
}

/// The compression `options` (a `WITH (...)` or `SET (...)` list) name;
/// an error for any other parameter, or a list that names none.
pub(crate) fn compression_of(options: &[SqlOption]) -> Result<Compression> {
    let mut compression = None;
    for option in options {
        let SqlOption::KeyValue { key, value } = option else {
            return Err(unknown_parameter(&option.to_string()));
        };
        if !key.value.eq_ignore_ascii_case("compression") {
            return Err(unknown_parameter(&key.value));
        }
        let name = match value {
            SqlExpr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
                other => other.to_string(),
            },
            SqlExpr::Identifier(ident) => ident.value.clone(),
            other => other.to_string(),
        };
        compression = Some(name.parse::<Compression>()?);
    }
    compression.ok_or_else(|| Error::programming("a storage parameter list must name compression".to_string()))
}

fn unknown_parameter(name: &str) -> Error {
    Error::programming(format!(
        "storage parameter '{name}' is not known; swingdb's tables take compression = one of {}",
        Compression::listed()
    ))
}

/// The compression of tables created without `WITH (compression = ...)`:
/// `SET default_compression` (checked when set), else zero-copy.
pub(crate) fn default_compression(config: &ConfigOptions) -> Compression {
    config
        .extensions
        .get::<SwingOptions>()
        .and_then(|options| options.default_compression.parse().ok())
        .unwrap_or_default()
}
