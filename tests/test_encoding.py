"""Compact segments: string columns with few distinct values stored as Arrow
dictionaries, DECIMAL(p <= 18) in 32 or 64 bits, other strings ZSTD
compressed (Arrow IPC body compression). Users see the table's types and the
same answers as DuckDB; the files are smaller and still plain Arrow IPC that
pyarrow reads; integer columns still reach numpy without a copy."""

import decimal
import glob
import math
import os
import random
import re

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
import swingdb

# Enough rows that the comments (over 1 MiB) are compressed.
ROWS = 150_000


def _source(seed=7):
    """A table like TPC-H's lineitem: flags, modes, prices, keys, comments."""
    r = random.Random(seed)
    modes = ["AIR", "MAIL", "RAIL", "SHIP", "TRUCK", "REG AIR", "FOB"]
    flag = [None if r.random() < 0.05 else r.choice("ANR") for _ in range(ROWS)]
    mode = [None if r.random() < 0.05 else r.choice(modes) for _ in range(ROWS)]
    # 500 clerks: more than 8-bit keys address.
    clerk = [f"Clerk#{r.randint(1, 500):09d}" for _ in range(ROWS)]
    price = [None if r.random() < 0.05 else decimal.Decimal(r.randint(1 - 10**9, 10**9 - 1)) / 100 for _ in range(ROWS)]
    comment = [f"{r.choice(modes).lower()} comment {r.randint(0, 10**9)}" for _ in range(ROWS)]
    return pa.table(
        {
            "k": pa.array(range(ROWS), pa.int64()),
            "flag": pa.array(flag, pa.string()),
            "mode": pa.array(mode, pa.string()),
            "clerk": pa.array(clerk, pa.string()),
            "price": pa.array(price, pa.decimal128(15, 2)),
            "comment": pa.array(comment, pa.string()),
        }
    )


def _segment_files(path):
    return sorted(glob.glob(os.path.join(path, "segments", "*")))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("enc") / "db")
    source = _source()
    con = swingdb.connect(path)
    con.execute("CREATE TABLE t AS SELECT * FROM source")
    con.execute("CREATE TABLE u (mode VARCHAR, label VARCHAR)")
    con.execute("INSERT INTO u VALUES ('AIR', 'fast'), ('SHIP', 'slow'), ('TRUCK', 'road'), (NULL, 'none')")
    duck = duckdb.connect()
    duck.execute("CREATE TABLE t AS SELECT * FROM source")
    duck.execute("CREATE TABLE u (mode VARCHAR, label VARCHAR)")
    duck.execute("INSERT INTO u VALUES ('AIR', 'fast'), ('SHIP', 'slow'), ('TRUCK', 'road'), (NULL, 'none')")
    yield path, source, con, duck
    con.close()


def test_encoded_columns_read_back_as_the_table_types_and_values(loaded):
    path, source, con, _ = loaded
    back = con.execute("SELECT * FROM t ORDER BY k").arrow()
    assert back.schema.types == source.schema.types, "users see VARCHAR and DECIMAL(15,2), not the encodings"
    assert back.equals(source)


