//! Group ids for rows whose grouping columns take few distinct values.
//!
//! Each grouping column's values get small ids of their own (a short string
//! or an integer is one 128-bit key, looked up in a small open-addressing
//! table of the column's keys); a row's ids, each in its own bits, index a
//! table of group ids. Per row that is a few comparisons and
//! one table read, where a general hash table hashes every value and
//! compares it with the group's stored bytes.

use datafusion::arrow::array::{
    new_empty_array, Array, ArrayRef, AsArray, BooleanArray, GenericByteArray, GenericByteViewArray,
};
use datafusion::arrow::datatypes::{
    ArrowNativeType, ByteArrayType, ByteViewType, DataType, Date32Type, Date64Type, Decimal128Type, Int16Type,
    Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::common::{internal_err, Result, ScalarValue};
use std::collections::HashMap;

/// Most bits a row's column ids may take together: the group table then has
/// at most 2^16 entries (256 KiB).
const TABLE_BITS: u32 = 16;

/// Whether [`FewGroupValues`] can group by a column of `data_type`. Floats
/// are not (SQL's `-0.0 = 0.0` and NaN make equal keys of different bits).
pub fn supported(data_type: &DataType) -> bool {
    data_type.is_integer()
        || matches!(
            data_type,
            DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::Boolean
                | DataType::Date32
                | DataType::Date64
                | DataType::Decimal128(..)
        )
}

/// The distinct values of one grouping column, each with a small id.
struct KeyColumn {
    data_type: DataType,
    /// Ids by key: open addressing, at most half full, a free slot's id is
    /// [`FREE`]. While the keys are few, the table is laid out so that each
    /// sits in the slot its hash names (see [`KeyColumn::settle`]): a lookup
    /// is one hash, one load and one comparison that goes the same way row
    /// after row. (With linear probing, TPC-H Q1's "N" and "R" shared a slot
    /// and the quarter of rows with "R" mispredicted.)
    slots: Vec<(u128, u32)>,
    /// The hash's multiplier, chosen by [`KeyColumn::settle`].
    seed: u64,
    /// Ids of one-byte values (strings and integers of 0 to 255), by the
    /// byte, once seen ([`FREE`] before): a flag's or code's id is one load,
    /// with no key to build and hash (that took a fifth of TPC-H Q1).
    bytes: Box<[u32; 256]>,
    /// Ids of values that are not one key (strings over 12 bytes).
    long: HashMap<Box<[u8]>, u32>,
    /// The id of NULL, once seen.
    null: Option<u32>,
    /// Each id's value, for the output.
    values: Vec<ScalarValue>,
}

/// The id of a free slot of [`KeyColumn::slots`].
const FREE: u32 = u32::MAX;

/// Where `key` starts its search in `slots` of length `mask + 1`, hashed
/// with the odd multiplier `seed`.
#[inline]
fn slot_of(key: u128, seed: u64, mask: usize) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(32);
    (folded.wrapping_mul(seed) >> 40) as usize & mask
}

/// The first hash multiplier (the golden ratio's, odd).
const FIRST_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// The multiplier tried after `seed` when keys share a slot (odd, so every
/// multiplier is a bijection on 64 bits).
fn next_seed(seed: u64) -> u64 {
    seed.wrapping_mul(0x5851_F42D_4C95_7F2D).wrapping_add(0x1405_7B7E_F767_814F) | 1
}

/// Most keys [`KeyColumn::settle`] places each in its own hashed slot; above
/// that, keys that share a slot are found by probing.
const SETTLED_KEYS: usize = 64;

/// Most slots [`KeyColumn::settle`] may grow the table to (16 bytes of key
/// and 4 of id each, 32 with padding: 128 KiB).
const MOST_SLOTS: usize = 1 << 12;

