//! DuckDB's catalog table functions, with DuckDB's column names:
//! `duckdb_tables()`, `duckdb_views()`, `duckdb_columns()`,
//! `duckdb_schemas()`, `duckdb_databases()`, `duckdb_functions()` and
//! `duckdb_settings()`. Each is replaced, before planning, by a query over
//! `information_schema`; what swingdb does not keep there (object ids,
//! comments, tags, sizes, the `CREATE TABLE` text) is NULL.
//!
//! A database here is what DuckDB calls one: `main`, an attached database's
//! alias, or `temp` (the connection's temporary tables); each has one
//! schema, `main`.

use datafusion::sql::sqlparser::ast::{TableAlias, TableFactor};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use swingdb_storage::error::{Error, Result};

/// The columns a database's relation has in DuckDB's catalog functions.
const OBJECT: &str = "t.table_schema AS database_name, CAST(NULL AS BIGINT) AS database_oid, 'main' AS schema_name, \
     CAST(NULL AS BIGINT) AS schema_oid";

/// The column count of each relation.
const COLUMN_COUNTS: &str = "LEFT JOIN (SELECT table_schema, table_name, count(*) AS column_count \
     FROM information_schema.columns GROUP BY table_schema, table_name) n \
     ON n.table_schema = t.table_schema AND n.table_name = t.table_name";

