//! The short way for the statement applications repeat most:
//! `INSERT INTO t [(columns)] VALUES (?, ?, ...)`, one row of placeholders.
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
use super::insert_shape::{recognize, PreparedInsert, REMEMBERED};
use super::Executor;
use super::Output;
use crate::error::Result;
use crate::storage::inline_segment::inline_segment;
use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::common::ScalarValue;
use std::sync::Arc;

impl Executor {
    /// The fast insert `sql` is, if it is one (remembered per text).
    pub(crate) fn prepared_insert(&self, sql: &str) -> Option<Arc<PreparedInsert>> {
        if !self.fast_inserts.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let mut remembered = self.remembered.lock().unwrap();
        if let Some(known) = remembered.get(sql) {
            return known.clone();
        }
        if remembered.len() >= REMEMBERED {
            remembered.clear();
        }
        let prepared = recognize(sql).map(Arc::new);
        remembered.insert(sql.to_string(), prepared.clone());
        prepared
    }

    /// Runs `insert` with `params` inside the open transaction; `None` (and
    /// nothing done) when the general path must run it instead.
    pub(crate) fn run_fast_insert(&self, insert: &PreparedInsert, params: &[ScalarValue]) -> Result<Option<Output>> {
        let Ok(meta) = self.table(&insert.table) else { return Ok(None) };
        let distinct: std::collections::BTreeSet<usize> = insert.params.iter().copied().collect();
        if distinct.len() != params.len() || distinct.last().is_some_and(|&last| last >= params.len()) {
            return Ok(None);
        }
        let schema = &meta.schema;
        // Which value each table column takes (`None`: NULL).
        let mut sources: Vec<Option<usize>> = vec![None; schema.fields().len()];
        match &insert.columns {
            None if insert.params.len() != sources.len() => return Ok(None),
            None => sources.iter_mut().zip(&insert.params).for_each(|(s, &p)| *s = Some(p)),
            Some(columns) => {
                for (column, &param) in columns.iter().zip(&insert.params) {
                    let Ok(at) = schema.index_of(column) else { return Ok(None) };
                    if sources[at].replace(param).is_some() {
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
        // The row as the parameters' own types, then cast as every insert is.
        let mut fields = Vec::with_capacity(sources.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(sources.len());
        for (field, source) in schema.fields().iter().zip(&sources) {
            let array = match source {
                Some(p) => params[*p].to_array()?,
                None => new_null_array(field.data_type(), 1),
            };
            fields.push(Field::new(field.name(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let row = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)?;
        let row = conform(&row, schema, &insert.table)?;
        let segment = inline_segment(self.core.dir().new_inline_name()?, row)?;
        let segments = self.appended(&meta, vec![segment])?;
        self.set_table(&insert.table, meta.with_segments(segments))?;
        Ok(Some(Output::Count(1)))
    }
}
