//! Writing a segment column compressed (the format is in
//! [`crate::encoding::compressed`]), and choosing which columns to compress.
//!
//! A column's rows are cut into runs of [`RUN_ROWS`] rows (the scan's batch
//! size, so that a batch decodes its own runs and no others), fewer where a
//! run's strings reach [`MAX_RUN_BYTES`]; every run but the last holds a
//! multiple of 8 rows, so that its validity bits start on a byte. Each
//! buffer of each run is one ZSTD frame (with its content length and
//! checksum), compressed as it is written: a segment's compressed column is
//! never held in memory whole.
//!
//! Compressed by default: strings and bytes that are not dictionaries, when
//! the column holds at least [`MIN_COMPRESSED_BYTES`] in the segment and its
//! first run compresses to at most 3/4. Strings reach numpy as Python objects
//! anyway, and are most of the bytes of wide tables (TPC-H's comments); the
//! scans that read them are not the hottest. Integer, float, date and
//! timestamp columns, which users take without a copy, are not compressed by
//! default; nor are decimals, narrowed instead (see [`crate::encoding`]):
//! decompressing them made TPC-H's arithmetic-heavy queries twice slower
//! (ZSTD decodes about 1.3 GB/s per core). A table with `compression =
//! 'zstd'` (see [`crate::encoding::mode`]) has every column that can be
//! compressed so, whatever its size, where its first run compresses to 3/4.

use crate::encoding::compressed::{has_offsets, is_compressible, INDEX_MAGIC, INDEX_OVERHEAD};
use crate::encoding::mode::Compression;
use crate::segment::joined_buffers::{bitmap, variable};
use crate::segment::parallel::column_bytes;
use datafusion::arrow::array::{ArrayData, RecordBatch};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use std::io::{self, Write};

/// Most rows of a run (one ZSTD frame per buffer): the scan's batch size.
pub const RUN_ROWS: usize = 32 * 1024;

/// A run of strings ends (at a multiple of 8 rows) once it holds this many
/// bytes of values, so that decoding one batch never needs much more memory.
pub const MAX_RUN_BYTES: usize = 16 << 20;

/// Columns holding fewer bytes than this in a segment are not compressed:
/// too little to save for the copy it costs every read.
pub const MIN_COMPRESSED_BYTES: usize = 1 << 20;

/// ZSTD's level: TPC-H's comments compress 3.6x at 1 (3.8x at 3, 20 % slower).
const LEVEL: i32 = 1;

/// Per column of `pieces` (batches of `schema`, as they will be stored) of a
/// table with `compression`: whether to store it compressed (see the module docs).
pub fn chosen(schema: &SchemaRef, pieces: &[RecordBatch], compression: Compression) -> Vec<bool> {
    (0..schema.fields().len())
        .map(|c| {
            let dt = schema.field(c).data_type();
            let (candidate, min_bytes) = match compression {
                Compression::ZeroCopy | Compression::Light => (has_offsets(dt), MIN_COMPRESSED_BYTES),
                Compression::Zstd => (is_compressible(dt), 0),
            };
            if !candidate || column_bytes(pieces, c) < min_bytes {
                return false;
            }
            CompressedColumn::new(dt, pieces.iter().map(|p| p.column(c).to_data()).collect()).first_run_pays()
        })
        .collect()
}

/// One column of a record batch, written compressed from its pieces.
pub struct CompressedColumn {
    data_type: DataType,
    pieces: Vec<ArrayData>,
    /// The row each piece starts at, and the number of rows.
    starts: Vec<usize>,
    /// The row each run starts at, and the number of rows.
    runs: Vec<usize>,
    nulls: bool,
}

impl CompressedColumn {
    /// The column of type `data_type` (see [`is_compressible`]) made of `pieces`, cut into runs.
    pub fn new(data_type: &DataType, pieces: Vec<ArrayData>) -> Self {
        debug_assert!(is_compressible(data_type));
        let mut starts = vec![0];
        for piece in &pieces {
            starts.push(starts.last().expect("starts at 0") + piece.len());
        }
        let rows = *starts.last().expect("starts at 0");
        let mut runs = vec![0];
        if has_offsets(data_type) {
            let (mut run_rows, mut run_bytes) = (0usize, 0usize);
            for piece in &pieces {
                let offsets = piece.buffer::<i32>(0);
                for i in 0..piece.len() {
                    run_rows += 1;
                    run_bytes += (offsets[i + 1] - offsets[i]) as usize;
                    if run_rows == RUN_ROWS || (run_bytes >= MAX_RUN_BYTES && run_rows % 8 == 0) {
                        runs.push(runs.last().expect("starts at 0") + run_rows);
                        (run_rows, run_bytes) = (0, 0);
                    }
                }
            }
        } else {
            runs.extend((RUN_ROWS..rows).step_by(RUN_ROWS));
        }
        if *runs.last().expect("starts at 0") < rows {
            runs.push(rows);
        }
        let nulls = pieces.iter().any(|p| p.null_count() > 0);
        Self { data_type: data_type.clone(), pieces, starts, runs, nulls }
    }

    /// Whether its first run's values compress to at most 3/4 of their bytes.
    fn first_run_pays(&self) -> bool {
        let Some(&end) = self.runs.get(1) else { return false };
        let pieces = self.rows(0, end);
        let (parts, mut scratch) = (self.values(&pieces), Vec::new());
        let values = contiguous(&parts, &mut scratch);
        match zstd::bulk::compress(values, LEVEL) {
            Ok(compressed) => 4 * compressed.len() <= 3 * values.len(),
            Err(_) => false,
        }
    }

