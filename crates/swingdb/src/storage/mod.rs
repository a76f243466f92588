//! Storage: immutable memory-mapped Arrow IPC segments, versioned manifests,
//! atomic commits and garbage collection. Nothing here knows about SQL.

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
pub mod stats;
pub mod stitched;
pub mod store;
pub mod writer;

pub use compaction::{compact, write_out_inline};
pub use dir::{DbDir, GcReport};
pub use distinct::DistinctSketch;
pub use manifest::{same_tables, Constraints, Definition, ForeignKey, Manifest, SegmentMeta, TableMeta};
pub use segment::{locate_mapped, MappedSegment};
pub use sequence::Sequence;
pub use stats::ColumnStats;
pub use store::SegmentStore;
pub use writer::TableWriter;
