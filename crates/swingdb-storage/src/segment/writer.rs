//! `TableWriter`: turns a stream of record batches into segments of bounded size.
//!
//! A writer either gathers each segment's rows to store them as one record
//! batch ([`TableWriter::new`]: one contiguous array per column, what numpy
//! needs for a zero-copy view), or writes them as they come
//! ([`TableWriter::streaming`]: segments of many record batches). Gathering
//! holds a segment's rows, which costs nothing where they are held anyway
//! (the caller's arrays, mapped files); a writer of rows made as they come
//! ([`TableWriter::bounded`]) gathers at most a given number of bytes (at
//! most [`GATHER_BYTES`]) in memory and then spools the segment's rows to a scratch file as they come (see
//! [`Spool`]), so that its memory is that of one batch and its segments are
//! still one record batch each.

use crate::dir::files::in_memory_filesystem;
use crate::dir::DbDir;
use crate::encoding::mode::Compression;
use crate::error::Result;
use crate::joined_slices::{continues, join_run};
use crate::manifest::inline::INLINE_MAX_BYTES;
use crate::manifest::inline_segment::inline_segment;
use crate::manifest::SegmentMeta;
use crate::segment::ipc_file::PAGE;
use crate::segment::stream::SegmentStream;
use crate::segment::write::write_segment_as;
use crate::segment::MappedSegment;
use datafusion::arrow::array::ArrayData;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use std::path::PathBuf;

/// Most rows in one segment. Large, so that a whole table usually is one
/// contiguous array per column (what numpy needs for a zero-copy view).
pub const SEGMENT_MAX_ROWS: usize = 1 << 25;

/// A segment cut for its size (not its last) holds a multiple of this many
/// rows: then each column's values and bits fill whole pages of its file
/// (see `ipc_file::PAGE_ALIGNED_MIN`), and the columns of consecutive
/// segments can be mapped side by side as one array (see [`crate::segment::stitched`]).
pub const PAGE_ROWS: usize = 8 * PAGE;

/// Most bytes of rows a [`TableWriter::bounded`] gathers in memory for a
/// segment before it spools them to a scratch file. Tables smaller than this
/// are written once; larger ones twice (see [`Spool`]).
pub const GATHER_BYTES: usize = 256 << 20;

/// Rows of at most this many bytes (in memory) may fit in a manifest as an
/// inline segment (see [`crate::manifest::inline`]), which only encoding tells.
const MAYBE_INLINE_BYTES: usize = 16 * INLINE_MAX_BYTES;

/// Most bytes of strings (or bytes) a column with 32-bit offsets holds in one
/// segment: all its offsets must address them.
const MAX_TEXT_BYTES: usize = i32::MAX as usize;

/// Writes batches into new segment files. Files it wrote are deleted again if it
/// is dropped without [`TableWriter::finish`].
pub struct TableWriter<'a> {
    dir: &'a DbDir,
    schema: SchemaRef,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    segments: Vec<SegmentMeta>,
    files: Vec<PathBuf>,
    /// Whether rows go to files as they come (see [`Self::streaming`]).
    streaming: bool,
    /// Most rows a segment holds ([`SEGMENT_MAX_ROWS`]; fewer in tests).
    max_rows: usize,
    /// The segment being written batch by batch, when streaming.
    stream: Option<SegmentStream>,
    /// Bytes of `pending` while streaming or spooling has not begun, counted
    /// as batches come (summing them again at every batch took time
    /// quadratic in their number).
    gathered_bytes: usize,
    /// Most bytes of rows gathered in memory before they are spooled
    /// (`None`: gathered whole, see [`Self::bounded`]).
    gather_limit: Option<usize>,
    /// Most bytes of rows a spool holds before its segment is written out.
    spool_limit: usize,
    /// The segment's rows once they outgrew `gather_limit`.
    spool: Option<Spool>,
    /// The encodings the segments get (see [`Self::with_compression`]).
    compression: Compression,
}

/// The rows of a segment being gathered that outgrew memory: written as they
/// come to a scratch segment file (of many record batches), which is read
/// back mapped once the segment is complete and written out as the segment,
/// one record batch. Memory holds a batch, not a segment; the rows are
/// written twice. The scratch file is one of the writer's files (named
/// fresh, never in a manifest) until it is deleted right after.
struct Spool {
    stream: SegmentStream,
    path: PathBuf,
    room: SegmentRoom,
    /// Bytes of the rows spooled.
    bytes: usize,
    /// Rows the segment ends at, once its bytes reached the writer's limit:
    /// the next multiple of [`PAGE_ROWS`].
    ends_at: Option<usize>,
}

