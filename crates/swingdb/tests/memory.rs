//! Queries under a memory limit. A test binary of its own: the limit holds
//! for the whole process, and other tests must not run under it.

use swingdb::arrow::compute::concat_batches;
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::arrow::util::pretty::pretty_format_batches;
use swingdb::{Connection, Database, ErrorKind};

fn all_rows(con: &Connection, sql: &str) -> swingdb::Result<RecordBatch> {
    let batches = con.execute(sql, &[])?.collect_batches()?;
    Ok(concat_batches(&batches[0].schema(), &batches)?)
}

/// The spill count EXPLAIN ANALYZE reports for `sql`, summed over operators.
fn spills(con: &Connection, sql: &str) -> u64 {
    let plan = pretty_format_batches(&[all_rows(con, &format!("EXPLAIN ANALYZE {sql}")).unwrap()]).unwrap().to_string();
    plan.split("spill_count=")
        .skip(1)
        .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap())
        .map(|n| n.parse::<u64>().unwrap())
        .sum()
}

/// The physical plan of `sql`, as EXPLAIN shows it.
fn plan_of(con: &Connection, sql: &str) -> String {
    pretty_format_batches(&[all_rows(con, &format!("EXPLAIN {sql}")).unwrap()]).unwrap().to_string()
}

#[test]
fn sorts_aggregations_and_joins_beyond_the_memory_limit_spill_and_answer_as_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), Default::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute(
        "CREATE TABLE t AS SELECT value AS k, (value * 7919) % 1000003 AS v, 'row ' || value AS s FROM range(4000000)",
        &[],
    )
    .unwrap();
    let sort = "SELECT k, v, s FROM t ORDER BY v DESC, k";
    let groups = "SELECT v % 500000 AS g, count(*) AS n, max(s) AS m FROM t GROUP BY g ORDER BY g";
    let (sorted, grouped) = (all_rows(&con, sort).unwrap(), all_rows(&con, groups).unwrap());
    assert_eq!(spills(&con, sort), 0, "no spill without pressure");

    let spill_dir = tmp.path().join("spill");
    con.execute(&format!("SET temp_directory = '{}'", spill_dir.display()), &[]).unwrap();
    // One partition: with several, whether one sorter's rows still fit when
    // it finishes (and its memory stops being spillable) depends on how the
    // partitions interleave, and so does whether the query fits at all.
    con.execute("SET threads = 1", &[]).unwrap();
    con.execute("SET memory_limit = '64MB'", &[]).unwrap();
    assert_eq!(all_rows(&con, "SELECT current_setting('memory_limit') AS l").unwrap().num_rows(), 1);
    assert_eq!(all_rows(&con, sort).unwrap(), sorted);
    assert_eq!(all_rows(&con, groups).unwrap(), grouped);
    assert!(spills(&con, sort) > 0, "the sort spilled");
    assert!(spill_dir.is_dir(), "spill files go to temp_directory");

    // A join of two 4M-row sides: its hash table would not fit 64 MB (the
    // query failed with "needs more memory"); it runs as a grace hash join,
    // which spills buckets of both sides and joins them one by one.
    let join = "SELECT count(*) AS n, sum(a.v + b.k) AS s FROM t a JOIN t b ON a.k = b.v";
    swingdb::set_memory_limit("none").unwrap();
    let joined = all_rows(&con, join).unwrap();
    let plan = plan_of(&con, join);
    assert!(plan.contains("HashJoinExec") && !plan.contains("Grace"), "a hash join without a limit: {plan}");
    swingdb::set_memory_limit("64MB").unwrap();
    assert!(plan_of(&con, join).contains("GraceHashJoinExec"), "{}", plan_of(&con, join));
    assert_eq!(all_rows(&con, join).unwrap(), joined);
    assert!(spills(&con, join) > 0, "the join spilled");
    // Filters from above reach the scans under it: the runtime filter of a
    // semi join with 50 keys (TPC-H Q18's shape) is applied where `a` is read.
    con.execute("CREATE TABLE few AS SELECT value * 1000 AS x FROM range(50)", &[]).unwrap();
    let above =
        "SELECT count(*) AS n, sum(a.v + b.k) AS s FROM t a JOIN t b ON a.k = b.v WHERE a.k IN (SELECT x FROM few)";
    let plan = plan_of(&con, above);
    let under_grace = plan.split("GraceHashJoinExec").nth(1).unwrap_or_default();
    assert!(under_grace.contains("runtime filter"), "{plan}");
    let filtered = all_rows(&con, above).unwrap();
    swingdb::set_memory_limit("none").unwrap();
    assert_eq!(all_rows(&con, above).unwrap(), filtered);
    swingdb::set_memory_limit("64MB").unwrap();
    // Its build side (4M rows of two BIGINTs) is estimated at 224 MB with its
    // hash table entries and the copy DataFusion's hash join makes of its
    // batches: a grace join up to four times that, a plain hash join above.
    swingdb::set_memory_limit("800MB").unwrap();
    assert!(plan_of(&con, join).contains("GraceHashJoinExec"), "{}", plan_of(&con, join));
    swingdb::set_memory_limit("1GB").unwrap();
    let plan = plan_of(&con, join);
    assert!(plan.contains("HashJoinExec") && !plan.contains("Grace"), "{plan}");
    // NOT IN over a column with NULLs stays a (null-aware) plain hash join:
    // no bucket alone knows whether the build side holds a NULL.
    swingdb::set_memory_limit("64MB").unwrap();
    let not_in = "SELECT count(*) AS n FROM t WHERE k NOT IN (SELECT CASE WHEN v < 10 THEN NULL ELSE v END FROM t)";
    let plan = plan_of(&con, not_in);
    assert!(plan.contains("HashJoinExec") && !plan.contains("Grace"), "{plan}");

    // Too little for even one batch: a clear error, no crash.
    swingdb::set_memory_limit("64KiB").unwrap();
    let error = all_rows(&con, sort).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Operational, "{error}");
    assert!(error.message().contains("memory_limit (64.0 KiB)"), "{error}");
    assert!(error.message().contains("Sort"), "the operator is named: {error}");
    let wrong = con.execute("SET memory_limit = 'lots'", &[]).unwrap_err();
    assert_eq!(wrong.kind(), ErrorKind::Programming, "{wrong}");
    swingdb::set_memory_limit("none").unwrap();
    assert_eq!(swingdb::memory_limit(), None);
    assert_eq!(all_rows(&con, sort).unwrap(), sorted);
}
