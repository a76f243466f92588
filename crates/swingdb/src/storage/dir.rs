//! The database directory: its layout, the atomic publication of manifests, the
//! pins that tell other processes which versions this one still reads, the
//! leases that own new segment files, and the garbage collector that honours both.
//!
//! ```text
//! sales.swingdb/               (0700; every file swingdb creates is 0600)
//!   swingdb.json               format marker (kind + format version)
//!   manifests/<version>.json   one immutable, checksummed manifest per committed version
//!   segments/<lease>-<n>.arrow immutable Arrow IPC segment files
//!   segments/<lease>-<n>.seq   a sequence's counter, created and collected like
//!                              a segment file (see `storage::sequence`)
//!   keys/<segment>.<fp>.keys   the sorted key values of a large segment, a cache
//!                              (see `storage::key_runs`, which says why it is safe)
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
//! the newest version N, and publishes N+1 with `link(tmp, N+1.json)` before it
//! lets go. Garbage collection also holds `commit.lock` and never deletes the
//! newest manifest, so while a committer holds the lock N is the newest version
//! that ever existed and N+1 was never published (and so never collected). The
//! `link` refusing an existing name stays as a second line of defence. (Without
//! the lock, a slow writer could publish N+1 after N+1 had been published *and*
//! collected by others; its commit would be reported and never seen.)
//!
//! **Pinned versions are never collected.** A reader takes `gc.lock` shared,
//! lists the newest version V, read-locks byte V, reads the manifest, and lets
//! go of the shared lock. The collector decides under `gc.lock` exclusive, so
//! it either runs entirely before the pin (and then V was the newest, which it
//! keeps) or entirely after (and then sees the byte lock). Byte locks die with
//! their process, so a crashed reader pins nothing.
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
//! [`super::inline`]) are published, pinned and collected with it. Their names
//! (`<lease>-<n>.inline`) are drawn like file names from the writer's lease and
//! counter, so no two handles ever give one name to different rows: a key
//! index or cache keyed by name in any process stays right. A commit that
//! dropped no segment file (it only added rows, say) leaves the older manifest
//! as its only garbage, which frees no segment file with it; the collection
//! after such commits runs every 32nd time only, so at most that many old
//! manifests per handle wait, and every collection still removes them all.
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

use super::failpoint;
use super::files::{
    byte_locked_elsewhere, create_private_dir, create_private_file, ensure_private_dir, flock, flock_exclusive_within,
    io_err, lock_byte_shared, open_lock_file, random_id, still_named, sync_dir, try_flock, unlock_byte,
};
use super::manifest::{Manifest, FORMAT_VERSION, PLAIN_FORMAT_VERSION};
use crate::error::{Error, ErrorKind, Result};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

/// The lease id a segment or temporary file belongs to (the part before the first '-').
fn owner_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("tmp-").unwrap_or(name);
    rest.split_once('-').map(|(id, _)| id)
}

/// The segment a key run file (`<segment>.<fingerprint>.keys`) belongs to;
/// `None` for a temporary file.
fn key_run_segment(name: &str) -> Option<&str> {
    name.strip_suffix(".keys")?.rsplit_once('.').map(|(segment, _)| segment)
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

/// What `DbDir::collect_garbage` removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GcReport {
    /// Manifests deleted.
    pub manifests: usize,
    /// Segment files deleted.
    pub segments: usize,
    /// Dead leases (of crashed or exited processes) cleared.
    pub leases: usize,
    /// Whether the collection was skipped because another process held a lock.
    pub skipped: bool,
    /// A manifest that could not be read, for which no segment was removed.
    pub kept_for: Option<PathBuf>,
}

/// Proof that this handle holds `commit.lock`: publishing needs one.
#[derive(Debug)]
pub struct CommitLock {
    file: File,
}

