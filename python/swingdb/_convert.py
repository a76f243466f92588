"""Column conversions for numpy and pandas that avoid copies wherever the
Arrow layout allows it, and keep NULLs exactly."""

from __future__ import annotations

import mmap
import os

import numpy as np
import numpy.ma  # noqa: F401  (NULLs become masked arrays: imported here, not by a first query, ~10 ms)
import pyarrow as pa

from . import _swingdb


def _fixed_width(t: pa.DataType) -> bool:
    """Whether numpy can view an Arrow array of type `t` as it is: 8/16/32/64-bit
    numbers and 64-bit temporal types (date32 is 32-bit days, which numpy has no
    type for)."""
    return (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_timestamp(t)
        or pa.types.is_duration(t)
        or pa.types.is_date64(t)
    )


def _zero_copy_ok(col: pa.ChunkedArray) -> bool:
    """Whether the whole column is one null-free buffer numpy can view."""
    return _fixed_width(col.type) and col.null_count == 0 and col.num_chunks == 1


def _numpy_dtype(t: pa.DataType) -> np.dtype:
    if pa.types.is_integer(t):
        return np.dtype(f"{'i' if pa.types.is_signed_integer(t) else 'u'}{t.bit_width // 8}")
    if pa.types.is_floating(t):
        return np.dtype(f"f{t.bit_width // 8}")
    if pa.types.is_date64(t):
        return np.dtype("datetime64[ms]")
    return np.dtype(f"{'datetime64' if pa.types.is_timestamp(t) else 'timedelta64'}[{t.unit}]")


def _view(arr: pa.Array, dtype: np.dtype | None = None) -> np.ndarray:
    """A read-only numpy view of a null-free fixed-width array (as `dtype`, of
    the same width, if given); the view's base holds the Arrow buffer alive.
    (pyarrow's to_numpy would do the same but imports pandas on first use,
    which costs a fresh process ~0.2 s.)"""
    dtype = _numpy_dtype(arr.type) if dtype is None else np.dtype(dtype)
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def _bits(buffer: pa.Buffer, offset: int, length: int) -> np.ndarray:
    """`length` bits of an Arrow bitmap from bit `offset`, as numpy bools."""
    packed = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(packed, count=offset + length, bitorder="little")[offset:].view(np.bool_)


def _bools(arr: pa.Array) -> np.ndarray:
    """Arrow's bit-packed booleans as numpy bools, one pass (values under NULLs undefined)."""
    return _bits(arr.buffers()[1], arr.offset, len(arr))


def _nulls(arr: pa.Array) -> np.ndarray:
    """Where `arr` is NULL, as numpy bools (without pyarrow.compute, whose import
    costs a fresh process ~40 ms)."""
    validity = arr.buffers()[0]
    if validity is None:
        return np.zeros(len(arr), dtype=np.bool_)
    return ~_bits(validity, arr.offset, len(arr))


def _objects(t: pa.DataType) -> bool:
    """Whether numpy gets Python objects (str, bytes) for type `t`, made by
    `_swingdb.objects` (pyarrow's to_numpy imports pandas for these: ~0.3 s of
    a fresh process's first query)."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_string_view(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_binary_view(t)
        or pa.types.is_fixed_size_binary(t)
    )


def _one_array(col: pa.ChunkedArray) -> pa.Array:
    """The column as one array. (pyarrow's combine_chunks of no chunks at all,
    an empty result, imports pandas.)"""
    if col.num_chunks == 0:
        return pa.nulls(0, type=col.type)
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def numpy_column(col: pa.ChunkedArray, nulls: str = "mask", decimals: str = "float"):
    """One column as numpy: a read-only view where the layout allows it; otherwise
    converted in one pass (and never through pandas, which pyarrow's conversions
    import: ~0.2 s of a fresh process's first query)."""
    if _zero_copy_ok(col):
        return _view(col.chunk(0))
    t = col.type
    arr = _one_array(col)
    if pa.types.is_decimal(t) and decimals == "float":
        # numpy has no decimal type: float64 (as DuckDB's fetchnumpy does), or exact
        # decimal.Decimal objects with decimals="object".
        arr, t = _swingdb.as_float64(arr), pa.float64()
    if pa.types.is_boolean(t):
        values = _bools(arr)
    elif pa.types.is_date32(t):
        values = _view(arr, np.int32).astype("datetime64[D]")
    elif _fixed_width(t):
        values = _view(arr)
    elif _objects(t):
        return _swingdb.objects(arr)
    else:
        # Exact decimals, nested values: Python objects, only because numpy was asked for.
        return arr.to_numpy(zero_copy_only=False)
    if arr.null_count == 0:
        return values
    mask = _nulls(arr)
    if pa.types.is_floating(t) and nulls == "nan":
        return np.where(mask, np.nan, values)
    fill = np.array("NaT" if values.dtype.kind in "mM" else 0, dtype=values.dtype)
    return np.ma.MaskedArray(np.where(mask, fill, values), mask=mask)  # defined values under the mask


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
