//! [`Transaction`]: what one open transaction owns (the version it read,
//! the files it wrote, the inline tails it grows), and how it ends; an
//! executor begins and ends its own (`api`'s `atomic.rs` does so across
//! attached databases), takes savepoints for each statement, and changes
//! its tables (`working_tables.rs`).
//!
//! Files: a transaction creates segment files only through `TableWriter`s
//! (random names, never reused) and records them here; a failed statement
//! deletes the ones it recorded since its savepoint, a rollback or failed
//! commit all of them. Another process never sees them before the commit
//! publishes a manifest naming them (see `storage::dir` for the commit's
//! interleavings), so deleting them races with no one.

use super::Executor;
use crate::core::DbCore;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};
use swingdb_storage::keys::check_keys;
use swingdb_storage::manifest::inline_segment::grow_tail;
use swingdb_storage::{same_tables, Manifest, SegmentMeta, TableMeta};

/// An open transaction: the pinned version it started from, the segment
/// files it has written so far (deleted again if it does not commit) and
/// the names of the inline segments its INSERTs grow (see
/// [`swingdb_storage::manifest::inline`]; only this transaction's own, never a
/// committed one).
pub(crate) struct Transaction {
    base: Arc<Manifest>,
    explicit: bool,
    new_files: Vec<PathBuf>,
    tails: HashSet<String>,
}

impl Transaction {
    pub(crate) fn new(base: Arc<Manifest>, explicit: bool) -> Self {
        Self { base, explicit, new_files: Vec::new(), tails: HashSet::new() }
    }

    /// Whether BEGIN opened it (else it is one statement's own).
    pub(crate) fn is_explicit(&self) -> bool {
        self.explicit
    }

    /// The version it started from.
    pub(crate) fn base(&self) -> Arc<Manifest> {
        self.base.clone()
    }

    /// Where a statement starts: [`Self::undo_since`] it undoes its files.
    pub(crate) fn savepoint(&self) -> usize {
        self.new_files.len()
    }

    /// Deletes the files recorded since `savepoint` (a failed statement's).
    pub(crate) fn undo_since(&mut self, savepoint: usize) {
        for f in self.new_files.drain(savepoint.min(self.new_files.len())..) {
            let _ = std::fs::remove_file(f);
        }
    }

    pub(crate) fn record(&mut self, files: Vec<PathBuf>) {
        self.new_files.extend(files);
    }

    /// The segments of `meta` followed by `added` (new rows of an INSERT): an
    /// inline segment joins the table's tail if this transaction grows one
    /// (see [`swingdb_storage::manifest::inline`]), else becomes one.
    pub(crate) fn append(&mut self, meta: &TableMeta, added: Vec<SegmentMeta>) -> Result<Vec<SegmentMeta>> {
        let mut segments = meta.segments.clone();
        for mut segment in added {
            if meta.is_altered() && segment.column_ids.is_none() {
                segment.column_ids = Some(meta.column_ids.ids.clone());
            }
            if let Some(tail) = segments.last_mut().filter(|s| self.tails.contains(&s.file)) {
                if let Some(grown) = grow_tail(tail, &segment)? {
                    *tail = grown;
                    continue;
                }
            }
            if segment.inline.is_some() {
                self.tails.insert(segment.file.clone());
            }
            segments.push(segment);
        }
        Ok(segments)
    }

    /// Ends the transaction: commits `working` (the tables as it left them)
    /// if given, else rolls back; after a rollback or a failed commit the
    /// files it wrote are deleted. Its version is unpinned either way.
    /// `check_keys` checks a table combined with others' commits (see `DbCore::commit`).
    pub(crate) fn end(
        mut self,
        core: &DbCore,
        working: Option<&BTreeMap<String, Arc<TableMeta>>>,
        check_keys: &mut dyn FnMut(&str, &TableMeta) -> Result<()>,
    ) -> Result<()> {
        let outcome = match working {
            Some(tables) => core.commit(&self.base, tables, &mut self.new_files, check_keys).map(|_| ()),
            None => Ok(()),
        };
        if working.is_none() || outcome.is_err() {
            self.undo_since(0);
        }
        core.dir().unpin(self.base.version);
        core.collect_if_due();
        outcome
    }
}

