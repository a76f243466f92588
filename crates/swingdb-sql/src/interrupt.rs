//! Watching a running statement from the thread that waits for it: it is
//! cancelled by [`Interrupt::interrupt`] from another thread (Python's
//! `con.interrupt()`) or a signal (Ctrl-C) noticed by the process-wide check
//! a front end installs with [`swingdb_storage::signal::set_signal_check`]; and once it has run for
//! [`PROGRESS_AFTER`], its progress (rows its scans read, of how many) is
//! shown through the display a front end sets
//! ([`Interrupt::set_progress_display`]).
//!
//! Work is cancelled only where dropping it is safe: at the await points of
//! one atomic statement (its tables are then restored and the segment files
//! it wrote deleted, as for any failed statement; a commit in progress is
//! never cut short) and while a result is fetched (the stream is dropped,
//! which stops DataFusion's tasks). The statement fails with
//! [`ErrorKind::Interrupted`]; the connection stays usable.

use crate::operators::watch::Run;
use parking_lot::{Condvar, Mutex};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};
use swingdb_storage::error::{Error, ErrorKind, Result};
use tokio::sync::Notify;

/// How often a running statement asks the signal check ([`swingdb_storage::signal`]). Ctrl-C is answered
/// within about this long (the issue asks for ~100 ms).
const SIGNAL_TICK: Duration = Duration::from_millis(25);

/// The interrupt state of one connection; cheap to clone and to send to
/// another thread, which may call [`Interrupt::interrupt`] at any time.
/// (`swingdb::Connection::interrupt_handle` shows one cancelling a statement.)
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    inner: Arc<State>,
}

#[derive(Default)]
struct State {
    requested: AtomicBool,
    wake: Notify,
    /// The running statement's; a new one for each statement, so that work
    /// of a cancelled one still winding down stays cancelled.
    run: Mutex<Arc<Run>>,
    /// What shows progress, and after how long a statement is shown.
    display: Mutex<Option<(ProgressDisplay, Duration)>>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").field("requested", &self.requested).field("run", &self.run).finish()
    }
}

/// A statement runs this long before its progress is shown (unless the
/// display asks otherwise).
pub const PROGRESS_AFTER: Duration = Duration::from_secs(2);

/// How often the progress display is redrawn.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Shows a statement's progress; called with `None` when it ends after
/// having been shown (to clear the display).
pub type ProgressDisplay = Arc<dyn Fn(Option<&ProgressReport>) + Send + Sync>;

/// How far a statement has come.
///
/// ```edition2024
/// use std::time::Duration;
/// let report = swingdb_sql::ProgressReport {
///     rows: 250, bytes: 2000, total_rows: Some(1000), elapsed: Duration::from_secs(1),
/// };
/// assert_eq!(report.seconds_left(), Some(3.0)); // 750 rows left at 250 a second
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressReport {
    /// Rows its scans have read so far.
    pub rows: u64,
    /// Bytes of those rows.
    pub bytes: u64,
    /// Rows its scans will read in all, when every scan knows its size.
    pub total_rows: Option<u64>,
    /// Time since it started.
    pub elapsed: Duration,
}

impl ProgressReport {
    /// Seconds left at the rate so far, when the total is known.
    pub fn seconds_left(&self) -> Option<f64> {
        let total = self.total_rows?;
        (self.rows > 0)
            .then(|| self.elapsed.as_secs_f64() * (total.saturating_sub(self.rows)) as f64 / self.rows as f64)
    }
}

/// What statement `run` has done so far.
fn report_of(run: &Run) -> ProgressReport {
    ProgressReport {
        rows: run.rows.load(Ordering::Relaxed),
        bytes: run.bytes.load(Ordering::Relaxed),
        total_rows: (!run.unknown_size.load(Ordering::Relaxed))
            .then(|| run.total.load(Ordering::Relaxed))
            .filter(|&t| t > 0),
        elapsed: run.started.elapsed(),
    }
}

impl Interrupt {
    /// Cancels the statement or fetch running on the connection now, if any:
    /// it fails with [`ErrorKind::Interrupted`]. With nothing running, it
    /// has no effect (the request is dropped when the next statement starts).
    pub fn interrupt(&self) {
        self.inner.requested.store(true, Ordering::SeqCst);
        self.inner.wake.notify_waiters();
    }

    /// Starts a statement: forgets a request made while nothing ran.
    pub fn clear(&self) {
        self.inner.requested.store(false, Ordering::SeqCst);
        *self.inner.run.lock() = Arc::default();
    }

