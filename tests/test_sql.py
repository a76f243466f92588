import datetime as dt
import re
from decimal import Decimal

import pytest
import swingdb


def test_create_table_with_all_types(con):
    con.sql(
        """CREATE TABLE t (
            i INTEGER NOT NULL, b BIGINT, d DOUBLE, m DECIMAL(10,2), s VARCHAR,
            f BOOLEAN, day DATE, ts TIMESTAMP)"""
    )
    con.execute(
        "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [1, 2**40, 1.5, Decimal("12.34"), "héllo", True, dt.date(2024, 2, 29), dt.datetime(2024, 1, 2, 3, 4, 5, 6)],
    )
    row = con.sql("SELECT * FROM t").fetchone()
    assert row == (1, 2**40, 1.5, Decimal("12.34"), "héllo", True, dt.date(2024, 2, 29), dt.datetime(2024, 1, 2, 3, 4, 5, 6))
    desc = con.execute("SELECT * FROM t").description
    assert [d[0] for d in desc] == ["i", "b", "d", "m", "s", "f", "day", "ts"]
    types = dict((d[0], d[1]) for d in desc)
    assert types["i"] == "INTEGER" and types["b"] == "BIGINT" and types["m"] == "DECIMAL(10,2)"
    assert types["s"] == "VARCHAR" and types["day"] == "DATE"
    assert swingdb.NUMBER != types["s"] and swingdb.STRING != types["d"] and swingdb.DATETIME != types["b"]
    assert swingdb.NUMBER == types["d"] and swingdb.STRING == types["s"] and swingdb.DATETIME == types["ts"]
    nullable = dict((d[0], d[6]) for d in desc)
    assert nullable["i"] is False and nullable["b"] is True


def test_ctas_insert_select_and_values(con):
    con.sql("CREATE TABLE a AS SELECT * FROM (VALUES (1, 'x'), (2, 'y')) v(id, name)")
    con.sql("CREATE TABLE b (id BIGINT, name VARCHAR)")
    assert con.execute("INSERT INTO b SELECT * FROM a").rowcount == 2
    assert con.execute("INSERT INTO b VALUES (3, 'z')").rowcount == 1
    assert con.sql("SELECT id, name FROM b ORDER BY id").fetchall() == [(1, "x"), (2, "y"), (3, "z")]
    con.sql("INSERT INTO b (name, id) VALUES ('w', 4)")
    assert con.sql("SELECT name FROM b WHERE id = 4").fetchall() == [("w",)]


def test_drop_table_and_if_exists(con):
    con.sql("CREATE TABLE t (a INTEGER)")
    con.sql("DROP TABLE t")
    assert con.table_names() == []
    with pytest.raises(swingdb.ProgrammingError, match="'t' does not exist"):
        con.sql("DROP TABLE t")
    con.sql("DROP TABLE IF EXISTS t")


def test_create_existing_table_is_an_error_with_hint(con):
    con.sql("CREATE TABLE t (a INTEGER)")
    with pytest.raises(swingdb.ProgrammingError, match="already exists.*OR REPLACE"):
        con.sql("CREATE TABLE t (a INTEGER)")
    con.sql("CREATE TABLE IF NOT EXISTS t (b INTEGER)")
    assert con.sql("SELECT * FROM t").columns == ["a"]
    con.sql("CREATE OR REPLACE TABLE t AS SELECT 5 AS b")
    assert con.sql("SELECT * FROM t").fetchall() == [(5,)]


def test_alter_table_rename(con):
    con.sql("CREATE TABLE old AS SELECT 1 AS a")
    con.sql("ALTER TABLE old RENAME TO new")
    assert con.table_names() == ["new"]
    assert con.sql("SELECT a FROM new").fetchall() == [(1,)]
    con.sql("CREATE TABLE other (a INTEGER)")
    with pytest.raises(swingdb.ProgrammingError, match="already exists"):
        con.sql("ALTER TABLE new RENAME TO other")
    with pytest.raises(swingdb.ProgrammingError, match="'missing' does not exist"):
        con.sql("ALTER TABLE missing RENAME TO x")


def test_delete_and_update_with_where(con):
    con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)) v(id, s)")
    assert con.execute("DELETE FROM t WHERE id % 2 = 0").rowcount == 2
    assert con.sql("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (3,)]
    assert con.execute("UPDATE t SET s = upper(s), id = id * 10 WHERE id > 1").rowcount == 1
    assert con.sql("SELECT id, s FROM t ORDER BY id").fetchall() == [(1, "a"), (30, "C")]
    assert con.execute("DELETE FROM t WHERE id > 1000").rowcount == 0
    assert con.execute("DELETE FROM t").rowcount == 2
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_delete_with_subquery(con):
    con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1), (2), (3)) v(id)")
    con.sql("CREATE TABLE gone AS SELECT * FROM (VALUES (2), (3)) v(id)")
    assert con.execute("DELETE FROM t WHERE id IN (SELECT id FROM gone)").rowcount == 2
    assert con.sql("SELECT id FROM t").fetchall() == [(1,)]


def test_update_respects_not_null(con):
    con.sql("CREATE TABLE t (a INTEGER NOT NULL, b INTEGER)")
    con.sql("INSERT INTO t VALUES (1, 1)")
    with pytest.raises(swingdb.IntegrityError, match="column 'a' of table 't'"):
        con.sql("UPDATE t SET a = NULL")
    assert con.sql("SELECT a FROM t").fetchall() == [(1,)]


