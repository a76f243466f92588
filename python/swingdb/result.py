"""Query results, handed to pyarrow / numpy / pandas / polars without copying."""

from __future__ import annotations

import html

import pyarrow as pa

from . import _swingdb

_SHOW_ROWS = 20


class Result:
    """The rows of one statement.

    Rows arrive as an Arrow stream straight from the engine. Fetch them as
    Python tuples (``fetchone``/``fetchmany``/``fetchall``), or whole as
    ``arrow()`` (pyarrow.Table), ``df()`` (pandas), ``pl()`` (polars) or
    ``numpy()`` (dict of arrays); those share memory with the engine's arrays,
    which for stored tables are the memory-mapped segment files themselves.
    A result is read once: rows taken by one method are not seen by another.
    """

    def __init__(self, native):
        self._native = native
        self._errors = native  # keeps the error that ends the stream, with its DB-API class
        self.rows_affected = native.rows_affected
        self.schema: pa.Schema = pa.schema(native)
        self._reader: pa.RecordBatchReader | None = None
        self._pending: list = []  # rows converted to tuples but not fetched yet

    # -- metadata -----------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """Column names."""
        return self.schema.names

    @property
    def types(self) -> list[pa.DataType]:
        """Arrow column types."""
        return self.schema.types

    @property
    def description(self):
        """DB-API ``description``: (name, type_code, None, None, None, None, null_ok)."""
        if not self.columns:
            return None
        return [(f.name, str(f.type), None, None, None, None, f.nullable) for f in self.schema]

    # -- streaming ----------------------------------------------------------
    def _stream(self) -> pa.RecordBatchReader:
        if self._reader is None:
            if self._native is None:
                raise _swingdb.InterfaceError("this result was already consumed")
            self._reader = pa.RecordBatchReader.from_stream(self._native)
            self._native = None
        return self._reader

    def _batches(self):
        reader = self._stream()
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except pa.ArrowException as error:
                raise self._dbapi_error(error) from None
            yield batch

    def _dbapi_error(self, error: Exception) -> Exception:
        """The swingdb exception behind a failure pyarrow reports in its own terms."""
        native = self._errors.stream_error()
        if native is not None:
            return native
        if isinstance(error, pa.ArrowNotImplementedError):
            return _swingdb.NotSupportedError(str(error))
        if isinstance(error, (pa.ArrowMemoryError, pa.ArrowIOError)):
            return _swingdb.OperationalError(str(error))
        return _swingdb.DataError(str(error))

    def fetch_record_batch(self, rows_per_batch: int = 1_000_000) -> pa.RecordBatchReader:
        """A ``pyarrow.RecordBatchReader`` yielding batches of at most ``rows_per_batch`` rows,
        computed as they are read (results larger than memory stream through)."""
        if self._pending:
            raise _swingdb.InterfaceError("rows were already fetched one by one; fetch the rest with fetchall()")
        if isinstance(rows_per_batch, bool) or not isinstance(rows_per_batch, int) or rows_per_batch < 1:
            raise _swingdb.ProgrammingError(f"rows_per_batch must be a positive integer, not {rows_per_batch!r}")

        def sliced():
            for batch in self._batches():
                for offset in range(0, batch.num_rows, rows_per_batch):
                    yield batch.slice(offset, rows_per_batch)

        return pa.RecordBatchReader.from_batches(self.schema, sliced())

    def __arrow_c_stream__(self, requested_schema=None):
        """Arrow PyCapsule stream export (consumes the result)."""
        return self.fetch_record_batch().__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self.schema.__arrow_c_schema__()

    # -- Python rows -------------------------------------------------------
    def _fill(self, n: int | None) -> None:
        while n is None or len(self._pending) < n:
            try:
                batch = next(self._batches())
            except StopIteration:
                return
            columns = [c.to_pylist() for c in batch.columns]
            self._pending.extend(zip(*columns) if columns else [])

    def fetchone(self):
        """The next row as a tuple, or None at the end."""
        self._fill(1)
        return self._pending.pop(0) if self._pending else None

    def fetchmany(self, size: int = 1):
        """The next ``size`` rows as a list of tuples."""
        self._fill(size)
        rows, self._pending = self._pending[:size], self._pending[size:]
        return rows

    def fetchall(self):
        """All remaining rows as a list of tuples."""
        self._fill(None)
        rows, self._pending = self._pending, []
        return rows

    def __iter__(self):
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    # -- whole results -----------------------------------------------------
    def arrow(self) -> pa.Table:
        """The remaining rows as a ``pyarrow.Table`` whose buffers are the engine's (no copy)."""
        if self._pending:
            raise _swingdb.InterfaceError("rows were already fetched one by one; fetch the rest with fetchall()")
        return pa.Table.from_batches(list(self._batches()), schema=self.schema)

    def pl(self):
        """The remaining rows as a ``polars.DataFrame`` (zero-copy through Arrow)."""
        import polars as pl

        return pl.from_arrow(self.arrow(), rechunk=False)

    def df(self):
        """The remaining rows as a ``pandas.DataFrame``.

        Non-null numeric columns become numpy-backed columns that view the
        engine's buffers; other columns (NULLs, strings, dates, decimals) become
        pandas ``ArrowDtype`` columns, which keep NULLs and do not copy.
        """
        import pandas as pd

        from ._convert import pandas_column

        table = self.arrow()
        # Keyed by position: a result may repeat a column name (SELECT a, a).
        data = {i: pandas_column(col, pd) for i, col in enumerate(table.columns)}
        if not data:
            return pd.DataFrame()
        frame = pd.DataFrame(data, copy=False)
        frame.columns = table.column_names
        return frame

    def numpy(self, nulls: str = "mask", writable: bool = False, decimals: str = "float"):
        """The remaining rows as ``{column: numpy array}``.

        Numeric and temporal columns without NULLs are read-only views of the
        engine's buffers. Columns with NULLs become masked arrays
        (``nulls="mask"``, default) or, for floats, NaN-filled arrays
        (``nulls="nan"``). Booleans are bit-packed in Arrow, so they are
        converted (copied) to numpy bools; strings become object arrays.

        DECIMAL columns become float64 (numpy has no decimal type; DuckDB does the
        same), or exact ``decimal.Decimal`` objects with ``decimals="object"``.

        With ``writable=True`` every array may be written to: views of stored
        data become private copy-on-write mappings of the same file pages, so
        writes stay in this process and the database files never change.
        """
        from ._convert import numpy_column, private_copy_on_write

        table = self.arrow()
        arrays = {name: numpy_column(col, nulls, decimals) for name, col in zip(table.column_names, table.columns)}
        if writable:
            arrays = {name: private_copy_on_write(arr) for name, arr in arrays.items()}
        return arrays

    # -- display -------------------------------------------------------------
    def _preview(self):
        """Up to _SHOW_ROWS rows (consumes the result) and whether there were more."""
        batches, rows = [], 0
        for batch in self._batches():
            batches.append(batch)
            rows += batch.num_rows
            if rows > _SHOW_ROWS:
                break
        table = pa.Table.from_batches(batches, schema=self.schema)
        return table.slice(0, _SHOW_ROWS), table.num_rows > _SHOW_ROWS

    def show(self) -> None:
        """Prints up to 20 rows as an aligned table."""
        print(self._render_text())

    def _render_text(self) -> str:
        from ._convert import format_table

        table, more = self._preview()
        return format_table(table, more)

    def __repr__(self) -> str:
        if self._native is None and self._reader is None:
            return "<swingdb.Result (consumed)>"
        return self._render_text()

    def _repr_html_(self) -> str:
        table, more = self._preview()
        head = "".join(f"<th>{html.escape(n)}<br><small>{html.escape(str(t))}</small></th>" for n, t in zip(table.column_names, table.schema.types))
        body = []
        for row in zip(*[c.to_pylist() for c in table.columns]):
            cells = "".join(f"<td>{'NULL' if v is None else html.escape(str(v))}</td>" for v in row)
            body.append(f"<tr>{cells}</tr>")
        more_note = f"<p>first {_SHOW_ROWS} rows shown</p>" if more else ""
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more_note}"
