//! Key runs: the sorted key values of one large segment, persisted beside it.
//!
//! Checking uniqueness needs every key value of a table. Hashing the keys of a
//! 10^6-row table into memory takes about half a second, paid again by every
//! connection and process after opening. A segment with at least
//! [`RUN_MIN_ROWS`] rows instead gets a *run*: its non-NULL key values (in the
//! Arrow row format, which compares equal exactly when the values do),
//! sorted, each with its row's position in the segment, written once to
//! `keys/<segment>.<fingerprint>.keys` and memory-mapped by every later
//! reader; a probe is a binary search. The positions make a run an index
//! too: a lookup by key finds its row without reading the segment
//! ([`KeyRun::range`], used by scans with a key's equality or range filter).
//! A plain index (`CREATE INDEX`) has runs of the same form whose values may
//! repeat ([`RunKind::Index`], `keys/<segment>.<fingerprint>-all.keys`). The
//! fingerprint names the columns (their ids and types) and the kind, so a run
//! is never read for another key. A run is a cache: one missing, damaged (its
//! checksum) or unwritable is rebuilt from the segment, in memory if it cannot
//! be saved.
//!
//! # Files, and why every interleaving with other processes is safe
//!
//! A segment never changes and its name is never reused (see `storage::dir`),
//! so the run of a (segment, fingerprint) has one possible content: any number
//! of processes may build it at once. Each writes a private temporary file
//! `keys/tmp-<lease>-<n>` and renames it over the run's name; a reader that
//! mapped the earlier file keeps that (identical) inode. A run is built only
//! for a segment its builder can read: one of a pinned version or its own
//! uncommitted one, so the segment cannot be collected meanwhile.
//! The collector removes a run once its segment is neither kept nor present
//! (see [`crate::DbDir::collect_garbage`]), and temporary files of dead
//! leases. Racing a builder, it may remove a run whose segment it did not see
//! yet; that costs a rebuild, never a wrong answer. Runs are not fsynced: a
//! run torn by a crash fails its checksum and is rebuilt.

use crate::error::{Error, Result};
use crate::keys::columns::KeyColumns;
use crate::keys::fence::{first_past, Fence, STRIDE};
use crate::manifest::deleted::DeletedRows;
use crate::{DbDir, SegmentMeta, SegmentStore, TableMeta};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Segments with at least this many rows get a persisted run; the keys of
/// smaller ones (inline rows, a transaction's tail, small appends until
/// compaction merges them) are hashed in memory by the key index, where
/// adding one costs less than re-sorting (lookups by key sort them in
/// memory once per segment, see [`lookup_run`]).
pub const RUN_MIN_ROWS: u64 = 8192;

/// Whether `segment` gets a saved run: a file segment of at least
/// [`RUN_MIN_ROWS`] rows.
pub fn has_saved_run(segment: &SegmentMeta) -> bool {
    segment.inline.is_none() && segment.rows >= RUN_MIN_ROWS
}

/// Version 2 added the positions; a run of version 1 fails the check and is
/// rebuilt (runs are a cache).
const MAGIC: &[u8; 8] = b"SWKEYRN2";
/// Magic, key count (u64), data length (u64), CRC-32 of the rest (u32), padding;
/// then count + 1 offsets (u64) into the data, the data (the keys, sorted), and
/// each key's row position in the segment (u32, in key order).
const HEADER: usize = 8 + 8 + 8 + 4 + 4;

/// The sorted, distinct key values of one segment, with their rows' positions.
pub struct KeyRun {
    bytes: Bytes,
    count: usize,
    /// Where a run built here goes once saved.
    unsaved: Option<PathBuf>,
    /// Every 64th key, made by the first search (see `keys::fence`).
    fence: OnceLock<Fence>,
}

impl std::fmt::Debug for KeyRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyRun({} keys)", self.count)
    }
}

enum Bytes {
    Mapped(Mmap),
    Built(Vec<u8>),
}

