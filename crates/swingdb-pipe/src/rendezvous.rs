//! The rendezvous directory: where the two ends of a pipe find each other.
//!
//! ```text
//! <runtime home>/pipes/          0700, the user's own (see share::home)
//!   rendezvous.lock              flock()ed exclusively around every match, wait and sweep
//!   <pipe name>/                 one directory per pipe name with someone waiting
//!     <role>-<nanos>-<pid>-<id>.sock   a Unix socket: one side (export or import) waiting for
//!                                      its partner; one socket per transfer
//! ```
//!
//! Arrival, under the lock: the newcomer connects to the oldest socket of the
//! opposite role and deletes its name, which makes that endpoint its own: no
//! third process can reach it any more. If there is none, it binds a socket of
//! its own role, lets go of the lock and waits for one connection.
//!
//! Interleavings with other processes (all name changes happen under the lock,
//! and no socket name is ever used twice: it holds the creator's pid, the time
//! in nanoseconds and 64 random bits):
//! - Two exporters and two importers of one name: each socket is taken by one
//!   partner only (taken = name deleted under the lock), so transfers pair up
//!   one to one, in order of arrival, and never mix.
//! - A waiter whose time runs out (or whose user stops it) takes the lock: if its socket is still named,
//!   nobody took it and it deletes it and fails; if the name is gone, a partner
//!   connected under the lock before deleting it, so the connection is already
//!   queued and `accept` returns it at once (a stopped waiter then closes it,
//!   and its partner hears that it went away). Either way no partner is left
//!   connected to a socket nobody will accept on.
//! - A waiter that dies (crash, kill -9) leaves its socket file behind; the
//!   kernel refuses connections to it (no listener), and the next arrival or
//!   sweep deletes it. A partner that dies between connecting and deleting the
//!   name leaves a connection that ends at once; the waiter reports the partner
//!   as gone.
//! - Pipe directories are made and removed (only when empty) under the lock.
//! - Sweeps remove only what is proven dead: a socket whose pid is gone
//!   (`ESRCH`), or that refuses connections (no listener); names swingdb did
//!   not make are left alone. Sockets hold no data: a wrong removal would fail
//!   a transfer, never lose rows.
//!
//! Socket paths are reached through `/proc/self/fd/<dir>/<file>`: a Unix
//! socket address holds at most 107 bytes, and runtime homes (pytest's
//! temporary directories, say) plus a 128-byte pipe name can be longer.

use super::Role;
use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use swingdb_share::home::{process_gone, Home};
use swingdb_storage::dir::files::{ensure_private_dir, flock_exclusive_within, io_err, open_lock_file, random_id};
use swingdb_storage::error::{Error, ErrorKind, Result};

const PIPES: &str = "pipes";
const LOCK: &str = "rendezvous.lock";
const LOCK_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a waiter asks whether the user wants to stop (Ctrl-C).
const STOP_TICK: Duration = Duration::from_millis(50);

/// The user's rendezvous directory.
#[derive(Debug, Clone)]
pub struct Rendezvous {
    root: PathBuf,
}

/// Someone waiting at the rendezvous (see [`Rendezvous::waiting`]).
///
/// ```edition2024
/// // Nobody waits on a pipe of this name, so it is not listed.
/// let name = format!("doc-waiting-{}", std::process::id());
/// assert!(swingdb_pipe::waiting_pipes()?.iter().all(|w| w.name != name));
/// # Ok::<(), swingdb_storage::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct WaitingPipe {
    /// The pipe's name.
    pub name: String,
    /// Which end is waiting.
    pub role: Role,
    /// The waiting process.
    pub pid: u32,
    /// Seconds it has waited so far.
    pub waited: f64,
}

/// The two ends of a pipe, connected.
pub struct Met {
    /// The control connection.
    pub stream: UnixStream,
}

/// A directory opened `O_PATH`, to reach sockets by a short path.
struct DirHandle(File);

