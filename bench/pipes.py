"""Pipes between databases on one host (seed 004, PipeGen's Figures): a table
moved from one system to another, each side in its own process, against the
paper's baseline (export CSV to a file, import the file) and, for PostgreSQL,
against ADBC and ConnectorX.

Datasets: the paper's synthetic table (an integer key and three (integer,
double) pairs; --rows, 10^7 by default) and TPC-H lineitem (--scale).
Transfers: swingdb -> swingdb (a stored table: handed over as files; a query:
streamed, with 1, 2 and 4 workers and each compression), DuckDB <-> swingdb,
PostgreSQL <-> swingdb (with --postgres: Debian's server in a temporary
directory). Each figure is the median of --runs runs of the time from "go" to
both processes done (setup, connecting and process start are not counted),
with the peak resident memory of each side.

    python -m bench pipes [--quick] [--rows N] [--scale SF] [--runs R] [--postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid

from .common import ROOT, machine, report_target
from .report import replace_section, table

PRELUDE = """
import json, os, sys, time
def ready():
    print("ready", flush=True)
    sys.stdin.readline()
def done(**extra):
    # VmHWM: this process's own peak (ru_maxrss would include the parent's from before exec).
    rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
    print(json.dumps({"rss_mb": rss, **extra}), flush=True)
ARGS = json.loads(sys.argv[1])
"""


class Side:
    """One end of a transfer: a Python process that sets up, says ready, waits for go, works, reports.
    `prefix` runs it through another program (`ip netns exec NS`, for another host)."""

    def __init__(self, code: str, args: dict, prefix: tuple[str, ...] = ()):
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-c", PRELUDE + textwrap.dedent(code), json.dumps(args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"side failed to start: {line}{self.proc.stderr.read()}")

    def go(self):
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def result(self) -> dict:
        line = self.proc.stdout.readline()
        while line and not line.startswith("{"):  # anything a library printed on the way
            line = self.proc.stdout.readline()
        self.proc.wait(timeout=600)
        if self.proc.returncode != 0 or not line:
            raise RuntimeError(f"side failed: {line}{self.proc.stderr.read()}")
        return json.loads(line)


def run_pair(export: str, import_: str, args: dict, prefixes: tuple[tuple, tuple] = ((), ())) -> dict:
    """Starts both sides, then times from go to both done."""
    a = Side(export, args, prefixes[0])
    b = Side(import_, args, prefixes[1])
    t0 = time.perf_counter()
    a.go()
    b.go()
    ra, rb = a.result(), b.result()
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "export_rss_mb": ra["rss_mb"], "import_rss_mb": rb["rss_mb"], "rows": rb.get("rows", ra.get("rows"))}


# -- the sides ---------------------------------------------------------------
# Every side gets ARGS: src (a swingdb database holding the table), table,
# pipe (a pipe name), url options, csv (a path), pg (a libpq URI), pg_table.

SWINGDB_SEND_TABLE = """
import swingdb
con = swingdb.connect(ARGS["src"])
ready()
rows = con.pipe_to(ARGS["pipe"], ARGS["table"], **ARGS["options"])
done(rows=rows)
"""

SWINGDB_SEND_QUERY = """
import swingdb
con = swingdb.connect(ARGS["src"])
ready()
rows = con.pipe_to(ARGS["pipe"], "SELECT * FROM " + ARGS["table"], **ARGS["options"])
done(rows=rows)
"""

SWINGDB_RECV = """
import shutil, swingdb
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
ready()
rows = con.pipe_from(ARGS["pipe"], "t", **ARGS["options"])
done(rows=rows)
"""

SWINGDB_CSV_EXPORT = """
import swingdb
con = swingdb.connect(ARGS["src"])
ready()
con.sql(f"COPY {ARGS['table']} TO '{ARGS['csv']}' (FORMAT csv)")
open(ARGS["csv"] + ".done", "w").close()
done()
"""

WAIT_FOR_CSV = """
def wait_for_csv():
    while not os.path.exists(ARGS["csv"] + ".done"):
        time.sleep(0.005)
