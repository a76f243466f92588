//! End-to-end tests of the core API (SQL in, Arrow out, files on disk).

use swingdb::arrow::array::{Array, Int64Array};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{Connection, Database, ErrorKind, OpenOptions};

mod common;
use common::{newest_manifest, single_i64};

fn rows(con: &Connection, sql: &str) -> Vec<RecordBatch> {
    con.execute(sql, &[]).unwrap().collect_batches().unwrap()
}

#[test]
fn create_insert_update_delete_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a BIGINT NOT NULL, b VARCHAR)", &[]).unwrap();
    let inserted = con.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, NULL)", &[]).unwrap();
    assert_eq!(inserted.rows_affected(), Some(3));
    assert_eq!(con.execute("UPDATE t SET a = a + 10 WHERE b IS NULL", &[]).unwrap().rows_affected(), Some(1));
    assert_eq!(con.execute("DELETE FROM t WHERE a = 1", &[]).unwrap().rows_affected(), Some(1));
    assert_eq!(single_i64(&con, "SELECT sum(a) FROM t"), 15);
    drop(con);
    drop(db);
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    assert_eq!(single_i64(&db.connect().unwrap(), "SELECT count(*) FROM t"), 2);
    assert_eq!(db.verify().unwrap().rows, 2);
}

#[test]
fn failed_statement_and_rollback_change_nothing() {
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a INTEGER NOT NULL)", &[]).unwrap();
    let err = con.execute("INSERT INTO t VALUES (1), (NULL)", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Integrity);
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 0);
    con.execute("BEGIN", &[]).unwrap();
    con.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
    con.execute("ROLLBACK", &[]).unwrap();
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 0);
}

#[test]
fn conflicting_writers_get_a_conflict_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    let a = db.connect().unwrap();
    let b = db.connect().unwrap();
    a.execute("CREATE TABLE t AS SELECT CAST(1 AS BIGINT) AS n", &[]).unwrap();
    a.execute("BEGIN", &[]).unwrap();
    b.execute("BEGIN", &[]).unwrap();
    a.execute("UPDATE t SET n = 2", &[]).unwrap();
    b.execute("UPDATE t SET n = 3", &[]).unwrap();
    a.execute("COMMIT", &[]).unwrap();
    let err = b.execute("COMMIT", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(single_i64(&b, "SELECT n FROM t"), 2);
}

#[test]
fn results_outlive_connection_database_and_drop() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(100000)", &[]).unwrap();
    let batches = rows(&con, "SELECT a FROM t");
    con.execute("DROP TABLE t", &[]).unwrap();
    db.collect_garbage().unwrap();
    drop(con);
    drop(db);
    let total: i64 = batches
        .iter()
        .map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().iter().sum::<i64>())
        .sum();
    assert_eq!(total, (0..100000).sum::<i64>());
    assert!(batches.iter().all(|b| b.column(0).null_count() == 0));
}

/// A statement at the expression-depth limit plans and runs on a thread that
/// has just the stack `Connection` asks for (4 MiB), without a fresh one.
#[test]
fn a_statement_at_the_depth_limit_fits_the_planning_stack() {
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS i FROM range(2000)", &[]).unwrap();
    let chain = (0..998).map(|k| format!("i = {k}")).collect::<Vec<_>>().join(" OR ");
    let sql = format!("SELECT count(*) FROM t WHERE {chain}");
    let n = std::thread::Builder::new()
        .stack_size((4 << 20) + (512 << 10))
        .spawn(move || single_i64(&con, &sql))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(n, 998);
}

fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// A reader that never commits follows a writer through many versions without
/// keeping the segments of old versions open (the torture suite's readers ran
/// out of file descriptors after some 15,000 commits).
#[test]
fn a_long_lived_reader_does_not_keep_old_segments_open() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let writer = Database::open(&path, OpenOptions::default()).unwrap().connect().unwrap();
    writer.execute("CREATE TABLE t AS SELECT value AS x FROM range(10)", &[]).unwrap();
    let reader_db = Database::open(&path, OpenOptions { read_only: true, ..Default::default() }).unwrap();
    let reader = reader_db.connect().unwrap();
    assert_eq!(single_i64(&reader, "SELECT count(*) FROM t"), 10);
    let before = open_files();
    for k in 0..300 {
        // Each UPDATE rewrites the table's one segment: a new file per version.
        writer.execute("UPDATE t SET x = x + 1", &[]).unwrap();
        assert_eq!(single_i64(&reader, "SELECT min(x) FROM t"), k + 1);
    }
    let after = open_files();
    assert!(after < before + 20, "{before} files open before, {after} after 300 versions");
}

/// The segment files of the database at `path`.
fn segment_files(path: &std::path::Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(path.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn adding_and_dropping_columns_rewrites_no_segment_and_survives_reopen_and_compaction() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a BIGINT, b VARCHAR)", &[]).unwrap();
    con.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')", &[]).unwrap();
    let before = segment_files(&path);
    con.execute("ALTER TABLE t ADD COLUMN c BIGINT DEFAULT 7", &[]).unwrap();
    con.execute("ALTER TABLE t DROP COLUMN b", &[]).unwrap();
    con.execute("ALTER TABLE t ADD COLUMN b BIGINT", &[]).unwrap();
    assert_eq!(segment_files(&path), before, "ADD/DROP COLUMN wrote or removed segments");
    // Enough single-row commits to make compaction merge segments written
    // before and after the changes into one.
    for i in 3..20 {
        con.execute(&format!("INSERT INTO t VALUES ({i}, {i} * 10, {i} * 100)"), &[]).unwrap();
    }
    let check = |con: &Connection| {
        assert_eq!(single_i64(con, "SELECT sum(c) FROM t WHERE a <= 2"), 14);
        assert_eq!(single_i64(con, "SELECT count(b) FROM t"), 17);
        assert_eq!(single_i64(con, "SELECT sum(c) FROM t WHERE c = 7"), 14);
        assert_eq!(single_i64(con, "SELECT sum(b) FROM t WHERE a > 2"), (3..20).map(|i| i * 100).sum::<i64>());
        let names: Vec<String> =
            rows(con, "SELECT * FROM t LIMIT 1")[0].schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["a", "c", "b"]);
    };
    check(&con);
    drop(con);
    drop(db);
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    check(&db.connect().unwrap());
    assert_eq!(db.verify().unwrap().rows, 19);
}

#[test]
fn a_writer_that_raced_an_alter_gets_a_conflict_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    let a = db.connect().unwrap();
    let b = db.connect().unwrap();
    a.execute("CREATE TABLE t (n BIGINT)", &[]).unwrap();
    a.execute("BEGIN", &[]).unwrap();
    b.execute("BEGIN", &[]).unwrap();
    a.execute("ALTER TABLE t ADD COLUMN m BIGINT DEFAULT 5", &[]).unwrap();
    b.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
    a.execute("COMMIT", &[]).unwrap();
    let err = b.execute("COMMIT", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    b.execute("INSERT INTO t (n) VALUES (1)", &[]).unwrap();
    assert_eq!(single_i64(&b, "SELECT sum(n + m) FROM t"), 6);
}

