"""Many writing processes (issue 43): 1, 2, 4 and 8 processes writing at once
for --seconds each, swingdb against SQLite in WAL mode and (with --postgres)
PostgreSQL doing the same from as many processes, all durable (fsync per
commit). DuckDB cannot take part: a second process cannot open a database
another one writes.

    python -m bench writers [--seconds 3] [--procs 1,2,4,8] [--postgres] [--quick]

Workloads, each statement committing on its own:
- append, one table: single-row INSERTs into one shared table;
- append x100, one table: 100-row INSERTs into it;
- append, own tables: single-row INSERTs, each process into a table of its own;
- update, disjoint rows: single-row UPDATEs, each process of its own rows;
- update, same rows: single-row UPDATEs of 10 rows all processes share.

Figures: commits per second of all processes together, and the statements
that failed with a conflict (swingdb runs an autocommit statement that lost a
conflict again, for up to its 5 s timeout; SQLite waits up to 30 s for its
lock; PostgreSQL waits for row locks).
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

import swingdb

from .common import machine
from .report import replace_section, table

WORKLOADS = ["append, one table", "append x100, one table", "append, own tables", "update, disjoint rows", "update, same rows"]
ROWS_PER_PROCESS = 1000

WORKER = r'''
import json, random, sys, time
system, target, workload, seconds, me, start = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
ROWS = int(sys.argv[7])
if system == "swingdb":
    import swingdb
    con = swingdb.connect(target)
    run = lambda sql, params=(): con.execute(sql, list(params))
    conflict = (swingdb.ConflictError,)
    mark = "?"
elif system == "SQLite":
    import sqlite3
    con = sqlite3.connect(target, timeout=30, isolation_level=None)
    con.execute("PRAGMA synchronous = FULL")
    run = lambda sql, params=(): con.execute(sql, params)
    conflict = (sqlite3.OperationalError,)
    mark = "?"
else:
    import psycopg
    con = psycopg.connect(target, autocommit=True)
    run = lambda sql, params=(): con.execute(sql.replace("?", "%s"), params)
    conflict = (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected)
    mark = "%s"
rng = random.Random(me)
key = (me + 1) * 10**9
commits = conflicts = 0
while time.time() < start:
    time.sleep(0.001)
end = start + seconds
while time.time() < end:
    try:
        if workload == "append, one table":
            run("INSERT INTO t VALUES (?, 1.0)", (key,))
            key += 1
        elif workload == "append x100, one table":
            run("INSERT INTO t SELECT k, 1.0 FROM (SELECT ? + x AS k FROM s) AS q", (key,))
            key += 100
        elif workload == "append, own tables":
            run(f"INSERT INTO t{me} VALUES (?, 1.0)", (key,))
            key += 1
        elif workload == "update, disjoint rows":
            run("UPDATE u SET v = v + 1 WHERE id = ?", (me * ROWS + rng.randrange(ROWS),))
        else:
            run("UPDATE u SET v = v + 1 WHERE id = ?", (rng.randrange(10),))
        commits += 1
    except conflict:
        conflicts += 1
# swingdb runs an autocommit statement that lost a conflict again by itself: count those runs.
retries = con._con._conflict_retries() if system == "swingdb" else None
print(json.dumps({"commits": commits, "conflicts": conflicts, "retries": retries}))
'''


def setup(system: str, target: str, procs: int) -> None:
    """Fresh tables: t (appends), t0..t{procs-1} (own tables), u (updates:
    ROWS_PER_PROCESS rows per process), s (the numbers 0..99)."""
    statements = ["CREATE TABLE t (id BIGINT PRIMARY KEY, v DOUBLE PRECISION)"]
    statements += [f"CREATE TABLE t{i} (id BIGINT PRIMARY KEY, v DOUBLE PRECISION)" for i in range(procs)]
    statements += ["CREATE TABLE u (id BIGINT PRIMARY KEY, v DOUBLE PRECISION)", "CREATE TABLE s (x BIGINT)"]
    n = procs * ROWS_PER_PROCESS
    if system == "swingdb":
        con = swingdb.connect(target)
        for s in statements:
            con.execute(s)
        con.execute(f"INSERT INTO u SELECT value, 0.0 FROM range({n})")
        con.execute("INSERT INTO s SELECT value FROM range(100)")
        con.close()
    elif system == "SQLite":
        con = sqlite3.connect(target, isolation_level=None)
        con.execute("PRAGMA journal_mode = WAL")
        for s in statements:
            con.execute(s)
        con.executemany("INSERT INTO u VALUES (?, 0.0)", ((i,) for i in range(n)))
        con.executemany("INSERT INTO s VALUES (?)", ((i,) for i in range(100)))
        con.close()
    else:
        import psycopg

        with psycopg.connect(target, autocommit=True) as con:
            con.execute("DROP SCHEMA public CASCADE")
            con.execute("CREATE SCHEMA public")
            for s in statements:
                con.execute(s)
            con.execute(f"INSERT INTO u SELECT g, 0.0 FROM generate_series(0, {n - 1}) AS g")
            con.execute("INSERT INTO s SELECT g FROM generate_series(0, 99) AS g")


def measure(system: str, target: str, workload: str, procs: int, seconds: float) -> dict:
    """All `procs` workers start together and write for `seconds`."""
    start = time.time() + 1.0 + 0.1 * procs
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, system, target, workload, str(seconds), str(i), str(start), str(ROWS_PER_PROCESS)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(procs)
    ]
    outcomes = [json.loads(w.communicate(timeout=seconds + 120)[0]) for w in workers]
    commits = sum(o["commits"] for o in outcomes)
    return {"system": system, "workload": workload, "procs": procs, "commits_per_s": commits / seconds,
            "conflicts": sum(o["conflicts"] for o in outcomes),
            "retries": None if outcomes[0]["retries"] is None else sum(o["retries"] for o in outcomes)}


def plot(results: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(WORKLOADS), figsize=(4 * len(WORKLOADS), 3.4), sharey=True)
    for ax, workload in zip(axes, WORKLOADS):
        for system in dict.fromkeys(r["system"] for r in results):
            points = [(r["procs"], r["commits_per_s"]) for r in results if r["system"] == system and r["workload"] == workload]
            ax.plot([p for p, _ in points], [c for _, c in points], marker="o", label=system)
        ax.set_title(workload, fontsize=9)
        ax.set_xlabel("processes")
        ax.set_xscale("log", base=2)
    axes[0].set_ylabel("commits/s (all processes)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--procs", default="1,2,4,8")
    parser.add_argument("--postgres", action="store_true", help="start a local PostgreSQL server (fsync on) and include it")
    parser.add_argument("--quick", action="store_true", help="1 s per run, 1 and 4 processes, report to bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.procs = 1.0, "1,4"
    counts = [int(p) for p in args.procs.split(",")]
    work = tempfile.mkdtemp(prefix="writers-")
    systems = {"swingdb": os.path.join(work, "w.swingdb"), "SQLite": os.path.join(work, "w.sqlite")}
    pg = None
    results = []
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres(durable=True).__enter__()
            systems["PostgreSQL"] = pg.dsn
        for system, target in systems.items():
            for procs in counts:
                for workload in WORKLOADS:
                    if system != "PostgreSQL":
                        shutil.rmtree(target, ignore_errors=True)
                        for suffix in ("", "-wal", "-shm"):
                            if os.path.isfile(target + suffix):
                                os.remove(target + suffix)
                    setup(system, target, procs)
                    r = measure(system, target, workload, procs, args.seconds)
                    results.append(r)
                    print(f"{system:10} {workload:24} {procs} procs {r['commits_per_s']:9.0f} commits/s  "
                          f"{r['conflicts']} conflicts, {r['retries']} retries", flush=True)
    finally:
        if pg is not None:
            pg.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)
    info = machine()
    by = {(r["system"], r["workload"], r["procs"]): r for r in results}
    headers = ["system", "workload"] + [f"{p} proc{'s' if p > 1 else ''}" for p in counts] + [f"{counts[-1]} / 1", "conflicts", "retries"]
    cells = []
    for system in systems:
        for workload in WORKLOADS:
            rates = [by[(system, workload, p)]["commits_per_s"] for p in counts]
            conflicts = sum(by[(system, workload, p)]["conflicts"] for p in counts)
            retries = [by[(system, workload, p)]["retries"] for p in counts]
            retried = "-" if None in retries else " / ".join(f"{r:,}" for r in retries)
            cells.append([system, workload] + [f"{x:,.0f}" for x in rates] + [f"{rates[-1] / rates[0]:.2f}", str(conflicts), retried])
    doc = "bench/results/benchmarks-quick.md" if args.quick else "docs/benchmarks.md"
    img = os.path.join(os.path.dirname(doc), "img")
    os.makedirs(img, exist_ok=True)
    plot(results, os.path.join(img, "writers.png"))
    lines = [
        "## Many writing processes (`python -m bench writers`)",
        "",
        f"Processes writing at once for {args.seconds:g} s each, every statement committing on its own and durable "
        "(swingdb: one `fdatasync` of its commit log per commit, overlapping with other commits' flushes; SQLite: WAL, `synchronous = FULL`; PostgreSQL: fsync on); commits per second of all "
        "processes together, statements that failed with a conflict, and (swingdb, per process count) the runs of "
        "statements that lost a conflict and ran again by themselves (SQLite's and PostgreSQL's waits for locks are "
        "not counted). DuckDB cannot take part (a second process "
        f"cannot open a database another one writes). {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"SQLite {info['sqlite']}.",
        "",
        table(headers, cells, right=2),
        "",
        "![writers](img/writers.png)",
        "",
    ]
    replace_section(doc, "writers", "\n".join(lines))
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
