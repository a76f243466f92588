//! Compact encodings of a segment's columns: how a column is stored when its
//! plain Arrow form wastes space, and how it is read back as its table's type.
//!
//! - `DECIMAL(p, s)` with `p <= 18` is stored in the narrowest of these that
//!   holds every value of the segment, instead of `Decimal128(p, s)`: its
//!   unscaled values as Arrow `Int8` or `Int16` (TPC-H's discounts and taxes
//!   are 0 to 10 hundredths, its quantities 1 to 50 units, so a sixteenth
//!   and an eighth of the bytes), `Decimal32(min(p, 9), s)` (at most 9
//!   digits: its prices) or `Decimal64(p, s)`; every value kept. The table's
//!   type gives the scale of the integers. Narrowing, not compression:
//!   decoding is a widening copy at memory speed, where decompressing ZSTD
//!   cost TPC-H SF10 Q6 (three decimal columns) 0.5 s of 0.8, and what a
//!   cold query reads from disk shrinks with the bytes.
//! - A string column with few distinct values in a segment (at most
//!   [`MAX_DICTIONARY_VALUES`], and half the bytes so) is stored as an Arrow
//!   dictionary: each value once, each row a 1- or 2-byte key. TPC-H's flags,
//!   modes, priorities and clerks shrink 5-15x.
//!
//! Integer, float, date, time and timestamp columns are not encoded unless
//! their table asks for `compression = 'light'` or `'zstd'` (see
//! [`crate::encoding::narrow`], and for `'light'` then
//! [`crate::encoding::packed`]): those are what users take to numpy, pyarrow
//! and polars without a copy, straight from the mapped file. Encoded columns
//! are decoded (a copy) batch by batch as a scan reads them, so users see
//! the table's types everywhere. A file with encoded columns is still an
//! Arrow IPC file that other Arrow tools read (as dictionaries, integers and
//! 32- or 64-bit decimals; packed columns as run-end encoded binary runs).
//!
//! A column of an ENUM type is a dictionary in the table's own type (see
//! [`crate::encoding::enums`]): its pieces are written over one dictionary,
//! never decoded.
//!
//! Other strings may be stored compressed (see [`crate::encoding::compressed`]): in
//! memory such a column is a run-end encoded array of ZSTD frames, decoded
//! here like the others.

use crate::encoding::compressed::decompress;
use crate::encoding::mode::Compression;
use crate::error::{Error, Result};
use crate::segment::parallel::{column_bytes, in_parallel};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, Decimal32Array, Decimal64Array, DictionaryArray,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StringArray,
};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::{cast, filter_record_batch};
use datafusion::arrow::datatypes::{
    ArrowDictionaryKeyType, DataType, Decimal128Type, Decimal32Type, Decimal64Type, Field, Int16Type, Int8Type, Schema,
    SchemaRef, DECIMAL32_MAX_PRECISION, DECIMAL64_MAX_PRECISION,
};
use datafusion::common::HashMap;
use std::sync::Arc;

pub mod compressed;
pub mod compressed_write;
pub mod dictionary;
pub mod enums;
pub mod mode;
pub mod narrow;
pub mod packed;

/// The type a column stored in runs (ZSTD frames, see [`compressed`], or
/// bit-packed blocks, see [`packed`]) of in-memory type `stored` is read
/// as; `None` for other columns.
pub fn physical_type(stored: &DataType) -> Option<DataType> {
    compressed::physical_type(stored).or_else(|| packed::physical_type(stored))
}

/// The values of `array` in the order of the table's: for a column stored
/// in runs (see [`physical_type`]; a slice of one, maybe) the runs it covers,
/// decompressed or unpacked; any other column as it is.
pub fn decode_runs(array: &ArrayRef) -> Result<ArrayRef> {
    if packed::physical_type(array.data_type()).is_some() {
        packed::unpack(array)
    } else if compressed::physical_type(array.data_type()).is_some() {
        decompress(array)
    } else {
        Ok(array.clone())
    }
}

/// Most distinct values a string column of a segment is stored as a dictionary
/// for (what 16-bit keys address).
pub const MAX_DICTIONARY_VALUES: usize = i16::MAX as usize;

