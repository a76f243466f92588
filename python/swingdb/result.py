"""Query results, handed to pyarrow / numpy / pandas / polars without copying."""

from __future__ import annotations

import pyarrow as pa

from . import _swingdb, display
from ._convert import numpy_column, pandas_column, private_copy_on_write
from .relation import Composable, Relation, SqlType


class Result(Composable):
    """The rows of one statement.

    Rows arrive as an Arrow stream straight from the engine and are kept as
    they are read, so a result can be read any number of times and in any
    form: printed (``show()``, the notebook view), then fetched as Python
    tuples (``fetchone``/``fetchmany``/``fetchall``) or taken whole as
    ``arrow()`` (pyarrow.Table), ``df()`` (pandas), ``pl()`` (polars) or
    ``numpy()`` (dict of arrays). The statement runs once; what is kept are
    the engine's own arrays, which for stored tables are the memory-mapped
    segment files themselves, so keeping them copies nothing, and every whole
    form shares that memory.

    ``fetchone``/``fetchmany``/``fetchall`` walk the rows like a DB-API cursor;
    once they have reported the end (``fetchall``, or ``None``/``[]``), the
    next fetch starts over from the first row (as a DuckDB relation re-runs;
    a DB-API cursor stays at the end). The whole forms always give every
    row, whatever was fetched. Only streaming out (``fetch_record_batch()`` or
    the Arrow stream protocol) passes rows on without keeping them, so that a
    result larger than memory streams through; after that, the result can no
    longer be read again (run the query again).
    """

    def __init__(self, native, restarts: bool = True, origin=None):
        self._native = native
        self._origin = origin  # (connection, query, params, keep) it came from, to build relations on
        self._errors = native  # keeps the error that ends the stream, with its DB-API class
        self.rows_affected = native.rows_affected
        self.schema: pa.Schema = pa.schema(native)
        self.sql_types: list[str] = native.sql_types()
        self._reader: pa.RecordBatchReader | None = None
        self._kept: list[pa.RecordBatch] = []  # every batch read so far, in order
        self._complete = False  # all batches are kept
        self._streamed = False  # rows were passed on without being kept
        self._position = 0  # the next row fetchone/fetchmany/fetchall return
        self._exhausted = False  # the last fetch reached the end
        self._restarts = restarts  # fetching starts over after the end (else it stays there, as a DB-API cursor)
        self._table: pa.Table | None = None

    # -- metadata -----------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """Column names."""
        return self.schema.names

    @property
    def types(self) -> list[SqlType]:
        """SQL column types (``BIGINT``, ``VARCHAR``), as DuckDB's ``types``;
        ``schema.types`` has the Arrow types."""
        return [SqlType(t) for t in self.sql_types]

    @property
    def dtypes(self) -> list[SqlType]:
        """The same as :attr:`types`."""
        return self.types

    @property
    def description(self):
        """DB-API ``description``: (name, type_code, None, None, None, None, null_ok),
        type_code being the SQL type name (``BIGINT``, ``DECIMAL(10,2)``, ``VARCHAR``)."""
        if not self.columns:
            return None
        return [(f.name, t, None, None, None, None, f.nullable) for f, t in zip(self.schema, self.sql_types)]

    # -- reading -------------------------------------------------------------
    def _stream(self) -> pa.RecordBatchReader:
        if self._reader is None:
            self._reader = pa.RecordBatchReader.from_stream(self._native)
            self._native = None
        return self._reader

    def _next_batch(self, streaming: bool = False) -> pa.RecordBatch | None:
        """The next batch from the engine, or None at the end (`streaming`: for
        a stream that passes rows on)."""
        if self._streamed and not streaming:
            raise _swingdb.InterfaceError("this result was streamed out (fetch_record_batch or the Arrow stream protocol), which does not keep rows; run the query again")
        if self._complete:
            return None
        try:
            return self._stream().read_next_batch()
        except StopIteration:
            self._complete = True
            return None
        except pa.ArrowException as error:
            raise self._dbapi_error(error) from None

    def _keep_until(self, rows: int | None) -> None:
        """Reads and keeps batches until at least `rows` rows are kept (None: all)."""
        kept = sum(b.num_rows for b in self._kept)
        while rows is None or kept < rows:
            batch = self._next_batch()
            if batch is None:
                return
            self._kept.append(batch)
            kept += batch.num_rows

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
        """A ``pyarrow.RecordBatchReader`` over every row, in batches of at most
        ``rows_per_batch`` rows, computed as they are read: rows not read
        before pass through without being kept (results larger than memory
        stream), so afterwards the result cannot be read again unless it had
        been read whole before."""
        if isinstance(rows_per_batch, bool) or not isinstance(rows_per_batch, int) or rows_per_batch < 1:
            raise _swingdb.ProgrammingError(f"rows_per_batch must be a positive integer, not {rows_per_batch!r}")

        def batches():
            yield from list(self._kept)
            while (batch := self._next_batch(streaming=True)) is not None:
                self._streamed = True
                yield batch

        def sliced():
            for batch in batches():
                for offset in range(0, batch.num_rows, rows_per_batch):
                    yield batch.slice(offset, rows_per_batch)

        return pa.RecordBatchReader.from_batches(self.schema, sliced())

    def __arrow_c_stream__(self, requested_schema=None):
        """Arrow PyCapsule stream export (streams, see ``fetch_record_batch``)."""
        return self.fetch_record_batch().__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self.schema.__arrow_c_schema__()

    # -- Python rows -------------------------------------------------------
    def fetchmany(self, size: int = 1):
        """The next ``size`` rows as a list of tuples (``[]`` after the last)."""
        if self._exhausted:
            self._exhausted = False
            if self._restarts:
                self._position = 0
        self._keep_until(None if size is None else self._position + size)
        rows = []
        skip = self._position
        for batch in self._kept:
            if size is not None and len(rows) >= size:
                break
            if skip >= batch.num_rows:
                skip -= batch.num_rows
                continue
            take = batch.num_rows - skip if size is None else min(batch.num_rows - skip, size - len(rows))
            columns = [c.to_pylist() for c in batch.slice(skip, take).columns]
            rows.extend(zip(*columns) if columns else [()] * take)
            skip = 0
        self._position += len(rows)
        # The end was reached: the next fetch starts over (a result) or stays there (a cursor).
        self._exhausted = size is None or not rows
        return rows

    def fetchone(self):
        """The next row as a tuple, or None after the last."""
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchall(self):
        """The rows not fetched yet (all of them, unless fetchone/fetchmany took some)."""
        return self.fetchmany(None)

    def __iter__(self):
        while rows := self.fetchmany(1):
            yield rows[0]

    # -- whole results -----------------------------------------------------
    def arrow(self) -> pa.Table:
        """Every row as a ``pyarrow.Table`` whose buffers are the engine's (no copy)."""
        if self._table is None:
            if self._native is not None and not self._kept:
                self._native.read_whole()  # one array per column where the engine computed many batches
            self._keep_until(None)
            self._table = pa.Table.from_batches(self._kept, schema=self.schema)
        return self._table

    def pl(self):
        """Every row as a ``polars.DataFrame`` (zero-copy through Arrow)."""
        import polars as pl

        return pl.from_arrow(self.arrow(), rechunk=False)

    def df(self):
        """Every row as a ``pandas.DataFrame``.

        Non-null numeric columns become numpy-backed columns that view the
        engine's buffers; other columns (NULLs, strings, dates, decimals) become
        pandas ``ArrowDtype`` columns, which keep NULLs and do not copy.
        """
        import pandas as pd

        table = self.arrow()
        # Keyed by position: a result may repeat a column name (SELECT a, a).
        data = {i: pandas_column(col, pd) for i, col in enumerate(table.columns)}
        if not data:
            return pd.DataFrame()
        frame = pd.DataFrame(data, copy=False)
        frame.columns = table.column_names
        return frame

    def numpy(self, nulls: str = "mask", writable: bool = False, decimals: str = "float"):
        """Every row as ``{column: numpy array}``.

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
        table = self.arrow()
        arrays = {name: numpy_column(col, nulls, decimals) for name, col in zip(table.column_names, table.columns)}
        if writable:
            arrays = {name: private_copy_on_write(arr) for name, arr in arrays.items()}
        return arrays

    # DuckDB's names for the whole forms.
    fetchnumpy = numpy
    fetchdf = fetch_df = df
    fetch_arrow_table = arrow

    # -- composing and storing (see relation.py) ----------------------------
    def _relation(self) -> Relation:
        if self._origin is None:
            raise _swingdb.InterfaceError("this result has no query to build on (a cursor's); use con.sql(...) or con.table(...)")
        connection, query, params, keep = self._origin
        return Relation(connection, query, params, keep=keep)

    def to_table(self, name: str) -> None:
        """Stores every row as the new table `name` (taken as it is, never as SQL)."""
        if self._origin is None:
            raise _swingdb.InterfaceError("this result has no connection to store into; use con.create_table(name, result)")
        self._origin[0].create_table(name, self.arrow(), progress=False)

    def write_parquet(self, path, **options) -> None:
        """Writes every row to a Parquet file at `path` (pyarrow's writer; `options` go to it)."""
        import pyarrow.parquet as pq

        pq.write_table(self.arrow(), path, **options)

    def write_csv(self, path, **options) -> None:
        """Writes every row to a CSV file at `path`, with a header (pyarrow's writer; `options` go to it)."""
        import pyarrow.csv as pcsv

        pcsv.write_csv(self.arrow(), path, **options)

    # -- display -------------------------------------------------------------
    def _preview(self):
        """The rows a view shows; reads (and keeps) the result up to display.MAX_COUNTED rows to count it."""
        self._keep_until(display.MAX_COUNTED + 1)
        return display.preview(self._kept, self.schema, self._complete)

    def show(self, width: int | None = None) -> None:
        """Prints the result as an aligned table: the first and last 10 rows
        of a longer one, columns cut to the terminal's (or `width`) width,
        saying how many rows and columns were left out."""
        print(display.text(self._preview(), self.sql_types, width))

    def __repr__(self) -> str:
        if self._streamed:
            return "<swingdb.Result (streamed out)>"
        return display.text(self._preview(), self.sql_types)

    def _repr_html_(self) -> str:
        return display.html_table(self._preview(), self.sql_types)
