//! `SHOW` statements as DuckDB answers them, rewritten into queries of
//! `information_schema` before planning:
//!
//! - `SHOW TABLES`: one column `name`, the tables and views of the current
//!   database (not `information_schema`'s views, which DataFusion listed).
//! - `SHOW ALL TABLES`: every table and view of every attached database,
//!   with its column names and SQL types (`database`, `schema`, `name`,
//!   `column_names`, `column_types`, `temporary`).
//! - `SHOW threads` and the other names of `dialect::settings`: the setting
//!   under DataFusion's name.

use super::settings::canonical_name;
use crate::catalog::{CATALOG, SCHEMA};
use datafusion::sql::sqlparser::ast::{Ident, ShowStatementOptions, Statement};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use swingdb_storage::error::{Error, Result};

/// Rewrites `statement` if it is one of the `SHOW` forms above.
pub fn rewrite(statement: &mut Statement) -> Result<()> {
    let query = match statement {
        Statement::ShowTables {
            terse: false,
            history: false,
            extended: false,
            full: false,
            external: false,
            show_options: ShowStatementOptions { show_in: None, starts_with: None, limit: None, limit_from: None, filter_position: None },
        } =>
        {
            format!(
                "SELECT table_name AS name FROM information_schema.tables \
                 WHERE table_catalog = '{CATALOG}' AND table_schema = '{SCHEMA}' ORDER BY name"
            )
        }
        Statement::ShowVariable { variable } => match variable.as_slice() {
            [all, tables] if all.quote_style.is_none() && tables.quote_style.is_none()
                && all.value.eq_ignore_ascii_case("all") && tables.value.eq_ignore_ascii_case("tables") =>
            {
                "SELECT t.table_catalog AS database, t.table_schema AS schema, t.table_name AS name, \
                 array_agg(c.column_name ORDER BY c.ordinal_position) AS column_names, \
                 array_agg(c.data_type ORDER BY c.ordinal_position) AS column_types, false AS temporary \
                 FROM information_schema.tables t JOIN information_schema.columns c \
                 ON c.table_catalog = t.table_catalog AND c.table_schema = t.table_schema AND c.table_name = t.table_name \
                 WHERE t.table_schema <> 'information_schema' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
                    .to_string()
            }
            [name] => {
                let canonical = canonical_name(&name.value);
                if canonical != name.value {
                    *variable = canonical.split('.').map(Ident::new).collect();
                }
                return Ok(());
            }
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    let mut parsed = Parser::new(&GenericDialect {})
        .try_with_sql(&query)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| Error::internal(format!("SHOW query: {e}")))?;
    *statement = parsed.pop().ok_or_else(|| Error::internal("SHOW query is empty"))?;
    Ok(())
}
