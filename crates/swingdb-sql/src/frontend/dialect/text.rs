//! DuckDB's (and swingdb's own) statements that sqlparser cannot read,
//! rewritten in the SQL text into forms it reads, before parsing. Each is
//! found token by token (strings and comments are never touched) and edited
//! around the original tokens, which are kept byte for byte.
//!
//! - `ATTACH SNAPSHOT 'name' AS s`: the call `swingdb_snapshot('name')`.
//! - `CREATE FUNCTION f(a) AS a + 1` and `DROP MACRO [TABLE] f`: a macro's
//!   `CREATE MACRO` and `DROP FUNCTION` (`dialect::macros`).
//! - `CREATE [OR REPLACE] SEQUENCE s` with options in any order: in the
//!   parser's order (`dialect::sequences`).
//! - `FROM t [WHERE ...]` without a SELECT: `SELECT * FROM t ...`.
//! - `... FROM t USING SAMPLE 10% (bernoulli)`: `TABLESAMPLE`, on the one
//!   table of the FROM clause or on all of it as a derived table (see
//!   `dialect::syntax` for how samples are drawn).
//! - `a ASOF [LEFT] JOIN b ON ...`: sqlparser's (Snowflake's) `ASOF JOIN b
//!   MATCH_CONDITION (TRUE|FALSE) ON ...`, the condition saying inner or left
//!   (`dialect::asof` plans it).
//! - `PIVOT t ON c [IN (...)] USING agg [GROUP BY g]` and `UNPIVOT t ON a, b
//!   [INTO NAME n VALUE v]`: the standard `SELECT * FROM t PIVOT (agg FOR c
//!   IN (... | ANY)) [GROUP BY g]` / `UNPIVOT (v FOR n IN (a, b))`
//!   (`dialect::pivot` plans them).
//! - `a ** b`, DuckDB's other spelling of `a ^ b` (`dialect::power`).

use super::tokens::{is_word, Tokens};
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan};

/// `sql` with the statements above rewritten (as it is when there are none).
pub fn rewrite(sql: &str) -> String {
    // Each rewrite tokenizes the text: only when its keyword is there.
    let lower = sql.to_ascii_lowercase();
    let mut sql = sql.to_string();
    type Rewrite = fn(&str) -> Option<String>;
    let rewrites: [(&str, Rewrite); 11] = [
        ("sequence", super::sequences::rewrite_create_sequence),
        ("function", super::macros::rewrite_macro_statements),
        ("macro", super::macros::rewrite_macro_statements),
        ("snapshot", rewrite_attach_snapshot),
        ("from", rewrite_from_first),
        ("pivot", rewrite_pivot_statements),
        ("sample", rewrite_using_sample),
        ("lambda", rewrite_lambda_keyword),
        ("asof", rewrite_asof),
        ("**", rewrite_double_star),
        ("insert", super::insert_by_name::rewrite_text),
    ];
    for (keyword, rewrite) in rewrites {
        if lower.contains(keyword) {
            sql = rewrite(&sql).unwrap_or(sql);
        }
    }
    sql
}

/// `**` (two `*` with nothing between them) as `^`. `None` if there is none.
fn rewrite_double_star(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    let mut i = 0;
    while i + 1 < text.tokens.len() {
        let pair = matches!((&text.tokens[i].token, &text.tokens[i + 1].token), (Token::Mul, Token::Mul));
        if pair && text.end(i) == text.start(i + 1) {
            edits.push((text.start(i)?..text.end(i + 1)?, "^"));
            i += 2;
        } else {
            i += 1;
        }
    }
    text.edited(edits)
}

