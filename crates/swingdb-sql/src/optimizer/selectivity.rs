//! How many rows a filter keeps, estimated from the distinct counts of the
//! columns it compares with constants.
//!
//! DataFusion estimates a filter's output by interval analysis, which covers
//! numbers and dates; any other filter (a string equality, a LIKE) keeps 20 %
//! of its input in its eyes. `p_brand = 'Brand#23' AND p_container = 'MED BOX'`
//! keeps 1 part in 1,000, not 40,000 of 200,000, and with the wrong figure
//! TPC-H Q17 built its join's hash table from the 200,000-row average per
//! part rather than from the 6,000 lineitem rows of those parts, and
//! computed the average for every part.
//!
//! [`FilterSelectivity`] gives each such filter over a scan of stored (or
//! registered) data the share of a sample of the scan's rows it keeps: 8,192
//! rows in 8 pieces spread over the table, whose batches the scan holds
//! mapped, so a LIKE is judged by what it matches (TPC-H Q9's
//! `p_name LIKE '%green%'` keeps 5 %, not 20 %, and its parts are then joined
//! first). Any other such filter gets the share its equalities
//! imply (a `column = constant` keeps 1 / distinct values of the column,
//! `column IN (n constants)` n / distinct; conjunctions multiply, disjunctions
//! add), through the filter's own default-selectivity setting. Parts of a
//! conjunction that interval analysis handles (ranges of numbers and dates)
//! count with its estimate; parts neither handles (`a < b` of two columns, a
//! LIKE) are taken to keep every row. It runs before DataFusion chooses join
//! sides. Filters interval analysis handles whole, and filters without such
//! an equality, keep DataFusion's estimate. The setting is a whole
//! percentage: a filter is never estimated below 1 %.

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{Result, Statistics};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, InListExpr, Literal};
use datafusion::physical_expr::intervals::utils::check_support;
use datafusion::physical_expr::{analyze, conjunction, split_conjunction, AnalysisContext, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::{ExecutionPlan, StatisticsArgs, StatisticsContext};
use std::sync::Arc;

use crate::catalog::source::SegmentSource;
use crate::optimizer::ordered_scan::position;
use swingdb_storage::encoding::decode_batch;

/// The physical optimizer rule; see the module documentation.
#[derive(Debug, Default)]
pub struct FilterSelectivity;

impl PhysicalOptimizerRule for FilterSelectivity {
    fn optimize(&self, plan: Arc<dyn ExecutionPlan>, _config: &ConfigOptions) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(filter) = node.downcast_ref::<FilterExec>() else {
                return Ok(Transformed::no(node));
            };
            let input = filter.input();
            let schema = input.schema();
            if check_support(filter.predicate(), &schema) {
                return Ok(Transformed::no(node));
            }
            let stats = StatisticsContext::new().compute(input.as_ref(), &StatisticsArgs::new())?;
            let share = sampled_share(filter.predicate(), input)
                .or_else(|| kept_share(filter.predicate(), &Input { schema: &schema, stats: &stats }));
            let Some(share) = share else {
                return Ok(Transformed::no(node));
            };
            let percent = (share * 100.0).round().clamp(1.0, 100.0) as u8;
            if percent == filter.default_selectivity() {
                return Ok(Transformed::no(node));
            }
            let estimated = FilterExecBuilder::from(filter).with_default_selectivity(percent).build()?;
            Ok(Transformed::yes(Arc::new(estimated) as Arc<dyn ExecutionPlan>))
        })
        .data()
    }

    fn name(&self) -> &str {
        "filter_selectivity"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Rows a filter over a scan is tried on, in [`SAMPLE_PIECES`] pieces spread
/// over the scan's rows.
const SAMPLE_ROWS: usize = 8192;

/// Pieces the sample is taken in, so that a table stored in some order is
/// sampled from all of it.
const SAMPLE_PIECES: usize = 8;

/// The share of a sample of the rows of `input` (a scan of stored or
/// registered data, whose batches are at hand) that `predicate` keeps;
/// `None` for other inputs or when the predicate fails on the sample.
fn sampled_share(predicate: &Arc<dyn PhysicalExpr>, input: &Arc<dyn ExecutionPlan>) -> Option<f64> {
    let scan = input.downcast_ref::<DataSourceExec>()?;
    let source = scan.data_source();
    let memory = match source.downcast_ref::<SegmentSource>() {
        Some(segments) => segments.memory(),
        None => source.downcast_ref::<MemorySourceConfig>()?,
    };
    let batches: Vec<RecordBatch> = memory.partitions().iter().flatten().cloned().collect();
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    if total == 0 {
        return None;
    }
    let piece = (SAMPLE_ROWS / SAMPLE_PIECES).min(total);
    let pieces = SAMPLE_PIECES.min(total.div_ceil(piece));
    let (mut tried, mut kept) = (0usize, 0usize);
    for i in 0..pieces {
        // The piece starting at the i-th of evenly spaced rows.
        let (index, start) = position(&batches, (total - piece) * i / (pieces - 1).max(1));
        let batch = &batches[index];
        let rows = piece.min(batch.num_rows() - start);
        let sample = batch.slice(start, rows);
        let sample = match memory.projection() {
            Some(columns) => sample.project(columns).ok()?,
            None => sample,
        };
        // A scan's batches are checked as it reads them (see `ScanChecks`),
        // not yet: the sample's arrays are validated before they are read.
        if !sample.columns().iter().all(|c| c.to_data().validate_full().is_ok()) {
            return None;
        }
        let sample = decode_batch(&sample, &scan.schema()).ok()?;
        let result = predicate.evaluate(&sample).ok()?.into_array(rows).ok()?;
        kept += result.as_boolean_opt()?.true_count();
        tried += rows;
    }
    // Every piece holds at least one row.
    Some(kept as f64 / tried as f64)
}

/// What a filter reads: its columns and their statistics.
struct Input<'a> {
    schema: &'a SchemaRef,
    stats: &'a Statistics,
}

