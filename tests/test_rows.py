"""Python rows are made by the extension from the Arrow buffers (no pyarrow):
compared value by value, and type by type, with what pyarrow's to_pylist gives
for the same arrays, over every Arrow type a result can hold, with NULLs, at
an offset (sliced arrays) and across batches."""

import datetime as dt
import decimal

import pyarrow as pa
import pytest
import swingdb


def _typed(value):
    """A value with its type (and a datetime's UTC offset), so that 1 == 1.0 == True do not pass for each other."""
    if isinstance(value, dt.datetime):
        return (type(value).__name__, value, value.utcoffset())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_typed(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: _typed(v) for k, v in value.items()})
    return (type(value).__name__, value)


D = decimal.Decimal
T = dt.datetime(2024, 2, 29, 13, 45, 7, 123456)
ARRAYS = {
    "i8": pa.array([1, None, -128, 127], pa.int8()),
    "i16": pa.array([1, None, -32768, 5], pa.int16()),
    "i32": pa.array([1, None, -(2**31), 2**31 - 1], pa.int32()),
    "i64": pa.array([1, None, -(2**63), 2**63 - 1], pa.int64()),
    "u8": pa.array([1, None, 0, 255], pa.uint8()),
    "u16": pa.array([1, None, 0, 65535], pa.uint16()),
    "u32": pa.array([1, None, 0, 2**32 - 1], pa.uint32()),
    "u64": pa.array([1, None, 0, 2**64 - 1], pa.uint64()),
    "f32": pa.array([1.5, None, -0.0, 3e38], pa.float32()),
    "f64": pa.array([1.5, None, float("inf"), -1e308], pa.float64()),
    "bool": pa.array([True, None, False, True]),
    "text": pa.array(["a", None, "", "snow ☃"]),
    "large_text": pa.array(["a", None, "", "x" * 100], pa.large_string()),
    "view_text": pa.array(["a", None, "", "a string longer than twelve bytes"], pa.string_view()),
    "bytes": pa.array([b"a", None, b"", b"\x00\xff"], pa.binary()),
    "large_bytes": pa.array([b"a", None, b"", b"\x00\xff"], pa.large_binary()),
    "fixed_bytes": pa.array([b"ab", None, b"cd", b"\x00\xff"], pa.binary(2)),
    "date32": pa.array([dt.date(2024, 2, 29), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)], pa.date32()),
    "date64": pa.array([dt.date(2024, 2, 29), None, dt.date(1970, 1, 1), dt.date(1969, 12, 31)], pa.date64()),
    "time_s": pa.array([dt.time(13, 45, 7), None, dt.time(0), dt.time(23, 59, 59)], pa.time32("s")),
    "time_ms": pa.array([dt.time(13, 45, 7, 123000), None, dt.time(0), dt.time(23, 59, 59)], pa.time32("ms")),
    "time_us": pa.array([dt.time(13, 45, 7, 123456), None, dt.time(0), dt.time(23, 59, 59, 999999)], pa.time64("us")),
    "ts_s": pa.array([T.replace(microsecond=0), None, dt.datetime(1, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59)], pa.timestamp("s")),
    "ts_ms": pa.array([T.replace(microsecond=123000), None, dt.datetime(1900, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59, 999000)], pa.timestamp("ms")),
    "ts_us": pa.array([T, None, dt.datetime(9999, 12, 31, 23, 59, 59), dt.datetime(1969, 12, 31, 23, 59, 59, 999999)], pa.timestamp("us")),
    "ts_utc": pa.array([T, None, dt.datetime(1970, 1, 1), dt.datetime(1950, 6, 1)], pa.timestamp("us", tz="UTC")),
    "ts_offset": pa.array([T, None, dt.datetime(1970, 1, 1), dt.datetime(1950, 6, 1)], pa.timestamp("us", tz="+05:30")),
    "ts_zone": pa.array([T, None, dt.datetime(2024, 7, 1), dt.datetime(2024, 1, 1)], pa.timestamp("ms", tz="Europe/Paris")),
    "dur_s": pa.array([dt.timedelta(seconds=5), None, dt.timedelta(days=-1), dt.timedelta(days=3000)], pa.duration("s")),
    "dur_ms": pa.array([dt.timedelta(milliseconds=5), None, dt.timedelta(0), dt.timedelta(days=-3)], pa.duration("ms")),
    "dur_us": pa.array([dt.timedelta(microseconds=5), None, dt.timedelta(0), dt.timedelta(days=1, microseconds=-1)], pa.duration("us")),
    "dec": pa.array([D("1.25"), None, D("-99999999.99"), D("0.00")], pa.decimal128(10, 2)),
    "dec_wide": pa.array([D("1.25000"), None, D("-" + "9" * 35 + ".12345"), D("0.00001")], pa.decimal256(40, 5)),
    "list": pa.array([[1, 2], None, [], [None, 3]], pa.list_(pa.int64())),
    "large_list": pa.array([["a"], None, [], ["b", None]], pa.large_list(pa.string())),
    "fixed_list": pa.array([[1, 2], None, [3, None], [5, 6]], pa.list_(pa.int32(), 2)),
    "struct": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": None}, {"x": 4, "y": "d"}],
                       pa.struct([("x", pa.int64()), ("y", pa.string())])),
    "nested": pa.array([[{"k": [1]}], None, [], [{"k": None}, {"k": []}]],
                       pa.list_(pa.struct([("k", pa.list_(pa.int64()))]))),
    "map": pa.array([[("a", 1), ("b", 2)], None, [], [("c", None)]], pa.map_(pa.string(), pa.int64())),
    "dictionary": pa.array(["x", None, "y", "x"]).dictionary_encode(),
    "nothing": pa.nulls(4),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_rows_equal_pyarrows_values_for_every_type(name):
    arr = ARRAYS[name]
    con = swingdb.connect()
    for part in (arr, arr.slice(1), arr.slice(2, 2)):
        con.register("t", pa.table({"c": part}))
        got = con.sql("SELECT c FROM t").fetchall()
        assert [_typed(v) for (v,) in got] == [_typed(v) for v in part.to_pylist()], (name, part.offset, got)
        con.unregister("t")