/// DuckDB 2's lambda syntax `lambda x, i: body` as the arrow form `(x, i) ->
/// body` (`x -> body` for one parameter), which `dialect::lambdas` reads.
/// `None` if there is none.
fn rewrite_lambda_keyword(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let words = text.words();
    let mut edits = Vec::new();
    for (w, &i) in words.iter().enumerate() {
        if !is_word(&text.tokens[i].token, "LAMBDA") {
            continue;
        }
        // Names separated by commas, then a colon.
        let mut names = Vec::new();
        let mut at = w + 1;
        let colon = loop {
            match words.get(at).map(|&j| &text.tokens[j].token) {
                Some(Token::Word(name)) if name.quote_style.is_none() && names.len() == (at - w - 1) / 2 => {
                    names.push(name.value.clone())
                }
                Some(Token::Comma) if !names.is_empty() => {}
                Some(Token::Colon) if !names.is_empty() => break Some(words[at]),
                _ => break None,
            }
            at += 1;
        };
        let Some(colon) = colon else { continue };
        let params = match names.as_slice() {
            [one] => one.clone(),
            many => format!("({})", many.join(", ")),
        };
        edits.push((text.start(i)?..text.end(colon)?, format!("{params} ->")));
    }
    text.edited(edits.iter().map(|(r, s)| (r.clone(), s.as_str())).collect())
}

/// The function call that stands for a snapshot in a parsed `ATTACH`
/// statement (see [`rewrite_attach_snapshot`]).
pub const SNAPSHOT_FUNCTION: &str = "swingdb_snapshot";

/// `ATTACH SNAPSHOT 'name' AS alias` is swingdb's own statement; the parser
/// knows `ATTACH <expression> AS alias`. Rewrites the snapshot into the call
/// `swingdb_snapshot('name')` at the start of statements only, found token by
/// token (so strings and comments are never touched), by editing the text
/// around the original string literal (which is kept byte for byte: tokens
/// printed back would lose the escaping of quotes). `None` if there is none.
fn rewrite_attach_snapshot(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let tokens = &text.tokens;
    let next = |from: usize| (from..tokens.len()).find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)));
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for i in text.statement_starts() {
        if !is_word(&tokens[i].token, "ATTACH") {
            continue;
        }
        let keyword = next(i + 1).filter(|&j| is_word(&tokens[j].token, "SNAPSHOT"));
        let name =
            keyword.and_then(|j| next(j + 1)).filter(|&k| matches!(tokens[k].token, Token::SingleQuotedString(_)));
        if let (Some(j), Some(k)) = (keyword, name) {
            let (kw_start, kw_end) = (text.offset(tokens[j].span.start)?, text.offset(tokens[j].span.end)?);
            let name_end = text.offset(tokens[k].span.end)?;
            edits.push((kw_start..kw_end, SNAPSHOT_FUNCTION));
            edits.push((kw_end..kw_end, "("));
            edits.push((name_end..name_end, ")"));
        }
    }
    text.edited(edits)
}

/// DuckDB's FROM-first statements without a SELECT (`FROM t`, `FROM t WHERE
/// a > 1 ORDER BY b`) select every column: `SELECT * ` is put before the
/// `FROM` of a statement that starts with one and has no SELECT outside
/// parentheses (`FROM t SELECT a` the parser reads as it is). Found token by
/// token, so strings and comments are never touched. `None` if there is none.
fn rewrite_from_first(sql: &str) -> Option<String> {
    if !sql.trim_start().get(..4).is_some_and(|w| w.eq_ignore_ascii_case("from")) && !sql.contains(';') {
        return None;
    }
    let text = Tokens::of(sql)?;
    let tokens = &text.tokens;
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for i in text.statement_starts() {
        if !is_word(&tokens[i].token, "FROM") {
            continue;
        }
        let mut depth = 0usize;
        let mut selects = false;
        for t in tokens[i..].iter().map(|t| &t.token).take_while(|t| !matches!(t, Token::SemiColon)) {
            match t {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                t if depth == 0 && is_word(t, "SELECT") => selects = true,
                _ => {}
            }
        }
        if !selects {
            let at = text.offset(tokens[i].span.start)?;
            edits.push((at..at, "SELECT * "));
        }
    }
    text.edited(edits)
}

