//! Group ids for rows grouped by one integer column whose values are dense:
//! a range not much wider than the number of distinct values (ids, dates
//! as day numbers, keys of a dimension table).
//!
//! Each key's group id sits in an array at the key's offset from the
//! range's start: one read per row, where DataFusion's hash table hashes the
//! key, reads a control word, a bucket and the group's stored value (three
//! places in memory, each a cache miss once the groups outgrow the cache).
//! On the micro-benchmark's grouping of 26.8M rows into 2.68M groups that
//! lookup was 60 % of the query's CPU time.

use datafusion::arrow::array::{downcast_integer, Array, ArrayRef, AsArray, Int64Builder, PrimitiveArray};
use datafusion::arrow::compute::{cast, max, min};
use datafusion::arrow::datatypes::{ArrowNativeType, ArrowNumericType, DataType};
use datafusion::common::{internal_err, Result};

/// Most slots (key values) a [`DenseKeys`] array may span: 128 MiB of ids
/// per partition. A hash table of as many groups takes more (DataFusion's
/// stores 16 bytes per group plus the key, at most 7/8 full).
pub const MAX_SLOTS: usize = 1 << 25;

/// How much wider than the number of distinct values (by the statistics'
/// estimate) a key range may be for [`DenseKeys`]: at 4, its 4-byte slots
/// take at most 16 bytes per group, no more than a hash table's.
pub const MAX_SPARSITY: usize = 4;

/// Whether [`DenseKeys`] can group by a column of `data_type`.
pub fn supported(data_type: &DataType) -> bool {
    data_type.is_integer()
}

/// Group ids by key offset for one integer grouping column (see the module
/// documentation). Ids are given in order of first appearance, from 0, as
/// DataFusion's `GroupValues` gives them.
pub struct DenseKeys {
    data_type: DataType,
    /// The key of slot 0.
    base: i64,
    /// Per slot, its key's group id + 1; 0 while the key has no group.
    slots: Vec<u32>,
    /// Most slots the array may grow to when keys fall outside it.
    limit: usize,
    /// Each group's key, by group id (any value for the NULL group).
    keys: Vec<i64>,
    /// The group of NULL keys, once there is one.
    null_group: Option<usize>,
}

impl DenseKeys {
    /// Group ids for a column of `data_type` whose values the statistics
    /// put in `min..=max`; `None` when that spans more than [`MAX_SLOTS`].
    /// Keys outside the range widen it, up to twice its width.
    pub fn new(data_type: DataType, min: i64, max: i64) -> Option<Self> {
        let width = usize::try_from(max.checked_sub(min)?).ok()?.checked_add(1)?;
        if width > MAX_SLOTS {
            return None;
        }
        let limit = (2 * width).min(MAX_SLOTS);
        Some(Self { data_type, base: min, slots: slots(width), limit, keys: vec![], null_group: None })
    }

    /// The groups so far.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Sets `groups` to the group id of each row of `keys`, adding groups as
    /// needed; false, with no group added, when a key lies beyond what the
    /// array may grow to (the caller then groups another way).
    pub fn intern(&mut self, keys: &ArrayRef, groups: &mut Vec<usize>) -> Result<bool> {
        macro_rules! typed {
            ($t:ty, $dense:expr) => {
                $dense.intern_typed(keys.as_primitive::<$t>(), groups)
            };
        }
        downcast_integer! {
            keys.data_type() => (typed, self),
            other => internal_err!("dense group ids for {other}"),
        }
    }

    fn intern_typed<T: ArrowNumericType>(&mut self, keys: &PrimitiveArray<T>, groups: &mut Vec<usize>) -> Result<bool> {
        groups.clear();
        let (Some(low), Some(high)) = (min(keys), max(keys)) else {
            // No key, or NULLs only.
            groups.extend((0..keys.len()).map(|_| self.null_group()));
            return Ok(true);
        };
        let (Some(low), Some(high)) = (low.to_i64(), high.to_i64()) else { return Ok(false) };
        if !self.cover(low, high) {
            return Ok(false);
        }
        groups.reserve(keys.len());
        let base = self.base;
        // `as_usize` is a plain cast (sign-extending), so `as i64` gives back
        // the key; `cover` refused unsigned keys beyond i64 and made every
        // key of the batch a slot.
        let offset = |key: T::Native| (key.as_usize() as i64 - base) as usize;
        match keys.nulls().filter(|n| n.null_count() > 0) {
            None => {
                let (slots, all) = (&mut self.slots, &mut self.keys);
                groups.extend(keys.values().iter().map(|k| group_at(slots, all, offset(*k), base)));
            }
            Some(valid) => {
                for (row, key) in keys.values().iter().enumerate() {
                    groups.push(match valid.is_valid(row) {
                        true => group_at(&mut self.slots, &mut self.keys, offset(*key), base),
                        false => self.null_group(),
                    });
                }
            }
        }
        Ok(true)
    }

