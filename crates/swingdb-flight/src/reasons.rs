//! Why things a client may still name went away (a result dropped before
//! its fetch, a prepared statement closed to make room), kept for the call
//! that names one later, so that its error says why. What a client sends is
//! untrusted: reasons are kept for [`KEPT`] and at most [`MOST`] of them.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How long a reason is kept.
pub const KEPT: Duration = Duration::from_secs(600);

/// At most this many reasons are kept; past it new ones are not.
pub const MOST: usize = 4096;

/// Reasons by id, with when each was noted.
pub struct Reasons<V> {
    by_id: Mutex<HashMap<Vec<u8>, (Instant, V)>>,
}

impl<V> Default for Reasons<V> {
    fn default() -> Self {
        Self { by_id: Mutex::default() }
    }
}

impl<V: Clone> Reasons<V> {
    /// Notes why each of `gone` (ids) went, forgetting reasons older than [`KEPT`].
    pub fn note(&self, gone: impl IntoIterator<Item = (Vec<u8>, V)>) {
        let mut by_id = self.by_id.lock();
        by_id.retain(|_, (at, _)| at.elapsed() < KEPT);
        for (id, why) in gone {
            if by_id.len() < MOST {
                by_id.insert(id, (Instant::now(), why));
            }
        }
    }

    /// Why `id` went, if that was noted (and not long ago).
    pub fn of(&self, id: &[u8]) -> Option<V> {
        self.by_id.lock().get(id).map(|(_, why)| why.clone())
    }
}
