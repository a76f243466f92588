//! [`Transaction`]: what one open transaction owns (the version it read,
//! the files it wrote, the inline tails it grows), and how it ends. A
//! connection begins and ends it (`atomic.rs`) and changes its tables
//! (`working_tables.rs`).
//!
//! Files: a transaction creates segment files only through `TableWriter`s
//! (random names, never reused) and records them here; a failed statement
//! deletes the ones it recorded since its savepoint, a rollback or failed
//! commit all of them. Another process never sees them before the commit
//! publishes a manifest naming them (see `storage::dir` for the commit's
//! interleavings), so deleting them races with no one.

use crate::api::core::DbCore;
use crate::error::Result;
use crate::storage::inline_segment::grow_tail;
use crate::storage::{Manifest, SegmentMeta, TableMeta};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// An open transaction: the pinned version it started from, the segment
/// files it has written so far (deleted again if it does not commit) and
/// the names of the inline segments its INSERTs grow (see
/// [`crate::storage::inline`]; only this transaction's own, never a
/// committed one).
pub(super) struct Transaction {
    base: Arc<Manifest>,
    explicit: bool,
    new_files: Vec<PathBuf>,
    tails: HashSet<String>,
}

impl Transaction {
    pub(super) fn new(base: Arc<Manifest>, explicit: bool) -> Self {
        Self { base, explicit, new_files: Vec::new(), tails: HashSet::new() }
    }

    /// Whether BEGIN opened it (else it is one statement's own).
    pub(super) fn is_explicit(&self) -> bool {
        self.explicit
    }

    /// The version it started from.
    pub(super) fn base(&self) -> Arc<Manifest> {
        self.base.clone()
    }

    /// Where a statement starts: [`Self::undo_since`] it undoes its files.
    pub(super) fn savepoint(&self) -> usize {
        self.new_files.len()
    }

    /// Deletes the files recorded since `savepoint` (a failed statement's).
    pub(super) fn undo_since(&mut self, savepoint: usize) {
        for f in self.new_files.drain(savepoint.min(self.new_files.len())..) {
            let _ = std::fs::remove_file(f);
        }
    }

    pub(super) fn record(&mut self, files: Vec<PathBuf>) {
        self.new_files.extend(files);
    }

    /// The segments of `meta` followed by `added` (new rows of an INSERT): an
    /// inline segment joins the table's tail if this transaction grows one
    /// (see [`crate::storage::inline`]), else becomes one.
    pub(super) fn append(&mut self, meta: &TableMeta, added: Vec<SegmentMeta>) -> Result<Vec<SegmentMeta>> {
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
    pub(super) fn end(mut self, core: &DbCore, working: Option<&BTreeMap<String, Arc<TableMeta>>>) -> Result<()> {
        let outcome = match working {
            Some(tables) => core.commit(&self.base, tables, &mut self.new_files).map(|_| ()),
            None => Ok(()),
        };
        if working.is_none() || outcome.is_err() {
            self.undo_since(0);
        }
        core.dir().unpin(self.base.version);
        outcome
    }
}
