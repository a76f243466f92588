//! Results waiting for their `DoGet`s. A statement runs once, when its
//! `GetFlightInfo` arrives (so that a statement with effects never runs
//! twice); its result waits here under an unguessable id, with one ticket
//! per endpoint. A large unordered result is offered as several endpoints
//! that clients fetch in parallel: each endpoint's stream takes the result's
//! next batch when it is ready for one, so together they hold every row
//! once, in no particular order (an ordered result has one endpoint). A
//! ticket is taken by one `DoGet`; one nobody fetches expires.
//!
//! `CancelFlightInfo` drops a result still waiting, or interrupts the
//! statement its streams are reading; so does a client that goes away
//! before its stream's end.
//!
//! What a client sends is untrusted, and a result waiting for its fetch
//! holds memory (a sort's rows, buffers between threads): results not
//! fetched to their end are held to [`Limits`]: past them new statements
//! are refused ([`Tickets::admit`]), and as the statements admitted grow
//! past them (a sort fills as it runs) the newest results waiting for their
//! fetch are dropped ([`Tickets::shed`]); a result nobody begins to fetch
//! within [`Limits::result_timeout`] is dropped too ([`Tickets::expire`]).
//! Dropping a result stops its statement; its fetch says why.

use crate::reasons::Reasons;
use arrow_flight::error::FlightError;
use arrow_flight::sql::{Any, TicketStatementQuery};
use arrow_flight::{CancelStatus, FlightInfo};
use futures::{Stream, StreamExt};
use parking_lot::Mutex;
use prost::Message;
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use swingdb::arrow::datatypes::{Schema, SchemaRef};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{format_bytes, Connection, QueryResult};
use tonic::Status;

/// At most this many results of one client (one network connection) are
/// unfinished at once.
const MAX_CLIENT_UNFINISHED: usize = 64;

/// At most this many results of all clients are unfinished at once.
const MAX_UNFINISHED: usize = 1024;

/// What results not fetched to their end may hold (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes the statements of all unfinished results may hold reserved
    /// before new statements are refused.
    pub max_pending_bytes: usize,
    /// The same for the results of one client (one network connection).
    pub max_client_pending_bytes: usize,
    /// How long a result waits for its first fetch before it is dropped.
    pub result_timeout: Duration,
}

impl Limits {
    /// `max_pending_bytes` for all clients, a quarter of it for each, and
    /// `result_timeout`.
    pub fn new(max_pending_bytes: usize, result_timeout: Duration) -> Self {
        Self { max_pending_bytes, max_client_pending_bytes: max_pending_bytes / 4, result_timeout }
    }

    /// A quarter of what queries of the process may reserve
    /// ([`swingdb::memory_limit`], by default 70 % of the memory cgroup's
    /// limit) or, without a limit, of the machine's memory; 30 seconds.
    pub fn default_for_machine() -> Self {
        let memory = swingdb::memory_limit().or_else(swingdb::physical_memory).unwrap_or(4 << 30);
        Self::new(usize::try_from(memory / 4).unwrap_or(usize::MAX), Duration::from_secs(30))
    }
}

/// Bytes of a result's id, which its tickets start with.
const ID_BYTES: usize = 16;

/// A random id that nobody can guess.
pub fn random_id() -> Result<Vec<u8>, Status> {
    let mut id = vec![0u8; ID_BYTES];
    getrandom::fill(&mut id).map_err(|e| Status::internal(format!("no random numbers: {e}")))?;
    Ok(id)
}

/// The rows of one statement's results (several when a prepared query ran
/// once for each set of parameters), which its endpoints' streams share.
pub struct Shared {
    schema: SchemaRef,
    rows: Mutex<Rows>,
    /// The connection the statement ran on (which cancels it, and tells
    /// what it holds).
    connection: Arc<Connection>,
    cancelled: AtomicBool,
}

/// Pieces computed ahead, then the results they came from.
struct Rows {
    held: VecDeque<RecordBatch>,
    results: VecDeque<QueryResult>,
}

impl Rows {
    /// Computes the next batch into `held`, cut into the pieces one Flight
    /// message each carries (see [`swingdb_pipe::net::cut_into_messages`]): the
    /// endpoints share a large batch too. False at the end of the results.
    fn compute(&mut self) -> swingdb::Result<bool> {
        while let Some(front) = self.results.front_mut() {
            match front.next_batch()? {
                Some(batch) => {
                    self.held.extend(swingdb_pipe::net::cut_into_messages(&batch));
                    return Ok(true);
                }
                None => drop(self.results.pop_front()),
            }
        }
        Ok(false)
    }

