//! Many writers of one table: a commit combines its change with what others
//! committed meanwhile (see `storage::rebase`), so appends never conflict,
//! changes of different segments both commit, and keys hold across them.

use std::time::Duration;
use swingdb::{Connection, Database, ErrorKind, OpenOptions};

mod common;
use common::{newest_manifest, single_i64};

fn run(con: &Connection, sql: &str) {
    con.execute(sql, &[]).unwrap_or_else(|e| panic!("{sql}: {}", e.message()));
}

fn open(path: &std::path::Path) -> Database {
    Database::open(path, OpenOptions::default()).unwrap()
}

/// The segments of `table` in the newest manifest of the database at `path`.
fn segment_count(path: &std::path::Path, table: &str) -> usize {
    newest_manifest(path)["tables"][table]["segments"].as_array().unwrap().len()
}

#[test]
fn transactions_appending_to_one_table_all_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR)");
    run(&a, "INSERT INTO t VALUES (0, 'first')");
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "INSERT INTO t VALUES (1, 'a'), (2, 'a')");
    run(&b, "INSERT INTO t SELECT value + 10, 'b' FROM range(100000)");
    run(&b, "COMMIT");
    run(&a, "COMMIT");
    assert_eq!(single_i64(&a, "SELECT count(*) FROM t"), 100_003);
    assert_eq!(single_i64(&a, "SELECT count(*) FROM t WHERE v = 'a'"), 2);
    // The same key from both: the second commit is refused as a duplicate, whole.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "INSERT INTO t VALUES (5, 'a'), (6, 'a')");
    run(&b, "INSERT INTO t VALUES (6, 'b')");
    run(&b, "COMMIT");
    let err = a.execute("COMMIT", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Integrity, "{}", err.message());
    assert!(err.message().contains("id = 6") && err.message().contains("nothing was written"), "{}", err.message());
    assert_eq!(single_i64(&a, "SELECT count(*) FROM t WHERE id IN (5, 6)"), 1);
    assert_eq!(single_i64(&a, "SELECT count(*) FROM t WHERE v = 'b' AND id = 6"), 1);
    run(&a, "INSERT INTO t VALUES (5, 'a')");
}

#[test]
fn changes_of_different_rows_both_commit_and_of_one_row_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    // Two segments: ids 0..100000 and 100000..200000.
    run(&a, "CREATE TABLE t AS SELECT value AS id, 0 AS n FROM range(100000)");
    run(&a, "INSERT INTO t SELECT value + 100000, 0 FROM range(100000)");
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE t SET n = n + 1 WHERE id = 7");
    run(&b, "UPDATE t SET n = n + 10 WHERE id = 100007");
    run(&b, "DELETE FROM t WHERE id = 100008");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(single_i64(&a, "SELECT sum(n) FROM t"), 11);
    assert_eq!(single_i64(&a, "SELECT count(*) FROM t"), 199_999);
    // Different rows of one segment: both commit too.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE t SET n = n + 1 WHERE id = 20");
    run(&b, "UPDATE t SET n = n + 100 WHERE id = 21");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(single_i64(&b, "SELECT sum(n) FROM t"), 112);
    // One row (its new version, which a's update wrote): the second is refused, and wrote nothing.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE t SET n = n + 1 WHERE id = 20");
    run(&b, "DELETE FROM t WHERE id = 20");
    run(&a, "COMMIT");
    let err = b.execute("COMMIT", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{}", err.message());
    assert!(err.message().contains("table 't'") && err.message().contains("retry"), "{}", err.message());
    assert_eq!(single_i64(&b, "SELECT sum(n) FROM t"), 113);
    assert_eq!(single_i64(&b, "SELECT count(*) FROM t"), 199_999);
}

#[test]
fn a_delete_of_every_row_keeps_the_rows_inserted_meanwhile() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t AS SELECT value AS id FROM range(10)");
    run(&a, "BEGIN");
    run(&a, "DELETE FROM t");
    run(&b, "INSERT INTO t VALUES (42)");
    run(&a, "COMMIT");
    assert_eq!(single_i64(&a, "SELECT sum(id) FROM t"), 42);
}

#[test]
fn children_inserted_by_two_transactions_both_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE p (id BIGINT PRIMARY KEY)");
    run(&a, "CREATE TABLE c (pid BIGINT REFERENCES p (id))");
    run(&a, "INSERT INTO p VALUES (1), (2)");
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "INSERT INTO c VALUES (1)");
    run(&b, "INSERT INTO c VALUES (2)");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(single_i64(&a, "SELECT sum(pid) FROM c"), 3);
}

/// Commits that combine with others' are compacted under the commit lock:
/// a table taking single-row appends from two connections in turn keeps few
/// segments (otherwise each commit's row stayed a segment of its own, and
/// every manifest grew).
#[test]
fn a_table_appended_to_from_two_connections_in_turn_stays_compact() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = open(&path);
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t (id BIGINT PRIMARY KEY)");
    for k in 0..200 {
        run(&a, "BEGIN");
        run(&a, &format!("INSERT INTO t VALUES ({})", 2 * k));
        run(&b, &format!("INSERT INTO t VALUES ({})", 2 * k + 1));
        run(&a, "COMMIT");
    }
    assert_eq!(single_i64(&a, "SELECT count(DISTINCT id) FROM t"), 400);
    let segments = segment_count(&path, "t");
    assert!(segments <= 12, "{segments} segments after 400 single-row commits");
}

/// Handles of one database opened apart (as by separate processes), each
/// appending single rows in autocommit with no retry: none conflicts.
#[test]
fn handles_appending_single_rows_at_once_never_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    run(&open(&path).connect().unwrap(), "CREATE TABLE t (id BIGINT PRIMARY KEY, who BIGINT)");
    let writers: Vec<_> = (0..4i64)
        .map(|who| {
            let path = path.clone();
            std::thread::spawn(move || {
                let db = open(&path);
                let con = db.connect().unwrap();
                con.set_conflict_timeout(Duration::ZERO);
                for k in 0..150i64 {
                    run(&con, &format!("INSERT INTO t VALUES ({}, {who})", who * 1000 + k));
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let con = open(&path).connect().unwrap();
    assert_eq!(single_i64(&con, "SELECT count(DISTINCT id) FROM t"), 600);
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t WHERE who = 3"), 150);
}

/// Connections of one handle committing single rows at once from threads:
/// each commit locks `commit.lock` through a descriptor of its own (the
/// handle keeps them for reuse), so commits of one process exclude each other
/// as those of different processes do, and no version is published twice.
#[test]
fn connections_of_one_handle_committing_at_once_each_publish_their_own_version() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = open(&path);
    run(&db.connect().unwrap(), "CREATE TABLE t (id BIGINT PRIMARY KEY, who BIGINT)");
    std::thread::scope(|scope| {
        for who in 0..4i64 {
            let con = db.connect().unwrap();
            scope.spawn(move || {
                con.set_conflict_timeout(Duration::ZERO);
                for k in 0..150i64 {
                    run(&con, &format!("INSERT INTO t VALUES ({}, {who})", who * 1000 + k));
                }
            });
        }
    });
    let version = |m: &serde_json::Value| m["version"].as_u64().expect("a version");
    // The CREATE TABLE and 600 inserts: one version each, none reused.
    assert_eq!(version(&newest_manifest(&path)), 601);
    let con = open(&path).connect().unwrap();
    assert_eq!(single_i64(&con, "SELECT count(DISTINCT id) FROM t"), 600);
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t WHERE who = 3"), 150);
}