impl DirHandle {
    fn open(path: &Path) -> Result<Self> {
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY)
            .open(path)
            .map_err(io_err("opening", path))?;
        Ok(Self(file))
    }

    fn short_path(&self, file: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}/{file}", self.0.as_raw_fd()))
    }
}

fn socket_name(role: Role) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
    format!("{}-{nanos:020}-{}-{}.sock", role.as_str(), std::process::id(), random_id())
}

/// (role, arrival time in ns, pid) of a socket's file name.
fn parse_socket_name(file: &str) -> Option<(Role, u128, u32)> {
    let stem = file.strip_suffix(".sock")?;
    let mut parts = stem.splitn(4, '-');
    let role = Role::named(parts.next()?)?;
    let nanos = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    Some((role, nanos, pid))
}

impl Rendezvous {
    /// The rendezvous directory of the runtime home `home`, made if missing.
    pub fn of(home: &Home) -> Result<Self> {
        let root = home.root().join(PIPES);
        ensure_private_dir(&root)?;
        Ok(Self { root })
    }

    /// The user's rendezvous directory in their runtime home.
    pub fn user() -> Result<Self> {
        Self::of(&Home::runtime()?)
    }

    fn lock(&self) -> Result<File> {
        let path = self.root.join(LOCK);
        let file =
            open_lock_file(&path)?.ok_or_else(|| Error::operational(format!("cannot create {}", path.display())))?;
        if !flock_exclusive_within(&file, LOCK_TIMEOUT).map_err(io_err("locking", &path))? {
            return Err(Error::operational(format!(
                "{} stayed locked for {LOCK_TIMEOUT:?}; is a swingdb process hung?",
                path.display()
            )));
        }
        Ok(file)
    }