/// Each function's name and the query that answers it.
fn query(name: &str) -> Option<String> {
    Some(match name {
        "duckdb_tables" => format!(
            "SELECT {OBJECT}, t.table_name, CAST(NULL AS BIGINT) AS table_oid, CAST(NULL AS VARCHAR) AS comment, \
             CAST(NULL AS VARCHAR) AS tags, false AS internal, t.table_schema = 'temp' AS temporary, \
             CAST(NULL AS BOOLEAN) AS has_primary_key, CAST(NULL AS BIGINT) AS estimated_size, \
             coalesce(n.column_count, 0) AS column_count, CAST(0 AS BIGINT) AS index_count, \
             CAST(0 AS BIGINT) AS check_constraint_count, CAST(NULL AS VARCHAR) AS sql \
             FROM information_schema.tables t {COLUMN_COUNTS} \
             WHERE t.table_type = 'BASE TABLE' AND t.table_schema <> 'information_schema' \
             ORDER BY database_name, t.table_name"
        ),
        "duckdb_views" => format!(
            "SELECT {OBJECT}, t.table_name AS view_name, CAST(NULL AS BIGINT) AS view_oid, \
             CAST(NULL AS VARCHAR) AS comment, CAST(NULL AS VARCHAR) AS tags, false AS internal, \
             t.table_schema = 'temp' AS temporary, coalesce(n.column_count, 0) AS column_count, v.definition AS sql, \
             true AS is_bound \
             FROM information_schema.tables t {COLUMN_COUNTS} \
             LEFT JOIN information_schema.views v ON v.table_schema = t.table_schema AND v.table_name = t.table_name \
             WHERE t.table_type = 'VIEW' AND t.table_schema <> 'information_schema' \
             ORDER BY database_name, view_name"
        ),
        "duckdb_columns" => format!(
            "SELECT {OBJECT}, t.table_name, CAST(NULL AS BIGINT) AS table_oid, t.column_name, \
             CAST(t.ordinal_position + 1 AS INTEGER) AS column_index, CAST(NULL AS VARCHAR) AS comment, \
             false AS internal, t.column_default, t.is_nullable = 'YES' AS is_nullable, \
             __swingdb_sql_type_name(t.data_type) AS data_type, CAST(NULL AS BIGINT) AS data_type_id, \
             CAST(t.character_maximum_length AS INTEGER) AS character_maximum_length, \
             CAST(t.numeric_precision AS INTEGER) AS numeric_precision, \
             CAST(t.numeric_precision_radix AS INTEGER) AS numeric_precision_radix, \
             CAST(t.numeric_scale AS INTEGER) AS numeric_scale, CAST(NULL AS VARCHAR) AS tags, \
             false AS is_generated, CAST(NULL AS VARCHAR) AS generation_expression \
             FROM information_schema.columns t WHERE t.table_schema <> 'information_schema' \
             ORDER BY database_name, t.table_name, column_index"
        ),
        "duckdb_schemas" => "SELECT CAST(NULL AS BIGINT) AS oid, schema_name AS database_name, \
             CAST(NULL AS BIGINT) AS database_oid, 'main' AS schema_name, CAST(NULL AS VARCHAR) AS comment, \
             CAST(NULL AS VARCHAR) AS tags, false AS internal, CAST(NULL AS VARCHAR) AS sql \
             FROM information_schema.schemata WHERE schema_name <> 'information_schema' ORDER BY database_name"
            .to_string(),
        "duckdb_databases" => "SELECT schema_name AS database_name, CAST(NULL AS BIGINT) AS database_oid, \
             CAST(NULL AS VARCHAR) AS path, CAST(NULL AS VARCHAR) AS comment, CAST(NULL AS VARCHAR) AS tags, \
             false AS internal, 'swingdb' AS type, CAST(NULL AS BOOLEAN) AS readonly, false AS encrypted, \
             CAST(NULL AS VARCHAR) AS cipher \
             FROM information_schema.schemata WHERE schema_name <> 'information_schema' ORDER BY database_name"
            .to_string(),
        "duckdb_functions" => "SELECT 'system' AS database_name, CAST(NULL AS VARCHAR) AS database_oid, \
             'main' AS schema_name, routine_name AS function_name, CAST(NULL AS VARCHAR) AS alias_of, \
             lower(function_type) AS function_type, description, CAST(NULL AS VARCHAR) AS comment, \
             CAST(NULL AS VARCHAR) AS tags, __swingdb_sql_type_name(data_type) AS return_type, \
             CAST(NULL AS VARCHAR) AS parameters, CAST(NULL AS VARCHAR) AS parameter_types, \
             CAST(NULL AS VARCHAR) AS varargs, CAST(NULL AS VARCHAR) AS macro_definition, \
             NOT is_deterministic AS has_side_effects, true AS internal, CAST(NULL AS VARCHAR) AS extension_name, \
             CAST(NULL AS BIGINT) AS function_oid, syntax_example AS examples, \
             CASE WHEN is_deterministic THEN 'CONSISTENT' ELSE 'VOLATILE' END AS stability, \
             CAST(NULL AS VARCHAR) AS categories \
             FROM information_schema.routines WHERE NOT starts_with(routine_name, '__') ORDER BY function_name"
            .to_string(),
        "duckdb_settings" => "SELECT name, value, description, 'VARCHAR' AS input_type, 'LOCAL' AS scope, \
             CAST(NULL AS VARCHAR) AS aliases, value AS typed_value \
             FROM information_schema.df_settings ORDER BY name"
            .to_string(),
        _ => return None,
    })
}

/// Replaces `factor` by its query if it calls one of the functions above
/// (keeping its alias, or the function's name).
pub fn rewrite_table(factor: &mut TableFactor) -> Result<()> {
    let TableFactor::Table { name, alias, args: Some(args), with_hints, version: None, sample: None, .. } = factor
    else {
        return Ok(());
    };
    let [part] = name.0.as_slice() else { return Ok(()) };
    let Some(ident) = part.as_ident() else { return Ok(()) };
    let function = ident.value.to_lowercase();
    let Some(sql) = query(&function) else { return Ok(()) };
    if !args.args.is_empty() || !with_hints.is_empty() {
        return Err(Error::programming(format!("{function}() takes no arguments")));
    }
    let subquery = Parser::new(&GenericDialect {})
        .try_with_sql(&sql)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::internal(format!("{function}() query: {e}")))?;
    let alias = alias.take().unwrap_or_else(|| TableAlias {
        name: function.as_str().into(),
        columns: vec![],
        explicit: true,
        at: None,
    });
    *factor = TableFactor::Derived { lateral: false, subquery, alias: Some(alias), sample: None };
    Ok(())
}
