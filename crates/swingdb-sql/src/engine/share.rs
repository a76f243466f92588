//! Sharing from a connection: [`Session::share`], and the SQL statements
//! `ATTACH SNAPSHOT 'name' AS alias` and `DETACH alias` of a snapshot.

use super::OpenOptions;
use super::Session;
use crate::catalog::TablesSchema;
use crate::core::DbCore;
use crate::frontend::control::is_reserved_alias;
use std::sync::Arc;
use swingdb_share::{ShareOptions, SnapshotInfo};
use swingdb_storage::error::{Error, Result};

impl Session {
    /// Publishes what this connection sees as the snapshot `name`: the newest
    /// committed state, or inside an open transaction what that transaction
    /// sees (its own changes included). No table data is copied: the
    /// snapshot holds links to the segment files. Any process of this user
    /// can then attach it ([`DbCore::attach_snapshot`]). Unless `options.persist`, the
    /// snapshot ends when this database handle is closed (or its process exits).
    pub fn share(&self, name: &str, options: ShareOptions) -> Result<SnapshotInfo> {
        let dir = self.exec.core.dir();
        if dir.read_only() {
            return Err(Error::operational(format!(
                "cannot share {}: it is open read-only, and a snapshot's files are links made in the database's \
                 directory; open it without read_only=True",
                dir.root().display()
            )));
        }
        let in_txn = self.exec.in_transaction();
        let (tables, pinned) = if in_txn {
            (self.exec.working_tables(), None)
        } else {
            let manifest = dir.pin_latest()?;
            (manifest.tables.clone(), Some(manifest.version))
        };
        let result = swingdb_share::publish(&self.exec.core.home, dir, &tables, name, options);
        if let Some(version) = pinned {
            dir.unpin(version);
        }
        let (info, published) = result?;
        if let Some(published) = published {
            self.exec.core.keep_share(published);
        }
        Ok(info)
    }

    /// `ATTACH SNAPSHOT 'name' AS alias`: the snapshot's tables become
    /// readable as `alias.table` on every connection of this database.
    pub(super) fn attach_snapshot(&self, name: &str, alias: String) -> Result<()> {
        if is_reserved_alias(&alias) {
            return Err(Error::programming(format!(
                "'{alias}' is taken by swingdb's own schema; attach under another name"
            )));
        }
        if self.exec.core.attached.lock().contains_key(&alias) {
            return Err(Error::programming(format!(
                "a snapshot is already attached as '{alias}'; DETACH {alias} first"
            )));
        }
        if self.exec.core.databases.lock().contains_key(&alias) {
            return Err(Error::programming(format!(
                "a database is already attached as '{alias}'; DETACH {alias} first"
            )));
        }
        let options = OpenOptions { external_access: self.exec.core.external_access, ..Default::default() };
        let core = DbCore::attach_snapshot(name, &options)?;
        let dir = core.dir();
        let manifest = dir.read_manifest(dir.latest_version()?)?;
        let schema = TablesSchema::fixed(&alias, manifest.tables.clone(), core.store.clone());
        let mut attached = self.exec.core.attached.lock();
        if attached.contains_key(&alias) {
            return Err(Error::programming(format!(
                "a snapshot is already attached as '{alias}'; DETACH {alias} first"
            )));
        }
        attached.insert(alias, Arc::new(schema));
        Ok(())
    }

    /// `DETACH [IF EXISTS] alias` of a snapshot.
    pub(super) fn detach(&self, alias: &str, if_exists: bool) -> Result<()> {
        let removed = self.exec.core.attached.lock().remove(alias);
        if removed.is_none() && !if_exists {
            return Err(Error::programming(format!("no database or snapshot is attached as '{alias}'")));
        }
        Ok(())
    }
}
