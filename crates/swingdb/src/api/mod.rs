//! The public face of the core: [`Database`], [`Connection`], [`QueryResult`].

pub mod connection;
pub mod database;
pub mod result;

pub use connection::{Connection, DatabaseEntry, PipeSource};
pub use database::{Database, OpenOptions, VerifyReport};
pub use result::QueryResult;
