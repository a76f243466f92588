//! The shell: runs SQL and dot commands typed at the prompt, given with
//! `-c`, piped in or `.read` from a file, and prints results in the chosen
//! `.mode` to the terminal or an `.output` file.

use crate::cancel;
use crate::complete::ShellHelper;
use crate::render::{render, Limits, Mode};
use parking_lot::Mutex;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::Editor;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Instant;
use swingdb::datafusion::sql::sqlparser::dialect::GenericDialect;
use swingdb::datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use swingdb::{Connection, Database, OpenOptions};
use swingdb::{FileKind, ReadOptions};

const HELP: &str = "\
Statements end with ';' and may span lines. Ctrl-C cancels a running statement;
twice on an empty line, it exits. Dot commands:
  .tables [PATTERN]      list tables (PATTERN: a part of the name)
  .schema [TABLE]        CREATE TABLE statements of TABLE (or of every table)
  .mode MODE             how results print: table, box, csv, markdown, json, line
  .nullvalue [TEXT]      print NULL as TEXT (none: each mode's own)
  .maxrows N             rows a table shows at most (first and last halves)
  .output [FILE]         send results to FILE (no FILE: back to the screen)
  .once FILE             send the next result only to FILE
  .import FILE TABLE     load a CSV file into TABLE (created if missing)
  .read FILE             run the statements and dot commands in FILE
  .open [DATABASE]       close this database and open DATABASE (none: in memory)
  .databases             this database (main) and those attached with ATTACH
  .share NAME [persist]  publish what this shell sees as snapshot NAME
                         (other processes: swingdb attach NAME); it ends with
                         the shell unless 'persist' is given
  .timer on|off          print how long each statement took
  .progress on|off|SECS  a progress bar for statements running longer than
                         SECS seconds (on: 2; shown on a terminal only)
  .help                  this text
  .quit / .exit          leave (Ctrl-D works too)";

/// Where results go.
enum Output {
    Screen,
    File(File),
}

/// The shell's state.
pub struct Shell {
    con: Connection,
    timer: bool,
    /// Statements running longer than this show a progress bar (None: never).
    progress: Option<std::time::Duration>,
    mode: Mode,
    max_rows: usize,
    output: Output,
    once: Option<File>,
    /// Table and column names, for completion.
    names: Arc<Mutex<Vec<String>>>,
    /// A script stops at its first error (`-bail`); otherwise it goes on.
    bail: bool,
    /// How a NULL prints (`.nullvalue`; None: each mode's own).
    null: Option<String>,
}

/// One statement of a script and the line it starts on.
struct Piece<'a> {
    line: usize,
    text: &'a str,
}

/// `sql` cut into statements at the `;` that end them (found by the
/// tokenizer, so never inside strings or comments), each with its first
/// line (counting from `first_line`). Text the tokenizer refuses stays
/// whole: running it reports the syntax error where it is.
fn statements(sql: &str, first_line: usize) -> Vec<Piece<'_>> {
    let Ok(tokens) = Tokenizer::new(&GenericDialect {}, sql).tokenize_with_location() else {
        return vec![Piece { line: first_line, text: sql }];
    };
    let line_starts: Vec<usize> = std::iter::once(0).chain(sql.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let offset = |line: u64, column: u64| -> usize {
        let start = line_starts.get(line.saturating_sub(1) as usize).copied().unwrap_or(sql.len());
        sql[start..].char_indices().nth(column.saturating_sub(1) as usize).map_or(sql.len(), |(i, _)| start + i)
    };
    let mut out = Vec::new();
    let mut from = 0;
    for token in tokens.iter().filter(|t| t.token == Token::SemiColon) {
        let end = offset(token.span.start.line, token.span.start.column) + 1;
        out.push(&sql[from..end]);
        from = end;
    }
    out.push(&sql[from..]);
    out.into_iter()
        .filter(|text| !text.trim().trim_end_matches(';').trim().is_empty())
        .map(|text| {
            let before = text.len() - text.trim_start().len();
            let start = text.as_ptr() as usize - sql.as_ptr() as usize + before;
            let line = first_line + sql[..start].matches('\n').count();
            Piece { line, text: text.trim() }
        })
        .collect()
}

/// The terminal's width in characters, if standard output is one.
fn terminal_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // SAFETY: TIOCGWINSZ fills a zeroed winsize.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(size.ws_col as usize)
}

