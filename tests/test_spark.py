"""Apache Spark (pyspark 4 in local mode, Java 17) as the distributed peer:
swingdb -> Spark through a pipe, one task per worker, and Spark -> swingdb
serve through Flight SQL bulk ingest, all rows or none."""

import os
import re
import shutil
import subprocess
import sys
from decimal import Decimal

import pytest

pytest.importorskip("pyspark", reason="pyspark is in requirements-dev.txt")
if not shutil.which("java"):
    pytest.skip("Java could not be installed (make debs installs openjdk-17-jre-headless)", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
TOKEN = "spark-token-0123456789abcdef"


@pytest.fixture(scope="module")
def spark():
    """A Spark session whose JVM has the token in its environment: Spark's
    Python workers (which create the data source) inherit the JVM's, not the
    test's. A session started with a test's own `setenv` (the round-trip
    example's, when it ran first in the same process) hid this."""
    from pyspark.sql import SparkSession
    from swingdb.spark import register

    with pytest.MonkeyPatch.context() as env:
        env.setenv("SWINGDB_TOKEN", TOKEN)
        session = SparkSession.builder.master("local[2]").appName("swingdb tests").getOrCreate()
        session.sparkContext.setLogLevel("ERROR")
        register(session)
        yield session
        session.stop()


def test_the_round_trip_example(monkeypatch):
    monkeypatch.setenv("SWINGDB_TOKEN", TOKEN)
    import spark_roundtrip

    rows = 200_000
    # `value * 0.25` is an exact DECIMAL, summed exactly by Spark and stored as one.
    expected = [(shop, rows // 10, sum(Decimal(v) / 4 for v in range(shop, rows, 10))) for shop in range(10)]
    assert spark_roundtrip.main(rows) == expected


def test_a_failed_write_leaves_the_table_as_it_was(spark, tmp_path, monkeypatch):
    monkeypatch.setenv("SWINGDB_TOKEN", TOKEN)
    import swingdb
    from pyspark.sql import functions as F

    path = tmp_path / "target.swingdb"
    with swingdb.connect(path) as con:
        con.sql("CREATE TABLE t (id BIGINT NOT NULL, x DOUBLE)")
        con.sql("INSERT INTO t VALUES (1, 1.0)")
    server = subprocess.Popen([shutil.which("swingdb"), "serve", str(path), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = "grpc://" + re.search(r"grpc://(\S+)", server.stdout.readline()).group(1)
        good = spark.range(1000).select(F.col("id"), (F.col("id") * 0.5).alias("x"))
        good.write.format("swingdb").option("url", url).option("table", "t").mode("append").save()
        # A NULL where the table has NOT NULL fails the job's commit: nothing of it is stored.
        bad = spark.range(1000).select(F.when(F.col("id") == 500, None).otherwise(F.col("id")).alias("id"), F.lit(0.0).alias("x"))
        with pytest.raises(Exception, match="(?i)null"):
            bad.write.format("swingdb").option("url", url).option("table", "t").mode("append").save()
    finally:
        server.terminate()
        server.wait()
    with swingdb.connect(path) as con:
        assert con.sql("SELECT count(*), sum(id) FROM t").fetchall() == [(1001, 1 + sum(range(1000)))]
        # The tasks' staging tables are gone, also after the failure.
        assert [r[0] for r in con.sql("SHOW TABLES").fetchall()] == ["t"]


def test_spark_reads_a_query_of_the_server_one_task_per_endpoint(spark, tmp_path, monkeypatch):
    monkeypatch.setenv("SWINGDB_TOKEN", TOKEN)
    import swingdb
    from pyspark.sql import functions as F

    path = tmp_path / "source.swingdb"
    with swingdb.connect(path) as con:
        con.sql("CREATE TABLE orders AS SELECT value AS id, value % 10 AS shop FROM range(1000000)")
    server = subprocess.Popen([shutil.which("swingdb"), "serve", str(path), "--port", "0", "--endpoints", "3"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = "grpc://" + re.search(r"grpc://(\S+)", server.stdout.readline()).group(1)
        orders = spark.read.format("swingdb").option("url", url).option("table", "orders").load()
        assert orders.rdd.getNumPartitions() == 3
        totals = orders.groupBy("shop").agg(F.count("*").alias("n"), F.sum("id").alias("s")).orderBy("shop").collect()
        assert [(r["shop"], r["n"], r["s"]) for r in totals] == [
            (shop, 100_000, sum(range(shop, 1_000_000, 10))) for shop in range(10)
        ]
        # A query with ORDER BY is one partition, in order.
        first = spark.read.format("swingdb").option("url", url).option("query", "SELECT id FROM orders ORDER BY id DESC LIMIT 3").load()
        assert first.rdd.getNumPartitions() == 1
        assert [r["id"] for r in first.collect()] == [999_999, 999_998, 999_997]
    finally:
        server.terminate()
        server.wait()


def test_spark_waits_for_a_pipes_exporter_that_comes_later(spark, monkeypatch):
    # Either end of a pipe may come first; Spark's read failed at once
    # ("connection refused") when it came before the exporter.
    monkeypatch.setenv("SWINGDB_TOKEN", TOKEN)
    import socket
    import threading

    import swingdb

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    source = swingdb.connect()
    source.sql("CREATE TABLE t AS SELECT value AS v FROM range(1000)")
    pipe = f"db://127.0.0.1:{port}/late"
    exporter = threading.Timer(1.5, source.sql, args=(f"COPY t TO '{pipe}?workers=2'",))
    exporter.start()
    try:
        reader = spark.read.format("swingdb").option("token", TOKEN)
        rows = reader.option("pipe", pipe + "?timeout=30").load().collect()
    finally:
        exporter.join()
    assert sorted(r["v"] for r in rows) == list(range(1000))
