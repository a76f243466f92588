//! `swingdb-stress`: the worker processes of the torture suite (`python -m
//! stress`). Built with the storage layer's failpoints, configured through the
//! `SWINGDB_FAILPOINTS` environment variable by the harness.
//!
//! ```text
//! swingdb-stress setup  DB WRITERS ACCOUNTS      tables for WRITERS writers, ACCOUNTS accounts of 1000
//! swingdb-stress writer DB LOG ID SEED OPS       OPS random transactions of writer ID, logged to LOG
//! swingdb-stress reader DB SECONDS WRITERS TOTAL checks snapshots until SECONDS have passed
//! swingdb-stress state  DB WRITERS               prints each writer's fingerprint and the checks (JSON)
//! swingdb-stress failpoints                      prints the names of the commit path's failpoints
//! swingdb-stress sharer  ID SEED SECONDS NAMES   shares, attaches, checks and discards snapshots
//!                                                named s0..s<NAMES-1> (in $SWINGDB_RUNTIME_DIR)
//! swingdb-stress sweep                           lists the snapshots (which sweeps), prints their names
//! swingdb-stress piper   ID SEED SECONDS NAMES   exports and imports through pipes p0..p<NAMES-1>
//! swingdb-stress pipesweep                       sweeps the rendezvous, prints who still waits
//! ```
//!
//! A piper's exports hold `v` = 0..n-1 (a stored table, handed over, or a
//! query, streamed with random workers, compression and checksums); every
//! import that succeeds must hold exactly such a set, and every import that
//! fails must leave its table as it was.
//!
//! A sharer's snapshots hold `t(v)` = 0..n-1 and `meta(n)`, changed together in
//! one transaction: an attach that sees anything else saw a torn snapshot. It
//! prints `FAIL ...` for every violation and `ops N` at the end.
//!
//! A writer logs, fsynced, `pending SEQ FP` before each COMMIT and
//! `committed SEQ FP` after it returns (or `aborted SEQ` / `failed SEQ ERROR`):
//! after a kill, the database must show exactly the last committed fingerprint
//! or the pending one after it, never anything else.

use std::fs::{File, OpenOptions as FileOptions};
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use swingdb::arrow::array::{Array, Int64Array};
use swingdb::arrow::compute::cast;
use swingdb::arrow::datatypes::DataType;
use swingdb::{Connection, Database, ErrorKind, OpenOptions};

type Res<T> = Result<T, String>;

/// A small deterministic generator (xorshift64*), enough to pick operations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn run(con: &Connection, sql: &str) -> Result<(), swingdb::Error> {
    con.execute(sql, &[])?.collect_batches().map(|_| ())
}

/// The first row's integer values of a query.
fn ints(con: &Connection, sql: &str) -> Res<Vec<i64>> {
    let batches = con.execute(sql, &[]).and_then(|mut r| r.collect_batches()).map_err(|e| format!("{sql}: {e}"))?;
    let batch = batches.iter().find(|b| b.num_rows() > 0).ok_or_else(|| format!("{sql}: no rows"))?;
    batch
        .columns()
        .iter()
        .map(|c| {
            let c = cast(c, &DataType::Int64).map_err(|e| e.to_string())?;
            let c = c.as_any().downcast_ref::<Int64Array>().expect("Int64");
            Ok(if c.is_null(0) { 0 } else { c.value(0) })
        })
        .collect()
}

/// What a writer's tables hold, as one comparable string.
fn fingerprint(con: &Connection, id: u32) -> Res<String> {
    let names = con.table_names().map_err(|e| e.to_string())?;
    let data = ints(con, &format!("SELECT count(*), sum(x) FROM w{id}_data"))?;
    let aux = if names.contains(&format!("w{id}_aux")) {
        let a = ints(con, &format!("SELECT count(*), sum(x) FROM w{id}_aux"))?;
        format!("{}:{}", a[0], a[1])
    } else {
        "-".into()
    };
    let events = ints(con, &format!("SELECT count(*), max(seq) FROM w{id}_events"))?;
    Ok(format!("d={}:{},a={aux},e={}:{}", data[0], data[1], events[0], events[1]))
}

