"""A table from swingdb into Spark and back, as Arrow batches, one Spark task per
pipe worker:

1. a swingdb process exports `orders` into the pipe db://127.0.0.1:PORT/orders
   with 4 workers (`COPY orders TO ...`);
2. Spark reads it with `spark.read.format("swingdb")`: 4 partitions, each task
   fetching one worker's Flight stream;
3. Spark aggregates it;
4. Spark writes the totals into `swingdb serve` with `df.write.format("swingdb")`:
   each task uploads its batches, the job's commit stores them in one statement.

    python examples/spark_roundtrip.py [ROWS]

Needs pyspark 4, Java 17 and adbc-driver-flightsql (all in requirements-dev.txt /
make debs).
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import swingdb
from swingdb.spark import register


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(rows: int = 1_000_000) -> list[tuple]:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    os.environ.setdefault("SWINGDB_TOKEN", "spark-example-" + os.urandom(8).hex())
    work = tempfile.mkdtemp(prefix="swingdb-spark-")
    server = subprocess.Popen([shutil.which("swingdb") or "swingdb", "serve", os.path.join(work, "totals.swingdb"), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        flight_sql = "grpc://" + re.search(r"grpc://(\S+)", server.stdout.readline()).group(1)

        # 1. The exporter: any swingdb process, here a thread of this one.
        source = swingdb.connect()
        source.sql(f"CREATE TABLE orders AS SELECT value AS id, value % 10 AS shop, value * 0.25 AS amount FROM range({rows})")
        pipe = f"db://127.0.0.1:{free_port()}/orders"
        exporter = threading.Thread(target=source.sql, args=(f"COPY orders TO '{pipe}?workers=4'",))
        exporter.start()

        spark = SparkSession.builder.master("local[4]").appName("swingdb round trip").getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        # 2. One partition per pipe worker.
        orders = spark.read.format("swingdb").option("pipe", pipe).load()
        assert orders.rdd.getNumPartitions() == 4
        # 3. A Spark transformation.
        totals = orders.groupBy("shop").agg(F.count("*").alias("orders"), F.sum("amount").alias("amount"))
        # 4. Into swingdb serve's table `totals`, all rows or none.
        totals.write.format("swingdb").option("url", flight_sql).option("table", "totals").mode("overwrite").save()
        exporter.join()
        spark.stop()
    finally:
        server.terminate()
        server.wait()
    with swingdb.connect(os.path.join(work, "totals.swingdb")) as con:
        result = con.sql("SELECT shop, orders, amount FROM totals ORDER BY shop").fetchall()
    shutil.rmtree(work, ignore_errors=True)
    return result


if __name__ == "__main__":
    for row in main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000):
        print(row)
