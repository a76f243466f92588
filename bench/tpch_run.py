"""TPC-H on swingdb and DuckDB in the same run: every answer checked against
DuckDB's, per-query medians, geometric-mean ratio.

    python -m bench.tpch_run --scale 1 --runs 5
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import time

import duckdb

import swingdb

from .common import machine, same_rows, timed
from .report import replace_section
from .tpch import QUERIES, TABLES, generate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", default="1-22")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = parser.parse_args()
    lo, _, hi = args.queries.partition("-")
    numbers = range(int(lo), int(hi or lo) + 1)

    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    data = generate(args.scale, os.path.join(args.work, f"tpch-sf{args.scale:g}"))
    sw_path, dd_path, loads = load(args.scale, data, args.work)
    print(f"load: swingdb {loads['swingdb']:.2f} s, duckdb {loads['duckdb']:.2f} s")
    print(f"cold open of the swingdb database: {cold_open_ms(sw_path):.2f} ms (median of 5 fresh processes)")

    sw = swingdb.connect(sw_path)
    dd = duckdb.connect(dd_path, read_only=True)
    rows = []
    for q in numbers:
        sql = QUERIES[q]
        sw_t, _, sw_rows = timed(lambda: sw.sql(sql).fetchall(), args.runs)
        dd_t, _, dd_rows = timed(lambda: dd.execute(sql).fetchall(), args.runs)
        diff = same_rows(sw_rows, dd_rows, ordered="ORDER BY" in sql.upper())
        rows.append({"query": q, "swingdb_s": sw_t, "duckdb_s": dd_t, "ratio": sw_t / dd_t, "match": diff is None, "diff": diff})
        print(f"Q{q:>2}: swingdb {1e3 * sw_t:8.1f} ms  duckdb {1e3 * dd_t:8.1f} ms  ratio {sw_t / dd_t:5.2f}  {'OK' if diff is None else 'MISMATCH ' + diff}")
    geo = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    print(f"geometric mean ratio swingdb/duckdb: {geo:.2f}  ({sum(r['match'] for r in rows)}/{len(rows)} answers match)")
    info = machine()
    report = {"scale": args.scale, "runs": args.runs, "machine": info, "loads": loads, "queries": rows, "geomean_ratio": geo}
    with open(os.path.join(args.out, f"tpch-sf{args.scale:g}.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    lines = ["| query | swingdb (ms) | DuckDB (ms) | swingdb / DuckDB | answer |", "|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {r['query']} | {1e3 * r['swingdb_s']:.1f} | {1e3 * r['duckdb_s']:.1f} | {r['ratio']:.2f} | {'same' if r['match'] else 'DIFFERENT'} |"
        )
    body = (
        f"Data generated locally with `tpchgen-cli` (Parquet), loaded into a swingdb database directory and a DuckDB "
        f"file with `CREATE TABLE ... AS SELECT * FROM <parquet>` (swingdb {loads['swingdb']:.2f} s, DuckDB "
        f"{loads['duckdb']:.2f} s). Warm runs, median of {args.runs}, all rows fetched into Python. {info['cpu']}, "
        f"{info['cores']} cores, {info['memory_gib']} GiB; DuckDB {info['duckdb']}. Answers are compared with DuckDB's "
        f"(numbers within 1e-6; DataFusion returns avg of a DECIMAL as DECIMAL with 6 decimals, DuckDB as DOUBLE).\n\n"
        + "\n".join(lines)
        + f"\n\nGeometric mean of the ratios: **{geo:.2f}**; {sum(r['match'] for r in rows)}/{len(rows)} answers match.\n"
    )
    replace_section(os.path.join(ROOT, "docs", "benchmarks.md"), f"tpch-sf{args.scale:g}", f"## TPC-H SF{args.scale:g} (`python -m bench tpch`)\n\n" + body)


if __name__ == "__main__":
    main()