    /// The running statement's state, which its plans update and watch.
    pub(crate) fn run(&self) -> Arc<Run> {
        self.inner.run.lock().clone()
    }

    /// Sets (or with `None` removes) what shows the progress of statements
    /// that run longer than `after` (usually [`PROGRESS_AFTER`]).
    pub fn set_progress_display(&self, display: Option<ProgressDisplay>, after: Duration) {
        *self.inner.display.lock() = display.map(|d| (d, after));
    }

    /// Shows the running statement's progress if it is due.
    fn show_progress(&self) {
        let Some((display, after)) = self.inner.display.lock().clone() else { return };
        let run = self.run();
        if run.started.elapsed() < after {
            return;
        }
        let mut shown = run.shown.lock();
        if shown.is_some_and(|at| at.elapsed() < PROGRESS_EVERY) {
            return;
        }
        *shown = Some(Instant::now());
        drop(shown);
        display(Some(&report_of(&run)));
    }

    /// Clears a progress display shown for the running statement.
    pub fn end_progress(&self) {
        let run = self.run();
        if run.shown.lock().take().is_some() {
            if let Some((display, _)) = self.inner.display.lock().clone() {
                display(None);
            }
        }
    }

    /// Resolves once an interrupt is requested or the signal check says stop.
    async fn requested(&self) {
        loop {
            let woken = self.inner.wake.notified();
            if self.inner.requested.swap(false, Ordering::SeqCst) {
                return;
            }
            tokio::select! {
                _ = woken => {}
                _ = Tick::default() => {
                    if swingdb_storage::signal::stop_requested() {
                        return;
                    }
                    self.show_progress();
                }
            }
        }
    }

    /// Runs `work` unless interrupted first; then `work` is dropped (see the
    /// module doc for where that is safe) and the result is an Interrupted
    /// error. `last`: the statement ends with `work` (not so for one batch of
    /// a fetch), so a progress display it showed is cleared.
    pub async fn guard<T>(&self, work: impl Future<Output = Result<T>>, last: bool) -> Result<T> {
        let outcome = tokio::select! {
            biased;
            done = work => done,
            _ = self.requested() => {
                self.run().cancelled.store(true, Ordering::SeqCst);
                Err(Error::new(ErrorKind::Interrupted, "interrupted: the statement was cancelled (nothing it did was kept)"))
            }
        };
        if last || outcome.is_err() {
            self.end_progress();
        }
        outcome
    }
}

/// A future that resolves at the next beat of the ticker thread.
///
/// Not `tokio::time::sleep`: the runtime's timers are turned by its worker
/// threads when they go idle, and a query that keeps every worker busy (the
/// very one to cancel) would hold them off for its whole run. The ticker is
/// a plain thread that beats every [`SIGNAL_TICK`] while something waits.
#[derive(Default)]
struct Tick {
    /// The beat count when first polled; ready once it has moved on.
    since: Option<u64>,
}

#[derive(Default)]
struct Beats {
    count: u64,
    waiting: Vec<Waker>,
}

fn ticker() -> &'static (Mutex<Beats>, Condvar) {
    static TICKER: OnceLock<(Mutex<Beats>, Condvar)> = OnceLock::new();
    TICKER.get_or_init(|| {
        std::thread::Builder::new()
            .name("swingdb-ticker".into())
            .spawn(|| {
                let (beats, someone_waits) = ticker();
                loop {
                    let mut state = beats.lock();
                    while state.waiting.is_empty() {
                        someone_waits.wait(&mut state);
                    }
                    drop(state);
                    std::thread::sleep(SIGNAL_TICK);
                    let mut state = beats.lock();
                    state.count += 1;
                    let woken = std::mem::take(&mut state.waiting);
                    drop(state);
                    woken.into_iter().for_each(Waker::wake);
                }
            })
            .expect("the ticker thread starts");
        (Mutex::default(), Condvar::new())
    })
}

impl Future for Tick {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let (beats, someone_waits) = ticker();
        let mut state = beats.lock();
        let since = *self.since.get_or_insert(state.count);
        if state.count > since {
            return Poll::Ready(());
        }
        if !state.waiting.iter().any(|w| w.will_wake(cx.waker())) {
            state.waiting.push(cx.waker().clone());
        }
        someone_waits.notify_one();
        Poll::Pending
    }
}
