"""Pipes across hosts (`db://HOST:PORT/NAME`) over Arrow Flight between real
processes: swingdb <-> swingdb with workers, compression and checksums, in
either order of arrival; pyarrow's Flight client as the importer; tokens;
killed peers, refused rows and malformed calls. Across network namespaces
with latency and a bandwidth limit in test_pipes_netns.py."""

import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import pyarrow as pa
import pyarrow.flight as flight
import pytest
import swingdb

TOKEN = "pipe-token-0123456789abcdef"


@pytest.fixture(autouse=True)
def _token(monkeypatch):
    monkeypatch.setenv("SWINGDB_TOKEN", TOKEN)


def _name():
    return "net-" + uuid.uuid4().hex[:10]


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(code, *args, env=None):
    """A Python process running `code` (with `args` in sys.argv[1:])."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )


def _done(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


# What pyarrow raises for an error status (some map to Arrow's own errors).
REFUSED = (flight.FlightError, pa.ArrowException)


def _connected(port):
    """A Flight client of the exporter listening on `port`, once it listens."""
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return flight.FlightClient(f"grpc://127.0.0.1:{port}")
        except ConnectionRefusedError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


EXPORT = """
    import sys, swingdb
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS k, CASE WHEN value % 7 = 0 THEN NULL ELSE 'v' || value END AS s, "
            "CAST(value AS DECIMAL(12, 2)) / 4 AS d, DATE '2020-01-01' + CAST(value % 1000 AS INT) AS day "
            "FROM range(" + str(int(sys.argv[2])) + ")")
    try:
        print(con.sql("COPY t TO '" + sys.argv[1] + "'").fetchall()[0][0])
    except swingdb.Error as e:
        print(type(e).__name__, e, file=sys.stderr)
        sys.exit(3)
"""

CHECK = "SELECT count(*), count(s), sum(k), sum(d), min(day), max(day), count(DISTINCT s) FROM {}"


def _source(rows):
    con = swingdb.connect()
    con.sql(
        "CREATE TABLE t AS SELECT value AS k, CASE WHEN value % 7 = 0 THEN NULL ELSE 'v' || value END AS s, "
        "CAST(value AS DECIMAL(12, 2)) / 4 AS d, DATE '2020-01-01' + CAST(value % 1000 AS INT) AS day "
        f"FROM range({rows})"
    )
    return con


def _expected(rows):
    return _source(rows).sql(CHECK.format("t")).fetchall()


def _expected_schema():
    return _source(1).sql("SELECT * FROM t LIMIT 0").arrow().schema


@pytest.mark.parametrize("options", ["workers=4", "workers=2&compression=zstd&verify=1", "compression=lz4"])
def test_rows_cross_over_flight_with_options(options):
    url = f"db://127.0.0.1:{_port()}/{_name()}"
    exporter = _start(EXPORT, f"{url}?{options}", 300_000)
    con = swingdb.connect()
    con.sql(f"CREATE TABLE u AS SELECT * FROM '{url}?workers=3'")
    code, out, err = _done(exporter)
    assert code == 0, err
    assert out.strip() == "300000"
    assert con.sql(CHECK.format("u")).fetchall() == _expected(300_000)
    # Column types arrive as they were: the same Arrow schema on both sides.
    assert con.sql("SELECT * FROM u LIMIT 0").arrow().schema == _expected_schema()


def test_the_importer_may_come_first_and_python_pipes_across_hosts():
    url = f"db://127.0.0.1:{_port()}/{_name()}"
    con = swingdb.connect()
    started = time.monotonic()
    exporter = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys, time, swingdb
            time.sleep(1.5)
            con = swingdb.connect()
            con.sql("CREATE TABLE t AS SELECT value AS k FROM range(50000)")
            print(con.pipe_to(sys.argv[1], "t", workers=2))
        """), url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The importer retries connecting until the exporter listens.
    assert con.pipe_from(url, "got") == 50_000
    assert time.monotonic() - started >= 1.5
    code, out, err = _done(exporter)
    assert (code, out.strip()) == (0, "50000"), err
    assert con.sql("SELECT sum(k) FROM got").fetchall() == [(sum(range(50_000)),)]


def test_pyarrow_flight_fetches_a_pipe_without_swingdb():
    port, name = _port(), _name()
    exporter = _start(EXPORT, f"db://127.0.0.1:{port}/{name}?workers=3", 100_000)
    client = _connected(port)
    # Token by the Flight handshake (user name ignored, the token as password).
    header = client.authenticate_basic_token("anyone", TOKEN)
    options = flight.FlightCallOptions(headers=[header])
    info = client.get_flight_info(flight.FlightDescriptor.for_path(name), options)
    assert len(info.endpoints) == 3
    assert info.schema.names == ["k", "s", "d", "day"]
    tables = [client.do_get(e.ticket, options).read_all() for e in info.endpoints]
    table = pa.concat_tables(tables)
    assert table.num_rows == 100_000
    assert sorted(table.column("k").to_pylist()) == list(range(100_000))
    code, out, err = _done(exporter)
    assert (code, out.strip()) == (0, "100000"), err


