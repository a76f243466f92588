//! Writing a segment file. A segment's rows usually arrive in pieces (the
//! chunks of a pyarrow table, the row groups of a Parquet file, the batches of
//! a query) and are stored as one record batch, so that each column is one
//! contiguous array in the file, what numpy needs to view it without a copy.
//! The pieces are not concatenated in memory first: each column's buffers go
//! to the file from where the pieces hold them, and only what must change is
//! built anew (offsets rebased, bitmaps shifted: a few bytes per row at most).
//! Storing lineitem SF1 from pyarrow concatenated its chunks (820 MB copied
//! into fresh memory) before the kernel copied them into the page cache; now
//! only the kernel copies them. With the checksums taken as the bytes pass
//! (not read back from the file) and the statistics on all cores, storing it
//! on tmpfs took 0.8-1.0 s instead of 2.1.
//!
//! The file is a plain Arrow IPC file: the one arrow-rs's writer makes of the
//! concatenated batch, except that a column without NULLs has an empty
//! validity buffer (which the format allows) instead of a bitmap of ones.
//! Types whose buffers are not laid out flat (nested, dictionaries, views)
//! are concatenated and written by arrow-rs's writer.

use super::files::create_private_file;
use super::manifest::SegmentMeta;
use super::segment::{written_checksums, ALIGNMENT};
use super::stats::column_stats;
use crate::error::{Error, Result};
use datafusion::arrow::array::{Array, ArrayData, BooleanBufferBuilder, OffsetSizeTrait, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::convert::IpcSchemaEncoder;
use datafusion::arrow::ipc::writer::{write_message, DictionaryTracker, FileWriter, IpcDataGenerator, IpcWriteOptions};
use datafusion::arrow::ipc::{
    Block, FieldNode, FooterBuilder, MessageBuilder, MessageHeader, MetadataVersion, RecordBatchBuilder,
};
use flatbuffers::FlatBufferBuilder;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Segments of fewer rows compute their statistics before writing rather than
/// on a thread of their own, whose start would cost more than it saves.
const PARALLEL_STATS_ROWS: usize = 1 << 16;

/// Bytes a [`SegmentFileWriter`] hands the kernel at once, and after which it
/// asks the kernel to start writing them to disk.
const WRITEBACK_CHUNK: u64 = 8 << 20;

/// Column data goes to the file in chunks of this size, each checksummed just
/// before and after the kernel copies it, while it is in the CPU's cache: one
/// read of the data from memory instead of three (two checksums, one copy).
const HASH_CHUNK: usize = 256 << 10;

/// Capacity of the buffer small writes (metadata, padding, bitmaps) gather in;
/// smaller than [`HASH_CHUNK`], so that column chunks pass it without a copy.
const SMALL_WRITES: usize = 64 << 10;

/// What an Arrow IPC file starts and ends with.
const MAGIC: &[u8; 6] = b"ARROW1";

/// What precedes each message's length (IPC format 0.15 and later).
const CONTINUATION: [u8; 4] = [0xff; 4];

/// Zeros for padding buffers and messages to [`ALIGNMENT`].
const PADDING: [u8; ALIGNMENT] = [0; ALIGNMENT];

/// The `Write` a segment file is written through: it checksums and counts what
/// passes, and starts the disk writing each chunk as soon as it is in the page
/// cache (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait), so
/// that the disk works while the rest of the file is encoded and the final
/// fsync has little left to do. Without it the kernel holds the whole file
/// dirty until the fsync and the disk idles meanwhile: storing lineitem SF1
/// from pyarrow ran at 70 % of `dd`'s synced bandwidth, with it at 92 %.
struct SegmentFileWriter {
    file: File,
    hasher: crc32fast::Hasher,
    written: u64,
    /// Where the bytes not yet handed to writeback start.
    unsent: u64,
}

impl SegmentFileWriter {
    fn new(file: File) -> Self {
        Self { file, hasher: crc32fast::Hasher::new(), written: 0, unsent: 0 }
    }

    /// Starts writeback of everything written and not yet sent. Only a hint:
    /// its failure loses nothing (the fsync that follows still writes and
    /// reports every error), so it is not reported.
    fn start_writeback(&mut self) {
        if self.written > self.unsent {
            // SAFETY: a plain syscall on an open descriptor; no memory is passed.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.unsent as libc::off64_t,
                    (self.written - self.unsent) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
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

/// Writes the rows of `pieces` (batches of `schema`, in order) as one record
/// batch into the new segment file `path` (which must not exist), fsyncs it,
/// and returns its manifest entry. The caller fsyncs the directory.
pub fn write_segment(path: &Path, schema: &SchemaRef, pieces: &[RecordBatch]) -> Result<SegmentMeta> {
    let pieces: Vec<RecordBatch> = pieces.iter().filter(|p| p.num_rows() > 0).cloned().collect();
    let rows = pieces.iter().map(|p| p.num_rows()).sum::<usize>();
    let stats_of = |c: usize| column_stats(&pieces.iter().map(|p| p.column(c).clone()).collect::<Vec<_>>());
    // The statistics of a large segment are computed on other threads while
    // this one writes and syncs the file.
    let (written, stats) = if rows < PARALLEL_STATS_ROWS {
        (write_file(path, schema, &pieces), (0..schema.fields().len()).map(stats_of).collect())
    } else {
        std::thread::scope(|scope| {
            let stats = scope.spawn(|| in_parallel(schema.fields().len(), |c| column_bytes(&pieces, c), stats_of));
            let written = write_file(path, schema, &pieces);
            (written, stats.join().unwrap_or_else(|_| Err(Error::internal("computing segment statistics panicked"))))
        })
    };
    let (bytes, crc32, layout_crc32, column_crc32) = written?;
    Ok(SegmentMeta {
        file: path.file_name().expect("segment path has a file name").to_string_lossy().into_owned(),
        rows: rows as u64,
        bytes,
        crc32,
        layout_crc32: Some(layout_crc32),
        column_crc32,
        stats: stats?,
        column_ids: None,
        inline: None,
    })
}

/// Most threads computing one segment's statistics: as many as cores, up to
/// this. They take longer than writing the file (lineitem SF1: about 1.0 s of
/// CPU against 0.7), so on this 2-core machine two threads, sharing the cores
/// with the writing one and using both while it waits for the disk, stored
/// lineitem SF1 on tmpfs in 0.97 s rather than 1.11 with one (medians of 8).
/// Each thread takes whole columns, so more than a table has columns never help.
const STATS_THREADS: usize = 8;

/// The bytes column `c` of `pieces` covers: how long its statistics take.
fn column_bytes(pieces: &[RecordBatch], c: usize) -> usize {
    pieces.iter().map(|p| p.column(c).to_data().get_slice_memory_size().unwrap_or(0)).sum()
}

/// `work(i)` for each `i` in `0..n`, in order, on up to [`STATS_THREADS`]
/// threads (as many as cores), the costliest (`cost`) started first.
fn in_parallel<T: Send>(
    n: usize,
    cost: impl Fn(usize) -> usize,
    work: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(i)));
    let threads = std::thread::available_parallelism().map_or(1, |c| c.get()).clamp(1, STATS_THREADS).min(n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<Vec<(usize, Result<T>)>> = std::thread::scope(|scope| {
        let worker = || {
            let mut done = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                done.push((i, work(i)));
            }
            done
        };
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
        let mut all = vec![worker()];
        all.extend(helpers.into_iter().map(|h| h.join().unwrap_or_default()));
        all
    });
    let mut results: Vec<Option<Result<T>>> = (0..n).map(|_| None).collect();
    for (i, result) in done.into_iter().flatten() {
        results[i] = Some(result);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::internal("computing segment statistics panicked"))))
        .collect()
}