struct Log(File);

impl Log {
    fn line(&mut self, text: &str) -> Res<()> {
        self.0
            .write_all(format!("{text}\n").as_bytes())
            .and_then(|_| self.0.sync_data())
            .map_err(|e| format!("log: {e}"))
    }
}

fn open(db: &str) -> Res<Database> {
    Database::open(db, OpenOptions::default()).map_err(|e| format!("open {db}: {e}"))
}

fn setup(db: &str, writers: u32, accounts: u32) -> Res<()> {
    let con = open(db)?.connect().map_err(|e| e.to_string())?;
    let mut sql =
        format!("CREATE TABLE acct AS SELECT value AS id, CAST(1000 AS BIGINT) AS bal FROM range({accounts});");
    for w in 0..writers {
        sql += &format!("CREATE TABLE w{w}_data (x BIGINT); CREATE TABLE w{w}_events (seq BIGINT NOT NULL);");
    }
    run(&con, &sql).map_err(|e| e.to_string())
}

/// One random transaction body of writer `id`.
fn body(con: &Connection, id: u32, rng: &mut Rng) -> Result<(), swingdb::Error> {
    let steps = if rng.below(4) == 0 { 2 + rng.below(3) } else { 1 };
    for _ in 0..steps {
        let r = rng.below(1000);
        let sql = match rng.below(9) {
            0 => format!("INSERT INTO w{id}_data SELECT value + {r} FROM range({})", 1 + rng.below(50_000)),
            1 | 2 => format!("INSERT INTO w{id}_data VALUES ({r})"),
            3 => format!("UPDATE w{id}_data SET x = x + 1 WHERE x % 7 = {}", r % 7),
            4 => format!("DELETE FROM w{id}_data WHERE x % 13 = {}", r % 13),
            5 => format!("CREATE OR REPLACE TABLE w{id}_aux AS SELECT x FROM w{id}_data WHERE x % 5 = {}", r % 5),
            6 => format!("DROP TABLE IF EXISTS w{id}_aux"),
            _ => {
                // A transfer between two shared accounts: writers conflict here.
                let (a, b) = (rng.below(8), rng.below(8));
                format!(
                    "UPDATE acct SET bal = bal - {r} WHERE id = {a}; UPDATE acct SET bal = bal + {r} WHERE id = {b}"
                )
            }
        };
        run(con, &sql)?;
    }
    Ok(())
}

fn writer(db: &str, log: &str, id: u32, seed: u64, ops: u64) -> Res<()> {
    let mut log = Log(FileOptions::new().create(true).append(true).open(log).map_err(|e| format!("{log}: {e}"))?);
    let database = open(db)?;
    let con = database.connect().map_err(|e| e.to_string())?;
    let mut rng = Rng(seed | 1);
    for _ in 0..ops {
        run(&con, "BEGIN").map_err(|e| e.to_string())?;
        let seq = ints(&con, &format!("SELECT coalesce(max(seq), -1) + 1 FROM w{id}_events"))?[0];
        let done =
            body(&con, id, &mut rng).and_then(|_| run(&con, &format!("INSERT INTO w{id}_events VALUES ({seq})")));
        if let Err(e) = done {
            run(&con, "ROLLBACK").map_err(|e| e.to_string())?;
            log.line(&format!("aborted {seq} {}", e.message().replace('\n', " ")))?;
            continue;
        }
        let fp = fingerprint(&con, id)?;
        log.line(&format!("pending {seq} {fp}"))?;
        match run(&con, "COMMIT") {
            Ok(()) => log.line(&format!("committed {seq} {fp}"))?,
            // A conflict is decided before anything is published.
            Err(e) if e.kind() == ErrorKind::Conflict => log.line(&format!("aborted {seq} conflict"))?,
            // Other failures (injected I/O errors) may come after the manifest is linked.
            Err(e) => log.line(&format!("failed {seq} {}", e.message().replace('\n', " ")))?,
        }
    }
    Ok(())
}

