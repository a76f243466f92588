//! SQL names of Arrow types, for the messages and listings people read.

use datafusion::arrow::datatypes::{DataType, Field};
use swingdb_storage::encoding::enums::EnumType;

/// The SQL name of a column's type: [`sql_name`] of its Arrow type, or an
/// ENUM's labels as DuckDB shows them (`ENUM('sad', 'ok', 'happy')`).
pub fn column_type_name(field: &Field) -> String {
    match EnumType::of_field(field) {
        Some(enum_type) => enum_type.sql_name(),
        None => sql_name(field.data_type()),
    }
}

/// The SQL name of `t` as DuckDB and PostgreSQL spell it (`BIGINT`,
/// `DECIMAL(10,2)`, `VARCHAR`); Arrow's own name for types SQL has no word for.
pub fn sql_name(t: &DataType) -> String {
    let name = match t {
        DataType::Null => "NULL",
        DataType::Boolean => "BOOLEAN",
        DataType::Int8 => "TINYINT",
        DataType::Int16 => "SMALLINT",
        DataType::Int32 => "INTEGER",
        DataType::Int64 => "BIGINT",
        DataType::UInt8 => "UTINYINT",
        DataType::UInt16 => "USMALLINT",
        DataType::UInt32 => "UINTEGER",
        DataType::UInt64 => "UBIGINT",
        DataType::Float16 | DataType::Float32 => "REAL",
        DataType::Float64 => "DOUBLE",
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "VARCHAR",
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView | DataType::FixedSizeBinary(_) => "BLOB",
        DataType::Date32 | DataType::Date64 => "DATE",
        DataType::Time32(_) | DataType::Time64(_) => "TIME",
        DataType::Timestamp(_, None) => "TIMESTAMP",
        DataType::Timestamp(_, Some(_)) => "TIMESTAMP WITH TIME ZONE",
        DataType::Interval(_) => "INTERVAL",
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) => return format!("DECIMAL({p},{s})"),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => return format!("DECIMAL({p},{s})"),
        DataType::List(f) | DataType::LargeList(f) | DataType::ListView(f) | DataType::FixedSizeList(f, _) => {
            return format!("{}[]", sql_name(f.data_type()))
        }
        DataType::Dictionary(_, value) => return sql_name(value),
        DataType::Struct(fields) => {
            let inner: Vec<String> =
                fields.iter().map(|f| format!("{} {}", f.name(), sql_name(f.data_type()))).collect();
            return format!("STRUCT({})", inner.join(", "));
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                return format!("MAP({}, {})", sql_name(kv[0].data_type()), sql_name(kv[1].data_type()))
            }
            _ => return "MAP".to_string(),
        },
        other => return other.to_string(),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{Field, TimeUnit};
    use std::sync::Arc;

    #[test]
    fn names_read_like_sql() {
        assert_eq!(sql_name(&DataType::Int64), "BIGINT");
        assert_eq!(sql_name(&DataType::Decimal128(10, 2)), "DECIMAL(10,2)");
        assert_eq!(sql_name(&DataType::LargeUtf8), "VARCHAR");
        assert_eq!(
            sql_name(&DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))),
            "TIMESTAMP WITH TIME ZONE"
        );
        assert_eq!(sql_name(&DataType::List(Arc::new(Field::new("item", DataType::Int32, true)))), "INTEGER[]");
    }
}
