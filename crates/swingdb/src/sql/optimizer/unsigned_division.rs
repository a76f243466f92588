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

use crate::sql::optimizer::node_expressions::rewrite_expressions;
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

fn is_signed(t: &DataType) -> bool {
    matches!(t, DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64)
}

fn is_unsigned(t: &DataType) -> bool {
    matches!(t, DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64)
}

/// `expr` as a BIGINT.
fn signed(expr: Expr) -> Box<Expr> {
    Box::new(Expr::Cast(Cast::new(Box::new(expr), DataType::Int64)))
}

fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    let Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right }) = expr else {
        return Ok(Transformed::no(expr));
    };
    let (Ok(l), Ok(r)) = (left.get_type(schema), right.get_type(schema)) else {
        return Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right })));
    };
    let rewritten = match (is_unsigned(&l) && is_signed(&r), is_signed(&l) && is_unsigned(&r)) {
        (true, _) => BinaryExpr { left: signed(*left), op: Operator::Divide, right },
        (_, true) => BinaryExpr { left, op: Operator::Divide, right: signed(*right) },
        _ => return Ok(Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op: Operator::Divide, right }))),
    };
    Ok(Transformed::yes(Expr::BinaryExpr(rewritten)))
}
