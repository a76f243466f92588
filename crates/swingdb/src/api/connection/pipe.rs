//! Pipes on a connection: `COPY ... TO 'db://NAME'` and [`Connection::pipe_to`]
//! export, `'db://NAME'` used as a table and [`Connection::pipe_from`] import,
//! and the handover of stored segments between two swingdb databases.
//!
//! A [`crate::PipeWriter`] feeds a pipe from outside a query, batch by batch:
//!
//! ```edition2024
//! use swingdb::arrow::array::{Int64Array, RecordBatch};
//! use swingdb::{Database, PipeUrl, PipeWriter};
//! use std::sync::Arc;
//! let url = PipeUrl::parse(&format!("db://doc-writer-{}", std::process::id()))?;
//! let importer = {
//!     let url = url.clone();
//!     std::thread::spawn(move || -> swingdb::Result<u64> {
//!         let con = Database::in_memory()?.connect()?;
//!         con.pipe_from(&url, "t", true)
//!     })
//! };
//! let batch = RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
//! let mut writer = PipeWriter::open(&url, batch.schema())?; // waits for the importer
//! writer.write(&batch)?;
//! assert_eq!(writer.close()?, 3);
//! assert_eq!(importer.join().unwrap()?, 3);
//! # Ok::<(), swingdb::Error>(())
//! ```

use super::Connection;
use crate::api::result::QueryResult;
use datafusion::datasource::provider_as_source;
use datafusion::logical_expr::LogicalPlanBuilder;
use std::path::Path;
use std::sync::Arc;
use swingdb_pipe::{PipeTable, PipeUrl, Receiver, Rendezvous};
use swingdb_sql::engine::runtime;
use swingdb_storage::error::{Error, Result};

/// What [`Connection::pipe_to`] sends.
///
/// ```edition2024
/// use swingdb::{Database, PipeSource, PipeUrl};
/// let url = PipeUrl::parse(&format!("db://doc-source-{}", std::process::id()))?;
/// let importer = {
///     let url = url.clone();
///     std::thread::spawn(move || Database::in_memory()?.connect()?.pipe_from(&url, "copy", true))
/// };
/// let con = Database::in_memory()?.connect()?;
/// con.execute("CREATE TABLE t AS SELECT value AS v FROM range(10)", &[])?;
/// assert_eq!(con.pipe_to(&url, PipeSource::Query("SELECT v FROM t WHERE v < 4"))?, 4);
/// assert_eq!(importer.join().unwrap()?, 4);
/// # Ok::<(), swingdb::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub enum PipeSource<'a> {
    /// A stored table by name (taken as it is, as if quoted): its segments are
    /// offered for handover.
    Table(&'a str),
    /// The rows of a query.
    Query(&'a str),
}

impl Connection {
    /// Sends `source`'s rows into the pipe `url`, waiting for an importer;
    /// returns the rows it took.
    pub fn pipe_to(&self, url: &PipeUrl, source: PipeSource<'_>) -> Result<u64> {
        self.exec.check_external_access("a pipe")?;
        let result = super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    match source {
                        PipeSource::Table(name) => self.exec.pipe_table(name, url).await,
                        PipeSource::Query(sql) => self.exec.pipe_query(sql, url).await,
                    }
                })
                .await
            })
        })?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Receives the rows of the pipe `url` into table `table` (a new one with
    /// `create`, else appended by column position), atomically; returns the rows.
    pub fn pipe_from(&self, url: &PipeUrl, table: &str, create: bool) -> Result<u64> {
        self.exec.check_external_access("a pipe")?;
        swingdb_sql::engine::check_table_name(table)?;
        if !create && !self.table_names()?.iter().any(|t| t == table) {
            // Reported before anyone waits for the exporter.
            return Err(Error::programming(format!("table '{table}' does not exist")));
        }
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        let result = super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    if create {
                        self.exec.create_table_from(table, provider).await
                    } else {
                        self.exec.append_from(table, provider).await
                    }
                })
                .await
            })
        })?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Writes the rows of pipe `url` as CSV into a FIFO it makes at `path`,
    /// for a program that can only read files (see `swingdb pipe fifo-out`).
    /// Returns the rows.
    pub fn fifo_out(&self, url: &PipeUrl, path: &Path) -> Result<u64> {
        swingdb_pipe::fifo::fifo_out(url, path, || {
            let mut result = self.pipe_reader(url)?;
            Ok(std::iter::from_fn(move || result.next_batch().transpose()))
        })
    }

    /// The rows of the pipe `url` as a streaming result (read once).
    pub fn pipe_reader(&self, url: &PipeUrl) -> Result<QueryResult> {
        self.exec.check_external_access("a pipe")?;
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        super::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                let plan = LogicalPlanBuilder::scan("pipe", provider_as_source(provider), None)?.build()?;
                Ok(QueryResult::streaming(self.exec.stream_plan(plan).await?))
            })
        })
    }
}
