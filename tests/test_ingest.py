"""Python data in: register (zero-copy), replacement scans, create_table / insert."""

import datetime as dt
import decimal

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest
import swingdb


def test_registered_numpy_data_is_queried_in_place(con):
    x = np.arange(1_000_000, dtype=np.int64)
    con.register("nums", {"x": x})
    out = con.sql("SELECT x FROM nums").numpy()["x"]
    # The result is the caller's own array: no copy on the way in or out.
    assert np.shares_memory(out, x)
    assert con.sql("SELECT sum(x) FROM nums").fetchall() == [(int(x.sum()),)]


@pytest.mark.parametrize(
    "make",
    [
        lambda: pd.DataFrame({"a": [1, 2, 3], "s": ["x", "y", None]}),
        lambda: {"a": np.array([1, 2, 3]), "s": np.array(["x", "y", None], dtype=object)},
        lambda: np.array([(1, b"x"), (2, b"y"), (3, b"z")], dtype=[("a", "i8"), ("s", "S1")]),
        lambda: pa.table({"a": [1, 2, 3], "s": ["x", "y", None]}),
        lambda: pa.record_batch({"a": [1, 2, 3], "s": ["x", "y", None]}),
        lambda: pa.table({"a": [1, 2, 3]}).to_reader(),
        lambda: ds.dataset(pa.table({"a": [1, 2, 3]})),
        lambda: pl.DataFrame({"a": [1, 2, 3], "s": ["x", "y", None]}),
        lambda: pl.DataFrame({"a": [1, 2, 3]}).lazy(),
    ],
    ids=["pandas", "dict", "structured", "table", "batch", "reader", "dataset", "polars", "lazyframe"],
)
def test_register_every_kind_of_data(con, make):
    con.register("d", make())
    assert con.sql("SELECT sum(a) FROM d").fetchall() == [(6,)]
    con.unregister("d")
    with pytest.raises(swingdb.ProgrammingError, match="table 'd' does not exist"):
        con.sql("SELECT * FROM d")


def test_unregister_unknown_name(con):
    with pytest.raises(swingdb.ProgrammingError, match="nothing is registered as 'ghost'"):
        con.unregister("ghost")


def test_replacement_scan_finds_local_and_global_variables(con):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    assert con.sql("SELECT avg(x) FROM frame").fetchall() == [(2.0,)]
    assert con.execute("SELECT count(*) FROM frame WHERE x > ?", [1.5]).fetchall() == [(2,)]
    # Nothing stays registered afterwards.
    del frame
    with pytest.raises(swingdb.ProgrammingError, match="frame"):
        con.sql("SELECT * FROM frame")


def test_replacement_scan_of_unsupported_object_names_it(con):
    not_data = object()  # noqa: F841 (looked up by name)
    with pytest.raises(swingdb.ProgrammingError, match="'not_data' is a builtins.object"):
        con.sql("SELECT * FROM not_data")


def test_create_table_and_insert_persist(db_path):
    df = pd.DataFrame({"id": np.arange(5), "name": list("abcde")})
    with swingdb.connect(db_path) as con:
        con.create_table("people", df)
        assert con.insert("people", df) == 5
    with swingdb.connect(db_path) as con:
        assert con.sql("SELECT count(*), sum(id) FROM people").fetchall() == [(10, 20)]
        con.sql("CREATE TABLE copy AS SELECT * FROM df")  # replacement scan inside DDL
        assert con.sql("SELECT count(*) FROM copy").fetchall() == [(5,)]


def test_decimals_of_64_and_32_bits_are_stored_in_128_and_sum_exactly(con):
    big = decimal.Decimal("9999999999999999.00")
    data = pa.table({"d64": pa.array([big] * 20, pa.decimal64(18, 2)), "d32": pa.array([decimal.Decimal("1.5")] * 20, pa.decimal32(9, 1))})
    con.create_table("money", data)
    assert con.insert("money", data) == 20
    con.sql("CREATE TABLE money2 AS SELECT * FROM data")
    for table in ("money", "money2"):
        stored = con.sql(f"SELECT * FROM {table}").arrow().schema
        assert stored.field("d64").type == pa.decimal128(18, 2) and stored.field("d32").type == pa.decimal128(9, 1)
    assert con.sql("SELECT sum(d64), sum(d32) FROM money").fetchall() == [(big * 40, decimal.Decimal("60.0"))]


def test_pandas_types_are_mapped(con):
    df = pd.DataFrame(
        {
            "s": pd.Series(["a", None, "c"], dtype=object),
            "n": pd.array([1, None, 3], dtype="Int64"),
            "cat": pd.Categorical(["x", "y", "x"]),
            "ts": pd.to_datetime(["2024-01-01 10:00", "2024-01-02 11:00", None]).tz_localize("Europe/Amsterdam"),
        }
    )
    con.create_table("typed", df)
    schema = con.sql("SELECT * FROM typed").arrow().schema
    assert schema.field("s").type == pa.string()
    assert schema.field("n").type == pa.int64()
    assert pa.types.is_dictionary(schema.field("cat").type)
    assert schema.field("ts").type.tz == "Europe/Amsterdam"
    assert con.sql("SELECT count(n), count(s), count(ts) FROM typed").fetchall() == [(2, 2, 2)]
    back = con.sql("SELECT ts FROM typed").fetchall()
    assert back[0][0] == dt.datetime(2024, 1, 1, 9, 0, tzinfo=dt.timezone.utc) or back[0][0].utcoffset() is not None


def test_mixed_object_column_is_a_clear_error(con):
    bad = pd.DataFrame({"mixed": [1, "x", 2.5]})
    with pytest.raises(swingdb.DataError, match="column mixed"):
        con.create_table("t", bad)
    assert con.table_names() == []


def test_load_reports_progress(con):
    seen = []
    con.create_table("t", {"a": np.arange(100_000)}, progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == 100_000


def test_progress_bar_draws_on_request(con, capsys):
    con.create_table("t", {"a": np.arange(50_000)}, progress=True)
    err = capsys.readouterr().err
    assert "loading t" in err and "100%" in err and "50,000/50,000 rows" in err


def test_failing_progress_callback_does_not_fail_the_load(con):
    def broken(rows):
        raise RuntimeError("display went away")

    con.create_table("t", {"a": np.arange(10)}, progress=broken)
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(10,)]


def test_storing_registered_data_makes_no_intermediate_copy(tmp_path):
    import threading
    import time

    def anon_mib():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("RssAnon:")) / 1024

    x = np.arange(40_000_000, dtype=np.int64)  # 305 MiB
    con = swingdb.connect(tmp_path / "nocopy.swingdb")
    before, peak, done = anon_mib(), [0.0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], anon_mib())
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        con.create_table("t", {"x": x})
    finally:
        done.set()
        sampler.join()
    assert con.sql("SELECT count(*), max(x) FROM t").fetchall() == [(40_000_000, 39_999_999)]
    # A copy of the column on its way to the file would add ~305 MiB.
    assert peak[0] - before < 100, f"{peak[0] - before:.0f} MiB of private memory while storing 305 MiB"
