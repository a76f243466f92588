//! Runtime filters: conditions that operators above a scan publish while a
//! query runs, applied where the rows are read.
//!
//! A hash join, once it has built its table, publishes which keys can match
//! (their bounds, and their set: a list for few keys, a lookup in its hash
//! table for many); a top-k sort publishes the value a row must beat.
//! DataFusion hands these "dynamic filters" down the plan, through
//! projections, repartitions and GROUP BYs on the filtered columns, to the
//! scans. Applied there, rows that cannot reach the result never enter the
//! operators in between: in TPC-H Q17 the average quantity per part was
//! computed for all 200,000 parts over all 6M rows of lineitem, to be joined
//! with the 204 parts the query asks about.
//!
//! A runtime filter only ever removes rows the operator that published it
//! would drop anyway, so applying it is optional, and it is worth its cost
//! only when it removes nearly all rows: evaluating one (hashing the keys,
//! checking bounds, looking them up) costs about as much per row as the
//! join's own probe, and a scan that feeds a probe directly would look every
//! key up twice. A scan stops evaluating a filter that keeps more than 2 % of
//! the rows it has seen. Measured on TPC-H SF1 (2 cores, warm medians): with
//! every filter applied Q3 took 52-68 ms against 41-45 without runtime
//! filters; stopping above 10 % still cost Q3 and Q5 10-20 % (their filters
//! keep 3-10 % of lineitem, which then goes straight into a join), while the
//! filters that pay keep 0.1-1 % (Q17, Q19, Q20: 3-4x faster). A scan whose
//! rows go straight into the join does not get that join's filter at all
//! (`filter_placement`).

use datafusion::arrow::array::{AsArray, BooleanArray};
use datafusion::arrow::compute::and;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNode;
use datafusion::common::{internal_datafusion_err, Result, ScalarValue};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_expr::expressions::{Column, DynamicFilterPhysicalExpr, Literal};
use datafusion::physical_expr::utils::{collect_columns, reassign_expr_columns};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::Stream;
use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use swingdb_storage::encoding::{decode_columns, filter_stored};

/// Rows a scan reads with a runtime filter in force before it judges
/// whether the filter is worth its cost.
const JUDGE_AFTER_ROWS: usize = 1 << 17;

/// A filter that keeps more than this share of the rows it saw is dropped.
const WORTH_KEEPING_AT_MOST: f64 = 0.02;

/// Whether `filter` is one an operator updates while the query runs.
pub fn is_runtime_filter(filter: &Arc<dyn PhysicalExpr>) -> bool {
    filter.exists(|e| Ok(e.downcast_ref::<DynamicFilterPhysicalExpr>().is_some())).unwrap_or(false)
}

/// `stream` with the rows that fail any of `filters` removed. Filters are
/// matched to the stream's columns by name; one naming a column the stream
/// does not have is left out (it is optional). Each filter is judged on its
/// own (a scan under several joins gets one from each, and often only one of
/// them is selective).
///
/// `condition`, if any, is implied by the filter right above the scan (its
/// comparisons of fixed-width values, which cost little next to a join's
/// lookup): the scan judges its runtime filters on the rows it keeps, and
/// removes the rows either removes in one pass. A join's keys often match a
/// tenth of a table, too many to be worth a lookup, but of the rows the
/// query's own condition keeps only one in a hundred: TPC-H Q3's join keeps
/// 0.9 % of the 32M lineitem rows shipped after a date (its keys alone 10 %
/// of all 60M), which the filter copied in full for the join to drop them.
/// The filter above still applies its whole condition to the rows that
/// reach it; with no runtime filter in force the scan leaves it alone.
pub fn filtered(
    stream: SendableRecordBatchStream,
    filters: &[Arc<dyn PhysicalExpr>],
    condition: Option<&Arc<dyn PhysicalExpr>>,
) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let filters: Vec<Judged> = filters
        .iter()
        .filter_map(|f| reassign_expr_columns(f.clone(), &schema).ok())
        .map(|predicate| Judged { predicate, seen: 0, kept: 0, dropped: false })
        .collect();
    if filters.is_empty() {
        return stream;
    }
    let condition = condition.and_then(|c| reassign_expr_columns(c.clone(), &schema).ok());
    let table = schema.clone();
    Box::pin(RecordBatchStreamAdapter::new(schema, RuntimeFiltered { stream, filters, condition, table }))
}

/// See [`filtered`].
struct RuntimeFiltered {
    stream: SendableRecordBatchStream,
    filters: Vec<Judged>,
    /// The condition of the filter above; `None` also once it failed.
    condition: Option<Arc<dyn PhysicalExpr>>,
    /// The scan's columns with their table types (its batches come as
    /// stored, see [`Self::apply`]).
    table: SchemaRef,
}

