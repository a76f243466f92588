//! Running the statements of Flight SQL calls: on the connection of the
//! transaction a call names, else on a connection of their own (committing
//! on their own; kept between calls, see `pool.rs`); on blocking threads, never on the runtime's; once per set
//! of parameters.

use crate::pool::Pool;
use crate::status::status;
use crate::transactions::Transactions;
use std::sync::Arc;
use swingdb::datafusion::common::ScalarValue;
use swingdb::{Connection, Interrupt, QueryResult};
use tonic::Status;

/// Runs `work` on a blocking thread; `what` names it if the thread fails.
pub async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(work).await.map_err(|e| Status::internal(format!("the {what}'s thread failed: {e}")))?
}

/// Interrupts a connection's statement when dropped armed: the call that
/// waits for the statement went away (the client cancelled it or vanished),
/// so the statement stops instead of running on unseen.
pub struct InterruptOnDrop(Option<Interrupt>);

impl InterruptOnDrop {
    /// Guards the statements of `con`.
    pub fn new(con: &Connection) -> Self {
        Self(Some(con.interrupt_handle()))
    }

    /// The call got its answer: nothing to interrupt.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for InterruptOnDrop {
    fn drop(&mut self) {
        if let Some(interrupt) = self.0.take() {
            interrupt.interrupt();
        }
    }
}

/// The connection a call runs on: its transaction's, else one of its own
/// from `pool`. (Blocks: a new connection reads the database's newest version.)
pub fn connection(
    pool: &Pool,
    transactions: &Transactions,
    transaction: Option<&[u8]>,
) -> Result<Arc<Connection>, Status> {
    match transaction {
        Some(id) => transactions.connection(id),
        None => pool.connection(),
    }
}

/// Runs the query `sql` on `con` once per parameter set; their results,
/// which must all have the same columns.
pub fn query(con: &Connection, sql: &str, sets: &[Vec<ScalarValue>]) -> Result<Vec<QueryResult>, Status> {
    let mut results: Vec<QueryResult> = Vec::with_capacity(sets.len());
    for set in sets {
        let result = con.execute(sql, set).map_err(status)?;
        if let Some(first) = results.first() {
            if first.schema().fields() != result.schema().fields() {
                return Err(Status::invalid_argument(
                    "the parameter sets give results of different columns; bind them one set at a time",
                ));
            }
        }
        results.push(result);
    }
    Ok(results)
}

/// Runs the statement `sql` on `con` once per parameter set; the rows it
/// changed in all, 0 for a statement that changes no rows (DDL, as JDBC
/// counts it: -1, "unknown", makes JDBC's driver run it again as a query).
/// Several sets outside a transaction run in one of their own: all of them
/// take effect, or none.
pub fn update(con: &Connection, sql: &str, sets: &[Vec<ScalarValue>]) -> Result<i64, Status> {
    let own_transaction = sets.len() > 1 && !con.in_transaction();
    if own_transaction {
        con.execute("BEGIN", &[]).map_err(status)?;
    }
    let run = || -> Result<i64, Status> {
        let mut changed = 0;
        for set in sets {
            changed += con.execute(sql, set).map_err(status)?.rows_affected().unwrap_or(0) as i64;
        }
        Ok(changed)
    };
    let outcome = run();
    if own_transaction {
        match &outcome {
            Ok(_) => con.execute("COMMIT", &[]).map_err(status)?,
            Err(_) => con.execute("ROLLBACK", &[]).map_err(status)?,
        };
    }
    outcome
}
