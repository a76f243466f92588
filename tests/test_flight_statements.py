"""`swingdb serve` beyond single statements: prepared statements with
parameters, transactions across statements, cancelling a query, a large
result as several endpoints, streamed uploads, and the XDBC type list, through
ADBC's Flight SQL driver and pyarrow's Flight client (both from PyPI)."""

import signal
import threading
import time

import pytest

flightsql = pytest.importorskip("adbc_driver_flightsql.dbapi", reason="adbc-driver-flightsql is in requirements-dev.txt")
import adbc_driver_manager  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.flight as flight  # noqa: E402
from conftest import FLIGHT_TOKEN, protobuf_field  # noqa: E402

BEARER = {"adbc.flight.sql.authorization_header": f"Bearer {FLIGHT_TOKEN}"}
HEADERS = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {FLIGHT_TOKEN}".encode())])


def _connect(uri, autocommit=True):
    return flightsql.connect(uri, db_kwargs=BEARER, autocommit=autocommit)


def _command(name, body=b""):
    type_url = f"type.googleapis.com/arrow.flight.protocol.sql.{name}".encode()
    any_ = protobuf_field(1, type_url) + protobuf_field(2, body)
    return flight.FlightDescriptor.for_command(any_)


def _statement(sql):
    return _command("CommandStatementQuery", protobuf_field(1, sql.encode()))


def _read_all(client, info):
    return pa.concat_tables(client.do_get(e.ticket, HEADERS).read_all() for e in info.endpoints)


def test_prepared_statements_take_parameters_and_run_once_per_set(flight_server):
    uri = flight_server()
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE p (id BIGINT PRIMARY KEY, name VARCHAR)")
        cur.executemany("INSERT INTO p VALUES (?, ?)", [(1, "a"), (2, "b"), (3, None)])
        cur.execute("SELECT name FROM p WHERE id >= ? ORDER BY id", (2,))
        assert cur.fetchall() == [("b",), (None,)]
        cur.execute("SELECT name FROM p WHERE id >= ? ORDER BY id", (3,))  # the same statement, new values
        assert cur.fetchall() == [(None,)]
        # A value is a value, never SQL.
        cur.execute("SELECT ? || '!' AS s, ? + 1 AS n", ("it's'; DROP TABLE p; --", 41))
        assert cur.fetchone() == ("it's'; DROP TABLE p; --!", 42)
        # Preparing describes without running: the parameters' types come from the table.
        schema = cur.adbc_prepare("SELECT name FROM p WHERE id = ?")
        assert schema is not None and [str(f.type) for f in schema] == ["int64"]
        assert cur.adbc_prepare("INSERT INTO p VALUES (?, ?)").types == [pa.int64(), pa.string()]
        cur.execute("SELECT count(*) FROM p")
        assert cur.fetchone() == (3,), "preparing the INSERT inserted nothing"
        # Several parameter sets are one statement: a duplicate key fails them all. (ADBC's
        # Go driver has no gRPC code that it reports as IntegrityError: the message tells.)
        with pytest.raises(adbc_driver_manager.Error, match="duplicate key"):
            cur.executemany("INSERT INTO p VALUES (?, ?)", [(10, "x"), (1, "dup")])
        cur.execute("SELECT count(*) FROM p")
        assert cur.fetchone() == (3,)
        # Preparing a wrong statement names what is wrong, as running it would.
        with pytest.raises(adbc_driver_manager.Error, match="nope"):
            cur.execute("SELECT * FROM nope WHERE x = ?", (1,))


def test_point_reads_by_key_see_their_transactions_writes_and_others_commits(flight_server):
    # A point read by key is answered where the call is served, not on a
    # blocking thread: the same rows, in or out of a transaction.
    uri = flight_server()
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE k (id BIGINT PRIMARY KEY, v VARCHAR)")
        cur.executemany("INSERT INTO k VALUES (?, ?)", [(i, f"v{i}") for i in range(100)])
    a, b = _connect(uri, autocommit=False), _connect(uri)
    point = "SELECT v FROM k WHERE id = ?"
    try:
        with a.cursor() as ca, b.cursor() as cb:
            for key, rows in [(42, [("v42",)]), (1000, []), (None, [])]:
                cb.execute(point, (key,))
                assert cb.fetchall() == rows, key
            ca.execute("UPDATE k SET v = 'new' WHERE id = 42")
            ca.execute(point, (42,))
            assert ca.fetchall() == [("new",)], "a transaction reads its own write"
            cb.execute(point, (42,))
            assert cb.fetchall() == [("v42",)], "others do not, before it commits"
            a.commit()
            cb.execute(point, (42,))
            assert cb.fetchall() == [("new",)]
    finally:
        a.close()
        b.close()


