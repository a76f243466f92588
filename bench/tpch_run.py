"""TPC-H on swingdb and DuckDB in the same run: every answer checked against
DuckDB's, per-query medians, geometric-mean ratio.

    python -m bench.tpch_run --scale 1 --runs 5
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time

import duckdb
import swingdb

from .common import machine, parse_scale_args, same_rows, scale_parser, timed
from .report import replace_section, save, table
from .tpch import QUERIES, TABLES, generate


def load(scale: float, data: str, work: str):
    """Loads the Parquet files into a fresh swingdb and a fresh DuckDB database."""
    sw_path = os.path.join(work, f"tpch-sf{scale:g}.swingdb")
    dd_path = os.path.join(work, f"tpch-sf{scale:g}.duckdb")
    shutil.rmtree(sw_path, ignore_errors=True)
    if os.path.exists(dd_path):
        os.remove(dd_path)
    loads = {}
    t0 = time.perf_counter()
    with swingdb.connect(sw_path) as con:
        for t in TABLES:
            con.sql(f"CREATE TABLE {t} AS SELECT * FROM '{data}/{t}.parquet'")
    loads["swingdb"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    d = duckdb.connect(dd_path)
    for t in TABLES:
        d.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data}/{t}.parquet')")
    d.close()
    loads["duckdb"] = time.perf_counter() - t0
    return sw_path, dd_path, loads


def cold_open_ms(sw_path: str, runs: int = 5) -> float:
    """Median time to open the database and list its tables in a fresh process."""
    import subprocess
    import sys

    code = (
        "import time, sys; t0 = time.perf_counter(); import swingdb; t1 = time.perf_counter(); "
        "con = swingdb.connect(sys.argv[1]); con.table_names(); print(time.perf_counter() - t1)"
    )
    times = [float(subprocess.check_output([sys.executable, "-c", code, sw_path])) for _ in range(runs)]
    times.sort()
    return 1e3 * times[len(times) // 2]


COLD_QUERY = """
import sys, time
system, path, sql = sys.argv[1:4]
if system == "swingdb":
    import swingdb
    t0 = time.perf_counter()
    swingdb.connect(path, read_only=True).sql(sql).fetchall()
else:
    import duckdb
    t0 = time.perf_counter()
    con = duckdb.connect(path, read_only=True)
    con.execute("SET enable_progress_bar = false")  # it prints to stdout, where the time is read from
    con.execute(sql).fetchall()