#[test]
fn identity_numbers_are_never_given_twice_across_transactions_deletes_and_reopen() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let a = db.connect().unwrap();
    let b = db.connect().unwrap();
    a.execute("CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY, v BIGINT)", &[]).unwrap();
    // Both number their row 1; the second commit conflicts and, retried, takes 2.
    a.execute("BEGIN", &[]).unwrap();
    b.execute("BEGIN", &[]).unwrap();
    a.execute("INSERT INTO t (v) VALUES (10)", &[]).unwrap();
    b.execute("INSERT INTO t (v) VALUES (20)", &[]).unwrap();
    a.execute("COMMIT", &[]).unwrap();
    assert_eq!(b.execute("COMMIT", &[]).unwrap_err().kind(), ErrorKind::Conflict);
    b.execute("INSERT INTO t (v) VALUES (20)", &[]).unwrap();
    assert_eq!(single_i64(&b, "SELECT id FROM t WHERE v = 20"), 2);
    // The largest number, deleted, is not given again, also after reopening.
    b.execute("DELETE FROM t WHERE id = 2", &[]).unwrap();
    drop((a, b));
    drop(db);
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("INSERT INTO t (v) VALUES (30)", &[]).unwrap();
    assert_eq!(single_i64(&con, "SELECT id FROM t WHERE v = 30"), 3);
}

#[test]
fn a_child_insert_and_a_parent_delete_racing_cannot_both_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("db"), OpenOptions::default()).unwrap();
    let a = db.connect().unwrap();
    let b = db.connect().unwrap();
    a.execute("CREATE TABLE p (id BIGINT PRIMARY KEY)", &[]).unwrap();
    a.execute("CREATE TABLE c (pid BIGINT REFERENCES p (id))", &[]).unwrap();
    a.execute("INSERT INTO p VALUES (1), (2)", &[]).unwrap();
    for delete_first in [true, false] {
        // Each alone is valid: the delete sees no child, the insert sees its parent.
        let deleted = if delete_first { 1 } else { 2 };
        a.execute("BEGIN", &[]).unwrap();
        b.execute("BEGIN", &[]).unwrap();
        a.execute(&format!("DELETE FROM p WHERE id = {deleted}"), &[]).unwrap();
        b.execute(&format!("INSERT INTO c VALUES ({deleted})"), &[]).unwrap();
        let (first, second) = if delete_first { (&a, &b) } else { (&b, &a) };
        first.execute("COMMIT", &[]).unwrap();
        assert_eq!(second.execute("COMMIT", &[]).unwrap_err().kind(), ErrorKind::Conflict);
        let orphans = single_i64(&a, "SELECT count(*) FROM c WHERE pid NOT IN (SELECT id FROM p)");
        assert_eq!(orphans, 0, "a child row lost its parent (delete first: {delete_first})");
    }
}

fn int(v: i64) -> swingdb::datafusion::scalar::ScalarValue {
    swingdb::datafusion::scalar::ScalarValue::Int64(Some(v))
}

/// Inside a transaction, single-row inserts grow one in-memory tail segment
/// under one name; keys, CHECKs and FOREIGN KEYs must see exactly the rows
/// each statement adds to it, also after a failed statement restored it.
#[test]
fn constraints_see_the_rows_a_growing_tail_gains_and_loses() {
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE p (id BIGINT PRIMARY KEY)", &[]).unwrap();
    con.execute("INSERT INTO p VALUES (1)", &[]).unwrap();
    con.execute("CREATE TABLE c (id BIGINT PRIMARY KEY, n BIGINT CHECK (n > 0), p BIGINT REFERENCES p (id))", &[])
        .unwrap();
    let insert = "INSERT INTO c VALUES (?, ?, ?)";
    con.execute("BEGIN", &[]).unwrap();
    for id in 1..=5 {
        con.execute(insert, &[int(id), int(1), int(1)]).unwrap();
    }
    // Grows the tail past its key check, then fails its FOREIGN KEY: the tail
    // is restored, and key 6 must not stay behind in the key index.
    let err = con.execute(insert, &[int(6), int(1), int(99)]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Integrity, "{}", err.message());
    con.execute(insert, &[int(6), int(1), int(1)]).unwrap();
    let err = con.execute(insert, &[int(3), int(1), int(1)]).unwrap_err();
    assert!(err.message().contains("id = 3"), "{}", err.message());
    // The CHECK sees a row added to the tail (not only new segments).
    let err = con.execute(insert, &[int(7), int(-1), int(1)]).unwrap_err();
    assert!(err.message().contains("CHECK (n > 0)"), "{}", err.message());
    // A parent row the tail's rows reference cannot go.
    let err = con.execute("DELETE FROM p WHERE id = 1", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Integrity, "{}", err.message());
    con.execute("COMMIT", &[]).unwrap();
    assert_eq!(single_i64(&con, "SELECT count(*) FROM c"), 6);
    assert_eq!(single_i64(&con, "SELECT sum(id) FROM c"), 21);
}

