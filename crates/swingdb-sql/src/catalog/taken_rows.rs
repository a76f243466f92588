//! Rows taken by position from a segment's stored batches: what a lookup by
//! key (`key_lookup`) hands a scan or a point read, instead of the
//! segment's zero-copy slices.

use datafusion::arrow::array::{Array, ArrayRef, UInt64Array};
use datafusion::arrow::compute::{concat, take};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::error::Result as DFResult;
use std::sync::Arc;
use swingdb_storage::encoding::{decode_runs, physical_type, with_stored_types};
use swingdb_storage::error::Result;

/// The rows at `positions` (ascending; deleted rows left out already) of
/// a segment (whose row ids start at `base`), from its stored `batches` (the columns `stored`),
/// shaped as the scan's `projection` (row ids included) into `schema`.
pub(super) fn rows_at(
    batches: Vec<RecordBatch>,
    positions: &[u64],
    base: u64,
    projection: &[usize],
    stored: &[usize],
    schema: &SchemaRef,
) -> DFResult<Vec<RecordBatch>> {
    let mut out = Vec::new();
    let (mut start, mut next) = (0u64, 0usize);
    for batch in batches {
        let end = start + batch.num_rows() as u64;
        let taken = positions[next..].iter().take_while(|&&p| p < end).count();
        let here = &positions[next..next + taken];
        next += taken;
        if !here.is_empty() {
            let rows: UInt64Array = here.iter().map(|p| p - start).collect();
            let columns: Vec<ArrayRef> = projection
                .iter()
                .map(|&i| match stored.iter().position(|&s| s == i) {
                    Some(at) => take_stored(batch.column(at), &rows),
                    None => Ok(Arc::new(here.iter().map(|p| base + p).collect::<UInt64Array>()) as ArrayRef),
                })
                .collect::<DFResult<_>>()?;
            let options = RecordBatchOptions::new().with_row_count(Some(here.len()));
            out.push(RecordBatch::try_new_with_options(with_stored_types(schema, &columns), columns, &options)?);
        }
        start = end;
        if next == positions.len() {
            break;
        }
    }
    Ok(out)
}

/// The values at `rows` of a segment column as stored: taken (dictionaries
/// and narrowed decimals stay encoded, the scan decodes them), but a
/// compressed or packed column's rows decoded one by one (each decodes only
/// the run of rows holding it): taking from its runs directly would cut them
/// from their frames or blocks.
fn take_stored(column: &ArrayRef, rows: &UInt64Array) -> DFResult<ArrayRef> {
    if physical_type(column.data_type()).is_none() {
        return Ok(take(column, rows, None)?);
    }
    let values =
        rows.values().iter().map(|&r| decode_runs(&column.slice(r as usize, 1))).collect::<Result<Vec<_>>>()?;
    let values: Vec<&dyn Array> = values.iter().map(|v| v.as_ref()).collect();
    Ok(concat(&values)?)
}