    /// Meets the partner of `role` on pipe `name`: joins one that waits, or
    /// waits for one for at most `timeout` (`None`: for ever) or until the
    /// user asks to stop ([`swingdb_storage::signal`]; an `Interrupted` error).
    pub fn meet(&self, name: &str, role: Role, timeout: Option<Duration>) -> Result<Met> {
        let dir_path = self.root.join(name);
        let guard = self.lock()?;
        ensure_private_dir(&dir_path)?;
        let dir = DirHandle::open(&dir_path)?;
        let mut waiting: Vec<(u128, String)> = fs::read_dir(&dir_path)
            .map_err(io_err("listing", &dir_path))?
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_str()?.to_string();
                let (r, nanos, _) = parse_socket_name(&file)?;
                (r == role.partner()).then_some((nanos, file))
            })
            .collect();
        waiting.sort();
        for (_, file) in waiting {
            match UnixStream::connect(dir.short_path(&file)) {
                Ok(stream) => {
                    // Taken: nobody else can reach this endpoint from now on.
                    let _ = fs::remove_file(dir_path.join(&file));
                    // The pipe's directory goes with its last endpoint (only when empty).
                    let _ = fs::remove_dir(&dir_path);
                    swingdb_storage::failpoint::hit("pipe.after_connect")?;
                    drop(guard);
                    return Ok(Met { stream });
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::ECONNREFUSED | libc::ENOENT)) => {
                    // Its process is gone: nobody will ever accept there.
                    let _ = fs::remove_file(dir_path.join(&file));
                }
                Err(e) => {
                    return Err(Error::io(
                        format!("connecting to pipe '{name}' at {}", dir_path.join(&file).display()),
                        e,
                    ))
                }
            }
        }
        let file = socket_name(role);
        let listener = UnixListener::bind(dir.short_path(&file))
            .map_err(io_err("creating the endpoint", &dir_path.join(&file)))?;
        drop(guard);
        swingdb_storage::failpoint::hit("pipe.waiting")?;
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let wait = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let stopped = swingdb_storage::signal::stop_requested();
            if stopped || wait.is_some_and(|w| w.is_zero()) {
                let guard = self.lock()?;
                let still_waiting = fs::symlink_metadata(dir_path.join(&file)).is_ok();
                let gave_up = || {
                    if stopped {
                        let what =
                            format!("pipe '{name}': interrupted while waiting for the {}", role.partner().describe());
                        return Error::new(ErrorKind::Interrupted, what);
                    }
                    Error::new(
                        ErrorKind::Operational,
                        format!(
                            "pipe '{name}': no {} arrived within {:.1} s; start the other side (or raise ?timeout=, in seconds)",
                            role.partner().describe(),
                            timeout.unwrap_or_default().as_secs_f64()
                        ),
                    )
                };
                if still_waiting {
                    let _ = fs::remove_file(dir_path.join(&file));
                    let _ = fs::remove_dir(&dir_path);
                    drop(guard);
                    return Err(gave_up());
                }
                drop(guard);
                // Taken while we gave up: the partner's connection is queued.
                // A timeout takes it; a user who stopped closes it at once,
                // and the partner hears that this side went away.
                let met = accept_within(&listener, Duration::from_secs(5), name)?;
                return if stopped { Err(gave_up()) } else { Ok(met) };
            }
            let step = wait.map_or(STOP_TICK, |w| w.min(STOP_TICK));
            if poll_readable(&listener, step).map_err(|e| Error::io(format!("waiting on pipe '{name}'"), e))? {
                return accept_within(&listener, Duration::from_secs(5), name);
            }
        }
    }

    /// Everyone waiting at the rendezvous now, oldest first (dead waiters are swept).
    pub fn waiting(&self) -> Result<Vec<WaitingPipe>> {
        self.sweep()?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos();
        let mut found = Vec::new();
        for pipe in fs::read_dir(&self.root).map_err(io_err("listing", &self.root))?.flatten() {
            let Some(name) = pipe.file_name().to_str().map(str::to_string) else { continue };
            let Ok(entries) = fs::read_dir(pipe.path()) else { continue };
            for entry in entries.flatten() {
                if let Some((role, nanos, pid)) = entry.file_name().to_str().and_then(parse_socket_name) {
                    found.push((
                        nanos,
                        WaitingPipe { name: name.clone(), role, pid, waited: now.saturating_sub(nanos) as f64 / 1e9 },
                    ));
                }
            }
        }
        found.sort_by_key(|a| a.0);
        Ok(found.into_iter().map(|(_, w)| w).collect())
    }

    /// Deletes the sockets of processes that are gone, and empty pipe directories.
    pub fn sweep(&self) -> Result<()> {
        let _guard = self.lock()?;
        for pipe in fs::read_dir(&self.root).map_err(io_err("listing", &self.root))?.flatten() {
            if !pipe.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if let Ok(entries) = fs::read_dir(pipe.path()) {
                for entry in entries.flatten() {
                    // Only the socket of a process proven gone (ESRCH) is
                    // removed; a name swingdb did not make is left alone.
                    let pid = entry.file_name().to_str().and_then(parse_socket_name).map(|(_, _, pid)| pid);
                    if pid.is_some_and(|p| process_gone(p as i32)) {
                        let _ = fs::remove_file(entry.path());
                    }
                }
            }
            let _ = fs::remove_dir(pipe.path());
        }
        Ok(())
    }
}

