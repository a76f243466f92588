"""Lookups by key (sql::catalog::key_lookup) against the scan and DuckDB.

A lookup that misses a row is a silent wrong answer, so the class is hunted
here: tables with integer, string and two-column keys, spread over segments
with key runs (>= 8192 rows) and small ones, changed by random DELETEs,
UPDATEs (rows moving to new segments) and INSERTs, inside and outside
transactions; then random key filters (=, IN, OR, constants of other types,
bound parameters) answered with the lookup, without it (the scan) and by
DuckDB. Also: attached databases and snapshots use their own runs.
"""

from __future__ import annotations

import os
import random

import duckdb
import pytest
import swingdb

ROWS = 20_000


def _rows(con, sql, params=None):
    return sorted(con.execute(sql, params).fetchall()) if params else sorted(con.sql(sql).fetchall())


def _both(con, sql, params=None):
    """The answer with the lookup and without it (the scan's)."""
    on = _rows(con, sql, params)
    con.execute("SET disabled_optimizers = 'key_lookup'")
    try:
        off = _rows(con, sql, params)
    finally:
        con.execute("SET disabled_optimizers = ''")
    return on, off


def _create(con):
    con.execute("CREATE TABLE t (k BIGINT PRIMARY KEY, s VARCHAR UNIQUE, a INTEGER, b INTEGER, v INTEGER, UNIQUE (a, b))")


def _load(cons, start, count):
    for con in cons:
        con.execute(
            f"INSERT INTO t SELECT r, 's' || r, CAST(r % 97 AS INTEGER), CAST(r // 97 AS INTEGER), CAST(r * 7 % 1000 AS INTEGER) "
            f"FROM range({start}, {start + count}) AS x(r)"
        )


def _change(cons, gen):
    """One random write, the same on every connection."""
    kind = gen.choice(["delete", "update", "insert", "update_key"])
    k = gen.randrange(0, 3 * ROWS)
    statement = {
        "delete": f"DELETE FROM t WHERE k % 13 = {k % 13} AND k BETWEEN {k} AND {k + 200}",
        "update": f"UPDATE t SET v = v + 1 WHERE k BETWEEN {k} AND {k + 50}",
        "insert": f"INSERT INTO t VALUES ({10**6 + k}, 'n{k}', {10**6 + k}, 0, 5) ON CONFLICT DO NOTHING",
        "update_key": f"UPDATE t SET k = k + 5000000, s = s || 'x' WHERE k = {k}",
    }[kind]
    for con in cons:
        con.execute(statement)


