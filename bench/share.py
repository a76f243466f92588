"""Snapshots between processes (seed 002, SWING), three experiments:

transfer   (seed Figure 5) a table of 1, 2, 4, 8 GiB reaches another process:
           swingdb share + attach + first query against a pipe, a Unix socket,
           multiprocessing.shared_memory, pickle over multiprocessing, a pyarrow IPC
           file written and memory-mapped, and Ray's object store (put + get).
writer     (seed Figure 6) a process updates a table segment by segment (sequential,
           80/20 and 90/10 skew) while it shares and another process attaches every
           N seconds: the writer's throughput against no sharing, and the memory the
           held snapshots keep.
analysis   (seed Figures 8/9) another process gets the rows of a table at 1-100 %
           selectivity and computes their standard deviation: attach + query in
           process, against DuckDB read from another process and (--postgres)
           PostgreSQL over its Unix socket; time split into query and transfer.

    python -m bench share [--quick] [--sizes 1,2,4,8] [--parts transfer,writer,analysis] [--postgres]

Sizes that do not fit this machine's free memory (each needs about three copies
of the table) are skipped and the report says so. Every peer sends and receives
in separate processes; times are medians of --runs, measured with the system-wide
monotonic clock from the moment the sender starts until the receiver holds the
data as numpy arrays.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import swingdb

from .common import ROOT, machine, report_target
from .report import replace_section
from .report import table as markdown

GIB = 1 << 30
COLUMNS = 4  # float64 columns of the transfer table
#: Memory a method needs besides the table itself, in table sizes: swingdb
#: none (links and mappings), the byte movers one copy in the receiver (or in
#: the shared segment, the file, the object store), pickle a pickled copy too.
NEEDS = {"swingdb": 0.05, "pipe": 1.0, "socket": 1.0, "shared_memory": 1.0, "ipc-file": 1.0, "ray": 1.0, "pickle": 2.5}

# The receiving side: a fresh process that reports `ready`, then receives by
# `method` and prints the monotonic time at which it holds the data.
RECEIVER = r"""
import os, sys, time, socket, pickle
import numpy as np
method, nbytes = sys.argv[1], int(sys.argv[2])
fd = int(sys.argv[3]) if len(sys.argv) > 3 else -1
if method == "swingdb":
    import swingdb
    swingdb.connect().sql("SELECT 1").fetchall()  # a running process: engine started, like the peers' imports
elif method == "ipc-file":
    import pyarrow as pa
elif method == "shared_memory":
    from multiprocessing import shared_memory
elif method == "pickle":
    from multiprocessing.connection import Client
print("ready", flush=True)
arg = sys.stdin.readline().strip()
extra = ""
if method in ("pipe", "socket"):
    buf = bytearray(nbytes)
    view = memoryview(buf)
    got = 0
    if method == "pipe":
        while got < nbytes:
            got += os.readv(fd, [view[got:]])
    else:
        s = socket.socket(fileno=fd)
        while got < nbytes:
            got += s.recv_into(view[got:])
    data = np.frombuffer(buf, dtype=np.float64)
    check = float(data[-1])
elif method == "pickle":
    with Client(arg) as c:
        chunks = c.recv()
    check = float(chunks[-1][-1])
