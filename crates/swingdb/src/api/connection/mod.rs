//! `Connection`: runs SQL statements inside transactions. Every statement is
//! atomic (a failed one changes nothing); outside `BEGIN ... COMMIT` each one
//! commits on its own.

mod atomic;
mod attach;
mod conflicts;
mod files;
mod pipe;
mod route;
mod share;

pub use attach::DatabaseEntry;
pub use pipe::PipeSource;

use super::result::QueryResult;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use swingdb_sql::engine::check_table_name;
use swingdb_sql::engine::explain;
use swingdb_sql::engine::parse;
use swingdb_sql::engine::Executor;
use swingdb_sql::engine::{runtime, DbCore};
use swingdb_sql::Interrupt;
use swingdb_sql::ProgressHook;
use swingdb_storage::error::{Error, Result};

/// A connection to a [`super::Database`]. Statements on one connection run one
/// at a time; use several connections for parallel work.
///
/// A connection has one transaction at a time. Threads that share a connection
/// share its transaction too (as with sqlite3 and DuckDB connections): one
/// thread's ROLLBACK undoes what another ran since BEGIN. Give each thread its
/// own connection to keep their transactions apart.
///
/// ```edition2024
/// use swingdb::arrow::array::AsArray;
/// use swingdb::arrow::datatypes::Int64Type;
/// use swingdb::datafusion::common::ScalarValue;
/// let con = swingdb::Database::in_memory()?.connect()?;
/// con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR)", &[])?;
/// con.execute("INSERT INTO t VALUES (?, ?)", &[ScalarValue::from(1), ScalarValue::from("a")])?;
/// con.execute("BEGIN", &[])?;
/// con.execute("INSERT INTO t VALUES (2, 'b')", &[])?;
/// con.execute("ROLLBACK", &[])?;
/// let rows = con.execute("SELECT count(*) FROM t", &[])?.collect_batches()?;
/// assert_eq!(rows[0].column(0).as_primitive::<Int64Type>().value(0), 1, "the rollback undid row 2");
/// let err = con.execute("INSERT INTO t VALUES (1, 'again')", &[]).unwrap_err();
/// assert_eq!(err.kind(), swingdb::ErrorKind::Integrity);
/// # Ok::<(), swingdb::Error>(())
/// ```
pub struct Connection {
    /// The SQL side: the session, the tables of the open transaction, and
    /// the statements' executors (see `sql::statements`).
    exec: Executor,
    /// The connections this one keeps on the attached databases, by alias:
    /// they run the statements that change those databases, inside this
    /// connection's transaction (see `attach.rs`).
    attached: Mutex<BTreeMap<String, Arc<Connection>>>,
    busy: tokio::sync::Mutex<()>,
    /// How long a statement that commits on its own is run again after
    /// losing a conflict (see `conflicts.rs`).
    conflict_timeout: Mutex<std::time::Duration>,
    /// Runs of autocommit statements that lost a conflict and ran again.
    conflict_retries: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("database", &self.exec.core.dir().root()).finish()
    }
}

/// How long a statement that commits on its own is run again after lost
/// conflicts, by default (see `conflicts.rs`).
const CONFLICT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

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

impl Connection {
    pub(crate) fn new(core: Arc<DbCore>) -> Result<Self> {
        Self::with(Executor::new(core)?)
    }

