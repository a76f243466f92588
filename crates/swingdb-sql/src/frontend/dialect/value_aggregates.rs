//! DuckDB's aggregates that need every value of a group, with DuckDB's
//! answers: `quantile_disc(x, q)` (also `quantile` and `reservoir_quantile`,
//! which is exact here where DuckDB samples past 8,192 values; `q` may be a
//! list, and a negative `q` counts from the top), `mad(x)` (median absolute
//! deviation of numbers), `entropy(x)`, `histogram(x[, boundaries])`,
//! `histogram_exact(x, values)` and `approx_top_k(x, k)` (exact here; ties in
//! value order). NULLs are skipped.
//!
//! Each accumulator keeps the group's values (a list in its state, so groups
//! merge across partitions), sorts them once at the end and reads the answer
//! from the sorted runs.

use crate::frontend::types::sql_name;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, MapArray, StructArray, UInt64Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::kernels::cmp::{eq, lt_eq};
use datafusion::arrow::compute::{cast, concat, filter, partition, sort_to_indices, take, SortOptions};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{exec_err, plan_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use datafusion::physical_expr::expressions::Literal;
use std::sync::Arc;

/// What an aggregate answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    QuantileDisc,
    Mad,
    Entropy,
    Histogram,
    HistogramExact,
    TopK,
}

