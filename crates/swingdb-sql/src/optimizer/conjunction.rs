//! Conjunctions of cheap comparisons, evaluated one comparison at a time over
//! the whole batch.
//!
//! DataFusion evaluates `a AND b` by evaluating `a`, and when it keeps at
//! most a fifth of the rows, copies every column of the batch down to those
//! rows, evaluates `b` there and spreads the answer back bit by bit. That
//! pays when `b` is costly (a LIKE over long strings); for a comparison of a
//! column with a constant it costs many times the comparison itself, and a
//! chain of them (TPC-H Q6: a date range, a discount range, a quantity bound)
//! pays it at every link: half of Q6's time went to copying and spreading.
//! [`CheapConjunctions`], run last among the physical optimizer rules,
//! evaluates a filter's cheap comparisons each over the whole batch and
//! combines the answers with a bitwise AND ([`AllOf`]); costlier parts stay
//! behind that in DataFusion's conjunction, which then only evaluates them
//! on the rows the comparisons kept.

use datafusion::arrow::array::{Array, AsArray, BooleanArray};
use datafusion::arrow::compute::kernels::boolean::and_kleene;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::expressions::{BinaryExpr, CastExpr, Column, IsNotNullExpr, IsNullExpr, Literal};
use datafusion::physical_expr::{conjunction, split_conjunction, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::ExecutionPlan;
use std::fmt;
use std::sync::Arc;

/// The physical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub struct CheapConjunctions;

impl PhysicalOptimizerRule for CheapConjunctions {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(filter) = node.downcast_ref::<FilterExec>() else {
                return Ok(Transformed::no(node));
            };
            let Some(predicate) = regrouped(filter.predicate()) else {
                return Ok(Transformed::no(node));
            };
            let regrouped = FilterExecBuilder::from(filter).with_predicate(predicate).build()?;
            // DataFusion's analysis of a filter does not see into an
            // `AllOf`: where it had derived a constant (`g >= 3 AND g <= 12`
            // over a column whose statistics end at 3), the operators above,
            // already planned on it, would no longer find their input in
            // the order they were promised (a window refused to run).
            if regrouped.properties().eq_properties.to_string() != filter.properties().eq_properties.to_string() {
                return Ok(Transformed::no(node));
            }
            Ok(Transformed::yes(Arc::new(regrouped) as Arc<dyn ExecutionPlan>))
        })
        .data()
    }

    fn name(&self) -> &str {
        "cheap_conjunctions"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `predicate` with its cheap comparisons gathered into one [`AllOf`] in
/// front of the rest, if it has at least two.
fn regrouped(predicate: &Arc<dyn PhysicalExpr>) -> Option<Arc<dyn PhysicalExpr>> {
    let (cheap, rest): (Vec<_>, Vec<_>) = split_conjunction(predicate).into_iter().cloned().partition(is_cheap);
    if cheap.len() < 2 {
        return None;
    }
    let all: Arc<dyn PhysicalExpr> = Arc::new(AllOf { parts: cheap });
    Some(match rest.is_empty() {
        true => all,
        false => Arc::new(BinaryExpr::new(all, Operator::And, conjunction(rest))),
    })
}

/// The comparisons of fixed-width values (numbers, dates, decimals) among
/// the parts of `predicate`, a condition over `schema`'s columns, AND-ed
/// together: a condition `predicate` implies that costs about a nanosecond
/// a row. `None` where it has none.
pub fn fixed_width_comparisons(predicate: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<Arc<dyn PhysicalExpr>> {
    let fixed = |e: &Arc<dyn PhysicalExpr>| e.data_type(schema).is_ok_and(|t| t.primitive_width().is_some());
    let mut cheap: Vec<_> = split_conjunction(predicate)
        .into_iter()
        .flat_map(|part| match part.downcast_ref::<AllOf>() {
            Some(all) => all.parts.clone(),
            None => vec![part.clone()],
        })
        .filter(|p| is_cheap(p) && p.children().into_iter().all(fixed))
        .collect();
    match cheap.len() {
        0 => None,
        1 => cheap.pop(),
        _ => Some(Arc::new(AllOf { parts: cheap })),
    }
}

/// A comparison, or a NULL test, of columns, constants and casts of those.
fn is_cheap(expr: &Arc<dyn PhysicalExpr>) -> bool {
    fn operand(e: &Arc<dyn PhysicalExpr>) -> bool {
        e.downcast_ref::<Column>().is_some()
            || e.downcast_ref::<Literal>().is_some()
            || e.downcast_ref::<CastExpr>().is_some_and(|c| operand(c.expr()))
    }
    if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
        return super::is_comparison(*binary.op()) && operand(binary.left()) && operand(binary.right());
    }
    if let Some(test) = expr.downcast_ref::<IsNullExpr>() {
        return operand(test.arg());
    }
    expr.downcast_ref::<IsNotNullExpr>().is_some_and(|test| operand(test.arg()))
}

/// `a AND b AND ...`, each part evaluated over the whole batch; SQL's
/// three-valued AND (NULL only where no part is false and one is NULL).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct AllOf {
    parts: Vec<Arc<dyn PhysicalExpr>>,
}

