//! Temporary tables (`CREATE TEMP[ORARY] TABLE`), as DuckDB and PostgreSQL
//! have them: private to the connection, shadowing a stored table of the
//! same name, gone when the connection closes, never written to the
//! database's directory. (Temporary views are the connection's registered
//! views, see `statements::view`.)
//!
//! How: a connection's first temporary object opens a new in-memory
//! database (see [`DbCore::in_memory`]) as the connection's member `temp`,
//! as ATTACH does (`attach.rs`), except that it is this connection's alone:
//! it is not in the handle's list of attached databases, so no other
//! connection has a member on it, and it is dropped with the connection.
//! Statements name temporary objects through `frontend::temporary`: their
//! unqualified names become `temp.name`, so they read through the shared
//! map of databases and change through the member, like any attached
//! database's tables.
//!
//! Files: the temporary database's directory is a private directory the
//! process claims in the user's runtime home, removed when the member is
//! dropped (or, after a crash, by the next sweep of that home); no other
//! process opens, locks or deletes anything in it while it lives.
//!
//! Transactions: a transaction may change `temp` beside the one other
//! database it may change. At its end the other database commits first and
//! `temp` last, and only if that commit succeeded, so a failed commit
//! leaves both as they were; no other process can conflict with `temp`.

use super::{DbCore, OpenOptions, Session};
use crate::catalog::TEMP;
use crate::frontend::temporary::{resolve_temporary, take_temporary};
use datafusion::sql::parser::Statement as DFStatement;
use std::collections::BTreeSet;
use std::sync::Arc;
use swingdb_storage::error::Result;

impl Session {
    /// The member holding this connection's temporary objects, opened
    /// first when `open` asks for it.
    pub(super) fn temp_member(&self, open: bool) -> Result<Option<Arc<Session>>> {
        if let Some(temp) = self.attached.lock().get(TEMP) {
            return Ok(Some(temp.clone()));
        }
        if !open || self.exec.is_member() {
            return Ok(None);
        }
        let options = OpenOptions { external_access: self.exec.core.external_access, ..OpenOptions::default() };
        let member = Session::with(self.exec.member(DbCore::in_memory(&options)?, TEMP)?)?;
        if let Some(explicit) = self.exec.open_transaction() {
            member.begin(explicit)?;
        }
        let member = Arc::new(member);
        self.attached.lock().insert(TEMP.to_string(), member.clone());
        Ok(Some(member))
    }

    /// The names of this connection's temporary tables, as its transaction
    /// sees them.
    pub(super) fn temporary_names(&self) -> BTreeSet<String> {
        let Some(temp) = self.attached.lock().get(TEMP).cloned() else { return BTreeSet::new() };
        temp.exec.working_tables().into_iter().filter(|(_, t)| t.is_relation()).map(|(name, _)| name).collect()
    }

    /// The member holding the temporary table `name`, if there is one.
    pub(super) fn temporary_holding(&self, name: &str) -> Option<Arc<Session>> {
        self.temporary_names().contains(name).then(|| self.attached.lock().get(TEMP).cloned()).flatten()
    }

    /// `statement` with its temporary objects named in schema `temp` (see
    /// `frontend::temporary`); a `CREATE TEMP` opens the temporary database.
    pub(super) fn with_temporary(&self, mut statement: DFStatement) -> Result<DFStatement> {
        if take_temporary(&mut statement)? {
            self.temp_member(true)?;
        }
        resolve_temporary(&mut statement, &self.temporary_names());
        Ok(statement)
    }
}
