//! Views: a stored `CREATE VIEW` statement, planned again each time a query
//! names the view (so it sees the tables as they are then, as in SQLite and
//! DuckDB). A view lives in the catalog beside the tables (a
//! [`TableMeta`] with a `view` statement and no segments), so transactions,
//! commits and snapshots carry views exactly as they carry tables.

use datafusion::common::{DataFusionError, Result as DFResult};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::{DdlStatement, LogicalPlan};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{visit_relations, ObjectName};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::{Arc, OnceLock};
use swingdb_storage::error::{Error, Result};
use swingdb_storage::TableMeta;

/// A way back from the catalog to the session it belongs to (views are
/// planned with the session's functions and settings). Holds the session
/// weakly: the session owns the catalog.
pub type SessionHandle = Arc<OnceLock<Box<dyn Fn() -> Option<SessionState> + Send + Sync>>>;

/// A relation name as the catalog keys it: unquoted parts fold to lower case.
fn catalog_name(name: &ObjectName) -> Option<String> {
    Some(crate::frontend::parse::identifier(name.0.last()?.as_ident()?))
}

/// The names of the relations the statement `sql` reads.
fn referenced_names(sql: &str) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for statement in crate::frontend::parse::parse(sql)? {
        if let DFStatement::Statement(s) = statement {
            let _ = visit_relations(s.as_ref(), |relation| {
                names.extend(catalog_name(relation));
                ControlFlow::<()>::Continue(())
            });
        }
    }
    Ok(names)
}

/// Refuses a view `name` that reaches itself through the views it reads
/// (`CREATE OR REPLACE VIEW a AS SELECT * FROM b` when `b` reads `a`), which
/// would otherwise be planned forever.
pub fn check_acyclic(name: &str, tables: &BTreeMap<String, Arc<TableMeta>>) -> Result<()> {
    let mut path = vec![name.to_string()];
    fn walk(path: &mut Vec<String>, tables: &BTreeMap<String, Arc<TableMeta>>) -> Result<()> {
        let current = path.last().cloned().unwrap_or_default();
        let Some(sql) = tables.get(&current).and_then(|m| m.view_sql().map(str::to_string)) else { return Ok(()) };
        for next in referenced_names(&sql)? {
            if next == path[0] {
                path.push(next);
                return Err(Error::programming(format!("view '{}' would read itself: {}", path[0], path.join(" -> "))));
            }
            if !path.contains(&next) {
                path.push(next);
                walk(path, tables)?;
                path.pop();
            }
        }
        Ok(())
    }
    walk(&mut path, tables)
}

/// `state` as a stored view of the database known as `schema` (`main`, or an
/// attached database's alias) is planned in: unqualified names are that
/// database's tables, as when it is opened on its own.
pub fn in_schema(mut state: SessionState, schema: &str) -> SessionState {
    state.config_mut().options_mut().catalog.default_schema = schema.to_string();
    state
}

/// The query plan of the view defined by `sql` (a `CREATE VIEW` statement).
pub async fn plan_view(state: &SessionState, name: &str, sql: &str) -> DFResult<LogicalPlan> {
    let broken = |e: String| DataFusionError::Plan(format!("view '{name}' cannot be read: {e}"));
    let mut statements = crate::frontend::parse::parse(sql).map_err(|e| broken(e.to_string()))?;
    let (Some(statement), true) = (statements.pop(), statements.is_empty()) else {
        return Err(broken("its definition is not one statement".into()));
    };
    match state.statement_to_plan(statement).await.map_err(|e| broken(Error::from(e).to_string()))? {
        LogicalPlan::Ddl(DdlStatement::CreateView(create)) => Ok(Arc::unwrap_or_clone(create.input)),
        _ => Err(broken("its definition is not CREATE VIEW".into())),
    }
}
