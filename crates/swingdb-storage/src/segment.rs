//! Segments: immutable Arrow IPC files, written once with 64-byte aligned buffers
//! and read back by memory-mapping them, so that a decoded column *is* a window
//! into the mapped file (no `read()` into private memory, no copy).

use crate::encoding::compressed::{hash_compressed, physical_type};
use crate::encoding::{self, is_encoded, stores};
use crate::error::{Error, Result};
use crate::manifest::SegmentMeta;
use crate::segment::decode::{decode, layout_crc};
use crate::segment::parallel::{column_bytes, in_parallel};
use crate::segment::read_ahead::Advice;
use datafusion::arrow::array::{Array, ArrayData, RecordBatch};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::SchemaRef;
use memmap2::Mmap;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::{Arc, LazyLock, OnceLock, Weak};

pub mod bus_errors;
pub mod decode;
pub mod ipc_file;
pub mod joined_buffers;
pub mod parallel;
pub mod read_ahead;
pub mod scan_checks;
pub mod stitched;
pub mod store;
pub mod stream;
pub mod write;
pub mod writer;

/// Buffer alignment inside segment files; 64 bytes is what Arrow recommends and
/// what SIMD kernels and numpy like.
pub const ALIGNMENT: usize = 64;

/// A segment file mapped into memory and decoded into record batches whose
/// buffers point into the mapping. The mapping lives as long as any batch, array
/// or buffer taken from it, also after the file is deleted.
#[derive(Debug)]
pub struct MappedSegment {
    path: PathBuf,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    mapping: Arc<Mapping>,
    /// How each column is checked when first handed out; empty when columns
    /// need no check (checked with the whole file, or not at all).
    checks: Vec<ColumnCheck>,
    /// Per column, once checked: whether it passed.
    checked: Vec<OnceLock<bool>>,
    /// Per column, once asked: whether its values ascend (see [`crate::manifest::ascending`]).
    ascending: Vec<OnceLock<bool>>,
}

/// How a column of a mapped segment is checked the first time it is handed out.
#[derive(Debug, Clone, Copy)]
enum ColumnCheck {
    /// Its bytes against the CRC-32 recorded when the file was written.
    Checksum(u32),
    /// Its arrays as valid Arrow data (offsets in bounds, UTF-8, dictionary
    /// keys), where checksums are not verified: what a reader may assume of
    /// any array, at the cost of a pass over the column, and only of columns a
    /// query reads (validating the whole file when it was mapped cost a fresh
    /// process's TPC-H SF10 Q7 2.2 s instead of 1.0, mostly UTF-8 checks of
    /// string columns the query never read).
    Validate,
}

/// A mapped segment file: the whole file as one buffer (every array buffer of
/// the segment is a slice of it) and the open file it maps.
#[derive(Debug)]
struct Mapping {
    buffer: Buffer,
    file: File,
}

/// The live mappings by start address, so that an address inside one can be
/// traced back to its file.
static MAPPINGS: LazyLock<Mutex<HashMap<usize, Weak<Mapping>>>> = LazyLock::new(Default::default);

/// Whether `address` is where a segment file is mapped (the start of the
/// allocation of every buffer decoded from it).
pub fn is_mapping_start(address: usize) -> bool {
    MAPPINGS.lock().contains_key(&address)
}

/// The segment file mapped at `address` (a new handle to it, valid also after
/// the file was unlinked) and the offset of `address` in it, if any.
pub fn locate_mapped(address: usize) -> Option<(File, u64)> {
    let map = MAPPINGS.lock();
    map.iter().find_map(|(&start, weak)| {
        let mapping = weak.upgrade()?;
        let offset = address.checked_sub(start)?;
        (offset < mapping.buffer.len()).then(|| Some((mapping.file.try_clone().ok()?, offset as u64))).flatten()
    })
}

impl Drop for MappedSegment {
    fn drop(&mut self) {
        let key = self.mapping.buffer.data_ptr().as_ptr() as usize;
        let mut map = MAPPINGS.lock();
        if map.get(&key).is_some_and(|w| w.as_ptr() == Arc::as_ptr(&self.mapping)) {
            map.remove(&key);
        }
    }
}

