"""Turning Python data (pandas, numpy, pyarrow, polars, anything with
``__arrow_c_stream__``) into Arrow without copying numeric buffers, and finding
such data by name in the caller's scope (replacement scans)."""

from __future__ import annotations

import re
import sys

import pyarrow as pa

from . import _swingdb

_MISSING_TABLE = re.compile(r"table '(?:swingdb\.main\.|main\.)?([^'.]+)' (?:not found|does not exist)")


def to_arrow(obj, name: str = "data"):
    """`obj` as something with ``__arrow_c_stream__``, sharing numeric buffers."""
    module = type(obj).__module__.split(".")[0]
    if module == "pandas" and type(obj).__name__ == "DataFrame":
        try:
            return pa.Table.from_pandas(obj, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
            raise _swingdb.DataError(f"cannot use DataFrame '{name}': {e}; give the column one type") from None
    if module == "polars" and type(obj).__name__ == "LazyFrame":
        obj = obj.collect()
    if module == "polars" and type(obj).__name__ == "DataFrame":
        return obj.to_arrow()
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if module == "pyarrow" and hasattr(obj, "to_table") and not hasattr(obj, "__arrow_c_stream__"):
        return obj.to_table()  # a pyarrow Dataset
    if isinstance(obj, dict):
        try:
            return pa.table({str(k): pa.array(v) for k, v in obj.items()})
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise _swingdb.DataError(f"cannot use dict '{name}': {e}") from None
    if type(obj).__name__ == "ndarray" and getattr(obj.dtype, "names", None):
        return pa.table({f: pa.array(obj[f]) for f in obj.dtype.names})
    if hasattr(obj, "__arrow_c_stream__"):
        return obj
    raise _swingdb.ProgrammingError(
        f"'{name}' is a {type(obj).__module__}.{type(obj).__name__}; register a pandas or polars DataFrame, "
        "a dict of numpy arrays, a numpy structured array, or pyarrow data"
    )


def missing_table(error: Exception) -> str | None:
    """The table name a 'table not found' error is about."""
    m = _MISSING_TABLE.search(str(error))
    return m.group(1) if m else None


def find_in_caller(name: str):
    """The variable `name` in the scope of the code that called into swingdb
    (the first frame up the stack outside this package), or None."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "swingdb":
        frame = frame.f_back
    if frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        if name in scope:
            return scope[name]
    return None
