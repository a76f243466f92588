//! Upserts: `INSERT ... ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET
//! ... [WHERE ...]` (PostgreSQL, SQLite, DuckDB), `INSERT OR IGNORE` and
//! `INSERT OR REPLACE` (SQLite) and `REPLACE INTO` (MySQL). The clause is
//! taken off the statement so DataFusion plans a plain INSERT; its rows (as
//! `excluded`) are then split against the table's key: rows whose key is new
//! are inserted, and conflicting ones skipped, replaced, or updated with the
//! SET expressions (evaluated over the existing row and `excluded`). Two
//! proposed rows with the same new key: DO NOTHING / OR IGNORE keep the
//! first, OR REPLACE the last, DO UPDATE fails (as in PostgreSQL). The rows
//! an upsert writes go through the same key check as every write.

use super::dml::{Written, ROW_ID};
use super::run_plan::u64_values;
use super::{conform, nullable_values, Executor};
use crate::frontend::prepare::{qualify, Action, Upsert};
use datafusion::arrow::array::{BooleanArray, RecordBatch};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::common::{Column, DFSchema, JoinType, TableReference};
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::logical_expr::{col, Expr, LogicalPlan, LogicalPlanBuilder};
use datafusion::sql::sqlparser::ast::Expr as SqlExpr;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};
use swingdb_storage::keys::columns::KeyColumns;
use swingdb_storage::TableMeta;

/// `batches` with one row per key (NULL keys all kept): the first of each,
/// or the last with `last`.
fn one_per_key(batches: Vec<RecordBatch>, meta: &TableMeta, key: &[String], last: bool) -> Result<Vec<RecordBatch>> {
    let key = KeyColumns::new(&meta.schema, key)?;
    // The (batch, row) kept for each key so far.
    let mut chosen: HashMap<Vec<u8>, (usize, usize)> = HashMap::new();
    let mut keep: Vec<Vec<bool>> = batches.iter().map(|b| vec![true; b.num_rows()]).collect();
    for (b, batch) in batches.iter().enumerate() {
        let columns: Vec<_> = key.positions.iter().map(|&i| batch.column(i).clone()).collect();
        key.for_each(&columns, |value, r| match chosen.entry(value.to_vec()) {
            Entry::Vacant(slot) => {
                slot.insert((b, r));
            }
            Entry::Occupied(mut slot) if last => {
                let (pb, pr) = slot.insert((b, r));
                keep[pb][pr] = false;
            }
            Entry::Occupied(_) => keep[b][r] = false,
        })?;
    }
    batches.iter().zip(keep).map(|(batch, keep)| Ok(filter_record_batch(batch, &BooleanArray::from(keep))?)).collect()
}

