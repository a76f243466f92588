"""Column conversions for numpy and pandas that avoid copies wherever the
Arrow layout allows it, and keep NULLs exactly."""

from __future__ import annotations

import os

import numpy as np
import numpy.ma  # noqa: F401  (NULLs become masked arrays)

from . import _swingdb


def numpy_column(col: _swingdb.Column, nulls: str = "mask", decimals: str = "float"):
    """One column (the extension's whole column) as numpy: a read-only view
    of its buffer where the layout allows it; otherwise converted in one pass."""
    kind = col.kind
    if kind == "decimal":
        # numpy has no decimal type: float64 (as DuckDB's fetchnumpy does), or exact
        # decimal.Decimal objects with decimals="object".
        if decimals != "float":
            return col.python_objects()
        col, kind = col.as_float64(), "view"
    if kind == "values":
        # Strings, bytes, times, nested values: Python objects.
        return col.python_objects()
    if kind == "bool":
        values = np.asarray(col.bools())
    elif kind == "date32":
        values = np.asarray(col.values()).astype("datetime64[D]")
    else:
        values = np.asarray(col.values())
    if col.null_count == 0:
        return values
    mask = np.asarray(col.nulls())
    if values.dtype.kind == "f" and nulls == "nan":
        return np.where(mask, np.nan, values)
    fill = np.array("NaT" if values.dtype.kind in "mM" else 0, dtype=values.dtype)
    return np.ma.MaskedArray(np.where(mask, fill, values), mask=mask)  # defined values under the mask


def private_copy_on_write(arr: np.ndarray) -> np.ndarray:
    """A writable version of `arr`. When `arr` views a stored segment, this is a
    private copy-on-write mapping of the same file pages (MAP_PRIVATE): nothing is
    copied up front, written pages become private to this process, and the file
    and other processes never see the writes. Other arrays are copied."""
    import mmap  # only for writable results: a first query imports nothing it does not use

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


def pandas_column(col: _swingdb.Column, arrow, pd):
    """One column for pandas: plain numpy dtypes for non-null numbers (a view of the
    engine's buffer when it is one piece, joined otherwise, so the dtype does not
    depend on how the result was chunked); ArrowDtype, which keeps NULLs and does
    not copy, for everything else (`arrow`: the column as a pyarrow.ChunkedArray)."""
    if col.kind == "view" and col.null_count == 0:
        values = numpy_column(col)
        if values.dtype.kind in "iuf":
            return pd.Series(values, copy=False)
    categorical = enum_categorical(arrow, pd)
    if categorical is not None:
        return pd.Series(categorical, copy=False)
    return pd.Series(pd.arrays.ArrowExtensionArray(arrow), copy=False)


def enum_categorical(arrow, pd):
    """An ENUM column (an ordered dictionary, every chunk over the labels in the
    order declared) as an ordered pandas Categorical whose codes are the stored
    keys: a view of them for one chunk without NULLs (pyarrow's own conversion
    copies them), else joined with -1 for NULL. ``None`` for other columns."""
    import pyarrow as pa

    kind = arrow.type
    if not (pa.types.is_dictionary(kind) and kind.ordered and pa.types.is_signed_integer(kind.index_type)):
        return None
    chunks = [c for c in arrow.chunks if len(c)]
    if not chunks or any(not c.dictionary.equals(chunks[0].dictionary) for c in chunks[1:]):
        return None
    categories = chunks[0].dictionary.to_pylist()
    if None in categories or len(set(categories)) != len(categories):
        return None  # not an ENUM's labels (data from elsewhere): pandas would refuse them
    dtype = pd.CategoricalDtype(categories, ordered=True)
    index = np.dtype(kind.index_type.to_pandas_dtype())
    if len(chunks) == 1 and chunks[0].null_count == 0:
        chunk = chunks[0]
        codes = np.frombuffer(chunk.buffers()[1], dtype=index, count=len(chunk), offset=chunk.offset * index.itemsize)
    else:
        codes = np.concatenate([c.indices.fill_null(-1).to_numpy(zero_copy_only=False) for c in chunks]).astype(index)
    return pd.Categorical.from_codes(codes, dtype=dtype)
