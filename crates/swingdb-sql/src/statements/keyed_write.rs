//! The short way for the writes applications repeat most: one row by its
//! key, `UPDATE t SET c = ?, ... WHERE k = ?` and `DELETE FROM t WHERE k = ?`
//! (values are placeholders or literals; composite keys with one equality
//! per column). The rows are found through the key's runs as a point read
//! finds them (`point_read.rs`), with their row ids; then they are written
//! as the general path writes them: the old versions marked deleted in
//! their segments (`remove_rows`), an UPDATE's new versions (the values cast
//! to the columns' types by `conform`, NOT NULL enforced) added as a small
//! segment, and the table set, which enforces its keys, CHECKs and FOREIGN
//! KEYs. A differential test compares the outcome with the general path's
//! over every column type and value kind, errors included.
//!
//! A SET may also be an expression over the row's columns and literals
//! (`v = v + 1`, no functions: see `shapes.rs`), planned once per table
//! schema as the general path plans it and evaluated on the rows found.
//!
//! Left to the general path, before anything is written: what a point read
//! leaves to it, a SET column it does not find, an expression that does not
//! plan over the table alone, and a value whose cast would round (the
//! general path's rule rounds).

use super::dml::{conform, ROW_ID};
use super::fast_insert::one_type;
use super::run_plan::u64_values;
use super::shapes::{KeyedWrite, SetTo};
use super::short::key_lookup;
use super::{Executor, Output};
use crate::catalog::table::SegmentTable;
use crate::optimizer::rounding_casts::rounds_when_cast;
use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};
use datafusion::physical_plan::PhysicalExpr;
use std::sync::Arc;
use swingdb_storage::error::Result;
use swingdb_storage::TableWriter;

