//! Physical plans made to run again: what lets a repeated query skip parsing,
//! planning and optimizing (see `sql/statements/plan_cache.rs` for when a
//! plan may be reused at all).
//!
//! A DataFusion plan cannot simply be executed twice. Its operators keep the
//! state of the run they took part in: a hash join keeps its built table, a
//! repartition its channels, every operator its metrics; and some publish
//! runtime filters ("dynamic filters": a hash join's keys, a top-k sort's
//! threshold, a `min`/`max`'s bound) that DataFusion's last filter pushdown
//! hands to the scans below, where a filter left from an earlier run would
//! drop rows the new run needs (a `min(x)` would look for values below the
//! minimum it found last time).
//!
//! So the plan kept is the one the physical optimizer had *before* it pushed
//! runtime filters down ([`KeepPlanBeforeRuntimeFilters`], a rule placed just
//! before `FilterPushdown(Post)`): no operator there holds another's runtime
//! filter. Each reuse takes [`renewed`]: every operator made anew from its
//! (renewed) inputs with the properties already computed, which gives fresh
//! metrics, fresh join tables and channels, and fresh runtime filters in
//! their producers; then the rules after the kept point ([`RuntimeRules`]:
//! the pushdown, the sanity check, swingdb's runtime-filter placement and
//! its operators chosen on the final plan) run again, as they did the first
//! time. Only operators whose renewal is known to reset all their state are
//! accepted ([`renewable`]); a plan with any other is planned anew each time.

use crate::catalog::source::SegmentSource;
use crate::optimizer::runtime_filter::is_runtime_filter;
use crate::optimizer::shared_subplans::{SharedExec, SharedRows};
use datafusion::common::config::{ConfigEntry, ConfigExtension, ConfigOptions, ExtensionOptions};
use datafusion::common::config_err;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result;
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_expr::expressions::{lit, DynamicFilterPhysicalExpr};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::aggregates::AggregateExec;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::windows::BoundedWindowAggExec;
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::Mutex;
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

/// Where [`KeepPlanBeforeRuntimeFilters`] leaves the plan it sees, while
/// asked to ([`PlanBeforeRuntimeFilters::arm`]): only the plans of queries
/// that may be reused are kept, and none stays after it was taken (a plan
/// holds the segments it reads).
#[derive(Debug, Default)]
pub struct PlanBeforeRuntimeFilters(Mutex<Option<Option<Arc<dyn ExecutionPlan>>>>);

impl PlanBeforeRuntimeFilters {
    /// Keeps the plans seen from now until [`Self::take`] (the last one seen:
    /// a query's own plan is optimized after those of its parts).
    pub fn arm(&self) {
        *self.0.lock() = Some(None);
    }

    /// The plan kept since [`Self::arm`], if any; keeps no more.
    pub fn take(&self) -> Option<Arc<dyn ExecutionPlan>> {
        self.0.lock().take().flatten()
    }

    fn keep(&self, plan: &Arc<dyn ExecutionPlan>) {
        if let Some(kept) = self.0.lock().as_mut() {
            *kept = Some(plan.clone());
        }
    }
}

/// A session's [`PlanBeforeRuntimeFilters`], among its options (where
/// [`KeepPlanBeforeRuntimeFilters`] finds it): every session shares the
/// process's rules (see `sql::session`), each has its own place for a plan.
/// Not a setting: `SET` refuses it and `SHOW ALL` does not list it.
#[derive(Debug, Clone, Default)]
pub struct KeptPlan(pub Arc<PlanBeforeRuntimeFilters>);

impl ConfigExtension for KeptPlan {
    const PREFIX: &'static str = "swingdb_kept_plan";
}

impl ExtensionOptions for KeptPlan {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn cloned(&self) -> Box<dyn ExtensionOptions> {
        Box::new(self.clone())
    }

    fn set(&mut self, key: &str, _value: &str) -> Result<()> {
        config_err!("{key} is not a setting")
    }

    fn entries(&self) -> Vec<ConfigEntry> {
        Vec::new()
    }
}

/// A physical optimizer rule that changes nothing and keeps the plan it is
/// given in the session's [`KeptPlan`]; see the module's doc.
#[derive(Debug)]
pub struct KeepPlanBeforeRuntimeFilters;

/// The name of DataFusion's rule that pushes runtime filters down.
const RUNTIME_FILTER_PUSHDOWN: &str = "FilterPushdown(Post)";

/// The name of [`KeepPlanBeforeRuntimeFilters`].
const KEEP_RULE: &str = "keep_plan_before_runtime_filters";

impl KeepPlanBeforeRuntimeFilters {
    /// `rules` with this rule placed just before DataFusion's pushdown of
    /// runtime filters (or last, if there is none).
    pub fn placed_in(rules: &mut Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>) {
        let at = rules.iter().position(|r| r.name() == RUNTIME_FILTER_PUSHDOWN).unwrap_or(rules.len());
        rules.insert(at, Arc::new(Self));
    }
}