impl MappedSegment {
    /// Maps `path`, checks it against `meta`, and decodes it with the columns
    /// it holds. Checked: its size; the CRC-32 of its Arrow metadata (where
    /// each buffer is, a few KB) whenever the manifest has one; with `verify`,
    /// the CRC-32 of each column when it is first read (or of the whole file
    /// now, for segments written before per-column checksums); without, each
    /// column's arrays as valid Arrow data when first read.
    pub fn open(path: &Path, meta: &SegmentMeta, verify: bool) -> Result<Self> {
        let shown = path.display();
        let file = File::open(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Error::corruption(format!("segment {shown} is missing")),
            _ => Error::io(format!("opening segment {shown}"), e),
        })?;
        let buffer = map_file(&file).map_err(|e| Error::io(format!("mapping segment {shown}"), e))?;
        // Decoding touches a page at every buffer's start: read only those (see `read_ahead`).
        read_ahead::advise(&buffer, Advice::Random);
        if buffer.len() as u64 != meta.bytes {
            return Err(Error::corruption(format!(
                "segment {shown} is damaged: {} bytes on disk, {} expected",
                buffer.len(),
                meta.bytes
            )));
        }
        let per_column = meta.layout_crc32.is_some() && meta.column_crc32.len() == meta.stats.len();
        // The metadata is trusted (decoded without validating every array now)
        // once its checksum, or the whole file's, matched.
        let trusted = per_column || verify;
        if trusted {
            let (what, crc, expected) = match meta.layout_crc32.filter(|_| per_column) {
                Some(expected) => ("metadata checksum", layout_crc(&buffer), expected),
                None => ("checksum", Ok(crc32fast::hash(&buffer)), meta.crc32),
            };
            let crc = crc.map_err(|e| Error::corruption(format!("segment {shown} is damaged: {}", e.message())))?;
            if crc != expected {
                return Err(Error::corruption(format!(
                    "segment {shown} is damaged: {what} {crc:08x} does not match the manifest's {expected:08x}"
                )));
            }
        }
        let mapping = Arc::new(Mapping { buffer, file });
        let (schema, batches) = decode(&mapping.buffer, trusted)
            .map_err(|e| Error::corruption(format!("segment {shown} is damaged: {}", e.message())))?;
        if schema.fields().len() != meta.stats.len() {
            return Err(Error::corruption(format!(
                "segment {shown} holds {} columns, the manifest says {}",
                schema.fields().len(),
                meta.stats.len()
            )));
        }
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        if rows as u64 != meta.rows {
            return Err(Error::corruption(format!(
                "segment {shown} holds {rows} rows, the manifest says {}",
                meta.rows
            )));
        }
        read_ahead::advise(&mapping.buffer, Advice::Normal);
        MAPPINGS.lock().insert(mapping.buffer.data_ptr().as_ptr() as usize, Arc::downgrade(&mapping));
        let checks: Vec<ColumnCheck> = match (verify, per_column) {
            (true, true) => meta.column_crc32.iter().map(|&crc| ColumnCheck::Checksum(crc)).collect(),
            (false, true) => vec![ColumnCheck::Validate; meta.column_crc32.len()],
            // Checked whole above, or validated whole by the decoder.
            (_, false) => Vec::new(),
        };
        let checked = checks.iter().map(|_| OnceLock::new()).collect();
        let ascending = schema.fields().iter().map(|_| OnceLock::new()).collect();
        Ok(Self { path: path.to_path_buf(), schema, batches, mapping, checks, checked, ascending })
    }

    /// The decoded batches (zero-copy views into the mapping) with the columns
    /// of `projection` (all when `None`), each column checked (see
    /// [`ColumnCheck`]) the first time it is handed out: unchecked bytes never
    /// reach a query.
    pub fn batches(&self, projection: Option<&[usize]>) -> Result<Vec<RecordBatch>> {
        let all: Vec<usize>;
        let columns = match projection {
            Some(p) => p,
            None => {
                all = (0..self.schema.fields().len()).collect();
                &all
            }
        };
        for &c in columns {
            self.check_column(c)?;
        }
        self.batches_to_check(projection)
    }

    /// [`Self::batches`] without checking their columns: nothing may read
    /// their values before [`Self::check_column`] passed for each (see
    /// [`crate::segment::scan_checks`]).
    pub(super) fn batches_to_check(&self, projection: Option<&[usize]>) -> Result<Vec<RecordBatch>> {
        match projection {
            None => Ok(self.batches.clone()),
            Some(p) => Ok(self.batches.iter().map(|b| b.project(p)).collect::<std::result::Result<_, _>>()?),
        }
    }

    /// Asks the kernel to read the file's columns `columns` in the background.
    pub fn read_ahead(&self, columns: &[usize]) {
        let arrays: Vec<ArrayData> =
            self.batches.iter().flat_map(|b| columns.iter().map(|&c| b.column(c).to_data())).collect();
        read_ahead::will_need(&self.mapping.buffer, &arrays);
    }

    /// Where the file is mapped: every buffer of its batches lies in this range.
    pub fn addresses(&self) -> std::ops::Range<usize> {
        let start = self.mapping.buffer.as_ptr() as usize;
        start..start + self.mapping.buffer.len()
    }

    /// Whether the values of the file's column `column` ascend through the
    /// whole file, NULLs first; found out (after its checksum) on first ask.
    pub fn ascends(&self, column: usize) -> Result<bool> {
        // Numbers stored in runs (packed or compressed) are judged by their
        // narrowed values, in the order of the table's (narrowing keeps the
        // order). Another encoded column's order is not its values' (a
        // dictionary's keys): not judged.
        let stored = self.schema.field(column).data_type();
        let in_runs = encoding::physical_type(stored).filter(|p| p.is_integer() || p.is_numeric() && is_encoded(p));
        if in_runs.is_none() && is_encoded(stored) {
            return Ok(false);
        }
        self.check_column(column)?;
        Ok(*self.ascending[column].get_or_init(|| {
            let values =
                self.batches.iter().map(|b| encoding::decode_runs(b.column(column))).collect::<Result<Vec<_>>>();
            values.is_ok_and(|v| crate::manifest::ascending::ascends(&v))
        }))
    }

    /// Checks the file's column `column` (see [`ColumnCheck`]), once per
    /// mapping (later calls answer from the first).
    pub fn check_column(&self, column: usize) -> Result<()> {
        let Some(&check) = self.checks.get(column) else { return Ok(()) };
        let passed = *self.checked[column].get_or_init(|| {
            self.read_ahead(&[column]);
            match check {
                ColumnCheck::Checksum(expected) => column_crc(&self.batches, column) == expected,
                ColumnCheck::Validate => {
                    self.batches.iter().all(|b| b.column(column).to_data().validate_full().is_ok())
                }
            }
        });
        if passed {
            return Ok(());
        }
        let what = match check {
            ColumnCheck::Checksum(_) => "does not match its checksum",
            ColumnCheck::Validate => "is not valid Arrow data",
        };
        Err(Error::corruption(format!(
            "segment {} is damaged: column {} {what}",
            self.path.display(),
            self.schema.field(column).name()
        )))
    }

    /// Checks that the file still holds every byte that is mapped: a file
    /// shortened since it was mapped (by a backup, sync or cleanup tool;
    /// segment files are never changed by swingdb) would kill the process
    /// with SIGBUS at the first read past its new end. One `fstat` of the
    /// open file, done before each statement reads a segment this handle
    /// mapped before.
    pub fn check_size(&self) -> Result<()> {
        let size = self
            .mapping
            .file
            .metadata()
            .map_err(|e| Error::io(format!("inspecting segment {}", self.path.display()), e))?
            .len();
        let mapped = self.mapping.buffer.len() as u64;
        if size < mapped {
            return Err(Error::corruption(format!(
                "segment {} was shortened while the database was open: {size} bytes on disk, {mapped} expected; \
                 restore it from a backup (or the database from a snapshot)",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// The file this segment was mapped from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The columns the file holds (as named when it was written).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Maps a whole file as one Arrow buffer that owns the mapping.
fn map_file(file: &File) -> io::Result<Buffer> {
    // Another program may still truncate the file: the process then says
    // which file before it dies (see `segment/bus_errors.rs`).
    crate::segment::bus_errors::install();
    // SAFETY: segment files are never modified or truncated after they are
    // published (see module docs), so the mapping cannot change under us.
    let mmap = unsafe { Mmap::map(file) }?;
    let ptr = NonNull::new(mmap.as_ptr() as *mut u8).expect("mmap is never null");
    let len = mmap.len();
    // SAFETY: `ptr..ptr+len` is the mapping, which the `Arc` owner keeps alive for
    // as long as any buffer sliced from it exists.
    Ok(unsafe { Buffer::from_custom_allocation(ptr, len, Arc::new(mmap)) })
}

/// Layout and per-column checksums of a segment just written to `file`, read
/// back from the file itself (what a later reader will see).
pub(super) fn written_checksums(file: &File) -> Result<(u32, Vec<u32>)> {
    let buffer = map_file(file).map_err(|e| Error::io("mapping the new segment", e))?;
    let (schema, batches) = decode(&buffer, true)?;
    Ok((layout_crc(&buffer)?, (0..schema.fields().len()).map(|c| column_crc(&batches, c)).collect()))
}

/// The metadata of the segment file `file`, to be named `name`, computed
/// from its bytes alone: for a file another process offers (a pipe's
/// exporter), whose word on its size, checksums, rows and statistics is not
/// taken. The file must decode as valid Arrow data (every array validated)
/// with the column types of `schema` (or encodings of them), in order.
///
/// Not protected against: the offering process (of the same user, who owns
/// the file) changing the file's bytes after this read. Every process of a
/// user can change every file of that user, a database's own included.
pub fn describe_untrusted(file: &File, name: &str, schema: &SchemaRef) -> Result<SegmentMeta> {
    let buffer = map_file(file).map_err(|e| Error::io(format!("mapping offered segment {name}"), e))?;
    let damaged =
        |e: Error| Error::corruption(format!("offered segment {name} is not a valid segment: {}", e.message()));
    let (found, batches) = decode(&buffer, false).map_err(damaged)?;
    let types = |s: &SchemaRef| s.fields().iter().map(|f| f.data_type().clone()).collect::<Vec<_>>();
    let fits = found.fields().len() == schema.fields().len()
        && found.fields().iter().zip(schema.fields()).all(|(f, t)| stores(f.data_type(), t.data_type()));
    if !fits {
        return Err(Error::corruption(format!(
            "offered segment {name} holds columns of types {:?}, the pipe's schema says {:?}",
            types(&found),
            types(schema)
        )));
    }
    let columns = found.fields().len();
    // Statistics and column checksums on all cores, the file's checksum
    // meanwhile on this one (handing over 10^7 rows of the paper table took
    // 0.52 s, now 0.36 s; most of it is the distinct-value sketches).
    let of_column = |c: usize| {
        let table = schema.field(c).data_type();
        let arrays = batches.iter().map(|b| encoding::decode(b.column(c), table)).collect::<Result<Vec<_>>>()?;
        let stats = crate::manifest::stats::column_stats(&arrays);
        stats.map(|stats| (stats, column_crc(&batches, c)))
    };
    let (crc32, per_column) = std::thread::scope(|scope| {
        let per_column = scope.spawn(|| in_parallel(columns, |c| column_bytes(&batches, c), of_column));
        let crc32 = crc32fast::hash(&buffer);
        (crc32, per_column.join().unwrap_or_else(|_| Err(Error::internal("computing segment statistics panicked"))))
    });
    let (stats, column_crc32) = per_column?.into_iter().unzip();
    Ok(SegmentMeta {
        file: name.to_string(),
        rows: batches.iter().map(|b| b.num_rows() as u64).sum(),
        bytes: buffer.len() as u64,
        crc32,
        layout_crc32: Some(layout_crc(&buffer).map_err(damaged)?),
        column_crc32,
        stats,
        column_ids: None,
        inline: None,
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: found.fields().iter().zip(schema.fields()).any(|(f, t)| f.data_type() != t.data_type()),
        narrowed: encoding::narrows(&found, schema),
        packed: encoding::packs(&found),
    })
}

/// Adds the buffers of `data` to `hasher` as a column's checksum takes them:
/// validity, buffers, then children (a dictionary's values).
pub(super) fn hash_array_data(hasher: &mut crc32fast::Hasher, data: &ArrayData) {
    if let Some(nulls) = data.nulls() {
        hasher.update(nulls.buffer().as_slice());
    }
    for buffer in data.buffers() {
        hasher.update(buffer.as_slice());
    }
    for child in data.child_data() {
        hash_array_data(hasher, child);
    }
}

/// CRC-32 of one column's buffers across `batches` (validity, values, offsets
/// and children, in order).
fn column_crc(batches: &[RecordBatch], column: usize) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    for batch in batches {
        let array = batch.column(column);
        match physical_type(array.data_type()) {
            Some(_) => hash_compressed(&mut hasher, &array.to_data()),
            None => hash_array_data(&mut hasher, &array.to_data()),
        }
    }
    hasher.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::write;
    use crate::test_mappings::{cached_bytes, drop_cached};
    use datafusion::arrow::array::{ArrayRef, Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    fn write_segment(path: &Path, batch: &RecordBatch) -> Result<SegmentMeta> {
        write::write_segment(path, &batch.schema(), std::slice::from_ref(batch))
    }

    fn sample() -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![3, 1, 2])),
                Arc::new(StringArray::from(vec![Some("c"), None, Some("a")])),
            ],
        )
        .unwrap()
    }

    #[test]
    fn written_segment_maps_back_zero_copy_and_aligned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let meta = write_segment(&path, &batch).unwrap();
        assert_eq!(meta.rows, 3);
        let first = &meta.stats[0];
        assert_eq!((first.min.as_deref(), first.max.as_deref(), first.nulls), (Some("1"), Some("3"), 0));
        assert_eq!(first.distinct.as_ref().map(|d| d.estimate()), Some(3));
        assert_eq!(meta.stats[1].nulls, 1);
        assert_eq!(meta.stats[1].distinct.as_ref().map(|d| d.estimate()), Some(2), "NULL is not a value");
        assert_eq!(meta.stats[1].min.as_deref(), Some("a"));
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(seg.batches(None).unwrap(), vec![batch.clone()]);
        let values = seg.batches(None).unwrap()[0].column(0).to_data().buffers()[0].as_ptr() as usize;
        assert_eq!(values % ALIGNMENT, 0, "buffers are 64-byte aligned");
    }

    /// Rewrites `path` with byte `at` flipped (a new file: segments are never modified in place).
    fn flip(path: &Path, at: impl FnOnce(&[u8]) -> usize) {
        let mut bytes = std::fs::read(path).unwrap();
        let i = at(&bytes);
        bytes[i] ^= 0xff;
        std::fs::remove_file(path).unwrap();
        std::fs::write(path, &bytes).unwrap();
    }

    #[test]
    fn damaged_column_is_reported_when_read_and_other_columns_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let meta = write_segment(&path, &batch).unwrap();
        assert_eq!(meta.column_crc32.len(), 2);
        let ids: Vec<u8> = [3i64, 1, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        flip(&path, |bytes| bytes.windows(ids.len()).position(|w| w == ids).expect("id values in the file") + 8);
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(seg.batches(Some(&[1])).unwrap()[0].column(0), batch.column(1), "the intact column reads");
        let err = seg.batches(Some(&[0])).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption);
        assert!(err.message().contains("s.arrow") && err.message().contains("column id"), "{}", err.message());
        assert!(seg.batches(None).is_err(), "the damage is remembered, not re-read as fine");
        // Without verification the same file decodes (values wrong), as asked.
        let unchecked = MappedSegment::open(&path, &meta, false).unwrap();
        assert_ne!(unchecked.batches(None).unwrap()[0].column(0), batch.column(0));
    }

    #[test]
    fn unverified_segments_validate_a_column_when_it_is_first_read() {
        // Without checksums a column is checked as Arrow data when first read:
        // strings that are not UTF-8 are refused, naming the column, while the
        // other columns read (mapping the file used to validate every column).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let meta = write_segment(&path, &batch).unwrap();
        flip(&path, |bytes| bytes.windows(2).position(|w| w == b"ca").expect("the name values in the file"));
        let seg = MappedSegment::open(&path, &meta, false).unwrap();
        assert_eq!(seg.batches(Some(&[0])).unwrap()[0].column(0), batch.column(0), "the intact column reads");
        let err = seg.batches(Some(&[1])).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption);
        assert!(err.message().contains("column name is not valid Arrow data"), "{}", err.message());
        assert!(seg.batches(None).is_err(), "the damage is remembered");
        // Damaged metadata is found by its checksum also without verification.
        let path = dir.path().join("t.arrow");
        let meta = write_segment(&path, &batch).unwrap();
        flip(&path, |bytes| bytes.len() - 20);
        let err = MappedSegment::open(&path, &meta, false).unwrap_err();
        assert!(err.message().contains("metadata checksum"), "{}", err.message());
    }

    #[test]
    fn damaged_metadata_is_reported_when_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let meta = write_segment(&path, &batch).unwrap();
        flip(&path, |bytes| bytes.len() - 20); // inside the footer
        let err = MappedSegment::open(&path, &meta, true).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption);
        assert!(err.message().contains("s.arrow"), "{}", err.message());
    }

    #[test]
    fn segments_without_column_checksums_are_checked_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let mut meta = write_segment(&path, &batch).unwrap();
        (meta.layout_crc32, meta.column_crc32) = (None, Vec::new()); // as manifests before per-column checksums
        MappedSegment::open(&path, &meta, true).unwrap();
        flip(&path, |bytes| bytes.len() / 2);
        let err = MappedSegment::open(&path, &meta, true).unwrap_err();
        assert!(err.message().contains("checksum"), "{}", err.message());
    }

    #[test]
    fn opening_a_segment_reads_its_layout_and_a_column_read_reads_only_that_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let rows = 2_000_000;
        let ints = || Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef;
        // A compressed string column puts a length in front of every buffer,
        // which decoding reads.
        let text = Arc::new(StringArray::from_iter_values((0..rows).map(|i| format!("x{}", i % 1000)))) as ArrayRef;
        let batch = RecordBatch::try_from_iter([("a", ints()), ("b", ints()), ("c", ints()), ("t", text)]).unwrap();
        let meta = write_segment(&path, &batch).unwrap();
        if !drop_cached(&path) {
            eprintln!("skipped: this file system keeps the file's pages cached (tmpfs?)");
            return;
        }
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let opened = cached_bytes(&path);
        assert!(opened < 1 << 20, "opening read {opened} bytes (each column's first page read 8 MiB around it)");
        let column = seg.batches(Some(&[1])).unwrap()[0].column(0).clone();
        assert_eq!(column.as_ref(), ints().as_ref());
        let read = cached_bytes(&path) - opened;
        let bytes = 8 * rows as usize;
        assert!(
            (bytes..bytes + (1 << 20)).contains(&read),
            "reading a column of {bytes} bytes read {read} (its neighbours' ends too)"
        );
    }

    #[test]
    fn truncated_segment_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let batch = sample();
        let meta = write_segment(&path, &batch).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 20]).unwrap();
        let err = MappedSegment::open(&path, &meta, false).unwrap_err();
        assert!(err.message().contains("bytes on disk"), "{}", err.message());
    }
}