/// Whether a segment column stored as `stored` holds values of a table column
/// of type `table`: the same type, or one of its encodings.
pub fn stores(stored: &DataType, table: &DataType) -> bool {
    if let Some(physical) = physical_type(stored) {
        return stores(&physical, table);
    }
    stored == table
        || narrow::stores(stored, table)
        || match (stored, table) {
            (DataType::Decimal32(p, s), DataType::Decimal128(q, t)) => {
                *p == (*q).min(DECIMAL32_MAX_PRECISION) && s == t
            }
            (DataType::Decimal64(p, s), DataType::Decimal128(q, t)) => p == q && s == t,
            (DataType::Int8 | DataType::Int16, DataType::Decimal128(q, _)) => *q <= DECIMAL64_MAX_PRECISION,
            (DataType::Dictionary(key, value), DataType::Utf8) => {
                matches!(key.as_ref(), DataType::Int8 | DataType::Int16) && value.as_ref() == &DataType::Utf8
            }
            _ => false,
        }
}

/// Whether a segment of columns `stored` holds a column of `table` (a
/// table's columns, in order) narrowed by [`narrow`] (`compression =
/// 'light'`), which builds before format version 15 cannot read.
pub fn narrows(stored: &Schema, table: &Schema) -> bool {
    stored.fields().iter().zip(table.fields()).any(|(s, t)| {
        let s = physical_type(s.data_type()).unwrap_or_else(|| s.data_type().clone());
        narrow::stores(&s, t.data_type())
    })
}

/// Whether a segment of columns `stored` holds a column bit-packed by
/// [`packed`] (`compression = 'light'`), which builds before format version
/// 16 cannot read.
pub fn packs(stored: &Schema) -> bool {
    stored.fields().iter().any(|s| packed::physical_type(s.data_type()).is_some())
}

/// Whether `stored` is an encoding (not a table type itself).
pub fn is_encoded(stored: &DataType) -> bool {
    matches!(
        stored,
        DataType::Decimal32(..) | DataType::Decimal64(..) | DataType::Dictionary(..) | DataType::RunEndEncoded(..)
    )
}

/// `array` (stored as [`stores`] allows) as type `table`: itself when not
/// encoded, else decoded into fresh memory.
pub fn decode(array: &ArrayRef, table: &DataType) -> Result<ArrayRef> {
    if array.data_type() == table {
        return Ok(array.clone());
    }
    if !stores(array.data_type(), table) {
        return Err(Error::corruption(format!("a segment column of type {} cannot hold {table}", array.data_type())));
    }
    if physical_type(array.data_type()).is_some() {
        return decode(&decode_runs(array)?, table);
    }
    if narrow::stores(array.data_type(), table) {
        return narrow::widen(array, table);
    }
    let strings = match array.data_type() {
        DataType::Dictionary(key, _) if table == &DataType::Utf8 => match key.as_ref() {
            DataType::Int8 => dictionary::decode_strings(array.as_dictionary::<Int8Type>())?,
            DataType::Int16 => dictionary::decode_strings(array.as_dictionary::<Int16Type>())?,
            _ => None,
        },
        _ => None,
    };
    if let Some(strings) = strings {
        return Ok(Arc::new(strings));
    }
    // Decimals are widened value by value (arrow's cast checks the
    // precision, and would turn a value beyond it into NULL).
    let wide: Option<Decimal128Array> = match (array.data_type(), table) {
        (DataType::Decimal32(..), DataType::Decimal128(..)) => {
            Some(array.as_primitive::<Decimal32Type>().unary(i128::from))
        }
        (DataType::Decimal64(..), DataType::Decimal128(..)) => {
            Some(array.as_primitive::<Decimal64Type>().unary(i128::from))
        }
        (DataType::Int8, DataType::Decimal128(..)) => Some(array.as_primitive::<Int8Type>().unary(i128::from)),
        (DataType::Int16, DataType::Decimal128(..)) => Some(array.as_primitive::<Int16Type>().unary(i128::from)),
        _ => None,
    };
    match (wide, table) {
        (Some(wide), DataType::Decimal128(p, s)) => Ok(Arc::new(wide.with_precision_and_scale(*p, *s)?)),
        _ => Ok(cast(array, table)?),
    }
}

