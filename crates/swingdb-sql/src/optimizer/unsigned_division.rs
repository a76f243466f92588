//! Integers divide as integers also when one is unsigned: `u // 2` of a
//! UBIGINT `u` is an integer, as in DuckDB.
//!
//! UBIGINT, UINTEGER, ... columns and some of DataFusion's functions
//! (`cardinality`) give unsigned integers (its ranking windows did too
//! before `dialect::bigint_ranks`), and its type coercion brings an unsigned
//! and a signed 64-bit integer to a DECIMAL(20, 0): their quotient then had
//! decimals (`rank() // 7` gave 0.1428) where integer division truncates
//! (swingdb's `/` of integers, DuckDB's `//`; found by the differential
//! fuzzer). An analyzer rule, before type coercion, casts the unsigned side
//! of such a division to BIGINT. A value past BIGINT's range raises (the
//! cast's error) instead of dividing.

use crate::optimizer::node_expressions::rewrite_expressions;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::logical_expr::{BinaryExpr, Cast, Expr, ExprSchemable, LogicalPlan, Operator};
use datafusion::optimizer::AnalyzerRule;

/// The analyzer rule that keeps divisions of mixed-sign integers integral
/// (see the module docs); it runs before type coercion.
#[derive(Debug, Default)]
pub struct UnsignedDivision;

impl AnalyzerRule for UnsignedDivision {
    fn name(&self) -> &str {
        "unsigned_division"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(|plan| rewrite_expressions(plan, rewrite_expr)).data()
    }
}

/// `expr` as a BIGINT.
fn signed(expr: Expr) -> Box<Expr> {
    Box::new(Expr::Cast(Cast::new(Box::new(expr), DataType::Int64)))
}

fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right }) = &expr else {
        return Ok(Transformed::no(expr));
    };
    let (Ok(l), Ok(r)) = (left.get_type(schema), right.get_type(schema)) else {
        return Ok(Transformed::no(expr));
    };
    let cast_left = l.is_unsigned_integer() && r.is_signed_integer();
    let cast_right = l.is_signed_integer() && r.is_unsigned_integer();
    if !cast_left && !cast_right {
        return Ok(Transformed::no(expr));
    }
    let Expr::BinaryExpr(BinaryExpr { left, op, right }) = expr else { unreachable!("matched above") };
    Ok(Transformed::yes(Expr::BinaryExpr(match cast_left {
        true => BinaryExpr { left: signed(*left), op, right },
        false => BinaryExpr { left, op, right: signed(*right) },
    })))
}
