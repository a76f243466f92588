//! The importing end as a table: `SELECT * FROM 'db://NAME'` scans a
//! [`PipeTable`], one partition per importing worker, each fed by one or more
//! of the transfer's streams (read by a thread per stream, so decoding runs in
//! parallel and a slow consumer holds the exporter back through the sockets).

use super::transfer::{Receiver, StreamStop};
use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::catalog::Session;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result as DFResult;
use datafusion::datasource::{source_as_provider, TableProvider, TableType};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};
use tokio::sync::mpsc;

/// Batches each partition's channel holds before the reading threads wait.
const CHANNEL_DEPTH: usize = 2;

type Batches = mpsc::Receiver<DFResult<RecordBatch>>;

/// The batches arriving on `rx` as a partition's stream (pipes and PostgreSQL
/// reads both feed partitions from threads or tasks through a channel).
pub(crate) fn channel_stream(schema: SchemaRef, rx: Batches) -> SendableRecordBatchStream {
    let batches = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) });
    Box::pin(RecordBatchStreamAdapter::new(schema, batches))
}

/// A pipe being imported, as a table that can be scanned once.
#[derive(Debug)]
pub struct PipeTable {
    shared: Arc<Shared>,
    inner: StreamingTable,
}

#[derive(Debug)]
struct Shared {
    receiver: Arc<Receiver>,
    partitions: usize,
    /// Per partition, its channel until the partition is executed (`None` before the streams are opened).
    channels: Mutex<Option<Vec<Option<Batches>>>>,
    /// Handles of the data streams, to end them all when one fails.
    sockets: Mutex<Vec<StreamStop>>,
    /// Whether the statement reading the pipe settles the transfer itself,
    /// once it wrote the rows ([`PipeTable::settle`]).
    deferred: AtomicBool,
    /// Rows and CRC-32 each stream delivered, recorded as its thread ends.
    received: Mutex<Vec<(u64, u32)>>,
    /// Partitions the query read to their end.
    ended: AtomicUsize,
}

/// Rows a statement took from a pipe and checked, not yet confirmed to the
/// exporter: the statement confirms once they are stored (after its commit,
/// outside a transaction) or gives up, so the exporter never hears "done"
/// for rows a failed statement (a key violation, a failed commit) dropped.
/// An importer killed between its commit and the confirmation leaves the
/// exporter reporting a lost importer although the rows were stored: commit
/// and confirmation cannot be one step, and this is the safe way round (the
/// other would report rows that were never stored).
pub struct PendingImport {
    receiver: Arc<Receiver>,
    rows: u64,
}

impl PendingImport {
    /// Tells the exporter the rows were imported.
    pub fn confirm(self) -> Result<()> {
        self.receiver.confirm(self.rows)
    }

    /// Tells the exporter nothing was imported, and why.
    pub fn abort(self, why: &str) {
        self.receiver.abort(why);
    }
}

impl PipeTable {
    /// A table over the transfer `receiver` has met.
    pub fn new(receiver: Receiver) -> Result<Self> {
        let schema = receiver.schema().clone();
        let partitions = receiver.workers();
        let shared = Arc::new(Shared {
            receiver: Arc::new(receiver),
            partitions,
            channels: Mutex::new(None),
            sockets: Mutex::new(Vec::new()),
            deferred: AtomicBool::new(false),
            received: Mutex::new(Vec::new()),
            ended: AtomicUsize::new(0),
        });
        let streams = (0..partitions)
            .map(|index| {
                Arc::new(Partition { shared: shared.clone(), index, schema: schema.clone() })
                    as Arc<dyn PartitionStream>
            })
            .collect();
        let inner = StreamingTable::try_new(schema, streams)?;
        Ok(Self { shared, inner })
    }

    /// The transfer.
    pub fn receiver(&self) -> &Receiver {
        &self.shared.receiver
    }

    /// Whether the exporter's offered segments can become rows of a table of
    /// `target`'s schema as they are: same column types in order, and no NULLs
    /// where the target has NOT NULL.
    pub fn can_hand_over_to(&self, target: &SchemaRef) -> bool {
        let receiver = &self.shared.receiver;
        let source = receiver.schema();
        if !receiver.offers_segments() || source.fields().len() != target.fields().len() {
            return false;
        }
        let types_match = source.fields().iter().zip(target.fields()).all(|(s, t)| s.data_type() == t.data_type());
        types_match
            && target.fields().iter().enumerate().all(|(i, f)| f.is_nullable() || receiver.offered_nulls(i) == Some(0))
            && self.unread()
    }

