"""Range filters on a clustered key: swingdb's `CLUSTER BY` table (binary
search in sorted segments) against the same rows unclustered, and against
DuckDB with the rows inserted in key order (its zone maps) and unordered.

    python -m bench cluster --rows 20000000 --runs 7

Each query counts and sums the rows whose key lies in a range holding the
given share of the table; every system's answer is checked against the others.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa
import swingdb

from .common import machine
from .report import bar_plot, replace_section, table

SHARES = (0.00001, 0.001, 0.1)


def median_ms(run, runs: int) -> tuple[float, object]:
    times, answer = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times), answer


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="10^6 rows, report to bench/results/")
    args = parser.parse_args()
    if args.quick:
        args.rows = 1_000_000
    rng = np.random.default_rng(42)
    data = pa.table({"k": rng.permutation(args.rows).astype("int64"), "v": rng.random(args.rows)})
    work = tempfile.mkdtemp(prefix="cluster-")
    results = []
    try:
        sw = swingdb.connect(os.path.join(work, "db.swingdb"))
        t0 = time.perf_counter()
        sw.sql("CREATE TABLE clustered (k BIGINT, v DOUBLE) CLUSTER BY k")
        sw.insert("clustered", data)
        load_clustered = time.perf_counter() - t0
        t0 = time.perf_counter()
        sw.create_table("plain", data)
        load_plain = time.perf_counter() - t0
        dd = duckdb.connect(os.path.join(work, "db.duckdb"))
        dd.register("data", data)
        dd.execute("CREATE TABLE ordered AS SELECT * FROM data ORDER BY k")
        dd.execute("CREATE TABLE plain AS SELECT * FROM data")
        systems = {
            ("swingdb", "CLUSTER BY k"): lambda q: sw.sql(q.format("clustered")).fetchall(),
            ("swingdb", "unclustered"): lambda q: sw.sql(q.format("plain")).fetchall(),
            ("DuckDB", "inserted in key order"): lambda q: dd.execute(q.format("ordered")).fetchall(),
            ("DuckDB", "unordered"): lambda q: dd.execute(q.format("plain")).fetchall(),
        }
        for share in SHARES:
            width = max(1, int(args.rows * share))
            low = args.rows // 3
            query = f"SELECT count(*), round(sum(v), 3) FROM {{}} WHERE k >= {low} AND k < {low + width}"
            case = f"{100 * share:g} % of rows"
            answers = {}
            for (system, target), run in systems.items():
                ms, answers[(system, target)] = median_ms(lambda: run(query), args.runs)
                results.append({"case": case, "system": system, "target": target, "seconds": ms / 1e3})
                print(f"{case:18} {system:8} {target:24} {ms:9.2f} ms", flush=True)
            counts = {a[0][0] for a in answers.values()}
            assert counts == {width}, f"answers differ: {answers}"
        sw.close()
        dd.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    info = machine()
    by = {(r["case"], r["system"], r["target"]): 1e3 * r["seconds"] for r in results}
    lines = [
        "## Range filters on a clustered key (`python -m bench cluster`)",
        "",
        f"`SELECT count(*), sum(v) FROM t WHERE k >= a AND k < b` over {args.rows:,} rows `(k BIGINT, v DOUBLE)` with "
        f"k a random permutation, the range holding the given share of rows; median of {args.runs} runs, warm. "
        f"swingdb: `CREATE TABLE t (...) CLUSTER BY k` (each write sorts its rows; a scan binary-searches each sorted "
        f"segment) against the same rows stored as they came; DuckDB: the rows inserted `ORDER BY k` (its zone maps "
        f"skip row groups) and as they came. Loading the clustered table took {load_clustered:.1f} s "
        f"(unclustered {load_plain:.1f} s: the sort). "
        f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; DuckDB {info['duckdb']}.",
        "",
    ]
    rows = []
    for share in SHARES:
        case = f"{100 * share:g} % of rows"
        ours, plain = by[(case, "swingdb", "CLUSTER BY k")], by[(case, "swingdb", "unclustered")]
        theirs, theirs_plain = by[(case, "DuckDB", "inserted in key order")], by[(case, "DuckDB", "unordered")]
        rows.append([f"{100 * share:g} %", f"{ours:.2f}", f"{plain:.2f}", f"{theirs:.2f}", f"{theirs_plain:.2f}", f"{theirs / ours:.1f}x"])
    headers = ["share of rows", "swingdb CLUSTER BY", "swingdb unclustered", "DuckDB in key order", "DuckDB unordered",
               "DuckDB in key order / swingdb CLUSTER BY"]
    lines.append(table(headers, rows))
    lines.append("\n(milliseconds)\n")
    doc = "bench/results/benchmarks-quick.md" if args.quick else "docs/benchmarks.md"
    img = os.path.join(os.path.dirname(doc), "img")
    os.makedirs(img, exist_ok=True)
    bar_plot(results, os.path.join(img, "cluster.png"), title=f"Range filters on a clustered key, {args.rows:,} rows")
    lines.append("![range filters on a clustered key](img/cluster.png)\n")
    replace_section(doc, "cluster", "\n".join(lines))
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
