//! The short way for the statement applications repeat most:
//! `INSERT INTO t [(columns)] VALUES (?, ?, ...)`, one row of placeholders
//! and literals (each literal typed once by the connection's planner, as the
//! general path types it).
//! Planning it with DataFusion takes about half a millisecond, many times
//! what storing one row costs; here the row is built from the parameters
//! directly and stored as every INSERT stores rows (`conform`, then
//! `set_table`, which enforces keys, CHECKs and FOREIGN KEYs), so the outcome
//! is the general path's, errors included (a test compares the two over
//! every column type and value kind). The statement's shape is recognized
//! once per SQL text and remembered.
//!
//! Whatever this path does not handle the same way is left to the general
//! path, before anything is written: a table that is not a stored table, a
//! column it does not find, a column left out that has a DEFAULT or identity,
//! a different number of parameters than placeholders.

use super::dml::conform;
use super::shapes::{PreparedInsert, RowValue, Short};
use super::Executor;
use super::Output;
use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::common::ScalarValue;
use std::sync::Arc;
use swingdb_storage::error::Result;
use swingdb_storage::manifest::inline_segment::inline_segment;

impl Executor {
    /// The fast insert `sql` is, if it is one (see [`Executor::short_statement`]).
    pub fn prepared_insert(&self, sql: &str) -> Option<Arc<PreparedInsert>> {
        match self.short_statement(sql)? {
            Short::Insert(insert) => Some(insert),
            _ => None,
        }
    }

    /// Runs `insert` with `params` inside the open transaction; `None` (and
    /// nothing done) when the general path must run it instead.
    pub fn run_fast_insert(&self, insert: &PreparedInsert, params: &[ScalarValue]) -> Result<Option<Output>> {
        self.run_fast_inserts(insert, &[params])
    }

    /// Runs `insert` once per parameter set of `rows` as one statement (one
    /// batch of rows, stored and checked together, as `INSERT ... VALUES`
    /// of many rows is): `executemany`. `None` (and nothing done) when the
    /// general path must run each instead, e.g. a column whose values are
    /// not all of one type.
    pub fn run_fast_inserts(&self, insert: &PreparedInsert, rows: &[&[ScalarValue]]) -> Result<Option<Output>> {
        let Ok(meta) = self.table(&insert.table) else { return Ok(None) };
        let Some(first) = rows.first() else { return Ok(None) };
        let width = first.len();
        let distinct: std::collections::BTreeSet<usize> = insert.params().collect();
        if distinct.len() != width
            || distinct.last().is_some_and(|&last| last >= width)
            || rows.iter().any(|r| r.len() != width)
        {
            return Ok(None);
        }
        let Some(typed) = insert.typed.get_or_init(|| self.typed_values(&insert.values)) else { return Ok(None) };
        let schema = &meta.schema;
        // Which value of the row each table column takes (`None`: NULL).
        let mut sources: Vec<Option<usize>> = vec![None; schema.fields().len()];
        match &insert.columns {
            None if insert.values.len() != sources.len() => return Ok(None),
            None => sources.iter_mut().enumerate().for_each(|(i, s)| *s = Some(i)),
            Some(columns) => {
                for (i, column) in columns.iter().enumerate() {
                    let Ok(at) = schema.index_of(column) else { return Ok(None) };
                    if sources[at].replace(i).is_some() {
                        return Ok(None);
                    }
                }
            }
        }
        let constraints = &meta.constraints;
        let left_out_with_value = sources.iter().zip(schema.fields()).any(|(s, f)| {
            s.is_none() && (constraints.defaults.contains_key(f.name()) || constraints.identity.contains_key(f.name()))
        });
        if left_out_with_value {
            return Ok(None);
        }
        // The row as the values' own types, then cast as every insert is.
        let mut fields = Vec::with_capacity(sources.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(sources.len());
        for (field, source) in schema.fields().iter().zip(&sources) {
            let array = match source.map(|i| (&insert.values[i], &typed[i])) {
                Some((RowValue::Param(p), _)) => match one_type(rows.iter().map(|r| &r[*p])) {
                    Some(array) => array,
                    None => return Ok(None),
                },
                Some((RowValue::Literal(_), Some(value))) => value.to_array_of_size(rows.len())?,
                Some((RowValue::Literal(_), None)) => return Ok(None),
                None => new_null_array(field.data_type(), rows.len()),
            };
            // A fraction into an integer column rounds: the general path's rule does it.
            if crate::optimizer::rounding_casts::rounds_when_cast(array.data_type(), field.data_type()) {
                return Ok(None);
            }
            fields.push(Field::new(field.name(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let row = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?;
        let row = match conform(&row, schema, &insert.table) {
            Ok(row) => row,
            // The general path folds a literal's cast while planning and
            // says so in its own words (pointing at the literal): let it.
            Err(_) if insert.values.iter().any(|v| matches!(v, RowValue::Literal(_))) => return Ok(None),
            Err(e) => return Err(e),
        };
        let segment = inline_segment(self.core.dir().new_inline_name()?, row)?;
        let segments = self.appended(&meta, vec![segment])?;
        self.set_table(&insert.table, meta.with_segments(segments))?;
        Ok(Some(Output::Count(rows.len() as u64)))
    }
}

/// `values` as one array, if they are all of one type (NULLs of no type
/// taking the others'); `None` if two types meet, which the general path
/// casts statement by statement.
pub(super) fn one_type<'a>(values: impl Iterator<Item = &'a ScalarValue> + Clone) -> Option<ArrayRef> {
    let typed = values.clone().map(ScalarValue::data_type).find(|t| !t.is_null());
    match typed {
        None => ScalarValue::iter_to_array(values.cloned()).ok(),
        Some(data_type) => {
            let same = values.map(|v| match v {
                ScalarValue::Null => ScalarValue::try_from(&data_type).ok(),
                v if v.data_type() == data_type => Some(v.clone()),
                _ => None,
            });
            ScalarValue::iter_to_array(same.collect::<Option<Vec<_>>>()?).ok()
        }
    }
}