/// What a set column takes: a bound value or a planned expression.
enum Source<'a> {
    Value(&'a ScalarValue),
    Expression(&'a Arc<dyn PhysicalExpr>),
}

impl Executor {
    /// The physical expressions of `write`'s `SetTo::Expression`s over rows
    /// of a table shaped `schema`: planned once per schema (the statement's
    /// text is kept, its tables may change), as the general path plans them
    /// (analyzed by the session's rules, checked arithmetic included); `None`
    /// when one does not plan over the table alone.
    fn set_expressions(&self, write: &KeyedWrite, schema: &SchemaRef) -> Option<Vec<Arc<dyn PhysicalExpr>>> {
        let texts: Vec<&str> = write
            .set
            .iter()
            .filter_map(|(_, to)| match to {
                SetTo::Expression(text) => Some(text.as_str()),
                SetTo::Value => None,
            })
            .collect();
        if texts.is_empty() {
            return Some(Vec::new());
        }
        let mut planned = write.planned.lock();
        match planned.as_ref() {
            Some((planned_for, exprs)) if planned_for == schema => exprs.clone(),
            _ => {
                let exprs = self.plan_set(&write.table, schema, &texts);
                *planned = Some((schema.clone(), exprs.clone()));
                exprs
            }
        }
    }

    /// The SQL expressions `texts` over table `table` (shaped `schema`),
    /// planned as the general path plans an UPDATE's: a projection over the
    /// table, analyzed by the session's rules, then made physical.
    fn plan_set(&self, table: &str, schema: &SchemaRef, texts: &[&str]) -> Option<Vec<Arc<dyn PhysicalExpr>>> {
        let state = self.ctx.state();
        let df_schema = DFSchema::try_from_qualified_schema(table, schema).ok()?;
        let exprs = texts.iter().map(|t| state.create_logical_expr(t, &df_schema).ok()).collect::<Option<Vec<_>>>()?;
        let empty = MemTable::try_new(schema.clone(), vec![vec![]]).ok()?;
        let plan = LogicalPlanBuilder::scan(table, provider_as_source(Arc::new(empty)), None)
            .and_then(|b| b.project(exprs))
            .and_then(|b| b.build())
            .ok()?;
        let analyzed = state.analyzer().execute_and_check(plan, state.config_options(), |_, _| {}).ok()?;
        let LogicalPlan::Projection(projection) = analyzed else { return None };
        let input = projection.input.schema();
        projection.expr.iter().map(|e| state.create_physical_expr(e.clone(), input).ok()).collect()
    }

    /// Runs `write` with `params` inside the open transaction; `None` (and
    /// nothing done) when the general path must run it instead.
    pub fn run_keyed_write(&self, write: &KeyedWrite, params: &[ScalarValue]) -> Result<Option<Output>> {
        if !self.short_path_open(&write.table) {
            return Ok(None);
        }
        let Some(values) = self.bound_values(&write.values, &write.typed, params) else { return Ok(None) };
        let taken = write.set.iter().filter(|(_, to)| matches!(to, SetTo::Value)).count();
        let (set_values, key_values) = values.split_at(taken);
        let Some(meta) = self.tables.lock().get(&write.table).cloned() else { return Ok(None) };
        if !meta.is_table() {
            return Ok(None);
        }
        let schema = &meta.schema;
        let Some(set) = write.set.iter().map(|(c, _)| schema.index_of(c).ok()).collect::<Option<Vec<usize>>>() else {
            return Ok(None);
        };
        let Some(expressions) = self.set_expressions(write, schema) else { return Ok(None) };
        // What each set column takes, in `write.set`'s order.
        let (mut values, mut planned) = (set_values.iter(), expressions.iter());
        let sources: Option<Vec<Source>> = write
            .set
            .iter()
            .map(|(_, to)| match to {
                SetTo::Value => values.next().map(|v| Source::Value(v)),
                SetTo::Expression(_) => planned.next().map(Source::Expression),
            })
            .collect();
        let Some(sources) = sources else { return Ok(None) };
        for (&at, source) in set.iter().zip(&sources) {
            let from = match source {
                Source::Value(v) => v.data_type(),
                Source::Expression(e) => e.data_type(schema)?,
            };
            if rounds_when_cast(&from, schema.field(at).data_type()) {
                return Ok(None);
            }
        }
        if key_values.iter().any(|v| v.is_null()) {
            self.keyed_statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(Some(Output::Count(0))); // `k = NULL` holds for no row
        }
        let Some(lookup) = key_lookup(&meta, &write.pinned, key_values) else { return Ok(None) };
        let width = schema.fields().len();
        let table = SegmentTable::new(meta.clone(), self.core.store.clone()).with_row_ids(ROW_ID);
        let found = table.rows_found(&lookup, &(0..=width).collect::<Vec<_>>())?;
        let row_ids = u64_values(&found, width);
        if row_ids.is_empty() {
            self.keyed_statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(Some(Output::Count(0)));
        }
        let count = row_ids.len() as u64;
        let mut added = Vec::new();
        if !write.delete {
            let rows = concat_batches(&found[0].schema(), &found)?;
            // The new versions: the old rows with the set columns' values, as
            // the values' own types, then cast to the table's as every write is.
            let mut fields = Vec::with_capacity(width);
            let mut columns: Vec<ArrayRef> = Vec::with_capacity(width);
            for (i, field) in schema.fields().iter().enumerate() {
                let column = match set.iter().position(|&at| at == i).map(|v| &sources[v]) {
                    Some(Source::Value(v)) => match one_type(std::iter::repeat_n(*v, rows.num_rows())) {
                        Some(array) => array,
                        None => return Ok(None),
                    },
                    Some(Source::Expression(e)) => e.evaluate(&rows)?.into_array(rows.num_rows())?,
                    None => rows.column(i).clone(),
                };
                fields.push(Field::new(field.name(), column.data_type().clone(), true));
                columns.push(column);
            }
            let options = RecordBatchOptions::new().with_row_count(Some(rows.num_rows()));
            let shaped = RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)?;
            let mut writer =
                TableWriter::new(self.core.dir(), schema.clone()).with_compression(meta.constraints.compression);
            writer.push(conform(&shaped, schema, &write.table)?)?;
            let (written, files) = writer.finish()?;
            self.record_files(files);
            added = written;
        }
        let mut segments = self.remove_rows(&meta, row_ids)?;
        segments.extend(added);
        self.set_table(&write.table, meta.with_segments(segments))?;
        self.keyed_statements.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(Output::Count(count)))
    }
}
