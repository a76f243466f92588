//! Where in the statement's text an error that came without a place is:
//! found from what the message names (a string value that could not be
//! converted, a file, a column, a function, a type, a position in ORDER
//! BY, a LIMIT), when the text holds exactly one such token; a division by
//! zero at the statement's only division; a statement that ended too soon
//! at its last word. Never guessed among several.

use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use swingdb_storage::error::{Error, SqlSpan};

/// `err` located in `sql` if its message says where (see the module
/// documentation); unchanged otherwise.
pub(super) fn locate(err: Error, sql: &str) -> Error {
    let Ok(tokens) = Tokenizer::new(&GenericDialect {}, sql).tokenize_with_location() else { return err };
    let tokens: Vec<&TokenWithSpan> = tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).collect();
    let message = err.message();
    let found = if let Some(value) = quoted_after(message, "could not convert the string '") {
        let literal = only(&tokens, |t, _| matches!(&t.token, Token::SingleQuotedString(s) if *s == value));
        if literal.is_none() {
            if let Some(column) = converted_column(&tokens) {
                let target = message.rsplit(" to ").next().unwrap_or("a number").to_string();
                let name = match &column.token {
                    Token::Word(w) => w.value.clone(),
                    other => other.to_string(),
                };
                let message = format!(
                    "could not convert the string '{value}' of column {name} to {target}: it is compared with, or cast to, {target}; compare it with a string ({name} = '...') or convert only what converts (TRY_CAST({name} AS {target}))"
                );
                return err.with_message(message).with_span(span_of(column));
            }
        }
        literal
    } else if message.starts_with("Division by zero") {
        let division = |t: &TokenWithSpan, _: Option<&&TokenWithSpan>| {
            matches!(t.token, Token::Div | Token::Mod | Token::DuckIntDiv)
        };
        only(&tokens, division).or_else(|| {
            only(&tokens, |t, next| {
                division(t, None) && next.is_some_and(|n| matches!(&n.token, Token::Number(v, _) if v == "0"))
            })
        })
    } else if let Some(name) =
        quoted_after(message, "argument types '").and_then(|call| call.split('(').next().map(str::to_string))
    {
        only(&tokens, |t, next| word_is(t, &name) && next.is_some_and(|n| n.token == Token::LParen))
    } else if let Some(path) = quoted_after(message, "file '") {
        only(&tokens, |t, _| matches!(&t.token, Token::SingleQuotedString(s) if *s == path))
    } else if let Some(rest) = message.strip_prefix("No field named ") {
        // "nope. Did you mean ...", "u.nope. Did you mean ...": the column's own name.
        let named = rest.split(' ').next().unwrap_or(rest).trim_end_matches('.');
        let column = named.rsplit('.').next().unwrap_or(named).trim_matches('"');
        only(&tokens, |t, _| word_is(t, column))
    } else if message.contains("LIMIT") || message.contains("OFFSET") {
        let keyword = if message.contains("LIMIT") { Keyword::LIMIT } else { Keyword::OFFSET };
        let at = (0..tokens.len())
            .filter(|&i| matches!(&tokens[i].token, Token::Word(w) if w.keyword == keyword))
            .collect::<Vec<_>>();
        match at.as_slice() {
            [i] => tokens.get(i + 1).copied(),
            _ => None,
        }
    } else if message.ends_with("found: EOF") {
        tokens.iter().rev().find(|t| t.token != Token::EOF && t.token != Token::SemiColon).copied()
    } else if let Some(name) = message
        .split_once("() ")
        .map(|(name, _)| name)
        .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        only(&tokens, |t, next| word_is(t, name) && next.is_some_and(|n| n.token == Token::LParen))
    } else if let Some(name) = quoted_after(message, "type '") {
        only(&tokens, |t, _| word_is(t, &name))
    } else if let Some(position) = message
        .strip_prefix("ORDER BY ")
        .or_else(|| message.strip_prefix("GROUP BY "))
        .and_then(|r| r.split(' ').next())
    {
        let after_by = |i: usize| i > 0 && matches!(&tokens[i - 1].token, Token::Word(w) if w.keyword == Keyword::BY);
        let hits: Vec<usize> = (0..tokens.len())
            .filter(|&i| after_by(i) && matches!(&tokens[i].token, Token::Number(v, _) if v == position))
            .collect();
        match hits.as_slice() {
            [one] => Some(tokens[*one]),
            _ => None,
        }
    } else {
        None
    };
    match found {
        Some(token) => err.with_span(span_of(token)),
        None => err,
    }
}

