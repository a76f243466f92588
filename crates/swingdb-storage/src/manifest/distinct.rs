//! Distinct-count sketches: a HyperLogLog per column per segment, kept in the
//! manifest with the column's min/max, merged across segments when a scan is
//! planned, so that DataFusion estimates join and GROUP BY sizes from the
//! number of distinct values instead of guessing (TPC-H Q18 built its
//! semi-join's hash table from 6M rows instead of 57 without them).
//!
//! The hash is defined here, not taken from a hashing crate, because sketches
//! are stored: two builds (or two machines, with and without AES instructions)
//! must hash a value alike for their sketches to merge.

use base64::Engine;
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::DataType;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bits of the hash that choose a register: 2^7 = 128 registers (128 bytes,
/// 172 characters in the manifest), a standard error of about 9 %, which is
/// plenty for choosing join sides and sizing hash tables.
const INDEX_BITS: u32 = 7;
const REGISTERS: usize = 1 << INDEX_BITS;

/// A HyperLogLog sketch of the distinct non-NULL values of a column.
#[derive(Clone, PartialEq, Eq)]
pub struct DistinctSketch {
    registers: [u8; REGISTERS],
}

impl std::fmt::Debug for DistinctSketch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DistinctSketch(~{})", self.estimate())
    }
}

impl DistinctSketch {
    fn empty() -> Self {
        Self { registers: [0; REGISTERS] }
    }

    /// The sketch of `array`'s non-NULL values, or `None` for a type it does
    /// not hash (nested types, dictionaries).
    pub fn of(array: &ArrayRef) -> Option<Self> {
        let mut sketch = Self::empty();
        let nulls = array.logical_nulls();
        match array.data_type() {
            DataType::Boolean => sketch.add_all(nulls, array.as_boolean().values().iter().map(|b| mix(b as u64))),
            DataType::Utf8 => {
                sketch.add_all(nulls, array.as_string::<i32>().iter().map(|s| hash_bytes(s.unwrap_or("").as_bytes())))
            }
            DataType::LargeUtf8 => {
                sketch.add_all(nulls, array.as_string::<i64>().iter().map(|s| hash_bytes(s.unwrap_or("").as_bytes())))
            }
            DataType::Utf8View => {
                sketch.add_all(nulls, array.as_string_view().iter().map(|s| hash_bytes(s.unwrap_or("").as_bytes())))
            }
            DataType::Binary => {
                sketch.add_all(nulls, array.as_binary::<i32>().iter().map(|s| hash_bytes(s.unwrap_or(&[]))))
            }
            DataType::LargeBinary => {
                sketch.add_all(nulls, array.as_binary::<i64>().iter().map(|s| hash_bytes(s.unwrap_or(&[]))))
            }
            data_type => {
                let width = data_type.primitive_width()?;
                let data = array.to_data();
                let bytes =
                    &data.buffers().first()?.as_slice()[data.offset() * width..(data.offset() + data.len()) * width];
                match width {
                    // The common widths get loops the compiler specializes.
                    4 => sketch.add_all(nulls, bytes.chunks_exact(4).map(hash_fixed)),
                    8 => sketch.add_all(nulls, bytes.chunks_exact(8).map(hash_fixed)),
                    _ => sketch.add_all(nulls, bytes.chunks_exact(width).map(hash_fixed)),
                }
            }
        }
        Some(sketch)
    }

    /// Adds the hashes of an array's values, skipping those `nulls` marks.
    /// Generic rather than over `dyn Iterator`: a call per value cost more
    /// than the hashing (a third of storing lineitem's statistics).
    fn add_all(&mut self, nulls: Option<NullBuffer>, hashes: impl Iterator<Item = u64>) {
        match nulls {
            Some(nulls) if nulls.null_count() > 0 => {
                for (valid, hash) in nulls.iter().zip(hashes) {
                    if valid {
                        self.add(hash);
                    }
                }
            }
            _ => hashes.for_each(|hash| self.add(hash)),
        }
    }

    fn add(&mut self, hash: u64) {
        let index = (hash >> (64 - INDEX_BITS)) as usize;
        // The rank of the first 1 bit after the index bits, at most 64 - INDEX_BITS + 1.
        let rank = ((hash << INDEX_BITS) | (1 << (INDEX_BITS - 1))).leading_zeros() as u8 + 1;
        let register = &mut self.registers[index];
        *register = (*register).max(rank);
    }

    /// The sketch of the values of both.
    pub fn merged(&self, other: &Self) -> Self {
        let mut out = self.clone();
        for (mine, theirs) in out.registers.iter_mut().zip(other.registers.iter()) {
            *mine = (*mine).max(*theirs);
        }
        out
    }

    /// The estimated number of distinct values (HyperLogLog with linear
    /// counting for small counts, which makes them near exact).
    pub fn estimate(&self) -> u64 {
        let m = REGISTERS as f64;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let raw = alpha * m * m / sum;
        let estimate = if raw <= 2.5 * m && zeros > 0 { m * (m / zeros as f64).ln() } else { raw };
        estimate.round() as u64
    }
}

/// Stored as base64 of its registers.
impl Serialize for DistinctSketch {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(self.registers))
    }
}

impl<'de> Deserialize<'de> for DistinctSketch {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(text).map_err(serde::de::Error::custom)?;
        let registers =
            bytes.try_into().map_err(|_| serde::de::Error::custom("a distinct-count sketch of the wrong size"))?;
        Ok(Self { registers })
    }
}

