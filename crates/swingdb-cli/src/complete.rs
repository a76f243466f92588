//! Tab completion in the shell: SQL keywords, dot commands, and the names of
//! the tables and columns the connection sees (refreshed after each statement).

use parking_lot::Mutex;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use std::sync::Arc;

/// Keywords offered for completion (upper case, as typed most often).
const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "INSERT",
    "INTO",
    "VALUES",
    "UPDATE",
    "SET",
    "DELETE",
    "CREATE",
    "TABLE",
    "VIEW",
    "INDEX",
    "DROP",
    "ALTER",
    "ADD",
    "COLUMN",
    "RENAME",
    "PRIMARY",
    "KEY",
    "UNIQUE",
    "REFERENCES",
    "FOREIGN",
    "CHECK",
    "DEFAULT",
    "NOT",
    "NULL",
    "AND",
    "OR",
    "AS",
    "DISTINCT",
    "JOIN",
    "LEFT",
    "RIGHT",
    "INNER",
    "OUTER",
    "FULL",
    "CROSS",
    "ON",
    "USING",
    "UNION",
    "ALL",
    "EXCEPT",
    "INTERSECT",
    "WITH",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "EXPLAIN",
    "ANALYZE",
    "DESCRIBE",
    "SHOW",
    "TABLES",
    "COPY",
    "TO",
    "MERGE",
    "MATCHED",
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "BETWEEN",
    "LIKE",
    "ILIKE",
    "IN",
    "EXISTS",
    "IS",
    "TRUE",
    "FALSE",
    "INTEGER",
    "BIGINT",
    "DOUBLE",
    "VARCHAR",
    "BOOLEAN",
    "DATE",
    "TIMESTAMP",
    "DECIMAL",
    "SUMMARIZE",
    "EXPORT",
    "IMPORT",
    "DATABASE",
    "read_csv",
    "read_parquet",
    "read_json",
];

/// Dot commands offered at the start of a line.
const DOT_COMMANDS: &[&str] = &[
    ".help", ".tables", ".schema", ".mode", ".output", ".once", ".import", ".read", ".open", ".maxrows", ".timer",
    ".share", ".quit", ".exit",
];

/// The shell's line-editor helper; `names` holds the tables' and columns' names.
pub struct ShellHelper {
    pub names: Arc<Mutex<Vec<String>>>,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).map_or(0, |i| i + 1);
        let word = &before[start..];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let lower = word.to_lowercase();
        let names = self.names.lock().clone();
        let pool: Vec<&str> = if start == 0 && word.starts_with('.') {
            DOT_COMMANDS.to_vec()
        } else {
            names.iter().map(String::as_str).chain(KEYWORDS.iter().copied()).collect()
        };
        let mut found: Vec<Pair> = pool
            .into_iter()
            .filter(|c| c.to_lowercase().starts_with(&lower) && c.len() > word.len())
            .map(|c| {
                // Keywords follow the case the user started typing in.
                let text = if word.chars().all(|ch| ch.is_lowercase() || !ch.is_alphabetic()) && KEYWORDS.contains(&c) {
                    c.to_lowercase()
                } else {
                    c.to_string()
                };
                Pair { display: text.clone(), replacement: text }
            })
            .collect();
        found.sort_by(|a, b| a.display.cmp(&b.display));
        found.dedup_by(|a, b| a.display == b.display);
        Ok((start, found))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}
