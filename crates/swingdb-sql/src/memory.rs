//! The memory queries may take, and where they spill what does not fit.
//!
//! Every query of the process reserves its operators' memory (sorts,
//! aggregations, joins, repartitions) from one pool, DataFusion's
//! [`MemoryPool`], whose limit is `memory_limit`: by default 70 % of its
//! memory cgroup's limit (v1 `memory.limit_in_bytes` or v2 `memory.max`, the
//! least of its group and those above) where it has one (DuckDB takes 80 %
//! of what it may use; see [`DEFAULT_SHARE`] for why less), else none; `SET memory_limit = '2GB'` or
//! `connect(memory_limit=)` change it. It covers the whole process (all its databases and
//! connections), which is what a cgroup limits. Operators that can spill
//! (sorts, aggregations) share what the others leave, each its fair part, and
//! write their state to files under `temp_directory` (`SET temp_directory`,
//! by default the system's temporary directory) when it would exceed that
//! part; an operator that cannot spill and does not fit fails the query with
//! an error naming the limit and the operators holding memory, before the
//! kernel kills the process.
//!
//! What queries read from stored tables is mapped from the segment files,
//! not reserved: the kernel reclaims those pages under pressure. Loads
//! gather at most an eighth of the limit of a segment's rows in memory
//! before they spool them to a scratch file, and end a segment once its
//! spool holds half the limit, or a sixteenth of RAM without one (see
//! `storage::writer`).

use crate::byte_sizes::{format_bytes, parse_size};
use datafusion::common::DataFusionError;
use datafusion::execution::cache::cache_manager::CacheManagerConfig;
use datafusion::execution::disk_manager::{DiskManager, DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, TrackConsumersPool,
};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::spill_file::{SpillFile, TempFileFactory};
use datafusion::prelude::SessionConfig;
use parking_lot::{Mutex, RwLock};
use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use swingdb_storage::error::{Error, Result};

/// The part of the memory the process may use that queries may reserve by
/// default: the rest is for what is not reserved (batches being handed
/// over, the writer, Python, and DataFusion's hash join, which copies its
/// build side's batches into one without reserving the copy). DuckDB takes
/// 80 %; with 80 % TPC-H SF30 Q9 in a 2 GiB cgroup kept a hash join whose
/// build side was estimated to fit 1.72 GB, and the copy took the process
/// past the cgroup's limit, which killed it. With 70 % that join sorts and
/// merges instead, and the query answers.
const DEFAULT_SHARE: f64 = 0.7;

/// Cgroup limits at least this large mean "no limit" (v1 writes 2^63 rounded
/// down to a page).
const UNLIMITED: u64 = 1 << 60;

/// Operators named in the error of a query that does not fit.
const NAMED_CONSUMERS: usize = 5;

/// The pool every query of the process reserves from.
static POOL: LazyLock<Arc<TrackConsumersPool<LimitedPool>>> = LazyLock::new(|| {
    let limit = default_limit().map_or(usize::MAX, |bytes| bytes as usize);
    let pool = LimitedPool { limit: AtomicUsize::new(limit), reserved: Mutex::default() };
    Arc::new(TrackConsumersPool::new(pool, NonZeroUsize::new(NAMED_CONSUMERS).expect("not zero")))
});

/// Where queries spill.
static SPILL: LazyLock<Arc<SpillPlace>> =
    LazyLock::new(|| Arc::new(SpillPlace { directory: RwLock::new(None), files: RwLock::new(os_temp_files()) }));

/// The runtime every session of the process runs its queries in.
pub fn runtime() -> Arc<RuntimeEnv> {
    static RUNTIME: LazyLock<Arc<RuntimeEnv>> = LazyLock::new(|| {
        // Slices of mapped segments count the bytes they address.
        datafusion::common::utils::memory::set_file_mapping_check(
            swingdb_storage::segment::stitched::starts_file_pages,
        );
        let disks = DiskManagerBuilder::default().with_mode(DiskManagerMode::Custom(SPILL.clone()));
        // No cache of directory listings: DataFusion's keeps every listing
        // for the life of the process (no expiry by default), so a glob or a
        // directory read again missed files added since (fewer rows, no
        // error) and failed on files removed. A listing is cheap on a local
        // disk; DuckDB lists again for every query too. (The caches of file
        // statistics and metadata stay: they check each file's size and
        // modification time before they answer.)
        let caches = CacheManagerConfig::default().with_list_files_cache_limit(0);
        let built = RuntimeEnvBuilder::new()
            .with_memory_pool(POOL.clone())
            .with_disk_manager_builder(disks)
            .with_cache_manager(caches)
            .build()
            .expect("a runtime of a pool and a custom spill place builds");
        Arc::new(built)
    });
    RUNTIME.clone()
}

