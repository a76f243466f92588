//! Failpoints: named places in the commit, publish, GC, lease, compaction and
//! sharing and pipe paths where a test can make the process wait, fail or die.
//!
//! They exist only in builds with the `failpoints` feature (the torture suite's
//! worker and the Rust tests); in every other build [`hit`] is an inlined
//! `Ok(())` and the names cost nothing.
//!
//! Configuration, read once from the environment variable `SWINGDB_FAILPOINTS`
//! and changeable with [`set`]: `name=action;name=action`, where an action is
//! `[P%][N*]kind` with kind one of `delay(ms)`, `error`, `panic`, `abort`, `off`; `P%`
//! fires with probability P, `N*` only the first N times.
//! Example: `publish.before_link=delay(500);gc.before_unlink=10%abort`.
//!
//! The grammar is the `fail` crate's (as TiKV uses it); the crate itself is
//! not used: the torture suite configures its many worker processes through
//! the environment, and there the `fail` crate offers no action that kills
//! the process at once (its `panic` unwinds, running destructors that tidy
//! files up, which a crash never does; a callback that aborts can only be
//! set from code). Keeping the names in one list (`NAMES`) also lets a test
//! that sets an unknown one fail instead of silently testing nothing.

use crate::error::Result;

/// Every failpoint name, in the order a commit passes them (the torture suite
/// drives each in turn).
pub const NAMES: &[&str] = &[
    "lease.after_create",
    "segment.after_write",
    // A load that spooled rows to a scratch file: its segment written out,
    // the scratch file not yet deleted.
    "spool.after_write_out",
    "compact.before_write",
    "commit.after_lock",
    // Before a version is published: its record is appended to the log, or
    // a new log beginning with it is linked.
    "publish.before_link",
    // The commit log (storage/dir/log.rs): a record half written (an abort
    // there leaves a torn record), written but not synced; a new log linked
    // but its directory not synced.
    "log.mid_append",
    "log.before_sync",
    "log.after_link",
    "publish.after_link",
    "commit.before_unlock",
    "gc.after_lock",
    "gc.before_unlink",
    "pin.after_read_latest",
    // Sharing (crate::share): a built snapshot before it is named, an attacher
    // holding a snapshot's use lock before and after linking, a sweeper about
    // to remove a snapshot it found abandoned.
    "share.before_name",
    "attach.after_lock",
    "attach.before_publish",
    "sweep.before_remove",
    // Pipes (crate::pipe): a newcomer that connected to a waiting partner
    // before it deletes the endpoint's name, a waiter before it waits, an
    // exporter after the hellos and before it reports what it sent, an importer
    // after linking handed-over segments and before it confirms streams.
    "pipe.after_connect",
    "pipe.waiting",
    "pipe.export.after_hello",
    "pipe.export.before_sent",
    "pipe.import.after_link",
    "pipe.import.before_done",
    // Sequences (storage::sequence): a taker holding the counter's lock
    // before it writes the values it took, and after they are synced.
    "sequence.before_write",
    "sequence.after_sync",
    // Not a failure but damage: when it fires (any failing action), one byte of
    // a large write to a pipe's data stream goes out flipped (proves verify=1).
    "pipe.corrupt_stream",
];

/// The failpoints a commit passes (the crash scenario aborts at each in turn).
#[cfg(feature = "failpoints")]
pub fn commit_path() -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .copied()
        .filter(|n| !["share.", "attach.", "sweep.", "pipe.", "sequence."].iter().any(|p| n.starts_with(p)))
}

#[cfg(feature = "failpoints")]
mod imp {
    use crate::error::{Error, Result};
    use parking_lot::Mutex;
    use std::collections::HashMap;
    use std::sync::LazyLock;

    #[derive(Debug, Clone)]
    enum Kind {
        Delay(u64),
        Error,
        /// Unwinds as a bug would, running destructors (proves a panic inside
        /// a statement leaves the process's locks usable).
        Panic,
        Abort,
    }

    #[derive(Debug, Clone)]
    struct Action {
        percent: u32,
        remaining: Option<u64>,
        kind: Kind,
    }

    fn parse_action(text: &str) -> Option<Option<Action>> {
        let mut rest = text.trim();
        if rest == "off" {
            return Some(None);
        }
        let mut percent = 100;
        if let Some((p, r)) = rest.split_once('%') {
            percent = p.trim().parse().ok()?;
            rest = r;
        }
        let mut remaining = None;
        if let Some((n, r)) = rest.split_once('*') {
            remaining = Some(n.trim().parse().ok()?);
            rest = r;
        }
        let kind = match rest.trim() {
            "error" => Kind::Error,
            "panic" => Kind::Panic,
            "abort" => Kind::Abort,
            other => Kind::Delay(other.strip_prefix("delay(")?.strip_suffix(')')?.parse().ok()?),
        };
        Some(Some(Action { percent, remaining, kind }))
    }

    static POINTS: LazyLock<Mutex<HashMap<String, Action>>> = LazyLock::new(|| {
        let mut map = HashMap::new();
        for item in std::env::var("SWINGDB_FAILPOINTS").unwrap_or_default().split(';').filter(|s| !s.trim().is_empty())
        {
            let (name, action) =
                item.split_once('=').unwrap_or_else(|| panic!("SWINGDB_FAILPOINTS: '{item}' is not name=action"));
            match parse_action(action) {
                Some(Some(a)) => {
                    map.insert(name.trim().to_string(), a);
                }
                Some(None) => {}
                None => panic!("SWINGDB_FAILPOINTS: bad action '{action}' for {name}"),
            }
        }
        Mutex::new(map)
    });

    fn chance(percent: u32) -> bool {
        if percent >= 100 {
            return true;
        }
        getrandom::u32().expect("random numbers") % 100 < percent
    }

    pub fn set(name: &str, action: &str) {
        let parsed = parse_action(action).unwrap_or_else(|| panic!("bad failpoint action '{action}'"));
        let mut points = POINTS.lock();
        match parsed {
            Some(a) => points.insert(name.to_string(), a),
            None => points.remove(name),
        };
    }

    pub fn hit(name: &str) -> Result<()> {
        let kind = {
            let mut points = POINTS.lock();
            let Some(action) = points.get_mut(name) else { return Ok(()) };
            if action.remaining == Some(0) || !chance(action.percent) {
                return Ok(());
            }
            if let Some(n) = action.remaining.as_mut() {
                *n -= 1;
            }
            action.kind.clone()
        };
        match kind {
            Kind::Delay(ms) => {
                std::thread::sleep(std::time::Duration::from_millis(ms));
                Ok(())
            }
            Kind::Error => Err(Error::operational(format!("failpoint {name}: injected error"))),
            Kind::Panic => panic!("failpoint {name}: injected panic"),
            Kind::Abort => std::process::abort(),
        }
    }
}

/// Passes failpoint `name`: waits, fails or aborts the process there if a test
/// configured it so. Always `Ok(())` in builds without the `failpoints` feature.
#[inline(always)]
pub fn hit(name: &str) -> Result<()> {
    debug_assert!(NAMES.contains(&name), "unknown failpoint {name}");
    #[cfg(feature = "failpoints")]
    return imp::hit(name);
    #[cfg(not(feature = "failpoints"))]
    Ok(())
}

/// Configures failpoint `name` (`off` clears it); test builds only.
#[cfg(feature = "failpoints")]
pub fn set(name: &str, action: &str) {
    assert!(NAMES.contains(&name), "unknown failpoint {name}");
    imp::set(name, action)
}