    fn next(&mut self) -> swingdb::Result<Option<RecordBatch>> {
        if self.held.is_empty() {
            self.compute()?;
        }
        Ok(self.held.pop_front())
    }
}

impl Shared {
    /// The rows of `results`, which ran on `connection`.
    pub fn new(results: Vec<QueryResult>, connection: Arc<Connection>) -> Self {
        let schema = results.first().map_or_else(|| Arc::new(Schema::empty()), |first| first.schema());
        let rows = Rows { held: VecDeque::new(), results: results.into() };
        Self { schema, rows: Mutex::new(rows), connection, cancelled: AtomicBool::new(false) }
    }

    /// Bytes the statement holds reserved now (its connection's: a
    /// statement outside a transaction has one of its own). The pieces
    /// computed ahead are not counted: at most a few messages.
    fn reserved(&self) -> usize {
        self.connection.reserved_memory()
    }

    /// The columns of the rows.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Computes at least `pieces` pieces ahead (one message each); tells
    /// whether the rows may go on past them (false: all are held). (Blocks.)
    pub fn read_ahead(&self, pieces: usize) -> swingdb::Result<bool> {
        let mut rows = self.rows.lock();
        while rows.held.len() < pieces {
            if !rows.compute()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether every row is computed already, in memory: reading them
    /// never waits for the engine.
    pub fn is_computed(&self) -> bool {
        self.rows.lock().results.iter().all(QueryResult::is_computed)
    }

    /// The next piece of the rows (at most about one Flight message), or
    /// `None` at their end. (Blocks while the statement computes it.)
    pub fn next_batch(&self) -> swingdb::Result<Option<RecordBatch>> {
        let mut rows = self.rows.lock();
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(swingdb::Error::new(swingdb::ErrorKind::Interrupted, "the query was cancelled"));
        }
        rows.next()
    }

    /// Cancels the statement: its fetches fail from now on.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.connection.interrupt_handle().interrupt();
    }
}

/// A result waiting for its endpoints' fetches.
struct Waiting {
    id: Vec<u8>,
    parked: Instant,
    shared: Arc<Shared>,
    /// Which endpoints have not been fetched yet.
    unclaimed: Vec<bool>,
    client: Option<SocketAddr>,
}

/// A result being fetched.
struct Fetching {
    shared: Weak<Shared>,
    client: Option<SocketAddr>,
}

/// The waiting results, and those being fetched (for cancelling them and
/// counting what they hold).
pub struct Tickets {
    limits: Limits,
    waiting: Mutex<HashMap<Vec<u8>, Waiting>>,
    fetching: Mutex<HashMap<Vec<u8>, Fetching>>,
    /// Why results were dropped before their fetch (with the code their
    /// fetch answers), by id.
    dropped: Reasons<(tonic::Code, String)>,
}

/// An unfinished result: its id and when it was parked if it waits for
/// its fetch, whose it is, and what it holds.
struct Unfinished {
    waiting: Option<(Vec<u8>, Instant)>,
    client: Option<SocketAddr>,
    bytes: usize,
}

/// What the unfinished results of one client, and of all, hold.
#[derive(Default)]
struct Held {
    results: usize,
    bytes: usize,
    client_results: usize,
    client_bytes: usize,
}

impl Tickets {
    /// No results yet; those to come are held to `limits`.
    pub fn new(limits: Limits) -> Self {
        Self { limits, waiting: Mutex::default(), fetching: Mutex::default(), dropped: Reasons::default() }
    }

    /// Refuses a new statement of `client` while the unfinished results
    /// (waiting for their fetch or being fetched) of that client, or of
    /// all clients, are at their limits: `RESOURCE_EXHAUSTED` naming the
    /// limit. Drops the results that waited too long first.
    pub fn admit(&self, client: Option<SocketAddr>) -> Result<(), Status> {
        self.expire();
        self.admit_as_is(client)
    }

