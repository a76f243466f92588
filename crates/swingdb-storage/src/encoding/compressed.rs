//! Compressed segment columns: how a column's buffers are kept as ZSTD frames
//! inside a standard Arrow IPC file, and how a scan reads them one run of
//! rows at a time.
//!
//! In the file: a record batch with compressed columns carries Arrow's ZSTD
//! body compression, so every buffer starts with its uncompressed length (8
//! bytes). The buffers of columns left uncompressed say -1 there ("not
//! compressed") and their bytes follow 64-byte aligned: integer, float, date
//! and timestamp columns stay zero-copy windows into the mapped file. Each
//! buffer of a compressed column (its validity bitmap when it has NULLs, then
//! offsets and values, or values) is a sequence of ZSTD frames, one per run
//! of rows (see [`crate::encoding::compressed_write`]), followed by a skippable frame
//! listing each frame's compressed and decompressed length ([`INDEX_MAGIC`]).
//! Every ZSTD decoder passes over skippable frames, so any Arrow reader
//! (pyarrow, arrow-rs) reads such a buffer whole; swingdb reads the runs a
//! batch needs.
//!
//! In memory, a compressed column is a run-end encoded array of the type
//! [`compressed_type`] gives: run `k` covers the rows of frame `k`, and its
//! value is a struct of that run's frames (one child per buffer, zero-copy
//! windows into the mapped file). Slicing it costs nothing, and
//! [`decompress`] decodes only the runs a slice covers: a scan holds a
//! batch's rows decoded, never a segment's whole column.

use crate::error::{Error, Result};
use datafusion::arrow::array::{
    make_array, Array, ArrayData, ArrayRef, AsArray, Int32Array, LargeBinaryArray, RunArray, StructArray,
};
use datafusion::arrow::buffer::{Buffer, MutableBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Int32Type};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

/// The magic number of the skippable ZSTD frame that ends each compressed
/// buffer with its frame index (one of the 16 the ZSTD format reserves).
pub const INDEX_MAGIC: u32 = 0x184D_2A5B;

/// Bytes an index frame takes besides its 8 bytes per frame listed: its
/// magic, its length, and the count of frames at its end.
pub const INDEX_OVERHEAD: usize = 12;

/// Field metadata key naming the type a compressed column decompresses to.
const PHYSICAL_KEY: &str = "swingdb.compressed";

/// Names of the struct children holding a compressed column's frames, by
/// buffer: validity, then offsets (for strings and bytes), then values.
const VALIDITY: &str = "validity";
const OFFSETS: &str = "offsets";
const VALUES: &str = "values";

/// Whether a column of type `dt` can be stored compressed: fixed-width
/// values, strings and bytes with 32-bit offsets.
pub fn is_compressible(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::Binary) || (dt.primitive_width().is_some() && dt != &DataType::Boolean)
}

/// Whether a column of type `dt` has an offsets buffer (and so three buffers).
pub fn has_offsets(dt: &DataType) -> bool {
    matches!(dt, DataType::Utf8 | DataType::Binary)
}

/// The in-memory type of a compressed column that decompresses to
/// `physical`, with a validity buffer or without (see the module docs).
pub fn compressed_type(physical: &DataType, with_validity: bool) -> DataType {
    let frames = |name: &str| Field::new(name, DataType::LargeBinary, false);
    let mut children = Vec::new();
    if with_validity {
        children.push(frames(VALIDITY));
    }
    if has_offsets(physical) {
        children.push(frames(OFFSETS));
    }
    children.push(frames(VALUES));
    let values = Field::new("frames", DataType::Struct(Fields::from(children)), false)
        .with_metadata(HashMap::from([(PHYSICAL_KEY.to_string(), physical.to_string())]));
    DataType::RunEndEncoded(Arc::new(Field::new("run_ends", DataType::Int32, false)), Arc::new(values))
}

