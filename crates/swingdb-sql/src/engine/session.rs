//! [`Session`]: one connection's statements, run one at a time inside its
//! transaction. Every statement is atomic (a failed one changes nothing);
//! outside `BEGIN ... COMMIT` each one commits on its own. The API crate's
//! `Session` is a thin face over it.

use crate::core::{runtime, DbCore};
use crate::frontend::diagnose::explain;
use crate::frontend::names::check_table_name;
use crate::frontend::parse::parse;
use crate::statements::{Executor, Output, ProgressHook, Short, StatementInfo};
use crate::Interrupt;
use datafusion::catalog::TableProvider;
use datafusion::common::ScalarValue;
use datafusion::prelude::SessionContext;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// One connection's statements and transaction, on an open database
/// ([`DbCore`]): the executor of its statements, the sessions it keeps on
/// attached databases, and the retries of statements that lost a conflict.
pub struct Session {
    /// The SQL side: the DataFusion session, the tables of the open
    /// transaction, and the statements' executors (see `statements`).
    pub(super) exec: Executor,
    /// The sessions this one keeps on the attached databases, by alias:
    /// they run the statements that change those databases, inside this
    /// session's transaction (see `attach.rs`).
    pub(super) attached: Mutex<BTreeMap<String, Arc<Session>>>,
    /// Held while a statement runs: one at a time.
    pub(super) busy: tokio::sync::Mutex<()>,
    /// How long a statement that commits on its own is run again after
    /// losing a conflict (see `conflicts.rs`).
    pub(super) conflict_timeout: Mutex<std::time::Duration>,
    /// Runs of autocommit statements that lost a conflict and ran again.
    pub(super) conflict_retries: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("database", &self.exec.core.dir().root()).finish()
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
pub(super) fn on_planning_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(PLANNING_STACK, 4 * PLANNING_STACK, f)
}

impl Session {
    /// A new session on the open database `core`.
    pub fn new(core: Arc<DbCore>) -> Result<Self> {
        Self::with(Executor::new(core)?)
    }

