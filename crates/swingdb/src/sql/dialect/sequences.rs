//! Sequences in SQL: DuckDB's `CREATE [OR REPLACE] SEQUENCE` with its
//! options in any order, read into a [`Sequence`], and the functions
//! `nextval('s')` and `currval('s')` (see `storage::sequence` for how values
//! are handed out once across processes).

use super::text::{is_word, Tokens};
use crate::error::{Error, ErrorKind, Result};
use crate::sql::catalog::Tables;
use crate::storage::{DbDir, Sequence};
use datafusion::arrow::array::Int64Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, plan_err, Result as DFResult, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use datafusion::sql::sqlparser::ast::{DataType as SqlDataType, Expr, SequenceOptions, UnaryOperator, Value};
use datafusion::sql::sqlparser::tokenizer::Token;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

/// The last value `nextval` gave in this connection, by sequence name.
type LastValues = Arc<Mutex<HashMap<String, i64>>>;

/// `nextval('s')` and `currval('s')` of a connection whose catalog is
/// `tables`, known as schema `own`, in the database `dir`.
pub fn functions(own: &str, tables: Tables, dir: Arc<DbDir>) -> [ScalarUDF; 2] {
    let last = LastValues::default();
    let own = own.to_string();
    let next = SequenceFunction {
        next: true,
        own: own.clone(),
        tables: tables.clone(),
        dir: dir.clone(),
        last: last.clone(),
        signature: signature(),
    };
    let current = SequenceFunction { next: false, own, tables, dir, last, signature: signature() };
    [ScalarUDF::new_from_impl(next), ScalarUDF::new_from_impl(current)]
}

fn signature() -> Signature {
    Signature::exact(vec![DataType::Utf8], Volatility::Volatile)
}

/// `nextval` or `currval`.
#[derive(Debug)]
struct SequenceFunction {
    next: bool,
    own: String,
    tables: Tables,
    dir: Arc<DbDir>,
    last: LastValues,
    signature: Signature,
}

impl PartialEq for SequenceFunction {
    fn eq(&self, other: &Self) -> bool {
        self.next == other.next && Arc::ptr_eq(&self.last, &other.last)
    }
}

impl Eq for SequenceFunction {}

impl std::hash::Hash for SequenceFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.next, Arc::as_ptr(&self.last)).hash(state)
    }
}

impl SequenceFunction {
    /// The catalog name of the sequence `written` names (`'s'`, `'main.s'`,
    /// `'"S"'`; unquoted names fold to lower case as in SQL) and the sequence.
    fn find(&self, written: &str) -> DFResult<(String, Sequence)> {
        let parts: Vec<&str> = written.split('.').map(str::trim).collect();
        // `o.s` names a sequence of database `o`: never this one's `s`.
        if let [.., schema, _] = parts.as_slice() {
            if !schema.trim_matches('"').eq_ignore_ascii_case(&self.own) {
                return plan_err!(
                    "{}('{written}'): only sequences of this connection's own database ({}) can be used",
                    self.name(),
                    self.own
                );
            }
        }
        let last = parts.last().copied().unwrap_or(written);
        let name = match last.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
            Some(quoted) => quoted.to_string(),
            None => last.to_string(),
        };
        let tables = self.tables.lock().unwrap();
        let found =
            [name.clone(), name.to_lowercase()].into_iter().find_map(|n| Some((n.clone(), tables.get(&n)?.clone())));
        match found {
            Some((n, meta)) => match meta.as_sequence() {
                Some(sequence) => Ok((n, sequence.clone())),
                None => plan_err!("'{n}' is a {}, not a sequence", meta.kind()),
            },
            None => plan_err!("sequence '{written}' does not exist (CREATE SEQUENCE {name} makes one)"),
        }
    }
}

impl ScalarUDFImpl for SequenceFunction {
    fn name(&self) -> &str {
        if self.next {
            "nextval"
        } else {
            "currval"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let written = match args.args.first() {
            Some(ColumnarValue::Scalar(ScalarValue::Utf8(Some(s)))) => s.clone(),
            _ => return exec_err!("{}() takes the name of a sequence, as a constant string", self.name()),
        };
        let (name, sequence) = self.find(&written)?;
        if !self.next {
            return match self.last.lock().unwrap().get(&name) {
                Some(&value) => Ok(ColumnarValue::Scalar(ScalarValue::Int64(Some(value)))),
                None => {
                    exec_err!("currval('{written}'): nextval was not called for the sequence in this connection yet")
                }
            };
        }
        self.dir.refuse_read_only().map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        let values = sequence
            .take(&name, &self.dir.segment_path(&sequence.file), args.number_rows)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        if let Some(&last) = values.last() {
            self.last.lock().unwrap().insert(name, last);
        }
        Ok(ColumnarValue::Array(Arc::new(Int64Array::from(values))))
    }
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
