//! CREATE and DROP VIEW. A view is stored as its `CREATE VIEW` statement in
//! the catalog beside the tables (see `sql::catalog::views`); a temporary view is
//! this connection's alone and is never stored.

use super::Executor;
use super::Output;
use crate::catalog::views::{check_acyclic, in_schema};
use crate::frontend::names::{object_name, table_name};
use datafusion::datasource::{TableType, ViewTable};
use datafusion::logical_expr::{DdlStatement, DropView, LogicalPlan};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Ident, ObjectName, Statement as SqlStatement};
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::TableMeta;

impl Executor {
    /// `CREATE [OR REPLACE] [TEMP] VIEW [IF NOT EXISTS] name [(columns)] AS query`.
    pub(crate) async fn create_view(&self, statement: &DFStatement) -> Result<Output> {
        let DFStatement::Statement(s) = statement else { unreachable!("called for CREATE VIEW only") };
        let SqlStatement::CreateView(create) = s.as_ref() else { unreachable!("called for CREATE VIEW only") };
        if create.materialized {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "materialized views are not supported; CREATE TABLE ... AS SELECT stores a query's rows",
            ));
        }
        let name = object_name(&create.name, &self.own)?;
        let (or_replace, if_not_exists, temporary) = (create.or_replace, create.if_not_exists, create.temporary);
        // What is stored and planned is the plain definition, `CREATE VIEW
        // name [(columns)] AS query`: how it was created is not part of it.
        let mut definition = create.clone();
        (definition.or_replace, definition.if_not_exists, definition.temporary) = (false, false, false);
        if !temporary && create.name.0.len() > 1 {
            // Stored under its plain name: `o.v` of an attached database is
            // `v` when that database is opened on its own.
            definition.name = ObjectName::from(vec![Ident::with_quote('"', name.as_str())]);
        }
        let definition = SqlStatement::CreateView(definition);
        let sql = definition.to_string();
        // Planning checks the query (tables, columns, types) now, not at
        // first use; a stored view reads its own database's tables by
        // unqualified names (an attached one's too, see `sql::catalog`).
        let state = match temporary {
            true => self.ctx.state(),
            false => in_schema(self.ctx.state(), &self.own),
        };
        let planned = state.statement_to_plan(DFStatement::Statement(Box::new(definition))).await?;
        let LogicalPlan::Ddl(DdlStatement::CreateView(planned)) = planned else {
            return Err(Error::internal("CREATE VIEW did not plan as a view"));
        };
        if temporary {
            let mut registered = self.registered.lock();
            if registered.contains_key(&name) && !or_replace {
                if if_not_exists {
                    return Ok(Output::Empty);
                }
                return Err(already_exists(&name, "a temporary view or registered data"));
            }
            let view = ViewTable::new(Arc::unwrap_or_clone(planned.input), Some(sql));
            registered.insert(name, Arc::new(view));
            return Ok(Output::Empty);
        }
        let mut tables = self.tables.lock().clone();
        match tables.get(&name) {
            Some(existing) if !existing.is_view() => return Err(existing.name_taken(&name, "view")),
            Some(_) if if_not_exists => return Ok(Output::Empty),
            Some(_) if !or_replace => return Err(already_exists(&name, "a view")),
            _ => {}
        }
        let schema = Arc::new(planned.input.schema().as_arrow().clone());
        tables.insert(name.clone(), Arc::new(TableMeta::view(schema, sql)));
        check_acyclic(&name, &tables)?;
        *self.tables.lock() = tables;
        Ok(Output::Empty)
    }

    /// `DROP VIEW [IF EXISTS] name`: a temporary view, else a stored one.
    pub(crate) fn drop_view(&self, drop: &DropView) -> Result<Output> {
        let name = table_name(&drop.name, &self.own)?;
        if self.registered.lock().get(&name).is_some_and(|t| t.table_type() == TableType::View) {
            self.registered.lock().remove(&name);
            return Ok(Output::Empty);
        }
        let mut tables = self.tables.lock();
        match tables.get(&name) {
            Some(meta) if meta.is_view() => {
                tables.remove(&name);
                Ok(Output::Empty)
            }
            Some(other) => Err(other.not_a(&name, "view")),
            None if drop.if_exists => Ok(Output::Empty),
            None => {
                Err(Error::programming(format!("view '{name}' does not exist (use DROP VIEW IF EXISTS to ignore)")))
            }
        }
    }
}

fn already_exists(name: &str, what: &str) -> Error {
    Error::programming(format!(
        "'{name}' already exists as {what}; use CREATE OR REPLACE VIEW, CREATE VIEW IF NOT EXISTS, or DROP VIEW first"
    ))
}
