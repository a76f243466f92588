//! The database directory: its layout, the atomic publication of manifests, the
//! pins that tell other processes which versions this one still reads, the
//! leases that own new segment files, and the garbage collector that honours both.
//!
//! ```text
//! sales.swingdb/               (0700; every file swingdb creates is 0600)
//!   swingdb.json               format marker (kind + format version)
//!   manifests/<base>.log       the commit log: every committed version from `base`
//!                              on, one checksummed record each (see `dir/log.rs`);
//!                              a new log begins when one grows past 4 MiB
//!   manifests/<version>.json   one manifest per version, as databases made before
//!                              the commit log kept them (read, collected, never written)
//!   segments/<lease>-<n>.arrow immutable Arrow IPC segment files
//!   segments/<lease>-<n>.seq   a sequence's counter, created and collected like
//!                              a segment file (see `storage::sequence`)
//!   keys/<segment>.<fp>.keys   the sorted values of a key (or, `<fp>-all`, an index)
//!                              of a large segment, a cache (see `storage::keys::runs`,
//!                              which says why it is safe)
//!   leases/<lease>.lease       one per handle that writes, flock()ed while it lives
//!   commit.lock                flock()ed exclusively while a commit picks and publishes
//!                              its version, and while garbage is collected
//!   gc.lock                    flock()ed shared while a version is pinned, exclusively
//!                              while garbage is collected; a read lock on byte V
//!                              (an open-file-description lock) pins version V
//! ```
//!
//! # Which interleavings between processes are possible, and why each is safe
//!
//! **Version numbers are used once, ever.** A commit takes `commit.lock`, reads
//! the newest version N, and publishes N+1 (appends its record to the newest
//! log, or links a new log beginning with it) before it lets go. Garbage
//! collection also holds `commit.lock` and never deletes the newest log, so
//! while a committer holds the lock N is the newest version that ever existed
//! and N+1 was never published (and so never collected). A version whose
//! record was torn (its writer died in the write) was never seen by anyone,
//! and its number is taken by the next commit, in a new log. (Without the
//! lock, a slow writer could publish N+1 after N+1 had been published *and*
//! collected by others; its commit would be reported and never seen.) A handle
//! keeps its descriptors of `commit.lock` open between commits: the file is
//! never deleted or replaced, so a kept descriptor locks the file every other
//! process locks; and two commits of one process each lock their own
//! descriptor (one `flock`ed descriptor shared by two threads would not
//! exclude them from each other).
//!
//! **Pinned versions are never collected.** A reader takes `gc.lock` shared,
//! lists the newest version V, read-locks byte V, reads the manifest, and lets
//! go of the shared lock. The collector decides under `gc.lock` exclusive, so
//! it either runs entirely before the pin (and then V was the newest, which it
//! keeps) or entirely after (and then sees the byte lock). Byte locks die with
//! their process, so a crashed reader pins nothing. The collector reads the
//! pinned versions (to learn their files) only once it has found a segment
//! file it would otherwise remove: under both locks no version, pin or
//! committed file can appear meanwhile, so a file it found no reason to
//! remove stays whatever those versions hold, and a log with a pinned version
//! is kept either way.
//!
//! **Files of live writers are never collected.** Segment and temporary
//! manifest names start with their writer's lease id. A lease file is locked
//! *before* its writer creates any file named after it, and the collector
//! deletes a lease only while holding its lock; a new lease re-checks after
//! locking that its name still refers to its own file (the collector may have
//! locked and deleted it in between) and starts over with a new id if not. A
//! file is an orphan only if its lease is unlocked. The collector holds
//! `commit.lock`, so no manifest is published while it runs: a writer that
//! published and exited before the collection began left a manifest the
//! collector sees, and one that had not published yet cannot publish until the
//! collection ends.
//!
//! **Inline segments involve no file.** Rows kept in a manifest (see
//! [`crate::manifest::inline`]) are published, pinned and collected with it. Their names
//! (`<lease>-<n>.inline`) are drawn like file names from the writer's lease and
//! counter, so no two handles ever give one name to different rows: a key
//! index or cache keyed by name in any process stays right. A commit that
//! dropped no segment file (it only added rows, say) leaves no garbage but
//! its record, which stays in the log until the whole log is collected; the
//! collection after such commits runs every 32nd time only (for full logs and
//! orphans of dead writers).
//!
//! **Readers write nothing.** Pins are byte locks on a file opened read-only if
//! need be, and a handle takes a lease only when it first writes, so readers
//! work on a full disk, on read-only media and on databases of other users
//! that they may read. Where `gc.lock` is missing and cannot be created (read-only
//! media), nobody can collect either, and pins are not needed.
//!
//! **No other user can change the directories under us.** A database whose
//! directory (or one of its own subdirectories) another user could write, or
//! (to write to it) owns, is refused when opened (`check_not_shared`): whoever
//! can write a directory can rename or replace what is in it, and the
//! manifests' checksums only detect damage, they do not say who wrote a file
//! (they are no authentication). Otherwise a user who made `mkdir -m 0777 D`
//! before the victim opened `D` could move `D/manifests` aside and make
//! committed tables vanish. A group-writable directory of the user's own group
//! (umask 002 with a group per user) is accepted. To write, the directories
//! above the database must be safe too: each belongs to this user or root,
//! and one that others may write has the sticky bit (as `/tmp`), for whoever
//! can rename an ancestor can move the database away and put a directory of
//! theirs in its place, which an open connection would then write into.
//!
//! **Nobody else can block the owner.** Lock files are created 0600 in a 0700
//! directory (and made 0600 again if they were loosened), and the collection
//! after a commit only *tries* the locks: if anyone holds them, it is skipped
//! and the commit still succeeds.

