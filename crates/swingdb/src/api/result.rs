//! `QueryResult`: the rows of one statement, as a lazy stream of Arrow record
//! batches whose buffers are, where the query allows, the stored segments' own.

use crate::gather::{can_gather, Gatherer, LARGE_BATCH_ROWS};
use datafusion::arrow::array::{RecordBatch, RecordBatchReader, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use std::sync::Arc;
use swingdb_sql::engine::{Output, RowStream};
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
    stream: Option<RowStream>,
    ready: std::vec::IntoIter<RecordBatch>,
    /// Batches held back while each continues the one before (see [`continues`]).
    run: Vec<RecordBatch>,
    rows_affected: Option<u64>,
    /// Whether the caller wants the whole result: small batches are then
    /// gathered into one (see [`Self::gathered`]).
    gather: bool,
    /// A batch read past the end of a gathered or stitched run, returned next.
    held: Option<RecordBatch>,
}

impl std::fmt::Debug for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryResult").field("schema", &self.schema).field("rows_affected", &self.rows_affected).finish()
    }
}

impl QueryResult {
    /// A result of `schema` that streams `stream` after the batches `ready`.
    fn new(schema: SchemaRef, stream: Option<RowStream>, ready: Vec<RecordBatch>, rows_affected: Option<u64>) -> Self {
        Self { schema, stream, ready: ready.into_iter(), run: Vec::new(), rows_affected, gather: false, held: None }
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

    /// The outcome of a statement: rows streamed from the engine are
    /// fetched cancelled by `interrupt` (the connection's), their errors
    /// pointing into `sql` (the statement's text) as planning errors do.
    pub(crate) fn of(output: Output, interrupt: &Interrupt, sql: Option<&str>) -> Self {
        match output {
            Output::Empty => Self::empty(),
            Output::Count(n) => Self::count(n),
            Output::Rows(batch) => Self::rows(batch),
            Output::Stream(stream) => {
                let rows = RowStream::new(stream, interrupt.clone(), sql);
                Self::new(rows.schema(), Some(rows), Vec::new(), None)
            }
        }
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

    /// Whether every row is computed already (held in memory, as a point
    /// read's or a statement's count): reading them never waits for the engine.
    pub fn is_computed(&self) -> bool {
        self.stream.is_none()
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
        let next = stream.next_batch();
        if !matches!(next, Ok(Some(_))) {
            self.stream = None;
        }
        next
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
    /// A statement's outcome, its fetches cancelled by nothing.
    fn from(output: Output) -> Self {
        Self::of(output, &Interrupt::default(), None)
    }
}
