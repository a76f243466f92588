"""Cancelling: Ctrl-C (SIGINT) and con.interrupt() stop a running statement or
fetch quickly, keep nothing it did, and leave the connection usable."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import swingdb

# Seconds of work on this machine for each (checked: they outlast the delays below).
LONG_QUERY = "SELECT sum(a.value * b.value) FROM range(100000) a, range(100000) b"
LONG_INSERT = "INSERT INTO t SELECT a.value FROM range(20000) a, range(20000) b"

# The issue asks for ~100 ms; a loaded CI machine gets this much slack.
PROMPT = 1.0


def _in_child(pieces: list[str], tmp_path) -> dict:
    """Runs `body` in a Python subprocess that prints "ready" before the work
    to cancel; sends it SIGINT 0.3 s later and returns the JSON it prints."""
    script = textwrap.dedent(
        """
        import json, signal, sys, time
        import swingdb
        received = []
        def handler(signum, frame):
            received.append(time.perf_counter())
            raise KeyboardInterrupt
        signal.signal(signal.SIGINT, handler)
        con = swingdb.connect(sys.argv[1])
        """
    ) + "".join(textwrap.dedent(piece) for piece in pieces)
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "db")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "ready", child.stderr.read()
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    return json.loads(out)


CANCELLED = """
    try:
        {work}
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "KeyboardInterrupt"
    latency = time.perf_counter() - received[0] if received else None