/// The type a compressed column of in-memory type `stored` decompresses to;
/// `None` when `stored` is not a compressed column's.
pub fn physical_type(stored: &DataType) -> Option<DataType> {
    let DataType::RunEndEncoded(_, values) = stored else { return None };
    DataType::from_str(values.metadata().get(PHYSICAL_KEY)?).ok()
}

/// The frames of one compressed buffer (its bytes after the 8-byte length),
/// each frame's decompressed length, and where its frames end (the index
/// frame starts): all checked against the buffer's bounds.
struct Frames {
    /// Where each frame starts in the buffer, and where the last one ends.
    bounds: Vec<i64>,
    /// Each frame's decompressed length, as the index says.
    lengths: Vec<usize>,
}

/// Reads the frame index at the end of the compressed buffer `region`.
fn frames(region: &[u8]) -> std::result::Result<Frames, String> {
    let u32_at = |at: usize| region.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let len = region.len();
    let count = len.checked_sub(4).and_then(u32_at).ok_or("it ends before its frame index")? as usize;
    let index_len = count.checked_mul(8).and_then(|n| n.checked_add(INDEX_OVERHEAD)).filter(|&n| n <= len);
    let Some(index_len) = index_len else { return Err(format!("its frame index of {count} frames does not fit")) };
    let start = len - index_len;
    if u32_at(start) != Some(INDEX_MAGIC) || u32_at(start + 4) != Some((index_len - 8) as u32) {
        return Err("its frame index is not where it should be".into());
    }
    let mut bounds = Vec::with_capacity(count + 1);
    let mut lengths = Vec::with_capacity(count);
    let mut at = 0usize;
    bounds.push(0);
    for i in 0..count {
        let entry = start + 8 + 8 * i;
        at += u32_at(entry).expect("inside the index") as usize;
        lengths.push(u32_at(entry + 4).expect("inside the index") as usize);
        bounds.push(at as i64);
    }
    if at != start {
        return Err(format!("its {count} frames hold {at} bytes, the index starts at byte {start}"));
    }
    Ok(Frames { bounds, lengths })
}

