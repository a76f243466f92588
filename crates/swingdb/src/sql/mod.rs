//! SQL: DataFusion wired to swingdb's catalog and storage, plus the pieces of
//! SQL DataFusion leaves to its host (table functions, placeholders), in
//! folders by role: `frontend` (text to plans), `catalog` (what names
//! resolve to), `optimizer` (rules), `operators` (execution of our own),
//! `functions` (table functions and file reading), `statements` (running
//! one statement in a transaction); `core` is the state an open database
//! shares, `session` the DataFusion session built on all of them.

pub mod byte_sizes;
pub mod catalog;
pub mod core;
pub mod frontend;
pub mod functions;
pub mod interrupt;
pub mod memory;
pub mod operators;
pub mod optimizer;
pub mod session;
pub(crate) mod statements;

pub use catalog::{Attached, Databases, Registered, Tables, TablesSchema, CATALOG, SCHEMA};
pub use frontend::params::name_placeholders;
pub use frontend::types::sql_name as sql_type_name;
pub use functions::{FileKind, ReadOptions};
pub use statements::StatementInfo;