"""


def test_ctrl_c_cancels_a_running_query(tmp_path):
    got = _in_child(
        [
        """
        print("ready", flush=True)
        """,
        CANCELLED.format(work=f"con.sql({LONG_QUERY!r}).fetchall()"),
        """
        print(json.dumps({"outcome": outcome, "latency": latency, "after": con.sql("SELECT 41 + 1").fetchall()[0][0]}))
        """,
        ],
        tmp_path,
    )
    assert got["outcome"] == "KeyboardInterrupt"
    assert got["latency"] < PROMPT, got
    assert got["after"] == 42  # the connection goes on


def test_ctrl_c_cancels_an_insert_and_keeps_nothing(tmp_path):
    got = _in_child(
        [
        """
        con.sql("CREATE TABLE t AS SELECT 7 AS x")
        print("ready", flush=True)
        """,
        CANCELLED.format(work=f"con.sql({LONG_INSERT!r})"),
        """
        rows = con.sql("SELECT x FROM t").fetchall()
        con.close()
        again = swingdb.connect(sys.argv[1]).sql("SELECT count(*) FROM t").fetchall()[0][0]
        print(json.dumps({"outcome": outcome, "latency": latency, "rows": rows, "reopened": again}))
        """,
        ],
        tmp_path,
    )
    assert got["outcome"] == "KeyboardInterrupt"
    # A segment being written when the signal comes is finished first (up to ~1 s on a slow disk).
    assert got["latency"] < PROMPT + 2, got
    assert got["rows"] == [[7]] and got["reopened"] == 1


def test_interrupt_from_another_thread_cancels_a_query():
    con = swingdb.connect()
    timer = threading.Timer(0.3, con.interrupt)
    timer.start()
    started = time.perf_counter()
    with pytest.raises(swingdb.InterruptError, match="cancelled") as caught:
        con.sql(LONG_QUERY).fetchall()
    assert time.perf_counter() - started < 0.3 + PROMPT
    assert isinstance(caught.value, swingdb.OperationalError)
    assert con.sql("SELECT 1 AS one").fetchall() == [(1,)]


def test_interrupt_inside_a_transaction_undoes_only_that_statement(tmp_path):
    con = swingdb.connect(str(tmp_path / "db"))
    con.sql("CREATE TABLE t (x BIGINT)")
    con.begin()
    con.sql("INSERT INTO t VALUES (1), (2)")
    threading.Timer(0.3, con.interrupt).start()
    with pytest.raises(swingdb.InterruptError):
        con.sql(LONG_INSERT)
    assert con.in_transaction
    con.commit()
    assert con.sql("SELECT x FROM t ORDER BY x").fetchall() == [(1,), (2,)]
    assert not [f for f in os.listdir(tmp_path / "db" / "segments") if f.endswith(".tmp")] if (tmp_path / "db" / "segments").exists() else True


def test_interrupt_with_nothing_running_does_not_cancel_the_next_statement():
    con = swingdb.connect()
    con.interrupt()
    assert con.sql("SELECT count(*) AS n FROM range(1000)").fetchall() == [(1000,)]


def test_interrupt_while_streaming_out():
    con = swingdb.connect()
    reader = con.sql(LONG_QUERY).fetch_record_batch()
    threading.Timer(0.3, con.interrupt).start()
    with pytest.raises(swingdb.InterruptError):
        reader.read_all()


def test_ctrl_c_in_the_shell_cancels_the_statement_and_keeps_the_shell(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    from test_cli import CLI

    # A terminal the line editor drives in raw mode, where Ctrl-C at the prompt is a key.
    child = pexpect.spawn(CLI, encoding="utf-8", timeout=30, env={"HOME": str(tmp_path), "TERM": "xterm"})
    child.expect("swingdb> ")
    child.sendline(LONG_QUERY + ";")
    time.sleep(0.5)
    sent = time.perf_counter()
    child.sendintr()
    child.expect("interrupted")
    assert time.perf_counter() - sent < PROMPT + 1
    child.expect("swingdb> ")
    child.sendline("SELECT 40 + 2 AS answer;")
    child.expect("42")
    child.expect("swingdb> ")
    child.sendintr()  # an empty line: the first Ctrl-C says how to leave
    child.expect("Ctrl-C again")
    child.sendintr()
    child.expect(pexpect.EOF)


def test_the_shell_draws_a_progress_bar_from_the_engine_and_clears_it(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    from test_cli import CLI

    child = pexpect.spawn(CLI, encoding="utf-8", timeout=30, env={"HOME": str(tmp_path), "TERM": "xterm"})
    child.expect("swingdb> ")
    child.sendline("CREATE TABLE big AS SELECT value AS v FROM range(200000);")
    child.expect("swingdb> ")
    child.sendline(".progress 0")  # at once, rather than after 2 s
    child.expect("swingdb> ")
    # A cross join of a stored table: its scan reports rows read of the table's exact size.
    child.sendline("SELECT count(*) FROM big a, big b WHERE a.v + b.v < 0;")
    child.expect(r"\[#* *\]\s+\d+% \d+/400000 rows, [\d.]+ [KMG]iB")
    child.sendintr()
    # The bar is cleared (carriage return, erase line) before the error is printed.
    child.expect("\r\x1b\\[K")
    child.expect("interrupted")
    child.expect("swingdb> ")
    child.sendline(".progress sometimes")
    child.expect("usage: .progress on\\|off\\|SECONDS")
    child.sendline(".quit")
    child.expect(pexpect.EOF)


def test_long_statements_show_their_progress_from_the_engine(tmp_path):
    import io

    shown = io.StringIO()
    con = swingdb.connect(str(tmp_path / "db"))
    con.sql("CREATE TABLE big AS SELECT value AS v FROM range(100000)")

    def slow(x):  # a stand-in for real work: each batch takes a while
        time.sleep(0.3)
        return x

    con.create_function("slow", slow, ["BIGINT"], "BIGINT", type="arrow")
    try:
        swingdb.set_progress(True, after=0.05, file=shown)
        assert con.sql("SELECT sum(slow(v)) FROM big").fetchall() == [(sum(range(100000)),)]
        text = shown.getvalue()
        # Rows the scan read, of the table's 100,000 (known from storage), and the line cleared at the end.
        assert "/100,000 rows" in text and "100% 100,000/100,000 rows" in text, text
        assert text.endswith("\r\x1b[K")
        shown.seek(0)
        shown.truncate()
        assert con.sql("SELECT count(*) FROM big").fetchall() == [(100000,)]
        assert "rows" not in shown.getvalue()  # quick statements show nothing
        swingdb.set_progress(False)
        con.sql("SELECT sum(slow(v)) FROM big").fetchall()
        assert "rows" not in shown.getvalue()
    finally:
        swingdb.set_progress(True)


# -- pipes: every wait for the partner ends at Ctrl-C ------------------------------------


def _pipe_name(tmp_path) -> str:
    return f"ctrl-c-{os.getpid()}-{abs(hash(str(tmp_path))) % 10**8}"


@pytest.mark.parametrize("side", ["import", "export"])
def test_ctrl_c_stops_a_pipe_waiting_for_its_partner(tmp_path, side):
    name = _pipe_name(tmp_path)
    work = {
        "import": f"con.sql(\"SELECT * FROM 'db://{name}?timeout=60'\").fetchall()",
        "export": f"con.pipe_to({name!r}, 'SELECT 1', timeout=60)",
    }[side]
    got = _in_child(
        [
        """
        import swingdb.pipe
        print("ready", flush=True)
        """,
        CANCELLED.format(work=work),
        f"""
        waiting = [w.name for w in swingdb.pipe.waiting()]
        print(json.dumps({{"outcome": outcome, "latency": latency, "left": {name!r} in waiting}}))
        """,
        ],
        tmp_path,
    )
    assert got["outcome"] == "KeyboardInterrupt"
    assert got["latency"] < PROMPT, got
    assert not got["left"], "the endpoint is gone with the wait"


def _partner(script: str, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_ctrl_c_stops_an_exporter_whose_importer_stopped_reading(tmp_path):
    name = _pipe_name(tmp_path)
    # An importer that takes the first batch and then reads nothing more: the
    # exporter's sockets fill and its writes block.
    importer = _partner(
        """
        import sys, time, swingdb.pipe
        reader = swingdb.pipe.reader(sys.argv[1], timeout=60)
        reader.read_next_batch()
        print("reading", flush=True)
        time.sleep(120)
        """,
        name,
    )
    try:
        got = _in_child(
            [
            # "ready" once the transfer is under way (the importer took a batch).
            """
            import threading
            threading.Timer(1.5, lambda: print("ready", flush=True)).start()
            """,
            CANCELLED.format(work=f"con.pipe_to({name!r}, 'SELECT value, value * 2 AS w FROM range(200000000)', timeout=60)"),
            """
            print(json.dumps({"outcome": outcome, "latency": latency}))
            """,
            ],
            tmp_path,
        )
        assert importer.stdout.readline().strip() == "reading", importer.stderr.read()
    finally:
        importer.kill()
        importer.wait()
    assert got["outcome"] == "KeyboardInterrupt"
    assert got["latency"] < PROMPT, got


def test_ctrl_c_stops_an_importer_whose_exporter_stopped_mid_stream(tmp_path):
    name = _pipe_name(tmp_path)
    # An exporter that sends one batch and then stops itself (SIGSTOP): the
    # importer's streams go silent with the connection open.
    exporter = _partner(
        """
        import os, signal, sys, pyarrow as pa, swingdb.pipe
        w = swingdb.pipe.writer(sys.argv[1], pa.schema([("x", pa.int64())]), timeout=60)
        w.write(pa.table({"x": list(range(1000))}))
        os.kill(os.getpid(), signal.SIGSTOP)
        """,
        name,
    )
    try:
        got = _in_child(
            [
            """
            import threading
            threading.Timer(1.5, lambda: print("ready", flush=True)).start()
            """,
            CANCELLED.format(work=f"con.sql(\"SELECT count(*) FROM 'db://{name}?timeout=60'\").fetchall()"),
            """
            print(json.dumps({"outcome": outcome, "latency": latency}))
            """,
            ],
            tmp_path,
        )
    finally:
        exporter.kill()
        exporter.wait()
    assert got["outcome"] == "KeyboardInterrupt"
    assert got["latency"] < PROMPT, got
