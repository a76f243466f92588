//! `sum` and `avg` of integers and `DECIMAL`, accumulated in 128 bits.
//!
//! DataFusion's `sum` adds with wrapping arithmetic in the result type, so the
//! sum of two large BIGINTs comes back negative. [`WideSum`] keeps every
//! running total as an `i128` (a BIGINT column would need 2^64 rows to
//! overflow it) and converts once, at the end: the result is exact, or a
//! `DataError` when the total does not fit the result type. Result types are
//! DataFusion's (`sum(BIGINT)` is BIGINT, `sum(DECIMAL(p,s))` is
//! `DECIMAL(min(38,p+10),s)`, `avg` of integers is DOUBLE), so plans above the
//! aggregate do not change. Partial states travel as `DECIMAL(38,s)` totals
//! and `UBIGINT` counts. Per group (GROUP BY) they are kept by
//! [`WideGroups`] (`sum_groups.rs`).

use super::few_totals;
use super::sum_groups::WideGroups;
use super::wide::{for_each_value, input_scale, Finish, Kind};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, PrimitiveArray};
use datafusion::arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Field, FieldRef, Int16Type, Int32Type, Int64Type, Int8Type,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::logical_expr::expr::Cast;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Expr, ExprSchemable, GroupsAccumulator, ReversedUDAF, Signature,
    Volatility,
};
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

/// The widened replacement for DataFusion's `sum` and `avg` of integer and
/// DECIMAL inputs (integers taken in their own type, where DataFusion casts
/// them to BIGINT or UBIGINT first; DECIMALs held in 32 or 64 bits cast to
/// 128).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct WideSum {
    kind: Kind,
    signature: Signature,
}

/// The widened aggregate and its arguments for `func(args)`, if `func` is
/// DataFusion's `sum` or `avg` over an input whose total can overflow.
pub(super) fn widened(
    func: &Arc<AggregateUDF>,
    args: &[Expr],
    schema: &DFSchema,
) -> DFResult<Option<(Arc<AggregateUDF>, Vec<Expr>)>> {
    let already: &dyn Any = func.inner().as_ref();
    if already.is::<WideSum>() || args.len() != 1 {
        return Ok(None);
    }
    let kind = match func.name() {
        "sum" => Kind::Sum,
        "avg" => Kind::Avg,
        _ => return Ok(None),
    };
    let Ok(input) = args[0].get_type(schema) else {
        return Ok(None);
    };
    let narrow = |expr: &Expr| expr.get_type(schema).is_ok_and(|t| t.is_integer());
    let arg = match (&args[0], input) {
        // DataFusion casts narrower integers to BIGINT / UBIGINT for `sum`
        // (and to DOUBLE for `avg`): they are added as they are instead,
        // without a copy of the column in the wider type.
        (Expr::Cast(Cast { expr, .. }), DataType::Int64 | DataType::UInt64) if narrow(expr) => (**expr).clone(),
        (Expr::Cast(Cast { expr, .. }), DataType::Float64) if kind == Kind::Avg && narrow(expr) => (**expr).clone(),
        (_, DataType::Int64 | DataType::UInt64 | DataType::Decimal128(..)) => args[0].clone(),
        // DataFusion sums these in their own 32 or 64 bits, wrapping.
        (_, DataType::Decimal32(p, s) | DataType::Decimal64(p, s)) => {
            Expr::Cast(Cast::new(Box::new(args[0].clone()), DataType::Decimal128(p, s)))
        }
        _ => return Ok(None),
    };
    let udaf = AggregateUDF::new_from_impl(WideSum { kind, signature: Signature::any(1, Volatility::Immutable) });
    Ok(Some((Arc::new(udaf), vec![arg])))
}

