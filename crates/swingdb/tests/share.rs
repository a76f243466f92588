//! Snapshots shared within one process (the many-process tests are in
//! tests/test_share.py): attach cost, isolation both ways, lifetimes,
//! names, transactions, databases on disk, sharing onward, SQL ATTACH.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use swingdb::{Connection, Database, ErrorKind, OpenOptions};
use swingdb::{ShareOptions, SnapshotInfo};

mod common;
use common::single_i64;

/// One private runtime home for this test binary (its tests run as threads of
/// one process, and the variable is process-wide).
fn runtime_home() -> &'static PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| common::private_runtime_home("swingdb-share-test-"))
}

fn memory_db() -> Database {
    runtime_home();
    Database::in_memory().unwrap()
}

fn share(con: &Connection, name: &str) -> SnapshotInfo {
    con.share(name, ShareOptions::default()).unwrap()
}

fn attach(name: &str) -> Connection {
    Database::attach(name, OpenOptions::default()).unwrap().connect().unwrap()
}

/// Inodes of the segment files of a database directory.
fn segment_inodes(db: &Database) -> Vec<u64> {
    let mut inodes: Vec<u64> =
        std::fs::read_dir(db.path().join("segments")).unwrap().map(|e| e.unwrap().metadata().unwrap().ino()).collect();
    inodes.sort();
    inodes
}

#[test]
fn attach_links_the_same_files_and_isolates_both_ways() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(100000)", &[]).unwrap();
    let info = share(&con, "isolation");
    assert_eq!((info.rows, info.tables.clone()), (100000, vec!["t".to_string()]));
    assert!(info.bytes > 800000, "{info:?}");

    let attached = Database::attach("isolation", OpenOptions::default()).unwrap();
    assert!(attached.is_in_memory());
    assert_eq!(
        segment_inodes(&attached),
        segment_inodes(&db),
        "the attacher's segments are the publisher's files, not copies"
    );
    let other = attached.connect().unwrap();
    let second = attach("isolation");

    // The attacher's writes stay its own.
    other.execute("DELETE FROM t WHERE a < 50000", &[]).unwrap();
    other.execute("CREATE TABLE mine AS SELECT 1 AS x", &[]).unwrap();
    assert_eq!(single_i64(&other, "SELECT count(*) FROM t"), 50000);
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 100000);
    assert_eq!(single_i64(&second, "SELECT count(*) FROM t"), 100000);
    assert!(con.execute("SELECT * FROM mine", &[]).is_err());

    // The publisher's writes, compaction and collection stay its own.
    con.execute("UPDATE t SET a = -1", &[]).unwrap();
    con.execute("DROP TABLE t", &[]).unwrap();
    db.collect_garbage().unwrap();
    assert_eq!(single_i64(&second, "SELECT sum(a) FROM t"), (0..100000).sum::<i64>());
    assert_eq!(single_i64(&other, "SELECT min(a) FROM t"), 50000);
}

#[test]
fn a_snapshot_ends_with_its_publisher_unless_persisted_and_attachers_keep_their_copy() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(1000)", &[]).unwrap();
    share(&con, "ends");
    con.share("stays", ShareOptions { persist: true, ..Default::default() }).unwrap();
    let attached = attach("ends");
    let listed: Vec<String> = Database::snapshots().unwrap().into_iter().map(|s| s.name).collect();
    assert!(listed.contains(&"ends".to_string()) && listed.contains(&"stays".to_string()), "{listed:?}");
    let ends = Database::snapshots().unwrap().into_iter().find(|s| s.name == "ends").unwrap();
    assert_eq!(ends.attached, 1);
    assert!(!ends.persist && ends.pid == std::process::id());
    drop(con);
    drop(db);

    let err = Database::attach("ends", OpenOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Operational);
    assert!(err.message().contains("no snapshot named 'ends'"), "{}", err.message());
    assert_eq!(single_i64(&attached, "SELECT count(*) FROM t"), 1000, "an attached copy outlives its publisher");

    assert_eq!(single_i64(&attach("stays"), "SELECT count(*) FROM t"), 1000);
    let kept = attach("stays");
    Database::discard("stays").unwrap();
    assert_eq!(single_i64(&kept, "SELECT count(*) FROM t"), 1000, "an attached copy outlives a discard");
    let err = Database::attach("stays", OpenOptions::default()).unwrap_err();
    assert!(err.message().contains("no snapshot named 'stays'"), "{}", err.message());
    let err = Database::discard("stays").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Operational);
}

