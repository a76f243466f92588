//! Bit-packed integer columns of `compression = 'light'` tables: the last
//! step of [`crate::encoding::narrow`], below whole bytes.
//!
//! A column already narrowed (integers, dates and times as `Int8`, `Int16`
//! or `Int32`, decimals and few-decimal floats as their unscaled integers)
//! is cut into blocks of [`BLOCK`] values; each block is stored as its
//! smallest value (its frame of reference) and each value's distance from
//! it in as many bits as the block's largest distance needs. TPC-H's line
//! numbers take 3 bits, its discounts 4, its dates 12 and its order keys,
//! which come in runs, about 8 where byte alignment gave them 8, 8, 16 and
//! 32. Blocks are packed and unpacked by the `bitpacking` crate (SSE3 where
//! the processor has it, chosen at run time).
//!
//! Blocks are grouped in runs of [`RUN_ROWS`] rows (the last run of each
//! piece written may be shorter). In the file such a column is a standard
//! Arrow run-end encoded column of `LargeBinary` values, one value per run
//! (see [`packed_type`]): other Arrow tools read the file, but see this
//! column as binary runs, not as numbers (said in docs/sql.md). A run's
//! bytes are: a flags byte (1 when it has a validity bitmap), the bitmap
//! (one bit per row, set for values), each block's bit width (one byte),
//! each block's reference (little-endian, as wide as the column's values),
//! then the blocks' bits.
//!
//! A scan unpacks the runs its batch covers (see [`unpack`]), into the
//! narrowed type, which [`crate::encoding::decode`] widens.

use crate::error::{Error, Result};
use bitpacking::{BitPacker, BitPacker4x};
use datafusion::arrow::array::{
    new_empty_array, Array, ArrayRef, ArrowPrimitiveType, AsArray, BooleanBufferBuilder, Int32Array, LargeBinaryArray,
    PrimitiveArray, RunArray,
};
use datafusion::arrow::buffer::{NullBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{
    ArrowNativeType, DataType, Decimal32Type, Decimal64Type, Field, Int16Type, Int32Type, Int64Type, Int8Type,
};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

/// Values per block: one frame of reference and bit width each.
pub const BLOCK: usize = BitPacker4x::BLOCK_LEN;

/// Rows per run (one `LargeBinary` value of the stored column).
pub const RUN_ROWS: usize = 16 * BLOCK;

/// Field metadata key naming the type a packed column unpacks to.
const PACKED_KEY: &str = "swingdb.packed";

/// A column is packed when that takes at most this share of its narrowed
/// bytes (in sixteenths): less saving is not worth unpacking at every scan.
/// TPC-H's supplier keys (14 bits of 16) just pass.
const MAX_SHARE_SIXTEENTHS: usize = 15;

/// Whether a column of (narrowed) type `dt` can be packed: integers whose
/// values are 64 bits wide at most.
fn is_packable(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Decimal32(..)
            | DataType::Decimal64(..)
    )
}

/// The stored type of a packed column that unpacks to `physical`.
pub fn packed_type(physical: &DataType) -> DataType {
    let runs = Field::new("runs", DataType::LargeBinary, false)
        .with_metadata(HashMap::from([(PACKED_KEY.to_string(), physical.to_string())]));
    DataType::RunEndEncoded(Arc::new(Field::new("run_ends", DataType::Int32, false)), Arc::new(runs))
}

/// The type a packed column of stored type `stored` unpacks to; `None` when
/// `stored` is not a packed column's.
pub fn physical_type(stored: &DataType) -> Option<DataType> {
    let DataType::RunEndEncoded(ends, runs) = stored else { return None };
    if ends.data_type() != &DataType::Int32 || runs.data_type() != &DataType::LargeBinary {
        return None;
    }
    let physical = DataType::from_str(runs.metadata().get(PACKED_KEY)?).ok()?;
    is_packable(&physical).then_some(physical)
}

