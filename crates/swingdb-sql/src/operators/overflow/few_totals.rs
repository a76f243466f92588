//! Totals of a batch over at most [`FEW`] groups, each group's running total
//! held in a register.
//!
//! TPC-H Q1 sums seven columns into four groups. Adding row by row into
//! totals in memory costs a load and a store per row and aggregate, and the
//! next row to the same group waits for the store. Here each row is instead
//! compared with every group id and added, masked, into every group's total:
//! no memory is written, and the loop has no branch and no dependence
//! between rows but the additions: eight rows at a time in AVX-512
//! instructions or four in AVX2 ones (written by hand for 64- and 128-bit
//! values, the widest the processor has chosen at run time, so one build
//! runs on any x86-64), a portable loop elsewhere. A block's totals stay in
//! vector registers until its last row (added up per 64 rows, the AVX-512
//! loop spent a quarter of its time adding lanes together).

use datafusion::arrow::buffer::BooleanBuffer;

/// Most groups [`totals`] adds into.
pub const FEW: usize = 4;

/// Rows added in 64 bits before their totals are carried into 128 bits.
const BLOCK_ROWS: usize = 4096;

/// Values from -SMALL up to (not including) SMALL are added in 64 bits:
/// [`BLOCK_ROWS`] of them total at most 2^62 in magnitude.
const SMALL: i64 = 1 << 50;

/// Each group's total and count of the rows of one batch.
#[derive(Debug, Default, PartialEq)]
pub struct Totals {
    /// Each group's total of the kept rows' values.
    pub totals: [i128; FEW],
    /// Each group's number of kept rows.
    pub counts: [u64; FEW],
}

/// The totals of `values` by group (`groups[row]`, each below [`FEW`]),
/// counting only the rows `kept` (if any) keeps; `None` when a value is
/// outside -2^50..2^50 (the caller then adds another way).
pub fn totals<V: Value>(values: &[V], groups: &[usize], kept: Option<&BooleanBuffer>) -> Option<Totals> {
    let rows = values.len().min(groups.len());
    totals_by(&values[..rows], |start, end| &groups[start..end], kept)
}

/// The total and count of the `values` that `kept` (if any) keeps, as
/// [`totals`] adds them into one group; `None` as there.
pub fn total<V: Value>(values: &[V], kept: Option<&BooleanBuffer>) -> Option<(i128, u64)> {
    static GROUP_ZERO: [usize; BLOCK_ROWS] = [0; BLOCK_ROWS];
    let out = totals_by(values, |start, end| &GROUP_ZERO[..end - start], kept)?;
    Some((out.totals[0], out.counts[0]))
}

/// [`totals`], with the group ids of rows `start..end` (one block) given by
/// `groups`.
fn totals_by<'g, V: Value>(
    values: &[V],
    groups: impl Fn(usize, usize) -> &'g [usize],
    kept: Option<&BooleanBuffer>,
) -> Option<Totals> {
    let vectors = Vectors::available();
    let mut out = Totals::default();
    let rows = values.len();
    let mut words = [u64::MAX; BLOCK_ROWS / 64];
    for start in (0..rows).step_by(BLOCK_ROWS) {
        let end = rows.min(start + BLOCK_ROWS);
        let mut block = Block::default();
        if let Some(kept) = kept {
            let chunks = kept.inner().bit_chunks(kept.offset() + start, end - start);
            for (to, word) in words.iter_mut().zip(chunks.iter().chain(std::iter::once(chunks.remainder_bits()))) {
                *to = word;
            }
        }
        V::add_block(&mut block, &values[start..end], groups(start, end), &words, vectors);
        if block.large != 0 {
            return None;
        }
        for group in 0..FEW {
            out.totals[group] += i128::from(block.totals[group]);
            out.counts[group] += block.counts[group] as u64;
        }
    }
    Some(out)
}

/// The vector instructions the processor has, of those [`totals`] uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Vectors {
    /// None: the portable loop.
    None,
    /// AVX2: four 64-bit lanes.
    Avx2,
    /// AVX-512 (foundation): eight 64-bit lanes and mask registers.
    Avx512,
}

impl Vectors {
    /// The widest this processor has (checked once, then cached by the
    /// standard library).
    fn available() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Vectors::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Vectors::Avx2;
            }
        }
        Vectors::None
    }
}

/// An integer type whose values [`totals`] adds.
pub trait Value: Copy + Into<i128> {
    /// [`Block::add`] in AVX2 instructions: by hand for 64- and 128-bit
    /// values, compiled from the portable loop for the others.
    #[cfg(target_arch = "x86_64")]
    const AVX2: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = vector::add_any::<Self>;