/// The state of a transaction before a statement (see [`Executor::savepoint`]).
pub struct Savepoint {
    tables: BTreeMap<String, Arc<TableMeta>>,
    files: usize,
}

impl Executor {
    /// Opens this connection's own transaction (not its attached databases').
    pub fn begin(&self, explicit: bool) -> Result<()> {
        let manifest = self.core.dir().pin_latest()?;
        // Segments of older versions leave the handle's cache (queries and
        // results still using them keep their own references): a reader that
        // never commits would otherwise keep every segment it ever read open
        // and mapped, until it runs out of file descriptors, and keep the
        // space of collected files from being freed.
        self.core.store.retain(&manifest.segment_names().collect());
        self.plan_cache.lock().keep_made_from(&manifest.tables);
        *self.tables.lock() = manifest.tables.clone();
        *self.begun_from.lock() = Some(manifest.clone());
        *self.txn.lock() = Some(Transaction::new(manifest, explicit));
        Ok(())
    }

    /// Ends this connection's own transaction (not its attached databases').
    pub fn finish(&self, commit: bool) -> Result<()> {
        let Some(txn) = self.txn.lock().take() else { return Ok(()) };
        // The tables stay visible after the transaction ends: results still being
        // streamed (information_schema, say) read the catalog as they execute.
        let working = commit.then(|| self.tables.lock().clone());
        // A table combined at commit with rows others committed meanwhile
        // (see `storage::rebase`) is checked against them: this connection's
        // key index holds the transaction's rows, and moving it to the
        // combined table reads only the others'.
        let mut check_keys = |name: &str, table: &TableMeta| {
            check_keys(&self.core.store, &mut self.key_indexes.lock(), name, table).map_err(|e| {
                Error::new(
                    e.kind(),
                    format!("{}, committed by another transaction meanwhile; nothing was written", e.message()),
                )
            })
        };
        txn.end(&self.core, working.as_ref(), &mut check_keys)
    }

    /// Files this transaction wrote: deleted again unless it commits.
    pub(crate) fn record_files(&self, files: Vec<PathBuf>) {
        if let Some(txn) = self.txn.lock().as_mut() {
            txn.record(files);
        }
    }

    /// The segments of `meta` followed by `added` (see [`Transaction::append`]).
    pub(crate) fn appended(&self, meta: &TableMeta, added: Vec<SegmentMeta>) -> Result<Vec<SegmentMeta>> {
        let mut txn = self.txn.lock();
        txn.as_mut().ok_or_else(|| Error::internal("an INSERT outside a transaction"))?.append(meta, added)
    }

    /// Whether a transaction is open and, if so, whether BEGIN opened it.
    pub fn open_transaction(&self) -> Option<bool> {
        self.txn.lock().as_ref().map(Transaction::is_explicit)
    }

    /// Whether the open transaction has changed any table.
    pub fn has_changes(&self) -> bool {
        let Some(base) = self.txn.lock().as_ref().map(Transaction::base) else { return false };
        !same_tables(&base.tables, &self.tables.lock())
    }

    /// Whether a transaction is open (by BEGIN or for one statement).
    pub fn in_transaction(&self) -> bool {
        self.txn.lock().is_some()
    }

    /// Where a statement starts: [`Self::undo_to`] it undoes what it did.
    pub fn savepoint(&self) -> Savepoint {
        let tables = self.tables.lock().clone();
        let files = self.txn.lock().as_ref().map_or(0, Transaction::savepoint);
        Savepoint { tables, files }
    }

    /// Undoes what was done since `savepoint`: the tables as they were, the
    /// files written since deleted.
    pub fn undo_to(&self, savepoint: Savepoint) {
        *self.tables.lock() = savepoint.tables;
        if let Some(txn) = self.txn.lock().as_mut() {
            txn.undo_since(savepoint.files);
        }
    }

    /// Ends the imports of the statement that just ran: confirms them to
    /// their exporters if it succeeded (`failure` None), else tells them it
    /// failed and why. A confirmation that cannot be sent (the exporter is
    /// gone) changes nothing here: the rows are stored.
    pub fn end_imports(&self, failure: Option<&str>) {
        let imports = std::mem::take(&mut *self.pending_imports.lock());
        for import in imports {
            match failure {
                None => {
                    let _ = import.confirm();
                }
                Some(why) => import.abort(&format!("the importing statement failed: {why}")),
            }
        }
    }
}
