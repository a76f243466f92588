//! Pipes on a connection: `COPY ... TO 'db://NAME'` and [`Connection::pipe_to`]
//! export, `'db://NAME'` used as a table and [`Connection::pipe_from`] import,
//! and the handover of stored segments between two swingdb databases.

use super::{not_null_violation, Connection};
use crate::api::core::runtime;
use crate::api::result::QueryResult;
use crate::error::{Error, ErrorKind, Result};
use crate::pipe::{Offer, PipeTable, PipeUrl, Receiver, Rendezvous, Sender};
use crate::storage::SegmentMeta;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::TableReference;
use datafusion::datasource::provider_as_source;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties, Partitioning};
use futures::StreamExt;
use std::path::Path;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;

/// What [`Connection::pipe_to`] sends.
///
/// ```edition2024
/// use swingdb::{Database, PipeSource, PipeUrl};
/// let url = PipeUrl::parse(&format!("db://doc-source-{}", std::process::id()))?;
/// let importer = {
///     let url = url.clone();
///     std::thread::spawn(move || Database::in_memory()?.connect()?.pipe_from(&url, "copy", true))
/// };
/// let con = Database::in_memory()?.connect()?;
/// con.execute("CREATE TABLE t AS SELECT value AS v FROM range(10)", &[])?;
/// assert_eq!(con.pipe_to(&url, PipeSource::Query("SELECT v FROM t WHERE v < 4"))?, 4);
/// assert_eq!(importer.join().unwrap()?, 4);
/// # Ok::<(), swingdb::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub enum PipeSource<'a> {
    /// A stored table by name (taken as it is, as if quoted): its segments are
    /// offered for handover.
    Table(&'a str),
    /// The rows of a query.
    Query(&'a str),
}

impl Connection {
    /// Sends `source`'s rows into the pipe `url`, waiting for an importer;
    /// returns the rows it took.
    pub fn pipe_to(&self, url: &PipeUrl, source: PipeSource<'_>) -> Result<u64> {
        self.check_external_access("a pipe")?;
        let result = super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    let (plan, table) = match source {
                        PipeSource::Table(name) => {
                            let stored = self.is_stored_table(name)?;
                            (
                                self.ctx.table(TableReference::bare(name)).await?.into_unoptimized_plan(),
                                stored.then_some(name),
                            )
                        }
                        PipeSource::Query(sql) => {
                            let mut statements = crate::sql::parse::parse(sql)?;
                            if statements.len() != 1 {
                                return Err(Error::programming("pipe_to takes one query"));
                            }
                            (self.ctx.state().statement_to_plan(statements.remove(0)).await?, None)
                        }
                    };
                    self.pipe_out(plan, table, url).await
                })
                .await
            })
        })?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Receives the rows of the pipe `url` into table `table` (a new one with
    /// `create`, else appended by column position), atomically; returns the rows.
    pub fn pipe_from(&self, url: &PipeUrl, table: &str, create: bool) -> Result<u64> {
        self.check_external_access("a pipe")?;
        crate::sql::names::check_table_name(table)?;
        if !create && !self.table_names()?.iter().any(|t| t == table) {
            // Reported before anyone waits for the exporter.
            return Err(Error::programming(format!("table '{table}' does not exist")));
        }
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        let result = super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    if create {
                        self.create_table_from(table, provider).await
                    } else {
                        self.append_from(table, provider).await
                    }
                })
                .await
            })
        })?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Writes the rows of pipe `url` as CSV into a FIFO it makes at `path`,
    /// for a program that can only read files (see `swingdb pipe fifo-out`).
    /// Returns the rows.
    pub fn fifo_out(&self, url: &PipeUrl, path: &Path) -> Result<u64> {
        crate::pipe::fifo::fifo_out(url, path, || {
            let mut result = self.pipe_reader(url)?;
            Ok(std::iter::from_fn(move || result.next_batch().transpose()))
        })
    }

    /// The rows of the pipe `url` as a streaming result (read once).
    pub fn pipe_reader(&self, url: &PipeUrl) -> Result<QueryResult> {
        self.check_external_access("a pipe")?;
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                let plan = LogicalPlanBuilder::scan("pipe", provider_as_source(provider), None)?.build()?;
                Ok(QueryResult::streaming(self.stream_plan(plan).await?))
            })
        })
    }

    /// `COPY t TO 'db://...'` and `COPY (query) TO 'db://...'`.
    pub(super) async fn copy_to_pipe(&self, plan: LogicalPlan, table: Option<&str>, url: &str) -> Result<QueryResult> {
        self.pipe_out(plan, table, &PipeUrl::parse(url)?).await
    }

    /// Sends the rows of `plan` to the importer of `url`; `table` names the
    /// stored table `plan` reads whole, whose segments are offered for handover.
    async fn pipe_out(&self, plan: LogicalPlan, table: Option<&str>, url: &PipeUrl) -> Result<QueryResult> {
        let df = self.ctx.execute_logical_plan(plan).await?;
        let task_ctx = Arc::new(df.task_ctx());
        let physical = df.create_physical_plan().await?;
        let schema = physical.schema();
        // Offered only when the plan reads exactly the stored segments: not
        // when data registered under the same name shadows the table, and
        // only with the stored column types, and not for a table whose
        // columns were added or dropped (its segments hold other columns).
        let offer = match table {
            Some(name) if !self.registered.lock().unwrap().contains_key(name) => {
                let meta = self.table(name)?;
                let same_types = !meta.is_altered()
                    && meta.schema.fields().len() == schema.fields().len()
                    && meta.schema.fields().iter().zip(schema.fields()).all(|(a, b)| a.data_type() == b.data_type());
                same_types.then(|| Offer { dir: self.core.dir().segments_dir(), segments: meta.segments.clone() })
            }
            _ => None,
        };
        let mut sender = Sender::open(&Rendezvous::user()?, url, &schema, offer)?;
        if sender.handing_over() {
            // Our transaction pins the segments until the importer has linked them.
            return Ok(QueryResult::count(sender.finish_handover()?));
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
                            if crate::signal::stop_requested() {
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
        Ok(QueryResult::count(sender.finish(sent)?))
    }

    /// Stores the rows of `plan` as new segments of `table` (shaped `schema`):
    /// when `plan` reads a whole pipe whose exporter offers stored segments of
    /// the same types, they are taken over as files (no row is read or
    /// written); otherwise the rows are streamed and written. A table with
    /// `cluster_by` columns gets its new rows sorted by them (ascending, NULLs
    /// first), so that each new segment ascends by the first.
    pub(super) async fn store_rows(
        &self,
        plan: LogicalPlan,
        schema: &SchemaRef,
        table: &str,
        cluster_by: &[String],
    ) -> Result<Vec<SegmentMeta>> {
        if cluster_by.is_empty() {
            if let Some(provider) = PipeTable::read_whole_by(&plan) {
                let pipe = provider.downcast_ref::<PipeTable>().expect("read_whole_by finds pipes");
                if pipe.can_hand_over_to(schema) {
                    let (segments, files) = pipe.receiver().take_segments(self.core.dir(), schema)?;
                    self.record_files(files);
                    let rows = segments.iter().map(|s| s.rows).sum();
                    self.pending_imports.lock().unwrap().push(pipe.handed_over(rows));
                    return Ok(segments);
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
        let source = plan.clone();
        let segments =
            self.write_plan(plan, schema, table).await.map_err(|e| not_null_violation(e, schema, table, &source))?;
        for pipe in &pipes {
            if let Some(import) = pipe.downcast_ref::<PipeTable>().expect("read_by finds pipes").settle().await? {
                self.pending_imports.lock().unwrap().push(import);
            }
        }
        Ok(segments)
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
