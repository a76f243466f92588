//! Transactions across statements (`BeginTransaction` ... `EndTransaction`):
//! each open transaction is a connection of its own that ran `BEGIN`, known
//! to clients by an unguessable id. Statements that name the id run on that
//! connection, one at a time; the others each run on a connection of their
//! own and commit on their own. Readers never wait for an open transaction,
//! as everywhere in swingdb: it holds no lock until it commits.
//!
//! A client that vanishes leaves its transaction open: one idle for
//! [`IDLE_LIFETIME`] is rolled back (dropping its connection does that) when
//! the next transaction begins or ends, so none outlives its client for long.
//! One client (network connection) has at most [`MAX_CLIENT_OPEN`] open, so
//! that it cannot take all [`MAX_OPEN`] and lock the others out.
//!
//! A prepared statement names the transaction it was prepared in, and
//! clients run it again after that one ended (ADBC's driver keeps a
//! statement across `commit()`): it then runs in the transaction its client
//! (the same network connection) has open now, or on its own when the client
//! has none. A transaction that expired is an error instead: its client
//! believes it open.

use crate::status::status;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use swingdb::{Connection, Database};
use tonic::Status;

/// How long an open transaction may go unused before it is rolled back.
pub const IDLE_LIFETIME: Duration = Duration::from_secs(600);

/// At most this many transactions are open at once (each holds a
/// connection and what it wrote so far).
const MAX_OPEN: usize = 1024;

/// At most this many of them are one client's (one network connection's),
/// so that one client cannot take them all and lock the others out.
const MAX_CLIENT_OPEN: usize = 64;

/// An open transaction's connection, when it was last used, and the
/// network connection of the client that began it.
struct Open {
    connection: Arc<Connection>,
    used: Instant,
    client: Option<SocketAddr>,
    begun: Instant,
}

/// The open transactions, by id, and those their clients ended (for
/// [`IDLE_LIFETIME`]: what prepared statements of theirs run in).
#[derive(Default)]
pub struct Transactions {
    open: Mutex<HashMap<Vec<u8>, Open>>,
    ended: Mutex<HashMap<Vec<u8>, Instant>>,
}

impl Transactions {
    /// Begins a transaction on a new connection to `db` for the client on
    /// the network connection `client`; returns its id. (Blocks: run it on a
    /// blocking thread.)
    pub fn begin(&self, db: &Database, client: Option<SocketAddr>) -> Result<Vec<u8>, Status> {
        let connection = db.connect().map_err(status)?;
        connection.execute("BEGIN", &[]).map_err(status)?;
        let id = crate::tickets::random_id()?;
        let now = Instant::now();
        let (refusal, expired) = {
            let mut open = self.open.lock();
            let expired = take_expired(&mut open);
            let refusal = if open.values().filter(|o| o.client == client).count() >= MAX_CLIENT_OPEN {
                Some(format!("this client has {MAX_CLIENT_OPEN} transactions open, the most one client may have"))
            } else if open.len() >= MAX_OPEN {
                Some(format!("{MAX_OPEN} transactions are open, the most the server holds"))
            } else {
                open.insert(id.clone(), Open { connection: Arc::new(connection), used: now, client, begun: now });
                None
            };
            (refusal, expired)
        };
        drop(expired);
        match refusal {
            Some(refusal) => Err(Status::resource_exhausted(format!(
                "{refusal}; commit or roll back one first (one idle for {} minutes is rolled back)",
                IDLE_LIFETIME.as_secs() / 60
            ))),
            None => Ok(id),
        }
    }

    /// The connection a prepared statement of the transaction `id`, run by
    /// the client on `client`, runs on (see the module doc): that
    /// transaction's while it is open, else the client's open one, else
    /// none (it runs on its own).
    pub fn for_prepared(&self, id: &[u8], client: Option<SocketAddr>) -> Result<Option<Arc<Connection>>, Status> {
        if let Ok(connection) = self.connection(id) {
            return Ok(Some(connection));
        }
        let ended = self.ended.lock().get(id).is_some_and(|at| at.elapsed() < IDLE_LIFETIME);
        if !ended || client.is_none() {
            return Err(unknown());
        }
        let mut open = self.open.lock();
        let newest = open.values_mut().filter(|o| o.client == client).max_by_key(|o| o.begun);
        Ok(newest.map(|o| {
            o.used = Instant::now();
            o.connection.clone()
        }))
    }

    /// The connection of the open transaction `id`.
    pub fn connection(&self, id: &[u8]) -> Result<Arc<Connection>, Status> {
        let mut open = self.open.lock();
        let entry = open.get_mut(id).ok_or_else(unknown)?;
        entry.used = Instant::now();
        Ok(entry.connection.clone())
    }

    /// Ends the transaction `id`: commits it, or rolls it back. (Blocks.)
    pub fn end(&self, id: &[u8], commit: bool) -> Result<(), Status> {
        let (entry, expired) = {
            let mut open = self.open.lock();
            let expired = take_expired(&mut open);
            (open.remove(id), expired)
        };
        drop(expired);
        let entry = entry.ok_or_else(unknown)?;
        let mut ended = self.ended.lock();
        ended.retain(|_, at| at.elapsed() < IDLE_LIFETIME);
        ended.insert(id.to_vec(), Instant::now());
        drop(ended);
        let outcome = entry.connection.execute(if commit { "COMMIT" } else { "ROLLBACK" }, &[]);
        outcome.map(drop).map_err(status)
    }
}

/// The transactions of `open` idle too long, taken out: dropped after the
/// lock is let go (a rollback deletes files).
fn take_expired(open: &mut HashMap<Vec<u8>, Open>) -> Vec<Open> {
    open.extract_if(|_, o| o.used.elapsed() >= IDLE_LIFETIME).map(|(_, o)| o).collect()
}

fn unknown() -> Status {
    Status::not_found(format!(
        "this transaction is unknown: it was committed or rolled back already, or was idle for {} minutes and \
         rolled back; begin a new one",
        IDLE_LIFETIME.as_secs() / 60
    ))
}
