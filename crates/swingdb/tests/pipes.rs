//! Pipes between databases of one process (threads); the many-process,
//! DuckDB, FIFO and PostgreSQL tests are in tests/test_pipes.py.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;
use swingdb::arrow::array::{Array, Int64Array};
use swingdb::{waiting_pipes, PipeUrl};
use swingdb::{Connection, Database, ErrorKind, PipeSource};

mod common;

/// One private runtime home for this test binary (see `common`).
fn runtime_home() -> &'static PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| common::private_runtime_home("swingdb-pipe-test-"))
}

fn memory_con() -> (Database, Connection) {
    runtime_home();
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    (db, con)
}

fn int(con: &Connection, sql: &str) -> i64 {
    let batches = con.execute(sql, &[]).unwrap().collect_batches().unwrap();
    let column = batches[0].column(0);
    match column.as_any().downcast_ref::<Int64Array>() {
        Some(a) => a.value(0),
        None => panic!("{sql}: not an Int64 column: {:?}", column.data_type()),
    }
}

fn inodes(db: &Database) -> BTreeSet<u64> {
    std::fs::read_dir(db.path().join("segments")).unwrap().map(|e| e.unwrap().metadata().unwrap().ino()).collect()
}

/// Runs `export` on its own thread and `import` here; returns both outcomes.
fn transfer<A: Send + 'static, B>(
    export: impl FnOnce() -> swingdb::Result<A> + Send + 'static,
    import: impl FnOnce() -> swingdb::Result<B>,
) -> (swingdb::Result<A>, swingdb::Result<B>) {
    let exporter = thread::spawn(export);
    let imported = import();
    (exporter.join().unwrap(), imported)
}