    /// A session that runs its statements on `exec`.
    pub(super) fn with(exec: Executor) -> Result<Self> {
        Ok(Self {
            exec,
            attached: Mutex::default(),
            busy: tokio::sync::Mutex::new(()),
            conflict_timeout: Mutex::new(CONFLICT_TIMEOUT),
            conflict_retries: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Runs `sql` (one or more `;`-separated statements) with positional
    /// parameters (`?` or `$1`) and returns the last statement's result
    /// (a stream of rows is fetched through a [`super::RowStream`]).
    pub fn execute(&self, sql: &str, params: &[ScalarValue]) -> Result<Output> {
        let (answered, short) = self.answer_here(sql, params);
        if let Some(answer) = answered? {
            return Ok(answer);
        }
        let result = on_planning_stack(|| {
            // Boxed: `block_on` moves its future by value, and this one holds
            // every arm's (a copy of tens of kilobytes per statement).
            runtime().block_on(Box::pin(async {
                let _busy = self.busy.lock().await;
                match short {
                    // Placeholders, so parameters: the only inserts worth remembering.
                    Some(Short::Insert(insert)) if !params.is_empty() => {
                        let run = || {
                            self.atomically(|| async {
                                let done = match self.exec.run_fast_insert(&insert, params)? {
                                    Some(done) => done,
                                    None => {
                                        let statement =
                                            parse(sql)?.pop().ok_or_else(|| Error::internal("a statement vanished"))?;
                                        self.exec.run_in_txn(statement, params, true).await?
                                    }
                                };
                                self.check_one_writer(self)?;
                                Ok(done)
                            })
                        };
                        return self.retrying_conflicts(sql, run).await;
                    }
                    Some(Short::Write(write)) => {
                        // Left to the general path (`None`): nothing was changed.
                        let short = std::sync::atomic::AtomicBool::new(false);
                        let run = || {
                            short.store(false, std::sync::atomic::Ordering::Relaxed);
                            self.atomically(|| async {
                                let Some(done) = self.exec.run_keyed_write(&write, params)? else {
                                    return Ok(Output::Empty);
                                };
                                self.check_one_writer(self)?;
                                short.store(true, std::sync::atomic::Ordering::Relaxed);
                                Ok(done)
                            })
                        };
                        let done = self.retrying_conflicts(sql, run).await?;
                        if short.load(std::sync::atomic::Ordering::Relaxed) {
                            return Ok(done);
                        }
                    }
                    _ => {}
                }
                // Boxed: the general path's future is large; held inline it
                // would make this block's future as large, copied when boxed.
                Box::pin(self.execute_async(sql, params)).await
            }))
        });
        result.map_err(|e| explain(e, sql))
    }

    /// Runs `sql` only if it is a statement answered without the query
    /// engine, on the calling thread (a point read by key, a constant
    /// query's kept rows) and no statement of this session is running;
    /// `None`, with nothing run, otherwise. For callers to whom a hand-off
    /// to another thread costs more than such a statement (a server's
    /// event loop): it never waits for the engine's threads.
    pub fn execute_here(&self, sql: &str, params: &[ScalarValue]) -> Result<Option<Output>> {
        self.answer_here(sql, params).0
    }

    /// [`Self::execute_here`], with the short shape of `sql` recognized on
    /// the way (for [`Self::execute`] to go on with when it is not answered).
    fn answer_here(&self, sql: &str, params: &[ScalarValue]) -> (Result<Option<Output>>, Option<Short>) {
        self.exec.interrupt.clear();
        // A constant query's kept rows (`SELECT 1`) need no runtime either;
        // the checks of its kept plan may begin a transaction, as a point
        // read does: only when no statement of this session is running.
        if params.is_empty() {
            if let Ok(_busy) = self.busy.try_lock() {
                match self.exec.kept_answer(sql) {
                    Ok(Some(rows)) => return (Ok(Some(rows)), None),
                    Ok(None) => {}
                    Err(e) => return (Err(explain(e, sql)), None),
                }
            }
        }
        // A point read needs neither the planning stack nor the runtime: run
        // on the calling thread when no statement of this session is running.
        let short = self.exec.short_statement(sql);
        if let Some(Short::Read(read)) = &short {
            if let Ok(_busy) = self.busy.try_lock() {
                let answer = self.exec.run_point_read(read, params).map_err(|e| explain(e, sql));
                if !matches!(answer, Ok(None)) {
                    return (answer, short);
                }
            }
        }
        (Ok(None), short)
    }

    /// Runs `sql` once per parameter set of `rows` as one atomic statement
    /// when it is the short shape `INSERT INTO t [(columns)] VALUES (?, ...)`
    /// and the rows' values fit it (each column's of one type): one batch,
    /// checked and stored together (`executemany`). `None`, with nothing
    /// changed, when the statement is to be run per row instead.
    pub fn execute_many(&self, sql: &str, rows: &[Vec<ScalarValue>]) -> Result<Option<Output>> {
        let Some(insert) = self.exec.prepared_insert(sql) else { return Ok(None) };
        if rows.is_empty() {
            return Ok(None);
        }
        let rows: Vec<&[ScalarValue]> = rows.iter().map(Vec::as_slice).collect();
        self.exec.interrupt.clear();
        let fast = std::sync::atomic::AtomicBool::new(true);
        let result = on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                let run = || {
                    self.atomically(|| async {
                        let done = self.exec.run_fast_inserts(&insert, &rows)?;
                        self.check_one_writer(self)?;
                        fast.store(done.is_some(), std::sync::atomic::Ordering::Relaxed);
                        Ok(done.unwrap_or(Output::Empty))
                    })
                };
                self.retrying_conflicts(sql, run).await
            })
        });
        let output = result.map_err(|e| explain(e, sql))?;
        Ok(fast.load(std::sync::atomic::Ordering::Relaxed).then_some(output))
    }

    /// What the one statement `sql` takes and returns (its parameters' types,
    /// its columns), found by planning it without running it: nothing it
    /// would do happens. A statement that would fail to plan fails here with
    /// the error running it would give.
    pub fn statement_info(&self, sql: &str) -> Result<StatementInfo> {
        let info = on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                // Planning reads the tables of a transaction: the open one,
                // else one of its own that ends without changing anything.
                let implicit = !self.exec.in_transaction();
                if implicit {
                    self.begin(false)?;
                }
                let info = self.exec.statement_info(sql, &self.temporary_names()).await;
                if implicit {
                    self.finish(false)?;
                }
                info
            })
        });
        info.map_err(|e| explain(e, sql))
    }

    /// What cancels this session's running statement or fetch from another
    /// thread (see [`Interrupt::interrupt`]) and shows its progress.
    pub fn interrupt_handle(&self) -> Interrupt {
        self.exec.interrupt.clone()
    }

    /// Bytes this session's statements hold reserved now (their sorts,
    /// aggregations, joins and buffers between threads).
    pub fn reserved_memory(&self) -> usize {
        self.exec.reserved_memory()
    }

    /// Turns the short way of single-row `INSERT ... VALUES (?, ...)` on or off.
    pub fn set_fast_inserts(&self, on: bool) {
        self.exec.set_fast_inserts(on);
    }

    /// Makes `table` queryable as `name` in this session, without storing it.
    /// Replaces an earlier registration of the same name.
    pub fn register(&self, name: &str, table: Arc<dyn TableProvider>) {
        self.exec.register(name, table);
    }

    /// Stores the rows of `source` as the new table `name` (`create`) or
    /// appends them to the existing table `name`, by column position, in one
    /// atomic statement. The name is taken as it is (as if quoted in SQL).
    pub fn store(&self, name: &str, source: Arc<dyn TableProvider>, create: bool) -> Result<Output> {
        check_table_name(name)?;
        self.exec.interrupt.clear();
        // Rows for a temporary table go to it (a new table is always stored).
        match self.temporary_holding(name).filter(|_| !create) {
            Some(temp) => self.run_atomically(|| temp.atomically(|| temp.create_or_append(name, source, false))),
            None => self.run_atomically(|| self.create_or_append(name, source, create)),
        }
    }

    /// Stores the rows of `source` as the new table `name` or appends them to it.
    pub(super) async fn create_or_append(
        &self,
        name: &str,
        source: Arc<dyn TableProvider>,
        create: bool,
    ) -> Result<Output> {
        if create {
            self.exec.create_table_from(name, source).await
        } else {
            self.exec.append_from(name, source).await
        }
    }

    /// Runs `body` on the calling thread as this session's one atomic
    /// statement (see `atomic.rs`), once the statement before it is done.
    pub(super) fn run_atomically<F, Fut>(&self, body: F) -> Result<Output>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Output>>,
    {
        on_planning_stack(|| {
            runtime().block_on(async {
                let _busy = self.busy.lock().await;
                self.atomically(body).await
            })
        })
    }

    /// Removes a registration; returns whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        self.exec.unregister(name)
    }

    /// Sets (or with `None` clears) the hook told how many rows statements have
    /// stored so far.
    pub fn set_progress(&self, hook: Option<ProgressHook>) {
        self.exec.set_progress(hook);
    }

    /// Whether an explicit transaction (`BEGIN`) is open.
    pub fn in_transaction(&self) -> bool {
        self.exec.open_transaction() == Some(true)
    }

    /// Whether this session is as a new one would be: no transaction open
    /// and nothing run that leaves state behind (see
    /// [`crate::statements::Executor::changed_session`]).
    pub fn is_pristine(&self) -> bool {
        !self.in_transaction() && !self.exec.changed_session()
    }

    /// Names of the tables (and views) this session sees: its temporary
    /// ones, then the stored ones they do not shadow.
    pub fn table_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = self.temporary_names().into_iter().collect();
        let stored = self.exec.visible_tables()?.into_iter().filter(|(_, m)| m.is_relation()).map(|(n, _)| n);
        let stored: Vec<String> = stored.filter(|n| !names.contains(n)).collect();
        names.extend(stored);
        Ok(names)
    }

    /// The columns of table or view `name` as `DESCRIBE` gives them.
    pub fn describe(&self, name: &str) -> Result<Output> {
        match self.temporary_holding(name) {
            Some(temp) => temp.exec.describe(name),
            None => self.exec.describe(name),
        }
    }

    /// The columns of table `name`'s primary key, in key order.
    pub fn primary_key(&self, name: &str) -> Result<Option<Vec<String>>> {
        let table = match self.temporary_holding(name) {
            Some(temp) => temp.exec.visible_table(name)?,
            None => self.exec.visible_table(name)?,
        };
        Ok(table.constraints.primary_key.clone())
    }

    /// The statement(s) that make table or view `name` again.
    pub fn create_statement(&self, name: &str) -> Result<String> {
        match self.temporary_holding(name) {
            Some(temp) => temp.exec.create_statement(name),
            None => self.exec.create_statement(name),
        }
    }

    /// The underlying DataFusion session.
    pub fn context(&self) -> &SessionContext {
        self.exec.session()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.finish(false);
    }
}
