//! The public face of the core: [`Database`], [`Connection`], [`QueryResult`].

pub mod connection;
pub mod database;
pub mod result;

pub use connection::Connection;
pub use database::{Database, VerifyReport};
pub use result::QueryResult;
pub use swingdb_sql::engine::{DatabaseEntry, OpenOptions, PipeSource};