    /// [`Block::add`] in AVX-512 instructions: by hand for 64- and 128-bit
    /// values, the AVX2 loop for the others.
    #[cfg(target_arch = "x86_64")]
    const AVX512: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = Self::AVX2;

    /// Adds the rows of a block (at most [`BLOCK_ROWS`]) into `block`, the
    /// ones whose bit in `kept` (one word per 64 rows) is 0 into no group,
    /// with the vector instructions `vectors` (which the processor has).
    #[inline(always)]
    fn add_block(block: &mut Block, values: &[Self], groups: &[usize], kept: &[u64], vectors: Vectors) {
        #[cfg(target_arch = "x86_64")]
        match vectors {
            // SAFETY: the processor has AVX-512 (foundation).
            Vectors::Avx512 => return unsafe { Self::AVX512(block, values, groups, kept) },
            // SAFETY: the processor has AVX2.
            Vectors::Avx2 => return unsafe { Self::AVX2(block, values, groups, kept) },
            Vectors::None => {}
        }
        let _ = vectors;
        block.add_rows(values, groups, kept, 0)
    }
}

impl Value for i8 {}
impl Value for i16 {}
impl Value for i32 {}
impl Value for u8 {}
impl Value for u16 {}
impl Value for u32 {}
impl Value for u64 {}

impl Value for i64 {
    #[cfg(target_arch = "x86_64")]
    const AVX2: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = vector::add_i64;
    #[cfg(target_arch = "x86_64")]
    const AVX512: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = wide_vector::add_i64;
}

impl Value for i128 {
    #[cfg(target_arch = "x86_64")]
    const AVX2: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = vector::add_i128;
    #[cfg(target_arch = "x86_64")]
    const AVX512: unsafe fn(&mut Block, &[Self], &[usize], &[u64]) = wide_vector::add_i128;
}

/// The running totals of one block of rows.
#[derive(Default)]
pub struct Block {
    totals: [i64; FEW],
    counts: [i64; FEW],
    /// Nonzero once a value outside -[`SMALL`]..[`SMALL`] was seen.
    large: u64,
}

impl Block {
    /// Adds the rows of `values` from `from` on (see
    /// [`Value::add_block`]), up to 64 at a time.
    #[inline(always)]
    fn add_rows<V: Copy + Into<i128>>(&mut self, values: &[V], groups: &[usize], kept: &[u64], from: usize) {
        let rows = values.len().min(groups.len());
        let mut at = from;
        while at < rows {
            let to = rows.min((at / 64 + 1) * 64);
            self.add(&values[at..to], &groups[at..to], kept[at / 64] >> (at % 64));
            at = to;
        }
    }

    /// Adds up to 64 rows, the ones whose bit in `kept` is 0 into no group.
    /// The values are narrowed to 64 bits first, in a loop of their own: in
    /// one loop with the sums, 128-bit values kept the compiler to two rows
    /// per vector instruction instead of four.
    #[inline(always)]
    fn add<V: Copy + Into<i128>>(&mut self, values: &[V], groups: &[usize], kept: u64) {
        let mut narrow = [0i64; 64];
        for (to, value) in narrow.iter_mut().zip(values) {
            let value: i128 = (*value).into();
            let (low, high) = (value as i64, (value >> 64) as i64);
            self.large |= (high ^ (low >> 63)) as u64 | u64::from(low.wrapping_add(SMALL) as u64 >= 2 * SMALL as u64);
            *to = low;
        }
        for (bit, (low, group)) in narrow.iter().zip(groups).enumerate() {
            // A dropped row's group is beyond every group's id.
            let group = *group as u64 | ((kept >> bit) & 1 ^ 1) << 32;
            for g in 0..FEW {
                let mask = -i64::from(group == g as u64);
                self.totals[g] += low & mask;
                self.counts[g] -= mask;
            }
        }
    }
}

/// [`Block::add`] in AVX2 instructions, four rows at a time: each row's
/// group id compared with every group's, the value masked by the result and
/// added into that group's four lanes. Compiled from the loop of
/// [`Block::add`], 128-bit values went two rows at a time: 1.5 ns a row
/// for 128-bit values and 1.3 for 64-bit ones (4 groups, 8192 rows in
/// cache, a mask keeping 99 %); these take 1.2 and 0.8.
#[cfg(target_arch = "x86_64")]
mod vector {
    use super::{Block, FEW, SMALL};
    use std::arch::x86_64::*;

