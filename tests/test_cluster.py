"""CLUSTER BY: tables kept sorted by their key, range filters on it read only
the rows they can match (binary search in each sorted segment), answers equal
to those of the same rows unclustered."""

import re

import numpy as np
import pyarrow as pa
import pytest
import swingdb


def scan_note(con, query):
    """The `clustered by ...: R of N rows read` note of the query's scan, or None."""
    plan = con.sql("EXPLAIN ANALYZE " + query).fetchall()[-1][-1]
    found = re.search(r"clustered by (\w+): (\d+) of (\d+) rows read", plan)
    return found and (found.group(1), int(found.group(2)), int(found.group(3)))


@pytest.fixture
def pair(db_path):
    """The same 120,000 shuffled rows (and some NULL keys) in a clustered table `c` and a plain table `u`."""
    rng = np.random.default_rng(7)
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE c (k BIGINT, day DATE, name VARCHAR, v DOUBLE) CLUSTER BY k")
    con.sql("CREATE TABLE u (k BIGINT, day DATE, name VARCHAR, v DOUBLE)")
    for part in range(3):  # three writes: three sorted runs
        k = rng.permutation(40_000) + part * 17_000
        data = pa.table({
            "k": pa.array(np.where(k % 997 == 0, None, k), pa.int64(), from_pandas=True),
            "day": pa.array((k % 3000).astype("int32"), pa.int32()).cast(pa.date32()),
            "name": [f"n{x:06d}" for x in k],
            "v": rng.random(40_000),
        })
        con.insert("c", data)
        con.insert("u", data)
    yield con
    if not con.closed:
        con.close()


RANGES = [
    "k BETWEEN 20000 AND 20999",
    "k >= 50000 AND k < 50010",
    "k = 4321",
    "k < 25",
    "k > 90000",
    "k > 10 AND k > 99999",
    "30000 <= k AND k <= 30100 AND v < 0.5",
    "k = 997",  # a NULL key in the data: never matches
]


@pytest.mark.parametrize("condition", RANGES)
def test_range_filters_on_the_key_read_only_matching_rows_and_answer_as_the_plain_table(pair, condition):
    con = pair
    query = "SELECT count(*), round(sum(v), 6), min(name), max(day) FROM {} WHERE " + condition
    assert con.sql(query.format("c")).fetchall() == con.sql(query.format("u")).fetchall()
    rows = con.sql(f"SELECT k, name FROM c WHERE {condition} ORDER BY k").fetchall()
    assert rows == con.sql(f"SELECT k, name FROM u WHERE {condition} ORDER BY k").fetchall()
    key, read, total = scan_note(con, query.format("c"))
    assert (key, total) == ("k", 120_000)
    # Each of the 3 sorted runs is read only where the range lies.
    assert len(rows) <= read <= len(rows) + 3 * 101, (read, len(rows))
    assert scan_note(con, query.format("u")) is None


def test_rows_come_back_sorted_by_the_key_and_nulls_first(pair):
    keys = pair.sql("SELECT k FROM c").arrow().column(0)
    assert keys.null_count > 0
    values = keys.to_pylist()
    assert values[0] is None and all(v is None for v in values[: values.index(1)])
    # Each write's rows ascend (three writes: at most two places where a run restarts).
    present = [v for v in values if v is not None]
    assert sum(1 for a, b in zip(present, present[1:]) if a > b) <= 2


def test_the_key_survives_reopening_renames_drops_and_export(pair, db_path, tmp_path):
    pair.close()
    with swingdb.connect(db_path) as con:
        assert scan_note(con, "SELECT count(*) FROM c WHERE k < 100")[0] == "k"
        con.sql("ALTER TABLE c RENAME COLUMN k TO id")
        read = scan_note(con, "SELECT count(*) FROM c WHERE id < 100")
        assert read[0] == "id" and read[1] < 400
        con.sql(f"EXPORT DATABASE '{tmp_path / 'out'}'")
        schema = (tmp_path / "out" / "schema.sql").read_text()
        assert 'CLUSTER BY ("id")' in schema
        con.sql("ALTER TABLE c DROP COLUMN id")
        assert scan_note(con, "SELECT count(*) FROM c WHERE v < 0.1") is None
    with swingdb.connect(tmp_path / "copy.swingdb") as copy:
        copy.sql(f"IMPORT DATABASE '{tmp_path / 'out'}'")
        read = scan_note(copy, "SELECT count(*) FROM c WHERE id BETWEEN 5 AND 10")
        assert read[0] == "id" and read[1] < 30


def test_alter_cluster_by_sorts_the_rows_already_there_and_drop_clustering_key_stops_narrowing(pair):
    con = pair
    assert scan_note(con, "SELECT count(*) FROM u WHERE k < 100") is None
    con.sql("ALTER TABLE u CLUSTER BY (k, name)")
    key, read, total = scan_note(con, "SELECT count(*) FROM u WHERE k < 100")
    assert (key, total) == ("k", 120_000) and read <= 100
    assert con.sql("SELECT count(*) FROM u WHERE k < 100").fetchall() == con.sql("SELECT count(*) FROM c WHERE k < 100").fetchall()
    con.sql("ALTER TABLE u DROP CLUSTERING KEY")
    assert scan_note(con, "SELECT count(*) FROM u WHERE k < 100") is None


def test_rows_added_one_by_one_out_of_order_are_all_found(pair):
    con = pair
    for k in (5, 3, 8, 1, None):
        con.execute("INSERT INTO c VALUES (?, DATE '2020-01-01', 'late', 0.5)", [k])
    assert con.sql("SELECT k FROM c WHERE name = 'late' AND k < 6 ORDER BY k").fetchall() == [(1,), (3,), (5,)]
    assert con.sql("SELECT count(*) FROM c WHERE k BETWEEN 1 AND 8").fetchall() == [(8 + 4,)]


def test_clustering_by_what_is_not_a_column_is_a_clear_error(con):
    with pytest.raises(swingdb.ProgrammingError, match="CLUSTER BY column 'nope' is not a column of table 't'"):
        con.sql("CREATE TABLE t (a INT) CLUSTER BY nope")
    with pytest.raises(swingdb.NotSupportedError, match="only column names"):
        con.sql("CREATE TABLE t (a INT) CLUSTER BY a + 1")
    con.sql("CREATE TABLE t (a INT, b INT)")
    with pytest.raises(swingdb.ProgrammingError, match="names column 'a' twice"):
        con.sql("ALTER TABLE t CLUSTER BY (a, a)")
    con.sql("CREATE TABLE s CLUSTER BY x AS SELECT value % 7 AS x, value AS y FROM range(1000)")
    assert con.sql("SELECT x FROM s LIMIT 3").fetchall() == [(0,), (0,), (0,)]
    assert scan_note(con, "SELECT count(*) FROM s WHERE x = 3")[1] == 143
