//! Identity columns (`GENERATED ... AS IDENTITY`, `SERIAL`, `AUTOINCREMENT`):
//! an INSERT that leaves one out numbers its rows 1, 2, 3, ... on from the
//! largest value the column ever held, so a value is never given twice, also
//! after the rows holding it were deleted (as SQLite's AUTOINCREMENT and
//! PostgreSQL's sequences) and also after explicit values (as SQLite; a
//! PostgreSQL sequence would hand out a value a row already has).
//!
//! No counter is kept outside the table: the next value is the larger of the
//! table's stored floor ([`swingdb_storage::Constraints::identity`], raised at
//! every write to the column's maximum + 1) and the maximum its segments'
//! statistics give. Two transactions numbering rows of one table both change
//! it, so the second to commit gets a ConflictError and, retried, numbers on
//! from the first's rows.

use datafusion::arrow::array::Int64Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result as DFResult;
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use swingdb_storage::TableMeta;

/// The value the next row of identity column `column` of `table` gets.
pub fn next_value(table: &TableMeta, column: &str) -> i64 {
    let floor = table.constraints.identity.get(column).copied().unwrap_or(1);
    let Ok(index) = table.schema.index_of(column) else { return floor };
    let largest =
        table.segments.iter().filter_map(|segment| table.column_stats(segment, index)?.max?.parse::<i64>().ok()).max();
    largest.map_or(floor, |largest| floor.max(largest.saturating_add(1)))
}

/// `table` with each identity column's floor raised past the values it now holds.
pub fn advance(table: &mut TableMeta) {
    let columns: Vec<String> = table.constraints.identity.keys().cloned().collect();
    for column in columns {
        let next = next_value(table, &column);
        table.constraints.identity.insert(column, next);
    }
}

/// The DEFAULT of identity column `column` of `table` for one statement:
/// each row it is evaluated for gets the next number.
pub fn default_expr(table: &TableMeta, column: &str) -> Expr {
    let numbers = NextIdentity {
        next: Arc::new(AtomicI64::new(next_value(table, column))),
        signature: Signature::nullary(Volatility::Volatile),
    };
    ScalarUDF::new_from_impl(numbers).call(vec![])
}

/// Numbers rows from a counter shared by every evaluation in one statement
/// (partitions take disjoint ranges).
#[derive(Debug)]
struct NextIdentity {
    next: Arc<AtomicI64>,
    signature: Signature,
}

impl PartialEq for NextIdentity {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.next, &other.next)
    }
}

impl Eq for NextIdentity {}

impl Hash for NextIdentity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.next).hash(state)
    }
}

impl ScalarUDFImpl for NextIdentity {
    fn name(&self) -> &str {
        "next_identity"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let rows = args.number_rows as i64;
        let first = self.next.fetch_add(rows, Ordering::Relaxed);
        Ok(ColumnarValue::Array(Arc::new(Int64Array::from_iter_values(first..first + rows))))
    }
}
