//! The catalog DataFusion sees: the tables of one connection's current
//! (transaction-local) state, as `SegmentTable`s.

use super::table::SegmentTable;
use crate::storage::{SegmentStore, TableMeta};
use async_trait::async_trait;
use datafusion::catalog::SchemaProvider;
use datafusion::datasource::TableProvider;
use datafusion::error::{DataFusionError, Result as DFResult};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Name of the catalog swingdb registers with DataFusion.
pub const CATALOG: &str = "swingdb";
/// Name of the one schema inside it.
pub const SCHEMA: &str = "main";

/// The tables a connection currently sees, by name. Shared between the
/// connection (which changes it statement by statement) and DataFusion.
pub type Tables = Arc<Mutex<BTreeMap<String, Arc<TableMeta>>>>;

/// DataFusion schema provider over a connection's [`Tables`].
#[derive(Debug)]
pub struct TablesSchema {
    tables: Tables,
    store: Arc<SegmentStore>,
}

impl TablesSchema {
    /// A provider over `tables`, mapping segments through `store`.
    pub fn new(tables: Tables, store: Arc<SegmentStore>) -> Self {
        Self { tables, store }
    }
}

#[async_trait]
impl SchemaProvider for TablesSchema {
    fn table_names(&self) -> Vec<String> {
        self.tables.lock().unwrap().keys().cloned().collect()
    }

    async fn table(&self, name: &str) -> DFResult<Option<Arc<dyn TableProvider>>> {
        let meta = self.tables.lock().unwrap().get(name).cloned();
        Ok(meta.map(|m| Arc::new(SegmentTable::new(m, self.store.clone())) as Arc<dyn TableProvider>))
    }

    fn table_exist(&self, name: &str) -> bool {
        self.tables.lock().unwrap().contains_key(name)
    }

    fn register_table(&self, name: String, _table: Arc<dyn TableProvider>) -> DFResult<Option<Arc<dyn TableProvider>>> {
        Err(DataFusionError::NotImplemented(format!(
            "cannot register '{name}' as a stored table; use CREATE TABLE"
        )))
    }

    fn deregister_table(&self, name: &str) -> DFResult<Option<Arc<dyn TableProvider>>> {
        Err(DataFusionError::NotImplemented(format!("cannot deregister '{name}'; use DROP TABLE")))
    }
}
