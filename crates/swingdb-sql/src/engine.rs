//! The seam the API crate (`swingdb`) runs SQL through, and all it may name
//! of this crate besides the user-facing types re-exported at its root: an
//! open database's shared state ([`DbCore`]), the executor of one
//! connection's statements ([`Executor`]), the statements it routes itself
//! (transaction control and ATTACH: [`Control`]; statements DataFusion does
//! not parse: [`TextStatement`]) and the rewriting of errors for people
//! ([`explain`], [`in_statement`]). `tests/test_code_layout.py` holds the API
//! to this module.

pub use crate::catalog::{TablesSchema, SCHEMA};
pub use crate::core::{runtime, AttachedDatabase, DbCore};
pub use crate::frontend::control::{is_reserved_alias, written_schemas, AttachRequest, Control};
pub use crate::frontend::diagnose::{explain, in_statement};
pub use crate::frontend::names::check_table_name;
pub use crate::frontend::parse::parse;
pub use crate::statements::{Executor, Output, TextStatement};