/// `batch` with its encoded columns decoded to the types of `schema` (whose
/// columns are the batch's, in order, as a table types them).
pub fn decode_batch(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema().fields().iter().zip(schema.fields()).all(|(a, b)| a.data_type() == b.data_type()) {
        return Ok(batch.clone());
    }
    decode_columns(batch, schema, |_| true)
}

/// `batch` (read from a segment) with the encoded columns `decoded` picks
/// (by position) decoded to their types in `schema` (the table's), the
/// others as stored; its schema names the types it holds.
pub fn decode_columns(batch: &RecordBatch, schema: &SchemaRef, decoded: impl Fn(usize) -> bool) -> Result<RecordBatch> {
    let mut columns = batch.columns().to_vec();
    for (c, field) in schema.fields().iter().enumerate() {
        let Some(stored) = columns.get(c) else { break };
        if stored.data_type() != field.data_type() && decoded(c) {
            columns[c] = decode(stored, field.data_type())?;
        }
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(with_stored_types(schema, &columns), columns, &options)?)
}

/// The rows of `batch` (read from a segment) that `mask` keeps, its
/// columns stored in runs decoded first (a filter would cut their runs
/// apart from their frames or blocks).
pub fn filter_stored(batch: &RecordBatch, mask: &BooleanArray) -> Result<RecordBatch> {
    Ok(filter_record_batch(&decompress_batch(batch)?, mask)?)
}

/// `batch` (read from a segment) with its columns stored in runs (see
/// [`physical_type`]) decoded, its other columns as stored: for kernels that
/// take rows apart (a filter would cut a column's runs from their frames).
pub fn decompress_batch(batch: &RecordBatch) -> Result<RecordBatch> {
    decode_runs_of(batch, |_| true)
}

/// `batch` (read from a segment) with the columns stored in runs that
/// `picked` picks (by position) decoded to the type their runs hold (not
/// yet the table's: a narrowed column stays narrow), the others as stored.
pub fn decode_runs_of(batch: &RecordBatch, picked: impl Fn(usize) -> bool) -> Result<RecordBatch> {
    let in_runs = |c: usize| picked(c) && physical_type(batch.column(c).data_type()).is_some();
    if !(0..batch.num_columns()).any(in_runs) {
        return Ok(batch.clone());
    }
    let columns = (0..batch.num_columns())
        .map(|c| if picked(c) { decode_runs(batch.column(c)) } else { Ok(batch.column(c).clone()) })
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let schema = with_stored_types(&batch.schema(), &columns);
    Ok(RecordBatch::try_new_with_options(schema, columns, &options)?)
}

