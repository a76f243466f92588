//! The engine: what the API crate (`swingdb`) runs SQL through, and all it
//! may name of this crate besides the user-facing types re-exported at its
//! root. An open database is a [`DbCore`] ([`OpenOptions`] say how it is
//! opened); each connection is a [`Session`] on it, whose statements give an
//! [`Output`], rows of which stream through a [`RowStream`].
//! `tests/test_code_layout.py` holds the API to this module.
//!
//! ```
//! use datafusion::arrow::array::AsArray;
//! use datafusion::arrow::datatypes::Int64Type;
//! use swingdb_sql::engine::{DbCore, OpenOptions, Output, RowStream, Session};
//! let session = Session::new(DbCore::in_memory(&OpenOptions::default())?)?;
//! session.execute("CREATE TABLE t AS SELECT value AS v FROM range(3)", &[])?;
//! let Output::Stream(stream) = session.execute("SELECT sum(v) FROM t", &[])? else { panic!("rows stream") };
//! let mut rows = RowStream::new(stream, session.interrupt_handle(), None);
//! let batch = rows.next_batch()?.expect("one row");
//! assert_eq!(batch.column(0).as_primitive::<Int64Type>().value(0), 3);
//! # Ok::<(), swingdb_storage::Error>(())
//! ```

mod atomic;
mod attach;
mod conflicts;
mod files;
mod open;
mod pipe;
mod route;
mod rows;
mod session;
mod share;
mod temp;

pub use crate::core::DbCore;
pub use crate::statements::Output;
pub use attach::DatabaseEntry;
pub use open::OpenOptions;
pub use pipe::PipeSource;
pub use rows::RowStream;
pub use session::Session;
