//! SQL: DataFusion wired to swingdb's catalog and storage, plus the pieces of
//! SQL DataFusion leaves to its host (table functions, placeholders).

pub mod case_fold;
pub mod catalog;
pub mod checks;
pub mod conjunction;
pub mod csv_sniff;
pub mod diagnose;
pub mod dialect;
pub mod estimate_barrier;
pub mod few_groups;
pub mod filter_placement;
pub mod functions;
pub mod identity;
pub mod join_order;
pub mod json;
pub mod limit_barrier;
pub mod ordered_scan;
pub mod output_names;
pub mod overflow;
pub mod params;
pub mod parse;
pub mod planner;
pub mod quote;
pub mod range_aggregate;
pub mod remote;
pub mod reuse;
pub mod runtime_filter;
pub mod selectivity;
pub mod session;
pub mod shared;
pub mod sort_over_limit;
pub mod sorted_range;
pub mod source;
pub mod subquery;
pub mod suggest;
pub mod table;
pub mod types;
pub mod unique_key_join;
pub mod using_joins;
pub mod views;
pub mod watch;

pub use catalog::{Attached, Databases, Registered, Tables, TablesSchema, CATALOG, SCHEMA};
pub use functions::{FileKind, ReadOptions};
pub use params::name_placeholders;
pub use types::sql_name as sql_type_name;
