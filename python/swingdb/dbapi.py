"""PEP 249 module globals, type objects and constructors."""

import datetime as _dt
import time as _time

#: DB-API level.
apilevel = "2.0"
#: Threads may share the module and connections (a connection serializes its statements).
threadsafety = 2
#: ``?`` placeholders; ``$1`` (numeric) works too.
paramstyle = "qmark"


class _TypeObject:
    """Compares equal to every SQL type name (a ``description`` type_code) of
    one DB-API type group."""

    def __init__(self, *prefixes):
        self._prefixes = prefixes

    def __eq__(self, other):
        return isinstance(other, str) and other.startswith(self._prefixes)

    def __hash__(self):
        return hash(self._prefixes)


STRING = _TypeObject("VARCHAR")
BINARY = _TypeObject("BLOB")
NUMBER = _TypeObject(
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "REAL", "DOUBLE", "DECIMAL", "BOOLEAN"
)
DATETIME = _TypeObject("DATE", "TIME", "INTERVAL")
ROWID = _TypeObject("__rowid__")

Date = _dt.date
Time = _dt.time
Timestamp = _dt.datetime
Binary = bytes


def DateFromTicks(ticks):
    """The local date of a Unix time stamp."""
    return Date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks):
    """The local time of day of a Unix time stamp."""
    return Time(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks):
    """The local date and time of a Unix time stamp."""
    return Timestamp(*_time.localtime(ticks)[:6])
