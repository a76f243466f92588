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
/// last valid record of its newest commit log, a whole manifest or a change
/// applied to the ones before it (read here from the formats documented in
/// `storage/dir/log.rs` and `storage/manifest/delta.rs`, independently of
/// the code that writes them).
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
        let stored = &bytes[at + 24 + dropped..end];
        newest = Some(match stored.strip_prefix(b"D") {
            Some(change) => {
                apply_change(newest.expect("a whole manifest first"), serde_json::from_slice(change).unwrap())
            }
            None => serde_json::from_slice(stored).unwrap(),
        });
        at = end;
    }
    newest.expect("a record")
}

/// The manifest a change record makes of `manifest`, the version before it.
fn apply_change(mut manifest: serde_json::Value, change: serde_json::Value) -> serde_json::Value {
    let tables = manifest["tables"].as_object_mut().unwrap();
    for name in change["removed"].as_array().into_iter().flatten() {
        tables.remove(name.as_str().unwrap());
    }
    for (name, table) in change["tables"].as_object().into_iter().flatten() {
        if let Some(whole) = table.get("whole") {
            tables.insert(name.clone(), whole.clone());
            continue;
        }
        let old = tables[name]["segments"].as_array().unwrap().clone();
        let mut segments = Vec::new();
        for piece in table["segments"]["pieces"].as_array().unwrap() {
            match piece.as_array() {
                Some(range) => {
                    let (a, b) = (range[0].as_u64().unwrap() as usize, range[1].as_u64().unwrap() as usize);
                    segments.extend_from_slice(&old[a..b]);
                }
                None => segments.push(piece.clone()),
            }
        }
        tables[name]["segments"] = segments.into();
        tables[name]["modified"] = table["segments"]["modified"].clone();
    }
    serde_json::json!({"format_version": change["format_version"], "version": change["version"], "tables": manifest["tables"]})
}

/// A private runtime home `$TMPDIR/<prefix><pid>` for this test binary, set
/// as `SWINGDB_RUNTIME_DIR` (its tests run as threads of one process, and the
/// variable is process-wide). Call it under a `OnceLock`, before any thread
/// reads the variable. A test binary cannot clean up after its last test:
/// the homes of earlier runs, whose processes are gone, are removed here.
pub fn private_runtime_home(prefix: &str) -> std::path::PathBuf {
    for entry in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(prefix)).and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = std::env::temp_dir().join(format!("{prefix}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: the caller sets it once, before any thread of this binary reads it.
    unsafe { std::env::set_var("SWINGDB_RUNTIME_DIR", &dir) };
    dir
}
