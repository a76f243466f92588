//! How the shell prints a result: `.mode table | box | csv | markdown | json |
//! line`. The table modes cut long values, long results (first and last rows,
//! with how many were left out) and results wider than the terminal (middle
//! columns, with how many were left out), as DuckDB's shell does.
//!
//! The table and box renderers are our own rather than `comfy-table`'s (which
//! Arrow's pretty printer uses): comfy-table fits a table to the terminal by
//! wrapping cells, where DuckDB's shell (which our users compare with) leaves
//! out middle columns and rows and says how many, adds a row of types, and
//! aligns numbers right; those are most of the code here.

use std::fmt::Write;
use swingdb::arrow::array::Array;
use swingdb::arrow::datatypes::{DataType, SchemaRef};
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::arrow::util::display::{ArrayFormatter, FormatOptions};

/// An output mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// ASCII table (`+---+`), the default.
    Table,
    /// Table drawn with box characters.
    Box,
    /// Comma-separated values with a header line.
    Csv,
    /// A Markdown (GitHub) table.
    Markdown,
    /// A JSON array of objects.
    Json,
    /// One `column = value` line per value, rows separated by a blank line.
    Line,
}

impl Mode {
    /// The mode named `name`, as `.mode` and the `-csv`-style flags take it.
    pub fn named(name: &str) -> Option<Self> {
        Some(match name {
            "table" | "ascii" => Mode::Table,
            "box" | "duckbox" => Mode::Box,
            "csv" => Mode::Csv,
            "markdown" | "md" => Mode::Markdown,
            "json" => Mode::Json,
            "line" => Mode::Line,
            _ => return None,
        })
    }

    /// The names `.mode` accepts.
    pub const NAMES: &'static str = "table, box, csv, markdown, json, line";
}

/// What limits a printed table.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Rows shown at most (first half and last half of the result).
    pub max_rows: usize,
    /// Characters a table may be wide (the terminal's width), if limited.
    pub width: Option<usize>,
}

/// Longest value a table cell shows before it is cut with `…`.
const MAX_CELL: usize = 40;

/// Every cell of `batches` as text (`NULL` for nulls), column by column, and
/// whether each column is a number or boolean (written bare in JSON).
fn cells(batches: &[RecordBatch], null: &str) -> Vec<Vec<Option<String>>> {
    let Some(first) = batches.first() else { return Vec::new() };
    let options = FormatOptions::default().with_null(null);
    (0..first.num_columns())
        .map(|c| {
            let mut out = Vec::new();
            for batch in batches {
                let column = batch.column(c);
                match ArrayFormatter::try_new(column.as_ref(), &options) {
                    Ok(f) => {
                        out.extend((0..column.len()).map(|i| (!column.is_null(i)).then(|| f.value(i).to_string())))
                    }
                    Err(_) => out.extend((0..column.len()).map(|_| Some("?".to_string()))),
                }
            }
            out
        })
        .collect()
}

