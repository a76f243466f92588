"""Transfer to client (seed 001) and the selection sweep (seed 000): TPC-H
lineitem handed to numpy / pandas / pyarrow / polars by swingdb and its peers,
all measured in the same run.

    python -m bench.transfer --scale 1 --runs 5 [--postgres] [--no-sqlite] [--case TEXT ...]

--case keeps only the cases whose label contains TEXT (at scale 10, the whole
table into pandas would hold tens of GB of Python strings).

Warm runs: every database is loaded once and queried repeatedly; figures are
medians of --runs runs, each ending with the data in this process as arrays
or a DataFrame.
"""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import time
import warnings

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import swingdb

from .common import lineitem_parser, machine, parse_scale_args, timed
from .report import markdown_table, replace_section, save
from .tpch import generate

NUMERIC = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber"]


def cases(scale: float):
    """(label, SQL) of every measured query."""
    cols = ", ".join(NUMERIC)
    parts = int(200_000 * scale)  # l_partkey is uniform in 1..200000*SF
    yield "whole table", "SELECT * FROM lineitem"
    yield "4 numeric columns", f"SELECT {cols} FROM lineitem"
    for share in (0.01, 0.10, 0.50, 1.00):
        yield f"4 columns, {share:.0%} of rows", f"SELECT {cols} FROM lineitem WHERE l_partkey <= {max(1, int(parts * share))}"


def load_swingdb(parquet: str, path: str):
    if not os.path.exists(os.path.join(path, "swingdb.json")):
        shutil.rmtree(path, ignore_errors=True)
        with swingdb.connect(path) as con:
            con.sql(f"CREATE TABLE lineitem AS SELECT * FROM '{parquet}'")
    con = swingdb.connect(path)
    return {
        "numpy": lambda q: con.sql(q).numpy(),
        "pandas": lambda q: con.sql(q).df(),
        "pyarrow": lambda q: con.sql(q).arrow(),
        "polars": lambda q: con.sql(q).pl(),
    }


def load_duckdb(parquet: str, path: str):
    if not os.path.exists(path):
        d = duckdb.connect(path)
        d.execute(f"CREATE TABLE lineitem AS SELECT * FROM read_parquet('{parquet}')")
        d.close()
    d = duckdb.connect(path, read_only=True)
    # Relations (d.sql) are DuckDB's fastest path to each of these.
    return {
        "numpy": lambda q: d.sql(q).fetchnumpy(),
        "pandas": lambda q: d.sql(q).df(),
        "pyarrow": lambda q: _duckdb_arrow(d.sql(q)),
        "polars": lambda q: d.sql(q).pl(),
    }


def _duckdb_arrow(relation):
    # DuckDB 2.0 calls it to_arrow_table(); before, arrow() returned a table.
    return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()


def load_sqlite(parquet: str, path: str):
    if not os.path.exists(path):
        con = sqlite3.connect(path + ".tmp")
        for i, batch in enumerate(pq.ParquetFile(parquet).iter_batches(batch_size=200_000)):
            df = batch.to_pandas()
            for c in df.columns:
                if df[c].dtype == object and len(df) and not isinstance(df[c].iloc[0], str):
                    df[c] = df[c].astype(str)
            df.to_sql("lineitem", con, if_exists="append" if i else "replace", index=False)
        con.commit()
        con.close()
        os.rename(path + ".tmp", path)
    con = sqlite3.connect(path)
    return {"pandas": lambda q: pd.read_sql(q, con)}


def _pg_type(t: pa.DataType) -> str:
    if pa.types.is_integer(t):
        return "BIGINT"
    if pa.types.is_decimal(t):
        return f"NUMERIC({t.precision},{t.scale})"
    if pa.types.is_floating(t):
        return "DOUBLE PRECISION"
    if pa.types.is_date(t):
        return "DATE"
    return "TEXT"


