//! `swingdb pipe ...`: moving tables between processes and programs.

use clap::Subcommand;
use std::path::PathBuf;
use std::sync::Arc;
use swingdb::arrow::array::{ArrayRef, StringArray, UInt64Array};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::arrow::util::pretty::pretty_format_batches;
use swingdb::{waiting_pipes, PipeUrl, TextFormat};
use swingdb::{Database, OpenOptions, PipeSource, Result};
use swingdb_pipe::fifo_in;

/// Pipes: tables sent between processes as Arrow streams.
#[derive(Subcommand, Debug)]
pub enum PipeCommand {
    /// Send a table or a query's rows of DATABASE into pipe NAME (waits for a receiver).
    Send {
        /// The database directory.
        database: String,
        /// A table name (its stored segments may be handed over as files) or a query.
        query: String,
        /// The pipe: NAME or db://NAME?workers=4&compression=lz4&verify=1&timeout=60.
        name: String,
    },
    /// Receive pipe NAME into TABLE of DATABASE (created if missing, else appended to).
    Recv {
        /// The database directory.
        database: String,
        /// The table to fill.
        table: String,
        /// The pipe: NAME or db://NAME?options.
        name: String,
    },
    /// List the ends of pipes that are waiting for a partner.
    Ls,
    /// Bridge a named pipe (FIFO) at PATH to pipe NAME, for programs that can
    /// only write (or with --out, read) a text file.
    Fifo {
        /// The pipe: NAME or db://NAME?options.
        name: String,
        /// Where to create the FIFO (must not exist).
        path: PathBuf,
        /// Text format of the FIFO.
        #[arg(long, default_value = "csv")]
        format: String,
        /// Write pipe NAME's rows into the FIFO as CSV instead of reading it.
        #[arg(long)]
        out: bool,
    },
}

fn url(text: &str) -> Result<PipeUrl> {
    if PipeUrl::is_pipe(text) {
        PipeUrl::parse(text)
    } else {
        PipeUrl::named(text)
    }
}

fn run(command: PipeCommand) -> Result<()> {
    match command {
        PipeCommand::Send { database, query, name } => {
            let con = Database::open(&database, OpenOptions::default())?.connect()?;
            let is_table = con.table_names()?.contains(&query);
            let source = if is_table { PipeSource::Table(&query) } else { PipeSource::Query(&query) };
            let rows = con.pipe_to(&url(&name)?, source)?;
            eprintln!("sent {rows} rows into pipe '{}'", url(&name)?.name);
        }
        PipeCommand::Recv { database, table, name } => {
            let con = Database::open(&database, OpenOptions::default())?.connect()?;
            let exists = con.table_names()?.contains(&table);
            let rows = con.pipe_from(&url(&name)?, &table, !exists)?;
            eprintln!("received {rows} rows into table '{table}'");
        }
        PipeCommand::Ls => {
            let waiting = waiting_pipes()?;
            let batch = RecordBatch::try_from_iter([
                (
                    "pipe",
                    Arc::new(StringArray::from(waiting.iter().map(|w| w.name.clone()).collect::<Vec<_>>())) as ArrayRef,
                ),
                (
                    "waiting",
                    Arc::new(StringArray::from(waiting.iter().map(|w| w.role.describe()).collect::<Vec<_>>()))
                        as ArrayRef,
                ),
                (
                    "pid",
                    Arc::new(UInt64Array::from(waiting.iter().map(|w| w.pid as u64).collect::<Vec<_>>())) as ArrayRef,
                ),
                (
                    "for",
                    Arc::new(StringArray::from(
                        waiting.iter().map(|w| format!("{:.1} s", w.waited)).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
            ])?;
            println!("{}", pretty_format_batches(&[batch])?);
            println!("{} waiting", waiting.len());
        }
        PipeCommand::Fifo { name, path, format, out } => {
            let url = url(&name)?;
            let rows = if out {
                let con = Database::in_memory()?.connect()?;
                con.fifo_out(&url, &path)?
            } else {
                fifo_in(&url, &path, TextFormat::parse(&format)?)?
            };
            eprintln!("{rows} rows through {}", path.display());
        }
    }
    Ok(())
}

/// Runs a `swingdb pipe` command.
pub fn main(command: PipeCommand) -> u8 {
    match run(command) {
        Ok(()) => crate::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            crate::FAILURE
        }
    }
}