/// What a run holds: the values of a key (PRIMARY KEY or UNIQUE), each once,
/// or those of a plain index, which may repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// A key's values: a segment holding one twice has no run.
    Key,
    /// An index's values, repeating ones in position order, NULLs included.
    Index,
}

/// One end of a range of a run's values: row-format bytes of its first
/// columns (the whole key, or a prefix of it), and whether values equal to
/// it are in the range.
#[derive(Debug, Clone, Copy)]
pub struct Bound<'a> {
    /// The bytes of the first columns' values.
    pub value: &'a [u8],
    /// Whether values whose first columns equal it are in the range.
    pub inclusive: bool,
}

impl Bound<'_> {
    /// How `value` (row-format bytes of a run's columns) compares with the
    /// bound: equal when its first columns' bytes are the bound's (the row
    /// format of a column ends where its value does, so no value's bytes are
    /// a prefix of another's), else as its bytes do (the row format orders
    /// as the values).
    fn order_of(&self, value: &[u8]) -> std::cmp::Ordering {
        match value.starts_with(self.value) {
            true => std::cmp::Ordering::Equal,
            false => value.cmp(self.value),
        }
    }

    /// Whether `value` is in a range this bound is the lower end of.
    pub fn passes_low(&self, value: &[u8]) -> bool {
        match self.order_of(value) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => self.inclusive,
            std::cmp::Ordering::Greater => true,
        }
    }

    /// Whether `value` is in a range this bound is the upper end of.
    pub fn passes_high(&self, value: &[u8]) -> bool {
        match self.order_of(value) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => self.inclusive,
            std::cmp::Ordering::Greater => false,
        }
    }
}

/// What indexing a segment's keys found.
pub enum Indexed {
    /// The segment's run.
    Run(KeyRun),
    /// A key value the segment holds twice.
    Duplicate(Vec<u8>),
}

impl KeyRun {
    /// The run of `segment` (of `table`) for `key`: the saved one if it is
    /// intact, else built from the segment (see [`KeyRun::save`]).
    pub fn of_segment(
        store: &SegmentStore,
        table: &TableMeta,
        segment: &SegmentMeta,
        key: &KeyColumns,
        kind: RunKind,
        rewritten_from: Option<(&KeyRun, &DeletedRows)>,
    ) -> Result<Indexed> {
        let dir = store.dir();
        // Only a segment large enough has a run saved (or worth saving): for
        // the others (inline rows, a single-row UPDATE's new version) no
        // file is looked for.
        let path = has_saved_run(segment).then(|| dir.key_run_path(&segment.file, &fingerprint(table, key, kind)));
        if let Some(run) = path.as_deref().and_then(Self::open) {
            return Ok(Indexed::Run(run));
        }
        if let Some(mut run) = rewritten_from.and_then(|(source, removed)| source.without(removed, segment.rows)) {
            run.unsaved = path.filter(|_| !dir.read_only());
            return Ok(Indexed::Run(run));
        }
        // Every row's key, deleted rows' too: a run serves every version of
        // the table, whichever rows it deleted (see `crate::keys`). A key's
        // run leaves out rows with a NULL (they never collide); an index's
        // has every row, so that a lookup by a prefix of its columns finds
        // rows with NULLs after it.
        let mut keys: Vec<(Box<[u8]>, u32)> = Vec::with_capacity(segment.rows as usize);
        let mut start = 0usize;
        let skip_nulls = kind == RunKind::Key;
        for batch in store.map(table, segment)?.all_batches(Some(&key.positions))? {
            key.for_each_where(batch.columns(), skip_nulls, |value, row| {
                keys.push((value.into(), (start + row) as u32))
            })?;
            start += batch.num_rows();
        }
        if u32::try_from(start).is_err() {
            return Err(Error::internal(format!("segment {} has more rows than a key run can place", segment.file)));
        }
        keys.sort_unstable();
        if kind == RunKind::Key {
            if let Some(pair) = keys.windows(2).find(|pair| pair[0].0 == pair[1].0) {
                return Ok(Indexed::Duplicate(pair[0].0.to_vec()));
            }
        }
        let mut run = Self::built(encode(&keys), keys.len());
        run.unsaved = path.filter(|_| !dir.read_only());
        Ok(Indexed::Run(run))
    }