def test_a_wrong_or_missing_token_is_refused_with_a_clear_error(monkeypatch, tmp_path):
    port, name = _port(), _name()
    exporter = _start(EXPORT, f"db://127.0.0.1:{port}/{name}?timeout=4", 10)
    con = swingdb.connect()
    monkeypatch.setenv("SWINGDB_TOKEN", "another-token-0123456789")
    with pytest.raises(swingdb.OperationalError, match="refused this side: wrong token"):
        con.sql(f"SELECT * FROM 'db://127.0.0.1:{port}/{name}?timeout=10'").fetchall()
    # An unauthenticated Flight client gets nothing either.
    client = flight.FlightClient(f"grpc://127.0.0.1:{port}")
    with pytest.raises(flight.FlightUnauthenticatedError, match="no token"):
        client.get_flight_info(flight.FlightDescriptor.for_path(name))
    code, _, err = _done(exporter)
    assert code == 3 and "no importer arrived at 127.0.0.1" in err, err
    monkeypatch.delenv("SWINGDB_TOKEN")
    with pytest.raises(swingdb.ProgrammingError, match=r"needs a token both sides share: set \$SWINGDB_TOKEN"):
        con.sql(f"SELECT * FROM 'db://127.0.0.1:{port}/{name}'").fetchall()
    short = tmp_path / "token"
    short.write_text("short\n")
    with pytest.raises(swingdb.ProgrammingError, match="use at least 16"):
        con.sql(f"SELECT * FROM 'db://127.0.0.1:{port}/{name}?token_file={short}'").fetchall()
    # The same token from a file on both sides works.
    good = tmp_path / "good"
    good.write_text(TOKEN + "\n")
    url = f"db://127.0.0.1:{port}/{name}?token_file={good}"
    exporter = _start(EXPORT, url, 1000, env={"SWINGDB_TOKEN": ""})
    assert con.sql(f"SELECT count(*) FROM '{url}'").fetchall() == [(1000,)]
    assert _done(exporter)[0] == 0


def test_a_killed_exporter_fails_the_import_and_keeps_nothing():
    port, name = _port(), _name()
    exporter = _start("""
        import sys, swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS k FROM range(3)")
        # Rows without end, slowly: the importer is mid-transfer when the exporter dies.
        con.sql("COPY (SELECT value AS k FROM range(100000000000)) TO '" + sys.argv[1] + "'")
    """, f"db://127.0.0.1:{port}/{name}")
    con = swingdb.connect()
    con.sql("CREATE TABLE u (k BIGINT)")
    con.sql("INSERT INTO u VALUES (1), (2)")
    import threading
    threading.Timer(1.5, exporter.kill).start()
    with pytest.raises(swingdb.OperationalError, match=f"pipe '{name}': .*nothing was imported"):
        con.sql(f"INSERT INTO u SELECT * FROM 'db://127.0.0.1:{port}/{name}'")
    exporter.wait()
    assert con.sql("SELECT count(*) FROM u").fetchall() == [(2,)]


def test_a_killed_importer_fails_the_export():
    port, name = _port(), _name()
    url = f"db://127.0.0.1:{port}/{name}?timeout=20"
    exporter = _start("""
        import sys, swingdb
        con = swingdb.connect()
        try:
            con.sql("COPY (SELECT value AS k FROM range(100000000000)) TO '" + sys.argv[1] + "'")
        except swingdb.OperationalError as e:
            print(e)
    """, url)
    importer = _start("""
        import sys, swingdb
        swingdb.connect().sql("CREATE TABLE u AS SELECT * FROM '" + sys.argv[1] + "'")
    """, url)
    time.sleep(2)
    importer.kill()
    importer.wait()
    code, out, err = _done(exporter, timeout=60)
    assert code == 0, err
    assert f"pipe '{name}'" in out and "importer" in out, out


def test_rows_the_importer_refuses_fail_the_exporter_too():
    port, name = _port(), _name()
    exporter = _start(EXPORT, f"db://127.0.0.1:{port}/{name}", 1000)
    con = swingdb.connect()
    con.sql("CREATE TABLE u (k BIGINT, s VARCHAR NOT NULL, d DECIMAL(16, 6), day DATE)")
    with pytest.raises(swingdb.IntegrityError):
        con.sql(f"INSERT INTO u SELECT * FROM 'db://127.0.0.1:{port}/{name}'")
    code, _, err = _done(exporter)
    assert code == 3 and "the importer gave up" in err, err
    assert con.sql("SELECT count(*) FROM u").fetchall() == [(0,)]


