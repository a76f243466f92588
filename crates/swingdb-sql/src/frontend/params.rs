//! Placeholders. Positional: `?` placeholders are numbered into DataFusion's
//! `$n` form, so both styles work with the same list of values. Named:
//! `$name` and `:name` placeholders, given values by name, become `$n` too,
//! numbered in order of first appearance, with the values put in that order.
//! Only the statement's own placeholder tokens are rewritten; values are
//! always bound, never written into the SQL.

use datafusion::common::ScalarValue;
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use swingdb_storage::error::{Error, Result};

/// Rewrites each `?` placeholder (outside strings and comments) as `$1`, `$2`, ...
pub fn number_placeholders(sql: &str) -> Result<String> {
    if !sql.contains('?') {
        return Ok(sql.to_string());
    }
    let mut n = 0;
    rewrite(sql, |tokens, i| match &tokens[i].token {
        Token::Placeholder(p) if p == "?" => {
            n += 1;
            Some((1, format!("${n}")))
        }
        _ => None,
    })
}

/// `sql` with its `$name` and `:name` placeholders numbered, and the values
/// of `named` in the order of those numbers. A placeholder without a value
/// and a value without a placeholder are errors naming them.
pub fn name_placeholders(sql: &str, named: &[(String, ScalarValue)]) -> Result<(String, Vec<ScalarValue>)> {
    let mut order: Vec<String> = Vec::new();
    let mut missing: Option<String> = None;
    let value_of = |name: &str| named.iter().position(|(n, _)| n == name);
    let text = rewrite(sql, |tokens, i| {
        let (name, width, shown) = match &tokens[i].token {
            Token::Placeholder(p) if p.starts_with('$') && p[1..].parse::<u64>().is_err() => {
                (p[1..].to_string(), 1, p.clone())
            }
            // `:name` arrives as ':' and a word; only names given count
            // (`a[lo:hi]` slices look the same).
            Token::Colon => match tokens.get(i + 1).map(|t| &t.token) {
                Some(Token::Word(w)) if adjacent(&tokens[i], &tokens[i + 1]) && value_of(&w.value).is_some() => {
                    (w.value.clone(), 2, format!(":{}", w.value))
                }
                _ => return None,
            },
            _ => return None,
        };
        if value_of(&name).is_none() {
            missing.get_or_insert(shown);
        }
        let n = match order.iter().position(|o| *o == name) {
            Some(k) => k + 1,
            None => {
                order.push(name);
                order.len()
            }
        };
        Some((width, format!("${n}")))
    })?;
    let given = || named.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
    if let Some(shown) = missing {
        return Err(Error::programming(format!(
            "no value was given for parameter {shown} (values given: {})",
            given()
        )));
    }
    if let Some((unused, _)) = named.iter().find(|(n, _)| !order.contains(n)) {
        return Err(Error::programming(
            format!("a value was given for '{unused}', but the statement has no parameter $${unused} or :{unused}")
                .replace("$$", "$"),
        ));
    }
    let values = order.iter().map(|name| named[value_of(name).expect("checked above")].1.clone()).collect();
    Ok((text, values))
}

/// Whether `b` starts right where `a` ends (no space between).
fn adjacent(a: &TokenWithSpan, b: &TokenWithSpan) -> bool {
    a.span.end == b.span.start
}

/// `sql` with the tokens `replace` picks replaced: called with every token's
/// index, it answers how many tokens from there to replace, and by what.
fn rewrite(sql: &str, mut replace: impl FnMut(&[TokenWithSpan], usize) -> Option<(usize, String)>) -> Result<String> {
    let tokens =
        Tokenizer::new(&GenericDialect {}, sql).tokenize_with_location().map_err(|e| Error::syntax(&e.to_string()))?;
    // Tokens come in order: walk a cursor forward through the text to each
    // replaced token's (line, column), so the whole rewrite is linear in the text.
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    let (mut line, mut column) = (1u64, 1u64);
    let mut chars = sql.char_indices().peekable();
    let mut offset_of = |target: (u64, u64)| {
        while (line, column) < target {
            let Some((_, c)) = chars.next() else { break };
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        chars.peek().map_or(sql.len(), |&(i, _)| i)
    };
    let mut i = 0;
    while i < tokens.len() {
        let Some((width, text)) = replace(&tokens, i) else {
            i += 1;
            continue;
        };
        let start = offset_of((tokens[i].span.start.line, tokens[i].span.start.column));
        let last = &tokens[i + width - 1].span.end;
        let end = offset_of((last.line, last.column));
        out.push_str(&sql[copied..start]);
        out.push_str(&text);
        copied = end;
        i += width;
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_marks_become_numbered_outside_strings() {
        let sql = "SELECT '?', a FROM t WHERE a = ? AND b = 'it''s ?'\n  AND c = ?";
        assert_eq!(
            number_placeholders(sql).unwrap(),
            "SELECT '?', a FROM t WHERE a = $1 AND b = 'it''s ?'\n  AND c = $2"
        );
    }

    #[test]
    fn dollar_placeholders_are_left_alone() {
        assert_eq!(number_placeholders("SELECT $1").unwrap(), "SELECT $1");
    }

    fn named(pairs: &[(&str, i64)]) -> Vec<(String, ScalarValue)> {
        pairs.iter().map(|(n, v)| (n.to_string(), ScalarValue::Int64(Some(*v)))).collect()
    }

    #[test]
    fn names_become_numbers_in_order_of_first_use() {
        let (sql, values) =
            name_placeholders("SELECT $b, ':a', :a -- $zz\n, $b, a[1:2], x::INT", &named(&[("a", 1), ("b", 2)]))
                .unwrap();
        assert_eq!(sql, "SELECT $1, ':a', $2 -- $zz\n, $1, a[1:2], x::INT");
        assert_eq!(values, vec![ScalarValue::Int64(Some(2)), ScalarValue::Int64(Some(1))]);
    }

    #[test]
    fn missing_and_unused_names_are_errors() {
        let err = name_placeholders("SELECT $a, $c", &named(&[("a", 1)])).unwrap_err();
        assert!(err.message().contains("no value was given for parameter $c"), "{err}");
        let err = name_placeholders("SELECT $a", &named(&[("a", 1), ("b", 2)])).unwrap_err();
        assert!(err.message().contains("'b'") && err.message().contains(":b"), "{err}");
    }
}
