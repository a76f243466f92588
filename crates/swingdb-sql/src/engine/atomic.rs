//! Beginning and ending a connection's transaction, on the connection and
//! its members (see `attach.rs`), and running one statement atomically
//! inside it: a failed statement changes nothing.

use super::Session;
use crate::catalog::TEMP;
use crate::statements::Output;
use std::future::Future;
use std::sync::Arc;
use swingdb_storage::error::Result;

impl Session {
    /// Opens a transaction (`explicit`: by BEGIN) on this connection and its
    /// members (see `attach.rs`), each at the newest version of its database.
    pub(super) fn begin(&self, explicit: bool) -> Result<()> {
        let members = self.synced_members()?;
        for (i, member) in members.iter().enumerate() {
            if let Err(e) = member.begin(explicit) {
                for begun in &members[..i] {
                    let _ = begun.finish(false);
                }
                return Err(e);
            }
        }
        if let Err(e) = self.exec.begin(explicit) {
            for member in &members {
                let _ = member.finish(false);
            }
            return Err(e);
        }
        Ok(())
    }

    /// Ends the open transaction: commits it, or (on `commit == false` or a
    /// failed commit) deletes everything it wrote. The members' transactions
    /// end with it; at most one of them (or this one) changed anything (see
    /// `attach.rs`), so at most one commit publishes a version.
    pub(super) fn finish(&self, commit: bool) -> Result<()> {
        let mut members: Vec<Arc<Session>> = self.attached.lock().values().cloned().collect();
        // The temporary database last: it commits only once the other has.
        members.sort_by_key(|m| m.exec.schema() == TEMP);
        let mut outcome = self.exec.finish(commit);
        for member in members {
            let ended = member.finish(commit && outcome.is_ok());
            if outcome.is_ok() {
                outcome = ended;
            }
        }
        outcome
    }

    /// Runs `body` as one atomic statement: inside the open transaction, or in
    /// its own that commits if it succeeds. A failed statement changes nothing:
    /// the tables are restored and the files it wrote deleted.
    pub(super) async fn atomically<F, Fut>(&self, body: F) -> Result<Output>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Output>>,
    {
        let implicit = !self.exec.in_transaction();
        if implicit {
            self.begin(false)?;
        }
        let savepoint = self.exec.savepoint();
        // Cancelling drops `body` at an await point: what it changed is undone
        // below like any failure's (its TableWriters delete their own files).
        let outcome = self.exec.interrupt.guard(body(), true).await;
        if let Err(e) = outcome {
            self.exec.end_imports(Some(e.message()));
            self.exec.undo_to(savepoint);
            if implicit {
                self.finish(false)?;
            }
            return Err(e);
        }
        if implicit {
            if let Err(e) = self.finish(true) {
                self.exec.end_imports(Some(e.message()));
                return Err(e);
            }
        }
        self.exec.end_imports(None);
        outcome
    }
}
