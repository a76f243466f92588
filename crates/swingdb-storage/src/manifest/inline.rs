//! Inline segments: rows kept inside the manifest instead of a segment file.
//!
//! A commit of a few rows (one single-row INSERT, say) would otherwise create
//! a segment file of about a kilobyte and pay for it twice: fsyncing the file
//! and the directory before the manifest, and again when compaction merges it
//! away. Rows whose Arrow IPC stream is at most [`INLINE_MAX_BYTES`] instead
//! travel inside the manifest (as base64 text): they are published atomically
//! with it, covered by its checksum, and cost no file, no fsync and no garbage.
//! Small segments count for compaction like any other, which merges them
//! into one inline segment or, once that would be too large, into a file.
//!
//! Inside a transaction, the rows its INSERTs add to a table grow one inline
//! *tail* segment in memory (see `sql::statements`): an insert costs its own
//! row, not a new segment. The commit writes a tail that grew too large to
//! inline as a regular segment file (see `api::database`).
//!
//! A segment's name identifies its rows: the first `rows` rows of a segment
//! of a given name never change, and a tail only grows, so the rows a write
//! adds are the rows past the count the table's previous version had (see
//! [`TableMeta::added_rows`](crate::TableMeta::added_rows)). Names are made
//! like segment file names (the handle's lease and a counter), so no other
//! handle or process ever uses one for other rows.

use crate::error::{Error, Result};
use base64::Engine;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::{IpcWriteOptions, StreamWriter};
use datafusion::arrow::ipc::MetadataVersion;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::{Arc, OnceLock};

/// Largest Arrow IPC stream kept in a manifest. A manifest is rewritten by
/// every commit and read by every process that opens a new version, and
/// compaction lets a table gather up to `COMPACT_TRIGGER` small segments
/// (about 50 KiB of manifest per table at this size), so this stays small:
/// it holds tens to hundreds of rows, and anything written in bulk goes to a file.
pub const INLINE_MAX_BYTES: usize = 4 << 10;

/// Most rows a transaction's tail segment grows to; the next insert starts a
/// new one. Bounds the memory one re-encoding at commit needs at once.
pub const TAIL_MAX_ROWS: u64 = 1 << 16;

/// The rows of an inline segment, decoded (the same record batches every
/// reader gets; cloning shares them).
#[derive(Debug, Clone)]
pub struct InlineRows(Arc<Rows>);

#[derive(Debug)]
struct Rows {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// The IPC stream as base64, once asked for (a manifest is serialized
    /// twice per commit: for its checksum and to be written).
    encoded: OnceLock<std::result::Result<String, String>>,
}

impl InlineRows {
    /// Rows `batches` (all shaped `schema`).
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        Self(Arc::new(Rows { schema, batches, encoded: OnceLock::new() }))
    }

    /// The columns, as written.
    pub fn schema(&self) -> &SchemaRef {
        &self.0.schema
    }

    /// The rows, in order.
    pub fn batches(&self) -> &[RecordBatch] {
        &self.0.batches
    }

    /// These rows followed by `batch`. Batches are joined as they come in so
    /// that they stay few: the newest is joined with the one before while it
    /// is at least as large (like carries of a binary counter), so n appended
    /// rows are held in O(log n) batches and each row is copied O(log n) times.
    pub fn appended(&self, batch: RecordBatch) -> Result<Self> {
        let mut batches = self.0.batches.clone();
        batches.push(batch);
        while let [.., before, last] = batches.as_slice() {
            if last.num_rows() < before.num_rows() {
                break;
            }
            let joined = concat_batches(&self.0.schema, [before, last])?;
            batches.truncate(batches.len() - 2);
            batches.push(joined);
        }
        Ok(Self::new(self.0.schema.clone(), batches))
    }

    /// The Arrow IPC stream of these rows, as base64.
    fn encoded(&self) -> Result<&str> {
        let encoded = self.0.encoded.get_or_init(|| {
            let mut bytes = Vec::new();
            let written = (|| {
                // 8-byte alignment (what the IPC format requires): reading copies anyway.
                let options = IpcWriteOptions::try_new(8, false, MetadataVersion::V5)?;
                let mut writer = StreamWriter::try_new_with_options(&mut bytes, &self.0.schema, options)?;
                for batch in &self.0.batches {
                    writer.write(batch)?;
                }
                writer.finish()
            })();
            written.map(|_| base64::engine::general_purpose::STANDARD.encode(&bytes)).map_err(|e| e.to_string())
        });
        encoded.as_deref().map_err(|e| Error::internal(format!("encoding inline rows: {e}")))
    }

    /// Whether these rows are small enough to stay in a manifest.
    pub fn fits_manifest(&self) -> Result<bool> {
        Ok(self.encoded()?.len() / 4 * 3 <= INLINE_MAX_BYTES)
    }

    fn decode(text: &str) -> Result<Self> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| Error::corruption(format!("inline rows are not base64: {e}")))?;
        let reader = StreamReader::try_new(std::io::Cursor::new(bytes), None)?;
        let schema = reader.schema();
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>()?;
        let rows = Self::new(schema, batches);
        let _ = rows.0.encoded.set(Ok(text.to_string()));
        Ok(rows)
    }
}

impl PartialEq for InlineRows {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || (self.0.schema == other.0.schema && self.0.batches == other.0.batches)
    }
}

impl Serialize for InlineRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.encoded().map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for InlineRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::decode(&text).map_err(|e| serde::de::Error::custom(e.message()))
    }
}
