//! The spill pool under the repartitions that feed a grace join: read while
//! two of its writers each hold a file open, it gives every batch (the
//! patch to vendored datafusion-physical-plan's `spill/spill_pool.rs`;
//! before it, the reader waited on the oldest file for a batch that was in
//! the newer one, and a join under a memory limit never ended).

use datafusion::arrow::array::{Int64Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::Result;
use datafusion::execution::disk_manager::{DiskManager, DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::spill_file::{SpillFile, SpillWriter, TempFileFactory};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, SpillMetrics};
use datafusion::physical_plan::spill::spill_pool::mpsc_channel;
use datafusion::physical_plan::SpillManager;
use futures::StreamExt;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// Spill files on disk; the first one's writer stops at its first write
/// until the test lets it go, like a writer descheduled mid-write.
struct Files {
    disks: Arc<DiskManager>,
    made: AtomicUsize,
    /// Passed by the held writer once it is inside its write, then by the test.
    holding: Arc<Barrier>,
    /// Passed by the test to let the held writer go, then by the writer.
    released: Arc<Barrier>,
}

struct File {
    inner: Arc<dyn SpillFile>,
    hold: Option<(Arc<Barrier>, Arc<Barrier>)>,
}

struct Writer {
    inner: Box<dyn SpillWriter>,
    hold: Option<(Arc<Barrier>, Arc<Barrier>)>,
}

impl TempFileFactory for Files {
    fn create_temp_file(&self, description: &str) -> Result<Arc<dyn SpillFile>> {
        let first = self.made.fetch_add(1, Ordering::SeqCst) == 0;
        let hold = first.then(|| (self.holding.clone(), self.released.clone()));
        Ok(Arc::new(File { inner: self.disks.create_tmp_file(description)?, hold }))
    }
}

impl SpillFile for File {
    fn path(&self) -> Option<&Path> {
        self.inner.path()
    }

    fn size(&self) -> Option<u64> {
        self.inner.size()
    }

    fn read_stream(&self) -> Result<std::pin::Pin<Box<dyn futures::Stream<Item = Result<bytes::Bytes>> + Send>>> {
        self.inner.read_stream()
    }

    fn open_writer(&self) -> Result<Box<dyn SpillWriter>> {
        Ok(Box::new(Writer { inner: self.inner.open_writer()?, hold: self.hold.clone() }))
    }
}

impl Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some((holding, released)) = self.hold.take() {
            holding.wait();
            released.wait();
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl SpillWriter for Writer {
    fn finish(&mut self) -> Result<()> {
        self.inner.finish()
    }
}

fn batch(value: i64) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
    RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![value]))]).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_in_a_newer_open_file_is_read_while_the_older_one_stays_open() {
    let (holding, released) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let files = Files {
        disks: Arc::new(DiskManagerBuilder::default().build().unwrap()),
        made: AtomicUsize::new(0),
        holding: holding.clone(),
        released: released.clone(),
    };
    let disks = DiskManagerBuilder::default().with_mode(DiskManagerMode::Custom(Arc::new(files)));
    let runtime = RuntimeEnvBuilder::new().with_disk_manager_builder(disks).build_arc().unwrap();
    let metrics = SpillMetrics::new(&ExecutionPlanMetricsSet::new(), 0);
    let spills = Arc::new(SpillManager::new(runtime, metrics, batch(0).schema()));
    let (first, mut reader) = mpsc_channel(1 << 30, spills);
    let second = first.new_sink();
    // The first writer opens file 1 and stops inside its write; the second,
    // finding no file free, opens file 2 and writes; then the first goes on.
    let held = std::thread::spawn(move || first.push_batch(&batch(1)));
    holding.wait();
    second.push_batch(&batch(2)).unwrap();
    released.wait();
    held.join().unwrap().unwrap();
    // Both files stay open (the second writer lives): both batches are read.
    let mut values = Vec::new();
    for _ in 0..2 {
        let next = tokio::time::timeout(Duration::from_secs(10), reader.next()).await;
        let batch = next.expect("a spilled batch is read within 10 s").unwrap().unwrap();
        values.push(batch.column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0));
    }
    values.sort();
    assert_eq!(values, [1, 2]);
    drop(second);
    assert!(reader.next().await.is_none(), "the pool ends once its writers are gone");
}
