//! swingdb's storage layer: immutable memory-mapped Arrow IPC segments,
//! versioned manifests, atomic commits and garbage collection. Nothing here
//! knows about SQL; the layers above (sharing, pipes, SQL, the API) build on
//! it and it names none of them (a crate of its own, so the compiler keeps it
//! so). Its [`Error`] is the one error type of swingdb.
//!
//! Its modules, by concept: [`segment`] (segment files: writing, mapping,
//! decoding, reading ahead, checks as scans reach them, the per-database
//! cache, table writers), [`encoding`] (how a column is stored: narrowed, as a
//! dictionary, in compressed frames, an ENUM's keys), [`manifest`] (the versioned description
//! of the tables: segments and their statistics, deletions, inline rows,
//! origins, rebasing concurrent commits, compaction), [`keys`] (key and
//! foreign-key enforcement, persisted key runs) and [`dir`] (the directory:
//! private files, leases, locks, the commit log, versions, garbage
//! collection, sequences' counters); under them all, [`error`],
//! [`failpoint`], [`signal`], [`huge_pages`] and [`joined_slices`].
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

pub mod allocator;
pub mod error;
pub mod huge_pages;
pub mod joined_slices;
#[cfg(any(test, feature = "test-support"))]
pub mod test_mappings;
#[cfg(test)]
mod test_random;

pub mod dir;
pub mod encoding;
pub mod failpoint;
pub mod keys;
pub mod manifest;
pub mod segment;
pub mod signal;

pub use dir::sequence::Sequence;
pub use dir::{DbDir, GcReport};
pub use encoding::mode::Compression;
pub use error::{Error, ErrorKind, Result, SqlSpan};
pub use manifest::compaction::{compact, write_out_inline};
pub use manifest::distinct::DistinctSketch;
pub use manifest::stats::ColumnStats;
pub use manifest::{same_tables, Constraints, Definition, ForeignKey, Manifest, SegmentMeta, TableMeta};
pub use segment::store::SegmentStore;
pub use segment::writer::TableWriter;
pub use segment::{locate_mapped, MappedSegment};
