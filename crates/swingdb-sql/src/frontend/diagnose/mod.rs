//! Error messages that teach: where the mistake is (a caret under it, as
//! DuckDB and PostgreSQL show), which statement of a script failed, and the
//! fix where there is one. Applied once an error leaves a statement, with
//! the SQL text at hand; the error's kind never changes here.

mod advice;
mod locate;
pub(crate) mod unknown;

use crate::frontend::suggest::closest;
use swingdb_storage::error::{Error, SqlSpan};

/// `err` with its fix (see [`advice::advise`]) and, if it knows where in `sql` the
/// mistake is, that line of `sql` with a caret under the mistake.
pub fn explain(err: Error, sql: &str) -> Error {
    let err = advice::advise(err, sql);
    let err = match err.span() {
        Some(_) => err,
        None => locate::locate(err, sql),
    };
    let Some(span) = err.span() else { return err };
    match caret(sql, span) {
        Some(excerpt) => {
            let message = format!("{}\n\n{excerpt}", err.message());
            err.with_message(message)
        }
        None => err,
    }
}

/// Says which statement of a script of `count` failed (the `index`th, from 0),
/// when the error cannot point at it itself.
pub fn in_statement(err: Error, index: usize, count: usize) -> Error {
    if count < 2 || err.span().is_some() {
        return err;
    }
    let message = format!("{} (in statement {} of {})", err.message(), index + 1, count);
    err.with_message(message)
}

/// `err` of an unknown table with the closest name among `tables`.
pub fn suggest_table<'a>(err: Error, tables: impl IntoIterator<Item = &'a str>) -> Error {
    let message = err.message();
    let Some(name) = message.strip_prefix("table '").and_then(|r| r.strip_suffix("' not found")) else { return err };
    let typed = name.rsplit('.').next().unwrap_or(name).to_string();
    let known: Vec<&str> = tables.into_iter().collect();
    let hint = match closest(&typed, known.iter().copied()) {
        Some(close) => format!("table '{typed}' does not exist. Did you mean '{close}'?"),
        None if known.is_empty() => format!("table '{typed}' does not exist (there are no tables yet)"),
        None => format!("table '{typed}' does not exist (tables: {})", known.join(", ")),
    };
    err.with_message(hint)
}

/// `LINE n: <that line>` and a caret line under `span`, the line cut to a
/// window around the mistake when long.
fn caret(sql: &str, span: SqlSpan) -> Option<String> {
    const WINDOW: usize = 100;
    let text: Vec<char> = sql.lines().nth(span.line.checked_sub(1)? as usize)?.chars().collect();
    let start = (span.column.checked_sub(1)? as usize).min(text.len());
    let end = span.end_column.map_or(start + 1, |e| e as usize).clamp(start + 1, text.len().max(start + 1));
    let from = start.saturating_sub(WINDOW / 2).min(text.len());
    let to = (from + WINDOW).min(text.len());
    let shown: String = text[from..to].iter().map(|&c| if c == '\t' { ' ' } else { c }).collect();
    let prefix = format!("LINE {}: {}", span.line, if from > 0 { "..." } else { "" });
    let marks = "^".repeat((end.min(to.max(start + 1)) - start).max(1));
    Some(format!(
        "{prefix}{shown}{}\n{}{marks}",
        if to < text.len() { "..." } else { "" },
        " ".repeat(prefix.chars().count() + start - from)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_sits_under_the_mistake() {
        let span = SqlSpan { line: 2, column: 8, end_column: Some(10) };
        assert_eq!(
            caret("SELECT 1;\nSELECT nme FROM t", span).unwrap(),
            "LINE 2: SELECT nme FROM t\n               ^^^"
        );
        let one = SqlSpan { line: 1, column: 8, end_column: None };
        assert_eq!(caret("SELECT 'abc", one).unwrap(), "LINE 1: SELECT 'abc\n               ^");
        assert!(caret("SELECT 1", SqlSpan { line: 3, column: 1, end_column: None }).is_none());
    }

    #[test]
    fn long_lines_are_cut_around_the_mistake() {
        let sql = format!("SELECT {} nme", "x, ".repeat(200));
        let column = sql.find("nme").unwrap() as u64 + 1;
        let shown = caret(&sql, SqlSpan { line: 1, column, end_column: Some(column + 2) }).unwrap();
        let (line, marks) = shown.split_once('\n').unwrap();
        assert!(line.starts_with("LINE 1: ...") && line.len() < 130, "{line}");
        assert_eq!(&line[marks.find('^').unwrap()..][..3], "nme");
    }
}
