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
//!   changes (`Connection::session`);
//! - nothing is attached (attached databases and snapshots have tables of
//!   their own, which the key does not cover).
//!
//! Plans that call a function that is not immutable (`now()`, `random()`)
//! are never kept, nor plans with an operator `sql::optimizer::plan_renewal` cannot renew.
//! What is kept, and how it runs again:
//! - a plain read (order-keeping single-input operators over a scan, see
//!   `reads_in_storage_order`) as it was planned: it publishes no runtime
//!   filter, and each run takes a renewed copy (fresh metrics);
//! - constants over no table (`computes_constants`: `SELECT 1`, which
//!   drivers and connection pools send to check a connection) as planned,
//!   and their rows, kept the first time the plan runs again: later runs
//!   hand them out on the calling thread (`Session::execute`), without the
//!   runtime, after the same checks as any kept plan (the catalog may have
//!   changed: views and macros are in it). Rows of
//!   literals and immutable functions are the same at each run of the
//!   same plan (settings that type literals are set by statements that
//!   empty the cache);
//! - any other query as it was before runtime filters were pushed down; each
//!   run takes a renewed copy through the optimizer rules after that point
//!   (see `sql::optimizer::plan_renewal`). The operators of the plan made again are compared
//!   with those of the plan made the first time; a difference (not expected)
//!   drops the kept plan and the query is planned anew.
//!
//! A kept plan is used only if the newest version's tables are the ones it
//! maps: it begins a transaction of its own (or uses the open one) to read
//! them, unless the connection's tables are already those of the newest
//! version, as its last transaction began from it (then one read of the
//! commit log tells). Either way the plan runs on the segments it mapped,
//! which stay readable while mapped even if a newer version drops them;
//! nothing here creates, deletes or locks a file.

use crate::frontend::output_names::OutputNames;
use crate::optimizer::plan_renewal::{KeptPlan, PlanBeforeRuntimeFilters, RuntimeRules};
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
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use swingdb_storage::error::Result;
use swingdb_storage::{same_tables, TableMeta};

/// Most plans kept per connection; past it the cache starts over.
pub(crate) const MAX_PLANS: usize = 64;

/// Largest rows of a constant query kept with its plan (see
/// [`CachedPlan::answer`]): larger ones (`SELECT repeat('x', 100000000)`)
/// are computed again at each run, so that a connection's kept answers stay
/// small whatever a client sends.
pub(crate) const MAX_KEPT_ANSWER: usize = 64 << 10;

/// A kept physical plan, what it was made from, and how it runs again.
pub(crate) struct CachedPlan {
    pub(super) tables: BTreeMap<String, Arc<TableMeta>>,
    pub(super) kept: Kept,
    pub(super) task_ctx: Arc<TaskContext>,
    pub(super) names: OutputNames,
    /// For a plan with state that renewal resets for every run at once (see
    /// `sql::optimizer::plan_renewal::renewal_resets_shared_state`): held by every result
    /// stream of the plan until it ends, and the plan is renewed only when no
    /// earlier run can still read that state.
    pub(super) runs: Option<Arc<()>>,
    /// The rows of a plan that reads no table (`computes_constants`), once
    /// it has run from the cache, if at most [`MAX_KEPT_ANSWER`] bytes: the
    /// same every run, so handed out again without running anything (see
    /// `Executor::kept_answer`).
    pub(super) answer: Option<OnceLock<RecordBatch>>,
}

/// The plan kept of a query (see the module's doc).
pub(crate) enum Kept {
    /// A plain read or a computation over no table, as planned (renewed).
    Read(Arc<dyn ExecutionPlan>),
    /// Any other query, as it was before runtime filters were pushed down
    /// (renewed), with the operators of the plan that ran the first time.
    BeforeRuntimeFilters { plan: Arc<dyn ExecutionPlan>, operators: Vec<String> },
}

impl CachedPlan {
    /// Whether `tables` are the very tables this plan was made from.
    pub(crate) fn made_from(&self, tables: &BTreeMap<String, Arc<TableMeta>>) -> bool {
        same_tables(&self.tables, tables)
    }
}

/// The kept plans of one connection, by SQL text.
pub(crate) struct PlanCache {
    pub(super) plans: HashMap<String, Arc<CachedPlan>>,
    /// Statements answered from a kept plan so far.
    pub(super) uses: u64,
    /// Where the session's optimizer leaves the plan of a query to keep.
    pub(super) before_runtime_filters: Arc<PlanBeforeRuntimeFilters>,
    /// The optimizer rules a kept plan goes through again at each run.
    pub(super) runtime_rules: RuntimeRules,
}

impl PlanCache {
    /// An empty cache for the queries of `ctx`.
    pub(crate) fn new(ctx: &SessionContext) -> Self {
        let state = ctx.state_ref();
        let state = state.read();
        Self {
            plans: HashMap::new(),
            uses: 0,
            before_runtime_filters: state
                .config_options()
                .extensions
                .get::<KeptPlan>()
                .map(|kept| kept.0.clone())
                .unwrap_or_default(),
            runtime_rules: RuntimeRules::after_kept_point(state.physical_optimizers()),
        }
    }

    /// Forgets every plan.
    pub(crate) fn clear(&mut self) {
        self.plans.clear();
    }

    /// Forgets the plans not made from `tables` (a new transaction's): a kept
    /// plan holds the segments it maps, and those of versions gone by must
    /// not stay mapped (their space on disk would not be freed).
    pub(crate) fn keep_made_from(&mut self, tables: &BTreeMap<String, Arc<TableMeta>>) {
        self.plans.retain(|_, plan| plan.made_from(tables));
    }
}

/// Whether `statement` is a query (a SELECT, VALUES, a set operation, ...).
pub(crate) fn is_query(statement: &DFStatement) -> bool {
    matches!(statement, DFStatement::Statement(s) if matches!(s.as_ref(), SqlStatement::Query(_)))
}

/// Whether `plan` computes the same rows each time it runs on the same
/// tables: it calls no function that is not immutable (`now()` and
/// `current_date` are folded into constants when the plan is made, `random()`
/// and Python functions with side effects must run anew).
pub(crate) fn same_every_run(plan: &LogicalPlan) -> bool {
    let changing =
        |e: &Expr| matches!(e, Expr::ScalarFunction(f) if f.func.signature().volatility != Volatility::Immutable);
    let found =
        plan.exists(|node| Ok(node.expressions().iter().any(|e| e.exists(|e| Ok(changing(e))).unwrap_or(true))));
    !found.unwrap_or(true)
}

/// The partitions of `plan` one after the other: storage order.
pub(crate) fn stream_in_order(
    plan: Arc<dyn ExecutionPlan>,
    task_ctx: Arc<TaskContext>,
) -> Result<SendableRecordBatchStream> {
    let schema = plan.schema();
    let streams = execute_stream_partitioned(plan, task_ctx)?;
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(streams).flatten())))
}

/// `stream`, holding `run` (a kept plan's [`CachedPlan::runs`]) until it
/// ends or is dropped.
pub(crate) fn while_running(stream: SendableRecordBatchStream, run: Arc<()>) -> SendableRecordBatchStream {
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
