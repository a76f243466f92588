//! `a ^ b` raises `a` to the power `b`, in DOUBLE, as in DuckDB (and
//! PostgreSQL): `2 ^ 3` is 8.0. The parser reads `^` as XOR (DataFusion
//! answered `2 ^ 3` with 1, `2.5 ^ 2` with 0) and binds it looser than `+`,
//! `-`, `*`, `/`, `%`, `//` and `||` (`2 * 3 ^ 2` came out as `(2 * 3) ^ 2`),
//! where DuckDB binds it tighter than all of them and looser only than a
//! sign (`-2 ^ 2` is 4). So each `^` the parser built becomes `power` over
//! the operands DuckDB gives it: the last operand of a looser operator
//! on its left and the first of one on its right. Parentheses are kept as
//! nodes of their own, so what the user grouped is never regrouped. XOR has
//! no operator here (DuckDB's is its `xor` function).

use datafusion::sql::sqlparser::ast::{
    BinaryOperator, CastKind, DataType, ExactNumberInfo, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArgumentList, FunctionArguments, Ident, ObjectName, UnaryOperator, Value,
};

/// Rewrites `expr` if it is an `a ^ b` the parser built (its operands
/// already rewritten, so any `^` inside them is a `power` call by now).
pub fn rewrite(expr: &mut Expr) {
    if !matches!(expr, Expr::BinaryOp { op: BinaryOperator::BitwiseXor, .. }) {
        return;
    }
    let Expr::BinaryOp { left, right, .. } = std::mem::replace(expr, Expr::value(Value::Null)) else {
        unreachable!("matched above")
    };
    *expr = regroup(*left, *right);
}

/// Whether the parser binds `op` tighter than `^`, and DuckDB looser.
fn binds_looser(op: &BinaryOperator) -> bool {
    use BinaryOperator::*;
    matches!(op, Plus | Minus | Multiply | Divide | Modulo | DuckIntegerDivide | StringConcat)
}

/// `left ^ right`, with the operators the parser bound tighter than `^`
/// moved out of its operands.
fn regroup(left: Expr, right: Expr) -> Expr {
    let right = match signed_first(right) {
        Expr::BinaryOp { left: first, op, right: rest } if binds_looser(&op) => {
            return Expr::BinaryOp { left: Box::new(regroup(left, *first)), op, right: rest };
        }
        right => right,
    };
    match signed_first(left) {
        Expr::BinaryOp { left: rest, op, right: last } if binds_looser(&op) => {
            Expr::BinaryOp { left: rest, op, right: Box::new(regroup(*last, right)) }
        }
        left => power(left, right),
    }
}

/// A sign over a product, quotient or remainder (`-3 * 4`, which the parser
/// reads as `-(3 * 4)`) as the sign of its first operand (`(-3) * 4`): the
/// same value, and the first operand is then one `^` can take.
fn signed_first(expr: Expr) -> Expr {
    let Expr::UnaryOp { op: sign @ (UnaryOperator::Minus | UnaryOperator::Plus), expr: inner } = expr else {
        return expr;
    };
    match *inner {
        Expr::BinaryOp { left, op, right }
            if matches!(
                op,
                BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo
                    | BinaryOperator::DuckIntegerDivide
            ) =>
        {
            let first = signed_first(Expr::UnaryOp { op: sign, expr: left });
            Expr::BinaryOp { left: Box::new(first), op, right }
        }
        inner => Expr::UnaryOp { op: sign, expr: Box::new(inner) },
    }
}

/// `power(CAST(base AS DOUBLE), exponent)`.
fn power(base: Expr, exponent: Expr) -> Expr {
    let base = Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(base),
        data_type: DataType::Double(ExactNumberInfo::None),
        array: false,
        format: None,
    };
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new("power")]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: [base, exponent].into_iter().map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e))).collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

#[cfg(test)]
mod tests {
    use crate::frontend::dialect::syntax::rewrite;
    use crate::frontend::parse::parse;

    fn rewritten(sql: &str) -> String {
        let mut statement = parse(sql).unwrap().remove(0);
        rewrite(&mut statement).unwrap();
        statement.to_string()
    }

    #[test]
    fn caret_is_power_bound_as_duckdb_binds_it() {
        let cases = [
            ("SELECT 2 ^ 3", "SELECT power(CAST(2 AS DOUBLE), 3)"),
            ("SELECT 2 * 3 ^ 2", "SELECT 2 * power(CAST(3 AS DOUBLE), 2)"),
            ("SELECT 2 ^ 3 * 4", "SELECT power(CAST(2 AS DOUBLE), 3) * 4"),
            ("SELECT 1 * 2 ^ 3 * 4", "SELECT 1 * power(CAST(2 AS DOUBLE), 3) * 4"),
            ("SELECT 1 + 2 * 3 ^ 2", "SELECT 1 + 2 * power(CAST(3 AS DOUBLE), 2)"),
            ("SELECT 2 ^ 3 ^ 2", "SELECT power(CAST(power(CAST(2 AS DOUBLE), 3) AS DOUBLE), 2)"),
            ("SELECT -2 ^ 2", "SELECT power(CAST(-2 AS DOUBLE), 2)"),
            ("SELECT -2 * 3 ^ 2", "SELECT -2 * power(CAST(3 AS DOUBLE), 2)"),
            ("SELECT 2 ^ -3 * 4", "SELECT power(CAST(2 AS DOUBLE), -3) * 4"),
            ("SELECT (2 * 3) ^ 2", "SELECT power(CAST((2 * 3) AS DOUBLE), 2)"),
            ("SELECT 'a' || 2 ^ 3", "SELECT 'a' || power(CAST(2 AS DOUBLE), 3)"),
            ("SELECT a = 2 ^ b", "SELECT a = power(CAST(2 AS DOUBLE), b)"),
        ];
        for (sql, expected) in cases {
            assert_eq!(rewritten(sql), expected, "{sql}");
        }
    }
}
