"""Shared benchmark helpers: timing, machine description, result comparison."""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import math
import os
import platform
import statistics
import subprocess
import time


def timed(fn, runs: int = 5):
    """Runs fn `runs` times; returns (median seconds, all times, last result)."""
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def machine() -> dict:
    """Cores, memory, OS and versions of every peer, for reports."""
    info = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
    }
    import sqlite3

    info["sqlite"] = sqlite3.sqlite_version
    for mod in ("swingdb", "duckdb", "pyarrow", "pandas", "polars", "numpy"):
        try:
            m = __import__(mod)
            info[mod] = getattr(m, "__version__", "dev")
        except ImportError:
            info[mod] = "not installed"
    return info


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def drop_caches() -> bool:
    """Drops the OS page cache (needs root); returns whether it worked."""
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as fh:
            fh.write("3\n")
        return True
    except OSError:
        return False


def _norm(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dt.datetime):
        return v.replace(tzinfo=None)
    return v


def same_rows(a: list[tuple], b: list[tuple], ordered: bool = True, rel: float = 1e-6) -> str | None:
    """None if the row lists match (numbers within `rel`), else a description of the first difference."""
    if len(a) != len(b):
        return f"{len(a)} rows vs {len(b)} rows"
    a = [tuple(map(_norm, r)) for r in a]
    b = [tuple(map(_norm, r)) for r in b]
    if not ordered:
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    for i, (ra, rb) in enumerate(zip(a, b)):
        if len(ra) != len(rb):
            return f"row {i}: {len(ra)} vs {len(rb)} columns"
        for x, y in zip(ra, rb):
            if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
                if not math.isclose(x, y, rel_tol=rel, abs_tol=1e-6):
                    return f"row {i}: {ra} vs {rb}"
            elif x != y:
                return f"row {i}: {ra} vs {rb}"
    return None


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def report_target(quick: bool) -> tuple[str, str]:
    """(Markdown file, image directory) a run writes its report to: docs/ for
    full runs, bench/results/ for --quick runs, which check the harness and
    give a first look rather than publishable figures."""
    base = os.path.join(ROOT, "bench", "results") if quick else os.path.join(ROOT, "docs")
    os.makedirs(os.path.join(base, "img"), exist_ok=True)
    return os.path.join(base, "benchmarks-quick.md" if quick else "benchmarks.md"), os.path.join(base, "img")


def scale_parser(doc: str, runs: int) -> argparse.ArgumentParser:
    """A parser with the options of every TPC-H-data benchmark: --scale, --runs,
    --quick, --work, --out. Parse it with `parse_scale_args`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (1 = 6M lineitem rows)")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--quick", action="store_true", help="scale factor 0.1, report to bench/results/")
    parser.add_argument("--work", default=os.path.join(ROOT, "bench", "data"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    return parser


def parse_scale_args(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Parses a `scale_parser`: applies --quick, creates the work and output
    directories, and adds `tag` (e.g. sf1) and the report's `doc` and `img` paths."""
    args = parser.parse_args()
    if args.quick:
        args.scale = 0.1
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    args.tag = f"sf{args.scale:g}"
    args.doc, args.img = report_target(args.quick)
    return args


def lineitem_parser(doc: str, runs: int) -> argparse.ArgumentParser:
    """A `scale_parser` with the options every lineitem benchmark takes."""
    parser = scale_parser(doc, runs)
    parser.add_argument("--postgres", action="store_true", help="start a local PostgreSQL server (Debian package) and include it")
    parser.add_argument("--no-sqlite", action="store_true")
    return parser


def lineitem_args(doc: str, runs: int) -> argparse.Namespace:
    """The options every lineitem benchmark takes, parsed; work and output directories created."""
    return parse_scale_args(lineitem_parser(doc, runs))
