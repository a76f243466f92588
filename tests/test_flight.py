"""`swingdb serve`: a database served over Arrow Flight SQL to real clients
(ADBC's Flight SQL driver from PyPI), every call checked against a token."""

import os
import re
import shutil
import subprocess
import sys

import pytest

flightsql = pytest.importorskip("adbc_driver_flightsql.dbapi", reason="adbc-driver-flightsql is in requirements-dev.txt")
import adbc_driver_manager  # noqa: E402
from conftest import FLIGHT_TOKEN, protobuf_field  # noqa: E402

TOKEN = FLIGHT_TOKEN


@pytest.fixture
def server(flight_server):
    """A `swingdb serve` process on a free port; its grpc:// URI."""
    return flight_server()


def _connect(uri, autocommit=True, **db_kwargs):
    """An ADBC connection; each statement commits on its own unless `autocommit` is off (DB-API's default)."""
    kwargs = db_kwargs or {"adbc.flight.sql.authorization_header": f"Bearer {TOKEN}"}
    return flightsql.connect(uri, db_kwargs=kwargs, autocommit=autocommit)


def test_adbc_creates_writes_and_reads_a_table(server):
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE t AS SELECT value AS id, value * 0.5 AS x FROM range(1000000)")
        cur.execute("SELECT count(*), sum(id) FROM t")
        assert cur.fetchone() == (1_000_000, sum(range(1_000_000)))
        # Larger than gRPC's 4 MB message default: the server cuts batches into smaller messages.
        cur.execute("SELECT id, x FROM t ORDER BY id")
        table = cur.fetch_arrow_table()
        assert table.num_rows == 1_000_000 and table.column("id")[999_999].as_py() == 999_999
        assert table.schema.names == ["id", "x"]


def test_a_statement_runs_once(server):
    # The statement runs when the client asks what it returns (GetFlightInfo);
    # fetching its result (DoGet) must not run it again.
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE n (v BIGINT)")
        cur.execute("INSERT INTO n VALUES (1), (2)")
        cur.fetchall()
        cur.execute("SELECT count(*) FROM n")
        assert cur.fetchone() == (2,)


def test_errors_keep_the_engines_message(server):
    with _connect(server) as con, con.cursor() as cur:
        with pytest.raises(adbc_driver_manager.Error, match="nope"):
            cur.execute("SELECT * FROM nope")
            cur.fetchall()
        cur.execute("SELECT 1 AS one")  # the connection still works
        assert cur.fetchone() == (1,)


def test_a_wrong_or_missing_token_is_refused(server):
    for kwargs in ({"adbc.flight.sql.authorization_header": "Bearer not-the-token-at-all"}, {"adbc.flight.sql.rpc.call_header.x": "y"}):
        with pytest.raises(adbc_driver_manager.Error, match="token|Unauthenticated|UNAUTHENTICATED"):
            with _connect(server, **kwargs) as con, con.cursor() as cur:
                cur.execute("SELECT 1")
                cur.fetchall()


def test_a_user_and_password_client_gets_in_with_the_token_as_password(server):
    with _connect(server, username="anyone", password=TOKEN) as con, con.cursor() as cur:
        cur.execute("SELECT 40 + 2 AS answer")
        assert cur.fetchone() == (42,)
    with pytest.raises(adbc_driver_manager.Error, match="token|Unauthenticated|UNAUTHENTICATED"):
        with _connect(server, username="anyone", password="wrong-password-0123456789") as con, con.cursor() as cur:
            cur.execute("SELECT 1")
            cur.fetchall()


def test_a_short_token_is_refused_at_start(tmp_path):
    program = shutil.which("swingdb")
    out = subprocess.run([program, "serve", "--port", "0"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "SWINGDB_TOKEN": "short"})
    assert out.returncode == 1 and "at least 16" in out.stderr