/// Autocommitted single rows are kept in the manifest; compaction keeps
/// their number bounded, and every row survives reopening and verify.
#[test]
fn inline_segments_stay_few_and_survive_reopening() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    {
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let con = db.connect().unwrap();
        con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, s VARCHAR)", &[]).unwrap();
        for id in 0..300 {
            con.execute("INSERT INTO t VALUES (?, 'x')", &[int(id)]).unwrap();
        }
        con.execute("DELETE FROM t WHERE id % 7 = 0", &[]).unwrap();
    }
    let json = newest_manifest(&path);
    let segments = json["tables"]["t"]["segments"].as_array().unwrap();
    let inline = segments.iter().filter(|s| s.get("inline").is_some()).count();
    assert!(inline >= 1 && segments.len() <= 10, "{inline} inline of {} segments", segments.len());
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    assert_eq!(db.verify().unwrap().rows, 257);
    let con = db.connect().unwrap();
    assert_eq!(single_i64(&con, "SELECT count(DISTINCT id) FROM t"), 257);
    let err = con.execute("INSERT INTO t VALUES (?, 'again')", &[int(299)]).unwrap_err();
    assert!(err.message().contains("id = 299"), "{}", err.message());
}

fn key_runs(path: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(path.join("keys")) else { return Vec::new() };
    let mut runs: Vec<_> =
        entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "keys")).collect();
    runs.sort();
    runs
}

/// The keys of a large segment are saved once as a sorted run beside it and
/// read back by the next handle; a damaged or missing run is rebuilt, never
/// trusted; runs go with their segments; duplicates are found within a run,
/// between runs and between a run and hashed rows.
#[test]
fn key_runs_are_saved_reused_rebuilt_and_collected() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    {
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let con = db.connect().unwrap();
        con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, k VARCHAR UNIQUE)", &[]).unwrap();
        con.execute("INSERT INTO t SELECT value, 'k' || value FROM range(20000)", &[]).unwrap();
        // A duplicate inside one large segment, and one across two.
        let err = con
            .execute("INSERT INTO t SELECT 100000 + value % 10000, 'n' || value FROM range(20000)", &[])
            .unwrap_err();
        assert!(err.message().contains("PRIMARY KEY (id) already has id = 100000"), "{}", err.message());
        let err = con.execute("INSERT INTO t SELECT 19990 + value, 'm' || value FROM range(10000)", &[]).unwrap_err();
        assert!(err.message().contains("PRIMARY KEY (id) already has id = 19990"), "{}", err.message());
        let err =
            con.execute("INSERT INTO t SELECT 50000 + value, 'k' || (value + 5) FROM range(10000)", &[]).unwrap_err();
        // The smallest shared value (in the row format's order) is named.
        assert!(err.message().contains("UNIQUE (k) already has k = k10"), "{}", err.message());
        db.collect_garbage().unwrap();
    }
    let runs = key_runs(&path);
    assert_eq!(runs.len(), 2, "one run per key of the one committed segment: {runs:?}");
    let saved: Vec<_> = runs.iter().map(|r| std::fs::metadata(r).unwrap().modified().unwrap()).collect();
    {
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let con = db.connect().unwrap();
        // Hashed rows checked against the saved runs, which stay as they were.
        let err = con.execute("INSERT INTO t VALUES (?, 'new')", &[int(12345)]).unwrap_err();
        assert!(err.message().contains("id = 12345"), "{}", err.message());
        con.execute("INSERT INTO t VALUES (?, 'new')", &[int(-1)]).unwrap();
        let now: Vec<_> = runs.iter().map(|r| std::fs::metadata(r).unwrap().modified().unwrap()).collect();
        assert_eq!(now, saved, "the runs were rebuilt instead of read");
    }
    // A damaged run and a missing one: rebuilt from the segment.
    let mut bytes = std::fs::read(&runs[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&runs[0], &bytes).unwrap();
    std::fs::remove_file(&runs[1]).unwrap();
    {
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let con = db.connect().unwrap();
        for (id, k) in [(19999, "fresh"), (777777, "k19999")] {
            let err = con
                .execute("INSERT INTO t VALUES (?, ?)", &[int(id), swingdb::datafusion::scalar::ScalarValue::from(k)])
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::Integrity, "{}", err.message());
        }
        assert_ne!(std::fs::read(&runs[0]).unwrap(), bytes, "the damaged run was not rewritten");
        assert!(runs[1].exists(), "the missing run was not saved again");
        // The segment leaves (rewritten by DELETE), and its runs with it.
        con.execute("DELETE FROM t WHERE id % 2 = 0", &[]).unwrap();
        db.collect_garbage().unwrap();
        let left = key_runs(&path);
        assert!(runs.iter().all(|r| !left.contains(r)), "runs outlived their segment: {left:?}");
        assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 10001);
        let err = con.execute("INSERT INTO t VALUES (?, 'again')", &[int(19999)]).unwrap_err();
        assert!(err.message().contains("id = 19999"), "{}", err.message());
        con.execute("INSERT INTO t VALUES (?, 'again')", &[int(19998)]).unwrap();
    }
}

