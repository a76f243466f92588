//! swingdb-sql: Apache DataFusion wired to swingdb's catalog and storage,
//! snapshots and pipes, plus the pieces of SQL DataFusion leaves to its host
//! (table functions, placeholders, the dialect of DuckDB's users). Built on
//! `swingdb-storage`, `swingdb-share` and `swingdb-pipe`; the API crate
//! `swingdb` runs statements through it. In folders by role: `frontend` (text to plans), `catalog` (what names
//! resolve to), `optimizer` (rules), `operators` (execution of our own),
//! `functions` (table functions and file reading), `statements` (running
//! one statement in a transaction); `core` is the state an open database
//! shares, `session` the DataFusion session built on all of them, and
//! `engine` the seam the API runs SQL through (a [`engine::Session`] per
//! connection: routing, transactions across attached databases, retries).
//!
//! ```
//! use datafusion::arrow::datatypes::DataType;
//! use datafusion::common::ScalarValue;
//! let statements = swingdb_sql::frontend::parse::parse("SELECT 1; SELECT 2")?;
//! assert_eq!(statements.len(), 2);
//! let named = [("id".to_string(), ScalarValue::from(7))];
//! let (text, params) = swingdb_sql::name_placeholders("SELECT * FROM t WHERE id = $id", &named)?;
//! assert_eq!((text.as_str(), params.len()), ("SELECT * FROM t WHERE id = $1", 1));
//! assert_eq!(swingdb_sql::sql_type_name(&DataType::Decimal128(10, 2)), "DECIMAL(10,2)");
//! # Ok::<(), swingdb_storage::Error>(())
//! ```

#![warn(missing_docs)]

pub mod byte_sizes;
pub mod catalog;
pub mod core;
pub mod engine;
pub mod frontend;
pub mod functions;
pub mod interrupt;
pub mod memory;
pub mod operators;
pub mod optimizer;
pub mod session;
pub mod statements;

pub use byte_sizes::{format_bytes, parse_size};
pub use catalog::{Attached, Databases, Registered, Tables, TablesSchema, CATALOG, SCHEMA, TEMP};
pub use frontend::params::name_placeholders;
pub use frontend::types::sql_name as sql_type_name;
pub use functions::{FileKind, ReadOptions};
pub use interrupt::{Interrupt, ProgressDisplay, ProgressReport, PROGRESS_AFTER};
pub use memory::{memory_limit, physical_memory, set_memory_limit, set_temp_directory, temp_directory};
pub use statements::{ProgressHook, StatementInfo};
