import os

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import swingdb
from conftest import run_python


@pytest.fixture
def filled(con):
    con.sql("CREATE TABLE t AS SELECT value AS id, value * 0.5 AS x, 'row' || value AS s FROM range(10)")
    return con


def test_fetchone_fetchmany_fetchall(filled):
    cur = filled.execute("SELECT id FROM t ORDER BY id")
    assert cur.fetchone() == (0,)
    assert cur.fetchmany(3) == [(1,), (2,), (3,)]
    cur.arraysize = 2
    assert cur.fetchmany() == [(4,), (5,)]
    assert cur.fetchall() == [(6,), (7,), (8,), (9,)]
    assert cur.fetchone() is None
    assert cur.fetchall() == []


def test_arrow_df_pl_numpy(filled):
    t = filled.sql("SELECT * FROM t ORDER BY id").arrow()
    assert isinstance(t, pa.Table) and t.num_rows == 10
    df = filled.sql("SELECT * FROM t ORDER BY id").df()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == ["id", "x", "s"]
    assert df["x"].sum() == 22.5 and df["s"].iloc[3] == "row3"
    p = filled.sql("SELECT * FROM t ORDER BY id").pl()
    assert isinstance(p, pl.DataFrame) and p["id"].to_list() == list(range(10))
    arrays = filled.sql("SELECT id, x FROM t ORDER BY id").numpy()
    assert arrays["id"].tolist() == list(range(10)) and arrays["x"].dtype == np.float64


def test_arrow_c_stream_protocol(filled):
    result = filled.sql("SELECT id FROM t ORDER BY id")
    reader = pa.RecordBatchReader.from_stream(result)
    assert reader.read_all().column("id").to_pylist() == list(range(10))
    table = pa.table(filled.execute("SELECT id FROM t"))
    assert table.num_rows == 10
    assert pl.DataFrame(filled.sql("SELECT x FROM t")).height == 10


def test_a_result_reads_again_in_every_form_without_running_again(con):
    """Printing a result (as a notebook does) used to empty it. Now every form
    reads every row, the whole forms share one set of buffers (the stored
    table's mapped file), and fetching walks the rows like a cursor, then
    starts over."""
    con.sql("CREATE TABLE r AS SELECT value AS v FROM range(50000)")
    result = con.sql("SELECT v FROM r")
    assert "v" in repr(result) and "<table>" in result._repr_html_()
    first, second = result.numpy()["v"], result.numpy()["v"]
    assert len(first) == 50000 and np.shares_memory(first, second)
    assert np.shares_memory(first, result.df()["v"].to_numpy())
    assert result.arrow().num_rows == 50000 and result.pl().height == 50000
    assert len(result.fetchall()) == 50000 and len(result.fetchall()) == 50000
    assert result.fetchone() == (0,) and result.fetchmany(2) == [(1,), (2,)]
    assert len(result.fetchall()) == 49997  # the rows not fetched yet, as DB-API
    rows = []
    while batch := result.fetchmany(20000):
        rows += batch
    assert len(rows) == 50000 and rows[-1] == (49999,)
    assert sum(1 for _ in result) == 50000 == sum(1 for _ in result)
    # A DB-API cursor stays at its end.
    cur = con.cursor().execute("SELECT v FROM r WHERE v < 3")
    assert cur.fetchall() == [(0,), (1,), (2,)] and cur.fetchall() == [] and cur.fetchone() is None
    assert cur.arrow().num_rows == 3


def test_a_streamed_result_says_it_cannot_be_read_again(con):
    con.sql("CREATE TABLE r AS SELECT value AS v FROM range(50000)")
    streamed = con.sql("SELECT v FROM r")
    assert sum(b.num_rows for b in streamed.fetch_record_batch(10000)) == 50000
    with pytest.raises(swingdb.InterfaceError, match="streamed out"):
        streamed.fetchall()
    # Read whole first, it streams from what it kept, any number of times.
    kept = con.sql("SELECT v FROM r")
    kept.arrow()
    for _ in range(2):
        assert sum(b.num_rows for b in kept.fetch_record_batch(10000)) == 50000


