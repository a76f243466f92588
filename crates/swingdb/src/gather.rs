//! Gathers a result's computed batches into one array per column, for callers
//! that want the whole result at once (numpy, pandas, a pyarrow table).
//!
//! The engine computes a filtered or joined result as many small batches; numpy
//! needs each column as one array, and joining the batches afterwards copies
//! every value a second time into memory the process has never touched (on a
//! virtual machine, first touches are most of the cost: 50 % of a 1 GB
//! selection went to zeroing fresh pages). Here each batch is appended, while
//! still in cache, to a per-column region that grows by remapping (`mremap`:
//! the kernel moves page tables, no byte is copied), and then dropped, so the
//! allocator hands its memory to the next batch. The finished arrays point into
//! those regions.
//!
//! Only columns of fixed-width values and booleans are gathered; a result with
//! other columns (strings, nested values) passes through as it came.
//!
//! A region whose arrays are all dropped is kept for the next result (up to
//! [`spare_limit`]), its pages marked `MADV_FREE`: the kernel takes them back
//! only under memory pressure, and otherwise the next result writes into pages
//! already faulted in, as an allocator's pool would (a 1 GB selection repeated
//! in one process: 310 ms with pyarrow's pool, 870 ms with fresh mappings).

use datafusion::arrow::array::{make_array, Array, ArrayData, ArrayRef, BooleanBufferBuilder, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use memmap2::{MmapMut, RemapOptions, UncheckedAdvice};
use parking_lot::Mutex;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};

/// Batches of at least this many rows pass through ungathered: the engine's
/// own batches are smaller, so these are views of stored or registered data
/// (joined back by `crate::coalesce`), which stay zero-copy.
pub const LARGE_BATCH_ROWS: usize = 1 << 16;

/// Whether every column of `schema` can be gathered.
pub fn can_gather(schema: &SchemaRef) -> bool {
    schema.fields().iter().all(|f| matches!(f.data_type(), DataType::Boolean) || fixed_width(f.data_type()).is_some())
}

fn fixed_width(dt: &DataType) -> Option<usize> {
    if matches!(dt, DataType::Null | DataType::Boolean) {
        return None;
    }
    dt.primitive_width()
}

/// Appends batches of one schema (see [`can_gather`]) into one batch.
pub struct Gatherer {
    schema: SchemaRef,
    /// The first batch, kept as it is until a second one arrives (one batch
    /// needs no gathering).
    first: Option<RecordBatch>,
    columns: Vec<Column>,
    rows: usize,
}

impl Gatherer {
    /// An empty gatherer for batches of `schema`.
    pub fn new(schema: SchemaRef) -> Self {
        Self { schema, first: None, columns: Vec::new(), rows: 0 }
    }

    /// Appends `batch`.
    pub fn push(&mut self, batch: RecordBatch) -> std::io::Result<()> {
        if self.rows == 0 && self.first.is_none() {
            self.first = Some(batch);
            return Ok(());
        }
        if let Some(first) = self.first.take() {
            self.columns = self.schema.fields().iter().map(|f| Column::new(f.data_type())).collect();
            self.append(&first)?;
        }
        self.append(&batch)
    }