/// The key of the byte string of `len` (at most 12) bytes at `start` of
/// `data`: its length and its bytes, laid out as Arrow's string views lay
/// out short strings. Read as one 16-byte load where the buffer allows
/// (copying the bytes and reading them back made the load wait for the
/// copy: a third of TPC-H Q1's time).
#[inline]
fn short_key(data: &[u8], start: usize, len: usize) -> u128 {
    let bytes = match data.get(start..start + 16) {
        Some(window) => u128::from_le_bytes(window.try_into().unwrap_or([0; 16])) & ((1u128 << (len * 8)) - 1),
        None => {
            let mut key = [0u8; 16];
            key[..len].copy_from_slice(&data[start..start + len]);
            u128::from_le_bytes(key)
        }
    };
    len as u128 | bytes << 32
}

/// [`short_key`] of the one-byte string `byte`.
#[inline]
fn byte_key(byte: u8) -> u128 {
    1 | (byte as u128) << 32
}

/// `keys` in `size` slots hashed with `seed`, if each has a slot of its own.
fn separated(keys: &[(u128, u32)], seed: u64, size: usize) -> Option<Vec<(u128, u32)>> {
    let mut slots = vec![(0, FREE); size];
    for &(key, id) in keys {
        let slot = &mut slots[slot_of(key, seed, size - 1)];
        if slot.1 != FREE {
            return None;
        }
        *slot = (key, id);
    }
    Some(slots)
}