fn all_i64(con: &Connection, sql: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for batch in rows(con, sql) {
        out.extend(
            batch.column(0).as_any().downcast_ref::<Int64Array>().expect("an Int64 column").values().iter().copied(),
        );
    }
    out
}

#[test]
fn repeated_queries_reuse_their_plan_only_while_it_is_right() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a BIGINT)", &[]).unwrap();
    con.execute("INSERT INTO t VALUES (1), (2), (3)", &[]).unwrap();
    let read = "SELECT a FROM t WHERE a > 1";
    assert_eq!(all_i64(&con, read), [2, 3]);
    assert_eq!(all_i64(&con, read), [2, 3]);
    assert_eq!(con.cached_plan_uses(), 1);
    // A commit of this connection makes the plan stale: planned afresh, then kept again.
    con.execute("INSERT INTO t VALUES (4)", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [2, 3, 4]);
    assert_eq!(con.cached_plan_uses(), 1);
    assert_eq!(all_i64(&con, read), [2, 3, 4]);
    assert_eq!(con.cached_plan_uses(), 2);
    // A commit of another handle (as of another process) too.
    let other = Database::open(&path, OpenOptions::default()).unwrap().connect().unwrap();
    other.execute("DELETE FROM t WHERE a = 2", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [3, 4]);
    assert_eq!(con.cached_plan_uses(), 2);
    // Inside a transaction, its own changes are seen.
    con.execute("BEGIN", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [3, 4]);
    con.execute("INSERT INTO t VALUES (5)", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [3, 4, 5]);
    con.execute("ROLLBACK", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [3, 4]);
    // Any other statement (a setting, here) forgets every plan.
    let before = con.cached_plan_uses();
    con.execute("SET datafusion.execution.batch_size = 1024", &[]).unwrap();
    assert_eq!(all_i64(&con, read), [3, 4]);
    assert_eq!(con.cached_plan_uses(), before);
    // Registered data shadowing the table is read, not the plan of the stored one.
    let batch = RecordBatch::try_from_iter([("a", std::sync::Arc::new(Int64Array::from(vec![7, 8])) as _)]).unwrap();
    con.register("t", batch.schema(), vec![batch]).unwrap();
    assert_eq!(all_i64(&con, read), [7, 8]);
    con.unregister("t");
    assert_eq!(all_i64(&con, read), [3, 4]);
    // So are reads calling functions that give another value each run.
    let before = con.cached_plan_uses();
    for _ in 0..3 {
        con.execute("SELECT a, now(), random() FROM t", &[]).unwrap().collect_batches().unwrap();
    }
    assert_eq!(con.cached_plan_uses(), before);
    for _ in 0..3 {
        con.execute("SELECT a, abs(a) FROM t", &[]).unwrap().collect_batches().unwrap();
    }
    assert_eq!(con.cached_plan_uses(), before + 2); // immutable functions are fine
                                                    // Aggregates are kept too, and answer from the tables of each run.
    let before = con.cached_plan_uses();
    for _ in 0..3 {
        assert_eq!(single_i64(&con, "SELECT sum(a) FROM t"), 8);
    }
    assert_eq!(con.cached_plan_uses(), before + 2);
    con.execute("INSERT INTO t VALUES (10)", &[]).unwrap();
    assert_eq!(single_i64(&con, "SELECT sum(a) FROM t"), 18);
    con.execute("DELETE FROM t WHERE a = 10", &[]).unwrap();
    // Nothing is kept while another database is attached.
    let before = con.cached_plan_uses();
    con.execute("ATTACH ':memory:' AS m", &[]).unwrap();
    for _ in 0..3 {
        assert_eq!(all_i64(&con, read), [3, 4]);
    }
    assert_eq!(con.cached_plan_uses(), before);
}

