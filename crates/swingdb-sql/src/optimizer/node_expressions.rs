//! Rewriting the expressions of one logical plan node with their types
//! known: what the analyzer rules that replace expressions after type
//! coercion (checked arithmetic, rounding casts, float keys) share.

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::utils::merge_schema;
use datafusion::logical_expr::{Expr, LogicalPlan};

/// The schema `plan`'s expressions are typed against: its inputs' (and, for
/// a scan, its table's).
pub fn input_schema(plan: &LogicalPlan) -> DFResult<DFSchema> {
    let mut schema = merge_schema(&plan.inputs());
    if let LogicalPlan::TableScan(scan) = plan {
        schema.merge(&DFSchema::try_from_qualified_schema(scan.table_name.clone(), &scan.source.schema())?);
    }
    Ok(schema)
}

/// `plan` with `rewrite` applied to every node of each of its expressions,
/// bottom up, every output name kept; its schema recomputed if anything
/// changed.
pub fn rewrite_expressions(
    plan: LogicalPlan,
    rewrite: impl Fn(Expr, &DFSchema) -> DFResult<Transformed<Expr>>,
) -> DFResult<Transformed<LogicalPlan>> {
    let schema = input_schema(&plan)?;
    let names = NamePreserver::new(&plan);
    let rewritten = plan.map_expressions(|expr| {
        let name = names.save(&expr);
        Ok(expr.transform_up(|e| rewrite(e, &schema))?.update_data(|e| name.restore(e)))
    })?;
    if rewritten.transformed {
        rewritten.map_data(|plan| plan.recompute_schema())
    } else {
        Ok(rewritten)
    }
}