def test_preparing_a_statement_that_reads_a_pipe_does_not_claim_it(flight_server):
    # Describing a statement plans it; planning a pipe read would meet the
    # exporter. A prepared read of a pipe nobody exports must come back at
    # once (not wait for the pipe's exporter) and describe nothing.
    uri = flight_server()
    with _connect(uri) as con, con.cursor() as cur:
        started = time.monotonic()
        assert cur.adbc_prepare("SELECT * FROM 'db://nobody_exports_this?timeout=30'") is None
        assert time.monotonic() - started < 10


def test_transactions_span_statements_and_commit_or_roll_back(flight_server):
    uri = flight_server()
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE acct (id BIGINT, v BIGINT)")
        cur.execute("INSERT INTO acct VALUES (1, 100)")
    a, b = _connect(uri, autocommit=False), _connect(uri, autocommit=False)
    try:
        with a.cursor() as ca, b.cursor() as cb:
            ca.execute("UPDATE acct SET v = v - 30 WHERE id = 1")
            ca.execute("INSERT INTO acct VALUES (2, 30)")
            ca.execute("SELECT count(*), sum(v) FROM acct")
            assert ca.fetchone() == (2, 100), "a transaction reads its own writes"
            cb.execute("SELECT count(*), sum(v) FROM acct")
            assert cb.fetchone() == (1, 100), "others do not, before it commits"
            a.rollback()
            ca.execute("SELECT count(*), sum(v) FROM acct")
            assert ca.fetchone() == (1, 100)
            ca.execute("INSERT INTO acct VALUES (3, 5)")
            with a.cursor() as ingest:  # (ADBC keeps a cursor that ingested in ingest mode)
                ingest.adbc_ingest("more", pa.table({"x": [1, 2, 3]}), mode="create")
            a.commit()
            b.rollback()  # a new transaction: it sees what committed since
            cb.execute("SELECT count(*), sum(v) FROM acct")
            assert cb.fetchone() == (2, 105)
            cb.execute("SELECT sum(x) FROM more")
            assert cb.fetchone() == (6,)
            # A statement prepared in a transaction that ended runs in its client's new one.
            ca.execute("INSERT INTO acct VALUES (4, 1)")
            a.rollback()
            ca.execute("INSERT INTO acct VALUES (4, 1)")  # the same prepared statement
            a.commit()
            cb.execute("SELECT count(*) FROM acct WHERE id = 4")
            assert cb.fetchone() == (0,), "b's transaction began before a's commit"
            b.commit()
            cb.execute("SELECT count(*) FROM acct WHERE id = 4")
            assert cb.fetchone() == (1,), "once: the rolled-back run is gone"
    finally:
        a.close()
        b.close()


def test_a_query_is_cancelled_while_it_waits_and_while_it_is_fetched(flight_server):
    uri = flight_server()
    client = flight.FlightClient(uri)
    cancel = "CancelFlightInfo"
    # Waiting for its DoGet: dropped.
    info = client.get_flight_info(_statement("SELECT * FROM range(10)"), HEADERS)
    answer = list(client.do_action(flight.Action(cancel, protobuf_field(1, info.serialize())), HEADERS))
    assert answer[0].body.to_pybytes() == b"\x08\x01", "CANCEL_STATUS_CANCELLED"
    with pytest.raises(pa.ArrowKeyError, match="cancelled"):  # pyarrow's NOT_FOUND
        client.do_get(info.endpoints[0].ticket, HEADERS).read_all()
    # Being fetched (the engine computing): interrupted.
    slow = "SELECT sum(a.value * b.value) FROM range(200000) a, range(200000) b"
    info = client.get_flight_info(_statement(slow), HEADERS)
    failure = []

    def fetch():
        try:
            client.do_get(info.endpoints[0].ticket, HEADERS).read_all()
        except flight.FlightError as e:
            failure.append(e)

    # pyarrow turns a CANCELLED answer into a SIGINT of its own process (as if
    # Ctrl-C had cancelled the fetch): noted here instead of interrupting the test.
    interrupted = []
    previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    try:
        fetching = threading.Thread(target=fetch)
        started = time.monotonic()
        fetching.start()
        time.sleep(1)
        list(client.do_action(flight.Action(cancel, protobuf_field(1, info.serialize())), HEADERS))
        fetching.join(60)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert not fetching.is_alive() and failure, "the fetch ended with an error"
    assert "cancel" in str(failure[0]).lower() or "interrupt" in str(failure[0]).lower(), failure
    assert time.monotonic() - started < 30
    # Cancelling what is gone is a clear error.
    with pytest.raises(pa.ArrowKeyError, match="unknown"):
        list(client.do_action(flight.Action(cancel, protobuf_field(1, info.serialize())), HEADERS))