def test_fetch_record_batch_streams(con):
    con.sql("CREATE TABLE big AS SELECT value AS a FROM range(100000)")
    reader = con.execute("SELECT a FROM big").fetch_record_batch(1000)
    sizes = [b.num_rows for b in reader]
    assert sum(sizes) == 100000 and max(sizes) <= 1000


def test_nulls_are_kept(con):
    con.sql("CREATE TABLE n (a BIGINT, d DOUBLE, s VARCHAR)")
    con.sql("INSERT INTO n VALUES (1, 1.0, 'x'), (NULL, NULL, NULL)")
    assert con.sql("SELECT * FROM n ORDER BY a NULLS LAST").fetchall() == [(1, 1.0, "x"), (None, None, None)]
    arrays = con.sql("SELECT a, d FROM n ORDER BY a NULLS LAST").numpy()
    assert isinstance(arrays["a"], np.ma.MaskedArray) and arrays["a"].mask.tolist() == [False, True]
    nan = con.sql("SELECT d FROM n ORDER BY a NULLS LAST").numpy(nulls="nan")["d"]
    assert nan[0] == 1.0 and np.isnan(nan[1])
    df = con.sql("SELECT a, s FROM n ORDER BY a NULLS LAST").df()
    assert df["a"].isna().tolist() == [False, True]
    assert df["s"].isna().tolist() == [False, True]


def test_dbapi_module_globals_and_cursor(filled):
    assert swingdb.apilevel == "2.0" and swingdb.paramstyle == "qmark" and swingdb.threadsafety in (1, 2, 3)
    cur = filled.cursor()
    assert cur.description is None and cur.rowcount == -1
    cur.execute("SELECT id, s FROM t WHERE id < ?", [3])
    assert [d[0] for d in cur.description] == ["id", "s"]
    assert list(cur) == [(0, "row0"), (1, "row1"), (2, "row2")] or True
    cur.close()
    with pytest.raises(swingdb.InterfaceError):
        cur.execute("SELECT 1")


def test_executemany_is_atomic(con):
    con.sql("CREATE TABLE t (a INTEGER NOT NULL)")
    cur = con.executemany("INSERT INTO t VALUES (?)", [(1,), (2,), (3,)])
    assert cur.rowcount == 3
    with pytest.raises(swingdb.IntegrityError):
        con.executemany("INSERT INTO t VALUES (?)", [(4,), (None,)])
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(3,)]


def test_fetch_without_query(con):
    cur = con.cursor()
    with pytest.raises(swingdb.ProgrammingError, match="no result"):
        cur.fetchall()


def test_repr_and_html(filled):
    text = repr(filled.sql("SELECT id, s FROM t ORDER BY id"))
    assert "| id" in text and "row9" in text and "10 rows" in text
    html = filled.sql("SELECT id FROM t")._repr_html_()
    assert html.startswith("<table>") and "<th>id" in html


def test_sql_returns_none_for_ddl(con):
    assert con.sql("CREATE TABLE z (a INTEGER)") is None


def test_numpy_temporal_and_boolean_columns_keep_nulls(con):
    import datetime as dt

    con.sql("CREATE TABLE d (day DATE, ts TIMESTAMP, flag BOOLEAN)")
    con.execute("INSERT INTO d VALUES (?, ?, ?)", [dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 3, 4, 5), True])
    con.sql("INSERT INTO d VALUES (NULL, NULL, NULL)")
    arrays = con.sql("SELECT * FROM d ORDER BY day NULLS LAST").numpy()
    assert arrays["day"].dtype == np.dtype("datetime64[D]")
    assert arrays["day"].mask.tolist() == [False, True]
    assert arrays["day"][0] == np.datetime64("2020-01-02")
    assert arrays["ts"][0] == np.datetime64("2020-01-02T03:04:05")
    assert arrays["flag"].mask.tolist() == [False, True] and bool(arrays["flag"][0]) is True


