//! Homes: the directories where snapshots and private databases live, and
//! the claim (an owner lock) that tells live directories from abandoned ones.
//!
//! A snapshot's files are hard links to the segments it holds, and a private
//! database that attaches it links them again, so both must be on the
//! filesystem of the segments. Every database therefore has a *home*:
//! - the user's runtime home (`$SWINGDB_RUNTIME_DIR`, else
//!   `/dev/shm/swingdb-<uid>`, else `$TMPDIR/swingdb-<uid>`) for in-memory
//!   databases and for databases attached from snapshots made there;
//! - the database directory itself for a database on disk.
//!
//! ```text
//! <home>/snapshots/<pid>-<id>/   one snapshot (see `snapshot`)
//! <home>/scratch/<pid>-<id>/     one private database: in memory, or an attached snapshot
//!                 owner.lock     flock()ed exclusively by the handle that owns the directory
//!                 origin         (attached ones) the snapshot directory it was attached from
//! ```
//! The runtime home also holds the names of all snapshots (see `names`).

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use swingdb_storage::dir::files::{
    create_private_dir, create_private_file, ensure_private_dir, io_err, random_id, still_named, try_flock,
};
use swingdb_storage::DbDir;
use swingdb_storage::{Error, Result};

/// Subdirectory of a home that holds snapshots.
pub const SNAPSHOTS: &str = "snapshots";
/// Subdirectory of a home that holds private databases.
pub const SCRATCH: &str = "scratch";
/// The lock file whose exclusive flock marks a claimed directory as in use.
pub const OWNER_LOCK: &str = "owner.lock";
/// In an attached database: the snapshot directory it came from.
pub const ORIGIN: &str = "origin";

/// Environment variable that moves the runtime home (tests, or a tmpfs of one's choice).
pub const RUNTIME_DIR_ENV: &str = "SWINGDB_RUNTIME_DIR";

/// A directory that holds snapshots and private databases (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

/// A directory this process claimed: it created it and holds its owner lock.
#[derive(Debug)]
pub struct Claimed {
    /// The directory.
    pub path: PathBuf,
    /// `owner.lock`, flock()ed exclusively; closing it gives the directory up.
    pub lock: File,
}

impl Home {
    /// The user's runtime home, created private (0700) if missing. Refused if
    /// it is not a directory of this user's that only this user can enter.
    pub fn runtime() -> Result<Self> {
        let root = match std::env::var_os(RUNTIME_DIR_ENV).filter(|v| !v.is_empty()) {
            Some(dir) => std::path::absolute(PathBuf::from(dir))
                .map_err(|e| Error::io(format!("resolving {RUNTIME_DIR_ENV}"), e))?,
            None => {
                let base =
                    if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
                // SAFETY: geteuid has no preconditions.
                base.join(format!("swingdb-{}", unsafe { libc::geteuid() }))
            }
        };
        ensure_private_home(&root)?;
        Ok(Self { root })
    }

    /// The home at `root` (a database directory, for databases on disk).
    pub fn at(root: &Path) -> Self {
        Self { root: root.to_path_buf() }
    }

    /// The home of a claimed directory (`<home>/<kind>/<pid>-<id>`: a private
    /// database or a snapshot).
    pub fn owning(dir: &Path) -> Self {
        Self { root: dir.parent().and_then(Path::parent).unwrap_or(dir).to_path_buf() }
    }

    /// The home's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Claims a new directory under `<home>/<kind>/` (see [`Claimed`]).
    ///
    /// Interleavings with a sweeper in another process: the directory is made
    /// first and the lock file after it. A sweeper that finds no lock file keeps
    /// the directory while the process named in it lives; one that finds the
    /// file unlocked (we created it and have not locked it yet) removes the
    /// directory, and we notice (our lock fails, or the file we locked is no
    /// longer the one named there) and start over under a new name.
    pub fn claim(&self, kind: &str) -> Result<Claimed> {
        let parent = self.root.join(kind);
        ensure_private_dir(&parent)?;
        for _ in 0..16 {
            let path = parent.join(format!("{}-{}", std::process::id(), random_id()));
            match create_private_dir(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(format!("creating {}", path.display()), e)),
            }
            let lock_path = path.join(OWNER_LOCK);
            let lock = match create_private_file(&lock_path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // swept already
                Err(e) => {
                    let _ = fs::remove_dir_all(&path);
                    return Err(Error::io(format!("creating {}", lock_path.display()), e));
                }
            };
            if try_flock(&lock, libc::LOCK_EX).map_err(io_err("locking", &lock_path))? && still_named(&lock, &lock_path)
            {
                return Ok(Claimed { path, lock });
            }
        }
        Err(Error::operational(format!(
            "could not claim a directory in {}: every attempt was swept at once",
            parent.display()
        )))
    }

    /// A new private database in `<home>/scratch/`: removed when the returned
    /// handle is dropped, or by a sweep if this process dies first.
    pub fn new_private_database(&self) -> Result<DbDir> {
        let claimed = self.claim(SCRATCH)?;
        DbDir::create_private_in(&claimed.path, claimed.lock)
    }

    /// Removes the private databases under this home whose owners are gone
    /// (processes that crashed or were killed: their memory is freed now).
    ///
    /// Only proven dead ones (see [`probe`]): the owner lock was free and is
    /// now held here, or the lock file is absent (`ENOENT`) and the pid in the
    /// name is gone (`ESRCH`). A lock file that cannot be opened for another
    /// reason (no free descriptor) counts as held.
    pub fn sweep_scratch(&self) {
        for (path, probe) in claimed_dirs(&self.root.join(SCRATCH)) {
            if let Probe::Abandoned(_lock) = probe {
                // Removed while we hold its lock, so no one claims it meanwhile.
                let _ = fs::remove_dir_all(&path);
            }
        }
    }

    /// How many live private databases in this home were attached from the
    /// snapshot directory `snapshot`.
    pub fn attached_from(&self, snapshot: &Path) -> usize {
        let mut count = 0;
        let Ok(entries) = fs::read_dir(self.root.join(SCRATCH)) else { return 0 };
        for entry in entries.flatten() {
            let origin = fs::read_to_string(entry.path().join(ORIGIN)).unwrap_or_default();
            if Path::new(&origin) == snapshot && matches!(probe(&entry.path()), Probe::Held) {
                count += 1;
            }
        }
        count
    }
}

