//! Connections kept between calls. A statement outside a transaction runs on
//! a connection of its own; opening one for every call costs a new session
//! (~30 us) and, worse, forgets the plans and statement shapes the last one
//! made, so every prepared point query was planned anew (~0.5 ms). A kept
//! connection is handed to a later call only while it is idle and as a new
//! one would be ([`Connection::is_pristine`]: no transaction, no setting,
//! temporary table or attachment left by an earlier caller); one that is not
//! is let go when its call ends ([`Pool::release`]), so an abandoned BEGIN
//! holds nothing past its call, and never handed out (checked again then).
//! Nothing here touches the database's files.

use crate::status::status;
use parking_lot::Mutex;
use std::sync::Arc;
use swingdb::{Connection, Database};
use tonic::Status;

/// Most connections kept: more calls at once than this open their own.
const MAX_KEPT: usize = 16;

/// The connections kept for calls outside transactions.
pub struct Pool {
    db: Database,
    kept: Mutex<Vec<Arc<Connection>>>,
}

impl Pool {
    /// No connection kept yet to `db`.
    pub fn new(db: Database) -> Self {
        Self { db, kept: Mutex::default() }
    }

    /// A kept connection no call holds, if there is one; never waits for
    /// the database. Kept ones left unlike a new connection are dropped.
    pub fn idle(&self) -> Option<Arc<Connection>> {
        let mut kept = self.kept.lock();
        // Only the pool holds an idle connection, and only under this lock
        // is it cloned: a count of one cannot change meanwhile.
        kept.retain(|con| Arc::strong_count(con) > 1 || con.is_pristine());
        kept.iter().find(|con| Arc::strong_count(con) == 1).cloned()
    }

    /// Stops keeping `con` if the call that ran on it left it unlike a new
    /// connection (an open BEGIN, a temporary table, a setting): it goes with
    /// the call's last reference, on the call's blocking thread, instead of
    /// holding its transaction's pins until a later call looks. A connection
    /// the pool does not keep (a transaction's) is left alone.
    pub fn release(&self, con: &Arc<Connection>) {
        if !con.is_pristine() {
            self.kept.lock().retain(|kept| !Arc::ptr_eq(kept, con));
        }
    }

    /// A connection for a call: an idle kept one, else a new one (kept for
    /// later calls while there is room). Blocks: a new connection reads the
    /// database's newest version.
    pub fn connection(&self) -> Result<Arc<Connection>, Status> {
        if let Some(con) = self.idle() {
            return Ok(con);
        }
        let con = Arc::new(self.db.connect().map_err(status)?);
        let mut kept = self.kept.lock();
        if kept.len() < MAX_KEPT {
            kept.push(con.clone());
        }
        Ok(con)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_connection_is_handed_out_again_and_a_changed_one_is_not() {
        let pool = Pool::new(Database::in_memory().unwrap());
        let first = pool.connection().unwrap();
        first.execute("SELECT 1", &[]).unwrap();
        let busy = pool.connection().unwrap();
        assert!(!Arc::ptr_eq(&first, &busy), "a connection in use is not handed out twice");
        drop(busy);
        drop(first);
        let again = pool.connection().unwrap();
        again.execute("CREATE TEMP TABLE scratch (a INTEGER)", &[]).unwrap();
        drop(again);
        let other = pool.connection().unwrap();
        assert!(other.is_pristine());
        other.execute("BEGIN", &[]).unwrap();
        drop(other);
        let last = pool.connection().unwrap();
        assert!(last.is_pristine(), "a connection with a temporary table or an open transaction is not handed out");
        assert_eq!(pool.kept.lock().len(), 1, "changed connections are dropped: {}", pool.kept.lock().len());
    }

    #[test]
    fn a_connection_left_in_a_transaction_is_let_go_when_its_call_ends() {
        let pool = Pool::new(Database::in_memory().unwrap());
        let con = pool.connection().unwrap();
        con.execute("SELECT 1", &[]).unwrap();
        pool.release(&con);
        assert_eq!(pool.kept.lock().len(), 1, "a connection as new is kept");
        con.execute("BEGIN", &[]).unwrap();
        pool.release(&con);
        assert!(pool.kept.lock().is_empty(), "no later call is needed to drop its transaction");
        assert_eq!(Arc::strong_count(&con), 1);
    }
}
