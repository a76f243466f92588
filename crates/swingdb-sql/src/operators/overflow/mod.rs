//! Arithmetic that raises instead of wrapping. DataFusion adds, subtracts and
//! multiplies integers and decimals with wrapping kernels and sums them with
//! wrapping accumulators, so `9223372036854775807 + 1` answers a negative
//! number. PostgreSQL and DuckDB raise; so does swingdb: an analyzer rule,
//! run after type coercion, replaces those operations by checked ones that
//! fail with a `DataError` naming the operation and the values.
//!
//! - `a + b`, `a - b`, `a * b` on integers or `DECIMAL` become [`CheckedOp`]
//!   calls, shown and named exactly as the operator (so result columns keep
//!   their names); a decimal result must also fit its declared precision.
//! - `sum` and `avg` of integers and `DECIMAL` accumulate in 128 bits
//!   ([`sum::WideSum`]): exact where DataFusion wrapped, and an error when the
//!   total does not fit the result type (BIGINT, or the DECIMAL's precision).
//!
//! Division, `abs` and casts already raise in DataFusion; negation does in
//! our vendored copy of it (vendor/README.md).

mod few_totals;
mod sum;
mod sum_groups;
mod wide;

use crate::frontend::types::sql_name;
use crate::optimizer::node_expressions::rewrite_expressions;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Datum, Decimal128Array};
use datafusion::arrow::compute::kernels::numeric;
use datafusion::arrow::compute::{binary, cast_with_options, try_binary, CastOptions};
use datafusion::arrow::datatypes::Decimal128Type;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::arrow::error::ArrowError;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::type_coercion::binary::BinaryTypeCoercer;
use datafusion::logical_expr::{
    BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, ReturnFieldArgs, ScalarFunctionArgs,
    ScalarUDF, ScalarUDFImpl, Signature, Volatility, WindowFunctionDefinition,
};
use datafusion::optimizer::AnalyzerRule;
use std::sync::Arc;
use swingdb_storage::error::Error;

/// The analyzer rule that swaps wrapping arithmetic and sums for checked ones.
#[derive(Debug, Default)]
pub struct CheckedArithmetic;

impl AnalyzerRule for CheckedArithmetic {
    fn name(&self) -> &str {
        "checked_arithmetic"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(rewrite_plan).data()
    }
}

/// Rewrites the expressions of one plan node, resolving types against its
/// inputs (and, for a scan, its table), and keeps every output name.
fn rewrite_plan(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    rewrite_expressions(plan, rewrite_expr)
}

/// Integers and 128-bit decimals: the types whose arithmetic DataFusion wraps.
fn is_checked_type(t: &DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Decimal128(..))
}

/// The most digits `l op r` can have for valid decimal operands
/// (|a| < 10^p1, |b| < 10^p2), at the scale the operator gives its result
/// (`s1 + s2` for `*`, `max(s1, s2)` for `+` and `-`).
fn result_digits(op: Operator, (p1, s1): (u8, i8), (p2, s2): (u8, i8)) -> i32 {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    match op {
        Operator::Multiply => p1 + p2,
        _ => s1.max(s2) + (p1 - s1).max(p2 - s2) + 1,
    }
}

fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if matches!(op, Operator::Plus | Operator::Minus | Operator::Multiply)
                && match (left.get_type(schema), right.get_type(schema)) {
                    (Ok(l), Ok(r)) => is_checked_type(&l) && is_checked_type(&r),
                    _ => false,
                } =>
        {
            let right = *right;
            let args = match *left {
                // `a + b + c` is one call of three operands, not a call inside
                // a call: each level of nesting named its whole subtree again
                // whenever a field was made of it, and a chain of 300 terms
                // took seconds to plan (cubic), 1,000 terms minutes.
                Expr::ScalarFunction(call) if chains_onto(&call, op, &right, schema) => {
                    let mut args = call.args;
                    args.push(right);
                    args
                }
                left => vec![left, right],
            };
            let udf = ScalarUDF::new_from_impl(CheckedOp::new(op));
            Ok(Transformed::yes(Expr::ScalarFunction(ScalarFunction::new_udf(Arc::new(udf), args))))
        }
        Expr::AggregateFunction(mut agg) => match sum::widened(&agg.func, &agg.params.args, schema)? {
            Some((func, args)) => {
                agg.func = func;
                agg.params.args = args;
                Ok(Transformed::yes(Expr::AggregateFunction(agg)))
            }
            None => Ok(Transformed::no(Expr::AggregateFunction(agg))),
        },
        Expr::WindowFunction(mut window) => {
            let widened = match &window.fun {
                WindowFunctionDefinition::AggregateUDF(func) => sum::widened(func, &window.params.args, schema)?,
                _ => None,
            };
            match widened {
                Some((func, args)) => {
                    window.fun = WindowFunctionDefinition::AggregateUDF(func);
                    window.params.args = args;
                    Ok(Transformed::yes(Expr::WindowFunction(window)))
                }
                None => Ok(Transformed::no(Expr::WindowFunction(window))),
            }
        }
        other => Ok(Transformed::no(other)),
    }
}