fn reader(db: &str, seconds: f64, writers: u32, total: i64) -> Res<()> {
    let database =
        Database::open(db, OpenOptions { read_only: true, ..Default::default() }).map_err(|e| e.to_string())?;
    let con = database.connect().map_err(|e| e.to_string())?;
    let events: Vec<String> = (0..writers).map(|w| format!("(SELECT count(*) FROM w{w}_events)")).collect();
    let events_sql = format!("SELECT {}", events.join(" + "));
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let (mut last_events, mut reads) = (0, 0u64);
    while Instant::now() < end {
        run(&con, "BEGIN").map_err(|e| e.to_string())?;
        let acct = ints(&con, "SELECT sum(bal), count(*) FROM acct")?;
        let seen = ints(&con, &events_sql)?[0];
        run(&con, "COMMIT").map_err(|e| e.to_string())?;
        if acct[0] != total {
            return Err(format!("a snapshot shows accounts summing to {} instead of {total}", acct[0]));
        }
        if seen < last_events {
            return Err(format!("snapshots went back in time: {seen} events after {last_events}"));
        }
        last_events = seen;
        reads += 1;
    }
    println!("reads {reads} events {last_events}");
    Ok(())
}

fn state(db: &str, writers: u32) -> Res<()> {
    let database = open(db)?;
    let report = database.verify().map_err(|e| format!("verify: {e}"))?;
    let con = database.connect().map_err(|e| e.to_string())?;
    let acct = ints(&con, "SELECT sum(bal) FROM acct")?[0];
    let fps =
        (0..writers).map(|w| fingerprint(&con, w).map(|fp| format!("\"{w}\": \"{fp}\""))).collect::<Res<Vec<_>>>()?;
    let seqs = (0..writers)
        .map(|w| {
            let batches = con
                .execute(&format!("SELECT seq FROM w{w}_events ORDER BY seq"), &[])
                .and_then(|mut r| r.collect_batches())
                .map_err(|e| e.to_string())?;
            let all: Vec<String> = batches
                .iter()
                .flat_map(|b| {
                    let c = b.column(0).as_any().downcast_ref::<Int64Array>().expect("Int64").clone();
                    (0..c.len()).map(move |i| c.value(i).to_string())
                })
                .collect();
            Ok(format!("\"{w}\": [{}]", all.join(",")))
        })
        .collect::<Res<Vec<_>>>()?;
    let gc = database.collect_garbage().map_err(|e| format!("collect_garbage: {e}"))?;
    println!(
        "{{\"verify_rows\": {}, \"acct\": {acct}, \"fingerprints\": {{{}}}, \"events\": {{{}}}, \"gc_segments\": {}}}",
        report.rows,
        fps.join(", "),
        seqs.join(", "),
        gc.segments
    );
    Ok(())
}

/// Errors sharing may give when other sharers race it: a name that is gone,
/// taken, or whose publisher ended.
fn expected_share_error(e: &swingdb::Error) -> bool {
    e.kind() == ErrorKind::Operational
        && ["no snapshot named", "discarded while", "ended with its publisher", "already exists", "is gone"]
            .iter()
            .any(|m| e.message().contains(m))
}

/// Checks that the database of `con` holds one whole state of a sharer.
fn check_snapshot(con: &Connection, what: &str) -> Res<()> {
    let n = ints(con, "SELECT n FROM meta")?[0];
    let got = ints(con, "SELECT count(*), coalesce(sum(v), 0) FROM t")?;
    if got != [n, n * (n - 1) / 2] {
        return Err(format!("FAIL {what}: meta says {n} rows, t has count/sum {got:?}: a torn snapshot"));
    }
    Ok(())
}

