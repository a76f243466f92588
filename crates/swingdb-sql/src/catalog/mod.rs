//! The catalog DataFusion sees: the tables of one connection's current
//! (transaction-local) state, as `SegmentTable`s, in schema `main`; the
//! databases attached in SQL (`ATTACH 'path' AS o`), each a schema holding the
//! tables of its own transaction-local state; and the snapshots attached in
//! SQL as read-only schemas beside them.

pub mod checks;
pub mod identity;
pub mod key_lookup;
pub mod narrow_comparison;
mod pinned;
pub mod prefilter;
mod segment_stats;
pub mod source;
pub mod table;
mod taken_rows;
pub mod views;

use crate::catalog::table::SegmentTable;
use crate::catalog::views::{check_acyclic, in_schema, plan_view, SessionHandle};
use async_trait::async_trait;
use datafusion::catalog::{CatalogProvider, SchemaProvider};
use datafusion::common::DFSchema;
use datafusion::datasource::TableProvider;
use datafusion::datasource::ViewTable;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::{Expr, ExprSchemable};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::{SegmentStore, TableMeta};

/// Name of the catalog swingdb registers with DataFusion.
pub const CATALOG: &str = "swingdb";
/// Name of the one schema inside it.
pub const SCHEMA: &str = "main";
/// Name of a connection's schema of temporary tables and views (see `engine::temp`).
pub const TEMP: &str = "temp";

/// The tables a connection currently sees, by name. Shared between the
/// connection (which changes it statement by statement) and DataFusion.
pub type Tables = Arc<Mutex<BTreeMap<String, Arc<TableMeta>>>>;

/// Data registered on a connection under a name (DataFrames, Arrow tables):
/// queryable like tables, never stored. Shadows a stored table of the same name.
pub type Registered = Arc<Mutex<BTreeMap<String, Arc<dyn TableProvider>>>>;

/// Snapshots attached in SQL (`ATTACH SNAPSHOT 'name' AS alias`), by alias:
/// shared by every connection of a database. Each schema keeps its private
/// database (and so its files) alive until it is detached.
pub type Attached = Arc<Mutex<BTreeMap<String, Arc<TablesSchema>>>>;

/// The databases one connection works on, by schema name: its own (`main`)
/// and each database attached with `ATTACH 'path' AS alias`. Shared by the
/// connection and the connections it keeps on the attached databases, so
/// that a statement run by any of them reads every database in the state of
/// the one transaction they take part in.
pub type Databases = Arc<Mutex<BTreeMap<String, Arc<TablesSchema>>>>;

/// swingdb's catalog: the connection's databases (`main` and the attached
/// ones) and the attached snapshots.
#[derive(Debug)]
pub struct SwingCatalog {
    databases: Databases,
    snapshots: Attached,
}

impl SwingCatalog {
    /// A catalog of `databases` and `snapshots`.
    pub fn new(databases: Databases, snapshots: Attached) -> Self {
        Self { databases, snapshots }
    }
}

impl CatalogProvider for SwingCatalog {
    fn schema_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.databases.lock().keys().cloned().collect();
        names.extend(self.snapshots.lock().keys().cloned());
        names
    }

    fn schema(&self, name: &str) -> Option<Arc<dyn SchemaProvider>> {
        if let Some(database) = self.databases.lock().get(name) {
            return Some(database.clone());
        }
        self.snapshots.lock().get(name).map(|s| s.clone() as Arc<dyn SchemaProvider>)
    }
}

/// DataFusion schema provider over a connection's [`Tables`] (and views) and
/// [`Registered`] data.
pub struct TablesSchema {
    /// The schema name this provider is known by (`main`, or an attached database's alias).
    name: String,
    tables: Tables,
    registered: Registered,
    store: Arc<SegmentStore>,
    urls: bool,
    session: SessionHandle,
}

impl std::fmt::Debug for TablesSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TablesSchema").field("tables", &self.tables).field("urls", &self.urls).finish_non_exhaustive()
    }
}

impl TablesSchema {
    /// A provider over `tables` and `registered`, mapping segments through
    /// `store`; with `urls`, names that are URLs (`'db://NAME'`) are tables too.
    /// `name` is its schema's name: the views it holds read unqualified names
    /// from it.
    pub fn new(name: &str, tables: Tables, registered: Registered, store: Arc<SegmentStore>, urls: bool) -> Self {
        Self { name: name.to_string(), tables, registered, store, urls, session: SessionHandle::default() }
    }

