//! A sort over a LIMIT of rows already sorted that way is dropped before
//! physical planning. `SELECT * FROM (SELECT * FROM t ORDER BY id DESC LIMIT 3
//! OFFSET 5) ORDER BY id DESC` returned no row: DataFusion's physical sort
//! enforcement removed the outer sort as satisfied and, doing so, gave the
//! inner top-k the LIMIT's count (3) instead of count + offset (8), and the
//! offset then skipped everything. The outer sort changes nothing (the limited
//! rows are in its order already), so this logical rule removes it first
//! (looking through table aliases, which only requalify the columns),
//! keeping its own fetch as a LIMIT, and the broken path is never taken.
//! Relations build exactly this shape (`order().limit(n, offset).order()`).

use datafusion::common::tree_node::Transformed;
use datafusion::common::Result;
use datafusion::logical_expr::{Expr, Limit, LogicalPlan, LogicalPlanBuilder, Sort, SortExpr};
use datafusion::optimizer::{ApplyOrder, OptimizerConfig, OptimizerRule};

/// The logical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub struct SortOverSortedLimit;

impl OptimizerRule for SortOverSortedLimit {
    fn name(&self) -> &str {
        "sort_over_sorted_limit"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::TopDown)
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(&self, plan: LogicalPlan, _config: &dyn OptimizerConfig) -> Result<Transformed<LogicalPlan>> {
        let LogicalPlan::Sort(Sort { expr, input, fetch }) = &plan else { return Ok(Transformed::no(plan)) };
        let LogicalPlan::Limit(Limit { input: limited, .. }) = aliased(input) else { return Ok(Transformed::no(plan)) };
        let LogicalPlan::Sort(inner) = aliased(limited) else { return Ok(Transformed::no(plan)) };
        // The outer order must be the inner one or a prefix of it.
        if expr.len() > inner.expr.len() || expr.iter().zip(&inner.expr).any(|(a, b)| !same_key(a, b)) {
            return Ok(Transformed::no(plan));
        }
        let kept = input.as_ref().clone();
        Ok(Transformed::yes(match fetch {
            Some(n) => LogicalPlanBuilder::from(kept).limit(0, Some(*n))?.build()?,
            None => kept,
        }))
    }
}

/// `plan` under any table aliases (`(...) AS s`), which rename no column.
fn aliased(plan: &LogicalPlan) -> &LogicalPlan {
    match plan {
        LogicalPlan::SubqueryAlias(alias) => aliased(&alias.input),
        other => other,
    }
}

/// Whether two sort keys order alike: the same direction and NULL placement,
/// and the same expression, columns compared by name (an alias between them
/// changes only the qualifier: `s.id` is `t.id`).
fn same_key(outer: &SortExpr, inner: &SortExpr) -> bool {
    let same_expr = match (&outer.expr, &inner.expr) {
        (Expr::Column(a), Expr::Column(b)) => a.name == b.name,
        (a, b) => a == b,
    };
    same_expr && outer.asc == inner.asc && outer.nulls_first == inner.nulls_first
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::logical_expr::{col, table_scan};

    fn sorted_limit(outer: Vec<datafusion::logical_expr::SortExpr>, fetch: Option<usize>) -> LogicalPlan {
        let schema = Schema::new(vec![Field::new("a", DataType::Int64, true), Field::new("b", DataType::Int64, true)]);
        let scan = table_scan(Some("t"), &schema, None).unwrap().build().unwrap();
        let inner =
            LogicalPlanBuilder::from(scan).sort(vec![col("a").sort(false, true), col("b").sort(true, true)]).unwrap();
        // As SQL plans it: the limited rows under an alias, the outer keys qualified by it.
        let limited = inner.limit(5, Some(3)).unwrap().alias("s").unwrap();
        limited.sort_with_limit(outer, fetch).unwrap().build().unwrap()
    }

    fn rewritten(plan: LogicalPlan) -> Transformed<LogicalPlan> {
        let config = datafusion::optimizer::OptimizerContext::new();
        SortOverSortedLimit.rewrite(plan, &config).unwrap()
    }

    #[test]
    fn a_sort_already_done_under_the_limit_is_dropped_keeping_its_fetch() {
        let done = rewritten(sorted_limit(vec![col("s.a").sort(false, true)], None));
        assert!(done.transformed);
        assert!(matches!(aliased(&done.data), LogicalPlan::Limit(_)), "{}", done.data);
        let fetched = rewritten(sorted_limit(vec![col("s.a").sort(false, true), col("s.b").sort(true, true)], Some(2)));
        let LogicalPlan::Limit(limit) = fetched.data else { panic!("the outer fetch is kept as a limit") };
        assert!(matches!(aliased(&limit.input), LogicalPlan::Limit(_)));
    }

    #[test]
    fn another_order_stays() {
        assert!(!rewritten(sorted_limit(vec![col("s.a").sort(true, true)], None)).transformed);
        assert!(!rewritten(sorted_limit(vec![col("s.b").sort(true, true)], None)).transformed);
    }
}
