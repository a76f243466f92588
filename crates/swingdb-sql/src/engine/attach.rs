//! Other databases in one connection, as DuckDB's `ATTACH`:
//! `ATTACH [DATABASE] [IF NOT EXISTS] 'path' [AS alias] [(READ_ONLY)]` opens
//! (by default creating) the swingdb database at `path` (or a new in-memory
//! one for `':memory:'`) beside this one; its tables read and change as
//! `alias.table`; `DETACH [DATABASE] [IF EXISTS] alias` lets it go.
//!
//! How: the attached database is opened as a [`DbCore`] of its own, kept by
//! the handle (every session of it sees the attachment). Each session
//! keeps a session of its own on each attached database (a *member*): a
//! statement that changes `alias.table` is run by that member, while every
//! statement reads all the databases in the state of one shared transaction
//! (all members' sessions resolve names through one [`Databases`] map: `main`
//! to this connection's tables, `alias` to the member's).
//!
//! Transactions: BEGIN, COMMIT and ROLLBACK (and each autocommitted
//! statement) begin and end the members' transactions with this one, so a
//! statement or transaction reads each database at one pinned version. A
//! transaction may *change* only one of its databases (DuckDB's rule too;
//! the connection's temporary tables aside, see `temp.rs`): a
//! statement that would change a second one fails and changes nothing. So a
//! commit publishes at most one database's new version, through that
//! database's own commit protocol (`storage::dir`): no commit spans two
//! directories, and none can land half. Attaching creates, deletes and locks
//! no file beyond what opening that database does; the other database's
//! garbage collection respects the members' pins like any connection's.

use super::OpenOptions;
use super::Session;
use crate::catalog::{SCHEMA, TEMP};
use crate::core::AttachedDatabase;
use crate::core::DbCore;
use crate::frontend::control::{is_reserved_alias, written_schemas, AttachRequest};
use datafusion::sql::parser::Statement as DFStatement;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// One database a session works on, as [`Session::databases`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseEntry {
    /// `main`, or the alias it is attached under.
    pub name: String,
    /// Its directory; `None` in memory.
    pub path: Option<PathBuf>,
    /// Whether it was opened read-only.
    pub read_only: bool,
}

impl Session {
    /// The databases this connection works on: `main`, then the attached
    /// ones by alias (DuckDB's `.databases`).
    pub fn databases(&self) -> Vec<DatabaseEntry> {
        let dir = self.exec.core.dir();
        let main = DatabaseEntry {
            name: SCHEMA.to_string(),
            path: (!dir.is_private()).then(|| dir.root().to_path_buf()),
            read_only: dir.read_only(),
        };
        let attached = self.exec.core.databases.lock();
        let others = attached.iter().map(|(alias, a)| DatabaseEntry {
            name: alias.clone(),
            path: a.path.clone(),
            read_only: a.read_only,
        });
        std::iter::once(main).chain(others).collect()
    }

    /// `ATTACH ...` of a database (see the module's doc). Not part of any
    /// transaction: what is attached stays attached; inside an open
    /// transaction the database joins it at once.
    pub(super) fn attach_database(&self, request: AttachRequest) -> Result<()> {
        self.exec.check_external_access("ATTACH")?;
        let alias = request.alias()?;
        if is_reserved_alias(&alias) {
            return Err(Error::programming(format!(
                "'{alias}' is taken by swingdb's own schema; attach under another name"
            )));
        }
        let in_memory = request.path == ":memory:";
        let path = match in_memory {
            true => None,
            false => Some(absolute(&request.path)?),
        };
        {
            let databases = self.exec.core.databases.lock();
            if let Some(existing) = databases.get(&alias) {
                if request.if_not_exists && existing.path == path && !in_memory {
                    return Ok(());
                }
                return Err(Error::programming(format!(
                    "a database is already attached as '{alias}'; DETACH {alias} first"
                )));
            }
            if let Some(path) = &path {
                let canonical = std::fs::canonicalize(path).ok();
                let same = |other: &Path| {
                    canonical.as_deref().is_some_and(|c| std::fs::canonicalize(other).ok().as_deref() == Some(c))
                };
                if same(self.exec.core.dir().root()) {
                    return Err(Error::programming(format!(
                        "{} is this connection's own database (main); its tables need no ATTACH",
                        path.display()
                    )));
                }
                if let Some((other, _)) = databases.iter().find(|(_, d)| d.path.as_deref().is_some_and(same)) {
                    return Err(Error::programming(format!("{} is already attached as '{other}'", path.display())));
                }
            }
        }
        if self.exec.core.attached.lock().contains_key(&alias) {
            return Err(Error::programming(format!("a snapshot is attached as '{alias}'; DETACH {alias} first")));
        }
        let options = OpenOptions {
            read_only: request.read_only,
            create: !request.read_only,
            external_access: self.exec.core.external_access,
            ..OpenOptions::default()
        };
        let core = match &path {
            None => DbCore::in_memory(&options)?,
            Some(path) => DbCore::open(path, &options).map_err(|e| {
                let message = format!("cannot attach {} as '{alias}': {}", path.display(), e.message());
                e.with_message(message)
            })?,
        };
        {
            let mut databases = self.exec.core.databases.lock();
            if databases.contains_key(&alias) {
                return Err(Error::programming(format!(
                    "a database is already attached as '{alias}'; DETACH {alias} first"
                )));
            }
            databases.insert(alias, AttachedDatabase { core, path, read_only: request.read_only });
        }
        self.sync_attached()
    }

