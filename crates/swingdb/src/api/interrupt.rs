//! Cancelling a running statement: [`Interrupt::interrupt`] from another
//! thread (Python's `con.interrupt()`), or a signal (Ctrl-C) noticed by the
//! process-wide check a front end installs with [`set_signal_check`].
//!
//! Work is cancelled only where dropping it is safe: at the await points of
//! one atomic statement (its tables are then restored and the segment files
//! it wrote deleted, as for any failed statement; a commit in progress is
//! never cut short) and while a result is fetched (the stream is dropped,
//! which stops DataFusion's tasks). The statement fails with
//! [`ErrorKind::Interrupted`]; the connection stays usable.

use crate::error::{Error, ErrorKind, Result};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::sync::Notify;

/// How often a running statement asks the signal check. Ctrl-C is answered
/// within about this long (the issue asks for ~100 ms).
const SIGNAL_TICK: Duration = Duration::from_millis(25);

/// A process-wide check, asked every [`SIGNAL_TICK`] while a statement runs,
/// that says whether the user asked to stop (Python: a pending SIGINT; the
/// shell: Ctrl-C). Called on the thread that runs the statement.
pub type SignalCheck = Box<dyn Fn() -> bool + Send + Sync>;

static SIGNAL_CHECK: OnceLock<SignalCheck> = OnceLock::new();

/// Installs the process-wide signal check (once; later calls are ignored).
pub fn set_signal_check(check: SignalCheck) {
    let _ = SIGNAL_CHECK.set(check);
}

/// The interrupt state of one connection; cheap to clone and to send to
/// another thread, which may call [`Interrupt::interrupt`] at any time.
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    inner: Arc<State>,
}

#[derive(Debug, Default)]
struct State {
    requested: AtomicBool,
    wake: Notify,
    /// Raised when the running statement is cancelled; its plans watch it
    /// (see [`crate::sql::cancellable`]). A new one for each statement, so
    /// that work of a cancelled one still winding down stays cancelled.
    cancelled: Mutex<Arc<AtomicBool>>,
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
    pub(crate) fn clear(&self) {
        self.inner.requested.store(false, Ordering::SeqCst);
        *self.inner.cancelled.lock().unwrap() = Arc::default();
    }

    /// The flag the plans of the running statement watch.
    pub(crate) fn cancelled_flag(&self) -> Arc<AtomicBool> {
        self.inner.cancelled.lock().unwrap().clone()
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
                    if SIGNAL_CHECK.get().is_some_and(|check| check()) {
                        return;
                    }
                }
            }
        }
    }

    /// Runs `work` unless interrupted first; then `work` is dropped (see the
    /// module doc for where that is safe) and the result is an Interrupted error.
    pub(crate) async fn guard<T>(&self, work: impl Future<Output = Result<T>>) -> Result<T> {
        tokio::select! {
            biased;
            done = work => done,
            _ = self.requested() => {
                self.cancelled_flag().store(true, Ordering::SeqCst);
                Err(Error::new(ErrorKind::Interrupted, "interrupted: the statement was cancelled (nothing it did was kept)"))
            }
        }
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
                    let mut state = beats.lock().unwrap();
                    while state.waiting.is_empty() {
                        state = someone_waits.wait(state).unwrap();
                    }
                    drop(state);
                    std::thread::sleep(SIGNAL_TICK);
                    let mut state = beats.lock().unwrap();
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
        let mut state = beats.lock().unwrap();
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