impl AggregateUDFImpl for WideSum {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Sum => "sum",
            Kind::Avg => "avg",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(match (self.kind, &arg_types[0]) {
            (Kind::Sum, DataType::Decimal128(p, s)) => DataType::Decimal128((*p + 10).min(38), *s),
            (Kind::Sum, t) if t.is_signed_integer() => DataType::Int64,
            (Kind::Sum, t) if t.is_unsigned_integer() => DataType::UInt64,
            (Kind::Sum, other) => other.clone(),
            (Kind::Avg, DataType::Decimal128(p, s)) => DataType::Decimal128((*p + 4).min(38), (*s + 4).min(38)),
            (Kind::Avg, _) => DataType::Float64,
        })
    }

    fn state_fields(&self, args: StateFieldsArgs) -> DFResult<Vec<FieldRef>> {
        let total = DataType::Decimal128(38, input_scale(args.input_fields[0].data_type()));
        let field = |what: &str, t: DataType| Arc::new(Field::new(format!("{}[{what}]", args.name), t, true));
        if args.is_distinct {
            let list = DataType::List(Arc::new(Field::new_list_field(total, true)));
            Ok(vec![field("distinct", list)])
        } else {
            Ok(vec![field("total", total), field("count", DataType::UInt64)])
        }
    }

    fn accumulator(&self, args: AccumulatorArgs) -> DFResult<Box<dyn Accumulator>> {
        let finish = Finish::new(self.kind, &args);
        if args.is_distinct {
            Ok(Box::new(DistinctAccumulator { finish, values: HashMap::new() }))
        } else {
            Ok(Box::new(WideAccumulator { finish, total: 0, count: 0 }))
        }
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        !args.is_distinct
    }

    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> DFResult<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(WideGroups::new(Finish::new(self.kind, &args))))
    }

    fn reverse_expr(&self) -> ReversedUDAF {
        ReversedUDAF::Identical
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }
}

/// One total for a whole input (also over sliding window frames).
#[derive(Debug)]
struct WideAccumulator {
    finish: Finish,
    total: i128,
    count: u64,
}

impl WideAccumulator {
    fn add(&mut self, values: &ArrayRef, sign: i128) -> DFResult<()> {
        let added = batch_total(values)?.and_then(|batch| self.total.checked_add(sign * batch));
        let Some(total) = added else { return Err(self.finish.overflow()) };
        let counted = (values.len() - values.null_count()) as u64;
        self.total = total;
        self.count = if sign > 0 { self.count + counted } else { self.count - counted };
        Ok(())
    }
}

/// Rows whose integers a [`batch_total`] adds in 64 bits before widening: a
/// 32-bit integer or half of a 64-bit one cannot overflow 64 bits in 2^31.
const NARROW_ROWS: usize = 1 << 31;

/// The total of a batch's non-null values; `None` when it does not fit 128
/// bits (DECIMAL(38) inputs only). Integers are added in 64 bits, in a loop
/// the compiler vectorizes: the whole-table `SUM` of a 26.8M-row INTEGER
/// column took 5 ns a row value by value in 128 bits.
fn batch_total(values: &ArrayRef) -> DFResult<Option<i128>> {
    /// The total of the non-null values, in chunks whose values `chunk`
    /// adds without overflow.
    fn total<T: ArrowPrimitiveType>(values: &PrimitiveArray<T>, chunk: impl Fn(&[T::Native]) -> i128) -> i128 {
        match values.nulls().filter(|n| n.null_count() > 0) {
            None => values.values().chunks(NARROW_ROWS).map(chunk).sum(),
            Some(nulls) => {
                let kept: Vec<T::Native> =
                    values.values().iter().zip(nulls.iter()).filter(|(_, valid)| *valid).map(|(v, _)| *v).collect();
                kept.chunks(NARROW_ROWS).map(chunk).sum()
            }
        }
    }
    /// Values of at most 32 bits, added as i64s.
    fn narrow<T: ArrowPrimitiveType>(values: &PrimitiveArray<T>, widen: impl Fn(T::Native) -> i64) -> i128 {
        total(values, |c| c.iter().map(|v| widen(*v)).sum::<i64>() as i128)
    }
    /// 64-bit values, added as high and low 32-bit halves.
    fn wide<T: ArrowPrimitiveType>(
        values: &PrimitiveArray<T>,
        high: impl Fn(T::Native) -> i64,
        low: impl Fn(T::Native) -> i64,
    ) -> i128 {
        total(values, |c| {
            (c.iter().map(|v| high(*v)).sum::<i64>() as i128) * (1 << 32)
                + c.iter().map(|v| low(*v)).sum::<i64>() as i128
        })
    }
    // Decimals in 64 bits a block at a time where the values are small (they
    // mostly are: a DECIMAL(15,2) price), else value by value below.
    if let Some(decimals) = values.as_primitive_opt::<Decimal128Type>() {
        let valid = decimals.nulls().filter(|n| n.null_count() > 0).map(|n| n.inner());
        if let Some((total, _)) = few_totals::total(decimals.values(), valid) {
            return Ok(Some(total));
        }
    }
    Ok(Some(match values.data_type() {
        DataType::Int8 => narrow(values.as_primitive::<Int8Type>(), i64::from),
        DataType::Int16 => narrow(values.as_primitive::<Int16Type>(), i64::from),
        DataType::Int32 => narrow(values.as_primitive::<Int32Type>(), i64::from),
        DataType::UInt8 => narrow(values.as_primitive::<UInt8Type>(), i64::from),
        DataType::UInt16 => narrow(values.as_primitive::<UInt16Type>(), i64::from),
        DataType::UInt32 => narrow(values.as_primitive::<UInt32Type>(), i64::from),
        DataType::Int64 => wide(values.as_primitive::<Int64Type>(), |v| v >> 32, |v| v & 0xffff_ffff),
        DataType::UInt64 => {
            wide(values.as_primitive::<UInt64Type>(), |v| (v >> 32) as i64, |v| (v & 0xffff_ffff) as i64)
        }
        _ => {
            let mut total: Option<i128> = Some(0);
            for_each_value(values, |_, v| total = total.and_then(|t| t.checked_add(v)))?;
            return Ok(total);
        }
    }))
}

