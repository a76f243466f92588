//! Column statistics: what a segment's manifest entry records of each of its
//! columns (least and greatest value, NULL count, a sketch of the distinct
//! values), computed from the pieces a segment is written from, and merged
//! when an inline tail grows. Scans skip segments by them and the planner
//! estimates sizes from them, so a bound must hold for every row of its
//! segment (a wrong one would skip rows): they are covered by the manifest's
//! checksum.

use crate::error::Result;
use crate::manifest::distinct::{le_word, DistinctSketch};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, OffsetSizeTrait, StringArray};
use datafusion::arrow::compute::{cast, CastOptions};
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::display::ArrayFormatter;
use datafusion::common::ScalarValue;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::Accumulator;
use serde::{Deserialize, Serialize};

/// Longest string value kept as a min/max statistic; longer ones are not recorded.
const MAX_STAT_LEN: usize = 64;

/// Minimum and maximum of one column in one segment, as text in the column's own
/// type (cast back on use), its NULL count and a sketch of its distinct values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ColumnStats {
    /// Smallest non-NULL value, if known.
    pub min: Option<String>,
    /// Largest non-NULL value, if known.
    pub max: Option<String>,
    /// Number of NULLs.
    pub nulls: u64,
    /// Its distinct non-NULL values, for types that have a sketch. Absent in
    /// manifests written before sketches, and for segments holding no value of
    /// the column (all NULL, or written before the column was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<DistinctSketch>,
}

fn has_stats(dt: &DataType) -> bool {
    dt.is_numeric()
        || dt.is_temporal()
        || matches!(dt, DataType::Boolean | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn scalar_text(value: datafusion::scalar::ScalarValue) -> Result<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    let array = value.to_array()?;
    let text = cast(&array, &DataType::Utf8)?;
    let text = text.as_any().downcast_ref::<StringArray>().expect("cast to Utf8");
    Ok(stat_text(text.value(0)))
}

/// `s` as a stored min/max, unless it is too long to keep.
fn stat_text(s: &str) -> Option<String> {
    (s.len() <= MAX_STAT_LEN).then(|| s.to_string())
}

/// Min / max / null count / distinct-value sketch of one column, given as the
/// pieces it is stored from (one or more arrays of one type).
pub fn column_stats(pieces: &[ArrayRef]) -> Result<ColumnStats> {
    let nulls = pieces.iter().map(|p| p.null_count() as u64).sum::<u64>();
    let rows = pieces.iter().map(|p| p.len() as u64).sum::<u64>();
    let Some(first) = pieces.first() else { return Ok(ColumnStats { min: None, max: None, nulls, distinct: None }) };
    if !has_stats(first.data_type()) || nulls == rows {
        return Ok(ColumnStats { min: None, max: None, nulls, distinct: None });
    }
    let mut distinct = DistinctSketch::of(first);
    for piece in &pieces[1..] {
        distinct = distinct.zip(DistinctSketch::of(piece)).map(|(a, b)| a.merged(&b));
    }
    let (min, max) = match first.data_type() {
        DataType::Utf8 => {
            string_extremes::<i32>(pieces).map_or((None, None), |(min, max)| (stat_text(min), stat_text(max)))
        }
        DataType::LargeUtf8 => {
            string_extremes::<i64>(pieces).map_or((None, None), |(min, max)| (stat_text(min), stat_text(max)))
        }
        // One value (a single-row write): it is both bounds, written as the
        // general path's cast writes it, without building accumulators.
        _ if rows - nulls == 1 => {
            let (piece, at) = pieces
                .iter()
                .find_map(|p| (0..p.len()).find(|&i| p.is_valid(i)).map(|i| (p, i)))
                .expect("one value is not NULL");
            let text =
                ArrayFormatter::try_new(piece.as_ref(), &CastOptions::default().format_options)?.value(at).to_string();
            let text = stat_text(&text);
            (text.clone(), text)
        }
        data_type => {
            let mut min = MinAccumulator::try_new(data_type)?;
            let mut max = MaxAccumulator::try_new(data_type)?;
            for piece in pieces {
                min.update_batch(std::slice::from_ref(piece))?;
                max.update_batch(std::slice::from_ref(piece))?;
            }
            (scalar_text(min.evaluate()?)?, scalar_text(max.evaluate()?)?)
        }
    };
    Ok(ColumnStats { min, max, nulls, distinct })
}

/// The least and greatest non-NULL strings of `pieces` (bytewise, as SQL
/// compares them), in one pass. Most comparisons are decided by the first 8
/// bytes read as one number; only ties compare the strings (DataFusion's
/// accumulators called memcmp for every value, twice: one pass for each bound).
fn string_extremes<O: OffsetSizeTrait>(pieces: &[ArrayRef]) -> Option<(&str, &str)> {
    let mut extremes = None;
    for piece in pieces {
        let strings = piece.as_string::<O>();
        if strings.null_count() == 0 {
            let values = strings.value_data();
            strings
                .value_offsets()
                .windows(2)
                .for_each(|w| widen(&mut extremes, &values[w[0].as_usize()..w[1].as_usize()]));
        } else {
            strings.iter().flatten().for_each(|s| widen(&mut extremes, s.as_bytes()));
        }
    }
    let ((_, min), (_, max)) = extremes?;
    Some((std::str::from_utf8(min).ok()?, std::str::from_utf8(max).ok()?))
}

/// A byte string and its first 8 bytes as one number (big-endian,
/// zero-padded): a < b whenever key(a) < key(b).
type Keyed<'a> = (u64, &'a [u8]);

