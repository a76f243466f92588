//! [`Watched`]: wraps each operator of a physical plan so that a cancelled
//! statement stops computing at its next batch, and each scan (an operator
//! without inputs) so that the statement's progress can be shown: rows and
//! bytes read, of how many rows (see [`crate::interrupt`]).
//!
//! Dropping a plan's streams stops DataFusion's tasks only where they yield,
//! and some operators compute for seconds without yielding (a cross join
//! feeding an aggregate turns out batch after batch from memory). Checked
//! between batches of every operator, a raised flag ends the plan with an
//! error within one batch's work, so cancelled work does not keep running
//! on the engine's threads after the caller has moved on.

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::analyze::AnalyzeExec;
use datafusion::physical_plan::metrics::MetricsSet;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use datafusion::physical_plan::{StatisticsArgs, StatisticsContext};
use futures::StreamExt;
use parking_lot::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use swingdb_storage::error::{Error, ErrorKind};

/// One statement's shared state: whether it is cancelled (its plans watch
/// the flag, see [`watch_plan`]) and what its scans have read.
#[derive(Debug)]
pub struct Run {
    /// Raised when the statement is cancelled.
    pub cancelled: AtomicBool,
    /// Rows the scans read so far.
    pub rows: std::sync::atomic::AtomicU64,
    /// Bytes of those rows.
    pub bytes: std::sync::atomic::AtomicU64,
    /// Rows the scans read in all (those that know it).
    pub total: std::sync::atomic::AtomicU64,
    /// Some scan does not know its size.
    pub unknown_size: AtomicBool,
    /// When the statement started.
    pub started: Instant,
    /// When progress was last shown, if it was.
    pub shown: Mutex<Option<Instant>>,
}

impl Default for Run {
    fn default() -> Self {
        Self {
            cancelled: AtomicBool::new(false),
            rows: Default::default(),
            bytes: Default::default(),
            total: Default::default(),
            unknown_size: AtomicBool::new(false),
            started: Instant::now(),
            shown: Mutex::new(None),
        }
    }
}

/// `plan` with every operator wrapped in a [`Watched`] of statement `run`;
/// `EXPLAIN ANALYZE` as it is (it prints the plan it ran).
pub fn watch_plan(plan: Arc<dyn ExecutionPlan>, run: &Arc<Run>) -> Result<Arc<dyn ExecutionPlan>> {
    if plan.is::<AnalyzeExec>() {
        return Ok(plan);
    }
    Ok(plan
        .transform_up(|node| {
            let scan = node.children().is_empty();
            if scan {
                // Every partition of a scan is read (unless a LIMIT stops it): its size counts once.
                let stats = StatisticsContext::new().compute(node.as_ref(), &StatisticsArgs::new());
                let rows = stats.ok().and_then(|s| s.num_rows.get_value().copied());
                match rows {
                    Some(n) => {
                        run.total.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    None => run.unknown_size.store(true, Ordering::Relaxed),
                }
            }
            Ok(Transformed::yes(Arc::new(Watched { input: node, run: run.clone(), scan }) as Arc<dyn ExecutionPlan>))
        })?
        .data)
}

/// An operator that passes its input's batches on unchanged, fails once its
/// statement is cancelled and, over a scan, counts what the scan reads. It
/// has its input's properties in every respect.
#[derive(Debug)]
pub struct Watched {
    input: Arc<dyn ExecutionPlan>,
    run: Arc<Run>,
    /// The input is a scan: count its rows towards the statement's progress.
    scan: bool,
}

impl DisplayAs for Watched {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Watched")
    }
}

impl ExecutionPlan for Watched {
    fn name(&self) -> &str {
        "Watched"
    }

    fn downcast_delegate(&self) -> Option<&dyn ExecutionPlan> {
        Some(self.input.as_ref())
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue) // none of its own
    }

    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let input = children.pop().ok_or_else(|| DataFusionError::Internal("Watched needs one input".into()))?;
        Ok(Arc::new(Self { input, run: self.run.clone(), scan: self.scan }))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let schema = self.input.schema();
        let run = self.run.clone();
        let scan = self.scan;
        let input = self.input.execute(partition, context)?;
        let checked = input.map(move |batch| {
            if run.cancelled.load(Ordering::Relaxed) {
                return Err(Error::new(ErrorKind::Interrupted, "the statement was cancelled").into());
            }
            if let (true, Ok(b)) = (scan, &batch) {
                run.rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
                let bytes: usize = b.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or(0)).sum();
                run.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
            }
            batch
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, checked)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        self.input.metrics()
    }
}
