//! Statement routing: which executor runs a statement (transaction
//! control, ATTACH, statements DataFusion does not plan, then the planned
//! ones by their plan), and the run of a planned query.

use super::Session;
use crate::frontend::control::Control;
use crate::frontend::diagnose::in_statement;
use crate::frontend::parse::parse;
use crate::statements::Output;
use crate::statements::TextStatement;
use datafusion::common::ScalarValue;
use datafusion::sql::parser::Statement as DFStatement;
use swingdb_storage::error::{Error, Result};

impl Session {
    /// Runs `sql` (one or more statements; see [`Session::execute`]):
    /// SUMMARIZE, EXPORT and IMPORT DATABASE first (they are not SQL that
    /// DataFusion parses), a repeated query from its kept plan, else each
    /// statement in turn.
    pub(super) async fn execute_async(&self, sql: &str, params: &[ScalarValue]) -> Result<Output> {
        if let Some(statement) = TextStatement::recognize(sql) {
            let statement = statement?;
            return self.atomically(|| self.exec.run_text_statement(statement)).await;
        }
        if params.is_empty() {
            if let Some(result) = self.exec.cached_query(sql)? {
                return Ok(result);
            }
        }
        let statements = parse(sql)?;
        let remember = self.exec.plans_to_keep(&statements, params);
        let mut last = Output::Empty;
        let count = statements.len();
        for (index, statement) in statements.into_iter().enumerate() {
            self.exec.remember_as(remember.then_some(sql));
            let exact_params = count == 1;
            // A statement run again is parsed again from the text (rarely):
            // not copied ahead of every run in case it is.
            let mut first = Some(statement);
            let attempt = || {
                let parsed = first.take();
                async move {
                    let statement = match parsed {
                        Some(statement) => statement,
                        None => {
                            parse(sql)?.into_iter().nth(index).ok_or_else(|| Error::internal("a statement vanished"))?
                        }
                    };
                    self.run_statement(statement, params, exact_params).await
                }
            };
            let outcome = self.retrying_conflicts(sql, attempt).await;
            self.exec.remember_as(None);
            last = outcome.map_err(|e| in_statement(e, index, count))?;
        }
        Ok(last)
    }

    /// Runs one statement; `exact_params` asks that it use every parameter given.
    pub(super) async fn run_statement(
        &self,
        statement: DFStatement,
        params: &[ScalarValue],
        exact_params: bool,
    ) -> Result<Output> {
        if let Some(control) = Control::recognize(&statement)? {
            return self.control(control);
        }
        let statement = self.with_temporary(statement)?;
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
                    member.exec.set_progress(self.exec.progress());
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

    /// Runs a statement about the connection itself.
    fn control(&self, control: Control) -> Result<Output> {
        match control {
            Control::Begin => {
                if self.in_transaction() {
                    return Err(Error::programming("a transaction is already open; COMMIT or ROLLBACK it first"));
                }
                self.begin(true)?;
            }
            Control::End { commit } => {
                if !self.in_transaction() {
                    return Err(Error::programming("no transaction is open (start one with BEGIN)"));
                }
                self.finish(commit)?;
            }
            // Not part of any transaction: what is attached stays attached.
            Control::AttachDatabase(request) => self.attach_database(request)?,
            Control::AttachSnapshot { name, alias } => self.attach_snapshot(&name, alias)?,
            Control::Detach { alias, written, if_exists } => {
                if !self.detach_database(&alias)? {
                    self.detach(&written, if_exists)?;
                }
            }
        }
        Ok(Output::Empty)
    }
}
