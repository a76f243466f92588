"""`python -m bench <benchmark> [options]`: tpch (TPC-H against DuckDB, warm and
cold), ingest (DataFrames into a stored table against DuckDB, SQLite, PostgreSQL),
transfer (results to numpy / pandas / pyarrow / polars against DuckDB, SQLite,
PostgreSQL), roundtrip (k-means handing data back and forth, against DuckDB),
micro (seed 000's selection / projection / grouping / join micro-benchmarks
against DuckDB, SQLite, pandas, polars, PostgreSQL), share (seed 002's snapshots
between processes against pipes, sockets, shared memory, pickle, Arrow IPC files,
Ray, DuckDB and PostgreSQL), pipes (seed 004's tables moved between swingdb,
DuckDB and PostgreSQL against CSV files, ADBC and ConnectorX), pipes-net (the
same across two network namespaces, over Arrow Flight, against CSV), flight-sql
(`swingdb serve` from ADBC against PostgreSQL from ADBC, plaintext and TLS), spark
(a table into Apache Spark and back, against Spark's CSV and JDBC paths), oltp (single-row
statements on a keyed table against DuckDB and SQLite), oltp-procs (reads, updates and inserts
by key from 1-8 processes against SQLite, PostgreSQL and DuckDB), cluster (range filters on a
CLUSTER BY key against DuckDB's zone maps), writers (1-8 processes appending and
updating at once, against SQLite in WAL mode and PostgreSQL), scale (TPC-H loaded
and queried inside memory cgroups, against DuckDB), r (seed 000's micro-benchmarks
and lineitem into R data frames from swingdb's R package, against data.table,
dplyr and RSQLite), ab (two builds of
swingdb side by side, for a change's effect), or all of them in turn.

`python -m bench all --quick` runs every benchmark at a small size in a few
minutes and reports to bench/results/benchmarks-quick.md; without --quick,
reports go to docs/benchmarks.md and docs/img/. --postgres adds a local
PostgreSQL server (Debian's package) where a benchmark supports it."""

import sys

BENCHMARKS = {"micro": "bench.micro", "transfer": "bench.transfer", "ingest": "bench.ingest", "tpch": "bench.tpch_run",
              "roundtrip": "bench.roundtrip", "share": "bench.share", "pipes": "bench.pipes",
              "pipes-net": "bench.pipes_net", "flight-sql": "bench.flight_sql", "spark": "bench.spark",
              "oltp": "bench.oltp", "oltp-procs": "bench.oltp_procs", "cluster": "bench.cluster", "writers": "bench.writers", "scale": "bench.scale", "ab": "bench.ab",
              "r": "bench.r_bench"}
TAKES_POSTGRES = {"micro", "transfer", "ingest", "share", "pipes", "writers", "oltp-procs"}
# ab compares two builds given on its command line; r needs the R package
# installed (make bench-r): not part of `all`.
NOT_IN_ALL = {"ab", "scale", "r"}


def run(name: str, argv: list[str]) -> None:
    module = __import__(BENCHMARKS[name], fromlist=["main"])
    sys.argv = [f"bench {name}"] + argv
    module.main()


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in list(BENCHMARKS) + ["all"]:
        print(__doc__)
        print("usage: python -m bench {" + ",".join(list(BENCHMARKS) + ["all"]) + "} [--help]")
        sys.exit(2)
    name, argv = sys.argv[1], sys.argv[2:]
    if name != "all":
        run(name, argv)
        return
    unknown = set(argv) - {"--quick", "--postgres"}
    if unknown:
        sys.exit(f"bench all takes only --quick and --postgres (got {' '.join(sorted(unknown))}); run single benchmarks for more")
    for each in (b for b in BENCHMARKS if b not in NOT_IN_ALL):
        print(f"\n#### bench {each}", flush=True)
        run(each, [a for a in argv if a != "--postgres" or each in TAKES_POSTGRES])


main()