def test_rows_come_from_the_right_batch_and_offset():
    con = swingdb.connect()
    batches = [pa.record_batch({"a": list(range(i * 10, i * 10 + 10)), "s": [f"v{j}" for j in range(i * 10, i * 10 + 10)]}) for i in range(5)]
    con.register("t", pa.Table.from_batches(batches))
    result = con.sql("SELECT a, s FROM t")
    assert result.fetchmany(7) == [(j, f"v{j}") for j in range(7)]
    assert result.fetchmany(15) == [(j, f"v{j}") for j in range(7, 22)]
    assert result.fetchall() == [(j, f"v{j}") for j in range(22, 50)]
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(50,)]
    assert con.sql("SELECT * FROM t WHERE false").fetchall() == []


def test_nanoseconds_are_cut_to_pythons_microseconds():
    con = swingdb.connect()
    nanos = pa.array([1_700_000_000_123_456_789, -1, None], pa.timestamp("ns"))
    con.register("t", pa.table({"t": nanos, "z": nanos.cast(pa.timestamp("ns", tz="UTC")), "d": pa.array([1999, -1, None], pa.duration("ns"))}))
    rows = con.sql("SELECT t, z, d FROM t").fetchall()
    assert rows[0] == (
        dt.datetime(2023, 11, 14, 22, 13, 20, 123456),
        dt.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=dt.timezone.utc),
        dt.timedelta(microseconds=1),
    )
    # Before 1970, cut toward the past, as Python's own arithmetic does.
    assert rows[1][0] == dt.datetime(1969, 12, 31, 23, 59, 59, 999999)
    assert rows[2] == (None, None, None)


def test_a_value_python_cannot_hold_is_a_data_error_naming_the_column():
    con = swingdb.connect()
    con.register("t", pa.table({"far": pa.array([2**62], pa.timestamp("s"))}))
    with pytest.raises(swingdb.DataError, match='"far".*CAST it to VARCHAR'):
        con.sql("SELECT far FROM t").fetchall()
    # The rest of the rows and the result's other forms are unaffected.
    assert con.sql("SELECT 1 AS one, far IS NULL AS missing FROM t").fetchall() == [(1, False)]
