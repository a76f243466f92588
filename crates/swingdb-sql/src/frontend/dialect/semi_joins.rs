//! DuckDB's `t SEMI JOIN u ON ...` and `t ANTI JOIN u ON ...`: the rows of
//! `t` that have (or have no) match in `u`, with `t`'s columns only. The
//! parser reads them; DataFusion plans only their `LEFT SEMI` / `LEFT ANTI`
//! spellings, which mean the same, so they are renamed so.

use datafusion::sql::sqlparser::ast::{JoinConstraint, JoinOperator, TableWithJoins};

/// Renames the SEMI and ANTI joins of `from` to their LEFT spellings.
pub fn rewrite(from: &mut TableWithJoins) {
    for join in &mut from.joins {
        join.join_operator = match &mut join.join_operator {
            JoinOperator::Semi(on) => JoinOperator::LeftSemi(std::mem::replace(on, JoinConstraint::None)),
            JoinOperator::Anti(on) => JoinOperator::LeftAnti(std::mem::replace(on, JoinConstraint::None)),
            _ => continue,
        };
    }
}
