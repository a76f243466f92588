//! `Connection`: runs SQL statements inside transactions. Every statement is
//! atomic (a failed one changes nothing); outside `BEGIN ... COMMIT` each one
//! commits on its own.

mod alter;
mod attach;
mod copy;
mod ddl;
mod dml;
mod export;
mod fast_insert;
mod file_order;
mod index;
mod macros;
mod merge;
mod pipe;
mod plan_cache;
mod sequence;
mod share;
mod summarize;
mod upsert;
mod view;

pub(crate) use attach::AttachedDatabases;
pub use attach::DatabaseEntry;
pub use pipe::PipeSource;

use dml::{conform, not_null_violation};

use super::database::{runtime, DbCore};
use super::interrupt::Interrupt;
use super::result::QueryResult;
use crate::error::{Error, ErrorKind, Result};
use crate::sql::case_fold::plan_refolding;
use crate::sql::checks::check_conditions;
use crate::sql::diagnose;
use crate::sql::dialect::settings;
use crate::sql::output_names::{plan_output_names, restore_names};
use crate::sql::parse::parse;
use crate::sql::session::{new_context, ContextParts};
use crate::sql::source::SegmentSource;
use crate::sql::suggest::closest;
use crate::sql::types::sql_name;
use crate::sql::watch::watch_plan;
use crate::sql::{Attached, Databases, Registered, Tables, CATALOG, SCHEMA};
use crate::storage::foreign_keys::{check_foreign_keys, referencing};
use crate::storage::inline_segment::grow_tail;
use crate::storage::keys::{check_keys, KeyIndexes};
use crate::storage::{Manifest, SegmentMeta, TableMeta, TableWriter};
use datafusion::arrow::array::{Array, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::{ParamValues, ScalarValue, TableReference};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::MemTable;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::{DdlStatement, LogicalPlan, Statement};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{execute_stream, ExecutionPlan, ExecutionPlanProperties};
use datafusion::prelude::SessionContext;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{ObjectName, ObjectType, Statement as SqlStatement};
use futures::StreamExt;
use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// An open transaction: the pinned version it started from, the segment
/// files it has written so far (deleted again if it does not commit) and
/// the names of the inline segments its INSERTs grow (see
/// [`crate::storage::inline`]; only this transaction's own, never a
/// committed one).
struct Txn {
    base: Arc<Manifest>,
    explicit: bool,
    new_files: Vec<PathBuf>,
    tails: HashSet<String>,
}

/// A connection to a [`super::Database`]. Statements on one connection run one
/// at a time; use several connections for parallel work.
///
/// A connection has one transaction at a time. Threads that share a connection
/// share its transaction too (as with sqlite3 and DuckDB connections): one
/// thread's ROLLBACK undoes what another ran since BEGIN. Give each thread its
/// own connection to keep their transactions apart.
pub struct Connection {
    core: Arc<DbCore>,
    /// The schema this connection's tables are known by: `main`, or for a
    /// connection kept on an attached database, its alias.
    own: String,
    /// Every database this connection's statements see (see [`Databases`]).
    databases: Databases,
    /// The connections this one keeps on the attached databases, by alias:
    /// they run the statements that change those databases, inside this
    /// connection's transaction (see `attach.rs`).
    attached: Mutex<BTreeMap<String, Arc<Connection>>>,
    ctx: SessionContext,
    tables: Tables,
    registered: Registered,
    txn: Mutex<Option<Txn>>,
    busy: tokio::sync::Mutex<()>,
    progress: Mutex<Option<ProgressHook>>,
    key_indexes: Mutex<KeyIndexes>,
    remembered: Mutex<fast_insert::Remembered>,
    fast_inserts: AtomicBool,
    interrupt: Interrupt,
    /// Physical plans of repeated queries (see `plan_cache.rs`).
    plan_cache: Mutex<plan_cache::PlanCache>,
    /// The SQL text of the query being run, while its plan may be kept.
    remember_as: Mutex<Option<String>>,
    /// Pipes the running statement imported rows from, confirmed to their
    /// exporters when it succeeds (see [`Self::atomically`]).
    pending_imports: Mutex<Vec<crate::pipe::PendingImport>>,
}

/// `DESCRIBE t`: each column's name, type as SQL names it (`BIGINT`,
/// `DECIMAL(10,2)`, not Arrow's `Int64`) and whether it may hold NULL.
fn describe_columns(schema: &Schema) -> Result<QueryResult> {
    let fields = schema.fields();
    let names = StringArray::from_iter_values(fields.iter().map(|f| f.name().clone()));
    let types = StringArray::from_iter_values(fields.iter().map(|f| sql_name(f.data_type())));
    let nullable = StringArray::from_iter_values(fields.iter().map(|f| if f.is_nullable() { "YES" } else { "NO" }));
    let out = Schema::new(vec![
        Field::new("column_name", DataType::Utf8, false),
        Field::new("data_type", DataType::Utf8, false),
        Field::new("is_nullable", DataType::Utf8, false),
    ]);
    let batch = RecordBatch::try_new(Arc::new(out), vec![Arc::new(names), Arc::new(types), Arc::new(nullable)])?;
    Ok(QueryResult::rows(batch))
}

/// `plan` with its placeholders `$1, $2, ...` replaced by `params` (none: as it is).
fn bind_params(plan: LogicalPlan, params: &[ScalarValue]) -> Result<LogicalPlan> {
    match params.is_empty() {
        true => Ok(plan),
        false => Ok(plan.with_param_values(ParamValues::List(params.iter().cloned().map(Into::into).collect()))?),
    }
}

/// Marks `touched` tables as written by this transaction (a new entry), so
/// that one that changed them meanwhile conflicts at commit.
fn mark_written(tables: &mut BTreeMap<String, Arc<TableMeta>>, touched: Vec<String>) {
    for other in touched {
        if let Some(t) = tables.get(&other).cloned() {
            tables.insert(other, Arc::new(t.as_ref().clone()));
        }
    }
}

/// `stream`, computed by a task on the engine's worker threads. A plan
/// whose operators compute a batch without ever yielding (an aggregate over
/// a single-partition join runs for seconds in one poll) would otherwise
/// run inside the caller's poll, where nothing else gets a turn: the caller
/// now only waits for batches, so it notices an interrupt (Ctrl-C) at once.
/// Dropping the stream stops the task. Plain reads of stored data (cheap per
/// batch) skip the hop.
fn off_thread(stream: SendableRecordBatchStream) -> SendableRecordBatchStream {
    off_thread_buffered(stream, 2)
}

/// [`off_thread`], the task running ahead of the reader by up to `batches`.
fn off_thread_buffered(mut stream: SendableRecordBatchStream, batches: usize) -> SendableRecordBatchStream {
    let mut builder = RecordBatchReceiverStream::builder(stream.schema(), batches);
    let tx = builder.tx();
    builder.spawn(async move {
        while let Some(item) = stream.next().await {
            if tx.send(item).await.is_err() {
                break; // the reader is gone
            }
        }
        Ok(())
    });
    builder.build()
}

/// Called with the number of rows written so far while a statement stores rows.
pub type ProgressHook = Arc<dyn Fn(u64) + Send + Sync>;

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("database", &self.core.dir().root()).finish()
    }
}