use crate::dir::files::{
    byte_locked_elsewhere, create_private_dir, create_private_file, ensure_private_dir, first_byte_locked_elsewhere,
    flock, flock_exclusive_within, io_err, lock_byte_shared, open_lock_file, random_id, still_named, sync_dir,
    try_flock, unlock_byte,
};
use crate::error::{Error, ErrorKind, Result};
use crate::failpoint;
use crate::manifest::{Manifest, FORMAT_VERSION, LOG_FORMAT_VERSION};
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod gc;
mod log;
mod open;
mod versions;

use versions::Suspect;

pub use log::Flush;
use log::{log_name, parse_log_name, Log, Record, Tail};

pub mod files;
pub mod sequence;

pub use gc::GcReport;

const MARKER: &str = "swingdb.json";
const MANIFESTS: &str = "manifests";
const SEGMENTS: &str = "segments";
const LEASES: &str = "leases";
const KEYS: &str = "keys";
const GC_LOCK: &str = "gc.lock";
const COMMIT_LOCK: &str = "commit.lock";

/// How long a commit waits for another process's commit (or collection) to
/// finish before it gives up with an error naming the lock.
const COMMIT_LOCK_TIMEOUT: Duration = Duration::from_secs(60);

fn manifest_name(version: u64) -> String {
    format!("{version:020}.json")
}

fn parse_manifest_name(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".json")?;
    (stem.len() == 20).then(|| stem.parse().ok()).flatten()
}

/// A lease: a lock file held for the lifetime of one writing database handle.
/// Files named after its id belong to that handle while the lock is held.
#[derive(Debug)]
struct Lease {
    id: String,
    path: PathBuf,
    _file: File,
}

