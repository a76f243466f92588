//! The database directory: its layout, the atomic publication of manifests, the
//! leases that tell other processes which versions this one still reads, and the
//! garbage collector that honours them.
//!
//! ```text
//! sales.swingdb/
//!   swingdb.json             format marker (kind + format version)
//!   manifests/<version>.json one immutable manifest per committed version
//!   segments/<lease>-<n>.arrow  immutable Arrow IPC segment files
//!   leases/<lease>.lease     one per open database handle, flock()ed while alive,
//!                            listing the versions that handle still pins
//!   gc.lock                  readers pin under a shared lock, GC runs under an exclusive one
//! ```
//!
//! Publishing version N is `link(tmp, manifests/N.json)`, which fails if another
//! writer published N first: two writers can never both publish the same version.

use super::manifest::{Manifest, FORMAT_VERSION};
use crate::error::{Error, ErrorKind, Result};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const MARKER: &str = "swingdb.json";
const MANIFESTS: &str = "manifests";
const SEGMENTS: &str = "segments";
const LEASES: &str = "leases";
const GC_LOCK: &str = "gc.lock";

fn io_err(what: impl std::fmt::Display, path: &Path) -> impl FnOnce(io::Error) -> Error {
    let context = format!("{what} {}", path.display());
    move |e| Error::io(context, e)
}

fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
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

/// fsyncs a directory so that file creations, links and unlinks in it are durable.
pub fn sync_dir(path: &Path) -> Result<()> {
    File::open(path).and_then(|d| d.sync_all()).map_err(io_err("syncing directory", path))
}