    /// The loop over four rows at a time; `$load(row)` gives rows
    /// `row..row + 4` as (low 64 bits, nonzero lanes where a value is not
    /// small) in the lane order `$order` (the rows' positions, as
    /// `_mm256_permute4x64_epi64` takes them).
    macro_rules! four_at_a_time {
        ($block:expr, $rows:expr, $groups:expr, $kept:expr, $order:expr, $lane_bits:expr, $load:expr) => {{
            let block: &mut Block = $block;
            let (groups, kept): (&[usize], &[u64]) = ($groups, $kept);
            let rows = $rows.min(groups.len()) / 4 * 4;
            let zero = _mm256_setzero_si256();
            let (mut totals, mut counts, mut large) = ([zero; FEW], [zero; FEW], zero);
            let lane_bits = $lane_bits;
            let ids: [__m256i; FEW] = std::array::from_fn(|g| _mm256_set1_epi64x(g as i64));
            let mut row = 0;
            while row < rows {
                let (low, not_small) = $load(row);
                large = _mm256_or_si256(large, not_small);
                // SAFETY: rows row..row + 4 are within `groups`.
                let group = unsafe { _mm256_loadu_si256(groups.as_ptr().add(row) as *const __m256i) };
                let group = _mm256_permute4x64_epi64::<$order>(group);
                let bits = _mm256_set1_epi64x((kept[row / 64] >> (row % 64)) as i64);
                let keep = _mm256_cmpeq_epi64(_mm256_and_si256(bits, lane_bits), lane_bits);
                for g in 0..FEW {
                    let hit = _mm256_and_si256(_mm256_cmpeq_epi64(group, ids[g]), keep);
                    totals[g] = _mm256_add_epi64(totals[g], _mm256_and_si256(low, hit));
                    counts[g] = _mm256_sub_epi64(counts[g], hit);
                }
                row += 4;
            }
            // SAFETY: a 256-bit vector is four 64-bit lanes, any bits valid.
            let lanes = |v: __m256i| -> [i64; 4] { unsafe { std::mem::transmute(v) } };
            for g in 0..FEW {
                block.totals[g] += lanes(totals[g]).iter().sum::<i64>();
                block.counts[g] += lanes(counts[g]).iter().sum::<i64>();
            }
            block.large |= lanes(large).iter().fold(0, |any, lane| any | *lane as u64);
            rows
        }};
    }

    /// Nonzero lanes where `low` is outside -SMALL..SMALL.
    #[target_feature(enable = "avx2")]
    fn not_small(low: __m256i) -> __m256i {
        _mm256_srli_epi64::<51>(_mm256_add_epi64(low, _mm256_set1_epi64x(SMALL)))
    }

    /// [`Block::add`] of 64-bit values.
    #[target_feature(enable = "avx2")]
    pub fn add_i64(block: &mut Block, values: &[i64], groups: &[usize], kept: &[u64]) {
        let done = four_at_a_time!(
            block,
            values.len(),
            groups,
            kept,
            0b11_10_01_00,
            _mm256_setr_epi64x(1, 2, 4, 8),
            |row: usize| {
                // SAFETY: rows row..row + 4 are within `values`.
                let low = unsafe { _mm256_loadu_si256(values.as_ptr().add(row) as *const __m256i) };
                (low, not_small(low))
            }
        );
        block.add_rows(values, groups, kept, done);
    }

    /// [`Block::add`] of 128-bit values: two vectors of two values each,
    /// their low and high halves gathered into rows 0, 2, 1, 3.
    #[target_feature(enable = "avx2")]
    pub fn add_i128(block: &mut Block, values: &[i128], groups: &[usize], kept: &[u64]) {
        let done = four_at_a_time!(
            block,
            values.len(),
            groups,
            kept,
            0b11_01_10_00,
            _mm256_setr_epi64x(1, 4, 2, 8),
            |row: usize| {
                // SAFETY: rows row..row + 4 are within `values`.
                let (a, b) = unsafe {
                    let at = values.as_ptr().add(row) as *const __m256i;
                    (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1)))
                };
                let (low, high) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
                let sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), low);
                (low, _mm256_or_si256(_mm256_xor_si256(high, sign), not_small(low)))
            }
        );
        block.add_rows(values, groups, kept, done);
    }

    /// [`Block::add`] of narrower values, compiled for AVX2.
    #[target_feature(enable = "avx2")]
    pub fn add_any<V: Copy + Into<i128>>(block: &mut Block, values: &[V], groups: &[usize], kept: &[u64]) {
        block.add_rows(values, groups, kept, 0)
    }
}

