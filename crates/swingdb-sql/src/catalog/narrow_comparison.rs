//! Comparisons of a narrowed decimal column with a constant, evaluated on the
//! stored integers.
//!
//! A `DECIMAL(p, s)` column with `p <= 18` is stored in 8, 16, 32 or 64 bits
//! (see [`swingdb_storage::encoding`]): its unscaled values, at the table's
//! scale. A comparison with a constant of that scale compares unscaled
//! values, so it gives the same answer on the stored integers against the
//! constant's unscaled value, without widening every row to 128 bits first
//! (TPC-H Q6's discount and quantity bounds: 128-bit comparisons of widened
//! values were most of its time). A constant beyond the stored type's range
//! is left alone, and so is the whole condition when a narrowed column is
//! read in any other way (it is then decoded, and compared as before).

use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{HashMap, ScalarValue};
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};
use datafusion::physical_expr::PhysicalExpr;
use std::sync::Arc;

/// `condition` (over `table`'s columns) with its comparisons of narrowed
/// columns (stored as `stored`, by column) with constants rewritten to
/// compare the stored values, and the columns that may stay as stored;
/// `None` where no column may.
pub fn narrowed(
    condition: &Arc<dyn PhysicalExpr>,
    stored: &[DataType],
    table: &Schema,
) -> Option<(Arc<dyn PhysicalExpr>, Vec<usize>)> {
    let scale_of = |c: usize| match (stored.get(c)?, table.fields().get(c)?.data_type()) {
        (
            DataType::Int8 | DataType::Int16 | DataType::Decimal32(..) | DataType::Decimal64(..),
            DataType::Decimal128(_, s),
        ) => Some(*s),
        _ => None,
    };
    let mut reads: HashMap<usize, usize> = HashMap::new();
    condition
        .apply(|e| {
            if let Some(column) = e.downcast_ref::<Column>() {
                *reads.entry(column.index()).or_default() += 1;
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .ok()?;
    let mut rewritten: HashMap<usize, usize> = HashMap::new();
    let condition = condition
        .clone()
        .transform_up(|e| {
            let Some(binary) = e.downcast_ref::<BinaryExpr>() else { return Ok(Transformed::no(e)) };
            if !is_comparison(binary.op()) {
                return Ok(Transformed::no(e));
            }
            let (l, r) = (binary.left(), binary.right());
            let (column, constant, column_left) = match (l.downcast_ref::<Column>(), r.downcast_ref::<Literal>()) {
                (Some(c), Some(k)) => (c, k, true),
                _ => match (r.downcast_ref::<Column>(), l.downcast_ref::<Literal>()) {
                    (Some(c), Some(k)) => (c, k, false),
                    _ => return Ok(Transformed::no(e)),
                },
            };
            let Some(scale) = scale_of(column.index()) else { return Ok(Transformed::no(e)) };
            let ScalarValue::Decimal128(Some(value), _, constant_scale) = constant.value() else {
                return Ok(Transformed::no(e));
            };
            if *constant_scale != scale {
                return Ok(Transformed::no(e));
            }
            let Some(narrow) = narrow_constant(*value, &stored[column.index()]) else { return Ok(Transformed::no(e)) };
            *rewritten.entry(column.index()).or_default() += 1;
            let (column, narrow): (Arc<dyn PhysicalExpr>, Arc<dyn PhysicalExpr>) =
                (Arc::new(column.clone()), Arc::new(Literal::new(narrow)));
            let (left, right) = if column_left { (column, narrow) } else { (narrow, column) };
            Ok(Transformed::yes(Arc::new(BinaryExpr::new(left, *binary.op(), right)) as Arc<dyn PhysicalExpr>))
        })
        .ok()?
        .data;
    // A narrowed column read in another way too is decoded, and its
    // rewritten comparisons would then compare unlike types: all or nothing.
    let narrow: Vec<usize> = (0..stored.len()).filter(|c| scale_of(*c).is_some() && reads.contains_key(c)).collect();
    if narrow.is_empty() || narrow.iter().any(|c| rewritten.get(c) != reads.get(c)) {
        return None;
    }
    Some((condition, narrow))
}

/// Whether `op` compares its sides.
fn is_comparison(op: &Operator) -> bool {
    matches!(op, Operator::Eq | Operator::NotEq | Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq)
}

/// The unscaled decimal `value` as a constant of the stored type `stored`,
/// if it holds it.
fn narrow_constant(value: i128, stored: &DataType) -> Option<ScalarValue> {
    Some(match stored {
        DataType::Int8 => ScalarValue::Int8(Some(i8::try_from(value).ok()?)),
        DataType::Int16 => ScalarValue::Int16(Some(i16::try_from(value).ok()?)),
        DataType::Decimal32(p, s) => ScalarValue::Decimal32(Some(i32::try_from(value).ok()?), *p, *s),
        DataType::Decimal64(p, s) => ScalarValue::Decimal64(Some(i64::try_from(value).ok()?), *p, *s),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{
        ArrayRef, AsArray, Decimal32Array, Decimal64Array, Int16Array, Int8Array, RecordBatch,
    };
    use datafusion::arrow::datatypes::Field;
    use datafusion::physical_expr::expressions::{binary, col, lit};
    use swingdb_storage::encoding::{decode, with_stored_types};

    /// Every comparison of every stored narrow type with constants around
    /// and beyond its range answers as the comparison of the decoded values.
    #[test]
    fn comparisons_on_stored_integers_answer_as_on_decoded_decimals() {
        let table = Arc::new(Schema::new(vec![Field::new("d", DataType::Decimal128(15, 2), true)]));
        let values: Vec<Option<i64>> =
            (-130..130).map(Some).chain([None, Some(i16::MIN as i64), Some(i16::MAX as i64)]).collect();
        let narrow = |f: &dyn Fn(i64) -> bool| values.iter().map(|v| v.filter(|v| f(*v))).collect::<Vec<_>>();
        let stored: Vec<ArrayRef> = vec![
            Arc::new(Int8Array::from_iter(narrow(&|v| i8::try_from(v).is_ok()).iter().map(|v| v.map(|v| v as i8)))),
            Arc::new(Int16Array::from_iter(values.iter().map(|v| v.map(|v| v as i16)))),
            Arc::new(
                Decimal32Array::from_iter(values.iter().map(|v| v.map(|v| v as i32)))
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            Arc::new(Decimal64Array::from_iter(values.iter().copied()).with_precision_and_scale(15, 2).unwrap()),
        ];
        let ops = [Operator::Eq, Operator::NotEq, Operator::Lt, Operator::LtEq, Operator::Gt, Operator::GtEq];
        let constants = [-129i128, -128, -127, -1, 0, 1, 5, 126, 127, 128, 40000, i16::MAX as i128];
        for column in stored {
            let schema = with_stored_types(&table, std::slice::from_ref(&column));
            let batch = RecordBatch::try_new(schema, vec![column.clone()]).unwrap();
            let decoded = decode(&column, &DataType::Decimal128(15, 2)).unwrap();
            let wide = RecordBatch::try_new(table.clone(), vec![decoded]).unwrap();
            for op in ops {
                for constant in constants {
                    let k = lit(ScalarValue::Decimal128(Some(constant), 15, 2));
                    for condition in [
                        binary(col("d", &table).unwrap(), op, k.clone(), &table).unwrap(),
                        binary(k.clone(), op, col("d", &table).unwrap(), &table).unwrap(),
                    ] {
                        let expected = condition.evaluate(&wide).unwrap().into_array(wide.num_rows()).unwrap();
                        let stored_types = vec![column.data_type().clone()];
                        let Some((narrowed, columns)) = narrowed(&condition, &stored_types, &table) else {
                            // Only a constant beyond the stored type is left alone.
                            assert!(narrow_constant(constant, column.data_type()).is_none(), "{condition}");
                            continue;
                        };
                        assert_eq!(columns, vec![0]);
                        let found = narrowed.evaluate(&batch).unwrap().into_array(batch.num_rows()).unwrap();
                        assert_eq!(found.as_boolean(), expected.as_boolean(), "{condition} on {}", column.data_type());
                    }
                }
            }
        }
    }

    #[test]
    fn a_column_read_otherwise_or_a_constant_of_another_scale_keeps_the_condition() {
        let table = Arc::new(Schema::new(vec![Field::new("d", DataType::Decimal128(15, 2), true)]));
        let stored = vec![DataType::Int8];
        let d = || col("d", &table).unwrap();
        let compared = binary(d(), Operator::Lt, lit(ScalarValue::Decimal128(Some(5), 15, 2)), &table).unwrap();
        let added = binary(d(), Operator::Plus, d(), &table).unwrap();
        let other = binary(added, Operator::Gt, lit(ScalarValue::Decimal128(Some(5), 16, 2)), &table).unwrap();
        let both = binary(compared.clone(), Operator::And, other, &table).unwrap();
        assert!(narrowed(&both, &stored, &table).is_none());
        let rescaled = binary(d(), Operator::Lt, lit(ScalarValue::Decimal128(Some(5), 15, 3)), &table).unwrap();
        assert!(narrowed(&rescaled, &stored, &table).is_none());
        assert!(narrowed(&compared, &[DataType::Decimal128(15, 2)], &table).is_none());
    }
}
