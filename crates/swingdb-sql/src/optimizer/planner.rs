//! The physical planner of swingdb's sessions: DataFusion's, with the
//! operators of swingdb's own logical nodes.

use crate::optimizer::estimate_barrier::{may_be_estimate_failure, without_estimates};
use crate::optimizer::join_order::order_joins;
use crate::optimizer::rules::is_enabled;
use crate::optimizer::shared_subplans::{share_repeated, SharedPlanner};
use crate::optimizer::subquery::PerKeySubqueryPlanner;
use crate::optimizer::unique_key_join::key_joins_on_unique_columns;
use datafusion::common::Result;
use datafusion::execution::context::QueryPlanner;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_planner::{DefaultPhysicalPlanner, PhysicalPlanner};
use std::sync::Arc;

/// DataFusion's physical planner, plus per-key subqueries
/// (`sql::optimizer::subquery`); before it plans, the optimized logical plan gets three
/// rewrites DataFusion's optimizer would undo or not see: inner joins in the
/// order estimated cheapest (`sql::optimizer::join_order`), joins keyed on one side's
/// unique columns only (`sql::optimizer::unique_key_join`), and subplans used more than
/// once computed once (`sql::optimizer::shared_subplans`). Each can be switched off (see
/// `sql::optimizer::rules`).
#[derive(Debug, Default)]
pub struct SwingQueryPlanner;

#[async_trait::async_trait]
impl QueryPlanner for SwingQueryPlanner {
    async fn create_physical_plan(
        &self,
        plan: &LogicalPlan,
        session: &dyn datafusion::catalog::Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let config = session.config_options();
        let mut plan = plan.clone();
        if is_enabled(config, "join_order") {
            plan = order_joins(plan, session).await?;
        }
        if is_enabled(config, "unique_key_join") {
            plan = key_joins_on_unique_columns(plan)?;
        }
        if is_enabled(config, "shared_subplans") {
            plan = share_repeated(plan)?;
        }
        let planner = DefaultPhysicalPlanner::with_extension_planners(vec![
            Arc::new(PerKeySubqueryPlanner),
            Arc::new(SharedPlanner),
        ]);
        match planner.create_physical_plan(&plan, session).await {
            // DataFusion's estimate of a filter may have broken; see `optimizer::estimate_barrier`.
            Err(e) if may_be_estimate_failure(&e) => {
                planner.create_physical_plan(&without_estimates(plan)?, session).await.map_err(|_| e)
            }
            planned => planned,
        }
    }
}