/// Writes and syncs the file of [`write_segment`]: its size, CRC-32, and
/// layout and per-column checksums.
fn write_file(path: &Path, schema: &SchemaRef, pieces: &[RecordBatch]) -> Result<(u64, u32, u32, Vec<u32>)> {
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
    let checksums = if schema.fields().iter().all(|f| is_flat(f.data_type())) {
        Some(write_ipc_file(&mut sink, schema, pieces).map_err(named)?)
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
    super::failpoint::hit("segment.after_write")?;
    Ok((sink.written, sink.hasher.finalize(), layout_crc32, column_crc32))
}

/// Whether [`write_ipc_file`] writes columns of type `dt` from their pieces:
/// types whose buffers are a validity bitmap, fixed-width values or bits, and
/// offsets into bytes.
fn is_flat(dt: &DataType) -> bool {
    matches!(dt, DataType::Boolean | DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary)
        || dt.primitive_width().is_some()
}

/// Writes `pieces` (non-empty batches of `schema`, whose columns are all
/// [`is_flat`]) to `out` as an Arrow IPC file of one record batch, laid out as
/// arrow-rs's `FileWriter` lays out files: the magic padded to [`ALIGNMENT`],
/// the schema message, the record batch message with each buffer padded to
/// [`ALIGNMENT`], the end-of-stream marker, the footer. Returns the layout and
/// per-column checksums (see `segment::written_checksums`, which computes the
/// same from a file).
fn write_ipc_file(
    out: &mut impl Write,
    schema: &SchemaRef,
    pieces: &[RecordBatch],
) -> std::result::Result<(u32, Vec<u32>), ArrowError> {
    let options = IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)?;
    out.write_all(MAGIC)?;
    out.write_all(&PADDING[..ALIGNMENT - MAGIC.len()])?;
    let encoded_schema = IpcDataGenerator::default().schema_to_bytes_with_dictionary_tracker(
        schema,
        &mut DictionaryTracker::new(true),
        &options,
    );
    let (schema_meta, schema_body) = write_message(&mut *out, encoded_schema, &options)?;
    let mut blocks = Vec::new();
    let mut layout = crc32fast::Hasher::new();
    let mut column_crc32 = vec![crc32fast::hash(&[]); schema.fields().len()];
    let rows = pieces.iter().map(|p| p.num_rows()).sum::<usize>();
    if rows > 0 {
        let body = Body::of(schema, pieces)?;
        let (message, body_len) = body.message(rows);
        let header_len = (message.len() + 8).next_multiple_of(ALIGNMENT);
        let mut header = Vec::with_capacity(header_len);
        header.extend_from_slice(&CONTINUATION);
        header.extend_from_slice(&((header_len - 8) as i32).to_le_bytes());
        header.extend_from_slice(&message);
        header.resize(header_len, 0);
        layout.update(&header);
        out.write_all(&header)?;
        column_crc32 = body.write(out)?;
        blocks.push(Block::new((ALIGNMENT + schema_meta + schema_body) as i64, header_len as i32, body_len as i64));
    }
    out.write_all(&CONTINUATION)?;
    out.write_all(&0i32.to_le_bytes())?;
    let mut fbb = FlatBufferBuilder::new();
    let dictionaries = fbb.create_vector::<Block>(&[]);
    let record_batches = fbb.create_vector(&blocks);
    let schema = IpcSchemaEncoder::new().schema_to_fb_offset(&mut fbb, schema);
    let mut footer = FooterBuilder::new(&mut fbb);
    footer.add_version(MetadataVersion::V5);
    footer.add_schema(schema);
    footer.add_dictionaries(dictionaries);
    footer.add_recordBatches(record_batches);
    let footer = footer.finish();
    fbb.finish(footer, None);
    let footer = fbb.finished_data();
    let mut tail = Vec::with_capacity(footer.len() + 4 + MAGIC.len());
    tail.extend_from_slice(footer);
    tail.extend_from_slice(&(footer.len() as i32).to_le_bytes());
    tail.extend_from_slice(MAGIC);
    layout.update(&tail);
    out.write_all(&tail)?;
    out.flush()?;
    Ok((layout.finalize(), column_crc32))
}