    /// [`Self::admit`] without dropping the results that waited too long
    /// (dropping one may wait for its plan): for the runtime's threads,
    /// where the expiry task (four times a second) drops them instead.
    pub fn admit_as_is(&self, client: Option<SocketAddr>) -> Result<(), Status> {
        let held = self.held(client);
        let Limits { max_pending_bytes, max_client_pending_bytes, .. } = self.limits;
        let refusal = if held.client_results >= MAX_CLIENT_UNFINISHED {
            format!(
                "this client has {} results not fetched to their end, the most one client may have",
                held.client_results
            )
        } else if held.results >= MAX_UNFINISHED {
            format!("the server holds {} results not fetched to their end, the most it holds", held.results)
        } else if held.client_bytes >= max_client_pending_bytes {
            self.over_client_budget(held.client_bytes)
        } else if held.bytes >= max_pending_bytes {
            self.over_budget(held.bytes)
        } else {
            return Ok(());
        };
        Err(Status::resource_exhausted(format!("{refusal}; {}", self.advice())))
    }

    fn advice(&self) -> String {
        format!(
            "fetch (DoGet) or cancel them, or wait: a result nobody fetches is dropped after {} s",
            self.limits.result_timeout.as_secs_f64()
        )
    }

    fn over_client_budget(&self, bytes: usize) -> String {
        format!(
            "the results this client has not fetched to their end hold {}, its budget (a quarter of \
             --max-pending-bytes, {})",
            format_bytes(bytes as u64),
            format_bytes(self.limits.max_client_pending_bytes as u64)
        )
    }

    fn over_budget(&self, bytes: usize) -> String {
        format!(
            "the results not fetched to their end hold {}, the server's budget (--max-pending-bytes {})",
            format_bytes(bytes as u64),
            format_bytes(self.limits.max_pending_bytes as u64)
        )
    }

    /// What the unfinished results hold, all and those of `client`.
    fn held(&self, client: Option<SocketAddr>) -> Held {
        let mut held = Held::default();
        for (of, bytes) in self.unfinished().into_iter().map(|u| (u.client, u.bytes)) {
            held.results += 1;
            held.bytes += bytes;
            if of == client {
                held.client_results += 1;
                held.client_bytes += bytes;
            }
        }
        held
    }

    /// Every unfinished result: those waiting (with their ids), and those
    /// being fetched (a result whose fetch began at one of its endpoints
    /// among these, once).
    fn unfinished(&self) -> Vec<Unfinished> {
        let mut all: Vec<Unfinished> = self
            .waiting
            .lock()
            .iter()
            .filter(|(_, w)| w.unclaimed.iter().all(|&u| u))
            .map(|(id, w)| Unfinished {
                waiting: Some((id.clone(), w.parked)),
                client: w.client,
                bytes: w.shared.reserved(),
            })
            .collect();
        let fetched: Vec<(Arc<Shared>, Option<SocketAddr>)> = {
            let mut fetching = self.fetching.lock();
            fetching.retain(|_, f| f.shared.strong_count() > 0);
            fetching.values().filter_map(|f| Some((f.shared.upgrade()?, f.client))).collect()
        };
        // (Dropped outside the lock: the last handle may end a plan.)
        all.extend(fetched.into_iter().map(|(shared, client)| Unfinished {
            waiting: None,
            client,
            bytes: shared.reserved(),
        }));
        all
    }

    /// Drops the results nobody began to fetch within the timeout. (The
    /// server calls it four times a second, and each new statement does.)
    pub fn expire(&self) {
        let timeout = self.limits.result_timeout;
        let gone: Vec<(Waiting, tonic::Code, String)> = {
            let mut waiting = self.waiting.lock();
            let why = format!("nobody fetched it within {} s (--result-timeout)", timeout.as_secs_f64());
            waiting
                .extract_if(|_, w| w.parked.elapsed() >= timeout && w.unclaimed.iter().all(|&u| u))
                .map(|(_, w)| (w, tonic::Code::NotFound, why.clone()))
                .collect()
        };
        self.drop_results(gone);
    }

