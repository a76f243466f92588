"""Seed 000's experiments in R (issue 47): swingdb's R package against the R
tools its users have, every result ending in R vectors.

    python -m bench r [--quick] [--sizes 10MB,100MB,1GB] [--runs 5] [--modes cold,warm]
                      [--scale 1] [--timeout 120] [--skip micro|transfer]

micro: seed 000's selection / projection / grouping / join micro-benchmarks
(the tables of `python -m bench micro`) from R: swingdb (DBI, a read-only
connection to the stored database), RSQLite (the same tables in an SQLite
file), data.table and dplyr (the tables as data frames in uncompressed RDS
files, R's fastest own format). duckdb's R package is not measured: it is not
packaged by Debian and no CRAN mirror is reachable here. Cold runs: a new R
process per run; the clock covers opening the data (dbConnect, or readRDS)
plus the operation, after the packages are loaded. Warm runs: the data opened
once, one untimed run, then the timed ones.

transfer: TPC-H lineitem (--scale) into an R data frame, warm: 4 numeric
columns and the whole table, swingdb against RSQLite, the result handed over
alone and then with every value of it read (sum of each column); R's own
allocations during the handoff come from utils::Rprofmem.

Needs the R package installed into ~/.cache/swingdb-rlib (`make test-r` does
it); `make bench-r` runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time

import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import micro
from .common import ROOT, machine, report_target
from .micro_systems import operations
from .report import panel_plot, replace_section, size_table, table

R_LIB = os.environ.get("R_LIB", os.path.expanduser("~/.cache/swingdb-rlib"))
WORKER = os.path.join(ROOT, "bench", "r", "worker.R")
SYSTEMS = ["swingdb", "data.table", "dplyr", "RSQLite"]
TRANSFER_COLUMNS = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber"]


def _env() -> dict:
    return dict(os.environ, R_LIBS=R_LIB, TZ="UTC")


def r_versions() -> str:
    code = ('cat(R.version$major, ".", R.version$minor, sep = ""); '
            'for (p in c("swingdb", "DBI", "data.table", "dplyr", "RSQLite")) cat(",", p, as.character(packageVersion(p)))')
    out = subprocess.run(["Rscript", "-e", code], env=_env(), capture_output=True, text=True, check=True).stdout
    first, *rest = out.split(",")
    return f"R {first}; " + ", ".join(x.strip() for x in rest)


def worker(job: dict, timeout: float) -> dict | None:
    """One R process running one series; None when it exceeded `timeout`."""
    try:
        out = subprocess.run(["Rscript", WORKER, json.dumps(job)], env=_env(), capture_output=True, text=True,
                             timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise RuntimeError(f"R worker failed on {job}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def rds_files(paths: dict) -> dict:
    """The micro tables as RDS files beside their Parquet files (made once)."""
    out = {name: paths[name][: -len(".parquet")] + ".rds" for name in ("t", "s1", "s10")}
    todo = [name for name in out if not os.path.exists(out[name])]
    if todo:
        args = []
        for name in todo:
            csv = out[name][: -len(".rds")] + ".csv"
            pacsv.write_csv(pq.read_table(paths[name]), csv)
            args += [csv, out[name] + ".tmp"]
        subprocess.run(["Rscript", os.path.join(ROOT, "bench", "r", "prepare.R"), *args], env=_env(), check=True)
        for name in todo:
            os.remove(out[name][: -len(".rds")] + ".csv")
            os.rename(out[name] + ".tmp", out[name])
    return out


def run_micro(args) -> list[dict]:
    results, timed_out = [], set()
    for size in args.sizes:
        t0 = time.perf_counter()
        paths = micro.load(micro.generate(size, args.work), args.work, size, None)
        job_paths = {"swingdb": paths["swingdb"], "sqlite": paths["sqlite"], "rds": rds_files(paths)}
        rows = micro.SIZES[size] // micro.ROW_BYTES
        print(f"== {size}: {rows:,} rows, data ready in {time.perf_counter() - t0:.1f} s", flush=True)
        for system in SYSTEMS:
            for name, kind, param in operations():
                for mode in args.modes:
                    key = (system, name)
                    job = {"system": system, "kind": kind, "param": str(param), "paths": job_paths, "mode": mode, "runs": args.runs}
                    r = None
                    if key not in timed_out:
                        if mode == "warm":
                            r = worker(job, args.timeout * (args.runs + 1) + 60)
                        else:
                            series = [worker(job, args.timeout + 30) for _ in range(args.runs)]
                            r = None if any(s is None for s in series) else dict(series[-1], times=[t for s in series for t in s["times"]])
                    row = {"size": size, "mb": micro.SIZES[size] / 2**20, "rows": rows, "operation": name, "system": system, "mode": mode}
                    if r is None:
                        timed_out.add(key)
                        results.append(dict(row, seconds=None, status="timeout"))
                        print(f"{size:>6} {name:<26} {system:<10} {mode:<4} timeout", flush=True)
                        continue
                    seconds = statistics.median(r["times"])
                    results.append(dict(row, seconds=seconds, status="ok", result_rows=r["rows"], check=r["check"]))
                    print(f"{size:>6} {name:<26} {system:<10} {mode:<4} {1e3 * seconds:10.2f} ms  ({r['rows']:,} rows)", flush=True)
    return results


def run_transfer(args) -> list[dict]:
    from . import transfer
    from .tpch import generate

    tag = f"sf{args.scale:g}"
    parquet = os.path.join(generate(args.scale, os.path.join(args.work, f"tpch-{tag}")), "lineitem.parquet")
    db = os.path.join(args.work, f"transfer-{tag}.swingdb")
    sqlite = os.path.join(args.work, f"transfer-{tag}.sqlite")
    transfer.load_swingdb(parquet, db)
    transfer.load_sqlite(parquet, sqlite)
    rows = pq.ParquetFile(parquet).metadata.num_rows
    paths = {"swingdb": db, "sqlite": sqlite}
    cases = [("4 numeric columns", f"SELECT {', '.join(TRANSFER_COLUMNS)} FROM lineitem"), ("whole table", "SELECT * FROM lineitem")]
    results = []
    for label, sql in cases:
        for touch in (False, True):
            for system in ("swingdb", "RSQLite"):
                job = {"system": system, "kind": "transfer", "param": "", "sql": sql, "touch": touch, "paths": paths, "mode": "warm", "runs": args.runs}
                r = worker(job, args.timeout * (args.runs + 1) + 60)
                case = label + (", then every value read" if touch else ", handed over")
                if r is None:
                    results.append({"case": case, "system": system, "seconds": None, "alloc": None, "rows": rows})
                    print(f"{case:<45} {system:<8} timeout", flush=True)
                    continue
                seconds = statistics.median(r["times"])
                results.append({"case": case, "system": system, "seconds": seconds, "alloc": r["alloc"], "rows": r["rows"], "check": r["check"]})
                print(f"{case:<45} {system:<8} {1e3 * seconds:10.2f} ms  R allocated {r['alloc'] / 2**20:8.2f} MiB", flush=True)
    return results


def transfer_table(results: list[dict]) -> str:
    by_case: dict[str, dict] = {}
    for r in results:
        by_case.setdefault(r["case"], {})[r["system"]] = r
    lines = []
    for case, got in by_case.items():
        s, q = got.get("swingdb"), got.get("RSQLite")
        ms = lambda r: "timeout" if r is None or r["seconds"] is None else f"{1e3 * r['seconds']:.2f}"  # noqa: E731
        mib = lambda r: "" if r is None or r["alloc"] is None else f"{r['alloc'] / 2**20:.2f}"  # noqa: E731
        ratio = f"{q['seconds'] / s['seconds']:.0f}x" if s and q and s["seconds"] and q["seconds"] else ""
        lines.append([case, ms(s), mib(s), ms(q), mib(q), ratio])
    headers = ["case", "swingdb ms", "swingdb R MiB", "RSQLite ms", "RSQLite R MiB", "RSQLite / swingdb"]
    return table(headers, lines, right=1)


def main():
    parser = argparse.ArgumentParser(prog="bench r", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10MB,100MB,1GB")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modes", default="cold,warm")
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor of the transfer benchmark")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run before a system is dropped from a configuration")
    parser.add_argument("--skip", choices=("micro", "transfer"), action="append", default=[])
    parser.add_argument("--quick", action="store_true", help="10 MB and 100 MB, SF 0.1, 3 runs, report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.scale, args.runs = "10MB,100MB", 0.1, 3
    args.sizes, args.modes = args.sizes.split(","), args.modes.split(",")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    doc, img_dir = report_target(args.quick)
    info = machine()
    versions = r_versions()
    header = (f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; {versions}; "
              f"median of {args.runs} runs. duckdb's R package is not in the comparison: Debian does not package it and no CRAN mirror "
              "is reachable here.")
    body = [header]
    if "micro" not in args.skip:
        results = run_micro(args)
        body += ["", "Seed 000's micro-benchmarks from R (the tables of `python -m bench micro`); every result ends in R vectors. "
                 "Cold runs: a new R process per run, timing dbConnect or readRDS plus the operation (packages loaded first); "
                 "warm runs: data opened once, one untimed run first."]
        for mode in args.modes:
            part = [r for r in results if r["mode"] == mode]
            img = panel_plot(part, os.path.join(img_dir, f"r-micro-{mode}.png"), f"seed 000 micro-benchmarks in R, {mode} runs (log-log)")
            body += ["", f"#### {mode.capitalize()} runs", "", size_table(part), f"![r micro {mode}](img/{os.path.basename(img)})"]
    if "transfer" not in args.skip:
        results = run_transfer(args)
        body += ["", f"#### TPC-H lineitem SF{args.scale:g} into an R data frame (warm)", "",
                 "R MiB: what R allocated during one handoff (utils::Rprofmem). swingdb's numeric columns are ALTREP vectors over "
                 "the mapped segment; reading every value touches the pages (sum of each column).", "", transfer_table(results)]
    title = "## R: seed 000's experiments from R (`python -m bench r`)"
    replace_section(doc, "r", title + "\n\n" + "\n".join(body))
    print(f"report: {doc}")


if __name__ == "__main__":
    main()
