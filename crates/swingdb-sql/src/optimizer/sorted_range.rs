//! Range filters on a clustered table's first `CLUSTER BY` column, answered
//! by binary search: in a segment whose key ascends (checked, see
//! `storage::ascending`), the rows a filter like `k >= 10 AND k < 20`,
//! `k BETWEEN a AND b` or `k = v` can match are one contiguous run, found in
//! O(log n) per batch, and the scan hands DataFusion only that slice (still
//! zero-copy). DataFusion's own filter stays above the scan, so the slice only
//! has to hold every matching row, not only those.
//!
//! Only types whose SQL comparison agrees with Arrow's sort order take part:
//! integers, DECIMAL, dates, timestamps and strings (byte order). Floats do
//! not (`-0.0 = 0.0` in SQL, but Arrow sorts -0.0 first).

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::expr::Between;
use datafusion::logical_expr::utils::split_conjunction;
use datafusion::logical_expr::{BinaryExpr, Expr, Operator};
use std::cmp::Ordering;
use std::ops::Range;

/// One end of a range: a value and whether it is part of the range.
#[derive(Debug, Clone, PartialEq)]
struct Bound {
    value: ScalarValue,
    inclusive: bool,
}

/// The bounds conjuncts of a filter put on one column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyRange {
    lower: Option<Bound>,
    upper: Option<Bound>,
}

/// Whether a column of `data_type` can be narrowed by binary search.
pub fn orders_as_sql(data_type: &DataType) -> bool {
    data_type.is_integer()
        || matches!(
            data_type,
            DataType::Decimal128(..)
                | DataType::Date32
                | DataType::Date64
                | DataType::Timestamp(..)
                | DataType::Utf8
                | DataType::LargeUtf8
        )
}

/// One end of a [`KeyRange`], if it has one: its value, and whether the
/// value is in the range.
pub type End<'a> = Option<(&'a ScalarValue, bool)>;

impl KeyRange {
    /// The range the conjuncts of `filters` confine column `column` (of
    /// `data_type`) to, if they bound it at all.
    pub fn from_filters(filters: &[Expr], column: &str, data_type: &DataType) -> Option<Self> {
        if !orders_as_sql(data_type) {
            return None;
        }
        let is_key = |e: &Expr| matches!(e, Expr::Column(c) if c.name == column);
        let constant = |e: &Expr| match e {
            Expr::Literal(v, _) if !v.is_null() && v.data_type() == *data_type => Some(v.clone()),
            _ => None,
        };
        let mut range = KeyRange::default();
        for conjunct in filters.iter().flat_map(split_conjunction) {
            match conjunct {
                Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                    let (op, value) = match (is_key(left), constant(right), is_key(right), constant(left)) {
                        (true, Some(v), _, _) => (*op, v),
                        (_, _, true, Some(v)) => match op.swap() {
                            Some(op) => (op, v),
                            None => continue,
                        },
                        _ => continue,
                    };
                    match op {
                        Operator::Eq => {
                            range.raise(Bound { value: value.clone(), inclusive: true });
                            range.lower_upper(Bound { value, inclusive: true });
                        }
                        Operator::Gt => range.raise(Bound { value, inclusive: false }),
                        Operator::GtEq => range.raise(Bound { value, inclusive: true }),
                        Operator::Lt => range.lower_upper(Bound { value, inclusive: false }),
                        Operator::LtEq => range.lower_upper(Bound { value, inclusive: true }),
                        _ => {}
                    }
                }
                Expr::Between(Between { expr, negated: false, low, high }) if is_key(expr) => {
                    if let (Some(low), Some(high)) = (constant(low), constant(high)) {
                        range.raise(Bound { value: low, inclusive: true });
                        range.lower_upper(Bound { value: high, inclusive: true });
                    }
                }
                _ => {}
            }
        }
        (range != KeyRange::default()).then_some(range)
    }

    /// The lower and upper ends: a value each and whether it is in the range.
    pub fn bounds(&self) -> (End<'_>, End<'_>) {
        let lower = self.lower.as_ref().map(|b| (&b.value, b.inclusive));
        (lower, self.upper.as_ref().map(|b| (&b.value, b.inclusive)))
    }

    /// Keeps the tighter of the lower bound and `bound`.
    fn raise(&mut self, bound: Bound) {
        if tightens(&bound, &self.lower, Ordering::Greater) {
            self.lower = Some(bound);
        }
    }

    /// Keeps the tighter of the upper bound and `bound`.
    fn lower_upper(&mut self, bound: Bound) {
        if tightens(&bound, &self.upper, Ordering::Less) {
            self.upper = Some(bound);
        }
    }

    /// The rows of `array` (ascending, NULLs first) that can lie in the
    /// range; all of them when a value cannot be compared.
    pub fn rows_within(&self, array: &ArrayRef) -> Range<usize> {
        let all = 0..array.len();
        let values = array.null_count()..array.len();
        let compare = |at: usize, bound: &Bound| ScalarValue::try_from_array(array, at).ok()?.partial_cmp(&bound.value);
        // A row is below the range while its value is under the lower bound ...
        let below = |at: usize| match &self.lower {
            None => Some(false),
            Some(lower) => Some(match compare(at, lower)? {
                Ordering::Less => true,
                Ordering::Equal => !lower.inclusive,
                Ordering::Greater => false,
            }),
        };
        let Some(start) = first(values.clone(), below) else { return all };
        // ... and within it until its value passes the upper bound.
        let within = |at: usize| match &self.upper {
            None => Some(true),
            Some(upper) => Some(match compare(at, upper)? {
                Ordering::Less => true,
                Ordering::Equal => upper.inclusive,
                Ordering::Greater => false,
            }),
        };
        let Some(end) = first(start..values.end, within) else { return all };
        start..end
    }
}

