//! `SegmentSource`: the data source of a scan of stored segments. It is
//! DataFusion's in-memory source with one change: it reports no byte size.
//! The in-memory source sums the capacity of every batch's buffers, and the
//! batches of a scan are slices of a whole mapped segment file, so each slice
//! counted the whole file (a 21 MB join partner of a 1 GB table claimed 900 MB).
//! Without a byte size, DataFusion's join planning falls back to the exact row
//! counts, which are right.

use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, Statistics};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::{DataSource, OpenArgs};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_expr::{EquivalenceProperties, LexOrdering, Partitioning, PhysicalExpr, PhysicalSortExpr};
use datafusion::physical_plan::execution_plan::SchedulingType;
use datafusion::physical_plan::filter_pushdown::FilterPushdownPropagation;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::{DisplayFormatType, SortOrderPushdownResult};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// See the module documentation. Plans show the table's indexes that the
/// scan does not use (`indexes not used: ...`).
#[derive(Debug, Clone)]
pub struct SegmentSource(MemorySourceConfig, Option<Arc<str>>);

impl SegmentSource {
    /// Scans `source`'s batches (slices of mapped segments); `unused_indexes`
    /// describes the table's plain indexes, which no scan uses.
    pub fn new(source: MemorySourceConfig, unused_indexes: Option<Arc<str>>) -> Self {
        Self(source, unused_indexes)
    }

    /// Keeps a source derived from ours (projected, limited, repartitioned) ours.
    fn rewrap(&self, source: Arc<dyn DataSource>) -> Arc<dyn DataSource> {
        match source.downcast_ref::<MemorySourceConfig>() {
            Some(memory) => Arc::new(SegmentSource(memory.clone(), self.1.clone())),
            None => source,
        }
    }
}

impl DataSource for SegmentSource {
    fn open(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        self.0.open(partition, context)
    }

    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.fmt_as(t, f)?;
        match &self.1 {
            Some(indexes) => write!(f, ", indexes not used: {indexes}"),
            None => Ok(()),
        }
    }

    fn repartitioned(
        &self,
        target_partitions: usize,
        repartition_file_min_size: usize,
        output_ordering: Option<LexOrdering>,
    ) -> Result<Option<Arc<dyn DataSource>>> {
        Ok(self.0.repartitioned(target_partitions, repartition_file_min_size, output_ordering)?.map(|s| self.rewrap(s)))
    }

    fn output_partitioning(&self) -> Partitioning {
        self.0.output_partitioning()
    }

    fn eq_properties(&self) -> EquivalenceProperties {
        self.0.eq_properties()
    }

    fn scheduling_type(&self) -> SchedulingType {
        self.0.scheduling_type()
    }

    fn partition_statistics(&self, partition: Option<usize>) -> Result<Arc<Statistics>> {
        let mut stats = Arc::unwrap_or_clone(self.0.partition_statistics(partition)?);
        stats.total_byte_size = Precision::Absent;
        Ok(Arc::new(stats))
    }

    fn with_fetch(&self, limit: Option<usize>) -> Option<Arc<dyn DataSource>> {
        self.0.with_fetch(limit).map(|s| self.rewrap(s))
    }

    fn fetch(&self) -> Option<usize> {
        self.0.fetch()
    }

    fn metrics(&self) -> ExecutionPlanMetricsSet {
        self.0.metrics()
    }

    fn try_swapping_with_projection(&self, projection: &ProjectionExprs) -> Result<Option<Arc<dyn DataSource>>> {
        Ok(self.0.try_swapping_with_projection(projection)?.map(|s| self.rewrap(s)))
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn DataSource>>> {
        let mut result = self.0.try_pushdown_filters(filters, config)?;
        result.updated_node = result.updated_node.map(|s| self.rewrap(s));
        Ok(result)
    }

    fn try_pushdown_sort(&self, order: &[PhysicalSortExpr]) -> Result<SortOrderPushdownResult<Arc<dyn DataSource>>> {
        Ok(self.0.try_pushdown_sort(order)?.map(|s| self.rewrap(s)))
    }

    fn with_preserve_order(&self, preserve_order: bool) -> Option<Arc<dyn DataSource>> {
        self.0.with_preserve_order(preserve_order).map(|s| self.rewrap(s))
    }

    fn apply_expressions(&self, f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>) -> Result<TreeNodeRecursion> {
        self.0.apply_expressions(f)
    }

    fn with_new_state(&self, state: Arc<dyn Any + Send + Sync>) -> Option<Arc<dyn DataSource>> {
        self.0.with_new_state(state).map(|s| self.rewrap(s))
    }

    fn create_sibling_state(&self, config: &ConfigOptions) -> Option<Arc<dyn Any + Send + Sync>> {
        self.0.create_sibling_state(config)
    }

    fn open_with_args(&self, args: OpenArgs) -> Result<SendableRecordBatchStream> {
        self.0.open_with_args(args)
    }
}