impl Drop for CommitLock {
    fn drop(&mut self) {
        let _ = failpoint::hit("commit.before_unlock");
        let _ = flock(&self.file, libc::LOCK_UN);
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
}

/// The directories of a database that other users must not be able to
/// change: the root and those it holds (see the module docs).
const OWN_DIRS: [&str; 4] = [MANIFESTS, SEGMENTS, LEASES, KEYS];

/// Refuses the database at `root` if another user could write its
/// directory or one of its subdirectories (write bit for others; for its
/// group, unless that is this user's own group), if a subdirectory is a
/// symbolic link, or (unless opened `read_only`) if another user owns one.
fn check_not_shared(root: &Path, read_only: bool) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid and getegid have no preconditions.
    let (me, my_group) = unsafe { (libc::geteuid(), libc::getegid()) };
    let dirs = std::iter::once((root.to_path_buf(), fs::metadata(root)))
        .chain(OWN_DIRS.iter().map(|d| (root.join(d), fs::symlink_metadata(root.join(d)))));
    for (dir, meta) in dirs {
        let meta = match meta {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("inspecting {}", dir.display()), e)),
        };
        let mode = meta.mode() & 0o7777;
        let problem = if meta.file_type().is_symlink() {
            Some("is a symbolic link".to_string())
        } else if mode & 0o002 != 0 || (mode & 0o020 != 0 && meta.gid() != my_group) {
            Some(format!("can be written by other users (mode {mode:o})"))
        } else if !read_only && meta.uid() != me {
            Some(format!("belongs to another user (uid {})", meta.uid()))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::operational(format!(
                "database {}: {} {problem}, who could then rename or replace its files; \
                 use a directory of your own that only you can write (chmod go-w, or a new path)",
                root.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuses the database at `root` if a directory above it could be renamed
/// by another user: one that belongs to someone other than this user or
/// root, or that others (or a group not this user's) may write without the
/// sticky bit.
fn check_ancestors(root: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid and getegid have no preconditions.
    let (me, my_group) = unsafe { (libc::geteuid(), libc::getegid()) };
    let absolute = std::path::absolute(root).map_err(|e| Error::io(format!("resolving {}", root.display()), e))?;
    for dir in absolute.ancestors().skip(1) {
        let meta = match fs::metadata(dir) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // made with the database
            Err(e) => return Err(Error::io(format!("inspecting {}", dir.display()), e)),
        };
        let mode = meta.mode() & 0o7777;
        let shared_write = mode & 0o002 != 0 || (mode & 0o020 != 0 && meta.gid() != my_group);
        let problem = if meta.uid() != me && meta.uid() != 0 {
            format!("belongs to another user (uid {})", meta.uid())
        } else if shared_write && mode & 0o1000 == 0 {
            format!("can be written by other users without the sticky bit (mode {mode:o})")
        } else {
            continue;
        };
        return Err(Error::operational(format!(
            "database {}: the directory above it, {}, {problem}, who could move the database away and put theirs in its place; \
             keep databases you write in directories only you (or root) can change (or open it read_only)",
            root.display(),
            dir.display()
        )));
    }
    Ok(())
}

impl DbDir {
    /// Opens the database directory at `root`, creating it when `create` is set
    /// and it does not exist yet. Opening writes nothing to an existing database.
    pub fn open(root: &Path, create: bool, read_only: bool) -> Result<Self> {
        let marker = root.join(MARKER);
        // Before anything is written into an existing directory (or made).
        if !read_only {
            check_ancestors(root)?;
        }
        if fs::metadata(root).is_ok_and(|m| m.is_dir()) {
            check_not_shared(root, read_only)?;
        }
        match fs::metadata(root) {
            Ok(m) if !m.is_dir() => {
                return Err(Error::operational(format!(
                    "{} is a file, not a swingdb database directory; pick a path that does not exist yet or is a swingdb database",
                    root.display()
                )))
            }
            Ok(_) if marker.exists() => check_marker(&marker)?,
            Ok(_) => {
                let empty = fs::read_dir(root).map_err(io_err("listing", root))?.next().is_none();
                if !empty {
                    return Err(Error::operational(format!(
                        "{} is not a swingdb database (no {MARKER} in it); pick an empty or new path",
                        root.display()
                    )));
                }
                if read_only {
                    return Err(Error::operational(format!("{} is empty: nothing to open read-only", root.display())));
                }
                init(root)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create && !read_only => {
                if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
                    fs::create_dir_all(parent).map_err(io_err("creating directory", parent))?;
                }
                create_private_dir(root).map_err(io_err("creating database directory", root))?;
                init(root)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::operational(format!("database {} does not exist", root.display())))
            }
            Err(e) => return Err(Error::io(format!("opening database {}", root.display()), e)),
        }
        // gc.lock is made (private) if missing; the handle keeps it open
        // read-only, which is all read locks and shared flocks need, so that an
        // idle handle holds nothing open for writing.
        let gc_lock = root.join(GC_LOCK);
        let pin_file = match open_lock_file(&gc_lock)? {
            Some(_) => Some(File::open(&gc_lock).map_err(io_err("opening", &gc_lock))?),
            None => None,
        };
        let pins = Pins { file: pin_file, counts: BTreeMap::new() };
        Ok(Self {
            root: root.to_path_buf(),
            read_only,
            owner: None,
            lease: Mutex::new(None),
            pins: Mutex::new(pins),
            next_segment: AtomicU64::new(0),
            cache: Mutex::new(None),
        })
    }

    /// Lays out a new database in the existing directory `root` (which holds
    /// nothing but files of the caller's own, such as lock files) and opens it.
    pub fn create_in(root: &Path) -> Result<Self> {
        init(root)?;
        Self::open(root, false, false)
    }

    /// Makes this handle the owner of a private database: `owner` (a lock the
    /// caller holds on a file inside the directory) is kept until the handle
    /// is dropped, and then the whole directory is removed.
    pub fn into_private(mut self, owner: File) -> Self {
        self.owner = Some(owner);
        self
    }

    /// Whether this is a private database, removed when its handle is dropped.
    pub fn is_private(&self) -> bool {
        self.owner.is_some()
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
        let mut lease = self.lease.lock().unwrap();
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

    /// A fresh name for an inline segment (see [`super::inline`]), made like
    /// a segment file's: no other handle or process ever uses it.
    pub fn new_inline_name(&self) -> Result<String> {
        self.fresh_name("inline")
    }

    /// Where the key run (see [`super::key_runs`]) of segment `file` for the
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
        sync_dir(&self.root.join(SEGMENTS))
    }

    /// The newest published version (0 for an empty database).
    pub fn latest_version(&self) -> Result<u64> {
        let dir = self.root.join(MANIFESTS);
        let mut latest = 0;
        for entry in fs::read_dir(&dir).map_err(io_err("listing", &dir))? {
            let entry = entry.map_err(io_err("listing", &dir))?;
            if let Some(v) = entry.file_name().to_str().and_then(parse_manifest_name) {
                latest = latest.max(v);
            }
        }
        Ok(latest)
    }

    /// Path of manifest `version`.
    pub fn manifest_path(&self, version: u64) -> PathBuf {
        self.root.join(MANIFESTS).join(manifest_name(version))
    }

    /// Reads manifest `version` (0 is the empty database), checking its checksum.
    /// Version numbers are never reused, so a cached copy is always right.
    pub fn read_manifest(&self, version: u64) -> Result<Arc<Manifest>> {
        if version == 0 {
            return Ok(Arc::new(Manifest::default()));
        }
        if let Some(m) = self.cache.lock().unwrap().as_ref().filter(|m| m.version == version) {
            return Ok(m.clone());
        }
        let manifest = Arc::new(self.read_manifest_uncached(version)?);
        *self.cache.lock().unwrap() = Some(manifest.clone());
        Ok(manifest)
    }

    /// Reads and checks manifest `version` from disk, bypassing the cache.
    pub fn read_manifest_uncached(&self, version: u64) -> Result<Manifest> {
        let path = self.manifest_path(version);
        let bytes = fs::read(&path).map_err(io_err("reading manifest", &path))?;
        let manifest = Manifest::from_json(&bytes, &path.display().to_string())?;
        if manifest.version != version {
            return Err(Error::corruption(format!("manifest {} claims version {}", path.display(), manifest.version)));
        }
        Ok(manifest)
    }

    /// Pins the newest version and returns its manifest. The version's segments
    /// stay on disk until [`DbDir::unpin`] is called, whatever other processes
    /// commit or collect meanwhile.
    pub fn pin_latest(&self) -> Result<Arc<Manifest>> {
        let mut pins = self.pins.lock().unwrap();
        let path = self.root.join(GC_LOCK);
        if let Some(file) = &pins.file {
            flock(file, libc::LOCK_SH).map_err(io_err("locking", &path))?;
        }
        let result = (|| {
            let version = self.latest_version()?;
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
        Self::unpin_locked(&mut self.pins.lock().unwrap(), version);
    }

    /// Takes `commit.lock`, waiting for another commit or collection to end.
    pub fn lock_commits(&self) -> Result<CommitLock> {
        self.refuse_read_only()?;
        let path = self.root.join(COMMIT_LOCK);
        let file = open_lock_file(&path)?.ok_or_else(|| {
            Error::operational(format!("cannot create {}: is the database on read-only media?", path.display()))
        })?;
        if !flock_exclusive_within(&file, COMMIT_LOCK_TIMEOUT).map_err(io_err("locking", &path))? {
            return Err(Error::operational(format!(
                "another process has held {} for {} s (a commit or garbage collection that does not end); nothing was written",
                path.display(),
                COMMIT_LOCK_TIMEOUT.as_secs()
            )));
        }
        failpoint::hit("commit.after_lock")?;
        Ok(CommitLock { file })
    }

    /// Publishes `manifest` as its version. Returns `Ok(false)` when that
    /// version already exists. The caller holds `commit.lock` and numbered the
    /// manifest one above the newest version it saw under that lock.
    pub fn publish(&self, manifest: &Manifest, _lock: &CommitLock) -> Result<bool> {
        let dir = self.root.join(MANIFESTS);
        let lease = self.lease_id()?;
        let tmp = dir.join(format!("tmp-{lease}-{}", manifest.version));
        let target = dir.join(manifest_name(manifest.version));
        {
            let mut f = create_private_file(&tmp).map_err(io_err("creating manifest", &tmp))?;
            let written = f.write_all(&manifest.to_json()).map_err(io_err("writing manifest", &tmp));
            if let Err(e) = written.and_then(|_| f.sync_all().map_err(io_err("syncing manifest", &tmp))) {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        }
        if let Err(e) = failpoint::hit("publish.before_link") {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        let linked = fs::hard_link(&tmp, &target);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                failpoint::hit("publish.after_link")?;
                sync_dir(&dir)?;
                // The next transaction of this handle starts from it: spare
                // reading back what was just written (numbers are never reused).
                *self.cache.lock().unwrap() = Some(Arc::new(manifest.clone()));
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(Error::io(format!("publishing manifest {}", target.display()), e)),
        }
    }

    /// Is the lease `id` held by a live handle (in any process)? A dead lease's
    /// file is removed on the way (only while holding its lock, so a lease that
    /// is being created is never removed after its owner locked it).
    fn lease_alive(&self, id: &str, own: Option<&str>) -> bool {
        if Some(id) == own {
            return true;
        }
        let path = self.root.join(LEASES).join(format!("{id}.lease"));
        // Only a lease file that is not there proves its writer gone (a
        // writer locks its lease before it makes any file named after it); a
        // file that could not be opened (no free descriptor) proves nothing.
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) => return e.kind() != io::ErrorKind::NotFound,
        };
        match try_flock(&file, libc::LOCK_EX) {
            Ok(true) => {
                if still_named(&file, &path) {
                    let _ = fs::remove_file(&path);
                }
                false
            }
            _ => true,
        }
    }

    /// Deletes manifests no live handle pins (keeping the newest), the segments
    /// only they referenced, and files left by crashed writers. Never removes
    /// anything a live reader in any process still pins. With `wait`, waits for
    /// the locks; without, skips the collection if another process holds them.
    ///
    /// Only what is proven dead is removed, nothing is concluded from a read
    /// that failed:
    /// - a lease, when its lock was taken here (its writer is gone);
    /// - a file named after a lease, when that lease is dead: its lock was
    ///   free, or its file is absent (`ENOENT`; any other failure to open it
    ///   counts as alive);
    /// - a manifest, when it is readable, older than the newest and pinned by
    ///   nobody; a damaged one is kept for `verify()` to report;
    /// - a segment, when a collected manifest named it and no kept one does,
    ///   or its writer's lease is dead. While any manifest is unreadable no
    ///   segment is removed (it may name any of them: [`GcReport::kept_for`]);
    /// - a key run (a cache), when its segment is gone.
    pub fn collect_garbage(&self, wait: bool) -> Result<GcReport> {
        if self.read_only {
            return Ok(GcReport::default());
        }
        let skipped = GcReport { skipped: true, ..Default::default() };
        let commit_path = self.root.join(COMMIT_LOCK);
        let Some(commit_file) = open_lock_file(&commit_path)? else { return Ok(skipped) };
        let gc_path = self.root.join(GC_LOCK);
        let Some(gc_file) = open_lock_file(&gc_path)? else { return Ok(skipped) };
        let commit_held = if wait {
            flock_exclusive_within(&commit_file, COMMIT_LOCK_TIMEOUT)
        } else {
            try_flock(&commit_file, libc::LOCK_EX)
        };
        if !commit_held.map_err(io_err("locking", &commit_path))? {
            return if wait {
                Err(Error::operational(format!(
                    "{} stayed locked for {} s; garbage was not collected",
                    commit_path.display(),
                    COMMIT_LOCK_TIMEOUT.as_secs()
                )))
            } else {
                Ok(skipped)
            };
        }
        let gc_held =
            if wait { flock(&gc_file, libc::LOCK_EX).map(|_| true) } else { try_flock(&gc_file, libc::LOCK_EX) };
        if !gc_held.map_err(io_err("locking", &gc_path))? {
            return Ok(skipped);
        }
        failpoint::hit("gc.after_lock")?;
        // Both locks are released when the files close at the end of this call.
        self.collect_locked(&gc_file)
    }

    fn collect_locked(&self, gc_file: &File) -> Result<GcReport> {
        let own_lease = self.lease.lock().unwrap().as_ref().map(|l| l.id.clone());
        let own = own_lease.as_deref();
        let mut report = GcReport::default();

        // Leases: clear dead ones.
        let leases_dir = self.root.join(LEASES);
        let mut alive: HashMap<String, bool> = HashMap::new();
        for entry in fs::read_dir(&leases_dir).map_err(io_err("listing", &leases_dir))? {
            let name = entry.map_err(io_err("listing", &leases_dir))?.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".lease") else { continue };
            let live = self.lease_alive(id, own);
            if !live {
                report.leases += 1;
            }
            alive.insert(id.to_string(), live);
        }

        // Manifests: keep the newest and every pinned one.
        let manifests_dir = self.root.join(MANIFESTS);
        let latest = self.latest_version()?;
        let mut keep_files = HashSet::new();
        let mut garbage_files = HashSet::new();
        let mut unreadable = None;
        for entry in fs::read_dir(&manifests_dir).map_err(io_err("listing", &manifests_dir))? {
            let name = entry.map_err(io_err("listing", &manifests_dir))?.file_name().to_string_lossy().into_owned();
            let path = manifests_dir.join(&name);
            let Some(version) = parse_manifest_name(&name) else {
                // A temporary manifest of a writer that died before publishing.
                let owner = owner_of(&name).unwrap_or_default().to_string();
                if !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own)) {
                    let _ = fs::remove_file(&path);
                }
                continue;
            };
            let manifest = match self.read_manifest_uncached(version) {
                Ok(m) => m,
                Err(e) if version == latest => return Err(e),
                // A damaged old manifest: keep it (and so its files) for
                // verify() to report; never guess what it referenced.
                Err(_) => {
                    unreadable = Some(path);
                    continue;
                }
            };
            let files = manifest.segment_files().map(str::to_string);
            let pinned = byte_locked_elsewhere(gc_file, version)
                .map_err(io_err("checking pins in", &self.root.join(GC_LOCK)))?;
            if version >= latest || pinned {
                keep_files.extend(files);
            } else {
                garbage_files.extend(files);
                failpoint::hit("gc.before_unlink")?;
                fs::remove_file(&path).map_err(io_err("removing manifest", &path))?;
                report.manifests += 1;
            }
        }

        // Segments: remove committed garbage, and orphans of dead writers;
        // none while a manifest could not be read, whose files are not known.
        if let Some(path) = unreadable {
            report.kept_for = Some(path);
            return Ok(report);
        }
        let segments_dir = self.root.join(SEGMENTS);
        let mut present = HashSet::new();
        for entry in fs::read_dir(&segments_dir).map_err(io_err("listing", &segments_dir))? {
            let name = entry.map_err(io_err("listing", &segments_dir))?.file_name().to_string_lossy().into_owned();
            if keep_files.contains(&name) {
                continue;
            }
            present.insert(name.clone());
            let remove = garbage_files.contains(&name) || {
                let owner = owner_of(&name).unwrap_or_default().to_string();
                !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own))
            };
            if remove {
                let path = segments_dir.join(&name);
                match fs::remove_file(&path) {
                    Ok(()) => report.segments += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io(format!("removing segment {}", path.display()), e)),
                }
                present.remove(&name);
            }
        }

        // Key runs: a cache of their segment, removed with it (listed after
        // the segments, so a run of a segment created since may go too,
        // which costs a rebuild only), and temporary files of dead writers.
        let keys_dir = self.root.join(KEYS);
        let Ok(runs) = fs::read_dir(&keys_dir) else { return Ok(report) };
        for entry in runs {
            let name = entry.map_err(io_err("listing", &keys_dir))?.file_name().to_string_lossy().into_owned();
            let remove = match key_run_segment(&name) {
                Some(segment) => !keep_files.contains(segment) && !present.contains(segment),
                None => {
                    let owner = owner_of(&name).unwrap_or_default().to_string();
                    !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own))
                }
            };
            if remove {
                let _ = fs::remove_file(keys_dir.join(&name));
            }
        }
        Ok(report)
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

