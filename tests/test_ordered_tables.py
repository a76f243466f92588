"""Tables stored in the order of a column: rows loaded from a file keep the
file's order, scans declare the order they find, and GROUP BY such a column
finishes in each partition (see sql/optimizer/ordered_scan.rs, sql/optimizer/range_aggregate.rs)."""
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest
import swingdb


def plan(con, sql):
    return dict(con.execute("EXPLAIN " + sql).fetchall())["physical_plan"]


@pytest.fixture
def ordered_file(tmp_path):
    """A Parquet file of 3M rows over 30 row groups (large enough for
    DataFusion to read it in several partitions), in `k` order: each `k`
    repeats 1 to 7 times, so runs of equal keys straddle any cut."""
    rng = np.random.default_rng(7)
    k = np.repeat(np.arange(700_000, dtype=np.int64), rng.integers(1, 8, 700_000))[:3_000_000]
    # Incompressible values, so that the file is large enough to be split.
    table = pa.table({"k": k, "v": rng.integers(0, 1 << 40, len(k)), "w": rng.random(len(k))})
    path = tmp_path / "ordered.parquet"
    pq.write_table(table, path, row_group_size=100_000, compression="none")
    return str(path), table


def test_a_table_created_from_a_file_keeps_the_file_order(ordered_file, db_path):
    """DataFusion reads a file in ranges, one per partition, and by default a
    partition takes whichever range is left: rows used to be stored in the
    order the partitions produced them (interleaved, or the second half
    first). DuckDB keeps a file's order; so does swingdb now."""
    path, table = ordered_file
    con = swingdb.connect(db_path)
    con.sql("SET datafusion.execution.target_partitions = 2")
    groups = re.search(r"file_groups=\{(\d+) groups", plan(con, f"SELECT * FROM '{path}'"))
    assert groups and int(groups.group(1)) > 1, "the file is read in one partition: nothing to test"
    for i in range(3):
        con.sql(f"CREATE OR REPLACE TABLE t AS SELECT * FROM '{path}'")
        stored = con.execute("SELECT v FROM t").arrow().column(0).to_numpy()
        assert np.array_equal(stored, table.column("v").to_numpy()), f"run {i}: rows out of the file's order"


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_a_table_created_from_several_files_keeps_their_order(tmp_path, db_path, kind):
    """Files are read in many small byte ranges, a few at once, and stored
    range after range (sql/statements/file_order.rs): across the files of a
    glob, in their order, for Parquet and CSV alike."""
    rows = 400_000
    for i in range(3):
        part = pa.table({"k": np.arange(i * rows, (i + 1) * rows, dtype=np.int64)})
        if kind == "parquet":
            pq.write_table(part, tmp_path / f"part{i}.parquet", row_group_size=20_000, compression="none")
        else:
            pa.csv.write_csv(part, tmp_path / f"part{i}.csv")
    con = swingdb.connect(db_path)
    con.sql("SET datafusion.execution.target_partitions = 2")
    con.sql(f"CREATE TABLE t AS SELECT * FROM '{tmp_path}/part*.{kind}'")
    stored = con.execute("SELECT k FROM t").arrow().column(0).to_numpy()
    assert np.array_equal(stored, np.arange(3 * rows)), "rows out of the files' order"