    /// The run of a segment written as the rows of this run's segment, in
    /// order, without those `removed`: the same values less those rows',
    /// each at its row's new position (its old one less the removed rows
    /// before it). A pass over the run, where building it from the new
    /// segment would sort its keys again: so a large segment rewritten
    /// without its deleted rows gets its run for a fraction of the cost.
    /// `None` if a row would land past the new segment's `rows` (then its
    /// rows are not these, and its run is built from them).
    pub fn without(&self, removed: &DeletedRows, rows: u64) -> Option<KeyRun> {
        let gaps: Vec<(u64, u64)> = removed.runs().collect();
        let mut below = Vec::with_capacity(gaps.len() + 1);
        below.push(0u64);
        for &(start, end) in &gaps {
            below.push(below[below.len() - 1] + (end - start));
        }
        let mut keys: Vec<(&[u8], u32)> = Vec::with_capacity(self.count);
        for i in 0..self.count {
            let position = self.position_at(i);
            let at = gaps.partition_point(|&(_, end)| end <= position);
            if gaps.get(at).is_some_and(|&(start, _)| start <= position) {
                continue;
            }
            let moved = position - below[at];
            if moved >= rows {
                return None;
            }
            keys.push((self.key(i), moved as u32));
        }
        Some(Self::built(encode(&keys), keys.len()))
    }

    /// Saves a run just built (once the index took it: the run of a segment
    /// whose rows were refused is not worth a file). A failure is only
    /// logged: the run is rebuilt when next needed.
    pub fn save(&mut self, dir: &DbDir) {
        let (Some(path), Bytes::Built(bytes)) = (self.unsaved.take(), &self.bytes) else { return };
        if let Err(e) = dir.save_key_run(&path, bytes) {
            log::info!("key run {} not saved (it is rebuilt when next needed): {e}", path.display());
        }
    }

    fn built(bytes: Vec<u8>, count: usize) -> Self {
        Self { bytes: Bytes::Built(bytes), count, unsaved: None, fence: OnceLock::new() }
    }

    /// The run saved at `path`, if it is there and intact.
    fn open(path: &Path) -> Option<Self> {
        let file = File::open(path).ok()?;
        // SAFETY: runs are never written in place (a new one is renamed over
        // the name), so the mapped bytes do not change under us.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        let count = check(&map)?;
        Some(Self { bytes: Bytes::Mapped(map), count, unsaved: None, fence: OnceLock::new() })
    }