impl RuntimeFiltered {
    /// `batch` (as stored: its encoded columns not yet decoded) without the
    /// rows the runtime filters in force remove, nor those the condition
    /// removes; whole while no runtime filter is in force. The columns the
    /// filters and the condition read are decoded to judge them, the others
    /// are left for the rows that remain: TPC-H Q17's lookup of 204 parts
    /// keeps 0.1 % of lineitem, whose quantities were all widened to 128
    /// bits first.
    fn apply(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        if batch.num_rows() == 0 {
            return Ok(batch);
        }
        let in_force: Vec<(usize, Arc<dyn PhysicalExpr>)> =
            self.filters.iter_mut().enumerate().filter_map(|(i, f)| Some((i, f.current()?))).collect();
        if in_force.is_empty() {
            return Ok(batch);
        }
        let mut read = HashSet::new();
        for predicate in in_force.iter().map(|(_, p)| p).chain(&self.condition) {
            read.extend(collect_columns(predicate).iter().map(Column::index));
        }
        let batch = decode_columns(&batch, &self.table, |c| read.contains(&c))?;
        let mut rows = Selection { batch, mask: None };
        self.narrow_by_condition(&mut rows)?;
        for (i, predicate) in in_force {
            self.filters[i].apply(&predicate, &mut rows)?;
        }
        rows.finish()
    }

    /// Narrows `rows` to those the condition above keeps. It is optional as
    /// well: where it fails, the filter above reports it.
    fn narrow_by_condition(&mut self, rows: &mut Selection) -> Result<()> {
        let Some(condition) = &self.condition else { return Ok(()) };
        match evaluate(condition, &rows.batch) {
            Ok(mask) => rows.narrow(mask),
            Err(_) => {
                self.condition = None;
                Ok(())
            }
        }
    }
}

/// The rows of `batch` the predicate `predicate` keeps.
fn evaluate(predicate: &Arc<dyn PhysicalExpr>, batch: &RecordBatch) -> Result<BooleanArray> {
    let mask = predicate.evaluate(batch)?.into_array(batch.num_rows())?;
    Ok(mask.as_boolean_opt().ok_or_else(|| internal_datafusion_err!("a filter gave no booleans"))?.clone())
}

/// A batch and which of its rows are still kept (`None`: all).
struct Selection {
    batch: RecordBatch,
    mask: Option<BooleanArray>,
}

/// Below this share of a batch's rows kept, the rows are copied out before
/// the next filter is evaluated, instead of it being evaluated on all.
const COMPACT_BELOW: f64 = 0.25;

impl Selection {
    fn kept(&self) -> usize {
        self.mask.as_ref().map_or(self.batch.num_rows(), |m| m.true_count())
    }

    /// Keeps only the rows `mask` (over the whole batch) also keeps.
    fn narrow(&mut self, mask: BooleanArray) -> Result<()> {
        let mask = match self.mask.take() {
            Some(kept) => and(&kept, &mask)?,
            None => mask,
        };
        let kept = mask.true_count();
        if (kept as f64) < self.batch.num_rows() as f64 * COMPACT_BELOW {
            self.batch = filter_stored(&self.batch, &mask)?;
        } else {
            self.mask = Some(mask);
        }
        Ok(())
    }

    /// The rows kept.
    fn finish(self) -> Result<RecordBatch> {
        match self.mask {
            Some(mask) if mask.true_count() < self.batch.num_rows() => Ok(filter_stored(&self.batch, &mask)?),
            _ => Ok(self.batch),
        }
    }
}

/// One runtime filter of a scan and what it did so far.
struct Judged {
    predicate: Arc<dyn PhysicalExpr>,
    /// Rows it was evaluated on, and kept, while it said more than "everything".
    seen: usize,
    kept: usize,
    /// Set once it proved not worth evaluating.
    dropped: bool,
}

impl Judged {
    /// What the filter says now, unless that is "everything" (until its
    /// operator has something to say, a filter is `true`) or it was dropped.
    /// A filter that cannot be evaluated is dropped rather than failing the
    /// query: it is optional.
    fn current(&mut self) -> Option<Arc<dyn PhysicalExpr>> {
        if self.dropped {
            return None;
        }
        let Ok(current) = snapshot_physical_expr(self.predicate.clone()) else {
            self.dropped = true;
            return None;
        };
        let everything =
            current.downcast_ref::<Literal>().is_some_and(|l| l.value() == &ScalarValue::Boolean(Some(true)));
        (!everything).then_some(current)
    }

    /// Narrows `rows` to those `current` (this filter's current form) keeps,
    /// judging the filter on the rows kept so far.
    fn apply(&mut self, current: &Arc<dyn PhysicalExpr>, rows: &mut Selection) -> Result<()> {
        let Ok(mask) = evaluate(current, &rows.batch) else {
            self.dropped = true;
            return Ok(());
        };
        let before = rows.kept();
        rows.narrow(mask)?;
        self.seen += before;
        self.kept += rows.kept();
        self.dropped = self.seen >= JUDGE_AFTER_ROWS && self.kept as f64 > self.seen as f64 * WORTH_KEEPING_AT_MOST;
        Ok(())
    }
}

