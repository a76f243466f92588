//! Files read or registered by name from the public API (no SQL is built
//! from the path or the name), and the plan cache's counter.

use super::Session;
use crate::statements::Output;
use crate::{FileKind, ReadOptions};
use swingdb_storage::error::Result;

impl Session {
    /// The rows of the file at `path` (a local path or glob), read as `kind`
    /// with `options`, its schema inferred. The path is not SQL: a name of
    /// any shape is just a name.
    pub fn read_file(&self, path: &str, kind: FileKind, options: &ReadOptions) -> Result<Output> {
        self.exec.read_file(path, kind, options)
    }

    /// Makes the file(s) at `path` (read as `kind` with `options`, schema
    /// inferred now) queryable as `name` in this session, read afresh by
    /// each query, until [`Session::unregister`]; shadows a stored table
    /// of that name. Neither the name nor the path becomes SQL text.
    pub fn register_file(&self, name: &str, path: &str, kind: FileKind, options: &ReadOptions) -> Result<()> {
        self.exec.register_file(name, path, kind, options)
    }

    /// How many statements of this session were answered from a plan kept
    /// from an earlier run of the same query (see `sql::statements`).
    pub fn cached_plan_uses(&self) -> u64 {
        self.exec.cached_plan_uses()
    }

    /// How many statements of this session ran by key without planning
    /// (see `sql::statements::point_read` and `keyed_write`).
    pub fn keyed_statements(&self) -> u64 {
        self.exec.keyed_statements()
    }
}
