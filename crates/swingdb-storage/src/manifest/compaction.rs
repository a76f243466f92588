//! `compact`: merges a table's many small segments into few large ones, and
//! `write_out_inline`: moves rows too many for a manifest into a segment file.

use crate::dir::DbDir;
use crate::error::Result;
use crate::manifest::ascending::CLUSTER_ORDER;
use crate::manifest::origin::{limit_origins, origins};
use crate::manifest::{SegmentMeta, TableMeta};
use crate::segment::store::SegmentStore;
use crate::segment::write::write_segment_as;
use crate::segment::writer::TableWriter;
use datafusion::arrow::compute::{concat_batches, lexsort_to_indices, take_record_batch, SortColumn};
use datafusion::arrow::record_batch::RecordBatch;
use std::path::PathBuf;

/// Segments with fewer rows than this are candidates for compaction.
pub const SMALL_SEGMENT_ROWS: u64 = 1 << 20;

/// A table is compacted once it has more small segments than this.
pub const COMPACT_TRIGGER: usize = 8;

/// `table` with each inline segment too large to stay in a manifest (a
/// transaction's tail, see [`crate::manifest::inline`]) written to a segment file
/// instead; the new table and files, or `None` when all fit.
pub fn write_out_inline(dir: &DbDir, table: &TableMeta) -> Result<Option<(TableMeta, Vec<PathBuf>)>> {
    let mut fit = true;
    for rows in table.segments.iter().filter_map(|s| s.inline.as_ref()) {
        fit &= rows.fits_manifest()?;
    }
    if fit {
        return Ok(None);
    }
    let mut files = Vec::new();
    let mut segments = Vec::with_capacity(table.segments.len());
    for segment in &table.segments {
        match &segment.inline {
            Some(rows) if !rows.fits_manifest()? => {
                let path = dir.new_segment_path()?;
                files.push(path.clone());
                let written = write_segment_as(&path, rows.schema(), rows.batches(), table.constraints.compression);
                let written = written.inspect_err(|_| files.iter().for_each(|f| drop(std::fs::remove_file(f))))?;
                // The same rows in the same order: its deleted rows stay deleted.
                let deleted = segment.deleted.clone();
                segments.push(SegmentMeta { column_ids: segment.column_ids.clone(), deleted, ..written });
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
    while let Some((at, largest)) =
        small.iter().enumerate().map(|(at, &i)| (at, table.segments[i].rows)).max_by_key(|&(_, rows)| rows)
    {
        let rest: u64 = small.iter().map(|&i| table.segments[i].rows).sum::<u64>() - largest;
        if largest <= rest {
            break;
        }
        small.remove(at);
    }
    if small.len() <= COMPACT_TRIGGER {
        return Ok(None);
    }
    crate::failpoint::hit("compact.before_write")?;
    let mut writer =
        TableWriter::new(store.dir(), table.schema.clone()).with_compression(table.constraints.compression);
    let mut batches = Vec::new();
    for &i in &small {
        batches.extend(store.map(table, &table.segments[i])?.batches(None)?);
    }
    for batch in clustered(table, batches)? {
        writer.push(batch)?;
    }
    let (mut merged, files) = writer.finish()?;
    // The merged rows are the small segments' in order unless sorted again.
    if let ([one], true) = (merged.as_mut_slice(), table.constraints.cluster_by.is_empty()) {
        one.origin = origins(small.iter().map(|&i| (&table.segments[i], &table.segments[i].deleted)));
    }
    let mut segments = Vec::with_capacity(table.segments.len() - small.len() + merged.len());
    for (i, seg) in table.segments.iter().enumerate() {
        if i == small[0] {
            segments.extend(merged.iter().cloned());
        }
        if !small.contains(&i) {
            segments.push(seg.clone());
        }
    }
    limit_origins(&mut segments);
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
