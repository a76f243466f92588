//! Races between writers, readers and garbage collection, made deterministic
//! with failpoints (these tests run only in builds with the `failpoints`
//! feature, which `make test` turns on). Each failed before its fix. Failpoints
//! are process-wide, so the tests take turns.

#![cfg(feature = "failpoints")]

use parking_lot::Mutex;
use std::thread;
use std::time::{Duration, Instant};
use swingdb::arrow::array::{Array, Int64Array};
use swingdb::testing as failpoint;
use swingdb::{Connection, Database, OpenOptions};

mod common;
use common::{newest_manifest, single_i64};

static SERIAL: Mutex<()> = Mutex::new(());

fn count(con: &Connection, table: &str) -> i64 {
    single_i64(con, &format!("SELECT count(*) FROM {table}"))
}

fn open(path: &std::path::Path) -> Database {
    Database::open(path, OpenOptions::default()).unwrap()
}

/// The review's lost commit: B's publication is delayed while A commits and
/// collects garbage many times over; B's commit must be the one after A's
/// newest, not a re-use of a collected version number.
#[test]
fn a_slow_publisher_never_reuses_a_collected_version() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let setup = open(&path).connect().unwrap();
    setup.execute("CREATE TABLE a (x BIGINT); CREATE TABLE b (x BIGINT)", &[]).unwrap();
    failpoint::set("publish.before_link", "1*delay(500)");
    let slow_path = path.clone();
    let slow = thread::spawn(move || {
        let con = open(&slow_path).connect().unwrap();
        con.execute("INSERT INTO b VALUES (42)", &[]).unwrap();
        count(&con, "b")
    });
    thread::sleep(Duration::from_millis(100));
    let fast = open(&path).connect().unwrap();
    let end = Instant::now() + Duration::from_millis(1500);
    let mut inserted = 0;
    while Instant::now() < end {
        fast.execute("INSERT INTO a VALUES (1)", &[]).unwrap();
        inserted += 1;
    }
    assert_eq!(slow.join().unwrap(), 1, "the slow writer sees its own commit");
    failpoint::set("publish.before_link", "off");
    let check = open(&path).connect().unwrap();
    assert_eq!(count(&check, "b"), 1, "the slow writer's commit is visible to everyone");
    assert_eq!(count(&check, "a"), inserted);
}

/// The review's collected lease: a handle's new lease is deleted by another
/// handle's collection before it is locked; the handle must notice and take a
/// new one, so that its segments are never collected as orphans.
#[test]
fn a_lease_being_created_is_never_collected_from_under_its_writer() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let collector = open(&path);
    collector.connect().unwrap().execute("CREATE TABLE t (x BIGINT)", &[]).unwrap();
    failpoint::set("lease.after_create", "1*delay(400)");
    let writer_path = path.clone();
    let writer = thread::spawn(move || {
        let db = open(&writer_path);
        let con = db.connect().unwrap();
        con.execute("BEGIN", &[]).unwrap();
        con.execute("INSERT INTO t SELECT value FROM range(1000)", &[]).unwrap();
        // The transaction's segment is written but not committed: only the
        // lease protects it now.
        thread::sleep(Duration::from_millis(300));
        con.execute("COMMIT", &[]).unwrap();
        (db, con)
    });
    let end = Instant::now() + Duration::from_millis(900);
    while Instant::now() < end {
        collector.collect_garbage().unwrap();
        thread::sleep(Duration::from_millis(5));
    }
    let (db, con) = writer.join().unwrap();
    failpoint::set("lease.after_create", "off");
    collector.collect_garbage().unwrap();
    assert_eq!(count(&con, "t"), 1000);
    assert_eq!(db.verify().unwrap().rows, 1000);
    assert_eq!(count(&collector.connect().unwrap(), "t"), 1000);
}