/// Whether `call op right` can be `call` with one more operand: `call` is a
/// [`CheckedOp`] of `op` over integers, and `right` has the type of its
/// result (so every step of the chain computes in that one type). Decimals
/// are left nested: each step changes the precision.
fn chains_onto(call: &ScalarFunction, op: Operator, right: &Expr, schema: &DFSchema) -> bool {
    let same_op = call.func.inner().downcast_ref::<CheckedOp>().is_some_and(|c| c.op == op);
    // A call of more than two operands was built by this test, so its
    // operands share one type: its first and last stand for all of them
    // (checking every operand again at each step was quadratic in the chain).
    let (Some(first), Some(last)) = (call.args.first(), call.args.last()) else { return false };
    let types: DFResult<Vec<DataType>> = [first, last, right].into_iter().map(|a| a.get_type(schema)).collect();
    same_op && types.is_ok_and(|t| t[0].is_integer() && t.iter().all(|x| *x == t[0]))
}

/// `+`, `-` or `*` of integers or decimals, failing on overflow. Two or more
/// operands, applied from the left (`a - b - c` is `(a - b) - c`); more than
/// two only for integers of one type (see [`chains_onto`]).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct CheckedOp {
    op: Operator,
    name: String,
    signature: Signature,
}

impl CheckedOp {
    fn new(op: Operator) -> Self {
        let name = match op {
            Operator::Plus => "checked_add",
            Operator::Minus => "checked_subtract",
            _ => "checked_multiply",
        };
        Self { op, name: name.to_string(), signature: Signature::variadic_any(Volatility::Immutable) }
    }

    /// Decimal arithmetic whose result cannot leave its type, computed without
    /// checks: when the operands' digits bound the result within DECIMAL's 38
    /// and the declared precision (`DECIMAL(15,2) * DECIMAL(16,2)` has at
    /// most 31 digits), wrapping arithmetic is exact. Operands of up to 18
    /// digits are multiplied as 64-bit integers into a 128-bit product (one
    /// machine instruction); arrow's decimal kernels check every 128-bit
    /// product and rescaling, which cost TPC-H Q1 a third of its time.
    /// `None` when the result could overflow or needs rounding (the checked
    /// paths handle those), or an operand is a NULL scalar.
    fn exact_decimals(&self, args: &[ColumnarValue], target: &DataType) -> DFResult<Option<ArrayRef>> {
        let DataType::Decimal128(precision, scale) = target else {
            return Ok(None);
        };
        let (Some(l), Some(r)) = (args.first().and_then(Operand::of), args.get(1).and_then(Operand::of)) else {
            return Ok(None);
        };
        let ((p1, s1), (p2, s2)) = (l.bounds(), r.bounds());
        if s1 < 0 || s2 < 0 {
            return Ok(None);
        }
        let digits = result_digits(self.op, (p1, s1), (p2, s2));
        let natural_scale = if self.op == Operator::Multiply { s1 + s2 } else { s1.max(s2) };
        if digits > 38 || digits > *precision as i32 || natural_scale != *scale {
            return Ok(None);
        }
        // Whether an operand, rescaled, stays below 10^18 and so fits 64 bits.
        let small = |p: u8, s: i8| p as i32 - s as i32 + natural_scale as i32 <= 18;
        let result = match self.op {
            Operator::Multiply if p1 <= 18 && p2 <= 18 => combine(l, r, |a, b| (a as i64 as i128) * (b as i64 as i128)),
            Operator::Multiply => combine(l, r, i128::wrapping_mul),
            op => {
                let sign: i128 = if op == Operator::Minus { -1 } else { 1 };
                let (lm, rm) =
                    (10i128.pow((natural_scale - s1) as u32), sign * 10i128.pow((natural_scale - s2) as u32));
                match (lm, rm) {
                    (1, 1) => combine(l, r, i128::wrapping_add),
                    (1, -1) => combine(l, r, i128::wrapping_sub),
                    _ if small(p1, s1) && small(p2, s2) => {
                        let (lm, rm) = (lm as i64, rm as i64);
                        combine(l, r, move |a, b| {
                            (a as i64).wrapping_mul(lm).wrapping_add((b as i64).wrapping_mul(rm)) as i128
                        })
                    }
                    _ => combine(l, r, move |a, b| a.wrapping_mul(lm).wrapping_add(b.wrapping_mul(rm))),
                }
            }
        };
        Ok(Some(Arc::new(result.with_precision_and_scale(*precision, *scale)?)))
    }