def test_parameters_qmark_and_numeric(con):
    con.sql("CREATE TABLE t (a INTEGER, s VARCHAR)")
    con.execute("INSERT INTO t VALUES (?, ?)", (1, "one"))
    con.execute("INSERT INTO t VALUES ($1, $2)", [2, "two"])
    assert con.execute("SELECT s FROM t WHERE a = ?", [2]).fetchall() == [("two",)]
    assert con.execute("SELECT s FROM t WHERE a = $1 OR s = $2 ORDER BY a", [1, "two"]).fetchall() == [("one",), ("two",)]
    assert con.execute("SELECT '?' AS q, ? AS p", ["x"]).fetchall() == [("?", "x")]
    with pytest.raises(swingdb.ProgrammingError):
        con.execute("SELECT ?", {"named": 1})


def test_explicit_transaction_commit_and_rollback(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (a INTEGER)")
    con.sql("BEGIN")
    con.sql("INSERT INTO t VALUES (1)")
    con.sql("INSERT INTO t VALUES (2)")
    other = swingdb.connect(db_path)
    assert other.sql("SELECT count(*) FROM t").fetchall() == [(0,)], "uncommitted rows are invisible"
    con.sql("COMMIT")
    assert other.sql("SELECT count(*) FROM t").fetchall() == [(2,)]
    con.begin()
    con.sql("DELETE FROM t")
    con.sql("CREATE TABLE u (b INTEGER)")
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)], "own changes are visible"
    con.rollback()
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(2,)]
    assert con.table_names() == ["t"]


def test_failed_statement_changes_nothing(con):
    con.sql("CREATE TABLE t (a INTEGER NOT NULL)")
    with pytest.raises(swingdb.IntegrityError):
        con.sql("INSERT INTO t VALUES (1), (NULL), (3)")
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]
    con.begin()
    con.sql("INSERT INTO t VALUES (1)")
    with pytest.raises(swingdb.DataError):
        con.sql("INSERT INTO t VALUES ('not a number')")
    con.commit()
    assert con.sql("SELECT a FROM t").fetchall() == [(1,)]


def test_multi_statement_string_fails_atomically_per_statement(con):
    con.sql("CREATE TABLE t (a INTEGER)")
    with pytest.raises(swingdb.ProgrammingError):
        con.sql("INSERT INTO t VALUES (1); INSERT INTO nope VALUES (2)")
    # The first statement committed on its own (autocommit), the second changed nothing.
    assert con.sql("SELECT a FROM t").fetchall() == [(1,)]


def test_transaction_misuse(con):
    with pytest.raises(swingdb.ProgrammingError, match="no transaction"):
        con.sql("COMMIT")
    con.sql("BEGIN")
    with pytest.raises(swingdb.ProgrammingError, match="already open"):
        con.sql("BEGIN")
    con.sql("ROLLBACK")


def test_show_tables_describe_information_schema(con):
    con.sql("CREATE TABLE t1 (a INTEGER NOT NULL, b VARCHAR)")
    con.sql("CREATE TABLE t2 (c DOUBLE)")
    # DuckDB's SHOW TABLES: one column of the database's own tables.
    assert con.sql("SHOW TABLES").fetchall() == [("t1",), ("t2",)]
    everything = con.sql("SHOW ALL TABLES").fetchall()
    assert [(r[1], r[2], r[3], r[4]) for r in everything] == [
        ("main", "t1", ["a", "b"], ["INTEGER", "VARCHAR"]),
        ("main", "t2", ["c"], ["DOUBLE"]),
    ]
    desc = con.sql("DESCRIBE t1").fetchall()
    assert [(r[0], r[2]) for r in desc] == [("a", "NO"), ("b", "YES")]
    cols = con.sql(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't1' ORDER BY ordinal_position"
    ).fetchall()
    assert cols == [("a", "INTEGER"), ("b", "VARCHAR")]


def test_selects_datafusion_supports(con):
    con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 10.0), (2, 'a', 20.0), (3, 'b', 30.0)) v(id, g, x)")
    assert con.sql("SELECT g, sum(x) FROM t GROUP BY g ORDER BY g").fetchall() == [("a", 30.0), ("b", 30.0)]
    assert con.sql(
        "SELECT id, sum(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM t ORDER BY id"
    ).fetchall() == [(1, 10.0), (2, 30.0), (3, 60.0)]
    assert con.sql(
        "WITH m AS (SELECT max(id) AS mx FROM t) SELECT t.g FROM t JOIN m ON t.id = m.mx"
    ).fetchall() == [("b",)]
    assert con.sql("SELECT id FROM t WHERE x > (SELECT avg(x) FROM t)").fetchall() == [(3,)]


def test_constraints_not_enforced_yet_are_refused_honestly(con):
    con.sql("CREATE TABLE p (id INTEGER PRIMARY KEY)")
    with pytest.raises(swingdb.NotSupportedError, match="ON DELETE CASCADE: only RESTRICT"):
        con.sql("CREATE TABLE c (a INTEGER REFERENCES p (id) ON DELETE CASCADE)")
    with pytest.raises(swingdb.NotSupportedError, match="computed columns"):
        con.sql("CREATE TABLE c (a INTEGER, b INTEGER GENERATED ALWAYS AS (a + 1) STORED)")
    assert con.table_names() == ["p"]


def test_parameter_count_must_match(con):
    with pytest.raises(swingdb.ProgrammingError, match=r"has 1 parameter placeholder \(\? or \$n\) but no values were given"):
        con.execute("SELECT ?", [])
    with pytest.raises(swingdb.ProgrammingError, match="has 1 parameter placeholder .* but 2 values were given"):
        con.execute("SELECT ? + 1", [1, 2])
    with pytest.raises(swingdb.ProgrammingError, match="has 2 parameter placeholders .* but 1 value was given"):
        con.execute("SELECT ? + ?", [1])


