//! A connection's repeated queries answered from the plans it kept (see
//! `plan_cache.rs` for which plans are kept and why that is safe).

use super::plan_cache::{is_query, stream_in_order, while_running, CachedPlan, Kept, MAX_KEPT_ANSWER, MAX_PLANS};
use super::run_plan::{computes_constants, reads_in_storage_order};
use super::{Executor, Output};
use crate::frontend::output_names::{restore_names, OutputNames};
use crate::optimizer::plan_renewal::{operators, renewable, renewal_resets_shared_state, renewed};
use datafusion::arrow::compute::concat_batches;
use datafusion::common::ScalarValue;
use datafusion::execution::TaskContext;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::sql::parser::Statement as DFStatement;
use futures::TryStreamExt;
use std::sync::{Arc, OnceLock};
use swingdb_storage::error::Result;

impl Executor {
    /// How many statements of this connection were answered from a plan kept
    /// from an earlier run of the same query (see `plan_cache.rs`).
    pub fn cached_plan_uses(&self) -> u64 {
        self.plan_cache.lock().uses
    }

    /// Whether plans may be cached now (nothing attached: no database beside
    /// this connection's own, no snapshot; see the module's doc).
    fn plans_may_be_kept(&self) -> bool {
        self.databases.lock().len() <= 1 && self.core.attached.lock().is_empty()
    }

    /// The rows of the constant query `sql` (see `CachedPlan::answer`), if
    /// they were kept and the plan is still right: [`Executor::cached_query`]
    /// for a plan whose rows are kept, which then runs nothing.
    pub fn kept_answer(&self, sql: &str) -> Result<Option<Output>> {
        let kept = self
            .plan_cache
            .lock()
            .plans
            .get(sql)
            .is_some_and(|cached| cached.answer.as_ref().is_some_and(|answer| answer.get().is_some()));
        if !kept {
            return Ok(None);
        }
        self.cached_query(sql)
    }

    /// The result of the query `sql` from its kept plan, if there is one
    /// made from the tables this connection sees now.
    pub fn cached_query(&self, sql: &str) -> Result<Option<Output>> {
        let Some(cached) = self.plan_cache.lock().plans.get(sql).cloned() else { return Ok(None) };
        if !self.plans_may_be_kept() {
            return Ok(None);
        }
        // Nothing is attached, so the connection's own transaction is all of
        // it. Outside one, the tables it would begin from are those it saw
        // last while that version is still the newest and they are unchanged
        // since (no write, no rollback left others): then no transaction
        // (pins, locks, a manifest read) is needed to tell.
        let begin = self.txn.lock().is_none() && !self.saw_newest()?;
        if begin {
            self.begin(false)?;
        }
        let fresh = cached.made_from(&self.tables.lock());
        if begin {
            self.finish(true)?;
        }
        let forget = || {
            self.plan_cache.lock().plans.remove(sql);
            Ok(None)
        };
        if !fresh {
            return forget();
        }
        if cached.runs.as_ref().is_some_and(|runs| Arc::strong_count(runs) > 1) {
            return Ok(None); // an earlier run is still being read: plan anew
        }
        let task_ctx = cached.task_ctx.clone();
        if let (Some(answer), Kept::Read(plan)) = (&cached.answer, &cached.kept) {
            let rows = match answer.get() {
                Some(rows) => rows.clone(),
                None => {
                    let stream = restore_names(stream_in_order(renewed(plan)?, task_ctx)?, cached.names.clone())?;
                    let schema = stream.schema();
                    // Projections and filters of literals: nothing waits on the runtime.
                    let batches: Vec<_> = futures::executor::block_on(stream.try_collect())?;
                    let rows = concat_batches(&schema, &batches)?;
                    if rows.get_array_memory_size() <= MAX_KEPT_ANSWER {
                        answer.get_or_init(|| rows.clone());
                    }
                    rows
                }
            };
            self.plan_cache.lock().uses += 1;
            return Ok(Some(Output::Rows(rows)));
        }
        let stream = match &cached.kept {
            Kept::Read(plan) => stream_in_order(renewed(plan)?, task_ctx)?,
            Kept::BeforeRuntimeFilters { plan, operators: planned } => {
                let rules = self.plan_cache.lock().runtime_rules.clone();
                let plan = rules.apply(renewed(plan)?, task_ctx.session_config().options())?;
                if operators(&plan) != *planned {
                    return forget();
                }
                self.stream_physical(plan, task_ctx)?
            }
        };
        self.plan_cache.lock().uses += 1;
        let stream = match &cached.runs {
            Some(runs) => while_running(stream, runs.clone()),
            None => stream,
        };
        Ok(Some(Output::Stream(restore_names(stream, cached.names.clone())?)))
    }

    /// Whether the tables this connection sees are those of the newest
    /// version, as the last transaction began from it.
    fn saw_newest(&self) -> Result<bool> {
        let Some(begun) = self.begun_from.lock().clone() else { return Ok(false) };
        Ok(self.core.dir().newest_version()? == begun.version
            && swingdb_storage::same_tables(&begun.tables, &self.tables.lock()))
    }

    /// Readies the cache for running `statements` with `params`: other
    /// statements than queries may change settings, functions or views, so
    /// every kept plan is forgotten; whether the plan of the one query may
    /// be kept (see [`Self::remember_as`]).
    pub fn plans_to_keep(&self, statements: &[DFStatement], params: &[ScalarValue]) -> bool {
        if !statements.iter().all(is_query) {
            self.forget_plans();
        }
        params.is_empty() && statements.len() == 1 && is_query(&statements[0])
    }

    /// Names the query about to run `sql` (its whole text), whose plan may
    /// then be kept for its next run; `None` after it ran.
    pub fn remember_as(&self, sql: Option<&str>) {
        *self.remember_as.lock() = sql.map(str::to_string);
    }

    /// Asks the optimizer to keep the plan of the query about to be planned
    /// (see [`Executor::remember_plan`]).
    pub(crate) fn keep_next_plan(&self) {
        self.plan_cache.lock().before_runtime_filters.arm();
    }

    /// The plan the optimizer kept since [`Executor::keep_next_plan`], if
    /// any; it keeps no more.
    pub(crate) fn take_kept_plan(&self) -> Option<Arc<dyn ExecutionPlan>> {
        self.plan_cache.lock().before_runtime_filters.take()
    }

    /// Keeps the plan of the query `sql`, which was planned as `physical`
    /// and was `before_runtime_filters` before runtime filters were pushed
    /// down (see the module's doc for which plans are kept). What it answers,
    /// if anything, is to be held by the stream of `physical` until it ends
    /// (see [`while_running`]).
    pub(crate) fn remember_plan(
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
        let kept = if reads_in_storage_order(physical) || computes_constants(physical) {
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
            tables: self.tables.lock().clone(),
            kept,
            task_ctx: task_ctx.clone(),
            names: names.clone(),
            runs: runs.clone(),
            answer: computes_constants(physical).then(OnceLock::new),
        };
        let mut cache = self.plan_cache.lock();
        if cache.plans.len() >= MAX_PLANS {
            cache.clear();
        }
        cache.plans.insert(sql, Arc::new(cached));
        runs
    }
}
