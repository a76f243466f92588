//! COPY in the PostgreSQL / DuckDB style: `COPY t TO 'file' (FORMAT ...)`,
//! `COPY (query) TO 'file'` and `COPY t FROM 'file'`; a `db://NAME` target or
//! source is a pipe (see `super::pipe`).

use super::run_plan::u64_values;
use super::Executor;
use super::Output;
use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use crate::functions::remote;
use crate::functions::{file_table, FileKind, ReadOptions};
use datafusion::common::{Column, TableReference};
use datafusion::datasource::file_format::format_as_file_type;
use datafusion::logical_expr::LogicalPlan;
use datafusion::logical_expr::{Expr, LogicalPlanBuilder};
use datafusion::sql::parser::{CopyToSource, CopyToStatement, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{CopyOption, CopySource, CopyTarget, Statement as SqlStatement};
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_pipe::postgres::{self, PgUrl};
use swingdb_pipe::PipeUrl;
use swingdb_storage::error::{Error, ErrorKind, Result};

impl Executor {
    pub(crate) async fn copy_to(
        &self,
        source: &CopySource,
        target: &CopyTarget,
        options: &[CopyOption],
    ) -> Result<Output> {
        let CopyTarget::File { filename } = target else {
            return Err(Error::new(ErrorKind::NotSupported, "COPY TO writes files only, e.g. COPY t TO 'out.parquet'"));
        };
        let to_pipe = PipeUrl::is_pipe(filename);
        let to_postgres = PgUrl::is_postgres(filename);
        if (to_pipe || to_postgres) && !options.is_empty() {
            return Err(Error::programming(
                "COPY to a pipe or database takes its options in the URL, e.g. 'db://name?workers=4&compression=lz4'",
            ));
        }
        let state = self.ctx.state();
        let input = match source {
            CopySource::Table { table_name, columns } => {
                // The plan is built from the parsed names, never from SQL text.
                let name = object_name(table_name, &self.own)?;
                let frame = self.ctx.table(TableReference::bare(name)).await?;
                let frame = if columns.is_empty() {
                    frame
                } else {
                    let wanted = columns
                        .iter()
                        .map(|c| Expr::Column(Column::new_unqualified(identifier(c))))
                        .collect::<Vec<_>>();
                    frame.select(wanted)?
                };
                frame.into_unoptimized_plan()
            }
            CopySource::Query(query) => {
                state.statement_to_plan(DFStatement::Statement(Box::new(SqlStatement::Query(query.clone())))).await?
            }
        };
        if to_pipe || to_postgres {
            let whole_table = match source {
                CopySource::Table { table_name, columns } if columns.is_empty() => {
                    Some(object_name(table_name, &self.own)?)
                }
                _ => None,
            };
            return self.copy_to_url(input, whole_table.as_deref(), filename).await;
        }
        let options = CopyOptions::parse(options, filename)?;
        let extension = options.kind.name();
        let factory = state
            .get_file_format_factory(extension)
            .ok_or_else(|| Error::internal(format!("no writer registered for {extension}")))?;
        let mut format_options = HashMap::new();
        if options.kind == FileKind::Csv {
            format_options.insert("format.has_header".to_string(), options.header.to_string());
            format_options.insert("format.delimiter".to_string(), (options.delimiter as char).to_string());
        }
        let plan =
            LogicalPlanBuilder::copy_to(input, filename.clone(), format_as_file_type(factory), format_options, vec![])?
                .build()?;
        self.run_copy(plan, filename).await
    }

    /// Runs the COPY `plan`, which writes `target`; the rows written.
    pub(crate) async fn run_copy(&self, plan: LogicalPlan, target: &str) -> Result<Output> {
        // DataFusion writes a new file and renames it into place, and reports
        // a failed rename (onto /dev/null, say) as a bug of its own.
        let batches = self.collect_plan(plan).await.map_err(|e| match e.kind() {
            ErrorKind::Internal => Error::operational(format!(
                "COPY could not finish writing '{target}': it must be a regular file in a directory you can write \
                 (devices such as /dev/null are not supported)"
            )),
            _ => e,
        })?;
        Ok(Output::Count(u64_values(&batches, 0).iter().sum()))
    }

    /// DataFusion's `COPY t TO 'url'` / `COPY (query) TO 'url'` with a pipe or
    /// database URL as the target.
    pub(crate) async fn copy_statement_to_url(&self, copy: &CopyToStatement) -> Result<Output> {
        if !copy.options.is_empty() || copy.stored_as.is_some() || !copy.partitioned_by.is_empty() {
            return Err(Error::programming(format!(
                "COPY to '{}' takes its options in the URL, not in the statement",
                copy.target
            )));
        }
        let (input, whole_table) = match &copy.source {
            CopyToSource::Relation(name) => {
                let name = object_name(name, &self.own)?;
                let stored = self.is_stored_table(&name)?;
                (
                    self.ctx.table(TableReference::bare(name.as_str())).await?.into_unoptimized_plan(),
                    stored.then_some(name),
                )
            }
            CopyToSource::Query(query) => {
                let statement = DFStatement::Statement(Box::new(SqlStatement::Query(query.clone())));
                (self.ctx.state().statement_to_plan(statement).await?, None)
            }
        };
        self.copy_to_url(input, whole_table.as_deref(), &copy.target).await
    }

    /// Sends the rows of `input` to the pipe or database `url`; `whole_table`
    /// names the stored table `input` reads whole (offered for handover).
    async fn copy_to_url(&self, input: LogicalPlan, whole_table: Option<&str>, url: &str) -> Result<Output> {
        if PgUrl::is_postgres(url) {
            let url = PgUrl::parse(url)?;
            let schema = Arc::new(input.schema().as_arrow().clone());
            let stream = self.stream_plan(input).await?;
            return Ok(Output::Count(postgres::write(&url, &schema, stream).await?));
        }
        self.copy_to_pipe(input, whole_table, url).await
    }

    pub(crate) async fn copy_from(
        &self,
        source: &CopySource,
        target: &CopyTarget,
        options: &[CopyOption],
    ) -> Result<Output> {
        let CopySource::Table { table_name, columns } = source else {
            return Err(Error::programming("COPY (query) FROM is not valid; COPY FROM loads into a table"));
        };
        if !columns.is_empty() {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "COPY t (columns) FROM is not supported yet; load all columns",
            ));
        }
        let CopyTarget::File { filename } = target else {
            return Err(Error::new(ErrorKind::NotSupported, "COPY FROM reads files only, e.g. COPY t FROM 'data.csv'"));
        };
        let name = object_name(table_name, &self.own)?;
        self.table(&name)?; // an unknown table is reported before the file is read
        if remote::is_url(filename) {
            if !options.is_empty() {
                return Err(Error::programming(
                    "COPY from a pipe or database takes its options in the URL, e.g. 'db://name?workers=4'",
                ));
            }
            return self.append_from(&name, remote::url_table(filename).await?).await;
        }
        let options = CopyOptions::parse(options, filename)?;
        let read =
            ReadOptions { header: Some(options.header), delimiter: Some(options.delimiter), ..ReadOptions::default() };
        let provider = file_table(&self.ctx.state(), filename, options.kind, &read).await?;
        self.append_from(&name, provider).await
    }
}