/// The body of a record batch message made of pieces: per column its node
/// (length, NULL count) and buffers, each buffer the list of byte ranges it is
/// written from, in order.
struct Body {
    nodes: Vec<FieldNode>,
    columns: Vec<Vec<Vec<Buffer>>>,
}

impl Body {
    fn of(schema: &SchemaRef, pieces: &[RecordBatch]) -> std::result::Result<Self, ArrowError> {
        let mut body = Body { nodes: Vec::new(), columns: Vec::new() };
        for (c, field) in schema.fields().iter().enumerate() {
            let columns: Vec<ArrayData> = pieces.iter().map(|p| p.column(c).to_data()).collect();
            if let Some(other) = columns.iter().find(|d| d.data_type() != field.data_type()) {
                return Err(ArrowError::SchemaError(format!(
                    "column {} holds {} where the table has {}",
                    field.name(),
                    other.data_type(),
                    field.data_type()
                )));
            }
            let len = columns.iter().map(|d| d.len()).sum::<usize>();
            let nulls = columns.iter().map(|d| d.null_count()).sum::<usize>();
            body.nodes.push(FieldNode::new(len as i64, nulls as i64));
            // A column without NULLs gets an empty validity buffer, which a
            // reader takes for "no bitmap" (as the checksums do).
            let mut buffers = vec![if nulls == 0 {
                Vec::new()
            } else {
                vec![bitmap(&columns, len, |d| d.nulls().map(|n| n.inner().clone()))]
            }];
            match field.data_type() {
                DataType::Boolean => buffers.push(vec![bitmap(&columns, len, |d| {
                    Some(BooleanBuffer::new(d.buffers()[0].clone(), d.offset(), d.len()))
                })]),
                DataType::Utf8 | DataType::Binary => buffers.extend(variable::<i32>(&columns, field.name())?),
                DataType::LargeUtf8 | DataType::LargeBinary => buffers.extend(variable::<i64>(&columns, field.name())?),
                dt => {
                    let width = dt.primitive_width().expect("is_flat");
                    buffers.push(
                        columns
                            .iter()
                            .map(|d| d.buffers()[0].slice_with_length(d.offset() * width, d.len() * width))
                            .collect(),
                    )
                }
            }
            body.columns.push(buffers);
        }
        Ok(body)
    }