/// What a sweeper finds when it looks at a claimed directory.
#[derive(Debug)]
pub enum Probe {
    /// A live process holds it (or is still creating it).
    Held,
    /// Its owner is gone; the sweeper now holds its lock (if it had one),
    /// so nobody else takes it until the returned file is closed.
    Abandoned(Option<File>),
}

/// Looks at the claimed directory `path` (named `<pid>-<id>`).
pub fn probe(path: &Path) -> Probe {
    match File::open(path.join(OWNER_LOCK)) {
        Ok(file) => match try_flock(&file, libc::LOCK_EX) {
            Ok(true) => Probe::Abandoned(Some(file)),
            _ => Probe::Held,
        },
        // Not made yet: its creator is between mkdir and creating the lock
        // file, or died there.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let pid = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.split('-').next()?.parse::<i32>().ok());
            if pid.is_some_and(process_gone) {
                Probe::Abandoned(None)
            } else {
                Probe::Held
            }
        }
        Err(_) => Probe::Held,
    }
}

/// The claimed directories under `parent`, each probed.
pub fn claimed_dirs(parent: &Path) -> Vec<(PathBuf, Probe)> {
    let Ok(entries) = fs::read_dir(parent) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| {
            let path = e.path();
            let p = probe(&path);
            (path, p)
        })
        .collect()
}

/// Whether process `pid` is gone (kill(pid, 0) fails with ESRCH).
pub fn process_gone(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks for existence; nothing is sent.
    let failed = unsafe { libc::kill(pid, 0) } == -1;
    failed && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Creates the runtime home private if missing; refuses one that another
/// user owns or could enter (another user who made it first could read or
/// replace everything in it).
fn ensure_private_home(root: &Path) -> Result<()> {
    match create_private_dir(root) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = root.parent() {
                fs::create_dir_all(parent).map_err(io_err("creating", parent))?;
            }
            ensure_private_dir(root)?;
        }
        Err(e) => return Err(Error::io(format!("creating swingdb's runtime directory {}", root.display()), e)),
    }
    let meta = fs::symlink_metadata(root).map_err(io_err("inspecting", root))?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        return Err(Error::operational(format!(
            "swingdb's runtime directory {} is not a private directory of this user (owner uid {}, mode {:o}); \
             remove it, or set {RUNTIME_DIR_ENV} to a directory of your own",
            root.display(),
            meta.uid(),
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abandoned_scratch_is_swept_live_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::at(tmp.path());
        let live = home.claim(SCRATCH).unwrap();
        let dead = home.claim(SCRATCH).unwrap();
        drop(dead.lock); // its owner died
                         // A directory whose creator is between mkdir and the lock file: pid alive.
        let young = tmp.path().join(SCRATCH).join(format!("{}-young", std::process::id()));
        fs::create_dir(&young).unwrap();
        // Process ids above the kernel's pid_max (4194304 at most) never exist.
        let orphan = tmp.path().join(SCRATCH).join("99999999-orphan");
        fs::create_dir(&orphan).unwrap();
        home.sweep_scratch();
        assert!(live.path.exists(), "a held directory is kept");
        assert!(!dead.path.exists(), "an unlocked directory is removed");
        assert!(young.exists(), "a directory of a live process without lock file yet is kept");
        assert!(!orphan.exists(), "a directory of a dead process without lock file is removed");
    }

    #[test]
    fn runtime_home_of_another_mode_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let loose = tmp.path().join("loose");
        fs::create_dir(&loose).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&loose, fs::Permissions::from_mode(0o755)).unwrap();
        let err = ensure_private_home(&loose).unwrap_err();
        assert!(err.message().contains("not a private directory"), "{}", err.message());
        ensure_private_home(&tmp.path().join("fresh")).unwrap();
        assert_eq!(fs::metadata(tmp.path().join("fresh")).unwrap().mode() & 0o777, 0o700);
    }
}