impl Lease {
    /// Creates and locks a new lease. The lock is taken before any file is
    /// named after the id; a collector that locked and deleted the fresh file
    /// first is noticed (the name no longer refers to it) and a new id is tried.
    fn acquire(root: &Path) -> Result<Self> {
        let dir = root.join(LEASES);
        for _ in 0..16 {
            let id = random_id();
            let path = dir.join(format!("{id}.lease"));
            let file = create_private_file(&path).map_err(io_err("creating lease", &path))?;
            failpoint::hit("lease.after_create")?;
            if !try_flock(&file, libc::LOCK_EX).map_err(io_err("locking lease", &path))? {
                continue; // a collector holds it and is about to delete it
            }
            if still_named(&file, &path) {
                return Ok(Self { id, path, _file: file });
            }
        }
        Err(Error::operational(format!(
            "could not create a lease in {}: every attempt was collected at once",
            dir.display()
        )))
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// This handle's pins: a read lock on byte V of `gc.lock` per pinned version V,
/// counted so that several readers of one version share one lock.
#[derive(Debug)]
struct Pins {
    /// `gc.lock`, opened once; `None` on read-only media without one.
    file: Option<File>,
    counts: BTreeMap<u64, usize>,
}

/// Proof that this handle holds `commit.lock`: publishing needs one.
#[derive(Debug)]
pub struct CommitLock {
    file: Option<File>,
    /// Where the descriptor goes back once unlocked.
    spare: Arc<Mutex<Vec<File>>>,
}

impl Drop for CommitLock {
    fn drop(&mut self) {
        let _ = failpoint::hit("commit.before_unlock");
        if let Some(file) = self.file.take() {
            if flock(&file, libc::LOCK_UN).is_ok() {
                self.spare.lock().push(file);
            }
        }
    }
}

/// An open database directory. One per database handle; many may exist for the
/// same directory, in this and other processes.
#[derive(Debug)]
pub struct DbDir {
    root: PathBuf,
    read_only: bool,
    /// For private databases (in memory, attached snapshots): the lock that
    /// marks the directory as owned by a live handle; the directory is
    /// removed when the handle is dropped.
    owner: Option<File>,
    /// Taken on the first write.
    lease: Mutex<Option<Lease>>,
    pins: Mutex<Pins>,
    next_segment: AtomicU64,
    cache: Mutex<Option<Arc<Manifest>>>,
    /// The newest commit log, as far as this handle read it.
    log: Mutex<Option<Log>>,
    /// Read-only descriptors of `commit.lock` not in use, kept so that a
    /// commit does not open the file each time. Each commit in progress
    /// holds its own (an `flock` excludes other open files of the lock, in
    /// this process too, never its own), and gives it back when it unlocks.
    /// `commit.lock` is never deleted or replaced, so a kept descriptor
    /// locks the same file a newly opened one would.
    spare_commit_locks: Arc<Mutex<Vec<File>>>,
    /// Whether the format marker already says the database has a commit log.
    marker_says_log: AtomicBool,
    /// Read-only, taking the last intact version for the newest when the
    /// newest log is damaged (see [`DbDir::recover`]).
    recover: AtomicBool,
}

/// The directories of a database that other users must not be able to
/// change: the root and those it holds (see the module docs).
const OWN_DIRS: [&str; 4] = [MANIFESTS, SEGMENTS, LEASES, KEYS];

impl DbDir {
    /// Whether this is a private database (in memory, an attached snapshot;
    /// see [`DbDir::create_private_in`]), removed when its handle is dropped.
    /// Its writes are never fsynced: a sweep removes it when its process
    /// dies, so nothing a crash leaves of it is ever read, and an attach pays
    /// for no disk flush.
    pub fn is_private(&self) -> bool {
        self.owner.is_some()
    }

    /// Makes this read-only handle take the last intact version of a
    /// database whose newest commit log is damaged for the newest, instead
    /// of failing: the user's way to read and export what is left. An error
    /// on a handle that may write (a commit there would begin a new log
    /// over the damage and lose the versions after it for good).
    pub fn recover(&self) -> Result<()> {
        if !self.read_only {
            return Err(Error::programming(format!(
                "recovering {} reads the last intact version and refuses writes: open it read-only",
                self.root.display()
            )));
        }
        self.recover.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this handle refuses writes.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// An error naming the database if this handle is read-only.
    pub fn refuse_read_only(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::operational(format!(
                "database {} is open read-only; reopen it without read_only=True to change it",
                self.root.display()
            )));
        }
        Ok(())
    }

    /// This handle's lease id, taking the lease on first use.
    fn lease_id(&self) -> Result<String> {
        self.refuse_read_only()?;
        let mut lease = self.lease.lock();
        if lease.is_none() {
            *lease = Some(Lease::acquire(&self.root)?);
        }
        Ok(lease.as_ref().expect("just taken").id.clone())
    }

    /// The directory holding the segment files.
    pub fn segments_dir(&self) -> PathBuf {
        self.root.join(SEGMENTS)
    }

    /// Path of a segment file by name.
    pub fn segment_path(&self, file: &str) -> PathBuf {
        self.root.join(SEGMENTS).join(file)
    }

    /// `<lease>-<n>.<extension>`: a name no other handle or process ever
    /// uses, owned by this handle's lease.
    fn fresh_name(&self, extension: &str) -> Result<String> {
        let lease = self.lease_id()?;
        let n = self.next_segment.fetch_add(1, Ordering::Relaxed);
        Ok(format!("{lease}-{n}.{extension}"))
    }

    /// A fresh, unused path for a new segment, owned by this handle's lease.
    pub fn new_segment_path(&self) -> Result<PathBuf> {
        Ok(self.root.join(SEGMENTS).join(self.fresh_name("arrow")?))
    }

    /// A fresh, unused path for a new sequence counter, owned by this handle's lease.
    pub fn new_sequence_path(&self) -> Result<PathBuf> {
        Ok(self.root.join(SEGMENTS).join(self.fresh_name("seq")?))
    }

    /// A fresh name for an inline segment (see [`crate::manifest::inline`]), made like
    /// a segment file's: no other handle or process ever uses it.
    pub fn new_inline_name(&self) -> Result<String> {
        self.fresh_name("inline")
    }

    /// Where the key run (see [`crate::keys::runs`]) of segment `file` for the
    /// key `fingerprint` is saved.
    pub fn key_run_path(&self, file: &str, fingerprint: &str) -> PathBuf {
        self.root.join(KEYS).join(format!("{file}.{fingerprint}.keys"))
    }

    /// Saves a key run as `path`: written to a temporary file of this
    /// handle's lease, then renamed over the name (a run's content depends
    /// only on its name, so replacing a copy another process saved is harmless).
    pub fn save_key_run(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let dir = self.root.join(KEYS);
        ensure_private_dir(&dir)?;
        let tmp = dir.join(format!("tmp-{}-{}", self.lease_id()?, self.next_segment.fetch_add(1, Ordering::Relaxed)));
        let written =
            create_private_file(&tmp).and_then(|mut f| f.write_all(bytes)).and_then(|_| fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(Error::io(format!("saving key run {}", path.display()), e));
        }
        Ok(())
    }

    /// fsyncs the segments directory (after new segments, before their manifest).
    pub fn sync_segments(&self) -> Result<()> {
        if self.is_private() {
            return Ok(());
        }
        sync_dir(&self.root.join(SEGMENTS))
    }

    /// The newest version, not pinned: its segments may be collected as soon
    /// as a newer one is committed. (A damaged commit-log record is an error,
    /// as for [`DbDir::pin_latest`].)
    pub fn newest_version(&self) -> Result<u64> {
        self.newest(Suspect::Confirm)
    }

    /// Pins the newest version and returns its manifest. The version's segments
    /// stay on disk until [`DbDir::unpin`] is called, whatever other processes
    /// commit or collect meanwhile.
    pub fn pin_latest(&self) -> Result<Arc<Manifest>> {
        // A damaged record is told from one being written here, where no
        // lock is held; under `gc.lock` nothing may wait for a commit (a
        // collector waiting for `gc.lock` holds `commit.lock`).
        self.newest(Suspect::Confirm)?;
        let mut pins = self.pins.lock();
        let path = self.root.join(GC_LOCK);
        if let Some(file) = &pins.file {
            flock(file, libc::LOCK_SH).map_err(io_err("locking", &path))?;
        }
        let result = (|| {
            let version = self.newest(Suspect::End)?;
            failpoint::hit("pin.after_read_latest")?;
            Self::pin_locked(&mut pins, version, &path)?;
            match self.read_manifest(version) {
                Ok(m) => Ok(m),
                Err(e) => {
                    Self::unpin_locked(&mut pins, version);
                    Err(e)
                }
            }
        })();
        if let Some(file) = &pins.file {
            let _ = flock(file, libc::LOCK_UN);
        }
        result
    }

    fn pin_locked(pins: &mut Pins, version: u64, path: &Path) -> Result<()> {
        let count = pins.counts.entry(version).or_insert(0);
        if *count == 0 {
            if let Some(file) = &pins.file {
                lock_byte_shared(file, version).map_err(io_err(format!("pinning version {version} in"), path))?;
            }
        }
        *count += 1;
        Ok(())
    }

    fn unpin_locked(pins: &mut Pins, version: u64) {
        if let Some(count) = pins.counts.get_mut(&version) {
            *count -= 1;
            if *count == 0 {
                pins.counts.remove(&version);
                if let Some(file) = &pins.file {
                    let _ = unlock_byte(file, version);
                }
            }
        }
    }

    /// Releases one pin of `version`.
    pub fn unpin(&self, version: u64) {
        Self::unpin_locked(&mut self.pins.lock(), version);
    }

    /// Takes `commit.lock`, waiting for another commit or collection to end.
    pub fn lock_commits(&self) -> Result<CommitLock> {
        self.refuse_read_only()?;
        let path = self.root.join(COMMIT_LOCK);
        let file = self.commit_lock_file()?.ok_or_else(|| {
            Error::operational(format!("cannot create {}: is the database on read-only media?", path.display()))
        })?;
        if !flock_exclusive_within(&file, COMMIT_LOCK_TIMEOUT).map_err(io_err("locking", &path))? {
            return Err(Error::operational(format!(
                "another process has held {} for {} s (a commit or garbage collection that does not end); nothing was written",
                path.display(),
                COMMIT_LOCK_TIMEOUT.as_secs()
            )));
        }
        // On a failure here the descriptor closes, which lets go of the lock.
        failpoint::hit("commit.after_lock")?;
        Ok(self.held_commit_lock(file))
    }

    /// A descriptor of `commit.lock` not in use by this handle: a kept one,
    /// else the file opened (made if need be); `None` if it neither exists
    /// nor can be made.
    fn commit_lock_file(&self) -> Result<Option<File>> {
        if let Some(file) = self.spare_commit_locks.lock().pop() {
            return Ok(Some(file));
        }
        let path = self.root.join(COMMIT_LOCK);
        if open_lock_file(&path)?.is_none() {
            return Ok(None);
        }
        // Kept read-only (locks need no more): an idle handle holds nothing open for writing.
        File::open(&path).map(Some).map_err(io_err("opening", &path))
    }

    /// `file`, locked, as the proof of holding `commit.lock` that gives
    /// the descriptor back for reuse when dropped.
    fn held_commit_lock(&self, file: File) -> CommitLock {
        CommitLock { file: Some(file), spare: self.spare_commit_locks.clone() }
    }
}

impl Drop for DbDir {
    fn drop(&mut self) {
        // The owner lock is still held (it closes after this body), so no
        // sweeper takes the directory for abandoned while it is removed.
        if self.owner.is_some() {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

#[cfg(test)]
mod tests;
