//! CREATE UNIQUE INDEX and DROP INDEX. A unique index is a UNIQUE constraint
//! with a name (kept with the table, enforced by the same key index as every
//! key, checked against the rows already there when it is created). Other
//! indexes are refused: scans skip segments by their statistics, and an index
//! swingdb would not use should not look as if it were there.

use super::{object_name, Connection};
use crate::api::result::QueryResult;
use crate::error::{Error, ErrorKind, Result};
use crate::sql::parse::identifier;
use datafusion::sql::sqlparser::ast::{CreateIndex, Expr as SqlExpr, ObjectName};

impl Connection {
    /// `CREATE UNIQUE INDEX [IF NOT EXISTS] name ON table (column, ...)`.
    pub(super) fn create_index(&self, create: &CreateIndex) -> Result<QueryResult> {
        if !create.unique {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "CREATE INDEX is not supported: queries skip segments by their min/max statistics instead; \
                 leave the statement out, or use CREATE UNIQUE INDEX to enforce uniqueness",
            ));
        }
        if create.predicate.is_some() || !create.include.is_empty() {
            return Err(Error::new(ErrorKind::NotSupported, "partial and covering unique indexes are not supported"));
        }
        let table = object_name(&create.table_name)?;
        let columns = create
            .columns
            .iter()
            .map(|c| match &c.column.expr {
                SqlExpr::Identifier(i) => Ok(identifier(i)),
                other => Err(Error::new(ErrorKind::NotSupported, format!("a unique index on the expression {other}: index columns only"))),
            })
            .collect::<Result<Vec<String>>>()?;
        let meta = self.table(&table)?;
        for c in &columns {
            if meta.schema.index_of(c).is_err() {
                return Err(Error::programming(format!("table '{table}' has no column '{c}'")));
            }
        }
        let name = match &create.name {
            Some(name) => object_name(name)?,
            None => format!("{table}_{}_key", columns.join("_")),
        };
        if self.index_owner(&name).is_some() {
            if create.if_not_exists {
                return Ok(QueryResult::empty());
            }
            return Err(Error::programming(format!("index '{name}' already exists (use CREATE UNIQUE INDEX IF NOT EXISTS)")));
        }
        let mut changed = meta.as_ref().clone();
        changed.constraints.unique_indexes.insert(name, columns);
        self.set_table(&table, changed)?;
        Ok(QueryResult::empty())
    }

    /// `DROP INDEX [IF EXISTS] name`.
    pub(super) fn drop_index(&self, names: &[ObjectName], if_exists: bool) -> Result<QueryResult> {
        for name in names {
            let name = object_name(name)?;
            let Some(table) = self.index_owner(&name) else {
                if if_exists {
                    continue;
                }
                return Err(Error::programming(format!("index '{name}' does not exist (use DROP INDEX IF EXISTS to ignore)")));
            };
            let meta = self.table(&table)?;
            let mut changed = meta.as_ref().clone();
            changed.constraints.unique_indexes.remove(&name);
            self.set_table(&table, changed)?;
        }
        Ok(QueryResult::empty())
    }

    /// The table that has the index `name`.
    fn index_owner(&self, name: &str) -> Option<String> {
        let tables = self.tables.lock().unwrap();
        tables.iter().find(|(_, t)| t.constraints.unique_indexes.contains_key(name)).map(|(table, _)| table.clone())
    }
}