    fn append(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        for (column, array) in self.columns.iter_mut().zip(batch.columns()) {
            column.append(array, self.rows)?;
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// The gathered batch, or None if nothing was pushed.
    pub fn finish(self) -> Option<RecordBatch> {
        if self.first.is_some() {
            return self.first;
        }
        if self.rows == 0 {
            return None;
        }
        let rows = self.rows;
        let arrays: Vec<ArrayRef> = self.columns.into_iter().map(|c| c.finish(rows)).collect();
        Some(RecordBatch::try_new(self.schema, arrays).expect("gathered columns match their schema"))
    }
}

/// One column being gathered: its values and, once a NULL arrived, validity.
struct Column {
    data_type: DataType,
    values: Values,
    nulls: Option<BooleanBufferBuilder>,
}

enum Values {
    Fixed { width: usize, region: Region },
    Bits(BooleanBufferBuilder),
}

impl Column {
    fn new(dt: &DataType) -> Self {
        let values = match fixed_width(dt) {
            Some(width) => Values::Fixed { width, region: Region::default() },
            None => Values::Bits(BooleanBufferBuilder::new(0)),
        };
        Self { data_type: dt.clone(), values, nulls: None }
    }

    /// Appends `array`, which follows `before` rows already gathered.
    fn append(&mut self, array: &ArrayRef, before: usize) -> std::io::Result<()> {
        let data = array.to_data();
        match &mut self.values {
            Values::Fixed { width, region } => {
                let start = data.offset() * *width;
                region.extend(&data.buffers()[0].as_slice()[start..start + data.len() * *width])?;
            }
            Values::Bits(bits) => {
                bits.append_buffer(&BooleanBuffer::new(data.buffers()[0].clone(), data.offset(), data.len()))
            }
        }
        match (data.nulls(), &mut self.nulls) {
            (Some(nulls), Some(builder)) => builder.append_buffer(nulls.inner()),
            (Some(nulls), None) => {
                let mut builder = BooleanBufferBuilder::new(before + data.len());
                builder.append_n(before, true);
                builder.append_buffer(nulls.inner());
                self.nulls = Some(builder);
            }
            (None, Some(builder)) => builder.append_n(data.len(), true),
            (None, None) => {}
        }
        Ok(())
    }

    fn finish(self, rows: usize) -> ArrayRef {
        let values = match self.values {
            Values::Fixed { region, .. } => region.into_buffer(),
            Values::Bits(mut bits) => bits.finish().into_inner(),
        };
        let nulls = self.nulls.map(|mut b| NullBuffer::new(b.finish()));
        let data = ArrayData::builder(self.data_type).len(rows).add_buffer(values).nulls(nulls);
        // SAFETY: `rows` values of the column's width (or bits) were appended,
        // and as many validity bits.
        make_array(unsafe { data.build_unchecked() })
    }
}

/// Anonymous memory that grows by remapping, never by copying; pages are
/// touched only a little ahead of what was written (see [`Region::ahead`]).
#[derive(Default)]
struct Region {
    map: Option<MmapMut>,
    len: usize,
    /// Bytes from the start whose pages were faulted in ahead of writing.
    populated: usize,
}

impl Region {
    const FIRST: usize = 1 << 20;
    /// Pages are populated in multiples of 64 KiB (a multiple of every page
    /// size).
    const STEP: usize = 64 << 10;

    /// How far past `needed` bytes pages are faulted in, by one system call
    /// (`MADV_POPULATE_WRITE`) instead of a page fault for each 4 KiB page:
    /// 512 MiB of fresh memory touched page by page took 340-420 ms, after
    /// populating in 2 MiB steps 210-310 ms (5 alternating processes each).
    /// A sixteenth of the region, so that a result's last step touches at
    /// most that much memory it never writes, from 64 KiB to 2 MiB.
    fn ahead(needed: usize) -> usize {
        (needed / 16).clamp(Self::STEP, 2 << 20)
    }

    fn extend(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let needed = self.len + bytes.len();
        if self.map.is_none() {
            self.map = Some(match reuse_spare() {
                Some(map) => map,
                None => MmapMut::map_anon(needed.max(Self::FIRST))?,
            });
        }
        let map = self.map.as_mut().expect("mapped above");
        if needed > map.len() {
            let grown = needed.max(map.len() * 2);
            // SAFETY: no reference into the mapping outlives this call; the
            // buffer is handed out only by `into_buffer`, which consumes it.
            unsafe { map.remap(grown, RemapOptions::new().may_move(true))? };
            // Left on 4 KiB pages: a region is written once, so 2 MiB pages
            // would only save page faults, and on a virtual machine whose
            // free memory goes back to the host a fresh 2 MiB page can cost
            // more than the 512 faults it saves (the 1 GB micro-benchmark's
            // 50 % selection in fresh processes: 0.56-4.0 s on huge pages,
            // 0.68-0.78 s without; docs/benchmarks.md).
        }
        if needed > self.populated {
            let end = (needed + Self::ahead(needed)).next_multiple_of(Self::STEP).min(map.len());
            // Only faster, never needed: where the kernel lacks the advice
            // (before Linux 5.14) the writes below fault the pages in.
            #[cfg(target_os = "linux")]
            let _ = map.advise_range(memmap2::Advice::PopulateWrite, self.populated, end - self.populated);
            self.populated = end;
        }
        map[self.len..needed].copy_from_slice(bytes);
        self.len = needed;
        Ok(())
    }

    fn into_buffer(self) -> Buffer {
        match self.map {
            None => Buffer::from(Vec::<u8>::new()),
            Some(map) => {
                let ptr = NonNull::new(map.as_ptr() as *mut u8).expect("a mapping is never at address 0");
                // SAFETY: the mapping lives as long as the buffer (it owns it)
                // and `len` bytes of it were written.
                unsafe { Buffer::from_custom_allocation(ptr, self.len, Arc::new(Released(Some(map)))) }
            }
        }
    }
}

/// Owns a region behind the arrays made of it; when the last is dropped, the
/// mapping goes to the spares.
struct Released(Option<MmapMut>);

impl Drop for Released {
    fn drop(&mut self) {
        if let Some(map) = self.0.take() {
            keep_spare(map);
        }
    }
}

/// Regions no array uses any more, for the next results to write into.
static SPARES: Mutex<Vec<MmapMut>> = Mutex::new(Vec::new());

/// At most an eighth of the machine's memory is kept in spare regions (and the
/// kernel may still reclaim it, see the module doc).
fn spare_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages <= 0 || page <= 0 {
            return 0;
        }
        (pages as usize).saturating_mul(page as usize) / 8
    })
}

