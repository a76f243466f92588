"""The systems of the micro-benchmarks (seed 000, section 5) and how each one
runs each operation, end to end: the result lands in this process as numpy
arrays (databases) or a DataFrame (pandas, polars, SQLite through pandas).

Run as a worker process by bench.micro, one process per measurement series:

    python -m bench.micro_systems '{"system": ..., "mode": "cold"|"warm", ...}'

prints one JSON line {"times": [...], "rows": n, "check": x}. Imports happen
before the clock starts; a cold run times opening the data plus the query."""

from __future__ import annotations

import importlib
import json
import sqlite3
import sys
import time
import warnings

SEL_RANGE = 1_000_000  # `sel` is uniform in [0, SEL_RANGE): `sel < p * SEL_RANGE` keeps p of the rows
COLUMNS = ["id", "sel", "g500", "gtenth", "v1", "v2", "v3", "v4", "v5", "v6"]


def operations():
    """(name, kind, parameter) of every configuration, in report order."""
    for p in (1, 10, 50):
        yield f"selection {p}%", "select", p
    for p in (1, 10, 50):
        yield f"selection+projection {p}%", "project", p
    for g in ("1", "500", "10% of rows"):
        yield f"grouping, {g} group{'' if g == '1' else 's'}", "group", g
    for p in (1, 10):
        yield f"join, {p}% table", "join", p


def sql(kind: str, param) -> str:
    """The SQL every database runs for one configuration."""
    if kind == "select":
        return f"SELECT * FROM t WHERE sel < {param * SEL_RANGE // 100}"
    if kind == "project":
        return f"SELECT id, v1 FROM t WHERE sel < {param * SEL_RANGE // 100}"
    if kind == "group":
        if param == "1":
            return "SELECT COUNT(*) AS n, SUM(v1) AS s FROM t"
        key = "g500" if param == "500" else "gtenth"
        return f"SELECT {key}, COUNT(*) AS n, SUM(v1) AS s FROM t GROUP BY {key}"
    return f"SELECT t.id, t.v1, s.w FROM t JOIN s{param} AS s ON t.id = s.id"


def _check(result) -> tuple[int, int]:
    """(rows, sum of the last column) of a result, to compare systems' answers."""
    if isinstance(result, dict):
        cols = list(result.values())
        return len(cols[0]), int(cols[-1].astype("int64").sum())
    import polars as pl

    if isinstance(result, pl.DataFrame):
        return result.height, int(result[result.columns[-1]].cast(pl.Int64).sum())
    return len(result), int(result.iloc[:, -1].astype("int64").sum())


class Swingdb:
    """swingdb: a stored database directory; results as numpy arrays (zero-copy where possible)."""

    def __init__(self, paths):
        import swingdb

        self.con = swingdb.connect(paths["swingdb"], read_only=True)

    def run(self, kind, param):
        return self.con.sql(sql(kind, param)).numpy()


class DuckDB:
    """DuckDB: a database file; results through fetchnumpy (its fastest path to arrays)."""

    def __init__(self, paths):
        import duckdb

        self.con = duckdb.connect(paths["duckdb"], read_only=True)

    def run(self, kind, param):
        return self.con.sql(sql(kind, param)).fetchnumpy()


class SQLite:
    """SQLite: a database file; results through pandas.read_sql, as its users fetch them."""

    def __init__(self, paths):
        import pandas as pd

        self.pd = pd
        self.con = sqlite3.connect(paths["sqlite"])

    def run(self, kind, param):
        return self.pd.read_sql(sql(kind, param), self.con)


class PostgreSQL:
    """PostgreSQL over its Unix socket with ADBC (binary COPY): results as numpy arrays."""

    def __init__(self, paths):
        import adbc_driver_postgresql.dbapi as adbc

        self.con = adbc.connect(paths["postgres"])

    def run(self, kind, param):
        with self.con.cursor() as cur:
            cur.execute(sql(kind, param))
            table = cur.fetch_arrow_table()
        return {name: table[name].to_numpy() for name in table.column_names}