impl KeyColumn {
    fn new(data_type: DataType) -> Self {
        Self {
            data_type,
            slots: vec![(0, FREE); 16],
            seed: FIRST_SEED,
            bytes: Box::new([FREE; 256]),
            long: HashMap::new(),
            null: None,
            values: vec![],
        }
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    /// The id of `key`; `value` gives the value when it is new.
    #[inline]
    fn id(&mut self, key: u128, value: impl FnOnce() -> Result<ScalarValue>) -> Result<u32> {
        let mask = self.slots.len() - 1;
        let (k, id) = self.slots[slot_of(key, self.seed, mask)];
        if k == key && id != FREE {
            return Ok(id);
        }
        self.probe(key, value)
    }

    /// [`KeyColumn::id`] of a one-byte value `byte` whose key is `key`.
    #[inline]
    fn byte_id(&mut self, byte: u8, key: u128, value: impl FnOnce() -> Result<ScalarValue>) -> Result<u32> {
        match self.bytes[byte as usize] {
            FREE => {
                let id = self.id(key, value)?;
                self.bytes[byte as usize] = id;
                Ok(id)
            }
            id => Ok(id),
        }
    }

    /// [`KeyColumn::id`] of a key that is not in its own slot: one of many
    /// keys sharing slots, or a new key.
    #[cold]
    fn probe(&mut self, key: u128, value: impl FnOnce() -> Result<ScalarValue>) -> Result<u32> {
        let mask = self.slots.len() - 1;
        let mut at = slot_of(key, self.seed, mask);
        loop {
            let (k, id) = self.slots[at];
            if id == FREE {
                break;
            }
            if k == key {
                return Ok(id);
            }
            at = (at + 1) & mask;
        }
        let id = self.add(value()?);
        self.slots[at] = (key, id);
        let home = at == slot_of(key, self.seed, mask);
        if self.slots.len() < 2 * self.keys() || (!home && self.keys() <= SETTLED_KEYS) {
            self.settle();
        }
        Ok(id)
    }

    /// Keys in the slots.
    fn keys(&self) -> usize {
        self.values.len() - self.long.len() - usize::from(self.null.is_some())
    }

    /// Lays the keys out again, at most half full: while they are at most
    /// [`SETTLED_KEYS`], with the first multiplier (and table size, up to
    /// [`MOST_SLOTS`]) that gives each its own slot; otherwise, or when
    /// none does, by linear probing. (For k keys in n slots, a random
    /// multiplier separates them with probability about e^(-k^2/2n): a few
    /// tries for the handful of values of a flag, a larger table for more.)
    fn settle(&mut self) {
        let keys: Vec<(u128, u32)> = self.slots.iter().copied().filter(|(_, id)| *id != FREE).collect();
        let mut size = (2 * keys.len()).next_power_of_two().max(self.slots.len());
        if keys.len() <= SETTLED_KEYS {
            let mut seed = FIRST_SEED;
            loop {
                for _ in 0..8 {
                    if let Some(slots) = separated(&keys, seed, size) {
                        (self.slots, self.seed) = (slots, seed);
                        return;
                    }
                    seed = next_seed(seed);
                }
                if size >= MOST_SLOTS {
                    break;
                }
                size *= 2;
            }
        }
        self.seed = FIRST_SEED;
        self.slots = vec![(0, FREE); size];
        let mask = size - 1;
        for (key, id) in keys {
            let mut at = slot_of(key, self.seed, mask);
            while self.slots[at].1 != FREE {
                at = (at + 1) & mask;
            }
            self.slots[at] = (key, id);
        }
    }

    /// The id of a value that is not one key.
    fn long_id(&mut self, bytes: &[u8], value: impl FnOnce() -> Result<ScalarValue>) -> Result<u32> {
        if let Some(id) = self.long.get(bytes) {
            return Ok(*id);
        }
        let id = self.add(value()?);
        self.long.insert(bytes.into(), id);
        Ok(id)
    }

    fn null_id(&mut self) -> Result<u32> {
        match self.null {
            Some(id) => Ok(id),
            None => {
                let id = self.add(ScalarValue::try_from(&self.data_type)?);
                self.null = Some(id);
                Ok(id)
            }
        }
    }

    fn add(&mut self, value: ScalarValue) -> u32 {
        self.values.push(value);
        (self.values.len() - 1) as u32
    }

    /// Appends to `out` the id of each row of `array`.
    fn ids_of(&mut self, array: &ArrayRef, out: &mut Vec<u32>) -> Result<()> {
        out.clear();
        out.reserve(array.len());
        macro_rules! primitive {
            ($t:ty) => {{
                let values = array.as_primitive::<$t>();
                for (row, v) in values.values().iter().enumerate() {
                    let key = *v as i128 as u128;
                    let value = || ScalarValue::try_from_array(array, row);
                    let id = match (values.is_valid(row), key < 256) {
                        (true, true) => self.byte_id(key as u8, key, value)?,
                        (true, false) => self.id(key, value)?,
                        (false, _) => self.null_id()?,
                    };
                    out.push(id);
                }
            }};
        }
        match array.data_type() {
            DataType::Utf8 => self.bytes_ids(array, array.as_string::<i32>(), out)?,
            DataType::LargeUtf8 => self.bytes_ids(array, array.as_string::<i64>(), out)?,
            DataType::Binary => self.bytes_ids(array, array.as_binary::<i32>(), out)?,
            DataType::LargeBinary => self.bytes_ids(array, array.as_binary::<i64>(), out)?,
            DataType::Utf8View => self.view_ids(array, array.as_string_view(), out)?,
            DataType::BinaryView => self.view_ids(array, array.as_binary_view(), out)?,
            DataType::Boolean => {
                let values: &BooleanArray = array.as_boolean();
                for row in 0..values.len() {
                    let id = match values.is_valid(row) {
                        true => self.byte_id(values.value(row) as u8, values.value(row) as u128, || {
                            ScalarValue::try_from_array(array, row)
                        })?,
                        false => self.null_id()?,
                    };
                    out.push(id);
                }
            }
            DataType::Int8 => primitive!(Int8Type),
            DataType::Int16 => primitive!(Int16Type),
            DataType::Int32 => primitive!(Int32Type),
            DataType::Int64 => primitive!(Int64Type),
            DataType::UInt8 => primitive!(UInt8Type),
            DataType::UInt16 => primitive!(UInt16Type),
            DataType::UInt32 => primitive!(UInt32Type),
            DataType::UInt64 => primitive!(UInt64Type),
            DataType::Date32 => primitive!(Date32Type),
            DataType::Date64 => primitive!(Date64Type),
            DataType::Decimal128(..) => primitive!(Decimal128Type),
            other => return internal_err!("grouping by few values of {other}"),
        }
        Ok(())
    }

    fn bytes_ids<T: ByteArrayType>(
        &mut self,
        array: &ArrayRef,
        bytes: &GenericByteArray<T>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        let offsets = bytes.value_offsets();
        let data = bytes.value_data();
        // Every value one byte long (flags, codes): every row's id is a
        // lookup in `self.bytes` alone, without its offsets or a branch;
        // only a batch with a byte not seen before is gone over again, to
        // give new bytes ids in the order they first appear. TPC-H Q1 (two
        // flag columns, 20 runs at SF1): this function went from 13-15 % of
        // the query's CPU samples to 7 % (finding each batch's bytes first,
        // in a pass of its own); offsets checked without stopping early.
        let first = offsets[0].as_usize();
        let single_bytes = bytes.null_count() == 0
            && offsets.iter().enumerate().fold(true, |all, (row, end)| all & (end.as_usize() == first + row));
        if single_bytes {
            let values = &data[first..first + bytes.len()];
            let table = &self.bytes;
            out.extend(values.iter().map(|&byte| table[byte as usize]));
            // Looked for apart: a flag set in the loop above was kept in
            // memory, each row waiting for the last one's write to it (this
            // loop took 12 % of TPC-H Q1's time, a lookup 2 ns).
            if out.contains(&FREE) {
                // Bytes not seen before get ids in the order they appear.
                for (row, &byte) in values.iter().enumerate() {
                    if self.bytes[byte as usize] == FREE {
                        self.byte_id(byte, byte_key(byte), || ScalarValue::try_from_array(array, row))?;
                    }
                    out[row] = self.bytes[byte as usize];
                }
            }
            return Ok(());
        }
        for row in 0..bytes.len() {
            if bytes.is_null(row) {
                out.push(self.null_id()?);
                continue;
            }
            let (start, end) = (offsets[row].as_usize(), offsets[row + 1].as_usize());
            let value = || ScalarValue::try_from_array(array, row);
            let id = match end - start {
                1 => self.byte_id(data[start], byte_key(data[start]), value)?,
                0..=12 => self.id(short_key(data, start, end - start), value)?,
                _ => self.long_id(&data[start..end], value)?,
            };
            out.push(id);
        }
        Ok(())
    }

    fn view_ids<T: ByteViewType + ?Sized>(
        &mut self,
        array: &ArrayRef,
        views: &GenericByteViewArray<T>,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        for (row, view) in views.views().iter().enumerate() {
            if views.is_null(row) {
                out.push(self.null_id()?);
                continue;
            }
            // A view of at most 12 bytes holds them inline, zero-padded:
            // exactly `short_key`.
            let value = || ScalarValue::try_from_array(array, row);
            let id = match *view as u32 {
                1 => self.byte_id((*view >> 32) as u8, *view, value)?,
                0..=12 => self.id(*view, value)?,
                _ => self.long_id(views.value(row).as_ref(), value)?,
            };
            out.push(id);
        }
        Ok(())
    }
}

/// Group ids for rows of few distinct grouping values (see the module's
/// documentation). Ids are given in order of first appearance, from 0, as
/// DataFusion's `GroupValues` gives them.
pub struct FewGroupValues {
    columns: Vec<KeyColumn>,
    /// Bits of a row's table index taken by each column's id.
    bits: Vec<u32>,
    /// Group id by table index (`u32::MAX`: no group yet).
    table: Vec<u32>,
    /// Each group's column ids, `columns.len()` per group.
    groups: Vec<u32>,
    /// Each column's ids of the batch being interned.
    scratch: Vec<Vec<u32>>,
    /// Each row's index into the table, of the batch being interned.
    index: Vec<u32>,
}

impl FewGroupValues {
    /// Group ids for grouping columns of these types (each [`supported`]).
    pub fn new(types: &[DataType]) -> Self {
        let columns: Vec<KeyColumn> = types.iter().cloned().map(KeyColumn::new).collect();
        let bits = vec![1; columns.len()];
        let table = vec![u32::MAX; 1 << bits.iter().sum::<u32>()];
        let scratch = vec![vec![]; columns.len()];
        Self { columns, bits, table, groups: vec![], scratch, index: vec![] }
    }