fn sharer(id: u64, seed: u64, seconds: f64, names: u64) -> Res<()> {
    use swingdb::ShareOptions;
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut db = Database::in_memory().map_err(|e| e.to_string())?;
    let mut con = db.connect().map_err(|e| e.to_string())?;
    run(&con, "CREATE TABLE t (v BIGINT NOT NULL)").map_err(|e| e.to_string())?;
    run(&con, "CREATE TABLE meta AS SELECT CAST(0 AS BIGINT) AS n").map_err(|e| e.to_string())?;
    let mut held: Vec<Connection> = Vec::new();
    let (mut ops, mut failures) = (0u64, 0u64);
    let mut fail = |msg: String| {
        failures += 1;
        println!("{msg}");
    };
    while Instant::now() < deadline {
        ops += 1;
        let name = format!("s{}", rng.below(names));
        match rng.below(10) {
            0..=2 => {
                let n = rng.below(50_000) as i64;
                let changed = run(&con, "BEGIN")
                    .and_then(|_| run(&con, "DELETE FROM t"))
                    .and_then(|_| run(&con, &format!("INSERT INTO t SELECT value FROM range({n})")))
                    .and_then(|_| run(&con, &format!("UPDATE meta SET n = {n}")))
                    .and_then(|_| run(&con, "COMMIT"));
                if let Err(e) = changed {
                    let _ = run(&con, "ROLLBACK");
                    if e.kind() != ErrorKind::Conflict {
                        fail(format!("FAIL sharer {id}: changing its own database: {e}"));
                    }
                    continue;
                }
                let options = ShareOptions { persist: rng.below(4) == 0, replace: rng.below(2) == 0 };
                match con.share(&name, options) {
                    Ok(info) if info.rows != n as u64 + 1 => {
                        fail(format!("FAIL share {name}: {} rows recorded, {} shared", info.rows, n + 1))
                    }
                    Ok(_) => {}
                    Err(e) if expected_share_error(&e) => {}
                    Err(e) => fail(format!("FAIL share {name}: {e}")),
                }
            }
            3..=6 => match Database::attach(&name, OpenOptions::default()) {
                Ok(attached) => {
                    let c = attached.connect().map_err(|e| e.to_string())?;
                    if let Err(e) = check_snapshot(&c, &format!("attach {name}")) {
                        fail(e);
                        continue;
                    }
                    // The copy is writable and stays whole.
                    let own = run(&c, "DELETE FROM t").and_then(|_| run(&c, "UPDATE meta SET n = 0"));
                    match own
                        .map_err(|e| e.to_string())
                        .and_then(|_| check_snapshot(&c, &format!("writing attached {name}")))
                    {
                        Ok(()) => {}
                        Err(e) => fail(format!("FAIL writing attached {name}: {e}")),
                    }
                    if rng.below(3) == 0 {
                        held.push(c);
                    }
                }
                Err(e) if expected_share_error(&e) => {}
                Err(e) => {
                    // What the directory held, to tell a half-built from a half-removed snapshot.
                    let dir = std::env::var("SWINGDB_RUNTIME_DIR").unwrap_or_default();
                    let target = std::fs::read_link(format!("{dir}/names/{name}")).ok();
                    let listing = target.as_ref().and_then(|t| std::fs::read_dir(t).ok()).map(|d| {
                        d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
                    });
                    fail(format!("FAIL attach {name}: {e} (now: {target:?} holds {listing:?})"))
                }
            },
            7 => match Database::discard(&name) {
                Ok(()) => {}
                Err(e) if expected_share_error(&e) => {}
                Err(e) => fail(format!("FAIL discard {name}: {e}")),
            },
            8 => match Database::snapshots() {
                Ok(_) => {}
                Err(e) => fail(format!("FAIL snapshots: {e}")),
            },
            _ => {
                // Held copies stay whole whatever happened to their snapshots since.
                for (i, c) in held.iter().enumerate() {
                    if let Err(e) = check_snapshot(c, &format!("held copy {i}")) {
                        fail(e);
                    }
                }
                if held.len() > 4 || rng.below(4) == 0 {
                    held.clear();
                }
                if rng.below(3) == 0 {
                    // Closing ends this sharer's snapshots that are not persisted.
                    drop(con);
                    db = Database::in_memory().map_err(|e| e.to_string())?;
                    con = db.connect().map_err(|e| e.to_string())?;
                    run(&con, "CREATE TABLE t (v BIGINT NOT NULL)").map_err(|e| e.to_string())?;
                    run(&con, "CREATE TABLE meta AS SELECT CAST(0 AS BIGINT) AS n").map_err(|e| e.to_string())?;
                }
            }
        }
    }
    println!("ops {ops}");
    if failures > 0 {
        return Err(format!("{failures} failures"));
    }
    Ok(())
}

