//! swingdb's storage layer: immutable memory-mapped Arrow IPC segments,
//! versioned manifests, atomic commits and garbage collection. Nothing here
//! knows about SQL; the layers above (sharing, pipes, SQL, the API) build on
//! it and it names none of them (a crate of its own, so the compiler keeps it
//! so). Its [`Error`] is the one error type of swingdb.
//!
//! ```
//! use std::sync::Arc;
//! use datafusion::arrow::array::Int64Array;
//! use datafusion::arrow::datatypes::{DataType, Field, Schema};
//! use datafusion::arrow::record_batch::RecordBatch;
//! use swingdb_storage::{DbDir, TableWriter};
//!
//! let tmp = std::env::temp_dir().join(format!("swingdb-storage-doc-{}", std::process::id()));
//! let dir = DbDir::open(&tmp, true, false)?;
//! let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
//! let rows = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from_iter_values(0..100_000))])?;
//! let mut writer = TableWriter::new(&dir, schema);
//! writer.push(rows)?;
//! let (segments, _files) = writer.finish()?;
//! assert_eq!(segments.iter().map(|s| s.rows).sum::<u64>(), 100_000);
//! # drop(dir);
//! # std::fs::remove_dir_all(&tmp).ok();
//! # Ok::<(), swingdb_storage::Error>(())
//! ```

#![warn(missing_docs)]

pub mod error;
pub mod huge_pages;
pub mod joined_slices;
#[cfg(any(test, feature = "test-support"))]
pub mod test_mappings;

pub mod ascending;
pub mod bus_errors;
pub mod compaction;
pub mod compressed;
pub mod compressed_write;
pub mod deleted;
pub mod dir;
pub mod distinct;
pub mod encoding;
pub mod failpoint;
pub mod files;
pub mod foreign_keys;
pub mod inline;
pub mod inline_segment;
pub mod ipc_file;
pub mod joined_buffers;
pub mod key_columns;
pub mod key_runs;
pub mod keys;
pub mod manifest;
pub mod origin;
pub mod parallel;
pub mod read_ahead;
pub mod rebase;
pub mod scan_checks;
pub mod segment;
pub mod segment_decode;
pub mod segment_stream;
pub mod segment_write;
pub mod sequence;
pub mod signal;
pub mod stats;
pub mod stitched;
pub mod store;
pub mod writer;

pub use compaction::{compact, write_out_inline};
pub use dir::{DbDir, GcReport};
pub use distinct::DistinctSketch;
pub use error::{Error, ErrorKind, Result, SqlSpan};
pub use manifest::{same_tables, Constraints, Definition, ForeignKey, Manifest, SegmentMeta, TableMeta};
pub use segment::{locate_mapped, MappedSegment};
pub use sequence::Sequence;
pub use stats::ColumnStats;
pub use store::SegmentStore;
pub use writer::TableWriter;