/// Lays out a new database in the directory `root` (empty but for the
/// caller's own files; parts already there are kept).
fn init(root: &Path) -> Result<()> {
    for sub in [MANIFESTS, SEGMENTS, LEASES] {
        ensure_private_dir(&root.join(sub))?;
    }
    let marker = root.join(MARKER);
    let tmp = root.join(format!("{MARKER}.tmp"));
    let text = format!("{{\"format\": \"swingdb\", \"format_version\": {PLAIN_FORMAT_VERSION}}}\n");
    let _ = fs::remove_file(&tmp);
    let mut f = create_private_file(&tmp).map_err(io_err("creating", &tmp))?;
    f.write_all(text.as_bytes()).map_err(io_err("writing", &tmp))?;
    f.sync_all().map_err(io_err("syncing", &tmp))?;
    fs::rename(&tmp, &marker).map_err(io_err("creating", &marker))?;
    sync_dir(root)?;
    if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
        sync_dir(parent)?;
    }
    Ok(())
}

fn check_marker(marker: &Path) -> Result<()> {
    let text = fs::read_to_string(marker).map_err(io_err("reading", marker))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Error::corruption(format!("{} is damaged: {e}", marker.display())))?;
    if json.get("format").and_then(|v| v.as_str()) != Some("swingdb") {
        return Err(Error::operational(format!("{} is not a swingdb marker file", marker.display())));
    }
    let version = json.get("format_version").and_then(|v| v.as_u64()).unwrap_or(u64::MAX);
    if version > FORMAT_VERSION as u64 {
        return Err(Error::new(
            ErrorKind::Operational,
            format!(
                "database {} has format version {version}, this swingdb reads up to {FORMAT_VERSION}: upgrade swingdb",
                marker.parent().unwrap_or(marker).display()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_a_database_and_newer_format_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "hello").unwrap();
        let err = DbDir::open(tmp.path(), true, false).unwrap_err();
        assert!(err.message().contains("not a swingdb database"), "{}", err.message());

        let db = tmp.path().join("new.swingdb");
        drop(DbDir::open(&db, true, false).unwrap());
        std::fs::write(db.join(MARKER), "{\"format\": \"swingdb\", \"format_version\": 9}").unwrap();
        let err = DbDir::open(&db, true, false).unwrap_err();
        assert!(err.message().contains("upgrade swingdb"), "{}", err.message());
    }

    #[test]
    fn a_database_under_a_directory_others_may_rename_in_is_written_only_with_the_sticky_bit() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let shared = tmp.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        let db = shared.join("project").join("d");
        std::fs::create_dir_all(&db).unwrap();
        drop(DbDir::open(&db, true, false).unwrap());
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        for path in [&db, &shared.join("project").join("new")] {
            let err = DbDir::open(path, true, false).unwrap_err();
            assert!(
                err.message().contains("shared, can be written by other users without the sticky bit (mode 777)"),
                "{}",
                err.message()
            );
        }
        assert!(!shared.join("project").join("new").exists(), "nothing was made");
        drop(DbDir::open(&db, false, true).unwrap()); // reading stays allowed
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        drop(DbDir::open(&db, true, false).unwrap());
    }

    #[test]
    fn second_publish_of_a_version_loses() {
        let tmp = tempfile::tempdir().unwrap();
        let a = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
        let b = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
        let m = Manifest { version: 1, ..Default::default() };
        assert!(a.publish(&m, &a.lock_commits().unwrap()).unwrap());
        assert!(!b.publish(&m, &b.lock_commits().unwrap()).unwrap());
        assert_eq!(b.latest_version().unwrap(), 1);
    }

    #[test]
    fn gc_keeps_pinned_versions_of_other_handles_and_clears_dead_leases() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("d");
        let writer = DbDir::open(&root, true, false).unwrap();
        let reader = DbDir::open(&root, true, false).unwrap();
        for v in 1..=3 {
            writer.publish(&Manifest { version: v, ..Default::default() }, &writer.lock_commits().unwrap()).unwrap();
            if v == 1 {
                assert_eq!(reader.pin_latest().unwrap().version, 1);
            }
        }
        let report = writer.collect_garbage(true).unwrap();
        assert_eq!(report.manifests, 1, "only version 2 is unpinned and old");
        assert!(root.join(MANIFESTS).join(manifest_name(1)).exists());
        drop(reader);
        // A crashed writer's orphan segment and lease file (not locked by anyone).
        std::fs::write(root.join(LEASES).join("dead.lease"), "").unwrap();
        std::fs::write(root.join(SEGMENTS).join("dead-0.arrow"), "x").unwrap();
        let report = writer.collect_garbage(true).unwrap();
        assert_eq!(report.manifests, 1);
        assert_eq!(report.segments, 1);
        assert_eq!(report.leases, 1);
        assert!(!root.join(MANIFESTS).join(manifest_name(1)).exists());
    }

    #[test]
    fn gc_removes_nothing_it_could_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("d");
        let db = DbDir::open(&root, true, false).unwrap();
        // A lease that exists but cannot be opened (a link to itself: ELOOP,
        // as EMFILE would be): its writer may be alive, its files stay.
        std::os::unix::fs::symlink("busy.lease", root.join(LEASES).join("busy.lease")).unwrap();
        std::fs::write(root.join(SEGMENTS).join("busy-0.arrow"), "x").unwrap();
        let report = db.collect_garbage(true).unwrap();
        assert_eq!((report.segments, report.leases), (0, 0));
        assert!(root.join(SEGMENTS).join("busy-0.arrow").exists());
        // An old manifest that cannot be read may name any segment: none is removed.
        for v in 1..=2 {
            db.publish(&Manifest { version: v, ..Default::default() }, &db.lock_commits().unwrap()).unwrap();
        }
        std::fs::write(root.join(MANIFESTS).join(manifest_name(1)), "{damaged").unwrap();
        std::fs::write(root.join(SEGMENTS).join("gone-0.arrow"), "x").unwrap();
        let report = db.collect_garbage(true).unwrap();
        assert_eq!(report.kept_for, Some(root.join(MANIFESTS).join(manifest_name(1))));
        assert!(
            root.join(SEGMENTS).join("gone-0.arrow").exists(),
            "a segment the damaged manifest may name was removed"
        );
        // Without it, the dead writer's file goes.
        std::fs::remove_file(root.join(MANIFESTS).join(manifest_name(1))).unwrap();
        let report = db.collect_garbage(true).unwrap();
        assert_eq!((report.segments, report.kept_for), (1, None));
    }
}