/// Whether `bound` confines more than `old` on its side of a range, where
/// values comparing as `inward` to the old one lie further in.
fn tightens(bound: &Bound, old: &Option<Bound>, inward: Ordering) -> bool {
    let Some(old) = old else { return true };
    match bound.value.partial_cmp(&old.value) {
        Some(Ordering::Equal) => !bound.inclusive,
        Some(order) => order == inward,
        None => false,
    }
}

/// The first position in `range` where `holds` turns false (it holds on a
/// prefix of the range), or `None` if some call of it had no answer.
fn first(range: Range<usize>, holds: impl Fn(usize) -> Option<bool>) -> Option<usize> {
    let (mut low, mut high) = (range.start, range.end);
    while low < high {
        let mid = low + (high - low) / 2;
        if holds(mid)? {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    Some(low)
}

#[cfg(test)]
mod tests {
    use super::KeyRange;
    use datafusion::arrow::array::{ArrayRef, Int64Array};
    use datafusion::arrow::datatypes::DataType;
    use datafusion::logical_expr::{col, lit, Expr};
    use std::sync::Arc;

    fn rows(filters: &[Expr], values: &[Option<i64>]) -> Option<Vec<Option<i64>>> {
        let range = KeyRange::from_filters(filters, "k", &DataType::Int64)?;
        let array: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
        Some(values[range.rows_within(&array)].to_vec())
    }

    #[test]
    fn a_range_becomes_the_run_of_rows_it_can_match() {
        let data = [None, None, Some(1), Some(3), Some(3), Some(5), Some(7), Some(7), Some(9)];
        let k = || col("k");
        assert_eq!(rows(&[k().gt_eq(lit(3i64)).and(k().lt(lit(7i64)))], &data), Some(vec![Some(3), Some(3), Some(5)]));
        assert_eq!(rows(&[k().gt(lit(3i64)), k().lt_eq(lit(7i64))], &data), Some(vec![Some(5), Some(7), Some(7)]));
        assert_eq!(rows(&[k().eq(lit(7i64))], &data), Some(vec![Some(7), Some(7)]));
        assert_eq!(
            rows(&[lit(3i64).lt(k())], &data),
            Some(vec![Some(5), Some(7), Some(7), Some(9)]),
            "constant on the left"
        );
        assert_eq!(rows(&[k().lt(lit(2i64))], &data), Some(vec![Some(1)]), "NULLs never match");
        assert_eq!(rows(&[k().between(lit(4i64), lit(8i64))], &data), Some(vec![Some(5), Some(7), Some(7)]));
        assert_eq!(rows(&[k().gt(lit(9i64))], &data), Some(vec![]));
        assert_eq!(rows(&[k().gt(lit(5i64)), k().lt(lit(3i64))], &data), Some(vec![]), "an empty range");
        // The tighter of two bounds wins, whichever comes first.
        assert_eq!(rows(&[k().gt_eq(lit(5i64)), k().gt(lit(5i64))], &data), Some(vec![Some(7), Some(7), Some(9)]));
        assert_eq!(rows(&[k().gt(lit(5i64)), k().gt_eq(lit(5i64))], &data), Some(vec![Some(7), Some(7), Some(9)]));
    }

    #[test]
    fn filters_that_do_not_bound_the_key_by_a_constant_of_its_type_are_left_alone() {
        let data = [Some(1)];
        assert_eq!(rows(&[col("j").gt(lit(3i64))], &data), None, "another column");
        assert_eq!(rows(&[col("k").gt(lit(3i32))], &data), None, "another type");
        assert_eq!(rows(&[col("k").not_eq(lit(3i64))], &data), None);
        assert_eq!(rows(&[col("k").gt(lit(1i64)).or(col("k").lt(lit(0i64)))], &data), None);
        assert_eq!(KeyRange::from_filters(&[col("k").gt(lit(1.0))], "k", &DataType::Float64), None, "floats");
    }
}