    /// The groups so far.
    pub fn len(&self) -> usize {
        self.groups.len() / self.columns.len().max(1)
    }

    /// Sets `groups` to the group id of each row of `cols`, adding groups as
    /// needed; false, with no group added, when the rows' distinct values
    /// are too many for one table (the caller then groups another way).
    /// Rows that `mask` (if any) drops add no group: their id is one of an
    /// existing group, or 0, and only means something to a masked update.
    pub fn intern(&mut self, cols: &[ArrayRef], mask: Option<&BooleanArray>, groups: &mut Vec<usize>) -> Result<bool> {
        let mut scratch = std::mem::take(&mut self.scratch);
        for ((column, array), ids) in self.columns.iter_mut().zip(cols).zip(scratch.iter_mut()) {
            column.ids_of(array, ids)?;
        }
        self.scratch = scratch;
        if !self.fit_table() {
            return Ok(false);
        }
        let rows = cols.first().map_or(0, |c| c.len());
        // Each row's table index, column by column, then its group, in
        // loops without branches; rows of a new group (rare after the first
        // batches) are then found and added one by one.
        let mut index = std::mem::take(&mut self.index);
        index.clear();
        index.resize(rows, 0);
        for (ids, shift) in self.scratch.iter().zip(self.shifts()) {
            index.iter_mut().zip(ids).for_each(|(at, id)| *at |= id << shift);
        }
        let table = &self.table;
        let mut missing = false;
        groups.clear();
        groups.extend(index.iter().map(|at| {
            let group = table[*at as usize];
            missing |= group == u32::MAX;
            group as usize
        }));
        if missing {
            for (row, at) in index.iter().enumerate() {
                let group = match self.table[*at as usize] {
                    u32::MAX if mask.is_some_and(|m| !m.value(row)) => 0,
                    u32::MAX => {
                        let group = self.len() as u32;
                        self.groups.extend(self.scratch.iter().map(|ids| ids[row]));
                        self.table[*at as usize] = group;
                        group
                    }
                    group => group,
                };
                groups[row] = group as usize;
            }
        }
        self.index = index;
        Ok(true)
    }