impl Accumulator for WideAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        self.add(&values[0], 1)
    }

    fn retract_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        self.add(&values[0], -1)
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> DFResult<()> {
        let count = self.count;
        self.add(&states[0], 1)?;
        self.count = count + states[1].as_primitive::<UInt64Type>().iter().flatten().sum::<u64>();
        Ok(())
    }

    fn state(&mut self) -> DFResult<Vec<ScalarValue>> {
        Ok(vec![
            ScalarValue::Decimal128(Some(self.total), 38, self.finish.scale),
            ScalarValue::UInt64(Some(self.count)),
        ])
    }

    fn evaluate(&mut self) -> DFResult<ScalarValue> {
        ScalarValue::try_from_array(&self.finish.results(&[self.total], &[self.count])?, 0)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// `sum(DISTINCT x)` / `avg(DISTINCT x)`: the distinct values with their
/// multiplicities (so window frames can retract them).
#[derive(Debug)]
struct DistinctAccumulator {
    finish: Finish,
    values: HashMap<i128, u64>,
}

impl Accumulator for DistinctAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        for_each_value(&values[0], |_, v| *self.values.entry(v).or_default() += 1)
    }

    fn retract_batch(&mut self, values: &[ArrayRef]) -> DFResult<()> {
        for_each_value(&values[0], |_, v| {
            if let Some(n) = self.values.get_mut(&v) {
                *n -= 1;
                if *n == 0 {
                    self.values.remove(&v);
                }
            }
        })
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> DFResult<()> {
        let lists: &ListArray = states[0].as_list();
        for list in lists.iter().flatten() {
            self.update_batch(&[list])?;
        }
        Ok(())
    }

    fn state(&mut self) -> DFResult<Vec<ScalarValue>> {
        let values = self.finish.state_totals(self.values.keys().copied().collect())?;
        Ok(vec![ScalarValue::List(Arc::new(
            datafusion::common::utils::SingleRowListArrayBuilder::new(values).build_list_array(),
        ))])
    }

    fn evaluate(&mut self) -> DFResult<ScalarValue> {
        let mut total: i128 = 0;
        for v in self.values.keys() {
            total = total.checked_add(*v).ok_or_else(|| self.finish.overflow())?;
        }
        ScalarValue::try_from_array(&self.finish.results(&[total], &[self.values.len() as u64])?, 0)
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.capacity() * 32
    }
}