#[test]
fn a_stored_table_is_handed_over_as_its_own_files() {
    let (db_a, a) = memory_con();
    let (db_b, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x, value * 2 AS y FROM range(200000)", &[]).unwrap();
    let (sent, got) = transfer(
        move || a.execute("COPY t TO 'db://handover'", &[]).map(|r| (r, a)),
        || b.execute("CREATE TABLE copy AS SELECT * FROM 'db://handover'", &[]),
    );
    let (sent, a) = sent.unwrap();
    got.unwrap();
    assert_eq!(sent.rows_affected(), Some(200000));
    assert_eq!(int(&b, "SELECT sum(y) FROM copy"), int(&a, "SELECT sum(y) FROM t"));
    // Zero-copy: the importer's segments are the exporter's files (same inodes).
    assert!(!inodes(&db_a).is_empty());
    assert_eq!(inodes(&db_b), inodes(&db_a));
    // ... and stay the importer's own: the exporter's changes do not reach it.
    a.execute("DELETE FROM t WHERE x < 100000", &[]).unwrap();
    assert_eq!(int(&b, "SELECT count(*) FROM copy"), 200000);
}

#[test]
fn queries_stream_with_unequal_worker_counts_compression_and_verify() {
    for (export_opts, import_opts) in [
        ("workers=4", "workers=1"),
        ("workers=1", "workers=3"),
        ("workers=3&compression=lz4&verify=1", "workers=2"),
        ("compression=zstd", "verify=1&workers=4"),
    ] {
        let (_da, a) = memory_con();
        let (_db, b) = memory_con();
        a.execute("CREATE TABLE t AS SELECT value AS x, cast(value AS VARCHAR) AS s FROM range(100000)", &[]).unwrap();
        b.execute("CREATE TABLE dst (x BIGINT, s VARCHAR)", &[]).unwrap();
        let name = format!("stream-{}", export_opts.replace(['=', '&'], "-"));
        let sql = format!("COPY (SELECT x + 1 AS x, s FROM t WHERE x % 2 = 0) TO 'db://{name}?{export_opts}'");
        let insert = format!("INSERT INTO dst SELECT * FROM 'db://{name}?{import_opts}'");
        let (sent, got) = transfer(move || a.execute(&sql, &[]), || b.execute(&insert, &[]));
        assert_eq!(sent.unwrap().rows_affected(), Some(50000), "{export_opts} / {import_opts}");
        assert_eq!(got.unwrap().rows_affected(), Some(50000));
        assert_eq!(
            int(&b, "SELECT sum(x) FROM dst"),
            (0..100000i64).filter(|x| x % 2 == 0).map(|x| x + 1).sum::<i64>()
        );
        assert_eq!(int(&b, "SELECT count(*) FROM dst WHERE cast(x - 1 AS VARCHAR) = s"), 50000);
    }
}

#[test]
fn either_side_may_start_first_and_the_api_works_like_sql() {
    let (_da, a) = memory_con();
    let (_db, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x FROM range(1000)", &[]).unwrap();
    // Importer first, through the API.
    let importer = thread::spawn(move || {
        let rows = b.pipe_from(&PipeUrl::named("api").unwrap(), "got", true).unwrap();
        (rows, b)
    });
    thread::sleep(Duration::from_millis(200));
    assert_eq!(waiting_pipes().unwrap().iter().filter(|w| w.name == "api").count(), 1);
    assert_eq!(
        a.pipe_to(&PipeUrl::named("api").unwrap(), PipeSource::Query("SELECT x FROM t WHERE x < 10")).unwrap(),
        10
    );
    let (rows, b) = importer.join().unwrap();
    assert_eq!((rows, int(&b, "SELECT sum(x) FROM got")), (10, 45));
    // A streaming read without a database.
    let reader =
        thread::spawn(|| Database::pipe_reader(&PipeUrl::named("reader").unwrap()).unwrap().collect_batches().unwrap());
    assert_eq!(a.pipe_to(&PipeUrl::named("reader").unwrap(), PipeSource::Table("t")).unwrap(), 1000);
    let rows: usize = reader.join().unwrap().iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1000);
}

#[test]
fn a_timeout_names_the_pipe_and_bad_names_are_refused() {
    let (_d, con) = memory_con();
    let err = con.execute("SELECT * FROM 'db://nobody-home?timeout=0.2'", &[]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Operational);
    assert!(err.message().contains("pipe 'nobody-home': no exporter arrived within 0.2 s"), "{err}");
    let err = con.execute("COPY (SELECT 1) TO 'db://nobody-home?timeout=0.2'", &[]).unwrap_err();
    assert!(err.message().contains("no importer arrived"), "{err}");
    // A '/' separates the address of a pipe across hosts from its name.
    let err = con.execute("SELECT * FROM 'db://a/b'", &[]).unwrap_err();
    assert!(err.message().contains("'a' is not HOST:PORT"), "{err}");
    let err = con.execute("SELECT * FROM 'db://h:7/a/b'", &[]).unwrap_err();
    assert!(err.message().contains("pipe name \"a/b\" contains '/'"), "{err}");
}

#[test]
fn a_failing_exporter_leaves_the_importers_table_as_it_was() {
    let (_da, a) = memory_con();
    let (_db, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x FROM range(200000)", &[]).unwrap();
    b.execute("CREATE TABLE dst AS SELECT 7 AS x", &[]).unwrap();
    // The query fails half way (a division by zero at x = 150000).
    let (sent, got) = transfer(
        move || a.execute("COPY (SELECT 10 / (x - 150000) AS x FROM t) TO 'db://fails'", &[]),
        || b.execute("INSERT INTO dst SELECT * FROM 'db://fails'", &[]),
    );
    assert!(sent.is_err());
    let err = got.unwrap_err();
    assert!(err.message().contains("pipe 'fails'"), "{err}");
    assert_eq!(int(&b, "SELECT count(*) FROM dst"), 1);
    // A CREATE TABLE ... AS from a failed pipe creates nothing.
    let (_dc, c) = memory_con();
    let (_dd, d) = memory_con();
    c.execute("CREATE TABLE t AS SELECT value AS x FROM range(100)", &[]).unwrap();
    let (sent, got) = transfer(
        move || c.execute("COPY (SELECT 1 / (x - 50) AS x FROM t) TO 'db://fails2'", &[]),
        || d.execute("CREATE TABLE made AS SELECT * FROM 'db://fails2'", &[]),
    );
    assert!(sent.is_err() && got.is_err());
    assert!(!d.table_names().unwrap().contains(&"made".to_string()));
}

#[test]
fn a_schema_mismatch_and_a_partial_read_fail_on_both_sides() {
    let (_da, a) = memory_con();
    let (_db, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT 'text ' || cast(value AS VARCHAR) AS s FROM range(100000)", &[]).unwrap();
    b.execute("CREATE TABLE dst (n BIGINT)", &[]).unwrap();
    let (sent, got) = transfer(
        move || a.execute("COPY t TO 'db://mismatch'", &[]).map(|_| a),
        || b.execute("INSERT INTO dst SELECT * FROM 'db://mismatch'", &[]),
    );
    assert!(got.is_err());
    let err = sent.expect_err("the exporter fails too");
    assert!(err.message().contains("pipe 'mismatch'"), "{err}");
    assert_eq!(int(&b, "SELECT count(*) FROM dst"), 0);
    // An importer that needs only some rows ends the transfer; the exporter says so.
    let (_dc, c) = memory_con();
    c.execute("CREATE TABLE t AS SELECT value AS x FROM range(1000000)", &[]).unwrap();
    let (sent, got) = transfer(
        move || c.execute("COPY (SELECT x FROM t) TO 'db://partial'", &[]),
        || b.execute("SELECT * FROM 'db://partial' LIMIT 5", &[]).and_then(|mut r| r.collect_batches()),
    );
    got.unwrap();
    let err = sent.unwrap_err();
    assert!(err.message().contains("pipe 'partial'") && err.message().contains("stopped reading"), "{err}");
}

/// The importer's reading threads had read every row of the pipe while its
/// statement had yet to fail on them (a value that does not cast), and they
/// confirmed the transfer as done: the exporter's COPY succeeded with nothing
/// imported. The exporter must fail every time.
#[test]
fn an_importing_statement_failing_on_rows_already_received_fails_the_exporter() {
    for round in 0..20 {
        let (_da, a) = memory_con();
        let (_db, b) = memory_con();
        a.execute("CREATE TABLE t AS SELECT 'not a number' AS s", &[]).unwrap();
        b.execute("CREATE TABLE dst (n BIGINT)", &[]).unwrap();
        let pipe = format!("db://late{round}");
        let copy = format!("COPY t TO '{pipe}'");
        let insert = format!("INSERT INTO dst SELECT * FROM '{pipe}'");
        let (sent, got) = transfer(move || a.execute(&copy, &[]).map(|_| ()), || b.execute(&insert, &[]).map(|_| ()));
        assert!(got.is_err(), "round {round}: the import succeeded");
        let err = sent.err().unwrap_or_else(|| panic!("round {round}: the exporter reported success"));
        assert!(err.message().contains(&format!("pipe 'late{round}'")), "{err}");
        assert_eq!(int(&b, "SELECT count(*) FROM dst"), 0);
    }
}

/// Rows that arrived whole and checked, then refused when the statement
/// stored them (a duplicate primary key): the exporter heard "done" before
/// the statement failed. It must hear the failure, whether the rows came
/// as the exporter's own segment files or streamed.
#[test]
fn an_import_refused_by_a_key_after_the_rows_arrived_fails_the_exporter() {
    for (round, export) in ["COPY t TO '{pipe}'", "COPY (SELECT k FROM t WHERE k > 0) TO '{pipe}'"].iter().enumerate() {
        let (_da, a) = memory_con();
        let (_db, b) = memory_con();
        a.execute("CREATE TABLE t (k BIGINT NOT NULL)", &[]).unwrap();
        a.execute("INSERT INTO t VALUES (1), (2), (3)", &[]).unwrap();
        b.execute("CREATE TABLE dst (k BIGINT NOT NULL PRIMARY KEY)", &[]).unwrap();
        b.execute("INSERT INTO dst VALUES (2)", &[]).unwrap();
        let pipe = format!("db://key{round}");
        let copy = export.replace("{pipe}", &pipe);
        let insert = format!("INSERT INTO dst SELECT * FROM '{pipe}'");
        let (sent, got) = transfer(move || a.execute(&copy, &[]).map(|_| ()), || b.execute(&insert, &[]).map(|_| ()));
        let got = got.expect_err("a duplicate key was imported");
        assert_eq!(got.kind(), ErrorKind::Integrity, "{got}");
        let err = sent.err().unwrap_or_else(|| panic!("round {round}: the exporter reported success"));
        assert!(err.message().contains(&format!("pipe 'key{round}'")) && err.message().contains("failed"), "{err}");
        assert_eq!(int(&b, "SELECT count(*) FROM dst"), 1);
    }
}

#[test]
fn several_transfers_on_one_name_pair_up_without_mixing() {
    let (db_a, a) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x FROM range(1000)", &[]).unwrap();
    let exporters: Vec<_> = (1..=4)
        .map(|k| {
            let con = db_a.connect().unwrap();
            thread::spawn(move || {
                con.execute(&format!("COPY (SELECT x FROM t WHERE x < {k}00) TO 'db://shared'"), &[])
                    .unwrap()
                    .rows_affected()
            })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for _ in 0..4 {
        let (_d, b) = memory_con();
        b.execute("CREATE TABLE got AS SELECT * FROM 'db://shared'", &[]).unwrap();
        let (n, max) = (int(&b, "SELECT count(*) FROM got"), int(&b, "SELECT max(x) FROM got"));
        assert_eq!(max, n - 1, "each import is one whole export");
        seen.insert(n);
    }
    let sent: BTreeSet<i64> = exporters.into_iter().map(|e| e.join().unwrap().unwrap() as i64).collect();
    assert_eq!(seen, sent);
    assert_eq!(seen, [100, 200, 300, 400].into_iter().collect());
}

#[test]
fn data_registered_under_a_tables_name_is_sent_not_the_stored_segments() {
    let (_da, a) = memory_con();
    let (_db, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x FROM range(10)", &[]).unwrap();
    let shadow = a.execute("SELECT value * 100 AS x FROM range(3)", &[]).unwrap().collect_batches().unwrap();
    a.register("t", shadow[0].schema(), shadow).unwrap();
    let (sent, got) = transfer(
        move || a.execute("COPY t TO 'db://shadowed'", &[]),
        || b.execute("CREATE TABLE got AS SELECT * FROM 'db://shadowed'", &[]).map(|_| b),
    );
    sent.unwrap();
    let b = got.unwrap();
    assert_eq!((int(&b, "SELECT count(*) FROM got"), int(&b, "SELECT sum(x) FROM got")), (3, 300));
}

#[test]
fn a_view_is_sent_as_its_rows_never_handed_over() {
    let (_da, a) = memory_con();
    let (_db, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x FROM range(10)", &[]).unwrap();
    a.execute("CREATE VIEW v AS SELECT x FROM t WHERE x >= 5", &[]).unwrap();
    let (sent, got) = transfer(
        move || a.execute("COPY v TO 'db://viewed'", &[]),
        || b.execute("CREATE TABLE got AS SELECT * FROM 'db://viewed'", &[]).map(|_| b),
    );
    sent.unwrap();
    let b = got.unwrap();
    assert_eq!((int(&b, "SELECT count(*) FROM got"), int(&b, "SELECT sum(x) FROM got")), (5, 35));
}

#[test]
fn a_table_whose_columns_changed_is_sent_as_its_rows() {
    // Its older segments hold other columns than the table now has (y
    // dropped, z added), so handing the files over would misplace values.
    let (_da, a) = memory_con();
    let (db_b, b) = memory_con();
    a.execute("CREATE TABLE t AS SELECT value AS x, value * 2 AS y FROM range(1000)", &[]).unwrap();
    a.execute("ALTER TABLE t DROP COLUMN y", &[]).unwrap();
    a.execute("ALTER TABLE t ADD COLUMN z BIGINT DEFAULT 3", &[]).unwrap();
    let (sent, got) = transfer(
        move || a.execute("COPY t TO 'db://altered'", &[]),
        || b.execute("CREATE TABLE got AS SELECT * FROM 'db://altered'", &[]).map(|_| b),
    );
    sent.unwrap();
    let b = got.unwrap();
    assert_eq!((int(&b, "SELECT sum(x) FROM got"), int(&b, "SELECT sum(z) FROM got")), (499500, 3000));
    assert_eq!(inodes(&db_b).len(), 1, "the importer wrote its own segment");
}