/// splitmix64's finalizer: every input bit reaches every output bit.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A fixed-width value's hash (its little-endian bytes, up to 8 at a time).
#[inline]
fn hash_fixed(bytes: &[u8]) -> u64 {
    if bytes.len() <= 8 {
        return mix(le_word(bytes));
    }
    hash_bytes(bytes)
}

/// A byte string's hash, length included.
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = mix(bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        h = mix(h ^ u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = mix(h ^ le_word(rest).rotate_left(7));
    }
    h
}

/// The little-endian number of up to 8 bytes (zeros above them), read with
/// loads of the bytes in place: copying them into a zeroed word and loading
/// that stalls the load until the copy retires (store forwarding fails), and
/// the stall was most of the time storing lineitem spent on its sketches.
#[inline]
pub(crate) fn le_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let u32_at = |at: usize| u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")));
    match n {
        8 => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        // Two overlapping 4-byte loads; the bytes both cover are the same in each.
        4..=7 => u32_at(0) | (u32_at(n - 4) << (8 * (n - 4))),
        1..=3 => {
            u64::from(bytes[0])
                | (u64::from(bytes[n / 2]) << (8 * (n / 2)))
                | (u64::from(bytes[n - 1]) << (8 * (n - 1)))
        }
        0 => 0,
        _ => unreachable!("at most 8 bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Decimal128Array, Int32Array, Int64Array, StringArray};
    use std::sync::Arc;

    fn estimate(array: ArrayRef) -> u64 {
        DistinctSketch::of(&array).unwrap().estimate()
    }

    #[test]
    fn words_are_the_bytes_zero_padded_as_stored_sketches_hashed_them() {
        // Sketches are stored: the word of a value must stay what copying its
        // bytes into a zeroed u64 gave.
        let bytes: Vec<u8> = (0..8u8).map(|i| i.wrapping_mul(37).wrapping_add(0x91)).collect();
        for n in 0..=8 {
            let mut word = [0u8; 8];
            word[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(le_word(&bytes[..n]), u64::from_le_bytes(word), "{n} bytes");
        }
        // Hashes the implementation before this one gave (computed apart, in Python).
        assert_eq!(hash_bytes(b"swingdb sketches!"), 0xd166_6025_e3d9_c33f);
        assert_eq!(hash_bytes(b"abcde"), 0xb4db_b0c4_51b5_e212);
        assert_eq!(hash_bytes(b"ab"), 0xbf3f_2ff2_e333_8d65);
        assert_eq!(hash_fixed(&(-7i32).to_le_bytes()), 0x7d2b_3532_0bf1_ffc5);
    }

    #[test]
    fn small_counts_are_near_exact_and_large_ones_within_a_few_standard_errors() {
        assert_eq!(estimate(Arc::new(Int64Array::from(vec![7; 1000]))), 1);
        assert_eq!(estimate(Arc::new(StringArray::from(vec!["A", "N", "R", "N", "A"]))), 3);
        assert_eq!(estimate(Arc::new(Int32Array::from(Vec::<i32>::new()))), 0);
        for n in [1_000i64, 100_000, 1_500_000] {
            let got = estimate(Arc::new(Int64Array::from_iter_values((0..n).map(|i| i * 4)))) as f64;
            // 3 standard errors (about 9 % each).
            assert!((got / n as f64 - 1.0).abs() < 0.28, "{n} distinct estimated as {got}");
            let text = (0..n).map(|i| format!("Customer#{i:09}")).collect::<Vec<_>>();
            let got = estimate(Arc::new(StringArray::from(text))) as f64;
            assert!((got / n as f64 - 1.0).abs() < 0.28, "{n} distinct strings estimated as {got}");
        }
    }

    #[test]
    fn nulls_are_not_values_and_slices_hash_only_their_rows() {
        let sketch = |array: ArrayRef| DistinctSketch::of(&array).unwrap();
        assert_eq!(
            sketch(Arc::new(Int64Array::from(vec![Some(1), None, Some(2), None]))),
            sketch(Arc::new(Int64Array::from(vec![1, 2])))
        );
        let wide: ArrayRef =
            Arc::new(Decimal128Array::from_iter_values(0..10_000).with_precision_and_scale(15, 2).unwrap());
        let tail: ArrayRef =
            Arc::new(Decimal128Array::from_iter_values(9_990..10_000).with_precision_and_scale(15, 2).unwrap());
        assert_eq!(sketch(wide.slice(9_990, 10)), sketch(tail));
        assert_ne!(sketch(wide.slice(0, 10)), sketch(wide.slice(9_990, 10)));
        let text: ArrayRef = Arc::new(StringArray::from(vec!["a", "b", "c", "d"]));
        assert_eq!(sketch(text.slice(1, 2)), sketch(Arc::new(StringArray::from(vec!["b", "c"]))));
    }

    #[test]
    fn merged_sketches_count_values_once_and_survive_the_manifest_text() {
        let a = DistinctSketch::of(&(Arc::new(Int64Array::from_iter_values(0..50_000)) as ArrayRef)).unwrap();
        let b = DistinctSketch::of(&(Arc::new(Int64Array::from_iter_values(25_000..75_000)) as ArrayRef)).unwrap();
        let both = a.merged(&b).estimate() as f64;
        assert!((both / 75_000.0 - 1.0).abs() < 0.28, "{both}");
        let text = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<DistinctSketch>(&text).unwrap(), a);
        assert!(serde_json::from_str::<DistinctSketch>("\"AAAA\"").is_err());
    }
}
