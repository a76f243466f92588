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

use arrow_flight::error::FlightError;
use arrow_flight::sql::{Any, TicketStatementQuery};
use arrow_flight::{CancelStatus, FlightInfo};
use futures::Stream;
use prost::Message;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use swingdb::arrow::datatypes::{Schema, SchemaRef};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{Interrupt, QueryResult};
use tonic::Status;

/// How long a result waits for its fetch.
pub const TICKET_LIFETIME: Duration = Duration::from_secs(600);

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
    interrupt: Interrupt,
    cancelled: AtomicBool,
}

/// Pieces computed ahead, then the results they came from.
struct Rows {
    held: VecDeque<RecordBatch>,
    results: VecDeque<QueryResult>,
}

impl Rows {
    /// Computes the next batch into `held`, cut into the pieces one Flight
    /// message each carries (see [`swingdb::cut_into_messages`]): the
    /// endpoints share a large batch too. False at the end of the results.
    fn compute(&mut self) -> swingdb::Result<bool> {
        while let Some(front) = self.results.front_mut() {
            match front.next_batch()? {
                Some(batch) => {
                    self.held.extend(swingdb::cut_into_messages(&batch));
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
    /// The rows of `results`, cancelled through `interrupt`.
    pub fn new(results: Vec<QueryResult>, interrupt: Interrupt) -> Self {
        let schema = results.first().map_or_else(|| Arc::new(Schema::empty()), |first| first.schema());
        let rows = Rows { held: VecDeque::new(), results: results.into() };
        Self { schema, rows: Mutex::new(rows), interrupt, cancelled: AtomicBool::new(false) }
    }

    /// The columns of the rows.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Computes at least `pieces` pieces ahead (one message each); tells
    /// whether the rows may go on past them (false: all are held). (Blocks.)
    pub fn read_ahead(&self, pieces: usize) -> swingdb::Result<bool> {
        let mut rows = self.rows.lock().unwrap();
        while rows.held.len() < pieces {
            if !rows.compute()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The next piece of the rows (at most about one Flight message), or
    /// `None` at their end. (Blocks while the statement computes it.)
    pub fn next_batch(&self) -> swingdb::Result<Option<RecordBatch>> {
        let mut rows = self.rows.lock().unwrap();
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(swingdb::Error::new(swingdb::ErrorKind::Interrupted, "the query was cancelled"));
        }
        rows.next()
    }

    /// Cancels the statement: its fetches fail from now on.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.interrupt.interrupt();
    }
}

/// A result waiting for its endpoints' fetches.
struct Waiting {
    parked: Instant,
    shared: Arc<Shared>,
    /// Which endpoints have not been fetched yet.
    unclaimed: Vec<bool>,
}

/// The waiting results, and those being fetched (for cancelling them).
#[derive(Default)]
pub struct Tickets {
    waiting: Mutex<HashMap<Vec<u8>, Waiting>>,
    fetching: Mutex<HashMap<Vec<u8>, Weak<Shared>>>,
}

impl Tickets {
    /// Parks `rows` for `endpoints` streams; returns one ticket per
    /// endpoint. Expired results are dropped on the way.
    pub fn park(&self, rows: Shared, endpoints: usize) -> Result<Vec<Vec<u8>>, Status> {
        let endpoints = endpoints.clamp(1, u8::MAX as usize);
        let id = random_id()?;
        let shared = Arc::new(rows);
        let expired: Vec<Waiting> = {
            let mut waiting = self.waiting.lock().unwrap();
            let old: Vec<Vec<u8>> =
                waiting.iter().filter(|(_, w)| w.parked.elapsed() >= TICKET_LIFETIME).map(|(k, _)| k.clone()).collect();
            let expired = old.into_iter().filter_map(|k| waiting.remove(&k)).collect();
            waiting.insert(id.clone(), Waiting { parked: Instant::now(), shared, unclaimed: vec![true; endpoints] });
            expired
        };
        // Dropped outside the lock: dropping a result may wait for its plan.
        drop(expired);
        self.fetching.lock().unwrap().retain(|_, shared| shared.strong_count() > 0);
        Ok((0..endpoints).map(|i| [id.as_slice(), &[i as u8]].concat()).collect())
    }

    /// Takes the stream of `ticket`, or None when it is unknown, already
    /// taken, or expired.
    pub fn take(&self, ticket: &[u8]) -> Option<Arc<Shared>> {
        let (id, endpoint) = split(ticket)?;
        let mut waiting = self.waiting.lock().unwrap();
        let entry = waiting.get_mut(id)?;
        if entry.parked.elapsed() >= TICKET_LIFETIME || !entry.unclaimed.get(endpoint).copied().unwrap_or(false) {
            return None;
        }
        entry.unclaimed[endpoint] = false;
        let shared = entry.shared.clone();
        if entry.unclaimed.iter().all(|u| !u) {
            waiting.remove(id);
        }
        drop(waiting);
        self.fetching.lock().unwrap().insert(id.to_vec(), Arc::downgrade(&shared));
        Some(shared)
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
        let waiting = self.waiting.lock().unwrap().remove(id);
        let fetching = self.fetching.lock().unwrap().remove(id).and_then(|weak| weak.upgrade());
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

/// A stream of the rows of `shared`, a message a piece, read on a blocking
/// thread as the client takes them (two messages ahead at most).
pub fn batches(shared: Arc<Shared>) -> impl Stream<Item = Result<RecordBatch, FlightError>> + Send {
    let (send, receive) = tokio::sync::mpsc::channel(2);
    let guard = CancelOnDrop { shared: shared.clone(), ended: false };
    tokio::task::spawn_blocking(move || loop {
        // A panic (a bug) becomes an error: ending the stream instead would
        // hand the client a shortened result as if it were whole.
        let next =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.next_batch())).unwrap_or_else(|_| {
                Err(swingdb::Error::internal("internal error (please report): panic while computing a result"))
            });
        let item = match next {
            Ok(Some(piece)) => Ok(piece),
            Ok(None) => return,
            Err(e) => Err(FlightError::Tonic(Box::new(crate::service::status(e)))),
        };
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(con: &swingdb::Connection, sql: &str) -> QueryResult {
        con.execute(sql, &[]).unwrap()
    }

    fn shared(results: Vec<QueryResult>, con: &swingdb::Connection) -> Shared {
        Shared::new(results, con.interrupt_handle())
    }

    #[test]
    fn a_query_of_several_endpoints_is_cancelled_by_its_flight_info_once() {
        use arrow_flight::sql::ProstMessageExt;
        let con = swingdb::Database::in_memory().unwrap().connect().unwrap();
        let tickets = Tickets::default();
        let parked = tickets.park(shared(vec![result(&con, "SELECT * FROM range(3)")], &con), 3).unwrap();
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
    fn reading_ahead_tells_whether_rows_may_follow_and_keeps_them_in_order() {
        let con = swingdb::Database::in_memory().unwrap().connect().unwrap();
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
        let con = swingdb::Database::in_memory().unwrap().connect().unwrap();
        let tickets = Tickets::default();
        let parked = tickets
            .park(shared(vec![result(&con, "SELECT * FROM range(3)"), result(&con, "SELECT * FROM range(4)")], &con), 2)
            .unwrap();
        assert_eq!(parked.len(), 2);
        let first = tickets.take(&parked[0]).unwrap();
        assert!(tickets.take(&parked[0]).is_none(), "a ticket is taken once");
        let second = tickets.take(&parked[1]).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let mut rows = 0;
        while let Some(batch) = first.next_batch().unwrap() {
            rows += batch.num_rows();
        }
        assert_eq!(rows, 7, "every row of both results");
        assert!(second.next_batch().unwrap().is_none());
        assert!(tickets.take(b"short").is_none());
    }

    #[test]
    fn a_cancelled_result_fails_its_fetch_and_an_unknown_one_is_not_found() {
        let con = swingdb::Database::in_memory().unwrap().connect().unwrap();
        let tickets = Tickets::default();
        let parked = tickets.park(shared(vec![result(&con, "SELECT * FROM range(3)")], &con), 1).unwrap();
        let fetching = tickets.take(&parked[0]).unwrap();
        assert_eq!(tickets.cancel(&parked[0]).unwrap(), CancelStatus::Cancelled);
        assert_eq!(fetching.next_batch().unwrap_err().kind(), swingdb::ErrorKind::Interrupted);
        assert_eq!(tickets.cancel(&parked[0]).unwrap_err().code(), tonic::Code::NotFound);
        let waiting = tickets.park(shared(vec![result(&con, "SELECT 1")], &con), 1).unwrap();
        assert_eq!(tickets.cancel(&waiting[0]).unwrap(), CancelStatus::Cancelled);
        assert!(tickets.take(&waiting[0]).is_none(), "a cancelled result is gone");
    }
}
