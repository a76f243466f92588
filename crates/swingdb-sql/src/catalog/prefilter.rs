//! Filtering a scan's rows before its encoded columns are decoded.
//!
//! A scan hands on its table's types, so it decodes every encoded column (a
//! dictionary's strings, a narrowed decimal's 128-bit values, see
//! [`swingdb_storage::encoding`]) of every row, and the filter right above it
//! then drops most of them: TPC-H Q19 decoded six columns of all 60M
//! lineitem rows to keep 2 % (its time went into copying strings out of
//! dictionaries and widening decimals to 16 bytes).
//!
//! So the scan evaluates that filter's condition first, on the stored
//! batch: the columns the condition reads are decoded (or, where the
//! condition only compares them with constants, left as dictionaries, which
//! Arrow's comparison, `IN` and `LIKE` kernels judge by their few values),
//! and only the rows it keeps are decoded further. The filter above still
//! applies its condition to every row it receives, so this only ever saves
//! work: where the condition fails, or keeps most rows, the batch goes on
//! as it is.

use crate::catalog::narrow_comparison::narrowed;
use datafusion::arrow::array::{AsArray, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::common::Result;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{
    BinaryExpr, Column, InListExpr, IsNotNullExpr, IsNullExpr, LikeExpr, Literal, NotExpr,
};
use datafusion::physical_expr::utils::{collect_columns, reassign_expr_columns};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::StreamExt;
use std::sync::Arc;
use swingdb_storage::encoding::{decode_columns, decode_runs_of, filter_stored};

/// Above this share of a batch's rows kept, the batch goes on whole (the
/// filter above copies the rows out anyway).
const FILTER_BELOW: f64 = 0.5;

/// `stream` (a scan's, its batches as stored) without the rows `condition`
/// (the deterministic condition of the filter right above the scan, over
/// the scan's columns) drops, where that is found before decoding.
pub fn prefiltered(
    stream: SendableRecordBatchStream,
    condition: Option<&Arc<dyn PhysicalExpr>>,
) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let Some(condition) = condition.and_then(|c| reassign_expr_columns(c.clone(), &schema).ok()) else {
        return stream;
    };
    let columns: Vec<usize> = collect_columns(&condition).iter().map(Column::index).collect();
    let mut state = Some(Prefilter::new(condition, columns, schema));
    let out = stream.schema();
    let batches = stream.map(move |batch| {
        let batch = batch?;
        let Some(prefilter) = &mut state else { return Ok(batch) };
        match prefilter.apply(&batch)? {
            Some(kept) => Ok(kept),
            None => {
                state = None;
                Ok(batch)
            }
        }
    });
    Box::pin(RecordBatchStreamAdapter::new(out, batches))
}

struct Prefilter {
    condition: Arc<dyn PhysicalExpr>,
    /// The columns `condition` reads.
    columns: Vec<usize>,
    /// Whether `condition` may read dictionary columns as they are stored.
    on_dictionaries: bool,
    /// The scan's columns with their table types.
    schema: SchemaRef,
    /// Batches in a row of which the condition kept most rows.
    unselective: usize,
    /// Batches seen.
    batches: usize,
    /// The stored types of the condition's columns last seen, and the
    /// condition rewritten for them with the columns it leaves as stored
    /// (see [`narrowed`]).
    narrowed: Option<(Vec<DataType>, Option<Narrowed>)>,
}

/// A condition rewritten to compare narrowed columns as stored, and those columns.
type Narrowed = (Arc<dyn PhysicalExpr>, Vec<usize>);

/// After this many batches in a row of which the condition kept most rows,
/// it is only tried on every [`PROBE_EVERY`]th batch: the filter above
/// evaluates it again on every row it receives, so on a condition that
/// keeps most rows (TPC-H Q1's keeps 98 %) each evaluation here is lost
/// (it was 4 % of Q1's time). A tried batch that it filters starts again.
const UNSELECTIVE_BATCHES: usize = 4;

/// See [`UNSELECTIVE_BATCHES`].
const PROBE_EVERY: usize = 16;

impl Prefilter {
    fn new(condition: Arc<dyn PhysicalExpr>, columns: Vec<usize>, schema: SchemaRef) -> Self {
        let on_dictionaries = on_constants_only(&condition);
        Self { condition, columns, on_dictionaries, schema, unselective: 0, batches: 0, narrowed: None }
    }

