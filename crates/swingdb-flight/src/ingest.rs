//! Bulk ingest (`CommandStatementIngest`, ADBC's `adbc_ingest`): Arrow
//! batches a client sends with `DoPut` become a table, or rows appended to
//! one, atomically: a failed or interrupted upload leaves the table as it was
//! (inside a client's transaction, roll that back after a failed upload).
//! The upload is stored as it arrives, [`CHUNK_BYTES`] at a time, inside one
//! transaction: an upload larger than memory loads with memory to spare.

use crate::catalog::{quoted, CATALOG, SCHEMA};
use crate::status::status;
use crate::uploads::Upload;
use arrow_flight::sql::server::PeekableFlightDataStream;
use arrow_flight::sql::CommandStatementIngest;
use arrow_flight::sql::{TableExistsOption, TableNotExistOption};
use std::sync::Arc;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{Connection, Database};
use tonic::Status;

/// An upload is stored in chunks of about this many bytes (at most three
/// are in memory at once: one read, one waiting, one being stored).
const CHUNK_BYTES: usize = 64 << 20;

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

/// What the reader of an upload hands the thread that stores it.
enum Chunk {
    Batches(Vec<RecordBatch>),
    /// The upload ended whole.
    End,
}

/// Stores the batches of `upload` as `command` says, on `con` (the
/// connection of the client's transaction) or a connection of its own;
/// returns the rows stored.
pub async fn ingest(
    db: &Database,
    con: Option<Arc<Connection>>,
    command: CommandStatementIngest,
    upload: PeekableFlightDataStream,
) -> Result<i64, Status> {
    if command.temporary {
        return Err(Status::unimplemented("temporary tables are not served yet"));
    }
    if command.catalog.as_deref().is_some_and(|c| c != CATALOG)
        || command.schema.as_deref().is_some_and(|s| s != SCHEMA)
    {
        return Err(Status::invalid_argument(format!("tables live in catalog '{CATALOG}', schema '{SCHEMA}'")));
    }
    let mut upload = Upload::new(upload);
    let first = upload.next_chunk(CHUNK_BYTES).await?;
    let schema = upload.schema().ok_or_else(|| Status::invalid_argument("the upload has no schema"))?;
    let (send, receive) = tokio::sync::mpsc::channel(1);
    let db = db.clone();
    let store = tokio::task::spawn_blocking(move || {
        let con = match con {
            Some(con) => con,
            None => Arc::new(db.connect().map_err(status)?),
        };
        store_chunks(&con, &command, schema, receive)
    });
    let mut rows = 0;
    let mut next = first;
    // A failed send means the store failed: its error is the answer.
    loop {
        let Some(chunk) = next else {
            let _ = send.send(Chunk::End).await;
            break;
        };
        rows += chunk.iter().map(RecordBatch::num_rows).sum::<usize>();
        if send.send(Chunk::Batches(chunk)).await.is_err() {
            break;
        }
        match upload.next_chunk(CHUNK_BYTES).await {
            Ok(chunk) => next = chunk,
            Err(e) => {
                // Without its end, the store rolls back.
                drop(send);
                let _ = store.await;
                return Err(e);
            }
        }
    }
    store.await.map_err(|e| Status::internal(format!("the ingest's thread failed: {e}")))??;
    Ok(rows as i64)
}

