//! The totals of [`super::sum::WideSum`] per group, for GROUP BY: one
//! running 128-bit total and count per group, side by side in memory.

use super::few_totals;
use super::wide::{by_input_type, for_each_value, Finish};
use datafusion::arrow::array::{downcast_integer, Array, ArrayRef, AsArray, BooleanArray, PrimitiveArray, UInt64Array};
use datafusion::arrow::buffer::BooleanBuffer;
use datafusion::arrow::datatypes::{ArrowPrimitiveType, DataType, Decimal128Type, UInt64Type};
use datafusion::common::{internal_err, Result as DFResult};
use datafusion::logical_expr::{EmitTo, GroupsAccumulator};
use datafusion_functions_aggregate_common::aggregate::groups_accumulator::accumulate::accumulate;
use std::sync::Arc;

/// Totals per group for GROUP BY.
pub(super) struct WideGroups {
    finish: Finish,
    groups: Vec<GroupTotal>,
}

/// One group's running total and count, side by side: with many groups,
/// rows reach them at random, and one cache line holds both (as separate
/// arrays, each row missed the cache twice: on the micro-benchmark's 2.68M
/// groups the sums took 31 % of the query's CPU time).
#[derive(Debug, Clone, Copy, Default)]
struct GroupTotal {
    total: i128,
    count: u64,
}

impl WideGroups {
    /// No groups yet; totals finish as `finish` says.
    pub(super) fn new(finish: Finish) -> Self {
        Self { finish, groups: vec![] }
    }

    /// Adds `values` (inputs or partial totals) into the groups; `counts`
    /// (partial counts) replaces counting one per value.
    fn add(
        &mut self,
        values: &ArrayRef,
        counts: Option<&UInt64Array>,
        groups: &[usize],
        filter: Option<&BooleanArray>,
        n: usize,
    ) -> DFResult<()> {
        self.grow(n);
        if counts.is_none() && n <= LANE_GROUPS {
            macro_rules! lanes {
                ($t:ty) => {
                    self.add_in_lanes(values.as_primitive::<$t>(), groups, filter)
                };
            }
            let added = by_input_type!(values.data_type(), lanes);
            return match added {
                true => Ok(()),
                false => Err(self.finish.overflow()),
            };
        }
        let mut overflow = false;
        let totals = &mut self.groups;
        let mut add = |group: &mut GroupTotal, v: i128| match group.total.checked_add(v) {
            Some(t) => group.total = t,
            None => overflow = true,
        };
        match (values.data_type(), counts) {
            // Partial states without NULLs (as `state` makes them): each
            // state's total and count in one visit to its group.
            (DataType::Decimal128(..), Some(counts)) if values.null_count() == 0 && counts.null_count() == 0 => {
                let states = values.as_primitive::<Decimal128Type>().values().iter().zip(counts.values());
                for ((&total, &count), &g) in states.zip(groups) {
                    let group = &mut totals[g];
                    add(group, total);
                    group.count += count;
                }
            }
            (_, Some(counts)) => {
                accumulate(groups, values.as_primitive::<Decimal128Type>(), None, |g, v| add(&mut totals[g], v));
                accumulate(groups, counts, None, |g, c| totals[g].count += c);
            }
            (data_type, None) => {
                macro_rules! each {
                    ($t:ty) => {
                        accumulate(groups, values.as_primitive::<$t>(), filter, |g, v| {
                            let group = &mut totals[g];
                            add(group, i128::from(v));
                            group.count += 1;
                        })
                    };
                }
                by_input_type!(data_type, each);
            }
        }
        if overflow {
            return Err(self.finish.overflow());
        }
        Ok(())
    }

    /// Makes room for `n` groups. Capacity grows by doubling, in huge pages
    /// where the kernel has them (see [`swingdb_storage::huge_pages`]).
    fn grow(&mut self, n: usize) {
        if n > self.groups.capacity() {
            let mut groups = Vec::with_capacity(n.max(2 * self.groups.capacity()));
            swingdb_storage::huge_pages::prefer(groups.spare_capacity_mut());
            groups.extend_from_slice(&self.groups);
            self.groups = groups;
        }
        self.groups.resize(n, GroupTotal::default());
    }
}

/// Most groups for which [`WideGroups`] adds a batch in lanes.
const LANE_GROUPS: usize = 1024;

/// Copies of the totals a batch is spread over (see [`WideGroups::add_in_lanes`]).
const LANES: usize = 8;