/// Every row of `sql`'s answer, as text (one string per row).
fn all_rows(con: &Connection, sql: &str) -> Vec<String> {
    let batches = rows(con, sql);
    let text = swingdb::arrow::util::pretty::pretty_format_batches(&batches).unwrap().to_string();
    text.lines().filter(|l| l.starts_with('|')).skip(1).map(str::to_string).collect()
}

/// A connection to a new database with `t (k, v)`: 20,000 rows, k from 0,
/// v = k % 100; and `u (k, w)`: 50 rows, k = 0, 400, 800, ...
fn two_tables(path: &std::path::Path) -> Connection {
    let con = Database::open(path, OpenOptions::default()).unwrap().connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS k, value % 100 AS v FROM range(20000)", &[]).unwrap();
    con.execute("CREATE TABLE u AS SELECT value * 400 AS k, value AS w FROM range(50)", &[]).unwrap();
    con
}

#[test]
fn a_kept_plan_runs_again_without_the_runtime_filters_of_its_last_run() {
    // Operators publish filters while they run (a min/max its bound so far, a
    // top-k sort its threshold, a hash join its keys) and the scans below
    // apply them. A plan reused with the filters of its last run would drop
    // the rows that made its answer: min(k) would look for values below the
    // minimum it found.
    let tmp = tempfile::tempdir().unwrap();
    let con = two_tables(&tmp.path().join("db"));
    let queries = [
        "SELECT min(k), max(k), min(v) FROM t WHERE v > 10",
        "SELECT k, v FROM t ORDER BY v DESC, k LIMIT 5",
        "SELECT k FROM t WHERE v = 7 ORDER BY k DESC LIMIT 3",
        "SELECT t.k, u.w FROM t JOIN u ON t.k = u.k WHERE u.w < 10 ORDER BY t.k",
        "SELECT count(*), sum(t.v) FROM t JOIN u ON t.k = u.k + 1",
    ];
    for sql in queries {
        let first = all_rows(&con, sql);
        assert!(!first.is_empty(), "{sql}");
        let before = con.cached_plan_uses();
        for run in 0..3 {
            assert_eq!(all_rows(&con, sql), first, "{sql}: run {run} from the kept plan");
        }
        assert_eq!(con.cached_plan_uses(), before + 3, "{sql} reuses its plan");
    }
    assert_eq!(all_rows(&con, queries[0]), ["| 11     | 19999  | 11     |"]);
    assert_eq!(all_rows(&con, queries[1])[0], "| 99  | 99 |");
}

