//! Results waiting for their `DoGet`. A statement runs once, when its
//! `GetFlightInfo` arrives (so that a statement with effects never runs
//! twice); its result waits here under an unguessable ticket, which one
//! `DoGet` takes. A ticket nobody fetches expires.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a result waits for its fetch.
pub const TICKET_LIFETIME: Duration = Duration::from_secs(600);

/// The waiting results.
#[derive(Default)]
pub struct Tickets {
    waiting: Mutex<HashMap<Vec<u8>, (Instant, swingdb::QueryResult)>>,
}

impl Tickets {
    /// Parks `result`; returns its ticket. Expired results are dropped on the way.
    pub fn park(&self, result: swingdb::QueryResult) -> Result<Vec<u8>, getrandom::Error> {
        let mut ticket = vec![0u8; 16];
        getrandom::fill(&mut ticket)?;
        let mut waiting = self.waiting.lock().unwrap();
        waiting.retain(|_, (parked, _)| parked.elapsed() < TICKET_LIFETIME);
        waiting.insert(ticket.clone(), (Instant::now(), result));
        Ok(ticket)
    }

    /// Takes the result of `ticket`, or None when it is unknown, already
    /// taken, or expired.
    pub fn take(&self, ticket: &[u8]) -> Option<swingdb::QueryResult> {
        let (parked, result) = self.waiting.lock().unwrap().remove(ticket)?;
        (parked.elapsed() < TICKET_LIFETIME).then_some(result)
    }
}
