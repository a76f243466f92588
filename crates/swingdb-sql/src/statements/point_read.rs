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

use super::shapes::{PointRead, RowValue, Selected};
use super::{Executor, Output};
use crate::catalog::key_lookup::KeyLookup;
use crate::catalog::table::SegmentTable;
use crate::optimizer::rules::is_enabled;
use crate::SCHEMA;
use datafusion::arrow::array::{RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::Schema;
use datafusion::common::{Column, ScalarValue};
use datafusion::logical_expr::Expr;
use std::sync::Arc;
use swingdb_storage::error::Result;

impl Executor {
    /// How many queries were answered by [`Self::run_point_read`].
    pub fn point_reads(&self) -> u64 {
        self.point_reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs `read` with `params` in the open transaction, or in one of its
    /// own when none is open; `None` (and nothing read) when the general
    /// path must run it instead.
    pub fn run_point_read(&self, read: &PointRead, params: &[ScalarValue]) -> Result<Option<Output>> {
        {
            let state = self.ctx.state_ref();
            let state = state.read();
            let options = state.config_options();
            if !is_enabled(options, "key_lookup") || options.catalog.default_schema != SCHEMA {
                return Ok(None);
            }
        }
        if self.own != SCHEMA || self.registered.lock().contains_key(&read.table) {
            return Ok(None);
        }
        let used: std::collections::BTreeSet<usize> = read
            .values
            .iter()
            .filter_map(|v| match v {
                RowValue::Param(p) => Some(*p),
                RowValue::Literal(_) => None,
            })
            .collect();
        if used.len() != params.len() || used.last().is_some_and(|&last| last >= params.len()) {
            return Ok(None);
        }
        let Some(typed) = read.typed.get_or_init(|| self.typed_values(&read.values)) else { return Ok(None) };
        let values: Option<Vec<&ScalarValue>> = read
            .values
            .iter()
            .zip(typed)
            .map(|(value, literal)| match value {
                RowValue::Param(p) => Some(&params[*p]),
                RowValue::Literal(_) => literal.as_ref(),
            })
            .collect();
        let Some(values) = values else { return Ok(None) };
        let implicit = self.txn.lock().is_none();
        if implicit {
            self.begin(false)?;
        }
        let rows = self.point_rows(read, &values);
        if implicit {
            self.finish(false)?;
        }
        if matches!(rows, Ok(Some(_))) {
            self.point_reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
        let filters: Vec<Expr> = read
            .pinned
            .iter()
            .zip(values)
            .map(|(c, v)| Expr::Column(Column::from_name(c)).eq(Expr::Literal((*v).clone(), None)))
            .collect();
        let Some(lookup) = KeyLookup::from_filters(&meta, &filters) else { return Ok(None) };
        let mut key: Vec<&String> = lookup.columns().iter().collect();
        let mut pinned: Vec<&String> = read.pinned.iter().collect();
        key.sort();
        pinned.sort();
        if key != pinned {
            return Ok(None); // other equalities too: the general path filters
        }
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