/// What a segment being filled holds: its rows, and the bytes of each of
/// its columns with 32-bit offsets, which must address them all.
struct SegmentRoom {
    rows: usize,
    text_bytes: Vec<usize>,
}

impl SegmentRoom {
    fn new(columns: usize) -> Self {
        Self { rows: 0, text_bytes: vec![0; columns] }
    }

    /// How many of the leading rows of `piece` still fit a segment of at most
    /// `max_rows` rows and `max_text_bytes` per column with 32-bit offsets
    /// (at least one when the segment is empty), counted as held.
    fn take(&mut self, piece: &RecordBatch, max_rows: usize, max_text_bytes: usize) -> usize {
        let texts: Vec<(usize, ArrayData)> = piece
            .columns()
            .iter()
            .map(|c| c.to_data())
            .enumerate()
            .filter(|(_, d)| matches!(d.data_type(), DataType::Utf8 | DataType::Binary))
            .collect();
        let mut fits = (max_rows - self.rows).min(piece.num_rows());
        for (c, data) in &texts {
            let offsets = &data.buffer::<i32>(0)[..=data.len()];
            let room = max_text_bytes.saturating_sub(self.text_bytes[*c]);
            // Offsets ascend: the rows whose bytes fit are a prefix.
            let prefix = offsets.partition_point(|&end| (end - offsets[0]) as usize <= room) - 1;
            fits = fits.min(prefix);
        }
        if self.rows == 0 && piece.num_rows() > 0 {
            fits = fits.max(1);
        }
        for (c, data) in &texts {
            let offsets = data.buffer::<i32>(0);
            self.text_bytes[*c] += (offsets[fits] - offsets[0]) as usize;
        }
        self.rows += fits;
        fits
    }
}

impl<'a> TableWriter<'a> {
    /// A writer of segments with `schema` into `dir`, each gathered whole
    /// and stored as one record batch.
    pub fn new(dir: &'a DbDir, schema: SchemaRef) -> Self {
        Self {
            dir,
            schema,
            pending: Vec::new(),
            pending_rows: 0,
            segments: Vec::new(),
            files: Vec::new(),
            streaming: false,
            max_rows: SEGMENT_MAX_ROWS,
            stream: None,
            gathered_bytes: 0,
            gather_limit: None,
            spool_limit: usize::MAX,
            spool: None,
            compression: Compression::ZeroCopy,
        }
    }

