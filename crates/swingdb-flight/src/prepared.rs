//! Prepared statements (`CreatePreparedStatement`, parameters bound with
//! `DoPut`, run by `GetFlightInfo` or `DoPut`, `ClosePreparedStatement`):
//! the statement's text, described when it is prepared (its parameters'
//! types and its columns, without running it), and the parameter sets bound
//! last. Running it runs the statement once per set of parameters (a row of
//! the bound batches); a query's results follow one another.
//!
//! What a client sends is untrusted: at most [`MAX_OPEN`] statements are
//! open, [`MAX_CLIENT_OPEN`] of them one client's, bound parameters hold at most [`MAX_PARAMETER_BYTES`], and a
//! statement idle for [`IDLE_LIFETIME`] is closed (a client that vanished
//! leaves none behind for long). A statement prepared past a limit closes
//! another (the client's own at its limit) instead of being refused: Arrow's
//! Flight SQL JDBC driver prepares a statement for every
//! `Statement.execute(sql)` and never closes the one it replaces
//! (apache/arrow-java#1129), so refusing would fail a program's 257th query
//! on one `Statement`. Those leftovers ran once, and are closed first, the
//! least recently used first; a statement the program still holds (run
//! several times, or not yet) goes only when there are none, least recently
//! used first. Using a statement closed so says why, for a while.

use crate::reasons::Reasons;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use swingdb::arrow::array::RecordBatch;
use swingdb::datafusion::common::ScalarValue;
use tonic::Status;

/// How long a prepared statement may go unused before it is closed.
pub const IDLE_LIFETIME: Duration = Duration::from_secs(600);

/// At most this many prepared statements are open at once.
const MAX_OPEN: usize = 4096;

/// At most this many of them are one client's (one network connection's).
const MAX_CLIENT_OPEN: usize = 256;

/// The most bytes of parameters one statement holds bound.
pub const MAX_PARAMETER_BYTES: usize = 64 << 20;

/// A prepared statement.
#[derive(Clone, Debug)]
pub struct Statement {
    /// Its text.
    pub sql: String,
    /// The transaction it was prepared in, which it runs in.
    pub transaction: Option<Vec<u8>>,
    /// Whether its rows come in an order it asks for.
    pub ordered: bool,
    /// The parameter sets bound last (none bound: it runs once, without).
    pub bound: Vec<RecordBatch>,
}

struct Open {
    statement: Statement,
    used: Instant,
    /// How many calls used it (bound parameters to it or ran it).
    uses: u32,
    client: Option<SocketAddr>,
}

impl Open {
    /// Which statements are closed first to make room: those run once and
    /// left (what the JDBC driver leaves behind), then the others, each the
    /// least recently used first.
    fn eviction_order(&self) -> (bool, Instant) {
        (self.uses != 1, self.used)
    }
}

/// The open prepared statements, by handle, and why those closed to make
/// room were closed.
#[derive(Default)]
pub struct PreparedStatements {
    open: Mutex<HashMap<Vec<u8>, Open>>,
    evicted: Reasons<&'static str>,
}

impl PreparedStatements {
    /// Keeps `statement` of `client` (a network connection); returns its
    /// handle. At a limit, another statement (of `client` at its own limit)
    /// is closed first (see [`Open::eviction_order`]).
    pub fn create(&self, statement: Statement, client: Option<SocketAddr>) -> Result<Vec<u8>, Status> {
        let handle = crate::tickets::random_id()?;
        let mut open = self.open.lock();
        open.retain(|_, o| o.used.elapsed() < IDLE_LIFETIME);
        let least_used = |of_client: bool| {
            open.iter()
                .filter(|(_, o)| !of_client || o.client == client)
                .min_by_key(|(_, o)| o.eviction_order())
                .map(|(handle, _)| handle.clone())
        };
        let full = if open.values().filter(|o| o.client == client).count() >= MAX_CLIENT_OPEN {
            least_used(true).map(|h| (h, "its client had the most prepared statements open that one client may have"))
        } else if open.len() >= MAX_OPEN {
            least_used(false).map(|h| (h, "the server held the most prepared statements open that it holds"))
        } else {
            None
        };
        if let Some((doomed, why)) = full {
            open.remove(&doomed);
            self.evicted.note([(doomed, why)]);
        }
        open.insert(handle.clone(), Open { statement, used: Instant::now(), uses: 0, client });
        Ok(handle)
    }

    /// Binds `parameters` to the statement `handle`, replacing those bound before.
    pub fn bind(&self, handle: &[u8], parameters: Vec<RecordBatch>) -> Result<(), Status> {
        let mut open = self.open.lock();
        let entry = open.get_mut(handle).ok_or_else(|| self.unknown(handle))?;
        entry.statement.bound = parameters;
        entry.used = Instant::now();
        entry.uses = entry.uses.saturating_add(1);
        Ok(())
    }

    /// The statement `handle`.
    pub fn get(&self, handle: &[u8]) -> Result<Statement, Status> {
        let mut open = self.open.lock();
        let entry = open.get_mut(handle).ok_or_else(|| self.unknown(handle))?;
        entry.used = Instant::now();
        entry.uses = entry.uses.saturating_add(1);
        Ok(entry.statement.clone())
    }

    /// Closes the statement `handle`; closing one that is gone is no error.
    pub fn close(&self, handle: &[u8]) {
        self.open.lock().remove(handle);
    }

