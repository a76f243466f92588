//! Pipes in statements: `COPY ... TO 'db://NAME'` sends a query's rows (or
//! hands a stored table's segments over), and rows read from a pipe are
//! stored (or its offered segments taken over) by the statement that reads it.

use super::{conform, nullable_values, Executor, Output};
use crate::frontend::parse::parse;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::TableReference;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning};
use futures::StreamExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;
use swingdb_pipe::{Offer, PipeTable, PipeUrl, Rendezvous, Sender};
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::{Constraints, SegmentMeta, TableWriter};

impl Executor {
    /// Sends the rows of the table or view `name` (as it is, not SQL) into
    /// the pipe `url`, offering a stored table's segments for handover.
    pub async fn pipe_table(&self, name: &str, url: &PipeUrl) -> Result<Output> {
        let stored = self.is_stored_table(name)?;
        let plan = self.ctx.table(TableReference::bare(name)).await?.into_unoptimized_plan();
        self.pipe_out(plan, stored.then_some(name), url).await
    }

    /// Sends the rows of the one query `sql` into the pipe `url`.
    pub async fn pipe_query(&self, sql: &str, url: &PipeUrl) -> Result<Output> {
        let mut statements = parse(sql)?;
        if statements.len() != 1 {
            return Err(Error::programming("pipe_to takes one query"));
        }
        let plan = self.ctx.state().statement_to_plan(statements.remove(0)).await?;
        self.pipe_out(plan, None, url).await
    }

    /// `COPY t TO 'db://...'` and `COPY (query) TO 'db://...'`.
    pub(crate) async fn copy_to_pipe(&self, plan: LogicalPlan, table: Option<&str>, url: &str) -> Result<Output> {
        self.pipe_out(plan, table, &PipeUrl::parse(url)?).await
    }

