//! Hash joins whose build side may not fit the memory limit run as grace
//! hash joins ([`GraceHashJoinExec`]): DataFusion's hash join as long as its
//! build side fits, else, partition by partition, bucket by bucket through
//! spill files. DataFusion 55's hash join holds its whole build side (and a
//! hash table over it) in memory and cannot spill: under `memory_limit` a
//! join of two large tables failed with "the query needs more memory than
//! memory_limit allows". These joins were sort-merge joins before, whose
//! sorts spill; they answered, but slowly (TPC-H SF10 Q18 under 1.6 GB took
//! 5 s as one, 0.6 s as a hash join, which fits), and even where the join
//! would have fit, since the choice was made from estimates.
//!
//! The grace join is chosen where the build side is estimated to take more
//! than a quarter of the limit: a hash join's build side, and the two
//! partitions' joins running at once, then come near the limit. Below
//! that the plain hash join stays, with the runtime filters it publishes
//! (`runtime_filter`; the grace join publishes none: a build side that
//! large rarely makes a selective one, but it lets the filters of the
//! operators above through to its inputs as the hash join does). Without a
//! limit nothing changes.
//! Null-aware anti joins (`NOT IN` over a column that may be NULL) stay hash
//! joins: whether any build key is NULL decides every probe row's answer,
//! which no bucket knows alone.
//!
//! The rule runs right after DataFusion's join selection (which picks the
//! build side) and before distribution is enforced, which then partitions
//! the grace join's inputs by their keys.

use crate::memory;
use crate::operators::grace_join::GraceHashJoinExec;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::{ExecutionPlan, StatisticsArgs, StatisticsContext};
use std::sync::Arc;

/// The part of the memory limit a build side is estimated to take beyond
/// which its join runs as a grace hash join.
const GRACE_SHARE: f64 = 0.25;

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
            if join.null_aware || join.on.is_empty() || build_bytes(&join.left)? <= limit as f64 * GRACE_SHARE {
                return Ok(Transformed::no(node));
            }
            Ok(Transformed::yes(Arc::new(GraceHashJoinExec::try_new(join)?) as Arc<dyn ExecutionPlan>))
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
/// while it still holds them (the grace join reserves that copy).
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
