"""Transfer to database (seed 001): TPC-H lineitem from a pandas DataFrame and
from a pyarrow Table into a persistent table, swingdb against DuckDB, SQLite and
PostgreSQL in the same run.

    python -m bench ingest --scale 1 --runs 3 [--postgres] [--no-sqlite]

Each run starts from an empty table and ends when the rows are committed to
disk. The disk's sequential write bandwidth (dd with fdatasync) is measured in
the same run for reference: before the first case and after each one, since on
a shared or virtual disk it varies from minute to minute (one run here measured
386, 635 and 804 MB/s in a row); the report gives their median and range.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import subprocess
import time
import warnings

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import swingdb

from .common import lineitem_args, machine, timed
from .report import markdown_table, replace_section, save
from .tpch import generate


def disk_write_mb_s(directory: str, megabytes: int = 1024) -> float:
    """Sequential write bandwidth of `directory`'s disk, synced, in MB/s (10^6
    bytes, the unit the ingest figures use; dd's blocks are MiB)."""
    path = os.path.join(directory, "dd.tmp")
    try:
        t0 = time.perf_counter()
        subprocess.run(
            ["dd", "if=/dev/zero", f"of={path}", "bs=1M", f"count={megabytes}", "conv=fdatasync"],
            check=True,
            capture_output=True,
        )
        return megabytes * 2**20 / 1e6 / (time.perf_counter() - t0)
    finally:
        if os.path.exists(path):
            os.remove(path)


def swingdb_ingest(work: str):
    path = os.path.join(work, "ingest.swingdb")
    shutil.rmtree(path, ignore_errors=True)
    con = swingdb.connect(path)

    def load(data):
        con.sql("DROP TABLE IF EXISTS lineitem")
        con.create_table("lineitem", data)

    return load


def duckdb_ingest(work: str):
    path = os.path.join(work, "ingest.duckdb")
    if os.path.exists(path):
        os.remove(path)
    d = duckdb.connect(path)

    def load(data):
        d.execute("DROP TABLE IF EXISTS lineitem")
        d.register("source", data)
        d.execute("CREATE TABLE lineitem AS SELECT * FROM source")
        d.unregister("source")
        d.execute("CHECKPOINT")

    return load


def sqlite_ingest(work: str):
    path = os.path.join(work, "ingest.sqlite")
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)

    def load(df):
        df.to_sql("lineitem", con, if_exists="replace", index=False, chunksize=100_000)
        con.commit()

    return load


def postgres_ingest(pg):
    import adbc_driver_postgresql.dbapi as adbc

    con = adbc.connect(pg.uri)

    def load(table):
        with con.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS lineitem")
            cur.adbc_ingest("lineitem", table, mode="create")
        con.commit()

    return load


def main():
    args = lineitem_args(__doc__, runs=5)
    tag = args.tag
    parquet = os.path.join(generate(args.scale, os.path.join(args.work, f"tpch-{tag}")), "lineitem.parquet")
    table = pq.read_table(parquet)
    # The DataFrame a pandas user has: float64 amounts, datetime64 dates, str text.
    def plain(t: pa.DataType) -> pa.DataType:
        if pa.types.is_string_view(t):
            return pa.string()
        return pa.float64() if pa.types.is_decimal(t) else t

    table = table.cast(pa.schema([pa.field(f.name, plain(f.type)) for f in table.schema]))
    frame = table.to_pandas(date_as_object=False)
    rows, nbytes = table.num_rows, table.nbytes
    disk = [disk_write_mb_s(args.work)]
    print(f"lineitem SF{args.scale:g}: {rows:,} rows, {nbytes / 1e6:.0f} MB in Arrow; disk writes {disk[0]:.0f} MB/s")

    cases = [("swingdb", swingdb_ingest(args.work), ["pandas", "pyarrow"]), ("DuckDB", duckdb_ingest(args.work), ["pandas", "pyarrow"])]
    if not args.no_sqlite:
        cases.append(("SQLite (to_sql)", sqlite_ingest(args.work), ["pandas"]))
    pg = None
    results = []
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres().__enter__()
            cases.append(("PostgreSQL (ADBC ingest)", postgres_ingest(pg), ["pyarrow"]))
        for system, load, sources in cases:
            for source in sources:
                data = frame if source == "pandas" else table
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    seconds, _, _ = timed(lambda: load(data), args.runs)
                results.append({"case": f"from {source}", "system": system, "target": source, "seconds": seconds, "rows": rows})
                disk.append(disk_write_mb_s(args.work))
                print(f"{system:<26} from {source:<8} {seconds:8.2f} s  {nbytes / 1e6 / seconds:8.0f} MB/s  (then dd: {disk[-1]:.0f} MB/s)", flush=True)
    finally:
        if pg is not None:
            pg.__exit__(None, None, None)

    img = save(results, args.out, args.img, f"ingest-{tag}",
               f"lineitem SF{args.scale:g} into a persistent table, median of {args.runs} (log scale)")
    bandwidth = statistics.median(disk)
    info = machine()
    table_md = markdown_table(results)
    body = (
        f"lineitem SF{args.scale:g}: {rows:,} rows, {nbytes / 1e6:.0f} MB as Arrow; median of {args.runs} runs, each into an "
        f"empty persistent table, committed. The disk's synced sequential write bandwidth (dd, 1 GiB, conv=fdatasync) measured "
        f"{len(disk)} times in the same run, before the first case and after each: median {bandwidth:.0f} MB/s "
        f"(from {min(disk):.0f} to {max(disk):.0f}); dd copies the whole file into the page cache before it syncs, while swingdb "
        f"starts the disk on each 8 MiB as soon as it is copied, so a slow disk can take its writes faster than dd's. "
        f"{info['cpu']}, {info['cores']} cores; DuckDB {info['duckdb']}, pandas {info['pandas']}, pyarrow {info['pyarrow']}.\n\n"
        + table_md.replace("(milliseconds)", "(milliseconds; MB/s = Arrow bytes / time)")
        + "\n"
        + "\n".join(
            f"- {r['system']} from {r['target']}: {nbytes / 1e6 / r['seconds']:.0f} MB/s, "
            f"{nbytes / 1e6 / r['seconds'] / bandwidth * 100:.0f} % of the disk's median bandwidth"
            for r in results
        )
        + f"\n\n![ingest]({img})\n"
    )
    replace_section(args.doc, f"ingest-{tag}", f"## Transfer to database, SF{args.scale:g} (`python -m bench ingest`)\n\n" + body)


if __name__ == "__main__":
    main()
