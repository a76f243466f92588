//! One side of a join split by the hash of its keys into spill files, so
//! that the rows of a key are all in the same bucket on both sides.

use datafusion::arrow::array::UInt32Array;
use datafusion::arrow::compute::BatchCoalescer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::hash_utils::create_hashes;
use datafusion::common::Result;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::execution::spill_file::{SpillFile, SpillWriter};
use datafusion::physical_expr::PhysicalExprRef;
use datafusion::physical_plan::joins::SeededRandomState;
use datafusion::physical_plan::metrics::SpillMetrics;
use std::io::Write;
use std::sync::Arc;

/// How many buckets a side is split into at each level.
pub const FAN_OUT: usize = 16;

/// Rows gathered per bucket before they are written as one batch: small,
/// since every bucket holds one such batch in memory while a side is split.
const BUCKET_BATCH_ROWS: usize = 2048;

/// The hash of the keys that picks a row's bucket at split `level`: a seed
/// of its own at each level (and unlike the repartition's and the hash
/// table's), so that a bucket split again spreads its rows, whose hashes at
/// the level before all fell into the one bucket.
fn level_hash(level: u32) -> SeededRandomState {
    SeededRandomState::with_seed(0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(u64::from(level) + 3))
}

/// A side being split into [`FAN_OUT`] spill files.
pub struct Buckets {
    keys: Vec<PhysicalExprRef>,
    hash: SeededRandomState,
    files: Vec<Bucket>,
    pending: Vec<BatchCoalescer>,
    hashes: Vec<u64>,
    metrics: SpillMetrics,
}

/// One bucket's file, and its Arrow IPC stream once a batch was written.
struct Bucket {
    file: Arc<dyn SpillFile>,
    writer: Option<StreamWriter<Box<dyn SpillWriter>>>,
}

impl Buckets {
    /// Rows of `schema` split by the hash of `keys` at `level` into spill
    /// files of `runtime` (counted in `metrics`).
    pub fn new(
        runtime: &RuntimeEnv,
        schema: &SchemaRef,
        keys: Vec<PhysicalExprRef>,
        level: u32,
        metrics: SpillMetrics,
    ) -> Result<Self> {
        let files = (0..FAN_OUT)
            .map(|_| Ok(Bucket { file: runtime.disk_manager.create_tmp_file("hash join bucket")?, writer: None }))
            .collect::<Result<_>>()?;
        let pending = (0..FAN_OUT).map(|_| BatchCoalescer::new(schema.clone(), BUCKET_BATCH_ROWS)).collect();
        Ok(Self { keys, hash: level_hash(level), files, pending, hashes: Vec::new(), metrics })
    }

    /// Adds `batch`'s rows to their buckets.
    pub fn push(&mut self, batch: RecordBatch) -> Result<()> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(());
        }
        let keys = self.keys.iter().map(|k| k.evaluate(&batch)?.into_array(rows)).collect::<Result<Vec<_>>>()?;
        self.hashes.clear();
        self.hashes.resize(rows, 0);
        create_hashes(&keys, self.hash.random_state(), &mut self.hashes)?;
        let mut rows_of: Vec<Vec<u32>> = vec![Vec::new(); FAN_OUT];
        for (row, hash) in self.hashes.iter().enumerate() {
            rows_of[(*hash % FAN_OUT as u64) as usize].push(row as u32);
        }
        for (bucket, rows) in rows_of.into_iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            let pending = &mut self.pending[bucket];
            pending.push_batch_with_indices(batch.clone(), &UInt32Array::from(rows))?;
            while let Some(done) = pending.next_completed_batch() {
                self.files[bucket].append(&done, &self.metrics)?;
            }
        }
        Ok(())
    }

    /// The buckets' files, in bucket order (`None`: no row).
    pub fn finish(mut self) -> Result<Vec<Option<Arc<dyn SpillFile>>>> {
        let mut files = Vec::with_capacity(FAN_OUT);
        for (pending, file) in self.pending.iter_mut().zip(&mut self.files) {
            pending.finish_buffered_batch()?;
            while let Some(done) = pending.next_completed_batch() {
                file.append(&done, &self.metrics)?;
            }
            let done = file.finish()?;
            if let Some(size) = done.as_ref().and_then(|f| f.size()) {
                self.metrics.spilled_bytes.add(size as usize);
            }
            files.push(done);
        }
        Ok(files)
    }
}

impl Bucket {
    /// Writes `batch` to the file, which gets its stream header first.
    fn append(&mut self, batch: &RecordBatch, metrics: &SpillMetrics) -> Result<()> {
        let writer = match &mut self.writer {
            Some(writer) => writer,
            None => {
                metrics.spill_file_count.add(1);
                self.writer.insert(StreamWriter::try_new(self.file.open_writer()?, &batch.schema())?)
            }
        };
        writer.write(batch)?;
        metrics.spilled_rows.add(batch.num_rows());
        Ok(())
    }

    /// The file, complete, or `None` if no row was written.
    fn finish(&mut self) -> Result<Option<Arc<dyn SpillFile>>> {
        let Some(writer) = self.writer.take() else { return Ok(None) };
        let mut sink = writer.into_inner()?;
        sink.flush()?;
        sink.finish()?;
        Ok(Some(self.file.clone()))
    }
}