    /// While the unfinished results of a client, or of all, hold more than
    /// their budget, drops the newest results waiting for their fetch: a
    /// statement admitted while the budget had room grows after its answer
    /// (a sort fills as it runs). (The server calls it four times a second.)
    pub fn shed(&self) {
        let mut gone = Vec::new();
        let mut unfinished = self.unfinished();
        // Newest first: those are dropped first.
        unfinished.sort_by_key(|u| std::cmp::Reverse(u.waiting.as_ref().map(|(_, parked)| *parked)));
        let mut by_client: HashMap<Option<SocketAddr>, usize> = HashMap::new();
        let mut total = 0;
        for u in &unfinished {
            *by_client.entry(u.client).or_default() += u.bytes;
            total += u.bytes;
        }
        for u in &unfinished {
            let Some((id, _)) = &u.waiting.as_ref().filter(|_| u.bytes > 0) else { continue };
            let client_bytes = by_client[&u.client];
            let why = if client_bytes > self.limits.max_client_pending_bytes {
                self.over_client_budget(client_bytes)
            } else if total > self.limits.max_pending_bytes {
                self.over_budget(total)
            } else {
                continue;
            };
            let Some(w) = self.waiting.lock().remove(id) else { continue };
            *by_client.get_mut(&u.client).expect("counted above") -= u.bytes;
            total -= u.bytes;
            gone.push((w, tonic::Code::ResourceExhausted, why));
        }
        self.drop_results(gone);
    }

    /// Drops the results `gone`, which stops their statements, and keeps
    /// why for their fetches.
    fn drop_results(&self, gone: Vec<(Waiting, tonic::Code, String)>) {
        if gone.is_empty() {
            return;
        }
        self.dropped.note(gone.iter().map(|(w, code, why)| (w.id.clone(), (*code, why.clone()))));
        // Cancelled outside the locks: dropping a result may wait for its plan.
        for (w, _, _) in gone {
            w.shared.cancel();
        }
    }

    /// Parks `rows` of `client` for `endpoints` streams; returns one ticket
    /// per endpoint.
    pub fn park(&self, rows: Shared, endpoints: usize, client: Option<SocketAddr>) -> Result<Vec<Vec<u8>>, Status> {
        let endpoints = endpoints.clamp(1, u8::MAX as usize);
        let id = random_id()?;
        let waiting = Waiting {
            id: id.clone(),
            parked: Instant::now(),
            shared: Arc::new(rows),
            unclaimed: vec![true; endpoints],
            client,
        };
        self.waiting.lock().insert(id.clone(), waiting);
        Ok((0..endpoints).map(|i| [id.as_slice(), &[i as u8]].concat()).collect())
    }

    /// Takes the stream of `ticket`; an error saying why not when it is
    /// unknown, already taken, or was dropped before its fetch.
    pub fn take(&self, ticket: &[u8]) -> Result<Arc<Shared>, Status> {
        let unknown = || {
            Status::not_found("this ticket is unknown, was fetched already, or was cancelled; run the statement again")
        };
        let (id, endpoint) = split(ticket).ok_or_else(unknown)?;
        let mut waiting = self.waiting.lock();
        let Some(entry) = waiting.get_mut(id) else {
            drop(waiting);
            return Err(match self.dropped.of(id) {
                Some((code, why)) => Status::new(
                    code,
                    format!("this result was dropped before its fetch: {why}; run the statement again, and fetch it as soon as it is answered"),
                ),
                None => unknown(),
            });
        };
        if !entry.unclaimed.get(endpoint).copied().unwrap_or(false) {
            return Err(unknown());
        }
        entry.unclaimed[endpoint] = false;
        let (shared, client) = (entry.shared.clone(), entry.client);
        if entry.unclaimed.iter().all(|u| !u) {
            waiting.remove(id);
        }
        drop(waiting);
        self.fetching.lock().insert(id.to_vec(), Fetching { shared: Arc::downgrade(&shared), client });
        Ok(shared)
    }

    /// Cancels the query `info` describes (by its endpoints' tickets, which
    /// all name one result): cancelled if any of them was.
    pub fn cancel_query(&self, info: &FlightInfo) -> Result<CancelStatus, Status> {
        let mut outcome = Err(Status::invalid_argument("the FlightInfo to cancel has no endpoint"));
        for endpoint in &info.endpoint {
            let Some(ticket) = &endpoint.ticket else { continue };
            let handle = Any::decode(&*ticket.ticket)
                .ok()
                .and_then(|any| any.unpack::<TicketStatementQuery>().ok().flatten())
                .ok_or_else(|| Status::invalid_argument("this is not a ticket of a query of this server"))?;
            let cancelled = self.cancel(&handle.statement_handle);
            if outcome.is_err() {
                outcome = cancelled;
            }
        }
        outcome
    }