"""

SWINGDB_CSV_IMPORT = WAIT_FOR_CSV + """
import shutil, swingdb
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
ready()
wait_for_csv()
r = con.sql(f"CREATE TABLE t AS SELECT * FROM read_csv('{ARGS['csv']}')")
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

DUCKDB_SEND = """
import duckdb, swingdb
duck = duckdb.connect(ARGS["duck"], read_only=True)
duck.execute("SET enable_progress_bar = false")
ready()
reader = duck.sql("SELECT * FROM " + ARGS["table"]).to_arrow_reader(1 << 17)
rows = swingdb.pipe.send(ARGS["pipe"], reader, **ARGS["options"])
done(rows=rows)
"""

DUCKDB_RECV = """
import duckdb, swingdb
duck = duckdb.connect()
duck.execute("SET enable_progress_bar = false")
ready()
reader = swingdb.pipe.reader(ARGS["pipe"], **ARGS["options"])
duck.sql("CREATE TABLE t AS SELECT * FROM reader")
done(rows=duck.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

DUCKDB_CSV_EXPORT = """
import duckdb
duck = duckdb.connect(ARGS["duck"], read_only=True)
duck.execute("SET enable_progress_bar = false")
ready()
duck.sql(f"COPY {ARGS['table']} TO '{ARGS['csv']}' (FORMAT csv, HEADER)")
open(ARGS["csv"] + ".done", "w").close()
done()
"""

DUCKDB_CSV_IMPORT = WAIT_FOR_CSV + """
import duckdb
duck = duckdb.connect()
duck.execute("SET enable_progress_bar = false")
ready()
wait_for_csv()
duck.sql(f"CREATE TABLE t AS SELECT * FROM read_csv('{ARGS['csv']}')")
done(rows=duck.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

PG_TO_SWINGDB = """
import shutil, swingdb
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
ready()
url = ARGS["pg"] + "&table=" + ARGS["pg_table"] + "&workers=" + str(ARGS["workers"])
con.sql(f"CREATE TABLE t AS SELECT * FROM '{url}'")
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

PG_ADBC_TO_SWINGDB = """
import shutil, swingdb, adbc_driver_postgresql.dbapi as adbc
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
pg = adbc.connect(ARGS["pg_uri"])
ready()
with pg.cursor() as cur:
    cur.execute("SELECT * FROM " + ARGS["pg_table"])
    con.create_table("t", cur.fetch_record_batch(), progress=False)
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

PG_CX_TO_SWINGDB = """
import shutil, swingdb, connectorx as cx
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
ready()
query = "SELECT * FROM " + ARGS["pg_table"]
if ARGS["workers"] > 1:
    table = cx.read_sql(ARGS["cx_uri"], query, return_type="arrow", partition_on=ARGS["key"], partition_num=ARGS["workers"])
else:
    table = cx.read_sql(ARGS["cx_uri"], query, return_type="arrow")
con.create_table("t", table, progress=False)
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

PG_CSV_TO_SWINGDB = """
import shutil, subprocess, swingdb
shutil.rmtree(ARGS["dst"], ignore_errors=True)
con = swingdb.connect(ARGS["dst"])
ready()
subprocess.run(["psql", "-X", "-q", ARGS["pg_dsn"], "-c", f"\\\\copy {ARGS['pg_table']} TO '{ARGS['csv']}' CSV HEADER"], check=True)
con.sql(f"CREATE TABLE t AS SELECT * FROM read_csv('{ARGS['csv']}')")
done(rows=con.sql("SELECT count(*) FROM t").fetchall()[0][0])
"""

SWINGDB_TO_PG = """
import subprocess, swingdb
con = swingdb.connect(ARGS["src"])
subprocess.run(["psql", "-X", "-q", ARGS["pg_dsn"], "-c", "DROP TABLE IF EXISTS bench_in"], check=True)
ready()
con.sql(f"COPY {ARGS['table']} TO '{ARGS['pg']}&table=bench_in'")
done()
"""

SWINGDB_TO_PG_ADBC = """
import subprocess, swingdb, adbc_driver_postgresql.dbapi as adbc
con = swingdb.connect(ARGS["src"])
subprocess.run(["psql", "-X", "-q", ARGS["pg_dsn"], "-c", "DROP TABLE IF EXISTS bench_in"], check=True)
pg = adbc.connect(ARGS["pg_uri"])
ready()
with pg.cursor() as cur:
    rows = cur.adbc_ingest("bench_in", con.sql("SELECT * FROM " + ARGS["table"]).fetch_record_batch(), mode="create")
pg.commit()
done(rows=rows)
"""

SWINGDB_TO_PG_CSV = """
import subprocess, swingdb
con = swingdb.connect(ARGS["src"])
subprocess.run(["psql", "-X", "-q", ARGS["pg_dsn"], "-c", "DROP TABLE IF EXISTS bench_in; CREATE TABLE bench_in (LIKE " + ARGS["pg_table"] + ")"], check=True)
ready()
con.sql(f"COPY {ARGS['table']} TO '{ARGS['csv']}' (FORMAT csv)")
subprocess.run(["psql", "-X", "-q", ARGS["pg_dsn"], "-c", f"\\\\copy bench_in FROM '{ARGS['csv']}' CSV HEADER"], check=True)
done()
"""

NOTHING = """
ready()
done()
"""


# -- datasets ------------------------------------------------------------------


def make_datasets(args, work: str) -> dict:
    """swingdb and DuckDB copies of each dataset (built once per size)."""
    import duckdb
    import swingdb

    sets = {}
    synthetic = os.path.join(work, f"pipes-synthetic-{args.rows}")
    if not os.path.exists(os.path.join(synthetic, ".complete")):
        shutil.rmtree(synthetic, ignore_errors=True)
        con = swingdb.connect(synthetic)
        con.sql(
            f"""CREATE TABLE paper AS SELECT value AS k,
                   cast(value % 1000 AS INT) AS a1, random() AS b1,
                   cast(value % 77 AS INT) AS a2, random() * 100 AS b2,
                   cast(value / 3 AS INT) AS a3, cast(value AS DOUBLE) / 7 AS b3
                FROM range({args.rows})"""
        )
        con.close()
        open(os.path.join(synthetic, ".complete"), "w").close()
    sets["paper"] = {"src": synthetic, "table": "paper", "key": "k"}
    if args.scale > 0:
        from .tpch import generate

        tpch = generate(args.scale, os.path.join(work, f"tpch-sf{args.scale:g}"))
        lineitem = os.path.join(work, f"pipes-lineitem-sf{args.scale:g}")
        if not os.path.exists(os.path.join(lineitem, ".complete")):
            shutil.rmtree(lineitem, ignore_errors=True)
            con = swingdb.connect(lineitem)
            con.sql(f"CREATE TABLE lineitem AS SELECT * FROM read_parquet('{tpch}/lineitem.parquet')")
            con.close()
            open(os.path.join(lineitem, ".complete"), "w").close()
        sets["lineitem"] = {"src": lineitem, "table": "lineitem", "key": "l_orderkey"}
    for d in sets.values():
        path = d["src"] + ".duckdb"
        if not os.path.exists(path):
            duck = duckdb.connect(path + ".tmp")
            con = swingdb.connect(d["src"])
            reader = con.sql(f"SELECT * FROM {d['table']}").fetch_record_batch()  # noqa: F841 (read by name)
            duck.sql(f"CREATE TABLE {d['table']} AS SELECT * FROM reader")
            duck.close()
            con.close()
            os.rename(path + ".tmp", path)
        d["duck"] = path
    return sets


def load_postgres(pg, sets: dict) -> None:
    """Each dataset as a PostgreSQL table of the same name (through swingdb's own pipe)."""
    import swingdb

    for d in sets.values():
        con = swingdb.connect(d["src"])
        subprocess.run(["psql", "-X", "-q", pg.dsn, "-c", f"DROP TABLE IF EXISTS {d['table']}"], check=True)
        con.sql(f"COPY {d['table']} TO '{pg.uri}&table={d['table']}'")
        subprocess.run(["psql", "-X", "-q", pg.dsn, "-c", f"VACUUM ANALYZE {d['table']}"], check=True)
        con.close()


# -- running -------------------------------------------------------------------


def measure(label: str, system: str, method: str, export: str, import_: str, args: dict, runs: int) -> dict:
    results = []
    for _ in range(runs):
        args = {**args, "pipe": "bench-" + uuid.uuid4().hex[:10]}
        results.append(run_pair(export, import_, args))
        if args.get("csv") and os.path.exists(args["csv"]):
            os.remove(args["csv"])
        if args.get("csv") and os.path.exists(args["csv"] + ".done"):
            os.remove(args["csv"] + ".done")
    seconds = statistics.median(r["seconds"] for r in results)
    row = {
        "dataset": label,
        "transfer": system,
        "method": method,
        "seconds": round(seconds, 3),
        "runs": ", ".join(f"{r['seconds']:.2f}" for r in results),
        "export_rss_mb": round(max(r["export_rss_mb"] for r in results)),
        "import_rss_mb": round(max(r["import_rss_mb"] for r in results)),
        "rows": results[-1]["rows"],
    }
    print(f"  {label:9} {system:22} {method:38} {seconds:8.3f} s  rss {row['export_rss_mb']}/{row['import_rss_mb']} MB", flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the paper's synthetic table")
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor of lineitem (0 skips it)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10^6 rows, lineitem at SF 0.1, one run; report to bench/results/")
    parser.add_argument("--postgres", action="store_true", help="include a local PostgreSQL server (Debian package)")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    args = parser.parse_args()
    if args.quick:
        args.rows, args.scale, args.runs = 1_000_000, 0.1, 1
    os.makedirs(args.work, exist_ok=True)
    doc, img = report_target(args.quick)
    sets = make_datasets(args, args.work)
    scratch = tempfile.mkdtemp(prefix="swingdb-bench-pipes-", dir=args.work)
    rows = []
    pg = None
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres(port=54332).__enter__()
            load_postgres(pg, sets)
        for label, d in sets.items():
            base = {
                "src": d["src"],
                "table": d["table"],
                "duck": d["duck"],
                "dst": os.path.join(scratch, "dst"),
                "csv": os.path.join(scratch, "data.csv"),
                "options": {},
                "key": d["key"],
            }
            m = lambda system, method, e, i, **extra: rows.append(measure(label, system, method, e, i, {**base, **extra}, args.runs))  # noqa: E731
            m("swingdb -> swingdb", "CSV file (COPY TO, read_csv)", SWINGDB_CSV_EXPORT, SWINGDB_CSV_IMPORT)
            m("swingdb -> swingdb", "pipe, stored table (handover)", SWINGDB_SEND_TABLE, SWINGDB_RECV)
            for workers in (1, 2, 4):
                for compression in (None, "lz4", "zstd"):
                    options = {"workers": workers, **({"compression": compression} if compression else {})}
                    m("swingdb -> swingdb", f"pipe, query, {workers} workers, {compression or 'no'} compression",
                      SWINGDB_SEND_QUERY, SWINGDB_RECV, options=options)
            m("DuckDB -> swingdb", "CSV file", DUCKDB_CSV_EXPORT, SWINGDB_CSV_IMPORT)
            m("DuckDB -> swingdb", "pipe (swingdb.pipe.send)", DUCKDB_SEND, SWINGDB_RECV)
            m("swingdb -> DuckDB", "CSV file", SWINGDB_CSV_EXPORT, DUCKDB_CSV_IMPORT)
            m("swingdb -> DuckDB", "pipe (swingdb.pipe.reader)", SWINGDB_SEND_TABLE, DUCKDB_RECV)
            if pg is not None:
                # ConnectorX parses URLs strictly: the socket directory goes into the host, percent-encoded.
                cx_uri = f"postgresql://{pg.user}@{pg.dir.replace('/', '%2F')}:{pg.port}/postgres"
                pgargs = {"pg": pg.uri, "pg_uri": pg.uri, "cx_uri": cx_uri, "pg_dsn": pg.dsn, "pg_table": d["table"]}
                m("PostgreSQL -> swingdb", "CSV file (psql \\copy TO, read_csv)", NOTHING, PG_CSV_TO_SWINGDB, **pgargs)
                for workers in (1, 2, 4):
                    m("PostgreSQL -> swingdb", f"binary COPY, {workers} workers", NOTHING, PG_TO_SWINGDB, workers=workers, **pgargs)
                    m("PostgreSQL -> swingdb", f"ConnectorX, {workers} workers", NOTHING, PG_CX_TO_SWINGDB, workers=workers, **pgargs)
                m("PostgreSQL -> swingdb", "ADBC", NOTHING, PG_ADBC_TO_SWINGDB, workers=1, **pgargs)
                m("swingdb -> PostgreSQL", "CSV file (COPY TO, psql \\copy FROM)", SWINGDB_TO_PG_CSV, NOTHING, **pgargs)
                m("swingdb -> PostgreSQL", "binary COPY", SWINGDB_TO_PG, NOTHING, **pgargs)
                m("swingdb -> PostgreSQL", "ADBC (adbc_ingest)", SWINGDB_TO_PG_ADBC, NOTHING, **pgargs)
    finally:
        if pg is not None:
            pg.__exit__(None, None, None)
        shutil.rmtree(scratch, ignore_errors=True)
    write_report(args, rows, doc, img)


def write_report(args, rows: list[dict], doc: str, img: str) -> None:
    import csv

    out = os.path.join(ROOT, "bench", "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "pipes.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    info = machine()
    lines = [
        "## Pipes between databases (`python -m bench pipes`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"swingdb {info['swingdb']}, DuckDB {info['duckdb']}, pyarrow {info['pyarrow']}. "
        f"Synthetic table: {args.rows:,} rows (seed 004's schema: a key and three (integer, double) pairs)"
        + (f"; TPC-H lineitem at SF {args.scale:g}" if args.scale > 0 else "")
        + f". Median of {args.runs} run(s), from go to both processes done; peak RSS of each side's process "
        "(10 MB marks a side that is the PostgreSQL server itself, whose memory is not measured). "
        "\"vs CSV\": the CSV time of the same transfer divided by this one. "
        f"`python -m bench pipes {' '.join(sys.argv[1:])}`.",
        "",
    ]
    for label in dict.fromkeys(r["dataset"] for r in rows):
        lines += ["", f"### {label}", ""]
        cells = []
        csv_time = {}
        for r in rows:
            if r["dataset"] == label and r["method"].startswith("CSV"):
                csv_time[r["transfer"]] = r["seconds"]
        for r in rows:
            if r["dataset"] != label:
                continue
            base = csv_time.get(r["transfer"])
            ratio = f"{base / r['seconds']:.1f}x" if base and r["seconds"] > 0 else ""
            cells.append([r["transfer"], r["method"], f"{r['seconds']:.3f}", ratio, r["export_rss_mb"], r["import_rss_mb"], r["runs"]])
        headers = ["transfer", "method", "seconds", "vs CSV", "export RSS MB", "import RSS MB", "runs"]
        lines.append(table(headers, cells, right=2))
        path = os.path.join(img, f"pipes-{label}.png")
        plot(rows, label, path)
        lines += ["", f"![pipes, {label}](img/{os.path.basename(path)})", ""]
    replace_section(doc, "pipes", "\n".join(lines))


def plot(rows: list[dict], label: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mine = [r for r in rows if r["dataset"] == label]
    fig, ax = plt.subplots(figsize=(11, 0.3 * len(mine) + 1.6))
    names = [f"{r['transfer']}: {r['method']}" for r in mine]
    colors = ["#999999" if r["method"].startswith("CSV") else "#ff7f0e" if r["method"].startswith(("ConnectorX", "ADBC")) else "#1f77b4" for r in mine]
    ax.barh(range(len(mine)), [float(r["seconds"]) for r in mine], color=colors)
    ax.set_yticks(range(len(mine)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("seconds (log scale, lower is better)")
    ax.set_title(f"Moving {label} between systems on one host\ngrey: CSV through a file; blue: swingdb pipes; orange: ConnectorX, ADBC", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
