//! Arrow batches a client sends with `DoPut` (bound parameters, bulk
//! ingest), read as they arrive and never more than a bound at once: what
//! another process sends is untrusted, and an upload larger than memory is
//! stored chunk by chunk (see `ingest.rs`).

use arrow_flight::decode::FlightRecordBatchStream;
use arrow_flight::error::FlightError;
use arrow_flight::sql::server::PeekableFlightDataStream;
use futures::TryStreamExt;
use swingdb::arrow::datatypes::SchemaRef;
use swingdb::arrow::record_batch::RecordBatch;
use tonic::Status;

/// The batches of an upload, read as they arrive.
pub struct Upload {
    batches: FlightRecordBatchStream,
}

impl Upload {
    /// The batches of `stream`. Messages without an IPC header (a first
    /// message that carries only the command, as some clients send) are
    /// skipped.
    pub fn new(stream: PeekableFlightDataStream) -> Self {
        let data =
            stream.map_err(FlightError::from).try_filter(|data| futures::future::ready(!data.data_header.is_empty()));
        Self { batches: FlightRecordBatchStream::new_from_flight_data(data) }
    }

    /// The next batches, together at least `bytes` in memory unless the
    /// upload ends first (then fewer; `None` once it has ended).
    pub async fn next_chunk(&mut self, bytes: usize) -> Result<Option<Vec<RecordBatch>>, Status> {
        let mut chunk = Vec::new();
        let mut size = 0;
        while size < bytes {
            match self
                .batches
                .try_next()
                .await
                .map_err(|e| Status::invalid_argument(format!("cannot read the upload: {e}")))?
            {
                Some(batch) => {
                    size += own_bytes(&batch);
                    chunk.push(batch);
                }
                None if chunk.is_empty() => return Ok(None),
                None => break,
            }
        }
        Ok(Some(chunk))
    }

    /// The upload's schema, once its first message was read.
    pub fn schema(&self) -> Option<SchemaRef> {
        self.batches.schema().cloned()
    }
}

/// The bytes the values of `batch` take. (Not `get_array_memory_size`: the
/// columns of a decoded message are slices of the message's one buffer, and
/// each would count all of it.)
fn own_bytes(batch: &RecordBatch) -> usize {
    batch.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or(0)).sum()
}

/// All the batches of `stream`, refused past `limit` bytes in memory;
/// `what` names them in that error.
pub async fn read_upload(
    stream: PeekableFlightDataStream,
    limit: usize,
    what: &str,
) -> Result<Vec<RecordBatch>, Status> {
    let mut upload = Upload::new(stream);
    let mut batches = Vec::new();
    let mut size = 0;
    while let Some(chunk) = upload.next_chunk(1).await? {
        for batch in chunk {
            size += own_bytes(&batch);
            if size > limit {
                return Err(Status::resource_exhausted(format!(
                    "the {what} sent are over {} MiB; send fewer at once",
                    limit >> 20
                )));
            }
            batches.push(batch);
        }
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use swingdb::arrow::array::Int64Array;

    #[test]
    fn a_batch_counts_the_bytes_of_its_own_rows_not_of_the_buffers_it_slices() {
        let values = Arc::new(Int64Array::from_iter_values(0..1000));
        let batch = RecordBatch::try_from_iter([("a", values.clone() as _), ("b", values as _)]).unwrap();
        assert_eq!(own_bytes(&batch), 2 * 8000);
        assert_eq!(own_bytes(&batch.slice(0, 100)), 2 * 800, "a slice counts its rows only");
        assert!(batch.slice(0, 100).get_array_memory_size() >= 2 * 8000, "what the engine's size would count");
    }
}
