//! Storing the rows of files (`CREATE TABLE t AS SELECT * FROM 'x.parquet'`)
//! in the files' own order, read in parallel in bounded memory.
//!
//! A table keeps the order its rows were loaded in, and scans declare the
//! columns that ascend (`sql/optimizer/ordered_scan.rs`): lineitem loaded in its file's
//! order has `l_orderkey` ascending. DataFusion reads a file in as many byte
//! ranges as it has partitions, each partition free to take over another's
//! work when it finishes first, so stored in partition order the rows came
//! out of order. The file is read here in many small ranges instead (at most
//! [`PIECE_BYTES`] each, at least [`PIECES_PER_THREAD`] per partition), each
//! keeping to its own range, and their batches are handed over range after
//! range. Only a few batches of the few ranges read ahead of the one being
//! stored wait in memory: reading the whole file at once, with each
//! partition's later batches waiting for their turn, took 22 GB of memory to
//! load TPC-H at SF10 (lineitem: a 2.5 GB Parquet file, 60M rows) on a 24 GB
//! machine; whole ranges read ahead and a gathered 32M-row segment, 18 GB;
//! now under 1 GB of anonymous memory (the writer spools, see
//! `storage::writer`).

use super::run_plan::off_thread_buffered;
use crate::operators::watch::watch_plan;
use crate::operators::watch::Run;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::datasource::physical_plan::{FileGroup, FileGroupPartitioner, FileScanConfig, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};
use futures::stream::{self, BoxStream, StreamExt};
use std::sync::Arc;
use swingdb_storage::error::Result;

/// Most bytes of a file one range reads. A 16 MiB range of a compressed
/// Parquet file is some 60 MB of batches (TPC-H lineitem); with 64 MiB
/// ranges read ahead whole, loading lineitem SF10 held 2.9 GB of batches.
const PIECE_BYTES: u64 = 16 << 20;

/// Fewest ranges per partition, so that small files are read in order by
/// the same path as large ones.
const PIECES_PER_THREAD: usize = 4;

/// Ranges read ahead of the one being stored, per partition: while the
/// writer encodes and writes a segment (seconds, for a large table), the
/// partitions go on reading. Loading TPC-H SF10 took 100 s with one range
/// ahead per partition, 96 s with two (and 91 s reading everything ahead).
const RANGES_AHEAD: usize = 2;

/// The rows of `plan` (a chain of order-preserving operators over a scan of
/// files, with more than one partition) in the files' order, run as
/// statement `run`; see the module documentation.
pub(crate) fn in_file_order(
    plan: Arc<dyn ExecutionPlan>,
    ctx: Arc<TaskContext>,
    run: &Arc<Run>,
) -> Result<SendableRecordBatchStream> {
    let threads = plan.output_partitioning().partition_count();
    let plan = watch_plan(in_ranges(plan, threads)?, run)?;
    let schema = plan.schema();
    let pieces = plan.output_partitioning().partition_count();
    // A range read ahead stops once this many of its batches wait (some
    // 20 MB of lineitem's): without a bound, the ranges read ahead of the
    // one being stored held all their rows, whatever their row groups'
    // size (a load of 20M rows in 1M-row groups held 250 MB of them).
    const WAITING_BATCHES: usize = 16;
    let started = stream::iter(0..pieces).map(move |piece| {
        let batches: BoxStream<'static, _> = match plan.execute(piece, ctx.clone()) {
            Ok(piece) => off_thread_buffered(piece, WAITING_BATCHES).boxed(),
            Err(e) => stream::once(async move { Err(e) }).boxed(),
        };
        std::future::ready(batches)
    });
    // `buffered` starts up to [`RANGES_AHEAD`] per partition ahead of the
    // one `flatten` is handing over.
    let ordered = started.buffered(RANGES_AHEAD * threads).flatten();
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, ordered)))
}

/// `plan` with each file scan split into consecutive byte ranges (in the
/// order of its files and their bytes), one partition each, every
/// partition reading only its own.
fn in_ranges(plan: Arc<dyn ExecutionPlan>, threads: usize) -> Result<Arc<dyn ExecutionPlan>> {
    Ok(plan
        .transform_up(|node| {
            let Some(scan) = node.downcast_ref::<DataSourceExec>() else { return Ok(Transformed::no(node)) };
            let Some(config) = scan.data_source().downcast_ref::<FileScanConfig>() else {
                return Ok(Transformed::no(node));
            };
            // Declared partitioning stays as it is, each partition in its own order.
            let groups = match config.output_partitioning {
                Some(_) => None,
                None => {
                    let files: Vec<_> = config.file_groups.iter().flat_map(FileGroup::iter).cloned().collect();
                    let bytes: u64 = files.iter().map(|f| f.effective_size()).sum();
                    let pieces = (bytes.div_ceil(PIECE_BYTES) as usize).max(threads * PIECES_PER_THREAD);
                    FileGroupPartitioner::new()
                        .with_target_partitions(pieces)
                        .with_repartition_file_min_size(0)
                        .repartition_file_groups(&[FileGroup::new(files)])
                }
            };
            let groups = groups.unwrap_or_else(|| config.file_groups.clone());
            let ranges =
                FileScanConfigBuilder::from(config.clone()).with_file_groups(groups).with_preserve_order(true).build();
            Ok(Transformed::yes(DataSourceExec::from_data_source(ranges) as Arc<dyn ExecutionPlan>))
        })?
        .data)
}