/// The aggregates, under each of their names.
pub fn functions() -> Vec<AggregateUDF> {
    [
        ("quantile_disc", Kind::QuantileDisc),
        ("quantile", Kind::QuantileDisc),
        ("reservoir_quantile", Kind::QuantileDisc),
        ("mad", Kind::Mad),
        ("entropy", Kind::Entropy),
        ("histogram", Kind::Histogram),
        ("histogram_exact", Kind::HistogramExact),
        ("approx_top_k", Kind::TopK),
    ]
    .into_iter()
    .map(|(name, kind)| {
        AggregateUDF::new_from_impl(ValueAggregate {
            name,
            kind,
            signature: Signature::user_defined(Volatility::Immutable),
        })
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ValueAggregate {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

/// The MAP from values of `key` to counts that `histogram` answers.
fn counts_map(key: &DataType) -> DataType {
    let entries =
        Fields::from(vec![Field::new("key", key.clone(), false), Field::new("value", DataType::UInt64, true)]);
    DataType::Map(Arc::new(Field::new("entries", DataType::Struct(entries), false)), false)
}

impl AggregateUDFImpl for ValueAggregate {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name;
        let fraction = |t: &DataType| match t {
            DataType::Decimal128(..) | DataType::Float64 => Some(t.clone()),
            t if t.is_numeric() => Some(DataType::Float64),
            DataType::List(item) if matches!(item.data_type(), DataType::Decimal128(..) | DataType::Float64) => {
                Some(t.clone())
            }
            DataType::List(item) if item.data_type().is_numeric() => Some(DataType::new_list(DataType::Float64, true)),
            _ => None,
        };
        match (self.kind, args) {
            (Kind::QuantileDisc, [x, q]) => match fraction(q) {
                Some(q) => Ok(vec![x.clone(), q]),
                None => plan_err!("{name}(x, q): q is a fraction or a list of them, not {}", sql_name(q)),
            },
            (Kind::Mad, [x]) if x.is_numeric() => Ok(vec![x.clone()]),
            (Kind::Mad, [x]) => plan_err!("mad() takes numbers, not {}", sql_name(x)),
            (Kind::Entropy | Kind::Histogram, [x]) => Ok(vec![x.clone()]),
            (Kind::Histogram | Kind::HistogramExact, [x, DataType::List(_)]) => {
                Ok(vec![x.clone(), DataType::new_list(x.clone(), true)])
            }
            (Kind::TopK, [x, k]) if k.is_integer() => Ok(vec![x.clone(), DataType::Int64]),
            _ => plan_err!("{name}() does not take ({})", args.iter().map(sql_name).collect::<Vec<_>>().join(", ")),
        }
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::QuantileDisc if matches!(args[1], DataType::List(_)) => DataType::new_list(args[0].clone(), true),
            Kind::QuantileDisc => args[0].clone(),
            Kind::Mad if matches!(args[0], DataType::Decimal128(..)) => args[0].clone(),
            Kind::Mad | Kind::Entropy => DataType::Float64,
            Kind::Histogram | Kind::HistogramExact => counts_map(&args[0]),
            Kind::TopK => DataType::new_list(args[0].clone(), true),
        })
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let parameter = match args.exprs.get(1) {
            None => None,
            Some(expr) => match expr.downcast_ref::<Literal>() {
                Some(literal) => Some(literal.value().clone()),
                None => return plan_err!("{}(): its second argument must be a constant", self.name),
            },
        };
        let value_type = args.exprs[0].data_type(args.schema)?;
        Ok(Box::new(Values {
            name: self.name,
            kind: self.kind,
            parameter,
            value_type,
            return_type: args.return_field.data_type().clone(),
            parts: Vec::new(),
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let value_type = args.input_fields[0].data_type().clone();
        Ok(vec![Arc::new(Field::new("values", DataType::new_list(value_type, true), true))])
    }
}

/// The non-NULL values seen so far, in parts.
#[derive(Debug)]
struct Values {
    name: &'static str,
    kind: Kind,
    parameter: Option<ScalarValue>,
    value_type: DataType,
    return_type: DataType,
    parts: Vec<ArrayRef>,
}

impl Values {
    fn add(&mut self, values: &ArrayRef) -> Result<()> {
        let values = match values.null_count() {
            0 => values.clone(),
            _ => filter(values, &datafusion::arrow::compute::is_not_null(values)?)?,
        };
        if !values.is_empty() {
            self.parts.push(values);
        }
        Ok(())
    }

    /// All the values, in one array.
    fn all(&self) -> Result<ArrayRef> {
        match self.parts.as_slice() {
            [] => Ok(datafusion::arrow::array::new_empty_array(&self.value_type)),
            [one] => Ok(one.clone()),
            parts => Ok(concat(&parts.iter().map(|p| p.as_ref()).collect::<Vec<_>>())?),
        }
    }

    /// All the values in ascending order.
    fn sorted(&self) -> Result<ArrayRef> {
        let all = self.all()?;
        let order = sort_to_indices(&all, Some(SortOptions { descending: false, nulls_first: false }), None)?;
        Ok(take(&all, &order, None)?)
    }

    /// The distinct values in order and how many times each came.
    fn runs(&self) -> Result<(ArrayRef, Vec<u64>)> {
        let sorted = self.sorted()?;
        let ranges = partition(std::slice::from_ref(&sorted))?.ranges();
        let firsts = ranges.iter().map(|r| r.start as u64).collect::<UInt64Array>();
        let counts = ranges.iter().map(|r| (r.end - r.start) as u64).collect();
        Ok((take(&sorted, &firsts, None)?, counts))
    }

    fn quantile_disc(&self) -> Result<ScalarValue> {
        let fractions = match &self.parameter {
            Some(ScalarValue::List(list)) => {
                let items = list.value(0);
                (0..items.len()).map(|i| ScalarValue::try_from_array(&items, i)).collect::<Result<Vec<_>>>()?
            }
            Some(one) => vec![one.clone()],
            None => unreachable!("coerce_types asks for the fraction"),
        };
        let n = self.parts.iter().map(|p| p.len()).sum::<usize>();
        let sorted = self.sorted()?;
        let mut picked = Vec::with_capacity(fractions.len());
        for fraction in &fractions {
            let (descending, index) = discrete_index(self.name, fraction, n)?;
            picked.push(match (n, descending) {
                (0, _) => ScalarValue::try_from(&self.value_type)?,
                (_, false) => ScalarValue::try_from_array(&sorted, index)?,
                (_, true) => ScalarValue::try_from_array(&sorted, n - 1 - index)?,
            });
        }
        match matches!(self.parameter, Some(ScalarValue::List(_))) {
            true if n == 0 => ScalarValue::try_from(&self.return_type),
            true => Ok(ScalarValue::List(ScalarValue::new_list_nullable(&picked, &self.value_type))),
            false => Ok(picked.pop().unwrap()),
        }
    }

    fn mad(&self) -> Result<ScalarValue> {
        let values = cast(&self.all()?, &DataType::Float64)?;
        let mut values: Vec<f64> = values.as_primitive::<datafusion::arrow::datatypes::Float64Type>().values().to_vec();
        let answer = match values.is_empty() {
            true => None,
            false => {
                let middle = median(&mut values);
                let mut deviations: Vec<f64> = values.iter().map(|v| (v - middle).abs()).collect();
                Some(median(&mut deviations))
            }
        };
        let answer = ScalarValue::Float64(answer);
        match &self.return_type {
            DataType::Float64 => Ok(answer),
            decimal => answer.cast_to(decimal),
        }
    }

    fn entropy(&self) -> Result<ScalarValue> {
        let (_, counts) = self.runs()?;
        let n = counts.iter().sum::<u64>() as f64;
        let sum = counts.iter().map(|&c| c as f64 / n).map(|p| -p * p.log2()).sum::<f64>();
        Ok(ScalarValue::Float64(Some(if n == 0.0 { 0.0 } else { sum })))
    }

    fn histogram(&self) -> Result<ScalarValue> {
        if self.parts.is_empty() {
            return ScalarValue::try_from(&self.return_type);
        }
        let (keys, counts) = match &self.parameter {
            None => self.runs()?,
            Some(ScalarValue::List(list)) => self.binned(list.value(0))?,
            Some(other) => return plan_err!("{}(): the boundaries are a list, not {other}", self.name),
        };
        let DataType::Map(entries, _) = &self.return_type else { unreachable!("histograms answer maps") };
        let DataType::Struct(fields) = entries.data_type() else { unreachable!("map entries are structs") };
        let counts: ArrayRef = Arc::new(UInt64Array::from(counts));
        let struct_ = StructArray::try_new(fields.clone(), vec![keys, counts], None)?;
        let offsets = OffsetBuffer::from_lengths([struct_.len()]);
        Ok(ScalarValue::Map(Arc::new(MapArray::try_new(entries.clone(), offsets, struct_, None, false)?)))
    }

    /// The boundaries given and how many values each gathers: with
    /// `histogram`, the values up to it (from the boundary before); with
    /// `histogram_exact`, the values equal to it; the values left over count
    /// under the type's largest value (`''` for text), as DuckDB's.
    fn binned(&self, boundaries: ArrayRef) -> Result<(ArrayRef, Vec<u64>)> {
        let values = self.all()?;
        let mut counts = vec![0u64; boundaries.len()];
        let mut placed = vec![false; values.len()];
        for (at, count) in counts.iter_mut().enumerate() {
            let bound = datafusion::arrow::array::Scalar::new(boundaries.slice(at, 1));
            let hits = match self.kind {
                Kind::HistogramExact => eq(&values, &bound)?,
                _ => lt_eq(&values, &bound)?,
            };
            for (i, hit) in hits.iter().enumerate() {
                if hit == Some(true) && !placed[i] {
                    placed[i] = true;
                    *count += 1;
                }
            }
        }
        let rest = placed.iter().filter(|p| !**p).count() as u64;
        if rest == 0 {
            return Ok((boundaries, counts));
        }
        let Some(other) = largest(&self.value_type) else {
            return exec_err!(
                "{}(): {rest} value(s) fall past the boundaries, and {} has no largest value to count them under",
                self.name,
                sql_name(&self.value_type)
            );
        };
        counts.push(rest);
        let keys = concat(&[boundaries.as_ref(), other.to_array()?.as_ref()])?;
        Ok((keys, counts))
    }

    fn top_k(&self) -> Result<ScalarValue> {
        let k = match &self.parameter {
            Some(ScalarValue::Int64(Some(k))) if *k > 0 => *k as usize,
            other => return plan_err!("approx_top_k(x, k): k must be a positive integer, not {other:?}"),
        };
        if self.parts.is_empty() {
            return ScalarValue::try_from(&self.return_type);
        }
        let (keys, counts) = self.runs()?;
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        order.truncate(k);
        let indices = order.iter().map(|&i| i as u64).collect::<UInt64Array>();
        Ok(SingleRowListArrayBuilder::new(take(&keys, &indices, None)?).build_list_scalar())
    }
}

/// Whether `fraction` counts from the top, and the index of the value it
/// picks among `n` sorted ones: DuckDB's rule (the `ceil(n * q)`-th, in exact
/// integer arithmetic for a DECIMAL fraction).
fn discrete_index(name: &str, fraction: &ScalarValue, n: usize) -> Result<(bool, usize)> {
    let n_ = n as i128;
    let (descending, floored) = match fraction {
        ScalarValue::Decimal128(Some(value), _, scale) => {
            let scaling = 10i128.pow(*scale as u32);
            if value.abs() > scaling {
                return plan_err!("{name}(): the fraction must be between -1 and 1");
            }
            (*value < 0, (n_ * scaling - n_ * value.abs()) / scaling)
        }
        ScalarValue::Float64(Some(q)) if (-1.0..=1.0).contains(q) => {
            (*q < 0.0, (n as f64 - n as f64 * q.abs()).floor() as i128)
        }
        ScalarValue::Float64(Some(_)) => return plan_err!("{name}(): the fraction must be between -1 and 1"),
        _ => return plan_err!("{name}(): the fraction must not be NULL"),
    };
    Ok((descending, ((n_ - floored).max(1) - 1) as usize))
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let position = (values.len() - 1) as f64 / 2.0;
    let (low, high) = (values[position.floor() as usize], values[position.ceil() as usize]);
    low + (high - low) * (position - position.floor())
}

/// The largest value of a type, where DuckDB's histograms count the values
/// past their boundaries (`''` for text, infinity for floats).
fn largest(data_type: &DataType) -> Option<ScalarValue> {
    Some(match data_type {
        DataType::Int8 => ScalarValue::Int8(Some(i8::MAX)),
        DataType::Int16 => ScalarValue::Int16(Some(i16::MAX)),
        DataType::Int32 => ScalarValue::Int32(Some(i32::MAX)),
        DataType::Int64 => ScalarValue::Int64(Some(i64::MAX)),
        DataType::UInt8 => ScalarValue::UInt8(Some(u8::MAX)),
        DataType::UInt16 => ScalarValue::UInt16(Some(u16::MAX)),
        DataType::UInt32 => ScalarValue::UInt32(Some(u32::MAX)),
        DataType::UInt64 => ScalarValue::UInt64(Some(u64::MAX)),
        DataType::Float32 => ScalarValue::Float32(Some(f32::INFINITY)),
        DataType::Float64 => ScalarValue::Float64(Some(f64::INFINITY)),
        DataType::Utf8 => ScalarValue::Utf8(Some(String::new())),
        DataType::Utf8View => ScalarValue::Utf8View(Some(String::new())),
        DataType::LargeUtf8 => ScalarValue::LargeUtf8(Some(String::new())),
        _ => return None,
    })
}

impl Accumulator for Values {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.add(&values[0])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists = states[0].as_list::<i32>();
        for values in lists.iter().flatten() {
            self.add(&values)?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let all = self.all()?;
        // Kept as one part (none when empty: no values seen).
        self.parts = if all.is_empty() { Vec::new() } else { vec![all.clone()] };
        Ok(vec![SingleRowListArrayBuilder::new(all).build_list_scalar()])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        match self.kind {
            Kind::QuantileDisc => self.quantile_disc(),
            Kind::Mad => self.mad(),
            Kind::Entropy => self.entropy(),
            Kind::Histogram | Kind::HistogramExact => self.histogram(),
            Kind::TopK => self.top_k(),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.parts.iter().map(|p| p.get_array_memory_size()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discrete_index_is_duckdbs() {
        let q = |v: f64| ScalarValue::Float64(Some(v));
        assert_eq!(discrete_index("q", &q(0.9), 5).unwrap(), (false, 4));
        assert_eq!(discrete_index("q", &q(0.25), 5).unwrap(), (false, 1));
        assert_eq!(discrete_index("q", &q(0.5), 2).unwrap(), (false, 0));
        assert_eq!(discrete_index("q", &q(-0.5), 3).unwrap(), (true, 1));
        assert_eq!(discrete_index("q", &ScalarValue::Decimal128(Some(9), 2, 1), 5).unwrap(), (false, 4));
        assert!(discrete_index("q", &q(1.5), 3).is_err());
    }
}