    /// The answer for using `handle`, which is not open.
    fn unknown(&self, handle: &[u8]) -> Status {
        if let Some(why) = self.evicted.of(handle) {
            return Status::not_found(format!(
                "this prepared statement was closed to make room for a newer one: {why} \
                 ({MAX_CLIENT_OPEN} per client, {MAX_OPEN} in all); prepare it again, and close statements when done"
            ));
        }
        Status::not_found(format!(
            "this prepared statement is unknown: it was closed, or was idle for {} minutes; prepare it again",
            IDLE_LIFETIME.as_secs() / 60
        ))
    }
}

/// The parameter sets of `bound`, one per row; a single empty set when no
/// parameters were bound (or batches without columns: what a client sends
/// for a statement without parameters), so the statement runs once.
pub fn parameter_sets(bound: &[RecordBatch]) -> Result<Vec<Vec<ScalarValue>>, Status> {
    if bound.iter().all(|b| b.num_columns() == 0) {
        return Ok(vec![Vec::new()]);
    }
    let mut sets = Vec::new();
    for batch in bound {
        for row in 0..batch.num_rows() {
            let set = batch
                .columns()
                .iter()
                .map(|column| ScalarValue::try_from_array(column, row))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Status::invalid_argument(format!("cannot read parameter set {}: {e}", sets.len() + 1)))?;
            sets.push(set);
        }
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use swingdb::arrow::array::{Int64Array, StringArray};
    use swingdb::arrow::datatypes::Schema;

    #[test]
    fn each_row_of_the_bound_batches_is_one_parameter_set_and_none_bound_runs_once() {
        let batch = RecordBatch::try_from_iter([
            ("a", Arc::new(Int64Array::from(vec![Some(1), None])) as _),
            ("b", Arc::new(StringArray::from(vec!["x", "y"])) as _),
        ])
        .unwrap();
        let sets = parameter_sets(&[batch.clone(), batch.slice(1, 1)]).unwrap();
        assert_eq!(sets.len(), 3);
        assert_eq!(sets[0], vec![ScalarValue::Int64(Some(1)), ScalarValue::from("x")]);
        assert_eq!(sets[2], vec![ScalarValue::Int64(None), ScalarValue::from("y")]);
        assert_eq!(parameter_sets(&[]).unwrap(), vec![Vec::<ScalarValue>::new()]);
        let empty = RecordBatch::try_new_with_options(
            Arc::new(Schema::empty()),
            vec![],
            &swingdb::arrow::array::RecordBatchOptions::new().with_row_count(Some(0)),
        )
        .unwrap();
        assert_eq!(parameter_sets(&[empty]).unwrap().len(), 1);
    }

    #[test]
    fn a_closed_or_unknown_statement_is_not_found() {
        let statements = PreparedStatements::default();
        let handle = statements
            .create(Statement { sql: "SELECT 1".into(), transaction: None, ordered: false, bound: vec![] }, None)
            .unwrap();
        assert_eq!(statements.get(&handle).unwrap().sql, "SELECT 1");
        statements.close(&handle);
        assert_eq!(statements.get(&handle).unwrap_err().code(), tonic::Code::NotFound);
        assert_eq!(statements.bind(b"nope", vec![]).unwrap_err().code(), tonic::Code::NotFound);
    }

    #[test]
    fn past_a_clients_limit_a_statement_run_once_and_left_is_closed_first_and_says_why() {
        let statements = PreparedStatements::default();
        let statement = |sql: &str| Statement { sql: sql.into(), transaction: None, ordered: false, bound: vec![] };
        let (client, other) = (Some("127.0.0.1:1".parse().unwrap()), Some("127.0.0.1:2".parse().unwrap()));
        let theirs = statements.create(statement("SELECT 0"), other).unwrap();
        // A statement the program holds, prepared first and not run yet,
        // then what the JDBC driver leaves: statements run once each.
        let held = statements.create(statement("SELECT ?"), client).unwrap();
        let left: Vec<_> = (1..MAX_CLIENT_OPEN)
            .map(|i| {
                let handle = statements.create(statement(&format!("SELECT {i}")), client).unwrap();
                statements.get(&handle).unwrap();
                handle
            })
            .collect();
        let newest = statements.create(statement("SELECT 'new'"), client).unwrap();
        assert_eq!(statements.get(&newest).unwrap().sql, "SELECT 'new'");
        let closed = statements.get(&left[0]).unwrap_err();
        assert_eq!(closed.code(), tonic::Code::NotFound);
        assert!(closed.message().contains("closed to make room"), "{}", closed.message());
        assert!(closed.message().contains("most prepared statements open that one client may have"));
        assert_eq!(statements.get(&held).unwrap().sql, "SELECT ?", "the held statement stays open");
        assert_eq!(statements.get(&left[1]).unwrap().sql, "SELECT 2");
        assert_eq!(statements.get(&theirs).unwrap().sql, "SELECT 0", "another client's statement stays open");
        assert_eq!(statements.open.lock().len(), MAX_CLIENT_OPEN + 1);
        // With none run once left, the least recently used goes.
        let statements = PreparedStatements::default();
        let first = statements.create(statement("SELECT 1"), client).unwrap();
        let rest: Vec<_> =
            (1..MAX_CLIENT_OPEN).map(|_| statements.create(statement("SELECT 2"), client).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(2));
        statements.get(&first).unwrap();
        statements.get(&first).unwrap();
        statements.create(statement("SELECT 3"), client).unwrap();
        assert!(statements.get(&first).is_ok());
        assert_eq!(statements.get(&rest[0]).unwrap_err().code(), tonic::Code::NotFound);
    }
}
