//! Builds the DataFusion `SessionContext` of a connection: swingdb's catalog as
//! the default, information_schema on, file paths usable as tables, and the
//! `read_*` table functions.

use super::catalog::{Attached, Databases, Registered, SwingCatalog, Tables, TablesSchema, CATALOG};
use super::functions::{FileKind, ReadFile};
use super::overflow::CheckedArithmetic;
use super::subquery::{PlanRefusedSubqueries, PlanRemainingSubqueries, SwingQueryPlanner};
use crate::error::Result;
use crate::storage::SegmentStore;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use std::sync::Arc;

/// Rows per batch inside plans. DataFusion's default (8192) makes a filter that
/// keeps many rows copy them twice (filter, then coalesce into small batches)
/// and hands the client thousands of pieces to join; 32768 cut a 50 % selection
/// of a 1 GB table from 337 to 242 ms and left TPC-H SF1 times unchanged.
const BATCH_SIZE: usize = 32 * 1024;

/// What one connection's session reads: its own tables, the other databases
/// of its family, the attached snapshots.
pub struct ContextParts {
    /// The schema this connection's own tables are known by: `main`, or the
    /// alias its database is attached under.
    pub own: String,
    /// Its own tables (read through `store`).
    pub tables: Tables,
    /// Data registered on it (queryable, never stored).
    pub registered: Registered,
    /// Every database of its family; its own is added under `own`.
    pub databases: Databases,
    /// The snapshots attached to the database (`ATTACH SNAPSHOT`).
    pub snapshots: Attached,
    /// Where its own segments are mapped from.
    pub store: Arc<SegmentStore>,
    /// Whether SQL may read and write files.
    pub external_access: bool,
}

/// A session whose default schema is `main` of `parts.databases`, and whose
/// own tables (and `registered` data) appear under `parts.own`. Without
/// `external_access`, file paths are not tables and the `read_*` functions
/// refuse to run.
pub fn new_context(parts: ContextParts) -> Result<SessionContext> {
    let ContextParts { own, tables, registered, databases, snapshots, store, external_access } = parts;
    let mut config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema(CATALOG, super::catalog::SCHEMA)
        .with_create_default_catalog_and_schema(false)
        .with_batch_size(BATCH_SIZE);
    // Plain Utf8 strings: the type every Arrow consumer (numpy, pandas, older
    // readers) understands without conversion.
    config.options_mut().sql_parser.map_string_types_to_utf8view = false;
    // Errors point at the mistake in the SQL text (see `sql::diagnose`).
    config.options_mut().sql_parser.collect_spans = true;
    // TIMESTAMPTZ / TIMESTAMP WITH TIME ZONE columns keep their zone (UTC
    // instants, as DuckDB stores them), so they reach pandas and polars
    // zone-aware; unset, DataFusion makes them naive timestamps. now() and
    // current_timestamp give UTC instants too.
    config.options_mut().execution.time_zone = Some("UTC".to_string());
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_query_planner(Arc::new(SwingQueryPlanner))
        .build();
    let mut state = state;
    // JSON's -> and ->> before DataFusion's own planners, which refuse them.
    let mut planners = vec![Arc::new(super::json::JsonOperators) as Arc<dyn datafusion::logical_expr::planner::ExprPlanner>];
    planners.extend(state.expr_planners().iter().cloned());
    state = SessionStateBuilder::new_from_existing(state).with_expr_planners(planners).build();
    let ctx = SessionContext::new_with_state(state);
    ctx.add_analyzer_rule(Arc::new(CheckedArithmetic));
    // Last in both lists: they take what DataFusion's own subquery handling refuses.
    ctx.add_analyzer_rule(Arc::new(PlanRefusedSubqueries));
    ctx.add_optimizer_rule(Arc::new(PlanRemainingSubqueries));
    let own_schema = Arc::new(TablesSchema::new(&own, tables, registered, store, external_access));
    databases.lock().unwrap().insert(own, own_schema.clone());
    ctx.register_catalog(CATALOG, Arc::new(SwingCatalog::new(databases, snapshots)));
    for function in super::json::functions() {
        ctx.register_udf(function.as_ref().clone());
    }
    for kind in [FileKind::Csv, FileKind::Parquet, FileKind::Json, FileKind::Arrow] {
        ctx.register_udtf(kind.function_name(), Arc::new(ReadFile::new(kind, external_access)));
    }
    let ctx = if external_access { ctx.enable_url_table() } else { ctx };
    // Views are planned with this (final) session's state.
    let session = ctx.state_weak_ref();
    own_schema.set_session(Box::new(move || session.upgrade().map(|state| state.read().clone())));
    Ok(ctx)
}
