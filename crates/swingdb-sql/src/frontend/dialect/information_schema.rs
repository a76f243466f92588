//! `information_schema.columns` with SQL type names (`INTEGER`,
//! `DECIMAL(10,2)`, `TIMESTAMP`), as DuckDB, PostgreSQL and `DESCRIBE` here
//! name them, not Arrow's (`Int32`, `Decimal128(10, 2)`, `Timestamp(ns)`),
//! and `ordinal_position` counted from 1 as the SQL standard counts it
//! (DataFusion's counts from 0):
//! DataFusion builds the view with Arrow's names, so a reference to it is
//! replaced by a query over it that renames its `data_type`.

use crate::frontend::types::sql_name;
use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use datafusion::sql::sqlparser::ast::{SetExpr, TableAlias, TableFactor};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::str::FromStr;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// The function that turns Arrow's type name into the SQL one.
const RENAME: &str = "__swingdb_sql_type_name";

/// The columns of DataFusion's `information_schema.columns`, `data_type`
/// renamed and `ordinal_position` from 1.
const COLUMNS: &str = "SELECT table_catalog, table_schema, table_name, column_name, ordinal_position + 1 AS ordinal_position, column_default, \
     is_nullable, __swingdb_sql_type_name(data_type) AS data_type, character_maximum_length, character_octet_length, \
     numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, interval_type \
     FROM information_schema.columns";

/// Replaces `factor` by the renaming query if it names
/// `information_schema.columns` (keeping its alias, or `columns`).
pub fn rewrite_table(factor: &mut TableFactor) -> Result<()> {
    let TableFactor::Table { name, alias, args: None, with_hints, version: None, partitions, sample: None, .. } =
        factor
    else {
        return Ok(());
    };
    let parts: Vec<String> = name.0.iter().filter_map(|p| p.as_ident()).map(|i| i.value.to_lowercase()).collect();
    let names_it = matches!(
        parts.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        [.., "information_schema", "columns"]
    );
    if !names_it || !with_hints.is_empty() || !partitions.is_empty() || parts.len() != name.0.len() {
        return Ok(());
    }
    let mut query = Parser::new(&GenericDialect {})
        .try_with_sql(COLUMNS)
        .and_then(|mut p| p.parse_query())
        .map_err(|e| Error::internal(format!("information_schema.columns query: {e}")))?;
    // The inner reference is qualified as the user qualified it (a catalog
    // prefix included).
    if let SetExpr::Select(select) = query.body.as_mut() {
        if let TableFactor::Table { name: inner, .. } = &mut select.from[0].relation {
            *inner = name.clone();
        }
    }
    let alias = alias.take().unwrap_or_else(|| TableAlias {
        name: "columns".into(),
        columns: vec![],
        explicit: true,
        at: None,
    });
    *factor = TableFactor::Derived { lateral: false, subquery: query, alias: Some(alias), sample: None };
    Ok(())
}

/// The function the renaming query calls.
pub fn sql_type_name() -> ScalarUDF {
    ScalarUDF::new_from_impl(SqlTypeName { signature: Signature::exact(vec![DataType::Utf8], Volatility::Immutable) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct SqlTypeName {
    signature: Signature,
}

impl ScalarUDFImpl for SqlTypeName {
    fn name(&self) -> &str {
        RENAME
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let names = args.args[0].to_array(args.number_rows)?;
        let names = names.as_string::<i32>();
        let renamed: StringArray = (0..names.len())
            .map(|i| {
                names.is_valid(i).then(|| {
                    DataType::from_str(names.value(i)).map_or_else(|_| names.value(i).to_string(), |t| sql_name(&t))
                })
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(renamed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_names_parse_back() {
        for t in [
            DataType::Int32,
            DataType::Utf8,
            DataType::Decimal128(10, 2),
            DataType::Timestamp(datafusion::arrow::datatypes::TimeUnit::Nanosecond, None),
        ] {
            assert_eq!(DataType::from_str(&t.to_string()).unwrap(), t);
        }
    }
}
