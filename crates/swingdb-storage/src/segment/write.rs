//! Writing a segment file. A segment's rows usually arrive in pieces (the
//! chunks of a pyarrow table, the row groups of a Parquet file, the batches of
//! a query) and are stored as one record batch, so that each column is one
//! contiguous array in the file, what numpy needs to view it without a copy.
//! The pieces are not concatenated in memory first: each column's buffers go
//! to the file from where the pieces hold them (see [`crate::segment::ipc_file`]).
//! Storing lineitem SF1 from pyarrow concatenated its chunks (820 MB copied
//! into fresh memory) before the kernel copied them into the page cache; now
//! only the kernel copies them. With the checksums taken as the bytes pass
//! (not read back from the file) and the statistics on all cores, storing it
//! on tmpfs took 0.8-1.0 s instead of 2.1.
//!
//! The file is a plain Arrow IPC file, its columns encoded where that stores
//! them smaller (see [`crate::encoding`]). Types whose buffers are not laid
//! out flat (nested, views) are concatenated and written by arrow-rs's writer.

use crate::dir::files::create_private_file;
use crate::encoding::compressed_write::chosen;
use crate::encoding::mode::Compression;
use crate::encoding::{encode, narrows, packs};
use crate::error::{Error, Result};
use crate::manifest::stats::column_stats;
use crate::manifest::SegmentMeta;
use crate::segment::ipc_file::{is_writable, IpcFileEncoder, Patch};
use crate::segment::parallel::{column_bytes, in_parallel};
use crate::segment::{written_checksums, ALIGNMENT};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::writer::{FileWriter, IpcWriteOptions};
use datafusion::arrow::ipc::MetadataVersion;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Segments of fewer rows compute their statistics before writing rather than
/// on a thread of their own, whose start would cost more than it saves.
const PARALLEL_STATS_ROWS: usize = 1 << 16;

/// Bytes a [`SegmentFileWriter`] hands the kernel at once, and after which it
/// asks the kernel to start writing them to disk.
const WRITEBACK_CHUNK: u64 = 8 << 20;

/// Capacity of the buffer small writes (metadata, padding, bitmaps) gather in;
/// smaller than the chunks column data is written in (see
/// [`crate::segment::ipc_file`]), so that those pass it without a copy.
pub(crate) const SMALL_WRITES: usize = 64 << 10;

/// The `Write` a segment file is written through: it checksums and counts what
/// passes, and starts the disk writing each chunk as soon as it is in the page
/// cache (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait), so
/// that the disk works while the rest of the file is encoded and the final
/// fsync has little left to do. Without it the kernel holds the whole file
/// dirty until the fsync and the disk idles meanwhile: storing lineitem SF1
/// from pyarrow ran at 70 % of `dd`'s synced bandwidth, with it at 92 %.
///
/// It also waits for the chunk before the one it sends, so that at most two
/// chunks of a file are dirty at once however large it grows: a memory
/// cgroup counts dirty page cache as the process's memory and, unable to
/// reclaim it fast enough (cgroup v1 does not even slow down the writer),
/// kills the process. Loading a 60M-row table in a 4 GiB cgroup was killed
/// that way.
pub(crate) struct SegmentFileWriter {
    pub(crate) file: File,
    pub(crate) hasher: crc32fast::Hasher,
    pub(crate) written: u64,
    /// Where the bytes not yet handed to writeback start.
    unsent: u64,
    /// Where the bytes whose writeback was not yet waited for start.
    unwaited: u64,
    /// Room left to be patched (see [`Patch`]): where, how long, and the
    /// checksum of the file before it (`hasher` holds the bytes after it).
    room: Option<(u64, usize, crc32fast::Hasher)>,
}

impl SegmentFileWriter {
    pub(crate) fn new(file: File) -> Self {
        Self { file, hasher: crc32fast::Hasher::new(), written: 0, unsent: 0, unwaited: 0, room: None }
    }

