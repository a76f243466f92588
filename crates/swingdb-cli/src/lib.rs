//! `swingdb`: the interactive shell, one-shot SQL runner, snapshot and pipe
//! commands, and the Flight SQL server, as a library: the `swingdb` program of
//! this crate and the `swingdb` command that the Python package installs both
//! call [`run`].

mod cancel;
mod complete;
mod pipe;
mod render;
mod serve;
mod shell;

use clap::{Parser, Subcommand};
use render::Mode;
use shell::Shell;
use std::io::{IsTerminal, Read};
use swingdb::arrow::util::pretty::pretty_format_batches;
use swingdb::{Database, OpenOptions};

/// swingdb: an embedded, Arrow-native SQL database.
#[derive(Parser, Debug)]
#[command(name = "swingdb", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    subcommand: Option<Command>,
    /// Database directory (created if absent); in-memory when omitted.
    database: Option<String>,
    /// Run this SQL and exit (exit code 1 on error).
    #[arg(short = 'c', long = "command")]
    command: Option<String>,
    /// Open the database read-only.
    #[arg(long)]
    read_only: bool,
    /// Stop a script (standard input) at its first error; without it, each
    /// error is printed and the script goes on (exit code 1 at the end).
    #[arg(long)]
    bail: bool,
    /// How results print: table, box, csv, markdown, json or line
    /// (also as flags: -csv, -json, -box, -markdown, -line, -table).
    #[arg(long, value_parser = |s: &str| Mode::named(s).ok_or(format!("modes: {}", Mode::NAMES)))]
    mode: Option<Mode>,
}

/// Snapshots shared between processes, and pipes.
#[derive(Subcommand, Debug)]
enum Command {
    /// List the snapshots of this user that can be attached.
    Snapshots,
    /// Open the shell on a private copy of snapshot NAME (nothing is copied;
    /// changes stay in this shell).
    Attach {
        /// The snapshot's name.
        name: String,
        /// Run this SQL on it and exit.
        #[arg(short = 'c', long = "command")]
        command: Option<String>,
    },
    /// Remove snapshot NAME (shells and programs attached to it keep their copies).
    Discard {
        /// The snapshot's name.
        name: String,
    },
    /// Send and receive tables through pipes (Arrow streams between processes).
    #[command(subcommand)]
    Pipe(pipe::PipeCommand),
    /// Serve the database to other processes and hosts over Arrow Flight SQL
    /// (ADBC, JDBC, ODBC, pyarrow.flight), each call checked against a token.
    Serve(serve::ServeArgs),
}

/// Prints the snapshots as a table.
fn list_snapshots() -> u8 {
    use std::sync::Arc;
    use swingdb::arrow::array::{ArrayRef, StringArray, UInt64Array};
    use swingdb::arrow::record_batch::RecordBatch;
    let list = match Database::snapshots() {
        Ok(list) => list,
        Err(e) => {
            eprintln!("Error: {e}");
            return FAILURE;
        }
    };
    let text = |f: &dyn Fn(&swingdb::SnapshotInfo) -> String| -> ArrayRef {
        Arc::new(StringArray::from(list.iter().map(f).collect::<Vec<_>>()))
    };
    let number = |f: &dyn Fn(&swingdb::SnapshotInfo) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from(list.iter().map(f).collect::<Vec<_>>()))
    };
    let batch = RecordBatch::try_from_iter([
        ("name", text(&|s| s.name.clone())),
        (
            "owner",
            text(&|s| match (&s.damaged, s.persist) {
                (Some(_), _) => "damaged".into(),
                (None, true) => "persisted".into(),
                (None, false) => format!("pid {}", s.pid),
            }),
        ),
        ("tables", text(&|s| s.tables.join(", "))),
        ("rows", number(&|s| s.rows)),
        ("bytes", number(&|s| s.bytes)),
        (
            "created",
            text(&|s| {
                let age = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_secs_f64()
                    - s.created;
                format!("{:.0} s ago", age.max(0.0))
            }),
        ),
        ("attached", number(&|s| s.attached as u64)),
    ])
    .expect("columns of equal length");
    match pretty_format_batches(&[batch]) {
        Ok(table) => println!("{table}"),
        Err(e) => eprintln!("Error: {e}"),
    }
    println!("{} snapshot{}", list.len(), if list.len() == 1 { "" } else { "s" });
    for s in &list {
        if let Some(why) = &s.damaged {
            println!("damaged: '{}': {why}", s.name);
        }
    }
    SUCCESS
}

/// The command line `args` with DuckDB's and sqlite3's one-dash mode flags
/// (`-json`, `-csv`, ...) spelled as `--mode json`.
fn arguments(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    for arg in args {
        match arg.strip_prefix('-').filter(|m| !m.starts_with('-')).and_then(Mode::named) {
            Some(_) if arg.len() > 2 => out.extend(["--mode".to_string(), arg[1..].to_string()]),
            _ if arg == "-bail" => out.push("--bail".to_string()),
            _ => out.push(arg),
        }
    }
    out
}

/// Exit code of a command that succeeded.
pub const SUCCESS: u8 = 0;
/// Exit code of a command that failed.
pub const FAILURE: u8 = 1;

/// Runs the command line `args` (the program's name first, as
/// `std::env::args` gives it) and returns its exit code.
pub fn run(args: impl IntoIterator<Item = String>) -> u8 {
    let mut args = match Args::try_parse_from(arguments(args)) {
        Ok(args) => args,
        Err(e) => {
            // Help and version go to standard output and succeed, as clap's `parse` does.
            let _ = e.print();
            return if e.use_stderr() { 2 } else { SUCCESS };
        }
    };
    let db = match args.subcommand.take() {
        Some(Command::Pipe(command)) => return pipe::main(command),
        Some(Command::Serve(args)) => return serve::main(args),
        Some(Command::Snapshots) => return list_snapshots(),
        Some(Command::Discard { name }) => {
            return match Database::discard(&name) {
                Ok(()) => SUCCESS,
                Err(e) => {
                    eprintln!("Error: {e}");
                    FAILURE
                }
            }
        }
        Some(Command::Attach { name, command }) => {
            args.command = command;
            Database::attach(&name, OpenOptions::default())
        }
        None => match &args.database {
            Some(path) => Database::open(path, OpenOptions { read_only: args.read_only, ..Default::default() }),
            None => Database::in_memory(),
        },
    };
    let con = match db.and_then(|db| db.connect()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e}");
            return FAILURE;
        }
    };
    cancel::install();
    let mut shell = Shell::new(con, args.mode.unwrap_or(Mode::Table));
    shell.set_bail(args.bail);
    let script = match &args.command {
        Some(sql) => Some((sql.clone(), "-c")),
        None if !std::io::stdin().is_terminal() => {
            let mut script = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut script) {
                eprintln!("Error: reading standard input: {e}");
                return FAILURE;
            }
            Some((script, "stdin"))
        }
        None => None,
    };
    match script {
        // `-c` stops at its first error; a script goes on unless -bail.
        Some((text, origin)) => match shell.run_script(&text, origin, origin == "-c") {
            (true, _) => SUCCESS,
            (false, _) => FAILURE,
        },
        None => {
            shell.interactive();
            SUCCESS
        }
    }
}