/// The share of rows `predicate` keeps, from the equalities in it; `None`
/// when it has none this can judge. The other parts of a conjunction count
/// with interval analysis's estimate of them together where it has one,
/// else as keeping every row.
fn kept_share(predicate: &Arc<dyn PhysicalExpr>, input: &Input) -> Option<f64> {
    let conjuncts = split_conjunction(predicate);
    if conjuncts.len() == 1 {
        return equality_share(predicate, input);
    }
    let (mut share, mut judged, mut ranges) = (1.0, false, Vec::new());
    for part in conjuncts {
        match equality_share(part, input) {
            Some(s) => (share, judged) = (share * s, true),
            None if check_support(part, input.schema) => ranges.push(part.clone()),
            None => {}
        }
    }
    if !judged {
        return None;
    }
    if !ranges.is_empty() {
        share *= analysed_share(&conjunction(ranges), input).unwrap_or(1.0);
    }
    Some(share)
}

/// The share an equality, an IN list or a disjunction of such keeps.
fn equality_share(predicate: &Arc<dyn PhysicalExpr>, input: &Input) -> Option<f64> {
    if let Some(binary) = predicate.downcast_ref::<BinaryExpr>() {
        let (l, r) = (binary.left(), binary.right());
        return match binary.op() {
            Operator::Or => Some((kept_share(l, input)? + kept_share(r, input)?).min(1.0)),
            Operator::Eq => {
                let column = match (l.downcast_ref::<Column>(), r.downcast_ref::<Column>()) {
                    (Some(c), None) if r.downcast_ref::<Literal>().is_some() => c,
                    (None, Some(c)) if l.downcast_ref::<Literal>().is_some() => c,
                    _ => return None,
                };
                Some(1.0 / distinct(column, input.stats)?)
            }
            _ => None,
        };
    }
    if let Some(list) = predicate.downcast_ref::<InListExpr>() {
        let column = list.expr().downcast_ref::<Column>()?;
        if list.negated() || !list.list().iter().all(|e| e.downcast_ref::<Literal>().is_some()) {
            return None;
        }
        return Some((list.list().len() as f64 / distinct(column, input.stats)?).min(1.0));
    }
    None
}

