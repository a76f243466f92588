"""Column conversions for numpy and pandas that avoid copies wherever the
Arrow layout allows it, and keep NULLs exactly."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def _zero_copy_ok(col: pa.ChunkedArray) -> bool:
    t = col.type
    numeric = pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_temporal(t)
    return numeric and not pa.types.is_time(t) and col.null_count == 0 and col.num_chunks == 1


def numpy_column(col: pa.ChunkedArray, nulls: str = "mask"):
    """One column as numpy: a read-only view where possible."""
    if _zero_copy_ok(col):
        return col.chunk(0).to_numpy(zero_copy_only=True)
    t = col.type
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_temporal(t):
        if arr.null_count == 0:
            return arr.to_numpy(zero_copy_only=False)
        if nulls == "nan" and pa.types.is_floating(t):
            return arr.to_numpy(zero_copy_only=False)
        mask = arr.is_null().to_numpy(zero_copy_only=False)
        values = arr.fill_null(pa.scalar(0, t) if not pa.types.is_temporal(t) else pa.scalar(0, pa.int64()).cast(t)).to_numpy(zero_copy_only=False)
        return np.ma.MaskedArray(values, mask=mask)
    if pa.types.is_boolean(t):
        if arr.null_count == 0:
            return arr.to_numpy(zero_copy_only=False)
        return np.ma.MaskedArray(arr.fill_null(False).to_numpy(zero_copy_only=False), mask=arr.is_null().to_numpy(zero_copy_only=False))
    values = np.array(arr.to_pylist(), dtype=object)
    return values


def pandas_column(col: pa.ChunkedArray, pd):
    """One column for pandas: numpy view for non-null numerics, ArrowDtype otherwise."""
    t = col.type
    if _zero_copy_ok(col) and (pa.types.is_integer(t) or pa.types.is_floating(t)):
        return pd.Series(col.chunk(0).to_numpy(zero_copy_only=True), copy=False)
    return pd.Series(pd.arrays.ArrowExtensionArray(col), copy=False)


def _cell(v) -> str:
    return "NULL" if v is None else str(v)


def format_table(table: pa.Table, more: bool = False) -> str:
    """An aligned text table, like the shell prints."""
    names = table.column_names
    if not names:
        return "(no columns)"
    columns = [[_cell(v) for v in c.to_pylist()] for c in table.columns]
    types = [str(t) for t in table.schema.types]
    widths = [max([len(n), len(ty)] + [len(v) for v in col]) for n, ty, col in zip(names, types, columns)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    def row(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [line, row(names), row(types), line]
    out += [row(r) for r in zip(*columns)] if columns and columns[0] else []
    out.append(line)
    out.append(f"{table.num_rows} rows{' (more not shown)' if more else ''}")
    return "\n".join(out)