/// Stack that parsing and planning a statement at the depth limit needs on
/// the calling thread: DataFusion's planner is protected against deep
/// recursion, but cloning, comparing and dropping expression trees recurse
/// once per level. A statement at the limit plans and runs in 4 MiB (tested).
const PLANNING_STACK: usize = 4 << 20;

/// Runs `f` (which parses and plans on the calling thread) with at least
/// [`PLANNING_STACK`] of stack: on the caller's own if it has that much left
/// (an 8 MiB main or Python thread does; then this costs one comparison), else
/// on a fresh 16 MiB stack (threads started with small stacks).
fn on_planning_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(PLANNING_STACK, 4 * PLANNING_STACK, f)
}

/// Refuses names no table can have.
fn check_table_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::programming("a table name cannot be empty"));
    }
    Ok(())
}

/// The name of the table `reference` names in the database whose schema is
/// `own` (`main`, or the alias of an attached database): a plain name, or one
/// qualified with `own` (and swingdb's catalog).
fn table_name(reference: &TableReference, own: &str) -> Result<String> {
    check_table_name(reference.table())?;
    let ok_schema = reference.schema().is_none_or(|s| s == own);
    let ok_catalog = reference.catalog().is_none_or(|c| c == CATALOG);
    if !ok_schema || !ok_catalog {
        let schema = reference.schema().unwrap_or_default();
        return Err(Error::programming(format!(
            "'{reference}' cannot be changed: '{schema}' is not a database attached for writing \
             (ATTACH 'path' AS {schema} attaches one; snapshots attached with ATTACH SNAPSHOT are read-only)"
        )));
    }
    Ok(reference.table().to_string())
}

