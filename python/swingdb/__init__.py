"""swingdb: an embedded, columnar, Arrow-native SQL database.

    >>> import swingdb
    >>> con = swingdb.connect()                      # in memory; or connect("sales.swingdb")
    >>> con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(id, name)")
    >>> con.sql("SELECT sum(id) AS s FROM t").fetchall()
    [(3,)]
    >>> swingdb.sql("SELECT 40 + 2").fetchall()      # a shared in-memory connection
    [(42,)]

Results reach numpy (through its array interface), pyarrow, pandas and polars
(through the Arrow C stream interface) without copying: a ``SELECT`` over a
stored table returns arrays that point into the database's memory-mapped files.
None of these packages is needed to fetch Python rows.
"""


from . import _swingdb, pipe
from ._swingdb import (  # noqa: F401  (re-exported DB-API exceptions)
    ConflictError,
    CorruptionError,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    InterruptError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)
from .connection import Connection, Cursor, attach, connect
from .dbapi import (  # noqa: F401
    BINARY,
    DATETIME,
    NUMBER,
    ROWID,
    STRING,
    Binary,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
    apilevel,
    paramstyle,
    threadsafety,
)
from .progress import set_progress
from .relation import Relation
from .result import Result
from .share import Snapshot, discard, snapshots

_default: Connection | None = None


def default_connection() -> Connection:
    """The in-memory connection ``swingdb.sql`` and ``swingdb.execute`` use
    (made on first use, shared by the whole process, as DuckDB's module-level
    functions share theirs)."""
    global _default
    if _default is None:
        _default = connect()
    return _default


def sql(query: str, params=None) -> Result | None:
    """``default_connection().sql(query, params)``: SQL without making a connection first."""
    return default_connection().sql(query, params)


def execute(query: str, params=None) -> Cursor:
    """``default_connection().execute(query, params)``."""
    return default_connection().execute(query, params)


def table(name: str) -> Relation:
    """``default_connection().table(name)``."""
    return default_connection().table(name)


def read_csv(path, **options) -> Relation:
    """``default_connection().read_csv(path, **options)``: a lazy relation over CSV file(s)."""
    return default_connection().read_csv(path, **options)


def read_parquet(path) -> Relation:
    """``default_connection().read_parquet(path)``: a lazy relation over Parquet file(s)."""
    return default_connection().read_parquet(path)


def read_json(path) -> Relation:
    """``default_connection().read_json(path)``: a lazy relation over newline-delimited JSON file(s)."""
    return default_connection().read_json(path)


def from_df(df) -> Relation:
    """``default_connection().from_df(df)``: a lazy relation over a DataFrame."""
    return default_connection().from_df(df)


def from_arrow(data) -> Relation:
    """``default_connection().from_arrow(data)``: a lazy relation over Arrow data."""
    return default_connection().from_arrow(data)


__version__ = _swingdb.__version__

__all__ = [
    "connect",
    "sql",
    "execute",
    "table",
    "read_csv",
    "read_parquet",
    "read_json",
    "from_df",
    "from_arrow",
    "Relation",
    "set_progress",
    "default_connection",
    "Connection",
    "Cursor",
    "Result",
    "Snapshot",
    "attach",
    "snapshots",
    "discard",
    "pipe",
    "Error",
    "Warning",
    "InterfaceError",
    "DatabaseError",
    "DataError",
    "OperationalError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "ConflictError",
    "CorruptionError",
    "InterruptError",
]
