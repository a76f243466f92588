"""Query results, handed to pyarrow / numpy / pandas / polars without copying."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _swingdb, display
from ._extras import need
from .relation import Composable, Relation, SqlType

if TYPE_CHECKING:
    import pyarrow as pa


class Result(Composable):
    """The rows of one statement.

    Rows arrive as Arrow batches straight from the engine and are kept as
    they are read, so a result can be read any number of times and in any
    form: printed (``show()``, the notebook view), then fetched as Python
    tuples (``fetchone``/``fetchmany``/``fetchall``) or taken whole as
    ``numpy()`` (dict of arrays), ``arrow()`` (pyarrow.Table), ``df()``
    (pandas) or ``pl()`` (polars). The statement runs once; what is kept are
    the engine's own arrays, which for stored tables are the memory-mapped
    segment files themselves, so keeping them copies nothing, and every whole
    form shares that memory. Python rows need no other package; each whole
    form needs its own (the error says which extra installs it).

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
        self.rows_affected = native.rows_affected
        self.sql_types: list[str] = native.sql_types()
        self._columns: list[str] = native.names()
        self._position = 0  # the next row fetchone/fetchmany/fetchall return
        self._exhausted = False  # the last fetch reached the end
        self._restarts = restarts  # fetching starts over after the end (else it stays there, as a DB-API cursor)
        self._table = None  # the pyarrow.Table of arrow(), once made

    # -- metadata -----------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """Column names."""
        return self._columns

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema (a ``pyarrow.Schema``; needs pyarrow)."""
        return need("pyarrow", "pyarrow", "Result.schema").schema(self._native)

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
        return [(n, t, None, None, None, None, null_ok) for n, t, null_ok in zip(self._columns, self.sql_types, self._native.nullable())]

    # -- reading -------------------------------------------------------------
    def _keep_until(self, rows: int | None) -> int:
        """Reads and keeps batches until at least `rows` rows are kept (None:
        all); returns the rows kept."""
        return self._native.keep(rows)

    def fetch_record_batch(self, rows_per_batch: int = 1_000_000) -> pa.RecordBatchReader:
        """A ``pyarrow.RecordBatchReader`` over every row, in batches of at most
        ``rows_per_batch`` rows, computed as they are read: rows not read
        before pass through without being kept (results larger than memory
        stream), so afterwards the result cannot be read again unless it had
        been read whole before."""
        pa = need("pyarrow", "pyarrow", "fetch_record_batch()")
        if isinstance(rows_per_batch, bool) or not isinstance(rows_per_batch, int) or rows_per_batch < 1:
            raise _swingdb.ProgrammingError(f"rows_per_batch must be a positive integer, not {rows_per_batch!r}")
        native = self._native

        def batches():
            yield from pa.RecordBatchReader.from_stream(native.kept())
            while (batch := native.take_batch()) is not None:
                yield from pa.RecordBatchReader.from_stream(batch)

        def sliced():
            for batch in batches():
                for offset in range(0, batch.num_rows, rows_per_batch):
                    yield batch.slice(offset, rows_per_batch)

        return pa.RecordBatchReader.from_batches(self.schema, sliced())

    def __arrow_c_stream__(self, requested_schema=None):
        """Arrow PyCapsule stream export (streams, see ``fetch_record_batch``)."""
        return self._native.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        return self._native.__arrow_c_schema__()

    # -- Python rows -------------------------------------------------------
    def fetchmany(self, size: int = 1):
        """The next ``size`` rows as a list of tuples (``[]`` after the last)."""
        if self._exhausted:
            self._exhausted = False
            if self._restarts:
                self._position = 0
        kept = self._keep_until(None if size is None else self._position + size)
        count = kept - self._position if size is None else min(size, kept - self._position)
        rows = self._native.rows(self._position, max(count, 0))
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
    def _read_whole(self) -> None:
        """Reads and keeps every row, one array per column where the engine
        computed many batches (when nothing was read before)."""
        self._native.read_whole()
        self._keep_until(None)

    def arrow(self) -> pa.Table:
        """Every row as a ``pyarrow.Table`` whose buffers are the engine's (no copy)."""
        if self._table is None:
            pa = need("pyarrow", "pyarrow", "arrow()")
            self._read_whole()
            self._table = pa.table(self._native.kept())
        return self._table

    def pl(self):
        """Every row as a ``polars.DataFrame`` (zero-copy through Arrow)."""
        pl = need("polars", "polars", "pl()")
        self._read_whole()
        return pl.DataFrame(self._native.kept())

    def df(self):
        """Every row as a ``pandas.DataFrame``.

        Non-null numeric columns become numpy-backed columns that view the
        engine's buffers; other columns (NULLs, strings, dates, decimals) become
        pandas ``ArrowDtype`` columns, which keep NULLs and do not copy.
        """
        pd = need("pandas", "pandas", "df()")
        need("pyarrow", "pandas", "df()")
        from ._convert import pandas_column

        table = self.arrow()
        # Keyed by position: a result may repeat a column name (SELECT a, a).
        data = {i: pandas_column(self._native.column(i), col, pd) for i, col in enumerate(table.columns)}
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
        need("numpy", "numpy", "numpy()")
        from ._convert import numpy_column, private_copy_on_write

        self._read_whole()
        arrays = {name: numpy_column(self._native.column(i), nulls, decimals) for i, name in enumerate(self._columns)}
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
        pq = need("pyarrow.parquet", "pyarrow", "write_parquet()")
        pq.write_table(self.arrow(), path, **options)

    def write_csv(self, path, **options) -> None:
        """Writes every row to a CSV file at `path`, with a header (pyarrow's writer; `options` go to it)."""
        pcsv = need("pyarrow.csv", "pyarrow", "write_csv()")
        pcsv.write_csv(self.arrow(), path, **options)

    # -- display -------------------------------------------------------------
    def _preview(self):
        """The rows a view shows; reads (and keeps) the result up to display.MAX_COUNTED rows to count it."""
        kept = self._keep_until(display.MAX_COUNTED + 1)
        return display.preview(self._native, self._columns, kept, self._native.complete)

    def show(self, width: int | None = None) -> None:
        """Prints the result as an aligned table: the first and last 10 rows
        of a longer one, columns cut to the terminal's (or `width`) width,
        saying how many rows and columns were left out."""
        print(display.text(self._preview(), self.sql_types, width))

    def __repr__(self) -> str:
        if self._native.streamed:
            return "<swingdb.Result (streamed out)>"
        return display.text(self._preview(), self.sql_types)

    def _repr_html_(self) -> str:
        return display.html_table(self._preview(), self.sql_types)
