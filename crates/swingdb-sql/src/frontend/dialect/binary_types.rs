//! The SQL names of byte strings that DataFusion refuses: `BLOB` (SQLite's,
//! DuckDB's, and the name swingdb itself shows for binary columns) and
//! `VARBINARY`, planned as Arrow Binary like `BYTEA`.

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::error::Result;
use datafusion::logical_expr::planner::TypePlanner;
use datafusion::sql::sqlparser::ast::DataType as SqlDataType;
use std::sync::Arc;

/// Plans `BLOB` and `VARBINARY` as Binary.
#[derive(Debug)]
pub struct BinaryTypes;

impl TypePlanner for BinaryTypes {
    fn plan_type_field(&self, sql_type: &SqlDataType) -> Result<Option<FieldRef>> {
        Ok(match sql_type {
            SqlDataType::Blob(_) | SqlDataType::Varbinary(_) => Some(Arc::new(Field::new("", DataType::Binary, true))),
            _ => None,
        })
    }
}
