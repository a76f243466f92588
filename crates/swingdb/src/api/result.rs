//! `QueryResult`: the rows of one statement, as a lazy stream of Arrow record
//! batches whose buffers are, where the query allows, the stored segments' own.

use crate::gather::{can_gather, Gatherer, LARGE_BATCH_ROWS};
use datafusion::arrow::array::{RecordBatch, RecordBatchReader, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use std::sync::Arc;
use swingdb_sql::engine::runtime;
use swingdb_sql::engine::Output;
use swingdb_sql::Interrupt;
use swingdb_storage::error::Result;
use swingdb_storage::joined_slices::{continues, join_run};
use swingdb_storage::segment::stitched::{stitch, stitches};

/// The outcome of one statement: a schema, a stream of batches, and for DML the
/// number of rows it changed.
///
/// ```edition2024
/// use swingdb::arrow::array::{AsArray, RecordBatch};
/// use swingdb::arrow::datatypes::Int64Type;
/// let con = swingdb::Database::in_memory()?.connect()?;
/// con.execute("CREATE TABLE t AS SELECT value AS v FROM range(5)", &[])?;
/// let mut result = con.execute("SELECT v * 2 AS w FROM t ORDER BY v", &[])?;
/// assert_eq!(result.schema().field(0).name(), "w");
/// let batches: Vec<RecordBatch> = result.collect_batches()?;
/// let w = batches[0].column(0).as_primitive::<Int64Type>();
/// assert_eq!(w.values(), &[0, 2, 4, 6, 8]);
/// # Ok::<(), swingdb::Error>(())
/// ```
pub struct QueryResult {
    schema: SchemaRef,
    stream: Option<SendableRecordBatchStream>,
    ready: std::vec::IntoIter<RecordBatch>,
    /// Batches held back while each continues the one before (see [`continues`]).
    run: Vec<RecordBatch>,
    rows_affected: Option<u64>,
    /// Whether the caller wants the whole result: small batches are then
    /// gathered into one (see [`Self::gathered`]).
    gather: bool,
    /// A batch read past the end of a gathered or stitched run, returned next.
    held: Option<RecordBatch>,
    /// Cancels a fetch (the connection's, once [`Self::interruptible_by`] set it).
    interrupt: Interrupt,
    /// The statement's text, which errors raised while fetching point into
    /// (see [`Self::explained_by`]).
    sql: Option<Arc<str>>,
}

impl std::fmt::Debug for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryResult").field("schema", &self.schema).field("rows_affected", &self.rows_affected).finish()
    }
}

impl QueryResult {
    /// A result of `schema` that streams `stream` after the batches `ready`.
    fn new(
        schema: SchemaRef,
        stream: Option<SendableRecordBatchStream>,
        ready: Vec<RecordBatch>,
        rows_affected: Option<u64>,
    ) -> Self {
        Self {
            schema,
            stream,
            ready: ready.into_iter(),
            run: Vec::new(),
            rows_affected,
            gather: false,
            held: None,
            interrupt: Interrupt::default(),
            sql: None,
        }
    }

    /// A result without rows or columns (DDL, transaction control).
    pub(crate) fn empty() -> Self {
        Self::new(Arc::new(Schema::empty()), None, Vec::new(), None)
    }