/// [`table_name`] of a name as the parser gives it.
fn object_name(name: &ObjectName, own: &str) -> Result<String> {
    let reference = TableReference::from(name.to_string().as_str());
    // sqlparser keeps the user's case; SQL identifiers fold to lower case unless quoted.
    let table = table_name(&reference, own)?;
    let quoted = name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.quote_style.is_some());
    Ok(if quoted { table } else { table.to_lowercase() })
}

impl Connection {
    pub(crate) fn new(core: Arc<DbCore>) -> Result<Self> {
        let snapshots = core.attached.clone();
        Self::member(core, SCHEMA, Databases::default(), snapshots, Interrupt::default())
    }

    /// A connection to `core` whose tables are schema `own` of `databases`,
    /// beside `snapshots`, cancelled through `interrupt`.
    fn member(
        core: Arc<DbCore>,
        own: &str,
        databases: Databases,
        snapshots: Attached,
        interrupt: Interrupt,
    ) -> Result<Self> {
        let tables: Tables = Arc::new(Mutex::new(BTreeMap::new()));
        let registered: Registered = Arc::new(Mutex::new(BTreeMap::new()));
        let ctx = new_context(ContextParts {
            own: own.to_string(),
            tables: tables.clone(),
            registered: registered.clone(),
            databases: databases.clone(),
            snapshots,
            store: core.store.clone(),
            external_access: core.external_access,
        })?;
        let plan_cache = plan_cache::PlanCache::new(&ctx);
        Ok(Self {
            core,
            own: own.to_string(),
            databases,
            attached: Mutex::default(),
            ctx,
            tables,
            registered,
            txn: Mutex::new(None),
            busy: tokio::sync::Mutex::new(()),
            progress: Mutex::new(None),
            key_indexes: Mutex::default(),
            remembered: Mutex::default(),
            fast_inserts: AtomicBool::new(true),
            interrupt,
            plan_cache: Mutex::new(plan_cache),
            remember_as: Mutex::default(),
            pending_imports: Mutex::default(),
        })
    }