    fn slice(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Built(v) => v,
        }
    }

    /// Number of key values.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the run holds no key value.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `i`-th smallest key value.
    fn key(&self, i: usize) -> &[u8] {
        let bytes = self.slice();
        let offset = |j: usize| {
            let at = HEADER + 8 * j;
            u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
        };
        let data = HEADER + 8 * (self.count + 1);
        &bytes[data + offset(i)..data + offset(i + 1)]
    }

    /// Whether `key` is one of the values.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.find(key).is_some()
    }

    /// The position in the segment of the row whose key is `key`, if one is
    /// (deleted rows included: the caller knows which are).
    pub fn position(&self, key: &[u8]) -> Option<u64> {
        self.find(key).map(|i| self.position_at(i))
    }

    /// The indices (into the sorted values) of the values between `low` and
    /// `high` (no bound: unbounded on that side; see [`Bound`]).
    pub fn range(&self, low: Option<Bound>, high: Option<Bound>) -> std::ops::Range<usize> {
        let start = low.map_or(0, |low| self.first_where(0, |key| low.passes_low(key)));
        let end = high.map_or(self.count, |high| self.first_where(start, |key| !high.passes_high(key)));
        start..end.max(start)
    }

    /// The first index from `from` on whose value `past` holds (`past` is
    /// false, then true, along the sorted values); the count if none. A
    /// large run is searched over its fence first (see `keys::fence`).
    fn first_where(&self, from: usize, past: impl Fn(&[u8]) -> bool) -> usize {
        let (mut low, mut high) = (from, self.count);
        if self.count >= 4 * STRIDE {
            let fence = self.fence.get_or_init(|| Fence::of(self.count, |i| self.key(i)));
            // The first from `from` on is `from` itself once it is past the first of all.
            let (start, end) = fence.narrow(self.count, &past);
            (low, high) = (start.max(from), end.max(from));
        }
        first_past(low..high, |i| past(self.key(i)))
    }

    /// The position in the segment of the row of the `i`-th smallest value.
    pub fn position_at(&self, i: usize) -> u64 {
        let bytes = self.slice();
        let at = bytes.len() - 4 * (self.count - i);
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as u64
    }

    /// The index of `key` among the sorted values, if it is one.
    fn find(&self, key: &[u8]) -> Option<usize> {
        let at = self.first_where(0, |value| value >= key);
        (at < self.count && self.key(at) == key).then_some(at)
    }

    /// A key value both runs hold and `accept` takes, if any: a merge of the
    /// two when they are of similar size, binary searches of the smaller's
    /// values in the larger one's otherwise.
    pub fn shared_where(&self, other: &KeyRun, accept: impl Fn(&[u8]) -> bool) -> Option<Vec<u8>> {
        let (small, large) = if self.count <= other.count { (self, other) } else { (other, self) };
        let searches = small.count * (usize::BITS - large.count.leading_zeros()) as usize;
        if searches < small.count + large.count {
            return (0..small.count).map(|i| small.key(i)).find(|k| large.contains(k) && accept(k)).map(<[u8]>::to_vec);
        }
        let (mut i, mut j) = (0, 0);
        while i < small.count && j < large.count {
            match small.key(i).cmp(large.key(j)) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal if accept(small.key(i)) => return Some(small.key(i).to_vec()),
                std::cmp::Ordering::Equal => (i, j) = (i + 1, j + 1),
            }
        }
        None
    }

    /// The values, smallest first.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.count).map(|i| self.key(i))
    }
}

/// The name under which the store keeps the runs of `key` of `table` (see
/// [`lookup_run`]): the same for every segment of the table, so a lookup
/// makes it once.
pub fn run_name(table: &TableMeta, key: &KeyColumns, kind: RunKind) -> String {
    format!("key run {}", fingerprint(table, key, kind))
}

/// The run of `segment` (of `table`) for `key`, kept under `name` (its
/// [`run_name`]), for lookups: kept by the store once mapped and checked
/// (or built and saved). A segment too small for a saved run (inline, or
/// fewer than [`RUN_MIN_ROWS`] rows) gets one built in memory only, kept by
/// the store as long as the segment is live, so that a lookup reads its
/// keys once, not at every lookup. `None` for a segment whose key values
/// repeat (never in a table whose key held when written).
pub fn lookup_run(
    store: &SegmentStore,
    table: &TableMeta,
    segment: &SegmentMeta,
    key: &KeyColumns,
    kind: RunKind,
    name: &str,
) -> Result<Option<Arc<KeyRun>>> {
    store.derived(segment, name, || {
        Ok(match KeyRun::of_segment(store, table, segment, key, kind, None)? {
            // Saved only if the segment is one to have a saved run.
            Indexed::Run(mut run) => {
                run.save(store.dir());
                Some(run)
            }
            Indexed::Duplicate(_) => None,
        })
    })
}

