"""swingdb <-> Apache Spark (seed 004's other half: a shared-nothing engine as
the peer). One job: read seed 004's synthetic table into Spark, add a column
computed from two others, and write every row back. Ways compared, each from
its source table to its stored result:

- swingdb format, from `swingdb serve` (a query's result as N endpoints, a
  Spark task each) and back by bulk ingest into `swingdb serve`;
- swingdb format, from a pipe (`COPY t TO 'db://HOST:PORT/t?workers=N'`, a
  task per pipe worker) and back the same way;
- CSV: swingdb exports a CSV file, Spark's CSV reader and writer, swingdb
  imports Spark's CSV files (`read_csv`);
- JDBC: PostgreSQL's table read by Spark's JDBC reader (N partitions on the
  key) and written back by Spark's JDBC writer (PostgreSQL's JDBC driver,
  Maven Central, fetched by `make jars`).

Each way is timed twice: the round trip, and into Spark alone (the same read
and column, every row computed into Spark's `noop` sink).

pyspark 4 in local mode on the machine's Java 17, with N cores. Median of
--runs runs of each, after one run that warms Spark up.

    python -m bench spark [--quick] [--rows N] [--tasks N] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from .common import machine, report_target
from .report import replace_section, table

JARS = os.environ.get("SWINGDB_JARS", os.path.expanduser("~/.cache/swingdb-jars"))
POSTGRES_JDBC = os.path.join(JARS, "postgresql-42.7.7.jar")
COLUMNS = "k, a1, b1, a2, b2, a3, b3"
# Arrow bytes per row of seed 004's table: a BIGINT key, three INT and three DOUBLE.
ROW_BYTES = 8 + 3 * 4 + 3 * 8


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _make_source(path: str, rows: int) -> None:
    import swingdb

    with swingdb.connect(path) as con:
        con.sql(f"""CREATE TABLE t AS SELECT value AS k,
               cast(value % 1000 AS INT) AS a1, random() AS b1,
               cast(value % 77 AS INT) AS a2, random() * 100 AS b2,
               cast(value / 3 AS INT) AS a3, cast(value AS DOUBLE) / 7 AS b3
            FROM range({rows})""")


def _transform(df):
    from pyspark.sql import functions as F

    return df.withColumn("c", F.col("a1") * F.col("b1"))


def _count(path: str, table: str) -> int:
    import swingdb

    with swingdb.connect(path) as con:
        return con.sql(f'SELECT count(*) FROM "{table}"').fetchall()[0][0]


class _Server:
    """`swingdb serve` over a database, with `endpoints` endpoints a result."""

    def __init__(self, path: str, endpoints: int):
        self.proc = subprocess.Popen([shutil.which("swingdb") or "swingdb", "serve", path, "--port", "0",
                                      "--endpoints", str(endpoints)], stdout=subprocess.PIPE, text=True)
        self.url = "grpc://" + re.search(r"grpc://(\S+)", self.proc.stdout.readline()).group(1)

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def _into_nothing(df) -> None:
    """Every row of `df` computed, nothing stored (Spark's noop sink)."""
    df.write.format("noop").mode("overwrite").save()


def via_server(spark, work: str, tasks: int, back: bool = True) -> None:
    """Read from `swingdb serve` (one task per endpoint), write back through it."""
    server = _Server(os.path.join(work, "source.swingdb"), tasks)
    try:
        df = _transform(spark.read.format("swingdb").option("url", server.url).option("table", "t").load())
        if not back:
            return _into_nothing(df)
        df.write.format("swingdb").option("url", server.url).option("table", "t_server").mode("overwrite").save()
    finally:
        server.close()


def via_pipe(spark, work: str, tasks: int, back: bool = True) -> None:
    """Read a pipe the source exports (one task per worker), write back through `swingdb serve`."""
    import swingdb

    target = _Server(os.path.join(work, "target.swingdb"), 1)
    source = swingdb.connect(os.path.join(work, "source.swingdb"))
    try:
        pipe = f"db://127.0.0.1:{_free_port()}/t"
        exporter = threading.Thread(target=source.sql, args=(f"COPY t TO '{pipe}?workers={tasks}'",))
        exporter.start()
        df = _transform(spark.read.format("swingdb").option("pipe", pipe).load())
        if back:
            df.write.format("swingdb").option("url", target.url).option("table", "t_pipe").mode("overwrite").save()
        else:
            _into_nothing(df)
        exporter.join()
    finally:
        source.close()
        target.close()


def via_csv(spark, work: str, tasks: int, back: bool = True) -> None:
    """swingdb's CSV export, Spark's CSV reader and writer, swingdb's CSV import."""
    import swingdb

    csv_in, csv_out = os.path.join(work, "in.csv"), os.path.join(work, "out_csv")
    shutil.rmtree(csv_out, ignore_errors=True)
    with swingdb.connect(os.path.join(work, "source.swingdb")) as con:
        con.sql(f"COPY t TO '{csv_in}' (HEADER)")
        schema = "k BIGINT, a1 INT, b1 DOUBLE, a2 INT, b2 DOUBLE, a3 INT, b3 DOUBLE"
        df = _transform(spark.read.csv(csv_in, header=True, schema=schema).repartition(tasks))
        if not back:
            return _into_nothing(df)
        df.write.csv(csv_out, header=True)
        con.sql("DROP TABLE IF EXISTS t_csv")
        con.sql(f"CREATE TABLE t_csv AS SELECT * FROM read_csv('{csv_out}/*.csv', header = true)")


def via_jdbc(spark, pg, tasks: int, rows: int, back: bool = True) -> None:
    """Spark's JDBC reader (partitioned on the key) and writer, on PostgreSQL."""
    url = f"jdbc:postgresql://127.0.0.1:{pg.port}/postgres"
    props = {"user": pg.user, "driver": "org.postgresql.Driver"}
    df = _transform(spark.read.jdbc(url, "t", column="k", lowerBound=0, upperBound=rows, numPartitions=tasks, properties=props))
    if not back:
        return _into_nothing(df)
    df.write.jdbc(url, "t_jdbc", mode="overwrite", properties={**props, "batchsize": "10000"})


def _load_postgres(pg, path: str) -> None:
    """Source table into PostgreSQL (not timed): swingdb pipes it there."""
    import swingdb

    with swingdb.connect(path) as con:
        con.sql(f"COPY t TO 'postgresql://{pg.user}@127.0.0.1:{pg.port}/postgres?table=t'")


def _pg_count(pg, table: str) -> int:
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(pg.port), "-U", pg.user, "-d", "postgres", "-tAc",
                          f"SELECT count(*) FROM {table}"], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--tasks", type=int, default=2, help="Spark cores, endpoints, pipe workers, JDBC partitions")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.runs = 200_000, 1
    if not shutil.which("java"):
        print("spark: skipped: no Java (make debs installs openjdk-17-jre-headless)")
        return
    from pyspark.sql import SparkSession
    from swingdb.spark import register

    from .postgres import LocalPostgres

    os.environ.setdefault("SWINGDB_TOKEN", uuid.uuid4().hex)
    work = tempfile.mkdtemp(prefix="swingdb-bench-spark-")
    jdbc = os.path.exists(POSTGRES_JDBC)
    builder = SparkSession.builder.master(f"local[{args.tasks}]").appName("swingdb bench").config("spark.driver.memory", "4g")
    if jdbc:
        builder = builder.config("spark.jars", POSTGRES_JDBC)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    results = []
    try:
        _make_source(os.path.join(work, "source.swingdb"), args.rows)
        ways = [
            ("swingdb serve: endpoints in, bulk ingest out", lambda back: via_server(spark, work, args.tasks, back),
             lambda: _count(os.path.join(work, "source.swingdb"), "t_server")),
            ("swingdb pipe in, bulk ingest out", lambda back: via_pipe(spark, work, args.tasks, back),
             lambda: _count(os.path.join(work, "target.swingdb"), "t_pipe")),
            ("CSV files (swingdb export, Spark CSV, swingdb import)", lambda back: via_csv(spark, work, args.tasks, back),
             lambda: _count(os.path.join(work, "source.swingdb"), "t_csv")),
        ]
        with LocalPostgres(tcp=True) as pg:
            if jdbc:
                _load_postgres(pg, os.path.join(work, "source.swingdb"))
                ways.append(("JDBC (PostgreSQL, Spark's JDBC reader and writer)",
                             lambda back: via_jdbc(spark, pg, args.tasks, args.rows, back), lambda: _pg_count(pg, "t_jdbc")))
            for name, run, count in ways:
                row = {"way": name, "runs": args.runs}
                for phase, back in (("into_spark", False), ("seconds", True)):
                    run(back)  # warm: Spark's Python workers, the JVM's code, the page cache
                    times = []
                    for _ in range(args.runs):
                        started = time.perf_counter()
                        run(back)
                        times.append(time.perf_counter() - started)
                        if back:
                            assert count() == args.rows, f"{name}: {count()} rows stored, not {args.rows}"
                    row[phase] = statistics.median(times)
                results.append(row)
                print(f"{name}: into Spark {row['into_spark']:.2f} s, round trip {row['seconds']:.2f} s", flush=True)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    write_report(args, results, jdbc)


