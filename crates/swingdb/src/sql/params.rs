//! Positional parameters: `?` placeholders are numbered into DataFusion's `$n`
//! form, so both styles work with the same list of values.

use crate::error::{Error, Result};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};

/// Rewrites each `?` placeholder (outside strings and comments) as `$1`, `$2`, ...
pub fn number_placeholders(sql: &str) -> Result<String> {
    if !sql.contains('?') {
        return Ok(sql.to_string());
    }
    let tokens = Tokenizer::new(&GenericDialect {}, sql)
        .tokenize_with_location()
        .map_err(|e| Error::programming(format!("SQL syntax error: {e}")))?;
    // Tokens come in order: walk a cursor forward through the text to each
    // placeholder's (line, column), so the whole rewrite is linear in the text.
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    let mut n = 0;
    let (mut offset, mut line, mut column) = (0usize, 1u64, 1u64);
    let mut chars = sql.char_indices().peekable();
    for tok in tokens {
        if !matches!(&tok.token, Token::Placeholder(p) if p == "?") {
            continue;
        }
        let target = tok.span.start;
        while (line, column) < (target.line, target.column) {
            let Some((i, c)) = chars.next() else { break };
            offset = i + c.len_utf8();
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        if let Some(&(i, _)) = chars.peek() {
            offset = i;
        }
        n += 1;
        out.push_str(&sql[copied..offset]);
        out.push_str(&format!("${n}"));
        copied = offset + 1;
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
}
