//! Subscripts of strings, as DuckDB reads them: `s[2:3]` is the 2nd to 3rd
//! character (`'hello'[2:3]` is `'el'`), `s[i]` the `i`-th, counting from 1,
//! negative positions from the end (`s[-3:-1]` are the last three), out of
//! range positions clipped, an empty range `''`. DataFusion plans
//! subscripts for lists only (a string's slice failed to plan); lists keep
//! DataFusion's (the same rules).

use datafusion::arrow::array::{Array, AsArray, Int64Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{plan_err, DFSchema, Result, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawFieldAccessExpr};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ExprSchemable, GetFieldAccess, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use std::sync::Arc;

/// Plans subscripts of strings (see the module documentation).
#[derive(Debug)]
pub struct StringSubscripts;

impl ExprPlanner for StringSubscripts {
    fn plan_field_access(
        &self,
        expr: RawFieldAccessExpr,
        schema: &DFSchema,
    ) -> Result<PlannerResult<RawFieldAccessExpr>> {
        let is_string =
            matches!(expr.expr.get_type(schema), Ok(DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View));
        if !is_string {
            return Ok(PlannerResult::Original(expr));
        }
        let (start, stop) = match &expr.field_access {
            GetFieldAccess::ListIndex { key } => (key.as_ref().clone(), key.as_ref().clone()),
            GetFieldAccess::ListRange { start, stop, stride } => {
                if !matches!(stride.as_ref(), Expr::Literal(ScalarValue::Int64(Some(1)), _)) {
                    return plan_err!("a string's slice takes no step: s[from:to]");
                }
                (start.as_ref().clone(), stop.as_ref().clone())
            }
            GetFieldAccess::NamedStructField { .. } => return Ok(PlannerResult::Original(expr)),
        };
        Ok(PlannerResult::Planned(Expr::ScalarFunction(ScalarFunction::new_udf(
            Arc::new(slice()),
            vec![expr.expr, start, stop],
        ))))
    }
}

/// The function a string's subscript is planned as.
fn slice() -> ScalarUDF {
    ScalarUDF::new_from_impl(Slice {
        signature: Signature::exact(vec![DataType::Utf8, DataType::Int64, DataType::Int64], Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Slice {
    signature: Signature,
}

impl ScalarUDFImpl for Slice {
    fn name(&self) -> &str {
        "__swingdb_string_slice"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let texts = args.args[0].to_array(rows)?;
        let texts = texts.as_string::<i32>();
        let starts = cast(&args.args[1].to_array(rows)?, &DataType::Int64)?;
        let stops = cast(&args.args[2].to_array(rows)?, &DataType::Int64)?;
        let (starts, stops): (&Int64Array, &Int64Array) = (starts.as_primitive(), stops.as_primitive());
        let out: StringArray = (0..rows)
            .map(|i| {
                (texts.is_valid(i) && starts.is_valid(i) && stops.is_valid(i))
                    .then(|| characters(texts.value(i), starts.value(i), stops.value(i)))
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

/// Characters `from` to `to` of `text` (1-based, inclusive, negative from
/// the end, clipped to the text).
fn characters(text: &str, from: i64, to: i64) -> String {
    let count = text.chars().count() as i64;
    let at = |i: i64| if i < 0 { count + i + 1 } else { i };
    let (first, last) = (at(from).max(1), at(to).min(count));
    if first > last {
        return String::new();
    }
    text.chars().skip(first as usize - 1).take((last - first + 1) as usize).collect()
}

#[cfg(test)]
mod tests {
    use super::characters;

    #[test]
    fn positions_as_duckdb_counts_them() {
        // Figures from DuckDB 2.0.1.
        let cases = [
            (2, 3, "el"),
            (1, 1, "h"),
            (-1, -1, "o"),
            (-3, -1, "llo"),
            (0, 2, "he"),
            (4, 10, "lo"),
            (3, 2, ""),
            (0, 0, ""),
            (9, 9, ""),
        ];
        for (from, to, want) in cases {
            assert_eq!(characters("hello", from, to), want, "[{from}:{to}]");
        }
        assert_eq!(characters("héllo", 2, 2), "é");
    }
}