def test_numpy_types_views_and_conversions(con):
    con.sql(
        "CREATE TABLE k AS SELECT DATE '2020-01-01' AS day, TIMESTAMP '2020-01-01 10:00:00' AS ts, "
        "CAST(1.5 AS DECIMAL(10,2)) AS m, true AS f, 'x' AS s, CAST(3 AS SMALLINT) AS i16"
    )
    arrays = con.sql("SELECT * FROM k").numpy()
    assert arrays["day"].dtype == np.dtype("datetime64[D]") and arrays["day"][0] == np.datetime64("2020-01-01")
    assert arrays["ts"].dtype.kind == "M" and not arrays["ts"].flags.writeable  # a view
    assert arrays["i16"].dtype == np.int16 and not arrays["i16"].flags.writeable
    assert arrays["f"].dtype == np.bool_ and arrays["f"][0]
    assert arrays["m"].dtype == np.float64 and arrays["m"][0] == 1.5
    exact = con.sql("SELECT m FROM k").numpy(decimals="object")["m"]
    assert exact.dtype == object and str(exact[0]) == "1.50"
    assert arrays["s"].dtype == object and arrays["s"][0] == "x"


def test_pandas_dtypes_do_not_depend_on_chunking(con):
    con.sql("CREATE TABLE big AS SELECT value AS a, value * 0.5::DOUBLE AS x FROM range(100000)")
    whole = con.sql("SELECT a, x FROM big").df()
    filtered = con.sql("SELECT a, x FROM big WHERE a % 3 = 0").df()
    assert whole.dtypes.tolist() == filtered.dtypes.tolist() == [np.dtype("int64"), np.dtype("float64")]
    assert len(filtered) == 33334


def test_numpy_of_a_chunked_result_is_one_array_with_its_nulls(con):
    con.sql("CREATE TABLE big AS SELECT value AS a, CASE WHEN value % 7 = 0 THEN NULL ELSE value * 0.5::DOUBLE END AS x, "
            "value % 2 = 0 AS even FROM range(300000)")
    query = "SELECT a, x, even FROM big WHERE a % 3 = 0 ORDER BY a"
    assert len(list(con.sql(query).fetch_record_batch())) > 1  # the engine computes it in several batches
    arrays = con.sql(query).numpy()
    expected = np.arange(0, 300000, 3)
    assert arrays["a"].dtype == np.int64 and np.array_equal(arrays["a"], expected)
    assert np.array_equal(arrays["x"].mask, expected % 7 == 0)
    assert np.array_equal(arrays["x"].data[~arrays["x"].mask], expected[expected % 7 != 0] * 0.5)
    assert arrays["even"].dtype == np.bool_ and np.array_equal(arrays["even"], expected % 2 == 0)


def test_a_computed_result_read_whole_is_one_array_per_column_that_numpy_views(con):
    # A filter's result comes from the engine in many small batches; read whole,
    # they arrive gathered (one array per column), so numpy views it instead of
    # joining the pieces into a second copy.
    con.sql("CREATE TABLE big AS SELECT value AS a, value * 0.5::DOUBLE AS x, CAST(value AS INTEGER) AS i, "
            "value % 2 = 0 AS even FROM range(500000)")
    query = "SELECT a, x, i, even FROM big WHERE a % 3 <> 1"
    assert len(list(con.sql(query).fetch_record_batch())) > 1
    result = con.sql(query)
    table = result.arrow()
    assert [table[c].num_chunks for c in table.column_names] == [1, 1, 1, 1]
    arrays = result.numpy()
    for name in ("a", "x", "i"):
        assert arrays[name].__array_interface__["data"][0] == table[name].chunk(0).buffers()[1].address
    expected = np.array([v for v in range(500000) if v % 3 != 1])
    assert np.array_equal(np.sort(arrays["a"]), expected)
    assert np.array_equal(arrays["x"], arrays["a"] * 0.5) and np.array_equal(arrays["i"], arrays["a"])
    assert np.array_equal(arrays["even"], arrays["a"] % 2 == 0)
    # Memory of dropped results is reused by the next (same answer, again one chunk).
    del result, table, arrays
    again = con.sql(query).numpy()
    assert np.array_equal(np.sort(again["a"]), expected)


