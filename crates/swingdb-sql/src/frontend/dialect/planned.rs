//! Queries the dialect's rewrites plan (or run) to learn what a statement
//! reads before rewriting it: the columns of a PIVOT's input or of the FROM
//! clause `COLUMNS(...)` picks from, the values a PIVOT makes columns of.
//! Each is planned as the statement would be: after its WITH clause, with
//! DuckDB's spellings rewritten and unquoted names matching any case.

use crate::frontend::case_fold::plan_refolding;
use datafusion::dataframe::DataFrame;
use datafusion::execution::context::SessionState;
use datafusion::sql::sqlparser::ast::With;
use swingdb_storage::error::Result;

/// The query `sql`, planned in `state` with the statement's WITH clause in front.
pub async fn run(sql: &str, with: Option<&With>, state: &SessionState) -> Result<DataFrame> {
    let sql = match with {
        Some(with) => format!("{with} {sql}"),
        None => sql.to_string(),
    };
    let mut statement = crate::frontend::parse::parse(&sql)?.remove(0);
    super::syntax::rewrite(&mut statement)?;
    let plan = plan_refolding(state, &mut statement).await?;
    Ok(DataFrame::new(state.clone(), plan))
}

/// The names of the columns of `from` (the text of a FROM clause's items).
pub async fn columns(from: &str, with: Option<&With>, state: &SessionState) -> Result<Vec<String>> {
    let frame = run(&format!("SELECT * FROM {from}"), with, state).await?;
    Ok(frame.schema().fields().iter().map(|f| f.name().clone()).collect())
}
