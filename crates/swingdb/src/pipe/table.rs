//! The importing end as a table: `SELECT * FROM 'db://NAME'` scans a
//! [`PipeTable`], one partition per importing worker, each fed by one or more
//! of the transfer's streams (read by a thread per stream, so decoding runs in
//! parallel and a slow consumer holds the exporter back through the sockets).

use super::transfer::Receiver;
use crate::error::{Error, Result};
use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::catalog::Session;
use datafusion::common::Result as DFResult;
use datafusion::datasource::{source_as_provider, TableProvider, TableType};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::physical_plan::ExecutionPlan;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
    /// Clones of the data sockets, to end them all when one fails.
    sockets: Mutex<Vec<UnixStream>>,
}

impl PipeTable {
    /// A table over the transfer `receiver` has met.
    pub fn new(receiver: Receiver) -> Result<Self> {
        let schema = receiver.schema().clone();
        let partitions = receiver.workers();
        let shared = Arc::new(Shared { receiver: Arc::new(receiver), partitions, channels: Mutex::new(None), sockets: Mutex::new(Vec::new()) });
        let streams = (0..partitions)
            .map(|index| Arc::new(Partition { shared: shared.clone(), index, schema: schema.clone() }) as Arc<dyn PartitionStream>)
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
            && self.shared.channels.lock().unwrap().is_none()
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
                    && scan.projection.as_ref().is_none_or(|p| p.iter().enumerate().all(|(i, c)| i == *c) && p.len() == scan.source.schema().fields().len());
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
            .map(|index| Partition { shared: self.shared.clone(), index, schema: schema.clone() }.execute(Arc::new(TaskContext::default())))
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
            Ok(rx) => channel_stream(schema, rx),
            Err(e) => Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::once(async move { Err(e.into()) }))),
        }
    }
}

impl Shared {
    /// Partition `index`'s channel; the first call opens the streams.
    fn take(self: &Arc<Self>, index: usize) -> Result<Batches> {
        let mut channels = self.channels.lock().unwrap();
        if channels.is_none() {
            *channels = Some(self.start()?);
        }
        channels.as_mut().and_then(|c| c[index].take()).ok_or_else(|| {
            Error::programming(format!("pipe '{}' was read already; a pipe can be read once", self.receiver.name()))
        })
    }

    /// Opens the streams and starts a reading thread per stream; stream `k`
    /// feeds partition `k mod partitions`. The thread that ends last settles
    /// the transfer with the exporter, before its partition's channel closes,
    /// so a failed check reaches the query as an error, never as a short result.
    fn start(self: &Arc<Self>) -> Result<Vec<Option<Batches>>> {
        let sources = self.receiver.open_streams()?;
        let count = sources.len();
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..self.partitions).map(|_| mpsc::channel(CHANNEL_DEPTH)).unzip();
        {
            let mut sockets = self.sockets.lock().unwrap();
            for s in &sources {
                sockets.push(s.shutdown_handle()?);
            }
        }
        let results: Arc<Mutex<Vec<(u64, u32)>>> = Arc::new(Mutex::new(vec![(0, 0); count]));
        let remaining = Arc::new(AtomicUsize::new(count));
        for (k, source) in sources.into_iter().enumerate() {
            let tx = senders[k % self.partitions].clone();
            let shared = self.clone();
            let results = results.clone();
            let remaining = remaining.clone();
            std::thread::Builder::new()
                .name(format!("swingdb-pipe-{k}"))
                .spawn(move || {
                    let outcome = source.read_all(|batch| tx.blocking_send(Ok(batch)).is_ok());
                    let failure = match outcome {
                        Ok(Some(counts)) => {
                            results.lock().unwrap()[k] = counts;
                            if remaining.fetch_sub(1, Ordering::AcqRel) != 1 {
                                return;
                            }
                            let all = results.lock().unwrap().clone();
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
        for s in self.sockets.lock().unwrap().iter() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}
