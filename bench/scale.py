"""Data bigger than memory: TPC-H loaded and queried by swingdb and DuckDB in
the same run, each inside a memory cgroup this benchmark creates (v1 or v2;
needs root, else every run is unconfined and the report says so).

    python -m bench scale --scale 10 --memory 2GB,4GB,none

For each scale and memory limit, per system: the load of all eight tables from
Parquet (time, peak memory of the process, stored bytes), then the 22 queries
once each, cold: in one fresh process after the page cache was dropped, or
with --cold-each each in its own after a drop (what a query costs when nothing
it reads is cached; its own section of the report), each query's time or its
failure. With --compression zero-copy,light,zstd, swingdb runs once per mode of
its tables (`SET default_compression` before the load; own section of the
report). Each system is left to its own defaults inside
the cgroup (swingdb takes 70 % of a cgroup's limit for its queries, DuckDB 80 %
of what it may use)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

from .common import ROOT, drop_caches, machine, report_target
from .report import replace_section, table
from .tpch import QUERIES, TABLES, generate

# Runs in the cgroup: loads (argv[4] == "load") or queries one database,
# printing one JSON line. Peak memory is sampled from /proc every 5 ms:
# anonymous (what the kernel cannot reclaim) and file pages mapped.
WORKER = r"""
import json, sys, threading, time
system, path, data, phase = sys.argv[1:5]
system, _, compression = system.partition(":")
peak = {"anon": 0, "file": 0}
done = threading.Event()
def sample():
    while not done.is_set():
        with open("/proc/self/status") as fh:
            for line in fh:
                key = {"RssAnon:": "anon", "RssFile:": "file"}.get(line.split()[0])
                if key:
                    peak[key] = max(peak[key], int(line.split()[1]) * 1024)
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()
out = {}
if system == "swingdb":
    import swingdb
    con = swingdb.connect(path)
else:
    import duckdb
    con = duckdb.connect(path)
    con.execute("SET enable_progress_bar = false")
run = lambda sql: con.execute(sql).fetchall()
if phase == "load":
    tables = json.loads(sys.argv[5])
    if compression:
        con.execute(f"SET default_compression = '{compression}'")
    t0 = time.perf_counter()
    for t in tables:
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data}/{t}.parquet')")
    out["load_s"] = time.perf_counter() - t0
else:
    queries = json.loads(sys.argv[5])
    out["queries"] = {}
    for n, sql in queries.items():
        t0 = time.perf_counter()
        try:
            run(sql)
            out["queries"][n] = time.perf_counter() - t0
        except Exception as e:
            out["queries"][n] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        # As each ends: a worker killed by its cgroup still tells which queries ran.
        print(json.dumps({"query": n, "result": out["queries"][n]}), flush=True)
