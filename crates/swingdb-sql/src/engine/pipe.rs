//! Pipes in a session: `COPY ... TO 'db://NAME'` and [`Session::pipe_to`]
//! export, `'db://NAME'` used as a table and [`Session::pipe_from`] import,
//! and the handover of stored segments between two swingdb databases.

use super::{RowStream, Session};
use crate::core::runtime;
use datafusion::datasource::provider_as_source;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::logical_expr::LogicalPlanBuilder;
use std::path::Path;
use std::sync::Arc;
use swingdb_pipe::{PipeTable, PipeUrl, Receiver, Rendezvous};
use swingdb_storage::error::{Error, Result};

/// What [`Session::pipe_to`] sends.
#[derive(Debug, Clone, Copy)]
pub enum PipeSource<'a> {
    /// A stored table by name (taken as it is, as if quoted): its segments are
    /// offered for handover.
    Table(&'a str),
    /// The rows of a query.
    Query(&'a str),
}

impl Session {
    /// Sends `source`'s rows into the pipe `url`, waiting for an importer;
    /// returns the rows it took.
    pub fn pipe_to(&self, url: &PipeUrl, source: PipeSource<'_>) -> Result<u64> {
        self.exec.check_external_access("a pipe")?;
        let result = self.run_atomically(|| async {
            match source {
                PipeSource::Table(name) => self.exec.pipe_table(name, url).await,
                PipeSource::Query(sql) => self.exec.pipe_query(sql, url).await,
            }
        })?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Receives the rows of the pipe `url` into table `table` (a new one with
    /// `create`, else appended by column position), atomically; returns the rows.
    pub fn pipe_from(&self, url: &PipeUrl, table: &str, create: bool) -> Result<u64> {
        self.exec.check_external_access("a pipe")?;
        crate::frontend::names::check_table_name(table)?;
        if !create && !self.table_names()?.iter().any(|t| t == table) {
            // Reported before anyone waits for the exporter.
            return Err(Error::programming(format!("table '{table}' does not exist")));
        }
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        let result = self.run_atomically(|| self.create_or_append(table, provider, create))?;
        Ok(result.rows_affected().unwrap_or(0))
    }

    /// Writes the rows of pipe `url` as CSV into a FIFO it makes at `path`,
    /// for a program that can only read files (see `swingdb pipe fifo-out`).
    /// Returns the rows.
    pub fn fifo_out(&self, url: &PipeUrl, path: &Path) -> Result<u64> {
        swingdb_pipe::fifo::fifo_out(url, path, || {
            let mut rows = RowStream::new(self.pipe_reader(url)?, self.exec.interrupt.clone(), None);
            Ok(std::iter::from_fn(move || rows.next_batch().transpose()))
        })
    }

    /// The rows of the pipe `url` as they arrive (read once).
    pub fn pipe_reader(&self, url: &PipeUrl) -> Result<SendableRecordBatchStream> {
        self.exec.check_external_access("a pipe")?;
        let provider = Arc::new(PipeTable::new(Receiver::open(&Rendezvous::user()?, url)?)?);
        super::session::on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                let plan = LogicalPlanBuilder::scan("pipe", provider_as_source(provider), None)?.build()?;
                self.exec.stream_plan(plan).await
            })
        })
    }
}