/// The process's runtime with a pool of its own that counts what is
/// reserved through it (and reserves it from the process's pool, under the
/// same limit): a connection runs its statements in one, so that what its
/// unfinished results hold can be told (see [`CountedPool::reserved`]).
pub fn counted_runtime() -> (Arc<RuntimeEnv>, Arc<CountedPool>) {
    let pool = Arc::new(CountedPool { process: POOL.clone(), held: AtomicUsize::new(0) });
    let built = RuntimeEnvBuilder::from_runtime_env(&runtime())
        .with_memory_pool(pool.clone())
        .build_arc()
        .expect("a runtime made from the process's builds");
    (built, pool)
}

/// A pool that reserves from the process's and counts what its reservations
/// hold (see [`counted_runtime`]).
#[derive(Debug)]
pub struct CountedPool {
    process: Arc<TrackConsumersPool<LimitedPool>>,
    held: AtomicUsize,
}

impl CountedPool {
    /// Bytes reserved through this pool now.
    pub fn reserved(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }
}

impl fmt::Display for CountedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.process, f)
    }
}

impl MemoryPool for CountedPool {
    fn name(&self) -> &str {
        self.process.name()
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.process.register(consumer)
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.process.unregister(consumer)
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.process.grow(reservation, additional);
        self.held.fetch_add(additional, Ordering::Relaxed);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.process.shrink(reservation, shrink);
        let _ = self.held.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| Some(held.saturating_sub(shrink)));
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> datafusion::common::Result<()> {
        self.process.try_grow(reservation, additional)?;
        self.held.fetch_add(additional, Ordering::Relaxed);
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.process.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.process.memory_limit()
    }
}

/// The settings this module answers for (DuckDB's names), lower case.
pub const SETTINGS: &[&str] = &["memory_limit", "max_memory", "temp_directory"];

/// Applies `SET name = value` for one of [`SETTINGS`].
pub fn set(name: &str, value: &str) -> Result<()> {
    match name.to_ascii_lowercase().as_str() {
        "memory_limit" | "max_memory" => set_memory_limit(value),
        "temp_directory" => set_temp_directory(value),
        other => Err(Error::internal(format!("'{other}' is not a memory setting"))),
    }
}

/// The value of one of [`SETTINGS`] as `SHOW` and `current_setting` give it.
pub fn shown(name: &str) -> Option<String> {
    match name.to_ascii_lowercase().as_str() {
        "memory_limit" | "max_memory" => Some(match memory_limit() {
            Some(bytes) => format_bytes(bytes),
            None => "none".to_string(),
        }),
        "temp_directory" => Some(temp_directory().display().to_string()),
        _ => None,
    }
}

/// Sets the memory queries of this process may reserve: a size as DuckDB
/// takes it (`'2GB'`, `'1.5GiB'`, `'512MB'`, bytes as a plain number; KB, MB,
/// GB, TB count in powers of 1000, KiB, MiB, GiB, TiB in powers of 1024), or
/// `'none'` for no limit.
pub fn set_memory_limit(value: &str) -> Result<()> {
    let bytes = match value.trim().to_ascii_lowercase().as_str() {
        "none" | "unlimited" | "-1" => usize::MAX,
        _ => parse_size(value)
            .filter(|&bytes| bytes > 0)
            .ok_or_else(|| {
                Error::programming(format!(
                    "SET memory_limit: '{value}' is not a size; give one like '2GB', '512MiB' or 'none'"
                ))
            })?
            .try_into()
            .unwrap_or(usize::MAX),
    };
    POOL.inner().limit.store(bytes, Ordering::Relaxed);
    Ok(())
}

/// Part of `memory_limit` a load may gather of a segment's rows before it
/// spools them to a scratch file (see `storage::writer`): an eighth.
const GATHER_SHARE: usize = 8;

/// Bytes of a segment's rows a load gathers in memory (see [`GATHER_SHARE`]).
pub fn gather_bytes() -> usize {
    POOL.inner().limit.load(Ordering::Relaxed) / GATHER_SHARE
}

/// Bytes of a segment's rows a load spools before it writes the segment out
/// (see `storage::writer`): half the limit, so that the spool is still in
/// the page cache when it is read back; without a limit, a sixteenth of the
/// machine's RAM (spools of lineitem SF10's 32M-row segments, 5 GB, made its
/// load take 109 s on a 24 GiB machine where spools of 1.6 GB took 45).
pub fn spool_bytes() -> usize {
    match POOL.inner().limit.load(Ordering::Relaxed) {
        usize::MAX => physical_memory().map_or(1 << 30, |ram| (ram / 16) as usize),
        limit => limit / 2,
    }
}

/// Part of `memory_limit` a sort keeps back at most for merging its spilled
/// runs: a sixteenth.
const SORT_MERGE_SHARE: usize = 16;