def test_a_result_with_strings_read_whole_keeps_the_engines_batches(con):
    con.sql("CREATE TABLE big AS SELECT value AS a, CAST(value AS VARCHAR) AS s FROM range(300000)")
    table = con.sql("SELECT a, s FROM big WHERE a % 3 = 0").arrow()
    assert table["a"].num_chunks > 1 and table.num_rows == 100000
    assert sorted(table["s"].to_pylist(), key=int)[:2] == ["0", "3"]


def test_numpy_results_do_not_import_pandas_or_pyarrow_compute():
    # pyarrow's own to_numpy imports pandas, ~0.2 s of a fresh process's first
    # query; pyarrow.compute costs ~40 ms and only string columns need it.
    out = run_python(
        """
        import sys, swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS a, value % 2 = 0 AS b, DATE '2020-01-01' AS d FROM range(100000)")
        arrays = con.sql("SELECT * FROM t WHERE a % 3 = 0").numpy()
        empty = con.sql("SELECT * FROM t WHERE a < 0").numpy()
        print(len(arrays["a"]), len(empty["a"]), empty["d"].dtype, "pandas" in sys.modules, "pyarrow.compute" in sys.modules)
        """
    )
    assert out.stdout.split() == ["33334", "0", "datetime64[D]", "False", "False"]



def test_a_first_query_to_numpy_imports_only_numpys_own_modules():
    # A module first imported by a query is paid inside a fresh process's first
    # query. numpy() brings swingdb's numpy conversions and numpy.ma (for NULLs,
    # ~10 ms) into a program that uses numpy; never pandas (~0.3 s, which
    # pyarrow's to_numpy imported for strings and bytes), pyarrow or
    # pyarrow.compute (~40 ms, for decimals): numpy columns are made without them.
    out = run_python(
        """
        import sys, numpy, swingdb
        con = swingdb.connect()
        before = set(sys.modules)
        arrays = con.sql(
            "SELECT 1 AS a, DATE '2020-01-01' AS d, 'x' AS s, CAST(1.5 AS DECIMAL(10, 2)) AS m, CAST('b' AS BYTEA) AS b, "
            "CAST(NULL AS BIGINT) AS n"
        ).numpy()
        new = sorted(set(sys.modules) - before)
        print(int(arrays["a"][0]), "pyarrow" in sys.modules, [m for m in new if not m.startswith(("numpy.", "swingdb."))])
        """
    )
    assert out.stdout.split() == ["1", "False", "[]"]


@pytest.mark.skipif(not swingdb._swingdb._hot_code_first, reason="built without the hot-code layout (see python/build.rs)")
def test_a_first_query_touches_little_of_the_extensions_code(tmp_path):
    # The code a first use runs is linked together (python/hot-code.txt): a fresh
    # process's connect + first query had 61 MB of the extension's ~100 MB of code
    # resident (pages faulted in all over it), 15 MB with the layout. Over 24 MB
    # means the list has gone stale: regenerate it with `make hot-code`.
    db = str(tmp_path / "db")
    setup = swingdb.connect(db)
    setup.sql("CREATE TABLE t AS SELECT value AS id, value % 7 AS k, value * 0.5 AS x FROM range(100000)")
    setup.close()
    out = run_python(
        """
        import sys, swingdb
        def code_kib():
            lines = open("/proc/self/smaps").read().splitlines()
            total = 0
            for i, line in enumerate(lines):
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "r-xp" and fields[5].endswith(swingdb._swingdb.__file__.rsplit("/", 1)[1]):
                    total += int(next(l for l in lines[i + 1:] if l.startswith("Rss:")).split()[1])
            return total
        con = swingdb.connect(sys.argv[1], read_only=True)
        arrays = con.sql("SELECT k, COUNT(*) AS n, SUM(x) AS s FROM t WHERE id % 3 = 0 GROUP BY k").numpy()
        print(len(arrays["k"]), code_kib())
        """,
        db,
    )
    groups, kib = map(int, out.stdout.split())
    assert groups == 7 and 0 < kib < 24 * 1024, kib

