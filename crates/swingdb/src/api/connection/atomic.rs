//! Beginning and ending a connection's transaction, on the connection and
//! its members (see `attach.rs`), and running one statement atomically
//! inside it: a failed statement changes nothing.

use super::transaction::Transaction;
use super::Connection;
use crate::api::result::QueryResult;
use crate::error::{Error, Result};
use crate::storage::{SegmentMeta, TableMeta};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

impl Connection {
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
        if let Err(e) = self.begin_own(explicit) {
            for member in &members {
                let _ = member.finish(false);
            }
            return Err(e);
        }
        Ok(())
    }

    /// Opens this connection's own transaction (not its members').
    pub(super) fn begin_own(&self, explicit: bool) -> Result<()> {
        let manifest = self.core.dir().pin_latest()?;
        // Segments of older versions leave the handle's cache (queries and
        // results still using them keep their own references): a reader that
        // never commits would otherwise keep every segment it ever read open
        // and mapped, until it runs out of file descriptors, and keep the
        // space of collected files from being freed.
        self.core.store.retain(&manifest.segment_files().collect());
        self.plan_cache.lock().unwrap().keep_made_from(&manifest.tables);
        *self.tables.lock().unwrap() = manifest.tables.clone();
        *self.txn.lock().unwrap() = Some(Transaction::new(manifest, explicit));
        Ok(())
    }

    /// Ends the open transaction: commits it, or (on `commit == false` or a
    /// failed commit) deletes everything it wrote. The members' transactions
    /// end with it; at most one of them (or this one) changed anything (see
    /// `attach.rs`), so at most one commit publishes a version.
    pub(super) fn finish(&self, commit: bool) -> Result<()> {
        let members: Vec<Arc<Connection>> = self.attached.lock().unwrap().values().cloned().collect();
        let mut outcome = self.finish_own(commit);
        for member in members {
            let ended = member.finish(commit && outcome.is_ok());
            if outcome.is_ok() {
                outcome = ended;
            }
        }
        outcome
    }

    /// Ends this connection's own transaction (not its members').
    pub(super) fn finish_own(&self, commit: bool) -> Result<()> {
        let Some(txn) = self.txn.lock().unwrap().take() else { return Ok(()) };
        // The tables stay visible after the transaction ends: results still being
        // streamed (information_schema, say) read the catalog as they execute.
        let working = commit.then(|| self.tables.lock().unwrap().clone());
        txn.end(&self.core, working.as_ref())
    }

    /// Runs `body` as one atomic statement: inside the open transaction, or in
    /// its own that commits if it succeeds. A failed statement changes nothing:
    /// the tables are restored and the files it wrote deleted.
    pub(super) async fn atomically<F, Fut>(&self, body: F) -> Result<QueryResult>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<QueryResult>>,
    {
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            self.begin(false)?;
        }
        let saved_tables = self.tables.lock().unwrap().clone();
        let mark = self.txn.lock().unwrap().as_ref().map_or(0, Transaction::savepoint);
        // Cancelling drops `body` at an await point: what it changed is undone
        // below like any failure's (its TableWriters delete their own files).
        let outcome = self.interrupt.guard(body(), true).await;
        if let Err(e) = outcome {
            self.end_imports(Some(e.message()));
            *self.tables.lock().unwrap() = saved_tables;
            if let Some(txn) = self.txn.lock().unwrap().as_mut() {
                txn.undo_since(mark);
            }
            if implicit {
                self.finish(false)?;
            }
            return Err(e);
        }
        if implicit {
            if let Err(e) = self.finish(true) {
                self.end_imports(Some(e.message()));
                return Err(e);
            }
        }
        self.end_imports(None);
        outcome
    }

    /// Ends the imports of the statement that just ran: confirms them to
    /// their exporters if it succeeded (`failure` None), else tells them it
    /// failed and why. A confirmation that cannot be sent (the exporter is
    /// gone) changes nothing here: the rows are stored.
    pub(super) fn end_imports(&self, failure: Option<&str>) {
        let imports = std::mem::take(&mut *self.pending_imports.lock().unwrap());
        for import in imports {
            match failure {
                None => {
                    let _ = import.confirm();
                }
                Some(why) => import.abort(&format!("the importing statement failed: {why}")),
            }
        }
    }

    /// Files this transaction wrote: deleted again unless it commits.
    pub(super) fn record_files(&self, files: Vec<PathBuf>) {
        if let Some(txn) = self.txn.lock().unwrap().as_mut() {
            txn.record(files);
        }
    }

    /// The segments of `meta` followed by `added` (see [`Transaction::append`]).
    pub(super) fn appended(&self, meta: &TableMeta, added: Vec<SegmentMeta>) -> Result<Vec<SegmentMeta>> {
        let mut txn = self.txn.lock().unwrap();
        txn.as_mut().ok_or_else(|| Error::internal("an INSERT outside a transaction"))?.append(meta, added)
    }
}