    /// Where each column's id starts in a table index.
    fn shifts(&self) -> Vec<u32> {
        self.bits
            .iter()
            .scan(0, |at, bits| {
                let shift = *at;
                *at += bits;
                Some(shift)
            })
            .collect()
    }

    /// Widens the columns' bits to their ids and rebuilds the table; false
    /// when they would need more than [`TABLE_BITS`].
    fn fit_table(&mut self) -> bool {
        let needed: Vec<u32> =
            self.columns.iter().map(|c| (c.len().max(2) as u32).next_power_of_two().trailing_zeros()).collect();
        if needed.iter().zip(&self.bits).all(|(n, b)| n <= b) {
            return true;
        }
        let bits: Vec<u32> = needed.iter().zip(&self.bits).map(|(n, b)| (*n).max(*b)).collect();
        if bits.iter().sum::<u32>() > TABLE_BITS {
            return false;
        }
        self.bits = bits;
        self.table = vec![u32::MAX; 1 << self.bits.iter().sum::<u32>()];
        let (width, shifts) = (self.columns.len(), self.shifts());
        for group in 0..self.len() {
            let ids = &self.groups[group * width..(group + 1) * width];
            let index = ids.iter().zip(&shifts).fold(0usize, |index, (id, shift)| index | (*id as usize) << shift);
            self.table[index] = group as u32;
        }
        true
    }

    /// Every group's values, one array per grouping column, by group id.
    pub fn emit(&self) -> Result<Vec<ArrayRef>> {
        if self.groups.is_empty() {
            return Ok(self.columns.iter().map(|c| new_empty_array(&c.data_type)).collect());
        }
        let width = self.columns.len();
        self.columns
            .iter()
            .enumerate()
            .map(|(k, column)| {
                let values = self.groups.iter().skip(k).step_by(width).map(|id| column.values[*id as usize].clone());
                ScalarValue::iter_to_array(values)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
