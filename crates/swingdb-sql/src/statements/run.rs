//! Running one statement inside the open transaction: the statements
//! DataFusion does not plan go to their executors, the others are prepared
//! (see `sql::frontend::prepare`) and run by their plan; a query's plan may be kept
//! for its next run (see `plan_cache.rs`).

use super::export::{export_or_import, Transfer};
use super::summarize::summarize_target;
use super::{describe_columns, plan_cache, Executor, Output};
use crate::frontend::output_names::restore_names;
use crate::frontend::prepare::{before_routing, prepare, PrepareContext, Prepared, PreparedPlan};
use datafusion::common::ScalarValue;
use datafusion::execution::SessionState;
use datafusion::logical_expr::{DdlStatement, LogicalPlan, Statement};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{ObjectType, Statement as SqlStatement};
use swingdb_storage::error::{Error, ErrorKind, Result};

/// A statement DataFusion does not parse, recognized by its text.
pub enum TextStatement<'a> {
    /// `SUMMARIZE t` or `SUMMARIZE query`: what it summarizes.
    Summarize(&'a str),
    /// `EXPORT DATABASE` or `IMPORT DATABASE`.
    Transfer(Transfer),
}

impl<'a> TextStatement<'a> {
    /// The statement `sql` is, if it is one of these; an error for an
    /// EXPORT or IMPORT with options this cannot honour.
    pub fn recognize(sql: &'a str) -> Option<Result<Self>> {
        if let Some(target) = summarize_target(sql) {
            return Some(Ok(Self::Summarize(target)));
        }
        export_or_import(sql).map(|transfer| transfer.map(Self::Transfer))
    }
}

impl Executor {
    /// Runs `statement` inside the open transaction (an export reads one
    /// version, an import lands whole or not at all).
    pub async fn run_text_statement(&self, statement: TextStatement<'_>) -> Result<Output> {
        match statement {
            TextStatement::Summarize(target) => self.summarize(target).await,
            TextStatement::Transfer(transfer) if transfer.export => {
                self.export_database(&transfer.dir, transfer.format).await
            }
            TextStatement::Transfer(transfer) => self.import_database(&transfer.dir).await,
        }
    }

    /// Runs `statement` inside the open transaction: the statements
    /// DataFusion does not plan by their executors, the others prepared (see
    /// `sql::frontend::prepare`) and run by their plan.
    pub async fn run_in_txn(
        &self,
        mut statement: DFStatement,
        params: &[ScalarValue],
        exact_params: bool,
    ) -> Result<Output> {
        before_routing(&mut statement);
        if let DFStatement::CopyTo(copy) = &statement {
            if crate::functions::remote::is_url(&copy.target) {
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
                SqlStatement::CreateSequence {
                    name,
                    temporary,
                    if_not_exists,
                    data_type,
                    sequence_options,
                    owned_by: None,
                } => {
                    return self.create_sequence(name, *temporary, *if_not_exists, data_type.as_ref(), sequence_options)
                }
                SqlStatement::Drop { object_type: ObjectType::Sequence, names, if_exists, .. } => {
                    return self.drop_sequences(names, *if_exists)
                }
                SqlStatement::CreateMacro { or_replace, temporary, name, args, definition } => {
                    return self.create_macro(name, *or_replace, *temporary, args.as_deref(), definition)
                }
                SqlStatement::DropFunction(drop) => return self.drop_macros(&drop.func_desc, drop.if_exists),
                SqlStatement::CreateType { name, representation } => {
                    return self.create_type(name, representation.as_ref())
                }
                SqlStatement::Drop { object_type: ObjectType::Type, names, if_exists, .. } => {
                    return self.drop_types(names, *if_exists)
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
        let cx = self.prepare_context(&state);
        let PreparedPlan { plan, names, upsert, returning, column_rules } =
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
            LogicalPlan::Dml(dml) => self.run_dml(dml, upsert, returning).await,
            // Side effects happen now, not when (or if) someone reads the result.
            LogicalPlan::Copy(copy) => {
                self.check_external_access("COPY")?;
                let target = copy.output_url.clone();
                self.run_copy(LogicalPlan::Copy(copy), &target).await
            }
            // Settings of the whole process (see `sql::memory`).
            LogicalPlan::Statement(Statement::SetVariable(set))
                if crate::memory::SETTINGS.contains(&set.variable.to_ascii_lowercase().as_str()) =>
            {
                crate::memory::set(&set.variable, &set.value)?;
                Ok(Output::Empty)
            }
            LogicalPlan::Statement(s) if !matches!(s, Statement::SetVariable(_)) => {
                Err(Error::new(ErrorKind::NotSupported, format!("{} is not supported", s.name())))
            }
            plan => {
                let remember = self.remember_as.lock().take().filter(|_| plan_cache::same_every_run(&plan));
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
                Ok(Output::Stream(stream))
            }
        }
    }

    /// What `prepare` reads for a statement of this connection, planned
    /// in `state`.
    pub(crate) fn prepare_context<'a>(&'a self, state: &'a SessionState) -> PrepareContext<'a> {
        PrepareContext { state, tables: &self.tables, own: &self.own, external_access: self.core.external_access }
    }

    /// Refuses `what` (an access to files) when the database was opened with
    /// `external_access` off.
    pub fn check_external_access(&self, what: &str) -> Result<()> {
        if self.core.external_access {
            return Ok(());
        }
        Err(Error::programming(format!(
            "{what} reads or writes files, and external access is disabled for this database (external_access=False)"
        )))
    }
}