def _filters(gen):
    k = [gen.randrange(-5, 3 * ROWS) for _ in range(4)]
    a, b = gen.randrange(0, 97), gen.randrange(0, 400)
    return gen.choice(
        [
            f"k = {k[0]}",
            f"{k[0]} = k",
            f"k IN ({k[0]}, {k[1]}, {k[2]}, NULL)",
            f"k = {k[0]} OR k = {k[1]}",
            f"k = {k[0]}.0",
            f"k = {k[0]} AND v > 300",
            f"k = {k[0]} AND k = {k[1]}",
            f"s = 's{k[0]}'",
            f"s IN ('s{k[0]}', 's{k[1]}x', 'nothing')",
            f"a = {a} AND b = {b}",
            f"a = {a} AND b IN ({b}, {b + 1}, {b + 2})",
            f"(a = {a} OR a = {a + 1}) AND b = {b}",
            f"k = {k[0] + 5000000}",
        ]
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lookups_answer_as_the_scan_and_duckdb_whatever_the_writes(seed):
    gen = random.Random(seed)
    con, peer = swingdb.connect(), duckdb.connect()
    for c in (con, peer):
        _create(c)
    # Segments with runs (>= 8192 rows) and small ones between them.
    _load((con, peer), 0, ROWS)
    _load((con, peer), ROWS, 500)
    _load((con, peer), ROWS + 500, ROWS)
    plan = "\n".join(str(r) for r in con.sql("EXPLAIN SELECT v FROM t WHERE k = 5").fetchall())
    assert "key lookup on PRIMARY KEY (k)" in plan
    checked = 0
    for round_ in range(12):
        explicit = round_ % 3 == 2
        if explicit:
            con.execute("BEGIN")
            peer.execute("BEGIN")
        for _ in range(gen.randrange(1, 4)):
            _change((con, peer), gen)
        for _ in range(15):
            sql = f"SELECT k, s, a, b, v FROM t WHERE {_filters(gen)}"
            on, off = _both(con, sql)
            assert on == off, f"lookup and scan differ: {sql}"
            assert on == _rows(peer, sql), f"differs from DuckDB: {sql}"
            checked += 1
        if explicit:
            end = gen.choice(["COMMIT", "ROLLBACK"])
            con.execute(end)
            peer.execute(end)
    # Bound parameters (Int64 whatever the column) find the same rows.
    for k in (0, 17, ROWS + 3, 2 * ROWS + 400, -1):
        on, off = _both(con, "SELECT k, v FROM t WHERE k = ?", [k])
        assert on == off == _rows(peer, f"SELECT k, v FROM t WHERE k = {k}")
        on, off = _both(con, "SELECT k FROM t WHERE a = ? AND b = ?", [k % 97, k // 97])
        assert on == off == _rows(peer, f"SELECT k FROM t WHERE a = {k % 97} AND b = {k // 97}")
    assert checked == 180


def test_attached_databases_and_snapshots_look_up_their_own_rows(tmp_path):
    other = swingdb.connect(str(tmp_path / "other.swingdb"))
    _create(other)
    _load((other,), 0, ROWS)
    other.execute("DELETE FROM t WHERE k = 7")
    other.close()
    con = swingdb.connect()
    _create(con)
    _load((con,), 100, ROWS)  # main.t holds other keys: a lookup must not mix them up
    con.execute(f"ATTACH '{tmp_path / 'other.swingdb'}' AS o")
    plan = "\n".join(str(r) for r in con.sql("EXPLAIN SELECT v FROM o.t WHERE k = 5").fetchall())
    assert "key lookup on PRIMARY KEY (k)" in plan
    assert con.sql("SELECT k, v FROM o.t WHERE k IN (5, 7, 8)").fetchall() == [(5, 35), (8, 56)]
    assert con.sql("SELECT k FROM t WHERE k IN (5, 7, 100)").fetchall() == [(100,)]
    con.execute("UPDATE o.t SET v = -1 WHERE k = 8")
    assert con.sql("SELECT v FROM o.t WHERE k = 8").fetchall() == [(-1,)]
    name = f"key-lookup-{random.randrange(10**9)}"
    con.share(name)
    try:
        snap = swingdb.attach(name)
        assert snap.sql("SELECT v FROM t WHERE k = 150").fetchall() == [(50,)]
        assert snap.sql("SELECT v FROM t WHERE k = 5").fetchall() == []
        snap.close()
    finally:
        swingdb.discard(name)


def test_lookups_decode_encoded_columns_as_the_scan_does(tmp_path):
    """Regression: a lookup took rows from a compressed string column's runs
    of ZSTD frames directly, cutting them from their frames; reading such a
    row by key (or updating it) failed as "a compressed segment column is
    damaged". Columns of every encoding (compressed strings with NULLs,
    dictionaries, narrowed decimals) are read by key as the scan reads them."""
    import glob

    import pyarrow as pa
    import pyarrow.ipc as ipc

    rows = 40_000
    path = str(tmp_path / "db")
    con, peer = swingdb.connect(path), duckdb.connect()
    for c in (con, peer):
        c.execute("CREATE TABLE e (k INTEGER PRIMARY KEY, note VARCHAR, mode VARCHAR, price DECIMAL(9, 2), q DECIMAL(4, 0))")
        c.execute(
            "INSERT INTO e SELECT r, CASE WHEN r % 11 = 0 THEN NULL ELSE 'note ' || r || ' ' || repeat(chr(CAST(97 + r % 26 AS INTEGER)), 40) END, "
            f"CASE WHEN r % 7 = 0 THEN NULL ELSE 'mode' || (r % 5) END, r * 1.25, r % 50 FROM range({rows}) AS x(r)"
        )
    files = glob.glob(os.path.join(path, "segments", "*.arrow"))
    types = {f.name: f.type for f in pa.concat_tables(ipc.open_file(f).read_all() for f in files).schema}
    assert pa.types.is_dictionary(types["mode"]) and types["price"] == pa.decimal32(9, 2) and types["q"] == pa.int8()
    assert any(open(f, "rb").read().count(b"\x28\xb5\x2f\xfd") for f in files), "notes are stored compressed"
    gen = random.Random(5)
    keys = [0, 1, 11, 77, rows - 1, rows, 32767, 32768, 32769] + [gen.randrange(rows) for _ in range(30)]
    columns = "k, note, mode, price, q"
    for k in keys:
        sql = f"SELECT {columns} FROM e WHERE k = {k}"
        on, off = _both(con, sql)
        assert on == off == _rows(peer, sql), sql
    sql = f"SELECT {columns} FROM e WHERE k IN ({', '.join(map(str, keys))})"
    on, off = _both(con, sql)
    assert on == off == _rows(peer, sql) and len(on) == len(set(keys)) - 1
    for k in keys[:12]:
        for c in (con, peer):
            c.execute(f"UPDATE e SET note = note || '!', price = price + 1 WHERE k = {k}")
            c.execute(f"DELETE FROM e WHERE k = {k + 3}")
    sql = f"SELECT {columns} FROM e WHERE k < 100 OR k > {rows - 100} OR k IN ({', '.join(map(str, keys))})"
    assert _rows(con, sql) == _rows(peer, sql)
