//! [`RowStream`]: a statement's rows fetched on the calling thread, batch by
//! batch, as the engine computes them.

use crate::core::runtime;
use crate::frontend::diagnose::explain;
use crate::Interrupt;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use std::sync::Arc;
use swingdb_storage::error::Result;

/// The rows of one statement as they are computed: each fetch waits on the
/// engine's runtime, is cancelled by the session's interrupt, and an error
/// raised while computing points into the statement's text as planning
/// errors do. Empty batches are skipped; after the end or an error, nothing
/// more comes.
pub struct RowStream {
    schema: SchemaRef,
    stream: Option<SendableRecordBatchStream>,
    interrupt: Interrupt,
    sql: Option<Arc<str>>,
}

impl RowStream {
    /// The rows of `stream`, fetches cancelled by `interrupt` (a session's,
    /// or a fresh one), errors explained by `sql` when given.
    pub fn new(stream: SendableRecordBatchStream, interrupt: Interrupt, sql: Option<&str>) -> Self {
        Self { schema: stream.schema(), stream: Some(stream), interrupt, sql: sql.map(Arc::from) }
    }

    /// The rows' schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next non-empty batch, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
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
                        Some(sql) => explain(e, sql),
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
}