/// A reader's snapshot survives every collection that other handles run while
/// it reads, and a reader stuck between reading the newest version number and
/// pinning it (holding the shared lock) only makes collections skip.
#[test]
fn pinned_versions_survive_collections() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let writer_db = open(&path);
    let writer = writer_db.connect().unwrap();
    writer.execute("CREATE TABLE t AS SELECT value AS x FROM range(100000)", &[]).unwrap();
    let files = |json: serde_json::Value| -> Vec<String> {
        let segments = json["tables"]["t"]["segments"].as_array().unwrap().clone();
        segments.iter().map(|s| s["file"].as_str().unwrap().to_string()).collect()
    };
    let mut kept = files(newest_manifest(&path));
    let reader = open(&path).connect().unwrap();
    reader.execute("BEGIN", &[]).unwrap();
    // Each DELETE takes 30 % of the rows: too many to mark, so the segment is
    // rewritten and the old file becomes garbage.
    let delete = "DELETE FROM t WHERE x < (SELECT min(x) FROM t) + (SELECT count(*) FROM t) * 3 / 10";
    for _ in 0..5 {
        writer.execute(delete, &[]).unwrap();
    }
    writer_db.collect_garbage().unwrap();
    kept.extend(files(newest_manifest(&path)));
    kept.sort();
    kept.dedup();
    let mut present: Vec<String> = std::fs::read_dir(path.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    present.sort();
    assert_eq!(present, kept, "only the pinned and the newest version's files stay");
    assert_eq!(count(&reader, "t"), 100000, "the reader reads the version it pinned, whole");
    reader.execute("COMMIT", &[]).unwrap();
    assert_eq!(count(&reader, "t"), 16807);

    failpoint::set("pin.after_read_latest", "1*delay(400)");
    let stuck_path = path.clone();
    let stuck = thread::spawn(move || count(&open(&stuck_path).connect().unwrap(), "t"));
    thread::sleep(Duration::from_millis(100));
    writer.execute(delete, &[]).unwrap();
    assert!(!stuck.is_finished(), "the commit did not wait for the pin to end: its collection was skipped");
    assert_eq!(stuck.join().unwrap(), 16807);
    failpoint::set("pin.after_read_latest", "off");
}

/// An injected error at each point of a commit fails that statement and
/// changes nothing; the next statement commits.
#[test]
fn an_error_at_any_commit_point_changes_nothing() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (x BIGINT)", &[]).unwrap();
    let mut expected = 0;
    // Rows written to a segment file, and one row kept in the manifest.
    let statements = [("INSERT INTO t SELECT 1 FROM range(1000)", 1000), ("INSERT INTO t VALUES (1)", 1)];
    let points = [
        "lease.after_create",
        "segment.after_write",
        "commit.after_lock",
        "publish.before_link",
        "log.mid_append",
        "pin.after_read_latest",
    ];
    for ((sql, rows), point) in statements.iter().flat_map(|s| points.iter().map(move |p| (s, p))) {
        if *rows == 1 && *point == "segment.after_write" {
            continue; // no segment file
        }
        // A fresh handle so that the lease is taken (and its failpoint passed) anew.
        let db = open(&tmp.path().join("db"));
        let con = db.connect().unwrap();
        failpoint::set(point, "1*error");
        let err = con.execute(sql, &[]).unwrap_err();
        assert!(err.message().contains(point), "{point}: {}", err.message());
        failpoint::set(point, "off");
        assert_eq!(count(&con, "t"), expected, "{point}");
        con.execute(sql, &[]).unwrap();
        expected += rows;
        assert_eq!(count(&con, "t"), expected, "{point}");
    }
    // Errors in collection and compaction never fail the commit they follow.
    // (Segment files, so that compaction merges files and garbage is collected.)
    for point in ["gc.after_lock", "gc.before_unlink", "compact.before_write"] {
        failpoint::set(point, "error");
        for _ in 0..10 {
            con.execute("INSERT INTO t SELECT 1 FROM range(1000)", &[]).unwrap();
            expected += 1000;
        }
        failpoint::set(point, "off");
    }
    assert_eq!(count(&con, "t"), expected);
    assert_eq!(db.verify().unwrap().rows as i64, expected);
}

