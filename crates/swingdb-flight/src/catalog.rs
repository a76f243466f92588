//! The catalog as Flight SQL describes it (`GetCatalogs`, `GetDbSchemas`,
//! `GetTables`, `GetTableTypes`, `GetXdbcTypeInfo`, and the keys), for
//! tools that browse a server (DBeaver through JDBC, ADBC's
//! `adbc_get_objects`): one catalog, `swingdb`, with one schema, `main`,
//! holding the database's tables. The builders of arrow-flight
//! apply the clients' name patterns and type filters.

use crate::status::status;
use arrow_flight::sql::metadata::{XdbcTypeInfo, XdbcTypeInfoData, XdbcTypeInfoDataBuilder};
use arrow_flight::sql::{
    CommandGetCatalogs, CommandGetDbSchemas, CommandGetPrimaryKeys, CommandGetTableTypes, CommandGetTables, Nullable,
    Searchable, XdbcDataType,
};
use std::sync::{Arc, OnceLock};
use swingdb::arrow::array::{ArrayRef, Int32Array, StringArray};
use swingdb::arrow::datatypes::{DataType, Field, Schema};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::Database;
use tonic::Status;

/// The one catalog.
pub const CATALOG: &str = "swingdb";
/// Its one schema.
pub const SCHEMA: &str = "main";
/// The one kind of table.
const TABLE: &str = "TABLE";

/// `name` as an SQL identifier (quoted, its quotes doubled): names reach SQL
/// only this way.
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A builder's batch, or the internal error it met.
fn built<E: std::fmt::Display>(result: Result<RecordBatch, E>) -> Result<RecordBatch, Status> {
    result.map_err(|e| Status::internal(format!("cannot describe the catalog: {e}")))
}

/// The catalogs.
pub fn catalogs(command: CommandGetCatalogs) -> Result<RecordBatch, Status> {
    let mut builder = command.into_builder();
    builder.append(CATALOG);
    built(builder.build())
}

/// The schemas.
pub fn schemas(command: CommandGetDbSchemas) -> Result<RecordBatch, Status> {
    let mut builder = command.into_builder();
    builder.append(CATALOG, SCHEMA);
    built(builder.build())
}

/// The kinds of table.
pub fn table_types(command: CommandGetTableTypes) -> Result<RecordBatch, Status> {
    let mut builder = command.into_builder();
    builder.append(TABLE);
    built(builder.build())
}

/// The tables, with their Arrow schemas when the client asks. Reads the
/// catalog: call it on a blocking thread.
pub fn tables(db: &Database, command: CommandGetTables) -> Result<RecordBatch, Status> {
    let con = db.connect().map_err(status)?;
    let mut builder = command.into_builder();
    for name in con.table_names().map_err(status)? {
        // The schema of the rows a scan of the table gives.
        let schema = con.execute(&format!("SELECT * FROM {} LIMIT 0", quoted(&name)), &[]).map_err(status)?.schema();
        builder
            .append(CATALOG, SCHEMA, &name, TABLE, &schema)
            .map_err(|e| Status::internal(format!("cannot describe table '{name}': {e}")))?;
    }
    built(builder.build())
}

/// A type's name, XDBC type, column size, literal prefix and case sensitivity.
type TypeRow = (&'static str, XdbcDataType, Option<i32>, Option<&'static str>, bool);

