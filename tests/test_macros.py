"""Macros (CREATE MACRO / CREATE FUNCTION) as stored catalog objects: kept
across reopening, exported, named like DuckDB names their columns."""

import duckdb
import pytest
import swingdb


def test_macros_are_stored_and_exported(tmp_path):
    path = str(tmp_path / "db")
    con = swingdb.connect(path)
    con.sql("CREATE TABLE t AS SELECT * FROM (VALUES (1), (5), (9)) v(a)")
    con.sql("CREATE MACRO clamp(x, lo := 0, hi := 6) AS greatest(lo, least(hi, x))")
    con.sql("CREATE MACRO above(n) AS TABLE SELECT a FROM t WHERE a > n")
    con.close()
    con = swingdb.connect(path)
    assert con.sql("SELECT clamp(a) FROM t ORDER BY a").fetchall() == [(1,), (5,), (6,)]
    assert con.sql("SELECT * FROM above(4) ORDER BY a").fetchall() == [(5,), (9,)]
    assert con.sql("SHOW TABLES").fetchall() == [("t",)]
    con.sql(f"EXPORT DATABASE '{tmp_path / 'out'}'")
    moved = swingdb.connect(str(tmp_path / "moved"))
    moved.sql(f"IMPORT DATABASE '{tmp_path / 'out'}'")
    assert moved.sql("SELECT clamp(-3, hi := 2), count(*) FROM above(0)").fetchall() == [(0, 3)]


def test_a_macro_calls_column_is_named_as_written_as_in_duckdb():
    sql = "SELECT add1(41), add1(41) AS named"
    con = swingdb.connect()
    con.sql("CREATE MACRO add1(x) AS x + 1")
    duck = duckdb.connect()
    duck.sql("CREATE MACRO add1(x) AS x + 1")
    assert [d[0] for d in con.sql(sql).description] == [d[0] for d in duck.sql(sql).description] == ["add1(41)", "named"]
    assert con.sql(sql).fetchall() == duck.sql(sql).fetchall() == [(42, 42)]


def test_mistakes_with_macros_say_what_to_do(con):
    con.sql("CREATE MACRO m(a, b := 1) AS a + b")
    for sql, message in [
        ("SELECT m()", r"macro m\(a, b := 1\) was called with 0 arguments"),
        ("SELECT m(1, c := 2)", "macro 'm' has no parameter 'c'"),
        ("SELECT * FROM m(1)", "'m' is a scalar macro; call it in an expression"),
        ("CREATE MACRO m(x) AS x", "macro 'm' already exists; use CREATE OR REPLACE MACRO"),
        ("CREATE MACRO w(x) AS x + y", "macro 'w' reads 'y', which is not one of its parameters"),
        ("CREATE MACRO d(a := 1, b) AS a + b", "put parameters with defaults last"),
        ("CREATE MACRO r(x) AS r(x)", None),
        ("DROP MACRO nope", r"macro 'nope' does not exist \(use DROP MACRO IF EXISTS"),
        ("CREATE TABLE m (a INT)", "'m' is a macro; DROP MACRO it first"),
    ]:
        if message is None:
            con.sql(sql)
            with pytest.raises(swingdb.ProgrammingError, match="more than 32 deep"):
                con.sql("SELECT r(1)")
            continue
        with pytest.raises(swingdb.ProgrammingError, match=message):
            con.sql(sql).fetchall()


def test_a_type_other_than_an_enum_is_refused_saying_what_is_supported(con):
    with pytest.raises(swingdb.NotSupportedError, match=r"CREATE TYPE pair: only ENUM types are supported"):
        con.sql("CREATE TYPE pair AS (a INTEGER, b INTEGER)")
