//! [`PipeWriter`]: an exporter driven batch by batch from outside a query
//! (Python's `swingdb.pipe.writer`, fed by DuckDB, polars or pyarrow).

use super::rendezvous::Rendezvous;
use super::transfer::{Sender, StreamSink};
use super::url::PipeUrl;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use swingdb_storage::error::{Error, Result};

/// Writes batches into a pipe, spreading them over the agreed streams
/// (`swingdb::Connection`'s pipe docs show one fed from outside a query).
pub struct PipeWriter {
    name: String,
    schema: SchemaRef,
    sender: Option<Sender>,
    sinks: Vec<StreamSink>,
    next: usize,
}

impl PipeWriter {
    /// Meets the importer of `url` (waiting up to its timeout) and opens the streams.
    pub fn open(url: &PipeUrl, schema: SchemaRef) -> Result<Self> {
        let mut sender = Sender::open(&Rendezvous::user()?, url, &schema, None)?;
        let sinks = match sender.open_streams(&schema) {
            Ok(s) => s,
            Err(e) => {
                sender.abort(e.message());
                return Err(e);
            }
        };
        Ok(Self { name: url.name.clone(), schema, sender: Some(sender), sinks, next: 0 })
    }

    /// Sends `batch` on the next stream (blocks while the importer is behind).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.sender.is_none() {
            return Err(Error::programming(format!("pipe '{}' is closed", self.name)));
        }
        if batch.schema().fields().len() != self.schema.fields().len()
            || batch.schema().fields().iter().zip(self.schema.fields()).any(|(a, b)| a.data_type() != b.data_type())
        {
            let e = Error::programming(format!(
                "pipe '{}': a batch of schema {:?} does not match the pipe's schema {:?}",
                self.name,
                batch.schema().fields().iter().map(|f| f.data_type().to_string()).collect::<Vec<_>>(),
                self.schema.fields().iter().map(|f| f.data_type().to_string()).collect::<Vec<_>>()
            ));
            self.abort(e.message());
            return Err(e);
        }
        let batch = RecordBatch::try_new(self.schema.clone(), batch.columns().to_vec())?;
        let n = self.sinks.len();
        let result = self.sinks[self.next % n].write(&batch);
        self.next += 1;
        if let Err(e) = result {
            let e = match self.sender.as_mut() {
                Some(sender) => sender.explain(e),
                None => e,
            };
            self.abort(e.message());
            return Err(e);
        }
        Ok(())
    }

    /// Ends every stream and waits for the importer to confirm; the rows it took.
    pub fn close(&mut self) -> Result<u64> {
        let mut sender =
            self.sender.take().ok_or_else(|| Error::programming(format!("pipe '{}' is closed", self.name)))?;
        let mut sent = Vec::with_capacity(self.sinks.len());
        for sink in self.sinks.drain(..) {
            match sink.close() {
                Ok(counts) => sent.push(counts),
                Err(e) => {
                    let e = sender.explain(e);
                    sender.abort(e.message());
                    return Err(e);
                }
            }
        }
        sender.finish(sent)
    }

    /// Gives up: the importer's statement fails and keeps nothing.
    pub fn abort(&mut self, why: &str) {
        if let Some(sender) = self.sender.take() {
            sender.abort(why);
        }
        self.sinks.clear();
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        self.abort("the exporting writer was dropped before it was closed");
    }
}
