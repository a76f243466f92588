"""Single-row statements on a keyed table (issues 12 and 73): parameterised
INSERTs of one new row each into a table with a BIGINT PRIMARY KEY that
already holds --rows rows, in one transaction and with autocommit; point
reads by key (`SELECT v FROM t WHERE id = ?`), autocommit single-row
UPDATEs and DELETEs by key, and `SELECT 1`, swingdb against DuckDB and
SQLite (all three on files, in the same run).

    python -m bench oltp [--rows 1000000] [--inserts 1000] [--runs 3] [--quick]

Rates are inserts per second (median of the runs; each run inserts new keys);
the first insert is that of a connection just opened on the table; the
others are the median time of one statement (keys spread over the table).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time

import duckdb
import swingdb

from .common import machine
from .report import replace_section, table

CREATE = "CREATE TABLE t (id BIGINT PRIMARY KEY, v DOUBLE, s VARCHAR)"


def _open_swingdb(path):
    con = swingdb.connect(path)
    return con, con.begin, con.commit


def _open_duckdb(path):
    con = duckdb.connect(path)
    return con, lambda: con.execute("BEGIN"), lambda: con.execute("COMMIT")


def _open_sqlite(path):
    con = sqlite3.connect(path, isolation_level=None)
    return con, lambda: con.execute("BEGIN"), lambda: con.execute("COMMIT")


def _swingdb(path, rows):
    con, begin, commit = _open_swingdb(path)
    con.sql(CREATE)
    con.sql(f"INSERT INTO t SELECT value, value * 0.5, 'row' FROM range({rows})")
    return con, begin, commit


def _duckdb(path, rows):
    con, begin, commit = _open_duckdb(path)
    con.execute(CREATE)
    con.execute(f"INSERT INTO t SELECT range, range * 0.5, 'row' FROM range({rows})")
    return con, begin, commit


def _sqlite(path, rows):
    con, begin, commit = _open_sqlite(path)
    con.execute(CREATE)
    begin()
    con.executemany("INSERT INTO t VALUES (?, ?, 'row')", ((i, i * 0.5) for i in range(rows)))
    commit()
    return con, begin, commit


SYSTEMS = {"swingdb": _swingdb, "duckdb": _duckdb, "sqlite": _sqlite}
OPEN = {"swingdb": _open_swingdb, "duckdb": _open_duckdb, "sqlite": _open_sqlite}


def first_insert_ms(name: str, path: str, key: int) -> float:
    """Milliseconds of the first insert of a connection just opened on the table
    (what a script or a short-lived process pays; the key index is not warm)."""
    con, _, _ = OPEN[name](path)
    t0 = time.perf_counter()
    con.execute("INSERT INTO t VALUES (?, ?, ?)", (key, key * 0.5, "new"))
    elapsed = (time.perf_counter() - t0) * 1e3
    con.close()
    return elapsed


def rate(con, begin, commit, first_key: int, inserts: int, in_transaction: bool) -> float:
    """Inserts per second for `inserts` single-row INSERTs from key `first_key` on."""
    sql = "INSERT INTO t VALUES (?, ?, ?)"
    t0 = time.perf_counter()
    if in_transaction:
        begin()
    for key in range(first_key, first_key + inserts):
        con.execute(sql, (key, key * 0.5, "new"))
    if in_transaction:
        commit()
    return inserts / (time.perf_counter() - t0)


def literal_latency_us(con, template: str, keys) -> float:
    """Median microseconds of `template` with each key pasted in as a literal
    (a new statement text each time, as a script building its SQL sends)."""
    times = []
    for key in keys:
        t0 = time.perf_counter()
        con.execute(template.format(int(key))).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def latency_us(con, sql: str, keys) -> float:
    """Median microseconds of one parameterised statement `sql` (its rows fetched), per key
    (`None`: the statement takes no parameter)."""
    times = []
    for key in keys:
        t0 = time.perf_counter()
        (con.execute(sql) if key is None else con.execute(sql, (key,))).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--inserts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10^5 rows, 200 inserts, report to bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.inserts = 100_000, 200
    work = tempfile.mkdtemp(prefix="oltp-")
    results = {}
    try:
        for name, make in SYSTEMS.items():
            con, begin, commit = make(os.path.join(work, name), args.rows)
            key = args.rows
            for mode, in_txn in (("one transaction", True), ("autocommit", False)):
                rates = []
                for _ in range(args.runs):
                    rates.append(rate(con, begin, commit, key, args.inserts, in_txn))
                    key += args.inserts
                results[(name, mode)] = statistics.median(rates)
                print(f"{name:8} {mode:16} {results[(name, mode)]:10.0f} inserts/s", flush=True)
            keys = [(i * 7919) % args.rows for i in range(args.inserts)]
            results[(name, "read")] = latency_us(con, "SELECT v FROM t WHERE id = ?", keys)
            results[(name, "literal")] = literal_latency_us(con, "SELECT v FROM t WHERE id = {}", keys)
            results[(name, "update")] = latency_us(con, "UPDATE t SET v = v + 1 WHERE id = ?", keys[: args.inserts // 4])
            deleted = keys[args.inserts // 4 : args.inserts // 2]
            results[(name, "delete")] = latency_us(con, "DELETE FROM t WHERE id = ?", deleted)
            results[(name, "select 1")] = latency_us(con, "SELECT 1", [None] * args.inserts)
            for what in ("read", "literal", "update", "delete", "select 1"):
                print(f"{name:8} {what + ' by key' if what != 'select 1' else what:16} {results[(name, what)]:10.1f} us", flush=True)
            con.close()
            firsts = []
            for _ in range(args.runs):
                firsts.append(first_insert_ms(name, os.path.join(work, name), key))
                key += 1
            results[(name, "first")] = statistics.median(firsts)
            print(f"{name:8} {'first after open':16} {results[(name, 'first')]:10.1f} ms", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    info = machine()
    lines = [
        "## Single-row statements on a keyed table (`python -m bench oltp`)",
        "",
        f"Parameterised `INSERT INTO t VALUES (?, ?, ?)` of one new row each into `t (id BIGINT PRIMARY KEY, v DOUBLE, s VARCHAR)` "
        f"holding {args.rows:,} rows, {args.inserts} inserts per run, median of {args.runs} runs, databases on files; "
        f"`SELECT v FROM t WHERE id = ?` ({args.inserts} keys; also with each key pasted into the text), autocommit `UPDATE t SET v = v + 1 WHERE id = ?` and "
        f"`DELETE FROM t WHERE id = ?` ({args.inserts // 4} keys each) and `SELECT 1`, median time of one, from Python "
        f"(rows fetched). "
        f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; DuckDB {info['duckdb']}, SQLite {info['sqlite']}.",
        "",
    ]
    rows = [
        [
            name,
            f"{results[(name, 'one transaction')]:,.0f}",
            f"{results[(name, 'autocommit')]:,.0f}",
            f"{results[(name, 'first')]:.1f}",
            f"{results[(name, 'read')]:,.1f}",
            f"{results[(name, 'literal')]:,.1f}",
            f"{results[(name, 'update')]:,.1f}",
            f"{results[(name, 'delete')]:,.1f}",
            f"{results[(name, 'select 1')]:,.1f}",
        ]
        for name in SYSTEMS
    ]
    headers = [
        "system",
        "one transaction (inserts/s)",
        "autocommit (inserts/s)",
        "first insert after opening (ms)",
        "read by key (us)",
        "same, key as a literal (us)",
        "update by key (us)",
        "delete by key (us)",
        "SELECT 1 (us)",
    ]
    lines.append(table(headers, rows))
    doc = "bench/results/benchmarks-quick.md" if args.quick else "docs/benchmarks.md"
    os.makedirs(os.path.dirname(doc), exist_ok=True)
    replace_section(doc, "oltp", "\n".join(lines) + "\n")
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