impl Shell {
    /// A shell on `con`, printing in `mode`.
    pub fn new(con: Connection, mode: Mode) -> Self {
        let progress = Some(swingdb::PROGRESS_AFTER);
        cancel::show_progress(&con, progress);
        let shell = Self {
            con,
            timer: false,
            progress,
            mode,
            max_rows: 40,
            output: Output::Screen,
            once: None,
            names: Arc::default(),
            bail: false,
            null: None,
        };
        shell.refresh_names();
        shell
    }

    /// Makes scripts stop at their first error (`-bail`).
    pub fn set_bail(&mut self, bail: bool) {
        self.bail = bail;
    }

    /// Writes one result's text where results go now.
    fn emit(&mut self, text: &str) {
        let written = match (&mut self.once, &mut self.output) {
            (Some(file), _) => writeln!(file, "{text}"),
            (None, Output::File(file)) => writeln!(file, "{text}"),
            (None, Output::Screen) => {
                println!("{text}");
                Ok(())
            }
        };
        if let Err(e) = written {
            eprintln!("Error: writing the output: {e}");
        }
        self.once = None;
    }

    fn refresh_names(&self) {
        let mut names = Vec::new();
        for table in self.con.table_names().unwrap_or_default() {
            if let Ok(batches) = self.con.describe(&table).and_then(|mut r| r.collect_batches()) {
                for batch in batches {
                    if let Some(column) = batch.column(0).as_any().downcast_ref::<swingdb::arrow::array::StringArray>()
                    {
                        names.extend(column.iter().flatten().map(str::to_string));
                    }
                }
            }
            names.push(table);
        }
        names.sort();
        names.dedup();
        *self.names.lock() = names;
    }

