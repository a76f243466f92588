//! Files read or registered by name from the public API (no SQL is built
//! from the path or the name), and the plan cache's counter.

use super::Connection;
use crate::api::result::QueryResult;
use swingdb_sql::{FileKind, ReadOptions};
use swingdb_storage::error::Result;

impl Connection {
    /// The rows of the file at `path` (a local path or glob), read as `kind`
    /// with `options`, its schema inferred. The path is not SQL: a name of
    /// any shape is just a name.
    pub fn read_file(&self, path: &str, kind: FileKind, options: &ReadOptions) -> Result<QueryResult> {
        let rows = QueryResult::from(self.exec.read_file(path, kind, options)?);
        Ok(rows.interruptible_by(&self.exec.interrupt))
    }

    /// Makes the file(s) at `path` (read as `kind` with `options`, schema
    /// inferred now) queryable as `name` on this connection, read afresh by
    /// each query, until [`Connection::unregister`]; shadows a stored table
    /// of that name. Neither the name nor the path becomes SQL text.
    pub fn register_file(&self, name: &str, path: &str, kind: FileKind, options: &ReadOptions) -> Result<()> {
        self.exec.register_file(name, path, kind, options)
    }

    /// How many statements of this connection were answered from a plan kept
    /// from an earlier run of the same query (see `sql::statements`).
    pub fn cached_plan_uses(&self) -> u64 {
        self.exec.cached_plan_uses()
    }
}
