"""ENUM columns beyond SQL (tests/sql/enum_types.slt has that): they reach
pyarrow as ordered dictionaries over the labels in declaration order, pandas
as an ordered Categorical whose codes are the stored keys (a view of the
segment file for a result of one piece), polars as an Enum; they are kept
by the database's files (another process, a reopened database and a
snapshot read the type from the schema), and data of other category orders
is stored by label."""

import os
import subprocess
import sys

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import swingdb

LABELS = ["sad", "ok", "happy"]


def _moods(con, rows=20000):
    con.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    con.execute("CREATE TABLE t (id INTEGER, m mood NOT NULL)")
    con.execute(
        f"INSERT INTO t SELECT value, CASE value % 3 WHEN 0 THEN 'happy' WHEN 1 THEN 'sad' ELSE 'ok' END FROM range({rows})"
    )


def test_pyarrow_gets_an_ordered_dictionary_of_the_labels(tmp_path):
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con)
    column = con.sql("SELECT m FROM t ORDER BY id").arrow().column("m")
    assert column.type == pa.dictionary(pa.int8(), pa.string(), ordered=True)
    for chunk in column.chunks:
        assert chunk.dictionary.to_pylist() == LABELS
    assert column.to_pylist()[:4] == ["happy", "sad", "ok", "happy"]


def test_pandas_gets_an_ordered_categorical_whose_codes_are_the_stored_keys(tmp_path):
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con)
    moods = con.sql("SELECT m FROM t").df()["m"]
    assert isinstance(moods.dtype, pd.CategoricalDtype) and moods.cat.ordered
    assert list(moods.cat.categories) == LABELS
    assert moods.iloc[:3].tolist() == ["happy", "sad", "ok"]
    assert (moods.iloc[:3] < "happy").tolist() == [False, True, True], "pandas compares in the order declared"
    # Without NULLs, in one segment, the codes are the file's keys: no copy.
    codes = moods.array.codes
    assert swingdb._swingdb.mapped_file(codes.__array_interface__["data"][0]) is not None


def test_polars_gets_an_enum_of_the_labels(tmp_path):
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con, rows=6)
    frame = con.sql("SELECT id, m FROM t ORDER BY m, id").pl()
    assert frame.schema["m"] == pl.Enum(LABELS)
    assert frame["m"].to_list() == ["sad", "sad", "ok", "ok", "happy", "happy"]
    assert frame.sort("m", "id")["id"].to_list() == frame["id"].to_list(), "polars sorts in the order declared"


def test_data_in_another_category_order_is_stored_by_label(tmp_path):
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con, rows=0)
    other = pd.Categorical(["ok", "happy", "sad"], categories=["happy", "ok", "sad"])
    con.register("incoming", pd.DataFrame({"id": [1, 2, 3], "m": other}))
    con.execute("INSERT INTO t SELECT id, m FROM incoming")
    assert con.sql("SELECT id FROM t ORDER BY m").fetchall() == [(3,), (1,), (2,)]
    with pytest.raises(swingdb.DataError, match="'meh' is not a value of ENUM type mood"):
        con.execute("INSERT INTO t VALUES (4, 'meh')")
    assert con.sql("SELECT count(*) FROM t").fetchone() == (3,)


def test_the_type_and_its_order_outlive_the_process_and_reach_snapshots(tmp_path):
    path = str(tmp_path / "db.swingdb")
    con = swingdb.connect(path)
    _moods(con, rows=6)
    con.close()
    # Another process opens the database and orders by the declared labels.
    script = (
        "import swingdb, sys; con = swingdb.connect(sys.argv[1]);"
        "print(con.sql('SELECT m FROM t ORDER BY m DESC').fetchall());"
        "print(con.sql('SELECT max(m), min(m) FROM t').fetchall())"
    )
    out = subprocess.run([sys.executable, "-c", script, path], check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == [
        str([("happy",), ("happy",), ("ok",), ("ok",), ("sad",), ("sad",)]),
        str([("happy", "sad")]),
    ]
    con = swingdb.connect(path)
    with pytest.raises(swingdb.ProgrammingError, match="table 't'"):
        con.execute("DROP TYPE mood")
    name = f"moods-{os.getpid()}"
    con.share(name)
    shared = swingdb.attach(name)
    assert shared.sql("SELECT m FROM t ORDER BY m LIMIT 1").fetchall() == [("sad",)]
    assert shared.sql("SELECT enum_range(m) FROM t LIMIT 1").fetchall() == [(LABELS,)]
    shared.close()
    con.close()


def test_export_and_import_keep_the_type(tmp_path):
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con, rows=6)
    con.execute(f"EXPORT DATABASE '{tmp_path / 'out'}'")
    schema = (tmp_path / "out" / "schema.sql").read_text()
    assert "CREATE TYPE \"mood\" AS ENUM('sad', 'ok', 'happy');" in schema and '"m" "mood" NOT NULL' in schema
    again = swingdb.connect(str(tmp_path / "again.swingdb"))
    again.execute(f"IMPORT DATABASE '{tmp_path / 'out'}'")
    assert again.sql("SELECT m FROM t ORDER BY m DESC LIMIT 1").fetchall() == [("happy",)]
    assert again.sql("DESCRIBE t").fetchall()[1][1] == "ENUM('sad', 'ok', 'happy')"