    /// Starts writeback of everything written and not yet sent, and waits
    /// until what was sent before that is on disk. Only hints: their failure
    /// loses nothing (the fsync that follows still writes and reports every
    /// error), so it is not reported.
    pub(crate) fn start_writeback(&mut self) {
        if self.written > self.unsent {
            let fd = self.file.as_raw_fd();
            let range = |from: u64, to: u64| (from as libc::off64_t, (to - from) as libc::off64_t);
            let (at, len) = range(self.unsent, self.written);
            // SAFETY: a plain syscall on an open descriptor; no memory is passed.
            unsafe { libc::sync_file_range(fd, at, len, libc::SYNC_FILE_RANGE_WRITE) };
            if self.unsent > self.unwaited {
                let (at, len) = range(self.unwaited, self.unsent);
                let all =
                    libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE | libc::SYNC_FILE_RANGE_WAIT_AFTER;
                // SAFETY: as above.
                unsafe { libc::sync_file_range(fd, at, len, all) };
                self.unwaited = self.unsent;
            }
            self.unsent = self.written;
        }
    }
}

impl Write for SegmentFileWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(&buf[..buf.len().min(WRITEBACK_CHUNK as usize)])?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        if self.written - self.unsent >= WRITEBACK_CHUNK {
            self.start_writeback();
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Room is left and patched in the file itself; the file's checksum is then
/// joined from the checksums of what precedes the room, the patch, and what
/// follows (CRC-32s combine). The patch goes to the page cache like every
/// other byte, before the fsync that publishes the file.
impl Patch for BufWriter<SegmentFileWriter> {
    fn reserve(&mut self, len: usize) -> io::Result<u64> {
        self.flush()?;
        let inner = self.get_mut();
        if inner.room.is_some() {
            return Err(io::Error::other("room left twice in one segment file"));
        }
        let at = inner.written;
        let before = std::mem::replace(&mut inner.hasher, crc32fast::Hasher::new());
        inner.file.write_all(&vec![0; len])?;
        inner.written += len as u64;
        inner.room = Some((at, len, before));
        Ok(at)
    }