/// [`Block::add`] in AVX-512 instructions, eight rows at a time: a row's
/// group compared with each group's id under the mask of kept rows gives a
/// mask register, under which the value is added to that group's lanes and
/// one to its counts. Where the AVX2 loop needs a compare, two ANDs, an add
/// and a subtract per group and four rows, this needs a compare and two
/// masked adds per group and eight rows.
#[cfg(target_arch = "x86_64")]
mod wide_vector {
    use super::{Block, FEW, SMALL};
    use std::arch::x86_64::*;

    /// The loop over eight rows at a time; `$load(row)` gives rows
    /// `row..row + 8` as (low 64 bits, nonzero lanes where a value is not
    /// small), in row order.
    macro_rules! eight_at_a_time {
        ($block:expr, $rows:expr, $groups:expr, $kept:expr, $load:expr) => {{
            let block: &mut Block = $block;
            let (groups, kept): (&[usize], &[u64]) = ($groups, $kept);
            let rows = $rows.min(groups.len()) / 8 * 8;
            let zero = _mm512_setzero_si512();
            let one = _mm512_set1_epi64(1);
            let (mut totals, mut counts, mut large) = ([zero; FEW], [zero; FEW], zero);
            let ids: [__m512i; FEW] = std::array::from_fn(|g| _mm512_set1_epi64(g as i64));
            let mut row = 0;
            while row < rows {
                let (low, not_small) = $load(row);
                large = _mm512_or_si512(large, not_small);
                // SAFETY: rows row..row + 8 are within `groups`.
                let group = unsafe { _mm512_loadu_si512(groups.as_ptr().add(row) as *const __m512i) };
                let keep = (kept[row / 64] >> (row % 64)) as __mmask8;
                for g in 0..FEW {
                    let hit = _mm512_mask_cmpeq_epi64_mask(keep, group, ids[g]);
                    totals[g] = _mm512_mask_add_epi64(totals[g], hit, totals[g], low);
                    counts[g] = _mm512_mask_add_epi64(counts[g], hit, counts[g], one);
                }
                row += 8;
            }
            for g in 0..FEW {
                block.totals[g] += _mm512_reduce_add_epi64(totals[g]);
                block.counts[g] += _mm512_reduce_add_epi64(counts[g]);
            }
            block.large |= _mm512_reduce_or_epi64(large) as u64;
            rows
        }};
    }

    /// Nonzero lanes where `low` is outside -SMALL..SMALL.
    #[target_feature(enable = "avx512f")]
    fn not_small(low: __m512i) -> __m512i {
        _mm512_srli_epi64::<51>(_mm512_add_epi64(low, _mm512_set1_epi64(SMALL)))
    }

    /// [`Block::add`] of 64-bit values.
    #[target_feature(enable = "avx512f")]
    pub fn add_i64(block: &mut Block, values: &[i64], groups: &[usize], kept: &[u64]) {
        let done = eight_at_a_time!(block, values.len(), groups, kept, |row: usize| {
            // SAFETY: rows row..row + 8 are within `values`.
            let low = unsafe { _mm512_loadu_si512(values.as_ptr().add(row) as *const __m512i) };
            (low, not_small(low))
        });
        block.add_rows(values, groups, kept, done);
    }