    /// Decimal products in one pass: both factors usually fit 64 bits (a
    /// DECIMAL(38,s) column rarely holds 38 digits), and then their product
    /// is one machine multiply that cannot overflow 128 bits; only the rest
    /// take the slow checked 128-bit multiply. Each product must stay below
    /// 10^precision. `None` when the types need rescaling (arrow's kernel
    /// does that).
    fn multiply_decimals(&self, args: &[ColumnarValue], target: &DataType) -> DFResult<Option<ArrayRef>> {
        let (
            Some(DataType::Decimal128(_, s1)),
            Some(DataType::Decimal128(_, s2)),
            DataType::Decimal128(precision, scale),
        ) = (args.first().map(|a| a.data_type()), args.get(1).map(|a| a.data_type()), target)
        else {
            return Ok(None);
        };
        if self.op != Operator::Multiply || s1 + s2 != *scale {
            return Ok(None);
        }
        let arrays = ColumnarValue::values_to_arrays(args)?;
        let limit = 10u128.pow(*precision as u32);
        let (l, r) = (arrays[0].as_primitive::<Decimal128Type>(), arrays[1].as_primitive::<Decimal128Type>());
        let product = try_binary::<_, _, _, Decimal128Type>(l, r, |a, b| {
            let p = match (i64::try_from(a), i64::try_from(b)) {
                (Ok(a), Ok(b)) => Some(a as i128 * b as i128),
                _ => a.checked_mul(b),
            };
            p.filter(|p| p.unsigned_abs() < limit).ok_or_else(|| ArrowError::ArithmeticOverflow(format!("{a} * {b}")))
        })?;
        Ok(Some(Arc::new(product.with_precision_and_scale(*precision, *scale)?)))
    }

    fn apply(&self, left: &dyn Datum, right: &dyn Datum) -> DFResult<ArrayRef> {
        let result = match self.op {
            Operator::Plus => numeric::add(left, right),
            Operator::Minus => numeric::sub(left, right),
            _ => numeric::mul(left, right),
        };
        Ok(result?)
    }
}

impl ScalarUDFImpl for CheckedOp {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Shown as the operator it replaces: `a + b` (`a + b + c`).
    fn display_name(&self, args: &[Expr]) -> DFResult<String> {
        Ok(args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(&format!(" {} ", self.op)))
    }

    /// Named as the operator it replaces, so columns keep their names.
    fn schema_name(&self, args: &[Expr]) -> DFResult<String> {
        Ok(args.iter().map(|a| a.schema_name().to_string()).collect::<Vec<_>>().join(&format!(" {} ", self.op)))
    }

    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        let (first, rest) = arg_types
            .split_first()
            .ok_or_else(|| datafusion::error::DataFusionError::Plan(format!("{} needs operands", self.name)))?;
        rest.iter().try_fold(first.clone(), |acc, t| BinaryTypeCoercer::new(&acc, &self.op, t).get_result_type())
    }

    /// NULL only where an operand is (the operator's rule, not a function's).
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        let types: Vec<DataType> = args.arg_fields.iter().map(|f| f.data_type().clone()).collect();
        let nullable = args.arg_fields.iter().any(|f| f.is_nullable());
        Ok(Arc::new(Field::new(self.name(), self.return_type(&types)?, nullable)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let target = args.return_field.data_type().clone();
        let mut operands = args.args.into_iter();
        let first = operands
            .next()
            .ok_or_else(|| datafusion::error::DataFusionError::Plan(format!("{} needs operands", self.name)))?;
        operands.try_fold(first, |left, right| self.invoke_pair(&[left, right], &target))
    }
}

impl CheckedOp {
    /// `args[0] op args[1]` in `target`, failing on overflow.
    fn invoke_pair(&self, args: &[ColumnarValue], target: &DataType) -> DFResult<ColumnarValue> {
        let target = target.clone();
        let all_scalars = args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let overflow = |e| self.overflow(args, &target, e);
        let fast = match self.exact_decimals(args, &target)? {
            Some(result) => Some(result),
            None => self.multiply_decimals(args, &target).map_err(overflow)?,
        };
        let result = match fast {
            Some(result) => result,
            None => {
                let operands: Vec<Box<dyn Datum>> = args
                    .iter()
                    .map(|a| -> DFResult<Box<dyn Datum>> {
                        Ok(match a {
                            ColumnarValue::Array(array) => Box::new(array.clone()),
                            ColumnarValue::Scalar(s) => Box::new(s.to_scalar()?),
                        })
                    })
                    .collect::<DFResult<_>>()?;
                let result = self.apply(operands[0].as_ref(), operands[1].as_ref()).map_err(overflow)?;
                fit_decimal(result, &target).map_err(overflow)?
            }
        };
        Ok(if all_scalars {
            ColumnarValue::Scalar(ScalarValue::try_from_array(&result, 0)?)
        } else {
            ColumnarValue::Array(result)
        })
    }

