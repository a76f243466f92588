"""Pipes: tables moved between processes as Arrow streams, never as CSV files.

Two ends meet by name (either may come first; each waits for the other, for
``timeout`` seconds, 60 by default)::

    # process A                                   # process B
    con.pipe_to("sales", "orders")                con.pipe_from("sales", "orders_copy")
    con.sql("COPY orders TO 'db://sales'")        con.sql("CREATE TABLE o AS SELECT * FROM 'db://sales'")

Any Arrow tool is an end too: :func:`reader` gives a ``pyarrow.RecordBatchReader``
(DuckDB, polars and pyarrow read it), :func:`writer` and :func:`send` take their
Arrow output::

    >>> import threading, pyarrow as pa, swingdb
    >>> data = pa.table({"id": [1, 2, 3]})
    >>> t = threading.Thread(target=swingdb.pipe.send, args=("doc-pipe", data)); t.start()
    >>> swingdb.pipe.reader("doc-pipe").read_all().column("id").to_pylist()
    [1, 2, 3]
    >>> t.join()

Options (keywords here, ``?key=value`` in a ``db://`` URL): ``workers`` (parallel
streams; the larger count of both ends is used), ``compression`` (``"lz4"`` or
``"zstd"``), ``verify`` (checksum every stream on both ends), ``timeout``
(seconds to wait for the partner, ``None`` for ever).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import _swingdb
from ._extras import need
from .result import Result

if TYPE_CHECKING:
    import pyarrow as pa

_UNSET = object()


def _options(workers=None, compression=None, verify=None, timeout=_UNSET) -> list[tuple[str, str]]:
    """Keyword options as the ``(key, value)`` pairs the engine takes."""
    pairs = []
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int):
            raise _swingdb.ProgrammingError(f"workers must be an integer, not {workers!r}")
        pairs.append(("workers", str(workers)))
    if compression is not None:
        pairs.append(("compression", str(compression)))
    if verify is not None:
        pairs.append(("verify", "1" if verify else "0"))
    if timeout is not _UNSET:
        pairs.append(("timeout", "none" if timeout is None else str(float(timeout))))
    return pairs


def reader(name: str, **options) -> pa.RecordBatchReader:
    """Waits for the exporter of pipe ``name`` and returns its rows as a
    ``pyarrow.RecordBatchReader`` (read once, as they arrive)."""
    return Result(_swingdb.pipe_reader(name, _options(**options))).fetch_record_batch()


class Writer:
    """The exporting end of a pipe fed from Python (see :func:`writer`)."""

    def __init__(self, native, schema: pa.Schema):
        self._native = native
        self.schema = schema
        self.rows = 0

    def write(self, data) -> Writer:
        """Sends ``data``: a pyarrow Table / RecordBatch / RecordBatchReader, a
        polars DataFrame, a DuckDB result, or anything with ``__arrow_c_stream__``.
        Batches are sent as they are read; a slow importer makes this wait."""
        pa = need("pyarrow", "pyarrow", "swingdb.pipe.Writer.write()")
        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if not hasattr(data, "__arrow_c_stream__"):
            raise _swingdb.ProgrammingError(f"cannot send {type(data).__name__}; pass Arrow data (__arrow_c_stream__)")
        self.rows += self._native.write(data)
        return self

    def close(self) -> int:
        """Ends the transfer and waits for the importer to confirm it; the rows it took."""
        return self._native.close()

    def abort(self, why: str = "the exporting program gave up") -> None:
        """Ends the transfer as failed: the importer raises and keeps nothing."""
        self._native.abort(why)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.abort(f"the exporting program failed: {exc_type.__name__}: {exc}")
        return False


def writer(name: str, schema, **options) -> Writer:
    """Waits for the importer of pipe ``name`` and returns a :class:`Writer` for
    rows of ``schema`` (a ``pyarrow.Schema`` or anything with ``__arrow_c_schema__``)."""
    schema = need("pyarrow", "pyarrow", "swingdb.pipe.writer()").schema(schema)
    return Writer(_swingdb.PipeWriter(name, schema, _options(**options)), schema)


def send(name: str, data, **options) -> int:
    """Sends ``data`` (Arrow data, see :meth:`Writer.write`) into pipe ``name`` and
    waits for the importer to confirm; returns the rows it took."""
    pa = need("pyarrow", "pyarrow", "swingdb.pipe.send()")
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    stream = pa.RecordBatchReader.from_stream(data)
    with writer(name, stream.schema, **options) as w:
        w.write(stream)
    return w.rows


@dataclass(frozen=True)
class Waiting:
    """One end of a pipe waiting for its partner."""

    name: str
    #: ``"export"`` or ``"import"``.
    role: str
    pid: int
    #: Seconds it has waited.
    waited: float


def waiting() -> list[Waiting]:
    """The ends of pipes of this user now waiting for a partner, oldest first."""
    return [Waiting(*w) for w in _swingdb.pipes_waiting()]
