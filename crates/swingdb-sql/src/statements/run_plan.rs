//! Running plans: a logical plan to its physical plan, streamed (off the
//! caller's thread when its operators compute without yielding, from when
//! it is first read; in storage order when it only reads stored tables),
//! collected, or written into a table's new segments.

use super::plan_cache;
use super::{conform, file_order, Executor};
use crate::catalog::source::SegmentSource;
use crate::operators::watch::watch_plan;
use datafusion::arrow::array::{Array, RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::DataFusionError;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::expressions::Column;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::limit::{GlobalLimitExec, LocalLimitExec};
use datafusion::physical_plan::placeholder_row::PlaceholderRowExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::stream::{RecordBatchReceiverStream, RecordBatchStreamAdapter};
use datafusion::physical_plan::{execute_stream, ExecutionPlan, ExecutionPlanProperties};
use futures::{StreamExt, TryStreamExt};
use std::sync::Arc;
use swingdb_storage::error::Result;
use swingdb_storage::{Compression, SegmentMeta, TableWriter};

/// Whether `plan` is a chain of order-preserving single-input operators over a
/// scan of stored segments or registered in-memory data.
pub(crate) fn reads_in_storage_order(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let stored = |scan: &DataSourceExec| {
        let source = scan.data_source();
        source.downcast_ref::<SegmentSource>().is_some() || source.downcast_ref::<MemorySourceConfig>().is_some()
    };
    passes_rows_of(plan, &stored)
}

/// Whether every row `plan` yields is a slice of arrays held anyway
/// (registered data, mapped segments): it only scans them and passes their
/// columns on unchanged, so gathering its rows costs no memory.
fn yields_held_rows(plan: &Arc<dyn ExecutionPlan>) -> bool {
    if let Some(scan) = plan.downcast_ref::<DataSourceExec>() {
        let source = scan.data_source();
        return source.downcast_ref::<SegmentSource>().is_some()
            || source.downcast_ref::<MemorySourceConfig>().is_some();
    }
    let passes = plan.downcast_ref::<CoalescePartitionsExec>().is_some()
        || plan
            .downcast_ref::<ProjectionExec>()
            .is_some_and(|p| p.expr().iter().all(|e| e.expr.downcast_ref::<Column>().is_some()));
    passes && plan.children().into_iter().all(yields_held_rows)
}

/// Whether `plan` is a chain of order-preserving single-input operators over
/// a scan for which `scans` holds.
pub(crate) fn passes_rows_of(plan: &Arc<dyn ExecutionPlan>, scans: &dyn Fn(&DataSourceExec) -> bool) -> bool {
    match plan.children().as_slice() {
        [] => plan.downcast_ref::<DataSourceExec>().is_some_and(scans),
        [child] => plan.maintains_input_order().first() == Some(&true) && passes_rows_of(child, scans),
        _ => false,
    }
}

/// Whether `plan` computes constants only (`SELECT 1`, `SELECT now()`): one
/// partition of projections, filters and limits over a row of nothing.
/// Such a plan runs on the caller's thread: handing it to a worker and its
/// rows back cost more than computing them (80 us of a `SELECT 1`'s 100).
pub(crate) fn computes_constants(plan: &Arc<dyn ExecutionPlan>) -> bool {
    fn constant(plan: &Arc<dyn ExecutionPlan>) -> bool {
        let leaf = plan.downcast_ref::<PlaceholderRowExec>().is_some() || plan.downcast_ref::<EmptyExec>().is_some();
        let light = plan.downcast_ref::<ProjectionExec>().is_some()
            || plan.downcast_ref::<FilterExec>().is_some()
            || plan.downcast_ref::<GlobalLimitExec>().is_some()
            || plan.downcast_ref::<LocalLimitExec>().is_some();
        leaf || (light && plan.children().into_iter().all(constant))
    }
    plan.output_partitioning().partition_count() == 1 && constant(plan)
}

/// The values of a UInt64 column (row ids, counts) across batches.
pub(crate) fn u64_values(batches: &[RecordBatch], column: usize) -> Vec<u64> {
    let mut ids = Vec::new();
    for batch in batches {
        let array = batch.column(column).as_any().downcast_ref::<UInt64Array>().expect("a UInt64 column");
        ids.extend(array.values().iter().copied());
    }
    ids
}

/// `stream`, computed by a task on the engine's worker threads. A plan
/// whose operators compute a batch without ever yielding (an aggregate over
/// a single-partition join runs for seconds in one poll) would otherwise
/// run inside the caller's poll, where nothing else gets a turn: the caller
/// now only waits for batches, so it notices an interrupt (Ctrl-C) at once.
/// Dropping the stream stops the task. Plain reads of stored data (cheap per
/// batch) skip the hop.
pub(crate) fn off_thread(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    off_thread_buffered(stream, 2)
}

/// [`off_thread`], the task running ahead of the reader by up to `batches`.
pub(crate) fn off_thread_buffered(mut stream: SendableRecordBatchStream, batches: usize) -> SendableRecordBatchStream {
    let mut builder = RecordBatchReceiverStream::builder(stream.schema(), batches);
    let tx = builder.tx();
    builder.spawn(async move {
        while let Some(item) = stream.next().await {
            // After an error nothing more is read: DataFusion's operators
            // leave their state half-updated (a window polled again panicked).
            let failed = item.is_err();
            if tx.send(item).await.is_err() || failed {
                break; // the reader is gone, or has the error
            }
        }
        Ok(())
    });
    builder.build()
}

/// A stream of `schema` that calls `start` for its rows when it is first
/// read: a result nobody reads computes nothing. (Started at once, every
/// result ran in the background: a server holding results for a client that
/// never fetched them held each one's sort, 1.3 GB for 60 of them.)
fn started_when_read(
    schema: SchemaRef,
    start: impl FnOnce() -> Result<SendableRecordBatchStream> + Send + 'static,
) -> SendableRecordBatchStream {
    let rows = futures::stream::once(async move { start().map_err(DataFusionError::from) }).try_flatten();
    Box::pin(RecordBatchStreamAdapter::new(schema, rows))
}

impl Executor {
    /// The rows of `plan`, optimized and planned.
    pub async fn stream_plan(&self, plan: LogicalPlan) -> Result<SendableRecordBatchStream> {
        let (physical, task_ctx) = self.physical_plan(plan).await?;
        self.stream_physical(physical, task_ctx)
    }

    /// The optimized physical plan of `plan`, and the context to run it in.
    pub(crate) async fn physical_plan(&self, plan: LogicalPlan) -> Result<(Arc<dyn ExecutionPlan>, Arc<TaskContext>)> {
        let df = self.ctx.execute_logical_plan(plan).await?;
        let task_ctx = self.task_context(&df);
        Ok((df.create_physical_plan().await?, task_ctx))
    }

    /// The rows of `physical`.
    pub(crate) fn stream_physical(
        &self,
        physical: Arc<dyn ExecutionPlan>,
        task_ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if physical.output_partitioning().partition_count() > 1 && reads_in_storage_order(&physical) {
            // A plain read of stored tables: DataFusion split the scan into
            // contiguous ranges; reading them one after the other keeps storage
            // order, so adjacent slices can be joined back into whole arrays.
            return plan_cache::stream_in_order(physical, task_ctx);
        }
        if computes_constants(&physical) {
            return Ok(execute_stream(physical, task_ctx)?);
        }
        let physical = watch_plan(physical, &self.interrupt.run())?;
        Ok(started_when_read(physical.schema(), move || Ok(off_thread(execute_stream(physical, task_ctx)?))))
    }

    pub(crate) async fn collect_plan(&self, plan: LogicalPlan) -> Result<Vec<RecordBatch>> {
        let stream = self.stream_plan(plan).await?;
        Ok(datafusion::physical_plan::common::collect(stream).await?)
    }

    /// Stores the rows of `plan` as new segments of `table` (shaped as
    /// `schema`), in the order its source holds them where the plan only
    /// passes on the rows of files it reads: DataFusion splits a file into
    /// contiguous ranges, one per partition, and the partitions are written
    /// one after the other (computed at once). Rows stay in the file's order,
    /// as DuckDB keeps them, and a file sorted by a column gives a table
    /// sorted by it (see `sql::optimizer::ordered_scan`). Segments are
    /// encoded as `compression` says.
    pub(crate) async fn write_plan(
        &self,
        plan: LogicalPlan,
        schema: &SchemaRef,
        table: &str,
        compression: Compression,
    ) -> Result<Vec<SegmentMeta>> {
        let (physical, task_ctx) = self.physical_plan(plan).await?;
        let held = yields_held_rows(&physical);
        let files = |scan: &DataSourceExec| scan.data_source().downcast_ref::<FileScanConfig>().is_some();
        let stream = if physical.output_partitioning().partition_count() > 1 && passes_rows_of(&physical, &files) {
            file_order::in_file_order(physical, task_ctx, &self.interrupt.run())?
        } else {
            self.stream_physical(physical, task_ctx)?
        };
        self.write_stream(stream, schema, table, held, compression).await
    }

    /// Drains `stream` into new segments of `table` (shaped as `schema`);
    /// `held`: its rows are slices of arrays held anyway (gathered whole,
    /// else in bounded memory, see [`TableWriter::bounded`]), encoded as
    /// `compression` says.
    async fn write_stream(
        &self,
        mut stream: SendableRecordBatchStream,
        schema: &SchemaRef,
        table: &str,
        held: bool,
        compression: Compression,
    ) -> Result<Vec<SegmentMeta>> {
        let writer = match held {
            true => TableWriter::new(self.core.dir(), schema.clone()),
            false => {
                use crate::memory::{gather_bytes, spool_bytes};
                TableWriter::bounded(self.core.dir(), schema.clone(), gather_bytes(), spool_bytes())
            }
        };
        let mut writer = writer.with_compression(compression);
        let progress = self.progress.lock().clone();
        let mut rows = 0;
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            rows += batch.num_rows() as u64;
            writer.push(conform(&batch, schema, table)?)?;
            if let Some(report) = &progress {
                report(rows);
            }
        }
        let (segments, files) = writer.finish()?;
        self.record_files(files);
        Ok(segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::Schema;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A stream that fails at its first poll and counts the polls after that.
    #[tokio::test]
    async fn off_thread_reads_nothing_after_an_error() {
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = polls.clone();
        let items = futures::stream::iter(0..3).map(move |i| {
            counted.fetch_add(1, Ordering::SeqCst);
            match i {
                0 => Err(DataFusionError::Execution("first".into())),
                _ => Ok(RecordBatch::new_empty(Arc::new(Schema::empty()))),
            }
        });
        let stream = Box::pin(RecordBatchStreamAdapter::new(Arc::new(Schema::empty()), items));
        let results: Vec<_> = off_thread(stream).collect().await;
        assert_eq!(results.len(), 1);
        assert!(results[0].is_err());
        assert_eq!(polls.load(Ordering::SeqCst), 1, "the stream was read after its error");
    }
}
