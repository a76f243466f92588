//! CREATE [UNIQUE] INDEX and DROP INDEX. A unique index is a UNIQUE
//! constraint with a name (kept with the table, enforced by the same key index
//! as every key, checked against the rows already there when it is created).
//! A plain index is kept with its table as sorted runs of its columns' values
//! per segment (`storage::keys::runs`, built for the segments there by CREATE
//! INDEX and for new ones by the writes that add them), which scans with an
//! equality, IN or range filter on its first columns look rows up in (see
//! `catalog::key_lookup`); EXPLAIN names the index on the table's scan.

use super::Executor;
use super::Output;
use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use datafusion::sql::sqlparser::ast::{CreateIndex, Expr as SqlExpr, ObjectName};
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::keys::runs::remove_index_runs;
use swingdb_storage::TableMeta;

impl Executor {
    /// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (column, ...)`.
    pub(crate) fn create_index(&self, create: &CreateIndex) -> Result<Output> {
        if create.unique && (create.predicate.is_some() || !create.include.is_empty()) {
            return Err(Error::new(ErrorKind::NotSupported, "partial and covering unique indexes are not supported"));
        }
        let table = object_name(&create.table_name, &self.own)?;
        let columns = create
            .columns
            .iter()
            .map(|c| match &c.column.expr {
                SqlExpr::Identifier(i) => Ok(identifier(i)),
                other => Err(Error::new(
                    ErrorKind::NotSupported,
                    format!("an index on the expression {other}: index columns only"),
                )),
            })
            .collect::<Result<Vec<String>>>()?;
        let meta = self.table(&table)?;
        for c in &columns {
            if meta.schema.index_of(c).is_err() {
                return Err(Error::programming(format!("table '{table}' has no column '{c}'")));
            }
        }
        let name = match &create.name {
            Some(name) => object_name(name, &self.own)?,
            None => format!("{table}_{}_{}", columns.join("_"), if create.unique { "key" } else { "idx" }),
        };
        if self.index_owner(&name).is_some() {
            if create.if_not_exists {
                return Ok(Output::Empty);
            }
            return Err(Error::programming(format!("index '{name}' already exists (use CREATE INDEX IF NOT EXISTS)")));
        }
        let mut changed = meta.as_ref().clone();
        match create.unique {
            true => changed.constraints.unique_indexes.insert(name, columns),
            false => changed.constraints.indexes.insert(name, columns),
        };
        self.set_table(&table, changed)?;
        Ok(Output::Empty)
    }

    /// `DROP INDEX [IF EXISTS] name`.
    pub(crate) fn drop_index(&self, names: &[ObjectName], if_exists: bool) -> Result<Output> {
        for name in names {
            let name = object_name(name, &self.own)?;
            let Some(table) = self.index_owner(&name) else {
                if if_exists {
                    continue;
                }
                return Err(Error::programming(format!(
                    "index '{name}' does not exist (use DROP INDEX IF EXISTS to ignore)"
                )));
            };
            let meta = self.table(&table)?;
            let mut changed = meta.as_ref().clone();
            changed.constraints.unique_indexes.remove(&name);
            // Its runs go too, unless another index on the same columns reads them.
            let dropped = changed.constraints.indexes.remove(&name);
            let unread = dropped.filter(|c| !changed.constraints.indexes.values().any(|o| o == c));
            self.set_table(&table, changed)?;
            if let Some(columns) = unread {
                remove_index_runs(&self.core.store, &meta, &columns)?;
            }
        }
        Ok(Output::Empty)
    }

    /// The table that has the index `name`.
    fn index_owner(&self, name: &str) -> Option<String> {
        let tables = self.tables.lock();
        let has =
            |t: &TableMeta| t.constraints.unique_indexes.contains_key(name) || t.constraints.indexes.contains_key(name);
        tables.iter().find(|(_, t)| has(t)).map(|(table, _)| table.clone())
    }
}
