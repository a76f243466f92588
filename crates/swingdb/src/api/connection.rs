//! `Connection`: runs SQL statements inside transactions, a face over the
//! engine's [`Session`] (which routes, retries and attaches; see
//! `swingdb_sql::engine`). Every statement is atomic (a failed one changes
//! nothing); outside `BEGIN ... COMMIT` each one commits on its own.

use super::result::QueryResult;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use swingdb_pipe::PipeUrl;
use swingdb_share::{ShareOptions, SnapshotInfo};
use swingdb_sql::engine::{DatabaseEntry, DbCore, Output, PipeSource, Session};
use swingdb_sql::{FileKind, Interrupt, ProgressHook, ReadOptions, StatementInfo};
use swingdb_storage::error::Result;

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
#[derive(Debug)]
pub struct Connection {
    session: Session,
}

impl Connection {
    pub(crate) fn new(core: Arc<DbCore>) -> Result<Self> {
        Ok(Self { session: Session::new(core)? })
    }

    /// `output` as a result whose fetches this connection's interrupt
    /// cancels and whose errors point into `sql`.
    fn result(&self, output: Output, sql: Option<&str>) -> QueryResult {
        QueryResult::of(output, &self.session.interrupt_handle(), sql)
    }

    /// Runs `sql` (one or more `;`-separated statements) with positional
    /// parameters (`?` or `$1`) and returns the last statement's result.
    /// An autocommit statement that loses a conflict with another process's
    /// commit is run again for up to [`Self::set_conflict_timeout`].
    pub fn execute(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        Ok(self.result(self.session.execute(sql, params)?, Some(sql)))
    }

    /// Runs `sql` only if it is a statement answered without the query
    /// engine (a point read by key, a constant query's kept rows), on the
    /// calling thread, never waiting for the engine's threads; `None`, with
    /// nothing run, when [`Self::execute`] is to run it. For callers to whom
    /// a hand-off to another thread costs more than such a statement (a
    /// server's event loop).
    ///
    /// ```edition2024
    /// let con = swingdb::Database::in_memory()?.connect()?;
    /// con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR)", &[])?;
    /// con.execute("INSERT INTO t VALUES (1, 'ada')", &[])?;
    /// let mut found = con.execute_here("SELECT name FROM t WHERE id = 1", &[])?.expect("a point read");
    /// assert!(found.is_computed());
    /// assert_eq!(found.next_batch()?.unwrap().num_rows(), 1);
    /// assert!(con.execute_here("SELECT count(*) FROM t", &[])?.is_none(), "the engine's to run");
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn execute_here(&self, sql: &str, params: &[ScalarValue]) -> Result<Option<QueryResult>> {
        Ok(self.session.execute_here(sql, params)?.map(|output| self.result(output, Some(sql))))
    }

