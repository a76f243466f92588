//! The state one open database shares between its handle and all its
//! connections ([`DbCore`]): the segment store, snapshots it published,
//! attached databases, and the commit of a transaction; and the process's
//! one tokio runtime that all swingdb work runs on.

use crate::Attached;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use swingdb_share::home::Home;
use swingdb_share::Published;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::manifest::rebase::{only_relied_on, rebase, Rebase};
use swingdb_storage::{compact, write_out_inline, DbDir, Manifest, SegmentStore, TableMeta};

/// Stack of the engine's worker threads. Physical expressions of statements at
/// the expression-depth limit (`sql::frontend::parse::MAX_EXPRESSION_DEPTH`) are
/// evaluated recursively, one or more frames per level; 16 MiB (tokio's
/// default is 2) leaves ample room for that. It is address space only: pages
/// are used only as deep as a thread recurses.
const WORKER_STACK: usize = 16 << 20;

/// The tokio runtime all swingdb work runs on (one per process).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .thread_name("swingdb")
            .thread_stack_size(WORKER_STACK)
            .enable_all()
            .build()
            .expect("tokio runtime starts")
    })
}

/// State shared by a database handle and all its connections.
#[derive(Debug)]
pub struct DbCore {
    /// Its segments, mapped, and its directory.
    pub store: Arc<SegmentStore>,
    /// Whether its statements may read and write files and URLs (`enable_external_access`).
    pub external_access: bool,
    /// Where this database's snapshots and the databases attached from them live.
    pub home: Home,
    /// Snapshots published from this handle that end with it.
    pub(crate) shares: Mutex<Vec<Published>>,
    /// Snapshots attached in SQL (`ATTACH SNAPSHOT 'name' AS alias`), by alias.
    pub attached: Attached,
    /// Databases attached in SQL (`ATTACH 'path' AS alias`), by alias.
    pub databases: AttachedDatabases,
    /// Commits since this handle last collected garbage.
    commits_without_gc: AtomicU32,
    /// Whether a commit left garbage to collect (see [`DbCore::collect_if_due`]).
    gc_due: AtomicBool,
}

/// Every this many commits a handle collects garbage even when its commits
/// dropped no segment file, and at its first (see [`DbCore::commit`]).
const GC_EVERY_COMMITS: u32 = 32;

impl DbCore {
    /// The shared state of a database opened at `dir`; `verify_checksums`
    /// is ignored on tmpfs (memory never crossed a disk).
    pub(crate) fn new(dir: DbDir, verify_checksums: bool, external_access: bool, home: Home) -> Self {
        let verify = verify_checksums && !on_tmpfs(dir.root());
        let store = Arc::new(SegmentStore::new(Arc::new(dir), verify));
        DbCore {
            store,
            external_access,
            home,
            shares: Mutex::new(Vec::new()),
            attached: Attached::default(),
            databases: AttachedDatabases::default(),
            // The first commit collects: it cleans up after writers that crashed.
            commits_without_gc: AtomicU32::new(GC_EVERY_COMMITS - 1),
            gc_due: AtomicBool::new(false),
        }
    }

    /// The database's directory.
    pub fn dir(&self) -> &DbDir {
        self.store.dir()
    }

    /// Keeps `published` alive as long as this handle, forgetting snapshots
    /// that were discarded or replaced meanwhile.
    pub fn keep_share(&self, published: Published) {
        let mut shares = self.shares.lock();
        shares.retain(Published::is_current);
        shares.push(published);
    }