def test_random_enum_queries_agree_with_duckdb(tmp_path):
    """Orders, comparisons and extremes of ENUM values over several segments
    (each insert its own dictionary on disk) and NULLs, asked of both engines."""
    import random

    import duckdb

    rng = random.Random(76)
    labels = [f"l{rng.randrange(1000):03d}" for _ in range(40)]
    labels = list(dict.fromkeys(labels))  # unique, in a random (not text) order
    declared = ", ".join(f"'{label}'" for label in labels)
    ours, theirs = swingdb.connect(str(tmp_path / "db.swingdb")), duckdb.connect()
    for con in (ours, theirs):
        con.execute(f"CREATE TYPE e AS ENUM ({declared})")
        con.execute("CREATE TABLE r (id INTEGER, g INTEGER, v e, w e)")
    for batch in range(4):
        rows = [
            (batch * 1000 + i, rng.randrange(7), rng.choice(labels + [None]), rng.choice(labels))
            for i in range(rng.randrange(1, 1000))
        ]
        values = ", ".join(f"({i}, {g}, {'NULL' if v is None else repr(v)}, {w!r})" for i, g, v, w in rows)
        for con in (ours, theirs):
            con.execute(f"INSERT INTO r VALUES {values}")
    queries = []
    for _ in range(30):
        a, b = rng.choice(labels), rng.choice(labels)
        queries += [
            "SELECT id, v FROM r ORDER BY v NULLS LAST, id",
            "SELECT id FROM r ORDER BY w DESC, v NULLS FIRST, id LIMIT 50",
            "SELECT g, min(v), max(v), min(w), max(w), count(v) FROM r GROUP BY g ORDER BY g",
            f"SELECT id FROM r WHERE v < '{a}'::e ORDER BY id",
            f"SELECT id FROM r WHERE v BETWEEN '{a}'::e AND '{b}'::e ORDER BY id",
            "SELECT id FROM r WHERE v >= w ORDER BY id",
            f"SELECT count(*) FROM r WHERE v > '{a}'",
            "SELECT id, row_number() OVER (PARTITION BY g ORDER BY v NULLS LAST, id) FROM r ORDER BY id",
            "SELECT v, count(*) FROM r GROUP BY v ORDER BY v NULLS LAST",
            "SELECT enum_code(v), v::VARCHAR FROM r ORDER BY id LIMIT 20",
        ]
    for query in dict.fromkeys(queries):
        assert ours.execute(query).fetchall() == theirs.execute(query).fetchall(), query


def test_values_lists_longer_than_the_keys_address_are_fine(tmp_path):
    # DataFusion made one dictionary entry per VALUES row: 128 rows of an ENUM
    # with 8-bit keys failed, inserted or queried.
    con = swingdb.connect(str(tmp_path / "db.swingdb"))
    _moods(con, rows=0)
    rows = ", ".join(f"({i}, '{LABELS[i % 3]}')" for i in range(1000))
    con.execute(f"INSERT INTO t VALUES {rows}")
    assert con.sql("SELECT m, count(*) FROM t GROUP BY m ORDER BY m").fetchall() == [
        ("sad", 334),
        ("ok", 333),
        ("happy", 333),
    ]
    cast = ", ".join(f"('{LABELS[i % 3]}'::mood)" for i in range(300))
    assert con.sql(f"SELECT max(column1), count(*) FROM (VALUES {cast})").fetchall() == [("happy", 300)]


def test_an_ordered_categorical_from_pandas_comes_back_as_one():
    con = swingdb.connect()
    con.register("d", pd.DataFrame({"c": pd.Categorical(["b", "a", "b"], categories=["b", "a"], ordered=True)}))
    back = con.sql("SELECT c FROM d").df()["c"]
    assert back.cat.ordered and list(back.cat.categories) == ["b", "a"] and back.tolist() == ["b", "a", "b"]
    # Two pieces whose dictionaries the engine may join or repeat: still read, never refused.
    assert con.sql("SELECT c FROM d UNION ALL SELECT c FROM d").df()["c"].tolist() == ["b", "a", "b"] * 2
