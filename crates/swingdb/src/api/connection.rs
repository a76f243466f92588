//! `Connection`: runs SQL statements inside transactions. Every statement is
//! atomic (a failed one changes nothing); outside `BEGIN ... COMMIT` each one
//! commits on its own.

use super::database::{runtime, DbCore};
use super::result::QueryResult;
use crate::error::{Error, ErrorKind, Result};
use crate::sql::functions::{file_table, FileKind};
use crate::sql::params::number_placeholders;
use crate::sql::session::new_context;
use crate::sql::source::SegmentSource;
use datafusion::datasource::memory::MemorySourceConfig;
use crate::sql::table::SegmentTable;
use crate::sql::{Registered, Tables, CATALOG, SCHEMA};
use crate::storage::{Manifest, SegmentMeta, TableMeta, TableWriter};
use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt64Array};
use datafusion::arrow::compute::{cast_with_options, concat_batches, filter_record_batch, CastOptions};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, ParamValues, ScalarValue, TableReference};
use datafusion::datasource::file_format::format_as_file_type;
use datafusion::datasource::provider_as_source;
use datafusion::datasource::MemTable;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{execute_stream, execute_stream_partitioned, ExecutionPlan, ExecutionPlanProperties};
use datafusion::logical_expr::{
    DdlStatement, DmlStatement, Expr, LogicalPlan, LogicalPlanBuilder, Projection, TableScanBuilder, TableSource, WriteOp,
};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::{DFParser, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{
    AlterTableOperation, CopyOption, CopySource, CopyTarget, ObjectName, RenameTableNameKind, Statement as SqlStatement,
};
use datafusion::sql::sqlparser::dialect::{GenericDialect, PostgreSqlDialect};
use datafusion::sql::sqlparser::parser::Parser as SqlParser;
use futures::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Name of the row-id column DML adds to its private scans of the target table.
const ROW_ID: &str = "__swingdb_row_id";

/// An open transaction: the pinned version it started from and the segment
/// files it has written so far (deleted again if it does not commit).
struct Txn {
    base: Arc<Manifest>,
    explicit: bool,
    new_files: Vec<PathBuf>,
}

/// A connection to a [`super::Database`]. Statements on one connection run one
/// at a time; use several connections for parallel work.
pub struct Connection {
    core: Arc<DbCore>,
    ctx: SessionContext,
    tables: Tables,
    registered: Registered,
    txn: Mutex<Option<Txn>>,
    busy: tokio::sync::Mutex<()>,
    progress: Mutex<Option<ProgressHook>>,
}

/// Called with the number of rows written so far while a statement stores rows.
pub type ProgressHook = Arc<dyn Fn(u64) + Send + Sync>;

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("database", &self.core.dir().root()).finish()
    }
}

fn table_name(reference: &TableReference) -> Result<String> {
    let ok_schema = reference.schema().is_none_or(|s| s == SCHEMA);
    let ok_catalog = reference.catalog().is_none_or(|c| c == CATALOG);
    if !ok_schema || !ok_catalog {
        return Err(Error::programming(format!(
            "'{reference}' is not in swingdb's schema '{SCHEMA}'; use a plain table name"
        )));
    }
    Ok(reference.table().to_string())
}

fn object_name(name: &ObjectName) -> Result<String> {
    let reference = TableReference::from(name.to_string().as_str());
    // sqlparser keeps the user's case; SQL identifiers fold to lower case unless quoted.
    let table = table_name(&reference)?;
    let quoted = name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.quote_style.is_some());
    Ok(if quoted { table } else { table.to_lowercase() })
}

