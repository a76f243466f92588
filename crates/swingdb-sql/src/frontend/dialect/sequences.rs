//! Sequences in SQL: DuckDB's `CREATE [OR REPLACE] SEQUENCE` with its
//! options in any order, read into a [`Sequence`] (the functions that take
//! values are in [`super::sequence_values`]).

use super::tokens::{is_word, Tokens};
use datafusion::sql::sqlparser::ast::{DataType as SqlDataType, Expr, SequenceOptions, UnaryOperator, Value};
use datafusion::sql::sqlparser::tokenizer::Token;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::Sequence;

/// The type name that stands for `OR REPLACE` in a rewritten `CREATE
/// SEQUENCE` (sqlparser reads `CREATE OR REPLACE` only for tables, views and
/// functions; DuckDB has no `AS type` for sequences to confuse it with).
pub const OR_REPLACE_MARK: &str = "__swingdb_or_replace";

/// DuckDB's `CREATE [OR REPLACE] [TEMP] SEQUENCE [IF NOT EXISTS] name`
/// followed by its options in any order, written in the one order sqlparser
/// reads (`INCREMENT, MINVALUE, MAXVALUE, START, CYCLE`), `OR REPLACE` as
/// [`OR_REPLACE_MARK`]. `None` if there is none, or its options are not
/// ones this knows (the parser then says what is wrong).
pub(super) fn rewrite_create_sequence(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let tokens = &text.tokens;
    let words = text.words();
    let mut edits = Vec::new();
    for start in text.statement_starts() {
        let at = words.iter().position(|&w| w == start)?;
        let word = |k: usize| words.get(at + k).map(|&i| &tokens[i].token);
        if !word(0).is_some_and(|t| is_word(t, "CREATE")) {
            continue;
        }
        let mut k = 1;
        let or_replace = word(1).is_some_and(|t| is_word(t, "OR")) && word(2).is_some_and(|t| is_word(t, "REPLACE"));
        if or_replace {
            k += 2;
        }
        let temporary = word(k).is_some_and(|t| is_word(t, "TEMP") || is_word(t, "TEMPORARY"));
        if temporary {
            k += 1;
        }
        if !word(k).is_some_and(|t| is_word(t, "SEQUENCE")) {
            continue;
        }
        k += 1;
        let name_from = k;
        if word(k).is_some_and(|t| is_word(t, "IF")) {
            k += 3;
        }
        // The name: words joined by dots.
        k += 1;
        while word(k).is_some_and(|t| matches!(t, Token::Period)) {
            k += 2;
        }
        let name_to = k - 1;
        let Some((options, end)) = parse_options(&text, &words[at + k..]) else { continue };
        let head = format!(
            "CREATE {}SEQUENCE {}{}",
            if temporary { "TEMPORARY " } else { "" },
            text.sql.get(text.start(words[at + name_from])?..text.end(words[at + name_to])?)?,
            if or_replace { format!(" AS \"{OR_REPLACE_MARK}\"") } else { String::new() }
        );
        let to = match end {
            Some(i) => text.start(i)?,
            None => text.sql.len(),
        };
        edits.push((text.start(start)?..to, format!("{head}{options} ")));
    }
    text.edited(edits.iter().map(|(r, s)| (r.clone(), s.as_str())).collect())
}

