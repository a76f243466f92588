//! The optimizer: swingdb's logical and physical rules on top of
//! DataFusion's (each named and switchable, see `rules`), the planner
//! that adds them, the statistics they estimate with, and the renewal of
//! physical plans for repeated queries.

pub mod bag_set_operations;
pub mod conjunction;
pub mod division;
pub mod enum_order;
pub mod enum_values;
pub mod estimate_barrier;
pub mod filter_placement;
pub mod float_equality;
pub mod join_order;
pub mod limit_barrier;
pub mod node_expressions;
pub mod ordered_scan;
pub mod plan_renewal;
pub mod planner;
pub mod range_aggregate;
pub mod rounding_casts;
pub(crate) mod rules;
pub mod runtime_filter;
pub mod selectivity;
pub mod shared_subplans;
pub mod sort_over_limit;
pub mod sorted_range;
pub mod spilling_joins;
pub mod subquery;
pub mod unique_key_join;

use datafusion::logical_expr::Operator;

/// Whether `op` compares its operands and gives a boolean (`=`, `<>`, `<`,
/// `<=`, `>`, `>=`, `IS [NOT] DISTINCT FROM`).
pub(crate) fn is_comparison(op: Operator) -> bool {
    matches!(
        op,
        Operator::Eq
            | Operator::NotEq
            | Operator::Lt
            | Operator::LtEq
            | Operator::Gt
            | Operator::GtEq
            | Operator::IsDistinctFrom
            | Operator::IsNotDistinctFrom
    )
}