/// Waits up to `timeout` for `listener` to have a connection.
fn poll_readable(listener: &UnixListener, timeout: Duration) -> io::Result<bool> {
    let mut fd = libc::pollfd { fd: listener.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd for the duration of the call.
    let rc = unsafe { libc::poll(&mut fd, 1, ms) };
    match rc {
        -1 => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
        0 => Ok(false),
        _ => Ok(true),
    }
}

fn accept_within(listener: &UnixListener, timeout: Duration, name: &str) -> Result<Met> {
    if !poll_readable(listener, timeout).map_err(|e| Error::io(format!("waiting on pipe '{name}'"), e))? {
        return Err(Error::operational(format!("pipe '{name}': the partner that took this endpoint never connected")));
    }
    let (stream, _) = listener.accept().map_err(|e| Error::io(format!("accepting on pipe '{name}'"), e))?;
    Ok(Met { stream })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn home() -> (tempfile::TempDir, Rendezvous) {
        let tmp = tempfile::tempdir().unwrap();
        // A long path: longer than a socket address can hold with the pipe name added.
        let deep = tmp.path().join("a".repeat(60)).join("b".repeat(60));
        fs::create_dir_all(&deep).unwrap();
        let r = Rendezvous::of(&Home::at(&deep)).unwrap();
        (tmp, r)
    }

    /// Says `id` to the partner on the other end of `met`.
    fn say(mut met: Met, id: u8) {
        met.stream.write_all(&[id]).unwrap();
    }

    /// What the partner on the other end of `met` said.
    fn hear(mut met: Met) -> u8 {
        let mut id = [0u8];
        met.stream.read_exact(&mut id).unwrap();
        id[0]
    }

    #[test]
    fn either_side_may_come_first_and_pairs_never_mix() {
        let (_tmp, r) = home();
        let name = "n".repeat(128);
        for (id, first) in [Role::Export, Role::Import].into_iter().enumerate() {
            let r2 = r.clone();
            let n2 = name.clone();
            let waiter =
                std::thread::spawn(move || say(r2.meet(&n2, first, Some(Duration::from_secs(10))).unwrap(), id as u8));
            while r.waiting().unwrap().is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let w = r.waiting().unwrap();
            assert_eq!((w[0].role, w[0].pid, w.len()), (first, std::process::id(), 1));
            let joined = r.meet(&name, first.partner(), Some(Duration::from_secs(10))).unwrap();
            waiter.join().unwrap();
            assert_eq!(hear(joined), id as u8, "the joiner is connected to the waiter");
            assert!(!r.root.join(&name).exists(), "a pipe's directory goes with its last endpoint");
            assert!(r.waiting().unwrap().is_empty());
        }
        // Three waiting exporters are taken one each, oldest first.
        let waiters: Vec<_> = (0..3u8)
            .map(|i| {
                let r2 = r.clone();
                let h = std::thread::spawn(move || {
                    say(r2.meet("p", Role::Export, Some(Duration::from_secs(10))).unwrap(), i)
                });
                while r.waiting().unwrap().len() <= i as usize {
                    std::thread::sleep(Duration::from_millis(1));
                }
                h
            })
            .collect();
        let taken: Vec<u8> =
            (0..3).map(|_| hear(r.meet("p", Role::Import, Some(Duration::from_secs(10))).unwrap())).collect();
        waiters.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(taken, [0, 1, 2], "each waiter taken once, oldest first");
    }

    #[test]
    fn a_timeout_names_the_pipe_and_leaves_nothing_behind() {
        let (_tmp, r) = home();
        let err = r.meet("lonely", Role::Import, Some(Duration::from_millis(50))).err().unwrap();
        assert!(err.to_string().contains("pipe 'lonely': no exporter arrived within"), "{err}");
        assert!(!r.root.join("lonely").exists());
    }

    #[test]
    fn sockets_of_dead_processes_are_swept_and_skipped() {
        let (_tmp, r) = home();
        let dir = r.root.join("p");
        fs::create_dir(&dir).unwrap();
        // A waiter that died: its socket file exists, nobody listens, its pid is gone.
        let dead = "export-00000000000000000001-999999999-00.sock".to_string();
        drop(UnixListener::bind(DirHandle::open(&dir).unwrap().short_path(&dead)).unwrap());
        let err = r.meet("p", Role::Import, Some(Duration::from_millis(20))).err().unwrap();
        assert!(err.to_string().contains("no exporter arrived"), "{err}");
        assert!(!dir.join(&dead).exists());
        fs::create_dir(&dir).unwrap();
        drop(UnixListener::bind(DirHandle::open(&dir).unwrap().short_path(&dead)).unwrap());
        assert!(r.waiting().unwrap().is_empty());
        assert!(!dir.exists());
    }
}