    /// This writer with the segments it writes encoded as `compression`
    /// says (a table's). A writer that streamed its rows into files (see
    /// [`Self::streaming`]), which writes them as they are, gathers them
    /// instead when `compression` is not the default.
    pub fn with_compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self.streaming &= compression == Compression::ZeroCopy;
        self
    }

    /// A writer like [`Self::new`] for rows made as they come (read from
    /// files, computed by a query, received), which nothing else holds:
    /// a segment's rows beyond `gather_bytes` (at most [`GATHER_BYTES`]) are
    /// spooled to a scratch file instead of gathered in memory (except in a
    /// database held in memory, where a file costs memory too), and a
    /// segment ends once its spool holds `spool_bytes`: the spool is read
    /// back right after, from the page cache if it fits there. Under a 4 GiB
    /// cgroup a spool of lineitem SF10's 32M-row segments (5 GB) was evicted
    /// before it was read back, and the load took 6.5 minutes instead of 1.5.
    pub fn bounded(dir: &'a DbDir, schema: SchemaRef, gather_bytes: usize, spool_bytes: usize) -> Self {
        let mut writer = Self::new(dir, schema);
        writer.gather_limit = (!in_memory_filesystem(dir.root())).then_some(gather_bytes.min(GATHER_BYTES));
        writer.spool_limit = spool_bytes;
        writer
    }

    /// A writer of segments with `schema` into `dir` that writes each batch
    /// to its segment file as it comes (once the rows are too many to be
    /// kept in the manifest), so that its memory is that of one batch
    /// however many rows pass. Where [`SegmentStream`] does not support
    /// `schema`, segments are gathered as by [`Self::new`].
    pub fn streaming(dir: &'a DbDir, schema: SchemaRef) -> Self {
        let mut writer = Self::new(dir, schema);
        writer.streaming = SegmentStream::supports(&writer.schema);
        writer
    }

    /// Adds rows; writes a segment whenever enough have gathered (or, when
    /// streaming, writes them to the current segment).
    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_rows += batch.num_rows();
        if self.streaming {
            self.gathered_bytes = self.gathered_bytes.saturating_add(bytes_of(&batch));
            self.pending.push(batch);
            if self.stream.is_some() || self.gathered_bytes > MAYBE_INLINE_BYTES {
                self.stream_pending()?;
            }
            return Ok(());
        }
        if let Some(limit) = self.gather_limit {
            self.gathered_bytes = self.gathered_bytes.saturating_add(bytes_of(&batch));
            self.pending.push(batch);
            if self.spool.is_some() || self.gathered_bytes > limit {
                self.spool_pending()?;
            }
            return Ok(());
        }
        self.pending.push(batch);
        while self.pending_rows >= self.max_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the rows gathered to the spool, writing out each segment it
    /// completes (see [`Spool`]).
    fn spool_pending(&mut self) -> Result<()> {
        for mut batch in std::mem::take(&mut self.pending) {
            while batch.num_rows() > 0 {
                let spool = match &mut self.spool {
                    Some(spool) => spool,
                    None => {
                        let path = self.dir.new_segment_path()?;
                        self.files.push(path.clone());
                        let stream = SegmentStream::scratch(&path, &self.schema)?;
                        let room = SegmentRoom::new(self.schema.fields().len());
                        self.spool.insert(Spool { stream, path, room, bytes: 0, ends_at: None })
                    }
                };
                let here = spool.room.take(&batch, spool.ends_at.unwrap_or(self.max_rows), MAX_TEXT_BYTES);
                let rows = batch.slice(0, here);
                spool.bytes = spool.bytes.saturating_add(bytes_of(&rows));
                spool.stream.push(&rows)?;
                batch = batch.slice(here, batch.num_rows() - here);
                if spool.ends_at.is_none() && spool.bytes >= self.spool_limit {
                    spool.ends_at = Some(spool.room.rows.next_multiple_of(PAGE_ROWS).min(self.max_rows));
                }
                // Rows left over: the segment is full, or its texts are.
                if batch.num_rows() > 0 || Some(spool.room.rows) == spool.ends_at || spool.room.rows == self.max_rows {
                    self.write_out_spool()?;
                }
            }
        }
        self.pending_rows = 0;
        self.gathered_bytes = 0;
        Ok(())
    }

    /// Writes the spooled rows out as a segment and deletes the spool.
    fn write_out_spool(&mut self) -> Result<()> {
        let Some(Spool { stream, path, .. }) = self.spool.take() else { return Ok(()) };
        let scratch = stream.finish()?;
        let pieces = MappedSegment::open(&path, &scratch, false)?.batches(None)?;
        let out = self.dir.new_segment_path()?;
        self.files.push(out.clone());
        self.segments.push(write_segment_as(&out, &self.schema, &pieces, self.compression)?);
        drop(pieces);
        // Both files exist here, neither listed in a manifest: a failure
        // leaves both to `Drop` (or, after a crash, to the collector).
        crate::failpoint::hit("spool.after_write_out")?;
        std::fs::remove_file(&path).map_err(crate::dir::files::io_err("deleting spooled rows", &path))?;
        self.files.retain(|f| f != &path);
        Ok(())
    }

    /// Bytes of the rows gathered.
    fn pending_bytes(&self) -> usize {
        self.pending.iter().map(bytes_of).fold(0, usize::saturating_add)
    }

    /// Writes the rows gathered to the current segment file, beginning a new
    /// one whenever one holds [`SEGMENT_MAX_ROWS`] rows.
    fn stream_pending(&mut self) -> Result<()> {
        for mut batch in std::mem::take(&mut self.pending) {
            while batch.num_rows() > 0 {
                let stream = match &mut self.stream {
                    Some(stream) => stream,
                    None => {
                        let path = self.dir.new_segment_path()?;
                        self.files.push(path.clone());
                        self.stream.insert(SegmentStream::create(&path, &self.schema)?)
                    }
                };
                let room = self.max_rows - stream.rows() as usize;
                let here = batch.num_rows().min(room);
                stream.push(&batch.slice(0, here))?;
                batch = batch.slice(here, batch.num_rows() - here);
                if here == room {
                    let full = self.stream.take().expect("a stream is open");
                    self.segments.push(full.finish()?);
                }
            }
        }
        self.pending_rows = 0;
        self.gathered_bytes = 0;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending_rows == 0 {
            return Ok(());
        }
        // Consecutive slices of one buffer (DataFusion cuts scans of registered
        // data into slices) are joined back into the buffer they are; the
        // pieces that remain go to the file as they are (see `segment_write`),
        // never copied together.
        let pieces = joined(std::mem::take(&mut self.pending));
        let take = segment_rows(&pieces, self.max_rows, MAX_TEXT_BYTES);
        let mut now = Vec::new();
        let mut taken = 0;
        for piece in pieces {
            let here = (take - taken).min(piece.num_rows());
            if here > 0 {
                now.push(piece.slice(0, here));
            }
            if here < piece.num_rows() {
                self.pending.push(piece.slice(here, piece.num_rows() - here));
            }
            taken += here;
        }
        self.pending_rows -= take;
        let path = self.dir.new_segment_path()?;
        self.files.push(path.clone());
        self.segments.push(write_segment_as(&path, &self.schema, &now, self.compression)?);
        Ok(())
    }

    /// Writes what is left and returns the new segments and their files.
    /// A write small enough to keep in the manifest (see [`crate::manifest::inline`])
    /// becomes an inline segment instead of a file.
    pub fn finish(mut self) -> Result<(Vec<SegmentMeta>, Vec<PathBuf>)> {
        if let Some(stream) = self.stream.take() {
            self.segments.push(stream.finish()?);
        }
        if self.spool.is_some() {
            self.spool_pending()?;
            self.write_out_spool()?;
        }
        // Only a small write is worth encoding to see whether it fits (and
        // only one that small is worth concatenating).
        if self.segments.is_empty() && self.pending_rows > 0 && self.pending_bytes() <= MAYBE_INLINE_BYTES {
            let all = concat_batches(&self.schema, &self.pending)?;
            let segment = inline_segment(self.dir.new_inline_name()?, all.clone())?;
            if segment.inline.as_ref().expect("inline").fits_manifest()? {
                return Ok((vec![segment], Vec::new()));
            }
            self.pending = vec![all];
        }
        while self.pending_rows > 0 {
            self.flush()?;
        }
        Ok((std::mem::take(&mut self.segments), std::mem::take(&mut self.files)))
    }
}

