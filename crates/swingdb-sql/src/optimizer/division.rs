//! What `/` of two numbers gives, decided before type coercion.
//!
//! Integers divide as integers also when one is unsigned: `u // 2` of a
//! UBIGINT `u` is an integer, as in DuckDB. UBIGINT, UINTEGER, ... columns
//! and some of DataFusion's functions (`cardinality`) give unsigned integers
//! (its ranking windows did too before `dialect::bigint_ranks`), and its type
//! coercion brings an unsigned and a signed 64-bit integer to a
//! DECIMAL(20, 0): their quotient then had decimals (`rank() // 7` gave
//! 0.1428) where integer division truncates (swingdb's `/` of integers,
//! DuckDB's `//`; found by the differential fuzzer). The unsigned side of
//! such a division is cast to BIGINT; a value past BIGINT's range raises
//! (the cast's error) instead of dividing.
//!
//! A DECIMAL divides in DOUBLE, as in DuckDB: `1 / 3.0` is 0.3333333333333333
//! and `7.5 // 2` is 3.75. DataFusion divides decimals at the dividend's
//! scale plus 4 (`1 / 3.0` gave 0.3333, `2 / 3.0 * 3` gave 1.9999), an
//! answer no peer gives; PostgreSQL's numeric division keeps at least 16
//! significant digits, DuckDB's gives a DOUBLE.

use crate::optimizer::node_expressions::rewrite_expressions;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::logical_expr::{BinaryExpr, Cast, Expr, ExprSchemable, LogicalPlan, Operator};
use datafusion::optimizer::AnalyzerRule;

/// The analyzer rule that gives divisions their operand types (see the
/// module docs); it runs before type coercion.
#[derive(Debug, Default)]
pub struct Division;

impl AnalyzerRule for Division {
    fn name(&self) -> &str {
        "division"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(|plan| rewrite_expressions(plan, rewrite_expr)).data()
    }
}

/// `expr` as a `to`.
fn cast(expr: Box<Expr>, to: DataType) -> Box<Expr> {
    Box::new(Expr::Cast(Cast::new(expr, to)))
}

fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right }) = &expr else {
        return Ok(Transformed::no(expr));
    };
    let (Ok(l), Ok(r)) = (left.get_type(schema), right.get_type(schema)) else {
        return Ok(Transformed::no(expr));
    };
    let in_double = (l.is_decimal() || r.is_decimal()) && l.is_numeric() && r.is_numeric();
    let cast_left = l.is_unsigned_integer() && r.is_signed_integer();
    let cast_right = l.is_signed_integer() && r.is_unsigned_integer();
    if !in_double && !cast_left && !cast_right {
        return Ok(Transformed::no(expr));
    }
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = expr else { unreachable!("matched above") };
    Ok(Transformed::yes(Expr::BinaryExpr(match (in_double, cast_left) {
        (true, _) => BinaryExpr { left: cast(left, DataType::Float64), op, right: cast(right, DataType::Float64) },
        (false, true) => BinaryExpr { left: cast(left, DataType::Int64), op, right },
        (false, false) => BinaryExpr { left, op, right: cast(right, DataType::Int64) },
    })))
}