def test_bulk_ingest_creates_appends_and_replaces_atomically(server):
    import pyarrow as pa

    def count(con):
        # A new cursor each time: ADBC's Go driver keeps a cursor that ingested in ingest mode.
        with con.cursor() as cur:
            cur.execute("SELECT count(*), sum(id) FROM people")
            return cur.fetchone()

    data = pa.table({"id": pa.array(range(300_000), pa.int64()), "name": [f"n{i % 7}" for i in range(300_000)]})
    with _connect(server) as con, con.cursor() as cur:
        assert cur.adbc_ingest("people", data, mode="create") == 300_000
        with pytest.raises(adbc_driver_manager.Error, match="exists"):
            cur.adbc_ingest("people", data.slice(0, 10), mode="create")
        cur.adbc_ingest("people", data.slice(0, 10), mode="append")
        assert count(con) == (300_010, sum(range(300_000)) + sum(range(10)))
        # Rows whose type does not fit fail the whole upload: the table keeps what it had.
        with pytest.raises(adbc_driver_manager.Error):
            cur.adbc_ingest("people", pa.table({"id": ["not a number"], "name": ["x"]}), mode="append")
        assert count(con)[0] == 300_010
        cur.adbc_ingest("people", data.slice(0, 3), mode="replace")
        assert count(con) == (3, 3)
        # A name needing quotes is taken as it is, never as SQL.
        cur.adbc_ingest('odd "name"; DROP TABLE people', data.slice(0, 2), mode="create")
        cur.adbc_ingest('odd "name"; DROP TABLE people', data.slice(0, 1), mode="replace")
        assert count(con) == (3, 3)


def test_catalog_calls_list_tables_and_their_schemas(server):
    with _connect(server) as con:
        with con.cursor() as cur:
            cur.execute("CREATE TABLE orders (id BIGINT, total DOUBLE, note VARCHAR)")
            cur.execute('CREATE TABLE "Mixed Case" AS SELECT 1 AS x')
        assert con.adbc_get_table_types() == ["TABLE"]
        objects = con.adbc_get_objects(depth="tables").read_all().to_pylist()
        assert [c["catalog_name"] for c in objects] == ["swingdb"]
        schemas = objects[0]["catalog_db_schemas"]
        assert [s["db_schema_name"] for s in schemas] == ["main"]
        assert sorted(t["table_name"] for t in schemas[0]["db_schema_tables"]) == ["Mixed Case", "orders"]
        schema = con.adbc_get_table_schema("orders")
        assert schema.names == ["id", "total", "note"] and str(schema.field("total").type) == "double"
        # A name pattern filters on the server.
        only = con.adbc_get_objects(depth="tables", table_name_filter="ord%").read_all().to_pylist()
        assert [t["table_name"] for t in only[0]["catalog_db_schemas"][0]["db_schema_tables"]] == ["orders"]


def test_a_read_only_server_answers_queries_and_refuses_writes(tmp_path):
    import swingdb

    path = tmp_path / "ro.swingdb"
    with swingdb.connect(path) as con:
        con.sql("CREATE TABLE t AS SELECT 7 AS v")
    proc = subprocess.Popen([shutil.which("swingdb"), "serve", str(path), "--port", "0", "--read-only"],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "SWINGDB_TOKEN": TOKEN})
    try:
        uri = re.search(r"grpc://\S+", proc.stdout.readline()).group(0)
        with _connect(uri) as con, con.cursor() as cur:
            cur.execute("SELECT v FROM t")
            assert cur.fetchall() == [(7,)]
            with pytest.raises(adbc_driver_manager.Error, match="read-only|read only"):
                cur.execute("INSERT INTO t VALUES (8)")
                cur.fetchall()
        with swingdb.connect(path) as con:
            assert con.sql("SELECT count(*) FROM t").fetchall() == [(1,)]
    finally:
        proc.kill()
        proc.wait()


def test_sixteen_clients_query_and_write_at_once_without_errors_or_losses(server):
    import threading

    with _connect(server) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE hits (client BIGINT, n BIGINT)")
        cur.fetchall()
    errors = []

    def client(c):
        try:
            with _connect(server) as con, con.cursor() as cur:
                for i in range(50):  # 50 writes and 50 reads, each its own statement
                    cur.execute(f"INSERT INTO hits VALUES ({c}, {i})")
                    cur.fetchall()
                    cur.execute(f"SELECT count(*) FROM hits WHERE client = {c}")
                    assert cur.fetchone() == (i + 1,), "a client reads its own writes"
        except Exception as e:  # reported below, with the others
            errors.append(e)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("SELECT count(*), count(DISTINCT client * 100 + n) FROM hits")
        assert cur.fetchone() == (800, 800)