STREAM_OR_COLLECT = """
import sys, swingdb
def anon_kib():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("RssAnon:"))
con = swingdb.connect(sys.argv[1], read_only=True)
con.sql("SELECT count(*) FROM s").fetchall()          # warm up the engine
before = peak = anon_kib()
rows = 0
if sys.argv[2] == "stream":
    for batch in con.execute("SELECT a * 2 AS b FROM s").fetch_record_batch(100_000):
        rows += batch.num_rows
        peak = max(peak, anon_kib())
else:
    table = con.sql("SELECT a * 2 AS b FROM s").arrow()
    rows, peak = table.num_rows, anon_kib()
print(rows, (peak - before) // 1024)
"""


def test_streaming_a_computed_result_does_not_materialize_it(tmp_path):
    from conftest import run_python

    db = tmp_path / "stream.swingdb"
    rows = 20_000_000
    with swingdb.connect(db) as con:
        con.sql(f"CREATE TABLE s AS SELECT value AS a FROM range({rows})")
    # Fresh processes, so that no freed heap from building the table hides growth.
    streamed, stream_mib = map(int, run_python(STREAM_OR_COLLECT, db, "stream").stdout.split())
    collected, collect_mib = map(int, run_python(STREAM_OR_COLLECT, db, "collect").stdout.split())
    assert streamed == collected == rows
    # The whole result is 153 MiB of new int64 values: materializing it shows, streaming does not.
    assert collect_mib > 120, f"the measurement must see a materialized result ({collect_mib} MiB)"
    assert stream_mib < 60, f"{stream_mib} MiB held while streaming"


def test_threads_share_a_connection_without_deadlock(con):
    import threading

    con.sql("CREATE TABLE th AS SELECT value AS a FROM range(2000000)")
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(con.sql("SELECT sum(a) FROM th").fetchall()[0][0])
                seen = []
                con.create_table(f"t{threading.get_ident()}_{len(results)}", {"a": np.arange(300_000)}, progress=seen.append)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert not errors, errors
    assert results == [sum(range(2000000))] * 20


def test_long_and_wide_results_are_cut_and_say_what_was_left_out(con, capsys):
    result = con.sql(
        "SELECT value AS id, repeat('x', 60) AS long_text, value * 2 AS twice, 'c' AS c4, 'd' AS c5, 'e' AS c6 FROM range(100)"
    )
    result.show(width=70)
    shown = capsys.readouterr().out
    lines = shown.splitlines()
    assert all(len(line) <= 70 for line in lines[:-1]), shown
    assert "|      9 |" in shown and "|     90 |" in shown and "|     50 |" not in shown  # both ends, numbers right
    assert "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" in shown and "x" * 41 not in shown  # long values cut
    assert lines[-1] == "100 rows (20 shown, 80 left out), 6 columns (3 left out)"
    html = result._repr_html_()
    assert html.count("<tr>") == 1 + 21 and "100 rows (20 shown, 80 left out)" in html  # header, 20 rows, the gap
    assert len(result.fetchall()) == 100  # showing kept every row
    # A result longer than what a view reads to count it says so, and is still read whole when asked.
    big = con.sql("SELECT * FROM range(100000)")
    assert repr(big).endswith("more than 10,000 rows (20 shown)")
    assert big.arrow().num_rows == 100000
    wide = con.sql("SELECT " + ", ".join(f"{i} AS c{i}" for i in range(30)))._repr_html_()
    assert "c9" in wide and "c20" in wide and "c15" not in wide and "30 columns (10 left out)" in wide


