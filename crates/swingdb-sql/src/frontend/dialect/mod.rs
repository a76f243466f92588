//! The SQL DuckDB, PostgreSQL and SQLite users write, where DataFusion reads
//! it otherwise or not at all: rewritten in the parsed statement before it
//! is planned (`syntax` is the entry point), or provided as functions.

pub mod aggregates;
pub mod asof;
pub mod bars;
pub mod bigint_ranks;
pub mod binary_types;
pub mod columns;
pub mod duckdb_catalog;
pub mod encodings;
pub mod enum_functions;
pub mod enum_types;
pub mod epochs;
pub mod formatting;
pub mod functions;
pub mod graphemes;
pub mod information_schema;
pub mod insert_by_name;
pub mod lambdas;
pub mod list_functions;
pub mod macros;
pub mod mode;
pub mod null_concat;
pub mod numbers;
pub mod one_group;
pub mod paths;
pub mod pivot;
pub mod planned;
pub mod power;
pub mod semi_joins;
pub mod sequence_values;
pub mod sequences;
pub mod settings;
pub mod show;
pub mod subscripts;
pub mod syntax;
pub mod text;
pub mod text_functions;
pub mod tokens;
pub mod value_aggregates;