    /// Commits the tables `working` that a transaction derived from `base`.
    /// Tables the transaction did not change are taken from the newest
    /// version, and a table others changed meanwhile gets this transaction's
    /// change applied to it where the two combine (see `storage::rebase`):
    /// `check_keys` then checks its keys again (an `IntegrityError` stops the
    /// commit); where they do not, the commit fails with an
    /// [`ErrorKind::Conflict`]. `new_files` gains the files compaction writes.
    pub(crate) fn commit(
        &self,
        base: &Manifest,
        working: &BTreeMap<String, Arc<TableMeta>>,
        new_files: &mut Vec<PathBuf>,
        check_keys: &mut dyn FnMut(&str, &TableMeta) -> Result<()>,
    ) -> Result<Option<u64>> {
        let mut changed: BTreeMap<&str, Option<Arc<TableMeta>>> = BTreeMap::new();
        for (name, table) in working {
            if !base.tables.get(name).is_some_and(|b| Arc::ptr_eq(b, table)) {
                changed.insert(name, Some(table.clone()));
            }
        }
        for name in base.tables.keys() {
            if !working.contains_key(name) {
                changed.insert(name, None);
            }
        }
        if changed.is_empty() {
            return Ok(None);
        }
        let dir = self.dir();
        // Before compaction writes anything.
        dir.refuse_read_only()?;
        // A transaction's tail too large for the manifest becomes a file.
        for table in changed.values_mut().flatten() {
            if let Some((written, files)) = write_out_inline(dir, table)? {
                new_files.extend(files);
                *table = Arc::new(written);
            }
        }
        // Compacted before the lock, in the hope that nobody commits to the
        // table meanwhile (a table combined with others' commits under the
        // lock is compacted there instead, and this work is dropped).
        let mut compacted: BTreeMap<&str, Arc<TableMeta>> = BTreeMap::new();
        for (name, table) in &changed {
            let Some(table) = table else { continue };
            if only_relied_on(base.tables.get(*name).map(AsRef::as_ref), Some(table)) {
                continue;
            }
            if let Some(table) = self.compacted(table, new_files) {
                compacted.insert(name, Arc::new(table));
            }
        }
        // New files' names must be durable before a manifest names them (a
        // commit of inline rows only created none).
        if !new_files.is_empty() {
            dir.sync_segments()?;
        }
        // What others committed since `base` is read before the lock (an
        // error here is met again under it, and reported there).
        let _ = dir.catch_up();
        let (version, frees_files, flush) = {
            // Under the commit lock the newest version cannot change and no
            // garbage is collected: the number picked here was never used.
            let lock = dir.lock_commits()?;
            let latest_version = dir.latest_version_locked(&lock)?;
            let latest = if latest_version == base.version {
                Arc::new(base.clone())
            } else {
                dir.read_manifest(latest_version)?
            };
            let version = latest_version + 1;
            let mut tables = latest.tables.clone();
            let synced = new_files.len();
            for (name, mine) in &changed {
                let before = base.tables.get(*name).map(AsRef::as_ref);
                let now = latest.tables.get(*name).map(AsRef::as_ref);
                let mut table = match rebase(name, before, mine.as_deref(), now) {
                    Rebase::Relied => continue,
                    Rebase::Mine => match (compacted.get(name), mine) {
                        (Some(table), _) | (None, Some(table)) => table.as_ref().clone(),
                        (None, None) => {
                            tables.remove(*name);
                            continue;
                        }
                    },
                    Rebase::Combined(table) => {
                        check_keys(name, &table)?;
                        self.compacted(&table, new_files).unwrap_or(*table)
                    }
                    Rebase::Conflict(why) => {
                        return Err(Error::new(
                            ErrorKind::Conflict,
                            format!(
                                "{why} (committed as version {latest_version}) since this transaction began; \
                                 nothing was written: retry the transaction"
                            ),
                        ))
                    }
                };
                // Segments whose rows were all deleted are kept until here (see `storage::rebase`).
                table.segments.retain(|s| s.live_rows() > 0);
                table.modified = version;
                tables.insert(name.to_string(), Arc::new(table));
            }
            if new_files.len() > synced {
                dir.sync_segments()?;
            }
            let next = Manifest { version, tables };
            let Some(flush) = dir.publish_unflushed(&next, &lock)? else {
                return Err(Error::internal(format!(
                    "version {version} of {} was published by a process that did not hold its commit lock \
                     (an older swingdb?); nothing was written: retry",
                    dir.root().display()
                )));
            };
            self.store.retain(&next.segment_names().collect());
            let live: HashSet<&str> = next.segment_files().collect();
            // Segments this transaction wrote but never published (compaction
            // merged them away before the commit) are garbage already.
            new_files.retain(|f| {
                let published = f.file_name().and_then(|n| n.to_str()).is_some_and(|n| live.contains(n));
                if !published {
                    let _ = std::fs::remove_file(f);
                }
                published
            });
            (version, base.segment_files().any(|f| !live.contains(f)), flush)
        };
        // Flushed after the lock is let go: the next commits write their
        // records meanwhile, and their flushes overlap with this one. Others
        // may see the version already, as they may see any version the moment
        // it is written; a failure here leaves it published but perhaps not
        // on the disk, which the error says.
        flush.wait().map_err(|e| {
            Error::new(
                e.kind(),
                format!(
                    "version {version} was committed but could not be flushed to the disk ({}); \
                     other connections may already see it, and a power failure may lose it",
                    e.message()
                ),
            )
        })?;
        // Collecting garbage lists the segments and reads the logs, so it is
        // due when this commit dropped segment files; a commit that only added
        // rows leaves no garbage but its record (collected with its whole
        // log), and collection waits for every GC_EVERY_COMMITS-th commit (for
        // full logs and the files of crashed writers). It runs once the
        // transaction has let go of its version (`collect_if_due`): while
        // pinned, that version would be rebuilt from its log to learn its files.
        let since = self.commits_without_gc.fetch_add(1, Ordering::Relaxed) + 1;
        if frees_files || since >= GC_EVERY_COMMITS {
            self.gc_due.store(true, Ordering::Relaxed);
        }
        Ok(Some(version))
    }

