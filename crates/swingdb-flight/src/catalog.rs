//! The catalog as Flight SQL describes it (`GetCatalogs`, `GetDbSchemas`,
//! `GetTables`, `GetTableTypes`), for tools that browse a server (DBeaver
//! through JDBC, ADBC's `adbc_get_objects`): one catalog, `swingdb`, with one
//! schema, `main`, holding the database's tables. The builders of arrow-flight
//! apply the clients' name patterns and type filters.

use crate::service::status;
use arrow_flight::sql::{CommandGetCatalogs, CommandGetDbSchemas, CommandGetTableTypes, CommandGetTables};
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