def load_postgres(parquet: str, pg):
    import adbc_driver_postgresql.dbapi as adbc
    import psycopg

    table = pq.read_table(parquet)
    plain = pa.schema([pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type) for f in table.schema])
    table = table.cast(plain)
    with psycopg.connect(pg.dsn, autocommit=True) as con:
        cols = ", ".join(f"{f.name} {_pg_type(f.type)}" for f in table.schema)
        con.execute(f"CREATE TABLE lineitem ({cols})")
        with con.cursor().copy("COPY lineitem FROM STDIN WITH (FORMAT csv)") as copy:
            for batch in table.to_batches(500_000):
                buf = io.BytesIO()
                pacsv.write_csv(pa.Table.from_batches([batch]), buf, pacsv.WriteOptions(include_header=False))
                copy.write(buf.getvalue())
        con.execute("VACUUM ANALYZE lineitem")
    psy = psycopg.connect(pg.dsn)
    ad = adbc.connect(pg.uri)

    def adbc_arrow(q):
        with ad.cursor() as cur:
            cur.execute(q)
            return cur.fetch_arrow_table()

    def psycopg_pandas(q):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas prefers SQLAlchemy; the plain driver is what users call
            return pd.read_sql(q, psy)

    return {
        "PostgreSQL (psycopg)": {"pandas": psycopg_pandas},
        "PostgreSQL (ADBC)": {
            "pyarrow": adbc_arrow,
            "pandas": lambda q: adbc_arrow(q).to_pandas(),
            "polars": lambda q: pl.from_arrow(adbc_arrow(q)),
        },
    }


def main():
    parser = lineitem_parser(__doc__, runs=5)
    parser.add_argument("--case", action="append", default=[], help="only cases whose label contains this (repeatable)")
    args = parse_scale_args(parser)
    tag = args.tag
    parquet = os.path.join(generate(args.scale, os.path.join(args.work, f"tpch-{tag}")), "lineitem.parquet")
    rows = pq.ParquetFile(parquet).metadata.num_rows

    systems = {
        "swingdb": load_swingdb(parquet, os.path.join(args.work, f"transfer-{tag}.swingdb")),
        "DuckDB": load_duckdb(parquet, os.path.join(args.work, f"transfer-{tag}.duckdb")),
    }
    if not args.no_sqlite:
        systems["SQLite (pandas.read_sql)"] = load_sqlite(parquet, os.path.join(args.work, f"transfer-{tag}.sqlite"))
    pg = None
    results = []
    try:
        if args.postgres:
            from .postgres import LocalPostgres

            pg = LocalPostgres().__enter__()
            systems.update(load_postgres(parquet, pg))
        for label, sql in cases(args.scale):
            if args.case and not any(c in label for c in args.case):
                continue
            for system, targets in systems.items():
                for target, fetch in targets.items():
                    seconds, _, out = timed(lambda: fetch(sql), args.runs)
                    n = len(out) if not isinstance(out, dict) else len(next(iter(out.values())))
                    results.append({"case": label, "system": system, "target": target, "seconds": seconds, "rows": n})
                    print(f"{label:<24} {system:<26} {target:<8} {1e3 * seconds:10.2f} ms  ({n:,} rows)", flush=True)
    finally:
        if pg is not None:
            pg.__exit__(None, None, None)

    img = save(results, args.out, args.img, f"transfer-{tag}",
               f"TPC-H lineitem SF{args.scale:g} ({rows:,} rows) to the client, median of {args.runs} (log scale)")
    info = machine()
    body = (
        f"Scale factor {args.scale:g} ({rows:,} rows), median of {args.runs} warm runs, measured "
        f"{time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"DuckDB {info['duckdb']}, pyarrow {info['pyarrow']}, pandas {info['pandas']}, polars {info['polars']}, numpy {info['numpy']}.\n\n"
        + markdown_table(results, ratio_target="numpy")
        + f"\n![transfer]({img})\n"
    )
    replace_section(args.doc, f"transfer-{tag}", f"## Transfer to client, SF{args.scale:g} (`python -m bench transfer`)\n\n" + body)


if __name__ == "__main__":
    main()