/// Bytes of `batch`'s arrays (slices counted as such).
fn bytes_of(batch: &RecordBatch) -> usize {
    batch
        .columns()
        .iter()
        .map(|c| c.to_data().get_slice_memory_size().unwrap_or(usize::MAX))
        .fold(0, usize::saturating_add)
}

/// `batches` with each run of consecutive slices of one buffer joined back
/// into one batch (without copying).
fn joined(batches: Vec<RecordBatch>) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut run: Vec<RecordBatch> = Vec::new();
    for batch in batches {
        if run.last().is_some_and(|last| !continues(last, &batch)) {
            out.push(join_run(&std::mem::take(&mut run)));
        }
        run.push(batch);
    }
    if !run.is_empty() {
        out.push(join_run(&run));
    }
    out
}

/// How many of the leading rows of `pieces` go into one segment: at most
/// `max_rows`, and no more than `max_text_bytes` of any column with 32-bit
/// offsets (a table of long texts gets more, shorter segments). At least one.
fn segment_rows(pieces: &[RecordBatch], max_rows: usize, max_text_bytes: usize) -> usize {
    let mut room = SegmentRoom::new(pieces.first().map_or(0, |p| p.num_columns()));
    for piece in pieces {
        let fits = room.take(piece, max_rows, max_text_bytes);
        if fits < piece.num_rows() || room.rows == max_rows {
            break;
        }
    }
    room.rows.max(1)
}

