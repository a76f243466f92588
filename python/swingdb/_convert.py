"""Column conversions for numpy and pandas that avoid copies wherever the
Arrow layout allows it, and keep NULLs exactly."""

from __future__ import annotations

import mmap
import os

import numpy as np
import pyarrow as pa

from . import _swingdb


def _zero_copy_ok(col: pa.ChunkedArray) -> bool:
    """Whether numpy can view the column's single Arrow buffer as it is: 8/16/32/64-bit
    numbers, and 64-bit temporal types (date32 is 32-bit days, which numpy has no
    type for, so it is converted)."""
    t = col.type
    layout_matches = (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_timestamp(t)
        or pa.types.is_duration(t)
        or pa.types.is_date64(t)
    )
    return layout_matches and col.null_count == 0 and col.num_chunks == 1


def numpy_column(col: pa.ChunkedArray, nulls: str = "mask", decimals: str = "float"):
    """One column as numpy: a read-only view where the layout allows it."""
    if _zero_copy_ok(col):
        return col.chunk(0).to_numpy(zero_copy_only=True)
    t = col.type
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_decimal(t) and decimals == "float":
        # numpy has no decimal type: float64 (as DuckDB's fetchnumpy does), or exact
        # decimal.Decimal objects with decimals="object".
        arr, t = arr.cast(pa.float64()), pa.float64()
    numeric = pa.types.is_integer(t) or pa.types.is_floating(t)
    if not (numeric or pa.types.is_temporal(t) or pa.types.is_boolean(t)):
        # Strings, decimals, nested values: Python objects, only because numpy was asked for.
        return arr.to_numpy(zero_copy_only=False)
    if arr.null_count == 0 or (nulls == "nan" and pa.types.is_floating(t)):
        return arr.to_numpy(zero_copy_only=False)
    mask = arr.is_null().to_numpy(zero_copy_only=False)
    if pa.types.is_temporal(t):
        values = arr.to_numpy(zero_copy_only=False)  # NaT under the mask
    else:
        values = arr.fill_null(pa.scalar(False if pa.types.is_boolean(t) else 0, t)).to_numpy(zero_copy_only=False)
    return np.ma.MaskedArray(values, mask=mask)


def private_copy_on_write(arr: np.ndarray) -> np.ndarray:
    """A writable version of `arr`. When `arr` views a stored segment, this is a
    private copy-on-write mapping of the same file pages (MAP_PRIVATE): nothing is
    copied up front, written pages become private to this process, and the file
    and other processes never see the writes. Other arrays are copied."""
    if arr.flags.writeable or isinstance(arr, np.ma.MaskedArray) or arr.dtype == object:
        return arr if arr.flags.writeable else arr.copy()
    located = _swingdb.mapped_file(arr.__array_interface__["data"][0])
    if located is None:
        return arr.copy()
    fd, offset = located
    try:
        start = offset - offset % mmap.ALLOCATIONGRANULARITY
        length = offset - start + arr.nbytes
        if length == 0:
            return arr.copy()
        region = mmap.mmap(fd, length, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=start)
    finally:
        os.close(fd)
    return np.frombuffer(region, dtype=arr.dtype, count=len(arr), offset=offset - start)


def pandas_column(col: pa.ChunkedArray, pd):
    """One column for pandas: plain numpy dtypes for non-null numbers (a view of the
    engine's buffer when it is one piece, joined otherwise, so the dtype does not
    depend on how the result was chunked); ArrowDtype, which keeps NULLs and does
    not copy, for everything else."""
    t = col.type
    if (pa.types.is_integer(t) or pa.types.is_floating(t)) and col.null_count == 0:
        return pd.Series(numpy_column(col), copy=False)
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