def test_malformed_calls_are_refused_and_the_transfer_still_works():
    port, name = _port(), _name()
    exporter = _start(EXPORT, f"db://127.0.0.1:{port}/{name}?workers=2", 20_000)
    client = _connected(port)
    options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {TOKEN}".encode())])
    with pytest.raises(pa.ArrowInvalid, match="neither a pipe name nor a claim"):
        client.get_flight_info(flight.FlightDescriptor.for_command(b"\xff{not json"), options)
    with pytest.raises(REFUSED, match="exports pipe"):
        client.get_flight_info(flight.FlightDescriptor.for_path("another"), options)
    with pytest.raises(REFUSED, match="not of this transfer"):
        client.do_get(flight.Ticket(b"0000/0"), options).read_all()
    with pytest.raises(REFUSED, match="no action"):
        list(client.do_action(flight.Action("drop everything", b""), options))
    with pytest.raises(REFUSED, match="only sends"):
        writer, _ = client.do_put(flight.FlightDescriptor.for_path(name), pa.schema([("k", pa.int64())]), options)
        writer.close()
    # A raw TCP client that sends garbage and hangs up.
    with socket.create_connection(("127.0.0.1", port)) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\n\r\n" + os.urandom(4096))
    con = swingdb.connect()
    assert con.sql(f"SELECT count(*), sum(k) FROM 'db://127.0.0.1:{port}/{name}'").fetchall() == [
        (20_000, sum(range(20_000)))
    ]
    assert _done(exporter)[0] == 0


def test_a_second_importer_waits_for_its_own_exporter():
    port, name = _port(), _name()
    url = f"db://127.0.0.1:{port}/{name}"
    first = _start(EXPORT, url, 500)
    con = swingdb.connect()
    assert con.sql(f"SELECT count(*) FROM '{url}'").fetchall() == [(500,)]
    assert _done(first)[0] == 0
    # The address is free again for the next exporter of the same pipe.
    second = _start(EXPORT, url, 700)
    assert con.sql(f"SELECT count(*) FROM '{url}'").fetchall() == [(700,)]
    assert _done(second)[0] == 0


def test_tls_pipes_encrypt_and_check_both_ends(certificates):
    port, name = _port(), _name()
    c = certificates
    served = f"db://127.0.0.1:{port}/{name}?tls_cert={c / 'server.pem'}&tls_key={c / 'server.key'}"
    exporter = _start(EXPORT, served, 20_000)
    con = swingdb.connect()
    url = f"db://127.0.0.1:{port}/{name}?tls_ca={c / 'ca.pem'}"
    assert con.sql(f"SELECT count(*), sum(k) FROM '{url}'").fetchall() == [(20_000, sum(range(20_000)))]
    assert _done(exporter)[0] == 0
    # A plaintext importer never gets in, and hears why.
    exporter = _start(EXPORT, served + "&timeout=5", 10)
    with pytest.raises(swingdb.OperationalError, match="if the exporter uses TLS, give tls_ca="):
        con.sql(f"SELECT * FROM 'db://127.0.0.1:{port}/{name}?timeout=3'").fetchall()
    assert _done(exporter)[0] == 3


def test_mutual_tls_pipes_take_only_importers_with_a_certificate(certificates):
    port, name = _port(), _name()
    c = certificates
    served = f"db://127.0.0.1:{port}/{name}?tls_cert={c / 'server.pem'}&tls_key={c / 'server.key'}&tls_ca={c / 'ca.pem'}"
    exporter = _start(EXPORT, served + "&timeout=30", 1000)
    con = swingdb.connect()
    anonymous = f"db://127.0.0.1:{port}/{name}?tls_ca={c / 'ca.pem'}&timeout=3"
    with pytest.raises(swingdb.OperationalError, match="asks for a client certificate .* give tls_cert= and tls_key="):
        con.sql(f"SELECT * FROM '{anonymous}'").fetchall()
    known = f"db://127.0.0.1:{port}/{name}?tls_ca={c / 'ca.pem'}&tls_cert={c / 'client.pem'}&tls_key={c / 'client.key'}"
    assert con.sql(f"SELECT count(*) FROM '{known}'").fetchall() == [(1000,)]
    assert _done(exporter)[0] == 0
    with pytest.raises(swingdb.ProgrammingError, match="tls_cert and tls_key go together"):
        con.sql(f"SELECT * FROM 'db://127.0.0.1:{port}/{name}?tls_ca={c / 'ca.pem'}&tls_cert={c / 'client.pem'}'")