/// The pieces `arrays` of one narrowed column, packed (see the module
/// documentation), if that takes at most 15/16 of their bytes and every
/// block's values lie within 2^32 of each other.
pub fn pack(arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    let dt = arrays.first()?.data_type().clone();
    let packed = match &dt {
        DataType::Int8 => pack_pieces::<Int8Type>(arrays),
        DataType::Int16 => pack_pieces::<Int16Type>(arrays),
        DataType::Int32 => pack_pieces::<Int32Type>(arrays),
        DataType::Int64 => pack_pieces::<Int64Type>(arrays),
        DataType::Decimal32(..) => pack_pieces::<Decimal32Type>(arrays),
        DataType::Decimal64(..) => pack_pieces::<Decimal64Type>(arrays),
        _ => None,
    }?;
    let width = dt.primitive_width()?;
    let before: usize = arrays.iter().map(|a| a.len() * width + a.nulls().map_or(0, |_| a.len().div_ceil(8))).sum();
    let after: usize = packed.iter().map(|(_, runs)| runs.values().len() + 12 * runs.len()).sum();
    if after * 16 > before * MAX_SHARE_SIXTEENTHS {
        return None;
    }
    let stored = packed_type(&dt);
    packed
        .into_iter()
        .map(|(ends, runs)| {
            let array = RunArray::<Int32Type>::try_new(&ends, &runs).ok()?;
            let data = array.into_data().into_builder().data_type(stored.clone()).build().ok()?;
            Some(datafusion::arrow::array::make_array(data))
        })
        .collect()
}

/// Each piece's run ends and runs, if every block packs into 32 bits.
fn pack_pieces<T: ArrowPrimitiveType>(arrays: &[ArrayRef]) -> Option<Vec<(Int32Array, LargeBinaryArray)>>
where
    T::Native: Into<i64>,
{
    arrays.iter().map(|a| pack_piece(a.as_primitive_opt::<T>()?)).collect()
}

/// One piece's run ends and runs (see the module documentation).
fn pack_piece<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>) -> Option<(Int32Array, LargeBinaryArray)>
where
    T::Native: Into<i64>,
{
    let packer = BitPacker4x::new();
    let values = array.values();
    let reference_width = std::mem::size_of::<T::Native>();
    let mut ends = Vec::with_capacity(array.len().div_ceil(RUN_ROWS));
    let mut runs: Vec<Vec<u8>> = Vec::with_capacity(ends.capacity());
    let mut block = [0u32; BLOCK];
    let mut bits = [0u8; 4 * BLOCK];
    for start in (0..array.len()).step_by(RUN_ROWS) {
        let rows = RUN_ROWS.min(array.len() - start);
        let nulls = array.nulls().map(|n| n.slice(start, rows)).filter(|n| n.null_count() > 0);
        let blocks = rows.div_ceil(BLOCK);
        let mut run = vec![u8::from(nulls.is_some())];
        if let Some(nulls) = &nulls {
            run.extend_from_slice(nulls.inner().sliced().as_slice().get(..rows.div_ceil(8))?);
        }
        let widths_at = run.len();
        let references_at = widths_at + blocks;
        run.resize(references_at + reference_width * blocks, 0);
        for b in 0..blocks {
            let first = start + b * BLOCK;
            let count = BLOCK.min(start + rows - first);
            let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i - start));
            let reference = (first..first + count).filter(|&i| valid(i)).map(|i| values[i].into()).min().unwrap_or(0);
            // NULL slots (which may hold anything) and the padding of the
            // last block are stored as the reference.
            for (k, slot) in block.iter_mut().enumerate() {
                let i = first + k;
                let distance = if k < count && valid(i) { values[i].into().checked_sub(reference)? } else { 0 };
                *slot = u32::try_from(distance).ok()?;
            }
            let width = packer.num_bits(&block);
            let len = packer.compress(&block, &mut bits, width);
            run[widths_at + b] = width;
            // The reference is one of the values: its low bytes hold it.
            let at = references_at + reference_width * b;
            run[at..at + reference_width].copy_from_slice(&reference.to_le_bytes()[..reference_width]);
            run.extend_from_slice(&bits[..len]);
        }
        runs.push(run);
        ends.push(i32::try_from(start + rows).ok()?);
    }
    let runs: LargeBinaryArray = runs.iter().map(|r| Some(r.as_slice())).collect();
    Some((Int32Array::from(ends), runs))
}