def test_a_large_unordered_result_is_several_endpoints_holding_each_row_once(flight_server):
    uri = flight_server("--endpoints", "4")
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE big AS SELECT value AS id, value * 2 AS twice FROM range(2000000)")
    client = flight.FlightClient(uri)
    info = client.get_flight_info(_statement("SELECT * FROM big"), HEADERS)
    assert len(info.endpoints) == 4
    parts = [None] * 4

    def fetch(i):
        parts[i] = client.do_get(info.endpoints[i].ticket, HEADERS).read_all()

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(p.num_rows for p in parts) == 2_000_000
    ids = pa.concat_tables(parts).column("id").to_numpy()
    assert len(set(ids.tolist())) == 2_000_000, "every row once"
    # An ordered or small result is one endpoint, in order.
    ordered = client.get_flight_info(_statement("SELECT id FROM big ORDER BY id DESC LIMIT 5"), HEADERS)
    assert len(ordered.endpoints) == 1
    assert _read_all(client, ordered).column("id").to_pylist() == [1999999, 1999998, 1999997, 1999996, 1999995]
    small = client.get_flight_info(_statement("SELECT count(*) FROM big"), HEADERS)
    assert len(small.endpoints) == 1
    # ADBC fetches the endpoints (in parallel) into one result.
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("SELECT id FROM big")
        table = cur.fetch_arrow_table()
        assert table.num_rows == 2_000_000 and pa.compute.sum(table.column("id")).as_py() == sum(range(2_000_000))


def test_a_large_upload_is_stored_as_it_arrives_not_held_whole(flight_server):
    uri = flight_server()
    proc = flight_server.process
    rows_per_batch, batches = 1 << 20, 48  # 48 batches of 8 MiB: 384 MiB of int64

    def peak():
        status = open(f"/proc/{proc.pid}/status").read().splitlines()
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) // 1024

    schema = pa.schema([("v", pa.int64())])
    data = pa.RecordBatchReader.from_batches(
        schema, (pa.record_batch([pa.array(range(i * rows_per_batch, (i + 1) * rows_per_batch), pa.int64())], schema=schema)
                 for i in range(batches)))
    before = peak()
    with _connect(uri) as con:
        with con.cursor() as cur:
            assert cur.adbc_ingest("streamed", data, mode="create") == rows_per_batch * batches
        # (Measured before the query below maps the stored table.)
        grown = peak() - before
        with con.cursor() as cur:
            cur.execute("SELECT count(*), max(v) FROM streamed")
            assert cur.fetchone() == (rows_per_batch * batches, rows_per_batch * batches - 1)
    assert grown < 300, f"the server's peak memory grew by {grown} MiB for a 384 MiB upload"


def test_the_xdbc_type_list_and_primary_keys_are_answered(flight_server):
    uri = flight_server()
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE t (a INTEGER, b VARCHAR, c DOUBLE, PRIMARY KEY (b, a))")
    client = flight.FlightClient(uri)
    info = client.get_flight_info(_command("CommandGetXdbcTypeInfo"), HEADERS)
    types = _read_all(client, info).to_pydict()
    assert {"BIGINT", "VARCHAR", "DOUBLE", "DATE", "TIMESTAMP", "BOOLEAN"} <= set(types["type_name"])
    info = client.get_flight_info(_command("CommandGetPrimaryKeys", protobuf_field(3, b"t")), HEADERS)
    keys = _read_all(client, info).to_pydict()
    assert (keys["column_name"], keys["key_sequence"], keys["table_name"]) == (["b", "a"], [1, 2], ["t", "t"])
    info = client.get_flight_info(_command("CommandGetPrimaryKeys", protobuf_field(3, b"no_such_table")), HEADERS)
    assert _read_all(client, info).num_rows == 0


def test_a_client_that_vanishes_mid_query_stops_its_statement(flight_server):
    import os
    import subprocess
    import sys

    uri = flight_server()
    proc = flight_server.process

    def cpu_seconds():
        fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    code = (
        "import adbc_driver_flightsql.dbapi as f, os, sys, threading\n"
        "con = f.connect(sys.argv[1], db_kwargs={'adbc.flight.sql.authorization_header': 'Bearer ' + sys.argv[2]}, autocommit=True)\n"
        "threading.Timer(2, lambda: os._exit(0)).start()\n"
        "cur = con.cursor(); cur.execute('SELECT sum(a.value * b.value) FROM range(300000) a, range(300000) b'); cur.fetchall()\n"
    )
    subprocess.run([sys.executable, "-c", code, uri, FLIGHT_TOKEN], timeout=60)
    time.sleep(1)  # the server notices the closed connection
    before = cpu_seconds()
    time.sleep(2)
    assert cpu_seconds() - before < 0.5, "the server still computes the vanished client's query"