    /// The NULL key's group, added if it has none yet.
    fn null_group(&mut self) -> usize {
        *self.null_group.get_or_insert_with(|| {
            self.keys.push(0);
            self.keys.len() - 1
        })
    }

    /// Widens the array to hold keys `low..=high`; false when it would span
    /// more than its limit.
    fn cover(&mut self, low: i64, high: i64) -> bool {
        let end = self.base + self.slots.len() as i64;
        if low >= self.base && high < end {
            return true;
        }
        let (base, last) = (low.min(self.base), high.max(end - 1));
        let width = match last.checked_sub(base).and_then(|w| usize::try_from(w).ok()) {
            Some(w) if w < self.limit => w + 1,
            _ => return false,
        };
        let mut slots = slots(width);
        for (group, key) in self.keys.iter().enumerate() {
            if self.null_group != Some(group) {
                slots[(key - base) as usize] = group as u32 + 1;
            }
        }
        (self.base, self.slots) = (base, slots);
        true
    }

    /// Every group's key, by group id, as an array of the column's type.
    pub fn emit(&self) -> Result<Vec<ArrayRef>> {
        let mut keys = Int64Builder::with_capacity(self.keys.len());
        for (group, key) in self.keys.iter().enumerate() {
            match self.null_group == Some(group) {
                true => keys.append_null(),
                false => keys.append_value(*key),
            }
        }
        Ok(vec![cast(&keys.finish(), &self.data_type)?])
    }
}

/// `width` empty slots. The memory comes zeroed from the allocator (pages of
/// keys never seen are never touched) and in huge pages where the kernel
/// has them: rows look up slots at random, and with 4 KiB pages most
/// lookups in an array of millions of slots also missed the TLB.
fn slots(width: usize) -> Vec<u32> {
    let slots = vec![0u32; width];
    swingdb_storage::huge_pages::prefer(&slots);
    slots
}

/// The group of the key in slot `offset` (`base + offset`), added to `keys`
/// if it has none yet.
#[inline]
fn group_at(slots: &mut [u32], keys: &mut Vec<i64>, offset: usize, base: i64) -> usize {
    let slot = &mut slots[offset];
    if *slot == 0 {
        keys.push(base + offset as i64);
        *slot = keys.len() as u32;
    }
    *slot as usize - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int32Array, UInt64Array};
    use datafusion::arrow::datatypes::Int32Type;
    use std::sync::Arc;

    fn ids(dense: &mut DenseKeys, keys: ArrayRef) -> Option<Vec<usize>> {
        let mut groups = vec![];
        dense.intern(&keys, &mut groups).unwrap().then_some(groups)
    }

    #[test]
    fn keys_get_ids_in_order_of_first_appearance_and_come_back_with_nulls() {
        let mut dense = DenseKeys::new(DataType::Int32, 10, 19).unwrap();
        let keys: ArrayRef = Arc::new(Int32Array::from(vec![Some(15), None, Some(10), Some(15), None, Some(19)]));
        assert_eq!(ids(&mut dense, keys).unwrap(), [0, 1, 2, 0, 1, 3]);
        assert_eq!(dense.len(), 4);
        let back = dense.emit().unwrap();
        assert_eq!(back[0].as_primitive::<Int32Type>(), &Int32Array::from(vec![Some(15), None, Some(10), Some(19)]));
    }

    #[test]
    fn keys_beyond_the_statistics_widen_the_array_up_to_twice_and_keep_the_groups() {
        let mut dense = DenseKeys::new(DataType::Int32, 100, 199).unwrap();
        assert_eq!(ids(&mut dense, Arc::new(Int32Array::from(vec![150, 100]))).unwrap(), [0, 1]);
        // Below the range and above it: 60..=239 is 180 slots, within 200.
        assert_eq!(ids(&mut dense, Arc::new(Int32Array::from(vec![60, 150, 239, 100]))).unwrap(), [2, 0, 3, 1]);
        assert_eq!(dense.base, 60);
        // 60..=300 would be 241 slots: refused, nothing added.
        assert!(ids(&mut dense, Arc::new(Int32Array::from(vec![61, 300]))).is_none());
        assert_eq!(dense.len(), 4);
        assert_eq!(ids(&mut dense, Arc::new(Int32Array::from(vec![239, 61]))).unwrap(), [3, 4]);
    }

    #[test]
    fn ranges_too_wide_and_unsigned_keys_beyond_i64_are_refused() {
        assert!(DenseKeys::new(DataType::Int64, 0, MAX_SLOTS as i64).is_none());
        assert!(DenseKeys::new(DataType::Int64, i64::MIN, i64::MAX).is_none());
        let mut dense = DenseKeys::new(DataType::UInt64, 0, 10).unwrap();
        assert!(ids(&mut dense, Arc::new(UInt64Array::from(vec![1, u64::MAX]))).is_none());
        assert_eq!(ids(&mut dense, Arc::new(UInt64Array::from(vec![3, 3]))).unwrap(), [0, 0]);
    }
}
