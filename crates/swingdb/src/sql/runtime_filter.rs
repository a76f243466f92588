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
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{internal_datafusion_err, Result, ScalarValue};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::common::tree_node::TreeNode;
use datafusion::physical_expr::expressions::{DynamicFilterPhysicalExpr, Literal};
use datafusion::physical_expr::utils::reassign_expr_columns;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use futures::Stream;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

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
pub fn filtered(stream: SendableRecordBatchStream, filters: &[Arc<dyn PhysicalExpr>]) -> SendableRecordBatchStream {
    let schema = stream.schema();
    let filters: Vec<Judged> = filters
        .iter()
        .filter_map(|f| reassign_expr_columns(f.clone(), &schema).ok())
        .map(|predicate| Judged { predicate, seen: 0, kept: 0, dropped: false })
        .collect();
    if filters.is_empty() {
        return stream;
    }
    Box::pin(RecordBatchStreamAdapter::new(schema, RuntimeFiltered { stream, filters }))
}

/// See [`filtered`].
struct RuntimeFiltered {
    stream: SendableRecordBatchStream,
    filters: Vec<Judged>,
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
    /// `batch` without the rows this filter removes. A filter that cannot be
    /// evaluated is dropped rather than failing the query: it is optional.
    fn apply(&mut self, batch: RecordBatch) -> Result<RecordBatch> {
        if self.dropped || batch.num_rows() == 0 {
            return Ok(batch);
        }
        match self.mask(&batch) {
            Ok(Some(mask)) => self.keep(batch, &mask),
            Ok(None) => Ok(batch),
            Err(_) => {
                self.dropped = true;
                Ok(batch)
            }
        }
    }

    /// Which rows of `batch` the filter keeps; `None` while it keeps all.
    fn mask(&self, batch: &RecordBatch) -> Result<Option<BooleanArray>> {
        // Until its operator has something to say, a filter is `true`.
        let current = snapshot_physical_expr(self.predicate.clone())?;
        if current.downcast_ref::<Literal>().is_some_and(|l| l.value() == &ScalarValue::Boolean(Some(true))) {
            return Ok(None);
        }
        let mask = current.evaluate(batch)?.into_array(batch.num_rows())?;
        Ok(Some(mask.as_boolean_opt().ok_or_else(|| internal_datafusion_err!("a runtime filter gave no booleans"))?.clone()))
    }

    /// The rows of `batch` that `mask` keeps, judging the filter on the way.
    fn keep(&mut self, batch: RecordBatch, mask: &BooleanArray) -> Result<RecordBatch> {
        let kept = mask.true_count();
        self.seen += batch.num_rows();
        self.kept += kept;
        if self.seen >= JUDGE_AFTER_ROWS && self.kept as f64 > self.seen as f64 * WORTH_KEEPING_AT_MOST {
            self.dropped = true;
        }
        if kept == batch.num_rows() {
            return Ok(batch);
        }
        Ok(filter_record_batch(&batch, mask)?)
    }
}

impl Stream for RuntimeFiltered {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.stream.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(batch))) => {
                let result = self.filters.iter_mut().try_fold(batch, |batch, filter| filter.apply(batch));
                Poll::Ready(Some(result))
            }
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

    fn scan(batches: Vec<RecordBatch>) -> SendableRecordBatchStream {
        let schema = batches[0].schema();
        Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(batches.into_iter().map(Ok))))
    }

    async fn rows(stream: SendableRecordBatchStream) -> Vec<usize> {
        stream.map(|b| b.unwrap().num_rows()).collect().await
    }

    #[tokio::test]
    async fn selective_filters_remove_rows_others_are_dropped_and_none_fails_a_query() {
        let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false), Field::new("s", DataType::Utf8, false)]));
        let text = (0..65536).map(|i| if i == 5 { "x".to_string() } else { i.to_string() });
        let columns = vec![
            Arc::new(Int64Array::from_iter_values(0..65536)) as _,
            Arc::new(StringArray::from_iter_values(text)) as _,
        ];
        let batches = vec![RecordBatch::try_new(schema.clone(), columns).unwrap(); 4];
        let k = col("k", &schema).unwrap();
        let selective = binary(k.clone(), Operator::Eq, lit(7i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches.clone()), &[selective])).await, [1, 1, 1, 1]);
        // Half the rows: applied until judged (after 2 batches), then dropped.
        let half = binary(k, Operator::Lt, lit(32768i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches.clone()), &[half])).await, [32768, 32768, 65536, 65536]);
        // "x" is no number: the filter fails, is dropped, and the rows pass.
        let number = cast(col("s", &schema).unwrap(), &schema, DataType::Int64).unwrap();
        let broken = binary(number, Operator::Gt, lit(0i64), &schema).unwrap();
        assert_eq!(rows(filtered(scan(batches), &[broken])).await, [65536; 4]);
    }
}