    /// Runs `sql` (one or more `;`-separated statements) with positional
    /// parameters (`?` or `$1`) and returns the last statement's result.
    pub fn execute(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        self.interrupt.clear();
        let result = on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                // Placeholders, so parameters: the only statements worth remembering.
                let prepared = if params.is_empty() { None } else { self.prepared_insert(sql) };
                if let Some(insert) = prepared {
                    return self
                        .atomically(|| async {
                            match self.run_fast_insert(&insert, params)? {
                                Some(done) => Ok(done),
                                None => {
                                    let statement =
                                        parse(sql)?.pop().ok_or_else(|| Error::internal("a statement vanished"))?;
                                    self.run_in_txn(statement, params, true).await
                                }
                            }
                        })
                        .await;
                }
                self.execute_async(sql, params).await
            })
        });
        let result = result.map_err(|e| diagnose::explain(e, sql))?;
        Ok(result.interruptible_by(&self.interrupt).explained_by(sql))
    }

    /// What cancels this connection's running statement or fetch from
    /// another thread (see [`Interrupt::interrupt`]) and shows its progress.
    pub fn interrupt_handle(&self) -> Interrupt {
        self.interrupt.clone()
    }

    /// Turns the short way of single-row `INSERT ... VALUES (?, ...)` on or
    /// off (on by default; off, DataFusion plans every statement, which
    /// tests compare the short way with).
    pub fn set_fast_inserts(&self, on: bool) {
        self.fast_inserts.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Makes `batches` queryable as table `name` on this connection, without
    /// copying them (their buffers stay where they are) and without storing
    /// them. Replaces an earlier registration of the same name.
    pub fn register(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<()> {
        let name = name.to_string();
        let table = MemTable::try_new(schema, vec![batches])?;
        self.registered.lock().unwrap().insert(name, Arc::new(table));
        self.plan_cache.lock().unwrap().clear();
        Ok(())
    }

    /// Stores `batches` as the new table `name` (`create`) or appends them to
    /// the existing table `name`, by column position, in one atomic statement.
    /// The name is taken as it is (as if quoted in SQL); no SQL is built from it.
    pub fn store(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>, create: bool) -> Result<QueryResult> {
        check_table_name(name)?;
        self.interrupt.clear();
        let source = Arc::new(MemTable::try_new(schema, vec![batches])?);
        on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    if create {
                        self.create_table_from(name, source).await
                    } else {
                        self.append_from(name, source).await
                    }
                })
                .await
            })
        })
    }

    /// Removes a registration; returns whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.plan_cache.lock().unwrap().clear();
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

    /// The tables this connection sees: its transaction's, or the newest version's outside one.
    fn visible_tables(&self) -> Result<BTreeMap<String, Arc<TableMeta>>> {
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            let manifest = self.core.dir().pin_latest()?;
            self.core.dir().unpin(manifest.version);
            return Ok(manifest.tables.clone());
        }
        Ok(self.tables.lock().unwrap().clone())
    }

    /// Names of the tables (and views) this connection sees.
    pub fn table_names(&self) -> Result<Vec<String>> {
        Ok(self.visible_tables()?.into_iter().filter(|(_, m)| m.is_relation()).map(|(n, _)| n).collect())
    }

    /// The columns of table or view `name` as `DESCRIBE` gives them (name, SQL
    /// type, nullable); a ProgrammingError naming it if there is none.
    pub fn describe(&self, name: &str) -> Result<QueryResult> {
        describe_columns(&self.visible_table(name)?.schema)
    }

    /// Table or view `name` as this connection sees it; a ProgrammingError
    /// naming it (and the tables there are) if there is none.
    fn visible_table(&self, name: &str) -> Result<Arc<TableMeta>> {
        let tables = self.visible_tables()?;
        tables.get(name).cloned().ok_or_else(|| {
            let known = tables.keys().cloned().collect::<Vec<_>>().join(", ");
            Error::programming(format!("table '{name}' does not exist (tables: {known})"))
        })
    }

    /// The underlying DataFusion session (for registering functions, tuning).
    /// Plans this connection kept for repeated reads are forgotten: what is
    /// done with the session may change what they mean.
    pub fn session(&self) -> &SessionContext {
        self.plan_cache.lock().unwrap().clear();
        &self.ctx
    }

    async fn execute_async(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
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

    /// Opens a transaction (`explicit`: by BEGIN) on this connection and its
    /// members (see `attach.rs`), each at the newest version of its database.
    fn begin(&self, explicit: bool) -> Result<()> {
        let members = self.synced_members()?;
        for (i, member) in members.iter().enumerate() {
            if let Err(e) = member.begin(explicit) {
                for begun in &members[..i] {
                    let _ = begun.finish(false);
                }
                return Err(e);
            }
        }
        if let Err(e) = self.begin_own(explicit) {
            for member in &members {
                let _ = member.finish(false);
            }
            return Err(e);
        }
        Ok(())
    }

    fn begin_own(&self, explicit: bool) -> Result<()> {
        let manifest = self.core.dir().pin_latest()?;
        // Segments of older versions leave the handle's cache (queries and
        // results still using them keep their own references): a reader that
        // never commits would otherwise keep every segment it ever read open
        // and mapped, until it runs out of file descriptors, and keep the
        // space of collected files from being freed.
        self.core.store.retain(&manifest.segment_files().collect());
        self.plan_cache.lock().unwrap().keep_made_from(&manifest.tables);
        *self.tables.lock().unwrap() = manifest.tables.clone();
        *self.txn.lock().unwrap() =
            Some(Txn { base: manifest, explicit, new_files: Vec::new(), tails: HashSet::new() });
        Ok(())
    }

    /// Ends the open transaction: commits it, or (on `commit == false` or a
    /// failed commit) deletes everything it wrote. The members' transactions
    /// end with it; at most one of them (or this one) changed anything (see
    /// `attach.rs`), so at most one commit publishes a version.
    fn finish(&self, commit: bool) -> Result<()> {
        let members: Vec<Arc<Connection>> = self.attached.lock().unwrap().values().cloned().collect();
        let mut outcome = self.finish_own(commit);
        for member in members {
            let ended = member.finish(commit && outcome.is_ok());
            if outcome.is_ok() {
                outcome = ended;
            }
        }
        outcome
    }

    fn finish_own(&self, commit: bool) -> Result<()> {
        let Some(mut txn) = self.txn.lock().unwrap().take() else { return Ok(()) };
        // The tables stay visible after the transaction ends: results still being
        // streamed (information_schema, say) read the catalog as they execute.
        let working = self.tables.lock().unwrap().clone();
        let outcome =
            if commit { self.core.commit(&txn.base, &working, &mut txn.new_files).map(|_| ()) } else { Ok(()) };
        if !commit || outcome.is_err() {
            for f in &txn.new_files {
                let _ = std::fs::remove_file(f);
            }
        }
        self.core.dir().unpin(txn.base.version);
        outcome
    }

    /// Runs one statement; `exact_params` asks that it use every parameter given.
    async fn run_statement(
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

    /// Runs `body` as one atomic statement: inside the open transaction, or in
    /// its own that commits if it succeeds. A failed statement changes nothing:
    /// the tables are restored and the files it wrote deleted.
    async fn atomically<F, Fut>(&self, body: F) -> Result<QueryResult>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<QueryResult>>,
    {
        let implicit = self.txn.lock().unwrap().is_none();
        if implicit {
            self.begin(false)?;
        }
        let saved_tables = self.tables.lock().unwrap().clone();
        let mark = self.txn.lock().unwrap().as_ref().map_or(0, |t| t.new_files.len());
        // Cancelling drops `body` at an await point: what it changed is undone
        // below like any failure's (its TableWriters delete their own files).
        let outcome = self.interrupt.guard(body(), true).await;
        if let Err(e) = outcome {
            self.end_imports(Some(e.message()));
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
            if let Err(e) = self.finish(true) {
                self.end_imports(Some(e.message()));
                return Err(e);
            }
        }
        self.end_imports(None);
        outcome
    }

    /// Ends the imports of the statement that just ran: confirms them to
    /// their exporters if it succeeded (`failure` None), else tells them it
    /// failed and why. A confirmation that cannot be sent (the exporter is
    /// gone) changes nothing here: the rows are stored.
    fn end_imports(&self, failure: Option<&str>) {
        let imports = std::mem::take(&mut *self.pending_imports.lock().unwrap());
        for import in imports {
            match failure {
                None => {
                    let _ = import.confirm();
                }
                Some(why) => import.abort(&format!("the importing statement failed: {why}")),
            }
        }
    }

    fn record_files(&self, files: Vec<PathBuf>) {
        if let Some(txn) = self.txn.lock().unwrap().as_mut() {
            txn.new_files.extend(files);
        }
    }

    /// The segments of `meta` followed by `added` (new rows of an INSERT): an
    /// inline segment joins the table's tail if this transaction grows one
    /// (see [`crate::storage::inline`]), else becomes one.
    fn appended(&self, meta: &TableMeta, added: Vec<SegmentMeta>) -> Result<Vec<SegmentMeta>> {
        let mut segments = meta.segments.clone();
        let mut txn = self.txn.lock().unwrap();
        let tails = &mut txn.as_mut().ok_or_else(|| Error::internal("an INSERT outside a transaction"))?.tails;
        for mut segment in added {
            if meta.is_altered() && segment.column_ids.is_none() {
                segment.column_ids = Some(meta.column_ids.ids.clone());
            }
            if let Some(tail) = segments.last_mut().filter(|s| tails.contains(&s.file)) {
                if let Some(grown) = grow_tail(tail, &segment)? {
                    *tail = grown;
                    continue;
                }
            }
            if segment.inline.is_some() {
                tails.insert(segment.file.clone());
            }
            segments.push(segment);
        }
        Ok(segments)
    }

    /// Whether `name` is a stored table (its segments can be handed over) rather
    /// than a view; an error if it is neither.
    fn is_stored_table(&self, name: &str) -> Result<bool> {
        match self.tables.lock().unwrap().get(name) {
            Some(meta) if meta.is_relation() => Ok(meta.is_table()),
            Some(meta) => Err(Error::programming(format!("'{name}' is a {}, not a table", meta.kind()))),
            None => Err(Error::programming(format!("table '{name}' does not exist"))),
        }
    }

    /// The stored table `name`, to change: a view is refused.
    fn table(&self, name: &str) -> Result<Arc<TableMeta>> {
        let meta = self
            .tables
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::programming(format!("table '{name}' does not exist")))?;
        if meta.is_view() {
            return Err(Error::programming(format!(
                "'{name}' is a view; a view's rows cannot be changed, change the tables it reads"
            )));
        }
        if !meta.is_table() {
            return Err(Error::programming(format!("'{name}' is a {}, not a table", meta.kind())));
        }
        Ok(meta)
    }

    /// Makes `meta` the table `name` of this transaction, once its rows keep
    /// every key (an `IntegrityError` otherwise, and nothing changes).
    fn set_table(&self, name: &str, mut meta: TableMeta) -> Result<()> {
        crate::sql::identity::advance(&mut meta);
        if !meta.constraints.checks.is_empty() {
            let before = self.tables.lock().unwrap().get(name).cloned();
            check_conditions(&self.core.store, &self.ctx.state(), name, before.as_deref(), &meta)?;
        }
        if meta.constraints.keys().next().is_some() {
            check_keys(&self.core.store, &mut self.key_indexes.lock().unwrap(), name, &meta)?;
        }
        let mut tables = self.tables.lock().unwrap();
        let referenced = referencing(&tables, name).next().is_some();
        if referenced || !meta.constraints.foreign_keys.is_empty() {
            let before = tables.get(name).cloned();
            let mut indexes = self.key_indexes.lock().unwrap();
            let check = check_foreign_keys(&self.core.store, &mut indexes, &tables, name, before.as_deref(), &meta)?;
            mark_written(&mut tables, check.touched);
        }
        tables.insert(name.to_string(), Arc::new(meta));
        Ok(())
    }

    /// Checks every row of `meta` (table `name`, its FOREIGN KEYs just
    /// declared) against the tables it references, marking them as written.
    fn check_all_foreign_keys(&self, name: &str, meta: &TableMeta) -> Result<()> {
        let mut tables = self.tables.lock().unwrap();
        let mut indexes = self.key_indexes.lock().unwrap();
        let check = check_foreign_keys(&self.core.store, &mut indexes, &tables, name, None, meta)?;
        mark_written(&mut tables, check.touched);
        Ok(())
    }

    async fn run_in_txn(
        &self,
        mut statement: DFStatement,
        params: &[ScalarValue],
        exact_params: bool,
    ) -> Result<QueryResult> {
        crate::sql::json::json_as_text(&mut statement);
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
        let names = plan_output_names(&mut statement);
        self.expand_macros(&mut statement)?;
        let upsert = upsert::take_upsert(&mut statement)?;
        dml::take_default_values(&mut statement, &self.tables.lock().unwrap(), &self.own)?;
        crate::sql::functions::named_options(&mut statement);
        crate::sql::dialect::syntax::rewrite(&mut statement)?;
        let state = self.ctx.state();
        crate::sql::using_joins::resolve_natural(&mut statement, &state).await;
        crate::sql::using_joins::rewrite(&mut statement);
        crate::sql::dialect::pivot::rewrite(&mut statement, &state).await?;
        crate::sql::dialect::columns::rewrite(&mut statement, &state).await?;
        // A view stores its query as rewritten here, DuckDB's spellings
        // made plain (a TABLESAMPLE the engine would ignore must not reach it).
        if matches!(&statement, DFStatement::Statement(s) if matches!(s.as_ref(), SqlStatement::CreateView(_))) {
            return self.create_view(&statement).await;
        }
        let column_rules = ddl::take_column_rules(&mut statement, &self.own)?;
        let plan = match plan_refolding(&state, &mut statement).await {
            Ok(plan) => plan,
            Err(e) => {
                let err = self.explain_missing_file(self.suggest_function(e.into()));
                return Err(self.explain_unknown_table(err));
            }
        };
        let wanted = plan.get_parameter_types()?.len();
        if (exact_params && params.len() > wanted) || params.len() < wanted {
            let given = match params.len() {
                0 => "no values were given".to_string(),
                1 => "1 value was given".to_string(),
                n => format!("{n} values were given"),
            };
            return Err(Error::programming(format!(
                "the statement has {wanted} parameter placeholder{} (? or $n) but {given}; pass one value per placeholder",
                if wanted == 1 { "" } else { "s" }
            )));
        }
        let plan = match bind_params(plan, params)? {
            LogicalPlan::Statement(Statement::SetVariable(set)) => {
                LogicalPlan::Statement(Statement::SetVariable(settings::checked(set)?))
            }
            plan => plan,
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

    /// `err` about a table not found, made helpful: the close name among
    /// the tables of the schema it was looked up in, or that no database is
    /// attached under that schema's name.
    fn explain_unknown_table(&self, err: Error) -> Error {
        let message = err.message();
        let Some(name) = message.strip_prefix("table '").and_then(|r| r.strip_suffix("' not found")) else {
            return err;
        };
        let parts: Vec<&str> = name.split('.').collect();
        let own = match parts.as_slice() {
            [table] => Some(*table),
            [schema, table] if *schema == self.own => Some(*table),
            _ => None,
        };
        if let Some((table, other)) = own
            .and_then(|table| Some((table, self.tables.lock().unwrap().get(table).cloned()?)))
            .filter(|(_, m)| !m.is_relation())
        {
            let message = format!("'{table}' is a {}, not a table; only tables and views can be read", other.kind());
            return err.with_message(message);
        }
        let schema = match parts.as_slice() {
            [_, schema, _] | [schema, _] => *schema,
            _ => SCHEMA,
        };
        let Some(catalog) = self.ctx.catalog(CATALOG) else { return err };
        match catalog.schema(schema) {
            Some(provider) => diagnose::suggest_table(err, provider.table_names().iter().map(String::as_str)),
            None => {
                let table = parts.last().copied().unwrap_or_default();
                let message = format!(
                    "table '{schema}.{table}' does not exist: no database is attached as '{schema}' \
                     (ATTACH 'path' AS {schema} attaches one; attached: {})",
                    catalog
                        .schema_names()
                        .into_iter()
                        .filter(|s| s != "information_schema")
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                err.with_message(message)
            }
        }
    }

    /// Refuses `what` (an access to files) when the database was opened with
    /// `external_access` off.
    fn check_external_access(&self, what: &str) -> Result<()> {
        if self.core.external_access {
            return Ok(());
        }
        Err(Error::programming(format!(
            "{what} reads or writes files, and external access is disabled for this database (external_access=False)"
        )))
    }

    /// With external access off, a file path used as a table is "not found":
    /// say why.
    /// `err` with a better "Did you mean" when it is about an unknown
    /// function (see [`crate::sql::suggest`]).
    fn suggest_function(&self, err: Error) -> Error {
        let message = err.message();
        let Some(rest) = message.strip_prefix("Invalid function '") else { return err };
        let Some((typed, _)) = rest.split_once("'.") else { return err };
        let state = self.ctx.state();
        let names = state
            .scalar_functions()
            .keys()
            .chain(state.aggregate_functions().keys())
            .chain(state.window_functions().keys());
        match closest(typed, names.map(String::as_str)) {
            Some(name) => {
                let message = format!("Invalid function '{typed}'. Did you mean '{name}'?");
                err.with_message(message)
            }
            None => err,
        }
    }

    fn explain_missing_file(&self, err: Error) -> Error {
        let looks_like_file = |m: &str| m.contains("not found") && (m.contains('/') || m.contains('.'));
        if self.core.external_access || err.kind() != ErrorKind::Programming || !looks_like_file(err.message()) {
            return err;
        }
        Error::programming(format!(
            "{}: file paths are not tables here, because external access is disabled for this database (external_access=False)",
            err.message()
        ))
    }

    async fn stream_plan(&self, plan: LogicalPlan) -> Result<SendableRecordBatchStream> {
        let (physical, task_ctx) = self.physical_plan(plan).await?;
        self.stream_physical(physical, task_ctx)
    }

    /// The optimized physical plan of `plan`, and the context to run it in.
    async fn physical_plan(&self, plan: LogicalPlan) -> Result<(Arc<dyn ExecutionPlan>, Arc<TaskContext>)> {
        let df = self.ctx.execute_logical_plan(plan).await?;
        let task_ctx = Arc::new(df.task_ctx());
        Ok((df.create_physical_plan().await?, task_ctx))
    }

    /// The rows of `physical`.
    fn stream_physical(
        &self,
        physical: Arc<dyn ExecutionPlan>,
        task_ctx: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if physical.output_partitioning().partition_count() > 1 && reads_in_storage_order(&physical) {
            // A plain read of stored tables: DataFusion split the scan into
            // contiguous ranges; reading them one after the other keeps storage
            // order, so adjacent slices can be joined back into whole arrays.
            return plan_cache::stream_in_order(physical, task_ctx);
        }
        let physical = watch_plan(physical, &self.interrupt.run())?;
        Ok(off_thread(execute_stream(physical, task_ctx)?))
    }

    async fn collect_plan(&self, plan: LogicalPlan) -> Result<Vec<RecordBatch>> {
        let stream = self.stream_plan(plan).await?;
        Ok(datafusion::physical_plan::common::collect(stream).await?)
    }

    /// Stores the rows of `plan` as new segments of `table` (shaped as
    /// `schema`), in the order its source holds them where the plan only
    /// passes on the rows of files it reads: DataFusion splits a file into
    /// contiguous ranges, one per partition, and the partitions are written
    /// one after the other (computed at once). Rows stay in the file's order,
    /// as DuckDB keeps them, and a file sorted by a column gives a table
    /// sorted by it (see `sql::ordered_scan`).
    async fn write_plan(&self, plan: LogicalPlan, schema: &SchemaRef, table: &str) -> Result<Vec<SegmentMeta>> {
        let (physical, task_ctx) = self.physical_plan(plan).await?;
        let files = |scan: &DataSourceExec| scan.data_source().downcast_ref::<FileScanConfig>().is_some();
        let stream = if physical.output_partitioning().partition_count() > 1 && passes_rows_of(&physical, &files) {
            file_order::in_file_order(physical, task_ctx, &self.interrupt.run())?
        } else {
            self.stream_physical(physical, task_ctx)?
        };
        self.write_stream(stream, schema, table).await
    }

    /// Drains `stream` into new segments of `table` (shaped as `schema`).
    async fn write_stream(
        &self,
        mut stream: SendableRecordBatchStream,
        schema: &SchemaRef,
        table: &str,
    ) -> Result<Vec<SegmentMeta>> {
        let mut writer = TableWriter::new(self.core.dir(), schema.clone());
        let progress = self.progress.lock().unwrap().clone();
        let mut rows = 0;
        while let Some(batch) = stream.next().await {
            let batch = batch?;
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
}

/// Whether `plan` is a chain of order-preserving single-input operators over a
/// scan of stored segments or registered in-memory data.
fn reads_in_storage_order(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let stored = |scan: &DataSourceExec| {
        let source = scan.data_source();
        source.downcast_ref::<SegmentSource>().is_some() || source.downcast_ref::<MemorySourceConfig>().is_some()
    };
    passes_rows_of(plan, &stored)
}

/// Whether `plan` is a chain of order-preserving single-input operators over
/// a scan for which `scans` holds.
fn passes_rows_of(plan: &Arc<dyn ExecutionPlan>, scans: &dyn Fn(&DataSourceExec) -> bool) -> bool {
    match plan.children().as_slice() {
        [] => plan.downcast_ref::<DataSourceExec>().is_some_and(scans),
        [child] => plan.maintains_input_order().first() == Some(&true) && passes_rows_of(child, scans),
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