    /// Lets views be planned: `session` returns the owning session's state
    /// (None once it is gone). Set once, right after the session is built.
    pub fn set_session(&self, session: Box<dyn Fn() -> Option<SessionState> + Send + Sync>) {
        let _ = self.session.set(session);
    }

    /// The DEFAULT expressions of a table, planned from their SQL text, and
    /// those numbering its identity columns, each in its column's type (as
    /// DataFusion casts an inserted value).
    fn defaults(&self, meta: &TableMeta) -> DFResult<HashMap<String, Expr>> {
        let empty = DFSchema::empty();
        let typed = |column: &str, expr: Expr| match meta.schema.field_with_name(column) {
            Ok(field) => expr.cast_to(field.data_type(), &empty),
            Err(_) => Ok(expr),
        };
        let mut defaults = HashMap::new();
        for column in meta.constraints.identity.keys() {
            defaults.insert(column.clone(), typed(column, crate::catalog::identity::default_expr(meta, column))?);
        }
        if meta.constraints.defaults.is_empty() {
            return Ok(defaults);
        }
        let Some(state) = self.session.get().and_then(|session| session()) else { return Ok(defaults) };
        for (column, sql) in &meta.constraints.defaults {
            defaults.insert(column.clone(), typed(column, state.create_logical_expr(sql, &empty)?)?);
        }
        Ok(defaults)
    }

    /// The provider of view `name` defined by `sql`: its plan, made now.
    async fn view(&self, name: &str, sql: &str) -> DFResult<Arc<dyn TableProvider>> {
        let tables = self.tables.lock().clone();
        check_acyclic(name, &tables)?;
        let Some(state) = self.session.get().and_then(|session| session()) else {
            return Err(DataFusionError::NotImplemented(format!(
                "view '{name}' belongs to an attached snapshot, whose views cannot be read yet; read its tables"
            )));
        };
        let plan = plan_view(&in_schema(state, &self.name), name, sql).await?;
        Ok(Arc::new(ViewTable::new(plan, Some(sql.to_string()))))
    }

    /// A provider of the fixed `tables` (an attached snapshot's), read through `store`.
    pub fn fixed(name: &str, tables: BTreeMap<String, Arc<TableMeta>>, store: Arc<SegmentStore>) -> Self {
        Self::new(name, Arc::new(Mutex::new(tables)), Registered::default(), store, false)
    }
}

#[async_trait]
impl SchemaProvider for TablesSchema {
    fn table_names(&self) -> Vec<String> {
        let tables = self.tables.lock();
        let mut names: Vec<String> = tables.iter().filter(|(_, m)| m.is_relation()).map(|(n, _)| n.clone()).collect();
        drop(tables);
        names.extend(self.registered.lock().keys().filter(|n| !names.contains(n)).cloned().collect::<Vec<_>>());
        names
    }

    async fn table(&self, name: &str) -> DFResult<Option<Arc<dyn TableProvider>>> {
        if let Some(provider) = self.registered.lock().get(name) {
            return Ok(Some(provider.clone()));
        }
        if self.urls && crate::functions::remote::is_url(name) {
            if crate::functions::remote::url_tables_withheld() {
                return Ok(None);
            }
            return Ok(Some(crate::functions::remote::url_table(name).await?));
        }
        let meta = self.tables.lock().get(name).cloned();
        match meta {
            Some(meta) if meta.is_table() => {
                let defaults = self.defaults(&meta)?;
                Ok(Some(Arc::new(SegmentTable::new(meta, self.store.clone()).with_defaults(defaults))))
            }
            // A macro or sequence is no table: "not found", which the
            // connection explains.
            Some(meta) => match meta.view_sql() {
                Some(sql) => Ok(Some(self.view(name, sql).await?)),
                None => Ok(None),
            },
            None => Ok(None),
        }
    }

    fn table_exist(&self, name: &str) -> bool {
        self.registered.lock().contains_key(name) || self.tables.lock().get(name).is_some_and(|m| m.is_relation())
    }

    fn register_table(&self, name: String, _table: Arc<dyn TableProvider>) -> DFResult<Option<Arc<dyn TableProvider>>> {
        Err(DataFusionError::NotImplemented(format!("cannot register '{name}' as a stored table; use CREATE TABLE")))
    }

    fn deregister_table(&self, name: &str) -> DFResult<Option<Arc<dyn TableProvider>>> {
        Err(DataFusionError::NotImplemented(format!("cannot deregister '{name}'; use DROP TABLE")))
    }
}