    fn patch(&mut self, at: u64, bytes: &[u8]) -> io::Result<()> {
        self.flush()?;
        let inner = self.get_mut();
        match inner.room.take() {
            Some((room, len, mut before)) if room == at && len == bytes.len() => {
                inner.file.write_all_at(bytes, at)?;
                let mut patch = crc32fast::Hasher::new();
                patch.update(bytes);
                before.combine(&patch);
                before.combine(&inner.hasher);
                inner.hasher = before;
                Ok(())
            }
            _ => Err(io::Error::other("a patch where no room was left for it")),
        }
    }
}

/// Writes the rows of `pieces` (batches of `schema`, in order) as one record
/// batch into the new segment file `path` (which must not exist), fsyncs it,
/// and returns its manifest entry. The caller fsyncs the directory.
pub fn write_segment(path: &Path, schema: &SchemaRef, pieces: &[RecordBatch]) -> Result<SegmentMeta> {
    write_segment_as(path, schema, pieces, Compression::ZeroCopy)
}

/// [`write_segment`] with the encodings of `compression`.
pub fn write_segment_as(
    path: &Path,
    schema: &SchemaRef,
    pieces: &[RecordBatch],
    compression: Compression,
) -> Result<SegmentMeta> {
    let pieces: Vec<RecordBatch> = pieces.iter().filter(|p| p.num_rows() > 0).cloned().collect();
    let rows = pieces.iter().map(|p| p.num_rows()).sum::<usize>();
    let stats_of = |c: usize| column_stats(&pieces.iter().map(|p| p.column(c).clone()).collect::<Vec<_>>());
    // The statistics of a large segment are computed on other threads while
    // this one writes and syncs the file.
    let (written, stats) = if rows < PARALLEL_STATS_ROWS {
        (write_file(path, schema, &pieces, compression), (0..schema.fields().len()).map(stats_of).collect())
    } else {
        std::thread::scope(|scope| {
            let stats = scope.spawn(|| in_parallel(schema.fields().len(), |c| column_bytes(&pieces, c), stats_of));
            let written = write_file(path, schema, &pieces, compression);
            (written, stats.join().unwrap_or_else(|_| Err(Error::internal("computing segment statistics panicked"))))
        })
    };
    let written = written?;
    Ok(SegmentMeta {
        file: path.file_name().expect("segment path has a file name").to_string_lossy().into_owned(),
        rows: rows as u64,
        bytes: written.bytes,
        crc32: written.crc32,
        layout_crc32: Some(written.layout_crc32),
        column_crc32: written.column_crc32,
        stats: stats?,
        column_ids: None,
        inline: None,
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: written.encoded,
        narrowed: written.narrowed,
        packed: written.packed,
    })
}

/// What [`write_file`] wrote: the file's size and checksums, and how its
/// columns are stored (for the manifest's format version).
struct Written {
    bytes: u64,
    crc32: u32,
    layout_crc32: u32,
    column_crc32: Vec<u32>,
    /// Whether any column is encoded.
    encoded: bool,
    /// Whether any column is narrowed (see [`crate::encoding::narrow`]).
    narrowed: bool,
    /// Whether any column is bit-packed (see [`crate::encoding::packed`]).
    packed: bool,
}

/// Writes and syncs the file of [`write_segment`], its columns encoded (see
/// [`crate::encoding`]).
fn write_file(path: &Path, schema: &SchemaRef, pieces: &[RecordBatch], compression: Compression) -> Result<Written> {
    let (stored, pieces) = encode(schema, pieces, compression)?;
    let (narrowed, packed) = (narrows(&stored, schema), packs(&stored));
    let retyped = stored.fields() != schema.fields();
    let (schema, pieces) = (&stored, &pieces[..]);
    // Only files written from pieces have compressed columns; those count as
    // encoded (builds before format version 11 cannot read them, see `manifest.rs`).
    let writable = schema.fields().iter().all(|f| is_writable(f.data_type()));
    let compressed = if writable { chosen(schema, pieces, compression) } else { Vec::new() };
    let encoded = retyped || compressed.contains(&true);
    let context = |what: &str| format!("{what} segment {}", path.display());
    let file = create_private_file(path).map_err(|e| Error::io(context("creating"), e))?;
    // Errors of the Arrow writer (a full disk, say) carry no path: name it.
    let named = |e: ArrowError| Error::operational(format!("{}: {e}", context("writing")));
    let mut sink = BufWriter::with_capacity(SMALL_WRITES, SegmentFileWriter::new(file));
    // No other process reads or removes the file while it is written: its
    // name is new (O_EXCL), it is in no manifest until the commit that follows
    // the sync, and files of a live lease are not garbage (see `dir.rs`). A
    // crash before the sync leaves an unlisted file, collected like any other
    // of a dead lease.
    let checksums = if writable {
        Some(write_ipc_file(&mut sink, schema, pieces, compressed).map_err(named)?)
    } else {
        let batch = concat_batches(schema, pieces)?;
        let options = IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)?;
        let mut writer = FileWriter::try_new_with_options(&mut sink, schema, options).map_err(named)?;
        if batch.num_rows() > 0 {
            writer.write(&batch).map_err(named)?;
        }
        writer.finish().map_err(named)?;
        None
    };
    let mut sink = sink.into_inner().map_err(|e| Error::io(context("writing"), e.into_error()))?;
    sink.start_writeback();
    // What arrow-rs's writer wrote is checksummed as a reader decodes it, read
    // back from the page cache while the disk catches up.
    let (layout_crc32, column_crc32) = match checksums {
        Some(checksums) => checksums,
        None => written_checksums(&sink.file)
            .map_err(|e| Error::internal(format!("reading back segment {}: {}", path.display(), e.message())))?,
    };
    sink.file.sync_all().map_err(|e| Error::io(context("syncing"), e))?;
    crate::failpoint::hit("segment.after_write")?;
    let (bytes, crc32) = (sink.written, sink.hasher.finalize());
    Ok(Written { bytes, crc32, layout_crc32, column_crc32, encoded, narrowed, packed })
}