    /// Every pipe `plan` reads (subqueries included).
    pub fn read_by(plan: &LogicalPlan) -> Vec<Arc<dyn TableProvider>> {
        let mut pipes = Vec::new();
        let _ = plan.apply_with_subqueries(|node| {
            if let LogicalPlan::TableScan(scan) = node {
                if let Ok(provider) = source_as_provider(&scan.source) {
                    if provider.downcast_ref::<PipeTable>().is_some() {
                        pipes.push(provider);
                    }
                }
            }
            Ok(TreeNodeRecursion::Continue)
        });
        pipes
    }

    /// Makes the statement that reads this pipe settle the transfer itself
    /// with [`Self::settle`] once it has written the rows: the reading threads
    /// reach the end of the sockets while rows still wait in the query, which
    /// may yet fail on them (a value that does not cast to the target column),
    /// and the exporter must then hear that nothing was imported, not that the
    /// transfer is done. Called before the pipe's partitions are executed.
    pub fn defer_settlement(&self) {
        self.shared.deferred.store(true, Ordering::Release);
    }

    /// Settles a transfer [`Self::defer_settlement`] left to the statement,
    /// after it wrote the rows: if it read every partition to its end,
    /// compares what arrived with what the exporter sent (a difference fails
    /// the statement) and returns the import for the statement to confirm
    /// once it stored the rows; if it needed only some rows (a LIMIT), tells
    /// the exporter the importer stopped reading (and returns None).
    pub async fn settle(&self) -> Result<Option<PendingImport>> {
        let shared = self.shared.clone();
        if shared.channels.lock().is_none() {
            return Ok(None); // never opened: dropping the receiver tells the exporter
        }
        if shared.ended.load(Ordering::Acquire) < shared.partitions {
            shared.fail("the importing query stopped reading before the end of the pipe");
            return Ok(None);
        }
        let received = shared.received.lock().clone();
        let checking = shared.clone();
        // Waits on the exporter's socket: off the engine's worker threads.
        let checked = tokio::task::spawn_blocking(move || checking.receiver.check(&received)).await.map_err(|e| {
            Error::operational(format!("pipe '{}': settling the transfer failed: {e}", shared.receiver.name()))
        })?;
        match checked {
            Ok(rows) => Ok(Some(PendingImport { receiver: shared.receiver.clone(), rows })),
            Err(e) => {
                shared.fail(e.message());
                Err(e)
            }
        }
    }

    /// Whether no partition was read yet (so the statement may still read
    /// the streams itself, [`Receiver::read_streams`]).
    pub fn unread(&self) -> bool {
        self.shared.channels.lock().is_none()
    }

    /// The import of the pipe's rows, taken whole by the statement (the
    /// exporter's segments, [`Receiver::take_segments`], or its streams,
    /// [`Receiver::read_streams`]), for the statement to confirm.
    pub fn taken_whole(&self, rows: u64) -> PendingImport {
        PendingImport { receiver: self.shared.receiver.clone(), rows }
    }

    /// Finds the pipe `plan` reads whole and unchanged (all columns in order,
    /// no filter, no limit), if it is one.
    pub fn read_whole_by(plan: &LogicalPlan) -> Option<Arc<dyn TableProvider>> {
        match plan {
            LogicalPlan::SubqueryAlias(a) => Self::read_whole_by(&a.input),
            LogicalPlan::Projection(p) => {
                let input = p.input.schema();
                let identity = p.expr.len() == input.fields().len()
                    && p.expr.iter().enumerate().all(|(i, e)| {
                        let column = match e {
                            Expr::Alias(a) => a.expr.as_ref(),
                            other => other,
                        };
                        matches!(column, Expr::Column(c) if input.index_of_column(c).ok() == Some(i))
                    });
                if identity {
                    Self::read_whole_by(&p.input)
                } else {
                    None
                }
            }
            LogicalPlan::TableScan(scan) => {
                let whole = scan.filters.is_empty()
                    && scan.fetch.is_none()
                    && scan.projection.as_ref().is_none_or(|p| {
                        p.iter().enumerate().all(|(i, c)| i == *c) && p.len() == scan.source.schema().fields().len()
                    });
                let provider = source_as_provider(&scan.source).ok()?;
                (whole && provider.downcast_ref::<PipeTable>().is_some()).then_some(provider)
            }
            _ => None,
        }
    }

