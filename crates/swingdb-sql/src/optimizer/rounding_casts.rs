//! Casts of fractional numbers to integers round, as in DuckDB and
//! PostgreSQL: `CAST(2.7 AS INTEGER)` is 3 (Arrow's cast, which DataFusion
//! uses, truncates to 2). A `DECIMAL` rounds half away from zero (`2.5` is 3,
//! `-2.5` is -3); a `DOUBLE` or `REAL` rounds half to even (`2.5` is 2, `3.5`
//! is 4), which is what both peers do. Values out of the integer's range
//! stay errors.
//!
//! An analyzer rule, after type coercion, puts [`RoundForCast`] under every
//! `CAST` / `TRY_CAST` from a float or decimal to an integer type (the casts
//! an INSERT adds into integer columns too). A number written in the
//! statement rounds as the DECIMAL DuckDB reads it as (`CAST(2.5 AS INTEGER)`
//! is 3), though DataFusion reads it as a DOUBLE.

use crate::optimizer::node_expressions::rewrite_expressions;
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::kernels::arity::unary;
use datafusion::arrow::datatypes::{DataType, Decimal128Type, Float32Type, Float64Type};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::logical_expr::expr::{ScalarFunction, TryCast};
use datafusion::logical_expr::{
    Cast, ColumnarValue, Expr, ExprSchemable, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion::optimizer::AnalyzerRule;
use std::sync::{Arc, LazyLock};

/// The analyzer rule that makes casts to integers round (see the module docs).
#[derive(Debug, Default)]
pub struct RoundingCasts;

impl AnalyzerRule for RoundingCasts {
    fn name(&self) -> &str {
        "rounding_casts"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(rewrite_plan).data()
    }
}

/// `round_for_cast(x)`: `x` rounded to a whole number in its own type, the
/// way a cast to an integer rounds it (see the module docs).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RoundForCast {
    signature: Signature,
}

static ROUND_FOR_CAST: LazyLock<Arc<ScalarUDF>> = LazyLock::new(|| {
    Arc::new(ScalarUDF::new_from_impl(RoundForCast { signature: Signature::any(1, Volatility::Immutable) }))
});

/// `v` (a decimal of `scale`) rounded half away from zero to a whole number.
fn round_decimal(v: i128, scale: i8) -> i128 {
    if scale <= 0 {
        return v;
    }
    let unit = 10i128.pow(scale as u32);
    let (whole, rest) = (v / unit, v % unit);
    let half = unit / 2;
    let whole = match rest {
        r if r >= half => whole + 1,
        r if r <= -half => whole - 1,
        _ => whole,
    };
    whole * unit
}

impl ScalarUDFImpl for RoundForCast {
    fn name(&self) -> &str {
        "round_for_cast"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(arg_types[0].clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        Ok(match &args.args[0] {
            ColumnarValue::Scalar(scalar) => ColumnarValue::Scalar(match scalar {
                ScalarValue::Float64(v) => ScalarValue::Float64(v.map(f64::round_ties_even)),
                ScalarValue::Float32(v) => ScalarValue::Float32(v.map(f32::round_ties_even)),
                ScalarValue::Decimal128(v, p, s) => ScalarValue::Decimal128(v.map(|v| round_decimal(v, *s)), *p, *s),
                other => other.clone(),
            }),
            ColumnarValue::Array(array) => ColumnarValue::Array(match array.data_type() {
                DataType::Float64 => {
                    Arc::new(unary::<Float64Type, _, Float64Type>(array.as_primitive(), f64::round_ties_even))
                        as ArrayRef
                }
                DataType::Float32 => {
                    Arc::new(unary::<Float32Type, _, Float32Type>(array.as_primitive(), f32::round_ties_even))
                }
                DataType::Decimal128(p, s) => {
                    let (p, s) = (*p, *s);
                    let rounded =
                        unary::<Decimal128Type, _, Decimal128Type>(array.as_primitive(), |v| round_decimal(v, s));
                    Arc::new(rounded.with_precision_and_scale(p, s)?)
                }
                _ => array.clone(),
            }),
        })
    }
}

fn rounds(from: &DataType) -> bool {
    matches!(from, DataType::Float32 | DataType::Float64) || matches!(from, DataType::Decimal128(_, s) if *s > 0)
}

/// Whether a cast from `from` to `to` rounds (rather than casting as Arrow does).
pub fn rounds_when_cast(from: &DataType, to: &DataType) -> bool {
    to.is_integer() && rounds(from)
}

/// Whether a cast of `expr` to `to` rounds first.
fn rounded(expr: &Expr, to: &DataType, schema: &DFSchema) -> bool {
    to.is_integer() && expr.get_type(schema).is_ok_and(|t| rounds(&t))
}

/// `expr` rounded as a cast to an integer rounds it. A number written in the
/// statement (`2.5`, `-2.5`), which DataFusion reads as a DOUBLE and DuckDB
/// as a DECIMAL, rounds as the DECIMAL it was written as: half away from zero.
fn round_for_cast(expr: Expr) -> Expr {
    match expr {
        Expr::Literal(ScalarValue::Float64(Some(v)), meta) => {
            Expr::Literal(ScalarValue::Float64(Some(v.round())), meta)
        }
        Expr::Negative(inner) if matches!(inner.as_ref(), Expr::Literal(ScalarValue::Float64(Some(_)), _)) => {
            Expr::Negative(Box::new(round_for_cast(*inner)))
        }
        expr => Expr::ScalarFunction(ScalarFunction::new_udf(ROUND_FOR_CAST.clone(), vec![expr])),
    }
}

fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    Ok(match expr {
        Expr::Cast(Cast { expr, field }) => match rounded(&expr, field.data_type(), schema) {
            true => Transformed::yes(Expr::Cast(Cast { expr: Box::new(round_for_cast(*expr)), field })),
            false => Transformed::no(Expr::Cast(Cast { expr, field })),
        },
        Expr::TryCast(TryCast { expr, field }) => match rounded(&expr, field.data_type(), schema) {
            true => Transformed::yes(Expr::TryCast(TryCast { expr: Box::new(round_for_cast(*expr)), field })),
            false => Transformed::no(Expr::TryCast(TryCast { expr, field })),
        },
        other => Transformed::no(other),
    })
}

fn rewrite_plan(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    rewrite_expressions(plan, rewrite_expr)
}

#[cfg(test)]
mod tests {
    use super::round_decimal;

    #[test]
    fn decimals_round_half_away_from_zero() {
        // 2.50 -> 3, -2.50 -> -3, 2.49 -> 2, -2.49 -> -2 (scale 2)
        assert_eq!(round_decimal(250, 2), 300);
        assert_eq!(round_decimal(-250, 2), -300);
        assert_eq!(round_decimal(249, 2), 200);
        assert_eq!(round_decimal(-249, 2), -200);
        assert_eq!(round_decimal(270, 2), 300);
        assert_eq!(round_decimal(7, 0), 7);
    }
}
