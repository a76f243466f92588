//! The grace hash join answers as DataFusion's hash join does, for every
//! join type, with and without a filter and NULL keys, whether it fits in
//! memory, spills once, or spills bucket after bucket; a key too frequent to
//! split fails with the memory error instead of looping.

use super::GraceHashJoinExec;
use datafusion::arrow::array::{ArrayRef, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::{JoinSide, JoinType, NullEquality, Result};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::execution::memory_pool::GreedyMemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{binary, col};
use datafusion::physical_plan::joins::utils::{ColumnIndex, JoinFilter};
use datafusion::physical_plan::joins::{HashJoinExec, PartitionMode};
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionConfig;
use std::sync::Arc;

const JOIN_TYPES: [JoinType; 10] = [
    JoinType::Inner,
    JoinType::Left,
    JoinType::Right,
    JoinType::Full,
    JoinType::LeftSemi,
    JoinType::LeftAnti,
    JoinType::RightSemi,
    JoinType::RightAnti,
    JoinType::LeftMark,
    JoinType::RightMark,
];

/// `rows` rows of (key, value) in batches of 100: key `key(i)`, value `i`.
fn side(names: (&str, &str), rows: i64, key: impl Fn(i64) -> Option<i64>) -> (Arc<dyn ExecutionPlan>, SchemaRef) {
    let schema = Arc::new(Schema::new(vec![
        Field::new(names.0, DataType::Int64, true),
        Field::new(names.1, DataType::Int64, false),
    ]));
    let batches = (0..rows)
        .step_by(100)
        .map(|start| {
            let ids: Vec<i64> = (start..(start + 100).min(rows)).collect();
            let keys: ArrayRef = Arc::new(ids.iter().map(|&i| key(i)).collect::<Int64Array>());
            RecordBatch::try_new(schema.clone(), vec![keys, Arc::new(Int64Array::from(ids))]).unwrap()
        })
        .collect::<Vec<_>>();
    (MemorySourceConfig::try_new_exec(&[batches], schema.clone(), None).unwrap(), schema)
}

/// DataFusion's join of a left side keyed `left_key` and a right side keyed
/// `right_key`, on the keys, with `lv < rv` as its filter if `filtered`.
fn hash_join(
    join_type: JoinType,
    filtered: bool,
    left_key: impl Fn(i64) -> Option<i64>,
    right_key: impl Fn(i64) -> Option<i64>,
) -> HashJoinExec {
    let (left, left_schema) = side(("lk", "lv"), 3000, left_key);
    let (right, right_schema) = side(("rk", "rv"), 4000, right_key);
    let on = vec![(col("lk", &left_schema).unwrap(), col("rk", &right_schema).unwrap())];
    let filter = filtered.then(|| {
        let schema = Arc::new(Schema::new(vec![
            Field::new("lv", DataType::Int64, false),
            Field::new("rv", DataType::Int64, false),
        ]));
        let expression =
            binary(col("lv", &schema).unwrap(), Operator::Lt, col("rv", &schema).unwrap(), &schema).unwrap();
        let columns =
            vec![ColumnIndex { index: 1, side: JoinSide::Left }, ColumnIndex { index: 1, side: JoinSide::Right }];
        JoinFilter::new(expression, columns, schema)
    });
    HashJoinExec::try_new(
        left,
        right,
        on,
        filter,
        &join_type,
        None,
        PartitionMode::Partitioned,
        NullEquality::NullEqualsNothing,
        false,
    )
    .unwrap()
}

/// A task whose memory pool holds `bytes`, reading batches of 64 rows.
fn task(bytes: usize) -> Arc<TaskContext> {
    let runtime = RuntimeEnvBuilder::new().with_memory_pool(Arc::new(GreedyMemoryPool::new(bytes))).build().unwrap();
    Arc::new(
        TaskContext::default()
            .with_runtime(Arc::new(runtime))
            .with_session_config(SessionConfig::new().with_batch_size(64)),
    )
}

/// `plan`'s rows as sorted lines of text.
async fn rows(plan: Arc<dyn ExecutionPlan>, context: Arc<TaskContext>) -> Result<Vec<String>> {
    let batches = collect(plan, context).await?;
    let mut lines: Vec<String> = pretty_format_batches(&batches)?.to_string().lines().map(str::to_owned).collect();
    lines.sort();
    Ok(lines)
}

/// Files the grace join spilled to, from its metrics.
fn spilled_files(plan: &GraceHashJoinExec) -> usize {
    plan.metrics().and_then(|m| m.spill_count()).unwrap_or(0)
}

fn left_key(i: i64) -> Option<i64> {
    (i % 50 != 7).then_some(i % 700)
}

fn right_key(i: i64) -> Option<i64> {
    (i % 60 != 11).then_some((i * 7) % 900)
}

#[tokio::test]
async fn answers_as_the_hash_join_in_memory_and_spilled() {
    for join_type in JOIN_TYPES {
        for filtered in [false, true] {
            let join = hash_join(join_type, filtered, left_key, right_key);
            let expected =
                rows(Arc::new(hash_join(join_type, filtered, left_key, right_key)), task(usize::MAX)).await.unwrap();
            assert!(expected.len() > 10, "{join_type} gives rows");
            // Files: none in memory, 2 x 16 split once, more where buckets split again.
            for (pool, files) in [(usize::MAX, 0..=0), (40_000, 1..=32), (8_000, 33..=10_000)] {
                let grace = Arc::new(GraceHashJoinExec::try_new(&join).unwrap());
                let got = rows(grace.clone(), task(pool)).await.unwrap();
                assert_eq!(got, expected, "{join_type} filtered={filtered} in a pool of {pool}");
                assert!(files.contains(&spilled_files(&grace)), "{join_type} in a pool of {pool}: {files:?}");
            }
        }
    }
}

#[tokio::test]
async fn a_key_too_frequent_to_split_fails_for_want_of_memory() {
    let join = hash_join(JoinType::Inner, false, |_| Some(1), |i| Some(i % 3));
    let grace = Arc::new(GraceHashJoinExec::try_new(&join).unwrap());
    let error = rows(grace, task(20_000)).await.unwrap_err().to_string();
    assert!(error.contains("Resources exhausted"), "{error}");
}