/// Builds and saves the runs of every plain index of `table` for its
/// segments large enough to have saved runs and that have none in the
/// store yet: an index is kept up by the writes that add segments (and by
/// `CREATE INDEX` for the segments already there), so lookups find the runs
/// ready. Cheap when they are (one lookup in the store per segment).
pub fn build_index_runs(store: &SegmentStore, table: &TableMeta) -> Result<()> {
    for columns in table.constraints.indexes.values() {
        let key = KeyColumns::new(&table.schema, columns)?;
        let name = run_name(table, &key, RunKind::Index);
        for segment in table.segments.iter().filter(|s| has_saved_run(s)) {
            lookup_run(store, table, segment, &key, RunKind::Index, &name)?;
        }
    }
    Ok(())
}

/// Removes the saved runs of an index on `columns` of `table` (one that
/// `DROP INDEX` dropped), which the collector would otherwise keep as long
/// as their segments. Runs are a cache, so every interleaving is safe: a
/// process still mapping one keeps its inode; one whose snapshot still has
/// the index (or a DROP INDEX rolled back) rebuilds a run it misses, and may
/// save it again, which then waits for its segment's collection.
pub fn remove_index_runs(store: &SegmentStore, table: &TableMeta, columns: &[String]) -> Result<()> {
    let key = KeyColumns::new(&table.schema, columns)?;
    let fingerprint = fingerprint(table, &key, RunKind::Index);
    for segment in table.segments.iter().filter(|s| has_saved_run(s)) {
        let _ = std::fs::remove_file(store.dir().key_run_path(&segment.file, &fingerprint));
    }
    Ok(())
}

/// Names the run's columns as the segment stores them: their ids (positions
/// for a table never altered) and types; an index's runs end in `-all`.
fn fingerprint(table: &TableMeta, key: &KeyColumns, kind: RunKind) -> String {
    let columns: Vec<(u32, String)> = key
        .positions
        .iter()
        .map(|&p| {
            (table.column_ids.ids.get(p).copied().unwrap_or(p as u32), table.schema.field(p).data_type().to_string())
        })
        .collect();
    let crc = crc32fast::hash(format!("{columns:?}").as_bytes());
    match kind {
        RunKind::Key => format!("{crc:08x}"),
        RunKind::Index => format!("{crc:08x}-all"),
    }
}

/// The file bytes of `keys` (sorted, with their rows' positions).
fn encode<K: AsRef<[u8]>>(keys: &[(K, u32)]) -> Vec<u8> {
    let total: usize = keys.iter().map(|(k, _)| k.as_ref().len()).sum();
    let mut bytes = Vec::with_capacity(HEADER + 8 * (keys.len() + 1) + total + 4 * keys.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&(total as u64).to_le_bytes());
    bytes.extend_from_slice(&[0; 8]);
    let mut offset = 0u64;
    bytes.extend_from_slice(&offset.to_le_bytes());
    for (key, _) in keys {
        offset += key.as_ref().len() as u64;
        bytes.extend_from_slice(&offset.to_le_bytes());
    }
    for (key, _) in keys {
        bytes.extend_from_slice(key.as_ref());
    }
    for (_, position) in keys {
        bytes.extend_from_slice(&position.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes[HEADER..]);
    bytes[24..28].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// The key count of run file bytes, if their header, sizes and checksum agree.
fn check(bytes: &[u8]) -> Option<usize> {
    let header = bytes.get(..HEADER)?;
    let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
    let (count, total) = (usize::try_from(word(8)).ok()?, usize::try_from(word(16)).ok()?);
    let expected = count
        .checked_add(1)?
        .checked_mul(8)?
        .checked_add(total)?
        .checked_add(HEADER)?
        .checked_add(count.checked_mul(4)?)?;
    let crc = u32::from_le_bytes(header[24..28].try_into().expect("4 bytes"));
    (&header[..8] == MAGIC && bytes.len() == expected && crc32fast::hash(&bytes[HEADER..]) == crc).then_some(count)
}

#[cfg(test)]
mod tests;
