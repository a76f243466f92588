//! Checking the columns a scan reads as the scan reaches each segment, rather
//! than all of them when the query is planned.
//!
//! A column of a mapped segment is checked (its checksum, see
//! [`MappedSegment::check_column`]) before any of its values are read. Done
//! for every segment while planning, a cold scan read all of its columns from
//! disk before the query computed anything, and then computed on them (the
//! disk idle); and where they did not fit the page cache (a memory cgroup
//! smaller than the columns) the first segments were evicted again before the
//! scan came back to them, so the query read them twice.
//!
//! So a scan's batches come unchecked, with the checks the segments still
//! need ([`ScanChecks`]); its stream calls [`ScanChecks::check`] for every
//! batch before handing it on. The first batch of a segment waits for that
//! segment's check and asks the kernel to read the next segment's columns in
//! the background ([`MappedSegment::read_ahead`]), so the disk reads one
//! segment ahead while the query computes on the current one; the first
//! segment is asked for when the query is planned ([`ScanChecks::read_first`]).

use crate::error::Result;
use crate::segment::MappedSegment;
use datafusion::arrow::array::{ArrayData, RecordBatch};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The segments of one scan, in the order it reads them, with the file
/// columns it reads of each.
#[derive(Debug, Default)]
pub struct ScanChecks {
    segments: Vec<Pending>,
    /// (start address of the mapping, index into `segments`), by address.
    by_address: Vec<(usize, usize)>,
}

#[derive(Debug)]
struct Pending {
    mapped: Arc<MappedSegment>,
    columns: Vec<usize>,
    /// Whether the kernel was asked to read the columns.
    asked: AtomicBool,
    /// Whether every column passed its check.
    checked: AtomicBool,
}

impl Pending {
    /// Asks the kernel to read the columns, the first time only.
    fn ask(&self) {
        if !self.asked.swap(true, Ordering::Relaxed) {
            self.mapped.read_ahead(&self.columns);
        }
    }
}

impl ScanChecks {
    /// Adds the next segment the scan reads, and the file columns it reads of it.
    pub fn add(&mut self, mapped: Arc<MappedSegment>, columns: Vec<usize>) {
        let start = mapped.addresses().start;
        let at = self.by_address.partition_point(|&(s, _)| s < start);
        self.by_address.insert(at, (start, self.segments.len()));
        self.segments.push(Pending { mapped, columns, asked: AtomicBool::new(false), checked: AtomicBool::new(false) });
    }

    /// Whether the scan reads no mapped segment (nothing to check).
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Asks the kernel to read the first segment's columns: called when the
    /// query is planned, so that a scan that starts late (a hash join's probe
    /// side, after its build side) finds them read.
    pub fn read_first(&self) {
        if let Some(first) = self.segments.first() {
            first.ask();
        }
    }

    /// Checks that every segment file of the scan still holds all its
    /// mapped bytes (see [`MappedSegment::check_size`]): done when a stream of
    /// the scan opens, also when a kept plan runs again after a file under it
    /// was shortened, which would otherwise end the process with SIGBUS.
    pub fn check_sizes(&self) -> Result<()> {
        self.segments.iter().try_for_each(|pending| pending.mapped.check_size())
    }