    /// The error for an overflow: the type, the operation, and the first pair
    /// of values that overflows.
    fn overflow(
        &self,
        args: &[ColumnarValue],
        target: &DataType,
        err: datafusion::error::DataFusionError,
    ) -> datafusion::error::DataFusionError {
        let culprit = first_overflow(self, args, target).unwrap_or_default();
        let sql_type = sql_name(target);
        let message = match culprit {
            Some((l, r)) => format!("{sql_type} out of range: {l} {} {r} overflows", self.op),
            None => format!("{sql_type} out of range in {} ({err})", self.op),
        };
        Error::data(message).into()
    }
}

/// One side of a decimal operation: a column, or a non-NULL constant.
enum Operand {
    Array(Decimal128Array),
    Scalar(i128, i8),
}

impl Operand {
    /// `value` as a decimal operand; `None` for other types and NULL.
    fn of(value: &ColumnarValue) -> Option<Self> {
        match value {
            ColumnarValue::Array(array) if matches!(array.data_type(), DataType::Decimal128(..)) => {
                Some(Operand::Array(array.as_primitive::<Decimal128Type>().clone()))
            }
            ColumnarValue::Scalar(ScalarValue::Decimal128(Some(v), _, s)) => Some(Operand::Scalar(*v, *s)),
            _ => None,
        }
    }

    /// (precision, scale) bounding its values: a column's declared type; for
    /// a constant, its own digits (the literal `1` is typed DECIMAL(20,0),
    /// which would hide that `1 - price` fits 64 bits).
    fn bounds(&self) -> (u8, i8) {
        match self {
            Operand::Array(array) => match array.data_type() {
                DataType::Decimal128(p, s) => (*p, *s),
                _ => unreachable!("a Decimal128 array"),
            },
            Operand::Scalar(v, s) => {
                // (A negative scale is refused by the caller.)
                let digits = v.unsigned_abs().checked_ilog10().map_or(1, |d| d + 1) as u8;
                (digits.max(*s as u8).max(1), *s)
            }
        }
    }
}

/// `f` of two decimal operands, row by row (NULL where either is); `f` must
/// not fail, also on the values under NULLs.
fn combine(l: Operand, r: Operand, f: impl Fn(i128, i128) -> i128) -> Decimal128Array {
    match (l, r) {
        (Operand::Array(l), Operand::Array(r)) => binary(&l, &r, f).expect("operands of one length"),
        (Operand::Array(l), Operand::Scalar(b, _)) => l.unary(|a| f(a, b)),
        (Operand::Scalar(a, _), Operand::Array(r)) => r.unary(|b| f(a, b)),
        (Operand::Scalar(a, _), Operand::Scalar(b, _)) => Decimal128Array::from(vec![f(a, b)]),
    }
}

/// The first row whose operation overflows, as displayable values.
fn first_overflow(op: &CheckedOp, args: &[ColumnarValue], target: &DataType) -> DFResult<Option<(String, String)>> {
    let rows = args
        .iter()
        .map(|a| match a {
            ColumnarValue::Array(array) => array.len(),
            ColumnarValue::Scalar(_) => 1,
        })
        .max()
        .unwrap_or(1);
    let value = |a: &ColumnarValue, row: usize| -> DFResult<ScalarValue> {
        match a {
            ColumnarValue::Array(array) => ScalarValue::try_from_array(array, row),
            ColumnarValue::Scalar(s) => Ok(s.clone()),
        }
    };
    for row in 0..rows {
        let (l, r) = (value(&args[0], row)?, value(&args[1], row)?);
        if op.apply(&l.to_scalar()?, &r.to_scalar()?).and_then(|a| fit_decimal(a, target)).is_err() {
            return Ok(Some((l.to_string(), r.to_string())));
        }
    }
    Ok(None)
}

/// A decimal result in the declared type (rescaled if the kernel chose
/// another scale), refusing values beyond its precision; other results as
/// they are.
fn fit_decimal(result: ArrayRef, target: &DataType) -> DFResult<ArrayRef> {
    let DataType::Decimal128(precision, _) = target else {
        return Ok(result);
    };
    let result = if result.data_type() == target {
        result
    } else {
        cast_with_options(&result, target, &CastOptions { safe: false, ..Default::default() })?
    };
    result.as_primitive::<Decimal128Type>().validate_decimal_precision(*precision)?;
    Ok(result)
}