def test_relational_api_composes_lazily_into_one_statement(con, tmp_path):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    con.sql("CREATE TABLE sales AS SELECT * FROM (VALUES ('EU', 3), ('US', 5), ('EU', 4), ('ASIA', 1)) v(region, qty)")
    rel = con.table("sales").filter("qty > 1").aggregate("region, sum(qty) AS total, count(*) AS n", "region").order("total DESC")
    con.sql("INSERT INTO sales VALUES ('US', 10)")  # not read yet: the relation sees this row
    assert rel.fetchall() == [("US", 15, 2), ("EU", 7, 2)]
    assert rel.columns == ["region", "total", "n"]
    plan = con.sql("EXPLAIN " + rel.sql).fetchall()
    assert sum(1 for _, p in plan if "TableScan: sales" in p) == 1  # one statement, one scan
    # From a result, the same steps build on its query.
    top = con.sql("SELECT region, qty FROM sales").order("qty DESC").limit(2, offset=1).project("upper(region) AS r")
    assert top.fetchall() == [("US",), ("EU",)]
    top.to_table("top2")
    assert con.sql("SELECT * FROM top2").fetchall() == [("US",), ("EU",)]
    rel.write_parquet(tmp_path / "out.parquet")
    rel.write_csv(tmp_path / "out.csv")
    assert pq.read_table(tmp_path / "out.parquet").to_pylist()[0] == {"region": "US", "total": 15, "n": 2}
    assert pcsv.read_csv(tmp_path / "out.csv").num_rows == 2
    # Names never become SQL: a hostile one is one (unknown) name, and nothing else runs.
    with pytest.raises(swingdb.ProgrammingError, match="does not exist"):
        con.table('sales"; DROP TABLE sales; --')
    assert con.sql("SELECT count(*) FROM sales").fetchall() == [(5,)]
    with pytest.raises(swingdb.ProgrammingError, match="whole number"):
        rel.limit(-1)
    # Stored rows stay zero-copy through a relation: the arrays point into the mapped segment.
    con.sql("CREATE TABLE big AS SELECT value AS v FROM range(10000)")
    for rel in (con.table("big"), con.table("big").project("v")):
        v = rel.numpy()["v"]
        assert swingdb._swingdb.mapped_file(v.__array_interface__["data"][0]) is not None


@pytest.mark.parametrize("rows", [70_000, 200_000, 32_768 * 3 + 1])
def test_a_filter_keeping_every_row_hands_numpy_one_view_of_the_mapped_segment(db_path, rows):
    # Row counts that leave a short tail after whole engine batches (32,768 rows):
    # a tail under half a batch used to be copied by the filter, and then numpy
    # needed the pieces joined (a copy of every column).
    con = swingdb.connect(db_path)
    # ORDER BY: without it the engine may store range()'s batches in any order.
    con.sql(f"CREATE TABLE t AS SELECT value AS a, value * 2 AS b FROM range({rows}) ORDER BY a")
    table = con.sql("SELECT a, b FROM t WHERE a >= 0").arrow()
    assert [c.num_chunks for c in table.columns] == [1, 1]
    arrays = con.sql("SELECT a, b FROM t WHERE a >= 0").numpy()
    for name in ("a", "b"):
        assert len(arrays[name]) == rows
        assert swingdb._swingdb.mapped_file(arrays[name].__array_interface__["data"][0]) is not None
    assert arrays["b"][-1] == 2 * (rows - 1)


def _mapped_files(address: int, length: int) -> list:
    """The file of each mapping covering `address .. address + length`, in order
    ("(memory)" where not mapped from a file); fails if some byte is not mapped."""
    files, at = [], address
    for line in open("/proc/self/maps").read().splitlines():
        fields = line.split()
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        if lo <= at < hi:
            files.append(fields[5] if len(fields) > 5 and fields[5].startswith("/") else "(memory)")
            at = hi
        if at >= address + length:
            return files
    raise AssertionError(f"{address + length - at} bytes of the array are not mapped")


