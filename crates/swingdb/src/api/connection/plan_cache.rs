//! Plans of repeated queries: a query run again with the same SQL text
//! reuses the physical plan made the first time instead of parsing, planning
//! and optimizing again. That is most of a small read's cost in the engine
//! (about half of ~0.4 ms), and 4-17 ms of each TPC-H query on 2 cores (a
//! third to a half of the short ones).
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
//! are never kept, nor plans with an operator `sql::reuse` cannot renew.
//! What is kept, and how it runs again:
//! - a plain read (order-keeping single-input operators over a scan, see
//!   `reads_in_storage_order`) as it was planned: it publishes no runtime
//!   filter, and each run takes a renewed copy (fresh metrics);
//! - any other query as it was before runtime filters were pushed down; each
//!   run takes a renewed copy through the optimizer rules after that point
//!   (see `sql::reuse`). The operators of the plan made again are compared
//!   with those of the plan made the first time; a difference (not expected)
//!   drops the kept plan and the query is planned anew.
//!
//! Cached or not, a query runs in a transaction of its own (or the open
//! one): the version it pins is the newest, and the plan is used only if
//! that version's tables are the ones it maps; nothing here creates, deletes
//! or locks a file.

use super::{reads_in_storage_order, Connection};
use crate::api::result::QueryResult;
use crate::error::Result;
use crate::sql::output_names::{restore_names, OutputNames};
use crate::sql::reuse::{
    operators, renewable, renewal_resets_shared_state, renewed, PlanBeforeRuntimeFilters, RuntimeRules,
};
use crate::storage::{same_tables, TableMeta};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNode;
use datafusion::common::Result as DfResult;
use datafusion::execution::RecordBatchStream;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{Expr, LogicalPlan, Volatility};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{execute_stream_partitioned, ExecutionPlan};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement as SqlStatement;
use futures::{Stream, StreamExt};
use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Most plans kept per connection; past it the cache starts over.
const MAX_PLANS: usize = 64;

/// A kept physical plan, what it was made from, and how it runs again.
pub(super) struct CachedPlan {
    tables: BTreeMap<String, Arc<TableMeta>>,
    kept: Kept,
    task_ctx: Arc<TaskContext>,
    names: OutputNames,
    /// For a plan with state that renewal resets for every run at once (see
    /// `sql::reuse::renewal_resets_shared_state`): held by every result
    /// stream of the plan until it ends, and the plan is renewed only when no
    /// earlier run can still read that state.
    runs: Option<Arc<()>>,
}

/// The plan kept of a query (see the module's doc).
enum Kept {
    /// A plain read, as planned (renewed).
    Read(Arc<dyn ExecutionPlan>),
    /// Any other query, as it was before runtime filters were pushed down
    /// (renewed), with the operators of the plan that ran the first time.
    BeforeRuntimeFilters { plan: Arc<dyn ExecutionPlan>, operators: Vec<String> },
}

impl CachedPlan {
    /// Whether `tables` are the very tables this plan was made from.
    fn made_from(&self, tables: &BTreeMap<String, Arc<TableMeta>>) -> bool {
        same_tables(&self.tables, tables)
    }
}

/// The kept plans of one connection, by SQL text.
pub(super) struct PlanCache {
    plans: HashMap<String, Arc<CachedPlan>>,
    /// Statements answered from a kept plan so far.
    uses: u64,
    /// Where the session's optimizer leaves the plan of a query to keep.
    before_runtime_filters: Arc<PlanBeforeRuntimeFilters>,
    /// The optimizer rules a kept plan goes through again at each run.
    runtime_rules: RuntimeRules,
}

impl PlanCache {
    /// An empty cache for the queries of `ctx`.
    pub(super) fn new(ctx: &SessionContext) -> Self {
        let state = ctx.state();
        Self {
            plans: HashMap::new(),
            uses: 0,
            before_runtime_filters: state.config().get_extension::<PlanBeforeRuntimeFilters>().unwrap_or_default(),
            runtime_rules: RuntimeRules::after_kept_point(state.physical_optimizers()),
        }
    }

    /// Forgets every plan.
    pub(super) fn clear(&mut self) {
        self.plans.clear();
    }

    /// Forgets the plans not made from `tables` (a new transaction's): a kept
    /// plan holds the segments it maps, and those of versions gone by must
    /// not stay mapped (their space on disk would not be freed).
    pub(super) fn keep_made_from(&mut self, tables: &BTreeMap<String, Arc<TableMeta>>) {
        self.plans.retain(|_, plan| plan.made_from(tables));
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
    let changing =
        |e: &Expr| matches!(e, Expr::ScalarFunction(f) if f.func.signature().volatility != Volatility::Immutable);
    let found =
        plan.exists(|node| Ok(node.expressions().iter().any(|e| e.exists(|e| Ok(changing(e))).unwrap_or(true))));
    !found.unwrap_or(true)
}

/// The partitions of `plan` one after the other: storage order.
pub(super) fn stream_in_order(
    plan: Arc<dyn ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
) -> Result<SendableRecordBatchStream> {
    let schema = plan.schema();
    let streams = execute_stream_partitioned(plan, task_ctx)?;
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(streams).flatten())))
}