fn random_id() -> String {
    let mut bytes = [0u8; 8];
    if File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes)).is_err() {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        bytes = (t.as_nanos() as u64 ^ ((std::process::id() as u64) << 32)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

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

/// A lease: a lock file held for the lifetime of one open database handle. Its
/// content lists the versions the handle pins; the lock tells others it is alive.
#[derive(Debug)]
struct Lease {
    id: String,
    path: PathBuf,
    file: File,
    pins: BTreeMap<u64, usize>,
}

impl Lease {
    fn acquire(dir: &Path) -> Result<Self> {
        let id = random_id();
        let path = dir.join(LEASES).join(format!("{id}.lease"));
        let file = OpenOptions::new().read(true).write(true).create_new(true).open(&path).map_err(io_err("creating lease", &path))?;
        flock(&file, libc::LOCK_EX | libc::LOCK_NB).map_err(io_err("locking lease", &path))?;
        Ok(Self { id, path, file, pins: BTreeMap::new() })
    }

    fn write_pins(&mut self) -> Result<()> {
        let text: String = self.pins.keys().map(|v| format!("{v}\n")).collect();
        self.file.set_len(0).map_err(io_err("writing lease", &self.path))?;
        use std::os::unix::fs::FileExt;
        self.file.write_all_at(text.as_bytes(), 0).map_err(io_err("writing lease", &self.path))
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
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
}

/// An open database directory. One per database handle; many may exist for the
/// same directory, in this and other processes.
#[derive(Debug)]
pub struct DbDir {
    root: PathBuf,
    read_only: bool,
    /// Removes the directory when dropped (in-memory databases).
    ephemeral: bool,
    lease: Mutex<Lease>,
    next_segment: AtomicU64,
    cache: Mutex<Option<Arc<Manifest>>>,
}

impl DbDir {
    /// Opens the database directory at `root`, creating it when `create` is set
    /// and it does not exist yet.
    pub fn open(root: &Path, create: bool, read_only: bool) -> Result<Self> {
        let marker = root.join(MARKER);
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
                fs::create_dir_all(root).map_err(io_err("creating database directory", root))?;
                init(root)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::operational(format!("database {} does not exist", root.display())))
            }
            Err(e) => return Err(Error::io(format!("opening database {}", root.display()), e)),
        }
        let lease = Lease::acquire(root)?;
        Ok(Self {
            root: root.to_path_buf(),
            read_only,
            ephemeral: false,
            lease: Mutex::new(lease),
            next_segment: AtomicU64::new(0),
            cache: Mutex::new(None),
        })
    }

    /// Creates a fresh private database directory in memory (tmpfs) that is
    /// removed when this handle is dropped. Directories that crashed processes
    /// left behind are removed on the way.
    pub fn in_memory() -> Result<Self> {
        let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        sweep_abandoned_memory_databases(&base);
        let root = base.join(format!("{MEMORY_PREFIX}{}-{}", std::process::id(), random_id()));
        let mut dir = Self::open(&root, true, false)?;
        dir.ephemeral = true;
        Ok(dir)
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this handle refuses writes.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Path of a segment file by name.
    pub fn segment_path(&self, file: &str) -> PathBuf {
        self.root.join(SEGMENTS).join(file)
    }

    /// A fresh, unused path for a new segment, owned by this handle's lease.
    pub fn new_segment_path(&self) -> PathBuf {
        let lease = self.lease.lock().unwrap().id.clone();
        let n = self.next_segment.fetch_add(1, Ordering::Relaxed);
        self.root.join(SEGMENTS).join(format!("{lease}-{n}.arrow"))
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

    /// Reads manifest `version` (0 is the empty database).
    pub fn read_manifest(&self, version: u64) -> Result<Arc<Manifest>> {
        if version == 0 {
            return Ok(Arc::new(Manifest::default()));
        }
        if let Some(m) = self.cache.lock().unwrap().as_ref().filter(|m| m.version == version) {
            return Ok(m.clone());
        }
        let path = self.root.join(MANIFESTS).join(manifest_name(version));
        let bytes = fs::read(&path).map_err(io_err("reading manifest", &path))?;
        let manifest = Manifest::from_json(&bytes, &path.display().to_string())?;
        if manifest.version != version {
            return Err(Error::corruption(format!("manifest {} claims version {}", path.display(), manifest.version)));
        }
        let manifest = Arc::new(manifest);
        *self.cache.lock().unwrap() = Some(manifest.clone());
        Ok(manifest)
    }

    fn gc_lock(&self, exclusive: bool) -> Result<File> {
        let path = self.root.join(GC_LOCK);
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io_err("opening", &path))?;
        flock(&file, if exclusive { libc::LOCK_EX } else { libc::LOCK_SH }).map_err(io_err("locking", &path))?;
        Ok(file)
    }

    /// Pins the newest version and returns its manifest. The version's segments
    /// stay on disk until [`DbDir::unpin`] is called, whatever other processes
    /// commit or collect meanwhile.
    pub fn pin_latest(&self) -> Result<Arc<Manifest>> {
        let _guard = self.gc_lock(false)?;
        let version = self.latest_version()?;
        self.pin(version)?;
        match self.read_manifest(version) {
            Ok(m) => Ok(m),
            Err(e) => {
                self.unpin(version);
                Err(e)
            }
        }
    }

    /// Records a pin; the caller holds the shared GC lock, so a collector never
    /// reads a half-written lease.
    fn pin(&self, version: u64) -> Result<()> {
        let mut lease = self.lease.lock().unwrap();
        let count = lease.pins.entry(version).or_insert(0);
        *count += 1;
        if *count == 1 {
            lease.write_pins()?;
        }
        Ok(())
    }

    /// Adds one more pin on a version this handle already pins.
    pub fn repin(&self, version: u64) -> Result<()> {
        let _guard = self.gc_lock(false)?;
        self.pin(version)
    }

    /// Releases one pin of `version`.
    pub fn unpin(&self, version: u64) {
        let _guard = self.gc_lock(false);
        let mut lease = self.lease.lock().unwrap();
        if let Some(count) = lease.pins.get_mut(&version) {
            *count -= 1;
            if *count == 0 {
                lease.pins.remove(&version);
                let _ = lease.write_pins();
            }
        }
    }

    /// Publishes `manifest` as its version. Returns `Ok(false)` when that version
    /// already exists (another writer won the race).
    pub fn publish(&self, manifest: &Manifest) -> Result<bool> {
        if self.read_only {
            return Err(Error::operational(format!("database {} is open read-only", self.root.display())));
        }
        let dir = self.root.join(MANIFESTS);
        let lease = self.lease.lock().unwrap().id.clone();
        let tmp = dir.join(format!("tmp-{lease}-{}", manifest.version));
        let target = dir.join(manifest_name(manifest.version));
        {
            let mut f = File::create(&tmp).map_err(io_err("creating", &tmp))?;
            f.write_all(&manifest.to_json()).map_err(io_err("writing", &tmp))?;
            f.sync_all().map_err(io_err("syncing", &tmp))?;
        }
        let linked = fs::hard_link(&tmp, &target);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                sync_dir(&dir)?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(Error::io(format!("publishing {}", target.display()), e)),
        }
    }

    /// Is the lease `id` held by a live handle (in any process)? A dead lease's
    /// file is removed on the way.
    fn lease_alive(&self, id: &str, own: &str) -> bool {
        if id == own {
            return true;
        }
        let path = self.root.join(LEASES).join(format!("{id}.lease"));
        let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else { return false };
        if flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
            let _ = fs::remove_file(&path);
            return false;
        }
        true
    }

    /// Deletes manifests no live handle pins (keeping the newest), the segments
    /// only they referenced, and files left by crashed writers. Never removes
    /// anything a live reader in any process still pins.
    pub fn collect_garbage(&self) -> Result<GcReport> {
        if self.read_only {
            return Ok(GcReport::default());
        }
        let _guard = self.gc_lock(true)?;
        let own = self.lease.lock().unwrap().id.clone();
        let mut report = GcReport::default();

        // Versions pinned by live leases.
        let leases_dir = self.root.join(LEASES);
        let mut pinned = HashSet::new();
        let mut alive: HashMap<String, bool> = HashMap::new();
        for entry in fs::read_dir(&leases_dir).map_err(io_err("listing", &leases_dir))? {
            let name = entry.map_err(io_err("listing", &leases_dir))?.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".lease") else { continue };
            let live = self.lease_alive(id, &own);
            if live {
                let text = fs::read_to_string(leases_dir.join(&name)).unwrap_or_default();
                pinned.extend(text.lines().filter_map(|l| l.trim().parse::<u64>().ok()));
            } else {
                report.leases += 1;
            }
            alive.insert(id.to_string(), live);
        }

        // Manifests: keep the newest and every pinned one.
        let manifests_dir = self.root.join(MANIFESTS);
        let latest = self.latest_version()?;
        let mut keep_files = HashSet::new();
        let mut garbage_files = HashSet::new();
        for entry in fs::read_dir(&manifests_dir).map_err(io_err("listing", &manifests_dir))? {
            let name = entry.map_err(io_err("listing", &manifests_dir))?.file_name().to_string_lossy().into_owned();
            let path = manifests_dir.join(&name);
            let Some(version) = parse_manifest_name(&name) else {
                // A temporary manifest of a writer that died before publishing.
                let owner = owner_of(&name).unwrap_or_default().to_string();
                if !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, &own)) {
                    let _ = fs::remove_file(&path);
                }
                continue;
            };
            let manifest = match self.read_manifest_uncached(&path) {
                Ok(m) => m,
                Err(e) if version == latest => return Err(e),
                Err(_) => continue,
            };
            let files = manifest.segment_files().map(str::to_string);
            // Versions published while this collection runs are newer than
            // `latest`: they are kept like the newest.
            if version >= latest || pinned.contains(&version) {
                keep_files.extend(files);
            } else {
                garbage_files.extend(files);
                fs::remove_file(&path).map_err(io_err("removing", &path))?;
                report.manifests += 1;
            }
        }

        // Segments: remove committed garbage, and orphans of dead writers.
        let segments_dir = self.root.join(SEGMENTS);
        for entry in fs::read_dir(&segments_dir).map_err(io_err("listing", &segments_dir))? {
            let name = entry.map_err(io_err("listing", &segments_dir))?.file_name().to_string_lossy().into_owned();
            if keep_files.contains(&name) {
                continue;
            }
            let remove = garbage_files.contains(&name) || {
                let owner = owner_of(&name).unwrap_or_default().to_string();
                !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, &own))
            };
            if remove {
                match fs::remove_file(segments_dir.join(&name)) {
                    Ok(()) => report.segments += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io(format!("removing segment {name}"), e)),
                }
            }
        }
        Ok(report)
    }

    fn read_manifest_uncached(&self, path: &Path) -> Result<Manifest> {
        let bytes = fs::read(path).map_err(io_err("reading manifest", path))?;
        Manifest::from_json(&bytes, &path.display().to_string())
    }
}