/// The least fraction of a batch's rows (numerator, denominator) a filter
/// must keep for [`WideGroups::add_in_lanes`] to go over every row, adding
/// the dropped ones as zeros, rather than over the kept rows' positions.
/// On TPC-H Q1 with its filter as a mask (98.5 % kept), going over the
/// positions made the additions take twice as long as without a mask.
const DENSE: (usize, usize) = (1, 2);

impl WideGroups {
    /// Adds a batch of input values when there are few groups. Adding row by
    /// row into a few totals makes each addition wait for the previous one
    /// to the same group to be stored (consecutive rows of a low-cardinality
    /// key hit the same total): row `i` is added into copy `i % LANES` of the
    /// totals instead, and the copies are folded in at the end of the batch.
    /// Measured on TPC-H Q1 (4 groups, seven sums and averages): the
    /// additions took 25 % of the query's time row by row, 20 % in 4 lanes,
    /// and the query's fastest run 190-197 ms went to 177-191. Once Q1's
    /// filter became a mask (every row visited), 8 lanes laid out group by
    /// group (a row's copy is `group * LANES + row % LANES`: a shift, not a
    /// multiply) used 5-15 % less CPU than 4 laid out lane by lane.
    /// Up to [`few_totals::FEW`] groups, totals are kept in registers instead
    /// (see [`few_totals`]: Q1's query time halved). False when a total
    /// overflowed 128 bits.
    fn add_in_lanes<T>(&mut self, values: &PrimitiveArray<T>, groups: &[usize], filter: Option<&BooleanArray>) -> bool
    where
        T: ArrowPrimitiveType,
        T::Native: few_totals::Value,
    {
        let filter = filter.map(|f| match f.nulls() {
            Some(valid) => f.values() & valid.inner(),
            None => f.values().clone(),
        });
        let kept = match (values.nulls(), filter) {
            (None, None) => None,
            (Some(valid), None) => Some(valid.inner().clone()),
            (None, Some(filter)) => Some(filter),
            (Some(valid), Some(filter)) => Some(valid.inner() & &filter),
        };
        let raw = values.values();
        if self.groups.len() <= few_totals::FEW {
            if let Some(few) = few_totals::totals(raw, groups, kept.as_ref()) {
                return self.fold(few.totals.into_iter().zip(few.counts).take(self.groups.len()).enumerate());
            }
        }
        match self.add_narrow(raw, groups, kept.as_ref()) {
            Some(added) => added,
            None => self.add_wide(raw, groups, kept.as_ref()),
        }
    }

    /// [`WideGroups::add_in_lanes`] in 64-bit lanes, the batch's totals folded
    /// into the 128-bit ones at its end: a 128-bit addition into memory is two
    /// dependent instructions (the high word waits for the low word's carry),
    /// a 64-bit one is one. `None`, with nothing added, when a value or a
    /// lane's total does not fit 64 bits (then [`WideGroups::add_wide`]).
    /// On TPC-H Q1 (seven DECIMAL(15,2) sums and averages, alternating
    /// builds, 20 runs each) the query used 5-10 % less CPU than with
    /// 128-bit lanes only.
    fn add_narrow<V: Copy + Into<i128>>(
        &mut self,
        raw: &[V],
        groups: &[usize],
        kept: Option<&BooleanBuffer>,
    ) -> Option<bool> {
        let n = self.groups.len();
        let mut totals = vec![0i64; LANES * n];
        let mut counts = vec![0u64; LANES * n];
        let mut wide = false;
        each_row(raw.len(), kept, |row, kept| {
            let slot = groups[row] * LANES + row % LANES;
            let value: i128 = raw[row].into();
            let narrow = value as i64;
            let (total, carried) = totals[slot].overflowing_add(narrow & -(kept as i64));
            totals[slot] = total;
            wide |= carried | (narrow as i128 != value);
            counts[slot] += kept;
        });
        if wide {
            return None;
        }
        Some(self.fold_lanes(totals.into_iter().map(i128::from), &counts))
    }

    /// [`WideGroups::add_in_lanes`] in 128-bit lanes.
    fn add_wide<V: Copy + Into<i128>>(&mut self, raw: &[V], groups: &[usize], kept: Option<&BooleanBuffer>) -> bool {
        let n = self.groups.len();
        let mut totals = vec![0i128; LANES * n];
        let mut counts = vec![0u64; LANES * n];
        let mut overflow = false;
        each_row(raw.len(), kept, |row, kept| {
            let slot = groups[row] * LANES + row % LANES;
            let value: i128 = raw[row].into();
            let (total, carried) = totals[slot].overflowing_add(value & -(kept as i128));
            totals[slot] = total;
            overflow |= carried;
            counts[slot] += kept;
        });
        self.fold_lanes(totals.into_iter(), &counts) && !overflow
    }

