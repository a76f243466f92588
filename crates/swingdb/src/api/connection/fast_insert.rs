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
use super::{object_name, Connection, SCHEMA};
use crate::api::result::QueryResult;
use crate::error::Result;
use crate::sql::parse::{identifier, parse};
use crate::storage::inline_segment::inline_segment;
use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, SetExpr, Statement as SqlStatement, TableObject, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// How many statement texts a connection remembers the shape of.
const REMEMBERED: usize = 256;

/// A recognized `INSERT ... VALUES (placeholders)`.
#[derive(Debug)]
pub(super) struct PreparedInsert {
    table: String,
    /// The columns named, or `None` for all in order.
    columns: Option<Vec<String>>,
    /// For each value, the parameter it is (0-based).
    params: Vec<usize>,
}

/// The statement shapes of the SQL texts seen, by text (`None`: not a fast insert).
pub(super) type Remembered = HashMap<String, Option<Arc<PreparedInsert>>>;

/// `sql` as a fast insert, if it is one.
fn recognize(sql: &str) -> Option<PreparedInsert> {
    let mut statements = parse(sql).ok()?;
    let [DFStatement::Statement(statement)] = statements.as_mut_slice() else { return None };
    let SqlStatement::Insert(insert) = statement.as_ref() else { return None };
    let plain = insert.or.is_none()
        && insert.on.is_none()
        && insert.returning.is_none()
        && !insert.overwrite
        && insert.partitioned.is_none()
        && insert.after_columns.is_empty()
        && !insert.has_table_keyword
        && insert.assignments.is_empty()
        && insert.settings.is_none()
        && insert.format_clause.is_none()
        && insert.table_alias.is_none();
    let TableObject::TableName(name) = &insert.table else { return None };
    let query = insert.source.as_ref()?;
    if !plain
        || query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return None;
    }
    let SetExpr::Values(values) = query.body.as_ref() else { return None };
    let [row] = values.rows.as_slice() else { return None };
    let params = row
        .iter()
        .map(|e| match e {
            Expr::Value(v) => match &v.value {
                Value::Placeholder(p) => p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    let columns = match insert.columns.as_slice() {
        [] => None,
        named => Some(
            named.iter().map(|c| c.0.last().and_then(|p| p.as_ident()).map(identifier)).collect::<Option<Vec<_>>>()?,
        ),
    };
    if columns.as_ref().is_some_and(|c| c.len() != params.len()) {
        return None;
    }
    Some(PreparedInsert { table: object_name(name, SCHEMA).ok()?, columns, params })
}

impl Connection {
    /// The fast insert `sql` is, if it is one (remembered per text).
    pub(super) fn prepared_insert(&self, sql: &str) -> Option<Arc<PreparedInsert>> {
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
    pub(super) fn run_fast_insert(
        &self,
        insert: &PreparedInsert,
        params: &[ScalarValue],
    ) -> Result<Option<QueryResult>> {
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
        Ok(Some(QueryResult::count(1)))
    }
}