def test_the_server_survives_garbage_and_clients_that_vanish_mid_fetch(server):
    import socket

    host, port = server.removeprefix("grpc://").rsplit(":", 1)
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("CREATE TABLE wide AS SELECT value AS a, value * 2 AS b FROM range(3000000)")
        cur.fetchall()
    # Bytes that are not HTTP/2, and an HTTP/2 preface followed by junk.
    for junk in (os.urandom(65536), b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + os.urandom(65536)):
        with socket.create_connection((host, int(port))) as raw:
            raw.sendall(junk)
    # A client killed while a large result streams to it.
    code = (
        "import adbc_driver_flightsql.dbapi as f, os, sys\n"
        "con = f.connect(sys.argv[1], db_kwargs={'adbc.flight.sql.authorization_header': 'Bearer ' + sys.argv[2]})\n"
        "cur = con.cursor(); cur.execute('SELECT * FROM wide'); reader = cur.fetch_record_batch(); reader.read_next_batch()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, server, TOKEN], timeout=60, check=True)
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("SELECT count(*), sum(a) FROM wide")
        assert cur.fetchone() == (3_000_000, sum(range(3_000_000)))


def test_a_caller_without_the_token_cannot_make_the_server_take_a_large_message(tmp_path):
    import pyarrow as pa
    import pyarrow.flight as flight

    proc = subprocess.Popen([shutil.which("swingdb"), "serve", "--port", "0"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "SWINGDB_TOKEN": TOKEN})
    try:
        address = re.search(r"grpc://(\S+)", proc.stdout.readline()).group(1)

        def peak():
            """The server's peak resident memory, in MiB."""
            status = open(f"/proc/{proc.pid}/status").read().splitlines()
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) // 1024

        before = peak()
        client = flight.FlightClient(f"grpc://{address}")
        batch = pa.record_batch([pa.array(range(25_000_000), pa.int64())], names=["x"])  # one 200 MB message
        with pytest.raises(flight.FlightUnauthenticatedError):
            writer, _ = client.do_put(flight.FlightDescriptor.for_path("t"), batch.schema)
            writer.write_batch(batch)
            writer.close()
        # Refused on its headers: the server never held the message's 200 MB.
        assert peak() - before < 100, (before, peak())
    finally:
        proc.kill()
        proc.wait()


def _tls_server(tmp_path, certificates, *extra):
    proc = subprocess.Popen(
        [shutil.which("swingdb"), "serve", str(tmp_path / "tls.swingdb"), "--port", "0",
         "--tls-cert", str(certificates / "server.pem"), "--tls-key", str(certificates / "server.key"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "SWINGDB_TOKEN": TOKEN},
    )
    line = proc.stdout.readline()
    match = re.search(r"grpc\+tls://(\S+)", line)
    assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, match.group(1)


def _query(uri, **options):
    kwargs = {"adbc.flight.sql.authorization_header": f"Bearer {TOKEN}", **options}
    with flightsql.connect(uri, db_kwargs=kwargs) as con, con.cursor() as cur:
        cur.execute("SELECT count(*) FROM range(1000)")
        return cur.fetchone()


def test_tls_serves_clients_that_trust_its_authority_and_refuses_plaintext(tmp_path, certificates):
    proc, address = _tls_server(tmp_path, certificates)
    try:
        roots = {"adbc.flight.sql.client_option.tls_root_certs": (certificates / "ca.pem").read_text()}
        assert _query(f"grpc+tls://{address}", **roots) == (1000,)
        # A client that does not trust the certificate, and a plaintext client, get nothing.
        with pytest.raises(adbc_driver_manager.Error, match="(?i)certificate|authority|x509"):
            _query(f"grpc+tls://{address}")
        with pytest.raises(adbc_driver_manager.Error):
            _query(f"grpc://{address}")
    finally:
        proc.kill()
        proc.wait()


def test_mutual_tls_accepts_only_clients_with_a_certificate_of_its_authority(tmp_path, certificates):
    proc, address = _tls_server(tmp_path, certificates, "--tls-client-ca", str(certificates / "ca.pem"))
    try:
        roots = {"adbc.flight.sql.client_option.tls_root_certs": (certificates / "ca.pem").read_text()}
        with pytest.raises(adbc_driver_manager.Error):
            _query(f"grpc+tls://{address}", **roots)
        client = {
            "adbc.flight.sql.client_option.mtls_cert_chain": (certificates / "client.pem").read_text(),
            "adbc.flight.sql.client_option.mtls_private_key": (certificates / "client.key").read_text(),
        }
        assert _query(f"grpc+tls://{address}", **roots, **client) == (1000,)
    finally:
        proc.kill()
        proc.wait()


def test_unusable_tls_files_are_clear_errors_at_start(tmp_path, certificates):
    program = shutil.which("swingdb")
    missing = subprocess.run([program, "serve", "--port", "0", "--tls-cert", str(tmp_path / "nope.pem"),
                              "--tls-key", str(certificates / "server.key")], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "SWINGDB_TOKEN": TOKEN})
    assert missing.returncode == 1 and f"cannot read {tmp_path / 'nope.pem'}" in missing.stderr, missing.stderr
    swapped = subprocess.run([program, "serve", "--port", "0", "--tls-cert", str(certificates / "server.key"),
                              "--tls-key", str(certificates / "server.pem")], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "SWINGDB_TOKEN": TOKEN})
    assert swapped.returncode == 1 and "TLS certificate or key is not usable" in swapped.stderr, swapped.stderr
    alone = subprocess.run([program, "serve", "--tls-cert", str(certificates / "server.pem")], capture_output=True,
                           text=True, timeout=60)
    assert alone.returncode != 0 and "--tls-key" in alone.stderr, alone.stderr


