"""swingdb: an embedded, columnar, Arrow-native SQL database.

    >>> import swingdb
    >>> con = swingdb.connect()                      # in memory; or connect("sales.swingdb")
    >>> con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(id, name)")
    >>> con.sql("SELECT sum(id) AS s FROM t").fetchall()
    [(3,)]
    >>> swingdb.sql("SELECT 40 + 2").fetchall()      # a shared in-memory connection
    [(42,)]

Results reach pyarrow, numpy, pandas and polars through the Arrow C stream
interface without copying: a ``SELECT`` over a stored table returns arrays that
point into the database's memory-mapped files.
"""

from importlib.metadata import PackageNotFoundError as _NotFound
from importlib.metadata import version as _version

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
from .connection import Connection, Cursor, connect
from .progress import set_progress
from .result import Result
from .share import Snapshot, attach, discard, snapshots
from . import pipe
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


try:
    __version__ = _version("swingdb")
except _NotFound:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

__all__ = [
    "connect",
    "sql",
    "execute",
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
