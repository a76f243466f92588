//! Writing a segment file as its rows arrive: each batch becomes a record
//! batch message of the file at once (its buffers go to the file from where
//! the batch holds them, see [`crate::segment::ipc_file`]), its statistics are merged
//! into the segment's, and nothing of it is kept. Memory stays that of one
//! batch however large the segment grows (the statistics are merged on a
//! thread of their own, a few batches behind), where [`crate::segment::write`]
//! gathers a segment's rows to store them as one record batch (one contiguous
//! array per column, what numpy needs to view a column without a copy): a
//! segment written this way is read as many record batches, and a column
//! handed to numpy whole is copied together.

use crate::dir::files::create_private_file;
use crate::error::{Error, Result};
use crate::manifest::stats::{column_stats, merge_stats, ColumnStats};
use crate::manifest::SegmentMeta;
use crate::segment::ipc_file::{is_flat, IpcFileEncoder};
use crate::segment::write::{SegmentFileWriter, SMALL_WRITES};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A segment file being written batch by batch: [`Self::create`], any
/// number of [`Self::push`], [`Self::finish`]. Dropped unfinished, it leaves
/// its file behind for its owner to delete (as [`crate::TableWriter`] does).
pub struct SegmentStream {
    path: PathBuf,
    sink: BufWriter<SegmentFileWriter>,
    encoder: IpcFileEncoder,
    rows: u64,
    /// None for a scratch file (see [`Self::scratch`]).
    stats: Option<StatsWorker>,
}

/// Batches the statistics thread may be behind the writing one.
const STATS_BEHIND: usize = 4;

/// The thread that merges a segment's statistics batch by batch: computing
/// them (a hash of every value for the distinct sketch, min and max) took as
/// long as writing the batches, and a pipe's reading thread then waited for
/// it while the other core idled.
struct StatsWorker {
    batches: Option<std::sync::mpsc::SyncSender<RecordBatch>>,
    merged: std::thread::JoinHandle<Result<Vec<ColumnStats>>>,
}

impl StatsWorker {
    fn start(schema: SchemaRef) -> Result<Self> {
        let (batches, arriving) = std::sync::mpsc::sync_channel::<RecordBatch>(STATS_BEHIND);
        let merged = std::thread::Builder::new()
            .name("swingdb-stats".into())
            .spawn(move || {
                let mut stats = vec![ColumnStats::default(); schema.fields().len()];
                let mut rows = 0;
                for batch in arriving {
                    let added = batch.num_rows() as u64;
                    for (c, field) in schema.fields().iter().enumerate() {
                        let new = column_stats(std::slice::from_ref(batch.column(c)))?;
                        stats[c] = match rows {
                            0 => new,
                            _ => merge_stats(&stats[c], rows, &new, added, field.data_type())?,
                        };
                    }
                    rows += added;
                }
                Ok(stats)
            })
            .map_err(|e| Error::io("starting a statistics thread", e))?;
        Ok(Self { batches: Some(batches), merged })
    }

    /// Hands `batch` over (waits while the thread is [`STATS_BEHIND`]).
    fn add(&self, batch: &RecordBatch) {
        // A thread that stopped (on an error) reports it from `finish`.
        let _ = self.batches.as_ref().expect("not finished").send(batch.clone());
    }

    /// The statistics of every batch added.
    fn finish(mut self) -> Result<Vec<ColumnStats>> {
        drop(self.batches.take());
        self.merged.join().unwrap_or_else(|_| Err(Error::internal("computing segment statistics panicked")))
    }
}

impl SegmentStream {
    /// Whether segments of `schema` can be written batch by batch (every
    /// column's type is laid out flat; others are concatenated and written by
    /// arrow-rs's writer, see [`crate::segment::write`]).
    pub fn supports(schema: &SchemaRef) -> bool {
        schema.fields().iter().all(|f| is_flat(f.data_type()))
    }

    /// Creates the new segment file `path` (which must not exist) for rows of
    /// `schema` (which [`Self::supports`]).
    ///
    /// No other process reads or removes the file while it is written: its
    /// name is new (O_EXCL), it is in no manifest until the commit that
    /// follows [`Self::finish`], and files of a live lease are not garbage
    /// (see `dir.rs`). A crash before then leaves an unlisted file, collected
    /// like any other of a dead lease.
    pub fn create(path: &Path, schema: &SchemaRef) -> Result<Self> {
        let mut stream = Self::scratch(path, schema)?;
        stream.stats = Some(StatsWorker::start(schema.clone())?);
        Ok(stream)
    }

