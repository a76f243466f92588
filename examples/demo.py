"""The swingdb demo (`make demo`): TPC-H data generated locally, loaded into a
persistent database, TPC-H Q1, and a zero-copy fetch into numpy.

    python examples/demo.py --scale 0.1
"""

import argparse
import os
import shutil
import sys
import time

import numpy as np
import swingdb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from bench.tpch import QUERIES, TABLES, generate  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1, help="TPC-H scale factor (1 = 6M lineitem rows)")
    parser.add_argument("--dir", default=os.path.join(ROOT, "demo-data"), help="where data and database go")
    args = parser.parse_args()

    data = generate(args.scale, os.path.join(args.dir, f"tpch-sf{args.scale:g}"))
    db_path = os.path.join(args.dir, f"tpch-sf{args.scale:g}.swingdb")
    shutil.rmtree(db_path, ignore_errors=True)

    print(f"== loading TPC-H SF{args.scale:g} into {db_path}")
    t0 = time.perf_counter()
    with swingdb.connect(db_path) as con:
        for name in TABLES:
            con.sql(f"CREATE TABLE {name} AS SELECT * FROM '{os.path.join(data, name)}.parquet'")
            rows = con.sql(f"SELECT count(*) FROM {name}").fetchall()[0][0]
            print(f"   {name:<10} {rows:>10,} rows")
    print(f"   loaded in {time.perf_counter() - t0:.2f} s")

    t0 = time.perf_counter()
    con = swingdb.connect(db_path)
    print(f"== reopened the database in {1e3 * (time.perf_counter() - t0):.2f} ms")

    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        q1 = con.sql(QUERIES[1]).arrow()
        times.append(time.perf_counter() - t0)
    print(f"== TPC-H Q1: {1e3 * min(times):.1f} ms (best of 3)")
    print(con.sql(QUERIES[1]))

    fetch = "SELECT l_orderkey, l_partkey, l_suppkey, l_linenumber FROM lineitem"
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        cols = con.sql(fetch).numpy()
        times.append(time.perf_counter() - t0)
    elapsed = sorted(times)[len(times) // 2]
    arr = cols["l_orderkey"]
    mapped = _inside_mapped_segment(arr, db_path)
    print(
        f"== zero-copy fetch of 4 lineitem columns ({len(arr):,} rows) into numpy: {1e3 * elapsed:.2f} ms (median of 5); "
        f"read-only={not arr.flags.writeable}; points into the segment file: {mapped}"
    )
    del q1


def _inside_mapped_segment(arr: np.ndarray, db_path: str) -> bool:
    addr = arr.__array_interface__["data"][0]
    seg_dir = os.path.realpath(os.path.join(db_path, "segments"))
    with open("/proc/self/maps") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 6 and parts[-1].startswith(seg_dir):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if lo <= addr < hi:
                    return True
    return False


if __name__ == "__main__":
    main()
