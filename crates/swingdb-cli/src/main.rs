//! `swingdb`: the interactive shell, one-shot SQL runner, and snapshot and pipe commands.

mod cancel;
mod pipe;

use clap::{Parser, Subcommand};
use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::time::Instant;
use swingdb::arrow::util::pretty::pretty_format_batches;
use swingdb::datafusion::scalar::ScalarValue;
use swingdb::{Connection, Database, OpenOptions};

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
}

const HELP: &str = "\
Statements end with ';' and may span lines. Dot commands:
  .tables            list tables
  .share NAME [persist]  publish what this shell sees as snapshot NAME
                     (other processes: swingdb attach NAME); it ends with the
                     shell unless 'persist' is given
  .schema TABLE      show a table's columns
  .timer on|off      print how long each statement took
  .help              this text
  .quit / .exit      leave (Ctrl-D works too)";

struct Shell {
    con: Connection,
    timer: bool,
}

impl Shell {
    /// Runs SQL and prints its rows; returns whether it succeeded.
    fn run_sql(&self, sql: &str) -> bool {
        self.run_sql_with(sql, &[])
    }

    /// Runs `sql` with positional parameters (names the user typed go here, never into the SQL text).
    fn run_sql_with(&self, sql: &str, params: &[ScalarValue]) -> bool {
        cancel::clear();
        let start = Instant::now();
        let outcome = self.con.execute(sql, params).and_then(|mut r| {
            let affected = r.rows_affected();
            let schema = r.schema();
            let batches = r.collect_batches()?;
            Ok((affected, schema, batches))
        });
        let elapsed = start.elapsed();
        let ok = match outcome {
            Ok((Some(n), _, _)) => {
                println!("{n} row{} affected", if n == 1 { "" } else { "s" });
                true
            }
            Ok((None, schema, batches)) if !schema.fields().is_empty() => {
                let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
                if batches.is_empty() {
                    let empty = swingdb::arrow::record_batch::RecordBatch::new_empty(schema);
                    println!("{}", pretty_format_batches(&[empty]).map(|t| t.to_string()).unwrap_or_default());
                } else {
                    match pretty_format_batches(&batches) {
                        Ok(table) => println!("{table}"),
                        Err(e) => eprintln!("Error: cannot display the result: {e}"),
                    }
                }
                println!("{rows} row{}", if rows == 1 { "" } else { "s" });
                true
            }
            Ok(_) => true,
            Err(e) => {
                eprintln!("Error: {e}");
                false
            }
        };
        if self.timer {
            println!("Run Time: {:.3} s", elapsed.as_secs_f64());
        }
        ok
    }

    /// Handles a dot command; returns false to quit.
    fn dot(&mut self, line: &str) -> bool {
        let mut parts = line.split_whitespace();
        match parts.next().unwrap_or_default() {
            ".quit" | ".exit" => return false,
            ".help" => println!("{HELP}"),
            ".tables" => match self.con.table_names() {
                Ok(names) => println!("{}", names.join("  ")),
                Err(e) => eprintln!("Error: {e}"),
            },
            ".schema" => match parts.next() {
                Some(t) => match self.con.describe(t).and_then(|mut r| r.collect_batches()) {
                    Ok(batches) => match pretty_format_batches(&batches) {
                        Ok(table) => println!("{table}"),
                        Err(e) => eprintln!("Error: cannot display the columns: {e}"),
                    },
                    Err(e) => eprintln!("Error: {e}"),
                },
                None => eprintln!("usage: .schema TABLE"),
            },
            ".share" => match (parts.next(), parts.next()) {
                (Some(name), flag @ (None | Some("persist"))) => {
                    let options = swingdb::share::ShareOptions { persist: flag.is_some(), replace: false };
                    match self.con.share(name, options) {
                        Ok(info) => println!(
                            "shared '{}': {} table{}, {} rows, {} bytes{}",
                            info.name,
                            info.tables.len(),
                            if info.tables.len() == 1 { "" } else { "s" },
                            info.rows,
                            info.bytes,
                            if info.persist { " (persisted: swingdb discard NAME removes it)" } else { " (until this shell ends)" }
                        ),
                        Err(e) => eprintln!("Error: {e}"),
                    }
                }
                _ => eprintln!("usage: .share NAME [persist]"),
            },
            ".timer" => match parts.next() {
                Some("on") => self.timer = true,
                Some("off") => self.timer = false,
                _ => eprintln!("usage: .timer on|off"),
            },
            other => eprintln!("Error: unknown command {other}; try .help"),
        }
        true
    }

