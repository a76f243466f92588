//! Autocommit statements that lost a conflict, run again.
//!
//! A statement that commits on its own and loses a conflict at its commit
//! (another process committed a change to one of its tables first) changed
//! nothing: the commit writes all or nothing. Running it again from the
//! start is then the same as running it a moment later, as a transaction
//! that sees the other one's commit. So it runs again after a short random
//! wait (doubling up to [`MAX_WAIT`], random so that processes that lost
//! together do not meet again), until the connection's conflict timeout has
//! passed (5 s by default, as long as Python's `sqlite3` waits for a locked
//! database); after that the `ConflictError` is the statement's.
//!
//! Not run again: a statement inside an explicit transaction (the
//! transaction's earlier statements would be lost with it; a whole
//! transaction is retried by the caller, e.g. Python's
//! `con.transaction(retries=N)`), and a statement that reads a pipe (a pipe's
//! rows are read once; its exporter was told the import failed).

use super::Session;
use crate::statements::Output;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use swingdb_storage::error::{ErrorKind, Result};

/// The first wait before a statement runs again.
const FIRST_WAIT: Duration = Duration::from_millis(1);

/// The longest wait between two runs.
const MAX_WAIT: Duration = Duration::from_millis(50);

/// Whether the statement `sql` may read a pipe (conservatively: whether it
/// names a `db://` URL anywhere).
fn reads_pipe(sql: &str) -> bool {
    sql.to_ascii_lowercase().contains("db://")
}

impl Session {
    /// Runs `attempt` (one statement of the text `sql`; see the module doc):
    /// once inside an explicit transaction, else until it does not lose a
    /// conflict, `sql` may read a pipe, or the conflict timeout has passed.
    pub(super) async fn retrying_conflicts<F, Fut>(&self, sql: &str, mut attempt: F) -> Result<Output>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<Output>>,
    {
        if self.in_transaction() {
            return attempt().await;
        }
        let deadline = Instant::now() + *self.conflict_timeout.lock();
        let mut wait = FIRST_WAIT;
        loop {
            match attempt().await {
                Err(e) if e.kind() == ErrorKind::Conflict && Instant::now() + wait < deadline && !reads_pipe(sql) => {
                    let jitter = getrandom::u64().unwrap_or(0) % 1000;
                    let pause = wait.mul_f64(0.5 + jitter as f64 / 1000.0);
                    let sleep = async {
                        tokio::time::sleep(pause).await;
                        Ok(())
                    };
                    self.exec.interrupt.guard(sleep, false).await?;
                    self.conflict_retries.fetch_add(1, Ordering::Relaxed);
                    wait = (wait * 2).min(MAX_WAIT);
                }
                outcome => return outcome,
            }
        }
    }

    /// How many times this connection ran an autocommit statement again
    /// after it lost a conflict (what `ConflictError`s its caller did not see).
    pub fn conflict_retries(&self) -> u64 {
        self.conflict_retries.load(Ordering::Relaxed)
    }

    /// Sets how long an autocommit statement that lost a conflict is run
    /// again (see `conflicts.rs`); zero: never, the first `ConflictError` is
    /// the statement's.
    pub fn set_conflict_timeout(&self, timeout: Duration) {
        *self.conflict_timeout.lock() = timeout;
    }
}