fn is_bare_json(ty: &DataType) -> bool {
    ty.is_numeric() || matches!(ty, DataType::Boolean)
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn cut(s: &str, max: usize) -> String {
    let one_line = s.replace(['\n', '\r'], " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    one_line.chars().take(max - 1).chain(std::iter::once('…')).collect()
}

/// `schema`'s rows in `batches`, printed in `mode`; `types` are the SQL
/// names of the column types (shown under the names in the table modes);
/// `null` is the text of a NULL (`.nullvalue`; `None`: the mode's own,
/// `NULL`, or nothing in CSV).
pub fn render(
    mode: Mode,
    schema: &SchemaRef,
    types: &[String],
    batches: &[RecordBatch],
    limits: Limits,
    null: Option<&str>,
) -> String {
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let right: Vec<bool> = schema.fields().iter().map(|f| f.data_type().is_numeric()).collect();
    let null_text = null.unwrap_or("NULL");
    match mode {
        Mode::Table | Mode::Box => table(mode, &names, types, &cells(batches, "NULL"), &right, rows, limits, null_text),
        Mode::Csv => {
            let columns = cells(batches, "");
            let mut out = names.iter().map(|n| csv_field(n)).collect::<Vec<_>>().join(",");
            for r in 0..rows {
                out.push('\n');
                out += &columns
                    .iter()
                    .map(|c| c[r].as_deref().map(csv_field).unwrap_or_else(|| null.unwrap_or_default().to_string()))
                    .collect::<Vec<_>>()
                    .join(",");
            }
            out
        }
        Mode::Markdown => markdown(&names, &cells(batches, "NULL"), &right, rows, null_text),
        Mode::Json => {
            let columns = cells(batches, "null");
            let bare: Vec<bool> = schema.fields().iter().map(|f| is_bare_json(f.data_type())).collect();
            let mut out = String::from("[");
            for r in 0..rows {
                let fields = names
                    .iter()
                    .zip(&columns)
                    .zip(&bare)
                    .map(|((n, c), &bare)| {
                        let value = match &c[r] {
                            None => "null".to_string(),
                            Some(v)
                                if bare
                                    && (v.parse::<f64>().is_ok_and(f64::is_finite) || v == "true" || v == "false") =>
                            {
                                v.clone()
                            }
                            Some(v) => json_string(v),
                        };
                        format!("{}:{value}", json_string(n))
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                let _ = write!(out, "{}{{{fields}}}", if r == 0 { "\n" } else { ",\n" });
            }
            out.push_str(if rows == 0 { "]" } else { "\n]" });
            out
        }
        Mode::Line => {
            let columns = cells(batches, "NULL");
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
            let mut out = Vec::new();
            for r in 0..rows {
                let lines = names
                    .iter()
                    .zip(&columns)
                    .map(|(n, c)| format!("{n:>width$} = {}", c[r].as_deref().unwrap_or(null_text)));
                out.push(lines.collect::<Vec<_>>().join("\n"));
            }
            out.join("\n\n")
        }
    }
}

/// A Markdown (GitHub) table, its columns padded to one width and numbers
/// (`right`) aligned right (`---:`), as DuckDB prints it.
fn markdown(names: &[String], columns: &[Vec<Option<String>>], right: &[bool], rows: usize, null: &str) -> String {
    let escape = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let cell = |c: usize, r: usize| escape(columns[c][r].as_deref().unwrap_or(null));
    let widths: Vec<usize> = (0..names.len())
        .map(|c| {
            (0..rows)
                .map(|r| cell(c, r).chars().count())
                .chain([escape(&names[c]).chars().count(), 3])
                .max()
                .unwrap_or(3)
        })
        .collect();
    let pad = |text: String, c: usize, numbers: bool| {
        let fill = " ".repeat(widths[c].saturating_sub(text.chars().count()));
        if numbers && right[c] {
            format!("{fill}{text}")
        } else {
            format!("{text}{fill}")
        }
    };
    let row = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
    let mut out = vec![row((0..names.len()).map(|c| pad(escape(&names[c]), c, false)).collect())];
    let rule = (0..names.len()).map(|c| {
        if right[c] {
            format!("{}:", "-".repeat(widths[c] + 1))
        } else {
            "-".repeat(widths[c] + 2)
        }
    });
    out.push(format!("|{}|", rule.collect::<Vec<_>>().join("|")));
    for r in 0..rows {
        out.push(row((0..names.len()).map(|c| pad(cell(c, r), c, true)).collect()));
    }
    out.join("\n")
}

/// The table modes: names and types on top, rows cut to `limits`, numbers
/// (`right`) aligned right, NULLs shown as `null`.
#[allow(clippy::too_many_arguments)]
fn table(
    mode: Mode,
    names: &[String],
    types: &[String],
    columns: &[Vec<Option<String>>],
    right: &[bool],
    rows: usize,
    limits: Limits,
    null: &str,
) -> String {
    // Which rows: all, or the first and last halves of max_rows with a gap.
    let shown: Vec<Option<usize>> = if rows <= limits.max_rows.max(1) {
        (0..rows).map(Some).collect()
    } else {
        let head = limits.max_rows.div_ceil(2).max(1);
        let tail = limits.max_rows.saturating_sub(head);
        (0..head).map(Some).chain(std::iter::once(None)).chain((rows - tail..rows).map(Some)).collect()
    };
    let text = |c: usize, r: usize| cut(columns[c][r].as_deref().unwrap_or(null), MAX_CELL);
    let width_of = |c: usize| {
        let values = shown.iter().flatten().map(|&r| text(c, r).chars().count());
        values.chain([names[c].chars().count(), types.get(c).map_or(0, |t| t.chars().count()), 1]).max().unwrap_or(1)
    };
    let widths: Vec<usize> = (0..names.len()).map(width_of).collect();
    // Which columns: as many from both ends as fit the terminal, with a gap.
    let total = |cols: &[usize]| cols.iter().map(|&c| widths[c] + 3).sum::<usize>() + 1;
    let all: Vec<usize> = (0..names.len()).collect();
    let mut picked: Vec<Option<usize>> = all.iter().copied().map(Some).collect();
    if let Some(limit) = limits.width.filter(|&w| total(&all) > w) {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let (mut lo, mut hi) = (0, names.len());
        loop {
            let take_left = left.len() <= right.len();
            let next = if take_left { lo } else { hi - 1 };
            if lo >= hi || total(&[left.as_slice(), right.as_slice(), &[next]].concat()) + 4 > limit {
                break;
            }
            if take_left {
                left.push(lo);
                lo += 1;
            } else {
                right.insert(0, hi - 1);
                hi -= 1;
            }
        }
        if left.is_empty() && !names.is_empty() {
            left.push(0);
        }
        picked = left.into_iter().map(Some).chain(std::iter::once(None)).chain(right.into_iter().map(Some)).collect();
    }
    let boxed = mode == Mode::Box;
    let (h, v, cross) = if boxed { ('─', '│', '┼') } else { ('-', '|', '+') };
    let rule = |left: char, mid: char, right: char| {
        let parts: Vec<String> = picked.iter().map(|c| h.to_string().repeat(c.map_or(1, |c| widths[c]) + 2)).collect();
        format!("{left}{}{right}", parts.join(&mid.to_string()))
    };
    let line = |cell: &dyn Fn(usize) -> String, values: bool| {
        let parts: Vec<String> = picked
            .iter()
            .map(|c| match c {
                Some(c) => {
                    let s = cell(*c);
                    let pad = " ".repeat(widths[*c].saturating_sub(s.chars().count()));
                    match values && right[*c] {
                        true => format!(" {pad}{s} "),
                        false => format!(" {s}{pad} "),
                    }
                }
                None => " … ".to_string(),
            })
            .collect();
        format!("{v}{}{v}", parts.join(&v.to_string()))
    };
    let (top, middle, bottom) = if boxed {
        (rule('┌', '┬', '┐'), rule('├', '┼', '┤'), rule('└', '┴', '┘'))
    } else {
        (rule('+', '+', '+'), rule('+', cross, '+'), rule('+', '+', '+'))
    };
    let mut out = vec![
        top,
        line(&|c| names[c].clone(), false),
        line(&|c| types.get(c).cloned().unwrap_or_default(), false),
        middle,
    ];
    for r in &shown {
        out.push(match r {
            Some(r) => line(&|c| text(c, *r), true),
            None => line(&|_| "…".to_string(), false),
        });
    }
    out.push(bottom);
    let hidden_rows = rows.saturating_sub(shown.iter().flatten().count());
    let hidden_columns = names.len() - picked.iter().flatten().count();
    let mut footer = format!("{rows} row{}", if rows == 1 { "" } else { "s" });
    if hidden_rows > 0 {
        let _ = write!(
            footer,
            " ({} shown, {hidden_rows} left out; .maxrows N shows more)",
            shown.iter().flatten().count()
        );
    }
    if hidden_columns > 0 {
        let _ = write!(
            footer,
            ", {} columns ({hidden_columns} left out to fit the terminal; .mode line shows all)",
            names.len()
        );
    }
    out.push(footer);
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use swingdb::arrow::array::{Int64Array, StringArray};
    use swingdb::arrow::datatypes::{Field, Schema};

    fn sample(rows: i64) -> (SchemaRef, Vec<RecordBatch>) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ]));
        let ids = Int64Array::from_iter_values(0..rows);
        let names = StringArray::from_iter((0..rows).map(|i| (i % 2 == 0).then(|| format!("n,\"{i}\""))));
        (schema.clone(), vec![RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(names)]).unwrap()])
    }

    const WIDE: Limits = Limits { max_rows: 40, width: None };

    #[test]
    fn every_mode_writes_every_value() {
        let (schema, batches) = sample(2);
        let types = vec!["BIGINT".to_string(), "VARCHAR".to_string()];
        assert_eq!(render(Mode::Csv, &schema, &types, &batches, WIDE, None), "id,name\n0,\"n,\"\"0\"\"\"\n1,");
        assert_eq!(
            render(Mode::Json, &schema, &types, &batches, WIDE, None),
            "[\n{\"id\":0,\"name\":\"n,\\\"0\\\"\"},\n{\"id\":1,\"name\":null}\n]"
        );
        assert_eq!(
            render(Mode::Markdown, &schema, &types, &batches, WIDE, None),
            "| id  | name  |\n|----:|-------|\n|   0 | n,\"0\" |\n|   1 | NULL  |"
        );
        assert_eq!(
            render(Mode::Line, &schema, &types, &batches, WIDE, None),
            "  id = 0\nname = n,\"0\"\n\n  id = 1\nname = NULL"
        );
        let table = render(Mode::Table, &schema, &types, &batches, WIDE, None);
        assert!(
            table.contains("| id     | name    |")
                && table.contains("| BIGINT | VARCHAR |")
                && table.ends_with("2 rows"),
            "{table}"
        );
    }

    #[test]
    fn long_results_show_both_ends_and_say_how_many_were_left_out() {
        let (schema, batches) = sample(100);
        let table = render(
            Mode::Box,
            &schema,
            &["BIGINT".into(), "VARCHAR".into()],
            &batches,
            Limits { max_rows: 6, width: None },
            None,
        );
        assert!(
            table.contains("│      2 │") && table.contains("│     97 │") && !table.contains("│      3 │"),
            "{table}"
        );
        assert!(table.ends_with("100 rows (6 shown, 94 left out; .maxrows N shows more)"), "{table}");
    }

    #[test]
    fn wide_results_are_cut_to_the_terminal() {
        let (schema, batches) = sample(1);
        let table = render(
            Mode::Table,
            &schema,
            &["BIGINT".into(), "VARCHAR".into()],
            &batches,
            Limits { max_rows: 40, width: Some(12) },
            None,
        );
        assert!(table.lines().all(|l| l.chars().count() <= 16 || l.starts_with('1')), "{table}");
        assert!(table.contains('…') && table.contains("1 left out to fit the terminal"), "{table}");
    }
}