    /// [`Block::add`] of 128-bit values: two vectors of four values each,
    /// their low and high halves gathered in row order.
    #[target_feature(enable = "avx512f")]
    pub fn add_i128(block: &mut Block, values: &[i128], groups: &[usize], kept: &[u64]) {
        let lows = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
        let highs = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
        let done = eight_at_a_time!(block, values.len(), groups, kept, |row: usize| {
            // SAFETY: rows row..row + 8 are within `values`.
            let (a, b) = unsafe {
                let at = values.as_ptr().add(row) as *const __m512i;
                (_mm512_loadu_si512(at), _mm512_loadu_si512(at.add(1)))
            };
            let (low, high) = (_mm512_permutex2var_epi64(a, lows, b), _mm512_permutex2var_epi64(a, highs, b));
            let sign = _mm512_srai_epi64::<63>(low);
            (low, _mm512_or_si512(_mm512_xor_si512(high, sign), not_small(low)))
        });
        block.add_rows(values, groups, kept, done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The totals added one row at a time.
    fn expected(values: &[i128], groups: &[usize], kept: Option<&BooleanBuffer>) -> Totals {
        let mut out = Totals::default();
        for (row, (v, g)) in values.iter().zip(groups).enumerate() {
            if kept.is_none_or(|k| k.value(row)) {
                out.totals[*g] += v;
                out.counts[*g] += 1;
            }
        }
        out
    }

    #[test]
    fn totals_match_adding_row_by_row_over_blocks_masks_and_offsets() {
        let rows = 2 * BLOCK_ROWS + 77;
        let values: Vec<i128> = (0..rows as i128).map(|i| (i * 7919 % 20011 - 10000) * 1_000_000_007).collect();
        let groups: Vec<usize> = (0..rows).map(|i| i * 31 % 97 % FEW).collect();
        assert_eq!(totals(&values, &groups, None), Some(expected(&values, &groups, None)));
        let bits: Vec<bool> = (0..rows + 5).map(|i| i % 3 != 0 && i % 11 != 5).collect();
        // A mask that starts mid-word, as a slice of a filter does.
        let kept = BooleanBuffer::from(bits).slice(5, rows);
        assert_eq!(totals(&values, &groups, Some(&kept)), Some(expected(&values, &groups, Some(&kept))));
        let narrow: Vec<i64> = values.iter().map(|v| *v as i64).collect();
        assert_eq!(totals(&narrow, &groups, Some(&kept)), Some(expected(&values, &groups, Some(&kept))));
        // One group, no group ids: what totals adds into group 0.
        let zeros = vec![0; rows];
        for kept in [None, Some(&kept)] {
            let one = expected(&values, &zeros, kept);
            assert_eq!(total(&values, kept), Some((one.totals[0], one.counts[0])));
        }
        let mut large = values.clone();
        large[BLOCK_ROWS + 3] = 1 << 64;
        assert_eq!(total(&large, None), None);
    }

    #[test]
    fn the_vector_loops_add_what_the_portable_loop_adds() {
        let available = Vectors::available();
        let mut kinds = vec![Vectors::None];
        if available != Vectors::None {
            kinds.push(Vectors::Avx2);
        }
        if available == Vectors::Avx512 {
            kinds.push(Vectors::Avx512);
        }
        for kind in kinds {
            adds_as_the_portable_loop(kind);
        }
    }

    fn adds_as_the_portable_loop(vectors: Vectors) {
        let wide: Vec<i128> = (0..250).map(|i| (i * 7919 % 211 - 100) * 1_000_003).collect();
        let narrow: Vec<i64> = wide.iter().map(|v| *v as i64).collect();
        let groups: Vec<usize> = (0..250).map(|i| i * 5 % 7 % FEW).collect();
        let kept = [0xF0F0_F0F0_0F0F_0F3Du64, u64::MAX, 0x1234_5678_9ABC_DEF0, 0x0F0F_FFFF_0000_8001];
        // Lengths that are not multiples of four or eight, as a batch's last block's are.
        for rows in [250, 247, 64, 61, 7, 0] {
            let mut expected = Block::default();
            for row in 0..rows {
                expected.add(&wide[row..row + 1], &groups[row..row + 1], kept[row / 64] >> (row % 64));
            }
            let (mut a, mut b) = (Block::default(), Block::default());
            i128::add_block(&mut a, &wide[..rows], &groups[..rows], &kept, vectors);
            i64::add_block(&mut b, &narrow[..rows], &groups[..rows], &kept, vectors);
            for block in [a, b] {
                let found = (block.totals, block.counts, block.large);
                assert_eq!(found, (expected.totals, expected.counts, 0), "{vectors:?} {rows} rows");
            }
        }
        // A large value in any lane is seen.
        for lane in 0..16 {
            for large in [i128::from(SMALL), -i128::from(SMALL) - 1, 1 << 64, -(1 << 64)] {
                let mut values = vec![1i128; 16];
                values[lane] = large;
                let mut block = Block::default();
                i128::add_block(&mut block, &values, &groups[..16], &[u64::MAX], vectors);
                assert_ne!(block.large, 0, "{vectors:?} lane {lane} value {large}");
                if let Ok(narrow) = i64::try_from(large) {
                    let mut values = vec![1i64; 16];
                    values[lane] = narrow;
                    let mut block = Block::default();
                    i64::add_block(&mut block, &values, &groups[..16], &[u64::MAX], vectors);
                    assert_ne!(block.large, 0, "{vectors:?} lane {lane} value {large}");
                }
            }
        }
    }

    #[test]
    fn a_large_value_is_left_to_the_caller_even_where_dropped() {
        let groups = vec![0, 1, 2, 3];
        for large in [i128::from(SMALL), -i128::from(SMALL) - 1, 1 << 64, i128::MIN] {
            let values = vec![1, 2, large, 4];
            assert_eq!(totals(&values, &groups, None), None, "{large}");
            let kept = BooleanBuffer::from(vec![true, true, false, true]);
            assert_eq!(totals(&values, &groups, Some(&kept)), None, "{large}");
        }
        let values = vec![1, SMALL as i128 - 1, -(SMALL as i128), 4];
        assert_eq!(totals(&values, &groups, None), Some(expected(&values, &groups, None)));
    }
}