    /// Collects garbage if a commit made it due (see [`Self::commit`]). It is
    /// housekeeping after a durable commit: its failure (or a lock held
    /// elsewhere) is logged, never an error of the commit.
    pub(crate) fn collect_if_due(&self) {
        if !self.gc_due.swap(false, Ordering::Relaxed) {
            return;
        }
        self.commits_without_gc.store(0, Ordering::Relaxed);
        if let Err(e) = self.dir().collect_garbage(false) {
            log::info!("garbage collection after a commit failed: {e}");
        }
    }

    /// `table` compacted (see [`compact`]), its new files added to
    /// `new_files`; `None` when it needs no compaction. Compaction is
    /// housekeeping: if it cannot run (a full disk needs room for a second
    /// copy of the small segments), the commit goes ahead without it and a
    /// later one compacts.
    fn compacted(&self, table: &TableMeta, new_files: &mut Vec<PathBuf>) -> Option<TableMeta> {
        match compact(&self.store, table) {
            Ok(Some((compacted, files))) => {
                new_files.extend(files);
                Some(compacted)
            }
            Ok(None) => None,
            Err(e) => {
                log::info!("compaction skipped: {e}");
                None
            }
        }
    }
}

/// Whether `path` is on a tmpfs (memory) filesystem.
fn on_tmpfs(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: a zeroed statfs is a valid value of this plain C struct; statfs
    // only writes into it.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: c_path is a valid NUL-terminated string and stat lives across the call.
    let rc = unsafe { libc::statfs(c_path.as_ptr(), &mut stat) };
    rc == 0 && stat.f_type == libc::TMPFS_MAGIC
}

/// A database attached to a handle with `ATTACH` (see `api::connection`'s `attach.rs`).
#[derive(Debug)]
pub struct AttachedDatabase {
    /// Its open state, shared with every connection that sees it.
    pub core: Arc<DbCore>,
    /// The path as attached, made absolute (`None` in memory).
    pub path: Option<PathBuf>,
    /// Attached with `(READ_ONLY)`: statements may not change it.
    pub read_only: bool,
}

/// The databases attached to a handle, by alias.
pub(crate) type AttachedDatabases = Mutex<BTreeMap<String, AttachedDatabase>>;