    /// Runs `sql` once per parameter set of `rows`, as one atomic statement,
    /// when it is a plain `INSERT INTO t [(columns)] VALUES (?, ...)` whose
    /// rows' values fit it (each column's of one type): one batch, its keys
    /// and checks enforced together, as one `INSERT` of many rows. `None`,
    /// with nothing changed, when the caller is to run it row by row.
    ///
    /// ```edition2024
    /// use swingdb::datafusion::common::ScalarValue;
    /// let con = swingdb::Database::in_memory()?.connect()?;
    /// con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR)", &[])?;
    /// let rows: Vec<Vec<ScalarValue>> = (0..1000).map(|i| vec![ScalarValue::from(i), ScalarValue::from("x")]).collect();
    /// let done = con.execute_many("INSERT INTO t VALUES (?, ?)", &rows)?.expect("one statement");
    /// assert_eq!(done.rows_affected(), Some(1000));
    /// let again = con.execute_many("INSERT INTO t VALUES (?, ?)", &rows[..2]);
    /// assert_eq!(again.unwrap_err().kind(), swingdb::ErrorKind::Integrity, "keys checked over the batch");
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn execute_many(&self, sql: &str, rows: &[Vec<ScalarValue>]) -> Result<Option<QueryResult>> {
        Ok(self.session.execute_many(sql, rows)?.map(|output| self.result(output, Some(sql))))
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
    pub fn statement_info(&self, sql: &str) -> Result<StatementInfo> {
        self.session.statement_info(sql)
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
        self.session.interrupt_handle()
    }

    /// Bytes this connection's statements hold reserved now (their sorts,
    /// aggregations, joins and buffers between threads, under
    /// [`crate::memory_limit`]): what a result not yet fetched to its end
    /// costs beyond the rows already handed over. A server holding results
    /// for clients counts them against its budget with it.
    pub fn reserved_memory(&self) -> usize {
        self.session.reserved_memory()
    }

    /// Turns the short way of single-row `INSERT ... VALUES (?, ...)` on or
    /// off (on by default; off, DataFusion plans every statement, which
    /// tests compare the short way with).
    pub fn set_fast_inserts(&self, on: bool) {
        self.session.set_fast_inserts(on);
    }

    /// Makes `batches` queryable as table `name` on this connection, without
    /// copying them (their buffers stay where they are) and without storing
    /// them. Replaces an earlier registration of the same name.
    pub fn register(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<()> {
        self.session.register(name, Arc::new(MemTable::try_new(schema, vec![batches])?));
        Ok(())
    }

    /// Stores `batches` as the new table `name` (`create`) or appends them to
    /// the existing table `name`, by column position, in one atomic statement.
    /// The name is taken as it is (as if quoted in SQL); no SQL is built from it.
    pub fn store(&self, name: &str, schema: SchemaRef, batches: Vec<RecordBatch>, create: bool) -> Result<QueryResult> {
        let source = Arc::new(MemTable::try_new(schema, vec![batches])?);
        Ok(self.result(self.session.store(name, source, create)?, None))
    }

    /// Removes a registration; returns whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.session.unregister(name)
    }

    /// Sets (or with `None` clears) the hook told how many rows statements have
    /// stored so far, for progress bars on long loads.
    pub fn set_progress(&self, hook: Option<ProgressHook>) {
        self.session.set_progress(hook);
    }

    /// Whether an explicit transaction (`BEGIN`) is open.
    pub fn in_transaction(&self) -> bool {
        self.session.in_transaction()
    }

    /// Whether this connection is as a new one would be: no transaction
    /// open, and only queries and single-row writes ran on it (no setting,
    /// temporary table, attachment or registration that a later user would
    /// inherit). A server may hand such a connection to its next caller
    /// instead of opening one, and keep its planned queries.
    pub fn is_pristine(&self) -> bool {
        self.session.is_pristine()
    }

    /// Names of the tables (and views) this connection sees.
    pub fn table_names(&self) -> Result<Vec<String>> {
        self.session.table_names()
    }

    /// The columns of table or view `name` as `DESCRIBE` gives them (name, SQL
    /// type, nullable); a ProgrammingError naming it if there is none.
    pub fn describe(&self, name: &str) -> Result<QueryResult> {
        Ok(self.result(self.session.describe(name)?, None))
    }

    /// The columns of table `name`'s primary key, in key order (`None` for a
    /// table without one, or a view); a ProgrammingError naming it if there
    /// is none.
    pub fn primary_key(&self, name: &str) -> Result<Option<Vec<String>>> {
        self.session.primary_key(name)
    }

    /// The statement(s) that make table or view `name` again, as EXPORT
    /// DATABASE writes them into `schema.sql`: columns, types, keys,
    /// defaults, checks, clustering and indexes (the shell's `.schema`).
    pub fn create_statement(&self, name: &str) -> Result<String> {
        self.session.create_statement(name)
    }

    /// The underlying DataFusion session (for registering functions, tuning).
    /// Plans this connection kept for repeated reads are forgotten: what is
    /// done with the session may change what they mean.
    pub fn session(&self) -> &SessionContext {
        self.session.context()
    }

    /// The databases this connection works on: `main`, then those attached
    /// with `ATTACH 'path' AS alias`, by alias (DuckDB's `.databases`).
    ///
    /// ```edition2024
    /// let con = swingdb::Database::in_memory()?.connect()?;
    /// con.execute("ATTACH ':memory:' AS scratch", &[])?;
    /// let names: Vec<String> = con.databases().into_iter().map(|d| d.name).collect();
    /// assert_eq!(names, ["main", "scratch"]);
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn databases(&self) -> Vec<DatabaseEntry> {
        self.session.databases()
    }

    /// Publishes what this connection sees as the snapshot `name`: the newest
    /// committed state, or inside an open transaction what that transaction
    /// sees (its own changes included). No table data is copied: the
    /// snapshot holds links to the segment files. Any process of this user
    /// can then [`crate::Database::attach`] it. Unless `options.persist`, the
    /// snapshot ends when this database handle is closed (or its process exits).
    pub fn share(&self, name: &str, options: ShareOptions) -> Result<SnapshotInfo> {
        self.session.share(name, options)
    }

    /// How many times this connection ran an autocommit statement again
    /// after it lost a conflict (what `ConflictError`s its caller did not see).
    pub fn conflict_retries(&self) -> u64 {
        self.session.conflict_retries()
    }

    /// Sets how long an autocommit statement that lost a conflict is run
    /// again (5 s by default, as long as Python's `sqlite3` waits for a
    /// locked database); zero: never, the first `ConflictError` is the
    /// statement's. Statements inside `BEGIN ... COMMIT` are never run again.
    pub fn set_conflict_timeout(&self, timeout: Duration) {
        self.session.set_conflict_timeout(timeout);
    }

    /// Sends `source`'s rows into the pipe `url`, waiting for an importer;
    /// returns the rows it took.
    ///
    /// ```edition2024
    /// use swingdb::{Database, PipeSource, PipeUrl};
    /// let url = PipeUrl::parse(&format!("db://doc-source-{}", std::process::id()))?;
    /// let importer = {
    ///     let url = url.clone();
    ///     std::thread::spawn(move || Database::in_memory()?.connect()?.pipe_from(&url, "copy", true))
    /// };
    /// let con = Database::in_memory()?.connect()?;
    /// con.execute("CREATE TABLE t AS SELECT value AS v FROM range(10)", &[])?;
    /// assert_eq!(con.pipe_to(&url, PipeSource::Query("SELECT v FROM t WHERE v < 4"))?, 4);
    /// assert_eq!(importer.join().unwrap()?, 4);
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn pipe_to(&self, url: &PipeUrl, source: PipeSource<'_>) -> Result<u64> {
        self.session.pipe_to(url, source)
    }

    /// Receives the rows of the pipe `url` into table `table` (a new one with
    /// `create`, else appended by column position), atomically; returns the
    /// rows. A [`crate::PipeWriter`] feeds a pipe from outside a query:
    ///
    /// ```edition2024
    /// use swingdb::arrow::array::{Int64Array, RecordBatch};
    /// use swingdb::{Database, PipeUrl, PipeWriter};
    /// use std::sync::Arc;
    /// let url = PipeUrl::parse(&format!("db://doc-writer-{}", std::process::id()))?;
    /// let importer = {
    ///     let url = url.clone();
    ///     std::thread::spawn(move || -> swingdb::Result<u64> {
    ///         let con = Database::in_memory()?.connect()?;
    ///         con.pipe_from(&url, "t", true)
    ///     })
    /// };
    /// let batch = RecordBatch::try_from_iter([("a", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
    /// let mut writer = PipeWriter::open(&url, batch.schema())?; // waits for the importer
    /// writer.write(&batch)?;
    /// assert_eq!(writer.close()?, 3);
    /// assert_eq!(importer.join().unwrap()?, 3);
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn pipe_from(&self, url: &PipeUrl, table: &str, create: bool) -> Result<u64> {
        self.session.pipe_from(url, table, create)
    }

    /// Writes the rows of pipe `url` as CSV into a FIFO it makes at `path`,
    /// for a program that can only read files (see `swingdb pipe fifo-out`).
    /// Returns the rows.
    pub fn fifo_out(&self, url: &PipeUrl, path: &Path) -> Result<u64> {
        self.session.fifo_out(url, path)
    }

    /// The rows of the pipe `url` as a streaming result (read once).
    pub fn pipe_reader(&self, url: &PipeUrl) -> Result<QueryResult> {
        Ok(self.result(Output::Stream(self.session.pipe_reader(url)?), None))
    }

    /// The rows of the file at `path` (a local path or glob), read as `kind`
    /// with `options`, its schema inferred. The path is not SQL: a name of
    /// any shape is just a name.
    pub fn read_file(&self, path: &str, kind: FileKind, options: &ReadOptions) -> Result<QueryResult> {
        Ok(self.result(self.session.read_file(path, kind, options)?, None))
    }

    /// Makes the file(s) at `path` (read as `kind` with `options`, schema
    /// inferred now) queryable as `name` on this connection, read afresh by
    /// each query, until [`Connection::unregister`]; shadows a stored table
    /// of that name. Neither the name nor the path becomes SQL text.
    pub fn register_file(&self, name: &str, path: &str, kind: FileKind, options: &ReadOptions) -> Result<()> {
        self.session.register_file(name, path, kind, options)
    }

    /// How many statements of this connection were answered from a plan kept
    /// from an earlier run of the same query.
    pub fn cached_plan_uses(&self) -> u64 {
        self.session.cached_plan_uses()
    }

    /// How many statements of this connection ran by key without planning
    /// (`SELECT ... WHERE k = ?`, `UPDATE ... WHERE k = ?`, `DELETE ...`).
    pub fn keyed_statements(&self) -> u64 {
        self.session.keyed_statements()
    }
}
