//! The tables of a connection's open transaction, read and changed by its
//! statements: every change is checked against the table's keys, CHECKs and
//! FOREIGN KEYs before it is made.

use super::Executor;
use crate::catalog::checks::check_conditions;
use std::collections::BTreeMap;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};
use swingdb_storage::keys::check_keys;
use swingdb_storage::keys::foreign::{check_foreign_keys, referencing};
use swingdb_storage::keys::runs::build_index_runs;
use swingdb_storage::TableMeta;

/// Marks `touched` tables as written by this transaction (a new entry), so
/// that one that changed them meanwhile conflicts at commit.
fn mark_written(tables: &mut BTreeMap<String, Arc<TableMeta>>, touched: Vec<String>) {
    for other in touched {
        if let Some(t) = tables.get(&other).cloned() {
            tables.insert(other, Arc::new(t.as_ref().clone()));
        }
    }
}

impl Executor {
    /// Whether `name` is a stored table (its segments can be handed over) rather
    /// than a view; an error if it is neither.
    pub(crate) fn is_stored_table(&self, name: &str) -> Result<bool> {
        match self.tables.lock().get(name) {
            Some(meta) if meta.is_relation() => Ok(meta.is_table()),
            Some(meta) => Err(Error::programming(format!("'{name}' is a {}, not a table", meta.kind()))),
            None => Err(Error::programming(format!("table '{name}' does not exist"))),
        }
    }

    /// The stored table `name`, to change: a view is refused.
    pub(crate) fn table(&self, name: &str) -> Result<Arc<TableMeta>> {
        let meta = self
            .tables
            .lock()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::programming(format!("table '{name}' does not exist")))?;
        if meta.is_view() {
            return Err(Error::programming(format!(
                "'{name}' is a view; a view's rows cannot be changed, change the tables it reads"
            )));
        }
        if !meta.is_table() {
            return Err(Error::programming(format!("'{name}' is a {}, not a table", meta.kind())));
        }
        Ok(meta)
    }

    /// Makes `meta` the table `name` of this transaction, once its rows keep
    /// every key (an `IntegrityError` otherwise, and nothing changes) and
    /// its indexes' runs are built.
    pub(crate) fn set_table(&self, name: &str, mut meta: TableMeta) -> Result<()> {
        crate::catalog::identity::advance(&mut meta);
        if !meta.constraints.checks.is_empty() {
            let before = self.tables.lock().get(name).cloned();
            check_conditions(&self.core.store, &self.ctx.state(), name, before.as_deref(), &meta)?;
        }
        if meta.constraints.keys().next().is_some() {
            check_keys(&self.core.store, &mut self.key_indexes.lock(), name, &meta)?;
        }
        if !meta.constraints.indexes.is_empty() {
            build_index_runs(&self.core.store, &meta)?;
        }
        let mut tables = self.tables.lock();
        let referenced = referencing(&tables, name).next().is_some();
        if referenced || !meta.constraints.foreign_keys.is_empty() {
            let before = tables.get(name).cloned();
            let mut indexes = self.key_indexes.lock();
            let check = check_foreign_keys(&self.core.store, &mut indexes, &tables, name, before.as_deref(), &meta)?;
            mark_written(&mut tables, check.touched);
        }
        tables.insert(name.to_string(), Arc::new(meta));
        Ok(())
    }

    /// Checks every row of `meta` (table `name`, its FOREIGN KEYs just
    /// declared) against the tables it references, marking them as written.
    pub(crate) fn check_all_foreign_keys(&self, name: &str, meta: &TableMeta) -> Result<()> {
        let mut tables = self.tables.lock();
        let mut indexes = self.key_indexes.lock();
        let check = check_foreign_keys(&self.core.store, &mut indexes, &tables, name, None, meta)?;
        mark_written(&mut tables, check.touched);
        Ok(())
    }

    /// The tables this connection sees: its transaction's, or the newest version's outside one.
    pub fn visible_tables(&self) -> Result<BTreeMap<String, Arc<TableMeta>>> {
        let implicit = self.txn.lock().is_none();
        if implicit {
            let manifest = self.core.dir().pin_latest()?;
            self.core.dir().unpin(manifest.version);
            return Ok(manifest.tables.clone());
        }
        Ok(self.tables.lock().clone())
    }

    /// Table or view `name` as this connection sees it; a ProgrammingError
    /// naming it (and the tables there are) if there is none.
    pub fn visible_table(&self, name: &str) -> Result<Arc<TableMeta>> {
        let tables = self.visible_tables()?;
        tables.get(name).cloned().ok_or_else(|| {
            let known = tables.keys().cloned().collect::<Vec<_>>().join(", ");
            Error::programming(format!("table '{name}' does not exist (tables: {known})"))
        })
    }
}