/// `config` with what a sort keeps back for merging its spilled runs
/// (DataFusion's `sort_spill_reservation_bytes`, 10 MB) cut to a sixteenth
/// of `memory_limit`, where it is more; `None` where it is not. Kept back
/// whole, 10 MB was most of a small limit: under 16 MB, TPC-H's queries with
/// a sort failed with "Not enough memory to continue external sort".
pub fn within_limit(config: &SessionConfig) -> Option<SessionConfig> {
    let most = POOL.inner().limit.load(Ordering::Relaxed) / SORT_MERGE_SHARE;
    let kept = config.options().execution.sort_spill_reservation_bytes;
    (kept > most).then(|| {
        let mut config = config.clone();
        config.options_mut().execution.sort_spill_reservation_bytes = most;
        config
    })
}

/// The memory queries of this process may reserve (`None`: no limit).
pub fn memory_limit() -> Option<u64> {
    let limit = POOL.inner().limit.load(Ordering::Relaxed);
    (limit != usize::MAX).then_some(limit as u64)
}

/// Sets the directory queries spill to (created if missing, private to the
/// user); spill files already written stay where they are until their query ends.
pub fn set_temp_directory(value: &str) -> Result<()> {
    let path = PathBuf::from(value.trim());
    if value.trim().is_empty() {
        return Err(Error::programming("SET temp_directory: give a directory"));
    }
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&path)
        .map_err(|e| Error::io(format!("SET temp_directory: creating {}", path.display()), e))?;
    let files = DiskManagerBuilder::default()
        .with_mode(DiskManagerMode::Directories(vec![path.clone()]))
        .build()
        .map_err(|e| Error::operational(format!("SET temp_directory '{}': {e}", path.display())))?;
    *SPILL.files.write() = Arc::new(files);
    *SPILL.directory.write() = Some(path);
    Ok(())
}

/// The directory queries spill to.
pub fn temp_directory() -> PathBuf {
    SPILL.directory.read().clone().unwrap_or_else(std::env::temp_dir)
}

/// Memory DataFusion's operators reserve, under a limit that can change
/// while the process runs: operators that can spill share what the others
/// leave (each its fair part, so one sort cannot starve another), the
/// others take what is free.
#[derive(Debug)]
struct LimitedPool {
    limit: AtomicUsize,
    reserved: Mutex<Reserved>,
}

#[derive(Debug, Default)]
struct Reserved {
    /// Consumers that can spill.
    spillers: usize,
    /// Bytes they hold.
    spillable: usize,
    /// Bytes the others hold.
    unspillable: usize,
}

impl fmt::Display for LimitedPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "memory_limit {}", format_bytes(self.limit.load(Ordering::Relaxed) as u64))
    }
}

impl MemoryPool for LimitedPool {
    fn name(&self) -> &str {
        "swingdb::memory_limit"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        if consumer.can_spill() {
            self.reserved.lock().spillers += 1;
        }
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        if consumer.can_spill() {
            let mut reserved = self.reserved.lock();
            reserved.spillers = reserved.spillers.saturating_sub(1);
        }
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        let mut reserved = self.reserved.lock();
        match reservation.consumer().can_spill() {
            true => reserved.spillable += additional,
            false => reserved.unspillable += additional,
        }
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        let mut reserved = self.reserved.lock();
        match reservation.consumer().can_spill() {
            true => reserved.spillable = reserved.spillable.saturating_sub(shrink),
            false => reserved.unspillable = reserved.unspillable.saturating_sub(shrink),
        }
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> datafusion::common::Result<()> {
        let limit = self.limit.load(Ordering::Relaxed);
        let mut reserved = self.reserved.lock();
        let consumer = reservation.consumer();
        let fits = match consumer.can_spill() {
            true => {
                let share = limit.saturating_sub(reserved.unspillable) / reserved.spillers.max(1);
                reservation.size().saturating_add(additional) <= share
            }
            false => reserved.unspillable.saturating_add(reserved.spillable).saturating_add(additional) <= limit,
        };
        if !fits {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "the query needs more memory than memory_limit ({}) allows: {} asked for {} more while holding {}. \
                 SET memory_limit higher (or to 'none'), or run the query on less data at once",
                format_bytes(limit as u64),
                consumer.name(),
                format_bytes(additional as u64),
                format_bytes(reservation.size() as u64),
            )));
        }
        match consumer.can_spill() {
            true => reserved.spillable += additional,
            false => reserved.unspillable += additional,
        }
        Ok(())
    }

    fn reserved(&self) -> usize {
        let reserved = self.reserved.lock();
        reserved.spillable + reserved.unspillable
    }

    fn memory_limit(&self) -> MemoryLimit {
        match self.limit.load(Ordering::Relaxed) {
            usize::MAX => MemoryLimit::Infinite,
            limit => MemoryLimit::Finite(limit),
        }
    }
}