impl Executor {
    /// Runs an INSERT of `input` (rows shaped as table `name`) with the
    /// conflict clause `upsert`; with `keep`, the rows it inserted or
    /// changed are kept for RETURNING (as PostgreSQL and DuckDB return them).
    pub(crate) async fn upsert(
        &self,
        name: &str,
        meta: Arc<TableMeta>,
        input: LogicalPlan,
        upsert: Upsert,
        keep: bool,
    ) -> Result<Written> {
        let no_keys = meta.constraints.keys().next().is_none();
        if no_keys && upsert.target.is_none() && !matches!(upsert.action, Action::Update { .. }) {
            // Nothing can conflict (PostgreSQL and SQLite insert every row).
            let (segments, rows) = self.store_input(name, &meta, input, keep).await?;
            let count = segments.iter().map(|s| s.rows).sum();
            let mut all = meta.segments.clone();
            all.extend(segments);
            self.set_table(name, meta.with_segments(all))?;
            return Ok(Written { count, rows });
        }
        let key = self.conflict_key(name, &meta, upsert.target.as_deref())?;
        let columns: Vec<String> = meta.schema.fields().iter().map(|f| f.name().clone()).collect();
        // The new rows, named `excluded` as in PostgreSQL, computed once.
        // (In the table's types, and with NULL keys refused before any matching.)
        let rows = self.collect_plan(nullable_values(input)?).await?;
        let rows = rows.iter().map(|b| conform(b, &meta.schema, name)).collect::<Result<Vec<_>>>()?;
        // A key proposed twice: DO NOTHING / OR IGNORE keep the first row, OR
        // REPLACE the last (as PostgreSQL and SQLite do); DO UPDATE keeps both,
        // and the key check refuses them (PostgreSQL refuses too).
        let rows = match upsert.action {
            Action::Ignore => one_per_key(rows, &meta, &key, false)?,
            Action::Replace => one_per_key(rows, &meta, &key, true)?,
            Action::Update { .. } => rows,
        };
        let excluded = || -> Result<LogicalPlan> {
            let table = MemTable::try_new(meta.schema.clone(), vec![rows.clone()])?;
            Ok(LogicalPlanBuilder::scan("excluded", provider_as_source(Arc::new(table)), None)?.build()?)
        };
        let existing = || -> Result<LogicalPlanBuilder> {
            Ok(LogicalPlanBuilder::scan(TableReference::bare(name), self.row_id_source(&meta), None)?)
        };
        let on = |left: &str| -> (Vec<Column>, Vec<Column>) {
            let l = key.iter().map(|k| Column::new(Some(TableReference::bare(left)), k)).collect();
            let r = key.iter().map(|k| Column::new(Some("excluded"), k)).collect();
            (l, r)
        };
        // Rows whose key is new go in whatever the action.
        let fresh = LogicalPlanBuilder::from(excluded()?)
            .join(existing()?.build()?, JoinType::LeftAnti, (on(name).1, on(name).0), None)?
            .project(columns.iter().map(|c| col(Column::new(Some("excluded"), c))))?
            .build()?;
        let fresh_rows = self.collect_plan(fresh).await?;
        // Conflicting rows: the existing row's id, and what replaces it.
        let remove = match &upsert.action {
            Action::Ignore => None,
            Action::Replace => {
                let matched = existing()?.join(excluded()?, JoinType::Inner, on(name), None)?;
                let projection =
                    std::iter::once(col(ROW_ID)).chain(columns.iter().map(|c| col(Column::new(Some("excluded"), c))));
                Some(matched.project(projection)?.build()?)
            }
            Action::Update { set, only_if } => {
                let matched = existing()?.join(excluded()?, JoinType::Inner, on(name), None)?;
                let schema: DFSchema = matched.schema().as_ref().clone();
                let state = self.ctx.state();
                let plan_expr = |e: &SqlExpr| -> Result<Expr> {
                    Ok(state.create_logical_expr(&qualify(e.clone(), name).to_string(), &schema)?)
                };
                let matched = match only_if {
                    Some(condition) => matched.filter(plan_expr(condition)?)?,
                    None => matched,
                };
                for (column, _) in set {
                    if !columns.contains(column) {
                        return Err(Error::programming(format!(
                            "ON CONFLICT DO UPDATE sets column '{column}', which table '{name}' does not have"
                        )));
                    }
                }
                let mut projection = vec![col(ROW_ID)];
                for c in &columns {
                    let value = match set.iter().rev().find(|(column, _)| column == c) {
                        Some((_, e)) => plan_expr(e)?,
                        None => col(Column::new(Some(TableReference::bare(name)), c)),
                    };
                    projection.push(value.alias(c));
                }
                Some(matched.project(projection)?.build()?)
            }
        };
        let mut written = fresh_rows.iter().map(|b| b.num_rows() as u64).sum::<u64>();
        let mut new_rows = fresh_rows;
        let mut ids = Vec::new();
        if let Some(plan) = remove {
            let replaced = self.collect_plan(plan).await?;
            ids = u64_values(&replaced, 0);
            written += ids.len() as u64;
            for batch in replaced {
                new_rows.push(batch.project(&(1..batch.num_columns()).collect::<Vec<_>>())?);
            }
        }
        let rows = self.replace_rows(name, &meta, ids, new_rows).await?;
        Ok(Written { count: written, rows: if keep { rows } else { Vec::new() } })
    }

    /// The key an upsert conflicts on: the one it names, else the primary key
    /// (else the only key).
    fn conflict_key(&self, name: &str, meta: &TableMeta, target: Option<&[String]>) -> Result<Vec<String>> {
        let keys: Vec<&[String]> = meta.constraints.keys().map(|(_, columns)| columns).collect();
        let found = match target {
            Some(target) => keys.iter().find(|k| {
                let mut a = k.to_vec();
                let mut b = target.to_vec();
                a.sort();
                b.sort();
                a == b
            }),
            None => meta.constraints.primary_key.as_ref().map(|_| &keys[0]).or(if keys.len() == 1 {
                keys.first()
            } else {
                None
            }),
        };
        match (found, target) {
            (Some(k), _) => Ok(k.to_vec()),
            (None, Some(t)) => Err(Error::programming(format!(
                "ON CONFLICT ({}) names no PRIMARY KEY or UNIQUE constraint of table '{name}'",
                t.join(", ")
            ))),
            (None, None) => Err(Error::programming(format!(
                "table '{name}' has no key to conflict on; declare a PRIMARY KEY or name the UNIQUE columns: ON CONFLICT (column) ..."
            ))),
        }
    }
}
