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

/// The newest published manifest of the database at `path`, as JSON: the
/// last valid record of its newest commit log (read here from the format
/// documented in `storage/dir/log.rs`, independently of the code that writes it).
pub fn newest_manifest(path: &Path) -> serde_json::Value {
    let log = std::fs::read_dir(path.join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log") && !p.to_string_lossy().contains("tmp-"))
        .max()
        .expect("a commit log");
    let bytes = std::fs::read(log).unwrap();
    assert_eq!(&bytes[..8], b"SWGLOG01");
    let (mut at, mut newest) = (16, None);
    while at + 24 <= bytes.len() {
        let field = |i: usize| u32::from_le_bytes(bytes[at + i..at + i + 4].try_into().unwrap()) as usize;
        let (len, dropped) = (field(0), field(4));
        let end = at + 24 + len;
        if len == 0 || end > bytes.len() {
            break;
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&bytes[at..at + 20]);
        crc.update(&bytes[at + 24..end]);
        if crc.finalize() as usize != field(20) {
            break;
        }
        newest = Some(&bytes[at + 24 + dropped..end]);
        at = end;
    }
    serde_json::from_slice(newest.expect("a record")).unwrap()
}