    /// Checks the columns of each segment that `batch` (of the scan) holds
    /// values of, once per segment; the first time, also asks the kernel to
    /// read the segment after it. Fails with the check's error (a damaged
    /// column, named with its file), as every later call for that segment does.
    pub fn check(&self, batch: &RecordBatch) -> Result<()> {
        let mut last = None;
        for column in batch.columns() {
            let Some(index) = self.segment_of(&column.to_data()) else { continue };
            if last == Some(index) {
                continue;
            }
            last = Some(index);
            let pending = &self.segments[index];
            if pending.checked.load(Ordering::Acquire) {
                continue;
            }
            pending.ask();
            if let Some(next) = self.segments.get(index + 1) {
                next.ask();
            }
            for &column in &pending.columns {
                pending.mapped.check_column(column)?;
            }
            pending.checked.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// The segment whose mapping holds a buffer of `data` (or of its
    /// children: a compressed column's frames), if any.
    fn segment_of(&self, data: &ArrayData) -> Option<usize> {
        let nulls = data.nulls().map(|n| n.buffer().as_ptr() as usize);
        let buffers = data.buffers().iter().map(|b| b.as_ptr() as usize);
        for address in nulls.into_iter().chain(buffers) {
            let at = self.by_address.partition_point(|&(start, _)| start <= address);
            if let Some(&(_, index)) = at.checked_sub(1).map(|i| &self.by_address[i]) {
                if self.segments[index].mapped.addresses().contains(&address) {
                    return Some(index);
                }
            }
        }
        data.child_data().iter().find_map(|child| self.segment_of(child))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SegmentMeta;
    use crate::segment::write::write_segment;
    use crate::test_mappings::{cached_bytes, drop_cached};
    use datafusion::arrow::array::{ArrayRef, Int64Array};
    use std::path::Path;
    use std::time::{Duration, Instant};

    const ROWS: i64 = 2_000_000;

    fn segment(path: &Path) -> SegmentMeta {
        let column = || Arc::new(Int64Array::from_iter_values(0..ROWS)) as ArrayRef;
        let batch = RecordBatch::try_from_iter([("x", column()), ("y", column())]).unwrap();
        write_segment(path, &batch.schema(), &[batch]).unwrap()
    }

    #[test]
    fn a_segment_is_checked_when_the_scan_reaches_it_and_the_next_one_is_read_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (dir.path().join("a.arrow"), dir.path().join("b.arrow"));
        let (meta_a, meta_b) = (segment(&first), segment(&second));
        // Damage a value of column y in the second segment (a new file, as segments are never modified).
        let offset = {
            let mapped = MappedSegment::open(&second, &meta_b, true).unwrap();
            let batch = &mapped.batches_to_check(None).unwrap()[0];
            batch.column(1).to_data().buffers()[0].as_ptr() as usize - mapped.addresses().start + 800
        };
        let mut bytes = std::fs::read(&second).unwrap();
        bytes[offset] ^= 0xff;
        std::fs::remove_file(&second).unwrap();
        std::fs::write(&second, &bytes).unwrap();
        if !drop_cached(&first) || !drop_cached(&second) {
            eprintln!("skipped: this file system keeps the files' pages cached (tmpfs?)");
            return;
        }
        let a = Arc::new(MappedSegment::open(&first, &meta_a, true).unwrap());
        let b = Arc::new(MappedSegment::open(&second, &meta_b, true).unwrap());
        let mut checks = ScanChecks::default();
        checks.add(a.clone(), vec![0, 1]);
        checks.add(b.clone(), vec![0, 1]);
        let (batch_a, batch_b) = (&a.batches_to_check(None).unwrap()[0], &b.batches_to_check(None).unwrap()[0]);
        assert!(cached_bytes(&second) < 1 << 20, "nothing is read before the scan reaches a segment");

        checks.check(&batch_a.slice(10, 100)).unwrap();
        let columns = 2 * 8 * ROWS as usize;
        let deadline = Instant::now() + Duration::from_secs(20);
        while cached_bytes(&second) < columns && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(cached_bytes(&second) >= columns, "reaching the first segment asks for the next one's columns");

        let err = checks.check(batch_b).unwrap_err();
        assert!(err.message().contains("b.arrow") && err.message().contains("column y"), "{}", err.message());
        assert!(checks.check(&batch_b.slice(5, 5)).is_err(), "a damaged segment stays refused");
        checks.check(batch_a).unwrap();
        let elsewhere = RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(vec![1])) as ArrayRef)]);
        checks.check(&elsewhere.unwrap()).unwrap();
    }
}