class Pandas:
    """pandas: Parquet files read with the columns an operation needs (cold), or
    DataFrames already in memory (warm); the operation in pandas' own API."""

    def __init__(self, paths, kind, param, warm):
        import pandas as pd

        self.pd, self.paths = pd, paths
        self.frames = self._read(kind, param) if warm else None

    def _read(self, kind, param):
        read = self.pd.read_parquet
        t = self.paths["t"]
        if kind == "group":
            key = {"1": [], "500": ["g500"], "10% of rows": ["gtenth"]}[param]
            return {"t": read(t, columns=key + ["v1"])}
        if kind == "join":
            return {"t": read(t, columns=["id", "v1"]), "s": read(self.paths[f"s{param}"])}
        return {"t": read(t, columns=None if kind == "select" else ["id", "sel", "v1"])}

    def run(self, kind, param):
        frames = self.frames or self._read(kind, param)
        t = frames["t"]
        if kind == "select":
            return t[t["sel"] < param * SEL_RANGE // 100]
        if kind == "project":
            return t.loc[t["sel"] < param * SEL_RANGE // 100, ["id", "v1"]]
        if kind == "group":
            if param == "1":
                return self.pd.DataFrame({"n": [len(t)], "s": [t["v1"].sum()]})
            key = t.columns[0]
            return t.groupby(key, sort=False)["v1"].agg(n="count", s="sum").reset_index()
        return t.merge(frames["s"], on="id")


class Polars:
    """polars: lazy scans of the Parquet files (cold), or DataFrames already in
    memory (warm); the operation in polars' own API."""

    def __init__(self, paths, kind, param, warm):
        import polars as pl

        self.pl, self.paths = pl, paths
        self.frames = {"t": pl.read_parquet(paths["t"])} if warm else None
        if warm and kind == "join":
            self.frames["s"] = pl.read_parquet(paths[f"s{param}"])

    def run(self, kind, param):
        pl = self.pl
        if self.frames:
            t, s = self.frames["t"].lazy(), self.frames.get("s")
            s = s.lazy() if s is not None else None
        else:
            t, s = pl.scan_parquet(self.paths["t"]), pl.scan_parquet(self.paths[f"s{param}"]) if kind == "join" else None
        if kind == "select":
            q = t.filter(pl.col("sel") < param * SEL_RANGE // 100)
        elif kind == "project":
            q = t.filter(pl.col("sel") < param * SEL_RANGE // 100).select("id", "v1")
        elif kind == "group" and param == "1":
            q = t.select(pl.len().alias("n"), pl.col("v1").cast(pl.Int64).sum().alias("s"))
        elif kind == "group":
            key = "g500" if param == "500" else "gtenth"
            q = t.group_by(key).agg(pl.len().alias("n"), pl.col("v1").cast(pl.Int64).sum().alias("s"))
        else:
            q = t.select("id", "v1").join(s, on="id")
        return q.collect()


SYSTEMS = {"swingdb": Swingdb, "DuckDB": DuckDB, "SQLite": SQLite, "PostgreSQL": PostgreSQL, "pandas": Pandas, "polars": Polars}
DATAFRAME_LIBRARIES = {"pandas", "polars"}
# Imported before the clock starts: cold runs time opening data, not importing code.
MODULES = {"swingdb": ["swingdb"], "DuckDB": ["duckdb"], "SQLite": ["pandas"], "PostgreSQL": ["adbc_driver_postgresql.dbapi", "pyarrow"],
           "pandas": ["pandas", "pyarrow.parquet"], "polars": ["polars"]}


def _open(system, paths, kind, param, warm):
    cls = SYSTEMS[system]
    return cls(paths, kind, param, warm) if system in DATAFRAME_LIBRARIES else cls(paths)


def main():
    job = json.loads(sys.argv[1])
    system, kind, param, warm = job["system"], job["kind"], job["param"], job["mode"] == "warm"
    warnings.simplefilter("ignore")  # pandas.read_sql warns about plain DB-API connections
    for module in MODULES[system]:
        importlib.import_module(module)
    times = []
    if warm:
        engine = _open(system, job["paths"], kind, param, True)
        result = engine.run(kind, param)  # warm-up run, not timed
        for _ in range(job["runs"]):
            t0 = time.perf_counter()
            result = engine.run(kind, param)
            times.append(time.perf_counter() - t0)
    else:
        t0 = time.perf_counter()
        engine = _open(system, job["paths"], kind, param, False)
        result = engine.run(kind, param)
        times.append(time.perf_counter() - t0)
    rows, check = _check(result)
    print(json.dumps({"times": times, "rows": rows, "check": check}), flush=True)


if __name__ == "__main__":
    main()