/// A load that spools (rows beyond its share of the memory limit go to a
/// scratch file, then out as a segment) failing once both files exist: the
/// statement fails, the table is as before, and neither file is left behind.
#[test]
fn a_load_failing_mid_spool_leaves_no_rows_and_no_file() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a BIGINT, b BIGINT)", &[]).unwrap();
    let files = || {
        let mut names: Vec<String> = std::fs::read_dir(tmp.path().join("db").join("segments"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = files();
    // 48 MB of rows; 64 MB of memory gather 8 and spool 32 at a time.
    let load = "INSERT INTO t SELECT value, value * 2 FROM range(3000000)";
    swingdb::set_memory_limit("64MB").unwrap();
    failpoint::set("spool.after_write_out", "1*error");
    let failed = con.execute(load, &[]);
    failpoint::set("spool.after_write_out", "off");
    let loaded = con.execute(load, &[]);
    swingdb::set_memory_limit("none").unwrap();
    let err = failed.unwrap_err();
    assert!(err.message().contains("spool.after_write_out"), "{}", err.message());
    loaded.unwrap();
    assert_eq!(count(&con, "t"), 3_000_000, "only the second load's rows");
    assert_eq!(db.verify().unwrap().rows, 3_000_000);
    // The failed load's scratch file and segment are gone; the second load's segments are listed.
    let added: Vec<String> = files().into_iter().filter(|f| !before.contains(f)).collect();
    let listed = newest_manifest(&tmp.path().join("db")).to_string();
    assert!(!added.is_empty() && added.iter().all(|f| listed.contains(f.as_str())), "{added:?}");
}

/// An attach holding a snapshot's use lock while another thread discards the
/// snapshot: the discard waits until every segment is linked, so the attach
/// gets the whole snapshot. (The bug the torture scenario `share` found, a
/// removal letting go of the lock before deleting, needs an attach to start
/// while the deletion runs; only the many-process loop hits that window.)
#[test]
fn a_discard_waits_for_an_attach_in_progress() {
    let _serial = SERIAL.lock();
    let runtime = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    // SAFETY: the tests of this binary take turns (SERIAL), and no other
    // thread reads the environment while this one sets it.
    unsafe { std::env::set_var("SWINGDB_RUNTIME_DIR", runtime.path()) };
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t AS SELECT value AS v FROM range(1000)", &[]).unwrap();
    con.execute("CREATE TABLE u AS SELECT value AS v FROM range(10)", &[]).unwrap();
    con.share("racy", swingdb::ShareOptions { persist: true, ..Default::default() }).unwrap();
    failpoint::set("attach.after_lock", "1*delay(400)");
    let attacher =
        thread::spawn(|| Database::attach("racy", OpenOptions::default()).map(|db| count(&db.connect().unwrap(), "t")));
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    Database::discard("racy").unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200), "the discard waited for the attach holding the lock");
    failpoint::set("attach.after_lock", "off");
    assert_eq!(attacher.join().unwrap().unwrap(), 1000);
    let err = Database::attach("racy", OpenOptions::default()).unwrap_err();
    assert!(err.message().contains("no snapshot named 'racy'"), "{}", err.message());
    let left: Vec<_> = std::fs::read_dir(runtime.path().join("snapshots")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    drop(con);
    drop(db);
    unsafe { std::env::remove_var("SWINGDB_RUNTIME_DIR") };
}

/// `verify=1` catches what the decoder cannot: a flipped byte in the middle of
/// a column's values. Without verify the same damage arrives as a wrong number.
#[test]
fn verify_catches_a_byte_damaged_on_the_way() {
    let _serial = SERIAL.lock();
    let exporter = Database::in_memory().unwrap().connect().unwrap();
    exporter.execute("CREATE TABLE t AS SELECT value AS x FROM range(1000000)", &[]).unwrap();
    let importer = Database::in_memory().unwrap().connect().unwrap();
    let sum = |con: &Connection| {
        let b = con.execute("SELECT sum(x) FROM got", &[]).unwrap().collect_batches().unwrap();
        b[0].column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0)
    };
    for verify in [false, true] {
        let name = format!("damaged-{verify}-{}", std::process::id());
        failpoint::set("pipe.corrupt_stream", "1*error");
        let (sql, url) =
            (format!("COPY (SELECT x FROM t) TO 'db://{name}?verify={}'", verify as u8), format!("db://{name}"));
        let sent = thread::scope(|s| {
            let sender = s.spawn(|| exporter.execute(&sql, &[]).map(|_| ()));
            let got = importer.execute(&format!("CREATE TABLE got AS SELECT * FROM '{url}'"), &[]).map(|_| ());
            (sender.join().unwrap(), got)
        });
        failpoint::set("pipe.corrupt_stream", "off");
        if verify {
            let err = sent.1.unwrap_err();
            assert!(err.message().contains("checksums of what was sent and what arrived differ"), "{err}");
            assert!(sent.0.is_err());
            assert!(!importer.table_names().unwrap().contains(&"got".to_string()));
        } else {
            sent.0.unwrap();
            sent.1.unwrap();
            assert_ne!(sum(&importer), 499999500000, "the damage went through unnoticed, as it does without verify");
            importer.execute("DROP TABLE got", &[]).unwrap();
        }
    }
}