    /// `batch` without the rows the condition drops (where it drops many),
    /// the columns it read decoded; `None` when the condition cannot be
    /// evaluated here (the filter above then reports its error, if any).
    fn apply(&mut self, batch: &RecordBatch) -> Result<Option<RecordBatch>> {
        let stored = batch.schema();
        let encoded = stored.fields().iter().zip(self.schema.fields()).any(|(s, t)| s.data_type() != t.data_type());
        if batch.num_rows() == 0 || !encoded {
            return Ok(Some(batch.clone()));
        }
        self.batches += 1;
        if self.unselective >= UNSELECTIVE_BATCHES && !self.batches.is_multiple_of(PROBE_EVERY) {
            return Ok(Some(batch.clone()));
        }
        // The condition's columns stored in runs (compressed or packed) are
        // decoded to their narrow types first, where it may compare them.
        let batch = &decode_runs_of(batch, |c| self.columns.contains(&c))?;
        let (mask, read) = match self.mask(batch, self.on_dictionaries) {
            Some(found) => found,
            // Retried with the condition's columns decoded.
            None if self.on_dictionaries => {
                self.on_dictionaries = false;
                match self.mask(batch, false) {
                    Some(found) => found,
                    None => return Ok(None),
                }
            }
            None => return Ok(None),
        };
        if mask.true_count() as f64 >= batch.num_rows() as f64 * FILTER_BELOW {
            self.unselective += 1;
            return Ok(Some(read));
        }
        self.unselective = 0;
        Ok(Some(filter_stored(&read, &mask)?))
    }

    /// The rows of `batch` the condition keeps, and the batch with the
    /// columns the condition read decoded (dictionaries left as stored with
    /// `on_dictionaries`, narrowed decimals compared as stored where
    /// [`narrowed`] allows); `None` where it fails.
    fn mask(&mut self, batch: &RecordBatch, on_dictionaries: bool) -> Option<(BooleanArray, RecordBatch)> {
        let stored: Vec<DataType> = batch.schema().fields().iter().map(|f| f.data_type().clone()).collect();
        if self.narrowed.as_ref().is_none_or(|(types, _)| *types != stored) {
            let rewritten = narrowed(&self.condition, &stored, &self.schema);
            self.narrowed = Some((stored, rewritten));
        }
        let (condition, narrow) = match self.narrowed.as_ref().and_then(|(_, n)| n.as_ref()) {
            Some((condition, narrow)) => (condition.clone(), narrow.as_slice()),
            None => (self.condition.clone(), &[][..]),
        };
        let decoded = |c: usize| {
            let table = self.schema.field(c).data_type();
            let dictionary =
                matches!(batch.column(c).data_type(), DataType::Dictionary(_, values) if values.as_ref() == table);
            self.columns.contains(&c) && !(on_dictionaries && dictionary) && !narrow.contains(&c)
        };
        let input = decode_columns(batch, &self.schema, decoded).ok()?;
        let mask = condition.evaluate(&input).ok()?.into_array(batch.num_rows()).ok()?;
        Some((mask.as_boolean_opt()?.clone(), input))
    }
}