fn keep_spare(map: MmapMut) {
    // SAFETY: nothing refers to the mapping: the last array made of it is
    // being dropped, and whoever reuses it writes before reading.
    if unsafe { map.unchecked_advise(UncheckedAdvice::Free) }.is_err() {
        return; // dropped: unmapped
    }
    let mut spares = SPARES.lock();
    let kept: usize = spares.iter().map(|m| m.len()).sum();
    if kept + map.len() <= spare_limit() {
        spares.push(map);
    }
}

/// The largest spare region, if one is kept.
fn reuse_spare() -> Option<MmapMut> {
    let mut spares = SPARES.lock();
    let largest = (0..spares.len()).max_by_key(|&i| spares[i].len())?;
    Some(spares.swap_remove(largest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{BooleanArray, Float64Array, Int32Array};
    use datafusion::arrow::datatypes::{Field, Schema};

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int32, true),
            Field::new("f", DataType::Float64, false),
            Field::new("b", DataType::Boolean, false),
        ]))
    }

    fn batch(schema: &SchemaRef, ints: Vec<Option<i32>>, floats: Vec<f64>, bools: Vec<bool>) -> RecordBatch {
        RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int32Array::from(ints)),
                Arc::new(Float64Array::from(floats)),
                Arc::new(BooleanArray::from(bools)),
            ],
        )
        .unwrap()
    }

    #[test]
    fn pages_are_populated_only_a_little_ahead_of_the_writes() {
        if std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").is_ok_and(|s| s.contains("[always]"))
        {
            return; // the kernel may back the region with 2 MiB pages
        }
        // A fresh mapping, not a spare that other tests may have left.
        let mut region = Region { map: Some(MmapMut::map_anon(64 << 20).unwrap()), ..Region::default() };
        let piece = vec![7u8; 32 << 10];
        let written = (2 << 20) + (32 << 10);
        for _ in 0..written / piece.len() {
            region.extend(&piece).unwrap();
        }
        let map = region.map.as_ref().unwrap();
        let resident = swingdb_storage::test_mappings::resident_bytes_in(map.as_ptr(), map.len());
        // Populated ahead (one call, not a fault a page), but by no more than
        // a sixteenth of the region and one step: not to the next 2 MiB.
        assert!(resident > written, "{resident} resident for {written} written");
        assert!(resident <= written + written / 16 + Region::STEP, "{resident} resident for {written} written");
        assert!(region.map.as_ref().unwrap()[..written].iter().all(|&b| b == 7));
    }

    #[test]
    fn batches_become_one_with_values_and_nulls_in_order() {
        let schema = schema();
        assert!(can_gather(&schema));
        let mut g = Gatherer::new(schema.clone());
        let mut expected = Vec::new();
        // Enough rows to grow the regions past their first size several
        // times.
        for k in 0..40 {
            let n = 30_000 + k;
            let ints: Vec<Option<i32>> =
                (0..n).map(|i| if k >= 3 && i % 7 == 0 { None } else { Some(k * 100_000 + i) }).collect();
            let floats: Vec<f64> = (0..n).map(|i| i as f64 / 2.0).collect();
            let bools: Vec<bool> = (0..n).map(|i| (i + k) % 3 == 0).collect();
            let b = batch(&schema, ints, floats, bools);
            // A sliced batch: offsets into its buffers must be honoured.
            let b = b.slice(1, b.num_rows() - 1);
            expected.push(b.clone());
            g.push(b).unwrap();
        }
        let gathered = g.finish().unwrap();
        let want = datafusion::arrow::compute::concat_batches(&schema, &expected).unwrap();
        assert_eq!(gathered, want);
        assert_eq!(gathered.column(0).null_count(), want.column(0).null_count());
        assert!(gathered.column(0).null_count() > 0);
    }

    #[test]
    fn one_batch_is_returned_as_it_is_and_none_gives_none() {
        let schema = schema();
        let b = batch(&schema, vec![Some(1), None], vec![1.0, 2.0], vec![true, false]);
        let mut g = Gatherer::new(schema.clone());
        g.push(b.clone()).unwrap();
        let out = g.finish().unwrap();
        assert_eq!(out.column(0).to_data().buffers()[0].as_ptr(), b.column(0).to_data().buffers()[0].as_ptr());
        assert!(Gatherer::new(schema).finish().is_none());
    }

    #[test]
    fn strings_are_not_gathered() {
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, false)]));
        assert!(!can_gather(&schema));
    }
}