    /// The buffers a record batch lists for it: validity, (offsets,) values.
    pub fn buffer_count(&self) -> usize {
        if has_offsets(&self.data_type) {
            3
        } else {
            2
        }
    }

    /// The pieces' rows `from..to`, as slices of the pieces.
    fn rows(&self, from: usize, to: usize) -> Vec<ArrayData> {
        let mut out = Vec::new();
        for (piece, (&start, &end)) in self.pieces.iter().zip(self.starts.iter().zip(&self.starts[1..])) {
            let (a, b) = (from.max(start), to.min(end));
            if a < b {
                out.push(piece.slice(a - start, b - a));
            }
        }
        out
    }

    /// The values bytes of `pieces` (slices of the column), in order.
    fn values(&self, pieces: &[ArrayData]) -> Vec<Buffer> {
        match self.data_type.primitive_width() {
            Some(width) => {
                pieces.iter().map(|d| d.buffers()[0].slice_with_length(d.offset() * width, d.len() * width)).collect()
            }
            None => pieces
                .iter()
                .map(|d| {
                    let offsets = d.buffer::<i32>(0);
                    let (first, last) = (offsets[0] as usize, offsets[d.len()] as usize);
                    d.buffers()[1].slice_with_length(first, last - first)
                })
                .collect(),
        }
    }

    /// Writes its buffer `i` (see [`Self::buffer_count`]): the uncompressed
    /// length, a frame per run, the index of the frames; nothing for a
    /// validity buffer of a column without NULLs. Its bytes after the length
    /// are added to `checksum`. Returns the bytes written.
    pub fn write_buffer(&self, i: usize, out: &mut impl Write, checksum: &mut crc32fast::Hasher) -> io::Result<usize> {
        if i == 0 && !self.nulls {
            return Ok(0);
        }
        let rows = *self.runs.last().expect("starts at 0");
        let mut compressor = zstd::bulk::Compressor::new(LEVEL)?;
        compressor.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
        let runs = self.runs.len() - 1;
        let mut index: Vec<(u32, u32)> = Vec::with_capacity(runs);
        let mut frame = Vec::new();
        let mut joined = Vec::new();
        let mut base = 0i64;
        let mut written = 8;
        let mut uncompressed = 0usize;
        // The buffer's uncompressed length comes first (Arrow's format).
        let total = match (i, has_offsets(&self.data_type)) {
            (0, _) => rows.div_ceil(8),
            (1, true) => 4 * (rows + 1),
            (_, true) => self.values(&self.rows(0, rows)).iter().map(|b| b.len()).sum(),
            (_, false) => rows * self.data_type.primitive_width().expect("fixed width"),
        };
        out.write_all(&(total as i64).to_le_bytes())?;
        for (k, (&from, &to)) in self.runs.iter().zip(&self.runs[1..]).enumerate() {
            let pieces = self.rows(from, to);
            let parts: Vec<Buffer> = match (i, has_offsets(&self.data_type)) {
                (0, _) => vec![bitmap(&pieces, to - from, |d| d.nulls().map(|n| n.inner().clone()))],
                (1, true) => {
                    let [offsets, _] = variable::<i32>(&pieces, "").map_err(io::Error::other)?;
                    let relative = offsets[0].typed_data::<i32>();
                    let keep = if k + 1 == runs { relative.len() } else { relative.len() - 1 };
                    let absolute: Vec<i32> = relative[..keep].iter().map(|&o| (base + i64::from(o)) as i32).collect();
                    base += i64::from(relative[relative.len() - 1]);
                    vec![Buffer::from_vec(absolute)]
                }
                _ => self.values(&pieces),
            };
            let source = contiguous(&parts, &mut joined);
            frame.clear();
            frame.reserve(zstd::zstd_safe::compress_bound(source.len()));
            compressor.compress_to_buffer(source, &mut frame)?;
            checksum.update(&frame);
            out.write_all(&frame)?;
            let too_long = || io::Error::other("a compressed frame beyond 4 GiB");
            index.push((
                u32::try_from(frame.len()).map_err(|_| too_long())?,
                u32::try_from(source.len()).map_err(|_| too_long())?,
            ));
            written += frame.len();
            uncompressed += source.len();
        }
        debug_assert_eq!(uncompressed, total);
        let mut tail = Vec::with_capacity(INDEX_OVERHEAD + 8 * index.len());
        tail.extend_from_slice(&INDEX_MAGIC.to_le_bytes());
        tail.extend_from_slice(&((INDEX_OVERHEAD - 8 + 8 * index.len()) as u32).to_le_bytes());
        for (compressed, length) in &index {
            tail.extend_from_slice(&compressed.to_le_bytes());
            tail.extend_from_slice(&length.to_le_bytes());
        }
        tail.extend_from_slice(&(index.len() as u32).to_le_bytes());
        checksum.update(&tail);
        out.write_all(&tail)?;
        Ok(written + tail.len())
    }
}

/// The bytes of `parts` one after the other: the one part itself, or several
/// joined in `scratch`.
fn contiguous<'a>(parts: &'a [Buffer], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    match parts {
        [one] => one.as_slice(),
        many => {
            scratch.clear();
            many.iter().for_each(|p| scratch.extend_from_slice(p.as_slice()));
            scratch
        }
    }
}