/// Interval analysis's estimate of the share `predicate` keeps, if it
/// handles the predicate.
fn analysed_share(predicate: &Arc<dyn PhysicalExpr>, input: &Input) -> Option<f64> {
    if !check_support(predicate, input.schema) {
        return None;
    }
    let context = AnalysisContext::try_from_statistics(input.schema, &input.stats.column_statistics).ok()?;
    analyze(predicate, context, input.schema).ok()?.selectivity
}

/// The distinct values of `column` in the filter's input, when known.
fn distinct(column: &Column, stats: &Statistics) -> Option<f64> {
    match stats.column_statistics.get(column.index())?.distinct_count {
        Precision::Exact(n) | Precision::Inexact(n) if n > 0 => Some(n as f64),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::common::{ColumnStatistics, ScalarValue};
    use datafusion::physical_expr::expressions::{binary, col, in_list, lit};

    fn stats(distinct: &[Option<usize>]) -> Statistics {
        Statistics {
            num_rows: Precision::Exact(200_000),
            total_byte_size: Precision::Absent,
            column_statistics: distinct
                .iter()
                .map(|d| ColumnStatistics {
                    distinct_count: d.map_or(Precision::Absent, Precision::Inexact),
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn ranges_count_with_interval_analysis_and_the_rest_keeps_every_row() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("mode", DataType::Utf8, false),
            Field::new("day", DataType::Int64, false),
            Field::new("other", DataType::Int64, false),
        ]));
        let mut stats = stats(&[Some(7), Some(2000), None]);
        let day = &mut stats.column_statistics[1];
        (day.min_value, day.max_value) =
            (Precision::Inexact(ScalarValue::Int64(Some(0))), Precision::Inexact(ScalarValue::Int64(Some(1999))));
        let input = Input { schema: &schema, stats: &stats };
        let c = |name: &str| col(name, &schema).unwrap();
        let and = |a, b| binary(a, Operator::And, b, &schema).unwrap();
        let mode = in_list(c("mode"), vec![lit("MAIL"), lit("SHIP")], &false, &schema).unwrap();
        let year_from = binary(c("day"), Operator::GtEq, lit(1000i64), &schema).unwrap();
        let year_to = binary(c("day"), Operator::Lt, lit(1500i64), &schema).unwrap();
        let columns = binary(c("day"), Operator::Lt, c("other"), &schema).unwrap();
        // A conjunction as the planner leaves it: flat, the range's two ends apart.
        let share = kept_share(&and(and(and(mode, year_from), year_to), columns), &input).unwrap();
        assert!((share - 2.0 / 7.0 * 0.25).abs() < 0.01, "{share}");
    }

    #[test]
    fn equalities_keep_one_value_in_distinct_and_combine() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("brand", DataType::Utf8, false),
            Field::new("container", DataType::Utf8, false),
            Field::new("comment", DataType::Utf8, false),
        ]));
        let stats = stats(&[Some(25), Some(40), None]);
        let eq = |c: &str, v: &str| binary(col(c, &schema).unwrap(), Operator::Eq, lit(v), &schema).unwrap();
        let and = |a, b| binary(a, Operator::And, b, &schema).unwrap();
        let or = |a, b| binary(a, Operator::Or, b, &schema).unwrap();
        let share = |p| kept_share(&p, &Input { schema: &schema, stats: &stats });
        assert_eq!(share(eq("brand", "Brand#23")), Some(1.0 / 25.0));
        assert_eq!(share(and(eq("brand", "B"), eq("container", "C"))), Some(1.0 / 1000.0));
        assert_eq!(share(or(eq("brand", "B"), eq("brand", "C"))), Some(2.0 / 25.0));
        assert_eq!(share(eq("comment", "x")), None, "no distinct count: DataFusion's estimate stays");
        assert_eq!(share(and(eq("brand", "B"), eq("comment", "x"))), Some(1.0 / 25.0));
        assert_eq!(share(or(eq("brand", "B"), eq("comment", "x"))), None, "a disjunct it cannot judge");
        let list = |negated| {
            in_list(col("container", &schema).unwrap(), vec![lit("A"), lit("B"), lit("C"), lit("D")], &negated, &schema)
                .unwrap()
        };
        assert_eq!(share(list(false)), Some(4.0 / 40.0));
        assert_eq!(share(list(true)), None);
    }
}
