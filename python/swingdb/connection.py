"""Connections and DB-API cursors."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import itertools
import os

from . import _swingdb, ingest
from ._checks import checked_name, checked_text
from ._extras import need
from .progress import progress_for, statement_progress
from .relation import Relation, quote_identifier
from .result import Result
from .share import Snapshot
from .transaction import Transaction

_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MICRO = _dt.timedelta(microseconds=1)
# DECIMAL limits of Arrow's widest decimal type (Decimal256).
_MAX_DECIMAL_DIGITS = 76
_MAX_DECIMAL_SCALE = 76


def _sql(query) -> str:
    """`query` checked as SQL text."""
    if not isinstance(query, str):
        raise _swingdb.ProgrammingError(f"the SQL to run must be a str, not {type(query).__name__}")
    return checked_text(query, "the SQL text")


def _param(value):
    """Python values the engine cannot take directly, as tagged tuples."""
    if isinstance(value, str):
        return checked_text(value, "a parameter")
    if isinstance(value, (tuple, list, dict, set)):
        raise _swingdb.ProgrammingError(
            f"a parameter has unsupported type {type(value).__name__}; use None, bool, int, float, str, bytes, date, datetime or Decimal"
        )
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            return ("timestamp", (value - _EPOCH) // _MICRO, None)
        return ("timestamp", (value - _EPOCH_UTC) // _MICRO, "UTC")
    if isinstance(value, _dt.date):
        return ("date", (value - _dt.date(1970, 1, 1)).days)
    if isinstance(value, _decimal.Decimal):
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise _swingdb.DataError(f"cannot store the decimal {value}")
        scale = max(-exponent, 0)
        if scale > _MAX_DECIMAL_SCALE or len(digits) + max(exponent, 0) > _MAX_DECIMAL_DIGITS:
            raise _swingdb.DataError(
                f"the decimal {value} does not fit a DECIMAL (at most {_MAX_DECIMAL_DIGITS} digits and "
                f"{_MAX_DECIMAL_SCALE} after the point); pass it as a float or a string"
            )
        text = "".join(map(str, digits)) + "0" * max(exponent, 0)
        return ("decimal", ("-" if sign else "") + text, scale)
    return value


def _params(params):
    if params is None:
        return None
    if isinstance(params, dict):  # $name / :name placeholders
        for name in params:
            if not isinstance(name, str):
                raise _swingdb.ProgrammingError(f"parameter names must be strings, not {type(name).__name__} ({name!r})")
        return {name: _param(v) for name, v in params.items()}
    if isinstance(params, (str, bytes)):
        raise _swingdb.ProgrammingError("parameters must be a list or tuple, not a single string")
    try:
        values = list(params)
    except TypeError:
        raise _swingdb.ProgrammingError(
            f"parameters must be a list, tuple or dict, not {type(params).__name__}; wrap a single value as [value]"
        ) from None
    return [_param(v) for v in values]


class _Registration:
    """Data a relation reads, registered under a name of its own for as long
    as a relation built on it lives (relations keep it; when the last goes,
    the registration goes)."""

    _numbers = itertools.count(1)  # next() is atomic: threads never share a name

    def __init__(self, connection: Connection):
        self.name = f"__swingdb_relation_{os.getpid()}_{next(_Registration._numbers)}"
        self._con = connection._con

    def __del__(self):
        try:
            if not self._con.closed:
                self._con.unregister(self.name)
        except Exception:  # noqa: BLE001 - interpreter shutdown; nothing to free then
            pass


def connect(
    database: str | os.PathLike = ":memory:",
    read_only: bool = False,
    verify_checksums: bool = True,
    external_access: bool = True,
    timeout: float = 5.0,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike | None = None,
    recover: bool = False,
) -> Connection:
    """Opens a database.

    ``connect()`` or ``connect(":memory:")`` gives a private in-memory database;
    ``connect("sales.swingdb")`` opens that database directory, creating it if
    absent. With ``read_only=True`` every write is refused (and other processes
    may write meanwhile: readers always see consistent snapshots).
    With ``external_access=False`` SQL cannot touch files (COPY, ``read_csv``,
    ``FROM 'file.parquet'``): for code that runs SQL it did not write.
    A statement that commits on its own and loses a conflict with another
    process's commit (which changed nothing) runs again for up to ``timeout``
    seconds before its :class:`ConflictError` is raised (0: at once); for
    whole transactions, see :meth:`Connection.transaction`.
    ``memory_limit`` (``'2GB'``, ``'512MiB'``, ``'none'``) bounds the memory
    queries reserve, and ``temp_directory`` is where sorts and aggregations
    that outgrow it spill; both hold for the whole process, as
    ``SET memory_limit`` and ``SET temp_directory`` do. By default queries
    may take 70 % of the memory cgroup's limit where there is one.
    With ``read_only=True, recover=True``, a database whose commit log is
    damaged (a ``CorruptionError`` says so) opens at the last version before
    the damage, so that what is left can be exported (``EXPORT DATABASE``).
    """
    path = None if database in (None, ":memory:", "") else os.fspath(database)
    if memory_limit is not None:
        _swingdb.set_memory_limit(str(memory_limit))
    if temp_directory is not None:
        _swingdb.set_temp_directory(os.fspath(temp_directory))
    db = _swingdb.Database(
        path, read_only=read_only, verify_checksums=verify_checksums, external_access=external_access, recover=recover
    )
    con = Connection(db)
    con._con.set_conflict_timeout(timeout)
    return con


def attach(name: str, verify_checksums: bool = True, external_access: bool = True):
    """Attaches snapshot ``name`` and returns a :class:`Connection` to a new private
    database that holds it: every statement works on it, writes included, and
    nobody else sees them. Nothing is copied; it is removed when closed."""
    db = _swingdb.Database.attach(
        checked_name(name, "snapshot"), verify_checksums=verify_checksums, external_access=external_access
    )
    return Connection(db)


class Connection:
    """A connection to a swingdb database (see :func:`connect`).

    Statements commit on their own unless a transaction is open (``BEGIN`` or
    :meth:`begin`); :meth:`commit` and :meth:`rollback` end it.
    """

    # The DB-API exception classes, also reachable from a connection (PEP 249's
    # optional extension), so code holding only a connection can catch them.
    Warning = _swingdb.Warning
    Error = _swingdb.Error
    InterfaceError = _swingdb.InterfaceError
    DatabaseError = _swingdb.DatabaseError
    DataError = _swingdb.DataError
    OperationalError = _swingdb.OperationalError
    IntegrityError = _swingdb.IntegrityError
    InternalError = _swingdb.InternalError
    ProgrammingError = _swingdb.ProgrammingError
    NotSupportedError = _swingdb.NotSupportedError

    def __init__(self, db):
        self._db = db
        self._path = None if db.in_memory else db.path
        self._con = db.connect()
        # The engine reports every running statement; the display decides what to show.
        self._con.set_progress_display(statement_progress, 0.0)

    # -- running SQL -------------------------------------------------------
    def sql(self, query: str, params=None) -> Result | None:
        """Runs SQL and returns its :class:`Result` (None for statements without rows, like DDL).

        A table name that is neither stored nor registered is looked up among the
        caller's variables: ``con.sql("SELECT avg(x) FROM df")`` reads the
        DataFrame ``df`` in place (a replacement scan)."""
        bound = _params(params)
        result = self._result_of(query, bound, ())
        return result if result.columns else None

    def _result_of(self, query: str, params, keep: tuple) -> Result:
        """The result of `query`, which relations can build on (`keep`: what it needs to stay valid)."""
        return Result(self._run(query, params), origin=(self, query, params, keep))

    def table(self, name: str) -> Relation:
        """A lazy :class:`~swingdb.relation.Relation` over table (or view or
        registered data) `name`, to ``filter``, ``project``, ``aggregate``,
        ``order``, ``limit``, ``join``, ... (as ``duckdb``'s ``con.table``);
        its alias (for join conditions) is `name`."""
        if not isinstance(name, str):
            raise _swingdb.ProgrammingError(f"a table name must be a string, not {type(name).__name__}")
        query = f"SELECT * FROM {quote_identifier(name)}"
        self._run(f"{query} LIMIT 0", None)  # an unknown name fails here, not at the first read
        return Relation(self, query, alias=name)

    def from_df(self, df) -> Relation:
        """A lazy relation over the pandas or polars DataFrame `df` (as DuckDB's
        ``from_df``); numeric columns are shared, not copied. Anything
        :meth:`register` takes works too."""
        arrow = ingest.to_arrow(df, "the DataFrame")
        return self._registered_relation(lambda name: self._con.register(name, arrow))

    def from_arrow(self, data) -> Relation:
        """A lazy relation over the pyarrow Table, RecordBatch or reader `data`
        (anything with ``__arrow_c_stream__``), as DuckDB's ``from_arrow``."""
        arrow = ingest.to_arrow(data, "the Arrow data")
        return self._registered_relation(lambda name: self._con.register(name, arrow))

    def _registered_relation(self, register) -> Relation:
        """A relation over what `register(name)` registers under a private name,
        for as long as a relation built on it lives."""
        self._check_open()
        registration = _Registration(self)
        register(registration.name)
        return Relation(self, f"SELECT * FROM {quote_identifier(registration.name)}", keep=(registration,))

    def execute(self, query: str, params=None) -> Cursor:
        """Runs SQL on a new cursor and returns it (like ``sqlite3``)."""
        return self.cursor().execute(query, params)

    def _run(self, query: str, params):
        """Executes, resolving unknown table names from the calling code's variables."""
        query = _sql(query)
        replaced = []
        try:
            while True:
                try:
                    return self._con.execute(query, params)
                except _swingdb.ProgrammingError as error:
                    name = ingest.missing_table(error)
                    if name is None or name in replaced:
                        raise
                    value = ingest.find_in_caller(name)
                    if value is None:
                        raise
                    self._con.register(name, ingest.to_arrow(value, name))
                    replaced.append(name)
        finally:
            for name in replaced:
                self._con.unregister(name)

    # -- Python data -------------------------------------------------------
    def register(self, name: str, data) -> Connection:
        """Makes ``data`` (pandas / polars DataFrame or LazyFrame, dict of numpy
        arrays, numpy structured array, pyarrow Table / RecordBatch /
        RecordBatchReader / Dataset, or anything with ``__arrow_c_stream__``)
        queryable as table ``name``. Numeric buffers are shared, not copied;
        nothing is stored. Shadows a stored table of the same name."""
        self._con.register(name, ingest.to_arrow(data, name))
        return self

    def unregister(self, name: str) -> Connection:
        """Removes a registration made with :meth:`register`."""
        if not self._con.unregister(name):
            raise _swingdb.ProgrammingError(f"nothing is registered as '{name}'")
        return self

    def create_table(self, name: str, data, progress=None) -> None:
        """Stores ``data`` (anything :meth:`register` takes) as a new table ``name``.

        The name is used exactly as given (like a quoted SQL identifier) and is
        never pasted into SQL. ``progress``: None shows a bar on a terminal for
        loads of a million rows or more, True always, False never; a callable
        gets the rows stored so far."""
        self._store(name, data, True, progress)

    def insert(self, name: str, data, progress=None) -> int:
        """Appends ``data`` to table ``name`` (columns by position); returns the row count."""
        return self._store(name, data, False, progress)

    def _store(self, name: str, data, create: bool, progress) -> int:
        if not isinstance(name, str):
            raise _swingdb.ProgrammingError(f"a table name must be a string, not {type(name).__name__}")
        arrow = ingest.to_arrow(data, name)
        total = ingest.row_count(arrow)
        report = progress_for(f"loading {name}", total, progress)
        return self._con.store(name, arrow, create, report)

    def executemany(self, query: str, seq_of_params) -> Cursor:
        """Runs SQL once per parameter set, all in one transaction."""
        return self.cursor().executemany(query, seq_of_params)

    def cursor(self) -> Cursor:
        """A new DB-API cursor on this connection."""
        self._check_open()
        return Cursor(self)

    # -- transactions ------------------------------------------------------
    def begin(self) -> None:
        """Opens an explicit transaction."""
        self._con.execute("BEGIN")

    def commit(self) -> None:
        """Commits the open transaction (no-op without one: statements autocommit)."""
        self._check_open()
        if self._con.in_transaction:
            self._con.execute("COMMIT")

    def rollback(self) -> None:
        """Rolls back the open transaction (no-op without one)."""
        self._check_open()
        if self._con.in_transaction:
            self._con.execute("ROLLBACK")

    def transaction(self, retries: int = 0) -> Transaction:
        """A transaction as a ``with`` block (committed at its end, rolled back
        on an exception) or, decorating a function, around each call of it,
        run again up to ``retries`` times when it loses a conflict with
        another process's commit (see :mod:`swingdb.transaction`)."""
        self._check_open()
        return Transaction(self, retries)

    def create_function(self, name: str, function, parameters=None, return_type=None, *, type: str = "native",
                        null_handling: str = "default", side_effects: bool = False) -> Connection:
        """Makes the Python `function` callable in SQL as `name` (as DuckDB's
        ``create_function``). ``type="native"`` calls it per row with Python
        values (a NULL argument gives NULL without a call, unless
        ``null_handling="special"``); ``type="arrow"`` calls it per batch
        with pyarrow arrays and takes back an array, much faster. Types are
        SQL names or pyarrow types, or come from the annotations.
        ``side_effects=True`` makes the engine call it even for repeated
        arguments (random values, counters)."""
        pa = need("pyarrow", "pyarrow", "create_function()")
        from . import functions

        if not isinstance(name, str) or not name.isidentifier():
            raise _swingdb.ProgrammingError(f"a function name must be a plain identifier, not {name!r}")
        params, returns = functions.signature(function, parameters, return_type)
        call = functions.batch_caller(function, type, returns, null_handling)
        schema = pa.schema([pa.field(f"p{i}", t) for i, t in enumerate(params)] + [pa.field("returns", returns)])
        self._con.create_function(name, call, schema, side_effects)
        return self

    def read_csv(self, path, *, header: bool | None = None, delim: str | None = None, nullstr: str | None = None,
                 quote: str | None = None, escape: str | None = None, dateformat: str | None = None,
                 names: list[str] | None = None, columns: dict[str, str] | None = None,
                 types: dict[str, str] | None = None, auto_detect: bool | None = None) -> Relation:
        """A lazy relation over the rows of the CSV file(s) at `path` (a glob
        reads several), as DuckDB's ``read_csv``: types are detected
        (integers, floats, booleans, ISO dates and timestamps; dates in
        `dateformat`, a strftime format like ``"%d/%m/%Y"``), `header` says
        whether the first line names the columns, `delim` separates fields,
        `nullstr` stands for NULL, `names` renames the columns in order,
        `columns` gives every column's name and SQL type (nothing detected),
        `types` some columns' types by name, and ``auto_detect=False`` reads
        every column as VARCHAR. The path never becomes SQL text. In SQL:
        ``SELECT * FROM read_csv('f.csv', header = false, delim = ';', types = {'id': 'BIGINT'})``."""
        given = {"header": header, "delim": delim, "nullstr": nullstr, "quote": quote, "escape": escape, "dateformat": dateformat,
                 "names": names, "columns": columns, "types": types, "auto_detect": auto_detect}
        return self._relation_over_file(path, "csv", given)

    def read_parquet(self, path) -> Relation:
        """A lazy relation over the rows of the Parquet file(s) at `path`."""
        return self._relation_over_file(path, "parquet", {})

    def read_json(self, path) -> Relation:
        """A lazy relation over the rows of the newline-delimited JSON file(s) at `path`."""
        return self._relation_over_file(path, "json", {})

    def _relation_over_file(self, path, kind: str, given: dict) -> Relation:
        options = [(k, v) for k, v in given.items() if v is not None]
        return self._registered_relation(lambda name: self._con.register_file(name, os.fspath(path), kind, options))

    def remove_function(self, name: str) -> Connection:
        """Removes the SQL function `name` made by :meth:`create_function`."""
        self._con.remove_function(name)
        return self

    def interrupt(self) -> None:
        """Cancels the statement or fetch running on this connection, from any
        thread: it raises :class:`InterruptError` and keeps nothing it did; the
        connection stays usable. (Ctrl-C does the same in the thread running it,
        raising ``KeyboardInterrupt``.) Without a running statement it does nothing."""
        self._con.interrupt()

    def _check_open(self) -> None:
        if self._con.closed:
            raise _swingdb.ProgrammingError("the connection is closed")

    @property
    def in_transaction(self) -> bool:
        """Whether an explicit transaction is open."""
        return self._con.in_transaction

    # -- catalog and maintenance ------------------------------------------
    def table_names(self) -> list[str]:
        """Names of the stored tables."""
        return self._con.table_names()

    @property
    def path(self) -> str | None:
        """The database directory, or None for an in-memory database."""
        return self._path

    def version(self) -> int:
        """The newest committed version of the database."""
        self._check_open()
        return self._db.version()

    def verify(self) -> dict:
        """Checks the manifest's checksum and the size, CRC-32 and structure of every
        stored segment; raises CorruptionError on damage.

        Checksums detect damage (a bad disk, a torn write, an edit by mistake), not
        who wrote a file: they are no authentication. Anyone who can write the
        database's directories can write files that pass; that is why swingdb
        refuses to open a database whose directories other users can write."""
        self._check_open()
        return self._db.verify()

    def collect_garbage(self) -> dict:
        """Deletes versions and segments that no reader in any process still uses."""
        self._check_open()
        return self._db.collect_garbage()

    # -- sharing -----------------------------------------------------------
    def share(self, name: str, *, persist: bool = False, replace: bool = False):
        """Publishes what this connection sees (inside a transaction: what it sees,
        its own changes included) as the snapshot ``name``, which any process of
        this user can :func:`swingdb.attach`. No table data is copied. The snapshot
        ends when this connection closes or its process exits, unless ``persist``
        (then it lasts until :func:`swingdb.discard`). ``replace`` points an existing
        name at the new snapshot. Returns a :class:`swingdb.Snapshot`."""
        self._check_open()
        return Snapshot._from(self._con.share(checked_name(name, "snapshot"), persist=persist, replace=replace))

    # -- pipes -------------------------------------------------------------
    def pipe_to(self, name: str, query_or_table: str, **options) -> int:
        """Sends a stored table (its name, used as given, never pasted into SQL) or
        the rows of a query into pipe ``name`` (a name or ``db://`` URL) and waits
        for an importer in this or another process; returns the rows it took.
        A stored table going to another swingdb database on this host is handed
        over as files: nothing is copied. ``options``: see :mod:`swingdb.pipe`."""
        self._check_open()
        from .pipe import _options

        is_table = query_or_table in self._con.table_names()
        return self._con.pipe_to(name, query_or_table, is_table, _options(**options))

    def pipe_from(self, name: str, table: str, **options) -> int:
        """Receives pipe ``name`` into ``table`` (created if missing, else appended
        to by column position), atomically: a failed transfer leaves the table as
        it was. Returns the rows. ``options``: see :mod:`swingdb.pipe`."""
        self._check_open()
        from .pipe import _options

        if not isinstance(table, str):
            raise _swingdb.ProgrammingError(f"a table name must be a string, not {type(table).__name__}")
        create = table not in self._con.table_names()
        return self._con.pipe_from(name, table, create, _options(**options))

    # -- lifetime ----------------------------------------------------------
    def close(self) -> None:
        """Closes the connection (an open transaction is rolled back) and lets go of
        the database handle. Results stay valid; cursors do not. Closing it
        again is a ``ProgrammingError`` (PEP 249: nothing works on a closed
        connection)."""
        self._check_open()
        self._con.close()
        self._db = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._con.closed

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self.closed:
            if exc_type is None:
                self.commit()
            else:
                self.rollback()
            self.close()
        return False

    def __repr__(self):
        where = self.path or ":memory:"
        return f"<swingdb.Connection {where}{' (closed)' if self.closed else ''}>"


class Cursor:
    """A DB-API 2.0 cursor. Also offers the result methods of :class:`Result`
    (``arrow()``, ``df()``, ``pl()``, ``numpy()``, ``fetch_record_batch()``)."""

    arraysize = 1

    def __init__(self, connection: Connection):
        self.connection = connection
        self._result: Result | None = None
        self._rowcount = -1
        self._closed = False

    def _check(self):
        self._check_not_closed()
        self.connection._check_open()

    def execute(self, query: str, params=None) -> Cursor:
        """Runs one SQL string (may hold several statements; the last one's rows are kept)."""
        self._check()
        self._result = Result(self.connection._run(query, _params(params)), restarts=False)
        affected = self._result.rows_affected
        self._rowcount = -1 if affected is None else affected
        return self

    def executemany(self, query: str, seq_of_params) -> Cursor:
        """Runs ``query`` for each parameter set, atomically (one transaction).
        A plain ``INSERT INTO t [(columns)] VALUES (?, ...)`` with positional
        parameters runs as one statement storing every row at once (the
        rows' keys and checks enforced together), as an INSERT of many rows."""
        self._check()
        con = self.connection
        given = list(seq_of_params)
        rows = [_params(p) for p in given]
        if rows and all(isinstance(r, list) for r in rows):
            stored = con._con.executemany_insert(_sql(query), rows)
            if stored is not None:
                self._rowcount = stored
                self._result = None
                return self
        own_txn = not con.in_transaction
        if own_txn:
            con.begin()
        total = 0
        try:
            for params in given:
                self.execute(query, params)
                total += max(self._rowcount, 0)
        except BaseException:
            if own_txn:
                con.rollback()
            raise
        if own_txn:
            con.commit()
        self._rowcount = total
        self._result = None
        return self

    @property
    def description(self):
        """Seven-item column descriptions of the last result (None without rows)."""
        self._check()
        return None if self._result is None else self._result.description

    @property
    def rowcount(self) -> int:
        """Rows changed by the last DML statement, else -1."""
        self._check()
        return self._rowcount

    def _need_result(self) -> Result:
        self._check()
        if self._result is None or not self._result.columns:
            raise _swingdb.ProgrammingError("no result to fetch: execute a query first")
        return self._result

    def fetchone(self):
        """The next row as a tuple, or None."""
        return self._need_result().fetchone()

    def fetchmany(self, size: int | None = None):
        """Up to ``size`` (default ``arraysize``) next rows."""
        return self._need_result().fetchmany(self.arraysize if size is None else size)

    def fetchall(self):
        """All remaining rows."""
        return self._need_result().fetchall()

    def arrow(self):
        """Every row of the last result as a ``pyarrow.Table`` (zero-copy)."""
        return self._need_result().arrow()

    def df(self):
        """Every row of the last result as a ``pandas.DataFrame``."""
        return self._need_result().df()

    def pl(self):
        """Every row of the last result as a ``polars.DataFrame``."""
        return self._need_result().pl()

    def numpy(self, **kwargs):
        """Every row of the last result as a dict of numpy arrays."""
        return self._need_result().numpy(**kwargs)

    def fetch_record_batch(self, rows_per_batch: int = 1_000_000):
        """A ``pyarrow.RecordBatchReader`` over the last result's rows (streams)."""
        return self._need_result().fetch_record_batch(rows_per_batch)

    # DuckDB's names for the whole forms.
    fetchnumpy = numpy
    fetchdf = fetch_df = df
    fetch_arrow_table = arrow

    def __arrow_c_stream__(self, requested_schema=None):
        return self._need_result().__arrow_c_stream__(requested_schema)

    def __iter__(self):
        return iter(self._need_result())

    def setinputsizes(self, sizes):
        """DB-API no-op (on an open cursor)."""
        self._check()

    def setoutputsize(self, size, column=None):
        """DB-API no-op (on an open cursor)."""
        self._check()

    def close(self):
        """Closes the cursor; every use after that (closing again too) raises
        ``InterfaceError``."""
        self._check_not_closed()
        self._closed = True
        self._result = None

    def _check_not_closed(self):
        if self._closed:
            raise _swingdb.InterfaceError("the cursor is closed")

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (or its connection closed)."""
        return self._closed or self.connection.closed

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self._closed:
            self._closed = True
            self._result = None
        return False