impl Drop for DbDir {
    fn drop(&mut self) {
        if self.ephemeral {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// Name prefix of in-memory database directories.
const MEMORY_PREFIX: &str = "swingdb-mem-";

/// Whether process `pid` is gone (kill(pid, 0) fails with ESRCH).
fn process_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence; nothing is sent.
    let failed = unsafe { libc::kill(pid, 0) } == -1;
    failed && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Removes in-memory database directories under `base` whose creating process
/// is gone and whose every lease is unlocked: their process died without
/// dropping them (a crash or SIGKILL).
fn sweep_abandoned_memory_databases(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(MEMORY_PREFIX).and_then(|rest| rest.split('-').next()?.parse::<i32>().ok()) else {
            continue;
        };
        if !process_gone(pid) {
            continue;
        }
        let root = entry.path();
        let Ok(leases) = fs::read_dir(root.join(LEASES)) else { continue };
        let alive = leases.flatten().any(|lease| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(lease.path())
                .map(|f| flock(&f, libc::LOCK_EX | libc::LOCK_NB).is_err())
                .unwrap_or(false)
        });
        if !alive {
            let _ = fs::remove_dir_all(&root);
        }
    }
}

fn init(root: &Path) -> Result<()> {
    for sub in [MANIFESTS, SEGMENTS, LEASES] {
        let p = root.join(sub);
        fs::create_dir_all(&p).map_err(io_err("creating", &p))?;
    }
    let marker = root.join(MARKER);
    let tmp = root.join(format!("{MARKER}.tmp"));
    let text = format!("{{\"format\": \"swingdb\", \"format_version\": {FORMAT_VERSION}}}\n");
    let mut f = File::create(&tmp).map_err(io_err("creating", &tmp))?;
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
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::corruption(format!("{} is damaged: {e}", marker.display())))?;
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
    fn abandoned_memory_databases_are_swept_live_ones_kept() {
        let base = tempfile::tempdir().unwrap();
        // Process ids above the kernel's pid_max (4194304 at most) never exist.
        let dead = base.path().join(format!("{MEMORY_PREFIX}99999999-dead"));
        drop(DbDir::open(&dead, true, false).unwrap());
        // A crash leaves the directory and its (now unlocked) lease file behind.
        std::fs::write(dead.join(LEASES).join("gone.lease"), "").unwrap();
        let live_root = base.path().join(format!("{MEMORY_PREFIX}99999998-live"));
        let live = DbDir::open(&live_root, true, false).unwrap();
        sweep_abandoned_memory_databases(base.path());
        assert!(!dead.exists(), "a directory nobody holds a lease on is removed");
        assert!(live_root.exists(), "a directory with a live lease is kept");
        let ours = base.path().join(format!("{MEMORY_PREFIX}{}-busy", std::process::id()));
        std::fs::create_dir_all(ours.join(LEASES)).unwrap();
        sweep_abandoned_memory_databases(base.path());
        assert!(ours.exists(), "a directory of a running process is kept, even while it has no lease yet");
        drop(live);
    }