    /// Like [`Self::create`], for a file that only its writer reads back
    /// and then deletes (see `TableWriter`'s spool): no statistics are
    /// computed (they are empty) and [`Self::finish`] does not sync it.
    pub fn scratch(path: &Path, schema: &SchemaRef) -> Result<Self> {
        let file =
            create_private_file(path).map_err(|e| Error::io(format!("creating segment {}", path.display()), e))?;
        let mut sink = BufWriter::with_capacity(SMALL_WRITES, SegmentFileWriter::new(file));
        let encoder = IpcFileEncoder::start(&mut sink, schema).map_err(|e| failed(path, e))?;
        Ok(Self { path: path.to_path_buf(), sink, encoder, rows: 0, stats: None })
    }

    /// The rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends the rows of `batch` (of the segment's schema).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let Some(stats) = &self.stats {
            stats.add(batch);
        }
        self.encoder.write_batch(&mut self.sink, std::slice::from_ref(batch)).map_err(|e| failed(&self.path, e))?;
        self.rows += batch.num_rows() as u64;
        Ok(())
    }

    /// Ends the file (its footer), syncs it and returns its manifest entry.
    /// The caller fsyncs the directory.
    pub fn finish(mut self) -> Result<SegmentMeta> {
        let (layout_crc32, column_crc32) = self.encoder.finish(&mut self.sink).map_err(|e| failed(&self.path, e))?;
        let mut sink = self
            .sink
            .into_inner()
            .map_err(|e| Error::io(format!("writing segment {}", self.path.display()), e.into_error()))?;
        sink.start_writeback();
        let stats = match self.stats.take() {
            Some(stats) => {
                sink.file.sync_all().map_err(|e| Error::io(format!("syncing segment {}", self.path.display()), e))?;
                crate::failpoint::hit("segment.after_write")?;
                stats.finish()?
            }
            None => vec![ColumnStats::default(); column_crc32.len()],
        };
        Ok(SegmentMeta {
            file: self.path.file_name().expect("segment path has a file name").to_string_lossy().into_owned(),
            rows: self.rows,
            bytes: sink.written,
            crc32: sink.hasher.finalize(),
            layout_crc32: Some(layout_crc32),
            column_crc32,
            stats,
            column_ids: None,
            inline: None,
            deleted: Default::default(),
            origin: Vec::new(),
            encoded: false,
            narrowed: false,
            packed: false,
        })
    }
}

/// An error of the Arrow encoder (a full disk, say), which carries no path.
fn failed(path: &Path, e: ArrowError) -> Error {
    Error::operational(format!("writing segment {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::write::tests::{pieces, reads_back};
    use crate::segment::write::write_segment;
    use crate::segment::MappedSegment;
    use datafusion::arrow::compute::concat_batches;

    #[test]
    fn batches_are_written_as_they_come_and_read_back_checked() {
        let dir = tempfile::tempdir().unwrap();
        let (schema, pieces) = pieces();
        let path = dir.path().join("s.arrow");
        let mut stream = SegmentStream::create(&path, &schema).unwrap();
        for piece in &pieces {
            stream.push(piece).unwrap();
        }
        let meta = stream.finish().unwrap();
        let written: Vec<RecordBatch> = pieces.iter().filter(|p| p.num_rows() > 0).cloned().collect();
        assert_eq!(meta.rows, written.iter().map(|b| b.num_rows() as u64).sum::<u64>());
        assert_eq!(meta.crc32, crc32fast::hash(&std::fs::read(&path).unwrap()), "the whole file's checksum");
        // One record batch per piece with rows, each as it came.
        reads_back(&path, &meta, &written);
        // Statistics merged batch by batch are those of the rows stored whole.
        let whole =
            write_segment(&dir.path().join("t.arrow"), &schema, &[concat_batches(&schema, &pieces).unwrap()]).unwrap();
        for (merged, of_whole) in meta.stats.iter().zip(&whole.stats) {
            assert_eq!((&merged.min, &merged.max, merged.nulls), (&of_whole.min, &of_whole.max, of_whole.nulls));
            let estimate = |s: &ColumnStats| s.distinct.as_ref().map(|d| d.estimate());
            assert_eq!(estimate(merged), estimate(of_whole));
        }
    }

    #[test]
    fn an_empty_stream_is_a_valid_segment_of_no_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (schema, _) = pieces();
        let path = dir.path().join("s.arrow");
        let meta = SegmentStream::create(&path, &schema).unwrap().finish().unwrap();
        assert_eq!(meta.rows, 0);
        assert!(MappedSegment::open(&path, &meta, true).unwrap().batches(None).unwrap().is_empty());
    }
}
