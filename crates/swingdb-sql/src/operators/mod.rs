//! Execution operators of swingdb's own: aggregation over few groups,
//! a hash join that spills, sums that detect overflow, a string_agg that orders its own values, and
//! the watch that counts a running plan's progress and stops it when
//! interrupted.

pub mod few_groups;
pub mod grace_join;
pub mod overflow;
pub mod single_row;
pub mod string_agg;
pub mod watch;

use datafusion::arrow::record_batch::RecordBatch;

/// `batch` cut into slices of at most `rows` rows (at least one row each),
/// in order, without copying.
pub fn slices(batch: RecordBatch, rows: usize) -> impl Iterator<Item = RecordBatch> {
    let rows = rows.max(1);
    (0..batch.num_rows()).step_by(rows).map(move |at| batch.slice(at, rows.min(batch.num_rows() - at)))
}