impl Drop for TableWriter<'_> {
    fn drop(&mut self) {
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::TableMeta;
    use crate::SegmentStore;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    fn piece(values: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let ids = Int64Array::from_iter_values(0..values.len() as i64);
        RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(StringArray::from(values.to_vec()))]).unwrap()
    }

    #[test]
    fn a_streaming_writer_writes_batches_as_they_come_into_segments_of_bounded_rows() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DbDir::open(&tmp.path().join("db"), true, false).unwrap();
        let schema = piece(&[]).schema();
        // A few rows stay in the manifest, as with a gathering writer.
        let mut small = TableWriter::streaming(&dir, schema.clone());
        small.push(piece(&["a", "b"])).unwrap();
        let (segments, files) = small.finish().unwrap();
        assert!(files.is_empty() && segments[0].inline.is_some(), "{segments:?}");
        // Many rows go to files as they come, a new one after max_rows.
        let texts: Vec<String> = (0..5000).map(|i| format!("value {i}")).collect();
        let batch = piece(&texts.iter().map(String::as_str).collect::<Vec<_>>());
        let mut writer = TableWriter::streaming(&dir, schema.clone());
        writer.max_rows = 12_000;
        for _ in 0..5 {
            writer.push(batch.clone()).unwrap();
            assert!(writer.pending.is_empty(), "nothing is kept once streaming began");
        }
        let (segments, files) = writer.finish().unwrap();
        assert_eq!(segments.iter().map(|s| s.rows).collect::<Vec<_>>(), vec![12_000, 12_000, 1_000]);
        assert_eq!(files.len(), 3);
        let store = SegmentStore::new(std::sync::Arc::new(dir), true);
        let table = TableMeta::table(schema.clone(), segments, 1);
        let mut read = Vec::new();
        for segment in &table.segments {
            read.extend(store.map(&table, segment).unwrap().batches(None).unwrap());
        }
        assert!(read.len() > 3, "segments of many record batches");
        let read = concat_batches(&schema, &read).unwrap();
        let all = concat_batches(&schema, &vec![batch; 5]).unwrap();
        assert_eq!(read, all);
    }

    #[test]
    fn a_bounded_writer_spools_rows_beyond_its_limit_and_still_writes_one_batch_per_segment() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DbDir::open(&tmp.path().join("db"), true, false).unwrap();
        let schema = piece(&[]).schema();
        let texts: Vec<String> = (0..5000).map(|i| format!("value {i}")).collect();
        let batch = piece(&texts.iter().map(String::as_str).collect::<Vec<_>>());
        let mut writer = TableWriter::bounded(&dir, schema.clone(), bytes_of(&batch) + 1, usize::MAX);
        assert!(writer.gather_limit.is_some(), "a database on disk spools");
        writer.max_rows = 12_000;
        for i in 0..5 {
            writer.push(batch.clone()).unwrap();
            assert_eq!(writer.spool.is_some(), i > 0, "the second batch outgrew memory");
            assert!(writer.pending.is_empty() || i == 0, "nothing is kept once spooling began");
        }
        let (segments, files) = writer.finish().unwrap();
        assert_eq!(segments.iter().map(|s| s.rows).collect::<Vec<_>>(), vec![12_000, 12_000, 1_000]);
        // Only the segments are left: the spools were deleted.
        let mut on_disk: Vec<_> = std::fs::read_dir(files[0].parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "arrow"))
            .collect();
        on_disk.sort();
        let mut listed = files.clone();
        listed.sort();
        assert_eq!(on_disk, listed);
        let store = SegmentStore::new(std::sync::Arc::new(dir), true);
        let table = TableMeta::table(schema.clone(), segments, 1);
        let mut read = Vec::new();
        for segment in &table.segments {
            let batches = store.map(&table, segment).unwrap().batches(None).unwrap();
            assert_eq!(batches.len(), 1, "one record batch per segment, one array per column");
            let ids: &Int64Array = batches[0].column(0).as_any().downcast_ref().unwrap();
            let min = ids.iter().flatten().min().unwrap().to_string();
            assert_eq!(segment.stats[0].min.as_deref(), Some(min.as_str()), "statistics of the rows");
            read.extend(batches);
        }
        let read = concat_batches(&schema, &read).unwrap();
        assert_eq!(read, concat_batches(&schema, &vec![batch.clone(); 5]).unwrap());
        // A spool holding its limit (two batches' worth) ends its segment at
        // the next whole number of pages of rows.
        let mut writer = TableWriter::bounded(store.dir(), schema.clone(), 1, 2 * bytes_of(&batch));
        for _ in 0..20 {
            writer.push(batch.clone()).unwrap();
        }
        let (segments, _) = writer.finish().unwrap();
        let rows = PAGE_ROWS as u64;
        assert_eq!(segments.iter().map(|s| s.rows).collect::<Vec<_>>(), vec![rows, rows, rows, 100_000 - 3 * rows]);
    }

    #[test]
    fn a_segment_ends_where_rows_or_text_bytes_run_out() {
        let pieces = [piece(&["ab", "cd", "ef"]), piece(&["g", "hij", "k"]).slice(1, 2)];
        assert_eq!(segment_rows(&pieces, 100, 1000), 5, "everything fits");
        assert_eq!(segment_rows(&pieces, 4, 1000), 4, "rows run out in the second piece");
        assert_eq!(segment_rows(&pieces, 100, 6), 3, "the first piece's 6 bytes fit, no more");
        assert_eq!(segment_rows(&pieces, 100, 8), 3, "hij does not fit after 6 bytes");
        assert_eq!(segment_rows(&pieces, 100, 9), 4);
        assert_eq!(segment_rows(&pieces, 100, 1), 1, "a segment holds at least one row");
    }
}