/// Where spill files are made: DataFusion's own files in a directory that
/// `SET temp_directory` can change while the process runs.
struct SpillPlace {
    /// The directory set, if any (else the system's temporary directory).
    directory: RwLock<Option<PathBuf>>,
    files: RwLock<Arc<DiskManager>>,
}

impl TempFileFactory for SpillPlace {
    fn create_temp_file(&self, description: &str) -> datafusion::common::Result<Arc<dyn SpillFile>> {
        let files = self.files.read().clone();
        files.create_tmp_file(description).map_err(|e| {
            DataFusionError::ResourcesExhausted(format!(
                "cannot spill to temp_directory {} ({e}); SET temp_directory to a writable directory with room",
                temp_directory().display()
            ))
        })
    }
}

/// Spill files in a directory of their own under the system's temporary directory.
fn os_temp_files() -> Arc<DiskManager> {
    Arc::new(DiskManagerBuilder::default().build().expect("the system's temporary directory needs no setup"))
}

/// [`DEFAULT_SHARE`] of the memory the process's cgroup may use, if it is
/// limited (else no limit: queries may take what the machine has, as before).
fn default_limit() -> Option<u64> {
    let cgroup = cgroup_limit()?;
    let usable = physical_memory().map_or(cgroup, |ram| ram.min(cgroup));
    Some((usable as f64 * DEFAULT_SHARE) as u64)
}

/// The machine's RAM.
pub fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system constants.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

/// The least memory limit of the cgroups this process is in (its own and
/// those above it), v1 or v2.
pub fn cgroup_limit() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_limit_in(&membership, Path::new("/sys/fs/cgroup"))
}

/// [`cgroup_limit`] for the membership lines `membership` (as
/// `/proc/self/cgroup` lists them) under the cgroup filesystem at `root`.
fn cgroup_limit_in(membership: &str, root: &Path) -> Option<u64> {
    let mut least: Option<u64> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(group)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let (base, file) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        let mut dir = base.join(group.trim_start_matches('/'));
        loop {
            let limit = std::fs::read_to_string(dir.join(file)).ok().and_then(|t| t.trim().parse::<u64>().ok());
            if let Some(limit) = limit.filter(|&l| l < UNLIMITED) {
                least = Some(least.map_or(limit, |l| l.min(limit)));
            }
            if dir == base || !dir.pop() {
                break;
            }
        }
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_limit_of_a_cgroup_and_those_above_it_counts_in_v1_and_v2() {
        let root = tempfile::tempdir().unwrap();
        let write = |dir: &str, file: &str, text: &str| {
            let dir = root.path().join(dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(file), text).unwrap();
        };
        // v2: the group's own memory.max is "max", its parent's is set.
        write("user.slice", "memory.max", "4294967296\n");
        write("user.slice/job", "memory.max", "max\n");
        assert_eq!(cgroup_limit_in("0::/user.slice/job\n", root.path()), Some(4 << 30));
        // v1: the memory controller's hierarchy; unlimited is a huge number.
        write("memory", "memory.limit_in_bytes", "9223372036854771712\n");
        write("memory/docker/abc", "memory.limit_in_bytes", "2147483648\n");
        let v1 = "12:cpu,cpuacct:/docker/abc\n5:memory:/docker/abc\n";
        assert_eq!(cgroup_limit_in(v1, root.path()), Some(2 << 30));
        // No memory controller, or no limit anywhere.
        assert_eq!(cgroup_limit_in("12:cpu,cpuacct:/docker/abc\n", root.path()), None);
        assert_eq!(cgroup_limit_in("5:memory:/\n", root.path()), None);
    }

    #[test]
    fn a_spilling_operator_gets_its_fair_part_and_the_others_what_is_free() {
        let pool: Arc<dyn MemoryPool> =
            Arc::new(LimitedPool { limit: AtomicUsize::new(1000), reserved: Mutex::default() });
        let sort = MemoryConsumer::new("ExternalSorter").with_can_spill(true).register(&pool);
        let other_sort = MemoryConsumer::new("ExternalSorter").with_can_spill(true).register(&pool);
        let join = MemoryConsumer::new("HashJoinInput").register(&pool);
        join.try_grow(400).unwrap();
        // 600 left for two spilling operators: 300 each.
        sort.try_grow(300).unwrap();
        assert!(sort.try_grow(1).is_err(), "more than its part: it must spill");
        other_sort.try_grow(300).unwrap();
        let error = join.try_grow(1).unwrap_err().to_string();
        assert!(error.contains("memory_limit (1000 bytes)") && error.contains("HashJoinInput"), "{error}");
        sort.free();
        join.try_grow(300).unwrap();
        assert_eq!(pool.reserved(), 1000);
    }
}