/// Clauses that end a FROM clause.
const AFTER_FROM: &[&str] =
    &["WHERE", "GROUP", "HAVING", "WINDOW", "QUALIFY", "ORDER", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT"];

/// DuckDB's `USING SAMPLE spec`, written after the FROM, WHERE and GROUP BY
/// clauses and meaning a sample of the FROM clause's rows (drawn before
/// WHERE filters them): `TABLESAMPLE spec` on the FROM clause's table, or on
/// `(SELECT * FROM <the clause>)` when it has several. `None` if there is
/// none (or it is not a sample this knows how to spell).
fn rewrite_using_sample(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let mut edits = Vec::new();
    let words = text.words();
    for (w, &i) in words.iter().enumerate() {
        if !is_word(&text.tokens[i].token, "USING")
            || !words.get(w + 1).is_some_and(|&j| is_word(&text.tokens[j].token, "SAMPLE"))
        {
            continue;
        }
        let spec_start = words[w + 1] + 1;
        let spec_end = text.clause_end(spec_start, AFTER_FROM);
        let Some(spec) = sample_spec(&text.tokens[spec_start..spec_end]) else { continue };
        let Some(from) = text.enclosing_from(i) else { continue };
        let items_end = text.clause_end(from + 1, AFTER_FROM).min(i);
        let several = text.tokens[from + 1..items_end]
            .iter()
            .scan(0i32, |depth, t| {
                match t.token {
                    Token::LParen => *depth += 1,
                    Token::RParen => *depth -= 1,
                    _ => {}
                }
                Some((*depth, &t.token))
            })
            .any(|(depth, t)| depth == 0 && (matches!(t, Token::Comma) || is_word(t, "JOIN")));
        let items_at = text.end(text.last_word_before(items_end)?)?;
        if several {
            let after_from = text.end(from)?;
            edits.push((after_from..after_from, " (SELECT * FROM".to_string()));
            edits.push((items_at..items_at, format!(") TABLESAMPLE {spec}")));
        } else {
            edits.push((items_at..items_at, format!(" TABLESAMPLE {spec}")));
        }
        let spec_at = text.end(text.last_word_before(spec_end)?)?;
        let using_at = text.end(text.last_word_before(i)?)?;
        edits.push((using_at..spec_at, String::new()));
    }
    edits.sort_by_key(|(range, _)| range.start);
    text.edited(edits.iter().map(|(r, s)| (r.clone(), s.as_str())).collect())
}

/// DuckDB's sample spec (`10%`, `10 PERCENT`, `100 ROWS`, `100`,
/// `10% (bernoulli[, seed])`, `reservoir(100 ROWS)`, `... REPEATABLE (seed)`)
/// as a TABLESAMPLE spec; `None` for anything else.
fn sample_spec(tokens: &[TokenWithSpan]) -> Option<String> {
    let tokens: Vec<&Token> = tokens.iter().map(|t| &t.token).filter(|t| !matches!(t, Token::Whitespace(_))).collect();
    let word = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let mut at = 0;
    let mut method = None;
    let mut wrapped = false;
    if let (Some(m), Some(Token::LParen)) = (tokens.first().and_then(|t| word(t)), tokens.get(1)) {
        (method, wrapped, at) = (Some(m), true, 2);
    }
    let Some(Token::Number(n, _)) = tokens.get(at) else { return None };
    at += 1;
    let unit = match tokens.get(at) {
        Some(Token::Mod) => "PERCENT",
        Some(t) if word(t).as_deref() == Some("PERCENT") => "PERCENT",
        Some(t) if word(t).as_deref() == Some("ROWS") => "ROWS",
        _ => {
            at -= 1;
            "ROWS"
        }
    };
    at += 1;
    if wrapped {
        if !matches!(tokens.get(at), Some(Token::RParen)) {
            return None;
        }
        at += 1;
    }
    let mut seed = None;
    if !wrapped && matches!(tokens.get(at), Some(Token::LParen)) {
        method = Some(word(tokens.get(at + 1)?)?);
        at += 2;
        if matches!(tokens.get(at), Some(Token::Comma)) {
            let Some(Token::Number(s, _)) = tokens.get(at + 1) else { return None };
            seed = Some(s.clone());
            at += 2;
        }
        if !matches!(tokens.get(at), Some(Token::RParen)) {
            return None;
        }
        at += 1;
    }
    if tokens.get(at).and_then(|t| word(t)).as_deref() == Some("REPEATABLE") {
        let (Some(Token::LParen), Some(Token::Number(s, _)), Some(Token::RParen)) =
            (tokens.get(at + 1), tokens.get(at + 2), tokens.get(at + 3))
        else {
            return None;
        };
        seed = Some(s.clone());
        at += 4;
    }
    if at != tokens.len() {
        return None;
    }
    // DuckDB's reservoir draws rows uniformly, as a plain sample does here.
    let method = method.filter(|m| m != "RESERVOIR").map(|m| format!("{m} ")).unwrap_or_default();
    let seed = seed.map(|s| format!(" REPEATABLE ({s})")).unwrap_or_default();
    Some(format!("{method}({n} {unit}){seed}"))
}

/// `ASOF [LEFT [OUTER]] JOIN b ON|USING ...`: `ASOF JOIN b MATCH_CONDITION
/// (TRUE) ON ...` (`FALSE` for a left join). `None` if there is none.
fn rewrite_asof(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    let words = text.words();
    let mut edits: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for (w, &i) in words.iter().enumerate() {
        if !is_word(&text.tokens[i].token, "ASOF") {
            continue;
        }
        let mut next = w + 1;
        let left = words.get(next).is_some_and(|&j| is_word(&text.tokens[j].token, "LEFT"));
        if left {
            next += 1;
            if words.get(next).is_some_and(|&j| is_word(&text.tokens[j].token, "OUTER")) {
                next += 1;
            }
        }
        let Some(&join) = words.get(next).filter(|&&j| is_word(&text.tokens[j].token, "JOIN")) else { continue };
        let Some(constraint) = text.clause_end_at(join + 1, &["ON", "USING"]) else { continue };
        if left {
            edits.push((text.end(i)?..text.start(join)?, " "));
        }
        let at = text.start(constraint)?;
        edits.push((at..at, if left { "MATCH_CONDITION (FALSE) " } else { "MATCH_CONDITION (TRUE) " }));
    }
    text.edited(edits)
}

/// DuckDB's PIVOT and UNPIVOT statements (at the start of a statement or of
/// a parenthesized query) in the standard form. `None` if there is none.
fn rewrite_pivot_statements(sql: &str) -> Option<String> {
    let text = Tokens::of(sql)?;
    // Where a query may start: a statement, a parenthesis, after a WITH
    // clause, EXPLAIN or DESCRIBE, or the AS of CREATE TABLE|VIEW ... AS.
    let statements = text.statement_starts();
    let creates: Vec<usize> =
        statements.iter().copied().filter(|&i| is_word(&text.tokens[i].token, "CREATE")).collect();
    let mut starts: Vec<usize> =
        statements.into_iter().chain(text.words_after_open_paren()).chain(text.words_after_with_clauses()).collect();
    let words = text.words();
    for pair in words.windows(2) {
        let before = &text.tokens[pair[0]].token;
        let in_create = creates.iter().any(|&c| c < pair[0] && text.clause_end(c, &[]) > pair[0]);
        if ["EXPLAIN", "ANALYZE", "VERBOSE", "DESCRIBE"].iter().any(|w| is_word(before, w))
            || (is_word(before, "AS") && in_create)
        {
            starts.push(pair[1]);
        }
    }
    let mut edits = Vec::new();
    for i in starts {
        let pivot = is_word(&text.tokens[i].token, "PIVOT");
        if !pivot && !is_word(&text.tokens[i].token, "UNPIVOT") {
            continue;
        }
        let end = text.clause_end(i + 1, &[]);
        let part = |word: &str| text.clause_end_at(i + 1, &[word]).filter(|&j| j < end);
        let Some(on) = part("ON") else { continue };
        let tail = part("ORDER").or_else(|| part("LIMIT")).unwrap_or(end);
        let slice = |from: usize, to: usize| -> Option<&str> {
            let (a, b) = (text.start(from)?, text.end(text.last_word_before(to)?)?);
            Some(text.sql.get(a..b.max(a))?.trim())
        };
        let relation = slice(i + 1, on)?;
        let replacement = if pivot {
            let using = part("USING").filter(|&u| u < tail);
            let group = part("GROUP").filter(|&g| g < tail);
            let on_end = using.or(group).unwrap_or(tail);
            let values = text.clause_end_at(on + 1, &["IN"]).filter(|&j| j < on_end);
            let mut column = slice(on + 1, values.unwrap_or(on_end))?.to_string();
            if text.has_top_level_comma(on + 1, values.unwrap_or(on_end)) {
                column = format!("({column})");
            }
            let values = match values {
                Some(v) => slice(v + 1, on_end)?.to_string(),
                None => "(ANY)".to_string(),
            };
            let aggregates = match using {
                Some(u) => slice(u + 1, group.unwrap_or(tail))?,
                None => "count(*)",
            };
            let group = match group {
                Some(g) => format!(" {}", slice(g, tail)?),
                None => String::new(),
            };
            format!("SELECT * FROM {relation} PIVOT ({aggregates} FOR {column} IN {values}){group}")
        } else {
            let into = part("INTO").filter(|&j| j < tail);
            let columns = slice(on + 1, into.unwrap_or(tail))?;
            let (mut name, mut value) = ("\"name\"".to_string(), "\"value\"".to_string());
            if let Some(into) = into {
                let words: Vec<usize> = text.words().into_iter().filter(|&j| j > into && j < tail).collect();
                let [n_kw, n, v_kw, v] = words.as_slice() else { continue };
                if !is_word(&text.tokens[*n_kw].token, "NAME") || !is_word(&text.tokens[*v_kw].token, "VALUE") {
                    continue;
                }
                (name, value) = (slice(*n, n + 1)?.to_string(), slice(*v, v + 1)?.to_string());
            }
            format!("SELECT * FROM {relation} UNPIVOT ({value} FOR {name} IN ({columns}))")
        };
        edits.push((text.start(i)?..text.end(text.last_word_before(tail)?)?, replacement));
    }
    edits.sort_by_key(|(range, _)| range.start);
    text.edited(edits.iter().map(|(r, s)| (r.clone(), s.as_str())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::parse::parse;

    #[test]
    fn attach_snapshot_becomes_a_call_only_where_a_statement_starts() {
        assert_eq!(
            rewrite_attach_snapshot("SELECT 'a''b'; attach  Snapshot\n 'it''s' AS s; SELECT 'c''d'").as_deref(),
            Some("SELECT 'a''b'; attach  swingdb_snapshot(\n 'it''s') AS s; SELECT 'c''d'")
        );
        // A quote inside the name stays inside the string: no statement can be smuggled in.
        let statements = parse("ATTACH SNAPSHOT 'x'') AS y; DROP TABLE t; --' AS z").unwrap();
        assert_eq!(statements.len(), 1);
        assert_eq!(rewrite_attach_snapshot("SELECT 'ATTACH SNAPSHOT ''x'' AS s'"), None);
        assert_eq!(rewrite_attach_snapshot("SELECT snapshot FROM t"), None);
        assert_eq!(parse("ATTACH SNAPSHOT 'x' AS s; SELECT 1").unwrap().len(), 2);
    }

    #[test]
    fn double_star_becomes_caret_outside_strings_and_comments() {
        assert_eq!(
            rewrite("SELECT 2**3, a ** b, '**' -- **\n FROM t").as_str(),
            "SELECT 2^3, a ^ b, '**' -- **\n FROM t"
        );
        assert_eq!(rewrite_double_star("SELECT * * 2, count(*) * 2 FROM t"), None);
    }

    #[test]
    fn statements_that_start_with_from_and_select_nothing_select_everything() {
        assert_eq!(rewrite_from_first("FROM t WHERE a = 'FROM'").as_deref(), Some("SELECT * FROM t WHERE a = 'FROM'"));
        assert_eq!(
            rewrite_from_first("SELECT 1; -- c\n from t LIMIT (SELECT 2); FROM t SELECT a").as_deref(),
            Some("SELECT 1; -- c\n SELECT * from t LIMIT (SELECT 2); FROM t SELECT a")
        );
        assert_eq!(rewrite_from_first("FROM t SELECT a WHERE a > 1"), None);
        assert_eq!(rewrite_from_first("SELECT a FROM t"), None);
    }

    #[test]
    fn samples_after_from_become_tablesamples() {
        assert_eq!(rewrite("SELECT * FROM t USING SAMPLE 10%"), "SELECT * FROM t TABLESAMPLE (10 PERCENT)");
        assert_eq!(
            rewrite("SELECT a FROM t AS x WHERE a > 1 USING SAMPLE 10 PERCENT (bernoulli, 7) ORDER BY a"),
            "SELECT a FROM t AS x TABLESAMPLE BERNOULLI (10 PERCENT) REPEATABLE (7) WHERE a > 1 ORDER BY a"
        );
        assert_eq!(
            rewrite("SELECT * FROM t, u USING SAMPLE reservoir(5 ROWS)"),
            "SELECT * FROM (SELECT * FROM t, u) TABLESAMPLE (5 ROWS)"
        );
        assert_eq!(
            rewrite("SELECT (SELECT 1 FROM t USING SAMPLE 3) FROM u"),
            "SELECT (SELECT 1 FROM t TABLESAMPLE (3 ROWS)) FROM u"
        );
        assert_eq!(rewrite("SELECT 'USING SAMPLE 1' FROM t"), "SELECT 'USING SAMPLE 1' FROM t");
    }

    #[test]
    fn lambda_keywords_become_arrows() {
        assert_eq!(rewrite("SELECT list_transform(l, lambda x: x * 2)"), "SELECT list_transform(l, x -> x * 2)");
        assert_eq!(
            rewrite("SELECT list_filter(l, lambda x, i: i > 1), 'lambda y: 1'"),
            "SELECT list_filter(l, (x, i) -> i > 1), 'lambda y: 1'"
        );
        assert_eq!(rewrite("SELECT lambda FROM t"), "SELECT lambda FROM t");
    }

    #[test]
    fn asof_joins_get_a_match_condition_saying_inner_or_left() {
        assert_eq!(
            rewrite("SELECT * FROM a ASOF JOIN (SELECT * FROM b WHERE c ON d) b ON a.t >= b.t"),
            "SELECT * FROM a ASOF JOIN (SELECT * FROM b WHERE c ON d) b MATCH_CONDITION (TRUE) ON a.t >= b.t"
        );
        assert_eq!(
            rewrite("FROM a ASOF LEFT JOIN b USING (k, t)"),
            "SELECT * FROM a ASOF JOIN b MATCH_CONDITION (FALSE) USING (k, t)"
        );
    }

    #[test]
    fn pivot_statements_become_standard_pivots() {
        assert_eq!(
            rewrite("PIVOT t ON y USING sum(x) AS s GROUP BY g ORDER BY g LIMIT 1"),
            "SELECT * FROM t PIVOT (sum(x) AS s FOR y IN (ANY)) GROUP BY g ORDER BY g LIMIT 1"
        );
        assert_eq!(
            rewrite("CREATE VIEW v AS PIVOT t ON a, b USING sum(x)"),
            "CREATE VIEW v AS SELECT * FROM t PIVOT (sum(x) FOR (a, b) IN (ANY))"
        );
        assert_eq!(rewrite("SELECT * FROM t AS pivot JOIN u ON true"), "SELECT * FROM t AS pivot JOIN u ON true");
        assert_eq!(rewrite("pivot t on y in ('a', 'b');"), "SELECT * FROM t PIVOT (count(*) FOR y IN ('a', 'b'));");
        assert_eq!(
            rewrite("SELECT * FROM (UNPIVOT t ON x, z INTO NAME k VALUE v) u"),
            "SELECT * FROM (SELECT * FROM t UNPIVOT (v FOR k IN (x, z))) u"
        );
        assert_eq!(
            rewrite("WITH w AS (SELECT 1), v AS (SELECT 2) PIVOT w ON y"),
            "WITH w AS (SELECT 1), v AS (SELECT 2) SELECT * FROM w PIVOT (count(*) FOR y IN (ANY))"
        );
        assert_eq!(rewrite("UNPIVOT t ON x, z"), "SELECT * FROM t UNPIVOT (\"value\" FOR \"name\" IN (x, z))");
        for sql in ["SELECT pivot FROM t", "SELECT * FROM t PIVOT (sum(x) FOR y IN ('a'))"] {
            assert_eq!(rewrite(sql), sql);
            assert!(parse(sql).is_ok());
        }
    }
}