/// Writes `pieces` (non-empty batches of `schema`, whose columns are all
/// [`is_writable`]) to `out` as an Arrow IPC file of one record batch, the
/// columns `compressed` picks compressed; returns the layout and per-column
/// checksums.
fn write_ipc_file(
    out: &mut impl Patch,
    schema: &SchemaRef,
    pieces: &[RecordBatch],
    compressed: Vec<bool>,
) -> std::result::Result<(u32, Vec<u32>), ArrowError> {
    let mut file = IpcFileEncoder::start(out, schema)?.compressing(compressed);
    file.write_batch(out, pieces)?;
    file.finish(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encoding::decode_batch;
    use crate::segment::MappedSegment;
    use datafusion::arrow::array::{
        BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array, LargeBinaryArray, StringArray,
    };
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::arrow::ipc::reader::FileReader;
    use std::sync::Arc;

    #[test]
    fn a_segment_written_in_many_chunks_reads_back_whole_and_checked() {
        // Larger than several writeback chunks: each passes the checksum once.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let values: Vec<i64> = (0..3_000_000).map(|i| i * 7 - 11).collect();
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(values))]).unwrap();
        let meta = write_segment(&path, &schema, std::slice::from_ref(&batch)).unwrap();
        assert!(meta.bytes > 2 * WRITEBACK_CHUNK, "{} bytes", meta.bytes);
        assert_eq!(meta.crc32, crc32fast::hash(&std::fs::read(&path).unwrap()), "the whole file's checksum");
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(seg.batches(None).unwrap(), vec![batch]);
    }

    /// Pieces of every flat type, sliced at offsets that are not multiples of
    /// 8 (bitmaps must be shifted) with NULLs in some pieces and not others,
    /// strings whose offsets do not start at 0, and an empty piece.
    pub(crate) fn pieces() -> (SchemaRef, Vec<RecordBatch>) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int32, true),
            Field::new("f", DataType::Float64, false),
            Field::new("b", DataType::Boolean, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Date32, true),
            Field::new("l", DataType::LargeBinary, true),
        ]));
        let batch = |n: i32, nulls: bool| {
            let valid = move |i: i32| !nulls || i % 3 != 1;
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new((0..n).map(|i| valid(i).then_some(i * 10 + n)).collect::<Int32Array>()),
                    Arc::new((0..n).map(|i| f64::from(i) / 4.0).collect::<Float64Array>()),
                    Arc::new((0..n).map(|i| valid(i).then_some(i % 5 == 0)).collect::<BooleanArray>()),
                    Arc::new(
                        (0..n)
                            .map(|i| valid(i).then(|| "x".repeat((i % 7) as usize) + &n.to_string()))
                            .collect::<StringArray>(),
                    ),
                    Arc::new((0..n).map(|i| valid(i).then_some(i + 19_000)).collect::<Date32Array>()),
                    Arc::new(
                        (0..n).map(|i| valid(i).then(|| vec![i as u8; (i % 4) as usize])).collect::<LargeBinaryArray>(),
                    ),
                ],
            )
            .unwrap()
        };
        let pieces = vec![
            batch(29, true).slice(3, 21),
            batch(40, false).slice(0, 0),
            batch(40, false).slice(5, 30),
            batch(17, true),
            batch(100, true).slice(61, 13),
        ];
        (schema, pieces)
    }

    /// Checks that the segment file `path` described by `meta` reads back as
    /// `batches` (its encoded columns decoded): mapped and checked, with the
    /// checksums taken while writing equal to those of the file as decoded,
    /// and as a plain Arrow IPC file (arrow-rs's reader, validating every array).
    pub(crate) fn reads_back(path: &Path, meta: &SegmentMeta, batches: &[RecordBatch]) {
        let decoded = |read: Vec<RecordBatch>| -> Vec<RecordBatch> {
            read.iter().zip(batches).map(|(r, b)| decode_batch(r, &b.schema()).unwrap()).collect()
        };
        let seg = MappedSegment::open(path, meta, true).unwrap();
        assert_eq!(decoded(seg.batches(None).unwrap()), batches);
        let read_back = written_checksums(&File::open(path).unwrap()).unwrap();
        assert_eq!((meta.layout_crc32, &meta.column_crc32), (Some(read_back.0), &read_back.1));
        let read = FileReader::try_new(File::open(path).unwrap(), None)
            .unwrap()
            .collect::<std::result::Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(read.len(), batches.len());
        assert_eq!(decoded(read), batches);
    }

    #[test]
    fn few_distinct_strings_and_small_decimals_are_stored_encoded_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let schema = Arc::new(Schema::new(vec![
            Field::new("mode", DataType::Utf8, true),
            Field::new("price", DataType::Decimal128(15, 2), true),
            Field::new("clerk", DataType::Utf8, false),
            Field::new("k", DataType::Int64, false),
        ]));
        let piece = |from: i64, n: i64| {
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(
                        (from..from + n)
                            .map(|i| (i % 9 != 4).then(|| ["AIR", "SHIP"][i as usize % 2]))
                            .collect::<StringArray>(),
                    ),
                    Arc::new(
                        (from..from + n)
                            .map(|i| (i % 11 != 0).then_some(i as i128 * 1234 - 99))
                            .collect::<Decimal128Array>()
                            .with_precision_and_scale(15, 2)
                            .unwrap(),
                    ),
                    Arc::new((from..from + n).map(|i| Some(format!("Clerk#{:05}", i % 300))).collect::<StringArray>()),
                    Arc::new(Int64Array::from_iter_values(from..from + n)),
                ],
            )
            .unwrap()
        };
        let pieces = vec![piece(0, 1000).slice(3, 900), piece(1000, 777), piece(2000, 5000).slice(13, 4000)];
        let meta = write_segment(&path, &schema, &pieces).unwrap();
        assert!(meta.encoded);
        let whole = concat_batches(&schema, &pieces).unwrap();
        reads_back(&path, &meta, std::slice::from_ref(&whole));
        let stored = FileReader::try_new(File::open(&path).unwrap(), None).unwrap().schema();
        let dictionary = |key: DataType| DataType::Dictionary(Box::new(key), Box::new(DataType::Utf8));
        let types: Vec<&DataType> = stored.fields().iter().map(|f| f.data_type()).collect();
        assert_eq!(
            types,
            [&dictionary(DataType::Int8), &DataType::Decimal32(9, 2), &dictionary(DataType::Int16), &DataType::Int64]
        );
        // Statistics are the values', not the keys'.
        assert_eq!(meta.stats[0].min.as_deref(), Some("AIR"));
        assert_eq!(meta.stats[1].nulls, whole.column(1).null_count() as u64);
        assert_eq!(meta.stats[2].max.as_deref(), Some("Clerk#00299"));
        // Half the bytes of the plain file at most.
        let plain = dir.path().join("plain.arrow");
        let mut out = Vec::new();
        write_ipc_file(&mut out, &schema, &pieces, chosen(&schema, &pieces, Compression::ZeroCopy)).unwrap();
        std::fs::write(&plain, out).unwrap();
        assert!(meta.bytes * 2 < std::fs::metadata(&plain).unwrap().len(), "{} bytes", meta.bytes);
    }

    #[test]
    fn pieces_are_written_as_one_record_batch_of_their_rows_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let (schema, pieces) = pieces();
        let whole = concat_batches(&schema, &pieces).unwrap();
        let meta = write_segment(&path, &schema, &pieces).unwrap();
        assert_eq!(meta.rows, whole.num_rows() as u64);
        reads_back(&path, &meta, std::slice::from_ref(&whole));
        // Statistics cover all pieces.
        let ints: &Int32Array = whole.column(0).as_any().downcast_ref().unwrap();
        let min = ints.iter().flatten().min().unwrap();
        assert_eq!(meta.stats[0].min.as_deref(), Some(min.to_string().as_str()));
        assert_eq!(meta.stats[0].nulls, whole.column(0).null_count() as u64);
        let distinct = meta.stats[0].distinct.as_ref().unwrap().estimate();
        assert!(distinct.abs_diff(ints.iter().flatten().count() as u64) <= 3, "{distinct}");
        // The same rows written whole give the same columns, byte for byte.
        let path = dir.path().join("t.arrow");
        let whole_meta = write_segment(&path, &schema, &[whole]).unwrap();
        assert_eq!(whole_meta.column_crc32, meta.column_crc32);
    }

    #[test]
    fn light_and_zstd_tables_get_their_fixed_width_columns_narrowed_or_compressed_and_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("d", DataType::Date32, true),
            Field::new("x", DataType::Float64, true),
        ]));
        let piece = |from: i64| {
            let rows = from..from + 100_000;
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from_iter_values(rows.clone())),
                    Arc::new(Date32Array::from_iter(rows.clone().map(|v| (v % 11 > 0).then_some((v % 3000) as i32)))),
                    Arc::new(Float64Array::from_iter(rows.map(|v| (v % 5 > 0).then_some((v % 1000) as f64 / 4.0)))),
                ],
            )
            .unwrap()
        };
        let pieces = vec![piece(0), piece(100_000), piece(200_000)];
        let plain = write_segment(&dir.path().join("plain.arrow"), &schema, &pieces).unwrap();
        assert!(!plain.encoded && !plain.narrowed, "the default stores fixed-width columns as they are");
        let light_path = dir.path().join("light.arrow");
        let light = write_segment_as(&light_path, &schema, &pieces, Compression::Light).unwrap();
        assert!(light.encoded && light.narrowed && light.packed, "the manifest must say 16");
        // Narrowed to whole bytes alone, it would take half the bytes: packed,
        // its three columns take 7, 7 and 12 bits a row.
        assert!(light.bytes * 4 < plain.bytes, "{} bytes against {}", light.bytes, plain.bytes);
        let types: Vec<Option<DataType>> = MappedSegment::open(&light_path, &light, true)
            .unwrap()
            .schema()
            .fields()
            .iter()
            .map(|f| crate::encoding::packed::physical_type(f.data_type()))
            .collect();
        assert_eq!(types, [Some(DataType::Int32), Some(DataType::Int16), Some(DataType::Decimal32(9, 2))]);
        reads_back(&light_path, &light, &[concat_batches(&schema, &pieces).unwrap()]);
        assert_eq!(light.stats, plain.stats, "statistics are the values'");
        let path = dir.path().join("zstd.arrow");
        let meta = write_segment_as(&path, &schema, &pieces, Compression::Zstd).unwrap();
        assert!(meta.encoded && meta.narrowed && !meta.packed, "narrowed, then compressed");
        assert!(meta.bytes * 3 < plain.bytes, "{} bytes against {}", meta.bytes, plain.bytes);
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let stored = seg.batches(None).unwrap()[0].schema();
        assert!(stored.fields().iter().all(|f| crate::encoding::compressed::physical_type(f.data_type()).is_some()));
        reads_back(&path, &meta, &[concat_batches(&schema, &pieces).unwrap()]);
        assert_eq!(meta.stats, plain.stats, "statistics are the values'");
    }

    #[test]
    fn types_not_written_from_pieces_are_concatenated_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Utf8View, true)]));
        let piece = |values: Vec<Option<&str>>| {
            RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(values.into_iter().collect::<datafusion::arrow::array::StringViewArray>())],
            )
            .unwrap()
        };
        let pieces = vec![piece(vec![Some("a fairly long string value"), None]), piece(vec![Some("b")])];
        let meta = write_segment(&path, &schema, &pieces).unwrap();
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(seg.batches(None).unwrap(), vec![concat_batches(&schema, &pieces).unwrap()]);
    }
}
