"""Seed 000's micro-benchmarks (section 5, Figure 5) with today's peers:
selection (1/10/50 % of rows), selection + projection, grouping into 1, 500
and (10 % of rows) groups, and a join with a table of 1 % / 10 % of the size,
over tables of random integer columns of 10 MB, 100 MB and 1 GB (10 GB with
--sizes 10MB,100MB,1GB,10GB).

    python -m bench micro [--quick] [--sizes 10MB,100MB,1GB] [--runs 5]
                          [--postgres] [--cache warm|drop] [--timeout 60]

Systems: swingdb, DuckDB, SQLite (through pandas.read_sql), pandas and polars
(Parquet files), and PostgreSQL over its Unix socket with --postgres (a local
server from Debian's package, started by the harness).

Every measurement is end to end: the query runs and its result is in the
Python process as numpy arrays or a DataFrame. Cold runs: a new process for
every run; the clock covers opening the data (connect, or reading the Parquet
files for pandas/polars) plus the query, not the Python imports. With
--cache warm (default) the files are in the OS page cache; with --cache drop
the page cache is dropped before every cold run (root only) and PostgreSQL
is restarted. Warm runs: one process opens the data, runs the operation once
untimed, then --runs timed runs. Figures are medians. A system that exceeds
--timeout on a configuration is not run on larger sizes of it (as in the
paper's one-hour limit).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .common import ROOT, drop_caches, machine, report_target
from .micro_systems import COLUMNS, SEL_RANGE, SYSTEMS, operations
from .report import panel_plot, replace_section, size_table

ROW_BYTES = 4 * len(COLUMNS)  # every column is a 32-bit integer
SIZES = {"10MB": 10 * 2**20, "100MB": 100 * 2**20, "1GB": 2**30, "10GB": 10 * 2**30}


def generate(size: str, work: str) -> dict:
    """Writes t (random integer columns of `size` bytes) and the join partners
    s1 / s10 (1 % / 10 % of t's rows, ids drawn from t's) as Parquet, once."""
    out = os.path.join(work, f"micro-{size}")
    paths = {name: os.path.join(out, f"{name}.parquet") for name in ("t", "s1", "s10")}
    done = os.path.join(out, ".complete")
    if os.path.exists(done):
        return paths
    os.makedirs(out, exist_ok=True)
    n = SIZES[size] // ROW_BYTES
    rng = np.random.default_rng(0)
    ints = lambda high, count=n: rng.integers(0, high, count, dtype=np.int32)  # noqa: E731
    t = pa.table({
        "id": rng.permutation(n).astype(np.int32),
        "sel": ints(SEL_RANGE),
        "g500": ints(500),
        "gtenth": ints(max(1, n // 10)),
        **{f"v{i}": ints(1_000_000) for i in range(1, 7)},
    })
    assert t.column_names == COLUMNS
    pq.write_table(t, paths["t"])
    for p in (1, 10):
        m = n * p // 100
        pq.write_table(pa.table({"id": rng.choice(n, m, replace=False).astype(np.int32), "w": ints(1_000_000, m)}), paths[f"s{p}"])
    open(done, "w").close()
    return paths


def load(paths: dict, work: str, size: str, pg) -> dict:
    """Loads the tables into each database once (kept on disk between runs);
    returns every path a worker needs."""
    import sqlite3

    import duckdb
    import swingdb

    base = os.path.join(work, f"micro-{size}")
    out = dict(paths, swingdb=os.path.join(base, "db.swingdb"), duckdb=os.path.join(base, "db.duckdb"), sqlite=os.path.join(base, "db.sqlite"))
    tables = {"t": paths["t"], "s1": paths["s1"], "s10": paths["s10"]}
    if not os.path.exists(out["swingdb"] + ".complete"):
        with swingdb.connect(out["swingdb"]) as con:
            for name, file in tables.items():
                con.sql(f"DROP TABLE IF EXISTS {name}")
                con.sql(f"CREATE TABLE {name} AS SELECT * FROM '{file}'")
        open(out["swingdb"] + ".complete", "w").close()
    if not os.path.exists(out["duckdb"]):
        con = duckdb.connect(out["duckdb"] + ".tmp")
        for name, file in tables.items():
            con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{file}')")
        con.close()
        os.rename(out["duckdb"] + ".tmp", out["duckdb"])
    if not os.path.exists(out["sqlite"]):
        con = sqlite3.connect(out["sqlite"] + ".tmp")
        for name, file in tables.items():
            cols = pq.read_schema(file).names
            con.execute(f"CREATE TABLE {name} ({', '.join(c + ' INTEGER' for c in cols)})")
            insert = f"INSERT INTO {name} VALUES ({', '.join('?' * len(cols))})"
            for batch in pq.ParquetFile(file).iter_batches(500_000):
                con.executemany(insert, zip(*(c.to_numpy().tolist() for c in batch.columns)))
        con.commit()
        con.close()
        os.rename(out["sqlite"] + ".tmp", out["sqlite"])
    if pg is not None:
        import adbc_driver_postgresql.dbapi as adbc

        with adbc.connect(pg.uri, autocommit=True) as con, con.cursor() as cur:
            for name, file in tables.items():
                cur.execute(f"DROP TABLE IF EXISTS {name}")
                cur.adbc_ingest(name, pq.read_table(file), mode="create")
                cur.execute(f"VACUUM ANALYZE {name}")
        out["postgres"] = pg.uri
    return out


def _files_of(system: str, paths: dict, pg) -> list[str]:
    """The files a system reads, to bring them into the page cache before cold runs."""
    if system == "swingdb":
        return [os.path.join(d, f) for d, _, fs in os.walk(paths["swingdb"]) for f in fs]
    if system in ("DuckDB", "SQLite"):
        return [paths[system.lower()]]
    if system == "PostgreSQL":
        return []  # its shared buffers stay warm: the server is not restarted
    return [paths["t"], paths["s1"], paths["s10"]]


def _warm_cache(files: list[str]) -> None:
    for f in files:
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


def _worker(job: dict, timeout: float) -> dict | None:
    """Runs one worker process; None when it exceeded `timeout`."""
    try:
        out = subprocess.run([sys.executable, "-m", "bench.micro_systems", json.dumps(job)], cwd=ROOT,
                             capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise RuntimeError(f"{job['system']} failed on {job['kind']} {job['param']}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(system, kind, param, paths, mode, args, pg) -> dict | None:
    """Median of args.runs runs of one configuration; None on timeout."""
    job = {"system": system, "kind": kind, "param": param, "paths": paths, "mode": mode, "runs": args.runs}
    if mode == "warm":
        return _worker(job, args.timeout * (args.runs + 1) + 120)
    times, last = [], None
    for _ in range(args.runs):
        if args.cache == "drop":
            if pg is not None and system == "PostgreSQL":
                pg.restart()
            drop_caches()
        last = _worker(job, args.timeout)
        if last is None:
            return None
        times += last["times"]
    return dict(last, times=times)


MODES = ["cold", "warm"]
SYSTEM_NAMES = [name for name in SYSTEMS if name != "PostgreSQL"]  # PostgreSQL with --postgres


def parse_args():
    parser = argparse.ArgumentParser(prog="bench micro", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10MB,100MB,1GB", help="comma-separated, from " + ",".join(SIZES))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--systems", default=",".join(SYSTEM_NAMES), help="a subset reports to bench/results/, as --quick does")
    parser.add_argument("--postgres", action="store_true", help="start a local PostgreSQL server and include it")
    parser.add_argument("--cache", choices=("warm", "drop"), default="warm", help="page cache before cold runs")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run before a system is dropped from a configuration")
    parser.add_argument("--quick", action="store_true", help="10 MB and 100 MB only, report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.timeout = "10MB,100MB", min(args.timeout, 20.0)
    args.sizes = args.sizes.split(",")
    args.systems = args.systems.split(",") + (["PostgreSQL"] if args.postgres else [])
    args.modes = args.modes.split(",")
    if args.cache == "drop" and os.geteuid() != 0:
        parser.error("--cache drop needs root (it writes /proc/sys/vm/drop_caches)")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    return args


def main():
    args = parse_args()
    pg = None
    results = []
    timed_out = set()
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres().__enter__()
        for size in args.sizes:
            t0 = time.perf_counter()
            paths = load(generate(size, args.work), args.work, size, pg)
            rows = SIZES[size] // ROW_BYTES
            print(f"== {size}: {rows:,} rows, data ready in {time.perf_counter() - t0:.1f} s", flush=True)
            for system in args.systems:
                if args.cache == "warm":
                    _warm_cache(_files_of(system, paths, pg))
                for name, kind, param in operations():
                    for mode in args.modes:
                        key = (system, name)  # too slow cold is too slow warm: skip both from here on
                        r = None if key in timed_out else measure(system, kind, param, paths, mode, args, pg)
                        if r is None:
                            timed_out.add(key)
                            print(f"{size:>6} {name:<26} {system:<10} {mode:<4} timeout (> {args.timeout:g} s)", flush=True)
                            results.append({"size": size, "mb": SIZES[size] / 2**20, "rows": rows, "operation": name, "system": system, "mode": mode,
                                            "seconds": "", "times": "", "result_rows": "", "check": "", "status": "timeout"})
                            continue
                        seconds = statistics.median(r["times"])
                        results.append({"size": size, "mb": SIZES[size] / 2**20, "rows": rows, "operation": name, "system": system, "mode": mode,
                                        "seconds": seconds, "times": " ".join(f"{x:.6f}" for x in r["times"]),
                                        "result_rows": r["rows"], "check": r["check"], "status": "ok"})
                        print(f"{size:>6} {name:<26} {system:<10} {mode:<4} {1e3 * seconds:10.2f} ms  ({r['rows']:,} rows)", flush=True)
    finally:
        if pg is not None:
            pg.__exit__(None, None, None)
    report(results, args)


def _disagreements(results: list[dict]) -> list[str]:
    """Configurations where systems returned different row counts or checksums."""
    answers = {}
    for r in results:
        if r["status"] == "ok":
            answers.setdefault((r["size"], r["operation"]), {})[r["system"]] = (r["result_rows"], r["check"])
    return [f"{size} {op}: {found}" for (size, op), found in answers.items() if len(set(found.values())) > 1]


def report(results: list[dict], args) -> None:
    """Raw CSV, one log-log plot per mode, Markdown tables into docs/benchmarks.md."""
    tag = "micro"
    # A run of some systems or modes only (a check of one cell) must not
    # replace the published tables: it reports where --quick runs do.
    partial = set(args.systems) != set(SYSTEM_NAMES + (["PostgreSQL"] if args.postgres else [])) or set(args.modes) != set(MODES)
    doc, img_dir = report_target(args.quick or partial)
    with open(os.path.join(args.out, f"{tag}-quick.csv" if args.quick else f"{tag}.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(results[0]))
        writer.writeheader()
        writer.writerows(results)
    wrong = _disagreements(results)
    for line in wrong:
        print("DIFFERENT ANSWERS:", line, file=sys.stderr)
    info = machine()
    cache = ("files in the OS page cache" if args.cache == "warm" else "OS page cache dropped and PostgreSQL restarted before every run")
    body = [
        f"Sizes {', '.join(args.sizes)} ({', '.join(f'{SIZES[s] // ROW_BYTES:,}' for s in args.sizes)} rows of {len(COLUMNS)} int32 columns), "
        f"median of {args.runs} runs, timeout {args.timeout:g} s per run; measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, "
        f"{info['cores']} cores, {info['memory_gib']} GiB; swingdb {info['swingdb']}, DuckDB {info['duckdb']}, pandas {info['pandas']}, "
        f"polars {info['polars']}, pyarrow {info['pyarrow']}, numpy {info['numpy']}, SQLite {info['sqlite']}"
        + (", PostgreSQL 15 (Debian, ADBC over the Unix socket)" if args.postgres else "") + ".",
        "",
        f"Cold runs: a new process per run, timing open + query + result in Python (not the imports); {cache}. "
        "Warm runs: data opened once in the process, one untimed run, then the timed ones.",
        "",
        "All systems returned the same row counts and checksums." if not wrong else "**Answers differed:** " + "; ".join(wrong),
    ]
    for mode in args.modes:
        img = panel_plot([r for r in results if r["mode"] == mode], os.path.join(img_dir, f"{tag}-{mode}.png"),
                         f"seed 000 micro-benchmarks, {mode} runs, median of {args.runs} (log-log)")
        body += ["", f"### {mode.capitalize()} runs", "", size_table([r for r in results if r["mode"] == mode]), f"![{tag} {mode}](img/{os.path.basename(img)})"]
    title = "## Micro-benchmarks (seed 000), " + ("quick" if args.quick else ", ".join(args.sizes)) + " (`python -m bench micro`)"
    replace_section(doc, tag, title + "\n\n" + "\n".join(body))


if __name__ == "__main__":
    main()