/// The values of the packed column `array` (a slice of one, maybe), in the
/// type it unpacks to: the runs it covers, unpacked and checked.
pub fn unpack(array: &ArrayRef) -> Result<ArrayRef> {
    let physical = physical_type(array.data_type()).ok_or_else(|| Error::internal("not a packed column"))?;
    let runs = array.as_run_opt::<Int32Type>().ok_or_else(|| Error::internal("not a packed column"))?;
    if runs.is_empty() {
        return Ok(new_empty_array(&physical));
    }
    let ends = runs.run_ends().values();
    let (first, last) = (runs.get_start_physical_index(), runs.get_end_physical_index());
    let start = |k: usize| if k == 0 { 0 } else { ends[k - 1] as usize };
    let first_row = start(first);
    let blobs = runs.values().as_binary_opt::<i64>().ok_or_else(|| Error::internal("not a packed column"))?;
    let covered = (first..=last)
        .map(|k| Some((blobs.value(k), (ends[k] as usize).checked_sub(start(k)).filter(|&n| n > 0)?)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::corruption("a packed segment column is damaged: its run ends do not ascend"))?;
    let whole = match &physical {
        DataType::Int8 => unpack_runs::<Int8Type>(covered, &physical),
        DataType::Int16 => unpack_runs::<Int16Type>(covered, &physical),
        DataType::Int32 => unpack_runs::<Int32Type>(covered, &physical),
        DataType::Int64 => unpack_runs::<Int64Type>(covered, &physical),
        DataType::Decimal32(..) => unpack_runs::<Decimal32Type>(covered, &physical),
        DataType::Decimal64(..) => unpack_runs::<Decimal64Type>(covered, &physical),
        other => return Err(Error::internal(format!("{other} columns are not packed"))),
    }
    .map_err(|e| Error::corruption(format!("a packed segment column is damaged: {e}")))?;
    Ok(whole.slice(runs.offset() - first_row, runs.len()))
}

/// The runs `covered` (each run's bytes and rows) unpacked into one array
/// of type `physical` (whose values are `T`'s).
fn unpack_runs<T: ArrowPrimitiveType>(
    covered: Vec<(&[u8], usize)>,
    physical: &DataType,
) -> std::result::Result<ArrayRef, String> {
    let packer = BitPacker4x::new();
    let reference_width = std::mem::size_of::<T::Native>();
    let rows: usize = covered.iter().map(|(_, rows)| rows).sum();
    let mut values: Vec<T::Native> = Vec::with_capacity(rows.next_multiple_of(BLOCK));
    let mut validity: Option<BooleanBufferBuilder> = None;
    let mut block = [0u32; BLOCK];
    for (run, count) in covered {
        let done = values.len();
        let (&flags, rest) = run.split_first().ok_or("an empty run")?;
        let bitmap_len = if flags == 1 { count.div_ceil(8) } else { 0 };
        if flags > 1 || rest.len() < bitmap_len {
            return Err(format!("a run of {count} rows starts with flags {flags} in {} bytes", run.len()));
        }
        let (bitmap, rest) = rest.split_at(bitmap_len);
        if flags == 1 || validity.is_some() {
            let bits = validity.get_or_insert_with(|| {
                let mut all = BooleanBufferBuilder::new(rows);
                all.append_n(done, true);
                all
            });
            match flags {
                1 => bits.append_packed_range(0..count, bitmap),
                _ => bits.append_n(count, true),
            }
        }
        let blocks = count.div_ceil(BLOCK);
        let (widths, rest) = rest.split_at_checked(blocks).ok_or("a run ends in its bit widths")?;
        let (references, mut bits) =
            rest.split_at_checked(reference_width * blocks).ok_or("a run ends in its references")?;
        for (b, &width) in widths.iter().enumerate() {
            let size = BitPacker4x::compressed_block_size(width);
            if width > 32 || bits.len() < size {
                return Err(format!("block {b} of a run: {width} bits a value in {} bytes left", bits.len()));
            }
            packer.decompress(&bits[..size], &mut block, width);
            bits = &bits[size..];
            let reference = signed(&references[reference_width * b..reference_width * (b + 1)]);
            let take = BLOCK.min(count - b * BLOCK);
            // Wrapping, as the writer's narrowing was: a damaged reference
            // gives other numbers, never memory beyond the column.
            values.extend(
                block[..take].iter().map(|&d| T::Native::usize_as(reference.wrapping_add(i64::from(d)) as usize)),
            );
        }
        if !bits.is_empty() {
            return Err(format!("a run of {count} rows holds {} bytes beyond its blocks", bits.len()));
        }
    }
    let nulls = validity.map(|mut v| NullBuffer::new(v.finish())).filter(|n| n.null_count() > 0);
    let array = PrimitiveArray::<T>::new(ScalarBuffer::from(values), nulls);
    let data = array.into_data().into_builder().data_type(physical.clone()).build().map_err(|e| e.to_string())?;
    Ok(datafusion::arrow::array::make_array(data))
}

/// The little-endian signed integer of 1 to 8 bytes `bytes`.
fn signed(bytes: &[u8]) -> i64 {
    let mut wide = [0u8; 8];
    wide[..bytes.len()].copy_from_slice(bytes);
    let shift = 64 - 8 * bytes.len() as u32;
    (i64::from_le_bytes(wide) << shift) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Decimal32Array, Int16Array, Int32Array, Int8Array};

    /// `arrays` packed, each piece unpacked whole and in slices; their
    /// packed size in bytes.
    fn round_trip(arrays: Vec<ArrayRef>) -> Option<usize> {
        let packed = pack(&arrays)?;
        let mut bytes = 0;
        for (piece, stored) in arrays.iter().zip(&packed) {
            assert_eq!(physical_type(stored.data_type()).as_ref(), Some(piece.data_type()));
            assert_eq!(&unpack(stored).unwrap(), piece);
            for (from, len) in
                [(0, 1), (1, 130), (RUN_ROWS - 5, 10), (piece.len() / 2, piece.len() / 3), (piece.len(), 0)]
            {
                if from + len <= piece.len() {
                    assert_eq!(&unpack(&stored.slice(from, len)).unwrap(), &piece.slice(from, len), "{from}+{len}");
                }
            }
            bytes += stored.as_run::<Int32Type>().values().as_binary::<i64>().values().len();
        }
        Some(bytes)
    }

    #[test]
    fn blocks_take_the_bits_of_their_own_range() {
        let n = 100_003;
        // Keys that ascend (an order key of TPC-H's lineitem): ~8 bits a row.
        let keys: ArrayRef = Arc::new(Int32Array::from_iter_values((0..n).map(|i| 5_000_000 + i * 4 + i % 3)));
        let bytes = round_trip(vec![keys]).unwrap();
        assert!(bytes * 8 < n as usize * 11, "{bytes} bytes for {n} ascending keys");
        // Small codes: 3 bits each, and pieces cut anywhere.
        let small =
            |from: i32, len: i32| Arc::new(Int8Array::from_iter_values((from..from + len).map(|i| (i % 7) as i8)));
        let bytes = round_trip(vec![small(0, 70_001), small(3, 5), small(9, 40_000)]).unwrap();
        assert!(bytes * 8 < 110_006 * 4, "{bytes} bytes for 3-bit codes");
        // Negative numbers and both extremes of the type, decimals keep their type.
        let low: ArrayRef = Arc::new(Int16Array::from_iter_values((0..5000).map(|i| i16::MIN + (i % 2) * 9)));
        let high: ArrayRef = Arc::new(Int16Array::from_iter_values((0..3000).map(|i| i16::MAX - (i % 4) as i16)));
        assert!(round_trip(vec![low, high]).is_some());
        let prices: ArrayRef = Arc::new(
            Decimal32Array::from_iter_values((0..9000).map(|i| 90_000 + (i * 7919) % 10_000_000))
                .with_precision_and_scale(9, 2)
                .unwrap(),
        );
        assert!(round_trip(vec![prices]).is_some());
        let far: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from_iter_values(
            (0..3000).map(|i| -5_000_000_000_000 - i * i),
        ));
        assert!(round_trip(vec![far]).is_some(), "64-bit references");
    }

    #[test]
    fn nulls_come_back_where_they_were() {
        let values: ArrayRef = Arc::new(Int32Array::from_iter((0..20_000).map(|i| (i % 11 != 3).then_some(i % 1000))));
        let mostly: ArrayRef = Arc::new(Int32Array::from_iter((0..3_000).map(|i| (i == 7).then_some(12))));
        let none: ArrayRef = Arc::new(Int32Array::from_iter_values(0..5_000));
        // A piece without NULLs between two with.
        assert!(round_trip(vec![values.clone(), none, mostly]).is_some());
        let packed = pack(std::slice::from_ref(&values)).unwrap();
        assert_eq!(unpack(&packed[0]).unwrap().null_count(), values.null_count());
    }

    #[test]
    fn columns_that_do_not_shrink_stay_as_they_are() {
        let mut x = 88172645463325252u64;
        let noise: ArrayRef = Arc::new(Int32Array::from_iter_values((0..10_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as i32
        })));
        assert!(pack(&[noise]).is_none(), "random 32-bit values");
        let far: ArrayRef = Arc::new(datafusion::arrow::array::Int64Array::from(vec![i64::MIN, i64::MAX]));
        assert!(pack(&[far]).is_none(), "a block wider than 32 bits");
        let strings: ArrayRef = Arc::new(datafusion::arrow::array::StringArray::from(vec!["a"]));
        assert!(pack(&[strings]).is_none());
    }

    #[test]
    fn damaged_runs_are_refused_not_read_beyond() {
        let values: ArrayRef = Arc::new(Int32Array::from_iter_values((0..5_000).map(|i| i * 3)));
        let packed = pack(&[values]).unwrap().remove(0);
        let runs = packed.as_run::<Int32Type>();
        let blobs = runs.values().as_binary::<i64>();
        // Each damage of the first run: a width beyond 32 bits, bytes cut
        // short, bytes added, flags unknown.
        let first = blobs.value(0).to_vec();
        let mut wide = first.clone();
        wide[1] = 40;
        let damaged = [
            wide,
            first[..first.len() - 1].to_vec(),
            [first.as_slice(), &[0]].concat(),
            [&[7u8], &first[1..]].concat(),
        ];
        for bytes in damaged {
            let mut all: Vec<Vec<u8>> = (0..blobs.len()).map(|k| blobs.value(k).to_vec()).collect();
            all[0] = bytes;
            let blobs: LargeBinaryArray = all.iter().map(|b| Some(b.as_slice())).collect();
            let ends: Int32Array = runs.run_ends().values().iter().copied().collect();
            let array = RunArray::<Int32Type>::try_new(&ends, &blobs).unwrap();
            let data = array.into_data().into_builder().data_type(packed.data_type().clone()).build().unwrap();
            let err = unpack(&datafusion::arrow::array::make_array(data)).unwrap_err();
            assert_eq!(err.kind(), crate::error::ErrorKind::Corruption, "{}", err.message());
        }
    }
}