    /// All the pipe's rows as one stream, without a query: the partitions
    /// merged in the order their batches arrive.
    pub fn into_stream(self) -> SendableRecordBatchStream {
        let schema = self.inner.schema();
        let partitions: Vec<_> = (0..self.shared.partitions)
            .map(|index| {
                Partition { shared: self.shared.clone(), index, schema: schema.clone() }
                    .execute(Arc::new(TaskContext::default()))
            })
            .collect();
        Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::select_all(partitions)))
    }
}

#[async_trait]
impl TableProvider for PipeTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DFResult<Arc<dyn ExecutionPlan>> {
        self.inner.scan(state, projection, filters, limit).await
    }
}

#[derive(Debug)]
struct Partition {
    shared: Arc<Shared>,
    index: usize,
    schema: SchemaRef,
}

impl PartitionStream for Partition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let schema = self.schema.clone();
        match self.shared.take(self.index) {
            Ok(rx) => {
                // Counts the partition as read to its end when its channel ends.
                let shared = self.shared.clone();
                let counted = futures::stream::unfold((rx, Some(shared)), |(mut rx, shared)| async move {
                    match rx.recv().await {
                        Some(batch) => Some((batch, (rx, shared))),
                        None => {
                            shared?.ended.fetch_add(1, Ordering::AcqRel);
                            None
                        }
                    }
                });
                Box::pin(RecordBatchStreamAdapter::new(schema, counted))
            }
            Err(e) => {
                Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::once(async move { Err(e.into()) })))
            }
        }
    }
}

impl Shared {
    /// Partition `index`'s channel; the first call opens the streams.
    fn take(self: &Arc<Self>, index: usize) -> Result<Batches> {
        let mut channels = self.channels.lock();
        if channels.is_none() {
            *channels = Some(self.start()?);
        }
        channels.as_mut().and_then(|c| c[index].take()).ok_or_else(|| {
            Error::programming(format!("pipe '{}' was read already; a pipe can be read once", self.receiver.name()))
        })
    }

    /// Opens the streams and starts a reading thread per stream; stream `k`
    /// feeds partition `k mod partitions`. Unless the statement settles the
    /// transfer itself ([`PipeTable::defer_settlement`]), the thread that ends
    /// last settles it with the exporter, before its partition's channel
    /// closes, so a failed check reaches the query as an error, never as a
    /// short result.
    fn start(self: &Arc<Self>) -> Result<Vec<Option<Batches>>> {
        let sources = self.receiver.open_streams()?;
        let count = sources.len();
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..self.partitions).map(|_| mpsc::channel(CHANNEL_DEPTH)).unzip();
        {
            let mut sockets = self.sockets.lock();
            for s in &sources {
                sockets.push(s.shutdown_handle()?);
            }
        }
        *self.received.lock() = vec![(0, 0); count];
        let remaining = Arc::new(AtomicUsize::new(count));
        for (k, source) in sources.into_iter().enumerate() {
            let tx = senders[k % self.partitions].clone();
            let shared = self.clone();
            let remaining = remaining.clone();
            std::thread::Builder::new()
                .name(format!("swingdb-pipe-{k}"))
                .spawn(move || {
                    let outcome = source.read_all(|batch| tx.blocking_send(Ok(batch)).is_ok());
                    let failure = match outcome {
                        // Recorded before `tx` is dropped: when a partition's
                        // channel ends, its streams' counts are in.
                        Ok(Some(counts)) => {
                            shared.received.lock()[k] = counts;
                            if remaining.fetch_sub(1, Ordering::AcqRel) != 1 || shared.deferred.load(Ordering::Acquire)
                            {
                                return;
                            }
                            let all = shared.received.lock().clone();
                            match shared.receiver.finish(&all) {
                                Ok(_) => return,
                                Err(e) => e,
                            }
                        }
                        // The consumer stopped reading (a LIMIT, a failed statement).
                        Ok(None) => {
                            shared.fail("the importing query stopped reading before the end of the pipe");
                            return;
                        }
                        Err(e) => shared.receiver.explain(e),
                    };
                    shared.fail(failure.message());
                    let _ = tx.blocking_send(Err(failure.into()));
                })
                .map_err(|e| Error::io("starting a pipe reader thread", e))?;
        }
        Ok(receivers.into_iter().map(Some).collect())
    }

    /// Ends the transfer: tells the exporter why and ends every stream.
    fn fail(&self, why: &str) {
        self.receiver.abort(why);
        self.sockets.lock().iter().for_each(StreamStop::stop);
    }
}