done.set()
out["peak_anon"], out["peak_file"] = peak["anon"], peak["file"]
print(json.dumps(out))
"""


class Cgroup:
    """A memory cgroup of this benchmark (v1 or v2), or None where none can be made."""

    def __init__(self, name: str, limit: int | None):
        self.path, self.file, self.reason = None, None, None
        if os.geteuid() != 0:
            self.reason = "not root: runs are not confined"
            return
        v1 = "/sys/fs/cgroup/memory"
        if os.path.isdir(v1):
            self.path, self.file = os.path.join(v1, name), "memory.limit_in_bytes"
        elif os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            try:
                with open("/sys/fs/cgroup/cgroup.subtree_control", "w") as fh:
                    fh.write("+memory")
            except OSError:
                pass
            self.path, self.file = os.path.join("/sys/fs/cgroup", name), "memory.max"
        else:
            self.reason = "no memory cgroup file system"
            return
        try:
            os.makedirs(self.path, exist_ok=True)
            with open(os.path.join(self.path, self.file), "w") as fh:
                fh.write(str(limit) if limit else ("max" if self.file == "memory.max" else "-1"))
        except OSError as e:
            self.path, self.reason = None, f"cannot create a memory cgroup ({e})"

    def run(self, argv: list[str]) -> subprocess.CompletedProcess:
        """Runs `argv` inside the cgroup (the child joins it before exec)."""
        procs = os.path.join(self.path, "cgroup.procs") if self.path else None

        def join():
            if procs:
                with open(procs, "w") as fh:
                    fh.write(str(os.getpid()))

        return subprocess.run(argv, capture_output=True, text=True, preexec_fn=join)

    def remove(self):
        if self.path:
            try:
                os.rmdir(self.path)
            except OSError:
                pass


def parse_bytes(text: str) -> int | None:
    """'2GB' -> 2 GiB in bytes; 'none' -> None (cgroup limits are in binary units)."""
    text = text.strip().upper()
    if text == "NONE":
        return None
    units = {"GB": 1 << 30, "MB": 1 << 20}
    for unit, scale in units.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * scale)
    return int(text)


def stored_bytes(path: str) -> int:
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def one(system: str, scale: float, memory: str, data: str, work: str, cold_each: bool, compression: str = "") -> dict:
    """Loads and queries one system at one scale inside one memory limit
    (swingdb's tables with `compression`, if given); with `cold_each`, each
    query in a fresh process after a page cache drop."""
    path = os.path.join(work, f"scale-sf{scale:g}-{memory}.{'swingdb' if system == 'swingdb' else 'duckdb'}")
    shutil.rmtree(path, ignore_errors=True)
    if os.path.isfile(path):
        os.remove(path)
    group = Cgroup(f"swingdb-bench-{os.getpid()}", parse_bytes(memory))
    label = f"{system} {compression}" if compression else system
    result = {"system": label, "scale": scale, "memory": memory, "confined": group.reason or "yes"}
    try:
        worker = [sys.executable, "-c", WORKER, f"{system}:{compression}", path, data]
        drop_caches()
        proc = group.run(worker + ["load", json.dumps(TABLES)])
        if proc.returncode != 0:
            result["load"] = (
                f"failed ({proc.returncode}{', killed' if proc.returncode < 0 else ''}): {proc.stderr.strip().splitlines()[-1:]}"
            )
            return result
        loaded = json.loads(proc.stdout.splitlines()[-1])
        result.update(load_s=loaded["load_s"], load_anon=loaded["peak_anon"], load_file=loaded["peak_file"])
        result["stored"] = stored_bytes(path)
        t0 = time.perf_counter()
        batches = [{str(n): q} for n, q in QUERIES.items()] if cold_each else [{str(n): q for n, q in QUERIES.items()}]
        result["queries"], result["query_anon"] = {}, 0
        for queries in batches:
            drop_caches()
            ran, anon = run_queries(group, worker, queries)
            result["queries"].update(ran)
            result["query_anon"] = max(result["query_anon"], anon)
        result["queries_s"] = time.perf_counter() - t0
    finally:
        group.remove()
        shutil.rmtree(path, ignore_errors=True)
        for leftover in (path, path + ".wal"):
            if os.path.isfile(leftover):
                os.remove(leftover)
    return result


def run_queries(group: Cgroup, worker: list[str], queries: dict[str, str]) -> tuple[dict, int]:
    """Runs `queries` in one worker process in `group`: each query's time
    or failure (a worker that died names the query it died in), and the
    worker's peak anonymous memory (0 when it died)."""
    proc = group.run(worker + ["query", json.dumps(queries)])
    if proc.returncode == 0:
        ran = json.loads(proc.stdout.splitlines()[-1])
        return ran["queries"], ran["peak_anon"]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{"query"')]
    ran = {line["query"]: line["result"] for line in lines}
    dying = next((n for n in queries if n not in ran), None)
    how = "killed by signal" if proc.returncode < 0 else "exit status"
    if dying:
        ran[dying] = f"worker died ({how} {abs(proc.returncode)}): {proc.stderr.strip().splitlines()[-1:]}"
    return ran, 0


def report(results: list[dict], img: str, name: str) -> str:
    def gb(b):
        return f"{b / 1e9:.2f}" if isinstance(b, (int, float)) else ""

    rows = []
    for r in results:
        queries = r.get("queries")
        # Failed, or not run after a worker died.
        failed = [str(n) for n in QUERIES if not isinstance(queries.get(str(n)), float)] if isinstance(queries, dict) else []
        total = sum(v for v in queries.values() if isinstance(v, float)) if isinstance(queries, dict) else None
        rows.append(
            [
                f"SF{r['scale']:g}",
                r["memory"],
                r["system"],
                f"{r['load_s']:.1f}" if "load_s" in r else str(r.get("load", "")),
                gb(r.get("load_anon")),
                gb(r.get("load_file")),
                gb(r.get("stored")),
                f"{total:.1f}" if total is not None else str(queries or ""),
                ", ".join(failed) or ("none" if isinstance(queries, dict) else ""),
            ]
        )
    text = table(
        [
            "scale",
            "memory",
            "system",
            "load s",
            "load peak anon GB",
            "load peak mapped GB",
            "stored GB",
            "22 queries s (cold)",
            "queries failed",
        ],
        rows,
        right=3,
    )
    per_query = [r for r in results if isinstance(r.get("queries"), dict)]
    if per_query:
        plot = os.path.join(img, f"{name}.png")
        _plot(per_query, plot)
        text += f"\n\n![query times per memory limit]({os.path.relpath(plot, os.path.dirname(img))})\n"
    return text


def _plot(results: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(results)
    for i, r in enumerate(results):
        xs = [int(n) + i * width for n in r["queries"]]
        ys = [v if isinstance(v, float) else 0 for v in r["queries"].values()]
        ax.bar(xs, ys, width=width, label=f"{r['system']} SF{r['scale']:g} {r['memory']}")
    ax.set_xlabel("TPC-H query")
    ax.set_ylabel("seconds, cold cache (lower is better)")
    ax.set_xticks(range(1, 23))
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="10", help="comma-separated TPC-H scale factors")
    parser.add_argument("--memory", default="2GB,4GB,none", help="comma-separated cgroup limits ('none': unlimited)")
    parser.add_argument("--quick", action="store_true", help="scale 1 under 1GB and none; report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    parser.add_argument(
        "--compression",
        default="",
        help="comma-separated compression modes of swingdb's tables, each a run of its own "
        "(e.g. zero-copy,light,zstd; report section 'scale-compression'); default: the database's default",
    )
    parser.add_argument(
        "--cold-each",
        action="store_true",
        help="each query in its own fresh process after dropping the page cache (default: the 22 in one)",
    )
    args = parser.parse_args()
    modes = ("zero-copy", "light", "zstd")
    if any(c not in modes for c in args.compression.split(",") if args.compression):
        parser.error(f"--compression takes modes of {', '.join(modes)}")
    if args.quick:
        args.scale, args.memory = "1", "1GB,none"
    doc, img = report_target(args.quick)
    results = []
    for scale in [float(s) for s in args.scale.split(",")]:
        data = generate(scale, os.path.join(args.work, f"tpch-sf{scale:g}"))
        for memory in args.memory.split(","):
            runs = [("swingdb", c) for c in args.compression.split(",")] + [("DuckDB", "")]
            for system, compression in runs:
                r = one(system, scale, memory, data, args.work, args.cold_each, compression)
                print(json.dumps(r), flush=True)
                results.append(r)
    m = machine()
    flag, how = (" --cold-each", "each in its own fresh process") if args.cold_each else ("", "in one fresh process")
    title = "Data bigger than memory, each query cold" if args.cold_each else "Data bigger than memory"
    if args.compression:
        flag += f" --compression {args.compression}"
        title += ", by compression mode"
    head = (
        f"## {title} (bench scale)\n\n"
        f"`python -m bench scale --scale {args.scale} --memory {args.memory}{flag}` on {m.get('cpu', '')}, "
        f"{m.get('cores', '')} cores, {m.get('memory_gib', '')} GiB RAM, DuckDB {m.get('duckdb', '')}, {time.strftime('%Y-%m-%d')}: TPC-H from "
        "tpchgen-cli Parquet, each system in a memory cgroup of the given limit (load, then the 22 queries "
        f"once, {how}, after dropping the page cache). Peak memory is the process's, "
        "sampled every 5 ms: anonymous memory (which the kernel cannot reclaim) and mapped file pages "
        "(which it can).\n\n"
    )
    # The two protocols, and the comparison of compression modes, keep a section (and plot) each.
    name = "scale-cold-each" if args.cold_each else "scale"
    if args.compression:
        name += "-compression"
    replace_section(doc, name, head + report(results, img, name))
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
