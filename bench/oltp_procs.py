"""Statements by key from many processes (issue 73): point reads, updates
and inserts by key and a 90/10 read/update mix, each from 1, 2, 4 and 8
processes at once for --seconds, on a table `t (id BIGINT PRIMARY KEY, v
DOUBLE, s VARCHAR)` of each --rows size, swingdb against SQLite (WAL,
synchronous FULL and NORMAL: one file, the setting is per connection),
PostgreSQL (a local server, fsync on) and DuckDB (one process only: a second
process cannot open a database another one writes). Every write commits on
its own (autocommit), parameterised as a driver sends it.

    python -m bench oltp-procs [--rows 100000,10000000] [--procs 1,2,4,8] [--seconds 2] [--postgres] [--quick]

Figures: statements per second of all processes together; for one process
also the median time of one statement.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import duckdb
import swingdb

from .common import machine
from .report import replace_section, table

WORKLOADS = ["read by key", "update by key", "insert", "90/10 read/update"]
SYSTEMS = ["swingdb", "SQLite WAL FULL", "SQLite WAL NORMAL", "PostgreSQL", "DuckDB"]

WORKER = r'''
import json, random, statistics, sys, time
system, target, workload, seconds, me, start, rows, base = sys.argv[1:9]
seconds, me, start, rows, base = float(seconds), int(me), float(start), int(rows), int(base)
if system == "swingdb":
    import swingdb
    con = swingdb.connect(target)
    run = lambda sql, params: con.execute(sql, list(params)).fetchall()
elif system.startswith("SQLite"):
    import sqlite3
    con = sqlite3.connect(target, timeout=60, isolation_level=None)
    con.execute("PRAGMA synchronous = " + system.split()[-1])
    run = lambda sql, params: con.execute(sql, params).fetchall()
elif system == "DuckDB":
    import duckdb
    con = duckdb.connect(target)
    run = lambda sql, params: con.execute(sql, params).fetchall()
else:
    import psycopg
    con = psycopg.connect(target, autocommit=True, prepare_threshold=0)
    def run(sql, params):
        cur = con.execute(sql.replace("?", "%s"), params)
        return cur.fetchall() if cur.description else None
READ = "SELECT v FROM t WHERE id = ?"
UPDATE = "UPDATE t SET v = v + 1 WHERE id = ?"
INSERT = "INSERT INTO t VALUES (?, ?, ?)"
rng = random.Random(me * 7919 + base)
key = base + me * 10**8
done, failed, times = 0, {}, []
while time.time() < start:
    time.sleep(0.001)
end = start + seconds
while time.time() < end:
    t0 = time.perf_counter()
    try:
        if workload == "read by key" or (workload == "90/10 read/update" and rng.random() < 0.9):
            run(READ, (rng.randrange(rows),))
        elif workload == "insert":
            run(INSERT, (key, 0.5, "new"))
            key += 1
        else:
            run(UPDATE, (rng.randrange(rows),))
    except Exception as e:  # counted and reported: a statement that failed did not count as done
        failed[type(e).__name__] = failed.get(type(e).__name__, 0) + 1
        continue
    times.append(time.perf_counter() - t0)
    done += 1
print(json.dumps({"done": done, "failed": failed, "median_us": statistics.median(times) * 1e6 if times else None}))
'''


def setup(system: str, target: str, rows: int) -> None:
    """A fresh table of `rows` rows (SQLite's two settings share one file)."""
    create = "CREATE TABLE t (id BIGINT PRIMARY KEY, v DOUBLE PRECISION, s VARCHAR)"
    if system == "swingdb":
        con = swingdb.connect(target)
        con.execute(create)
        con.execute(f"INSERT INTO t SELECT value, value * 0.5, 'row' FROM range({rows})")
        con.close()
    elif system.startswith("SQLite"):
        con = sqlite3.connect(target, isolation_level=None)
        con.execute("PRAGMA journal_mode = WAL")
        con.execute(create)
        con.execute("BEGIN")
        con.executemany("INSERT INTO t VALUES (?, ?, 'row')", ((i, i * 0.5) for i in range(rows)))
        con.execute("COMMIT")
        con.close()
    elif system == "DuckDB":
        con = duckdb.connect(target)
        con.execute(create)
        con.execute(f"INSERT INTO t SELECT range, range * 0.5, 'row' FROM range({rows})")
        con.close()
    else:
        import psycopg

        with psycopg.connect(target, autocommit=True) as con:
            con.execute("DROP TABLE IF EXISTS t")
            con.execute(create)
            con.execute(f"INSERT INTO t SELECT g, g * 0.5, 'row' FROM generate_series(0, {rows - 1}) AS g")
            con.execute("VACUUM ANALYZE t")


def measure(system: str, target: str, workload: str, procs: int, seconds: float, rows: int, base: int) -> dict:
    """All `procs` workers start together and run `workload` for `seconds`."""
    start = time.time() + 1.0 + 0.2 * procs
    args = [system, target, workload, str(seconds), "", str(start), str(rows), str(base)]
    workers = []
    for i in range(procs):
        args[4] = str(i)
        workers.append(subprocess.Popen([sys.executable, "-c", WORKER, *args], stdout=subprocess.PIPE, text=True))
    outcomes = [json.loads(w.communicate(timeout=seconds + 300)[0]) for w in workers]
    return {
        "system": system,
        "workload": workload,
        "procs": procs,
        "rows": rows,
        "per_s": sum(o["done"] for o in outcomes) / seconds,
        "median_us": outcomes[0]["median_us"],
        "failed": sum(sum(o["failed"].values()) for o in outcomes),
        "errors": sorted({name for o in outcomes for name in o["failed"]}),
    }


def plot(results: list[dict], sizes: list[int], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(sizes), len(WORKLOADS), figsize=(4 * len(WORKLOADS), 3.2 * len(sizes)), squeeze=False)
    for row, rows in enumerate(sizes):
        for ax, workload in zip(axes[row], WORKLOADS):
            for system in SYSTEMS:
                points = [(r["procs"], r["per_s"]) for r in results
                          if r["system"] == system and r["workload"] == workload and r["rows"] == rows]
                if points:
                    ax.plot([p for p, _ in points], [c for _, c in points], marker="o", label=system)
            ax.set_title(f"{workload}, {rows:,} rows", fontsize=9)
            ax.set_xlabel("processes")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
        axes[row][0].set_ylabel("statements/s (all processes)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(results: list[dict], sizes: list[int], counts: list[int], seconds: float, doc: str) -> None:
    info = machine()
    lines = [
        "## Statements by key from many processes (`python -m bench oltp-procs --postgres`)",
        "",
        f"`t (id BIGINT PRIMARY KEY, v DOUBLE, s VARCHAR)`; each process runs one kind of statement for {seconds:g} s, "
        "all processes at once, parameterised, each write committing on its own: `SELECT v FROM t WHERE id = ?` "
        "(random keys), `UPDATE t SET v = v + 1 WHERE id = ?`, `INSERT INTO t VALUES (?, ?, ?)` (new keys), and a mix "
        "of 90% reads and 10% updates. Statements per second of all processes together (one process: and the median "
        "time of one statement, us). SQLite in WAL mode with `synchronous` FULL or NORMAL, PostgreSQL a local server "
        "over a Unix socket with fsync on; DuckDB cannot open a database from a second process while one writes it. "
        f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; DuckDB {info['duckdb']}, "
        f"SQLite {info['sqlite']}.",
        "",
    ]
    for rows in sizes:
        lines += [f"{rows:,} rows:", ""]
        body = []
        for system in SYSTEMS:
            for workload in WORKLOADS:
                cells = []
                for procs in counts:
                    found = [r for r in results if (r["system"], r["workload"], r["procs"], r["rows"]) == (system, workload, procs, rows)]
                    if not found:
                        cells.append("n/a")
                        continue
                    r = found[0]
                    cell = f"{r['per_s']:,.0f}"
                    if procs == 1 and r["median_us"] is not None:
                        cell += f" ({r['median_us']:,.0f} us)"
                    if r.get("failed"):
                        cell += f", {r['failed']:,} failed ({', '.join(r['errors'])})"
                    cells.append(cell)
                body.append([system, workload, *cells])
        lines += [table(["system", "statement", *[f"{p} process{'es' if p > 1 else ''}" for p in counts]], body), ""]
    lines += ["![statements by key from many processes](img/oltp_procs.png)", ""]
    replace_section(doc, "oltp_procs", "\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="100000,10000000")
    parser.add_argument("--procs", default="1,2,4,8")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--postgres", action="store_true", help="start a local PostgreSQL server (fsync on) and include it")
    parser.add_argument("--quick", action="store_true", help="100k rows, 1 and 4 processes, 1 s, report to bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.procs, args.seconds = "100000", "1,4", 1.0
    sizes = [int(r) for r in args.rows.split(",")]
    counts = [int(p) for p in args.procs.split(",")]
    doc = "bench/results/benchmarks-quick.md" if args.quick else "docs/benchmarks.md"
    os.makedirs(os.path.dirname(doc), exist_ok=True)
    work = tempfile.mkdtemp(prefix="oltp-procs-")
    results = []
    pg = None
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres(durable=True).__enter__()
        for rows in sizes:
            targets = {"swingdb": os.path.join(work, f"{rows}.swingdb"), "DuckDB": os.path.join(work, f"{rows}.duckdb")}
            targets["SQLite WAL FULL"] = targets["SQLite WAL NORMAL"] = os.path.join(work, f"{rows}.sqlite")
            if pg:
                targets["PostgreSQL"] = pg.dsn
            for system in [s for s in SYSTEMS if s in targets]:
                if system != "SQLite WAL NORMAL":
                    t0 = time.perf_counter()
                    setup(system, targets[system], rows)
                    print(f"{system:18} {rows:,} rows loaded in {time.perf_counter() - t0:.1f} s", flush=True)
                for workload in WORKLOADS:
                    for procs in counts:
                        if system == "DuckDB" and procs > 1:
                            continue
                        # New keys of each run's inserts: past every earlier run's.
                        base = (1 + len(results)) * 10**10
                        r = measure(system, targets[system], workload, procs, args.seconds, rows, base)
                        results.append(r)
                        print(f"{system:18} {workload:18} {procs} procs {r['per_s']:10,.0f}/s  "
                              f"(median {r['median_us'] or 0:,.0f} us)" + (f", {r['failed']} failed" if r["failed"] else ""), flush=True)
    finally:
        if pg:
            pg.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)
    img = os.path.join(os.path.dirname(doc), "img")
    os.makedirs(img, exist_ok=True)
    plot(results, sizes, os.path.join(img, "oltp_procs.png"))
    report(results, sizes, counts, args.seconds, doc)
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
