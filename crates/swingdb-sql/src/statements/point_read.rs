//! The short way for the query applications repeat most: a row by its key,
//! `SELECT columns FROM t WHERE k = ?` (or a literal; composite keys with
//! one equality per column). Planning it with DataFusion takes some 300 us
//! per statement text, and a parameterized one is planned at every run
//! (parameters bind before optimizing); here the rows come straight from
//! the key's runs (`catalog::key_lookup`), as the scan's key lookup takes
//! them: the transaction's version of the table, its deleted rows left out,
//! the small segments without a run read whole. The result is what the
//! general path returns, schema included (a differential test compares the
//! two).
//!
//! Whatever this path does not answer the same way is left to the general
//! path, before anything is read: a name that is not a stored table of the
//! connection's own database (a view, registered data, an attached
//! database's table), a column it does not find as spelled, equalities
//! that are not exactly one key's columns, a value whose type is not the
//! column's (other than an integer that converts without loss), parameters
//! that do not match the placeholders, or `key_lookup` switched off
//! (`SET disabled_optimizers`).

use super::shapes::{PointRead, Selected};
use super::short::key_lookup;
use super::{Executor, Output};
use crate::catalog::table::SegmentTable;
use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::Schema;
use datafusion::common::ScalarValue;
use std::sync::Arc;
use swingdb_storage::error::Result;

impl Executor {
    /// How many statements ran by key without planning: point reads and
    /// writes by key (see `keyed_write.rs`).
    pub fn keyed_statements(&self) -> u64 {
        self.keyed_statements.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs `read` with `params` in the open transaction, or in one of its
    /// own when none is open; `None` (and nothing read) when the general
    /// path must run it instead.
    pub fn run_point_read(&self, read: &PointRead, params: &[ScalarValue]) -> Result<Option<Output>> {
        if !self.short_path_open(&read.table) {
            return Ok(None);
        }
        let Some(values) = self.bound_values(&read.values, &read.typed, params) else { return Ok(None) };
        let implicit = self.txn.lock().is_none();
        if implicit {
            self.begin(false)?;
        }
        let rows = self.point_rows(read, &values);
        if implicit {
            self.finish(false)?;
        }
        if matches!(rows, Ok(Some(_))) {
            self.keyed_statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        rows
    }

    /// The answer of `read` with `values` (one per equality), read from the
    /// open transaction's tables; `None` if the general path must give it.
    fn point_rows(&self, read: &PointRead, values: &[&ScalarValue]) -> Result<Option<Output>> {
        let Some(meta) = self.tables.lock().get(&read.table).cloned() else { return Ok(None) };
        if !meta.is_table() {
            return Ok(None);
        }
        // The result's columns: table columns, under their result names.
        let schema = &meta.schema;
        let mut columns = Vec::new();
        let mut fields = Vec::new();
        for item in &read.items {
            match item {
                Selected::All => {
                    columns.extend(0..schema.fields().len());
                    fields.extend(schema.fields().iter().map(|f| f.as_ref().clone()));
                }
                Selected::Column { column, name } => {
                    let Ok(at) = schema.index_of(column) else { return Ok(None) };
                    columns.push(at);
                    fields.push(schema.field(at).clone().with_name(name));
                }
            }
        }
        let result = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        if values.iter().any(|v| v.is_null()) {
            // `k = NULL` holds for no row.
            return Ok(Some(Output::Rows(RecordBatch::new_empty(result))));
        }
        let Some(lookup) = key_lookup(&meta, &read.pinned, values) else { return Ok(None) };
        let table = SegmentTable::new(meta.clone(), self.core.store.clone());
        let batches = table.rows_found(&lookup, &columns)?;
        let rows = concat_batches(&Arc::new(schema.project(&columns)?), &batches)?;
        Ok(Some(Output::Rows(RecordBatch::try_new_with_options(
            result,
            rows.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(rows.num_rows())),
        )?)))
    }
}
