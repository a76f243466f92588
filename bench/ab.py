"""Two builds of swingdb side by side (a change against the commit before it):
the 22 TPC-H queries warm (median of 5 each) and single-row statements, in
rounds that alternate the builds, each run in a fresh process.

    python -m bench ab BASE NEW [--db bench/data/tpch-sf1.swingdb] [--rounds 3]

BASE and NEW are directories holding a `swingdb` package (e.g. a wheel built
with `maturin build` at each commit, unzipped); the database is one TPC-H
database both can open (`python -m bench tpch --scale 1` makes it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN = r'''
import json, statistics, sys, time
sys.path.append(sys.argv[2])
import swingdb
from bench.tpch import QUERIES
con = swingdb.connect(sys.argv[1])
out = {}
for q, sql in sorted(QUERIES.items()):
    con.sql(sql).fetchall()
    ts = []
    for _ in range(5):
        t0 = time.perf_counter(); con.sql(sql).fetchall(); ts.append(time.perf_counter() - t0)
    out[f"q{q}"] = statistics.median(ts)
import tempfile, shutil
d = tempfile.mkdtemp()
c = swingdb.connect(d + "/o.swingdb")
c.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v DOUBLE, s VARCHAR)")
c.execute("INSERT INTO t SELECT value, value * 0.5, 'x' FROM range(100000)")
def timed(fn, n):
    t0 = time.perf_counter()
    for i in range(n): fn(i)
    return (time.perf_counter() - t0) / n
out["insert_param"] = timed(lambda i: c.execute("INSERT INTO t VALUES (?, ?, ?)", [10**6 + i, 1.0, "y"]), 1000)
out["insert_text"] = timed(lambda i: c.execute(f"INSERT INTO t VALUES ({2 * 10**6 + i}, 1.0, 'y')"), 500)
out["point_select"] = timed(lambda i: c.sql("SELECT v FROM t WHERE id = 42").fetchall(), 2000)
out["update_text"] = timed(lambda i: c.execute(f"UPDATE t SET v = {i} WHERE id = {i}"), 200)
c.close(); shutil.rmtree(d)
print(json.dumps(out))
'''

def run(package_dir: str, db: str) -> dict:
    """One round of one build, in a fresh process that imports it first."""
    env = dict(os.environ, PYTHONPATH=package_dir)
    out = subprocess.check_output([sys.executable, "-c", RUN, db, ROOT], env=env, text=True, cwd=tempfile.gettempdir())
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--db", default=os.path.join(ROOT, "bench", "data", "tpch-sf1.swingdb"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    builds = {"base": args.base, "new": args.new}
    results = {b: [] for b in builds}
    for r in range(args.rounds):
        for b in (list(builds) if r % 2 == 0 else list(builds)[::-1]):
            results[b].append(run(builds[b], args.db))
            print(f"round {r + 1}: {b} done", flush=True)
    keys = list(results["new"][0])
    med = {b: {k: statistics.median(x[k] for x in results[b]) for k in keys} for b in builds}
    tpch = [k for k in keys if k.startswith("q")]
    geo = math.exp(statistics.mean(math.log(med["new"][k] / med["base"][k]) for k in tpch))
    print(f"TPC-H SF1 warm geomean new/base: {geo:.3f}  (sum base {sum(med['base'][k] for k in tpch):.3f} s, new {sum(med['new'][k] for k in tpch):.3f} s)")
    for k in keys:
        print(f"{k:14s} base {1e3*med['base'][k]:9.3f} ms  new {1e3*med['new'][k]:9.3f} ms  ratio {med['new'][k]/med['base'][k]:.3f}")


if __name__ == "__main__":
    main()