    /// Cancels the result of `ticket`: dropped if it is still waiting,
    /// interrupted if it is being fetched; an error if it is unknown.
    pub fn cancel(&self, ticket: &[u8]) -> Result<CancelStatus, Status> {
        let not_found = || Status::not_found("this query is unknown, finished, or expired");
        let (id, _) = split(ticket).ok_or_else(not_found)?;
        let waiting = self.waiting.lock().remove(id);
        let fetching = self.fetching.lock().remove(id).and_then(|f| f.shared.upgrade());
        match waiting.map(|w| w.shared).or(fetching) {
            Some(shared) => {
                shared.cancel();
                Ok(CancelStatus::Cancelled)
            }
            None => Err(not_found()),
        }
    }
}

/// A ticket's result id and endpoint.
fn split(ticket: &[u8]) -> Option<(&[u8], usize)> {
    (ticket.len() == ID_BYTES + 1).then(|| (&ticket[..ID_BYTES], ticket[ID_BYTES] as usize))
}

/// Cancels the rows it holds when dropped before their end: a client that
/// went away (or cancelled its call) stops the statement, also while the
/// engine computes the next batch.
struct CancelOnDrop {
    shared: Arc<Shared>,
    ended: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.ended {
            self.shared.cancel();
        }
    }
}

/// The next piece of `shared`'s rows as a stream item; `None` at their end.
/// A panic (a bug) becomes an error: ending the stream instead would hand
/// the client a shortened result as if it were whole.
fn next_item(shared: &Shared) -> Option<Result<RecordBatch, FlightError>> {
    let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.next_batch())).unwrap_or_else(|_| {
        Err(swingdb::Error::internal("internal error (please report): panic while computing a result"))
    });
    match next {
        Ok(Some(piece)) => Some(Ok(piece)),
        Ok(None) => None,
        Err(e) => Some(Err(FlightError::Tonic(Box::new(crate::status::status(e))))),
    }
}

