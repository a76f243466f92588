//! Statement routing: which executor runs a statement (transaction
//! control, ATTACH, statements DataFusion does not plan, then the planned
//! ones by their plan), and the run of a planned query.

use super::Connection;
use super::{attach, describe_columns, export, plan_cache, summarize};
use crate::api::result::QueryResult;
use crate::error::{Error, ErrorKind, Result};
use crate::sql::diagnose;
use crate::sql::output_names::restore_names;
use crate::sql::parse::parse;
use crate::sql::prepare::{before_routing, prepare, PrepareContext, Prepared, PreparedPlan};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{DdlStatement, LogicalPlan, Statement};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{ObjectType, Statement as SqlStatement};

impl Connection {
    /// Runs `sql` (one or more statements; see [`Connection::execute`]):
    /// SUMMARIZE, EXPORT and IMPORT DATABASE first (they are not SQL that
    /// DataFusion parses), a repeated query from its kept plan, else each
    /// statement in turn.
    pub(super) async fn execute_async(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        if let Some(target) = summarize::summarize_target(sql) {
            return self.atomically(|| self.summarize(target)).await;
        }
        if let Some(transfer) = export::export_or_import(sql) {
            let transfer = transfer?;
            // One transaction: an export reads one version, an import lands whole or not at all.
            return match transfer.export {
                true => self.atomically(|| self.export_database(&transfer.dir, transfer.format)).await,
                false => self.atomically(|| self.import_database(&transfer.dir)).await,
            };
        }
        if params.is_empty() {
            if let Some(result) = self.cached_query(sql)? {
                return Ok(result);
            }
        }
        let statements = parse(sql)?;
        // Other statements may change settings, functions or views.
        if !statements.iter().all(plan_cache::is_query) {
            self.plan_cache.lock().unwrap().clear();
        }
        let remember = params.is_empty() && statements.len() == 1 && plan_cache::is_query(&statements[0]);
        let mut last = QueryResult::empty();
        let count = statements.len();
        for (index, statement) in statements.into_iter().enumerate() {
            if remember {
                *self.remember_as.lock().unwrap() = Some(sql.to_string());
            }
            let outcome = self.run_statement(statement, params, count == 1).await;
            self.remember_as.lock().unwrap().take();
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
                    if self.detach_database(&crate::sql::parse::identifier(database_alias))? {
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
                    let result = self.run_in_txn(statement, params, exact_params).await?;
                    self.check_one_writer(self)?;
                    Ok(result)
                })
                .await
            }
            // A statement that changes an attached database runs on its
            // member, inside this connection's transaction.
            Some(member) => {
                self.atomically(|| async {
                    *member.progress.lock().unwrap() = self.progress.lock().unwrap().clone();
                    member
                        .atomically(|| async {
                            let result = member.run_in_txn(statement, params, exact_params).await?;
                            self.check_one_writer(&member)?;
                            Ok(result)
                        })
                        .await
                })
                .await
            }
        }
    }

    /// Runs `statement` inside the open transaction: the statements
    /// DataFusion does not plan by their executors, the others prepared (see
    /// `sql::prepare`) and run by their plan.
    pub(super) async fn run_in_txn(
        &self,
        mut statement: DFStatement,
        params: &[ScalarValue],
        exact_params: bool,
    ) -> Result<QueryResult> {
        before_routing(&mut statement);
        if let DFStatement::CopyTo(copy) = &statement {
            if crate::sql::remote::is_url(&copy.target) {
                self.check_external_access("COPY")?;
                return self.copy_statement_to_url(copy).await;
            }
        }
        if let DFStatement::Statement(s) = &statement {
            match s.as_ref() {
                SqlStatement::AlterTable(alter) => return self.alter_table(alter).await,
                SqlStatement::Merge(merge) => return self.merge(merge, params).await,
                SqlStatement::CreateIndex(create) => return self.create_index(create),
                SqlStatement::Drop { object_type: ObjectType::Index, names, if_exists, .. } => {
                    return self.drop_index(names, *if_exists)
                }
                SqlStatement::CreateSequence { name, temporary, if_not_exists, data_type, sequence_options, owned_by: None } => {
                    return self.create_sequence(name, *temporary, *if_not_exists, data_type.as_ref(), sequence_options)
                }
                SqlStatement::Drop { object_type: ObjectType::Sequence, names, if_exists, .. } => {
                    return self.drop_sequences(names, *if_exists)
                }
                SqlStatement::CreateMacro { or_replace, temporary, name, args, definition } => {
                    return self.create_macro(name, *or_replace, *temporary, args.as_deref(), definition)
                }
                SqlStatement::DropFunction(drop) => return self.drop_macros(&drop.func_desc, drop.if_exists),
                SqlStatement::CreateType { name, .. } => {
                    return Err(Error::new(
                        ErrorKind::NotSupported,
                        format!(
                            "CREATE TYPE {name} is not supported yet; for an ENUM, use a VARCHAR column with \
                             CHECK (col IN ('a', 'b', ...)) (it sorts by text, where DuckDB sorts an ENUM in the order declared)"
                        ),
                    ))
                }
                SqlStatement::Copy { .. } => self.check_external_access("COPY")?,
                _ => {}
            }
            match s.as_ref() {
                SqlStatement::Copy { source, to: false, target, options, .. } => {
                    return self.copy_from(source, target, options).await
                }
                SqlStatement::Copy { source, to: true, target, options, .. } => {
                    return self.copy_to(source, target, options).await
                }
                _ => {}
            }
        }
        let state = self.ctx.state();
        let cx = PrepareContext {
            state: &state,
            tables: &self.tables,
            own: &self.own,
            external_access: self.core.external_access,
        };
        let PreparedPlan { plan, names, upsert, column_rules } =
            match prepare(statement, &cx, params, exact_params).await? {
                Prepared::View(statement) => return self.create_view(&statement).await,
                Prepared::Plan(prepared) => prepared,
            };
        match plan {
            LogicalPlan::Ddl(DdlStatement::CreateMemoryTable(create)) => self.create_table(create, column_rules).await,
            LogicalPlan::Ddl(DdlStatement::DropTable(drop)) => self.drop_table(&drop),
            LogicalPlan::Ddl(DdlStatement::DropView(drop)) => self.drop_view(&drop),
            LogicalPlan::DescribeTable(describe) => match names.renamed(describe.schema.as_ref()) {
                Some(named) => describe_columns(&named),
                None => describe_columns(describe.schema.as_ref()),
            },
            LogicalPlan::Ddl(other) => {
                Err(Error::new(ErrorKind::NotSupported, format!("{} is not supported yet", other.name())))
            }
            LogicalPlan::Dml(dml) => self.run_dml(dml, upsert).await,
            // Side effects happen now, not when (or if) someone reads the result.
            LogicalPlan::Copy(copy) => {
                self.check_external_access("COPY")?;
                let target = copy.output_url.clone();
                self.run_copy(LogicalPlan::Copy(copy), &target).await
            }
            LogicalPlan::Statement(s) if !matches!(s, Statement::SetVariable(_)) => {
                Err(Error::new(ErrorKind::NotSupported, format!("{} is not supported", s.name())))
            }
            plan => {
                let remember = self.remember_as.lock().unwrap().take().filter(|_| plan_cache::same_every_run(&plan));
                if remember.is_some() {
                    self.keep_next_plan();
                }
                let planned = self.physical_plan(plan).await;
                let mut run = None;
                if let Some(sql) = remember {
                    let kept = self.take_kept_plan();
                    if let Ok((physical, task_ctx)) = &planned {
                        run = self.remember_plan(sql, kept, physical, task_ctx, &names);
                    }
                }
                let (physical, task_ctx) = planned?;
                let mut stream = self.stream_physical(physical, task_ctx)?;
                if let Some(run) = run {
                    stream = plan_cache::while_running(stream, run);
                }
                let stream = restore_names(stream, names)?;
                Ok(QueryResult::streaming(stream))
            }
        }
    }

    /// Refuses `what` (an access to files) when the database was opened with
    /// `external_access` off.
    pub(super) fn check_external_access(&self, what: &str) -> Result<()> {
        if self.core.external_access {
            return Ok(());
        }
        Err(Error::programming(format!(
            "{what} reads or writes files, and external access is disabled for this database (external_access=False)"
        )))
    }
}