def _any(type_url: str, value: bytes) -> bytes:
    """A protobuf Any, encoded by hand (so that its value may be anything)."""
    return protobuf_field(1, type_url.encode()) + protobuf_field(2, value)


def test_malformed_requests_are_invalid_argument_with_a_sentence(server):
    """Messages that do not decode, or lie about their type, are the client's
    fault: INVALID_ARGUMENT with a sentence, never INTERNAL or Rust debug
    text (arrow-flight's own decoding answered 71 of 577 with INTERNAL and
    `ParseError("Unable to decode Any value: ...")`)."""
    import random

    import pyarrow as pa
    import pyarrow.flight as flight

    rng = random.Random(71)
    sql = "type.googleapis.com/arrow.flight.protocol.sql."
    commands = ["CommandStatementQuery", "CommandPreparedStatementQuery", "CommandGetTables", "CommandStatementUpdate",
                "CommandStatementIngest", "TicketStatementQuery", "CommandGetSqlInfo"]
    actions = ["CreatePreparedStatement", "ClosePreparedStatement", "BeginTransaction", "EndTransaction",
               "CancelQuery", "BeginSavepoint"]

    def garbage() -> bytes:
        kind = rng.randrange(3)
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        if kind == 0:
            return junk
        if kind == 1:
            return _any(sql + rng.choice(commands), b"\x0a\x90" + junk)  # a length that runs past the end
        return _any(sql + "ActionBeginTransactionRequest", b"\xff" + junk)

    client = flight.FlightClient(server)
    options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {TOKEN}".encode())])
    codes = {}
    for i in range(300):
        call = i % 4
        try:
            if call == 0:
                client.get_flight_info(flight.FlightDescriptor.for_command(garbage()), options)
            elif call == 1:
                client.do_get(flight.Ticket(garbage()), options).read_all()
            elif call == 2:
                list(client.do_action(flight.Action(rng.choice(actions), garbage()), options))
            else:
                schema = pa.schema([("x", pa.int64())])
                writer, _ = client.do_put(flight.FlightDescriptor.for_command(garbage()), schema, options)
                writer.write_batch(pa.record_batch([pa.array([1])], schema=schema))
                writer.close()
        except (flight.FlightError, pa.ArrowException) as e:
            name = type(e).__name__
            codes[name] = codes.get(name, 0) + 1
            assert not isinstance(e, flight.FlightInternalError), (i, e)
            assert "ParseError(" not in str(e) and "DecodeError {" not in str(e), (i, e)
        else:
            codes["accepted"] = codes.get("accepted", 0) + 1
    # Nearly all are refused as the client's error (a few junk bytes decode as an unknown command).
    assert codes.get("ArrowInvalid", 0) >= 250, codes
    with _connect(server) as con, con.cursor() as cur:
        cur.execute("SELECT 41 + 1")
        assert cur.fetchone() == (42,)
