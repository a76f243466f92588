//! What [`super::sum::WideSum`] and its per-group totals share: which
//! aggregate is computed ([`Kind`]), how a 128-bit total becomes a result of
//! the aggregate's type ([`Finish`]), and how input values are read widened.

use datafusion::arrow::array::{
    downcast_integer, Array, ArrayRef, AsArray, Decimal128Array, Float64Array, Int64Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Decimal128Type};
use datafusion::common::{internal_err, Result as DFResult, ScalarValue};
use datafusion::logical_expr::function::AccumulatorArgs;
use datafusion_functions_aggregate_common::utils::DecimalAverager;
use std::sync::Arc;
use swingdb_storage::error::Error;

/// Which aggregate a [`WideSum`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Sum,
    Avg,
}

/// Turns running totals and counts into results of the aggregate's type.
#[derive(Debug)]
pub(super) struct Finish {
    kind: Kind,
    pub(super) scale: i8,
    output: DataType,
    name: String,
}

impl Finish {
    pub(super) fn new(kind: Kind, args: &AccumulatorArgs) -> Self {
        Self {
            kind,
            scale: input_scale(args.expr_fields[0].data_type()),
            output: args.return_field.data_type().clone(),
            name: args.name.to_string(),
        }
    }

    pub(super) fn out_of_range(&self, total: i128) -> datafusion::error::DataFusionError {
        let sql_type = crate::frontend::types::sql_name(&self.output);
        let shown = ScalarValue::Decimal128(Some(total), 38, self.scale);
        Error::data(format!(
            "{} is out of range for {sql_type}: the total is {shown}; aggregate a wider type, e.g. CAST(... AS DECIMAL(38,{}))",
            self.name, self.scale
        ))
        .into()
    }

    /// One result per (total, count); NULL where nothing was counted.
    pub(super) fn results(&self, totals: &[i128], counts: &[u64]) -> DFResult<ArrayRef> {
        let pairs = totals.iter().zip(counts).map(|(t, c)| (*c > 0).then_some((*t, *c)));
        Ok(match (self.kind, &self.output) {
            (Kind::Sum, DataType::Int64) => Arc::new(
                pairs
                    .map(|p| p.map(|(t, _)| i64::try_from(t).map_err(|_| self.out_of_range(t))).transpose())
                    .collect::<DFResult<Int64Array>>()?,
            ),
            (Kind::Sum, DataType::UInt64) => Arc::new(
                pairs
                    .map(|p| p.map(|(t, _)| u64::try_from(t).map_err(|_| self.out_of_range(t))).transpose())
                    .collect::<DFResult<UInt64Array>>()?,
            ),
            (Kind::Sum, DataType::Decimal128(precision, scale)) => {
                let limit = 10i128.pow(*precision as u32);
                let fits = |t: i128| if t.unsigned_abs() < limit as u128 { Ok(t) } else { Err(self.out_of_range(t)) };
                let values =
                    pairs.map(|p| p.map(|(t, _)| fits(t)).transpose()).collect::<DFResult<Decimal128Array>>()?;
                Arc::new(values.with_precision_and_scale(*precision, *scale)?)
            }
            (Kind::Avg, DataType::Decimal128(precision, scale)) => {
                let averager = DecimalAverager::<Decimal128Type>::try_new(self.scale, *precision, *scale)?;
                let values = pairs
                    .map(|p| p.map(|(t, c)| averager.avg(t, c as i128).map_err(|_| self.out_of_range(t))).transpose())
                    .collect::<DFResult<Decimal128Array>>()?;
                Arc::new(values.with_precision_and_scale(*precision, *scale)?)
            }
            (Kind::Avg, _) => Arc::new(pairs.map(|p| p.map(|(t, c)| t as f64 / c as f64)).collect::<Float64Array>()),
            (Kind::Sum, other) => return internal_err!("sum into {other}"),
        })
    }

    /// Totals as a partial state column.
    pub(super) fn state_totals(&self, totals: Vec<i128>) -> DFResult<ArrayRef> {
        Ok(Arc::new(Decimal128Array::from(totals).with_precision_and_scale(38, self.scale)?))
    }

    /// The error for a running total beyond even 128 bits (DECIMAL(38,s)
    /// inputs only: integers would need 2^64 rows).
    pub(super) fn overflow(&self) -> datafusion::error::DataFusionError {
        Error::data(format!("{} is out of range for {}", self.name, crate::frontend::types::sql_name(&self.output)))
            .into()
    }
}

/// `$each!(T)` for the arrow type `T` of an input of `$data_type` (an
/// integer or DECIMAL(38)); returns an internal error for any other type.
macro_rules! by_input_type {
    ($data_type:expr, $each:ident) => {{
        downcast_integer! {
            $data_type => ($each),
            DataType::Decimal128(..) => $each!(Decimal128Type),
            other => return internal_err!("a widened sum of {other}"),
        }
    }};
}
pub(super) use by_input_type;

/// Calls `add(row, value)` for each non-null input value, widened to i128.
pub(super) fn for_each_value(values: &ArrayRef, mut add: impl FnMut(usize, i128)) -> DFResult<()> {
    macro_rules! each {
        ($t:ty) => {{
            let array = values.as_primitive::<$t>();
            for (row, v) in array.values().iter().enumerate() {
                if array.is_valid(row) {
                    add(row, i128::from(*v));
                }
            }
        }};
    }
    by_input_type!(values.data_type(), each);
    Ok(())
}
/// The scale of an input (0 for integers): the scale of every running total.
pub(super) fn input_scale(input: &DataType) -> i8 {
    match input {
        DataType::Decimal128(_, s) => *s,
        _ => 0,
    }
}