impl Connection {
    /// How many statements of this connection were answered from a plan kept
    /// from an earlier run of the same query (see `plan_cache.rs`).
    pub fn cached_plan_uses(&self) -> u64 {
        self.plan_cache.lock().unwrap().uses
    }

    /// Whether plans may be cached now (nothing attached; see the module's doc).
    fn plans_may_be_kept(&self) -> bool {
        self.attached.lock().unwrap().is_empty() && self.core.attached.lock().unwrap().is_empty()
    }

    /// The result of the query `sql` from its kept plan, if there is one
    /// made from the tables this connection sees now.
    pub(super) fn cached_query(&self, sql: &str) -> Result<Option<QueryResult>> {
        let Some(cached) = self.plan_cache.lock().unwrap().plans.get(sql).cloned() else { return Ok(None) };
        if !self.plans_may_be_kept() {
            return Ok(None);
        }
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            self.begin(false)?;
        }
        let fresh = cached.made_from(&self.tables.lock().unwrap());
        if implicit {
            self.finish(true)?;
        }
        let forget = || {
            self.plan_cache.lock().unwrap().plans.remove(sql);
            Ok(None)
        };
        if !fresh {
            return forget();
        }
        if cached.runs.as_ref().is_some_and(|runs| Arc::strong_count(runs) > 1) {
            return Ok(None); // an earlier run is still being read: plan anew
        }
        let task_ctx = cached.task_ctx.clone();
        let stream = match &cached.kept {
            Kept::Read(plan) => stream_in_order(renewed(plan)?, task_ctx)?,
            Kept::BeforeRuntimeFilters { plan, operators: planned } => {
                let rules = self.plan_cache.lock().unwrap().runtime_rules.clone();
                let plan = rules.apply(renewed(plan)?, task_ctx.session_config().options())?;
                if operators(&plan) != *planned {
                    return forget();
                }
                self.stream_physical(plan, task_ctx)?
            }
        };
        self.plan_cache.lock().unwrap().uses += 1;
        let stream = match &cached.runs {
            Some(runs) => while_running(stream, runs.clone()),
            None => stream,
        };
        Ok(Some(QueryResult::streaming(restore_names(stream, cached.names.clone())?)))
    }

    /// Asks the optimizer to keep the plan of the query about to be planned
    /// (see [`Connection::remember_plan`]).
    pub(super) fn keep_next_plan(&self) {
        self.plan_cache.lock().unwrap().before_runtime_filters.arm();
    }

    /// The plan the optimizer kept since [`Connection::keep_next_plan`], if
    /// any; it keeps no more.
    pub(super) fn take_kept_plan(&self) -> Option<Arc<dyn ExecutionPlan>> {
        self.plan_cache.lock().unwrap().before_runtime_filters.take()
    }

    /// Keeps the plan of the query `sql`, which was planned as `physical`
    /// and was `before_runtime_filters` before runtime filters were pushed
    /// down (see the module's doc for which plans are kept). What it answers,
    /// if anything, is to be held by the stream of `physical` until it ends
    /// (see [`while_running`]).
    pub(super) fn remember_plan(
        &self,
        sql: String,
        before_runtime_filters: Option<Arc<dyn ExecutionPlan>>,
        physical: &Arc<dyn ExecutionPlan>,
        task_ctx: &Arc<TaskContext>,
        names: &OutputNames,
    ) -> Option<Arc<()>> {
        if !self.plans_may_be_kept() {
            return None;
        }
        let kept = if reads_in_storage_order(physical) {
            renewable(physical).then(|| renewed(physical).ok().map(Kept::Read)).flatten()
        } else {
            before_runtime_filters.filter(renewable).and_then(|plan| {
                let plan = renewed(&plan).ok()?;
                Some(Kept::BeforeRuntimeFilters { plan, operators: operators(physical) })
            })
        };
        let kept = kept?;
        let runs = match &kept {
            Kept::BeforeRuntimeFilters { plan, .. } if renewal_resets_shared_state(plan) => Some(Arc::new(())),
            _ => None,
        };
        let cached = CachedPlan {
            tables: self.tables.lock().unwrap().clone(),
            kept,
            task_ctx: task_ctx.clone(),
            names: names.clone(),
            runs: runs.clone(),
        };
        let mut cache = self.plan_cache.lock().unwrap();
        if cache.plans.len() >= MAX_PLANS {
            cache.clear();
        }
        cache.plans.insert(sql, Arc::new(cached));
        runs
    }
}

/// `stream`, holding `run` (a kept plan's [`CachedPlan::runs`]) until it
/// ends or is dropped.
pub(super) fn while_running(stream: SendableRecordBatchStream, run: Arc<()>) -> SendableRecordBatchStream {
    Box::pin(WhileRunning { stream, run: Some(run) })
}

/// See [`while_running`].
struct WhileRunning {
    stream: SendableRecordBatchStream,
    run: Option<Arc<()>>,
}

impl Stream for WhileRunning {
    type Item = DfResult<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.stream.poll_next_unpin(cx);
        if let Poll::Ready(None) = polled {
            self.run = None;
        }
        polled
    }
}

impl RecordBatchStream for WhileRunning {
    fn schema(&self) -> SchemaRef {
        self.stream.schema()
    }
}
