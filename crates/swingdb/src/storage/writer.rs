//! `TableWriter`: turns a stream of record batches into segments of bounded size,
//! and `compact`: merges a table's many small segments into few large ones.

use super::dir::DbDir;
use super::inline::{inline_segment, INLINE_MAX_BYTES};
use super::manifest::{SegmentMeta, TableMeta};
use super::segment::write_segment;
use super::store::SegmentStore;
use crate::coalesce::{continues, join_run};
use crate::error::Result;
use super::ascending::CLUSTER_ORDER;
use datafusion::arrow::compute::{concat_batches, lexsort_to_indices, take_record_batch, SortColumn};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use std::path::PathBuf;

/// Most rows in one segment. Large, so that a whole table usually is one
/// contiguous array per column (what numpy needs for a zero-copy view).
pub const SEGMENT_MAX_ROWS: usize = 1 << 25;

/// Segments with fewer rows than this are candidates for compaction.
pub const SMALL_SEGMENT_ROWS: u64 = 1 << 20;

/// A table is compacted once it has more small segments than this.
pub const COMPACT_TRIGGER: usize = 8;

/// Writes batches into new segment files. Files it wrote are deleted again if it
/// is dropped without [`TableWriter::finish`].
pub struct TableWriter<'a> {
    dir: &'a DbDir,
    schema: SchemaRef,
    pending: Vec<RecordBatch>,
    pending_rows: usize,
    segments: Vec<SegmentMeta>,
    files: Vec<PathBuf>,
}

impl<'a> TableWriter<'a> {
    /// A writer of segments with `schema` into `dir`.
    pub fn new(dir: &'a DbDir, schema: SchemaRef) -> Self {
        Self { dir, schema, pending: Vec::new(), pending_rows: 0, segments: Vec::new(), files: Vec::new() }
    }

    /// Adds rows; writes a segment whenever enough have gathered.
    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.pending_rows += batch.num_rows();
        self.pending.push(batch);
        while self.pending_rows >= SEGMENT_MAX_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending_rows == 0 {
            return Ok(());
        }
        // Consecutive slices of one buffer (DataFusion cuts scans of registered
        // data into slices) go to the file as the buffer they are; only pieces
        // from different places are copied together first.
        let all = if self.pending.windows(2).all(|w| continues(&w[0], &w[1])) {
            join_run(&self.pending)
        } else {
            concat_batches(&self.schema, &self.pending)?
        };
        self.pending.clear();
        let take = all.num_rows().min(SEGMENT_MAX_ROWS);
        let (now, rest) = (all.slice(0, take), all.slice(take, all.num_rows() - take));
        self.pending_rows = rest.num_rows();
        if rest.num_rows() > 0 {
            self.pending.push(rest);
        }
        let path = self.dir.new_segment_path()?;
        self.files.push(path.clone());
        self.segments.push(write_segment(&path, &now)?);
        Ok(())
    }

    /// Writes what is left and returns the new segments and their files.
    /// A write small enough to keep in the manifest (see [`super::inline`])
    /// becomes an inline segment instead of a file.
    pub fn finish(mut self) -> Result<(Vec<SegmentMeta>, Vec<PathBuf>)> {
        if self.segments.is_empty() && self.pending_rows > 0 {
            let all = concat_batches(&self.schema, &self.pending)?;
            // Only a small batch is worth encoding to see whether it fits.
            if all.get_array_memory_size() <= 16 * INLINE_MAX_BYTES {
                let segment = inline_segment(self.dir.new_inline_name()?, all.clone())?;
                if segment.inline.as_ref().expect("inline").fits_manifest()? {
                    return Ok((vec![segment], Vec::new()));
                }
            }
            self.pending = vec![all];
        }
        while self.pending_rows > 0 {
            self.flush()?;
        }
        Ok((std::mem::take(&mut self.segments), std::mem::take(&mut self.files)))
    }
}

impl Drop for TableWriter<'_> {
    fn drop(&mut self) {
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// `table` with each inline segment too large to stay in a manifest (a
/// transaction's tail, see [`super::inline`]) written to a segment file
/// instead; the new table and files, or `None` when all fit.
pub fn write_out_inline(dir: &DbDir, table: &TableMeta) -> Result<Option<(TableMeta, Vec<PathBuf>)>> {
    let mut files = Vec::new();
    let mut segments = Vec::with_capacity(table.segments.len());
    for segment in &table.segments {
        match &segment.inline {
            Some(rows) if !rows.fits_manifest()? => {
                let path = dir.new_segment_path()?;
                files.push(path.clone());
                let batch = concat_batches(rows.schema(), rows.batches())?;
                let written = write_segment(&path, &batch);
                let written = written.inspect_err(|_| files.iter().for_each(|f| drop(std::fs::remove_file(f))))?;
                segments.push(SegmentMeta { column_ids: segment.column_ids.clone(), ..written });
            }
            _ => segments.push(segment.clone()),
        }
    }
    Ok((!files.is_empty()).then(|| (table.with_segments(segments), files)))
}

/// If `table` has more than [`COMPACT_TRIGGER`] small segments, merges them
/// (in order) into as few segments as fit, returning the new table and files.
pub fn compact(store: &SegmentStore, table: &TableMeta) -> Result<Option<(TableMeta, Vec<PathBuf>)>> {
    let mut small: Vec<usize> =
        table.segments.iter().enumerate().filter(|(_, s)| s.rows < SMALL_SEGMENT_ROWS).map(|(i, _)| i).collect();
    // Size-tiered: a segment joins a merge only if it is no larger than the
    // others merged with it together. Otherwise a table of 10^6 rows taking
    // single-row inserts rewrote all its rows every few commits; this way
    // each row is rewritten O(log n) times.
    while let Some((at, largest)) = small.iter().enumerate().map(|(at, &i)| (at, table.segments[i].rows)).max_by_key(|&(_, rows)| rows) {
        let rest: u64 = small.iter().map(|&i| table.segments[i].rows).sum::<u64>() - largest;
        if largest <= rest {
            break;
        }
        small.remove(at);
    }
    if small.len() <= COMPACT_TRIGGER {
        return Ok(None);
    }
    super::failpoint::hit("compact.before_write")?;
    let mut writer = TableWriter::new(store.dir(), table.schema.clone());
    let mut batches = Vec::new();
    for &i in &small {
        batches.extend(store.map(table, &table.segments[i])?.batches(None)?);
    }
    for batch in clustered(table, batches)? {
        writer.push(batch)?;
    }
    let (merged, files) = writer.finish()?;
    let mut segments = Vec::with_capacity(table.segments.len() - small.len() + merged.len());
    for (i, seg) in table.segments.iter().enumerate() {
        if i == small[0] {
            segments.extend(merged.iter().cloned());
        }
        if !small.contains(&i) {
            segments.push(seg.clone());
        }
    }
    Ok(Some((table.with_segments(segments), files)))
}

/// `batches` of `table` sorted by its `CLUSTER BY` columns (as its writes
/// leave them), or as they are when it has none.
fn clustered(table: &TableMeta, batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
    let keys = &table.constraints.cluster_by;
    if keys.is_empty() || batches.is_empty() {
        return Ok(batches);
    }
    let all = concat_batches(&table.schema, &batches)?;
    let columns = keys
        .iter()
        .filter_map(|k| table.schema.index_of(k).ok())
        .map(|at| SortColumn { values: all.column(at).clone(), options: Some(CLUSTER_ORDER) })
        .collect::<Vec<_>>();
    let order = lexsort_to_indices(&columns, None)?;
    Ok(vec![take_record_batch(&all, &order)?])
}