/// Errors a pipe may give when its partner is slow, gone, killed or failed on
/// purpose (a failpoint): never a torn or partial import.
fn expected_pipe_error(e: &swingdb::Error) -> bool {
    e.kind() == ErrorKind::Operational
        && ["arrived within", "went away", "gave up", "broke off", "stopped reading", "failpoint", "was discarded"]
            .iter()
            .any(|m| e.message().contains(m))
}

/// Checks that `table` of `con` holds v = 0..n-1 (plus `base` rows of -1); returns n.
fn check_whole(con: &Connection, table: &str, base: i64, what: &str) -> Res<i64> {
    let got = ints(
        con,
        &format!(
            "SELECT count(*), coalesce(sum(v), 0), coalesce(max(v), -1), count(DISTINCT v) FROM {table} WHERE v >= 0"
        ),
    )?;
    let markers = ints(con, &format!("SELECT count(*) FROM {table} WHERE v < 0"))?[0];
    let n = got[0];
    if got != [n, n * (n - 1) / 2, n - 1, n] || markers != base {
        return Err(format!("FAIL {what}: {table} holds count/sum/max/distinct {got:?} and {markers} markers (expected {base}): a torn import"));
    }
    Ok(n)
}

fn piper(id: u64, seed: u64, seconds: f64, names: u64) -> Res<()> {
    let mut rng = Rng(seed | 1);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let db = Database::in_memory().map_err(|e| e.to_string())?;
    let con = db.connect().map_err(|e| e.to_string())?;
    let (mut ops, mut failures) = (0u64, 0u64);
    let mut fail = |msg: String| {
        failures += 1;
        println!("{msg}");
    };
    let mut tables = 0;
    let (mut imported, mut handed_over) = (0u64, 0u64);
    while Instant::now() < deadline {
        ops += 1;
        let name = format!("p{}", rng.below(names));
        let options = format!(
            "timeout={:.2}&workers={}{}{}",
            0.2 + rng.below(100) as f64 / 100.0,
            1 + rng.below(4),
            ["", "&compression=lz4", "&compression=zstd"][rng.below(3) as usize],
            if rng.below(3) == 0 { "&verify=1" } else { "" }
        );
        if rng.below(2) == 0 {
            let n = rng.below(200_000) as i64;
            let made = run(&con, "DROP TABLE IF EXISTS src")
                .and_then(|_| run(&con, &format!("CREATE TABLE src AS SELECT value AS v FROM range({n})")));
            if let Err(e) = made {
                fail(format!("FAIL piper {id}: making its table: {e}"));
                continue;
            }
            let sql = if rng.below(2) == 0 {
                format!("COPY src TO 'db://{name}?{options}'")
            } else {
                format!("COPY (SELECT v FROM src) TO 'db://{name}?{options}'")
            };
            match con.execute(&sql, &[]) {
                Ok(r) if r.rows_affected() != Some(n as u64) => {
                    fail(format!("FAIL {sql}: {:?} rows sent, {n} expected", r.rows_affected()))
                }
                Ok(_) => {}
                Err(e) if expected_pipe_error(&e) => {}
                Err(e) => fail(format!("FAIL {sql}: {e}")),
            }
        } else {
            tables += 1;
            let table = format!("got{tables}");
            let base = rng.below(3) as i64;
            let into_existing = rng.below(2) == 0;
            let sql = if into_existing {
                if let Err(e) = run(&con, &format!("CREATE TABLE {table} AS SELECT -1 - value AS v FROM range({base})"))
                {
                    fail(format!("FAIL piper {id}: making {table}: {e}"));
                    continue;
                }
                format!("INSERT INTO {table} SELECT * FROM 'db://{name}?{options}'")
            } else {
                format!("CREATE TABLE {table} AS SELECT * FROM 'db://{name}?{options}'")
            };
            let segments = db.path().join("segments");
            let files = |linked_only: bool| -> std::collections::BTreeSet<std::ffi::OsString> {
                std::fs::read_dir(&segments)
                    .map(|d| {
                        d.flatten()
                            .filter(|e| {
                                !linked_only
                                    || e.metadata().is_ok_and(|m| std::os::unix::fs::MetadataExt::nlink(&m) > 1)
                            })
                            .map(|e| e.file_name())
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let before = files(false);
            let outcome = con.execute(&sql, &[]);
            let exists = con.table_names().map_err(|e| e.to_string())?.contains(&table);
            match outcome {
                Ok(_) => {
                    imported += 1;
                    // Handed-over segments are links: new files with a second name.
                    handed_over += files(true).difference(&before).next().is_some() as u64;
                    if let Err(e) = check_whole(&con, &table, if into_existing { base } else { 0 }, &sql) {
                        fail(e);
                    }
                }
                Err(e) => {
                    if !expected_pipe_error(&e) {
                        fail(format!("FAIL {sql}: {e}"));
                    }
                    // A failed import keeps nothing.
                    if into_existing {
                        match ints(&con, &format!("SELECT count(*) FROM {table}")) {
                            Ok(c) if c[0] == base => {}
                            other => fail(format!("FAIL {sql} failed ({e}) but left {other:?} rows (expected {base})")),
                        }
                    } else if exists {
                        fail(format!("FAIL {sql} failed ({e}) but created {table}"));
                    }
                }
            }
            let _ = run(&con, &format!("DROP TABLE IF EXISTS {table}"));
        }
    }
    println!("ops {ops}");
    println!("count imports {imported}");
    println!("count handovers {handed_over}");
    if failures > 0 {
        return Err(format!("{failures} failures"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let num = |i: usize| arg(i).parse::<u64>().unwrap_or(0);
    let outcome = match arg(0).as_str() {
        "setup" => setup(&arg(1), num(2) as u32, num(3) as u32),
        "writer" => writer(&arg(1), &arg(2), num(3) as u32, num(4), num(5)),
        "reader" => reader(&arg(1), arg(2).parse().unwrap_or(1.0), num(3) as u32, arg(4).parse().unwrap_or(0)),
        "state" => state(&arg(1), num(2) as u32),
        "sharer" => sharer(num(1), num(2), arg(3).parse().unwrap_or(1.0), num(4).max(1)),
        "sweep" => Database::snapshots().map_err(|e| e.to_string()).map(|list| {
            for s in list {
                println!("{}", s.name);
            }
        }),
        "piper" => piper(num(1), num(2), arg(3).parse().unwrap_or(1.0), num(4).max(1)),
        "pipesweep" => swingdb::waiting_pipes().map_err(|e| e.to_string()).map(|list| {
            for w in list {
                println!("{} {} {}", w.name, w.role.as_str(), w.pid);
            }
        }),
        "failpoints" => {
            println!("{}", swingdb::testing::commit_path().collect::<Vec<_>>().join("\n"));
            Ok(())
        }
        _ => Err("usage: swingdb-stress setup|writer|reader|state|failpoints ... (see the source)".into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("swingdb-stress: {e}");
            ExitCode::FAILURE
        }
    }
}
