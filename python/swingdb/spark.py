"""swingdb as an Apache Spark data source (Spark 4's Python Data Source API),
moving Arrow batches, never CSV or rows one by one:

- ``spark.read.format("swingdb").option("pipe", "db://HOST:PORT/NAME").load()``
  reads a pipe a swingdb process exports (``COPY t TO 'db://HOST:PORT/NAME?workers=4'``):
  one Spark partition per pipe worker, each fetched by its own task over
  Arrow Flight.
- ``spark.read.format("swingdb").option("url", "grpc://HOST:PORT").option("query", SQL)``
  (or ``.option("table", NAME)``) reads a query's result from a ``swingdb serve``
  server: one Spark partition per endpoint of the result (``swingdb serve
  --endpoints N`` offers a long result without ORDER BY as N), each fetched
  by its own task through ADBC.
- ``df.write.format("swingdb").option("url", "grpc://HOST:PORT").option("table", "t")``
  ``.mode("append" | "overwrite").save()`` writes into a table of a
  ``swingdb serve`` server: every task uploads its batches (Flight SQL bulk
  ingest) into a staging table of its own, and the job's commit moves them
  all into the table in one statement, so the table gets every row or none.

The token comes from ``.option("token", ...)`` or ``$SWINGDB_TOKEN``.

    from swingdb.spark import register
    register(spark)
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    InputPartition,
    WriterCommitMessage,
)

__all__ = ["SwingdbDataSource", "register"]


def register(spark) -> None:
    """Makes ``format("swingdb")`` known to `spark`'s session."""
    spark.dataSource.register(SwingdbDataSource)


def _token(options: dict) -> str:
    token = options.get("token") or os.environ.get("SWINGDB_TOKEN")
    if not token:
        raise ValueError("swingdb: give .option('token', ...) or set $SWINGDB_TOKEN (the server's or pipe's token)")
    return token


def _pipe_address(url: str) -> tuple[str, str]:
    """('grpc://HOST:PORT', NAME) of a pipe URL db://HOST:PORT/NAME[?options]."""
    if not url.lower().startswith("db://") or "/" not in url[5:]:
        raise ValueError(f"swingdb: pipe {url!r} is not db://HOST:PORT/NAME")
    address, name = url[5:].split("?", 1)[0].split("/", 1)
    return f"grpc://{address}", name


def _pipe_timeout(url: str) -> float:
    """The seconds a pipe URL's `timeout=` gives the partner to arrive (60 by
    default, `none`: for ever)."""
    query = url.split("?", 1)[1] if "?" in url else ""
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if key == "timeout":
            return float("inf") if value.lower() == "none" else float(value)
    return 60.0


@dataclass(frozen=True)
class _Stream(InputPartition):
    """One pipe worker's stream: a Flight ticket."""

    ticket: bytes


class SwingdbDataSource(DataSource):
    """The ``swingdb`` format (see the module's documentation)."""

    @classmethod
    def name(cls) -> str:
        return "swingdb"

    def _claim(self):
        """Claims the rows (once): their schema and one ticket per stream."""
        if getattr(self, "_claimed", None) is None:
            if "pipe" in self.options:
                self._claimed = self._claim_pipe()
            elif "url" in self.options and ("query" in self.options or "table" in self.options):
                self._claimed = self._claim_query()
            else:
                raise ValueError(
                    "swingdb: reading takes .option('pipe', 'db://HOST:PORT/NAME'), or .option('url', "
                    "'grpc://HOST:PORT') with .option('query', SQL) or .option('table', NAME)"
                )
        return self._claimed

    def _claim_pipe(self):
        """Claims the pipe, waiting for its exporter as swingdb's importers do:
        either side may come first, up to the pipe's `timeout=` (60 s)."""
        import pyarrow.flight as flight

        location, name = _pipe_address(self.options["pipe"])
        client = flight.FlightClient(location)
        headers = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {_token(self.options)}".encode())])
        deadline = time.monotonic() + _pipe_timeout(self.options["pipe"])
        while True:
            try:
                info = client.get_flight_info(flight.FlightDescriptor.for_path(name), headers)
                return info.schema, [e.ticket.ticket for e in info.endpoints]
            except flight.FlightUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _claim_query(self):
        """Runs the query on the server, once: one partition per endpoint of its result."""
        sql = self.options.get("query") or f"SELECT * FROM {_quoted(self.options['table'])}"
        with _connect(self.options["url"], _token(self.options)) as con, con.cursor() as cur:
            partitions, schema = cur.adbc_execute_partitions(sql)
        return schema, partitions

    def schema(self):
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(self._claim()[0])

    def reader(self, schema):
        _, tickets = self._claim()
        if "pipe" in self.options:
            return _PipeReader(self.options["pipe"], _token(self.options), tickets)
        return _ResultReader(self.options["url"], _token(self.options), tickets)

    def writer(self, schema, overwrite: bool):
        return _TableWriter(dict(self.options), overwrite)