fn next_values(con: &Connection, rows: usize) -> swingdb::Result<Vec<i64>> {
    let batches = con.execute(&format!("SELECT nextval('s') FROM range({rows})"), &[])?.collect_batches()?;
    Ok(batches
        .iter()
        .flat_map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec())
        .collect())
}

/// A sequence's taker that fails before writing the counter hands out
/// nothing (the next taker gets the same values); one holding the counter's
/// lock makes a taker of another handle wait rather than read the old value.
#[test]
fn sequence_values_are_taken_whole_and_one_taker_at_a_time() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let con = open(&path).connect().unwrap();
    con.execute("CREATE SEQUENCE s", &[]).unwrap();
    assert_eq!(next_values(&con, 2).unwrap(), vec![1, 2]);
    failpoint::set("sequence.before_write", "1*error");
    let err = next_values(&con, 3).unwrap_err();
    assert!(err.message().contains("sequence.before_write"), "{}", err.message());
    assert_eq!(next_values(&con, 3).unwrap(), vec![3, 4, 5], "values of a failed take are given again");

    failpoint::set("sequence.before_write", "1*delay(400)");
    let slow_path = path.clone();
    let slow = thread::spawn(move || next_values(&open(&slow_path).connect().unwrap(), 2).unwrap());
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let fast = next_values(&open(&path).connect().unwrap(), 2).unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200), "the second taker waited for the first's lock");
    assert_eq!(slow.join().unwrap(), vec![6, 7]);
    assert_eq!(fast, vec![8, 9]);
    failpoint::set("sequence.before_write", "off");
}

fn sum(con: &Connection, table: &str) -> i64 {
    single_i64(con, &format!("SELECT sum(v) FROM {table}"))
}

/// An autocommit statement that loses a conflict at its commit (another
/// connection committed to its table while it wrote) changed nothing, so it
/// runs again and lands on top of the other commit; with the conflict
/// timeout at zero the ConflictError is the statement's, and its change is
/// not there.
#[test]
fn an_autocommit_statement_that_loses_a_conflict_runs_again() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    // Rows enough that an UPDATE writes a segment file (not an inline segment).
    db.connect().unwrap().execute("CREATE TABLE c AS SELECT value AS v FROM range(100000)", &[]).unwrap();
    let rows = 100_000i64;
    let mut expected = sum(&db.connect().unwrap(), "c");
    for (timeout, runs_again) in [(Duration::from_secs(5), true), (Duration::ZERO, false)] {
        let slow = db.connect().unwrap();
        slow.set_conflict_timeout(timeout);
        // The slow statement's first segment waits until the other has committed.
        failpoint::set("segment.after_write", "1*delay(2000)");
        let slow = thread::spawn(move || {
            let outcome = slow.execute("UPDATE c SET v = v + 1", &[]).map(|r| r.rows_affected());
            (outcome, slow.conflict_retries())
        });
        thread::sleep(Duration::from_millis(800));
        let fast = db.connect().unwrap();
        fast.set_conflict_timeout(Duration::ZERO);
        fast.execute("UPDATE c SET v = v + 100", &[]).unwrap();
        expected += 100 * rows;
        let (outcome, retries) = slow.join().unwrap();
        failpoint::set("segment.after_write", "off");
        assert_eq!(retries, u64::from(runs_again), "the statement's runs after the first are counted");
        if runs_again {
            assert_eq!(outcome.unwrap(), Some(rows as u64));
            expected += rows;
        } else {
            assert_eq!(outcome.unwrap_err().kind(), swingdb::ErrorKind::Conflict);
        }
        assert_eq!(sum(&db.connect().unwrap(), "c"), expected, "run again: {runs_again}");
    }
}

