"""A hostile Flight SQL client against `swingdb serve`: with the token, it
asks for sorts of a 2M-row table and never fetches them, begins transactions
and prepared statements and abandons them, and sends garbage, while an honest
client on its own connection runs a query every few calls. The server must
stay up, answer no call with INTERNAL (our bug) or Rust debug text, refuse
the hostile client with RESOURCE_EXHAUSTED rather than grow past its budget
(its resident memory may grow by less than 1 GB), and never refuse the
honest client."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time

TOKEN = "stress-token-0123456789abcdef0123456789"
SQL = "type.googleapis.com/arrow.flight.protocol.sql."


def _field(number: int, data: bytes) -> bytes:
    """A length-delimited protobuf field, written by hand."""
    key, length, out = (number << 3) | 2, len(data), b""
    for n in (key, length):
        while True:
            low, n = n & 0x7F, n >> 7
            out += bytes([low | (0x80 if n else 0)])
            if not n:
                break
    return out + data


def _any(name: str, body: bytes) -> bytes:
    return _field(1, (SQL + name).encode()) + _field(2, body)


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def run(budget, work, rng: random.Random, tally, rows=2_000_000):
    import pyarrow as pa
    import pyarrow.flight as flight

    start = time.time()
    db = os.path.join(work, "served.swingdb")
    shutil.rmtree(db, ignore_errors=True)
    program = shutil.which("swingdb")
    if not program:
        tally.extra = "skipped: the swingdb program is not installed (make build)"
        return
    import swingdb

    con = swingdb.connect(db)
    con.sql(f"CREATE TABLE big AS SELECT value AS x, value % 1000 AS y FROM range({rows})")
    con.close()
    server = subprocess.Popen([program, "serve", db, "--port", "0", "--result-timeout", "5"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "SWINGDB_TOKEN": TOKEN})
    try:
        uri = "grpc://" + re.search(r"grpc://(\S+)", server.stdout.readline()).group(1)
        options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {TOKEN}".encode())])

        def query(client, sql):
            return client.get_flight_info(flight.FlightDescriptor.for_command(_any("CommandStatementQuery", _field(1, sql.encode()))), options)

        honest = flight.FlightClient(uri)
        hostile = flight.FlightClient(uri)
        before = peak = _rss_mib(server.pid)
        calls = 0
        while time.time() - start < budget:
            kind = rng.choice(["sort", "sort", "transaction", "prepare", "garbage"])
            try:
                if kind == "sort":
                    query(hostile, f"SELECT * FROM big ORDER BY y DESC, x LIMIT {100000 + rng.randrange(1000)}")
                elif kind == "transaction":
                    list(hostile.do_action(flight.Action("BeginTransaction", _any("ActionBeginTransactionRequest", b"")), options))
                elif kind == "prepare":
                    body = _any("ActionCreatePreparedStatementRequest", _field(1, b"SELECT * FROM big WHERE x = ?"))
                    list(hostile.do_action(flight.Action("CreatePreparedStatement", body), options))
                else:
                    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60)))
                    hostile.get_flight_info(flight.FlightDescriptor.for_command(rng.choice([junk, _any("CommandStatementQuery", b"\x0a\x90" + junk)])), options)
                outcome = "accepted"
            except (flight.FlightError, pa.ArrowException) as e:
                # (pyarrow raises ArrowInvalid for RESOURCE_EXHAUSTED and INVALID_ARGUMENT.)
                outcome = type(e).__name__
                if isinstance(e, flight.FlightInternalError) or "Error {" in str(e) or "Error(" in str(e):
                    tally.fail(f"{kind}: {type(e).__name__}: {str(e)[:300]}")
                elif kind != "garbage" and "the most" not in str(e) and "budget" not in str(e):
                    tally.fail(f"{kind} refused without naming a limit: {str(e)[:300]}")
            tally.counts[f"{kind}: {outcome}"] = tally.counts.get(f"{kind}: {outcome}", 0) + 1
            tally.trials += 1
            calls += 1
            if server.poll() is not None:
                tally.fail(f"the server died ({server.returncode}): {server.stderr.read()[-300:]}")
                return
            peak = max(peak, _rss_mib(server.pid))
            if calls % 10 == 0:
                try:
                    info = query(honest, "SELECT count(*) AS n FROM big")
                    got = honest.do_get(info.endpoints[0].ticket, options).read_all().column(0).to_pylist()
                    if got != [rows]:
                        tally.fail(f"the honest client read {got}")
                except (flight.FlightError, pa.ArrowException) as e:
                    tally.fail(f"the honest client was refused: {str(e)[:300]}")
        growth = peak - before
        tally.counts["peak RSS growth (MiB)"] = int(growth)
        if growth >= 1024:
            tally.fail(f"the server's resident memory grew by {growth:.0f} MiB")
    finally:
        server.kill()
        server.wait()
