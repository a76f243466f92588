//! Plans of repeated plain reads: a query that is a chain of projections and
//! filters over stored tables (or registered data), run again with the same
//! SQL text, reuses the physical plan made the first time instead of parsing,
//! planning and optimizing again (about half of the ~0.4 ms a small read costs
//! in the engine).
//!
//! A plan is reused only while it is exactly right:
//! - the tables the connection sees now are the very ones it was made from
//!   (every [`TableMeta`] the same object: any commit, ALTER, DROP or CREATE,
//!   by this connection or read from another process's manifest, makes new
//!   ones, and the segments the plan maps are those of these tables);
//! - no statement other than a query ran on the connection since (those may
//!   change settings, functions or views: the cache is emptied), and no data
//!   was registered or unregistered, and the session was not handed out for
//!   changes ([`Connection::session`]);
//! - nothing is attached (attached databases and snapshots have tables of
//!   their own, which the key does not cover).
//!
//! Plans that call a function that is not immutable (`now()`, `random()`)
//! are never kept. Only plans of order-keeping single-input operators over a
//! scan are kept
//! (see `reads_in_storage_order`): they hold no state between runs, so running
//! one again gives what a fresh plan would. Joins, aggregates and sorts keep
//! state in their operators and are planned afresh every time.
//!
//! Cached or not, a read runs in a transaction of its own (or the open one):
//! the version it pins is the newest, and the plan is used only if that
//! version's tables are the ones it maps; nothing here creates, deletes or
//! locks a file.

use super::{reads_in_storage_order, Connection};
use crate::api::result::QueryResult;
use crate::error::Result;
use crate::sql::output_names::{restore_names, OutputNames};
use crate::storage::{same_tables, TableMeta};
use datafusion::common::tree_node::TreeNode;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, LogicalPlan, Volatility};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{execute_stream_partitioned, ExecutionPlan};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement as SqlStatement;
use futures::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Most plans kept per connection; past it the cache starts over.
const MAX_READ_PLANS: usize = 64;

/// A physical plan of a plain read and what it was made from.
pub(super) struct CachedRead {
    tables: BTreeMap<String, Arc<TableMeta>>,
    plan: Arc<dyn ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
    names: OutputNames,
}

impl CachedRead {
    /// Whether `tables` are the very tables this plan was made from.
    fn made_from(&self, tables: &BTreeMap<String, Arc<TableMeta>>) -> bool {
        same_tables(&self.tables, tables)
    }
}

/// The cached plans of one connection, by SQL text.
#[derive(Default)]
pub(super) struct ReadPlans {
    plans: HashMap<String, Arc<CachedRead>>,
    /// Statements answered from a cached plan so far.
    uses: u64,
}

impl ReadPlans {
    /// Forgets every plan.
    pub(super) fn clear(&mut self) {
        self.plans.clear();
    }

    /// Forgets the plans not made from `tables` (a new transaction's): a kept
    /// plan holds the segments it maps, and those of versions gone by must
    /// not stay mapped (their space on disk would not be freed).
    pub(super) fn keep_made_from(&mut self, tables: &BTreeMap<String, Arc<TableMeta>>) {
        self.plans.retain(|_, read| read.made_from(tables));
    }
}

/// Whether `statement` is a query (a SELECT, VALUES, a set operation, ...).
pub(super) fn is_query(statement: &DFStatement) -> bool {
    matches!(statement, DFStatement::Statement(s) if matches!(s.as_ref(), SqlStatement::Query(_)))
}

/// Whether `plan` computes the same rows each time it runs on the same
/// tables: it calls no function that is not immutable (`now()` and
/// `current_date` are folded into constants when the plan is made, `random()`
/// and Python functions with side effects must run anew).
pub(super) fn same_every_run(plan: &LogicalPlan) -> bool {
    let changing = |e: &Expr| matches!(e, Expr::ScalarFunction(f) if f.func.signature().volatility != Volatility::Immutable);
    let found = plan.exists(|node| Ok(node.expressions().iter().any(|e| e.exists(|e| Ok(changing(e))).unwrap_or(true))));
    !found.unwrap_or(true)
}

/// The partitions of `plan` one after the other: storage order.
pub(super) fn stream_in_order(plan: Arc<dyn ExecutionPlan>, task_ctx: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
    let schema = plan.schema();
    let streams = execute_stream_partitioned(plan, task_ctx)?;
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(streams).flatten())))
}

impl Connection {
    /// How many statements of this connection were answered from a plan kept
    /// from an earlier run of the same query (see `read_plans.rs`).
    pub fn cached_plan_uses(&self) -> u64 {
        self.read_plans.lock().unwrap().uses
    }

    /// Whether plans may be cached now (nothing attached; see the module's doc).
    fn read_plans_apply(&self) -> bool {
        self.attached.lock().unwrap().is_empty() && self.core.attached.lock().unwrap().is_empty()
    }

    /// The result of the query `sql` from its cached plan, if there is one
    /// made from the tables this connection sees now.
    pub(super) fn cached_read(&self, sql: &str) -> Result<Option<QueryResult>> {
        let Some(read) = self.read_plans.lock().unwrap().plans.get(sql).cloned() else { return Ok(None) };
        if !self.read_plans_apply() {
            return Ok(None);
        }
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            self.begin(false)?;
        }
        let fresh = read.made_from(&self.tables.lock().unwrap());
        if implicit {
            self.finish(true)?;
        }
        if !fresh {
            self.read_plans.lock().unwrap().plans.remove(sql);
            return Ok(None);
        }
        let stream = restore_names(stream_in_order(read.plan.clone(), read.task_ctx.clone())?, read.names.clone())?;
        self.read_plans.lock().unwrap().uses += 1;
        Ok(Some(QueryResult::streaming(stream)))
    }

    /// Keeps `plan` of the query `sql` (see the module's doc for which plans).
    pub(super) fn remember_read(&self, sql: String, plan: &Arc<dyn ExecutionPlan>, task_ctx: &Arc<TaskContext>, names: &OutputNames) {
        if !reads_in_storage_order(plan) || !self.read_plans_apply() {
            return;
        }
        let read = CachedRead {
            tables: self.tables.lock().unwrap().clone(),
            plan: plan.clone(),
            task_ctx: task_ctx.clone(),
            names: names.clone(),
        };
        let mut cache = self.read_plans.lock().unwrap();
        if cache.plans.len() >= MAX_READ_PLANS {
            cache.clear();
        }
        cache.plans.insert(sql, Arc::new(read));
    }
}