    /// Sends the rows of `plan` to the importer of `url`; `table` names the
    /// stored table `plan` reads whole, whose segments are offered for handover.
    async fn pipe_out(&self, plan: LogicalPlan, table: Option<&str>, url: &PipeUrl) -> Result<Output> {
        let df = self.ctx.execute_logical_plan(plan).await?;
        let task_ctx = self.task_context(&df);
        let physical = df.create_physical_plan().await?;
        let schema = physical.schema();
        // Offered only when the plan reads exactly the stored segments: not
        // when data registered under the same name shadows the table, and
        // only with the stored column types, and not for a table whose
        // columns were added or dropped (its segments hold other columns) or
        // that has deleted rows (its files hold them: only its rows are sent).
        let offer = match table {
            Some(name) if !self.registered.lock().contains_key(name) => {
                let meta = self.table(name)?;
                let same_types = !meta.is_altered()
                    && meta.segments.iter().all(|s| s.deleted.is_empty())
                    && meta.schema.fields().len() == schema.fields().len()
                    && meta.schema.fields().iter().zip(schema.fields()).all(|(a, b)| a.data_type() == b.data_type());
                same_types.then(|| Offer { dir: self.core.dir().segments_dir(), segments: meta.segments.clone() })
            }
            _ => None,
        };
        let mut sender = Sender::open(&Rendezvous::user()?, url, &schema, offer)?;
        if sender.handing_over() {
            // Our transaction pins the segments until the importer has linked them.
            return Ok(Output::Count(sender.finish_handover()?));
        }
        let sinks = match sender.open_streams(&schema) {
            Ok(s) => s,
            Err(e) => {
                sender.abort(e.message());
                return Err(e);
            }
        };
        let streams = sinks.len();
        let physical: Arc<dyn ExecutionPlan> = match physical.output_partitioning().partition_count() {
            p if p == streams => physical,
            _ if streams == 1 => Arc::new(CoalescePartitionsExec::new(physical)),
            _ => Arc::new(RepartitionExec::try_new(physical, Partitioning::RoundRobinBatch(streams))?),
        };
        let handle = tokio::runtime::Handle::current();
        // One thread per stream: each runs its partition of the plan and
        // encodes into its socket, blocking while the importer is behind.
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let outcomes: Vec<Result<(u64, u32)>> = std::thread::scope(|scope| {
            let threads: Vec<_> = sinks
                .into_iter()
                .enumerate()
                .map(|(i, mut sink)| {
                    let (plan, ctx, handle, done) = (physical.clone(), task_ctx.clone(), handle.clone(), done.clone());
                    scope.spawn(move || {
                        let written = handle.block_on(async {
                            let mut stream = plan.execute(i, ctx)?;
                            while let Some(batch) = stream.next().await {
                                sink.write(&batch?)?;
                            }
                            Ok::<_, Error>(())
                        });
                        let outcome = written.and_then(|()| sink.close());
                        let _ = done.send(());
                        outcome
                    })
                })
                .collect();
            // The writers block while the importer is behind; Ctrl-C ends
            // their streams, which ends their writes at once.
            let mut stopped = false;
            for _ in 0..threads.len() {
                loop {
                    match finished.recv_timeout(Duration::from_millis(25)) {
                        Err(RecvTimeoutError::Timeout) if !stopped => {
                            if swingdb_storage::signal::stop_requested() {
                                stopped = true;
                                sender.end_streams();
                            }
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        _ => break,
                    }
                }
            }
            let outcomes: Vec<_> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err(Error::internal("a pipe writer panicked"))))
                .collect();
            if stopped {
                return vec![Err(Error::new(
                    ErrorKind::Interrupted,
                    format!("pipe '{}': interrupted while sending", url.name),
                ))];
            }
            outcomes
        });
        let mut sent = Vec::with_capacity(streams);
        for outcome in outcomes {
            match outcome {
                Ok(counts) => sent.push(counts),
                Err(e) => {
                    let e = sender.explain(e);
                    sender.abort(e.message());
                    return Err(e);
                }
            }
        }
        Ok(Output::Count(sender.finish(sent)?))
    }

    /// Stores the rows of `plan` as new segments of `table` (shaped `schema`):
    /// when `plan` reads a whole pipe whose exporter offers stored segments of
    /// the same types, they are taken over as files (no row is read or
    /// written); when it reads a whole pipe otherwise, each of its streams is
    /// written to segment files as it arrives ([`Self::store_streams`]);
    /// otherwise the query's rows are written. A table with `CLUSTER BY`
    /// columns (in `constraints`) gets its new rows sorted by them (ascending,
    /// NULLs first), so that each new segment ascends by the first; segments
    /// are encoded as its `compression` says (neither is true of segments
    /// taken over or streamed, so neither is done then).
    pub(crate) async fn store_rows(
        &self,
        plan: LogicalPlan,
        schema: &SchemaRef,
        table: &str,
        constraints: &Constraints,
    ) -> Result<Vec<SegmentMeta>> {
        let cluster_by = &constraints.cluster_by;
        if cluster_by.is_empty() && constraints.compression.is_default() {
            if let Some(provider) = PipeTable::read_whole_by(&plan) {
                let pipe = provider.downcast_ref::<PipeTable>().expect("read_whole_by finds pipes");
                if pipe.can_hand_over_to(schema) {
                    let (segments, files) = pipe.receiver().take_segments(self.core.dir(), schema)?;
                    self.record_files(files);
                    let rows = segments.iter().map(|s| s.rows).sum();
                    self.pending_imports.lock().push(pipe.taken_whole(rows));
                    return Ok(segments);
                }
                if pipe.unread() {
                    return self.store_streams(pipe, schema, table);
                }
            }
        }
        let plan = if cluster_by.is_empty() { plan } else { sorted_by(plan, schema, cluster_by)? };
        // The pipes read are checked once the rows are written, and confirmed
        // to their exporters when the statement succeeds (`atomically`), not
        // when the rows arrived.
        let pipes = PipeTable::read_by(&plan);
        for pipe in &pipes {
            pipe.downcast_ref::<PipeTable>().expect("read_by finds pipes").defer_settlement();
        }
        let segments = self.write_plan(nullable_values(plan)?, schema, table, constraints.compression).await?;
        for pipe in &pipes {
            if let Some(import) = pipe.downcast_ref::<PipeTable>().expect("read_by finds pipes").settle().await? {
                self.pending_imports.lock().push(import);
            }
        }
        Ok(segments)
    }

    /// Stores the rows of `pipe`, read whole, as new segments of `table`
    /// (shaped `schema`): each stream's batches go to segment files of their
    /// own as they arrive, on the stream's thread, with no query between
    /// (memory: a few batches per stream, however many rows pass).
    fn store_streams(&self, pipe: &PipeTable, schema: &SchemaRef, table: &str) -> Result<Vec<SegmentMeta>> {
        let progress = self.progress();
        let rows = AtomicU64::new(0);
        let (segments, taken) = pipe.receiver().read_streams(
            || TableWriter::streaming(self.core.dir(), schema.clone()),
            |writer, batch| {
                let n = batch.num_rows() as u64;
                writer.push(conform(&batch, schema, table)?)?;
                if let Some(report) = &progress {
                    report(rows.fetch_add(n, Ordering::Relaxed) + n);
                }
                Ok(())
            },
            |writer| {
                // Owned by the transaction from here: deleted unless it commits them.
                let (segments, files) = writer.finish()?;
                self.record_files(files);
                Ok(segments)
            },
        )?;
        self.pending_imports.lock().push(pipe.taken_whole(taken));
        Ok(segments.into_iter().flatten().collect())
    }
}

/// `plan` (rows shaped as the table of `schema`, column by column) sorted by
/// the table columns `columns`, ascending with NULLs first.
fn sorted_by(plan: LogicalPlan, schema: &SchemaRef, columns: &[String]) -> Result<LogicalPlan> {
    let outputs = plan.schema().columns();
    let keys = columns
        .iter()
        .map(|c| {
            let at = schema
                .index_of(c)
                .map_err(|_| Error::internal(format!("CLUSTER BY column '{c}' is not in the table")))?;
            Ok(Expr::Column(outputs[at].clone()).sort(true, true))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(LogicalPlanBuilder::from(plan).sort(keys)?.build()?)
}
