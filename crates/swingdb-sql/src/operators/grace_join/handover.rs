//! The inputs handed to one in-memory attempt of a hash join, and taken
//! back when the attempt runs out of memory while building.
//!
//! DataFusion's hash join reads its whole build side before it reads the
//! probe side. Each side is handed to it as a leaf operator over a stream
//! that stays ours ([`Side`]): the build batches it took are remembered
//! (clones of the same buffers, no copy) until it starts on the probe side,
//! so that a build that fails for want of memory loses nothing, and the
//! probe side, never read, is whole. The join also copies its build batches
//! into one without reserving the copy; the build stream reserves it for
//! the join ([`Handover::copy`]) and lets go of it once probing starts.

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::execution::{RecordBatchStream, SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, Partitioning, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::spill::get_record_batch_memory_size;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};
use futures::Stream;
use parking_lot::Mutex;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A join's two inputs while an attempt runs, shared by its two [`Side`]s.
pub struct Handover {
    state: Arc<Mutex<State>>,
}

/// What the attempt has and has not read.
struct State {
    /// The rest of the build input.
    build: SendableRecordBatchStream,
    /// Build batches handed to the join, until it starts probing.
    taken: Vec<RecordBatch>,
    /// The build input itself failed: nothing to take back.
    build_failed: bool,
    /// The probe input (read only once the build side is in memory).
    probe: SendableRecordBatchStream,
    /// The join has read from the probe side: it no longer fails for want
    /// of memory to build, and nothing can be taken back.
    probing: bool,
    /// The memory of the join's unreserved copy of its build batches.
    copy: MemoryReservation,
}

/// What an attempt that ran out of memory leaves: the build batches it
/// read, the rest of the build input, and the whole probe input.
pub struct TakenBack {
    pub taken: Vec<RecordBatch>,
    pub build: SendableRecordBatchStream,
    pub probe: SendableRecordBatchStream,
}

impl Handover {
    /// The two inputs of an attempt; `copy` reserves its build side's copy.
    pub fn new(build: SendableRecordBatchStream, probe: SendableRecordBatchStream, copy: MemoryReservation) -> Self {
        let state = State { build, taken: Vec::new(), build_failed: false, probe, probing: false, copy };
        Self { state: Arc::new(Mutex::new(state)) }
    }

    /// The leaf operator the join reads its build (`probe: false`) or probe side from.
    pub fn side(&self, probe: bool) -> Arc<dyn ExecutionPlan> {
        let schema = {
            let state = self.state.lock();
            if probe {
                state.probe.schema()
            } else {
                state.build.schema()
            }
        };
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(1),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Arc::new(Side { state: self.state.clone(), probe, properties: Arc::new(properties) })
    }

    /// The inputs back, if `error` is the join running out of memory while
    /// it built (not an error of the build input, nor one after probing
    /// started, when rows may already have been given out).
    pub fn take_back(self, error: &DataFusionError) -> Option<TakenBack> {
        let mut state = self.state.lock();
        if state.build_failed || state.probing || !matches!(error.find_root(), DataFusionError::ResourcesExhausted(_)) {
            return None;
        }
        state.copy.free();
        let empty = |schema: SchemaRef| -> SendableRecordBatchStream {
            Box::pin(datafusion::physical_plan::EmptyRecordBatchStream::new(schema))
        };
        let (build_schema, probe_schema) = (state.build.schema(), state.probe.schema());
        Some(TakenBack {
            taken: std::mem::take(&mut state.taken),
            build: std::mem::replace(&mut state.build, empty(build_schema)),
            probe: std::mem::replace(&mut state.probe, empty(probe_schema)),
        })
    }
}

/// One input of an attempt, as a leaf operator of one partition, read once.
#[derive(Debug)]
struct Side {
    state: Arc<Mutex<State>>,
    probe: bool,
    properties: Arc<PlanProperties>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "State {{ taken: {}, probing: {} }}", self.taken.len(), self.probing)
    }
}

impl DisplayAs for Side {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "GraceJoinSide: {}", if self.probe { "probe" } else { "build" })
    }
}

impl ExecutionPlan for Side {
    fn name(&self) -> &str {
        "GraceJoinSide"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue) // none
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        match children.is_empty() {
            true => Ok(self),
            false => internal_err!("GraceJoinSide has no inputs"),
        }
    }

    fn execute(&self, partition: usize, _context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        match partition {
            0 => Ok(Box::pin(SideStream { state: self.state.clone(), probe: self.probe, schema: self.schema() })),
            _ => internal_err!("GraceJoinSide has one partition"),
        }
    }
}

/// The stream of a [`Side`].
struct SideStream {
    state: Arc<Mutex<State>>,
    probe: bool,
    schema: SchemaRef,
}

impl Stream for SideStream {
    type Item = Result<RecordBatch>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut state = self.state.lock();
        if self.probe {
            if !state.probing {
                // The build side is in memory, copied: what was kept for a
                // failure and the copy's reservation go.
                state.probing = true;
                state.taken = Vec::new();
                state.copy.free();
            }
            return state.probe.as_mut().poll_next(cx);
        }
        let polled = state.build.as_mut().poll_next(cx);
        match polled {
            Poll::Ready(Some(Ok(batch))) => {
                state.taken.push(batch.clone());
                match state.copy.try_grow(get_record_batch_memory_size(&batch)) {
                    Ok(()) => Poll::Ready(Some(Ok(batch))),
                    Err(e) => Poll::Ready(Some(Err(e))),
                }
            }
            Poll::Ready(Some(Err(e))) => {
                state.build_failed = true;
                Poll::Ready(Some(Err(e)))
            }
            other => other,
        }
    }
}

impl RecordBatchStream for SideStream {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}
