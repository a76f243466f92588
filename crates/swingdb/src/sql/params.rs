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
    // Byte offset of the start of each line, to turn (line, column) into offsets.
    let mut line_starts = vec![0usize];
    line_starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    let mut n = 0;
    for tok in tokens {
        if !matches!(&tok.token, Token::Placeholder(p) if p == "?") {
            continue;
        }
        let loc = tok.span.start;
        let line_start = line_starts[(loc.line as usize).saturating_sub(1)];
        let offset = line_start + sql[line_start..].chars().take((loc.column as usize).saturating_sub(1)).map(char::len_utf8).sum::<usize>();
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