def _rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def test_a_client_that_asks_and_never_fetches_is_held_to_the_servers_budget(flight_server):
    """Issue 71: one client sent GetFlightInfo for sorts of a large table and
    never fetched; every result computed in the background and was held for
    10 minutes: the server grew from 118 MB to 1.46 GB in 30 s. Now a result
    computes as it is fetched, one client may leave at most 64 unfinished
    (then RESOURCE_EXHAUSTED naming the limit), a result nobody fetches is
    dropped after --result-timeout (its fetch says so), and one client's
    results and transactions do not lock another client out."""
    uri = flight_server("--result-timeout", "2")
    pid = flight_server.process.pid
    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE big AS SELECT value AS x, value % 1000 AS y FROM range(1000000)")
    hostile = flight.FlightClient(uri)
    before = _rss_mib(pid)
    infos, refused = [], None
    for i in range(100):
        try:
            infos.append(hostile.get_flight_info(_statement(f"SELECT * FROM big ORDER BY y DESC, x LIMIT {100000 + i}"), HEADERS))
        except pa.ArrowInvalid as e:  # pyarrow's name for gRPC's RESOURCE_EXHAUSTED
            refused = (i, str(e))
            break
    assert refused and refused[0] == 64, refused
    assert "resource exhausted" in refused[1] and "64 results not fetched to their end, the most one client may have" in refused[1]
    time.sleep(1)
    assert _rss_mib(pid) - before < 200, "unfetched sorts computed and held their rows"
    # Another client (its own network connection) is not locked out by this one.
    other = flight.FlightClient(uri)
    assert _read_all(other, other.get_flight_info(_statement("SELECT 41 + 1 AS v"), HEADERS)).column(0).to_pylist() == [42]
    # Past the timeout the unfetched results are dropped: their fetch says why, and the client may ask again.
    time.sleep(3)
    with pytest.raises(pa.ArrowKeyError, match="dropped before its fetch: nobody fetched it within 2 s"):  # NOT_FOUND
        hostile.do_get(infos[0].endpoints[0].ticket, HEADERS).read_all()
    info = hostile.get_flight_info(_statement("SELECT count(*) AS n FROM big"), HEADERS)
    assert _read_all(hostile, info).column(0).to_pylist() == [1000000]
    # One client's transactions are capped too: another still begins one.
    request = b"type.googleapis.com/arrow.flight.protocol.sql.ActionBeginTransactionRequest"
    begin = flight.Action("BeginTransaction", protobuf_field(1, request) + protobuf_field(2, b""))
    with pytest.raises(pa.ArrowInvalid, match="transactions open, the most one client may have"):
        for _ in range(100):
            list(hostile.do_action(begin, HEADERS))
    assert len(list(other.do_action(begin, HEADERS))) == 1


def test_a_connection_kept_between_calls_hands_nothing_to_the_next_caller(flight_server):
    """Statements outside transactions run on connections the server keeps
    between calls (their plans kept too): what one caller leaves on a
    connection (a temporary table, an open transaction) never reaches the
    next, and a kept plan reads what others committed since."""
    uri = flight_server()
    client = flight.FlightClient(uri)

    def query(sql):
        return _read_all(client, client.get_flight_info(_statement(sql), HEADERS)).to_pylist()

    with _connect(uri) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE k (id BIGINT PRIMARY KEY, v BIGINT)")
        cur.execute("INSERT INTO k VALUES (1, 10)")
        for _ in range(3):
            assert query("SELECT v FROM k WHERE id = 1") == [{"v": 10}]
        cur.execute("CREATE TEMP TABLE scratch AS SELECT 1 AS x")
        # BEGIN as a statement of its own call: had the next call got its
        # connection, the INSERT would wait in that transaction forever.
        cur.execute("BEGIN")
        cur.execute("INSERT INTO k VALUES (2, 20)")
        for _ in range(3):  # every kept connection is asked for
            with pytest.raises(pa.ArrowInvalid, match="table .scratch. does not exist"):
                query("SELECT x FROM scratch")
            assert query("SELECT count(*) AS n FROM k") == [{"n": 2}], "the INSERT committed on its own"
        cur.execute("UPDATE k SET v = 11 WHERE id = 1")
        assert query("SELECT v FROM k WHERE id = 1") == [{"v": 11}], "a kept plan reads the newest version"