/// `schema` with the types of `stored`'s columns (a batch read from a
/// segment), its names and nullability kept: `schema` itself (shared, not
/// copied) where no column is encoded, as in most segments.
pub fn with_stored_types(schema: &SchemaRef, stored: &[ArrayRef]) -> SchemaRef {
    if schema.fields().iter().zip(stored).all(|(f, a)| f.data_type() == a.data_type()) {
        return schema.clone();
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .zip(stored)
        .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The rows of `pieces` (batches of `schema`) of a table with `compression`,
/// with each column encoded where that stores it smaller (see the module
/// documentation), and their schema. The pieces keep their rows; a
/// dictionary column's pieces share one dictionary. Columns are encoded on
/// all cores.
pub fn encode(
    schema: &SchemaRef,
    pieces: &[RecordBatch],
    compression: Compression,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let width = schema.fields().len();
    let encoded = in_parallel(
        width,
        |c| column_bytes(pieces, c),
        |c| {
            let arrays: Vec<ArrayRef> = pieces.iter().map(|p| p.column(c).clone()).collect();
            let table = schema.field(c).data_type();
            let encoded = encode_column(table, &arrays).or_else(|| match compression {
                Compression::Light | Compression::Zstd => narrow::narrow(table, &arrays),
                Compression::ZeroCopy => None,
            });
            // Light tables pack what they narrowed below whole bytes (zstd
            // tables compress it instead).
            Ok(match (compression, encoded) {
                (Compression::Light, Some(narrowed)) => Some(packed::pack(&narrowed).unwrap_or(narrowed)),
                (_, encoded) => encoded,
            })
        },
    )?;
    if encoded.iter().all(Option::is_none) {
        return Ok((schema.clone(), pieces.to_vec()));
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .zip(&encoded)
        .map(|(f, e)| match e {
            Some(arrays) => f.as_ref().clone().with_data_type(arrays[0].data_type().clone()),
            None => f.as_ref().clone(),
        })
        .collect();
    let stored = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let out = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let columns = (0..width).map(|c| match &encoded[c] {
                Some(arrays) => arrays[i].clone(),
                None => piece.column(c).clone(),
            });
            let options = RecordBatchOptions::new().with_row_count(Some(piece.num_rows()));
            Ok(RecordBatch::try_new_with_options(stored.clone(), columns.collect(), &options)?)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((stored, out))
}

/// The pieces `arrays` of one column of type `table` encoded, if an encoding
/// stores them smaller.
fn encode_column(table: &DataType, arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    match table {
        DataType::Decimal128(p, s) if *p <= DECIMAL64_MAX_PRECISION => {
            let wide = arrays.iter().map(|a| a.as_primitive_opt::<Decimal128Type>()).collect::<Option<Vec<_>>>()?;
            narrow_decimals(&wide, *p, *s)
        }
        DataType::Utf8 => dictionary(arrays),
        DataType::Dictionary(..) => shared_dictionary(arrays),
        _ => None,
    }
}

/// The pieces `arrays` of a dictionary column (an ENUM's, see
/// [`crate::enums`]) over the first one's dictionary, when theirs are equal
/// but not one (pieces read from several segments, say): a segment file has
/// one dictionary per column. `None` when they share one already, or differ.
fn shared_dictionary(arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    let dictionaries = arrays.iter().map(|a| a.as_any_dictionary_opt()).collect::<Option<Vec<_>>>()?;
    let first = dictionaries.first()?.values();
    if dictionaries.iter().all(|d| Arc::ptr_eq(d.values(), first)) {
        return None;
    }
    let same = |d: &&dyn datafusion::arrow::array::AnyDictionaryArray| d.values().to_data() == first.to_data();
    dictionaries.iter().all(same).then(|| dictionaries.iter().map(|d| d.with_values(first.clone())).collect())
}

/// The pieces `wide` as 8- or 16-bit integers (their unscaled values) if
/// every value fits, else as 32-bit decimals if every value has at most 9
/// digits, else as 64-bit ones if every value fits (Arrow arrays can hold
/// values beyond their precision, which stay 128 bits wide then).
fn narrow_decimals(wide: &[&Decimal128Array], p: u8, s: i8) -> Option<Vec<ArrayRef>> {
    let limit = |digits: u8| 10i128.pow(u32::from(digits)) - 1;
    let within =
        |bound: i128| wide.iter().all(|w| (0..w.len()).all(|i| w.is_null(i) || (-bound..=bound).contains(&w.value(i))));
    let narrow32 = p.min(DECIMAL32_MAX_PRECISION);
    // NULL slots may hold anything: they keep their low bits.
    if within(i128::from(i8::MAX)) {
        return Some(wide.iter().map(|w| Arc::new(w.unary::<_, Int8Type>(|v| v as i8)) as ArrayRef).collect());
    }
    if within(i128::from(i16::MAX)) {
        return Some(wide.iter().map(|w| Arc::new(w.unary::<_, Int16Type>(|v| v as i16)) as ArrayRef).collect());
    }
    if s >= 0 && s as u8 <= narrow32 && within(limit(DECIMAL32_MAX_PRECISION)) {
        let narrow = |w: &&Decimal128Array| -> ArrayRef {
            let n: Decimal32Array = w.unary(|v| v as i32);
            Arc::new(n.with_precision_and_scale(narrow32, s).expect("a valid precision and scale"))
        };
        return Some(wide.iter().map(narrow).collect());
    }
    if !within(i128::from(i64::MAX)) {
        return None;
    }
    wide.iter()
        .map(|w| {
            let n: Decimal64Array = w.unary(|v| v as i64);
            Some(Arc::new(n.with_precision_and_scale(p, s).ok()?) as ArrayRef)
        })
        .collect()
}

/// The string pieces `arrays` as dictionary arrays sharing one dictionary,
/// if they hold at most [`MAX_DICTIONARY_VALUES`] distinct values and that
/// stores them in half the bytes or fewer.
fn dictionary(arrays: &[ArrayRef]) -> Option<Vec<ArrayRef>> {
    let mut index: HashMap<&str, i16> = HashMap::new();
    let mut keys: Vec<Vec<i16>> = Vec::with_capacity(arrays.len());
    let (mut rows, mut plain) = (0usize, 0usize);
    for array in arrays {
        let strings = array.as_string_opt::<i32>()?;
        let offsets = strings.value_offsets();
        plain += (offsets[strings.len()] - offsets[0]) as usize + 4 * strings.len();
        rows += strings.len();
        let mut these = Vec::with_capacity(strings.len());
        for i in 0..strings.len() {
            if strings.is_null(i) {
                these.push(0);
                continue;
            }
            let next = index.len();
            let key = *index.entry(strings.value(i)).or_insert(next as i16);
            if index.len() > MAX_DICTIONARY_VALUES {
                return None;
            }
            these.push(key);
        }
        keys.push(these);
    }
    let mut values: Vec<&str> = vec![""; index.len()];
    for (value, key) in &index {
        values[*key as usize] = value;
    }
    let value_bytes: usize = values.iter().map(|v| v.len() + 4).sum();
    let values: ArrayRef = Arc::new(StringArray::from(values));
    let narrow = index.len() <= i8::MAX as usize + 1;
    let stored = rows * if narrow { 1 } else { 2 } + value_bytes;
    // Half the bytes at least: a dictionary costs a decoding pass per read.
    if 2 * stored > plain {
        return None;
    }
    fn of<K: ArrowDictionaryKeyType>(keys: Vec<K::Native>, nulls: Option<NullBuffer>, values: &ArrayRef) -> ArrayRef {
        let keys = PrimitiveArray::<K>::new(keys.into(), nulls);
        // SAFETY: every key was handed out by the index, below its length.
        Arc::new(unsafe { DictionaryArray::<K>::new_unchecked(keys, values.clone()) })
    }
    Some(
        keys.into_iter()
            .zip(arrays)
            .map(|(keys, array)| match narrow {
                true => of::<Int8Type>(keys.into_iter().map(|k| k as i8).collect(), array.nulls().cloned(), &values),
                false => of::<Int16Type>(keys, array.nulls().cloned(), &values),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Int64Array;

    fn batch(strings: Vec<Option<&str>>, decimals: Vec<Option<i128>>) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Decimal128(15, 2), true),
            Field::new("i", DataType::Int64, false),
        ]));
        let n = strings.len() as i64;
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(strings)),
                Arc::new(Decimal128Array::from(decimals).with_precision_and_scale(15, 2).unwrap()),
                Arc::new(Int64Array::from_iter_values(0..n)),
            ],
        )
        .unwrap()
    }

    #[test]
    fn few_strings_become_a_shared_dictionary_and_decimals_narrow_and_decode_back() {
        let first = batch(
            (0..300).map(|i| (i % 7 != 3).then_some(["AIR", "MAIL", "SHIP"][i % 3])).collect(),
            (0..300).map(|i| (i % 5 != 0).then_some(i as i128 * 101)).collect(),
        );
        let second = first.slice(10, 100);
        let (stored, pieces) =
            encode(&first.schema(), &[first.clone(), second.clone()], Compression::ZeroCopy).unwrap();
        assert_eq!(
            stored.field(0).data_type(),
            &DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))
        );
        assert_eq!(stored.field(1).data_type(), &DataType::Int16, "unscaled values within 16 bits");
        assert_eq!(stored.field(2).data_type(), &DataType::Int64, "integers stay as they are");
        let dictionaries: Vec<ArrayRef> =
            pieces.iter().map(|p| p.column(0).as_any_dictionary().values().clone()).collect();
        assert!(Arc::ptr_eq(&dictionaries[0], &dictionaries[1]), "one dictionary for the segment");
        assert_eq!(dictionaries[0].len(), 3);
        assert!(Arc::ptr_eq(pieces[0].column(2), first.column(2)), "not copied");
        for (piece, original) in pieces.iter().zip([first, second]) {
            assert_eq!(piece.num_rows(), original.num_rows());
            assert!((0..3).all(|c| stores(piece.column(c).data_type(), original.schema().field(c).data_type())));
            assert_eq!(decode_batch(piece, &original.schema()).unwrap(), original);
        }
    }

    #[test]
    fn many_distinct_or_wide_values_stay_plain() {
        let distinct: Vec<String> = (0..MAX_DICTIONARY_VALUES + 1).map(|i| format!("v{i}")).collect();
        let many = batch(distinct.iter().map(|s| Some(s.as_str())).collect(), vec![Some(1); distinct.len()]);
        let (stored, _) = encode(&many.schema(), std::slice::from_ref(&many), Compression::ZeroCopy).unwrap();
        assert_eq!(stored.field(0).data_type(), &DataType::Utf8);
        // Every value distinct and short: a dictionary would be no smaller.
        let few = batch(vec![Some("a"), Some("b")], vec![Some(10i128.pow(17)), Some(10i128.pow(20))]);
        let (stored, _) = encode(&few.schema(), std::slice::from_ref(&few), Compression::ZeroCopy).unwrap();
        assert_eq!(stored.field(0).data_type(), &DataType::Utf8);
        assert_eq!(
            stored.field(1).data_type(),
            &DataType::Decimal128(15, 2),
            "a value beyond 18 digits keeps 128 bits"
        );
        // Beyond the precision but within 64 bits: stored narrow, read back as it was (not NULL).
        let beyond = batch(vec![Some("a"), None], vec![Some(-(10i128.pow(17))), None]);
        let (stored, pieces) = encode(&beyond.schema(), std::slice::from_ref(&beyond), Compression::ZeroCopy).unwrap();
        assert_eq!(stored.field(1).data_type(), &DataType::Decimal64(15, 2));
        assert_eq!(decode_batch(&pieces[0], &beyond.schema()).unwrap(), beyond);
        // One value of 10 digits: 64 bits; 9 digits (either sign): 32;
        // within 16 or 8 bits (unscaled, either sign): as such integers.
        for (value, stored_as) in [
            (10i128.pow(9), DataType::Decimal64(15, 2)),
            (1 - 10i128.pow(9), DataType::Decimal32(9, 2)),
            (32_768, DataType::Decimal32(9, 2)),
            (32_767, DataType::Int16),
            (-128, DataType::Int16),
            (-127, DataType::Int8),
            (127, DataType::Int8),
        ] {
            let one = batch(vec![Some("a"), Some("b")], vec![Some(5), Some(value)]);
            let (stored, pieces) = encode(&one.schema(), std::slice::from_ref(&one), Compression::ZeroCopy).unwrap();
            assert_eq!(stored.field(1).data_type(), &stored_as, "{value}");
            assert_eq!(decode_batch(&pieces[0], &one.schema()).unwrap(), one);
        }
    }

    #[test]
    fn what_a_column_may_be_stored_as() {
        let dict = |k: DataType| DataType::Dictionary(Box::new(k), Box::new(DataType::Utf8));
        assert!(stores(&dict(DataType::Int16), &DataType::Utf8));
        assert!(!stores(&dict(DataType::Int16), &DataType::LargeUtf8));
        assert!(stores(&DataType::Decimal64(10, 3), &DataType::Decimal128(10, 3)));
        assert!(!stores(&DataType::Decimal64(10, 3), &DataType::Decimal128(10, 2)));
        assert!(stores(&DataType::Decimal32(9, 3), &DataType::Decimal128(12, 3)));
        assert!(stores(&DataType::Decimal32(5, 3), &DataType::Decimal128(5, 3)));
        assert!(!stores(&DataType::Decimal32(9, 3), &DataType::Decimal128(5, 3)));
        assert!(stores(&DataType::Int32, &DataType::Int64), "narrowed by light compression");
        assert!(!stores(&DataType::Int64, &DataType::Int32));
        assert!(!stores(&DataType::Int32, &DataType::Float64));
        assert!(stores(&DataType::Int8, &DataType::Decimal128(18, 4)));
        assert!(stores(&DataType::Int16, &DataType::Decimal128(3, -2)));
        assert!(!stores(&DataType::Int16, &DataType::Decimal128(19, 2)), "wider decimals are never narrowed");
        assert!(!stores(&DataType::Int32, &DataType::Decimal128(9, 2)));
        let err = decode(&(Arc::new(Int64Array::from(vec![1])) as ArrayRef), &DataType::Utf8).unwrap_err();
        assert!(err.message().contains("cannot hold"), "{}", err.message());
    }
}
