//! `QueryResult`: the rows of one statement, as a lazy stream of Arrow record
//! batches whose buffers are, where the query allows, the stored segments' own.

use super::coalesce::merge_adjacent;
use super::database::runtime;
use crate::error::Result;
use datafusion::arrow::array::{RecordBatch, RecordBatchReader, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use std::sync::Arc;

/// The outcome of one statement: a schema, a stream of batches, and for DML the
/// number of rows it changed.
pub struct QueryResult {
    schema: SchemaRef,
    stream: Option<SendableRecordBatchStream>,
    ready: std::vec::IntoIter<RecordBatch>,
    /// A batch held back in case the next one continues it (see [`merge_adjacent`]).
    held: Option<RecordBatch>,
    rows_affected: Option<u64>,
}

impl std::fmt::Debug for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryResult").field("schema", &self.schema).field("rows_affected", &self.rows_affected).finish()
    }
}

impl QueryResult {
    /// A result without rows or columns (DDL, transaction control).
    pub(crate) fn empty() -> Self {
        Self { schema: Arc::new(Schema::empty()), stream: None, ready: Vec::new().into_iter(), held: None, rows_affected: None }
    }

    /// A result of a DML statement: one row, one `count` column.
    pub(crate) fn count(n: u64) -> Self {
        let schema = Arc::new(Schema::new(vec![Field::new("count", DataType::UInt64, false)]));
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(UInt64Array::from(vec![n]))]).expect("count batch");
        Self { schema, stream: None, ready: vec![batch].into_iter(), held: None, rows_affected: Some(n) }
    }

    /// A result that streams `stream`.
    pub(crate) fn streaming(stream: SendableRecordBatchStream) -> Self {
        Self { schema: stream.schema(), stream: Some(stream), ready: Vec::new().into_iter(), held: None, rows_affected: None }
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
    /// Consecutive slices of one stored segment arrive joined into one batch.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            let next = self.next_computed()?;
            match (self.held.take(), next) {
                (held, None) => return Ok(held),
                (None, Some(next)) => self.held = Some(next),
                (Some(held), Some(next)) => match merge_adjacent(&held, &next) {
                    Some(merged) => self.held = Some(merged),
                    None => {
                        self.held = Some(next);
                        return Ok(Some(held));
                    }
                },
            }
        }
    }

    fn next_computed(&mut self) -> Result<Option<RecordBatch>> {
        if let Some(batch) = self.ready.next() {
            return Ok(Some(batch));
        }
        let Some(stream) = self.stream.as_mut() else { return Ok(None) };
        loop {
            match runtime().block_on(stream.next()) {
                Some(Ok(batch)) if batch.num_rows() == 0 => continue,
                Some(Ok(batch)) => return Ok(Some(batch)),
                Some(Err(e)) => {
                    self.stream = None;
                    return Err(e.into());
                }
                None => {
                    self.stream = None;
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
