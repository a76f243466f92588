"""Pipes between real processes and real peers: swingdb <-> swingdb (handover
of stored segments, streams with workers, compression and checksums), DuckDB,
polars and pyarrow through the Python ends, CSV-only programs (sqlite3, psql)
through a FIFO, PostgreSQL through binary COPY, and every way a transfer can
fail: killed peers, timeouts, bad names, abandoned FIFOs."""

import glob
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import pyarrow as pa
import pytest
import swingdb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWINGDB = os.path.join(os.path.dirname(sys.executable), "swingdb")


def _name():
    return "test-" + uuid.uuid4().hex[:12]


def _start(code, *args):
    """A Python process running `code` (with `args` in sys.argv[1:])."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _done(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def _segment_inodes(path):
    return {os.stat(f).st_ino for f in glob.glob(os.path.join(path, "segments", "*.arrow"))}


# -- swingdb <-> swingdb ------------------------------------------------------


def test_a_stored_table_moves_between_processes_as_its_own_files(tmp_path):
    a, b = str(tmp_path / "a.swingdb"), str(tmp_path / "b.swingdb")
    src = swingdb.connect(a)
    src.sql("CREATE TABLE t AS SELECT value AS k, value * 0.5 AS v FROM range(1000000)")
    src.close()
    name = _name()
    exporter = _start(
        """
        import sys, swingdb
        print(swingdb.connect(sys.argv[1]).pipe_to(sys.argv[2], "t"))
        """,
        a,
        name,
    )
    dst = swingdb.connect(b)
    assert dst.pipe_from(name, "t2") == 1_000_000
    code, out, err = _done(exporter)
    assert code == 0, err
    assert out.strip() == "1000000"
    assert dst.sql("SELECT count(*), sum(k), sum(v) FROM t2").fetchall() == [(1_000_000, 499999500000, 249999750000.0)]
    # Zero-copy import: every segment of the new table is one of the exporter's files.
    mine = _segment_inodes(b)
    assert mine and mine <= _segment_inodes(a)
    # The importer owns its copy: the exporter dropping the table changes nothing here.
    src = swingdb.connect(a)
    src.sql("DROP TABLE t")
    src.collect_garbage()
    assert dst.sql("SELECT count(*) FROM t2").fetchall() == [(1_000_000,)]


def test_query_rows_stream_between_processes_with_options():
    name = _name()
    exporter = _start(
        """
        import sys, swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS k, 'row ' || cast(value AS VARCHAR) AS s FROM range(300000)")
        r = con.sql(f"COPY (SELECT k, s FROM t WHERE k % 3 = 0) TO 'db://{sys.argv[1]}?workers=4&compression=zstd&verify=1'")
        print(r.rows_affected if r else "none")
        """,
        name,
    )
    con = swingdb.connect()
    con.sql(f"CREATE TABLE got AS SELECT * FROM 'db://{name}?workers=2'")
    code, out, err = _done(exporter)
    assert code == 0, err
    assert con.sql("SELECT count(*), sum(k) FROM got").fetchall() == [(100000, sum(range(0, 300000, 3)))]
    assert con.sql("SELECT count(*) FROM got WHERE s = 'row ' || cast(k AS VARCHAR)").fetchall() == [(100000,)]


def test_a_streamed_import_writes_rows_to_segment_files_as_they_arrive(tmp_path):
    """An importer stores each stream's batches in its segment file as they
    arrive: its memory is a few batches, not the table (before, it gathered
    every row and then wrote them: its peak grew by the whole table)."""
    name = _name()
    # About 120 MB of rows: a BIGINT, a DOUBLE and a 10-12 character string.
    exporter = _start(
        """
        import sys, swingdb
        con = swingdb.connect()
        sql = "SELECT value AS k, value / 4.0 AS v, 'row ' || cast(value AS VARCHAR) AS s FROM range(4000000)"
        print(con.pipe_to(sys.argv[1], sql, workers=2), flush=True)
        """,
        name,
    )
    importer = _start(
        """
        import json, sys, swingdb
        def status(key):
            return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith(key)) / 1024
        con = swingdb.connect(sys.argv[2])
        before = status("VmRSS")
        rows = con.pipe_from(sys.argv[1], "t", workers=2)
        print(json.dumps({"rows": rows, "grew_mb": status("VmHWM") - before}))
        """,
        name,
        tmp_path / "db",
    )
    code, out, err = _done(importer)
    assert code == 0, err
    assert _done(exporter)[0] == 0
    got = json.loads(out)
    assert got["rows"] == 4_000_000
    assert got["grew_mb"] < 80, got  # the rows are 120 MB; about 40 grew here
    con = swingdb.connect(str(tmp_path / "db"), read_only=True)
    assert con.sql("SELECT count(*), sum(k), count(DISTINCT s), min(s), max(v) FROM t").fetchall() == [
        (4_000_000, sum(range(4_000_000)), 4_000_000, "row 0", 999_999.75)
    ]
    # Each stream became a segment of the record batches as they came.
    files = glob.glob(str(tmp_path / "db" / "segments" / "*.arrow"))
    assert len(files) == 2
    for f in files:
        with pa.memory_map(f) as source:
            assert pa.ipc.open_file(source).num_record_batches > 10


@pytest.mark.parametrize(
    "column, error, says",
    [
        ("CASE WHEN value = 3000000 THEN NULL ELSE value END", swingdb.IntegrityError, "NOT NULL"),
        ("CASE WHEN value = 3000000 THEN 'x' ELSE cast(value AS VARCHAR) END", swingdb.DataError, "column 'k'"),
    ],
)
def test_a_row_the_table_refuses_mid_stream_fails_the_import_and_keeps_no_file(tmp_path, column, error, says):
    name = _name()
    exporter = _start(
        """
        import sys, swingdb
        con = swingdb.connect()
        try:
            con.pipe_to(sys.argv[1], f"SELECT {sys.argv[2]} AS k FROM range(4000000)", workers=2)
        except swingdb.OperationalError as e:
            print(e)
        """,
        name,
        column,
    )
    con = swingdb.connect(str(tmp_path / "db"))
    con.sql("CREATE TABLE t (k BIGINT NOT NULL)")
    con.sql("INSERT INTO t SELECT value FROM range(100000)")
    before = _segment_inodes(tmp_path / "db")
    with pytest.raises(error, match=says):
        con.pipe_from(name, "t", workers=2)
    code, out, err = _done(exporter)
    assert code == 0, err
    assert "the importer gave up" in out and says in out, out
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(100000,)]
    assert _segment_inodes(tmp_path / "db") == before, "the files of the streams were deleted"


def test_the_python_api_both_ways_and_waiting_ends_listed():
    name = _name()
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000)")
    got = {}
    importer = threading.Thread(target=lambda: got.update(rows=swingdb.connect().pipe_from(name, "t", workers=3)))
    importer.start()
    deadline = time.time() + 10
    while not any(w.name == name for w in swingdb.pipe.waiting()):
        assert time.time() < deadline
        time.sleep(0.01)
    (waiting,) = [w for w in swingdb.pipe.waiting() if w.name == name]
    assert (waiting.role, waiting.pid) == ("import", os.getpid())
    assert con.pipe_to(name, "SELECT x FROM t WHERE x < 100", compression="lz4", verify=True) == 100
    importer.join()
    assert got["rows"] == 100
    assert not any(w.name == name for w in swingdb.pipe.waiting())


def test_duckdb_polars_and_pyarrow_use_pipes_without_csv():
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS x, cast(value AS DOUBLE) / 4 AS y FROM range(200000)")
    # swingdb -> DuckDB: DuckDB scans the RecordBatchReader.
    name = _name()
    sender = threading.Thread(target=con.pipe_to, args=(name, "t"))
    sender.start()
    reader = swingdb.pipe.reader(name)  # noqa: F841 (DuckDB reads it by name)
    assert duckdb.sql("SELECT count(*), sum(x), sum(y) FROM reader").fetchall() == [(200000, 19999900000, 4999975000.0)]
    sender.join()
    # DuckDB -> swingdb: DuckDB's Arrow output goes into a writer.
    name = _name()
    rel = duckdb.sql("SELECT range AS id, range % 7 AS g FROM range(50000)")
    sender = threading.Thread(target=lambda: swingdb.pipe.send(name, rel.to_arrow_reader(10000)))
    sender.start()
    assert con.pipe_from(name, "from_duck") == 50000
    sender.join()
    assert con.sql("SELECT sum(id), count(DISTINCT g) FROM from_duck").fetchall() == [(sum(range(50000)), 7)]
    # polars both ways.
    name = _name()
    frame = pl.DataFrame({"a": list(range(1000)), "b": [str(i) for i in range(1000)]})
    sender = threading.Thread(target=swingdb.pipe.send, args=(name, frame))
    sender.start()
    back = pl.from_arrow(swingdb.pipe.reader(name).read_all())
    sender.join()
    assert back.equals(frame)
    # A writer with a schema, fed batch by batch.
    name = _name()
    received = {}
    reader_thread = threading.Thread(target=lambda: received.update(t=swingdb.pipe.reader(name).read_all()))
    reader_thread.start()
    schema = pa.schema([("n", pa.int64())])
    with swingdb.pipe.writer(name, schema, workers=2) as w:
        for i in range(10):
            w.write(pa.record_batch([pa.array(range(i * 10, i * 10 + 10), pa.int64())], schema=schema))
    reader_thread.join()
    assert sorted(received["t"].column("n").to_pylist()) == list(range(100))


def _rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def test_a_slow_importer_holds_the_exporter_back_instead_of_filling_its_memory():
    name = _name()
    # 40 million rows of two BIGINTs: 640 MB if the exporter buffered them.
    exporter = _start(
        """
        import sys, swingdb
        con = swingdb.connect()
        print(con.pipe_to(sys.argv[1], "SELECT value AS x, value * 2 AS y FROM range(40000000)"), flush=True)
        """,
        name,
    )
    reader = swingdb.pipe.reader(name)
    rows = reader.read_next_batch().num_rows
    time.sleep(2)  # the exporter runs ahead until sockets and channels are full, then waits
    assert _rss_mb(exporter.pid) < 300
    for batch in reader:
        rows += batch.num_rows
    code, out, err = _done(exporter)
    assert code == 0, err
    assert rows == int(out) == 40_000_000


# -- failures -------------------------------------------------------------------


def test_a_killed_exporter_fails_the_import_and_keeps_nothing():
    name = _name()
    exporter = _start(
        """
        import os, signal, sys, pyarrow as pa, swingdb
        schema = pa.schema([("x", pa.int64())])
        w = swingdb.pipe.writer(sys.argv[1], schema)
        for i in range(5):
            w.write(pa.table({"x": pa.array(range(100000), pa.int64())}))
        os.kill(os.getpid(), signal.SIGKILL)
        """,
        name,
    )
    con = swingdb.connect()
    con.sql("CREATE TABLE dst AS SELECT 1::BIGINT AS x")
    with pytest.raises(swingdb.OperationalError, match=f"pipe '{name}'"):
        con.sql(f"INSERT INTO dst SELECT * FROM 'db://{name}'")
    exporter.wait(timeout=60)
    assert exporter.returncode == -signal.SIGKILL
    assert con.sql("SELECT count(*) FROM dst").fetchall() == [(1,)]


def test_a_killed_importer_fails_the_export():
    name = _name()
    importer = _start(
        """
        import os, signal, sys, swingdb
        reader = swingdb.pipe.reader(sys.argv[1])
        reader.read_next_batch()
        os.kill(os.getpid(), signal.SIGKILL)
        """,
        name,
    )
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS x FROM range(5000000)")
    with pytest.raises(swingdb.OperationalError, match=f"pipe '{name}'"):
        con.pipe_to(name, "SELECT x FROM t")
    importer.wait(timeout=60)
    assert importer.returncode == -signal.SIGKILL


def test_timeouts_and_bad_names_are_clear_errors():
    con = swingdb.connect()
    with pytest.raises(swingdb.OperationalError, match="pipe 'nobody': no exporter arrived within 0.3 s"):
        con.sql("SELECT * FROM 'db://nobody?timeout=0.3'")
    with pytest.raises(swingdb.OperationalError, match="no importer arrived"):
        con.pipe_to("nobody", "SELECT 1", timeout=0.3)
    with pytest.raises(swingdb.ProgrammingError, match="starts with '.'"):
        swingdb.pipe.reader(".hidden")
    with pytest.raises(swingdb.ProgrammingError, match="unknown option 'colour'"):
        con.sql("SELECT * FROM 'db://x?colour=red'")
    off = swingdb.connect(external_access=False)
    with pytest.raises(swingdb.ProgrammingError, match="external access is disabled"):
        off.sql("SELECT * FROM 'db://x'")


# -- the CLI and CSV-only programs -------------------------------------------


def _cli(*args, **kwargs):
    return subprocess.run([SWINGDB, *args], capture_output=True, text=True, timeout=120, **kwargs)


def test_cli_send_recv_and_ls(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert _cli(a, "-c", "CREATE TABLE t AS SELECT value AS x FROM range(100)").returncode == 0
    name = _name()
    recv = subprocess.Popen([SWINGDB, "pipe", "recv", b, "got", name], stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 10
    while name not in _cli("pipe", "ls").stdout:
        assert time.time() < deadline
        time.sleep(0.05)
    assert "importer" in _cli("pipe", "ls").stdout
    sent = _cli("pipe", "send", a, "SELECT x FROM t WHERE x >= 90", name)
    assert sent.returncode == 0, sent.stderr
    assert "sent 10 rows" in sent.stderr
    assert recv.wait(timeout=60) == 0
    out = _cli(b, "-c", "SELECT sum(x) FROM got")
    assert "945" in out.stdout


def _fifo_bridge(name, path, *extra):
    return subprocess.Popen([SWINGDB, "pipe", "fifo", name, path, *extra], stderr=subprocess.PIPE, text=True)


def _wait_for(path):
    deadline = time.time() + 10
    while not os.path.exists(path):
        assert time.time() < deadline
        time.sleep(0.01)


def test_sqlite3_writes_csv_into_a_fifo_and_swingdb_imports_it(tmp_path):
    if not os.path.exists("/usr/bin/sqlite3"):
        pytest.skip("the sqlite3 shell is not installed")
    name, path = _name(), str(tmp_path / "export.csv")
    bridge = _fifo_bridge(name, path)
    _wait_for(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    script = (
        ".headers on\n.mode csv\n"
        f".output {path}\n"
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000) "
        "SELECT i AS id, i * 2.5 AS price, 'item ' || i AS label FROM r;\n"
    )
    # sqlite3 "writes a file"; the bridge parses it as it arrives and waits for an importer.
    sqlite = subprocess.Popen(["sqlite3", ":memory:"], stdin=subprocess.PIPE, text=True)
    sqlite.stdin.write(script)
    sqlite.stdin.close()
    con = swingdb.connect()
    assert con.pipe_from(name, "items") == 100000
    assert sqlite.wait(timeout=60) == 0
    assert bridge.wait(timeout=60) == 0, bridge.stderr.read()
    assert con.sql("SELECT count(*), sum(id), sum(price), min(label) FROM items").fetchall() == [
        (100000, 5000050000, 12500125000.0, "item 1")
    ]
    assert not os.path.exists(path)  # nothing left on disk


def test_swingdb_writes_csv_into_a_fifo_a_program_reads(tmp_path):
    name, path = _name(), str(tmp_path / "out.csv")
    bridge = _fifo_bridge(name, path, "--out")
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000)")
    sender = threading.Thread(target=con.pipe_to, args=(name, "t"))
    sender.start()
    _wait_for(path)
    with open(path) as f:
        lines = f.read().splitlines()
    sender.join()
    assert bridge.wait(timeout=60) == 0, bridge.stderr.read()
    assert lines[0] == "x" and sorted(map(int, lines[1:])) == list(range(1000))


def test_json_lines_through_a_fifo(tmp_path):
    name, path = _name(), str(tmp_path / "rows.jsonl")
    bridge = _fifo_bridge(name, path, "--format", "jsonl")
    _wait_for(path)
    writer = _start(
        """
        import json, sys
        with open(sys.argv[1], "w") as f:
            for i in range(5000):
                f.write(json.dumps({"id": i, "name": f"n{i}", "ok": i % 2 == 0}) + "\\n")
        """,
        path,
    )
    con = swingdb.connect()
    assert con.pipe_from(name, "j") == 5000
    assert writer.wait(timeout=60) == 0 and bridge.wait(timeout=60) == 0
    assert con.sql("SELECT sum(id), count(*) FILTER (WHERE ok), max(name) FROM j").fetchall() == [(12497500, 2500, "n999")]


def test_an_unopened_or_abandoned_fifo_is_an_error_not_an_empty_table(tmp_path):
    path = str(tmp_path / "never.csv")
    bridge = _fifo_bridge(f"db://{_name()}?timeout=0.5", path)
    assert bridge.wait(timeout=60) == 1
    assert "nobody opened the FIFO" in bridge.stderr.read()
    assert not os.path.exists(path)
    # A writer killed in the middle of a line: the import fails and keeps nothing.
    name, path = _name(), str(tmp_path / "abandoned.csv")
    bridge = _fifo_bridge(name, path)
    _wait_for(path)
    writer = _start(
        """
        import os, signal, sys
        with open(sys.argv[1], "w") as f:
            f.write("a,b\\n")
            for i in range(100000):
                f.write(f"{i},{i}\\n")
            f.write("100000,10")
            f.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        """,
        path,
    )
    con = swingdb.connect()
    with pytest.raises(swingdb.OperationalError, match="middle of a line"):
        con.pipe_from(name, "partial")
    writer.wait(timeout=60)
    assert bridge.wait(timeout=60) == 1
    assert "partial" not in con.table_names()


# -- PostgreSQL --------------------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    if not glob.glob("/usr/lib/postgresql/*/bin/postgres"):
        pytest.skip("PostgreSQL is not installed (make debs installs it)")
    sys.path.insert(0, ROOT)
    from bench.postgres import LocalPostgres

    with LocalPostgres(port=54331) as server:
        yield server


def _psql(pg, sql):
    proc = subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", pg.dsn, "-c", sql],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def _pg_url(pg, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"{pg.uri}&{query}"


def test_postgres_types_arrive_exactly_through_binary_copy(pg):
    _psql(
        pg,
        """
        DROP TABLE IF EXISTS kinds;
        CREATE TABLE kinds (i int, b bigint, s smallint, n numeric(12,3), f double precision, r real,
            t text, v varchar(5), flag boolean, d date, ts timestamp, tz timestamptz, raw bytea,
            ints int[], words text[], id uuid, doc jsonb);
        INSERT INTO kinds VALUES
          (1, 9000000000, 7, 12345.678, 1.5, 2.25, 'héllo', 'abc', true, '2024-02-29',
           '2024-02-29 12:34:56.789', '2024-02-29 12:00:00+02', '\\x00ff', '{1,NULL,3}', '{a,"b c"}',
           'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": [1, 2]}'),
          (NULL, NULL, NULL, -0.001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        """,
    )
    import datetime as dt
    from decimal import Decimal

    con = swingdb.connect()
    result = con.sql(f"SELECT * FROM '{_pg_url(pg, table='kinds')}' ORDER BY i NULLS LAST")
    types = dict(zip(result.columns, map(str, result.schema.types)))
    assert types["n"] == "decimal128(12, 3)" and types["tz"] == "timestamp[us, tz=UTC]" and types["ints"] == "list<item: int32>"
    rows = result.fetchall()
    assert rows[0] == (
        1, 9000000000, 7, Decimal("12345.678"), 1.5, 2.25, "héllo", "abc", True, dt.date(2024, 2, 29),
        dt.datetime(2024, 2, 29, 12, 34, 56, 789000), dt.datetime(2024, 2, 29, 10, 0, tzinfo=dt.timezone.utc),
        b"\x00\xff", [1, None, 3], ["a", "b c"], "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", '{"k": [1, 2]}',
    )
    assert rows[1][3] == Decimal("-0.001") and rows[1][0] is None and rows[1][4:] == (None,) * 13


def test_postgres_tables_read_in_parallel_and_written_back(pg):
    _psql(pg, "DROP TABLE IF EXISTS big; CREATE TABLE big AS SELECT g AS k, g * 0.5 AS v FROM generate_series(1, 200000) g;")
    con = swingdb.connect()
    url = _pg_url(pg, table="big", workers=4)
    assert con.sql(f"SELECT count(*), sum(k), count(DISTINCT k) FROM '{url}'").fetchall() == [(200000, 20000100000, 200000)]
    con.sql(f"CREATE TABLE local AS SELECT * FROM '{_pg_url(pg, query='SELECT k, v FROM big WHERE k <= 1000')}'")
    assert con.sql("SELECT count(*), sum(v) FROM local").fetchall()[0][0] == 1000
    # swingdb -> PostgreSQL: a new table, created with matching types, atomically.
    con.sql("CREATE TABLE out AS SELECT value AS id, cast(value AS DECIMAL(10,2)) / 4 AS amount, 'n' || cast(value AS VARCHAR) AS name FROM range(50000)")
    con.sql(f"COPY out TO '{_pg_url(pg, table='backup')}'")
    assert _psql(pg, "SELECT count(*), sum(id), sum(amount) = 312493750, max(name) FROM backup") == "50000|1249975000|t|n9999"
    assert "numeric(" in _psql(pg, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'backup'::regclass AND attname = 'amount'")
    # A failed write leaves the table as it was: a value that does not fit the existing column.
    _psql(pg, "DROP TABLE IF EXISTS small; CREATE TABLE small (x smallint); INSERT INTO small VALUES (1);")
    with pytest.raises(swingdb.DataError, match="small"):
        con.sql(f"COPY (SELECT value * 1000 AS x FROM range(100)) TO '{_pg_url(pg, table='small')}'")
    assert _psql(pg, "SELECT count(*) FROM small") == "1"


def test_postgres_errors_name_the_problem(pg):
    _psql(pg, "DROP TABLE IF EXISTS odd; CREATE TABLE odd (p point);")
    con = swingdb.connect()
    with pytest.raises(swingdb.NotSupportedError, match="column 'p' has type point"):
        con.sql(f"SELECT * FROM '{_pg_url(pg, table='odd')}'")
    with pytest.raises(swingdb.ProgrammingError, match="table 'nope' does not exist"):
        con.sql(f"SELECT * FROM '{_pg_url(pg, table='nope')}'")
    with pytest.raises(swingdb.DataError, match="more than 0 decimal places|NaN"):
        _psql(pg, "DROP TABLE IF EXISTS nan; CREATE TABLE nan (x numeric); INSERT INTO nan VALUES ('NaN');")
        con.sql(f"SELECT * FROM '{_pg_url(pg, table='nan')}'").fetchall()


def test_psql_writes_csv_through_a_fifo(pg, tmp_path):
    _psql(pg, "DROP TABLE IF EXISTS src; CREATE TABLE src AS SELECT g AS id, 'x' || g AS label FROM generate_series(1, 20000) g;")
    name, path = _name(), str(tmp_path / "pg.csv")
    bridge = _fifo_bridge(name, path)
    _wait_for(path)
    psql = subprocess.Popen(["psql", "-X", "-q", pg.dsn, "-c", f"\\copy src TO '{path}' CSV HEADER"], stderr=subprocess.PIPE, text=True)
    con = swingdb.connect()
    assert con.pipe_from(name, "src") == 20000
    assert psql.wait(timeout=60) == 0, psql.stderr.read()
    assert bridge.wait(timeout=60) == 0
    assert con.sql("SELECT sum(id), max(label) FROM src").fetchall() == [(200010000, "x9999")]
