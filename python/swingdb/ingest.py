"""Turning Python data (pandas, numpy, pyarrow, polars, anything with
``__arrow_c_stream__``) into Arrow without copying numeric buffers, and finding
such data by name in the caller's scope (replacement scans)."""

from __future__ import annotations

import re
import sys

from . import _swingdb
from ._extras import need

_MISSING_TABLE = re.compile(r"table '(?:swingdb\.main\.|main\.)?([^'.]+)' (?:not found|does not exist)")


def to_arrow(obj, name: str = "data"):
    """`obj` as something with ``__arrow_c_stream__``, sharing numeric buffers.
    Data that is not Arrow yet (pandas, numpy) is turned into Arrow by pyarrow."""
    module = type(obj).__module__.split(".")[0]
    what = f"using {type(obj).__module__}.{type(obj).__name__} '{name}'"
    if module == "pandas" and type(obj).__name__ == "DataFrame":
        pa = need("pyarrow", "pandas", what)
        try:
            return pa.Table.from_pandas(obj, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
            raise _swingdb.DataError(f"cannot use DataFrame '{name}': {e}; give the column one type") from None
    if module == "polars" and type(obj).__name__ == "LazyFrame":
        obj = obj.collect()
    if hasattr(obj, "__arrow_c_stream__"):
        return obj  # polars DataFrames, pyarrow tables and readers, DuckDB results, ...
    if module == "pyarrow":
        pa = need("pyarrow", "pyarrow", what)
        if isinstance(obj, pa.RecordBatch):
            return pa.Table.from_batches([obj])
        if hasattr(obj, "to_table"):
            return obj.to_table()  # a pyarrow Dataset
    if isinstance(obj, dict):
        pa = need("pyarrow", "pyarrow", what)
        try:
            return pa.table({str(k): pa.array(v) for k, v in obj.items()})
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise _swingdb.DataError(f"cannot use dict '{name}': {e}") from None
    if type(obj).__name__ == "ndarray" and getattr(obj.dtype, "names", None):
        pa = need("pyarrow", "pyarrow", what)
        return pa.table({f: pa.array(obj[f]) for f in obj.dtype.names})
    raise _swingdb.ProgrammingError(
        f"'{name}' is a {type(obj).__module__}.{type(obj).__name__}; register a pandas or polars DataFrame, "
        "a dict of numpy arrays, a numpy structured array, or pyarrow data"
    )


def row_count(data) -> int:
    """How many rows `data` (what to_arrow gave) holds, where it says so without
    being read (else 0)."""
    for attribute in ("num_rows", "height"):
        count = getattr(data, attribute, None)
        if isinstance(count, int):
            return count
    return 0


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