def write_report(args, results: list[dict], jdbc: bool) -> None:
    doc, img = report_target(args.quick)
    info = machine()
    ours = min(r["seconds"] for r in results if r["way"].startswith("swingdb"))
    ours_in = min(r["into_spark"] for r in results if r["way"].startswith("swingdb"))
    cells = [[r["way"], f"{r['into_spark']:.2f}", f"{r['into_spark'] / ours_in:.1f}x", f"{r['seconds']:.2f}",
              f"{args.rows * ROW_BYTES / r['seconds'] / 1e6:.0f}", f"{r['seconds'] / ours:.1f}x", r["runs"]] for r in results]
    lines = [
        "## swingdb <-> Apache Spark (`python -m bench spark`)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; "
        f"swingdb {info['swingdb']}, pyspark {_pyspark_version()} in local mode with {args.tasks} cores. "
        f"Seed 004's table of {args.rows:,} rows ({args.rows * ROW_BYTES / 1e6:.0f} MB of Arrow data) read into "
        "Spark, a column added (`a1 * b1`), every row written back and stored; from the source table to the "
        "stored result (round trip), and into Spark alone (every row computed into Spark's `noop` sink); "
        f"median of {args.runs} run(s) after a warm-up run. {args.tasks} endpoints, pipe workers or JDBC partitions. "
        "MB/s: the table's Arrow bytes over the round trip's time; \"vs swingdb\": this time over the faster "
        "swingdb way's."
        + ("" if jdbc else " JDBC row missing: PostgreSQL's JDBC jar was not fetched (make jars).")
        + f" `python -m bench spark {' '.join(sys.argv[1:])}`.",
        "",
        table(["way", "into Spark s", "vs swingdb", "round trip s", "MB/s", "vs swingdb", "runs"], cells, right=1),
    ]
    path = os.path.join(img, "spark.png")
    _plot(results, path)
    lines += ["", f"![swingdb and Spark](img/{os.path.basename(path)})", ""]
    replace_section(doc, "spark", "\n".join(lines))


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


def _plot(results: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 2.8))
    for offset, phase, label in ((-0.2, "into_spark", "into Spark"), (0.2, "seconds", "round trip")):
        colors = ["#1f77b4" if r["way"].startswith("swingdb") else "#d62728" for r in results]
        ax.barh([i + offset for i in range(len(results))], [r[phase] for r in results], height=0.4, color=colors,
                alpha=0.55 if phase == "into_spark" else 1.0, label=label)
    ax.set_yticks(range(len(results)), [r["way"] for r in results], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds (lower is better); light: into Spark, dark: round trip")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    main()
