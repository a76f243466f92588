//! Decoding a dictionary of strings into plain strings, at the speed of
//! writing the bytes.
//!
//! Arrow's cast of a dictionary to strings takes each row's value with a
//! call to copy its bytes: for TPC-H's one-letter flags that call cost more
//! than everything else a row of Q1 needs (14 % of the query's time went to
//! decoding two such columns). Here a row's bytes are copied as one fixed
//! 16-byte move from the value padded to that width (where every value is at
//! most 16 bytes long), the next row's value overwriting what lies past
//! this one's length.

use crate::error::{Error, Result};
use datafusion::arrow::array::{Array, AsArray, DictionaryArray, StringArray};
use datafusion::arrow::buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{ArrowDictionaryKeyType, ArrowNativeType};

/// Longest value copied as one fixed-width move.
const PADDED: usize = 16;

/// `array`'s strings, one per row (NULL where the key is NULL); `None` where
/// its values are not plain strings without NULLs, or the rows' strings
/// would not fit 32-bit offsets (the caller then casts).
pub fn decode_strings<K: ArrowDictionaryKeyType>(array: &DictionaryArray<K>) -> Result<Option<StringArray>> {
    let Some(values) = array.values().as_string_opt::<i32>() else { return Ok(None) };
    if values.null_count() > 0 || values.len() >= usize::from(u16::MAX) {
        return Ok(None);
    }
    // Value `empty` (after the dictionary's) is the empty string of NULL rows.
    let empty = values.len();
    let mut lengths: Vec<usize> = (0..empty).map(|v| values.value(v).len()).collect();
    lengths.push(0);
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let keys = array.keys();
    let rows = keys.len();
    let nulls = keys.nulls();
    let valid = |row: usize| nulls.is_none_or(|nulls| nulls.is_valid(row));
    // NULL rows may hold any key.
    if keys.values().iter().any(|key| key.as_usize() >= empty) {
        if let Some(row) = (0..rows).find(|&row| keys.values()[row].as_usize() >= empty && valid(row)) {
            let key = keys.values()[row].as_usize();
            return Err(Error::corruption(format!("a dictionary key {key} is beyond its {empty} values")));
        }
    }
    // Room for every row's value: counted exactly where a value is long
    // (one long value must not make every row take its length).
    let room = match longest <= PADDED {
        true => rows * longest,
        false => (0..rows).map(|row| if valid(row) { lengths[keys.values()[row].as_usize()] } else { 0 }).sum(),
    };
    if room > i32::MAX as usize {
        return Ok(None);
    }
    let mut offsets = vec![0i32; rows + 1];
    let mut bytes = vec![0u8; room + PADDED];
    let end = match nulls {
        None => copy_values(keys.values(), |key| key.as_usize().min(empty), values, &lengths, &mut offsets, &mut bytes),
        Some(nulls) => {
            let ids: Vec<u16> = (0..rows)
                .map(|row| if nulls.is_valid(row) { keys.values()[row].as_usize() as u16 } else { empty as u16 })
                .collect();
            copy_values(&ids, |id| usize::from(id).min(empty), values, &lengths, &mut offsets, &mut bytes)
        }
    };
    bytes.truncate(end);
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    // SAFETY: the offsets start at 0 and grow to the bytes' length, and the
    // bytes between two of them are one of the dictionary's strings, UTF-8.
    Ok(Some(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(bytes), nulls.cloned()) }))
}

/// Writes the values of the rows' `ids` (value `values.len()` the empty
/// string) one after the other into `bytes` (long enough for every row's
/// value and [`PADDED`] bytes more), each row's end into `offsets[row + 1]`;
/// the bytes' length written.
fn copy_values<T: Copy>(
    ids: &[T],
    id_of: impl Fn(T) -> usize,
    values: &StringArray,
    lengths: &[usize],
    offsets: &mut [i32],
    bytes: &mut [u8],
) -> usize {
    let empty = values.len();
    let mut end = 0usize;
    if lengths.iter().all(|length| *length <= PADDED) {
        let padded: Vec<[u8; PADDED]> = (0..=empty)
            .map(|v| {
                let mut wide = [0u8; PADDED];
                wide[..lengths[v]].copy_from_slice(if v < empty { values.value(v).as_bytes() } else { b"" });
                wide
            })
            .collect();
        for (id, offset) in ids.iter().zip(&mut offsets[1..]) {
            let id = id_of(*id);
            bytes[end..end + PADDED].copy_from_slice(&padded[id]);
            end += lengths[id];
            *offset = end as i32;
        }
    } else {
        for (id, offset) in ids.iter().zip(&mut offsets[1..]) {
            let id = id_of(*id);
            if id < empty {
                bytes[end..end + lengths[id]].copy_from_slice(values.value(id).as_bytes());
            }
            end += lengths[id];
            *offset = end as i32;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int16Array, Int8Array};
    use datafusion::arrow::compute::cast;
    use datafusion::arrow::datatypes::{DataType, Int16Type, Int8Type};
    use std::sync::Arc;

    #[test]
    fn decoded_strings_equal_arrows_cast_for_short_and_long_values_and_nulls() {
        let short = Arc::new(StringArray::from(vec!["A", "", "NONE", "0123456789abcdef"]));
        let keys = Int8Array::from(vec![Some(0), Some(3), None, Some(1), Some(2), Some(3), Some(0)]);
        let array = DictionaryArray::<Int8Type>::try_new(keys, short).unwrap();
        let expected = cast(&array, &DataType::Utf8).unwrap();
        assert_eq!(&decode_strings(&array).unwrap().unwrap() as &dyn Array, expected.as_ref());
        let long = Arc::new(StringArray::from(vec!["a value longer than sixteen bytes", "b", "ünïcödé"]));
        let keys = Int16Array::from(vec![Some(2), Some(0), None, Some(1), Some(0)]);
        let array = DictionaryArray::<Int16Type>::try_new(keys, long).unwrap();
        let expected = cast(&array, &DataType::Utf8).unwrap();
        assert_eq!(&decode_strings(&array).unwrap().unwrap() as &dyn Array, expected.as_ref());
    }

    #[test]
    fn a_slice_decodes_its_own_rows() {
        let values = Arc::new(StringArray::from(vec!["x", "yy", "zzz"]));
        let keys = Int8Array::from(vec![0, 1, 2, 2, 1, 0]);
        let array = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap().slice(2, 3);
        let decoded = decode_strings(&array).unwrap().unwrap();
        assert_eq!(decoded.iter().collect::<Vec<_>>(), vec![Some("zzz"), Some("zzz"), Some("yy")]);
    }

    #[test]
    fn a_key_beyond_the_values_is_corruption_and_null_values_are_left_to_the_cast() {
        let values = Arc::new(StringArray::from(vec!["x"]));
        // SAFETY (of the test): the key is out of range on purpose.
        let array = unsafe { DictionaryArray::<Int8Type>::new_unchecked(Int8Array::from(vec![0, 5]), values) };
        assert!(decode_strings(&array).unwrap_err().to_string().contains("beyond its 1 values"));
        let values = Arc::new(StringArray::from(vec![Some("x"), None]));
        let array = DictionaryArray::<Int8Type>::try_new(Int8Array::from(vec![0, 1]), values).unwrap();
        assert!(decode_strings(&array).unwrap().is_none());
    }
}