#[test]
fn a_result_used_twice_is_computed_once_per_run_of_a_kept_plan() {
    let tmp = tempfile::tempdir().unwrap();
    let con = two_tables(&tmp.path().join("db"));
    let sql = "WITH s AS (SELECT v, count(*) AS n FROM t GROUP BY v) \
               SELECT a.v, a.n, b.n FROM s a JOIN s b ON a.v = b.v + 1 WHERE a.v < 3 ORDER BY a.v";
    let first = all_rows(&con, sql);
    assert_eq!(first, ["| 1 | 200 | 200 |", "| 2 | 200 | 200 |"]);
    for _ in 0..3 {
        assert_eq!(all_rows(&con, sql), first);
    }
    assert_eq!(con.cached_plan_uses(), 3);
    // A change of the table is seen by both uses.
    con.execute("INSERT INTO t VALUES (100000, 2)", &[]).unwrap();
    assert_eq!(all_rows(&con, sql), ["| 1 | 200 | 200 |", "| 2 | 201 | 200 |"]);
    assert_eq!(all_rows(&con, sql), ["| 1 | 200 | 200 |", "| 2 | 201 | 200 |"]);
}

#[test]
fn a_kept_plan_with_a_scalar_subquery_is_not_renewed_while_an_earlier_run_is_read() {
    // The results of an uncorrelated scalar subquery sit in a container the
    // plan's expressions share; renewing the plan empties it. A result of an
    // earlier run still being read must keep its value.
    let tmp = tempfile::tempdir().unwrap();
    let con = two_tables(&tmp.path().join("db"));
    let sql = "SELECT k FROM t WHERE v > (SELECT avg(v) FROM t) + 49 ORDER BY k";
    let expected: Vec<i64> = (0..20000).filter(|k| k % 100 == 99).collect();
    assert_eq!(all_i64(&con, sql), expected);
    let mut open = con.execute(sql, &[]).unwrap();
    assert_eq!(con.cached_plan_uses(), 1);
    let second = all_i64(&con, sql);
    assert_eq!(con.cached_plan_uses(), 1, "planned anew while the first run is unread");
    assert_eq!(second, expected);
    let first: Vec<i64> = open
        .collect_batches()
        .unwrap()
        .iter()
        .flat_map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec())
        .collect();
    assert_eq!(first, expected);
    // Read to the end, a result no longer holds the plan back.
    assert_eq!(all_i64(&con, sql), expected);
    assert_eq!(all_i64(&con, sql), expected);
    assert!(con.cached_plan_uses() >= 2);
}

/// Mappings of this process of files under `path` that were deleted.
fn deleted_mappings(path: &std::path::Path) -> usize {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let path = path.to_string_lossy();
    maps.lines().filter(|l| l.contains(path.as_ref()) && l.ends_with("(deleted)")).count()
}

#[test]
fn a_kept_read_plan_does_not_keep_segments_of_old_versions_mapped() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let writer_db = Database::open(&path, OpenOptions::default()).unwrap();
    let writer = writer_db.connect().unwrap();
    writer.execute("CREATE TABLE t AS SELECT value AS x FROM range(100000)", &[]).unwrap();
    let reader = Database::open(&path, OpenOptions::default()).unwrap().connect().unwrap();
    for _ in 0..2 {
        assert_eq!(all_i64(&reader, "SELECT x FROM t WHERE x < 3"), [0, 1, 2]);
    }
    assert_eq!(reader.cached_plan_uses(), 1);
    for k in 1..=3 {
        // Each UPDATE rewrites the table's segment file; collection deletes the old one.
        writer.execute("UPDATE t SET x = x + 1", &[]).unwrap();
        writer_db.collect_garbage().unwrap();
        assert_eq!(single_i64(&reader, "SELECT min(x) FROM t"), k);
        assert_eq!(deleted_mappings(&path), 0, "a deleted segment is still mapped after version {k}");
    }
}
