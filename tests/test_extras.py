"""swingdb needs no Python package: connecting, querying, Python rows and the
display work without any; numpy() needs numpy only, and arrow() / df() / pl()
name the extra that installs what they need. Each test runs a fresh process in
which the packages it leaves out cannot be imported (as in a venv without them)."""

from conftest import run_python

# Makes the named packages impossible to import, as if they were not installed.
_WITHOUT = """
import sys
for name in {names!r}:
    sys.modules[name] = None
"""


def _run_without(names: list[str], code: str, *args):
    return run_python(_WITHOUT.format(names=names) + code, *args)


def test_without_pyarrow_pandas_polars_queries_reach_python_rows_and_numpy_views_of_the_files(tmp_path):
    out = _run_without(
        ["pyarrow", "pandas", "polars"],
        """
import datetime as dt, decimal, sys
import numpy as np
import swingdb

con = swingdb.connect(sys.argv[1])
con.sql("CREATE TABLE t AS SELECT value AS a, value * 0.5::DOUBLE AS b, 'row ' || value AS s FROM range(200000)")
assert con.sql("SELECT a, s FROM t ORDER BY a LIMIT 2").fetchall() == [(0, "row 0"), (1, "row 1")]
cur = con.execute("SELECT DATE '2024-02-29', CAST(1.25 AS DECIMAL(5, 2)), NULL, [1, 2]")
assert cur.fetchone() == (dt.date(2024, 2, 29), decimal.Decimal("1.25"), None, [1, 2])
assert [d[1] for d in cur.description][:2] == ["DATE", "DECIMAL(5,2)"]

# numpy gets read-only views of the segment file itself.
arrays = con.sql("SELECT a, b FROM t").numpy()
for name, column in arrays.items():
    assert swingdb._swingdb.mapped_file(column.__array_interface__["data"][0]) is not None, name
    assert not column.flags.writeable
assert arrays["a"].sum() == sum(range(200000))
assert con.sql("SELECT a FROM t WHERE a % 7 = 0 OR a IS NULL").numpy()["a"].dtype == np.int64

# The display needs nothing either.
text = repr(con.sql("SELECT a, s FROM t WHERE a < 50 ORDER BY a"))
assert "| BIGINT" in text and "row 49" in text and "50 rows (20 shown, 30 left out)" in text, text
assert "<table>" in con.sql("SELECT 1 AS x")._repr_html_()

# The forms that need a package say which extra brings it.
for call, extra in [
    (lambda: con.sql("SELECT 1").arrow(), "swingdb[pyarrow]"),
    (lambda: con.sql("SELECT 1").df(), "swingdb[pandas]"),
    (lambda: con.sql("SELECT 1").pl(), "swingdb[polars]"),
    (lambda: con.sql("SELECT 1").fetch_record_batch(), "swingdb[pyarrow]"),
    (lambda: con.create_function("f", lambda x: x, ["BIGINT"], "BIGINT"), "swingdb[pyarrow]"),
    (lambda: con.register("d", {"x": np.arange(3)}), "swingdb[pyarrow]"),
]:
    try:
        call()
    except swingdb.InterfaceError as error:
        assert isinstance(error, ImportError) and extra in str(error), error
    else:
        raise AssertionError(f"no error where {extra} is needed")
print("pyarrow" in sys.modules and sys.modules["pyarrow"] is not None, "pandas" in sys.modules and sys.modules["pandas"] is not None)
""",
        tmp_path / "db",
    )
    assert out.stdout.split() == ["False", "False"]


def test_without_any_package_rows_and_the_display_work_and_numpy_names_its_extra():
    out = _run_without(
        ["numpy", "pyarrow", "pandas", "polars"],
        """
import swingdb

con = swingdb.connect()
con.sql("CREATE TABLE t (id BIGINT, name VARCHAR)")
con.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, None)])
assert con.sql("SELECT * FROM t ORDER BY id").fetchall() == [(1, "a"), (2, None)]
assert "NULL" in repr(con.sql("SELECT * FROM t"))
try:
    con.sql("SELECT * FROM t").numpy()
except ImportError as error:
    assert "swingdb[numpy]" in str(error), error
else:
    raise AssertionError("numpy() worked without numpy")
print("ok")
""",
    )
    assert out.stdout.split() == ["ok"]


def test_import_swingdb_imports_no_optional_package():
    out = run_python(
        """
        import sys, swingdb
        print(sorted(m for m in ("numpy", "pyarrow", "pandas", "polars") if m in sys.modules))
        """
    )
    assert out.stdout.strip() == "[]"


def test_without_pyarrow_polars_gets_views_of_the_files(tmp_path):
    out = _run_without(
        ["pyarrow", "pandas"],
        """
import sys
import swingdb

con = swingdb.connect(sys.argv[1])
con.sql("CREATE TABLE t AS SELECT value AS a, value * 0.5::DOUBLE AS b FROM range(200000)")
frame = con.sql("SELECT a, b FROM t").pl()
assert frame.height == 200000 and frame["a"].sum() == sum(range(200000))
for name in ("a", "b"):
    view = frame[name].to_numpy(allow_copy=False)  # raises where polars holds a copy of its own
    assert swingdb._swingdb.mapped_file(view.__array_interface__["data"][0]) is not None, name
print("ok")
""",
        tmp_path / "db",
    )
    assert out.stdout.split() == ["ok"]
