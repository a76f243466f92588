//! [`GraceHashJoinExec`]: a hash join that spills its build side.
//!
//! DataFusion 55's hash join holds its whole build side (and a hash table
//! over it) in memory; under `memory_limit` a build side that does not fit
//! fails the query. This operator runs DataFusion's join for each partition
//! of its (hash-partitioned) inputs as it is, and only when that join is
//! refused memory while it builds does it fall back, for that partition, to
//! a grace hash join: the build rows it had read and the rest of the build
//! input are split by the hash of their keys into [`buckets::FAN_OUT`] spill files,
//! the probe input likewise (it was not read yet: [`handover`]), and each
//! pair of buckets is joined in turn by the same procedure, one level down
//! with another hash, so that a bucket still too large is split again, up to
//! [`MAX_LEVELS`] times. Rows with the same key land in the same bucket on
//! both sides, so each bucket's join gives exactly that bucket's part of the
//! answer, for every join type the hash join runs (inner, outer, semi, anti,
//! mark; with a filter): a build row unmatched in its bucket is unmatched
//! everywhere. Null-aware anti joins (`NOT IN` over a column that may be
//! NULL) need to know whether *any* build key is NULL and are not run here.
//!
//! Each input is read once whether the join fits or not; what spills is
//! written once and read once. Rows come out in no particular order.

mod buckets;
mod handover;

use buckets::Buckets;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result;
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::spill_file::SpillFile;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{PhysicalExpr, PhysicalExprRef};
use datafusion::physical_plan::filter_pushdown::{
    ChildPushdownResult, FilterDescription, FilterPushdownPhase, FilterPushdownPropagation,
};
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet, SpillMetrics};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, EmptyRecordBatchStream, ExecutionPlan, InputDistributionRequirements, PlanProperties,
    SpillManager,
};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt, TryStreamExt};
use handover::{Handover, TakenBack};
use std::sync::Arc;

/// Times a bucket may be split again before a build side that still does
/// not fit fails the query (`FAN_OUT` cubed buckets: a single key with too
/// many rows cannot be split by any hash).
const MAX_LEVELS: u32 = 3;

/// See the module documentation.
#[derive(Debug)]
pub struct GraceHashJoinExec {
    /// DataFusion's join in partitioned mode: each attempt is a copy of it
    /// (keys, filter, type, projection) over the attempt's inputs.
    join: Arc<HashJoinExec>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl GraceHashJoinExec {
    /// `join` run as a grace hash join over hash-partitioned inputs. Its
    /// properties are those of `join`, without an order: buckets come out
    /// one after the other.
    pub fn try_new(join: &HashJoinExec) -> Result<Self> {
        let join =
            join.builder().with_partition_mode(PartitionMode::Partitioned).with_fetch(None).reset_state().build()?;
        let mut properties = join.properties().as_ref().clone();
        let mut unordered = properties.eq_properties.clone();
        unordered.clear_orderings();
        properties = properties.with_eq_properties(unordered);
        Ok(Self { join: Arc::new(join), properties: Arc::new(properties), metrics: ExecutionPlanMetricsSet::new() })
    }

    /// The hash join this runs: its inputs, keys, type and projection.
    pub fn hash_join(&self) -> &HashJoinExec {
        &self.join
    }
}

impl DisplayAs for GraceHashJoinExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        struct Join<'a>(&'a HashJoinExec, DisplayFormatType);
        impl std::fmt::Display for Join<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                self.0.fmt_as(self.1, f)
            }
        }
        let join = Join(&self.join, t).to_string();
        let settings = join.strip_prefix("HashJoinExec: mode=Partitioned, ").unwrap_or(&join);
        match t {
            DisplayFormatType::TreeRender => write!(f, "{join}"),
            _ => write!(f, "GraceHashJoinExec: {settings}"),
        }
    }
}

