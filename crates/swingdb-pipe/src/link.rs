//! The control connection to a pipe's partner, as a [`Link`]: every read and
//! write waits at most the pipe's timeout of silence, and ends as soon as the
//! user asks to stop (Ctrl-C, see [`swingdb_storage::signal`]).
//!
//! The socket itself times out every [`TICK`]; the link then asks whether
//! the user wants to stop and whether the partner has been silent for too
//! long, and otherwise goes on waiting. Data sockets are links too; they are
//! read and written on threads of their own, where a front end may not see
//! Ctrl-C (Python sees it on its main thread only), so the statement that
//! waits for them ends them by shutting their sockets down (see
//! [`super::table`] and the exporting statement).

use std::fmt;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// How often a wait on the link asks whether to stop.
const TICK: Duration = Duration::from_millis(50);

/// The shortest timeout of silence a link accepts: a partner gets at least
/// this long to say its next word.
const MIN_PATIENCE: Duration = Duration::from_secs(1);

/// The error of a wait the user stopped (inside an [`io::Error`] of kind
/// `Other`: not `Interrupted`, which `read_exact` and the like retry).
#[derive(Debug)]
pub struct Stopped;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stopped by the user")
    }
}

impl std::error::Error for Stopped {}

/// Whether `e` is the error of a wait the user stopped.
pub fn is_stopped(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Stopped>())
}

/// A connected control socket with the pipe's patience.
#[derive(Debug)]
pub struct Link {
    socket: UnixStream,
    /// Longest silence accepted from the partner (`None`: for ever).
    patience: Option<Duration>,
}

impl Link {
    /// `socket` waiting at most `patience` (at least a second) for each
    /// read or write to make progress.
    pub fn new(socket: UnixStream, patience: Option<Duration>) -> io::Result<Self> {
        socket.set_read_timeout(Some(TICK))?;
        socket.set_write_timeout(Some(TICK))?;
        Ok(Self { socket, patience: patience.map(|p| p.max(MIN_PATIENCE)) })
    }

    /// Changes the longest silence accepted from now on.
    pub fn set_patience(&mut self, patience: Option<Duration>) {
        self.patience = patience.map(|p| p.max(MIN_PATIENCE));
    }

    /// The socket (for descriptors, credentials and shutdown).
    pub fn socket(&self) -> &UnixStream {
        &self.socket
    }

    /// Runs `op`, one read or write of the socket, again each time it times
    /// out, until it makes progress or fails; fails with `TimedOut` once the
    /// partner has been silent for the patience, with [`Stopped`] once the
    /// user asks to stop.
    pub fn wait<T>(&self, mut op: impl FnMut(&UnixStream) -> io::Result<T>) -> io::Result<T> {
        let started = Instant::now();
        loop {
            match op(&self.socket) {
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                    if swingdb_storage::signal::stop_requested() {
                        return Err(io::Error::other(Stopped));
                    }
                    if self.patience.is_some_and(|p| started.elapsed() >= p) {
                        return Err(io::ErrorKind::TimedOut.into());
                    }
                }
                other => return other,
            }
        }
    }
}

impl Read for Link {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.wait(|mut s| s.read(buf))
    }
}

impl Write for Link {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wait(|mut s| s.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silent_partner_times_out_after_the_patience_and_data_arrives_whole() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let mut link = Link::new(a, Some(Duration::from_secs(1))).unwrap();
        let started = Instant::now();
        let mut byte = [0u8; 1];
        let err = link.read(&mut byte).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_secs(1) && started.elapsed() < Duration::from_secs(3));
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            b.write_all(b"hello").unwrap();
        });
        let mut got = [0u8; 5];
        link.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"hello");
        writer.join().unwrap();
    }
}