impl Stream for RuntimeFiltered {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.stream.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(batch))) => Poll::Ready(Some(self.apply(batch))),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{binary, cast, col, lit};
    use futures::StreamExt;
    use swingdb_storage::encoding::with_stored_types;

    fn scan(batches: Vec<RecordBatch>) -> SendableRecordBatchStream {
        let schema = batches[0].schema();
        Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(batches.into_iter().map(Ok))))
    }

    async fn rows(stream: SendableRecordBatchStream) -> Vec<usize> {
        stream.map(|b| b.unwrap().num_rows()).collect().await
    }

    #[tokio::test]
    async fn selective_filters_remove_rows_others_are_dropped_and_none_fails_a_query() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let text = (0..65536).map(|i| if i == 5 { "x".to_string() } else { i.to_string() });
        let columns = vec![
            Arc::new(Int64Array::from_iter_values(0..65536)) as _,
            Arc::new(StringArray::from_iter_values(text)) as _,
        ];
        let batches = vec![RecordBatch::try_new(schema.clone(), columns).unwrap(); 4];
        let k = col("k", &schema).unwrap();
        let selective = binary(k.clone(), Operator::Eq, lit(7i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches.clone()), &[selective], None)).await, [1, 1, 1, 1]);
        // Half the rows: applied until judged (after 2 batches), then dropped.
        let half = binary(k, Operator::Lt, lit(32768i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches.clone()), &[half], None)).await, [32768, 32768, 65536, 65536]);
        // "x" is no number: the filter fails, is dropped, and the rows pass.
        let number = cast(col("s", &schema).unwrap(), &schema, DataType::Int64).unwrap();
        let broken = binary(number, Operator::Gt, lit(0i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches), &[broken], None)).await, [65536; 4]);
    }

    #[tokio::test]
    async fn a_filter_is_judged_on_the_rows_the_condition_above_keeps() {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
        let batch =
            RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from_iter_values(0..65536)) as _]).unwrap();
        let batches = vec![batch; 4];
        let k = col("k", &schema).unwrap();
        // The join's keys match 92 % of the rows, but of the 8 % the
        // condition keeps only one: worth applying, with the condition.
        let keys = binary(
            binary(k.clone(), Operator::Lt, lit(60000i64), &schema).unwrap(),
            Operator::Or,
            binary(k.clone(), Operator::Eq, lit(65000i64), &schema).unwrap(),
            &schema,
        )
        .unwrap();
        let condition = binary(k, Operator::GtEq, lit(60000i64), &schema).unwrap();
        assert_eq!(
            rows(filtered(scan(batches.clone()), std::slice::from_ref(&keys), Some(&condition))).await,
            [1, 1, 1, 1]
        );
        assert_eq!(rows(filtered(scan(batches), &[keys], None)).await, [60001, 60001, 65536, 65536]);
    }

    #[tokio::test]
    async fn stored_batches_are_filtered_before_the_columns_the_filter_does_not_read_are_decoded() {
        use datafusion::arrow::array::{Array, DictionaryArray, Int8Array};
        use datafusion::arrow::datatypes::Int8Type;
        let table = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
            Field::new("d", DataType::Decimal128(15, 2), false),
        ]));
        let flags = Arc::new(StringArray::from(vec!["A", "B"]));
        let keys = Int8Array::from_iter_values((0..65536).map(|i| (i % 2) as i8));
        let columns = vec![
            Arc::new(Int64Array::from_iter_values(0..65536)) as _,
            Arc::new(DictionaryArray::<Int8Type>::try_new(keys, flags).unwrap()) as _,
            Arc::new(Int8Array::from_iter_values((0..65536).map(|i| (i % 100) as i8))) as _,
        ];
        let stored = RecordBatch::try_new(with_stored_types(&table, &columns), columns).unwrap();
        let stream = |batches: Vec<RecordBatch>| -> SendableRecordBatchStream {
            Box::pin(RecordBatchStreamAdapter::new(table.clone(), futures::stream::iter(batches.into_iter().map(Ok))))
        };
        // On the key: the kept rows keep their columns as stored.
        let k = binary(col("k", &table).unwrap(), Operator::Lt, lit(3i64), &table).unwrap();
        let out: Vec<RecordBatch> =
            filtered(stream(vec![stored.clone()]), &[k], None).map(|b| b.unwrap()).collect().await;
        assert_eq!(out[0].num_rows(), 3);
        assert!(matches!(out[0].column(1).data_type(), DataType::Dictionary(..)));
        assert_eq!(out[0].column(2).data_type(), &DataType::Int8);
        // On the strings: judged on their decoded values, which they keep.
        let s = binary(col("s", &table).unwrap(), Operator::Eq, lit("B"), &table).unwrap();
        let both = binary(col("k", &table).unwrap(), Operator::Lt, lit(6i64), &table).unwrap();
        let and = binary(s, Operator::And, both, &table).unwrap();
        let out: Vec<RecordBatch> = filtered(stream(vec![stored]), &[and], None).map(|b| b.unwrap()).collect().await;
        assert_eq!(out[0].column(0).as_primitive::<datafusion::arrow::datatypes::Int64Type>().values(), &[1, 3, 5]);
        assert_eq!(out[0].column(1).as_string::<i32>().iter().collect::<Vec<_>>(), [Some("B"); 3]);
        assert_eq!(out[0].column(2).len(), 3);
    }
}