    /// `DETACH alias` of a database; `false` if none is attached as `alias`.
    /// Refused while this connection's transaction has changed it.
    pub(super) fn detach_database(&self, alias: &str) -> Result<bool> {
        if !self.exec.core.databases.lock().contains_key(alias) {
            return Ok(false);
        }
        let member = self.attached.lock().get(alias).cloned();
        if member.is_some_and(|m| m.has_changes()) {
            return Err(Error::programming(format!(
                "this transaction has changed database '{alias}'; COMMIT or ROLLBACK before DETACH {alias}"
            )));
        }
        self.exec.core.databases.lock().remove(alias);
        self.sync_attached()?;
        Ok(true)
    }

    /// Brings this connection's members in line with the handle's attached
    /// databases: one for each newly attached database (begun at once when
    /// a transaction is open), none for a detached one (whose open
    /// transaction, having changed nothing, ends with it). Members that are
    /// part of an open transaction stay until it ends.
    fn sync_attached(&self) -> Result<()> {
        if self.exec.is_member() {
            return Ok(()); // members do not attach in turn
        }
        let open = self.exec.open_transaction();
        let databases = self.exec.core.databases.lock();
        let mut members = self.attached.lock();
        // The temporary database is this connection's own, not the handle's.
        let gone: Vec<String> = members.keys().filter(|a| *a != TEMP && !databases.contains_key(*a)).cloned().collect();
        for alias in gone {
            if members.get(&alias).is_some_and(|m| open.is_none() || !m.has_changes()) {
                members.remove(&alias);
                self.exec.forget_database(&alias);
            }
        }
        for (alias, attached) in databases.iter() {
            if members.contains_key(alias) {
                continue;
            }
            let member = Session::with(self.exec.member(attached.core.clone(), alias)?)?;
            if let Some(explicit) = open {
                member.begin(explicit)?;
            }
            members.insert(alias.clone(), Arc::new(member));
        }
        Ok(())
    }

    /// This connection's members, after [`Self::sync_attached`].
    pub(super) fn synced_members(&self) -> Result<Vec<Arc<Session>>> {
        self.sync_attached()?;
        Ok(self.attached.lock().values().cloned().collect())
    }

    /// The member that runs `statement`, if it changes (or copies) a table
    /// of an attached database; an error if it names tables of two databases.
    pub(super) fn member_for(&self, statement: &DFStatement) -> Result<Option<Arc<Session>>> {
        self.sync_attached()?;
        let members = self.attached.lock();
        if members.is_empty() {
            return Ok(None);
        }
        let mut target: Option<&str> = None;
        for schema in written_schemas(statement) {
            let alias = schema.filter(|s| members.contains_key(s.as_str()));
            let database = alias.as_deref().unwrap_or(SCHEMA);
            if target.is_some_and(|t| t != database) {
                return Err(Error::programming(format!(
                    "the statement changes tables of two databases ('{}' and '{database}'); change one at a time",
                    target.unwrap_or_default()
                )));
            }
            target = Some(members.get_key_value(database).map_or(SCHEMA, |(k, _)| k.as_str()));
        }
        Ok(target.and_then(|t| members.get(t).cloned()))
    }

    /// Whether this connection's open transaction has changed any table.
    pub(super) fn has_changes(&self) -> bool {
        self.exec.has_changes()
    }

    /// Refuses a second changed database in one transaction: `writer` (this
    /// connection, or one of its members) has just run a statement. The
    /// connection's temporary database does not count (see `temp.rs`).
    pub(super) fn check_one_writer(&self, writer: &Session) -> Result<()> {
        if !writer.has_changes() || writer.exec.schema() == TEMP {
            return Ok(());
        }
        let members = self.attached.lock();
        let family = std::iter::once(self).chain(members.values().map(Arc::as_ref));
        let other = family.filter(|c| !std::ptr::eq(*c, writer) && c.exec.schema() != TEMP).find(|c| c.has_changes());
        match other {
            None => Ok(()),
            Some(other) => Err(Error::programming(format!(
                "this transaction has already changed database '{}'; a transaction changes one database: \
                 COMMIT, then change '{}' in a transaction of its own",
                other.exec.schema(),
                writer.exec.schema()
            ))),
        }
    }
}

/// `path` made absolute against the working directory (the process may
/// change directory later; the attachment must not follow it).
fn absolute(path: &str) -> Result<PathBuf> {
    if path.is_empty() {
        return Err(Error::programming(
            "ATTACH needs a path: ATTACH 'file.swingdb' AS name, or ATTACH ':memory:' AS name",
        ));
    }
    std::path::absolute(path).map_err(|e| Error::operational(format!("cannot attach '{path}': {e}")))
}