/// Casts `batch` to the table's `schema` column by column and enforces NOT NULL.
fn conform(batch: &RecordBatch, schema: &SchemaRef, table: &str) -> Result<RecordBatch> {
    if batch.num_columns() != schema.fields().len() {
        return Err(Error::programming(format!(
            "table '{table}' has {} columns but {} values were supplied",
            schema.fields().len(),
            batch.num_columns()
        )));
    }
    let options = CastOptions { safe: false, ..Default::default() };
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let column = if column.data_type() == field.data_type() {
            column.clone()
        } else {
            cast_with_options(column, field.data_type(), &options).map_err(|e| {
                Error::new(
                    ErrorKind::Data,
                    format!(
                        "column '{}' of table '{table}' is {}: cannot store a {} value there ({e})",
                        field.name(),
                        field.data_type(),
                        column.data_type()
                    ),
                )
            })?
        };
        if !field.is_nullable() && column.null_count() > 0 {
            return Err(Error::new(
                ErrorKind::Integrity,
                format!("NULL value in column '{}' of table '{table}' violates its NOT NULL constraint", field.name()),
            ));
        }
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &options)?)
}

/// DataFusion itself refuses NULLs for non-nullable columns while computing an
/// INSERT's rows, naming its internal column; say it in the table's terms.
fn not_null_violation(err: Error, schema: &SchemaRef, table: &str) -> Error {
    if !err.message().contains("non-nullable but contains null") {
        return err;
    }
    let not_null: Vec<&str> = schema.fields().iter().filter(|f| !f.is_nullable()).map(|f| f.name().as_str()).collect();
    let which = match not_null.as_slice() {
        [one] => format!("column '{one}'"),
        many => format!("one of the columns {}", many.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ")),
    };
    Error::new(ErrorKind::Integrity, format!("NULL value in {which} of table '{table}' violates its NOT NULL constraint"))
}

/// Schema for a new table: no field metadata, view types stored as plain ones.
fn storage_schema(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let dt = match f.data_type() {
                DataType::Utf8View => DataType::Utf8,
                DataType::BinaryView => DataType::Binary,
                other => other.clone(),
            };
            Field::new(f.name(), dt, f.is_nullable())
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// Replaces the scan of `table` inside `plan` by a scan of `source`.
fn replace_scan(plan: &LogicalPlan, table: &TableReference, source: Arc<dyn TableSource>) -> Result<LogicalPlan> {
    let replaced = plan.clone().transform_up(|node| match node {
        LogicalPlan::TableScan(scan) if scan.table_name.resolved_eq(table) => {
            let new = TableScanBuilder::new(scan.table_name.clone(), source.clone())
                .with_filters(scan.filters.clone())
                .with_fetch(scan.fetch)
                .build()?;
            Ok(Transformed::yes(LogicalPlan::TableScan(new)))
        }
        other => Ok(Transformed::yes(other.recompute_schema()?)),
    })?;
    Ok(replaced.data)
}

impl Connection {
    pub(crate) fn new(core: Arc<DbCore>) -> Result<Self> {
        let tables: Tables = Arc::new(Mutex::new(BTreeMap::new()));
        let registered: Registered = Arc::new(Mutex::new(BTreeMap::new()));
        let ctx = new_context(tables.clone(), registered.clone(), core.store.clone())?;
        Ok(Self { core, ctx, tables, registered, txn: Mutex::new(None), busy: tokio::sync::Mutex::new(()), progress: Mutex::new(None) })
    }

    /// Runs `sql` (one or more `;`-separated statements) with positional
    /// parameters (`?` or `$1`) and returns the last statement's result.
    pub fn execute(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        runtime().block_on(async {
            let _busy = self.busy.lock().await;
            self.execute_async(sql, params).await
        })
    }

    /// Makes `batches` queryable as table `name` on this connection, without
    /// copying them (their buffers stay where they are) and without storing
    /// them. Replaces an earlier registration of the same name.
    pub fn register(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<()> {
        let name = name.to_string();
        let table = MemTable::try_new(schema, vec![batches])?;
        self.registered.lock().unwrap().insert(name, Arc::new(table));
        Ok(())
    }

    /// Removes a registration; returns whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.registered.lock().unwrap().remove(name).is_some()
    }

    /// Sets (or with `None` clears) the hook told how many rows statements have
    /// stored so far, for progress bars on long loads.
    pub fn set_progress(&self, hook: Option<ProgressHook>) {
        *self.progress.lock().unwrap() = hook;
    }

    /// Whether an explicit transaction (`BEGIN`) is open.
    pub fn in_transaction(&self) -> bool {
        self.txn.lock().unwrap().as_ref().is_some_and(|t| t.explicit)
    }

    /// Names of the tables this connection sees.
    pub fn table_names(&self) -> Result<Vec<String>> {
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            let manifest = self.core.dir().pin_latest()?;
            let names = manifest.tables.keys().cloned().collect();
            self.core.dir().unpin(manifest.version);
            return Ok(names);
        }
        Ok(self.tables.lock().unwrap().keys().cloned().collect())
    }

    /// The underlying DataFusion session (for registering functions, tuning).
    pub fn session(&self) -> &SessionContext {
        &self.ctx
    }

    async fn execute_async(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        let sql = number_placeholders(sql)?;
        let statements = match DFParser::parse_sql_with_dialect(&sql, &GenericDialect {}) {
            Ok(statements) => statements,
            // DataFusion's parser knows only its own COPY ... TO syntax; the
            // PostgreSQL / DuckDB style COPY t FROM|TO 'file' (FORMAT ...) parses here.
            Err(e) => match SqlParser::parse_sql(&PostgreSqlDialect {}, &sql) {
                Ok(parsed) if parsed.iter().any(|s| matches!(s, SqlStatement::Copy { .. })) => {
                    parsed.into_iter().map(|s| DFStatement::Statement(Box::new(s))).collect()
                }
                _ => return Err(Error::programming(format!("SQL syntax error: {e}"))),
            },
        };
        let mut last = QueryResult::empty();
        let single = statements.len() == 1;
        for statement in statements {
            last = self.run_statement(statement, params, single).await?;
        }
        Ok(last)
    }

    fn begin(&self, explicit: bool) -> Result<()> {
        let manifest = self.core.dir().pin_latest()?;
        *self.tables.lock().unwrap() = manifest.tables.clone();
        *self.txn.lock().unwrap() = Some(Txn { base: manifest, explicit, new_files: Vec::new() });
        Ok(())
    }

    /// Ends the open transaction: commits it, or (on `commit == false` or a
    /// failed commit) deletes everything it wrote.
    fn finish(&self, commit: bool) -> Result<()> {
        let Some(mut txn) = self.txn.lock().unwrap().take() else { return Ok(()) };
        // The tables stay visible after the transaction ends: results still being
        // streamed (information_schema, say) read the catalog as they execute.
        let working = self.tables.lock().unwrap().clone();
        let outcome = if commit { self.core.commit(&txn.base, &working, &mut txn.new_files).map(|_| ()) } else { Ok(()) };
        if !commit || outcome.is_err() {
            for f in &txn.new_files {
                let _ = std::fs::remove_file(f);
            }
        }
        self.core.dir().unpin(txn.base.version);
        outcome
    }

    /// Runs one statement; `exact_params` asks that it use every parameter given.
    async fn run_statement(&self, statement: DFStatement, params: &[ScalarValue], exact_params: bool) -> Result<QueryResult> {
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
                _ => {}
            }
        }
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            self.begin(false)?;
        }
        let saved_tables = self.tables.lock().unwrap().clone();
        let mark = self.txn.lock().unwrap().as_ref().map_or(0, |t| t.new_files.len());
        let outcome = self.run_in_txn(statement, params, exact_params).await;
        if let Err(e) = outcome {
            // Statement-level rollback: restore the tables, delete its files.
            *self.tables.lock().unwrap() = saved_tables;
            if let Some(txn) = self.txn.lock().unwrap().as_mut() {
                for f in txn.new_files.drain(mark..) {
                    let _ = std::fs::remove_file(f);
                }
            }
            if implicit {
                self.finish(false)?;
            }
            return Err(e);
        }
        if implicit {
            self.finish(true)?;
        }
        outcome
    }

    fn record_files(&self, files: Vec<PathBuf>) {
        if let Some(txn) = self.txn.lock().unwrap().as_mut() {
            txn.new_files.extend(files);
        }
    }

    fn table(&self, name: &str) -> Result<Arc<TableMeta>> {
        self.tables
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::programming(format!("table '{name}' does not exist")))
    }

    fn set_table(&self, name: &str, meta: TableMeta) {
        self.tables.lock().unwrap().insert(name.to_string(), Arc::new(meta));
    }

    async fn run_in_txn(&self, statement: DFStatement, params: &[ScalarValue], exact_params: bool) -> Result<QueryResult> {
        if let DFStatement::Statement(s) = &statement {
            match s.as_ref() {
                SqlStatement::AlterTable(alter) => return self.alter_table(&alter.name, &alter.operations, alter.if_exists),
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
        let mut plan = state.statement_to_plan(statement).await?;
        let wanted = plan.get_parameter_types()?.len();
        if exact_params && params.len() > wanted {
            return Err(Error::programming(format!(
                "{} parameters were given but the statement has {wanted} placeholders",
                params.len()
            )));
        }
        if !params.is_empty() {
            plan = plan.with_param_values(ParamValues::List(params.iter().cloned().map(Into::into).collect()))?;
        }
        match plan {
            LogicalPlan::Ddl(DdlStatement::CreateMemoryTable(create)) => {
                if !create.constraints.is_empty() {
                    return Err(Error::new(
                        ErrorKind::NotSupported,
                        "PRIMARY KEY, UNIQUE and other key constraints are not supported yet (only NOT NULL is); remove them from CREATE TABLE",
                    ));
                }
                if !create.column_defaults.is_empty() {
                    return Err(Error::new(ErrorKind::NotSupported, "column DEFAULT values are not supported yet; remove them from CREATE TABLE"));
                }
                let name = table_name(&create.name)?;
                let exists = self.tables.lock().unwrap().contains_key(&name);
                if exists && create.if_not_exists {
                    return Ok(QueryResult::empty());
                }
                if exists && !create.or_replace {
                    return Err(Error::programming(format!(
                        "table '{name}' already exists; use CREATE OR REPLACE TABLE, CREATE TABLE IF NOT EXISTS, or DROP TABLE first"
                    )));
                }
                let schema = storage_schema(create.input.schema().as_arrow());
                let stream = self.stream_plan(create.input.as_ref().clone()).await?;
                let segments = self.write_stream(stream, &schema, &name).await?;
                self.set_table(&name, TableMeta { schema, segments, modified: 0 });
                Ok(QueryResult::empty())
            }
            LogicalPlan::Ddl(DdlStatement::DropTable(drop)) => {
                let name = table_name(&drop.name)?;
                let removed = self.tables.lock().unwrap().remove(&name);
                if removed.is_none() && !drop.if_exists {
                    return Err(Error::programming(format!("table '{name}' does not exist (use DROP TABLE IF EXISTS to ignore)")));
                }
                Ok(QueryResult::empty())
            }
            LogicalPlan::Ddl(other) => Err(Error::new(
                ErrorKind::NotSupported,
                format!("{} is not supported yet", other.name()),
            )),
            LogicalPlan::Dml(dml) => self.run_dml(dml).await,
            // Side effects happen now, not when (or if) someone reads the result.
            copy @ LogicalPlan::Copy(_) => {
                let batches = self.collect_plan(copy).await?;
                Ok(QueryResult::count(u64_values(&batches, 0).iter().sum()))
            }
            LogicalPlan::Statement(s) if !matches!(s, datafusion::logical_expr::Statement::SetVariable(_)) => {
                Err(Error::new(ErrorKind::NotSupported, format!("{} is not supported", s.name())))
            }
            plan => {
                let stream = self.stream_plan(plan).await?;
                Ok(QueryResult::streaming(stream))
            }
        }
    }

    async fn stream_plan(&self, plan: LogicalPlan) -> Result<SendableRecordBatchStream> {
        let df = self.ctx.execute_logical_plan(plan).await?;
        let task_ctx = Arc::new(df.task_ctx());
        let physical = df.create_physical_plan().await?;
        if physical.output_partitioning().partition_count() > 1 && reads_in_storage_order(&physical) {
            // A plain read of stored tables: DataFusion split the scan into
            // contiguous ranges; reading them one after the other keeps storage
            // order, so adjacent slices can be joined back into whole arrays.
            let schema = physical.schema();
            let streams = execute_stream_partitioned(physical, task_ctx)?;
            return Ok(Box::pin(RecordBatchStreamAdapter::new(schema, futures::stream::iter(streams).flatten())));
        }
        Ok(execute_stream(physical, task_ctx)?)
    }

    async fn collect_plan(&self, plan: LogicalPlan) -> Result<Vec<RecordBatch>> {
        Ok(self.ctx.execute_logical_plan(plan).await?.collect().await?)
    }

    /// Drains `stream` into new segments of `table` (shaped as `schema`).
    async fn write_stream(&self, mut stream: SendableRecordBatchStream, schema: &SchemaRef, table: &str) -> Result<Vec<SegmentMeta>> {
        let mut writer = TableWriter::new(self.core.dir(), schema.clone());
        let progress = self.progress.lock().unwrap().clone();
        let mut rows = 0;
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(|e| not_null_violation(e.into(), schema, table))?;
            rows += batch.num_rows() as u64;
            writer.push(conform(&batch, schema, table)?)?;
            if let Some(report) = &progress {
                report(rows);
            }
        }
        let (segments, files) = writer.finish()?;
        self.record_files(files);
        Ok(segments)
    }

    async fn run_dml(&self, dml: DmlStatement) -> Result<QueryResult> {
        let name = table_name(&dml.table_name)?;
        let meta = self.table(&name)?;
        match dml.op {
            WriteOp::Insert(op) => {
                if op == InsertOp::Replace {
                    return Err(Error::new(ErrorKind::NotSupported, "REPLACE INTO is not supported; use DELETE then INSERT"));
                }
                let stream = self
                    .stream_plan(dml.input.as_ref().clone())
                    .await
                    .map_err(|e| not_null_violation(e, &meta.schema, &name))?;
                let added = self.write_stream(stream, &meta.schema, &name).await?;
                let count: u64 = added.iter().map(|s| s.rows).sum();
                let mut segments = if op == InsertOp::Overwrite { Vec::new() } else { meta.segments.clone() };
                segments.extend(added);
                self.set_table(&name, TableMeta { schema: meta.schema.clone(), segments, modified: meta.modified });
                Ok(QueryResult::count(count))
            }
            WriteOp::Delete => {
                let source = self.row_id_source(&meta);
                let plan = replace_scan(&dml.input, &dml.table_name, source)?;
                let plan = LogicalPlanBuilder::from(plan).project(vec![Expr::Column(Column::new_unqualified(ROW_ID))])?.build()?;
                let hits = self.collect_plan(plan).await?;
                let row_ids = u64_values(&hits, 0);
                let count = row_ids.len() as u64;
                let segments = self.remove_rows(&meta, row_ids)?;
                self.set_table(&name, TableMeta { schema: meta.schema.clone(), segments, modified: meta.modified });
                Ok(QueryResult::count(count))
            }
            WriteOp::Update => {
                let LogicalPlan::Projection(projection) = dml.input.as_ref() else {
                    return Err(Error::internal("UPDATE plan does not start with a projection"));
                };
                let source = self.row_id_source(&meta);
                let input = replace_scan(&projection.input, &dml.table_name, source)?;
                let mut exprs = projection.expr.clone();
                exprs.push(Expr::Column(Column::new_unqualified(ROW_ID)));
                let plan = LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(input))?);
                let updated = self.collect_plan(plan).await?;
                let id_column = projection.expr.len();
                let row_ids = u64_values(&updated, id_column);
                let count = row_ids.len() as u64;
                // The new versions of the rows, in table column order.
                let out_schema = projection.schema.as_arrow();
                let mut writer = TableWriter::new(self.core.dir(), meta.schema.clone());
                for batch in &updated {
                    let columns = meta
                        .schema
                        .fields()
                        .iter()
                        .map(|f| {
                            out_schema
                                .index_of(f.name())
                                .map(|i| batch.column(i).clone())
                                .map_err(|_| Error::internal(format!("UPDATE lost column '{}'", f.name())))
                        })
                        .collect::<Result<Vec<ArrayRef>>>()?;
                    let shaped = RecordBatch::try_new_with_options(
                        Arc::new(Schema::new(
                            meta.schema.fields().iter().zip(&columns).map(|(f, c)| Field::new(f.name(), c.data_type().clone(), true)).collect::<Vec<_>>(),
                        )),
                        columns,
                        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
                    )?;
                    writer.push(conform(&shaped, &meta.schema, &name)?)?;
                }
                let (added, files) = writer.finish()?;
                self.record_files(files);
                let mut segments = self.remove_rows(&meta, row_ids)?;
                segments.extend(added);
                self.set_table(&name, TableMeta { schema: meta.schema.clone(), segments, modified: meta.modified });
                Ok(QueryResult::count(count))
            }
            other => Err(Error::new(ErrorKind::NotSupported, format!("{other} is not supported yet"))),
        }
    }

    fn row_id_source(&self, meta: &Arc<TableMeta>) -> Arc<dyn TableSource> {
        provider_as_source(Arc::new(SegmentTable::new(meta.clone(), self.core.store.clone()).with_row_ids(ROW_ID)))
    }

    /// Rewrites the segments that contain any of `row_ids` without those rows.
    fn remove_rows(&self, meta: &TableMeta, row_ids: Vec<u64>) -> Result<Vec<SegmentMeta>> {
        let mut by_segment: HashMap<usize, Vec<usize>> = HashMap::new();
        for id in row_ids {
            let (seg, row) = SegmentTable::split_row_id(id);
            by_segment.entry(seg).or_default().push(row);
        }
        let mut segments = Vec::with_capacity(meta.segments.len());
        for (i, seg) in meta.segments.iter().enumerate() {
            let Some(rows) = by_segment.get(&i) else {
                segments.push(seg.clone());
                continue;
            };
            if rows.len() as u64 == seg.rows {
                continue;
            }
            let mapped = self.core.store.map(meta, seg)?;
            let all = concat_batches(&meta.schema, &mapped.batches(None)?)?;
            let mut keep = vec![true; all.num_rows()];
            for &r in rows {
                keep[r] = false;
            }
            let kept = filter_record_batch(&all, &BooleanArray::from(keep))?;
            let mut one = TableWriter::new(self.core.dir(), meta.schema.clone());
            one.push(kept)?;
            let (written, files) = one.finish()?;
            self.record_files(files);
            segments.extend(written);
        }
        Ok(segments)
    }

    fn alter_table(&self, name: &ObjectName, operations: &[AlterTableOperation], if_exists: bool) -> Result<QueryResult> {
        let old = object_name(name)?;
        let [AlterTableOperation::RenameTable { table_name }] = operations else {
            return Err(Error::new(ErrorKind::NotSupported, "only ALTER TABLE ... RENAME TO ... is supported yet"));
        };
        let new = match table_name {
            RenameTableNameKind::To(n) | RenameTableNameKind::As(n) => object_name(n)?,
        };
        let mut tables = self.tables.lock().unwrap();
        let Some(meta) = tables.get(&old).cloned() else {
            if if_exists {
                return Ok(QueryResult::empty());
            }
            return Err(Error::programming(format!("table '{old}' does not exist")));
        };
        if tables.contains_key(&new) {
            return Err(Error::programming(format!("cannot rename '{old}' to '{new}': table '{new}' already exists")));
        }
        tables.remove(&old);
        // A renamed table is a new entry for conflict detection.
        tables.insert(new, Arc::new(meta.as_ref().clone()));
        Ok(QueryResult::empty())
    }

    async fn copy_to(&self, source: &CopySource, target: &CopyTarget, options: &[CopyOption]) -> Result<QueryResult> {
        let CopyTarget::File { filename } = target else {
            return Err(Error::new(ErrorKind::NotSupported, "COPY TO writes files only, e.g. COPY t TO 'out.parquet'"));
        };
        let options = CopyOptions::parse(options, filename)?;
        let state = self.ctx.state();
        let input = match source {
            CopySource::Table { table_name, columns } => {
                let list = if columns.is_empty() {
                    "*".to_string()
                } else {
                    columns.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
                };
                state.create_logical_plan(&format!("SELECT {list} FROM {table_name}")).await?
            }
            CopySource::Query(query) => {
                state.statement_to_plan(DFStatement::Statement(Box::new(SqlStatement::Query(query.clone())))).await?
            }
        };
        let extension = options.kind.name();
        let factory = state
            .get_file_format_factory(extension)
            .ok_or_else(|| Error::internal(format!("no writer registered for {extension}")))?;
        let mut format_options = HashMap::new();
        if options.kind == FileKind::Csv {
            format_options.insert("format.has_header".to_string(), options.header.to_string());
            format_options.insert("format.delimiter".to_string(), (options.delimiter as char).to_string());
        }
        let plan = LogicalPlanBuilder::copy_to(input, filename.clone(), format_as_file_type(factory), format_options, vec![])?.build()?;
        let batches = self.collect_plan(plan).await?;
        Ok(QueryResult::count(u64_values(&batches, 0).iter().sum()))
    }

    async fn copy_from(&self, source: &CopySource, target: &CopyTarget, options: &[CopyOption]) -> Result<QueryResult> {
        let CopySource::Table { table_name, columns } = source else {
            return Err(Error::programming("COPY (query) FROM is not valid; COPY FROM loads into a table"));
        };
        if !columns.is_empty() {
            return Err(Error::new(ErrorKind::NotSupported, "COPY t (columns) FROM is not supported yet; load all columns"));
        }
        let CopyTarget::File { filename } = target else {
            return Err(Error::new(ErrorKind::NotSupported, "COPY FROM reads files only, e.g. COPY t FROM 'data.csv'"));
        };
        let name = object_name(table_name)?;
        let meta = self.table(&name)?;
        let options = CopyOptions::parse(options, filename)?;
        let state = self.ctx.state();
        let provider = file_table(&state, filename, options.kind, options.header, options.delimiter).await?;
        let stream = self.stream_plan(LogicalPlanBuilder::scan("copy_source", provider_as_source(provider), None)?.build()?).await?;
        let added = self.write_stream(stream, &meta.schema, &name).await?;
        let count = added.iter().map(|s| s.rows).sum();
        let mut segments = meta.segments.clone();
        segments.extend(added);
        self.set_table(&name, TableMeta { schema: meta.schema.clone(), segments, modified: meta.modified });
        Ok(QueryResult::count(count))
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
                        Error::programming(format!("unknown COPY format '{}'; use csv, parquet, json or arrow", f.value))
                    })?)
                }
                CopyOption::Header(h) => header = *h,
                CopyOption::Delimiter(d) if d.is_ascii() => delimiter = *d as u8,
                other => return Err(Error::new(ErrorKind::NotSupported, format!("COPY option {other} is not supported"))),
            }
        }
        let kind = match kind {
            Some(k) => k,
            None => std::path::Path::new(filename)
                .extension()
                .and_then(|e| FileKind::from_name(&e.to_string_lossy()))
                .ok_or_else(|| {
                    Error::programming(format!("cannot tell the format of '{filename}'; add (FORMAT csv|parquet|json|arrow)"))
                })?,
        };
        Ok(Self { kind, header, delimiter })
    }
}

/// Whether `plan` is a chain of order-preserving single-input operators over a
/// scan of stored segments or registered in-memory data.
fn reads_in_storage_order(plan: &Arc<dyn ExecutionPlan>) -> bool {
    match plan.children().as_slice() {
        [] => plan
            .downcast_ref::<DataSourceExec>()
            .is_some_and(|scan| {
                let source = scan.data_source();
                source.downcast_ref::<SegmentSource>().is_some() || source.downcast_ref::<MemorySourceConfig>().is_some()
            }),
        [child] => plan.maintains_input_order().first() == Some(&true) && reads_in_storage_order(child),
        _ => false,
    }
}

/// The values of a UInt64 column (row ids, counts) across batches.
fn u64_values(batches: &[RecordBatch], column: usize) -> Vec<u64> {
    let mut ids = Vec::new();
    for batch in batches {
        let array = batch.column(column).as_any().downcast_ref::<UInt64Array>().expect("a UInt64 column");
        ids.extend(array.values().iter().copied());
    }
    ids
}

impl Drop for Connection {
    fn drop(&mut self) {
        let _ = self.finish(false);
    }
}