    /// Runs one statement and prints its result; returns whether it
    /// succeeded. `line` is where it starts in its script (1 for one typed
    /// alone): error positions count from there.
    fn run_statement(&mut self, sql: &str, line: usize) -> Result<(), String> {
        cancel::clear();
        let start = Instant::now();
        // Blank lines in front keep the engine's LINE numbers those of the script.
        let placed = format!("{}{sql}", "\n".repeat(line.saturating_sub(1)));
        let outcome = self.con.execute(&placed, &[]).and_then(|mut r| {
            let affected = r.rows_affected();
            let schema = r.schema();
            let batches = r.collect_batches()?;
            Ok((affected, schema, batches))
        });
        let elapsed = start.elapsed();
        let result = match outcome {
            Ok((Some(n), _, _)) => {
                self.emit(&format!("{n} row{} affected", if n == 1 { "" } else { "s" }));
                Ok(())
            }
            Ok((None, schema, batches)) if !schema.fields().is_empty() => {
                let types: Vec<String> =
                    schema.fields().iter().map(|f| swingdb::sql_type_name(f.data_type())).collect();
                let on_screen = self.once.is_none() && matches!(self.output, Output::Screen);
                let limits = Limits { max_rows: self.max_rows, width: if on_screen { terminal_width() } else { None } };
                let text = render(self.mode, &schema, &types, &batches, limits, self.null.as_deref());
                self.emit(&text);
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        };
        if self.timer {
            println!("Run Time: {:.3} s", elapsed.as_secs_f64());
        }
        result
    }

    /// Runs `text` (statements and dot commands, as a file holds them)
    /// from `origin`, printing each error with its line and going on after
    /// it, as DuckDB's shell does (stopping there with `-bail`, or when
    /// `stop_at_error`). Returns whether everything succeeded and whether
    /// to go on (false after `.quit`).
    pub fn run_script(&mut self, text: &str, origin: &str, stop_at_error: bool) -> (bool, bool) {
        let stop = stop_at_error || self.bail;
        let mut all_ok = true;
        let mut buffer = String::new();
        let mut buffer_line = 1;
        let lines: Vec<&str> = text.lines().collect();
        let many = lines.len() > 1 || statements(text, 1).len() > 1;
        for (i, line) in lines.iter().enumerate() {
            let number = i + 1;
            if buffer.trim().is_empty() && line.trim_start().starts_with('.') {
                match self.dot(line.trim()) {
                    Ok(true) => continue,
                    Ok(false) => return (all_ok, false),
                    Err(e) => {
                        eprintln!("Error ({origin} line {number}): {e}");
                        all_ok = false;
                        if stop {
                            return (false, true);
                        }
                        continue;
                    }
                }
            }
            if buffer.trim().is_empty() {
                buffer.clear();
                buffer_line = number;
            }
            buffer.push_str(line);
            buffer.push('\n');
            if line.trim_end().ends_with(';')
                && !self.run_buffer(&std::mem::take(&mut buffer), buffer_line, origin, many, stop)
            {
                all_ok = false;
                if stop {
                    return (false, true);
                }
            }
        }
        if !buffer.trim().is_empty() && !self.run_buffer(&buffer, buffer_line, origin, many, stop) {
            all_ok = false;
        }
        (all_ok, true)
    }

    /// Runs each statement of `buffer` (starting at line `line`), printing
    /// each error (with its line in a script); with `stop`, none after the
    /// first error. Returns whether all succeeded.
    fn run_buffer(&mut self, buffer: &str, line: usize, origin: &str, in_script: bool, stop: bool) -> bool {
        let mut ok = true;
        for piece in statements(buffer, line) {
            if let Err(e) = self.run_statement(piece.text, piece.line) {
                match in_script {
                    true => eprintln!("Error ({origin} line {}): {e}", piece.line),
                    false => eprintln!("Error: {e}"),
                }
                ok = false;
                if stop {
                    break;
                }
            }
        }
        self.refresh_names();
        ok
    }

    /// Handles a dot command: Ok(false) to quit, Err with what went wrong.
    fn dot(&mut self, line: &str) -> Result<bool, String> {
        let mut parts = line.split_whitespace();
        let command = parts.next().unwrap_or_default();
        let args: Vec<&str> = parts.collect();
        let one = |usage: &str| -> Result<&str, String> {
            match args.as_slice() {
                [one] => Ok(one),
                _ => Err(format!("usage: {usage}")),
            }
        };
        match command {
            ".quit" | ".exit" => return Ok(false),
            ".help" => println!("{HELP}"),
            ".tables" => {
                let names = self.con.table_names().map_err(|e| e.to_string())?;
                let shown: Vec<String> = match args.first() {
                    Some(pattern) => {
                        names.into_iter().filter(|n| n.to_lowercase().contains(&pattern.to_lowercase())).collect()
                    }
                    None => names,
                };
                if shown.is_empty() && !args.is_empty() {
                    return Err(format!("no table matches '{}'", args[0]));
                }
                self.emit(&shown.join("  "));
            }
            ".schema" => {
                let tables = match args.first() {
                    Some(t) => vec![t.to_string()],
                    None => self.con.table_names().map_err(|e| e.to_string())?,
                };
                for table in tables {
                    let statement = self.con.create_statement(&table).map_err(|e| e.to_string())?;
                    self.emit(statement.trim_end());
                }
            }
            ".nullvalue" => {
                self.null = match args.as_slice() {
                    [] => None,
                    _ => Some(line[".nullvalue".len()..].trim().to_string()),
                };
            }
            ".mode" => {
                let name = one(&format!(".mode {}", Mode::NAMES.replace(", ", "|")))?;
                self.mode =
                    Mode::named(name).ok_or_else(|| format!("unknown mode '{name}'; modes: {}", Mode::NAMES))?;
            }
            ".maxrows" => {
                let n = one(".maxrows N")?;
                self.max_rows = n.parse().map_err(|_| format!("'{n}' is not a number of rows"))?;
            }
            ".output" => match args.as_slice() {
                [] => self.output = Output::Screen,
                [path] => {
                    self.output = Output::File(File::create(path).map_err(|e| format!("cannot write '{path}': {e}"))?)
                }
                _ => return Err("usage: .output [FILE]".into()),
            },
            ".once" => {
                let path = one(".once FILE")?;
                self.once = Some(File::create(path).map_err(|e| format!("cannot write '{path}': {e}"))?);
            }
            ".import" => {
                let [path, table] = args.as_slice() else { return Err("usage: .import FILE TABLE".into()) };
                let rows = self.import(path, table)?;
                self.emit(&format!("{rows} rows imported into {table}"));
                self.refresh_names();
            }
            ".read" => {
                let path = one(".read FILE")?;
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
                let (ok, go_on) = self.run_script(&text, path, false);
                if !go_on {
                    return Ok(false);
                }
                if !ok {
                    return Err(format!("'{path}' had errors (above)"));
                }
            }
            ".open" => {
                let db = match args.as_slice() {
                    [] => Database::in_memory(),
                    [path] => Database::open(path, OpenOptions::default()),
                    _ => return Err("usage: .open [DATABASE]".into()),
                };
                self.con = db.and_then(|db| db.connect()).map_err(|e| e.to_string())?;
                cancel::show_progress(&self.con, self.progress);
                self.refresh_names();
            }
            ".share" => match args.as_slice() {
                [name] | [name, "persist"] => {
                    let options = swingdb::ShareOptions { persist: args.len() == 2, replace: false };
                    let info = self.con.share(name, options).map_err(|e| e.to_string())?;
                    self.emit(&format!(
                        "shared '{}': {} table{}, {} rows, {} bytes{}",
                        info.name,
                        info.tables.len(),
                        if info.tables.len() == 1 { "" } else { "s" },
                        info.rows,
                        info.bytes,
                        if info.persist {
                            " (persisted: swingdb discard NAME removes it)"
                        } else {
                            " (until this shell ends)"
                        }
                    ));
                }
                _ => return Err("usage: .share NAME [persist]".into()),
            },
            ".timer" => match args.as_slice() {
                ["on"] => self.timer = true,
                ["off"] => self.timer = false,
                _ => return Err("usage: .timer on|off".into()),
            },
            ".databases" => {
                for db in self.con.databases() {
                    let path = db.path.map_or(":memory:".to_string(), |p| p.display().to_string());
                    self.emit(&format!("{}: {path}{}", db.name, if db.read_only { " (read-only)" } else { "" }));
                }
            }
            ".progress" => {
                self.progress = match args.as_slice() {
                    ["on"] => Some(swingdb::PROGRESS_AFTER),
                    ["off"] => None,
                    [secs] => match secs.parse::<f64>() {
                        Ok(s) if s.is_finite() && s >= 0.0 => Some(std::time::Duration::from_secs_f64(s)),
                        _ => return Err("usage: .progress on|off|SECONDS".into()),
                    },
                    _ => return Err("usage: .progress on|off|SECONDS".into()),
                };
                cancel::show_progress(&self.con, self.progress);
            }
            other => return Err(format!("unknown command {other}; try .help")),
        }
        Ok(true)
    }

    /// Loads the CSV file at `path` into `table` (created if missing, else
    /// appended to). The path and the table name go through the API:
    /// neither becomes SQL text.
    fn import(&mut self, path: &str, table: &str) -> Result<u64, String> {
        let read = self
            .con
            .read_file(path, FileKind::Csv, &ReadOptions::default())
            .and_then(|mut r| Ok((r.schema(), r.collect_batches()?)));
        let (schema, batches) = read.map_err(|e| e.to_string())?;
        let exists = self.con.table_names().map_err(|e| e.to_string())?.iter().any(|t| t == table);
        let stored = self.con.store(table, schema, batches, !exists).map_err(|e| e.to_string())?;
        Ok(stored.rows_affected().unwrap_or(0))
    }

    /// The interactive loop: a prompt with history, completion and
    /// multi-line statements.
    pub fn interactive(&mut self) {
        let mut editor: Editor<ShellHelper, DefaultHistory> = match Editor::new() {
            Ok(e) => e,
            Err(e) => {
                eprintln!("Error: cannot start line editing: {e}");
                return;
            }
        };
        editor.set_helper(Some(ShellHelper { names: self.names.clone() }));
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
                        match self.dot(trimmed) {
                            Ok(true) => {}
                            Ok(false) => break,
                            Err(e) => eprintln!("Error: {e}"),
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
                        self.run_buffer(&std::mem::take(&mut buffer), 1, "", false, true);
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

#[cfg(test)]
mod tests {
    use super::statements;

    #[test]
    fn scripts_are_cut_at_semicolons_outside_strings_with_their_lines() {
        let sql = "SELECT 1;\n\nSELECT ';' -- ;\n  , 2;\nSELECT 3";
        let pieces: Vec<(usize, &str)> = statements(sql, 1).iter().map(|p| (p.line, p.text)).collect();
        assert_eq!(pieces, vec![(1, "SELECT 1;"), (3, "SELECT ';' -- ;\n  , 2;"), (5, "SELECT 3")]);
        assert_eq!(statements("SELECT 'open", 4).len(), 1);
    }
}
