"""`python -m bench <benchmark> [options]`: tpch (TPC-H against DuckDB), ingest
(DataFrames into a stored table against DuckDB, SQLite, PostgreSQL), transfer
(results to numpy / pandas / pyarrow / polars against DuckDB, SQLite, PostgreSQL),
roundtrip (k-means handing data back and forth, against DuckDB), micro (seed 000's
selection / projection / grouping / join micro-benchmarks against DuckDB, SQLite,
pandas, polars, PostgreSQL)."""

import sys


def main():
    benchmarks = {"tpch": "bench.tpch_run", "transfer": "bench.transfer", "ingest": "bench.ingest", "roundtrip": "bench.roundtrip", "micro": "bench.micro"}
    if len(sys.argv) < 2 or sys.argv[1] not in benchmarks:
        print(__doc__)
        print("usage: python -m bench {" + ",".join(benchmarks) + "} [--help]")
        sys.exit(2)
    module = __import__(benchmarks[sys.argv[1]], fromlist=["main"])
    sys.argv = [f"bench {sys.argv[1]}"] + sys.argv[2:]
    module.main()


main()