def test_segment_files_are_smaller_and_still_arrow(loaded):
    path, source, _, _ = loaded
    files = _segment_files(path)
    assert files
    stored = sum(os.path.getsize(f) for f in files)
    plain = source.nbytes
    # flag, mode, clerk: 1-2 byte keys instead of offsets and bytes; price: 4
    # bytes instead of 16 (at most 9 digits); comments compressed. Keys stay as they are.
    assert stored < 0.5 * plain, (stored, plain)
    zstd_frames = sum(open(f, "rb").read().count(b"\x28\xb5\x2f\xfd") for f in files)
    assert zstd_frames >= 2 * (ROWS // 32768), "comments are stored as ZSTD frames (offsets and values)"
    # Other Arrow tools read the files: dictionaries, 32-bit decimals, and
    # compressed buffers (which pyarrow decompresses whole).
    read = pa.concat_tables(ipc.open_file(f).read_all() for f in files)
    types = dict(zip(read.schema.names, read.schema.types))
    assert pa.types.is_dictionary(types["flag"]) and types["flag"].index_type == pa.int8()
    assert pa.types.is_dictionary(types["clerk"]) and types["clerk"].index_type == pa.int16()
    assert types["price"] == pa.decimal32(9, 2)
    assert types["comment"] == pa.string() and types["k"] == pa.int64()
    assert read.sort_by("k").cast(source.schema).equals(source)


def test_integer_columns_of_compact_segments_stay_zero_copy(loaded):
    path, source, con, _ = loaded
    keys = con.execute("SELECT k FROM t").numpy()["k"]
    assert sorted(keys.tolist()) == list(range(ROWS))
    maps = open("/proc/self/maps").read().splitlines()
    address = keys.__array_interface__["data"][0]
    mapped = [
        line
        for line in maps
        if line.split()[-1].startswith(os.path.join(path, "segments"))
        and int(line.split()[0].split("-")[0], 16) <= address < int(line.split()[0].split("-")[1], 16)
    ]
    assert mapped, "the numpy array points into a mapped segment file"


QUERIES = [
    "SELECT flag, mode, count(*), sum(price), min(price), max(price), avg(price) FROM t GROUP BY flag, mode",
    "SELECT clerk, count(*) FROM t WHERE mode = 'AIR' AND flag <> 'N' GROUP BY clerk",
    "SELECT count(*) FROM t WHERE mode IN ('MAIL', 'SHIP') OR flag IS NULL",
    "SELECT count(*), sum(price) FROM t WHERE mode LIKE '%AIR%'",
    "SELECT k, flag, mode, price FROM t ORDER BY mode NULLS FIRST, price DESC NULLS LAST, k LIMIT 50",
    "SELECT count(DISTINCT clerk), count(DISTINCT mode), count(mode), count(price) FROM t",
    "SELECT u.label, count(*), sum(t.price) FROM t JOIN u ON t.mode = u.mode GROUP BY u.label",
    "SELECT lower(mode) || '-' || flag AS x, count(*) FROM t GROUP BY x",
    "SELECT k FROM t WHERE price BETWEEN -1000.50 AND 1000.25",
    "SELECT mode, sum(price * 2 - 1), max(length(comment)) FROM t GROUP BY mode",
    "SELECT CASE WHEN price > 0 THEN mode ELSE clerk END AS c, count(*) FROM t WHERE k % 7 = 0 GROUP BY c",
    "SELECT k, mode, row_number() OVER (PARTITION BY mode ORDER BY price, k) FROM t WHERE k < 3000",
    "SELECT mode, flag FROM t WHERE clerk = 'Clerk#000000042' ORDER BY k",
    "SELECT max(clerk), min(mode), cast(sum(price) AS VARCHAR) FROM t WHERE k > 100",
    # Filters the scan evaluates before decoding (on dictionaries where they compare with constants).
    "SELECT count(*), sum(price) FROM t WHERE mode = 'AIR' AND price > 100",
    "SELECT k FROM t WHERE mode NOT IN ('AIR', 'SHIP') AND flag = 'R' AND k % 13 = 0",
    "SELECT count(*) FROM t WHERE mode NOT LIKE '%A%' OR mode IS NULL",
    "SELECT count(*), min(k) FROM t WHERE mode > 'MAIL' AND mode <= 'SHIP' AND clerk < 'Clerk#000000100'",
    "SELECT count(*) FROM t WHERE NOT (mode = 'AIR') AND flag IS NOT NULL",
    "SELECT count(*), sum(price) FROM t WHERE length(mode) = 4 AND price < 0",
    "SELECT sum(price) FROM t WHERE 'TRUCK' = mode OR (flag = 'A' AND price BETWEEN 0 AND 5000)",
    "SELECT count(*) FROM t WHERE mode = 'NO SUCH MODE' OR clerk IN ('Clerk#000000007', 'Clerk#000000499')",
]


class _Number(float):
    """A number compared as DuckDB and swingdb may compute it: DuckDB's avg of
    a decimal is a DOUBLE, swingdb's a DECIMAL, which differ in the last digits (scale 6 against 17 digits)."""

    def __eq__(self, other):
        return isinstance(other, float) and math.isclose(self, other, rel_tol=1e-9, abs_tol=1e-6)

    __hash__ = float.__hash__


def _norm(value):
    return _Number(value) if isinstance(value, (float, decimal.Decimal)) else value


def _rows(con, sql):
    rows = [tuple(_norm(v) for v in row) for row in con.execute(sql).fetchall()]
    # Sorted by their other columns first, so that the last digits of a number never reorder them.
    return sorted(rows, key=lambda row: (repr([v for v in row if not isinstance(v, float)]), repr(row)))


@pytest.mark.parametrize("sql", QUERIES)
def test_answers_over_compact_segments_are_duckdbs(loaded, sql):
    _, _, con, duck = loaded
    assert _rows(con, sql) == _rows(duck, sql)


def test_writes_to_compact_segments_keep_answers(tmp_path):
    """Updates and deletes rewrite encoded segments, small inserts are
    compacted into them: their answers stay DuckDB's."""
    source = _source(seed=11)  # noqa: F841 (read by name in SQL)
    con = swingdb.connect(str(tmp_path / "db"))
    duck = duckdb.connect()
    for c in (con, duck):
        c.execute("CREATE TABLE t AS SELECT * FROM source")
        c.execute("UPDATE t SET mode = 'BOAT', price = price + 0.01 WHERE k % 5 = 0")
        c.execute("DELETE FROM t WHERE flag = 'R' AND k % 3 = 0")
        c.execute("INSERT INTO t SELECT k + 1000000, flag, 'AIR', clerk, price, comment FROM t WHERE k < 5000")
        for i in range(3):
            c.execute(f"INSERT INTO t VALUES ({2000000 + i}, 'A', 'RAIL', 'Clerk#1', 1.25, 'x')")
    for sql in QUERIES[:4] + ["SELECT * FROM t"]:
        assert _rows(con, sql) == _rows(duck, sql), sql


def test_a_reopened_database_reads_its_compact_segments(tmp_path):
    path = str(tmp_path / "db")
    source = _source(seed=3)
    con = swingdb.connect(path)
    con.execute("CREATE TABLE t AS SELECT * FROM source")
    con.close()
    con = swingdb.connect(path, read_only=True)
    assert con.execute("SELECT * FROM t ORDER BY k").arrow().equals(source)
    prices = con.execute("SELECT price FROM t").df()["price"]
    assert prices.dropna().iloc[0].__class__ is decimal.Decimal
    assert np.isclose(float(prices.dropna().sum()), float(sum(p for p in source["price"].to_pylist() if p)))


def test_a_zstd_table_is_smaller_answers_the_same_and_hands_numpy_a_copy(loaded, tmp_path):
    """compression = 'zstd' (here through SET default_compression)
    compresses the integer key too: the files shrink, other Arrow tools still
    read them (standard IPC body compression), every answer is the same, and
    numpy gets the keys decompressed into memory of its own."""
    path, source, con, _ = loaded
    zpath = str(tmp_path / "zstd")
    z = swingdb.connect(zpath)
    z.execute("SET default_compression = 'zstd'")
    z.execute("CREATE TABLE t AS SELECT * FROM source")
    z.execute("CREATE TABLE u AS SELECT * FROM (VALUES ('AIR', 'fast'), ('SHIP', 'slow'), ('TRUCK', 'road'), (NULL, 'none')) v(mode, label)")
    stored = sum(os.path.getsize(f) for f in _segment_files(path))
    compressed = sum(os.path.getsize(f) for f in _segment_files(zpath))
    assert compressed < 0.8 * stored, (compressed, stored)
    read = pa.concat_tables(ipc.open_file(f).read_all() for f in _segment_files(zpath) if ipc.open_file(f).num_record_batches)
    assert read["k"].type == pa.int32(), "narrowed before it is compressed"
    assert read.select(["k"]).cast(pa.schema([("k", pa.int64())])).sort_by("k").equals(source.select(["k"]))
    for sql in QUERIES:
        assert sorted(z.execute(sql).fetchall(), key=repr) == sorted(con.execute(sql).fetchall(), key=repr), sql
    keys = z.execute("SELECT k FROM t").numpy()["k"]
    assert sorted(keys.tolist()) == list(range(ROWS))
    maps = [line for line in open("/proc/self/maps").read().splitlines() if zpath in line]
    address = keys.__array_interface__["data"][0]
    assert not any(int(m.split()[0].split("-")[0], 16) <= address < int(m.split()[0].split("-")[1], 16) for m in maps)


def test_a_tables_compression_survives_reopening_and_export(tmp_path):
    path, out = tmp_path / "db", tmp_path / "out"
    with swingdb.connect(path) as con:
        con.execute("CREATE TABLE z (k BIGINT, d DATE) WITH (compression = 'zstd') CLUSTER BY (k)")
        con.execute("INSERT INTO z SELECT value, DATE '2024-01-01' + CAST(value % 400 AS INTEGER) FROM range(50000)")
    explain = "EXPLAIN SELECT max(d) FROM z"
    with swingdb.connect(path) as con:
        assert "compression=zstd" in con.execute(explain).fetchall()[-1][-1]
        con.execute(f"EXPORT DATABASE '{out}'")
        expected = con.execute("SELECT count(*), sum(k), max(d) FROM z").fetchall()
    assert "WITH (compression = 'zstd') CLUSTER BY (\"k\")" in (out / "schema.sql").read_text()
    with swingdb.connect(tmp_path / "copy") as copy:
        copy.execute(f"IMPORT DATABASE '{out}'")
        assert "compression=zstd" in copy.execute(explain).fetchall()[-1][-1]
        assert copy.execute("SELECT count(*), sum(k), max(d) FROM z").fetchall() == expected


LIGHT = """SELECT value AS k, DATE '2020-01-01' + CAST(value % 2000 AS INTEGER) AS d,
    CASE WHEN value % 7 = 0 THEN NULL ELSE CAST(value % 50 AS INTEGER) END AS q, CAST(value AS DOUBLE) * 0.25 AS x,
    CAST(value AS DOUBLE) / 3 AS third, CAST(value * 1000000 AS BIGINT) AS big
    FROM range(100000)"""
LIGHT_QUERIES = [
    "SELECT count(*), sum(k), sum(q), sum(x), min(d), max(d), sum(third), sum(big) FROM t",
    "SELECT q, count(*), sum(x) FROM t WHERE d BETWEEN '2021-01-01' AND '2021-06-30' GROUP BY q",
    "SELECT k, d, q, x, third FROM t WHERE k IN (0, 7, 99999) OR x = 12.5",
    "SELECT a.k, b.x FROM t a JOIN t b ON a.q = b.k WHERE a.k < 200",
]


PACKED = "run_end_encoded<run_ends: int32, values: large_binary>"


def test_a_light_table_stores_numbers_packed_answers_the_same_and_hands_numpy_a_copy(tmp_path):
    """compression = 'light' stores integers, dates and floats of two
    decimals bit-packed (each block of 128 values in the bits of its own
    range): the files shrink by almost half (the two wide columns stay), pyarrow still reads them (the
    packed columns as binary runs, as docs/sql.md says), every answer is that
    of the default layout, and numpy gets the keys unpacked into memory of
    its own. Thirds (not decimals) and integers beyond 32 bits stay as they
    are, readable by any Arrow tool."""
    plain, light = swingdb.connect(str(tmp_path / "plain")), swingdb.connect(str(tmp_path / "light"))
    plain.execute(f"CREATE TABLE t AS {LIGHT}")
    light.execute(f"CREATE TABLE t WITH (compression = 'light') AS {LIGHT}")
    assert "compression=light: columns widened as read" in light.execute("EXPLAIN SELECT sum(k) FROM t").fetchall()[-1][-1]
    stored = sum(os.path.getsize(f) for f in _segment_files(str(tmp_path / "plain")))
    narrow = sum(os.path.getsize(f) for f in _segment_files(str(tmp_path / "light")))
    # k, d, q and x take about 7, 7, 6 and 12 bits a row instead of 64, 32, 32
    # and 64 (bytes of their narrowest types would leave 0.68 of the size).
    assert narrow < 0.55 * stored, (narrow, stored)
    files = [ipc.open_file(f).read_all() for f in _segment_files(str(tmp_path / "light"))]
    read = pa.concat_tables(t for t in files if t.num_rows)
    types = {f.name: str(f.type) for f in read.schema}
    assert types == {"k": PACKED, "d": PACKED, "q": PACKED, "x": PACKED, "third": "double", "big": "int64"}
    assert sorted(read["big"].to_pylist()) == [k * 1000000 for k in range(100000)]
    for sql in LIGHT_QUERIES:
        assert sorted(light.execute(sql).fetchall(), key=repr) == sorted(plain.execute(sql).fetchall(), key=repr), sql
    assert light.execute("SELECT * FROM t").arrow().schema == plain.execute("SELECT * FROM t").arrow().schema
    keys = light.execute("SELECT k FROM t").numpy()["k"]
    assert keys.dtype == np.int64 and sorted(keys.tolist()) == list(range(100000))
    maps = [line for line in open("/proc/self/maps").read().splitlines() if str(tmp_path / "light") in line]
    address = keys.__array_interface__["data"][0]
    assert not any(int(m.split()[0].split("-")[0], 16) <= address < int(m.split()[0].split("-")[1], 16) for m in maps)


def test_a_light_table_keeps_every_float_bit_and_time_zone(tmp_path):
    """A value a narrow type would change keeps its column as it is (-0.0 or
    NaN among decimals); the others narrow and are packed. Timestamps near
    the epoch narrow and keep their time zone."""
    con = swingdb.connect(str(tmp_path / "db"))
    con.execute(
        "CREATE TABLE t WITH (compression = 'light') AS SELECT value AS k, "
        "CASE WHEN value = 7 THEN CAST('-0.0' AS DOUBLE) ELSE CAST(value AS DOUBLE) * 0.5 END AS neg, "
        "CASE WHEN value = 9 THEN CAST('NaN' AS DOUBLE) ELSE CAST(value AS DOUBLE) * 0.5 END AS nan, CAST(value AS DOUBLE) * 0.5 AS half, "
        "CAST(to_timestamp_micros(value) AS TIMESTAMPTZ) AS ts FROM range(60000)"
    )
    files = [ipc.open_file(f).schema for f in _segment_files(str(tmp_path / "db"))]
    types = {f.name: str(f.type) for f in files[0]}
    assert types == {"k": PACKED, "neg": "double", "nan": "double", "half": PACKED, "ts": PACKED}, types
    back = con.execute("SELECT * FROM t WHERE k IN (7, 9, 11) ORDER BY k").arrow()
    assert back.schema.types == con.execute("SELECT CAST(1 AS BIGINT) AS k, CAST(1 AS DOUBLE) AS neg, CAST(1 AS DOUBLE) AS nan, "
                                      "CAST(1 AS DOUBLE) AS half, CAST(to_timestamp_micros(1) AS TIMESTAMPTZ) AS ts").arrow().schema.types
    neg, nan = back["neg"].to_pylist(), back["nan"].to_pylist()
    assert math.copysign(1, neg[0]) == -1 and math.isnan(nan[1]) and back["half"].to_pylist() == [3.5, 4.5, 5.5]
    assert [round(t.timestamp() * 1e6) for t in back["ts"].to_pylist()] == [7, 9, 11]
    assert con.execute("SELECT count(*) FROM t WHERE ts >= CAST('1970-01-01 00:00:00.03+00' AS TIMESTAMPTZ)").fetchone()[0] == 30000


def test_a_light_tables_ascending_key_cuts_partitions_between_its_values(tmp_path):
    """A packed key stored in ascending order is declared so, and the scan
    cuts its partitions where the key's value changes, judged on the values
    (not on the packed runs, which would cut inside a group of equal keys and
    give that group twice)."""
    n = 3_000_000
    pq.write_table(pa.table({"k": np.arange(n) // 3, "v": np.arange(n) % 7}), tmp_path / "k.parquet")
    con = swingdb.connect(str(tmp_path / "db"))
    con.execute(f"CREATE TABLE t WITH (compression = 'light') AS SELECT * FROM read_parquet('{tmp_path / 'k.parquet'}')")
    plan = con.execute("EXPLAIN SELECT k, sum(v) FROM t GROUP BY k").fetchall()[-1][-1]
    scan = next(line for line in plan.splitlines() if "DataSourceExec" in line)
    assert "output_ordering=k@0 ASC" in scan, scan
    sizes = [int(s) for s in re.search(r"partition_sizes=\[(\d+), (\d+)\]", scan).groups()]
    assert min(sizes) * 2 >= max(sizes), scan
    assert con.execute("SELECT count(*), min(c), max(c) FROM (SELECT k, count(*) AS c FROM t GROUP BY k)").fetchall() == [
        (1_000_000, 3, 3)
    ]
    assert con.execute("SELECT sum(s) FROM (SELECT k, sum(v) AS s FROM t GROUP BY k)").fetchone()[0] == sum(i % 7 for i in range(n))