/// Stores the chunks `receive` hands over into the table of `command` on
/// `con`, in one transaction (its own unless `con` has one open), which
/// commits when the upload ended whole and rolls back otherwise.
fn store_chunks(
    con: &Connection,
    command: &CommandStatementIngest,
    schema: SchemaRef,
    mut receive: tokio::sync::mpsc::Receiver<Chunk>,
) -> Result<(), Status> {
    let own = !con.in_transaction();
    if own {
        con.execute("BEGIN", &[]).map_err(status)?;
    }
    let stored = (|| {
        let exists = con.table_names().map_err(status)?.contains(&command.table);
        let mut create = match plan(command, exists)? {
            Plan::Create => true,
            Plan::Append => false,
            // In one transaction: readers see the old table or the new one, never neither.
            Plan::Replace => {
                con.execute(&format!("DROP TABLE {}", quoted(&command.table)), &[]).map_err(status)?;
                true
            }
        };
        loop {
            match receive.blocking_recv() {
                Some(Chunk::Batches(batches)) => {
                    con.store(&command.table, schema.clone(), batches, create).map_err(status)?;
                    create = false;
                }
                Some(Chunk::End) if create => {
                    return con.store(&command.table, schema.clone(), Vec::new(), true).map(drop).map_err(status)
                }
                Some(Chunk::End) => return Ok(()),
                None => return Err(Status::aborted("the upload was cut short; nothing was stored")),
            }
        }
    })();
    if own {
        match &stored {
            Ok(()) => con.execute("COMMIT", &[]).map(drop).map_err(status)?,
            Err(_) => drop(con.execute("ROLLBACK", &[])),
        }
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_flight::sql::TableDefinitionOptions;
    use swingdb::arrow::array::Int64Array;
    use swingdb::arrow::datatypes::{DataType, Field, Schema};

    /// `chunks` handed to `store_chunks` for `command` on `con`, ending with
    /// `End` when `whole`.
    fn store(
        con: &Connection,
        command: &CommandStatementIngest,
        chunks: Vec<Vec<RecordBatch>>,
        whole: bool,
    ) -> Result<(), Status> {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let (send, receive) = tokio::sync::mpsc::channel(chunks.len() + 1);
        for chunk in chunks {
            send.blocking_send(Chunk::Batches(chunk)).unwrap();
        }
        if whole {
            send.blocking_send(Chunk::End).unwrap();
        }
        drop(send);
        store_chunks(con, command, schema, receive)
    }

    fn batch(values: Vec<i64>) -> RecordBatch {
        RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(values)) as _)]).unwrap()
    }

    fn rows(con: &Connection) -> usize {
        con.execute("SELECT * FROM t", &[]).unwrap().collect_batches().unwrap().iter().map(|b| b.num_rows()).sum()
    }

    #[test]
    fn an_upload_is_stored_chunk_by_chunk_in_one_transaction_that_a_cut_rolls_back() {
        let db = Database::in_memory().unwrap();
        let con = db.connect().unwrap();
        let create = command(TableNotExistOption::Create, TableExistsOption::Append);
        let err = store(&con, &create, vec![vec![batch(vec![1, 2])], vec![batch(vec![3])]], false).unwrap_err();
        assert_eq!(err.code(), tonic::Code::Aborted, "{err}");
        assert!(!con.table_names().unwrap().contains(&"t".to_string()), "a cut upload stores nothing");
        store(&con, &create, vec![vec![batch(vec![1, 2])], vec![batch(vec![3]), batch(vec![4])]], true).unwrap();
        assert_eq!(rows(&con), 4, "every chunk, in one table");
        store(&con, &create, vec![], true).unwrap();
        assert_eq!(rows(&con), 4, "an empty upload appends nothing");
    }

    #[test]
    fn an_upload_in_a_clients_transaction_is_seen_by_others_only_at_its_commit() {
        let db = Database::in_memory().unwrap();
        let (client, other) = (db.connect().unwrap(), db.connect().unwrap());
        client.execute("BEGIN", &[]).unwrap();
        let create = command(TableNotExistOption::Create, TableExistsOption::Fail);
        store(&client, &create, vec![vec![batch(vec![1, 2, 3])]], true).unwrap();
        assert!(client.in_transaction());
        assert_eq!(rows(&client), 3);
        assert!(!other.table_names().unwrap().contains(&"t".to_string()));
        client.execute("ROLLBACK", &[]).unwrap();
        assert!(!client.table_names().unwrap().contains(&"t".to_string()), "rolled back with its transaction");
    }

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
