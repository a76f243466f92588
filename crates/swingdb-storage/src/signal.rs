//! The user's request to stop (Ctrl-C), as the front end sees it.
//!
//! A front end installs one process-wide check with [`set_signal_check`]
//! (Python: a pending SIGINT; the shell: Ctrl-C pressed). Waits of every
//! layer ask it: a running statement every few milliseconds (see
//! `swingdb::Interrupt`), a pipe while it waits for its partner. The
//! check may consume the request, so whoever sees `true` must end its wait
//! with an [`crate::ErrorKind::Interrupted`] error.

use std::sync::OnceLock;

/// Says whether the user asked to stop. Called on the thread that waits;
/// a check may only be able to answer on some threads (Python's, on its
/// main thread) and says `false` elsewhere.
pub type SignalCheck = Box<dyn Fn() -> bool + Send + Sync>;

static SIGNAL_CHECK: OnceLock<SignalCheck> = OnceLock::new();

/// Installs the process-wide signal check (once; later calls are ignored).
pub fn set_signal_check(check: SignalCheck) {
    let _ = SIGNAL_CHECK.set(check);
}

/// Whether the user asked to stop (false without an installed check).
pub fn stop_requested() -> bool {
    SIGNAL_CHECK.get().is_some_and(|check| check())
}