/// The SQL types, as `GetXdbcTypeInfo` describes them to JDBC and ODBC
/// tools (what a column of each can hold, how a literal is written).
pub fn xdbc_types() -> &'static XdbcTypeInfoData {
    static TYPES: OnceLock<XdbcTypeInfoData> = OnceLock::new();
    TYPES.get_or_init(|| {
        let mut builder = XdbcTypeInfoDataBuilder::new();
        // (name, type, column size, literal prefix, case sensitive)
        let types: [TypeRow; 13] = [
            ("BOOLEAN", XdbcDataType::XdbcBit, Some(1), None, false),
            ("TINYINT", XdbcDataType::XdbcTinyint, Some(3), None, false),
            ("SMALLINT", XdbcDataType::XdbcSmallint, Some(5), None, false),
            ("INTEGER", XdbcDataType::XdbcInteger, Some(10), None, false),
            ("BIGINT", XdbcDataType::XdbcBigint, Some(19), None, false),
            ("REAL", XdbcDataType::XdbcReal, Some(7), None, false),
            ("DOUBLE", XdbcDataType::XdbcDouble, Some(15), None, false),
            ("DECIMAL", XdbcDataType::XdbcDecimal, Some(38), None, false),
            ("VARCHAR", XdbcDataType::XdbcVarchar, None, Some("'"), true),
            ("BLOB", XdbcDataType::XdbcVarbinary, None, Some("'"), false),
            ("DATE", XdbcDataType::XdbcDate, Some(10), Some("DATE '"), false),
            ("TIME", XdbcDataType::XdbcTime, Some(15), Some("TIME '"), false),
            ("TIMESTAMP", XdbcDataType::XdbcTimestamp, Some(26), Some("TIMESTAMP '"), false),
        ];
        for (name, data_type, column_size, prefix, case_sensitive) in types {
            let numeric = column_size.is_some() && prefix.is_none() && name != "BOOLEAN";
            builder.append(XdbcTypeInfo {
                type_name: name.into(),
                data_type,
                column_size,
                literal_prefix: prefix.map(Into::into),
                literal_suffix: prefix.map(|_| "'".into()),
                create_params: (name == "DECIMAL").then(|| vec!["precision".into(), "scale".into()]),
                nullable: Nullable::NullabilityNullable,
                case_sensitive,
                searchable: if case_sensitive { Searchable::Full } else { Searchable::Basic },
                unsigned_attribute: numeric.then_some(false),
                fixed_prec_scale: name == "DECIMAL",
                auto_increment: numeric.then_some(false),
                local_type_name: Some(name.into()),
                minimum_scale: (name == "DECIMAL").then_some(0),
                maximum_scale: (name == "DECIMAL").then_some(38),
                sql_data_type: data_type,
                datetime_subcode: None,
                num_prec_radix: numeric.then_some(10),
                interval_precision: None,
            });
        }
        builder.build().expect("the type list is well-formed")
    })
}

/// The columns of table `command.table`'s primary key, a row each in key
/// order (none for a table without one, or of another catalog or schema).
/// Reads the catalog: call it on a blocking thread.
pub fn primary_keys(db: &Database, command: CommandGetPrimaryKeys) -> Result<RecordBatch, Status> {
    let ours = command.catalog.as_deref().is_none_or(|c| c == CATALOG)
        && command.db_schema.as_deref().is_none_or(|s| s == SCHEMA);
    let con = db.connect().map_err(status)?;
    let columns = match ours && con.table_names().map_err(status)?.contains(&command.table) {
        true => con.primary_key(&command.table).map_err(status)?.unwrap_or_default(),
        false => Vec::new(),
    };
    let n = columns.len();
    let text = |value: &str| Arc::new(StringArray::from(vec![value; n])) as ArrayRef;
    built(RecordBatch::try_new(
        Arc::new(primary_keys_schema()),
        vec![
            text(CATALOG),
            text(SCHEMA),
            text(&command.table),
            Arc::new(StringArray::from(columns)),
            Arc::new(StringArray::from(vec![None::<&str>; n])),
            Arc::new(Int32Array::from_iter_values(1..=n as i32)),
        ],
    ))
}

/// The columns of a `GetPrimaryKeys` answer.
pub fn primary_keys_schema() -> Schema {
    Schema::new(vec![
        Field::new("catalog_name", DataType::Utf8, true),
        Field::new("db_schema_name", DataType::Utf8, true),
        Field::new("table_name", DataType::Utf8, false),
        Field::new("column_name", DataType::Utf8, false),
        Field::new("key_name", DataType::Utf8, true),
        Field::new("key_sequence", DataType::Int32, false),
    ])
}

/// The answer of `GetExportedKeys`, `GetImportedKeys` and
/// `GetCrossReference`: no rows (see [`foreign_keys_schema`]).
pub fn no_foreign_keys() -> RecordBatch {
    RecordBatch::new_empty(Arc::new(foreign_keys_schema()))
}

/// The columns of a `GetExportedKeys`, `GetImportedKeys` or
/// `GetCrossReference` answer (empty: foreign keys are not described over
/// Flight SQL yet).
pub fn foreign_keys_schema() -> Schema {
    let text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
    Schema::new(vec![
        text("pk_catalog_name", true),
        text("pk_db_schema_name", true),
        text("pk_table_name", false),
        text("pk_column_name", false),
        text("fk_catalog_name", true),
        text("fk_db_schema_name", true),
        text("fk_table_name", false),
        text("fk_column_name", false),
        Field::new("key_sequence", DataType::Int32, false),
        text("fk_key_name", true),
        text("pk_key_name", true),
        Field::new("update_rule", DataType::UInt8, false),
        Field::new("delete_rule", DataType::UInt8, false),
    ])
}