elif method == "shared_memory":
    shm = shared_memory.SharedMemory(name=arg)
    from multiprocessing import resource_tracker  # the sender owns it (Python < 3.13 has no track=False)
    resource_tracker.unregister(shm._name, "shared_memory")
    data = np.ndarray(nbytes // 8, dtype=np.float64, buffer=shm.buf)
    check = float(data[-1])
elif method == "ipc-file":
    table = pa.ipc.open_file(pa.memory_map(arg)).read_all()
    check = float(table.column(table.num_columns - 1).chunks[-1].to_numpy()[-1])
elif method == "swingdb":
    t = time.perf_counter()
    con = swingdb.attach(arg)
    attach = time.perf_counter() - t
    table = con.sql("SELECT * FROM t").arrow()   # zero-copy: chunks are the mapped segments
    check = table.column(table.num_columns - 1).chunks[-1][-1].as_py()
    extra = f" {attach}"
done = time.perf_counter()
print(f"{done} {check}{extra}", flush=True)
sys.stdin.readline()
"""


def free_memory() -> int:
    with open("/proc/meminfo") as fh:
        info = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in fh}
    shm = shutil.disk_usage("/dev/shm").free if os.path.isdir("/dev/shm") else info["MemAvailable"]
    return min(info["MemAvailable"], shm)


class Receiver:
    def __init__(self, method: str, nbytes: int, fd: int | None = None):
        args = [sys.executable, "-c", RECEIVER, method, str(nbytes)] + ([str(fd)] if fd is not None else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     pass_fds=(fd,) if fd is not None else ())
        assert self.proc.stdout.readline().strip() == "ready"

    def go(self, arg: str = "") -> None:
        self.proc.stdin.write(arg + "\n")
        self.proc.stdin.flush()

    def result(self) -> list[float]:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"receiver failed (exit {self.proc.wait()})")
        return [float(x) for x in line.split()]

    def close(self) -> None:
        self.go()
        self.proc.wait(timeout=120)


def make_transfer_table(con, nbytes: int) -> pa.Table:
    rows = nbytes // (8 * COLUMNS)
    cols = ", ".join(f"CAST(value AS DOUBLE) * {k + 1} AS c{k}" for k in range(COLUMNS))
    con.sql("DROP TABLE IF EXISTS t")
    con.sql(f"CREATE TABLE t AS SELECT {cols} FROM range({rows})")
    return con.sql("SELECT * FROM t").arrow()


def chunks(table: pa.Table) -> list[np.ndarray]:
    """Every column chunk as a numpy view (no copy)."""
    return [c.to_numpy(zero_copy_only=True) for col in table.columns for c in col.chunks]


def send_transfer(method: str, con, table: pa.Table, nbytes: int, tag: str, ray_mod=None) -> dict:
    """One transfer of `table` to a fresh receiver; seconds from start to data in hand."""
    parts = chunks(table)
    expected = float(parts[-1][-1])
    attach = None
    if method == "pipe":
        r_fd, w_fd = os.pipe()
        rec = Receiver(method, nbytes, r_fd)
        os.close(r_fd)
        t0 = time.perf_counter()
        rec.go()
        with os.fdopen(w_fd, "wb", buffering=0) as w:
            for p in parts:
                w.write(memoryview(p).cast("B"))
    elif method == "socket":
        import socket

        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        rec = Receiver(method, nbytes, b.fileno())
        b.close()
        t0 = time.perf_counter()
        rec.go()
        for p in parts:
            a.sendall(memoryview(p).cast("B"))
        a.close()
    elif method == "pickle":
        from multiprocessing.connection import Listener

        address = f"/tmp/swingdb-bench-{os.getpid()}-{tag}.sock"
        rec = Receiver(method, nbytes)
        with Listener(address, family="AF_UNIX") as listener:
            t0 = time.perf_counter()
            rec.go(address)
            with listener.accept() as c:
                c.send(parts)
    elif method == "shared_memory":
        from multiprocessing import shared_memory

        rec = Receiver(method, nbytes)
        t0 = time.perf_counter()
        shm = shared_memory.SharedMemory(create=True, size=nbytes)
        view = np.ndarray(nbytes // 8, dtype=np.float64, buffer=shm.buf)
        at = 0
        for p in parts:
            view[at:at + len(p)] = p
            at += len(p)
        rec.go(shm.name)
    elif method == "ipc-file":
        path = f"/dev/shm/swingdb-bench-{os.getpid()}-{tag}.arrow"
        rec = Receiver(method, nbytes)
        t0 = time.perf_counter()
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        rec.go(path)
    elif method == "swingdb":
        rec = Receiver(method, nbytes)
        t0 = time.perf_counter()
        con.share(f"bench-{tag}")
        rec.go(f"bench-{tag}")
    else:
        raise ValueError(method)
    done, check, *rest = rec.result()
    if rest:
        attach = rest[0]
    rec.close()
    if method == "shared_memory":
        shm.close()
        shm.unlink()
    elif method == "ipc-file":
        os.remove(path)
    elif method == "swingdb":
        swingdb.discard(f"bench-{tag}")
    if check != expected:
        raise AssertionError(f"{method} delivered {check}, expected {expected}")
    return {"seconds": done - t0, "attach": attach}


RAY_TASK = None


def ray_transfer(ray, table: pa.Table) -> dict:
    """ray.put in this process, ray.get in a worker process (warm)."""
    global RAY_TASK
    if RAY_TASK is None:

        @ray.remote
        def get(refs):
            t = time.perf_counter()
            value = ray.get(refs[0])
            done = time.perf_counter()
            return done, done - t, float(value[-1][-1])

        RAY_TASK = get
        small = ray.put([np.zeros(1)])
        ray.get(RAY_TASK.remote([small]))  # starts the worker
    parts = chunks(table)
    t0 = time.perf_counter()
    ref = ray.put(parts)
    done, get_seconds, check = ray.get(RAY_TASK.remote([ref]))
    del ref
    assert check == float(parts[-1][-1])
    return {"seconds": done - t0, "get": get_seconds}


def ray_small_get(ray) -> float:
    """Median seconds of one ray.get of a small object already in the store, in a worker."""
    @ray.remote
    def many(refs, n):
        times = []
        for _ in range(n):
            t = time.perf_counter()
            ray.get(refs[0])
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    ref = ray.put(np.arange(10))
    return ray.get(many.remote([ref], 200))


def run_transfer(args, report: list[str], img_dir: str) -> None:
    methods = ["swingdb", "pipe", "socket", "shared_memory", "pickle", "ipc-file"]
    try:
        import ray
    except ImportError:
        ray = None
    results, skipped = [], []
    con = swingdb.connect()
    ray_get_small = None
    ray_cap = max([s for s in args.sizes if s * GIB * (1 + NEEDS["ray"]) * 1.1 < free_memory()], default=0)
    if ray is not None and ray_cap:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=int(ray_cap * GIB * 1.25) + (256 << 20),
                 log_to_driver=False, logging_level="ERROR")
        methods.append("ray")
        ray_get_small = ray_small_get(ray)
    try:
        for size in args.sizes:
            nbytes = int(size * GIB) // (8 * COLUMNS) * (8 * COLUMNS)
            if nbytes * 1.1 > free_memory():
                skipped.append(f"{size:g} GiB entirely (the table alone needs {1.1 * size:.1f} GiB free, {free_memory() / GIB:.1f} GiB are)")
                continue
            table = make_transfer_table(con, nbytes)
            for method in methods:
                if nbytes * NEEDS[method] * 1.1 > free_memory() or (method == "ray" and size > ray_cap):
                    skipped.append(f"{method} at {size:g} GiB (needs {NEEDS[method] * 1.1 * size:.1f} GiB more free memory, "
                                   f"{free_memory() / GIB:.1f} GiB are)")
                    continue
                runs = []
                for i in range(args.runs):
                    runs.append(ray_transfer(ray, table) if method == "ray" else send_transfer(method, con, table, nbytes, f"{size:g}-{i}"))
                seconds = statistics.median(r["seconds"] for r in runs)
                row = {"size_gib": size, "method": method, "seconds": seconds}
                if method == "swingdb":
                    row["attach"] = statistics.median(r["attach"] for r in runs)
                if method == "ray":
                    row["get"] = statistics.median(r["get"] for r in runs)
                results.append(row)
                extra = f"  (attach {1e3 * row['attach']:.3f} ms)" if "attach" in row else (f"  (get {1e3 * row['get']:.2f} ms)" if "get" in row else "")
                print(f"transfer {size:>5g} GiB  {method:<14} {seconds:9.4f} s{extra}", flush=True)
            del table
            con.sql("DROP TABLE t")
    finally:
        con.close()
        if ray is not None and ray_cap:
            ray.shutdown()
    plot_lines(results, "size_gib", "method", os.path.join(img_dir, "share-transfer.png"),
               "a table to another process (log-log, lower is better)", "GiB")
    sizes = list(dict.fromkeys(r["size_gib"] for r in results))
    by = {(r["size_gib"], r["method"]): r for r in results}
    cells = [[m] + [f"{1e3 * by[(s, m)]['seconds']:.1f}" if (s, m) in by else "" for s in sizes]
            for m in dict.fromkeys(r["method"] for r in results)]
    cells.append(["swingdb attach alone"] + [f"{1e3 * by[(s, 'swingdb')]['attach']:.3f}" for s in sizes])
    lines = [markdown(["method"] + [f"{s:g} GiB" for s in sizes], cells)]
    lines.append("")
    lines.append(f"(milliseconds, median of {args.runs}; from the sender's start until the receiver holds every column)")
    for s in sizes:
        peers = [by[(s, m)]["seconds"] for m in dict.fromkeys(r["method"] for r in results) if m != "swingdb" and (s, m) in by]
        movers = [by[(s, m)]["seconds"] for m in ("pipe", "socket", "pickle", "shared_memory") if (s, m) in by]
        if not movers or not peers:
            lines.append(f"\n{s:g} GiB: attach {1e3 * by[(s, 'swingdb')]['attach']:.3f} ms (no peer fitted in memory at this size)")
            continue
        lines.append(
            f"\n{s:g} GiB: attach {1e3 * by[(s, 'swingdb')]['attach']:.3f} ms, {min(movers) / by[(s, 'swingdb')]['attach']:,.0f}x faster "
            f"than the fastest byte-moving peer ({1e3 * min(movers):.0f} ms); share + attach + first query "
            f"{1e3 * by[(s, 'swingdb')]['seconds']:.2f} ms, {min(peers) / by[(s, 'swingdb')]['seconds']:,.1f}x faster than the fastest peer."
        )
    if ray_get_small is not None:
        lines.append(f"\nOne `ray.get` of a small object already in Ray's store, in a worker: {1e6 * ray_get_small:.0f} µs (median of 200).")
    if skipped:
        lines.append("\nSkipped: " + "; ".join(skipped) + ".")
    report.append("### Moving a table to another process (seed Figure 5)\n\n" + "\n".join(lines) + "\n\n![transfer](img/share-transfer.png)\n")


WRITER_PEER = r"""
import sys, swingdb
print("ready", flush=True)
held = None
for line in sys.stdin:
    name = line.strip()
    if not name:
        break
    if held is not None:
        held.close()
    held = swingdb.attach(name)
    print(held.sql("SELECT count(*) FROM t").fetchall()[0][0], flush=True)
"""


def run_writer(args, report: list[str], img_dir: str) -> None:
    seg_rows = 2_000_000  # 32 MB segments: an update rewrites one
    segments = max(2, int(args.writer_gib * GIB) // (seg_rows * 16))
    con = swingdb.connect()
    con.sql(f"CREATE TABLE t AS SELECT value AS id, CAST(value AS DOUBLE) AS v FROM range({seg_rows})")
    for k in range(1, segments):
        con.execute(f"INSERT INTO t SELECT value + ?, CAST(value AS DOUBLE) FROM range({seg_rows})", [k * seg_rows])
    home = os.environ.get("SWINGDB_RUNTIME_DIR") or ("/dev/shm" if os.path.isdir("/dev/shm") else "/tmp")
    rng = np.random.default_rng(42)

    def pick(workload: str, i: int) -> int:
        if workload == "sequential":
            return i % segments
        hot_share, hot_part = {"80/20": (0.8, 0.2), "90/10": (0.9, 0.1)}[workload]
        hot = max(1, int(segments * hot_part))
        return int(rng.integers(0, hot)) if rng.random() < hot_share else int(rng.integers(hot, segments))

    def run(workload: str, interval: float | None) -> dict:
        peer = subprocess.Popen([sys.executable, "-c", WRITER_PEER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert peer.stdout.readline().strip() == "ready"
        base = shutil.disk_usage(home).used
        peak = base
        start = time.perf_counter()
        next_share = start + interval if interval else None
        updates = shares = 0
        while time.perf_counter() - start < args.writer_seconds:
            seg = pick(workload, updates)
            lo = seg * seg_rows + int(rng.integers(0, seg_rows - 1000))
            con.execute("UPDATE t SET v = v + 1 WHERE id >= ? AND id < ?", [lo, lo + 1000])
            updates += 1
            peak = max(peak, shutil.disk_usage(home).used)
            if next_share is not None and time.perf_counter() >= next_share:
                con.share("bench-writer", replace=True)
                peer.stdin.write("bench-writer\n")
                peer.stdin.flush()
                assert int(peer.stdout.readline()) == segments * seg_rows
                shares += 1
                next_share += interval
        elapsed = time.perf_counter() - start
        peer.stdin.write("\n")
        peer.stdin.flush()
        peer.wait(timeout=60)
        if interval:
            swingdb.discard("bench-writer")
        return {"updates_per_s": updates / elapsed, "shares": shares, "extra_mib": (peak - base) / 2**20}

    results = []
    try:
        cases = [("sequential", None)] + [("sequential", s) for s in args.intervals]
        cases += [(w, None) for w in ("80/20", "90/10")] + [(w, args.intervals[1] if len(args.intervals) > 1 else args.intervals[0]) for w in ("80/20", "90/10")]
        for workload, interval in cases:
            r = run(workload, interval)
            r.update(workload=workload, interval=interval)
            results.append(r)
            print(f"writer {workload:<10} share every {interval or '-':>4} s: {r['updates_per_s']:7.1f} updates/s, "
                  f"{r['shares']} shares, +{r['extra_mib']:.0f} MiB held", flush=True)
    finally:
        con.close()
    base = {r["workload"]: r["updates_per_s"] for r in results if r["interval"] is None}
    cells = []
    for r in results:
        ratio = r["updates_per_s"] / base[r["workload"]] - 1
        every = f"{r['interval']:g} s" if r["interval"] else "never"
        cells.append([r["workload"], every, f"{r['updates_per_s']:.1f}", f"{100 * ratio:+.1f} %", r["shares"], f"{r['extra_mib']:.0f}"])
    headers = ["workload", "share + attach every", "updates/s", "vs. no sharing", "shares", "extra memory held (MiB, peak)"]
    lines = [markdown(headers, cells)]
    plot_bars(results, base, os.path.join(img_dir, "share-writer.png"))
    report.append(
        f"### A writer sharing while it updates (seed Figure 6)\n\nA table of {segments * seg_rows:,} rows "
        f"({segments} segments of {seg_rows:,} rows, {segments * seg_rows * 16 / GIB:.2f} GiB); each update changes 1,000 rows of "
        f"one segment (marked deleted there, their new versions written as new rows); {args.writer_seconds:g} s per case; the attaching process keeps the newest "
        "snapshot attached until the next.\n\n" + "\n".join(lines) + "\n\n![writer](img/share-writer.png)\n"
    )


ANALYSIS_PEER = r"""
import sys, time, json
import numpy as np
system, arg = sys.argv[1], sys.argv[2]
if system == "swingdb":
    import swingdb
    swingdb.connect().sql("SELECT 1").fetchall()
elif system == "DuckDB":
    import duckdb
else:
    import adbc_driver_postgresql.dbapi as pg
print("ready", flush=True)
for line in sys.stdin:
    if not line.strip():
        break
    p = float(line)
    t0 = time.perf_counter()
    if system == "swingdb":
        con = swingdb.attach(arg)
        attach = time.perf_counter() - t0
        tq = time.perf_counter()
        con.sql("SELECT count(*) FROM t WHERE sel < ?", [p]).fetchall()
        query = time.perf_counter() - tq + attach
        t1 = time.perf_counter()
        v = con.sql("SELECT v FROM t WHERE sel < ?", [p]).numpy()["v"]
    elif system == "DuckDB":
        con = duckdb.connect(arg, read_only=True)
        tq = time.perf_counter()
        con.execute("SELECT count(*) FROM t WHERE sel < ?", [p]).fetchall()
        query = time.perf_counter() - tq
        t1 = time.perf_counter()
        v = con.execute("SELECT v FROM t WHERE sel < ?", [p]).fetchnumpy()["v"]
    else:
        con = pg.connect(arg)
        cur = con.cursor()
        tq = time.perf_counter()
        cur.execute("SELECT count(*) FROM t WHERE sel < $1", [p]); cur.fetchall()
        query = time.perf_counter() - tq
        t1 = time.perf_counter()
        cur.execute("SELECT v FROM t WHERE sel < $1", [p])
        v = cur.fetch_arrow_table().column("v").to_numpy()
    fetch = time.perf_counter() - t1
    t2 = time.perf_counter()
    sd = float(np.std(v))
    compute = time.perf_counter() - t2
    total = time.perf_counter() - t0
    con.close()
    print(json.dumps({"total": total, "query": query, "transfer": max(0.0, fetch - (query if system != "swingdb" else query - attach)), "compute": compute, "rows": len(v), "std": sd}), flush=True)
"""


def run_analysis(args, report: list[str], img_dir: str) -> None:
    import json

    rows = int(args.analysis_gib * GIB) // 24
    con = swingdb.connect()
    con.sql(f"CREATE TABLE t AS SELECT value AS id, random() AS sel, random() * 100 AS v FROM range({rows})")
    con.share("bench-analysis")
    table = con.sql("SELECT * FROM t").arrow()
    systems = {"swingdb": "bench-analysis"}
    work = os.path.join(args.work, "share")
    os.makedirs(work, exist_ok=True)
    duck_path = os.path.join(work, "analysis.duckdb")
    try:
        import duckdb

        if os.path.exists(duck_path):
            os.remove(duck_path)
        d = duckdb.connect(duck_path)
        source = table  # noqa: F841  (DuckDB reads the Python variable by name)
        d.execute("CREATE TABLE t AS SELECT * FROM source")
        d.close()
        systems["DuckDB"] = duck_path
    except ImportError:
        pass
    pg = None
    results = []
    try:
        if args.postgres:
            import adbc_driver_postgresql.dbapi as pgdb

            from .postgres import LocalPostgres

            pg = LocalPostgres().__enter__()
            with pgdb.connect(pg.uri) as c:
                cur = c.cursor()
                cur.adbc_ingest("t", table, mode="create")
                c.commit()
            systems["PostgreSQL"] = pg.uri
        del table
        for system, arg in systems.items():
            peer = subprocess.Popen([sys.executable, "-c", ANALYSIS_PEER, system, arg], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert peer.stdout.readline().strip() == "ready"
            for p in args.selectivities:
                runs = []
                for _ in range(args.runs):
                    peer.stdin.write(f"{p}\n")
                    peer.stdin.flush()
                    runs.append(json.loads(peer.stdout.readline()))
                med = {k: statistics.median(r[k] for r in runs) for k in ("total", "query", "transfer", "compute")}
                med.update(system=system, selectivity=p, rows=runs[0]["rows"])
                results.append(med)
                print(f"analysis {system:<11} {100 * p:5g} %  total {med['total']:8.4f} s  query {med['query']:8.4f}  "
                      f"transfer {med['transfer']:8.4f}  std {med['compute']:7.4f}  ({med['rows']:,} rows)", flush=True)
            peer.stdin.write("\n")
            peer.stdin.flush()
            peer.wait(timeout=60)
    finally:
        con.close()
        if pg is not None:
            pg.__exit__(None, None, None)
    plot_lines([{**r, "seconds": r["total"]} for r in results], "selectivity", "system", os.path.join(img_dir, "share-analysis.png"),
               "rows to another process + standard deviation (lower is better)", "selectivity", logx=True)
    cells = [[r["system"], f"{100 * r['selectivity']:g} %", f"{r['rows']:,}", f"{1e3 * r['total']:.1f}", f"{1e3 * r['query']:.1f}",
             f"{1e3 * r['transfer']:.1f}", f"{1e3 * r['compute']:.1f}"] for r in results]
    lines = [markdown(["system", "selectivity", "rows", "total", "query", "transfer", "std dev"], cells)]
    report.append(
        f"### Analysis in another process (seed Figures 8 and 9)\n\nA table of {rows:,} rows ({rows * 24 / GIB:.2f} GiB: id, sel, v); "
        "the analysis process runs `SELECT v FROM t WHERE sel < p` and computes `np.std`. swingdb: attach the publisher's snapshot "
        "(counted as query) and query in process (transfer: fetching the rows as numpy, a view where the filter keeps everything); "
        "DuckDB: open the file another process wrote, read-only; PostgreSQL: ADBC over the Unix socket. Query = the same filter "
        "with `count(*)`; transfer = fetching the rows minus that.\n\n"
        + "\n".join(lines) + f"\n\n(milliseconds, median of {args.runs})\n\n![analysis](img/share-analysis.png)\n"
    )


def plot_lines(results, xkey, series_key, path, title, xlabel, logx=True):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for i, s in enumerate(dict.fromkeys(r[series_key] for r in results)):
        pts = sorted((r[xkey], r["seconds"]) for r in results if r[series_key] == s)
        ax.plot([p[0] for p in pts], [1e3 * p[1] for p in pts], marker="osD^vP*X"[i % 8], label=s)
        if s == "swingdb" and all("attach" in r for r in results if r[series_key] == s):
            att = sorted((r[xkey], r["attach"]) for r in results if r[series_key] == s)
            ax.plot([p[0] for p in att], [1e3 * p[1] for p in att], linestyle="--", marker="x", label="swingdb attach alone")
    if logx:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("milliseconds")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_bars(results, base, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    def label(r):
        return r["workload"] + "\n" + ("no sharing" if r["interval"] is None else f"every {r['interval']:g} s")

    labels = [label(r) for r in results]
    ax.bar(range(len(results)), [r["updates_per_s"] for r in results], color=["#999" if r["interval"] is None else "#1f77b4" for r in results])
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("updates per second (higher is better)")
    ax.set_title("writer throughput while sharing", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and short runs, report to bench/results/")
    parser.add_argument("--sizes", default="1,2,4,8", help="transfer sizes in GiB")
    parser.add_argument("--parts", default="transfer,writer,analysis")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--writer-gib", type=float, default=1.0)
    parser.add_argument("--writer-seconds", type=float, default=40.0)
    parser.add_argument("--analysis-gib", type=float, default=1.0)
    parser.add_argument("--postgres", action="store_true", help="include a local PostgreSQL server in the analysis")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    args = parser.parse_args()
    args.sizes = [float(s) for s in args.sizes.split(",")]
    args.intervals = [5.0, 10.0, 20.0, 40.0]
    args.selectivities = [0.01, 0.05, 0.1, 0.5, 1.0]
    if args.quick:
        args.sizes = [s for s in (0.125, 0.25)]
        args.writer_gib, args.writer_seconds, args.intervals = 0.125, 6.0, [1.0, 2.0]
        args.analysis_gib = 0.125
        args.runs = min(args.runs, 3)
    doc, img = report_target(args.quick)
    report = []
    parts = args.parts.split(",")
    if "transfer" in parts:
        run_transfer(args, report, img)
    if "writer" in parts:
        run_writer(args, report, img)
    if "analysis" in parts:
        run_analysis(args, report, img)
    info = machine()
    head = (
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"swingdb {info['swingdb']}, pyarrow {info['pyarrow']}, DuckDB {info['duckdb']}, numpy {info['numpy']}"
        + (f", Ray {__import__('ray').__version__}" if _has("ray") else "") + f". `python -m bench share {' '.join(sys.argv[1:])}`.\n\n"
    )
    replace_section(doc, "share" + ("-" + args.parts.replace(",", "-") if args.parts != "transfer,writer,analysis" else ""),
                    "## Snapshots between processes (`python -m bench share`)\n\n" + head + "\n".join(report))


def _has(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