    fn interactive(&mut self) {
        let mut editor = match DefaultEditor::new() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("Error: cannot start line editing: {e}");
                return;
            }
        };
        let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".swingdb_history"));
        if let Some(h) = &history {
            let _ = editor.load_history(h);
        }
        println!("swingdb {} - enter .help for help", env!("CARGO_PKG_VERSION"));
        let mut buffer = String::new();
        // Ctrl-C clears the line; a second one in a row, on the empty line, exits.
        let mut interrupted = false;
        loop {
            let prompt = if buffer.is_empty() { "swingdb> " } else { "     ...> " };
            let read = editor.readline(prompt);
            let was_interrupted = std::mem::replace(&mut interrupted, matches!(read, Err(ReadlineError::Interrupted)));
            match read {
                Ok(line) => {
                    let trimmed = line.trim();
                    if buffer.is_empty() && trimmed.starts_with('.') {
                        let _ = editor.add_history_entry(trimmed);
                        if !self.dot(trimmed) {
                            break;
                        }
                        continue;
                    }
                    if trimmed.is_empty() && buffer.is_empty() {
                        continue;
                    }
                    buffer.push_str(&line);
                    buffer.push('\n');
                    if trimmed.ends_with(';') {
                        let _ = editor.add_history_entry(buffer.trim());
                        self.run_sql(&buffer);
                        buffer.clear();
                    }
                }
                Err(ReadlineError::Interrupted) if was_interrupted => break,
                Err(ReadlineError::Interrupted) => {
                    buffer.clear();
                    println!("(Ctrl-C again, or Ctrl-D, to exit)");
                }
                Err(ReadlineError::Eof) => break,
                Err(e) => {
                    eprintln!("Error: {e}");
                    break;
                }
            }
        }
        if let Some(h) = &history {
            let _ = editor.save_history(h);
        }
    }
}

/// Prints the snapshots as a table.
fn list_snapshots() -> ExitCode {
    use std::sync::Arc;
    use swingdb::arrow::array::{ArrayRef, StringArray, UInt64Array};
    use swingdb::arrow::record_batch::RecordBatch;
    let list = match Database::snapshots() {
        Ok(list) => list,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = |f: &dyn Fn(&swingdb::share::SnapshotInfo) -> String| -> ArrayRef {
        Arc::new(StringArray::from(list.iter().map(f).collect::<Vec<_>>()))
    };
    let number = |f: &dyn Fn(&swingdb::share::SnapshotInfo) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from(list.iter().map(f).collect::<Vec<_>>()))
    };
    let batch = RecordBatch::try_from_iter([
        ("name", text(&|s| s.name.clone())),
        ("owner", text(&|s| if s.persist { "persisted".into() } else { format!("pid {}", s.pid) })),
        ("tables", text(&|s| s.tables.join(", "))),
        ("rows", number(&|s| s.rows)),
        ("bytes", number(&|s| s.bytes)),
        ("created", text(&|s| {
            let age = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs_f64() - s.created;
            format!("{:.0} s ago", age.max(0.0))
        })),
        ("attached", number(&|s| s.attached as u64)),
    ])
    .expect("columns of equal length");
    match pretty_format_batches(&[batch]) {
        Ok(table) => println!("{table}"),
        Err(e) => eprintln!("Error: {e}"),
    }
    println!("{} snapshot{}", list.len(), if list.len() == 1 { "" } else { "s" });
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let mut args = Args::parse();
    let db = match args.subcommand.take() {
        Some(Command::Pipe(command)) => return pipe::main(command),
        Some(Command::Snapshots) => return list_snapshots(),
        Some(Command::Discard { name }) => {
            return match Database::discard(&name) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("Error: {e}");
                    ExitCode::FAILURE
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
            return ExitCode::FAILURE;
        }
    };
    cancel::install();
    let mut shell = Shell { con, timer: false };
    if let Some(sql) = &args.command {
        return if shell.run_sql(sql) { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    if !std::io::stdin().is_terminal() {
        let mut script = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut script) {
            eprintln!("Error: reading standard input: {e}");
            return ExitCode::FAILURE;
        }
        return if shell.run_sql(&script) { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    shell.interactive();
    ExitCode::SUCCESS
}
