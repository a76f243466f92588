//! Statement executors: what runs one statement inside a connection's open
//! transaction. An [`Executor`] holds the SQL side of one connection: its
//! DataFusion session, the tables of its open [`Transaction`], the data
//! registered on it, and the plans of its repeated queries. Each kind of
//! statement has its own file here (DDL, DML, upsert, MERGE, ALTER, COPY,
//! indexes, sequences, macros, views, SUMMARIZE, pipes); `run.rs` routes a
//! statement to them, `prepare` readying the ones DataFusion plans.
//!
//! The executors are methods of the executor rather than functions over a
//! `&mut Transaction`: the transaction's tables are shared with the catalog
//! DataFusion plans against (`TablesSchema` locks them while a statement is
//! planned, and planning awaits), so no borrow can span a statement.
//!
//! What spans connections lives above, in `api`: the transaction's begin
//! and end across attached databases, a statement being atomic, ATTACH,
//! snapshots, EXPORT/IMPORT DATABASE and the public methods.

mod alter;
mod copy;
mod ddl;
mod describe;
mod dml;
mod enum_types;
mod export;
mod fast_insert;
mod file_order;
mod index;
mod keyed_write;
mod macros;
mod merge;
mod pipe;
mod plan_cache;
mod point_read;
mod repeated_queries;
mod returning;
mod run;
mod run_plan;
mod sequence;
mod shapes;
mod short;
mod summarize;
mod transaction;
mod upsert;
mod view;
mod working_tables;

pub use describe::StatementInfo;
pub use run::TextStatement;
pub(crate) use shapes::Short;
pub(crate) use transaction::Transaction;

use dml::{conform, nullable_values};