/// The options of a PostgreSQL / DuckDB style COPY statement.
struct CopyOptions {
    kind: FileKind,
    header: bool,
    delimiter: u8,
}

impl CopyOptions {
    fn parse(options: &[CopyOption], filename: &str) -> Result<Self> {
        let mut kind = None;
        let mut header = true;
        let mut delimiter = b',';
        for option in options {
            match option {
                CopyOption::Format(f) => {
                    kind = Some(FileKind::from_name(&f.value).ok_or_else(|| {
                        Error::programming(format!(
                            "unknown COPY format '{}'; use csv, parquet, json or arrow",
                            f.value
                        ))
                    })?)
                }
                CopyOption::Header(h) => header = *h,
                CopyOption::Delimiter(d) if d.is_ascii() => delimiter = *d as u8,
                other => {
                    return Err(Error::new(ErrorKind::NotSupported, format!("COPY option {other} is not supported")))
                }
            }
        }
        let kind = match kind {
            Some(k) => k,
            None => std::path::Path::new(filename)
                .extension()
                .and_then(|e| FileKind::from_name(&e.to_string_lossy()))
                .ok_or_else(|| {
                    Error::programming(format!(
                        "cannot tell the format of '{filename}'; add (FORMAT csv|parquet|json|arrow)"
                    ))
                })?,
        };
        Ok(Self { kind, header, delimiter })
    }
}

impl Executor {
    /// The rows of the file at `path` (a local path or glob), read as `kind`
    /// with `options`, its schema inferred.
    pub fn read_file(&self, path: &str, kind: FileKind, options: &ReadOptions) -> Result<Output> {
        self.check_external_access(kind.function_name())?;
        crate::core::runtime().block_on(async {
            let state = self.ctx.state();
            let provider = file_table(&state, path, kind, options).await?;
            let stream = self.ctx.read_table(provider)?.execute_stream().await?;
            Ok(Output::Stream(stream))
        })
    }

    /// Registers the file(s) at `path` (read as `kind` with `options`,
    /// schema inferred now) as `name`.
    pub fn register_file(&self, name: &str, path: &str, kind: FileKind, options: &ReadOptions) -> Result<()> {
        self.check_external_access(kind.function_name())?;
        let provider =
            crate::core::runtime().block_on(async { file_table(&self.ctx.state(), path, kind, options).await })?;
        self.registered.lock().insert(name.to_string(), provider);
        self.forget_plans();
        Ok(())
    }
}
