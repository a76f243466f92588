//! Helpers shared by the integration tests (each test crate uses some of
//! them, hence the allowance).
#![allow(dead_code)]

use std::path::Path;
use swingdb::arrow::array::{Array, Int64Array};
use swingdb::Connection;

/// The first value of the first column (a BIGINT) of what `sql` returns.
pub fn single_i64(con: &Connection, sql: &str) -> i64 {
    let batches = con.execute(sql, &[]).unwrap().collect_batches().unwrap();
    batches[0].column(0).as_any().downcast_ref::<Int64Array>().expect("an Int64 column").value(0)
}

/// The newest published manifest of the database at `path`, as JSON
/// (temporary manifest files are not published ones).
pub fn newest_manifest(path: &Path) -> serde_json::Value {
    let manifest = std::fs::read_dir(path.join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .max()
        .unwrap();
    serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap()
}
