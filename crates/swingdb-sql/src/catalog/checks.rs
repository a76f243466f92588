//! CHECK constraints: each condition (stored as SQL text) is planned against
//! the table's columns and evaluated over the rows a write adds (those the
//! new table version has and the previous one had not); a row for which
//! a condition is false fails the write with an `IntegrityError` naming the
//! table, the condition and the row's values. NULL passes, as in SQL.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::DFSchema;
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::ExprSchemable;
use std::collections::HashSet;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::keys::columns::describe_row;
use swingdb_storage::{SegmentStore, TableMeta};

/// Checks the CHECK conditions of `table` (named `name`) over the segments
/// it has beyond `before` (all of them for a new table).
pub fn check_conditions(
    store: &SegmentStore,
    state: &SessionState,
    name: &str,
    before: Option<&TableMeta>,
    table: &TableMeta,
) -> Result<()> {
    let schema = DFSchema::try_from(table.schema.as_ref().clone())?;
    let added = table.added_rows(before);
    for condition in &table.constraints.checks {
        let expr = state.create_logical_expr(condition, &schema).map_err(|e| {
            Error::programming(format!("CHECK ({condition}) of table '{name}' cannot be planned: {}", Error::from(e)))
        })?;
        // Refused when declared (this runs for a new table too, before it
        // has rows): a condition that is no truth value could never be judged.
        match expr.get_type(&schema)? {
            DataType::Boolean | DataType::Null => {}
            other => {
                return Err(Error::programming(format!(
                    "CHECK ({condition}) of table '{name}' is not a condition: it gives {}, not a BOOLEAN; write a comparison such as CHECK ({condition} > 0)",
                    crate::frontend::types::sql_name(&other)
                )))
            }
        }
        // The condition's columns, in the table's order.
        let used: HashSet<String> = expr.column_refs().iter().map(|c| c.name.clone()).collect();
        let shown_columns: Vec<String> =
            table.schema.fields().iter().map(|f| f.name().clone()).filter(|n| used.contains(n)).collect();
        let physical = state.create_physical_expr(expr, &schema)?;
        for &(segment, from) in &added {
            for batch in store.map(table, segment)?.batches_from(None, from)? {
                let verdicts = physical.evaluate(&batch)?.into_array(batch.num_rows())?;
                let Some(verdicts) = verdicts.as_boolean_opt() else {
                    return Err(Error::internal(format!("CHECK ({condition}) of table '{name}' gave no truth values")));
                };
                let Some(row) = (0..batch.num_rows()).find(|&r| verdicts.is_valid(r) && !verdicts.value(r)) else {
                    continue;
                };
                let columns = shown_columns.iter().filter_map(|c| Some((c, batch.column_by_name(c)?)));
                let values = describe_row(columns, row)?;
                return Err(Error::new(
                    ErrorKind::Integrity,
                    format!("CHECK ({condition}) of table '{name}' fails for the row with {values}"),
                ));
            }
        }
    }
    Ok(())
}
