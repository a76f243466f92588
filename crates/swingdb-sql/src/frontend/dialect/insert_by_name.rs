//! DuckDB's `INSERT INTO t BY NAME SELECT ...`: the query's columns go to
//! the table's columns of the same names (any case), in whatever order, the
//! others get their defaults; `BY POSITION` is the plain INSERT.
//!
//! The parser does not read either, so the text is rewritten first
//! ([`rewrite_text`]): `BY NAME` becomes a column list of one marker name,
//! which [`resolve`] replaces by the query's column names once the query
//! can be planned.

use super::tokens::{is_word, Tokens};
use crate::frontend::names::object_name;
use crate::Tables;
use datafusion::execution::session_state::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Ident, ObjectName, Statement, TableObject};
use datafusion::sql::sqlparser::tokenizer::Token;
use swingdb_storage::error::{Error, Result};

/// The column list that stands for `BY NAME` until [`resolve`].
const MARKER: &str = "__swingdb_by_name";

/// `INSERT [OR ...] INTO name BY NAME|POSITION` with `BY NAME` as the marker
/// column list and `BY POSITION` left out. `None` if there is none.
pub fn rewrite_text(sql: &str) -> Option<String> {
    let has = |word: &[u8]| sql.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    if !has(b"name") && !has(b"position") {
        return None; // the common INSERT: neither copied nor tokenized again
    }
    let text = Tokens::of(sql)?;
    let words = text.words();
    let word = |k: usize, w: &str| words.get(k).is_some_and(|&i| is_word(&text.tokens[i].token, w));
    let mut edits = Vec::new();
    for (k, _) in words.iter().enumerate().filter(|(k, _)| word(*k, "insert")) {
        let mut at = k + 1;
        if word(at, "or") {
            at += 2;
        }
        if !word(at, "into") {
            continue;
        }
        at += 1;
        // The table's name: words joined by dots.
        while matches!(words.get(at + 1).map(|&i| &text.tokens[i].token), Some(Token::Period)) {
            at += 2;
        }
        at += 1;
        let by_name = word(at, "by") && word(at + 1, "name");
        if by_name || (word(at, "by") && word(at + 1, "position")) {
            let range = text.start(words[at])?..text.end(words[at + 1])?;
            edits.push((range, if by_name { "(\"__swingdb_by_name\")" } else { "" }));
        }
    }
    match edits.is_empty() {
        true => None,
        false => text.edited(edits),
    }
}

/// Replaces the marker column list of an INSERT by the names of its query's
/// columns, spelled as the table's columns are.
pub async fn resolve(statement: &mut DFStatement, state: &SessionState, tables: &Tables, own: &str) -> Result<()> {
    let DFStatement::Statement(s) = statement else { return Ok(()) };
    let Statement::Insert(insert) = s.as_mut() else { return Ok(()) };
    let marked = matches!(insert.columns.as_slice(), [c] if c.0.len() == 1
        && c.0[0].as_ident().is_some_and(|i| i.value == MARKER));
    if !marked {
        return Ok(());
    }
    let Some(source) = insert.source.clone() else {
        return Err(Error::programming("INSERT ... BY NAME needs a query: INSERT INTO t BY NAME SELECT ..."));
    };
    let plan = state
        .statement_to_plan(DFStatement::Statement(Box::new(Statement::Query(source))))
        .await
        .map_err(Error::from)?;
    let TableObject::TableName(name) = &insert.table else {
        return Err(Error::programming("INSERT ... BY NAME names a table"));
    };
    let table = object_name(name, own).ok();
    let meta = table.as_ref().and_then(|n| tables.lock().get(n).cloned());
    let targets: Vec<String> = match &meta {
        Some(meta) => meta.schema.fields().iter().map(|f| f.name().clone()).collect(),
        None => Vec::new(), // another database's table: names as the query gives them
    };
    let mut columns = Vec::new();
    for field in plan.schema().fields() {
        let given = field.name();
        let column = match meta {
            None => given.clone(),
            Some(_) => match targets
                .iter()
                .find(|t| *t == given)
                .or_else(|| targets.iter().find(|t| t.eq_ignore_ascii_case(given)))
            {
                Some(t) => t.clone(),
                None => {
                    return Err(Error::programming(format!(
                        "INSERT ... BY NAME: table '{}' has no column named '{given}' (its columns: {})",
                        name,
                        targets.join(", ")
                    )))
                }
            },
        };
        if columns.contains(&column) {
            return Err(Error::programming(format!("INSERT ... BY NAME: the query gives column '{column}' twice")));
        }
        columns.push(column);
    }
    insert.columns = columns.into_iter().map(|c| ObjectName::from(vec![Ident::with_quote('"', c)])).collect();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::rewrite_text;

    #[test]
    fn by_name_becomes_a_marker_and_by_position_goes() {
        assert_eq!(
            rewrite_text("INSERT INTO main.u BY NAME SELECT 1 AS id").unwrap(),
            "INSERT INTO main.u (\"__swingdb_by_name\") SELECT 1 AS id"
        );
        assert_eq!(
            rewrite_text("insert or replace into u by position select 1").unwrap(),
            "insert or replace into u  select 1"
        );
        assert_eq!(rewrite_text("SELECT 'insert into u by name'"), None);
    }
}
