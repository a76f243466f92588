"""Python functions in SQL: ``con.create_function(name, fn, [types], type)``,
as DuckDB's. A ``"native"`` function is called once per row with Python
values; an ``"arrow"`` function once per batch with pyarrow arrays (fast).
Types are SQL names (``"BIGINT"``, ``"VARCHAR"``, ``"DECIMAL(10,2)"``) or
pyarrow types; without them, the function's annotations say (``int``,
``float``, ``str``, ``bool``, ``bytes``, ``datetime.date``, ...)."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import inspect
import re

import pyarrow as pa

from . import _swingdb

_SQL_TYPES = {
    "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INTEGER": pa.int32(), "INT": pa.int32(), "BIGINT": pa.int64(),
    "UTINYINT": pa.uint8(), "USMALLINT": pa.uint16(), "UINTEGER": pa.uint32(), "UBIGINT": pa.uint64(),
    "REAL": pa.float32(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(), "BOOL": pa.bool_(),
    "VARCHAR": pa.string(), "TEXT": pa.string(), "STRING": pa.string(), "BLOB": pa.binary(), "BYTEA": pa.binary(),
    "DATE": pa.date32(), "TIMESTAMP": pa.timestamp("us"), "TIMESTAMPTZ": pa.timestamp("us", tz="UTC"),
    "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC"),
}
_PYTHON_TYPES = {
    int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_(), bytes: pa.binary(),
    _dt.date: pa.date32(), _dt.datetime: pa.timestamp("us"), _decimal.Decimal: pa.decimal128(38, 10),
}


def arrow_type(spec, what: str) -> pa.DataType:
    """The Arrow type `spec` names (an SQL name, a pyarrow type or a Python type)."""
    if isinstance(spec, pa.DataType):
        return spec
    if isinstance(spec, type) and spec in _PYTHON_TYPES:
        return _PYTHON_TYPES[spec]
    if isinstance(spec, str):
        name = " ".join(spec.upper().split())
        if name in _SQL_TYPES:
            return _SQL_TYPES[name]
        m = re.fullmatch(r"(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)", name)
        if m:
            return pa.decimal128(int(m.group(1)), int(m.group(2)))
    raise _swingdb.ProgrammingError(f"{what}: unknown type {spec!r}; use an SQL type name like 'BIGINT' or 'VARCHAR', or a pyarrow type")


def signature(function, parameters, return_type) -> tuple[list[pa.DataType], pa.DataType]:
    """Parameter and answer types, given or read from `function`'s annotations."""
    if parameters is None or return_type is None:
        try:
            sig = inspect.signature(function)
        except (TypeError, ValueError):
            sig = None
        if parameters is None:
            annotated = [p.annotation for p in sig.parameters.values()] if sig else []
            if not sig or any(a is inspect.Parameter.empty for a in annotated):
                raise _swingdb.ProgrammingError("create_function: give the parameter types (a list), or annotate the function's parameters")
            parameters = annotated
        if return_type is None:
            if not sig or sig.return_annotation is inspect.Signature.empty:
                raise _swingdb.ProgrammingError("create_function: give the return type, or annotate the function's return")
            return_type = sig.return_annotation
    params = [arrow_type(p, f"parameter {i + 1}") for i, p in enumerate(parameters)]
    return params, arrow_type(return_type, "return type")


def batch_caller(function, kind: str, returns: pa.DataType, null_handling: str):
    """What the engine calls with the number of rows and one pyarrow array
    per argument: `function` for "arrow", a loop over the rows for "native"."""
    if kind == "arrow":
        def call_arrow(rows, *arrays):
            answer = function(*arrays)
            if not hasattr(answer, "__arrow_c_array__"):
                answer = pa.array(answer, type=returns)
            elif answer.type != returns:
                answer = answer.cast(returns)
            return answer

        return call_arrow
    if kind != "native":
        raise _swingdb.ProgrammingError(f"create_function: type must be 'native' (row by row) or 'arrow' (batches), not {kind!r}")
    if null_handling not in ("default", "special"):
        raise _swingdb.ProgrammingError(f"create_function: null_handling must be 'default' or 'special', not {null_handling!r}")
    skip_nulls = null_handling == "default"

    def call_rows(rows, *arrays):
        columns = [a.to_pylist() for a in arrays]
        out = []
        for i in range(rows):
            args = [c[i] for c in columns]
            out.append(None if skip_nulls and any(a is None for a in args) else function(*args))
        return pa.array(out, type=returns)

    return call_rows