/// A stream of the rows of `shared`, a message a piece. Rows computed
/// already (a point read's) are read where the stream is polled; others on
/// a blocking thread as the client takes them (two messages ahead at most):
/// the hand-off to that thread and back costs more than a short result.
pub fn batches(shared: Arc<Shared>) -> impl Stream<Item = Result<RecordBatch, FlightError>> + Send {
    let guard = CancelOnDrop { shared: shared.clone(), ended: false };
    if shared.is_computed() {
        // An error ends the rows, as on the blocking thread: nothing is
        // left to cancel.
        let stream = futures::stream::unfold(Some(guard), |guard| async move {
            let mut guard = guard?;
            let item = next_item(&guard.shared);
            guard.ended = item.as_ref().is_none_or(|item| item.is_err());
            let item = item?;
            let more = item.is_ok().then_some(guard);
            Some((item, more))
        });
        return stream.left_stream();
    }
    let (send, receive) = tokio::sync::mpsc::channel(2);
    tokio::task::spawn_blocking(move || loop {
        let Some(item) = next_item(&shared) else { return };
        let end = item.is_err();
        // A client that went away closes the channel: the statement stops here.
        if send.blocking_send(item).is_err() || end {
            return;
        }
    });
    futures::stream::unfold((receive, guard), |(mut receive, mut guard)| async move {
        let item = receive.recv().await;
        guard.ended = item.is_none();
        item.map(|item| (item, (receive, guard)))
    })
    .right_stream()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(con: &swingdb::Connection, sql: &str) -> QueryResult {
        con.execute(sql, &[]).unwrap()
    }

    fn shared(results: Vec<QueryResult>, con: &Arc<swingdb::Connection>) -> Shared {
        Shared::new(results, con.clone())
    }

    fn connection() -> Arc<swingdb::Connection> {
        Arc::new(swingdb::Database::in_memory().unwrap().connect().unwrap())
    }

    fn tickets() -> Tickets {
        Tickets::new(Limits::new(1 << 30, Duration::from_secs(600)))
    }

    #[test]
    fn a_query_of_several_endpoints_is_cancelled_by_its_flight_info_once() {
        use arrow_flight::sql::ProstMessageExt;
        let con = connection();
        let tickets = tickets();
        let parked = tickets.park(shared(vec![result(&con, "SELECT * FROM range(3)")], &con), 3, None).unwrap();
        let mut info = FlightInfo::new();
        for ticket in parked {
            let ticket = TicketStatementQuery { statement_handle: ticket.into() }.as_any().encode_to_vec();
            info =
                info.with_endpoint(arrow_flight::FlightEndpoint::new().with_ticket(arrow_flight::Ticket::new(ticket)));
        }
        assert_eq!(tickets.cancel_query(&info).unwrap(), CancelStatus::Cancelled);
        assert_eq!(tickets.cancel_query(&info).unwrap_err().code(), tonic::Code::NotFound);
        let foreign = FlightInfo::new().with_endpoint(
            arrow_flight::FlightEndpoint::new().with_ticket(arrow_flight::Ticket::new(b"junk".to_vec())),
        );
        assert_eq!(tickets.cancel_query(&foreign).unwrap_err().code(), tonic::Code::InvalidArgument);
    }

    #[test]
    fn rows_computed_already_stream_without_a_blocking_thread() {
        let con = connection();
        con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR)", &[]).unwrap();
        con.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')", &[]).unwrap();
        let found = con.execute_here("SELECT v FROM t WHERE id = 2", &[]).unwrap().expect("a point read");
        let rows = Arc::new(shared(vec![found], &con));
        assert!(rows.is_computed());
        // Outside any runtime: a hand-off to a blocking thread would panic here.
        let pieces = futures::executor::block_on(batches(rows).collect::<Vec<_>>());
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].as_ref().unwrap().num_rows(), 1);
        assert!(!shared(vec![result(&con, "SELECT * FROM range(3)")], &con).is_computed());
    }

    #[test]
    fn reading_ahead_tells_whether_rows_may_follow_and_keeps_them_in_order() {
        let con = connection();
        let rows = shared(vec![result(&con, "SELECT 1 AS v"), result(&con, "SELECT 2 AS v")], &con);
        assert!(!rows.read_ahead(4).unwrap(), "two one-row results end within four pieces");
        let values: Vec<i64> = std::iter::from_fn(|| rows.next_batch().unwrap())
            .map(|b| b.column(0).as_any().downcast_ref::<swingdb::arrow::array::Int64Array>().unwrap().value(0))
            .collect();
        assert_eq!(values, [1, 2]);
        let more = shared(vec![result(&con, "SELECT 1"), result(&con, "SELECT 2"), result(&con, "SELECT 3")], &con);
        assert!(more.read_ahead(2).unwrap());
    }

    #[test]
    fn the_endpoints_of_a_result_share_its_rows_each_once_and_each_ticket_is_taken_once() {
        let con = connection();
        let tickets = tickets();
        let parked = tickets
            .park(
                shared(vec![result(&con, "SELECT * FROM range(3)"), result(&con, "SELECT * FROM range(4)")], &con),
                2,
                None,
            )
            .unwrap();
        assert_eq!(parked.len(), 2);
        let first = tickets.take(&parked[0]).unwrap();
        assert!(tickets.take(&parked[0]).is_err(), "a ticket is taken once");
        let second = tickets.take(&parked[1]).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let mut rows = 0;
        while let Some(batch) = first.next_batch().unwrap() {
            rows += batch.num_rows();
        }
        assert_eq!(rows, 7, "every row of both results");
        assert!(second.next_batch().unwrap().is_none());
        assert!(tickets.take(b"short").is_err());
    }

    #[test]
    fn a_cancelled_result_fails_its_fetch_and_an_unknown_one_is_not_found() {
        let con = connection();
        let tickets = tickets();
        let parked = tickets.park(shared(vec![result(&con, "SELECT * FROM range(3)")], &con), 1, None).unwrap();
        let fetching = tickets.take(&parked[0]).unwrap();
        assert_eq!(tickets.cancel(&parked[0]).unwrap(), CancelStatus::Cancelled);
        assert_eq!(fetching.next_batch().unwrap_err().kind(), swingdb::ErrorKind::Interrupted);
        assert_eq!(tickets.cancel(&parked[0]).unwrap_err().code(), tonic::Code::NotFound);
        let waiting = tickets.park(shared(vec![result(&con, "SELECT 1")], &con), 1, None).unwrap();
        assert_eq!(tickets.cancel(&waiting[0]).unwrap(), CancelStatus::Cancelled);
        assert!(tickets.take(&waiting[0]).is_err(), "a cancelled result is gone");
    }

    #[test]
    fn a_result_nobody_fetches_in_time_is_dropped_and_its_memory_let_go() {
        let con = connection();
        let tickets = Tickets::new(Limits::new(1 << 30, Duration::from_millis(50)));
        let sorted = result(&con, "SELECT value FROM range(300000) ORDER BY value DESC");
        let rows = shared(vec![sorted], &con);
        rows.read_ahead(1).unwrap();
        assert!(con.reserved_memory() > 0, "a sort not fetched to its end holds its rows");
        let parked = tickets.park(rows, 1, None).unwrap();
        tickets.expire();
        assert!(tickets.take(&parked[0]).is_ok(), "within the timeout the result waits");
        let parked = tickets.park(shared(vec![result(&con, "SELECT 1")], &con), 1, None).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        tickets.expire();
        assert!(tickets.take(&parked[0]).is_err(), "past the timeout the result is gone");
    }

    #[test]
    fn past_its_budget_a_client_is_refused_with_resource_exhausted_naming_the_budget() {
        let con = connection();
        let client: Option<SocketAddr> = Some("127.0.0.1:5000".parse().unwrap());
        let other: Option<SocketAddr> = Some("127.0.0.1:5001".parse().unwrap());
        let tickets = Tickets::new(Limits::new(1 << 20, Duration::from_secs(600)));
        let rows = shared(vec![result(&con, "SELECT value FROM range(300000) ORDER BY value DESC")], &con);
        rows.read_ahead(1).unwrap();
        let held = con.reserved_memory();
        assert!(held > 1 << 20, "the sort holds {held} bytes");
        tickets.admit(client).unwrap();
        let parked = tickets.park(rows, 1, client).unwrap();
        let refused = tickets.admit(client).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(refused.message().contains("its budget"), "{}", refused.message());
        let refused = tickets.admit(other).unwrap_err();
        assert!(refused.message().contains("--max-pending-bytes 1.0 MiB"), "{}", refused.message());
        // Fetched to its end, the result holds nothing: statements run again.
        let fetching = tickets.take(&parked[0]).unwrap();
        while fetching.next_batch().unwrap().is_some() {}
        drop(fetching);
        tickets.admit(client).unwrap();
        // One client's count of results is capped too, whatever they hold.
        let small = Tickets::new(Limits::new(1 << 30, Duration::from_secs(600)));
        for _ in 0..MAX_CLIENT_UNFINISHED {
            small.admit(client).unwrap();
            small.park(shared(vec![result(&con, "SELECT 1")], &con), 1, client).unwrap();
        }
        let refused = small.admit(client).unwrap_err();
        assert!(refused.message().contains("results not fetched to their end"), "{}", refused.message());
        small.admit(other).expect("another client is not locked out");
    }

    #[test]
    fn results_that_grow_past_the_budget_after_their_answer_are_dropped_newest_first_and_their_fetch_says_why() {
        let db = swingdb::Database::in_memory().unwrap();
        let sort = |con: &Arc<swingdb::Connection>| {
            let rows = shared(vec![result(con, "SELECT value FROM range(300000) ORDER BY value DESC")], con);
            rows.read_ahead(1).unwrap();
            rows
        };
        let (first, second) = (Arc::new(db.connect().unwrap()), Arc::new(db.connect().unwrap()));
        let (older, newer) = (sort(&first), sort(&second));
        let held = first.reserved_memory();
        assert!(held > 0 && second.reserved_memory() > 0);
        // One client's budget holds one of the two sorts, not both.
        let tickets = Tickets::new(Limits::new(4 * (held * 3 / 2), Duration::from_secs(600)));
        let client: Option<SocketAddr> = Some("127.0.0.1:5000".parse().unwrap());
        let older = tickets.park(older, 1, client).unwrap();
        let newer = tickets.park(newer, 1, client).unwrap();
        tickets.shed();
        let dropped = tickets.take(&newer[0]).err().expect("the newer result is dropped");
        assert_eq!(dropped.code(), tonic::Code::ResourceExhausted);
        assert!(dropped.message().contains("dropped before its fetch") && dropped.message().contains("its budget"));
        // Its plan's tasks end at their next step, on the runtime's threads.
        let stopped = Instant::now();
        while second.reserved_memory() > 0 && stopped.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(second.reserved_memory(), 0, "dropping the result stopped its statement");
        let kept = tickets.take(&older[0]).expect("the older result is kept");
        let mut rows = 0;
        while let Some(batch) = kept.next_batch().unwrap() {
            rows += batch.num_rows();
        }
        assert_eq!(rows, 300000);
    }
}