    /// The record batch message (flatbuffer) describing this body, and the
    /// body's length (its buffers, each padded to [`ALIGNMENT`]).
    fn message(&self, rows: usize) -> (Vec<u8>, usize) {
        let mut offset = 0;
        let buffers: Vec<datafusion::arrow::ipc::Buffer> = self
            .columns
            .iter()
            .flatten()
            .map(|parts| {
                let len = parts.iter().map(|p| p.len()).sum::<usize>();
                let at = offset;
                offset += len.next_multiple_of(ALIGNMENT);
                datafusion::arrow::ipc::Buffer::new(at as i64, len as i64)
            })
            .collect();
        let mut fbb = FlatBufferBuilder::new();
        let nodes = fbb.create_vector(&self.nodes);
        let buffers = fbb.create_vector(&buffers);
        let mut batch = RecordBatchBuilder::new(&mut fbb);
        batch.add_length(rows as i64);
        batch.add_nodes(nodes);
        batch.add_buffers(buffers);
        let batch = batch.finish().as_union_value();
        let mut message = MessageBuilder::new(&mut fbb);
        message.add_version(MetadataVersion::V5);
        message.add_header_type(MessageHeader::RecordBatch);
        message.add_bodyLength(offset as i64);
        message.add_header(batch);
        let message = message.finish();
        fbb.finish(message, None);
        (fbb.finished_data().to_vec(), offset)
    }

    /// Writes the buffers, each padded to [`ALIGNMENT`] (as [`Self::message`]
    /// lays them out); returns each column's checksum (of its buffers without
    /// padding, in order: what `segment::column_crc` computes of the decoded
    /// column).
    fn write(&self, out: &mut impl Write) -> io::Result<Vec<u32>> {
        let mut checksums = Vec::with_capacity(self.columns.len());
        for buffers in &self.columns {
            let mut column = crc32fast::Hasher::new();
            for parts in buffers {
                let len = parts.iter().map(|p| p.len()).sum::<usize>();
                for chunk in parts.iter().flat_map(|p| p.as_slice().chunks(HASH_CHUNK)) {
                    column.update(chunk);
                    out.write_all(chunk)?;
                }
                out.write_all(&PADDING[..len.next_multiple_of(ALIGNMENT) - len])?;
            }
            checksums.push(column.finalize());
        }
        Ok(checksums)
    }
}

