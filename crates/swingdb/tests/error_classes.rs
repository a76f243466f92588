//! Each error's DB-API class comes from DataFusion's error variant or our own
//! error's kind, never from its text. This table pins both ends: the variant
//! plain DataFusion raises for a statement, and the class swingdb gives it.
//! A DataFusion upgrade that raises another variant for one of them fails
//! here, before a user's `except DataError` stops catching it.

use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;
use swingdb::{Database, ErrorKind};

/// A statement, the variant (and for Arrow errors, the Arrow variant) at the
/// root of the error plain DataFusion raises for it (`None` where only
/// swingdb has the statement), and the kind swingdb gives it.
const CASES: &[(&str, Option<&str>, ErrorKind)] = &[
    ("SELEC 1", Some("SQL"), ErrorKind::Programming),
    ("SELECT * FROM no_such_table", Some("Plan"), ErrorKind::Programming),
    ("SELECT nope FROM (VALUES (1)) v(a)", Some("SchemaError"), ErrorKind::Programming),
    ("SELECT abs()", Some("Plan"), ErrorKind::Programming),
    ("SELECT CAST('abc' AS INTEGER)", Some("ArrowError::CastError"), ErrorKind::Data),
    ("SELECT CAST(a AS INTEGER) FROM (VALUES ('x')) v(a)", Some("ArrowError::CastError"), ErrorKind::Data),
    ("SELECT a / 0 FROM (VALUES (1)) v(a)", Some("ArrowError::DivideByZero"), ErrorKind::Data),
    ("SELECT regexp_like(a, '(') FROM (VALUES ('x')) v(a)", Some("External"), ErrorKind::Data),
    ("SELECT make_date(a, 13, 1) FROM (VALUES (2024)) v(a)", Some("Execution"), ErrorKind::Data),
    ("SELECT CAST(1 AS UUID)", Some("NotImplemented"), ErrorKind::NotSupported),
    ("SET datafusion.execution.no_such_setting = 1", Some("Configuration"), ErrorKind::Programming),
    // Ours: raised as swingdb errors with their kind.
    ("INSERT INTO t VALUES (NULL)", None, ErrorKind::Integrity),
    ("CREATE TABLE u (a INTEGER, INDEX ia (a))", Some("Plan"), ErrorKind::NotSupported),
    ("SELECT (SELECT a FROM t UNION ALL SELECT 2)", Some("Execution"), ErrorKind::Programming),
    ("SELECT nextval(a) FROM (VALUES ('s')) v(a)", None, ErrorKind::Programming),
];

/// The name of `err`'s root variant, with the Arrow variant inside an Arrow error.
fn variant(err: &DataFusionError) -> String {
    let shown = format!("{:?}", err.find_root());
    let name = |text: &str| text.chars().take_while(char::is_ascii_alphanumeric).collect::<String>();
    let outer = name(&shown);
    match outer.as_str() {
        "ArrowError" => format!("ArrowError::{}", name(&shown["ArrowError(".len()..])),
        _ => outer,
    }
}

fn datafusion_error(sql: &str) -> DataFusionError {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime
        .block_on(async {
            let ctx = SessionContext::new();
            ctx.sql("CREATE TABLE t (a INTEGER NOT NULL)").await?.collect().await?;
            ctx.sql("INSERT INTO t VALUES (1)").await?.collect().await?;
            ctx.sql(sql).await?.collect().await
        })
        .expect_err(sql)
}

#[test]
fn each_error_keeps_its_datafusion_variant_and_its_class() {
    let db = Database::in_memory().unwrap();
    let con = db.connect().unwrap();
    con.execute("CREATE TABLE t (a INTEGER NOT NULL)", &[]).unwrap();
    con.execute("INSERT INTO t VALUES (1)", &[]).unwrap();
    let mut wrong = Vec::new();
    for &(sql, expected_variant, expected_kind) in CASES {
        if let Some(expected) = expected_variant {
            let raised = variant(&datafusion_error(sql));
            if raised != expected {
                wrong.push(format!("{sql}: DataFusion raises {raised}, not {expected}"));
            }
        }
        let kind = match con.execute(sql, &[]).and_then(|mut r| r.collect_batches()) {
            Ok(_) => {
                wrong.push(format!("{sql}: swingdb raised no error"));
                continue;
            }
            Err(e) => (e.kind(), e.message().to_string()),
        };
        if kind.0 != expected_kind {
            wrong.push(format!("{sql}: swingdb's class is {:?} ({}), not {expected_kind:?}", kind.0, kind.1));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