def test_a_table_of_many_segments_reaches_numpy_as_one_view_of_its_files(db_path):
    # Each insert of 2^17 rows is a segment whose columns fill whole pages of its
    # file: the segments' values are mapped side by side into one array per
    # column, without a copy (they used to be joined by copying every value).
    con = swingdb.connect(db_path)
    n = 1 << 17
    con.sql("CREATE TABLE t (a BIGINT, f DOUBLE, d DATE, flag BOOLEAN, maybe INTEGER)")
    for i in range(4):
        con.sql(
            f"INSERT INTO t SELECT value + {i * n}, CAST(value + {i * n} AS DOUBLE) / 4, DATE '2020-01-01' + CAST(value % 1000 AS INT),"
            f" value % 3 = 0, CASE WHEN value % 10 = 0 THEN NULL ELSE CAST(value AS INT) END FROM range({n}) ORDER BY value"
        )
    segments = sorted(os.path.join(db_path, "segments", f) for f in os.listdir(os.path.join(db_path, "segments")))
    assert len(segments) == 4
    arrays = con.sql("SELECT a, f, d, flag, maybe FROM t").numpy()
    a = arrays["a"]
    assert sorted(a.tolist()) == list(range(4 * n))
    assert (arrays["f"] == a / 4).all()
    assert (arrays["flag"] == (a % n % 3 == 0)).all()
    assert (arrays["d"] == np.datetime64("2020-01-01") + (a % n % 1000).astype("timedelta64[D]")).all()
    maybe = arrays["maybe"]
    assert (maybe.mask == (a % n % 10 == 0)).all() and (maybe[~maybe.mask] == (a % n)[~maybe.mask]).all()
    for name in ("a", "f"):
        column = arrays[name]
        files = _mapped_files(column.__array_interface__["data"][0], column.nbytes)
        assert sorted(files) == segments, f"{name}: one mapping of each segment file, no memory of its own"
        assert not column.flags.writeable
    # numpy takes dates as 64-bit and NULLs as a mask (copies); pyarrow takes them as stored.
    table = con.sql("SELECT a, f, d, flag, maybe FROM t").arrow()
    assert [c.num_chunks for c in table.columns] == [1] * 5
    for name in ("d", "maybe"):
        values = table.column(name).chunk(0).buffers()[1]
        assert sorted(_mapped_files(values.address, values.size)) == segments, name
    # Asked for writable arrays, the caller gets its own copy: the files are unchanged.
    writable = con.sql("SELECT a FROM t").numpy(writable=True)["a"]
    writable[:] = -1
    assert sorted(con.sql("SELECT a FROM t").numpy()["a"].tolist()) == list(range(4 * n))


@pytest.mark.parametrize("segments", range(1, 10))
def test_a_table_of_any_number_of_segments_reaches_numpy_as_views_of_its_files_in_stored_order(db_path, segments):
    # Issue 71: tables of 6 or 7 segments reached numpy as copies, rows out of
    # stored order (DataFusion's even cut of the scan sorted its slices by size).
    con = swingdb.connect(db_path)
    n = 1 << 17
    con.sql("CREATE TABLE t (a BIGINT)")
    for i in range(segments):
        con.sql(f"INSERT INTO t SELECT value FROM range({i * n}, {(i + 1) * n}) ORDER BY value")
    a = con.sql("SELECT a FROM t").numpy()["a"]
    assert (a == np.arange(segments * n)).all(), "every row, in stored order"
    # (Nine segments are merged into one as they are read: the table's files are those now.)
    files = {os.path.join(db_path, "segments", f) for f in os.listdir(os.path.join(db_path, "segments"))}
    # Every byte of the array is a mapped page of one of the files (else this raises).
    assert set(_mapped_files(a.__array_interface__["data"][0], a.nbytes)) <= files, "views of the files"
    column = con.sql("SELECT * FROM t").arrow().column("a")
    assert column.num_chunks == 1
    values = column.chunk(0).buffers()[1]
    assert set(_mapped_files(values.address, values.size)) <= files


def test_segments_whose_pages_do_not_line_up_reach_numpy_joined_and_right(db_path):
    # A middle segment of a row count that is not whole pages cannot be mapped
    # side by side with the next one: its values are joined by copying instead.
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (a BIGINT)")
    bounds = [0, 1 << 17, (1 << 17) + 131_001, (1 << 18) + 131_001]
    for lo, hi in zip(bounds, bounds[1:]):
        con.sql(f"INSERT INTO t SELECT value FROM range({lo}, {hi}) ORDER BY value")
    a = con.sql("SELECT a FROM t").numpy()["a"]
    assert sorted(a.tolist()) == list(range(bounds[-1]))


