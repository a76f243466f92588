//! The front end: SQL text to plans. Parsing (with the depth limits),
//! names and quoting, parameters, the rewrites of other dialects' syntax,
//! `prepare` (every AST rewrite in one documented order, then planning),
//! and the diagnosis that makes planning errors helpful.

pub mod case_fold;
pub mod control;
pub mod diagnose;
pub mod dialect;
pub mod json;
pub mod names;
pub mod output_names;
pub mod params;
pub mod parse;
pub(crate) mod prepare;
pub mod quote;
pub mod suggest;
pub(crate) mod temporary;
pub mod types;
pub mod using_joins;