impl ExecutionPlan for GraceHashJoinExec {
    fn name(&self) -> &str {
        "GraceHashJoinExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.join.apply_expressions(f)
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.join.left, &self.join.right]
    }

    fn input_distribution_requirements(&self) -> InputDistributionRequirements {
        self.join.input_distribution_requirements()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![false, false]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(Self::try_new(&self.join.builder().with_new_children(children)?.build()?)?))
    }

    /// Filters from above go to the side whose columns they read, where the
    /// join type allows (the hash join's rules): in TPC-H SF10 Q18 under a
    /// limit, the runtime filter of the join above (624 orders) reaches the
    /// scans of a grace join that would otherwise join 60M rows with 15M.
    /// The grace join publishes no runtime filter of its own (see
    /// `spilling_joins`), so the hash join's is not asked for.
    fn gather_filters_for_pushdown(
        &self,
        phase: FilterPushdownPhase,
        parent_filters: Vec<Arc<dyn PhysicalExpr>>,
        config: &ConfigOptions,
    ) -> Result<FilterDescription> {
        let mut without_own_filter = config.clone();
        without_own_filter.optimizer.enable_join_dynamic_filter_pushdown = false;
        self.join.gather_filters_for_pushdown(phase, parent_filters, &without_own_filter)
    }

    /// A filter from above that a side took in full needs no evaluation
    /// above the join (the hash join's answer, for the same reason).
    fn handle_child_pushdown_result(
        &self,
        _phase: FilterPushdownPhase,
        child_pushdown_result: ChildPushdownResult,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn ExecutionPlan>>> {
        Ok(FilterPushdownPropagation::if_any(child_pushdown_result))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let build = self.join.left.execute(partition, context.clone())?;
        let probe = self.join.right.execute(partition, context.clone())?;
        let run = Arc::new(Run {
            join: self.join.clone(),
            spill_metrics: SpillMetrics::new(&self.metrics, partition),
            partition,
            context,
        });
        let output = BaselineMetrics::new(&self.metrics, partition);
        let joined = futures::stream::once(run.join(build, probe, 0))
            .try_flatten()
            .inspect_ok(move |batch| output.record_output(batch.num_rows()));
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema(), joined)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

/// One partition of a [`GraceHashJoinExec`] running.
struct Run {
    join: Arc<HashJoinExec>,
    spill_metrics: SpillMetrics,
    partition: usize,
    context: Arc<TaskContext>,
}

impl Run {
    /// The join of `build` and `probe`: in memory if the build side fits,
    /// else bucket by bucket, split at `level`.
    fn join(
        self: Arc<Self>,
        build: SendableRecordBatchStream,
        probe: SendableRecordBatchStream,
        level: u32,
    ) -> BoxFuture<'static, Result<SendableRecordBatchStream>> {
        async move {
            let consumer = MemoryConsumer::new(format!("GraceHashJoinCopy[{}]", self.partition));
            let handover = Handover::new(build, probe, consumer.register(self.context.memory_pool()));
            let attempt = self
                .join
                .builder()
                .with_new_children(vec![handover.side(false), handover.side(true)])?
                .reset_state()
                .build()?;
            let mut joined = attempt.execute(0, self.context.clone())?;
            let first = joined.next().await;
            let taken_back = match &first {
                Some(Err(e)) if level < MAX_LEVELS => handover.take_back(e),
                _ => None,
            };
            let schema = self.join.schema();
            let Some(taken_back) = taken_back else {
                // The join's rows: none (its stream ended, and is not polled again), or the first and the rest.
                let Some(first) = first else { return Ok(Box::pin(EmptyRecordBatchStream::new(schema)) as _) };
                let rest = futures::stream::once(async { first }).chain(joined);
                return Ok(Box::pin(RecordBatchStreamAdapter::new(schema, rest)) as SendableRecordBatchStream);
            };
            drop((joined, attempt));
            let buckets = self.split(taken_back, level).await?;
            let run = self.clone();
            let joined = futures::stream::iter(buckets)
                .then(move |(build, probe)| {
                    let run = run.clone();
                    async move {
                        let build = run.read(build, run.join.left.schema())?;
                        let probe = run.read(probe, run.join.right.schema())?;
                        run.join(build, probe, level + 1).await
                    }
                })
                .try_flatten();
            Ok(Box::pin(RecordBatchStreamAdapter::new(schema, joined)) as SendableRecordBatchStream)
        }
        .boxed()
    }

    /// Both sides of an attempt that ran out of memory, split into buckets
    /// at `level`: pairs of (build, probe) files, `None` where a bucket has
    /// no row.
    async fn split(
        &self,
        inputs: TakenBack,
        level: u32,
    ) -> Result<Vec<(Option<Arc<dyn SpillFile>>, Option<Arc<dyn SpillFile>>)>> {
        let TakenBack { taken, build, probe } = inputs;
        let (build_keys, probe_keys) = self.join.on.iter().cloned().unzip();
        let build = self.bucketed(taken, build, build_keys, self.join.left.schema(), level).await?;
        let probe = self.bucketed(Vec::new(), probe, probe_keys, self.join.right.schema(), level).await?;
        Ok(build.into_iter().zip(probe).collect())
    }

    /// `first` and then the rows of `rest` (of `schema`), split by the hash
    /// of `keys` at `level` into bucket files.
    async fn bucketed(
        &self,
        first: Vec<RecordBatch>,
        mut rest: SendableRecordBatchStream,
        keys: Vec<PhysicalExprRef>,
        schema: SchemaRef,
        level: u32,
    ) -> Result<Vec<Option<Arc<dyn SpillFile>>>> {
        let mut buckets = Buckets::new(&self.context.runtime_env(), &schema, keys, level, self.spill_metrics.clone())?;
        for batch in first {
            buckets.push(batch)?;
        }
        while let Some(batch) = rest.next().await {
            buckets.push(batch?)?;
        }
        buckets.finish()
    }

    /// The rows of a bucket's `file` (of `schema`), none without a file.
    fn read(&self, file: Option<Arc<dyn SpillFile>>, schema: SchemaRef) -> Result<SendableRecordBatchStream> {
        match file {
            None => Ok(Box::pin(EmptyRecordBatchStream::new(schema))),
            Some(file) => SpillManager::new(self.context.runtime_env(), self.spill_metrics.clone(), schema)
                .read_spill_as_stream(file, None),
        }
    }
}

#[cfg(test)]
mod spill_pool_tests;
#[cfg(test)]
mod tests;