    /// A result of a DML statement: one row, one `count` column.
    pub(crate) fn count(n: u64) -> Self {
        let schema = Arc::new(Schema::new(vec![Field::new("count", DataType::UInt64, false)]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from(vec![n]))]).expect("count batch");
        Self::new(schema, None, vec![batch], Some(n))
    }

    /// A result of rows computed already.
    pub(crate) fn rows(batch: RecordBatch) -> Self {
        Self::new(batch.schema(), None, vec![batch], None)
    }

    /// A result that streams `stream`.
    pub(crate) fn streaming(stream: SendableRecordBatchStream) -> Self {
        Self::new(stream.schema(), Some(stream), Vec::new(), None)
    }

    /// This result, whose fetch errors point at their place in `sql` (the
    /// statement's text) as planning errors do.
    pub(crate) fn explained_by(mut self, sql: &str) -> Self {
        if self.stream.is_some() {
            self.sql = Some(Arc::from(sql));
        }
        self
    }

    /// This result, its fetches cancelled by `interrupt` (a connection's).
    pub(crate) fn interruptible_by(mut self, interrupt: &Interrupt) -> Self {
        self.interrupt = interrupt.clone();
        self
    }

    /// This result for a caller that reads it whole (into numpy, pandas, a
    /// table): consecutive batches the engine computed arrive gathered into
    /// one, each column one array (see `crate::gather`); views of stored data
    /// stay views, those of consecutive segments stitched into one where
    /// their files allow (see [`swingdb_storage::segment::stitched`]). Only for results
    /// whose columns are all fixed-width or boolean; others are unchanged.
    pub fn gathered(mut self) -> Self {
        self.gather = can_gather(&self.schema);
        self
    }

    /// The schema of the rows.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Rows inserted, updated or deleted, for DML statements.
    pub fn rows_affected(&self) -> Option<u64> {
        self.rows_affected
    }

    /// The next batch, or `None` at the end. Blocks while the query computes it.
    /// Consecutive slices of one buffer (a stored segment, registered data)
    /// arrive joined into one batch; for a [`Self::gathered`] result, so do
    /// consecutive computed batches.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if !self.gather {
            return self.next_joined();
        }
        let mut gatherer = Gatherer::new(self.schema.clone());
        let mut any = false;
        loop {
            let batch = match self.held.take() {
                Some(held) => held,
                None => match self.next_joined()? {
                    Some(batch) => batch,
                    None => break,
                },
            };
            if batch.num_rows() >= LARGE_BATCH_ROWS {
                if !any {
                    return self.stitched_from(batch);
                }
                self.held = Some(batch);
                break;
            }
            gatherer
                .push(batch)
                .map_err(|e| swingdb_storage::error::Error::io("gathering the result's rows in memory", e))?;
            any = true;
        }
        Ok(gatherer.finish())
    }

    /// `first` (a view of stored data) and the views after it whose values
    /// can be mapped side by side with it, as one batch (see
    /// [`swingdb_storage::segment::stitched`]); the view after them held for later.
    fn stitched_from(&mut self, first: RecordBatch) -> Result<Option<RecordBatch>> {
        let mut run = vec![first];
        while let Some(next) = self.next_joined()? {
            let last = run.last().expect("a run is never empty");
            if next.num_rows() < LARGE_BATCH_ROWS || !stitches(last, &next) {
                self.held = Some(next);
                break;
            }
            run.push(next);
        }
        if run.len() == 1 {
            return Ok(run.pop());
        }
        Ok(Some(stitch(&run)?))
    }

    fn next_joined(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            match self.next_computed()? {
                None => return Ok((!self.run.is_empty()).then(|| join_run(&std::mem::take(&mut self.run)))),
                Some(next) => {
                    if self.run.last().is_none_or(|last| continues(last, &next)) {
                        self.run.push(next);
                    } else {
                        let joined = join_run(&std::mem::replace(&mut self.run, vec![next]));
                        return Ok(Some(joined));
                    }
                }
            }
        }
    }

    fn next_computed(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(batch) = self.ready.next() {
            return Ok(Some(batch));
        }
        let Some(stream) = self.stream.as_mut() else { return Ok(None) };
        loop {
            let next = runtime().block_on(self.interrupt.guard(async { Ok(stream.next().await) }, false));
            match next {
                Ok(Some(Ok(batch))) if batch.num_rows() == 0 => continue,
                Ok(Some(Ok(batch))) => return Ok(Some(batch)),
                Ok(Some(Err(e))) => {
                    self.stream = None;
                    self.interrupt.end_progress();
                    let e = e.into();
                    return Err(match &self.sql {
                        Some(sql) => swingdb_sql::engine::explain(e, sql),
                        None => e,
                    });
                }
                Err(interrupted) => {
                    self.stream = None;
                    return Err(interrupted);
                }
                Ok(None) => {
                    self.stream = None;
                    self.interrupt.end_progress();
                    return Ok(None);
                }
            }
        }
    }

    /// All remaining batches.
    pub fn collect_batches(&mut self) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        while let Some(b) = self.next_batch()? {
            out.push(b);
        }
        Ok(out)
    }
}

impl Iterator for QueryResult {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(|e| ArrowError::ExternalError(Box::new(e))).transpose()
    }
}

impl RecordBatchReader for QueryResult {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl From<Output> for QueryResult {
    fn from(output: Output) -> Self {
        match output {
            Output::Empty => Self::empty(),
            Output::Count(n) => Self::count(n),
            Output::Rows(batch) => Self::rows(batch),
            Output::Stream(stream) => Self::streaming(stream),
        }
    }
}
