"""`swingdb serve` from ADBC's Flight SQL driver against PostgreSQL from ADBC's
PostgreSQL driver, on one machine: fetch throughput of --rows rows (two
BIGINT and a DOUBLE column) with one and two streams at once, plaintext and
TLS, a result as two endpoints that ADBC fetches in parallel (`--endpoints
2`), and the latency of `SELECT 1` and of a prepared point query by key (also
through Arrow's Flight SQL JDBC driver, when `make jars` fetched it and javac
is there), with the server's and the client's CPU time per query. Both
servers run locally (PostgreSQL from Debian's package, in a temporary
directory), each fetch on its own connection opened before the clock starts;
medians of --runs runs.

    python -m bench flight-sql [--quick] [--rows N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from .common import machine, report_target
from .report import replace_section, table

QUERY = "SELECT * FROM big"


def certificates(work: str, ip: str = "127.0.0.1") -> str:
    """A CA and a server certificate for `ip` in `work`."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=bench CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=bench")
    with open(os.path.join(work, "server.ext"), "w") as fh:
        fh.write(f"subjectAltName=IP:{ip}\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "1", "-extfile", "server.ext")
    return work


class Served:
    """`swingdb serve DB` (over TLS with `tls`), as a Flight SQL URI and ADBC options."""

    def __init__(self, db: str, token: str, tls: str | None, endpoints: int = 1):
        extra = ["--tls-cert", os.path.join(tls, "server.pem"), "--tls-key", os.path.join(tls, "server.key")] if tls else []
        extra += ["--endpoints", str(endpoints)]
        self.proc = subprocess.Popen([shutil.which("swingdb") or "swingdb", "serve", db, "--port", "0", *extra],
                                     stdout=subprocess.PIPE, text=True, env={**os.environ, "SWINGDB_TOKEN": token})
        self.uri = re.search(r"(grpc\S*://\S+)", self.proc.stdout.readline()).group(1)
        self.options = {"adbc.flight.sql.authorization_header": f"Bearer {token}"}
        if tls:
            self.options["adbc.flight.sql.client_option.tls_root_certs"] = open(os.path.join(tls, "ca.pem")).read()

    def connect(self):
        import adbc_driver_flightsql.dbapi as flightsql

        return flightsql.connect(self.uri, db_kwargs=self.options)

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def fetch_seconds(connect, streams: int, runs: int) -> float:
    """Median time of `streams` connections each fetching QUERY at once."""
    times = []
    for _ in range(runs):
        cons = [connect() for _ in range(streams)]
        errors = []

        def fetch(con):
            try:
                with con.cursor() as cur:
                    cur.execute(QUERY)
                    cur.fetch_arrow_table()
            except Exception as e:  # reported after the run
                errors.append(e)

        threads = [threading.Thread(target=fetch, args=(c,)) for c in cons]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        times.append(time.perf_counter() - start)
        for c in cons:
            c.close()
        if errors:
            raise errors[0]
    return statistics.median(times)


POINT = "SELECT v FROM keyed WHERE id = $1"
KEYED_ROWS = 1_000_000


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) process `pid` has used."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def latency_ms(connect, queries: int, sql: str = "SELECT 1", keyed: bool = False,
               server: int | None = None) -> tuple[float, float, dict]:
    """p50 and p99 of `sql` on one connection, in milliseconds; with `keyed`,
    `sql` takes a key as its parameter (a prepared statement, bound anew each
    time with a different key). The third item: the CPU milliseconds per
    query of this process (the client) and of the process `server`, if given."""
    keys = [(i * 7919) % KEYED_ROWS for i in range(queries + 20)]
    with connect() as con, con.cursor() as cur:
        times = []
        for i, key in enumerate(keys):
            if i == 20:
                client_cpu, server_cpu = time.process_time(), server and cpu_seconds(server)
            start = time.perf_counter()
            cur.execute(sql, (key,) if keyed else None)
            cur.fetchall()
            if i >= 20:
                times.append(time.perf_counter() - start)
        cpu = {"client": (time.process_time() - client_cpu) / queries * 1e3}
        if server:
            cpu["server"] = (cpu_seconds(server) - server_cpu) / queries * 1e3
    times.sort()
    return times[len(times) // 2] * 1e3, times[int(len(times) * 0.99)] * 1e3, cpu


JDBC_DRIVER = os.path.join(os.environ.get("SWINGDB_JARS", os.path.expanduser("~/.cache/swingdb-jars")),
                           "flight-sql-jdbc-driver-18.1.0.jar")


# Untimed queries before JDBC's are timed: the JVM compiles the driver's
# code as it runs (after 200, a point query took three times as long as after 2,000).
JDBC_WARMUP = 2000


def jdbc_latency_ms(uri: str, token: str, queries: int, work: str) -> dict | None:
    """p50s and p99s (ms) of `SELECT 1` on a reused Statement and of the
    prepared point query through Arrow's Flight SQL JDBC driver, and the
    server's CPU ms per point query; None without the driver or javac."""
    if not (os.path.exists(JDBC_DRIVER) and shutil.which("javac") and shutil.which("java")):
        print("  (JDBC skipped: no javac, or no driver; `make jars` fetches it)")
        return None
    source = os.path.join(os.path.dirname(__file__), "jdbc", "PointLatency.java")
    classes = os.path.join(work, "jdbc")
    subprocess.run(["javac", "-d", classes, source], check=True, capture_output=True)
    url = f"jdbc:arrow-flight-sql://{uri.removeprefix('grpc://')}/?useEncryption=false&token={token}"
    run = subprocess.run(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", f"{classes}:{JDBC_DRIVER}",
                          "PointLatency", url, str(queries), str(KEYED_ROWS), str(JDBC_WARMUP)], capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"the JDBC client failed: {run.stderr[:3000]}")
    return {k: float(v) for k, v in (line.split("=", 1) for line in run.stdout.splitlines() if "=" in line)}