/// The options from the words `words` on, in sqlparser's order, and the
/// token that ends them (a `;`, or none at the end of the text).
fn parse_options(text: &Tokens, words: &[usize]) -> Option<(String, Option<usize>)> {
    let token = |k: usize| words.get(k).map(|&i| &text.tokens[i].token);
    let number = |k: usize| -> Option<(String, usize)> {
        match (token(k)?, token(k + 1)) {
            (Token::Minus, Some(Token::Number(n, _))) => Some((format!("-{n}"), 2)),
            (Token::Plus, Some(Token::Number(n, _))) => Some((n.clone(), 2)),
            (Token::Number(n, _), _) => Some((n.clone(), 1)),
            _ => None,
        }
    };
    let (mut increment, mut min, mut max, mut start, mut cycle) = (None, None, None, None, None);
    let mut k = 0;
    let end = loop {
        let Some(t) = token(k) else { break None };
        let mut keyword_then_number = |optional: &str| -> Option<String> {
            let skip = if token(k + 1).is_some_and(|t| is_word(t, optional)) { 2 } else { 1 };
            let (n, used) = number(k + skip)?;
            k += skip + used;
            Some(n)
        };
        if matches!(t, Token::SemiColon) {
            break Some(words[k]);
        } else if is_word(t, "INCREMENT") {
            increment = Some(format!(" INCREMENT BY {}", keyword_then_number("BY")?));
        } else if is_word(t, "START") {
            start = Some(format!(" START WITH {}", keyword_then_number("WITH")?));
        } else if is_word(t, "MINVALUE") {
            min = Some(format!(" MINVALUE {}", keyword_then_number("")?));
        } else if is_word(t, "MAXVALUE") {
            max = Some(format!(" MAXVALUE {}", keyword_then_number("")?));
        } else if is_word(t, "CYCLE") {
            cycle = Some(" CYCLE");
            k += 1;
        } else if is_word(t, "NO") {
            let what = token(k + 1)?;
            if is_word(what, "CYCLE") {
                cycle = Some(" NO CYCLE");
            } else if is_word(what, "MINVALUE") {
                min = Some(" NO MINVALUE".to_string());
            } else if is_word(what, "MAXVALUE") {
                max = Some(" NO MAXVALUE".to_string());
            } else {
                return None;
            }
            k += 2;
        } else {
            return None;
        }
    };
    let options = [increment, min, max, start, cycle.map(str::to_string)].into_iter().flatten().collect::<String>();
    Some((options, end))
}

/// A `CREATE SEQUENCE` statement's parts, read from sqlparser's.
pub struct CreateSequence {
    /// The sequence (its counter file not made yet).
    pub sequence: Sequence,
    /// `OR REPLACE` was written.
    pub or_replace: bool,
}

/// Reads the options of `CREATE SEQUENCE name ...` (`name` for messages).
pub fn read_create(name: &str, data_type: Option<&SqlDataType>, options: &[SequenceOptions]) -> Result<CreateSequence> {
    let or_replace = match data_type {
        None => false,
        Some(SqlDataType::Custom(type_name, _)) if type_name.to_string() == format!("\"{OR_REPLACE_MARK}\"") => true,
        Some(other) => {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("sequence '{name}': AS {other} is not supported; sequences count in BIGINT"),
            ));
        }
    };
    let (mut increment, mut min, mut max, mut start, mut cycle) = (None, None, None, None, false);
    for option in options {
        match option {
            SequenceOptions::IncrementBy(e, _) => increment = Some(integer(name, "INCREMENT", e)?),
            SequenceOptions::MinValue(e) => min = e.as_ref().map(|e| integer(name, "MINVALUE", e)).transpose()?,
            SequenceOptions::MaxValue(e) => max = e.as_ref().map(|e| integer(name, "MAXVALUE", e)).transpose()?,
            SequenceOptions::StartWith(e, _) => start = Some(integer(name, "START", e)?),
            SequenceOptions::Cycle(no) => cycle = !*no,
            SequenceOptions::Cache(_) => {}
        }
    }
    Ok(CreateSequence { sequence: Sequence::new(name, increment, min, max, start, cycle)?, or_replace })
}

fn integer(name: &str, option: &str, e: &Expr) -> Result<i64> {
    let parsed = match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse::<i64>().ok(),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => integer(name, option, expr).ok().and_then(i64::checked_neg),
        Expr::UnaryOp { op: UnaryOperator::Plus, expr } => integer(name, option, expr).ok(),
        _ => None,
    };
    parsed.ok_or_else(|| Error::programming(format!("sequence '{name}': {option} must be a BIGINT number, not {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_in_any_order_become_the_parsers_order() {
        let sql = "create or replace sequence s START 5 increment by -2 NO CYCLE MAXVALUE 10; SELECT 1";
        assert_eq!(
            rewrite_create_sequence(sql).unwrap(),
            format!("CREATE SEQUENCE s AS \"{OR_REPLACE_MARK}\" INCREMENT BY -2 MAXVALUE 10 START WITH 5 NO CYCLE ; SELECT 1")
        );
        assert_eq!(
            rewrite_create_sequence("CREATE SEQUENCE IF NOT EXISTS main.s").unwrap(),
            "CREATE SEQUENCE IF NOT EXISTS main.s "
        );
        assert_eq!(rewrite_create_sequence("CREATE TABLE s (a INT)"), None);
        assert_eq!(
            rewrite_create_sequence("CREATE SEQUENCE s OWNED BY t.a"),
            None,
            "unknown options are left to the parser"
        );
    }
}