/// Whether `condition` reads its columns only by comparing them with
/// constants (`=`, `<>`, `<`, ..., `IN (...)`, `LIKE`, `IS [NOT] NULL`),
/// joined by AND, OR and NOT: what Arrow's kernels evaluate on a dictionary
/// array as on its decoded strings.
fn on_constants_only(condition: &Arc<dyn PhysicalExpr>) -> bool {
    let column = |e: &Arc<dyn PhysicalExpr>| e.downcast_ref::<Column>().is_some();
    let constant = |e: &Arc<dyn PhysicalExpr>| e.downcast_ref::<Literal>().is_some();
    if let Some(binary) = condition.downcast_ref::<BinaryExpr>() {
        let (l, r) = (binary.left(), binary.right());
        return match binary.op() {
            Operator::And | Operator::Or => on_constants_only(l) && on_constants_only(r),
            Operator::Eq | Operator::NotEq | Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq => {
                (column(l) && constant(r)) || (constant(l) && column(r))
            }
            _ => false,
        };
    }
    if let Some(list) = condition.downcast_ref::<InListExpr>() {
        return column(list.expr()) && list.list().iter().all(constant);
    }
    if let Some(like) = condition.downcast_ref::<LikeExpr>() {
        return column(like.expr()) && constant(like.pattern());
    }
    if let Some(not) = condition.downcast_ref::<NotExpr>() {
        return on_constants_only(not.arg());
    }
    if let Some(is_null) = condition.downcast_ref::<IsNullExpr>() {
        return column(is_null.arg());
    }
    if let Some(is_not_null) = condition.downcast_ref::<IsNotNullExpr>() {
        return column(is_not_null.arg());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, ArrayRef, DictionaryArray, Int32Array, Int8Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Int32Type, Int8Type, Schema};
    use datafusion::physical_expr::expressions::{binary, col, in_list, like, lit, not};
    use swingdb_storage::encoding::with_stored_types;

    /// A scan's output (mode VARCHAR, n INT) and a stored batch of it with
    /// `mode` as a dictionary.
    fn stored() -> (SchemaRef, RecordBatch) {
        let table = Arc::new(Schema::new(vec![
            Field::new("mode", DataType::Utf8, true),
            Field::new("n", DataType::Int32, false),
        ]));
        let values = Arc::new(StringArray::from(vec!["AIR", "MAIL", "SHIP"]));
        let keys = Int8Array::from(vec![Some(0), Some(1), None, Some(2), Some(0), Some(1), Some(2), Some(2)]);
        let mode = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).unwrap()) as ArrayRef;
        let n = Arc::new(Int32Array::from_iter_values(0..8)) as ArrayRef;
        let batch = RecordBatch::try_new(with_stored_types(&table, &[mode.clone(), n.clone()]), vec![mode, n]).unwrap();
        (table, batch)
    }

    #[test]
    fn comparisons_with_constants_are_judged_on_the_dictionary_and_keep_the_rows_the_decoded_strings_would() {
        let (table, batch) = stored();
        let mode = || col("mode", &table).unwrap();
        let conditions = [
            (binary(mode(), Operator::Eq, lit("SHIP"), &table).unwrap(), vec![3, 6, 7]),
            (in_list(mode(), vec![lit("AIR"), lit("MAIL")], &true, &table).unwrap(), vec![3, 6, 7]),
            (like(false, false, mode(), lit("%A%"), &table).unwrap(), vec![0, 1, 4, 5]),
            (not(binary(mode(), Operator::Lt, lit("MAIL"), &table).unwrap()).unwrap(), vec![1, 3, 5, 6, 7]),
        ];
        for (condition, rows) in conditions {
            let mut prefilter = Prefilter::new(condition.clone(), vec![0], table.clone());
            assert!(prefilter.on_dictionaries, "{condition}");
            let (mask, read) = prefilter.mask(&batch, true).expect("evaluated on the dictionary");
            assert!(matches!(read.column(0).data_type(), DataType::Dictionary(..)), "not decoded: {condition}");
            let kept: Vec<usize> = (0..mask.len()).filter(|&i| mask.is_valid(i) && mask.value(i)).collect();
            assert_eq!(kept, rows, "{condition}");
            // Rows are dropped where fewer than half are kept; else the batch goes on whole.
            let out = prefilter.apply(&batch).unwrap().unwrap();
            let expected: Vec<i32> = match rows.len() < 4 {
                true => rows.iter().map(|&r| r as i32).collect(),
                false => (0..8).collect(),
            };
            assert_eq!(out.column(1).as_primitive::<Int32Type>().values().to_vec(), expected, "{condition}");
            assert!(prefilter.on_dictionaries, "no fallback to decoding: {condition}");
        }
        // Two columns compared are not a comparison with a constant: decoded first.
        assert!(!on_constants_only(&binary(mode(), Operator::Eq, col("mode", &table).unwrap(), &table).unwrap()));
    }

    #[test]
    fn a_condition_that_keeps_most_rows_is_tried_again_only_now_and_then() {
        let (table, batch) = stored();
        // Keeps 6 of 8 rows: the batch goes on whole.
        let most = binary(col("mode", &table).unwrap(), Operator::NotEq, lit("AIR"), &table).unwrap();
        let mut prefilter = Prefilter::new(most, vec![0], table.clone());
        let few = binary(col("mode", &table).unwrap(), Operator::Eq, lit("SHIP"), &table).unwrap();
        for _ in 0..UNSELECTIVE_BATCHES {
            assert_eq!(prefilter.apply(&batch).unwrap().unwrap().num_rows(), 8);
        }
        // Now a condition that drops most rows is not tried until the probe.
        prefilter.condition = few;
        let mut filtered_at = None;
        for n in 0..PROBE_EVERY {
            if prefilter.apply(&batch).unwrap().unwrap().num_rows() < 8 {
                filtered_at.get_or_insert(n);
            }
        }
        assert_eq!(filtered_at, Some(PROBE_EVERY - UNSELECTIVE_BATCHES - 1));
        // Having filtered, it is tried on every batch again.
        assert_eq!(prefilter.apply(&batch).unwrap().unwrap().num_rows(), 3);
    }
}