    /// A connection that runs its statements on `exec`.
    fn with(exec: Executor) -> Result<Self> {
        Ok(Self {
            exec,
            attached: Mutex::default(),
            busy: tokio::sync::Mutex::new(()),
            conflict_timeout: Mutex::new(CONFLICT_TIMEOUT),
            conflict_retries: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Runs `sql` (one or more `;`-separated statements) with positional
    /// parameters (`?` or `$1`) and returns the last statement's result.
    pub fn execute(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        self.exec.interrupt.clear();
        let result = on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                // Placeholders, so parameters: the only statements worth remembering.
                let prepared = if params.is_empty() { None } else { self.exec.prepared_insert(sql) };
                if let Some(insert) = prepared {
                    let run = || {
                        self.atomically(|| async {
                            match self.exec.run_fast_insert(&insert, params)? {
                                Some(done) => Ok(done),
                                None => {
                                    let statement =
                                        parse(sql)?.pop().ok_or_else(|| Error::internal("a statement vanished"))?;
                                    self.exec.run_in_txn(statement, params, true).await
                                }
                            }
                        })
                    };
                    return self.retrying_conflicts(sql, run).await;
                }
                self.execute_async(sql, params).await
            })
        });
        let result = result.map_err(|e| explain(e, sql))?;
        Ok(result.interruptible_by(&self.exec.interrupt).explained_by(sql))
    }

    /// What the one statement `sql` takes and returns (its parameters' types,
    /// its columns), found by planning it without running it: nothing it
    /// would do happens. A statement that would fail to plan fails here with
    /// the error running it would give.
    ///
    /// ```edition2024
    /// use swingdb::arrow::datatypes::DataType;
    /// let con = swingdb::Database::in_memory()?.connect()?;
    /// con.execute("CREATE TABLE t (id INTEGER, name VARCHAR)", &[])?;
    /// let info = con.statement_info("SELECT name FROM t WHERE id = ? ORDER BY name")?;
    /// assert_eq!(info.parameters.unwrap().field(0).data_type(), &DataType::Int32);
    /// assert_eq!(info.columns.unwrap().field(0).name(), "name");
    /// assert!(info.ordered);
    /// let info = con.statement_info("INSERT INTO t VALUES (?, ?)")?;
    /// assert_eq!(info.parameters.unwrap().fields().len(), 2);
    /// assert!(info.columns.is_none());
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn statement_info(&self, sql: &str) -> Result<swingdb_sql::StatementInfo> {
        let info = on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                // Planning reads the tables of a transaction: the open one,
                // else one of its own that ends without changing anything.
                let implicit = !self.exec.in_transaction();
                if implicit {
                    self.begin(false)?;
                }
                let info = self.exec.statement_info(sql).await;
                if implicit {
                    self.finish(false)?;
                }
                info
            })
        });
        info.map_err(|e| explain(e, sql))
    }

    /// What cancels this connection's running statement or fetch from
    /// another thread (see [`Interrupt::interrupt`]) and shows its progress.
    ///
    /// ```edition2024
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use std::sync::Arc;
    /// let con = swingdb::Database::in_memory()?.connect()?;
    /// let handle = con.interrupt_handle();
    /// let done = Arc::new(AtomicBool::new(false));
    /// let canceller = {
    ///     let done = done.clone();
    ///     std::thread::spawn(move || {
    ///         while !done.load(Ordering::SeqCst) {
    ///             std::thread::sleep(std::time::Duration::from_millis(100));
    ///             handle.interrupt(); // as Ctrl-C does
    ///         }
    ///     })
    /// };
    /// let slow = "SELECT count(*) FROM range(1000000000) a, range(1000) b WHERE a.value + b.value = 7";
    /// let err = con.execute(slow, &[]).and_then(|mut r| r.collect_batches().map(|_| ())).unwrap_err();
    /// done.store(true, Ordering::SeqCst);
    /// canceller.join().unwrap();
    /// assert_eq!(err.kind(), swingdb::ErrorKind::Interrupted);
    /// assert!(con.execute("SELECT 1", &[]).is_ok(), "the connection stays usable");
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn interrupt_handle(&self) -> Interrupt {
        self.exec.interrupt.clone()
    }

    /// Bytes this connection's statements hold reserved now (their sorts,
    /// aggregations, joins and buffers between threads, under
    /// [`crate::memory_limit`]): what a result not yet fetched to its end
    /// costs beyond the rows already handed over. A server holding results
    /// for clients counts them against its budget with it.
    pub fn reserved_memory(&self) -> usize {
        self.exec.reserved_memory()
    }

    /// Turns the short way of single-row `INSERT ... VALUES (?, ...)` on or
    /// off (on by default; off, DataFusion plans every statement, which
    /// tests compare the short way with).
    pub fn set_fast_inserts(&self, on: bool) {
        self.exec.set_fast_inserts(on);
    }

    /// Makes `batches` queryable as table `name` on this connection, without
    /// copying them (their buffers stay where they are) and without storing
    /// them. Replaces an earlier registration of the same name.
    pub fn register(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<()> {
        let table = MemTable::try_new(schema, vec![batches])?;
        self.exec.register(name, Arc::new(table));
        Ok(())
    }

    /// Stores `batches` as the new table `name` (`create`) or appends them to
    /// the existing table `name`, by column position, in one atomic statement.
    /// The name is taken as it is (as if quoted in SQL); no SQL is built from it.
    pub fn store(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>, create: bool) -> Result<QueryResult> {
        check_table_name(name)?;
        self.exec.interrupt.clear();
        let source = Arc::new(MemTable::try_new(schema, vec![batches])?);
        on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(|| async {
                    if create {
                        self.exec.create_table_from(name, source).await
                    } else {
                        self.exec.append_from(name, source).await
                    }
                })
                .await
            })
        })
    }

    /// Removes a registration; returns whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.exec.unregister(name)
    }

    /// Sets (or with `None` clears) the hook told how many rows statements have
    /// stored so far, for progress bars on long loads.
    pub fn set_progress(&self, hook: Option<ProgressHook>) {
        self.exec.set_progress(hook);
    }

    /// Whether an explicit transaction (`BEGIN`) is open.
    pub fn in_transaction(&self) -> bool {
        self.exec.open_transaction() == Some(true)
    }

    /// Names of the tables (and views) this connection sees.
    pub fn table_names(&self) -> Result<Vec<String>> {
        Ok(self.exec.visible_tables()?.into_iter().filter(|(_, m)| m.is_relation()).map(|(n, _)| n).collect())
    }

    /// The columns of table or view `name` as `DESCRIBE` gives them (name, SQL
    /// type, nullable); a ProgrammingError naming it if there is none.
    pub fn describe(&self, name: &str) -> Result<QueryResult> {
        Ok(self.exec.describe(name)?.into())
    }

    /// The columns of table `name`'s primary key, in key order (`None` for a
    /// table without one, or a view); a ProgrammingError naming it if there
    /// is none.
    pub fn primary_key(&self, name: &str) -> Result<Option<Vec<String>>> {
        Ok(self.exec.visible_table(name)?.constraints.primary_key.clone())
    }

    /// The statement(s) that make table or view `name` again, as EXPORT
    /// DATABASE writes them into `schema.sql`: columns, types, keys,
    /// defaults, checks, clustering and indexes (the shell's `.schema`).
    pub fn create_statement(&self, name: &str) -> Result<String> {
        self.exec.create_statement(name)
    }

    /// The underlying DataFusion session (for registering functions, tuning).
    /// Plans this connection kept for repeated reads are forgotten: what is
    /// done with the session may change what they mean.
    pub fn session(&self) -> &SessionContext {
        self.exec.session()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let _ = self.finish(false);
    }
}
