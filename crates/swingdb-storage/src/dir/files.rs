//! Filesystem primitives of the storage layer: files and directories private to
//! their user, fsync of directories, and the two kinds of locks it uses.
//!
//! - `flock()` locks belong to an open file description and are released when it
//!   is closed, also when the process dies; they guard whole operations (a
//!   commit, a garbage collection, a lease).
//! - Open-file-description byte-range locks (`F_OFD_SETLK`) mark single versions
//!   as pinned: a read lock on byte V of `gc.lock` pins version V. They need no
//!   disk space and no write access, so readers pin on full disks and on
//!   read-only media, and they vanish with the process.
//!
//! On Linux the two kinds are independent of each other.

use crate::error::{Error, Result};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// Mode of files swingdb creates (the umask may make it stricter).
pub const FILE_MODE: u32 = 0o600;
/// Mode of directories swingdb creates.
pub const DIR_MODE: u32 = 0o700;

/// An error-mapping closure: `what` was being done to `path`. The message
/// is written only when there is an error (this is on every statement's path).
pub fn io_err<'a>(what: impl std::fmt::Display + 'a, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
    move |e| Error::io(format_args!("{what} {}", path.display()), e)
}

/// Whether `path` lies on a filesystem held in memory (tmpfs, as `/dev/shm`
/// and in-memory databases are): there a file costs memory like the data it
/// holds, so writing rows to one to free memory frees nothing.
pub fn in_memory_filesystem(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    let mut fs = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `c_path` is a valid C string and `fs` a buffer statfs fills.
    if unsafe { libc::statfs(c_path.as_ptr(), fs.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: statfs succeeded, so it filled `fs`.
    let kind = unsafe { fs.assume_init() }.f_type;
    // ramfs's magic number (linux/magic.h), which the libc crate lacks.
    const RAMFS_MAGIC: libc::c_long = 0x8584_58f6;
    kind == libc::TMPFS_MAGIC || kind == RAMFS_MAGIC
}

/// Creates the directory `path` (not its parents) private to this user; fails
/// if it exists (never follows a link someone else put there).
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    DirBuilder::new().mode(DIR_MODE).create(path)
}

/// Creates the directory `path` private to this user unless it exists.
pub fn ensure_private_dir(path: &Path) -> Result<()> {
    match create_private_dir(path) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(Error::io(format!("creating {}", path.display()), e)),
        _ => Ok(()),
    }
}

/// Creates the new file `path` private to this user, open for reading and
/// writing; fails if it exists.
pub fn create_private_file(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).write(true).create_new(true).mode(FILE_MODE).open(path)
}

/// Opens the lock file `path`, creating it private to this user when absent.
/// A lock file this user owns that others could open is made private again:
/// whoever can open a lock file can hold its lock. On read-only media (or a
/// directory this user may not write) it is opened read-only, which still
/// allows shared and read locks; `None` if it neither exists nor can be made.
pub fn open_lock_file(path: &Path) -> Result<Option<File>> {
    let file = match OpenOptions::new().read(true).write(true).create(true).truncate(false).mode(FILE_MODE).open(path) {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EROFS | libc::EACCES | libc::EPERM | libc::ENOSPC | libc::EDQUOT)
            ) =>
        {
            match File::open(path) {
                Ok(f) => return Ok(Some(f)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Error::io(format!("opening lock file {}", path.display()), e)),
            }
        }
        Err(e) => return Err(Error::io(format!("opening lock file {}", path.display()), e)),
    };
    let meta = file.metadata().map_err(io_err("inspecting lock file", path))?;
    // SAFETY: geteuid has no preconditions.
    if meta.uid() == unsafe { libc::geteuid() } && meta.mode() & 0o077 != 0 {
        let _ = file.set_permissions(fs::Permissions::from_mode(FILE_MODE));
    }
    Ok(Some(file))
}

/// fsyncs a directory so that file creations, links and unlinks in it are durable.
pub fn sync_dir(path: &Path) -> Result<()> {
    File::open(path).and_then(|d| d.sync_all()).map_err(io_err("syncing directory", path))
}

/// Whether `file` is still the file named `path` (nobody unlinked or replaced it).
pub fn still_named(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Takes `flock` lock `op` (`LOCK_SH` / `LOCK_EX`, waiting) or releases it (`LOCK_UN`).
pub fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: plain syscall on a descriptor we own.
        let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Tries to take `flock` lock `op` without waiting; `Ok(false)` if another
/// open file description holds a conflicting one.
pub fn try_flock(file: &File, op: libc::c_int) -> io::Result<bool> {
    match flock(file, op | libc::LOCK_NB) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

/// Takes exclusive `flock` on `file`, polling for at most `timeout`; `Ok(false)` on timeout.
pub fn flock_exclusive_within(file: &File, timeout: Duration) -> io::Result<bool> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(50);
    loop {
        if try_flock(file, libc::LOCK_EX)? {
            return Ok(true);
        }
        if start.elapsed() >= timeout {
            return Ok(false);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

fn ofd(file: &File, cmd: libc::c_int, kind: libc::c_short, byte: u64) -> io::Result<libc::flock> {
    ofd_range(file, cmd, kind, byte, 1)
}

fn ofd_range(file: &File, cmd: libc::c_int, kind: libc::c_short, byte: u64, len: u64) -> io::Result<libc::flock> {
    let out_of_range = || io::Error::new(io::ErrorKind::InvalidInput, "version out of range");
    let start = i64::try_from(byte).map_err(|_| out_of_range())?;
    let len = i64::try_from(len).map_err(|_| out_of_range())?;
    // SAFETY: a zeroed flock is a valid value of this plain C struct.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = start;
    lock.l_len = len;
    loop {
        // SAFETY: fcntl with an F_OFD_* command reads and writes `lock`, which lives across the call.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), cmd, &mut lock) };
        if rc == 0 {
            return Ok(lock);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Takes a read lock on byte `byte` of `file` (held by this open file description).
pub fn lock_byte_shared(file: &File, byte: u64) -> io::Result<()> {
    ofd(file, libc::F_OFD_SETLK, libc::F_RDLCK as libc::c_short, byte).map(|_| ())
}

/// Releases this open file description's lock on byte `byte`.
pub fn unlock_byte(file: &File, byte: u64) -> io::Result<()> {
    ofd(file, libc::F_OFD_SETLK, libc::F_UNLCK as libc::c_short, byte).map(|_| ())
}

/// Whether any *other* open file description (in any process, this one's
/// included) holds a lock on byte `byte` of `file`.
pub fn byte_locked_elsewhere(file: &File, byte: u64) -> io::Result<bool> {
    let lock = ofd(file, libc::F_OFD_GETLK, libc::F_WRLCK as libc::c_short, byte)?;
    Ok(lock.l_type != libc::F_UNLCK as libc::c_short)
}

/// The first byte in `first..=last` of `file` that another open file
/// description holds a lock on (pins are one byte each), if any.
pub fn first_byte_locked_elsewhere(file: &File, first: u64, last: u64) -> io::Result<Option<u64>> {
    if last < first {
        return Ok(None);
    }
    let lock = ofd_range(file, libc::F_OFD_GETLK, libc::F_WRLCK as libc::c_short, first, last - first + 1)?;
    Ok((lock.l_type != libc::F_UNLCK as libc::c_short).then(|| (lock.l_start.max(0) as u64).max(first)))
}

/// 16 random hex digits (from the system's generator; the clock and pid if it
/// cannot be read): ids of leases and of private directories.
pub fn random_id() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        bytes = (t.as_nanos() as u64 ^ ((std::process::id() as u64) << 32)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
