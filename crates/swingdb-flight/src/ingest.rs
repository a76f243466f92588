//! Bulk ingest (`CommandStatementIngest`, ADBC's `adbc_ingest`): Arrow
//! batches a client sends with `DoPut` become a table, or rows appended to
//! one, atomically: a failed or interrupted upload leaves the table as it was.

use crate::catalog::{quoted, CATALOG, SCHEMA};
use crate::service::status;
use arrow_flight::decode::FlightRecordBatchStream;
use arrow_flight::error::FlightError;
use arrow_flight::sql::server::PeekableFlightDataStream;
use arrow_flight::sql::CommandStatementIngest;
use arrow_flight::sql::{TableExistsOption, TableNotExistOption};
use futures::TryStreamExt;
use swingdb::Database;
use tonic::Status;

/// What to do with the table: make it, add to it, or replace it.
#[derive(Debug, PartialEq)]
enum Plan {
    Create,
    Append,
    Replace,
}

/// The plan for `command` given whether its table exists, or the refusal
/// the client asked for.
fn plan(command: &CommandStatementIngest, exists: bool) -> Result<Plan, Status> {
    let options = command.table_definition_options.unwrap_or_default();
    if exists {
        match TableExistsOption::try_from(options.if_exists).unwrap_or(TableExistsOption::Unspecified) {
            TableExistsOption::Append => Ok(Plan::Append),
            TableExistsOption::Replace => Ok(Plan::Replace),
            _ => Err(Status::already_exists(format!(
                "table '{}' exists; ingest with mode append or replace",
                command.table
            ))),
        }
    } else {
        match TableNotExistOption::try_from(options.if_not_exist).unwrap_or(TableNotExistOption::Unspecified) {
            TableNotExistOption::Create => Ok(Plan::Create),
            _ => Err(Status::not_found(format!("table '{}' does not exist; ingest with mode create", command.table))),
        }
    }
}

/// Stores the batches of `upload` as `command` says; returns the rows stored.
pub async fn ingest(
    db: &Database,
    command: CommandStatementIngest,
    upload: PeekableFlightDataStream,
) -> Result<i64, Status> {
    if command.temporary || command.transaction_id.is_some() {
        return Err(Status::unimplemented("temporary tables and transactions are not served yet"));
    }
    if command.catalog.as_deref().is_some_and(|c| c != CATALOG)
        || command.schema.as_deref().is_some_and(|s| s != SCHEMA)
    {
        return Err(Status::invalid_argument(format!("tables live in catalog '{CATALOG}', schema '{SCHEMA}'")));
    }
    let mut batches = FlightRecordBatchStream::new_from_flight_data(upload.map_err(FlightError::from));
    let mut received = Vec::new();
    while let Some(batch) =
        batches.try_next().await.map_err(|e| Status::invalid_argument(format!("cannot read the upload: {e}")))?
    {
        received.push(batch);
    }
    let schema = batches.schema().cloned().ok_or_else(|| Status::invalid_argument("the upload has no schema"))?;
    let rows: usize = received.iter().map(|b| b.num_rows()).sum();
    let db = db.clone();
    tokio::task::spawn_blocking(move || -> Result<(), Status> {
        let con = db.connect().map_err(status)?;
        let exists = con.table_names().map_err(status)?.contains(&command.table);
        match plan(&command, exists)? {
            Plan::Create => con.store(&command.table, schema, received, true).map(drop).map_err(status),
            Plan::Append => con.store(&command.table, schema, received, false).map(drop).map_err(status),
            Plan::Replace => {
                // One transaction: readers see the old table or the new one, never neither.
                con.execute("BEGIN", &[]).map_err(status)?;
                let replaced = con
                    .execute(&format!("DROP TABLE {}", quoted(&command.table)), &[])
                    .and_then(|_| con.store(&command.table, schema, received, true))
                    .and_then(|_| con.execute("COMMIT", &[]));
                if replaced.is_err() {
                    let _ = con.execute("ROLLBACK", &[]);
                }
                replaced.map(drop).map_err(status)
            }
        }
    })
    .await
    .map_err(|e| Status::internal(format!("the ingest's thread failed: {e}")))??;
    Ok(rows as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_flight::sql::TableDefinitionOptions;

    fn command(if_not_exist: TableNotExistOption, if_exists: TableExistsOption) -> CommandStatementIngest {
        CommandStatementIngest {
            table: "t".into(),
            table_definition_options: Some(TableDefinitionOptions {
                if_not_exist: if_not_exist as i32,
                if_exists: if_exists as i32,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn the_modes_of_adbc_ingest_map_to_create_append_and_replace() {
        use TableExistsOption as E;
        use TableNotExistOption as N;
        assert_eq!(plan(&command(N::Create, E::Fail), false).unwrap(), Plan::Create);
        assert_eq!(plan(&command(N::Create, E::Fail), true).unwrap_err().code(), tonic::Code::AlreadyExists);
        assert_eq!(plan(&command(N::Fail, E::Append), true).unwrap(), Plan::Append);
        assert_eq!(plan(&command(N::Fail, E::Append), false).unwrap_err().code(), tonic::Code::NotFound);
        assert_eq!(plan(&command(N::Create, E::Append), false).unwrap(), Plan::Create);
        assert_eq!(plan(&command(N::Create, E::Replace), true).unwrap(), Plan::Replace);
        assert_eq!(quoted("a\"b"), "\"a\"\"b\"");
    }
}
