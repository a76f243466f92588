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

pub mod api;
pub mod coalesce;
pub mod error;
pub mod gather;
pub mod huge_pages;
pub mod pipe;
pub mod share;
pub mod signal;
pub mod sql;
pub mod storage;
#[cfg(test)]
mod test_mappings;

pub use api::{
    Connection, Database, DatabaseEntry, Interrupt, OpenOptions, PipeSource, ProgressDisplay, ProgressReport,
    QueryResult, VerifyReport,
};
pub use arrow;
pub use datafusion;
pub use error::{Error, ErrorKind, Result};
pub use signal::set_signal_check;