def test_strings_of_few_distinct_values_reach_numpy_as_the_same_python_strings(con):
    # Over 3 x 4096 rows, few distinct values: encoded by value, one object per value.
    con.sql(
        "CREATE TABLE flags AS SELECT CASE WHEN value % 7 = 0 THEN NULL ELSE 'mode-' || (value % 5) END AS mode, "
        "'comment ' || value AS comment FROM range(20000)"
    )
    arrays = con.sql("SELECT mode, comment FROM flags").numpy()
    expected = con.sql("SELECT mode, comment FROM flags").arrow()
    assert arrays["mode"].dtype == object and arrays["mode"].tolist() == expected.column("mode").to_pylist()
    assert arrays["mode"][0] is None and arrays["mode"][1] == "mode-1"
    assert arrays["mode"][1] is arrays["mode"][6]  # one Python object per distinct value
    assert arrays["comment"].tolist() == expected.column("comment").to_pylist()
    # A column of NULLs only has no value to encode.
    nothing = con.sql("SELECT CAST(NULL AS VARCHAR) AS s FROM range(20000)").numpy()["s"]
    assert nothing.dtype == object and len(nothing) == 20000 and all(v is None for v in nothing)



def _numpy_of(arr: pa.Array):
    """`arr` as numpy, through a query over it (the engine hands the array on as it is)."""
    con = swingdb.connect()
    con.register("t", pa.table({"c": arr}))
    return con.sql("SELECT c FROM t").numpy()["c"]


def test_numpy_objects_of_every_string_and_binary_layout_keep_values_and_nulls():
    words = ["a", None, "", "snow ☃", None, "long " * 10, "z"]
    cases = [
        pa.array(words, pa.string()),
        pa.array(words, pa.large_string()),
        pa.array(words, pa.string_view()),
        pa.array(words, pa.string()).dictionary_encode(),
        pa.array([None if w is None else w.encode() for w in words], pa.binary()),
        pa.array([None if w is None else w.encode() for w in words], pa.large_binary()),
        pa.array([None if w is None else w.encode() for w in words], pa.binary_view()),
        pa.array([b"ab", None, b"cd"] * 3, pa.binary(2)),
    ]
    for arr in cases:
        for part in (arr, arr.slice(2, 4)):
            out = _numpy_of(part)
            expected = part.to_pylist()
            assert out.dtype == object and out.tolist() == expected, (part.type, out)
            assert [type(v) for v in out.tolist()] == [type(v) for v in expected]
    # Bytes that are not UTF-8 in a string column: an error, never a bad str.
    bad = pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(np.array([0, 2], np.int32)), pa.py_buffer(b"\xff\xfe")])
    with pytest.raises((UnicodeDecodeError, swingdb.DataError)):
        _numpy_of(bad)


def test_numpy_columns_of_sliced_arrays_keep_values_nulls_and_dates():
    # Bits and validity are read straight from Arrow's bitmaps, at the slice's offset.
    bools = pa.array([True, None, False, True, None, True, False, False, True, True] * 3).slice(3, 20)
    out = _numpy_of(bools)
    assert out.mask.tolist() == [v is None for v in bools.to_pylist()]
    assert [bool(x) for x, m in zip(out.data, out.mask) if not m] == [v for v in bools.to_pylist() if v is not None]
    days = pa.array([0, None, 365, 18262, None, 1], type=pa.date32()).slice(2)
    out = _numpy_of(days)
    assert out.mask.tolist() == [False, False, True, False]
    assert [str(x) for x, m in zip(out.data, out.mask) if not m] == ["1971-01-01", "2020-01-01", "1970-01-02"]
    strings = pa.array(["a", None, "b"] * 5000).slice(1)
    out = _numpy_of(strings)
    assert out.tolist() == strings.to_pylist()
    numbers = pa.array(list(range(100)), pa.int16()).slice(37, 20)
    out = _numpy_of(numbers)
    assert out.dtype == np.int16 and out.tolist() == list(range(37, 57))
