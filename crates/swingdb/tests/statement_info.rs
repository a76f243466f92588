//! `Connection::statement_info`: what a statement takes and returns, found
//! without running it (servers answer it when a client prepares a statement),
//! and `Connection::primary_key`, which servers list for browsing tools.

use std::time::{Duration, Instant};
use swingdb::arrow::datatypes::DataType;
use swingdb::{Database, ErrorKind};

mod common;
use common::single_i64;

#[test]
fn describing_a_statement_runs_nothing_of_it() {
    let con = Database::in_memory().unwrap().connect().unwrap();
    con.execute("CREATE TABLE t (id BIGINT, name VARCHAR)", &[]).unwrap();
    let insert = con.statement_info("INSERT INTO t VALUES (?, ?)").unwrap();
    let types: Vec<DataType> = insert.parameters.unwrap().fields().iter().map(|f| f.data_type().clone()).collect();
    assert_eq!(types, [DataType::Int64, DataType::Utf8], "the placeholders take the columns' types");
    assert!(insert.columns.is_none());
    let create = con.statement_info("CREATE TABLE u AS SELECT * FROM t").unwrap();
    assert!(create.columns.is_none());
    con.statement_info("DELETE FROM t").unwrap();
    assert_eq!(single_i64(&con, "SELECT count(*) FROM t"), 0);
    assert!(con.execute("SELECT * FROM u", &[]).is_err(), "describing CREATE TABLE created nothing");
    // Inside a transaction, what it wrote is described too.
    con.execute("BEGIN", &[]).unwrap();
    con.execute("CREATE TABLE v (x DOUBLE)", &[]).unwrap();
    let query = con.statement_info("SELECT x * 2 AS twice FROM v WHERE x > $1").unwrap();
    assert_eq!(query.columns.unwrap().field(0).name(), "twice");
    assert_eq!(query.parameters.unwrap().field(0).data_type(), &DataType::Float64);
    assert!(!query.ordered);
    assert!(con.in_transaction(), "describing leaves the transaction open");
    con.execute("ROLLBACK", &[]).unwrap();
}

#[test]
fn a_tables_primary_key_is_told_in_key_order() {
    let con = Database::in_memory().unwrap().connect().unwrap();
    con.execute("CREATE TABLE k (a INTEGER, b VARCHAR, c DOUBLE, PRIMARY KEY (b, a))", &[]).unwrap();
    con.execute("CREATE TABLE plain (a INTEGER)", &[]).unwrap();
    assert_eq!(con.primary_key("k").unwrap(), Some(vec!["b".to_string(), "a".to_string()]));
    assert_eq!(con.primary_key("plain").unwrap(), None);
    assert_eq!(con.primary_key("missing").unwrap_err().kind(), ErrorKind::Programming);
}

#[test]
fn a_statement_that_would_fail_fails_to_be_described_with_the_same_error() {
    let con = Database::in_memory().unwrap().connect().unwrap();
    let described = con.statement_info("SELECT * FROM missing_table").unwrap_err();
    let ran = con.execute("SELECT * FROM missing_table", &[]).unwrap_err();
    assert_eq!(described.kind(), ErrorKind::Programming);
    assert_eq!(described.message(), ran.message());
}

#[test]
fn statements_known_only_when_they_run_are_described_as_unknown() {
    let con = Database::in_memory().unwrap().connect().unwrap();
    con.execute("CREATE TABLE t (id BIGINT)", &[]).unwrap();
    for sql in ["BEGIN", "ALTER TABLE t ADD COLUMN y INTEGER", "SUMMARIZE t", "SELECT 1; SELECT 2"] {
        let info = con.statement_info(sql).unwrap();
        assert!(info.parameters.is_none() && info.columns.is_none(), "{sql}: {info:?}");
    }
    assert!(!con.in_transaction(), "describing BEGIN began nothing");
    let columns = con.execute("SELECT * FROM t", &[]).unwrap().schema();
    assert_eq!(columns.fields().len(), 1, "describing ALTER TABLE altered nothing");
}

#[test]
fn describing_a_read_of_a_pipe_does_not_wait_for_its_exporter() {
    // Planning a pipe read meets the exporter (here: waits up to 30 s for
    // one that never comes); describing must not.
    let con = Database::in_memory().unwrap().connect().unwrap();
    let started = Instant::now();
    let info = con.statement_info("SELECT * FROM 'db://nobody_exports_this?timeout=30'").unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(info.columns.is_none() && info.parameters.is_none());
    let sorted = con.statement_info("SELECT value FROM range(10) ORDER BY value DESC LIMIT 3").unwrap();
    assert!(sorted.ordered);
}