print(time.perf_counter() - t0)
"""


def cold_query_s(system: str, path: str, sql: str, runs: int) -> float:
    """Median time of `sql` in a fresh process per run: opening the database,
    the query and fetching its rows (imports not timed; files in the page cache)."""
    import statistics
    import subprocess
    import sys

    return statistics.median(float(subprocess.check_output([sys.executable, "-c", COLD_QUERY, system, path, sql])) for _ in range(runs))


def main():
    parser = scale_parser(__doc__, runs=5)
    parser.add_argument("--no-cold", action="store_true", help="skip the cold runs (a fresh process per run)")
    parser.add_argument("--queries", default="1-22")
    parser.add_argument("--vs", choices=["duckdb"], default="duckdb", help="the peer each query is timed against")
    args = parse_scale_args(parser)
    lo, _, hi = args.queries.partition("-")
    numbers = range(int(lo), int(hi or lo) + 1)

    about = machine()
    print(f"machine: {about['cpu']}, {about['cores']} cores, {about['memory_gib']} GiB; peer: {args.vs}")
    data = generate(args.scale, os.path.join(args.work, f"tpch-{args.tag}"))
    sw_path, dd_path, loads = load(args.scale, data, args.work)
    print(f"load: swingdb {loads['swingdb']:.2f} s, duckdb {loads['duckdb']:.2f} s")
    # The queries are timed with both databases in the page cache, not while
    # the kernel still writes the gigabytes just loaded (17 GB at SF10).
    os.sync()
    print(f"cold open of the swingdb database: {cold_open_ms(sw_path):.2f} ms (median of 5 fresh processes)")

    sw = swingdb.connect(sw_path)
    dd = duckdb.connect(dd_path, read_only=True)
    rows = []
    for q in numbers:
        sql = QUERIES[q]
        # Warm: one untimed run first, as every warm figure here (the first
        # also reads and checks each column a query touches for the first time:
        # cold runs pay that).
        sw.sql(sql).fetchall()
        sw_t, _, sw_rows = timed(lambda: sw.sql(sql).fetchall(), args.runs)
        dd.execute(sql).fetchall()
        dd_t, _, dd_rows = timed(lambda: dd.execute(sql).fetchall(), args.runs)
        diff = same_rows(sw_rows, dd_rows, ordered="ORDER BY" in sql.upper())
        row = {"query": q, "swingdb_s": sw_t, "duckdb_s": dd_t, "ratio": sw_t / dd_t, "match": diff is None, "diff": diff}
        if not args.no_cold:
            row["swingdb_cold_s"] = cold_query_s("swingdb", sw_path, sql, args.runs)
            row["duckdb_cold_s"] = cold_query_s("duckdb", dd_path, sql, args.runs)
            row["cold_ratio"] = row["swingdb_cold_s"] / row["duckdb_cold_s"]
        rows.append(row)
        cold = f"  cold {1e3 * row['swingdb_cold_s']:8.1f} / {1e3 * row['duckdb_cold_s']:8.1f} ms" if not args.no_cold else ""
        print(f"Q{q:>2}: swingdb {1e3 * sw_t:8.1f} ms  duckdb {1e3 * dd_t:8.1f} ms  ratio {sw_t / dd_t:5.2f}{cold}  {'OK' if diff is None else 'MISMATCH ' + diff}")
    geomean = lambda key: math.exp(sum(math.log(r[key]) for r in rows) / len(rows))  # noqa: E731
    geo = geomean("ratio")
    geo_cold = None if args.no_cold else geomean("cold_ratio")
    print(f"geometric mean ratio swingdb/duckdb: {geo:.2f} warm" + (f", {geo_cold:.2f} cold" if geo_cold else "")
          + f"  ({sum(r['match'] for r in rows)}/{len(rows)} answers match)")
    info = machine()
    report = {"scale": args.scale, "runs": args.runs, "machine": info, "loads": loads, "queries": rows, "geomean_ratio": geo, "geomean_cold_ratio": geo_cold}
    with open(os.path.join(args.out, f"tpch-{args.tag}.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    if len(rows) < len(QUERIES):
        # A partial run (--queries) would replace the whole table and plot.
        print("not all queries ran: docs/benchmarks.md and its plot are left as they are")
        return
    timings = [
        {"case": f"Q{r['query']}", "system": system, "target": mode, "seconds": r[key]}
        for r in rows
        for system, mode, key in (("swingdb", "warm", "swingdb_s"), ("DuckDB", "warm", "duckdb_s"),
                                  ("swingdb", "cold", "swingdb_cold_s"), ("DuckDB", "cold", "duckdb_cold_s"))
        if key in r
    ]
    img = save(timings, args.out, args.img, f"tpch-{args.tag}", f"TPC-H SF{args.scale:g}, median of {args.runs} (log scale)")
    cold_head = [] if args.no_cold else ["swingdb cold (ms)", "DuckDB cold (ms)", "cold ratio"]
    cells = []
    for r in rows:
        cold = [] if args.no_cold else [f"{1e3 * r['swingdb_cold_s']:.1f}", f"{1e3 * r['duckdb_cold_s']:.1f}", f"{r['cold_ratio']:.2f}"]
        cells.append([str(r["query"]), f"{1e3 * r['swingdb_s']:.1f}", f"{1e3 * r['duckdb_s']:.1f}", f"{r['ratio']:.2f}"] + cold
                     + ["same" if r["match"] else "DIFFERENT"])
    headers = ["query", "swingdb (ms)", "DuckDB (ms)", "swingdb / DuckDB"] + cold_head + ["answer"]
    lines = [table(headers, cells, right=0)]
    body = (
        f"Data generated locally with `tpchgen-cli` (Parquet), loaded into a swingdb database directory and a DuckDB "
        f"file with `CREATE TABLE ... AS SELECT * FROM <parquet>` (swingdb {loads['swingdb']:.2f} s, DuckDB "
        f"{loads['duckdb']:.2f} s). Warm runs: median of {args.runs} in one open connection; cold runs: median of "
        f"{args.runs} fresh processes, each opening the database and running one query (imports not timed, files in "
        f"the OS page cache, written to disk after loading); all rows fetched into Python. {info['cpu']}, "
        f"{info['cores']} cores, {info['memory_gib']} GiB; DuckDB {info['duckdb']}. Answers are compared with DuckDB's "
        f"(numbers within 1e-6; DataFusion returns avg of a DECIMAL as DECIMAL with 6 decimals, DuckDB as DOUBLE).\n\n"
        + "\n".join(lines)
        + f"\n\nGeometric mean of the ratios: **{geo:.2f}** warm" + (f", **{geo_cold:.2f}** cold" if geo_cold else "")
        + f"; {sum(r['match'] for r in rows)}/{len(rows)} answers match.\n\n![tpch]({img})\n"
    )
    replace_section(args.doc, f"tpch-{args.tag}", f"## TPC-H SF{args.scale:g} (`python -m bench tpch`)\n\n" + body)


if __name__ == "__main__":
    main()