class _PipeReader(DataSourceReader):
    def __init__(self, pipe: str, token: str, tickets: list[bytes]):
        self.location, _ = _pipe_address(pipe)
        self.token = token
        self.tickets = tickets

    def partitions(self):
        return [_Stream(t) for t in self.tickets]

    def read(self, partition: _Stream):
        import pyarrow.flight as flight

        client = flight.FlightClient(self.location)
        headers = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {self.token}".encode())])
        reader = client.do_get(flight.Ticket(partition.ticket), headers)
        while True:
            try:
                chunk = reader.read_chunk()
            except StopIteration:
                return
            if chunk.data is None:  # the stream's trailer: rows and checksum, no rows
                return
            yield chunk.data


class _ResultReader(DataSourceReader):
    """The endpoints of a query's result on `swingdb serve`, a task each."""

    def __init__(self, url: str, token: str, partitions: list[bytes]):
        self.url, self.token, self.streams = url, token, partitions

    def partitions(self):
        return [_Stream(p) for p in self.streams]

    def read(self, partition: _Stream):
        with _connect(self.url, self.token) as con, con.cursor() as cur:
            cur.adbc_read_partition(partition.ticket)
            yield from cur.fetch_record_batch()


@dataclass
class _Staged(WriterCommitMessage):
    """A task's rows, uploaded into a staging table."""

    table: str


class _TableWriter(DataSourceArrowWriter):
    def __init__(self, options: dict, overwrite: bool):
        if "url" not in options or "table" not in options:
            raise ValueError("swingdb: writing takes .option('url', 'grpc://HOST:PORT') and .option('table', NAME)")
        self.url, self.table, self.overwrite = options["url"], options["table"], overwrite
        self.token = _token(options)
        self.job = uuid.uuid4().hex[:12]

    def _connect(self, autocommit=True):
        return _connect(self.url, self.token, autocommit)

    def write(self, iterator):
        import pyarrow as pa
        from pyspark import TaskContext

        staging = f"__spark_{self.job}_{TaskContext.get().partitionId()}_{TaskContext.get().attemptNumber()}"
        batches = iter(iterator)
        first = next(batches, None)
        if first is None:
            return _Staged("")
        data = pa.RecordBatchReader.from_batches(first.schema, _chain(first, batches))
        with self._connect() as con, con.cursor() as cur:
            cur.adbc_ingest(staging, data, mode="create")
        return _Staged(staging)

    def commit(self, messages):
        staged = [m.table for m in messages if m is not None and m.table]
        quoted = _quoted(self.table)
        union = " UNION ALL ".join(f"SELECT * FROM {_quoted(s)}" for s in staged)
        try:
            # One transaction: the table's new rows and the staging tables' drop land together.
            with self._connect(autocommit=False) as con, con.cursor() as cur:
                if union and (self.overwrite or not _exists(con, self.table)):
                    cur.execute(f"CREATE OR REPLACE TABLE {quoted} AS {union}")
                elif union:
                    cur.execute(f"INSERT INTO {quoted} {union}")
                elif self.overwrite and _exists(con, self.table):
                    cur.execute(f"DELETE FROM {quoted}")
                _drop(cur, staged)
                con.commit()
        except Exception:
            self.abort(messages)
            raise

    def abort(self, messages):
        staged = [m.table for m in messages if m is not None and m.table]
        with self._connect() as con, con.cursor() as cur:
            _drop(cur, staged)


def _connect(url: str, token: str, autocommit: bool = True):
    """An ADBC connection to `swingdb serve` at `url`."""
    import adbc_driver_flightsql.dbapi as flightsql

    options = {"adbc.flight.sql.authorization_header": f"Bearer {token}"}
    return flightsql.connect(url, db_kwargs=options, autocommit=autocommit)


def _chain(first, rest):
    yield first
    yield from rest


def _quoted(name: str) -> str:
    """`name` as an SQL identifier, whatever it holds."""
    return '"' + name.replace('"', '""') + '"'


def _exists(con, table: str) -> bool:
    """Whether the server has `table` (asked through the catalog call, not SQL)."""
    import adbc_driver_manager

    try:
        con.adbc_get_table_schema(table)
        return True
    except adbc_driver_manager.Error:
        return False


def _drop(cur, tables: list[str]) -> None:
    for t in tables:
        cur.execute(f"DROP TABLE IF EXISTS {_quoted(t)}")