/// Shown as `all_of(a, b, ...)`, so that EXPLAIN tells it from DataFusion's AND.
impl fmt::Display for AllOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "all_of(")?;
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{part}")?;
        }
        write!(f, ")")
    }
}

impl PhysicalExpr for AllOf {
    fn data_type(&self, _input_schema: &Schema) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn nullable(&self, input_schema: &Schema) -> Result<bool> {
        for part in &self.parts {
            if part.nullable(input_schema)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let rows = batch.num_rows();
        let mut all: Option<BooleanArray> = None;
        for part in &self.parts {
            let answer = part.evaluate(batch)?.into_array(rows)?;
            let answer = answer.as_boolean();
            let combined = match all {
                None => answer.clone(),
                Some(so_far) => and_kleene(&so_far, answer)?,
            };
            // Once every row is false, the rest cannot change the answer.
            let settled = combined.null_count() == 0 && combined.true_count() == 0;
            all = Some(combined);
            if settled {
                break;
            }
        }
        Ok(ColumnarValue::Array(Arc::new(all.unwrap_or_else(|| BooleanArray::from(vec![true; rows])))))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        self.parts.iter().collect()
    }

    fn with_new_children(self: Arc<Self>, children: Vec<Arc<dyn PhysicalExpr>>) -> Result<Arc<dyn PhysicalExpr>> {
        Ok(Arc::new(AllOf { parts: children }))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                write!(f, " AND ")?;
            }
            part.fmt_sql(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::Field;
    use datafusion::physical_expr::expressions::{binary, col, like, lit};

    #[test]
    fn cheap_comparisons_are_gathered_and_answer_as_sql_and_does() {
        let schema =
            Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true), Field::new("s", DataType::Utf8, true)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![Some(1), Some(5), None, Some(9), None])),
                Arc::new(StringArray::from(vec![Some("x1"), Some("y"), Some("x2"), None, Some("z")])),
            ],
        )
        .unwrap();
        let a = col("a", &schema).unwrap();
        let cmp = |op, v: i64| binary(a.clone(), op, lit(v), &schema).unwrap();
        let and = |l, r| binary(l, Operator::And, r, &schema).unwrap();
        let pattern = like(false, false, col("s", &schema).unwrap(), lit("x%"), &schema).unwrap();
        let predicate = and(and(cmp(Operator::GtEq, 1), pattern), cmp(Operator::Lt, 9));
        let gathered = regrouped(&predicate).unwrap();
        assert_eq!(gathered.to_string(), "all_of(a@0 >= 1, a@0 < 9) AND s@1 LIKE x%");
        let answer =
            |p: &Arc<dyn PhysicalExpr>| p.evaluate(&batch).unwrap().into_array(5).unwrap().as_boolean().clone();
        // NULL where no part is false but one is NULL, as DataFusion's AND.
        assert_eq!(answer(&gathered), answer(&predicate));
        assert_eq!(
            answer(&gathered),
            BooleanArray::from(vec![Some(true), Some(false), None, Some(false), Some(false)])
        );
        assert!(regrouped(&cmp(Operator::Eq, 1)).is_none(), "one comparison stays as it is");
        // The part a scan may compute cheaply: numbers, not strings.
        let text = binary(col("s", &schema).unwrap(), Operator::Eq, lit("y"), &schema).unwrap();
        let cheap = |p| fixed_width_comparisons(&p, &schema).map(|c| c.to_string());
        assert_eq!(cheap(and(gathered.clone(), text.clone())).as_deref(), Some("all_of(a@0 >= 1, a@0 < 9)"));
        assert_eq!(cheap(and(text.clone(), cmp(Operator::Gt, 2))).as_deref(), Some("a@0 > 2"));
        assert_eq!(cheap(text), None);
    }
}
