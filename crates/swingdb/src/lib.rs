//! swingdb: an embedded, columnar, Arrow-native SQL database.
//!
//! Tables are stored as immutable, memory-mapped Arrow IPC segments and queried
//! with Apache DataFusion. A query over stored data hands back Arrow arrays that
//! point into the mapped files themselves.
//!
//! ```no_run
//! use swingdb::{Database, OpenOptions};
//! let db = Database::open("sales.swingdb", OpenOptions::default())?;
//! let con = db.connect()?;
//! con.execute("CREATE TABLE t (id INTEGER NOT NULL, name VARCHAR)", &[])?;
//! con.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')", &[])?;
//! let batches = con.execute("SELECT * FROM t", &[])?.collect_batches()?;
//! # Ok::<(), swingdb::Error>(())
//! ```

#![warn(missing_docs)]

mod api;
mod gather;

pub use api::{Connection, Database, DatabaseEntry, OpenOptions, PipeSource, QueryResult, VerifyReport};
pub use arrow;
pub use datafusion;
pub use swingdb_pipe::{waiting_pipes, PipeUrl, PipeWriter, Role, TextFormat, WaitingPipe};
pub use swingdb_share::{ShareOptions, SnapshotInfo};
pub use swingdb_sql::{format_bytes, parse_size};
pub use swingdb_sql::{memory_limit, physical_memory, set_memory_limit, set_temp_directory, temp_directory};
pub use swingdb_sql::{name_placeholders, sql_type_name, FileKind, ReadOptions, StatementInfo};
pub use swingdb_sql::{Interrupt, ProgressDisplay, ProgressHook, ProgressReport, PROGRESS_AFTER};
pub use swingdb_storage::signal::set_signal_check;
pub use swingdb_storage::{Error, ErrorKind, Result};

/// Failpoints for tests and the torture suite: named places in the storage,
/// sharing and pipe paths where a process can be made to wait, fail or die.
/// Only in builds with the `failpoints` feature.
#[cfg(feature = "failpoints")]
pub mod testing {
    pub use swingdb_storage::failpoint::{commit_path, set, NAMES};
}
