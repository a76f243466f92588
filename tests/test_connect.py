import json
import os

import pytest
import swingdb


def test_in_memory_default_and_explicit():
    for con in (swingdb.connect(), swingdb.connect(":memory:")):
        con.sql("CREATE TABLE t (a INTEGER)")
        con.sql("INSERT INTO t VALUES (1), (2)")
        assert con.sql("SELECT count(*) FROM t").fetchall() == [(2,)]
        assert con.path is None
        con.close()


def test_in_memory_databases_are_private():
    a, b = swingdb.connect(), swingdb.connect()
    a.sql("CREATE TABLE t (a INTEGER)")
    assert b.table_names() == []
    assert a.table_names() == ["t"]


def test_directory_is_created_and_persists(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE t (a BIGINT, s VARCHAR)")
        con.sql("INSERT INTO t VALUES (1, 'x'), (2, NULL)")
    assert os.path.isdir(db_path)
    marker = json.load(open(os.path.join(db_path, "swingdb.json")))
    assert marker["format"] == "swingdb"
    with swingdb.connect(db_path) as con:
        assert con.sql("SELECT * FROM t ORDER BY a").fetchall() == [(1, "x"), (2, None)]


def test_read_only_refuses_writes_but_reads(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE t AS SELECT 1 AS a")
    with swingdb.connect(db_path, read_only=True) as ro:
        assert ro.sql("SELECT a FROM t").fetchall() == [(1,)]
        with pytest.raises(swingdb.OperationalError, match="read-only"):
            ro.sql("INSERT INTO t VALUES (2)")
        assert ro.sql("SELECT count(*) FROM t").fetchall() == [(1,)]


def test_read_only_of_missing_database_is_an_error(tmp_path):
    with pytest.raises(swingdb.OperationalError, match="does not exist"):
        swingdb.connect(str(tmp_path / "nope.swingdb"), read_only=True)


def test_directory_that_is_not_a_database(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(swingdb.OperationalError, match="not a swingdb database"):
        swingdb.connect(str(tmp_path))


def test_file_instead_of_directory(tmp_path):
    f = tmp_path / "file.db"
    f.write_text("x")
    with pytest.raises(swingdb.OperationalError, match="is a file"):
        swingdb.connect(str(f))


def test_newer_format_version_is_refused(db_path):
    swingdb.connect(db_path).close()
    with open(os.path.join(db_path, "swingdb.json"), "w") as fh:
        json.dump({"format": "swingdb", "format_version": 99}, fh)
    with pytest.raises(swingdb.OperationalError, match="upgrade swingdb"):
        swingdb.connect(db_path)


def test_context_manager_closes_and_rolls_back_on_error(db_path):
    with pytest.raises(RuntimeError):
        with swingdb.connect(db_path) as con:
            con.sql("CREATE TABLE t (a INTEGER)")
            con.begin()
            con.sql("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")
    assert con.closed
    with swingdb.connect(db_path) as con2:
        assert con2.sql("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_closed_connection_raises(con):
    con.close()
    with pytest.raises(swingdb.ProgrammingError, match="closed"):
        con.sql("SELECT 1")


def test_every_call_on_a_closed_connection_raises_error(con):
    cur = con.cursor()
    ran = con.execute("SELECT 1")
    con.close()
    calls = [con.cursor, con.commit, con.rollback, con.table_names, lambda: con.execute("SELECT 1"),
             lambda: con.executemany("SELECT ?", [(1,)]), lambda: cur.execute("SELECT 1"),
             con.close, ran.fetchall, lambda: ran.description, cur.fetchone]
    for call in calls:
        with pytest.raises(swingdb.Error, match="closed"):
            call()


def test_exception_classes_are_connection_attributes(con):
    for name in ("Warning", "Error", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
                 "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError"):
        assert getattr(con, name) is getattr(swingdb, name)
    with pytest.raises(con.DataError):
        con.sql("SELECT 9223372036854775807 + 1").fetchall()


def test_fetching_without_rows_raises_error(con):
    cur = con.cursor()
    for fetch in (cur.fetchone, cur.fetchall, lambda: cur.fetchmany(2)):
        with pytest.raises(swingdb.Error):
            fetch()
    cur.execute("CREATE TABLE t (a INT)")
    for fetch in (cur.fetchone, cur.fetchall):
        with pytest.raises(swingdb.Error):
            fetch()


def test_repeated_result_column_names_are_kept(con):
    con.sql("CREATE TABLE t (a INT, b INT)")
    con.sql("INSERT INTO t VALUES (1, 2)")
    cur = con.execute("SELECT a, a, b AS a, 3 AS x, 4 AS x FROM t")
    assert [d[0] for d in cur.description] == ["a", "a", "a", "x", "x"]
    assert cur.fetchall() == [(1, 1, 2, 3, 4)]
    assert list(con.sql("SELECT a, a FROM t").df().columns) == ["a", "a"]


def test_pathlike_is_accepted(tmp_path):
    with swingdb.connect(tmp_path / "p.swingdb") as con:
        assert con.path.endswith("p.swingdb")


def test_module_level_sql_uses_one_shared_in_memory_connection():
    """As duckdb.sql(): SQL without making a connection first."""
    swingdb.sql("CREATE OR REPLACE TABLE module_level AS SELECT 41 AS x")
    assert swingdb.sql("SELECT x + 1 FROM module_level").fetchall() == [(42,)]
    assert swingdb.execute("SELECT count(*) FROM module_level").fetchone() == (1,)
    assert swingdb.default_connection() is swingdb.default_connection()
    assert swingdb.connect().sql("SELECT count(*) FROM information_schema.tables WHERE table_name = 'module_level'").fetchone() == (0,)


def test_every_method_of_a_closed_cursor_raises_error(con):
    cur = con.execute("SELECT 1 AS a")
    cur.close()
    calls = [lambda: cur.execute("SELECT 1"), lambda: cur.executemany("SELECT ?", [(1,)]), cur.fetchone, cur.fetchall,
             lambda: cur.fetchmany(1), cur.arrow, lambda: cur.description, lambda: cur.rowcount, lambda: iter(cur),
             lambda: cur.setinputsizes([]), lambda: cur.setoutputsize(1), cur.close, cur.fetch_record_batch]
    for call in calls:
        with pytest.raises(swingdb.InterfaceError, match="the cursor is closed"):
            call()
    assert cur.closed
    with con.cursor() as other:
        assert other.execute("SELECT 2").fetchall() == [(2,)]
    assert other.closed and con.sql("SELECT 3").fetchall() == [(3,)]


def test_a_query_of_no_table_keeps_its_plan_and_sees_a_view_replaced_elsewhere(db_path):
    """A query without FROM (or of a view without one) runs again from its kept
    plan, yet reads a view another connection replaced; a volatile one is not kept."""
    a, b = swingdb.connect(db_path), swingdb.connect(db_path)
    a.sql("CREATE VIEW c AS SELECT 1 AS x")
    uses = a._con._cached_plan_uses()
    for _ in range(3):
        assert a.sql("SELECT 41 + 1").fetchall() == [(42,)]
        assert a.sql("SELECT x FROM c").fetchall() == [(1,)]
    assert a._con._cached_plan_uses() - uses == 4
    b.sql("CREATE OR REPLACE VIEW c AS SELECT 2 AS x")
    assert a.sql("SELECT x FROM c").fetchall() == [(2,)]
    assert len({a.sql("SELECT random()").fetchone() for _ in range(3)}) == 3


def test_a_constant_query_hands_out_its_kept_rows_only_while_they_are_right(db_path):
    """`SELECT 1` and other constant queries keep their rows once they run
    from a kept plan, and hand them out again (with their names and types)
    while nothing that shapes them changed: a setting that types literals,
    a macro or a view replaced by another connection, a transaction."""
    a, b = swingdb.connect(db_path), swingdb.connect(db_path)
    a.sql("CREATE MACRO twice(x) AS 2 * x")
    a.sql("CREATE VIEW c AS SELECT 1 AS x")
    queries = ["SELECT 1", "SELECT 1.5 AS d, 'a', NULL, TRUE, twice(21)", "SELECT x FROM c"]
    first = {q: a.sql(q).arrow() for q in queries}
    uses = a._con._cached_plan_uses()
    for _ in range(3):
        for q in queries:
            again = a.sql(q).arrow()
            assert again.equals(first[q]) and again.schema.names == first[q].schema.names, q
    assert a._con._cached_plan_uses() - uses == 9
    assert str(first[queries[1]].schema.field("d").type) == "decimal128(2, 1)"
    a.sql("SET datafusion.sql_parser.parse_float_as_decimal = false")
    assert str(a.sql(queries[1]).arrow().schema.field("d").type) == "double"
    assert a.sql(queries[1]).fetchone()[0] == 1.5
    b.sql("CREATE OR REPLACE MACRO twice(x) AS 3 * x")
    b.sql("CREATE OR REPLACE VIEW c AS SELECT 2 AS x")
    assert a.sql(queries[1]).fetchone()[4] == 63
    assert a.sql("SELECT x FROM c").fetchall() == [(2,)]
    a.sql("BEGIN")
    a.sql("CREATE OR REPLACE VIEW c AS SELECT 3 AS x")
    for _ in range(2):
        assert a.sql("SELECT x FROM c").fetchall() == [(3,)]
    a.sql("ROLLBACK")
    for _ in range(2):
        assert a.sql("SELECT x FROM c").fetchall() == [(2,)]
    assert a.sql("SELECT 1").fetchall() == [(1,)]
    # Rows beyond what a connection keeps (64 KiB) are computed at each run.
    assert [a.sql("SELECT repeat('x', 100000) AS s").fetchone()[0] for _ in range(3)] == ["x" * 100000] * 3


def test_a_kept_plan_made_in_a_rolled_back_transaction_does_not_read_its_rows(db_path):
    """A kept plan is checked against the tables of the newest version
    without beginning a transaction while those are the tables the connection
    sees: after a rollback (or its own write) they are not."""
    con, other = swingdb.connect(db_path), swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS v FROM range(10)")
    count = "SELECT count(*) FROM t"
    assert con.sql(count).fetchall() == [(10,)]
    con.sql("BEGIN")
    con.sql("INSERT INTO t VALUES (10)")
    for _ in range(2):
        assert con.sql(count).fetchall() == [(11,)]
    con.sql("ROLLBACK")
    for _ in range(2):
        assert con.sql(count).fetchall() == [(10,)], "the rolled-back row"
    con.sql("DELETE FROM t WHERE v = 0")
    assert con.sql(count).fetchall() == [(9,)]
    other.sql("DELETE FROM t WHERE v = 1")
    assert con.sql(count).fetchall() == [(8,)], "another connection's commit"


def test_connections_start_from_one_template_but_keep_their_session_to_themselves(db_path, tmp_path):
    """Sessions are cloned from a per-process template: what one connection
    sets, registers or keeps for reuse must stay its own."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    a, b = swingdb.connect(db_path), swingdb.connect(db_path)
    a.sql("CREATE TABLE t AS SELECT value AS v FROM range(1000)")
    a.sql("SET datafusion.execution.batch_size = 1234")
    setting = "SELECT current_setting('datafusion.execution.batch_size')"
    assert a.sql(setting).fetchall() == [("1234",)]
    assert b.sql(setting).fetchall() == [("32768",)]
    a.register("only_a", pa.table({"x": [1, 2, 3]}))
    with pytest.raises(swingdb.ProgrammingError, match="only_a"):
        b.sql("SELECT * FROM only_a")
    with pytest.raises(swingdb.ProgrammingError, match="not a setting"):
        b.sql("SET swingdb_kept_plan.x = 1")
    # Each connection reuses its own kept plans, interleaved with the other's.
    uses = (a._con._cached_plan_uses(), b._con._cached_plan_uses())
    for _ in range(3):
        assert a.sql("SELECT sum(v) FROM t WHERE v < 100").fetchall() == [(sum(range(100)),)]
        assert b.sql("SELECT count(*) FROM t WHERE v >= 300").fetchall() == [(700,)]
    assert (a._con._cached_plan_uses() - uses[0], b._con._cached_plan_uses() - uses[1]) == (2, 2)
    # File paths are tables in both (set up on each cloned session).
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"y": [7, 8]}), path)
    for con in (a, b):
        assert con.sql(f"SELECT sum(y) FROM '{path}'").fetchall() == [(15,)]
    closed = swingdb.connect(db_path, external_access=False)
    with pytest.raises(swingdb.Error):
        closed.sql(f"SELECT sum(y) FROM '{path}'")


def test_the_version_is_the_installed_packages():
    # Read from the extension (importlib.metadata cost `import swingdb` 35 ms).
    from importlib.metadata import version

    assert swingdb.__version__ == version("swingdb")