    #[test]
    fn second_publish_of_a_version_loses() {
        let tmp = tempfile::tempdir().unwrap();
        let a = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
        let b = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
        let m = Manifest { version: 1, ..Default::default() };
        assert!(a.publish(&m).unwrap());
        assert!(!b.publish(&m).unwrap());
        assert_eq!(b.latest_version().unwrap(), 1);
    }

    #[test]
    fn gc_keeps_pinned_versions_of_other_handles_and_clears_dead_leases() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("d");
        let writer = DbDir::open(&root, true, false).unwrap();
        let reader = DbDir::open(&root, true, false).unwrap();
        for v in 1..=3 {
            writer.publish(&Manifest { version: v, ..Default::default() }).unwrap();
            if v == 1 {
                assert_eq!(reader.pin_latest().unwrap().version, 1);
            }
        }
        let report = writer.collect_garbage().unwrap();
        assert_eq!(report.manifests, 1, "only version 2 is unpinned and old");
        assert!(root.join(MANIFESTS).join(manifest_name(1)).exists());
        drop(reader);
        // A crashed writer's orphan segment and lease file (not locked by anyone).
        std::fs::write(root.join(LEASES).join("dead.lease"), "1\n").unwrap();
        std::fs::write(root.join(SEGMENTS).join("dead-0.arrow"), "x").unwrap();
        let report = writer.collect_garbage().unwrap();
        assert_eq!(report.manifests, 1);
        assert_eq!(report.segments, 1);
        assert_eq!(report.leases, 1);
        assert!(!root.join(MANIFESTS).join(manifest_name(1)).exists());
    }
}