def test_views_persist_and_follow_transactions(tmp_path):
    path = tmp_path / "v.swingdb"
    with swingdb.connect(path) as con:
        con.sql("CREATE TABLE t (a INTEGER)")
        con.sql("INSERT INTO t VALUES (1), (2), (3)")
        con.sql("CREATE VIEW odd AS SELECT a FROM t WHERE a % 2 = 1")
        con.begin()
        con.sql("CREATE VIEW doomed AS SELECT 1 AS one")
        assert con.sql("SELECT one FROM doomed").fetchall() == [(1,)]
        con.rollback()
        with pytest.raises(swingdb.ProgrammingError, match="doomed"):
            con.sql("SELECT * FROM doomed").fetchall()
        # Another connection sees the committed view.
        other = swingdb.connect(path)
        assert other.sql("SELECT count(*) FROM odd").fetchall() == [(2,)]
        other.close()
    with swingdb.connect(path) as con:
        assert sorted(con.table_names()) == ["odd", "t"]
        con.sql("INSERT INTO t VALUES (5)")
        assert con.sql("SELECT a FROM odd ORDER BY a").fetchall() == [(1,), (3,), (5,)]
        assert con.sql("SELECT * FROM odd").df()["a"].tolist() == [1, 3, 5]


def test_keys_hold_on_every_write_path(tmp_path):
    import pandas as pd

    path = tmp_path / "k.swingdb"
    with swingdb.connect(path) as con:
        con.sql("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b")])
        with pytest.raises(swingdb.IntegrityError, match=r"PRIMARY KEY \(id\) already has id = 2"):
            con.executemany("INSERT INTO t VALUES (?, ?)", [(3, "c"), (2, "again")])
        with pytest.raises(swingdb.IntegrityError, match="id = 1"):
            con.insert("t", pd.DataFrame({"id": [9, 1], "v": ["x", "y"]}))
        csv = tmp_path / "rows.csv"
        csv.write_text("id,v\n7,p\n7,q\n")
        with pytest.raises(swingdb.IntegrityError, match="id = 7"):
            con.sql(f"COPY t FROM '{csv}'")
        # Nothing of the failed statements stayed.
        assert con.sql("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,)]
    # A new connection (after reopening) rebuilds the index from the segments.
    with swingdb.connect(path) as con:
        with pytest.raises(con.IntegrityError, match="id = 2"):
            con.sql("INSERT INTO t VALUES (2, 'z')")
        con.sql("INSERT INTO t VALUES (3, 'c')")
        assert con.sql("SELECT count(*) FROM t").fetchall() == [(3,)]


def test_the_same_key_from_two_transactions_commits_once(tmp_path):
    path = tmp_path / "race.swingdb"
    a = swingdb.connect(path)
    a.sql("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    b = swingdb.connect(path)
    a.begin()
    b.begin()
    a.sql("INSERT INTO t VALUES (5)")
    b.sql("INSERT INTO t VALUES (5), (6)")  # each sees only its own rows
    a.commit()
    # The second commit adds its rows to the first's, and finds the key twice.
    with pytest.raises(swingdb.IntegrityError, match="id = 5.*nothing was written"):
        b.commit()
    assert not b.in_transaction
    assert b.sql("SELECT count(*) FROM t").fetchall() == [(1,)]
    a.close()
    b.close()


def test_correlated_subquery_cost_and_errors(con):
    """A subquery DataFusion cannot unnest runs once per distinct outer key:
    EXPLAIN says so, EXPLAIN ANALYZE counts the runs, and a subquery that
    returns two rows where one value is needed fails while fetching with a
    DB-API error naming the key."""
    con.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
    con.execute("INSERT INTO t VALUES (1, 10), (1, 20), (2, 10), (3, 30)")
    query = "SELECT a, (SELECT count(*) FROM t AS x WHERE x.b < t.b) AS below FROM t"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())
    assert "PerKeySubquery" in plan["logical_plan"] and "once per distinct (t.b)" in plan["logical_plan"]
    [(_, analyzed)] = con.execute("EXPLAIN ANALYZE " + query).fetchall()
    assert "subquery_runs=3" in analyzed  # three distinct b for four rows
    assert sorted(con.execute(query).fetchall()) == [(1, 0), (1, 2), (2, 0), (3, 3)]
    cursor = con.execute("SELECT a, (SELECT b FROM t AS x WHERE x.a = t.a) FROM t")
    with pytest.raises(swingdb.ProgrammingError, match=r"more than one row .* \(for t.a = 1\); add LIMIT 1"):
        cursor.fetchall()


def test_a_result_used_twice_is_computed_once(con):
    """TPC-H Q15's shape: an aggregated CTE read by the main query and by a
    scalar subquery is planned as two copies; EXPLAIN shows them sharing one
    result, and EXPLAIN ANALYZE that only one copy ran."""
    con.execute("CREATE TABLE t AS SELECT value % 100 AS k, value AS v FROM range(100000)")
    query = """WITH totals AS (SELECT k, sum(v) AS total FROM t GROUP BY k)
               SELECT k, total FROM totals WHERE total = (SELECT max(total) FROM totals)"""
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["physical_plan"]
    assert plan.count("SharedExec: computed once for 2 uses") == 2, plan
    [(_, analyzed)] = con.execute("EXPLAIN ANALYZE " + query).fetchall()
    grouping = [line for line in analyzed.splitlines() if "AggregateExec: mode=Partial, gby=[k@0 as k]" in line]
    assert len(grouping) == 2 and sum("output_rows=" in line for line in grouping) == 1, analyzed
    assert con.execute(query).fetchall() == [(99, sum(range(99, 100000, 100)))]
    # A volatile function makes each use compute its own rows.
    volatile = "WITH r AS (SELECT k, sum(random()) AS s FROM t GROUP BY k) SELECT count(*) FROM r a JOIN r b ON a.k = b.k AND a.s = b.s"
    assert "SharedExec" not in dict(con.execute("EXPLAIN " + volatile).fetchall())["physical_plan"]


def test_few_groups_are_grouped_by_swingdbs_operator_and_too_many_move_to_a_hash_table(con):
    """GROUP BY columns whose distinct counts promise few groups run in
    FewGroupsAggregateExec; when a filter's estimate was wrong and a partition
    finds more values than its table holds, EXPLAIN ANALYZE counts the move to
    DataFusion's hash table and every group is still there (answers in
    tests/sql/few_groups.slt)."""
    con.execute("CREATE TABLE t AS SELECT value % 4 AS k, 'flag-' || (value % 3) AS f, value AS v FROM range(100000)")
    query = "SELECT k, f, count(*) AS n, sum(v) AS total FROM t GROUP BY k, f"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["physical_plan"]
    assert "FewGroupsAggregateExec: mode=Partial, gby=[k@0 as k, f@1 as f]" in plan, plan
    expected = {}
    for v in range(100000):
        n, total = expected.get((v % 4, f"flag-{v % 3}"), (0, 0))
        expected[(v % 4, f"flag-{v % 3}")] = (n + 1, total + v)
    assert {(k, f): (n, total) for k, f, n, total in con.execute(query).fetchall()} == expected
    # Many distinct values: DataFusion's own aggregation (in one step per
    # partition, as `v` ascends through the table: see test_ordered_tables.py).
    plan = dict(con.execute("EXPLAIN SELECT v, count(*) FROM t GROUP BY v").fetchall())["physical_plan"]
    assert "FewGroups" not in plan and "AggregateExec: mode=" in plan, plan
    # 100,000 values below 100,000 among 200,000 spread up to 2e11: the
    # filter's estimate is tiny, the partitions find tens of thousands each.
    con.execute("CREATE TABLE skewed AS SELECT CASE WHEN value < 100000 THEN value ELSE value * 1000000 END AS b FROM range(200000)")
    query = "SELECT b, count(*) FROM skewed WHERE b < 100000 GROUP BY b"
    [(_, analyzed)] = con.execute("EXPLAIN ANALYZE " + query).fetchall()
    [line] = [line for line in analyzed.splitlines() if "FewGroupsAggregateExec" in line]
    assert "moved_to_hash_table=" in line and "moved_to_hash_table=0" not in line, analyzed
    rows = con.execute(query).fetchall()
    assert sorted(rows) == [(b, 1) for b in range(100000)]


def test_many_dense_integer_keys_are_grouped_through_an_array_and_sparse_ones_through_a_hash_table(con):
    """GROUP BY one integer column whose values fill most of their range
    (per the statistics: min, max, distinct count), many or few, runs in
    DenseKeysAggregateExec, both phases; keys spread 1,000 apart stay with
    DataFusion's hash aggregation. Answers with NULLs and negative keys are
    in tests/sql/dense_keys.slt."""
    con.execute("CREATE TABLE t AS SELECT CASE WHEN value % 7 = 0 THEN NULL ELSE value % 5000 - 2000 END AS k, value AS v FROM range(300000)")
    query = "SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["physical_plan"]
    assert "DenseKeysAggregateExec: mode=FinalPartitioned, gby=[k@0 as k]" in plan, plan
    assert "DenseKeysAggregateExec: mode=Partial, gby=[k@0 as k]" in plan, plan
    expected = {}
    for v in range(300000):
        k = None if v % 7 == 0 else v % 5000 - 2000
        n, s = expected.get(k, (0, 0))
        expected[k] = (n + 1, s + v)
    assert {k: (n, s) for k, n, s in con.execute(query).fetchall()} == expected
    # Few dense integers too, unless a filter under the grouping is computed
    # as a mask (FewGroupsAggregateExec's).
    con.execute("CREATE TABLE few AS SELECT value % 100 AS k, value AS v FROM range(300000)")
    plan = dict(con.execute("EXPLAIN SELECT k, count(*) FROM few GROUP BY k").fetchall())["physical_plan"]
    assert "DenseKeysAggregateExec: mode=Partial" in plan and "FewGroups" not in plan, plan
    plan = dict(con.execute("EXPLAIN SELECT k, count(*) FROM few WHERE v <> 7 GROUP BY k").fetchall())["physical_plan"]
    assert "FewGroupsAggregateExec: mode=Partial" in plan and "DenseKeys" not in plan, plan
    assert con.execute("SELECT count(*), min(n), max(n), sum(s) FROM (SELECT k, count(*) AS n, sum(v) AS s FROM few GROUP BY k)").fetchall() == [
        (100, 3000, 3000, sum(range(300000)))
    ]
    con.execute("CREATE TABLE sparse AS SELECT (value % 5000) * 1000 AS k FROM range(300000)")
    plan = dict(con.execute("EXPLAIN SELECT k, count(*) FROM sparse GROUP BY k").fetchall())["physical_plan"]
    assert "DenseKeys" not in plan and "AggregateExec: mode=Partial" in plan, plan
    assert con.execute("SELECT count(*), min(n), max(n) FROM (SELECT k, count(*) AS n FROM sparse GROUP BY k)").fetchall() == [(5000, 60, 60)]


def test_a_filter_under_few_groups_is_computed_as_a_mask_where_it_keeps_most_rows(con):
    """The filter under a few-groups aggregation is folded into it (EXPLAIN
    shows it computed there, with no FilterExec left); batches whose rows it
    mostly keeps are aggregated whole with the dropped rows masked
    (EXPLAIN ANALYZE counts them), others are copied out first. Answers,
    including errors raised only by dropped rows, are in
    tests/sql/few_groups.slt."""
    con.execute("CREATE TABLE t AS SELECT value % 3 AS k, value % 50 AS d, value AS v FROM range(200000)")
    query = "SELECT k, count(*), sum(v) FROM t WHERE d <> 7 GROUP BY k"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["physical_plan"]
    [line] = [line for line in plan.splitlines() if "FewGroupsAggregateExec" in line]
    assert "; computing FilterExec: d@1 != 7" in line and "FilterExec" not in plan.replace(line, ""), plan

    def masked(query):
        [(_, analyzed)] = con.execute("EXPLAIN ANALYZE " + query).fetchall()
        counts = re.findall(r"masked_batches=(\d+)", analyzed)
        assert counts, analyzed
        return sum(int(n) for n in counts)

    assert masked(query) > 0
    assert masked("SELECT k, count(*), sum(v) FROM t WHERE d < 10 GROUP BY k") == 0
    expected = {k: (sum(1 for v in range(k, 200000, 3) if v % 50 != 7), sum(v for v in range(k, 200000, 3) if v % 50 != 7)) for k in range(3)}
    assert {k: (n, s) for k, n, s in con.execute(query).fetchall()} == expected


def test_an_aggregation_without_group_by_masks_its_filter_where_that_saves_the_copy(con):
    """Without GROUP BY, the filter under the aggregation is computed by
    OneGroupAggregateExec as a mask when the filter would copy more bytes a
    row than masking costs (8 per aggregate); `count(*)` alone, which reads
    no column, stays with DataFusion's FilterExec. Answers in
    tests/sql/few_groups.slt."""
    con.execute("CREATE TABLE t AS SELECT value % 50 AS d, CAST(value AS DECIMAL(18,2)) AS p, value AS v FROM range(200000)")
    wide = "SELECT sum(p), sum(v * 2) FROM t WHERE d <> 7"
    plan = dict(con.execute("EXPLAIN " + wide).fetchall())["physical_plan"]
    [line] = [line for line in plan.splitlines() if "OneGroupAggregateExec" in line]
    assert "mode=Partial" in line and "; computing FilterExec: d@0 != 7" in line, plan
    assert "FilterExec" not in plan.replace(line, ""), plan
    assert con.execute(wide).fetchall() == [
        (Decimal(sum(v for v in range(200000) if v % 50 != 7)), 2 * sum(v for v in range(200000) if v % 50 != 7))
    ]
    narrow = "SELECT count(*) FROM t WHERE d <> 7"
    plan = dict(con.execute("EXPLAIN " + narrow).fetchall())["physical_plan"]
    assert "OneGroup" not in plan and "FilterExec: d@0 != 7" in plan, plan
    assert con.execute(narrow).fetchall() == [(196000,)]


def test_inner_joins_are_ordered_by_estimated_size(con):
    """Three or more inner joins are joined smallest estimate first
    (sql/optimizer/join_order.rs): a small table filtered to one row, named last, is
    joined with its neighbour before the large table meets anything.
    Answers of reordered joins are held to SQLite's and DuckDB's in
    tests/test_differential.py."""
    con.execute("CREATE TABLE big AS SELECT value AS k, value % 1000 AS m FROM range(200000)")
    con.execute("CREATE TABLE mid AS SELECT value AS m, value % 50 AS n FROM range(1000)")
    con.execute("CREATE TABLE small AS SELECT value AS n, 'name' || value AS name FROM range(50)")
    query = "SELECT count(*) FROM big, mid, small WHERE big.m = mid.m AND mid.n = small.n AND small.name = 'name7'"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["logical_plan"]
    joins = [line.strip() for line in plan.splitlines() if "Inner Join:" in line]
    assert len(joins) == 2 and ("mid.n" in joins[-1] and "small.n" in joins[-1]), plan
    assert con.execute(query).fetchall() == [(4000,)]
    # An input that cannot be estimated (here an aggregate) keeps the order.
    names = "(SELECT n, max(name) AS name FROM small GROUP BY n) AS s"
    query = f"SELECT count(*) FROM big, mid, {names} WHERE big.m = mid.m AND mid.n = s.n AND s.name = 'name7'"
    plan = dict(con.execute("EXPLAIN " + query).fetchall())["logical_plan"]
    joins = [line.strip() for line in plan.splitlines() if "Inner Join:" in line]
    assert "big.m" in joins[-1], plan
    assert con.execute(query).fetchall() == [(4000,)]


def test_a_join_on_a_sparse_integer_key_looks_rows_up_by_the_key(con):
    """A hash join on one integer key whose build side holds at least 2 % of
    the key's range uses an array indexed by the key (DataFusion's default
    asks for 15 %; sql/session.rs says what that bought)."""
    con.execute("CREATE TABLE build AS SELECT value * 25 AS k, value AS v FROM range(2000)")
    con.execute("CREATE TABLE probe AS SELECT value AS k FROM range(100000)")
    query = "SELECT count(*), sum(v) FROM probe JOIN build ON probe.k = build.k"
    [(_, plan)] = con.execute("EXPLAIN ANALYZE " + query).fetchall()
    [join] = [line for line in plan.splitlines() if "HashJoinExec" in line]
    assert "array_map_created_count=1" in join, join
    assert con.execute(query).fetchall() == [(2000, 1999 * 2000 // 2)]


def test_a_filter_the_planner_cannot_analyse_is_estimated_from_a_sample(con):
    """A LIKE used to count as keeping 20 % of its table (DataFusion's default),
    whatever it matched, and joins were ordered by that; it is now tried on a
    sample of the scan's rows (sql/optimizer/selectivity.rs)."""
    con.execute("CREATE TABLE t AS SELECT value AS id, CASE WHEN value % 50 = 0 THEN 'green ' || value "
                "ELSE 'plain ' || value END AS name FROM range(100000)")
    con.execute("SET datafusion.explain.show_statistics = true")

    def estimated_rows(where):
        plan = dict(con.execute(f"EXPLAIN SELECT id FROM t WHERE {where}").fetchall())["physical_plan"]
        [filter_line] = [line for line in plan.splitlines() if "FilterExec" in line]
        return int(re.search(r"Rows=Inexact\((\d+)\)", filter_line).group(1))

    assert estimated_rows("name LIKE '%green%'") == 2_000
    assert estimated_rows("name NOT LIKE '%green%'") == 98_000
    assert estimated_rows("name LIKE '%blue%'") == 1_000, "none sampled: the 1 % floor"


def test_added_and_dropped_columns_stay_zero_copy_and_other_processes_see_them(tmp_path):
    """ADD/DROP COLUMN rewrite no segment: the older rows' columns are still
    handed out as windows into the mapped files, the added column reads as
    its DEFAULT, and another process opening the database sees the same."""
    from conftest import run_python

    db = tmp_path / "alter.swingdb"
    with swingdb.connect(db) as con:
        con.sql("CREATE TABLE t AS SELECT value AS a, value * 2 AS b FROM range(100000)")
        files = sorted(p.name for p in (db / "segments").iterdir())
        con.sql("ALTER TABLE t ADD COLUMN c BIGINT DEFAULT 7")
        con.sql("ALTER TABLE t DROP COLUMN b")
        assert sorted(p.name for p in (db / "segments").iterdir()) == files
        arrays = con.sql("SELECT a, c FROM t").numpy()
        assert int(arrays["c"].sum()) == 7 * 100000
        segments = [
            tuple(int(x, 16) for x in line.split()[0].split("-"))
            for line in open("/proc/self/maps")
            if len(line.split()) >= 6 and line.split()[5].startswith(str((db / "segments").resolve()))
        ]
        address = arrays["a"].ctypes.data
        assert any(start <= address < end for start, end in segments), "column a was copied"
        con.sql("INSERT INTO t VALUES (-1, 8)")
    code = """
import sys, swingdb
con = swingdb.connect(sys.argv[1])
print(con.sql("SELECT count(*), sum(c), count(DISTINCT c) FROM t").fetchall())
print([d[0] for d in con.execute("SELECT * FROM t LIMIT 1").description])
"""
    out = run_python(code, db).stdout.split("\n")
    assert out[0] == f"[(100001, {7 * 100000 + 8}, 2)]"
    assert out[1] == "['a', 'c']"


def test_a_plain_index_is_kept_and_explain_says_when_it_is_used(tmp_path):
    db = tmp_path / "ix.swingdb"
    with swingdb.connect(db) as con:
        con.sql("CREATE TABLE t (a INTEGER, b VARCHAR)")
        con.sql("CREATE INDEX t_a ON t (a)")
        plan = dict(con.execute("EXPLAIN SELECT b FROM t WHERE a = 1").fetchall())["physical_plan"]
        assert "index lookup on t_a (a)" in plan and "indexes not used" not in plan, plan
        plan = dict(con.execute("EXPLAIN SELECT b FROM t WHERE b = 'x'").fetchall())["physical_plan"]
        assert "indexes not used: t_a (a)" in plan, plan
    with swingdb.connect(db) as con:  # kept with the table
        with pytest.raises(swingdb.ProgrammingError, match="index 't_a' already exists"):
            con.sql("CREATE INDEX t_a ON t (b)")
        con.sql("DROP INDEX t_a")
        plan = dict(con.execute("EXPLAIN SELECT b FROM t WHERE a = 1").fetchall())["physical_plan"]
        assert "indexes not used" not in plan and "index lookup" not in plan


def test_merge_takes_parameters(con):
    """An application's upsert by MERGE binds its values as parameters, also in
    the WHEN conditions and through executemany."""
    con.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, n INTEGER)")
    merge = ("MERGE INTO t USING (VALUES (?, ?)) AS s(k, n) ON t.k = s.k "
             "WHEN MATCHED AND s.n > ? THEN UPDATE SET n = s.n WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.n)")
    con.execute(merge, (1, 2, 0))
    con.execute(merge, (1, 5, 0))
    con.execute(merge, (1, 1, 3))  # not greater than 3: kept
    con.executemany(merge, [(2, 7, 0), (3, 8, 0)])
    assert con.sql("SELECT k, n FROM t ORDER BY k").fetchall() == [(1, 5), (2, 7), (3, 8)]


def test_unnamed_expressions_are_named_as_written(con):
    """Result columns of expressions read like the SQL (as SQLite and DuckDB
    name them), not like DataFusion's plan (`Int64(42)`, `t.a + t.b`)."""
    con.sql("CREATE TABLE nm (a INTEGER, b INTEGER)")
    con.sql("INSERT INTO nm VALUES (1, 2), (3, 4)")
    assert con.sql("SELECT 42, 'x' || 'y', a + b, a, count(*) OVER () FROM nm LIMIT 1").columns == [
        "42", "'x' || 'y'", "a + b", "a", "count(*) OVER ()"]
    r = con.sql("SELECT a % 2, count(*), sum(b) FROM nm GROUP BY a % 2 ORDER BY a % 2")
    assert r.columns == ["a % 2", "count(*)", "sum(b)"] and r.fetchall() == [(1, 2, 6)]
    # Repeats keep their name; aliases and plain columns are untouched; ORDER BY still matches.
    r = con.sql("SELECT a + 1, a + 1, b AS total FROM nm ORDER BY a + 1 DESC")
    assert r.columns == ["a + 1", "a + 1", "total"] and r.fetchall() == [(4, 4, 4), (2, 2, 2)]
    assert con.sql("SELECT *, a * 2 FROM nm LIMIT 1").columns[:2] == ["a", "b"]
    assert con.execute("SELECT CAST(a AS VARCHAR) FROM nm").description[0][0] == "CAST(a AS VARCHAR)"
    # A column beside a cast of it (DataFusion names both alike and refused the query).
    r = con.sql("SELECT a, CAST(a AS BIGINT), a + 1, CAST(a + 1 AS DOUBLE), b::DOUBLE, b FROM nm ORDER BY a")
    assert r.columns == ["a", "CAST(a AS BIGINT)", "a + 1", "CAST(a + 1 AS DOUBLE)", "b::DOUBLE", "b"]
    assert r.fetchall() == [(1, 1, 2, 2.0, 2.0, 2), (3, 3, 4, 4.0, 4.0, 4)]
    # ... also in a derived table or a view, named as written.
    assert con.sql("SELECT * FROM (SELECT a, CAST(a AS BIGINT) FROM nm) AS d").columns == ["a", "CAST(a AS BIGINT)"]
    assert con.sql("SELECT * FROM (SELECT CAST(a AS BIGINT), a FROM nm) AS d").columns == ["CAST(a AS BIGINT)", "a"]
    con.sql("CREATE VIEW nmv AS SELECT b, CAST(b AS DOUBLE) FROM nm")
    assert con.sql("SELECT * FROM nmv ORDER BY b").fetchall() == [(2, 2.0), (4, 4.0)]


def test_types_read_like_sql_in_describe_description_and_show(con):
    con.sql("CREATE TABLE ty (a INTEGER NOT NULL, b DECIMAL(10,2), c VARCHAR, d TIMESTAMP, e DOUBLE, f BOOLEAN, g DATE, h BIGINT)")
    assert con.sql("DESCRIBE ty").fetchall() == [
        ("a", "INTEGER", "NO"), ("b", "DECIMAL(10,2)", "YES"), ("c", "VARCHAR", "YES"), ("d", "TIMESTAMP", "YES"),
        ("e", "DOUBLE", "YES"), ("f", "BOOLEAN", "YES"), ("g", "DATE", "YES"), ("h", "BIGINT", "YES")]
    result = con.sql("SELECT * FROM ty")
    assert [d[1] for d in result.description] == ["INTEGER", "DECIMAL(10,2)", "VARCHAR", "TIMESTAMP", "DOUBLE", "BOOLEAN", "DATE", "BIGINT"]
    shown = repr(result)
    assert "DECIMAL(10,2)" in shown and "VARCHAR" in shown and "decimal128" not in shown and "string" not in shown
    assert "<small>DECIMAL(10,2)</small>" in result._repr_html_()


def test_timestamptz_keeps_its_zone(tmp_path):
    """TIMESTAMPTZ columns were stored as naive timestamps (DataFusion's session
    time zone was unset), so pandas got naive datetimes. They hold UTC instants
    with their zone, as in DuckDB, also after reopening."""
    import datetime as dt

    path = str(tmp_path / "tz.swingdb")
    con = swingdb.connect(path)
    con.sql("CREATE TABLE ev (at TIMESTAMPTZ, local TIMESTAMP, made TIMESTAMPTZ DEFAULT now())")
    con.sql("INSERT INTO ev (at, local) VALUES ('2024-01-01 12:00:00+02', '2024-01-01 12:00:00')")
    con.close()
    con = swingdb.connect(path)
    assert con.sql("DESCRIBE ev").fetchall()[:2] == [("at", "TIMESTAMP WITH TIME ZONE", "YES"), ("local", "TIMESTAMP", "YES")]
    table = con.sql("SELECT at, local, made <= now() AS past FROM ev").arrow()
    assert table.schema.field("at").type.tz == "UTC" and table.schema.field("local").type.tz is None
    at = table.column("at").to_pylist()[0]
    assert at == dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.timezone.utc) and table.column("past").to_pylist() == [True]
    assert str(con.sql("SELECT at FROM ev").df()["at"].dtype).endswith("tz=UTC][pyarrow]")


def test_named_parameters_take_a_dict(con):
    import datetime

    con.sql("CREATE TABLE people (id INTEGER, name VARCHAR, born DATE)")
    con.execute("INSERT INTO people VALUES ($id, $name, $born)", {"id": 1, "name": "Ada", "born": datetime.date(1815, 12, 10)})
    con.execute("INSERT INTO people VALUES (:id, :name, :born)", {"born": None, "name": "Bob", "id": 2})
    rows = con.sql("SELECT name, ':id' AS text FROM people WHERE id = :id OR id = $id", {"id": 2}).fetchall()
    assert rows == [("Bob", ":id")]
    # The same name used twice binds one value; values are bound, never pasted into the SQL.
    assert con.sql("SELECT count(*) FROM people WHERE name = $n OR name = $n", {"n": "x' OR '1'='1"}).fetchall() == [(0,)]
    with pytest.raises(swingdb.ProgrammingError, match=r"no value was given for parameter \$name \(values given: id\)"):
        con.sql("SELECT $id, $name", {"id": 1})
    with pytest.raises(swingdb.ProgrammingError, match="value was given for 'extra'"):
        con.sql("SELECT $id", {"id": 1, "extra": 2})
    with pytest.raises(swingdb.ProgrammingError, match="parameter names must be strings"):
        con.sql("SELECT $1", {1: 1})


def test_summarize_a_table_or_a_query(con):
    con.sql(
        "CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 2.5, DATE '2024-01-01'), (2, NULL, 3.5, DATE '2024-02-01'), "
        "(3, 'c', NULL, NULL), (4, 'a', 1.0, DATE '2023-12-31')) v(id, name, price, day)"
    )
    rows = {r[0]: r for r in con.sql("SUMMARIZE t").fetchall()}
    assert con.sql("SUMMARIZE t").columns == [
        "column_name", "column_type", "min", "max", "approx_unique", "avg", "std", "q25", "q50", "q75", "count", "null_percentage",
    ]
    assert rows["id"][1:5] == ("BIGINT", "1", "4", 4) and rows["id"][5] == 2.5 and rows["id"][8] == "2.5"
    assert rows["name"][1:5] == ("VARCHAR", "a", "c", 2) and rows["name"][5] is None and rows["name"][11] == 25.0
    assert rows["day"][2:4] == ("2023-12-31", "2024-02-01") and rows["day"][10] == 4
    assert con.sql("summarize SELECT id * 2 AS d FROM t WHERE id > 2;").fetchall()[0][:5] == ("d", "BIGINT", "6", "8", 2)
    with pytest.raises(swingdb.ProgrammingError, match="does not exist"):
        con.sql("SUMMARIZE nope")


def test_export_and_import_database_round_trip_keys_identity_views(tmp_path):
    import shutil
    from decimal import Decimal

    src = swingdb.connect(str(tmp_path / "src.swingdb"))
    src.sql("CREATE TABLE parent (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL DEFAULT 'x', price DECIMAL(10,2) CHECK (price >= 0))")
    src.sql('CREATE TABLE "odd ""name" (pid INTEGER REFERENCES parent (id), n BIGINT GENERATED BY DEFAULT AS IDENTITY, day DATE)')
    src.sql("INSERT INTO parent VALUES (1, 'a', 1.50), (2, 'b', 2.25)")
    src.sql("""INSERT INTO "odd ""name" (pid, day) VALUES (1, DATE '2024-01-02'), (2, NULL)""")
    src.sql("CREATE UNIQUE INDEX pn ON parent (name)")
    src.sql("CREATE VIEW expensive AS SELECT name FROM parent WHERE price > 2")
    src.sql(f"EXPORT DATABASE '{tmp_path / 'out'}'")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["000_parent.parquet", "001_odd__name.parquet", "load.sql", "schema.sql"]
    shutil.move(tmp_path / "out", tmp_path / "moved")  # load.sql names files relative to its directory
    dst = swingdb.connect(str(tmp_path / "dst.swingdb"))
    dst.sql(f"IMPORT DATABASE '{tmp_path / 'moved'}'")
    assert dst.sql("SELECT * FROM parent ORDER BY id").fetchall() == [(1, "a", Decimal("1.50")), (2, "b", Decimal("2.25"))]
    assert dst.sql("SELECT * FROM expensive").fetchall() == [("b",)]
    assert dst.sql("DESCRIBE parent").fetchall() == src.sql("DESCRIBE parent").fetchall()
    with pytest.raises(swingdb.IntegrityError, match="PRIMARY KEY"):
        dst.sql("INSERT INTO parent VALUES (1, 'c', 1)")
    with pytest.raises(swingdb.IntegrityError):
        dst.sql("INSERT INTO parent VALUES (3, 'a', 1)")  # the unique index came along
    with pytest.raises(swingdb.IntegrityError):
        dst.sql('INSERT INTO "odd ""name" (pid) VALUES (99)')  # so did the foreign key
    dst.sql('INSERT INTO "odd ""name" (pid) VALUES (2)')
    assert [r[0] for r in dst.sql('SELECT n FROM "odd ""name" ORDER BY n').fetchall()] == [1, 2, 3]  # identity goes on
    # A failed import keeps nothing.
    with pytest.raises(swingdb.ProgrammingError, match="already exists"):
        dst.sql(f"IMPORT DATABASE '{tmp_path / 'moved'}'")
    with pytest.raises(swingdb.ProgrammingError, match="cannot read .*schema.sql"):
        dst.sql(f"IMPORT DATABASE '{tmp_path / 'nowhere'}'")
    assert dst.sql("SELECT count(*) FROM parent").fetchall() == [(2,)]


def test_export_database_writes_the_format_asked_for(tmp_path):
    src = swingdb.connect()
    src.sql("CREATE TABLE t (id INTEGER, name VARCHAR, price DECIMAL(10,2), day DATE)")
    src.sql("INSERT INTO t VALUES (1, 'a,b', 1.50, DATE '2024-01-02'), (2, NULL, NULL, NULL)")
    src.sql(f"EXPORT DATABASE '{tmp_path / 'csv'}' (FORMAT csv)")
    src.sql(f"EXPORT DATABASE '{tmp_path / 'pq'}' (FORMAT 'parquet')")
    assert (tmp_path / "csv" / "000_t.csv").read_text().splitlines()[0] == "id,name,price,day"
    assert (tmp_path / "pq" / "000_t.parquet").exists()
    for kind in ("csv", "pq"):
        dst = swingdb.connect()
        dst.sql(f"IMPORT DATABASE '{tmp_path / kind}'")
        assert dst.sql("SELECT * FROM t ORDER BY id").fetchall() == [(1, "a,b", Decimal("1.50"), dt.date(2024, 1, 2)), (2, None, None, None)]
    with pytest.raises(swingdb.NotSupportedError, match="FORMAT csv"):
        src.sql(f"EXPORT DATABASE '{tmp_path / 'j'}' (FORMAT json)")
    assert not (tmp_path / "j").exists()