impl PhysicalOptimizerRule for KeepPlanBeforeRuntimeFilters {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(kept) = config.extensions.get::<KeptPlan>() {
            kept.0.keep(&plan);
        }
        Ok(plan)
    }

    fn name(&self) -> &str {
        KEEP_RULE
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// The physical optimizer rules that come after [`KeepPlanBeforeRuntimeFilters`]:
/// what a kept plan goes through again each time it is reused.
#[derive(Debug, Clone, Default)]
pub struct RuntimeRules(Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>);

impl RuntimeRules {
    /// The rules of `rules` after the keeping rule (none if it is not there).
    pub fn after_kept_point(rules: &[Arc<dyn PhysicalOptimizerRule + Send + Sync>]) -> Self {
        let after = rules.iter().position(|r| r.name() == KEEP_RULE).map_or(rules.len(), |i| i + 1);
        Self(rules[after..].to_vec())
    }

    /// `plan` (a kept plan, [`renewed`]) through the rules, ready to run.
    pub fn apply(&self, mut plan: Arc<dyn ExecutionPlan>, config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        for rule in &self.0 {
            plan = rule.optimize(plan, config)?;
        }
        Ok(plan)
    }
}

/// Whether every operator of `plan` is one [`renewed`] resets completely,
/// and no operator holds a runtime filter published by another (true of a
/// plan kept before runtime filters are pushed down; checked, not assumed).
///
/// Scans qualify when they read stored segments or registered in-memory
/// data (a plan reading files would not see them change). Not accepted:
/// swingdb's per-key subqueries (they plan their subquery while running),
/// recursive queries, windows with a state observer, and anything not
/// listed.
///
/// One piece of state outlives renewal: see [`renewal_resets_shared_state`].
pub fn renewable(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let node = plan.as_ref();
    let accepted = match node.name() {
        "ProjectionExec"
        | "FilterExec"
        | "CoalesceBatchesExec"
        | "CoalescePartitionsExec"
        | "RepartitionExec"
        | "SortExec"
        | "SortExec(TopK)"
        | "SortPreservingMergeExec"
        | "AggregateExec"
        | "HashJoinExec"
        | "GraceHashJoinExec"
        | "CrossJoinExec"
        | "NestedLoopJoinExec"
        | "GlobalLimitExec"
        | "LocalLimitExec"
        | "UnionExec"
        | "InterleaveExec"
        | "EmptyExec"
        | "PlaceholderRowExec"
        | "WindowAggExec"
        | "CooperativeExec"
        | "SharedExec"
        | "ScalarSubqueryExec"
        | "SingleRow" => true,
        "BoundedWindowAggExec" => {
            node.downcast_ref::<BoundedWindowAggExec>().is_some_and(|w| w.state_observer().is_none())
        }
        "DataSourceExec" => node.downcast_ref::<DataSourceExec>().is_some_and(|scan| {
            let source = scan.data_source();
            match source.downcast_ref::<SegmentSource>() {
                Some(segments) => !segments.has_runtime_filters(),
                None => source.downcast_ref::<MemorySourceConfig>().is_some(),
            }
        }),
        _ => false,
    };
    accepted && !holds_runtime_filter(node) && plan.children().into_iter().all(renewable)
}

/// Whether renewing `plan` resets state that every copy of it shares, so a
/// copy must not be renewed while an earlier one may still run: DataFusion's
/// `ScalarSubqueryExec` shares the container of its results with the
/// expressions that read them (which only their operators could replace),
/// and renewing it empties that container.
pub fn renewal_resets_shared_state(plan: &Arc<dyn ExecutionPlan>) -> bool {
    plan.name() == "ScalarSubqueryExec" || plan.children().into_iter().any(renewal_resets_shared_state)
}

/// Whether `node` evaluates a runtime filter it did not publish itself.
fn holds_runtime_filter(node: &dyn ExecutionPlan) -> bool {
    if node.name().starts_with("SortExec") || node.name() == "AggregateExec" {
        return false; // their own top-k threshold or bound, renewed with them
    }
    let mut found = false;
    let _ = node.apply_expressions(&mut |expr| {
        found = is_runtime_filter(expr);
        Ok(if found { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
    });
    found
}

/// A copy of `plan` (which must be [`renewable`]) that runs as if it had
/// never run: see the module's doc. Uses of one shared result stay one
/// shared result, computed afresh.
pub fn renewed(plan: &Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    renewed_with(plan, &mut HashMap::new())
}

/// [`renewed`], with the fresh results of shared subplans renewed so far.
fn renewed_with(
    plan: &Arc<dyn ExecutionPlan>,
    shared: &mut HashMap<usize, Arc<SharedRows>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let children = plan.children().into_iter().map(|c| renewed_with(c, shared)).collect::<Result<Vec<_>>>()?;
    if let Some(use_) = plan.downcast_ref::<SharedExec>() {
        return use_.renewed(children, shared);
    }
    // Scans hold no state of a run (their metrics are made per run).
    if children.is_empty() {
        return Ok(plan.clone());
    }
    let node = plan.clone().replace_children(children, ReplaceChildrenOptions::new(ChildrenPropertiesMode::Keep))?;
    // What `replace_children` copies but a run changes: the join tables and
    // top-k thresholds `reset_state` renews, and a min/max's bound.
    let node = node.reset_state()?;
    match node.downcast_ref::<AggregateExec>() {
        Some(aggregate) => with_fresh_bound(aggregate).map(|a| a.unwrap_or(node)),
        None => Ok(node),
    }
}

/// `aggregate` with a new runtime filter in place of the one it publishes
/// (shared by every copy `replace_children` or `reset_state` makes), if it
/// publishes one.
fn with_fresh_bound(aggregate: &AggregateExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    #[allow(deprecated)] // its replacement lists the filter without its type
    let Some(filter) = aggregate.dynamic_filter_expr() else {
        return Ok(None);
    };
    let fresh = DynamicFilterPhysicalExpr::new(filter.children().into_iter().cloned().collect(), lit(true));
    Ok(Some(Arc::new(aggregate.clone().with_dynamic_filter_expr(Arc::new(fresh))?)))
}

/// The operators of `plan` in pre-order, by name: what a reused plan is
/// checked against (the plan made the first time).
pub fn operators(plan: &Arc<dyn ExecutionPlan>) -> Vec<String> {
    let mut names = vec![plan.name().to_string()];
    for child in plan.children() {
        names.extend(operators(child));
    }
    names
}