/// The bitmap of `len` bits that `bits` gives for each of `columns` in turn
/// (all set where it gives none).
fn bitmap(columns: &[ArrayData], len: usize, bits: impl Fn(&ArrayData) -> Option<BooleanBuffer>) -> Buffer {
    let mut out = BooleanBufferBuilder::new(len);
    for column in columns {
        match bits(column) {
            Some(b) => out.append_buffer(&b),
            None => out.append_n(column.len(), true),
        }
    }
    out.finish().into_inner()
}

/// The offsets and values buffers of the strings (or bytes) of `columns` as
/// one array: the values where they are, the offsets rebased (or, for a single
/// array whose offsets start at 0, those too where they are).
fn variable<O: OffsetSizeTrait>(
    columns: &[ArrayData],
    name: &str,
) -> std::result::Result<[Vec<Buffer>; 2], ArrowError> {
    let ends = |d: &ArrayData| {
        let offsets = d.buffer::<O>(0);
        (offsets[0].as_usize(), offsets[d.len()].as_usize())
    };
    if let [one] = columns {
        if ends(one).0 == 0 {
            let size = std::mem::size_of::<O>();
            let offsets = one.buffers()[0].slice_with_length(one.offset() * size, (one.len() + 1) * size);
            return Ok([vec![offsets], vec![one.buffers()[1].slice_with_length(0, ends(one).1)]]);
        }
    }
    let len = columns.iter().map(|d| d.len()).sum::<usize>();
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::usize_as(0));
    let mut values = Vec::with_capacity(columns.len());
    let mut end = 0usize;
    for d in columns {
        let (first, last) = ends(d);
        let base = end;
        end += last - first;
        if O::from_usize(end).is_none() {
            return Err(ArrowError::InvalidArgumentError(format!(
                "column {name} holds more than {} bytes in one segment, more than its type's 32-bit offsets address",
                i32::MAX
            )));
        }
        offsets.extend(d.buffer::<O>(0)[1..=d.len()].iter().map(|&o| O::usize_as(o.as_usize() - first + base)));
        values.push(d.buffers()[1].slice_with_length(first, last - first));
    }
    Ok([vec![Buffer::from_vec(offsets)], values])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::segment::MappedSegment;
    use datafusion::arrow::array::{
        BooleanArray, Date32Array, Float64Array, Int32Array, Int64Array, LargeBinaryArray, StringArray,
    };
    use datafusion::arrow::datatypes::{Field, Schema};
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
    fn pieces() -> (SchemaRef, Vec<RecordBatch>) {
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

    #[test]
    fn pieces_are_written_as_one_record_batch_of_their_rows_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let (schema, pieces) = pieces();
        let whole = concat_batches(&schema, &pieces).unwrap();
        let meta = write_segment(&path, &schema, &pieces).unwrap();
        assert_eq!(meta.rows, whole.num_rows() as u64);
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(seg.batches(None).unwrap(), vec![whole.clone()]);
        // The checksums computed while writing are those of the file as decoded.
        let read_back = written_checksums(&File::open(&path).unwrap()).unwrap();
        assert_eq!((meta.layout_crc32, &meta.column_crc32), (Some(read_back.0), &read_back.1));
        // A plain Arrow IPC file: arrow-rs's reader, validating every array, reads the same.
        let read = FileReader::try_new(File::open(&path).unwrap(), None)
            .unwrap()
            .collect::<std::result::Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(read, vec![whole.clone()]);
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
    fn work_in_parallel_answers_in_order_and_reports_failures() {
        let squares = in_parallel(40, |i| i % 7, |i| Ok(i * i)).unwrap();
        assert_eq!(squares, (0..40).map(|i| i * i).collect::<Vec<_>>());
        let failed = in_parallel(40, |i| i, |i| if i == 13 { Err(Error::internal("thirteen")) } else { Ok(i) });
        assert!(failed.unwrap_err().message().contains("thirteen"));
        assert!(in_parallel(0, |i| i, Ok).unwrap().is_empty());
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