#[test]
fn names_are_checked_taken_names_refused_and_replace_is_atomic() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT 1 AS v", &[]).unwrap();
    for bad in ["", "../etc", "a/b", ".x", "nul\0"] {
        let err = con.share(bad, ShareOptions::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Programming, "{bad:?}");
        let err = Database::attach(bad, OpenOptions::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Programming, "{bad:?}");
    }
    share(&con, "taken");
    let err = con.share("taken", ShareOptions::default()).unwrap_err();
    assert!(err.message().contains("already exists") && err.message().contains("replace=True"), "{}", err.message());
    con.execute("UPDATE t SET v = 2", &[]).unwrap();
    let before = attach("taken");
    con.share("taken", ShareOptions { replace: true, ..Default::default() }).unwrap();
    assert_eq!(single_i64(&attach("taken"), "SELECT CAST(v AS BIGINT) FROM t"), 2);
    assert_eq!(single_i64(&before, "SELECT CAST(v AS BIGINT) FROM t"), 1);
    let dirs = std::fs::read_dir(runtime_home().join("snapshots")).unwrap().count();
    assert!(dirs >= 1);
}

#[test]
fn sharing_inside_a_transaction_shares_what_it_sees() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(10)", &[]).unwrap();
    con.execute("BEGIN", &[]).unwrap();
    con.execute("INSERT INTO t SELECT value FROM range(5)", &[]).unwrap();
    share(&con, "in-txn");
    con.execute("ROLLBACK", &[]).unwrap();
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 10);
    assert_eq!(single_i64(&attach("in-txn"), "SELECT count(*) FROM t"), 15);
}

#[test]
fn a_database_on_disk_shares_from_its_own_directory() {
    runtime_home();
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::open(tmp.path().join("disk.swingdb"), OpenOptions::default()).unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(5000)", &[]).unwrap();
    let info = share(&con, "disk");
    assert!(info.path.starts_with(std::fs::canonicalize(tmp.path()).unwrap()), "{info:?}");
    let attached = Database::attach("disk", OpenOptions::default()).unwrap();
    assert!(
        attached.path().starts_with(tmp.path().join("disk.swingdb").join("scratch"))
            || attached.path().starts_with(std::fs::canonicalize(tmp.path()).unwrap())
    );
    assert_eq!(segment_inodes(&attached), segment_inodes(&db));
    con.execute("DROP TABLE t", &[]).unwrap();
    db.collect_garbage().unwrap();
    let other = attached.connect().unwrap();
    assert_eq!(single_i64(&other, "SELECT count(*) FROM t"), 5000);
    other.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
    assert_eq!(single_i64(&other, "SELECT count(*) FROM t"), 5001);
    let scratch = attached.path().to_path_buf();
    drop(other);
    drop(attached);
    assert!(!scratch.exists(), "an attached database is removed when closed");

    let ro =
        Database::open(tmp.path().join("disk.swingdb"), OpenOptions { read_only: true, ..Default::default() }).unwrap();
    let err = ro.connect().unwrap().share("ro", ShareOptions::default()).unwrap_err();
    assert!(err.message().contains("read-only"), "{}", err.message());
}

#[test]
fn an_attached_database_shares_onward() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE a AS SELECT value AS k FROM range(100)", &[]).unwrap();
    share(&con, "stage-1");
    let c = attach("stage-1");
    c.execute("CREATE TABLE b AS SELECT k, k * 2 AS twice FROM a WHERE k % 2 = 0", &[]).unwrap();
    share(&c, "stage-2");
    let d = attach("stage-2");
    let e = attach("stage-2");
    d.execute("DELETE FROM b", &[]).unwrap();
    assert_eq!(single_i64(&d, "SELECT count(*) FROM b"), 0);
    assert_eq!(single_i64(&e, "SELECT sum(twice) FROM b"), (0..100).filter(|k| k % 2 == 0).map(|k| 2 * k).sum::<i64>());
    assert_eq!(single_i64(&e, "SELECT count(*) FROM a"), 100);
}

#[test]
fn sql_attach_snapshot_reads_beside_own_tables() {
    let db = memory_db();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS a FROM range(10)", &[]).unwrap();
    share(&con, "for-sql");
    let other_db = memory_db();
    let other = other_db.connect().unwrap();
    other.execute("CREATE TABLE t AS SELECT value AS a FROM range(3)", &[]).unwrap();
    other.execute("ATTACH SNAPSHOT 'for-sql' AS s", &[]).unwrap();
    assert_eq!(single_i64(&other, "SELECT count(*) FROM s.t"), 10);
    assert_eq!(single_i64(&other, "SELECT count(*) FROM t"), 3);
    assert_eq!(single_i64(&other_db.connect().unwrap(), "SELECT count(*) FROM s.t JOIN t USING (a)"), 3);
    let err = other.execute("INSERT INTO s.t VALUES (1)", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Programming);
    let err = other.execute("ATTACH SNAPSHOT 'for-sql' AS s", &[]).unwrap_err();
    assert!(err.message().contains("DETACH s"), "{}", err.message());
    let err = other.execute("ATTACH SNAPSHOT 'nope' AS n", &[]).unwrap_err();
    assert!(err.message().contains("no snapshot named 'nope'"), "{}", err.message());
    other.execute("DETACH s", &[]).unwrap();
    assert!(other.execute("SELECT * FROM s.t", &[]).is_err());
    let err = other.execute("DETACH s", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Programming);
    other.execute("DETACH IF EXISTS s", &[]).unwrap();
}
