"""The Python API a DuckDB user reaches for: DuckDB's fetch names, relations
from DataFrames, Arrow data and files that chain, joins and set operations,
SQL type names, module-level readers; each checked against DuckDB where it
has the same call."""

import gc
import json

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import swingdb


@pytest.fixture
def pair():
    """The same two tables in swingdb and DuckDB."""
    ours, theirs = swingdb.connect(), duckdb.connect()
    for c in (ours, theirs):
        c.execute("CREATE TABLE orders (id INTEGER, customer INTEGER, amount DOUBLE)")
        c.execute("INSERT INTO orders VALUES (1, 10, 5.0), (2, 10, 7.5), (3, 20, 1.0), (4, 30, 2.0), (5, NULL, 9.0)")
        c.execute("CREATE TABLE customers (customer INTEGER, name VARCHAR)")
        c.execute("INSERT INTO customers VALUES (10, 'ann'), (20, 'bob'), (40, 'cy')")
    yield ours, theirs
    ours.close()
    theirs.close()


def test_duckdb_fetch_names(con):
    result = con.sql("SELECT value AS v, value * 0.5 AS h FROM range(4)")
    arrays = result.fetchnumpy()
    assert list(arrays) == ["v", "h"] and arrays["v"].tolist() == [0, 1, 2, 3]
    assert result.fetchdf()["h"].tolist() == [0.0, 0.5, 1.0, 1.5]
    assert result.fetch_df().shape == (4, 2)
    assert result.fetch_arrow_table().equals(result.arrow())
    cur = con.execute("SELECT 1 AS a")
    assert cur.fetchnumpy()["a"].tolist() == [1] and cur.fetchdf()["a"].tolist() == [1]
    assert cur.fetch_arrow_table().to_pylist() == [{"a": 1}]


def test_types_are_sql_names(pair):
    ours, theirs = pair
    rel = ours.table("orders")
    assert rel.types == ["INTEGER", "INTEGER", "DOUBLE"] == [str(t) for t in theirs.table("orders").types]
    assert repr(rel.types) == "[INTEGER, INTEGER, DOUBLE]" == repr(theirs.table("orders").types)
    assert rel.dtypes == rel.types
    assert rel.schema.types == [pa.int32(), pa.int32(), pa.float64()]


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer", "semi", "anti"])
def test_joins_on_column_names_answer_as_duckdb(pair, how):
    ours, theirs = pair
    got = ours.table("orders").join(ours.table("customers"), "customer", how=how)
    expected = theirs.table("orders").join(theirs.table("customers"), "customer", how=how)
    assert got.columns == expected.columns
    key = lambda row: tuple((v is None, v if v is not None else 0) for v in row)  # noqa: E731
    assert sorted(got.fetchall(), key=key) == sorted(expected.fetchall(), key=key)


def test_join_conditions_use_aliases_and_chain(pair):
    ours, theirs = pair
    def chain(c):
        o, cu = c.table("orders").set_alias("o"), c.table("customers").set_alias("c")
        return o.join(cu, "o.customer = c.customer AND o.amount > 1", how="left").project("o.id, c.name").order("id")
    assert chain(ours).fetchall() == chain(theirs).fetchall() == [(1, "ann"), (2, "ann"), (3, None), (4, None), (5, None)]
    # con.table's alias is the table's name, as in DuckDB.
    assert ours.table("orders").alias == "orders"
    joined = ours.table("orders").join(ours.table("customers"), "orders.customer = customers.customer").project("id, name")
    assert sorted(joined.fetchall()) == [(1, "ann"), (2, "ann"), (3, "bob")]
    cross = ours.table("customers").join(ours.table("orders").set_alias("x"), how="cross").aggregate("count(*)")
    assert cross.fetchall() == [(15,)]


def test_join_mistakes_are_clear_errors(pair):
    ours, _ = pair
    orders = ours.table("orders")
    with pytest.raises(swingdb.ProgrammingError, match="unknown how='sideways'"):
        orders.join(ours.table("customers"), "customer", how="sideways")
    with pytest.raises(swingdb.ProgrammingError, match="both relations are called 'orders'"):
        orders.join(ours.table("orders"), "id")
    with pytest.raises(swingdb.ProgrammingError, match="needs a condition"):
        orders.join(ours.table("customers"))
    with pytest.raises(swingdb.ProgrammingError, match="same connection"):
        orders.join(swingdb.connect().sql("SELECT 10 AS customer"), "customer")
    with pytest.raises(swingdb.ProgrammingError, match="expected a relation"):
        orders.union("SELECT 1")


def test_set_operations_keep_duplicates_as_duckdb(pair):
    ours, theirs = pair
    for c in (ours, theirs):
        c.execute("CREATE TABLE dup AS SELECT * FROM (VALUES (1), (1), (2), (3)) v(x)")
    for op in ("union", "except_", "intersect"):
        def run(c):
            dup = c.table("dup")
            return sorted(getattr(dup, op)(dup.filter("x < 3").limit(2)).fetchall())  # noqa: B023 (called at once)
        assert run(ours) == run(theirs), op
    assert sorted(ours.table("dup").distinct().fetchall()) == [(1,), (2,), (3,)]
    assert ours.table("dup").union(ours.table("dup")).distinct().aggregate("count(*)").fetchall() == [(3,)]