/// The one column a statement compares with a number (`name = 1`,
/// `5 < name`, `name + 1`) or casts (`CAST(name AS ...)`): the column whose
/// strings a conversion error is about, when there is only one.
fn converted_column<'a>(tokens: &[&'a TokenWithSpan]) -> Option<&'a TokenWithSpan> {
    // Many column names are keywords too (`name`, `date`): any word but
    // the ones that are values or logic.
    let column = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) => {
            w.quote_style.is_some()
                || !matches!(
                    w.keyword,
                    Keyword::NULL
                        | Keyword::TRUE
                        | Keyword::FALSE
                        | Keyword::NOT
                        | Keyword::AND
                        | Keyword::OR
                        | Keyword::THEN
                        | Keyword::ELSE
                        | Keyword::WHEN
                        | Keyword::END
                        | Keyword::LIMIT
                        | Keyword::OFFSET
                        | Keyword::INTERVAL
                )
        }
        _ => false,
    };
    let operator = |t: &TokenWithSpan| {
        matches!(
            t.token,
            Token::Eq
                | Token::DoubleEq
                | Token::Neq
                | Token::Lt
                | Token::Gt
                | Token::LtEq
                | Token::GtEq
                | Token::Plus
                | Token::Minus
                | Token::Mul
                | Token::Div
                | Token::Mod
        )
    };
    let number = |t: &TokenWithSpan| matches!(t.token, Token::Number(..));
    let hits: Vec<usize> = (0..tokens.len())
        .filter(|&i| column(tokens[i]))
        .filter(|&i| {
            let at = |j: Option<usize>| j.and_then(|j| tokens.get(j)).copied();
            let (before, before2, after, after2) = (at(i.checked_sub(1)), at(i.checked_sub(2)), at(Some(i + 1)), at(Some(i + 2)));
            let compared_after = after.is_some_and(operator) && after2.is_some_and(number);
            let compared_before = before.is_some_and(operator) && before2.is_some_and(number);
            let cast = before.is_some_and(|t| t.token == Token::LParen)
                && before2.is_some_and(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::CAST || w.keyword == Keyword::TRY_CAST))
                && after.is_some_and(|t| matches!(&t.token, Token::Word(w) if w.keyword == Keyword::AS));
            compared_after || compared_before || cast
        })
        .collect();
    match hits.as_slice() {
        [one] => Some(tokens[*one]),
        _ => None,
    }
}

/// The text between `prefix` and the next `'` in `message`.
fn quoted_after(message: &str, prefix: &str) -> Option<String> {
    let rest = &message[message.find(prefix)? + prefix.len()..];
    Some(rest[..rest.find('\'')?].to_string())
}

/// The one token that `wanted` (given it and the token after it) picks, if
/// exactly one does.
fn only<'a>(
    tokens: &[&'a TokenWithSpan],
    wanted: impl Fn(&TokenWithSpan, Option<&&TokenWithSpan>) -> bool,
) -> Option<&'a TokenWithSpan> {
    let mut hits = tokens.iter().enumerate().filter(|(i, t)| wanted(t, tokens.get(i + 1)));
    match (hits.next(), hits.next()) {
        (Some((_, one)), None) => Some(*one),
        _ => None,
    }
}

fn word_is(token: &TokenWithSpan, name: &str) -> bool {
    matches!(&token.token, Token::Word(w) if w.value.eq_ignore_ascii_case(name))
}

fn span_of(token: &TokenWithSpan) -> SqlSpan {
    let (start, end) = (token.span.start, token.span.end);
    SqlSpan {
        line: start.line,
        column: start.column,
        end_column: (end.line == start.line && end.column > start.column).then(|| end.column - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(message: &str, sql: &str) -> Option<(u64, Option<u64>)> {
        locate(Error::data(message), sql).span().map(|s| (s.column, s.end_column))
    }

    #[test]
    fn places_named_by_the_message() {
        assert_eq!(
            at("could not convert the string 'x' to INTEGER", "INSERT INTO t VALUES ('x', 'b')"),
            Some((23, Some(25)))
        );
        assert_eq!(at("could not convert the string 'x' to INTEGER", "INSERT INTO t VALUES ('x', 'x')"), None);
        assert_eq!(at("Division by zero", "SELECT qty / 0 FROM t"), Some((12, Some(12))));
        assert_eq!(at("Division by zero", "SELECT a / b, c % 0 FROM t"), Some((17, Some(17))));
        assert_eq!(at("Division by zero", "SELECT a / b, c / d FROM t"), None);
        assert_eq!(
            at("No function matches the given name and argument types 'upper(INTEGER)'.", "SELECT upper(qty) FROM t"),
            Some((8, Some(12)))
        );
        assert_eq!(
            at("type 'INTEGR' does not exist. Did you mean INTEGER?", "CREATE TABLE w (a INTEGR)"),
            Some((19, Some(24)))
        );
        assert_eq!(
            at("could not convert the string 'ann' to BIGINT", "SELECT * FROM t WHERE name = 1"),
            Some((23, Some(26)))
        );
        assert_eq!(
            at("could not convert the string 'ann' to INTEGER", "SELECT CAST(name AS INTEGER) FROM t"),
            Some((13, Some(16)))
        );
        assert_eq!(
            at("could not convert the string 'ann' to BIGINT", "SELECT * FROM t WHERE name = 1 OR note = 2"),
            None
        );
        assert_eq!(at("file 'x.csv' does not exist", "SELECT * FROM read_csv('x.csv')"), Some((24, Some(30))));
        assert_eq!(
            at("No field named nope. Did you mean 't.name'?", "SELECT count(*) FROM t HAVING nope > 1"),
            Some((31, Some(34)))
        );
        assert_eq!(at("LIMIT must be >= 0, '-1' was provided", "SELECT * FROM t LIMIT -1"), Some((23, Some(23))));
        assert_eq!(
            at("SQL syntax error: Expected: an expression, found: EOF", "SELECT * FROM t WHERE"),
            Some((17, Some(21)))
        );
        assert_eq!(at("substr() needs a start position", "SELECT substr('abc')"), Some((8, Some(13))));
        assert_eq!(
            at("ORDER BY 9 refers to no column: the select list has 5", "SELECT * FROM t ORDER BY 9"),
            Some((26, Some(26)))
        );
    }
}