/// A commit that compacted its table while another handle committed to it
/// combines its rows with the other's under the commit lock (see
/// `storage::rebase`) and compacts again there; the files of the compaction
/// it made before the lock are deleted, not left behind under its live lease.
#[test]
fn a_commit_whose_compaction_raced_another_commit_combines_and_leaves_no_file() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let db = open(&path);
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)", &[]).unwrap();
    // Eight segment files: the ninth makes the table due for compaction.
    for k in 0..8 {
        con.execute(&format!("INSERT INTO t SELECT value + {} FROM range(1000)", k * 1000), &[]).unwrap();
    }
    con.set_conflict_timeout(Duration::ZERO);
    failpoint::set("compact.before_write", "1*delay(1500)");
    let slow =
        thread::spawn(move || con.execute("INSERT INTO t SELECT value + 8000 FROM range(1000)", &[]).map(|_| ()));
    thread::sleep(Duration::from_millis(500));
    let other = open(&path);
    other.connect().unwrap().execute("INSERT INTO t VALUES (-1)", &[]).unwrap();
    let outcome = slow.join().unwrap();
    failpoint::set("compact.before_write", "off");
    outcome.unwrap();
    let con = db.connect().unwrap();
    assert_eq!(count(&con, "t"), 9001);
    drop(other);
    db.collect_garbage().unwrap();
    let json = newest_manifest(&path);
    let segments = json["tables"]["t"]["segments"].as_array().unwrap();
    let named: std::collections::BTreeSet<String> = segments
        .iter()
        .filter(|s| s.get("inline").is_none())
        .map(|s| s["file"].as_str().unwrap().to_string())
        .collect();
    let on_disk: std::collections::BTreeSet<String> = std::fs::read_dir(path.join("segments"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".arrow"))
        .collect();
    assert_eq!(on_disk, named);
    assert!(segments.len() <= 3, "{} segments: not compacted", segments.len());
}

/// A panic inside a statement (a bug) fails that statement only: the locks it
/// held are released on the way out, the in-process ones with nothing to
/// poison (parking_lot's) and the commit lock's file lock with its file, so
/// the same connection and another one go on committing.
#[test]
fn a_statement_that_panics_leaves_the_next_ones_working() {
    let _serial = SERIAL.lock();
    let tmp = tempfile::tempdir().unwrap();
    let db = open(&tmp.path().join("db"));
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (v BIGINT)", &[]).unwrap();
    failpoint::set("commit.after_lock", "1*panic");
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        con.execute("INSERT INTO t VALUES (1)", &[]).map(|_| ())
    }));
    failpoint::set("commit.after_lock", "off");
    assert!(matches!(outcome, Err(_) | Ok(Err(_))), "the statement did not fail: {outcome:?}");
    con.execute("INSERT INTO t VALUES (2)", &[]).unwrap();
    assert_eq!(sum(&con, "t"), 2);
    let other = db.connect().unwrap();
    other.execute("INSERT INTO t VALUES (3)", &[]).unwrap();
    assert_eq!(sum(&other, "t"), 5);
}
