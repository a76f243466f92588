//! Statement routing: which executor runs a statement (transaction
//! control, ATTACH, statements DataFusion does not plan, then the planned
//! ones by their plan), and the run of a planned query.

use super::attach;
use super::Connection;
use crate::api::result::QueryResult;
use crate::error::{Error, Result};
use crate::sql::frontend::diagnose;
use crate::sql::frontend::parse::parse;
use crate::sql::statements::TextStatement;
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement as SqlStatement;

impl Connection {
    /// Runs `sql` (one or more statements; see [`Connection::execute`]):
    /// SUMMARIZE, EXPORT and IMPORT DATABASE first (they are not SQL that
    /// DataFusion parses), a repeated query from its kept plan, else each
    /// statement in turn.
    pub(super) async fn execute_async(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        if let Some(statement) = TextStatement::recognize(sql) {
            let statement = statement?;
            return self.atomically(|| self.exec.run_text_statement(statement)).await;
        }
        if params.is_empty() {
            if let Some(result) = self.exec.cached_query(sql)? {
                return Ok(result.into());
            }
        }
        let statements = parse(sql)?;
        let remember = self.exec.plans_to_keep(&statements, params);
        let mut last = QueryResult::empty();
        let count = statements.len();
        for (index, statement) in statements.into_iter().enumerate() {
            self.exec.remember_as(remember.then_some(sql));
            let outcome = self.run_statement(statement, params, count == 1).await;
            self.exec.remember_as(None);
            last = outcome.map_err(|e| diagnose::in_statement(e, index, count))?;
        }
        Ok(last)
    }

    /// Runs one statement; `exact_params` asks that it use every parameter given.
    pub(super) async fn run_statement(
        &self,
        statement: DFStatement,
        params: &[ScalarValue],
        exact_params: bool,
    ) -> Result<QueryResult> {
        if let DFStatement::Statement(s) = &statement {
            match s.as_ref() {
                SqlStatement::StartTransaction { .. } => {
                    if self.in_transaction() {
                        return Err(Error::programming("a transaction is already open; COMMIT or ROLLBACK it first"));
                    }
                    self.begin(true)?;
                    return Ok(QueryResult::empty());
                }
                SqlStatement::Commit { .. } | SqlStatement::Rollback { .. } => {
                    if !self.in_transaction() {
                        return Err(Error::programming("no transaction is open (start one with BEGIN)"));
                    }
                    let commit = matches!(s.as_ref(), SqlStatement::Commit { .. });
                    self.finish(commit)?;
                    return Ok(QueryResult::empty());
                }
                // Not part of any transaction: what is attached stays attached.
                SqlStatement::AttachDatabase { .. } | SqlStatement::AttachDuckDBDatabase { .. } => {
                    return match attach::AttachRequest::from_statement(s)? {
                        Some(request) => self.attach_database(request),
                        None => match s.as_ref() {
                            SqlStatement::AttachDatabase { schema_name, database_file_name, .. } => {
                                self.attach_snapshot(database_file_name, schema_name)
                            }
                            _ => Err(Error::internal("an ATTACH statement of no known kind")),
                        },
                    };
                }
                SqlStatement::DetachDuckDBDatabase { database_alias, if_exists, .. } => {
                    if self.detach_database(&crate::sql::frontend::parse::identifier(database_alias))? {
                        return Ok(QueryResult::empty());
                    }
                    return self.detach(database_alias, *if_exists);
                }
                _ => {}
            }
        }
        match self.member_for(&statement)? {
            None => {
                self.atomically(|| async {
                    let result = self.exec.run_in_txn(statement, params, exact_params).await?;
                    self.check_one_writer(self)?;
                    Ok(result)
                })
                .await
            }
            // A statement that changes an attached database runs on its
            // member, inside this connection's transaction.
            Some(member) => {
                self.atomically(|| async {
                    *member.exec.progress.lock().unwrap() = self.exec.progress.lock().unwrap().clone();
                    member
                        .atomically(|| async {
                            let result = member.exec.run_in_txn(statement, params, exact_params).await?;
                            self.check_one_writer(&member)?;
                            Ok(result)
                        })
                        .await
                })
                .await
            }
        }
    }
}
