//! The public face of the core: [`Database`], [`Connection`], [`QueryResult`].

pub mod connection;
mod core;
pub mod database;
pub mod interrupt;
pub mod result;

pub use connection::{Connection, DatabaseEntry, PipeSource, ProgressHook};
pub use database::{Database, OpenOptions, VerifyReport};
pub use interrupt::{Interrupt, ProgressDisplay, ProgressReport, PROGRESS_AFTER};
pub use result::QueryResult;
