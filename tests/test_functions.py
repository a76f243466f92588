"""Python functions in SQL (con.create_function), as DuckDB's."""

import random

import pyarrow as pa
import pyarrow.compute as pc
import pytest
import swingdb


@pytest.fixture
def con(tmp_path):
    con = swingdb.connect(str(tmp_path / "db"))
    con.sql("CREATE TABLE t AS SELECT value AS x, CASE WHEN value % 3 = 0 THEN NULL ELSE 'w' || value END AS s FROM range(10000)")
    return con


def test_row_by_row_functions_with_annotations_or_types(con):
    def shout(s: str) -> str:
        return s.upper() + "!"

    con.create_function("shout", shout)
    con.create_function("Plus", lambda a, b: a + b, ["BIGINT", "INTEGER"], "BIGINT")
    rows = con.sql("SELECT shout(s), plus(x, 1), PLUS(x, 2) FROM t WHERE x < 3 ORDER BY x").fetchall()
    assert rows == [(None, 1, 2), ("W1!", 2, 3), ("W2!", 3, 4)]  # NULL in, NULL out, without a call

    def describe(s):
        return "nothing" if s is None else s

    con.create_function("describe_it", describe, ["VARCHAR"], "VARCHAR", null_handling="special")
    assert con.sql("SELECT describe_it(s) FROM t WHERE x = 0").fetchall() == [("nothing",)]
    con.remove_function("shout")
    with pytest.raises(swingdb.ProgrammingError, match="shout"):
        con.sql("SELECT shout(s) FROM t")


def test_arrow_functions_get_batches_without_copies(con):
    seen = []

    def twice(x):
        seen.append(swingdb._swingdb.mapped_file(x.buffers()[1].address))
        return pc.multiply(x, 2)

    con.create_function("twice", twice, [pa.int64()], pa.int64(), type="arrow")
    assert con.sql("SELECT sum(twice(x)) FROM t").fetchall() == [(2 * sum(range(10000)),)]
    assert len(seen) < 10  # called per batch, not per row
    assert any(s is not None for s in seen)  # the arrays it got point into the stored segment


def test_side_effects_make_a_function_run_for_every_row(con):
    con.create_function("roll", lambda: random.random(), [], "DOUBLE", side_effects=True)
    values = [r[0] for r in con.sql("SELECT roll() FROM t WHERE x < 50").fetchall()]
    assert len(set(values)) == 50


def test_a_failing_function_is_an_error_that_names_it(con):
    con.create_function("boom", lambda a: 1 / 0, ["BIGINT"], "DOUBLE")
    with pytest.raises(swingdb.OperationalError, match=r"boom\(\) failed: ZeroDivisionError: division by zero"):
        con.sql("SELECT boom(x) FROM t").fetchall()
    con.create_function("wrong", lambda a: "text", ["BIGINT"], "BIGINT")
    with pytest.raises(swingdb.OperationalError, match=r"wrong\(\) failed"):
        con.sql("SELECT wrong(x) FROM t").fetchall()
    con.create_function("short", lambda a: pa.array([1]), ["BIGINT"], "BIGINT", type="arrow")
    with pytest.raises(swingdb.OperationalError, match="answered 1 values for"):
        con.sql("SELECT short(x) FROM t").fetchall()
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(10000,)]  # the connection goes on
    with pytest.raises(swingdb.ProgrammingError, match="unknown type 'WHATEVER'"):
        con.create_function("f", lambda a: a, ["WHATEVER"], "BIGINT")
    with pytest.raises(swingdb.ProgrammingError, match="annotate"):
        con.create_function("f", lambda a: a)
    with pytest.raises(swingdb.ProgrammingError, match="plain identifier"):
        con.create_function("f(); DROP TABLE t", lambda a: a, ["BIGINT"], "BIGINT")
