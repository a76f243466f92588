//! SQL text with its tokens, for the rewrites of [`super::text`] and the
//! statements they hand to other modules (sequences, macros): found token by
//! token, so strings and comments are never touched, and edited around the
//! original tokens, which are kept byte for byte.

use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// Whether `t` is the unquoted word `word` (any case).
pub(super) fn is_word(t: &Token, word: &str) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// SQL text with its tokens, for rewrites that edit the text around tokens
/// (keeping everything else byte for byte).
pub(super) struct Tokens<'a> {
    pub(super) sql: &'a str,
    pub(super) tokens: Vec<TokenWithSpan>,
    line_starts: Vec<usize>,
}

impl<'a> Tokens<'a> {
    /// The byte range of token `i` in the text.
    pub(super) fn start(&self, i: usize) -> Option<usize> {
        self.offset(self.tokens.get(i)?.span.start)
    }

    pub(super) fn end(&self, i: usize) -> Option<usize> {
        self.offset(self.tokens.get(i)?.span.end)
    }

    /// The last token before `at` that is not whitespace.
    pub(super) fn last_word_before(&self, at: usize) -> Option<usize> {
        (0..at.min(self.tokens.len())).rev().find(|&i| !matches!(self.tokens[i].token, Token::Whitespace(_)))
    }

    /// Whether tokens `from..to` hold a comma outside parentheses.
    pub(super) fn has_top_level_comma(&self, from: usize, to: usize) -> bool {
        let mut depth = 0i32;
        self.tokens[from..to.min(self.tokens.len())].iter().any(|t| {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => depth -= 1,
                _ => {}
            }
            depth == 0 && matches!(t.token, Token::Comma)
        })
    }

    /// Indexes of the tokens that are not whitespace.
    pub(super) fn words(&self) -> Vec<usize> {
        (0..self.tokens.len()).filter(|&i| !matches!(self.tokens[i].token, Token::Whitespace(_))).collect()
    }

    /// Indexes of the first tokens after each `(`.
    pub(super) fn words_after_open_paren(&self) -> Vec<usize> {
        let words = self.words();
        words.windows(2).filter(|w| matches!(self.tokens[w[0]].token, Token::LParen)).map(|w| w[1]).collect()
    }

    /// Indexes of the first tokens after the WITH clause of each statement
    /// that has one.
    pub(super) fn words_after_with_clauses(&self) -> Vec<usize> {
        let words = self.words();
        let mut after = Vec::new();
        for start in self.statement_starts() {
            if !is_word(&self.tokens[start].token, "WITH") {
                continue;
            }
            let mut depth = 0usize;
            for pair in words.windows(2).filter(|w| w[0] > start) {
                match &self.tokens[pair[0]].token {
                    Token::SemiColon => break,
                    Token::LParen => depth += 1,
                    Token::RParen => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 && !matches!(self.tokens[pair[1]].token, Token::Comma) {
                            after.push(pair[1]);
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        after
    }

    /// Where the clause that starts at token `from` ends: the first `;`, a
    /// `)` closing a parenthesis opened before `from`, or (outside
    /// parentheses) one of `words`; the end of the text if none.
    pub(super) fn clause_end(&self, from: usize, words: &[&str]) -> usize {
        let mut depth = 0usize;
        for (i, t) in self.tokens.iter().enumerate().skip(from) {
            match &t.token {
                Token::SemiColon => return i,
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => return i,
                Token::RParen => depth -= 1,
                t if depth == 0 && words.iter().any(|w| is_word(t, w)) => return i,
                _ => {}
            }
        }
        self.tokens.len()
    }

    /// The first of `words` from token `from` on, outside parentheses and
    /// before the clause ends.
    pub(super) fn clause_end_at(&self, from: usize, words: &[&str]) -> Option<usize> {
        let at = self.clause_end(from, words);
        self.tokens.get(at).is_some_and(|t| words.iter().any(|w| is_word(&t.token, w))).then_some(at)
    }

    /// The `FROM` of the clause that token `at` is in (outside parentheses).
    pub(super) fn enclosing_from(&self, at: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in (0..at).rev() {
            match &self.tokens[i].token {
                Token::RParen => depth += 1,
                Token::LParen if depth == 0 => return None,
                Token::LParen => depth -= 1,
                Token::SemiColon => return None,
                t if depth == 0 && is_word(t, "FROM") => return Some(i),
                _ => {}
            }
        }
        None
    }

    pub(super) fn of(sql: &'a str) -> Option<Self> {
        let tokens = Tokenizer::new(&GenericDialect {}, sql).tokenize_with_location().ok()?;
        let line_starts = std::iter::once(0).chain(sql.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Some(Self { sql, tokens, line_starts })
    }

    /// The byte offset of `loc` in the text.
    pub(super) fn offset(&self, loc: Location) -> Option<usize> {
        let start = *self.line_starts.get((loc.line as usize).checked_sub(1)?)?;
        let line = &self.sql[start..];
        let column = (loc.column as usize).checked_sub(1)?;
        Some(start + line.char_indices().nth(column).map_or(line.len(), |(i, _)| i))
    }

    /// Indexes of the first token of each statement (after whitespace and `;`).
    pub(super) fn statement_starts(&self) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut at_start = true;
        for (i, t) in self.tokens.iter().enumerate() {
            if matches!(t.token, Token::Whitespace(_)) {
                continue;
            }
            if at_start && !matches!(t.token, Token::SemiColon) {
                starts.push(i);
            }
            at_start = matches!(t.token, Token::SemiColon);
        }
        starts
    }

    /// The text with `edits` (byte range to replace, replacement; in text
    /// order) made; `None` if there are none.
    pub(super) fn edited(&self, edits: Vec<(std::ops::Range<usize>, &str)>) -> Option<String> {
        if edits.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(self.sql.len() + 32 * edits.len());
        let mut from = 0;
        for (range, text) in edits {
            out.push_str(self.sql.get(from..range.start)?);
            out.push_str(text);
            from = range.end;
        }
        out.push_str(&self.sql[from..]);
        Some(out)
    }
}