/// Makes the least and greatest strings so far (`extremes`) include `s`.
fn widen<'a>(extremes: &mut Option<(Keyed<'a>, Keyed<'a>)>, s: &'a [u8]) {
    // With equal keys, strings of at most 8 bytes differ only in trailing NUL
    // bytes, so the shorter is the lesser.
    let less = |(ka, a): Keyed, (kb, b): Keyed| {
        ka < kb || (ka == kb && if a.len().max(b.len()) <= 8 { a.len() < b.len() } else { a < b })
    };
    let this = (le_word(&s[..s.len().min(8)]).swap_bytes(), s);
    match extremes {
        None => *extremes = Some((this, this)),
        Some((min, max)) => {
            if less(this, *min) {
                *min = this;
            }
            if less(*max, this) {
                *max = this;
            }
        }
    }
}

/// The statistics of `a_rows` rows described by `a` followed by `b_rows` described by `b`.
pub fn merge_stats(
    a: &ColumnStats,
    a_rows: u64,
    b: &ColumnStats,
    b_rows: u64,
    data_type: &DataType,
) -> Result<ColumnStats> {
    let nulls = a.nulls + b.nulls;
    if a.nulls == a_rows {
        return Ok(ColumnStats { nulls, ..b.clone() });
    }
    if b.nulls == b_rows {
        return Ok(ColumnStats { nulls, ..a.clone() });
    }
    let pick = |x: &Option<String>, y: &Option<String>, smaller: bool| -> Result<Option<String>> {
        let (Some(x), Some(y)) = (x, y) else { return Ok(None) };
        let xv = ScalarValue::try_from_string(x.clone(), data_type)?;
        let yv = ScalarValue::try_from_string(y.clone(), data_type)?;
        Ok(match xv.partial_cmp(&yv) {
            Some(order) if (order.is_le()) == smaller => Some(x.clone()),
            Some(_) => Some(y.clone()),
            None => None,
        })
    };
    let distinct = match (&a.distinct, &b.distinct) {
        (Some(x), Some(y)) => Some(x.merged(y)),
        _ => None,
    };
    Ok(ColumnStats { min: pick(&a.min, &b.min, true)?, max: pick(&a.max, &b.max, false)?, nulls, distinct })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn string_bounds_are_the_bytewise_least_and_greatest_values() {
        let values = ["b", "a\0", "a", "", "abcdefgh", "abcdefgh\0", "abcdefghi", "abcdefgg~", "zz", "z", "é", "ė"];
        let pieces: Vec<ArrayRef> =
            values.chunks(5).map(|c| Arc::new(StringArray::from(c.to_vec())) as ArrayRef).collect();
        let (min, max) = (values.iter().min().unwrap(), values.iter().max().unwrap());
        assert_eq!(string_extremes::<i32>(&pieces), Some((*min, *max)));
        let mut reversed: Vec<&str> = values.to_vec();
        reversed.reverse();
        assert_eq!(string_extremes::<i32>(&[Arc::new(StringArray::from(reversed)) as ArrayRef]), Some((*min, *max)));
        for (i, a) in values.iter().enumerate() {
            for b in &values[i..] {
                let one: Vec<ArrayRef> = vec![Arc::new(StringArray::from(vec![Some(*a), None, Some(*b)]))];
                assert_eq!(string_extremes::<i32>(&one), Some((*a.min(b), *a.max(b))), "{a:?} {b:?}");
            }
        }
        assert_eq!(string_extremes::<i32>(&[Arc::new(StringArray::from(vec![None::<&str>])) as ArrayRef]), None);
    }

    #[test]
    fn one_value_gets_the_bounds_the_general_path_writes() {
        use datafusion::arrow::array::*;
        use datafusion::arrow::compute::concat;
        let values: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from(vec![-7])),
            Arc::new(Int16Array::from(vec![300])),
            Arc::new(Int32Array::from(vec![-70000])),
            Arc::new(Int64Array::from(vec![9007199254740993])),
            Arc::new(UInt64Array::from(vec![u64::MAX])),
            Arc::new(Float32Array::from(vec![1.5])),
            Arc::new(Float64Array::from(vec![0.1])),
            Arc::new(Float64Array::from(vec![-0.0])),
            Arc::new(Float64Array::from(vec![1e300])),
            Arc::new(Float64Array::from(vec![f64::NAN])),
            Arc::new(Decimal128Array::from(vec![1230]).with_precision_and_scale(10, 2).unwrap()),
            Arc::new(Date32Array::from(vec![19782])),
            Arc::new(TimestampMicrosecondArray::from(vec![1_704_164_645_123_456])),
            Arc::new(TimestampMicrosecondArray::from(vec![1_704_164_645_000_000]).with_timezone("+02:00")),
            Arc::new(Time64MicrosecondArray::from(vec![86_399_500_000])),
            Arc::new(BooleanArray::from(vec![true])),
        ];
        for one in values {
            let null = new_null_array(one.data_type(), 1);
            let alone = column_stats(std::slice::from_ref(&one)).unwrap();
            let among_nulls = column_stats(&[null.clone(), concat(&[&one, &null]).unwrap()]).unwrap();
            let twice = column_stats(&[concat(&[&one, &one]).unwrap()]).unwrap();
            assert!(alone.min.is_some(), "{one:?}");
            for stats in [&alone, &among_nulls] {
                assert_eq!((&stats.min, &stats.max), (&twice.min, &twice.max), "{one:?}");
            }
            assert_eq!(among_nulls.nulls, 2, "{one:?}");
        }
    }
}