use crate::core::DbCore;
use crate::frontend::types::column_type_name;
use crate::interrupt::Interrupt;
use crate::memory::CountedPool;
use crate::session::{new_context, ContextParts};
use crate::{Attached, Databases, Registered, Tables, SCHEMA};
use datafusion::arrow::array::{RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::TableProvider;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::prelude::SessionContext;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use swingdb_pipe::PendingImport;
use swingdb_storage::error::Result;
use swingdb_storage::keys::KeyIndexes;
use swingdb_storage::{Manifest, TableMeta};

/// Called with the number of rows written so far while a statement stores rows.
pub type ProgressHook = Arc<dyn Fn(u64) + Send + Sync>;

/// What a statement returns, before the public result type wraps it.
pub enum Output {
    /// Nothing (DDL, transaction control).
    Empty,
    /// The number of rows a statement changed or sent.
    Count(u64),
    /// Rows computed already.
    Rows(RecordBatch),
    /// Rows computed as they are read.
    Stream(SendableRecordBatchStream),
}

impl Output {
    /// The rows a statement changed or sent, for those that count them.
    pub fn rows_affected(&self) -> Option<u64> {
        match self {
            Output::Count(n) => Some(*n),
            _ => None,
        }
    }
}

/// The SQL side of one connection (see the module doc). Its fields are
/// the connection's state; the engine's `Session` begins and ends its
/// transaction and routes statements to it.
pub struct Executor {
    /// The open database this connection runs on.
    pub core: Arc<DbCore>,
    /// The schema this connection's tables are known by: `main`, or for a
    /// connection kept on an attached database, its alias.
    own: String,
    /// Every database this connection's statements see (see [`Databases`]).
    databases: Databases,
    ctx: SessionContext,
    tables: Tables,
    registered: Registered,
    txn: Mutex<Option<Transaction>>,
    /// The version the last transaction began from: while it is the newest
    /// and `tables` are still its tables, a kept plan is checked against
    /// them without beginning a transaction (see `repeated_queries.rs`).
    begun_from: Mutex<Option<Arc<Manifest>>>,
    progress: Mutex<Option<ProgressHook>>,
    key_indexes: Mutex<KeyIndexes>,
    remembered: Mutex<shapes::Remembered>,
    fast_inserts: AtomicBool,
    /// Whether something ran that may leave this connection unlike a new
    /// one (set with [`Self::forget_plans`]; see [`Self::changed_session`]).
    changed_session: AtomicBool,
    /// Statements run by key without planning (see `point_read.rs`, `keyed_write.rs`).
    keyed_statements: std::sync::atomic::AtomicU64,
    /// What cancels the running statement and shows its progress.
    pub interrupt: Interrupt,
    /// Physical plans of repeated queries (see `plan_cache.rs`).
    plan_cache: Mutex<plan_cache::PlanCache>,
    /// The SQL text of the query being run, while its plan may be kept.
    remember_as: Mutex<Option<String>>,
    /// Pipes the running statement imported rows from, confirmed to their
    /// exporters when it succeeds (see `api`'s `atomically`).
    pending_imports: Mutex<Vec<PendingImport>>,
    /// What its statements run in: the process's runtime with a pool that
    /// counts what they reserve (see [`Self::reserved_memory`]).
    runtime: Arc<RuntimeEnv>,
    memory: Arc<CountedPool>,
}

impl Executor {
    /// The executor of a new connection to `core` (its tables are schema
    /// `main`, beside the snapshots attached to `core`).
    pub fn new(core: Arc<DbCore>) -> Result<Self> {
        let snapshots = core.attached.clone();
        Self::build(core, SCHEMA, Databases::default(), snapshots, Interrupt::default())
    }

    /// The executor of this connection's member on the database `core`
    /// attached as `alias` (see `api`'s `attach.rs`): it sees the same
    /// databases and snapshots, and is cancelled with this one.
    pub fn member(&self, core: Arc<DbCore>, alias: &str) -> Result<Self> {
        Self::build(core, alias, self.databases.clone(), self.core.attached.clone(), self.interrupt.clone())
    }

    /// The schema its tables are known by: `main`, or a member's alias.
    pub fn schema(&self) -> &str {
        &self.own
    }

    /// Whether this is a member's executor (see [`Self::member`]).
    pub fn is_member(&self) -> bool {
        self.own != SCHEMA
    }

    /// An executor on `core` whose tables are schema `own` of `databases`,
    /// beside `snapshots`, cancelled through `interrupt`.
    fn build(
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
        let (runtime, memory) = crate::memory::counted_runtime();
        Ok(Self {
            core,
            own: own.to_string(),
            databases,
            ctx,
            tables,
            registered,
            txn: Mutex::new(None),
            begun_from: Mutex::new(None),
            progress: Mutex::new(None),
            key_indexes: Mutex::default(),
            remembered: Mutex::default(),
            fast_inserts: AtomicBool::new(true),
            changed_session: AtomicBool::new(false),
            keyed_statements: Default::default(),
            interrupt,
            plan_cache: Mutex::new(plan_cache),
            remember_as: Mutex::default(),
            pending_imports: Mutex::default(),
            runtime,
            memory,
        })
    }

    /// Bytes the operators of this connection's statements hold reserved
    /// now (sorts, aggregations, joins, buffers between threads).
    pub fn reserved_memory(&self) -> usize {
        self.memory.reserved()
    }

    /// The context `df` runs in: its session's, in this connection's
    /// runtime, its sorts' merge reservation within the memory limit (see
    /// [`crate::memory::within_limit`]).
    pub(crate) fn task_context(&self, df: &datafusion::dataframe::DataFrame) -> Arc<TaskContext> {
        let context = df.task_ctx().with_runtime(self.runtime.clone());
        match crate::memory::within_limit(context.session_config()) {
            Some(config) => Arc::new(context.with_session_config(config)),
            None => Arc::new(context),
        }
    }

    /// The DataFusion session; the kept plans are forgotten, as what is
    /// done with it may change what they mean.
    pub fn session(&self) -> &SessionContext {
        self.forget_plans();
        &self.ctx
    }

    /// Makes `table` queryable as `name` (replacing an earlier one).
    pub fn register(&self, name: &str, table: Arc<dyn TableProvider>) {
        self.registered.lock().insert(name.to_string(), table);
        self.forget_plans();
    }

    /// Removes the registration of `name`; whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.forget_plans();
        self.registered.lock().remove(name).is_some()
    }

    /// The hook told how many rows statements have stored so far.
    pub fn progress(&self) -> Option<ProgressHook> {
        self.progress.lock().clone()
    }

    /// Sets (or with `None` clears) the hook of [`Self::progress`].
    pub fn set_progress(&self, hook: Option<ProgressHook>) {
        *self.progress.lock() = hook;
    }

    /// Turns the short way of single-row parameterised INSERTs on or off.
    pub fn set_fast_inserts(&self, on: bool) {
        self.fast_inserts.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether anything ran on this connection that may have left it unlike
    /// a new one: a statement other than a query (a setting, a temporary
    /// table, an attachment, a macro; also any write planned in full), data
    /// registered, or the session handed out. Queries and the short
    /// single-row statements leave nothing behind.
    pub fn changed_session(&self) -> bool {
        self.changed_session.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The tables as this connection's open transaction has them.
    pub fn working_tables(&self) -> BTreeMap<String, Arc<TableMeta>> {
        self.tables.lock().clone()
    }

    /// Forgets the attached database `alias` (detached).
    pub fn forget_database(&self, alias: &str) {
        self.databases.lock().remove(alias);
    }

    /// Forgets the kept plans of repeated queries and the shapes of short
    /// statements (their typed literals and planned expressions): what was
    /// registered, set or defined since may change what they mean.
    pub(crate) fn forget_plans(&self) {
        self.changed_session.store(true, std::sync::atomic::Ordering::Relaxed);
        self.plan_cache.lock().clear();
        self.remembered.lock().clear();
    }
}

impl Executor {
    /// The columns of table or view `name` as `DESCRIBE` gives them.
    pub fn describe(&self, name: &str) -> Result<Output> {
        describe_columns(&self.visible_table(name)?.schema)
    }
}

/// `DESCRIBE t`: each column's name, type as SQL names it (`BIGINT`,
/// `DECIMAL(10,2)`, not Arrow's `Int64`) and whether it may hold NULL.
fn describe_columns(schema: &Schema) -> Result<Output> {
    let fields = schema.fields();
    let names = StringArray::from_iter_values(fields.iter().map(|f| f.name().clone()));
    let types = StringArray::from_iter_values(fields.iter().map(|f| column_type_name(f)));
    let nullable = StringArray::from_iter_values(fields.iter().map(|f| if f.is_nullable() { "YES" } else { "NO" }));
    let out = Schema::new(vec![
        Field::new("column_name", DataType::Utf8, false),
        Field::new("data_type", DataType::Utf8, false),
        Field::new("is_nullable", DataType::Utf8, false),
    ]);
    let batch = RecordBatch::try_new(Arc::new(out), vec![Arc::new(names), Arc::new(types), Arc::new(nullable)])?;
    Ok(Output::Rows(batch))
}
