//! Hash joins whose build side would not fit the memory limit become
//! sort-merge joins. DataFusion 55's hash join holds its whole build side
//! (and a hash table over it) in memory and cannot spill: under
//! `memory_limit` a join of two large tables failed with "the query needs
//! more memory than memory_limit allows". A sort-merge join sorts both sides,
//! and sorts spill to `temp_directory`, so the query completes. Without a
//! limit, or with a build side estimated to fit it, the hash join stays: it
//! is faster. The whole limit and not a part of it: the estimate is before
//! the runtime filters that often shrink a build side, and a sort-merge join
//! is much slower (TPC-H SF10 Q18 under 1.6 GB took 5 s as one with half the
//! limit as the bound, 0.6 s as the hash join, which fits). Null-aware anti
//! joins (`NOT IN` over a column that may be NULL) stay hash joins: the
//! sort-merge join lacks their NULL semantics and would answer wrongly
//! (DataFusion's planner keeps them too).
//!
//! The rule runs right after DataFusion's join selection (which picks the
//! build side) and before distribution and sorting are enforced, which then
//! partition and sort the sort-merge join's inputs.

use crate::memory;
use datafusion::arrow::compute::SortOptions;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::joins::{HashJoinExec, SortMergeJoinExec};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{ExecutionPlan, StatisticsArgs, StatisticsContext};
use std::sync::Arc;

/// Bytes a row of a variable-width column (strings, lists) is guessed to take.
const VARIABLE_WIDTH: usize = 32;

/// Bytes a build-side row costs besides its values: its hash table entry
/// and the hash kept for it.
const ENTRY_BYTES: usize = 24;

/// See the module documentation.
#[derive(Debug)]
pub struct SpillingJoins;

impl PhysicalOptimizerRule for SpillingJoins {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(limit) = memory::memory_limit() else { return Ok(plan) };
        plan.transform_up(|node| {
            let Some(join) = node.downcast_ref::<HashJoinExec>() else { return Ok(Transformed::no(node)) };
            if join.null_aware || join.on.is_empty() || build_bytes(&join.left)? <= limit as f64 {
                return Ok(Transformed::no(node));
            }
            let Ok(merge) = SortMergeJoinExec::try_new(
                join.left.clone(),
                join.right.clone(),
                join.on.clone(),
                join.filter.clone(),
                join.join_type,
                vec![SortOptions::default(); join.on.len()],
                join.null_equality,
            ) else {
                return Ok(Transformed::no(node));
            };
            let merge: Arc<dyn ExecutionPlan> = Arc::new(merge);
            let Some(projection) = &join.projection else { return Ok(Transformed::yes(merge)) };
            let schema = merge.schema();
            let columns = projection.iter().map(|&i| {
                let name = schema.field(i).name();
                (Arc::new(Column::new(name, i)) as _, name.clone())
            });
            Ok(Transformed::yes(Arc::new(ProjectionExec::try_new(columns, merge)?) as _))
        })
        .data()
    }

    fn name(&self) -> &str {
        "spilling_joins"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// The bytes the build side `side` is estimated to hold in a hash join at
/// its peak: its rows (0 when unknown) times its columns' widths, twice, and
/// an entry each. Twice, because DataFusion 55's hash join copies its build
/// batches into one (`concat_batches`, not reserved from the memory pool)
/// while it still holds them: TPC-H SF30 Q9 in a 2 GiB cgroup kept a hash
/// join of 10.5M build rows of 116 bytes (1.47 GB estimated without the
/// copy) and failed for want of memory; counted, it sorts and merges, and
/// answers. The price: SF10 Q18 under 2 GiB is a sort-merge join too (4.2 s
/// instead of 0.5 s warm).
fn build_bytes(side: &Arc<dyn ExecutionPlan>) -> Result<f64> {
    let stats = StatisticsContext::new().compute(side.as_ref(), &StatisticsArgs::new())?;
    let rows = match stats.num_rows {
        Precision::Exact(n) | Precision::Inexact(n) => n,
        Precision::Absent => return Ok(0.0),
    };
    let values = match stats.total_byte_size {
        Precision::Exact(n) | Precision::Inexact(n) => n,
        Precision::Absent => {
            let width: usize =
                side.schema().fields().iter().map(|f| f.data_type().primitive_width().unwrap_or(VARIABLE_WIDTH)).sum();
            rows.saturating_mul(width)
        }
    };
    Ok(2.0 * values as f64 + rows as f64 * ENTRY_BYTES as f64)
}