def test_a_scan_declares_the_order_it_finds_and_group_by_finishes_per_partition(ordered_file, db_path):
    path, table = ordered_file
    con = swingdb.connect(db_path)
    con.sql("SET datafusion.execution.target_partitions = 3")
    con.sql(f"CREATE TABLE t AS SELECT * FROM '{path}'")
    # Sorting by k needs no sort: the scan says its rows ascend by k.
    ordered = plan(con, "SELECT k, v FROM t ORDER BY k")
    assert "output_ordering=k@0 ASC" in ordered and "SortExec" not in ordered, ordered
    # GROUP BY k in one step per partition, streaming over the sorted rows.
    query = "SELECT k, sum(v) AS s, count(*) AS n, max(w) AS m FROM t GROUP BY k"
    grouped = plan(con, query)
    assert "mode=SinglePartitioned" in grouped and "ordering_mode=Sorted" in grouped, grouped
    assert "Partial" not in grouped and "RepartitionExec" not in grouped, grouped
    # The same groups as pyarrow's: no key split between partitions.
    got = con.execute(query + " ORDER BY k").arrow()
    want = table.group_by("k").aggregate([("v", "sum"), ("v", "count"), ("w", "max")]).sort_by("k")
    assert got.column("k").to_pylist() == want.column("k").to_pylist()
    assert got.column("s").to_pylist() == want.column("v_sum").to_pylist()
    assert got.column("n").to_pylist() == want.column("v_count").to_pylist()
    assert got.column("m").to_pylist() == want.column("w_max").to_pylist()
    # Grouping by k and another column, and through a filter and a join's probe side.
    both = "SELECT k, v % 3 AS r, count(*) AS n FROM t WHERE w < 0.5 GROUP BY k, v % 3"
    assert "SinglePartitioned" in plan(con, both)
    got = {tuple(r) for r in con.execute(both).fetchall()}
    df = table.to_pandas()
    df = df[df.w < 0.5]
    want = {(k, r, n) for (k, r), n in df.groupby([df.k, df.v % 3]).size().items()}
    assert got == want
    con.sql("CREATE TABLE small AS SELECT * FROM (VALUES (1), (5), (70000), (699999)) AS s(k)")
    joined = "SELECT t.k, count(*) AS n FROM t JOIN small ON t.k = small.k GROUP BY t.k ORDER BY t.k"
    assert con.execute(joined).fetchall() == [(k, int((table.column("k").to_numpy() == k).sum())) for k in (1, 5, 70000, 699999)]


def test_a_parent_that_needs_hashed_groups_still_gets_them(ordered_file, db_path):
    """A partitioned join of two aggregates relies on each side being hashed
    by the key: the one-step aggregate's rows are hashed after it."""
    path, table = ordered_file
    con = swingdb.connect(db_path)
    con.sql(f"CREATE TABLE t AS SELECT * FROM '{path}'")
    # As on a machine of many cores: both join inputs hashed by the key.
    con.sql("SET datafusion.optimizer.repartition_joins = true")
    con.sql("SET datafusion.optimizer.hash_join_single_partition_threshold = 0")
    con.sql("SET datafusion.optimizer.hash_join_single_partition_threshold_rows = 0")
    query = ("SELECT count(*), sum(a.n + b.s) FROM (SELECT k, count(*) AS n FROM t GROUP BY k) a "
             "JOIN (SELECT k, sum(v % 10) AS s FROM t GROUP BY k) b ON a.k = b.k")
    physical = plan(con, query)
    assert "mode=Partitioned" in physical and physical.count("SinglePartitioned") == 2, physical
    assert "FinalPartitioned" not in physical and physical.count("RepartitionExec: partitioning=Hash([k@0]") == 2, physical
    df = table.to_pandas()
    n = df.groupby("k").size()
    s = (df.v % 10).groupby(df.k).sum()
    assert con.execute(query).fetchall() == [(len(n), int((n + s).sum()))]


def test_columns_that_do_not_ascend_are_not_declared(db_path):
    con = swingdb.connect(db_path)
    rows = 50_000
    con.sql(f"CREATE TABLE up AS SELECT value AS k FROM generate_series(1, {rows})")
    con.sql(f"CREATE TABLE down AS SELECT {rows} - value AS k FROM generate_series(1, {rows})")
    con.sql(f"CREATE TABLE nulls AS SELECT CASE WHEN value = 5 THEN NULL ELSE value END AS k FROM generate_series(1, {rows})")
    # Two writes, each ascending, the second starting below the first's end.
    con.sql(f"CREATE TABLE twice AS SELECT value AS k FROM generate_series(1, {rows})")
    con.sql(f"INSERT INTO twice SELECT value AS k FROM generate_series(1, {rows})")
    assert "output_ordering=k@0 ASC" in plan(con, "SELECT k FROM up")
    for table in ("down", "nulls", "twice"):
        assert "output_ordering" not in plan(con, f"SELECT k FROM {table}"), table
        assert "SortExec" in plan(con, f"SELECT k FROM {table} ORDER BY k")
    assert con.execute("SELECT k FROM twice ORDER BY k LIMIT 3").fetchall() == [(1,), (1,), (2,)]