/// The compressed column of `rows` rows that decompresses to `physical`,
/// from its buffers in the file (each after its 8-byte length): `validity`
/// when the column has NULLs, then the others in order (offsets and values,
/// or values). The frames stay where they are; their index is checked
/// against the column's rows.
pub fn compressed_array(
    physical: &DataType,
    rows: usize,
    validity: Option<Buffer>,
    buffers: &[Buffer],
) -> std::result::Result<ArrayRef, String> {
    let names: &[&str] = if has_offsets(physical) { &[OFFSETS, VALUES] } else { &[VALUES] };
    if buffers.len() != names.len() {
        return Err(format!("{} buffers where a compressed {physical} column has {}", buffers.len(), names.len()));
    }
    let mut parts: Vec<(&str, &Buffer)> = validity.iter().map(|v| (VALIDITY, v)).collect();
    parts.extend(names.iter().copied().zip(buffers));
    let indexes = parts
        .iter()
        .map(|(name, buffer)| frames(buffer).map_err(|e| format!("its {name} buffer is damaged: {e}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    // The rows of each run, from the frames of its first buffer after the
    // validity: offsets (one more in the last run) or fixed-width values.
    let main = &indexes[parts.len() - buffers.len()];
    let width = match has_offsets(physical) {
        true => 4,
        false => physical.primitive_width().ok_or_else(|| format!("{physical} columns are not compressed"))?,
    };
    let runs = main.lengths.len();
    let mut ends = Vec::with_capacity(runs);
    let mut end = 0usize;
    for (k, &bytes) in main.lengths.iter().enumerate() {
        let extra = if has_offsets(physical) && k + 1 == runs { 4 } else { 0 };
        let run = bytes.checked_sub(extra).filter(|b| b % width == 0).map(|b| b / width);
        match run {
            Some(run) if run > 0 && (k + 1 == runs || run % 8 == 0) => end += run,
            _ => return Err(format!("frame {k} holds {bytes} bytes, not a run of {width}-byte values")),
        }
        ends.push(i32::try_from(end).map_err(|_| "more rows than a segment holds".to_string())?);
    }
    if end != rows {
        return Err(format!("its frames hold {end} rows, the batch {rows}"));
    }
    if rows == 0 {
        return Err("a column of no rows is not compressed".into());
    }
    for ((name, _), index) in parts.iter().zip(&indexes) {
        if index.lengths.len() != runs {
            return Err(format!("its {name} buffer has {} frames, its values {runs}", index.lengths.len()));
        }
    }
    let stored = compressed_type(physical, validity.is_some());
    let DataType::RunEndEncoded(_, values_field) = &stored else { unreachable!("compressed_type is run-end encoded") };
    let DataType::Struct(fields) = values_field.data_type() else { unreachable!("frames are a struct") };
    let children: Vec<ArrayRef> = parts
        .iter()
        .zip(indexes)
        .map(|((_, buffer), index)| {
            let offsets = OffsetBuffer::new(ScalarBuffer::from(index.bounds));
            Arc::new(LargeBinaryArray::new(offsets, (*buffer).clone(), None)) as ArrayRef
        })
        .collect();
    let frames = StructArray::try_new(fields.clone(), children, None).map_err(|e| e.to_string())?;
    let values = ArrayData::from(frames).into_builder().data_type(values_field.data_type().clone());
    let values = make_array(values.build().map_err(|e| e.to_string())?);
    let array = RunArray::<Int32Type>::try_new(&Int32Array::from(ends), &values).map_err(|e| e.to_string())?;
    // The values field keeps its metadata (the physical type) in the type.
    let data = array.into_data().into_builder().data_type(stored);
    Ok(make_array(data.build().map_err(|e| e.to_string())?))
}

/// Adds a compressed column's stored bytes (each buffer's frames and index,
/// in order) to a column checksum, as the writer took them.
pub fn hash_compressed(hasher: &mut crc32fast::Hasher, data: &ArrayData) {
    if let Some(frames) = data.child_data().get(1) {
        for buffer in frames.child_data() {
            hasher.update(buffer.buffers()[1].as_slice());
        }
    }
}

/// The values of the compressed column `array` (a slice of one, maybe),
/// decompressed: the runs it covers, decoded and checked as Arrow data.
pub fn decompress(array: &ArrayRef) -> Result<ArrayRef> {
    let damaged = |e: String| Error::corruption(format!("a compressed segment column is damaged: {e}"));
    let physical = physical_type(array.data_type()).ok_or_else(|| Error::internal("not a compressed column"))?;
    let runs = array.as_run_opt::<Int32Type>().ok_or_else(|| Error::internal("not a compressed column"))?;
    if runs.is_empty() {
        return Ok(datafusion::arrow::array::new_empty_array(&physical));
    }
    let ends = runs.run_ends().values();
    let (first_run, last_run) = (runs.get_start_physical_index(), runs.get_end_physical_index());
    let start = |k: usize| if k == 0 { 0 } else { ends[k - 1] as usize };
    let first_row = start(first_run);
    let rows = ends[last_run] as usize - first_row;
    let frames = runs.values().as_struct();
    let frame = |name: &str, k: usize| frames.column_by_name(name).map(|c| c.as_binary::<i64>().value(k));
    let covered = first_run..=last_run;
    let nulls: Option<Buffer> = match frames.column_by_name(VALIDITY) {
        Some(_) => {
            let bits = concat_frames(covered.clone().map(|k| {
                let rows = ends[k] as usize - start(k);
                (frame(VALIDITY, k).expect("present"), Some(rows.div_ceil(8)))
            }))
            .map_err(damaged)?;
            Some(bits.into())
        }
        None => None,
    };
    let values = covered.clone().map(|k| frame(VALUES, k).expect("values are present"));
    let data = if has_offsets(&physical) {
        let total_runs = ends.len();
        let offsets = concat_frames(covered.clone().map(|k| {
            let count = (ends[k] as usize - start(k)) + usize::from(k + 1 == total_runs);
            (frame(OFFSETS, k).expect("offsets are present"), Some(4 * count))
        }))
        .map_err(damaged)?;
        let values = concat_frames(values.map(|f| (f, None))).map_err(damaged)?;
        let offsets = rebased_offsets(offsets.into(), rows, values.len()).map_err(damaged)?;
        ArrayData::try_new(physical.clone(), rows, nulls, 0, vec![offsets, values.into()], vec![])
    } else {
        let width = physical.primitive_width().expect("compressible");
        let expected = covered.clone().map(|k| Some(width * (ends[k] as usize - start(k))));
        let values = concat_frames(values.zip(expected)).map_err(damaged)?;
        ArrayData::try_new(physical.clone(), rows, nulls, 0, vec![values.into()], vec![])
    };
    let whole = make_array(data.map_err(|e| damaged(e.to_string()))?);
    Ok(whole.slice(runs.offset() - first_row, runs.len()))
}

/// The frames decompressed one after the other into one 64-byte aligned
/// buffer; each frame's decompressed length must be the one given, where
/// one is, and the one its header states.
fn concat_frames<'a>(
    frames: impl Iterator<Item = (&'a [u8], Option<usize>)>,
) -> std::result::Result<MutableBuffer, String> {
    let frames: Vec<(&[u8], usize)> = frames
        .map(|(frame, expected)| {
            let stated = match zstd::zstd_safe::get_frame_content_size(frame) {
                Ok(Some(n)) => usize::try_from(n).map_err(|_| "a frame states a length beyond memory".to_string())?,
                _ => return Err("a frame does not state its length".to_string()),
            };
            match expected {
                Some(n) if n != stated => Err(format!("a frame holds {stated} bytes, {n} expected")),
                _ => Ok((frame, stated)),
            }
        })
        .collect::<std::result::Result<_, _>>()?;
    let total = frames.iter().map(|(_, n)| n).sum::<usize>();
    if total > i32::MAX as usize {
        return Err(format!("its frames state {total} bytes, more than a segment column holds"));
    }
    let mut out = MutableBuffer::from_len_zeroed(total);
    let mut decompressor = zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?;
    let mut at = 0;
    for (frame, len) in frames {
        let written = decompressor
            .decompress_to_buffer(frame, &mut out.as_slice_mut()[at..at + len])
            .map_err(|e| format!("a frame does not decompress: {e}"))?;
        if written != len {
            return Err(format!("a frame decompressed to {written} bytes, it states {len}"));
        }
        at += len;
    }
    Ok(out)
}

/// The absolute offsets `raw` of `rows` rows (and the end of the last, when
/// the runs end the column) rebased to start at 0 over `values` bytes, and
/// checked: they ascend and end at the values' end.
fn rebased_offsets(raw: Buffer, rows: usize, values: usize) -> std::result::Result<Buffer, String> {
    let count = raw.len() / 4;
    let raw = ScalarBuffer::<i32>::new(raw, 0, count);
    let Some(&first) = raw.first() else { return Err("no offsets".into()) };
    if raw.len() < rows || raw.len() > rows + 1 {
        return Err(format!("{} offsets for {rows} rows", raw.len()));
    }
    let mut out: Vec<i32> = Vec::with_capacity(rows + 1);
    let mut previous = 0i64;
    for &o in raw.iter().take(rows) {
        let o = i64::from(o) - i64::from(first);
        if o < previous {
            return Err("its offsets descend".into());
        }
        out.push(o as i32);
        previous = o;
    }
    let end = i64::try_from(values).map_err(|_| "too many value bytes")?;
    if end < previous || raw.len() == rows + 1 && i64::from(raw[rows]) - i64::from(first) != end {
        return Err(format!("its offsets end at {previous}, its values hold {values} bytes"));
    }
    out.push(i32::try_from(end).map_err(|_| "more value bytes than 32-bit offsets address")?);
    Ok(Buffer::from_vec(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::compressed_write::{MAX_RUN_BYTES, RUN_ROWS};
    use crate::encoding::{decode, decode_batch};
    use crate::segment::write::tests::reads_back;
    use crate::segment::write::write_segment;
    use crate::segment::{MappedSegment, ALIGNMENT};
    use datafusion::arrow::array::{BinaryArray, Decimal128Array, Int64Array, RecordBatch, StringArray};
    use datafusion::arrow::datatypes::Schema;
    use std::path::Path;

    /// Words of a comment-like text, drawn by a fixed generator.
    fn text(i: u64) -> String {
        const WORDS: [&str; 12] = [
            "carefully",
            "final",
            "deposits",
            "sleep",
            "quickly",
            "ironic",
            "packages",
            "among",
            "the",
            "furiously",
            "bold",
            "requests",
        ];
        let mut x = i.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..3 + i % 6)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                WORDS[(x >> 59) as usize % WORDS.len()]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A batch of `n` rows from `first` on: comments (NULL every 13th row),
    /// prices as DECIMAL(15,2), and integers.
    fn batch(first: u64, n: u64) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("comment", DataType::Utf8, true),
            Field::new("price", DataType::Decimal128(15, 2), false),
            Field::new("id", DataType::Int64, false),
        ]));
        let rows = first..first + n;
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(rows.clone().map(|i| (i % 13 != 5).then(|| text(i))).collect::<StringArray>()),
                Arc::new(
                    rows.clone()
                        .map(|i| Some(i128::from((i * 7919) % 100_000)))
                        .collect::<Decimal128Array>()
                        .with_precision_and_scale(15, 2)
                        .unwrap(),
                ),
                Arc::new(rows.map(|i| i as i64).collect::<Int64Array>()),
            ],
        )
        .unwrap()
    }

    fn file_types(path: &Path, meta: &crate::SegmentMeta) -> Vec<DataType> {
        let seg = MappedSegment::open(path, meta, true).unwrap();
        seg.schema().fields().iter().map(|f| f.data_type().clone()).collect()
    }

    #[test]
    fn strings_are_stored_compressed_and_read_back_by_any_arrow_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        // Pieces cut at rows that are not multiples of 8 or of a run.
        let pieces = vec![batch(0, 70_001), batch(70_001, 3).slice(1, 2), batch(70_004, 100_000)];
        let schema = pieces[0].schema();
        let whole = datafusion::arrow::compute::concat_batches(&schema, &pieces).unwrap();
        let meta = write_segment(&path, &schema, &pieces).unwrap();
        assert!(meta.encoded);
        let types = file_types(&path, &meta);
        assert_eq!(physical_type(&types[0]), Some(DataType::Utf8));
        assert_eq!(types[1], DataType::Decimal32(9, 2), "decimals are narrowed, not compressed");
        assert_eq!(types[2], DataType::Int64, "integers are never compressed");
        // Checked, decoded, and read by arrow-rs's own reader (which
        // decompresses each buffer whole, passing over the frame index).
        reads_back(&path, &meta, std::slice::from_ref(&whole));
        assert_eq!(meta.crc32, crc32fast::hash(&std::fs::read(&path).unwrap()), "the whole file's checksum");
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let stored = seg.batches(None).unwrap().remove(0);
        // The integers are a window into the mapping, aligned for numpy.
        let ids = stored.column(2).to_data().buffers()[0].as_ptr() as usize;
        assert_eq!(ids % ALIGNMENT, 0);
        assert!(crate::locate_mapped(ids).is_some(), "the integers are read in place");
        // A slice decodes just its rows, across run boundaries.
        for (from, len) in [(0, 1), (RUN_ROWS - 3, 7), (40_000, 50_000), (170_000, 3), (170_003, 0)] {
            let part = decode_batch(&stored.slice(from, len), &schema).unwrap();
            assert_eq!(part, whole.slice(from, len), "rows {from}..{}", from + len);
        }
        // 2.5 times smaller at least: comments of few words, small prices.
        let plain: usize = whole.columns().iter().map(|c| c.get_array_memory_size()).sum();
        assert!(meta.bytes as usize * 5 < plain * 2, "{} bytes stored of {plain}", meta.bytes);
    }

    #[test]
    fn long_strings_cut_runs_short_and_incompressible_columns_stay_plain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let schema = Arc::new(Schema::new(vec![
            Field::new("long", DataType::Utf8, false),
            Field::new("noise", DataType::Binary, false),
        ]));
        let n = 3_001u64;
        let mut x = 88172645463325252u64;
        let mut noise = || {
            (0..1_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect::<Vec<u8>>()
        };
        let long: StringArray = (0..n).map(|i| Some(text(i).repeat(300))).collect();
        let noise: Vec<Vec<u8>> = (0..n).map(|_| noise()).collect();
        let noise: BinaryArray = noise.iter().map(|v| Some(v.as_slice())).collect();
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(long), Arc::new(noise)]).unwrap();
        assert!(batch.column(0).get_array_memory_size() > 2 * MAX_RUN_BYTES, "runs are cut by bytes");
        let meta = write_segment(&path, &schema, std::slice::from_ref(&batch)).unwrap();
        let types = file_types(&path, &meta);
        assert_eq!(physical_type(&types[0]), Some(DataType::Utf8));
        assert_eq!(types[1], DataType::Binary, "random bytes do not compress: stored plain");
        reads_back(&path, &meta, std::slice::from_ref(&batch));
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let stored = seg.batches(Some(&[0])).unwrap().remove(0);
        let runs = stored.column(0).as_run::<Int32Type>().run_ends().values().to_vec();
        assert!(runs.len() > 2 && runs[..runs.len() - 1].iter().all(|r| r % 8 == 0), "{runs:?}");
        let part = decode(&stored.column(0).slice(1000, 1500), &DataType::Utf8).unwrap();
        assert_eq!(&part, &batch.column(0).slice(1000, 1500));
    }

    /// Rewrites `path` (a new file: segments are never modified in place)
    /// with the byte at `at` changed.
    fn damage(path: &Path, at: usize) {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[at] ^= 0x55;
        std::fs::remove_file(path).unwrap();
        std::fs::write(path, &bytes).unwrap();
    }

    #[test]
    fn a_damaged_frame_is_reported_by_column_and_never_decoded_into_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let whole = batch(0, 100_000);
        let schema = whole.schema();
        let meta = write_segment(&path, &schema, std::slice::from_ref(&whole)).unwrap();
        // A byte in the middle of the comments' frames (the file's first
        // buffer after the message).
        let bytes = std::fs::read(&path).unwrap();
        let comments = bytes.windows(4).position(|w| w == [0x28, 0xb5, 0x2f, 0xfd]).expect("a ZSTD frame");
        damage(&path, comments + 5_000);
        let seg = MappedSegment::open(&path, &meta, true).unwrap();
        let err = seg.batches(Some(&[0])).unwrap_err();
        assert!(err.message().contains("column comment does not match its checksum"), "{}", err.message());
        assert_eq!(seg.batches(Some(&[2])).unwrap()[0].column(0), whole.column(2), "the other columns read");
        // Unverified, the frame's own checksum (or its structure) refuses it
        // when decoded: an error, never wrong rows.
        let unchecked = MappedSegment::open(&path, &meta, false).unwrap();
        let stored = unchecked.batches(Some(&[0])).unwrap().remove(0);
        let err = decode(stored.column(0), &DataType::Utf8).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption, "{}", err.message());
    }

    #[test]
    fn a_damaged_frame_index_is_refused_when_the_file_is_decoded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let whole = batch(0, 100_000);
        let meta = write_segment(&path, &whole.schema(), std::slice::from_ref(&whole)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let index = bytes.windows(4).position(|w| w == INDEX_MAGIC.to_le_bytes()).expect("a frame index");
        damage(&path, index + 9);
        let err = MappedSegment::open(&path, &meta, false).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption);
        assert!(err.message().contains("column comment"), "{}", err.message());
    }
}
