//! The constants a scan's filters pin columns to (`c = v`, `c IN (...)`,
//! `c = v1 OR c = v2`), as lookups by key or index use them (see
//! `key_lookup`).

use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::utils::{split_binary, split_conjunction};
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use std::collections::HashMap;

/// `value` as a constant of `data_type`: itself if it is of that type; an
/// integer of another integer type (a bound parameter is an Int64 whatever
/// the column) converted if the conversion loses nothing, so that SQL's
/// comparison of the two (as the wider type) and equality in `data_type`
/// agree; else `None`, and the filter alone decides.
pub(super) fn as_type(value: &ScalarValue, data_type: &DataType) -> Option<ScalarValue> {
    let from = value.data_type();
    if from == *data_type {
        return Some(value.clone());
    }
    if !(from.is_integer() && data_type.is_integer()) {
        return None;
    }
    // The common case, a bound parameter (Int64) for an INTEGER column, without arrays.
    if let (ScalarValue::Int64(Some(v)), DataType::Int32) = (value, data_type) {
        return i32::try_from(*v).ok().map(|v| ScalarValue::Int32(Some(v)));
    }
    let converted = value.cast_to(data_type).ok()?;
    (converted.cast_to(&from).ok()? == *value).then_some(converted)
}

/// `(column, constant)` of `c = v` or `v = c`.
fn equality(expr: &Expr) -> Option<(&str, &ScalarValue)> {
    match expr {
        Expr::BinaryExpr(BinaryExpr { left, op: Operator::Eq, right }) => match (left.as_ref(), right.as_ref()) {
            (Expr::Column(c), Expr::Literal(v, _)) | (Expr::Literal(v, _), Expr::Column(c)) => {
                Some((c.name.as_str(), v))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The constants each column is pinned to by a conjunct of `filters`
/// (`c = v`, `v = c`, `c IN (v, ...)`, `c = v1 OR c = v2`), NULLs left out (they match nothing).
/// A column pinned twice keeps its first list: the rows it finds hold every
/// row both conjuncts keep, and the filter above drops the others.
pub(super) fn pinned_columns(filters: &[Expr]) -> HashMap<&str, Vec<ScalarValue>> {
    let mut pinned: HashMap<&str, Vec<ScalarValue>> = HashMap::new();
    for conjunct in filters.iter().flat_map(|f| split_conjunction(f)) {
        let found = match conjunct {
            Expr::BinaryExpr(BinaryExpr { op: Operator::Eq | Operator::Or, .. }) => {
                // `c = v`, or `c = v1 OR c = v2 ...` (DataFusion's form of a short IN list).
                let mut column: Option<&str> = None;
                let mut values = Vec::new();
                let all = split_binary(conjunct, Operator::Or).into_iter().all(|e| match equality(e) {
                    Some((c, v)) if column.is_none_or(|seen| seen == c) => {
                        column = Some(c);
                        values.push(v.clone());
                        true
                    }
                    _ => false,
                });
                column.filter(|_| all).map(|c| (c, values))
            }
            Expr::InList(list) if !list.negated => match list.expr.as_ref() {
                Expr::Column(c) => list
                    .list
                    .iter()
                    .map(|e| match e {
                        Expr::Literal(v, _) => Some(v.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
                    .map(|values| (c.name.as_str(), values)),
                _ => None,
            },
            _ => None,
        };
        if let Some((column, values)) = found {
            pinned.entry(column).or_insert_with(|| values.into_iter().filter(|v| !v.is_null()).collect());
        }
    }
    pinned
}