def test_relations_from_dataframes_and_arrow_are_lazy_and_zero_copy(con):
    df = pd.DataFrame({"k": np.arange(1000, dtype=np.int64), "g": np.arange(1000) % 3})
    rel = con.from_df(df)
    got = rel.filter("g = 1").aggregate("count(*) AS n, sum(k) AS s").fetchall()
    assert got == [(333, int(df[df.g == 1].k.sum()))]
    whole = rel.arrow()
    assert np.shares_memory(whole.column("k").chunk(0).to_numpy(), df["k"].to_numpy())
    table = pa.table({"a": [3, 1, 2]})
    assert con.from_arrow(table).order("a").fetchall() == [(1,), (2,), (3,)]
    # The registration lives as long as a relation built on it, and no longer.
    derived = con.from_arrow(table).filter("a > 1")
    gc.collect()
    assert sorted(derived.fetchall()) == [(2,), (3,)]
    (registration,) = derived._keep
    name = registration.name
    assert name not in con.table_names()  # registered, not stored
    del derived, registration
    gc.collect()
    with pytest.raises(swingdb.ProgrammingError, match="nothing is registered"):
        con.unregister(name)  # gone with the last relation on it


def test_file_relations_chain_and_match_duckdb(con, tmp_path):
    csv = tmp_path / "prices.csv"
    csv.write_text("item;price;day\nA;1.5;2024-01-02\nB;NA;2024-01-03\nA;2.5;2024-01-04\n")
    rel = con.read_csv(csv, delim=";", nullstr="NA")
    assert rel.types == ["VARCHAR", "DOUBLE", "DATE"]
    by_item = rel.aggregate("item, avg(price) AS p", "item").order("item")
    theirs = duckdb.read_csv(str(csv), delimiter=";", na_values="NA").aggregate("item, avg(price) AS p", "item").order("item")
    assert by_item.fetchall() == theirs.fetchall() == [("A", 2.0), ("B", None)]
    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "x.parquet")
    assert con.read_parquet(tmp_path / "x.parquet").filter("x >= 2").fetchall() == [(2,), (3,)]
    (tmp_path / "rows.json").write_text("\n".join(json.dumps({"a": i, "b": f"s{i}"}) for i in range(3)))
    assert con.read_json(tmp_path / "rows.json").project("b").order("b DESC").limit(1).fetchall() == [("s2",)]
    # A file read again by each query: it is the file's rows now, not when the relation was made.
    csv.write_text("item;price;day\nC;9;2024-02-01\n")
    assert rel.project("item").fetchall() == [("C",)]
    # The path is never SQL: a name of any shape is a name.
    odd = tmp_path / "it's; DROP TABLE x.csv"
    odd.write_text("a\n1\n")
    assert con.read_csv(odd).fetchall() == [(1,)]
    with pytest.raises(swingdb.Error, match="nothing.csv|No files found|not found|does not exist"):
        con.read_csv(tmp_path / "nothing.csv")


def test_module_level_readers_use_the_default_connection(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    assert swingdb.read_csv(path).filter("a > 1").fetchall() == [(2, "y")]
    assert swingdb.from_df(pd.DataFrame({"z": [5, 6]})).aggregate("sum(z)").fetchall() == [(11,)]
    assert swingdb.from_arrow(pa.table({"q": ["a"]})).fetchall() == [("a",)]


def test_results_of_sql_compose_like_relations(con):
    base = con.sql("SELECT value AS v FROM range(6)")
    assert base.filter("v % 2 = 0").union(base.filter("v = 5")).order("v").fetchall() == [(0,), (2,), (4,), (5,)]
    evens = con.sql("SELECT value AS v FROM range(6) WHERE value % 2 = $1", [0])
    assert sorted(evens.join(base.set_alias("b"), "v").fetchall()) == [(0,), (2,), (4,)]
    with pytest.raises(swingdb.ProgrammingError, match="both relations have parameters"):
        evens.union(con.sql("SELECT ? AS v", [1]))


def test_type_stubs_cover_the_native_module_and_ship_with_the_package():
    import ast
    import os

    from swingdb import _swingdb

    package = os.path.dirname(swingdb.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    tree = ast.parse(open(os.path.join(package, "_swingdb.pyi")).read())
    stubbed = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            stubbed[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            stubbed[node.name] = None
        elif isinstance(node, ast.AnnAssign):
            stubbed[node.target.id] = None
    # Module dunders are Python's own, except the version the extension sets.
    native = {name for name in dir(_swingdb) if not name.startswith("__") or name == "__version__"}
    assert native == set(stubbed), f"missing stubs: {native - set(stubbed)}; stale: {set(stubbed) - native}"
    for cls, methods in stubbed.items():
        if methods:
            public = {m for m in dir(getattr(_swingdb, cls)) if not m.startswith("_") or m.startswith(("__arrow", "__array"))}
            assert public <= methods | {"__init__"}, f"{cls}: unstubbed {public - methods}"
            assert methods - {"__init__"} <= public, f"{cls}: stale {methods - public}"