def _protobuf_field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    length, size = b"", len(payload)
    while True:
        byte, size = size & 0x7F, size >> 7
        length += bytes([byte | (0x80 if size else 0)])
        if not size:
            return bytes([number << 3 | 2]) + length + payload


def raw_latency_ms(uri: str, token: str, queries: int) -> dict:
    """p50s in milliseconds through pyarrow's Flight client (C++ gRPC), which
    isolates the server from ADBC's Go driver: `GetFlightInfo` + `DoGet` of
    `SELECT 1` and of a point query by key (the key in the text), and a
    `ListActions` call (the transport alone)."""
    import pyarrow.flight as flight

    client = flight.FlightClient(uri)
    options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())])
    statement = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"

    def p50(run) -> float:
        times = []
        for i in range(queries + 20):
            start = time.perf_counter()
            run(i)
            if i >= 20:
                times.append(time.perf_counter() - start)
        return statistics.median(times) * 1e3

    def query(sql: str):
        command = _protobuf_field(1, statement) + _protobuf_field(2, _protobuf_field(1, sql.encode()))
        info = client.get_flight_info(flight.FlightDescriptor.for_command(command), options)
        client.do_get(info.endpoints[0].ticket, options).read_all()

    return {
        "select1": p50(lambda i: query("SELECT 1")),
        "point": p50(lambda i: query(POINT.replace("$1", str((i * 7919) % KEYED_ROWS)))),
        "transport": p50(lambda i: list(client.list_actions(options))),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10^6 rows, one run; report to bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.runs = 1_000_000, 1
    import adbc_driver_postgresql.dbapi as pgdbapi

    from .postgres import LocalPostgres

    doc, img = report_target(args.quick)
    work = tempfile.mkdtemp(prefix="swingdb-bench-flight-")
    token = uuid.uuid4().hex
    rows = []
    queries = 200 if args.quick else 1000
    try:
        import swingdb

        with swingdb.connect(os.path.join(work, "served.swingdb")) as con:
            con.sql(f"CREATE TABLE big AS SELECT value AS id, value % 1000 AS k, value * 0.5::DOUBLE AS x FROM range({args.rows})")
            con.sql("CREATE TABLE keyed (id BIGINT PRIMARY KEY, v DOUBLE)")
            con.sql(f"INSERT INTO keyed SELECT value, value * 0.5 FROM range({KEYED_ROWS})")
        tls = certificates(work)
        with LocalPostgres(port=54333) as pg:
            with pgdbapi.connect(pg.uri) as con, con.cursor() as cur:
                cur.execute("DROP TABLE IF EXISTS big")
                cur.execute(f"CREATE TABLE big AS SELECT g::bigint AS id, (g % 1000)::bigint AS k, g * 0.5::float8 AS x "
                            f"FROM generate_series(0, {args.rows - 1}) g")
                cur.execute("DROP TABLE IF EXISTS keyed")
                cur.execute("CREATE TABLE keyed (id BIGINT PRIMARY KEY, v DOUBLE PRECISION)")
                cur.execute(f"INSERT INTO keyed SELECT g, g * 0.5 FROM generate_series(0, {KEYED_ROWS - 1}) g")
                con.commit()
            systems = [("PostgreSQL, ADBC", lambda: pgdbapi.connect(pg.uri))]
            servers = [Served(os.path.join(work, "served.swingdb"), token, None)]
            try:
                servers.append(Served(os.path.join(work, "served.swingdb"), token, tls))
                servers.append(Served(os.path.join(work, "served.swingdb"), token, None, endpoints=2))
                systems += [("swingdb serve, ADBC Flight SQL", servers[0].connect),
                            ("swingdb serve, ADBC Flight SQL, TLS", servers[1].connect),
                            ("swingdb serve --endpoints 2, ADBC Flight SQL", servers[2].connect)]
                pids = {"swingdb serve, ADBC Flight SQL": servers[0].proc.pid}
                for name, connect in systems:
                    p50, p99, _ = latency_ms(connect, queries)
                    row = {"system": name, "select1_p50_ms": round(p50, 2), "select1_p99_ms": round(p99, 2)}
                    point50, point99, cpu = latency_ms(connect, queries, POINT, keyed=True, server=pids.get(name))
                    row.update(point_p50_ms=round(point50, 3), point_p99_ms=round(point99, 3),
                               point_client_cpu_ms=round(cpu["client"], 3))
                    if "server" in cpu:
                        row["point_server_cpu_ms"] = round(cpu["server"], 3)
                    for streams in (1, 2):
                        seconds = fetch_seconds(connect, streams, args.runs)
                        row[f"fetch_{streams}_s"] = round(seconds, 3)
                        row[f"fetch_{streams}_gb_s"] = round(streams * args.rows * 24 / seconds / 1e9, 2)
                    if name == "swingdb serve, ADBC Flight SQL":
                        raw = raw_latency_ms(servers[0].uri, token, queries)
                        row.update(raw_select1_p50_ms=round(raw["select1"], 3), raw_point_p50_ms=round(raw["point"], 3),
                                   transport_p50_ms=round(raw["transport"], 3))
                        jdbc = jdbc_latency_ms(servers[0].uri, token, queries, work)
                        if jdbc:
                            row.update({f"jdbc_{k}": round(v, 3) for k, v in jdbc.items()})
                    print(f"  {name:38} SELECT 1 p50 {p50:.2f} ms p99 {p99:.2f} ms; point by key p50 {point50:.3f} ms; "
                          f"1 stream {row['fetch_1_s']} s ({row['fetch_1_gb_s']} GB/s), 2 streams {row['fetch_2_gb_s']} GB/s", flush=True)
                    rows.append(row)
            finally:
                for s in servers:
                    s.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_report(args, rows, doc, img)


def write_report(args, rows: list[dict], doc: str, img: str) -> None:
    info = machine()
    pg = next(r for r in rows if r["system"].startswith("PostgreSQL"))
    cells = [[r["system"], r["select1_p50_ms"], r["select1_p99_ms"], r["point_p50_ms"], r["point_p99_ms"], f"{r['fetch_1_s']:.3f}",
              f"{pg['fetch_1_s'] / r['fetch_1_s']:.1f}x", r["fetch_1_gb_s"], r["fetch_2_gb_s"]] for r in rows]
    lines = [
        "## Flight SQL server (`python -m bench flight-sql`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, "
        f"client and server on the same machine (loopback); swingdb {info['swingdb']}. {args.rows:,} rows of two BIGINT "
        f"and a DOUBLE column ({args.rows * 24 / 1e6:.0f} MB of Arrow data) fetched whole with `fetch_arrow_table`, "
        f"one connection per stream; median of {args.runs} run(s). GB/s counts the Arrow bytes of all streams. "
        "With `--endpoints 2` each result comes as two endpoints, which ADBC fetches in parallel. "
        f"Point by key: `{POINT}` prepared and bound with a new key each time, on a table of {KEYED_ROWS:,} rows with "
        "a BIGINT PRIMARY KEY (an index in PostgreSQL). "
        f"`python -m bench flight-sql {' '.join(sys.argv[1:])}`.",
        "",
        table(["system", "SELECT 1 p50 ms", "p99 ms", "point by key p50 ms", "p99 ms", "fetch s", "vs PostgreSQL", "1 stream GB/s", "2 streams GB/s"], cells, right=1),
    ]
    raw = next((r for r in rows if "raw_point_p50_ms" in r), None)
    if raw:
        lines += [
            "",
            "The same server through pyarrow's Flight client (C++ gRPC) instead of ADBC's Go driver, p50 of "
            f"`GetFlightInfo` + `DoGet`: `SELECT 1` {raw['raw_select1_p50_ms']:.2f} ms, point by key (the key in the "
            f"text) {raw['raw_point_p50_ms']:.2f} ms; a `ListActions` call, the transport alone, "
            f"{raw['transport_p50_ms']:.2f} ms. What ADBC adds above these is the client's (a prepared statement is "
            "three calls: `DoPut` of the parameters, `GetFlightInfo`, `DoGet`): the prepared point query took "
            f"{raw['point_server_cpu_ms']:.2f} ms of the server's CPU time and {raw['point_client_cpu_ms']:.2f} ms of "
            "the client's (ADBC's Go driver collects its garbage at every statement's end: `GODEBUG=gctrace=1` "
            "shows one forced collection per query).",
        ]
        if "jdbc_point_p50_ms" in raw:
            lines += [
                "",
                f"Through Arrow's Flight SQL JDBC driver (Java 17, after {JDBC_WARMUP:,} untimed queries): the prepared point "
                f"query p50 {raw['jdbc_point_p50_ms']:.2f} ms (p99 {raw['jdbc_point_p99_ms']:.2f}), `SELECT 1` on one "
                f"reused `Statement` {raw['jdbc_select1_p50_ms']:.2f} ms (the driver prepares a statement for each).",
            ]
    path = os.path.join(img, "flight-sql.png")
    plot(rows, path)
    lines += ["", f"![Flight SQL](img/{os.path.basename(path)})", ""]
    replace_section(doc, "flight-sql", "\n".join(lines))


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 2.8))
    names = [r["system"] for r in rows]
    for offset, streams, color in ((-0.2, 1, "#1f77b4"), (0.2, 2, "#ff7f0e")):
        ax.barh([i + offset for i in range(len(rows))], [r[f"fetch_{streams}_gb_s"] for r in rows], height=0.4,
                color=color, label=f"{streams} stream{'s' if streams > 1 else ''}")
    ax.set_yticks(range(len(rows)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s of Arrow data fetched (higher is better)")
    ax.legend(fontsize=8)
    ax.set_title("Fetching a table over ADBC: swingdb serve (Flight SQL) and PostgreSQL", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
