"""The round trip of an iterative analysis (seed 000): k-means where every
iteration reads the points from the database, computes in numpy, hands the
assignments back to the database, and lets SQL compute the new centroids.

    python -m bench roundtrip --sizes 100000,1000000,10000000 --iterations 10

Reported per iteration: the handoff time (database -> numpy and numpy ->
database, without the computation on either side), for swingdb and for DuckDB
in the same run, at several data sizes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time

import duckdb
import numpy as np
import swingdb

from .common import ROOT, machine, report_target
from .report import bar_plot, markdown_table, replace_section

K = 8


class Clock:
    """Adds up the time spent inside `with clock:` blocks."""

    def __init__(self):
        self.total = 0.0

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        self.total += time.perf_counter() - self.t0


def assign(x, y, centroids):
    d = (x[:, None] - centroids[:, 0]) ** 2 + (y[:, None] - centroids[:, 1]) ** 2
    return d.argmin(axis=1).astype(np.int32)


def kmeans(fetch_numpy, register, query_rows, points, iterations, clock):
    """k-means where each iteration reads the points from the database into numpy
    and hands the assignments back; `clock` times only those two handoffs."""
    centroids = np.stack([points["x"][:K], points["y"][:K]], axis=1)
    for _ in range(iterations):
        with clock:
            cols = fetch_numpy("SELECT id, x, y FROM points")
        labels = assign(cols["x"], cols["y"], centroids)
        with clock:
            register("labels", {"id": cols["id"], "grp": labels})
        rows = query_rows("SELECT l.grp, avg(p.x), avg(p.y) FROM points p JOIN labels l ON p.id = l.id GROUP BY l.grp ORDER BY l.grp")
        centroids = np.array([[r[1], r[2]] for r in rows])
    return centroids


def kmeans_swingdb(path, points, iterations, clock):
    shutil.rmtree(path, ignore_errors=True)
    con = swingdb.connect(path)
    con.create_table("points", points)
    # numpy() of the stored points gives views of the segment file.
    return kmeans(lambda q: con.sql(q).numpy(), con.register, lambda q: con.sql(q).fetchall(), points, iterations, clock)


def kmeans_duckdb(path, points, iterations, clock):
    if os.path.exists(path):
        os.remove(path)
    con = duckdb.connect(path)
    con.register("src", points)
    con.execute("CREATE TABLE points AS SELECT * FROM src")
    con.unregister("src")
    return kmeans(lambda q: con.sql(q).fetchnumpy(), con.register, lambda q: con.sql(q).fetchall(), points, iterations, clock)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="100k and 1M points, report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    args = parser.parse_args()
    if args.quick:
        args.sizes = "100000,1000000"
    doc, img = report_target(args.quick)
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(0)
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        points = {"id": np.arange(n, dtype=np.int64), "x": rng.random(n), "y": rng.random(n)}
        for system, run, path in (
            ("swingdb", kmeans_swingdb, os.path.join(args.work, "roundtrip.swingdb")),
            ("DuckDB", kmeans_duckdb, os.path.join(args.work, "roundtrip.duckdb")),
        ):
            clock = Clock()
            t0 = time.perf_counter()
            run(path, points, args.iterations, clock)
            total = time.perf_counter() - t0
            per_iter = clock.total / args.iterations
            results.append({"case": f"{n:,} points", "system": system, "target": "handoff per iteration", "seconds": per_iter, "rows": n})
            print(f"{n:>12,} points  {system:<8} handoff {1e3 * per_iter:9.3f} ms/iteration   whole run {total:6.2f} s", flush=True)
    bar_plot(results, os.path.join(img, "roundtrip.png"), title=f"k-means round trip: handoff time per iteration (log scale), {args.iterations} iterations")
    info = machine()
    table = markdown_table(results)
    body = (
        f"k = {K}, {args.iterations} iterations; per iteration the points are read into numpy and the assignments handed "
        f"back (time outside numpy and SQL computation). {info['cpu']}, {info['cores']} cores, DuckDB {info['duckdb']}.\n\n"
        + table
        + "\n![roundtrip](img/roundtrip.png)\n"
    )
    replace_section(doc, "roundtrip", "## Round trip: k-means (`python -m bench roundtrip`)\n\n" + body)


if __name__ == "__main__":
    main()