    /// Adds lanes of totals and counts ([`LANES`] per group, group by group)
    /// into the groups'; false when a total overflowed 128 bits.
    fn fold_lanes(&mut self, totals: impl Iterator<Item = i128>, counts: &[u64]) -> bool {
        self.fold(totals.zip(counts.iter().copied()).enumerate().map(|(slot, lane)| (slot / LANES, lane)))
    }

    /// Adds (group, (total, count)) pairs into the groups'; false when a
    /// total overflowed 128 bits.
    fn fold(&mut self, totals: impl Iterator<Item = (usize, (i128, u64))>) -> bool {
        let mut overflow = false;
        for (group, (total, count)) in totals {
            let group = &mut self.groups[group];
            match group.total.checked_add(total) {
                Some(t) => group.total = t,
                None => overflow = true,
            }
            group.count += count;
        }
        !overflow
    }
}

/// Calls `add(row, 1)` for each of `len` rows that `kept` (if any) keeps.
/// When it keeps most of them (a folded filter's mask), every row is
/// visited and a dropped one is `add(row, 0)`: branch-free, where a branch
/// on the mask would mispredict at every dropped row, and no slower than
/// finding the kept rows' positions.
fn each_row(len: usize, kept: Option<&BooleanBuffer>, mut add: impl FnMut(usize, u64)) {
    match kept {
        None => (0..len).for_each(|row| add(row, 1)),
        Some(kept) if kept.count_set_bits() * DENSE.1 >= kept.len() * DENSE.0 => {
            let chunks = kept.inner().bit_chunks(kept.offset(), kept.len());
            for (chunk, bits) in chunks.iter().enumerate() {
                (0..64).for_each(|bit| add(chunk * 64 + bit, bits >> bit & 1));
            }
            let (rest, bits) = (chunks.chunk_len() * 64, chunks.remainder_bits());
            (0..chunks.remainder_len()).for_each(|bit| add(rest + bit, bits >> bit & 1));
        }
        Some(kept) => kept.set_indices().for_each(|row| add(row, 1)),
    }
}

impl WideGroups {
    /// The totals and counts of the groups `emit_to` names, taken out.
    fn take(&mut self, emit_to: EmitTo) -> (Vec<i128>, Vec<u64>) {
        emit_to.take_needed(&mut self.groups).into_iter().map(|g| (g.total, g.count)).unzip()
    }
}

impl GroupsAccumulator for WideGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        groups: &[usize],
        filter: Option<&BooleanArray>,
        n: usize,
    ) -> DFResult<()> {
        self.add(&values[0], None, groups, filter, n)
    }

    fn merge_batch(&mut self, states: &[ArrayRef], groups: &[usize], n: usize) -> DFResult<()> {
        self.add(&states[0], Some(states[1].as_primitive::<UInt64Type>()), groups, None, n)
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> DFResult<ArrayRef> {
        let (totals, counts) = self.take(emit_to);
        self.finish.results(&totals, &counts)
    }

    fn state(&mut self, emit_to: EmitTo) -> DFResult<Vec<ArrayRef>> {
        let (totals, counts) = self.take(emit_to);
        Ok(vec![self.finish.state_totals(totals)?, Arc::new(UInt64Array::from(counts))])
    }

    /// Each input row as its own partial state (used when grouping barely
    /// reduces the rows): its value and a count of one, or zero and none.
    fn convert_to_state(&self, values: &[ArrayRef], filter: Option<&BooleanArray>) -> DFResult<Vec<ArrayRef>> {
        let rows = values[0].len();
        let (mut totals, mut counts) = (vec![0i128; rows], vec![0u64; rows]);
        let kept = |row: usize| filter.is_none_or(|f| f.is_valid(row) && f.value(row));
        for_each_value(&values[0], |row, v| {
            if kept(row) {
                (totals[row], counts[row]) = (v, 1);
            }
        })?;
        Ok(vec![self.finish.state_totals(totals)?, Arc::new(UInt64Array::from(counts))])
    }

    fn size(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<GroupTotal>()
    }
}
