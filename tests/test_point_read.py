"""Point reads by key without planning (sql::statements::point_read) against
the general path and DuckDB.

`SELECT columns FROM t WHERE k = ?` is answered from the key's runs without
DataFusion; a different answer (a row missed, a column's type, name or
nullability) would be a silent wrong answer, so every statement here runs
both ways (the short path is switched off with `key_lookup`, as the scan's
lookup is) and the two Arrow tables must be equal, schema included, after
random deletes, updates, inserts and rolled-back transactions. Statements
the short path must leave to the general path (views, registered data,
attached databases, other equalities, values of other types) are checked
to be left, by the connection's count of point reads.
"""

from __future__ import annotations

import datetime
import random

import duckdb
import pyarrow as pa
import pytest
import swingdb

ROWS = 20_000

SCHEMA = [
    "CREATE TABLE t1 (k INTEGER PRIMARY KEY, s VARCHAR, v DOUBLE, d DATE, \"Mixed\" INTEGER)",
    "CREATE TABLE t2 (a VARCHAR, b BIGINT, x INTEGER NOT NULL, PRIMARY KEY (a, b))",
    "CREATE TABLE t3 (id BIGINT PRIMARY KEY, email VARCHAR UNIQUE, n SMALLINT)",
]


def _load(con, start, count):
    con.execute(
        f"INSERT INTO t1 SELECT r, CASE WHEN r % 9 = 0 THEN NULL ELSE 's' || r END, r / 4.0, "
        f"DATE '2020-01-01' + CAST(r % 1000 AS INTEGER), CAST(r % 17 AS INTEGER) FROM range({start}, {start + count}) AS x(r)"
    )
    con.execute(
        f"INSERT INTO t2 SELECT 'a' || (r % 50), r, CAST(r * 3 AS INTEGER) FROM range({start}, {start + count}) AS x(r)"
    )
    con.execute(
        f"INSERT INTO t3 SELECT r, CASE WHEN r % 5 = 0 THEN NULL ELSE 'e' || r || '@x' END, CAST(r % 100 AS SMALLINT) "
        f"FROM range({start}, {start + count}) AS x(r)"
    )


# Keys written and read again and again: rows of the small segment (no key
# run), rows moved by UPDATE into small segments and deleted from them again.
HOT = [3, 4, 5, ROWS + 1, ROWS + 2, ROWS + 150, 2 * ROWS + 7]


def _key(gen):
    return gen.choice(HOT) if gen.random() < 0.6 else gen.randrange(-3, 2 * ROWS + 10)


def _change(cons, gen):
    k = _key(gen)
    statement = gen.choice(
        [
            f"DELETE FROM t1 WHERE k BETWEEN {k} AND {k + 30}",
            f"UPDATE t1 SET s = 'u' || k, v = -v WHERE k BETWEEN {k} AND {k + 30}",
            f"UPDATE t1 SET v = v + 1 WHERE k = {k}",
            f"UPDATE t3 SET n = n + 1 WHERE id = {k}",
            f"INSERT INTO t3 VALUES ({k}, NULL, 1) ON CONFLICT DO NOTHING",
            f"UPDATE t2 SET x = x + 1 WHERE b = {k}",
            f"DELETE FROM t3 WHERE id = {k}",
            f"INSERT INTO t1 VALUES ({10**6 + k}, 'new', 0.5, DATE '2021-02-03', 1) ON CONFLICT DO NOTHING",
            f"UPDATE t1 SET k = k + 500000 WHERE k = {k}",
        ]
    )
    for con in cons:
        con.execute(statement)


def _short_reads(gen):
    """(sql, params) the short path answers."""
    k = _key(gen)
    return gen.choice(
        [
            ("SELECT * FROM t1 WHERE k = ?", [k]),
            ("SELECT s, v FROM t1 WHERE k = ?", [k]),
            ('SELECT k AS id, s AS "Name", "Mixed" FROM t1 WHERE k = ?', [k]),
            ("SELECT t1.s, t1.d FROM t1 WHERE t1.k = ?", [k]),
            ("SELECT x.s FROM t1 AS x WHERE x.k = ?", [k]),
            ("SELECT s FROM t1 x WHERE ? = k", [k]),
            ("SELECT s, s, k FROM t1 WHERE k = ?", [k]),
            ("select S, V from T1 where K = ?", [k]),
            (f"SELECT * FROM t1 WHERE k = {k}", None),
            (f"SELECT d FROM t1 WHERE k = {k + 500000}", None),
            ("SELECT * FROM t2 WHERE a = ? AND b = ?", [f"a{k % 50}", k]),
            ("SELECT x FROM t2 WHERE b = ? AND a = ?", [k, f"a{k % 50}"]),
            (f"SELECT x, a FROM t2 WHERE a = 'a{k % 50}' AND b = $1", [k]),
            ("SELECT * FROM t3 WHERE email = ?", [f"e{k}@x"]),
            ("SELECT n FROM t3 WHERE id = $1", [k]),
            ("SELECT * FROM t1 WHERE k = ?", [None]),
        ]
    )


def _answer(con, sql, params):
    return con.execute(sql, params).arrow() if params is not None else con.sql(sql).arrow()


def _general(con, sql, params):
    con.execute("SET disabled_optimizers = 'key_lookup'")
    try:
        return _answer(con, sql, params)
    finally:
        con.execute("SET disabled_optimizers = ''")


def _same(con, sql, params):
    """Runs `sql` both ways; returns whether the short path answered."""
    before = con._con._keyed_statements()
    try:
        short = _answer(con, sql, params)
    except swingdb.Error as e:
        with pytest.raises(type(e)):
            _general(con, sql, params)
        return con._con._keyed_statements() > before
    used = con._con._keyed_statements() - before
    general = _general(con, sql, params)
    assert short.schema.equals(general.schema, check_metadata=True), (sql, short.schema, general.schema)
    assert short.equals(general), (sql, params, short, general)
    return used == 1


def _duckdb_rows(peer, sql, params):
    rows = peer.execute(sql, params).fetchall() if params is not None else peer.sql(sql).fetchall()
    return sorted(rows, key=repr)


@pytest.mark.parametrize("seed", [1, 2])
def test_keyed_statements_answer_as_the_general_path_and_duckdb(tmp_path, seed):
    gen = random.Random(seed)
    con, peer = swingdb.connect(str(tmp_path / "db")), duckdb.connect()
    for statement in SCHEMA:
        con.execute(statement)
        peer.execute(statement)
    # Segments with key runs (>= 8192 rows) and small ones between them.
    for start, count in ((0, ROWS), (ROWS, 300), (ROWS + 300, ROWS)):
        _load(con, start, count)
        _load(peer, start, count)
    answered = 0
    for round_ in range(10):
        explicit = round_ % 3 == 1
        if explicit:
            con.execute("BEGIN")
            peer.execute("BEGIN")
        for _ in range(gen.randrange(2, 6)):
            _change((con, peer), gen)
        for _ in range(20):
            sql, params = _short_reads(gen)
            assert _same(con, sql, params), f"the short path did not answer {sql}"
            table = _answer(con, sql, params)
            ours = sorted(zip(*(c.to_pylist() for c in table.columns)), key=repr)
            assert ours == _duckdb_rows(peer, sql, params), sql
            answered += 1
        if explicit:
            end = gen.choice(["COMMIT", "ROLLBACK"])
            con.execute(end)
            peer.execute(end)
    assert answered == 200


def test_what_the_short_path_leaves_to_the_general_path(tmp_path):
    con = swingdb.connect(str(tmp_path / "db"))
    for statement in SCHEMA:
        con.execute(statement)
    _load(con, 0, ROWS)
    con.execute("CREATE VIEW vw AS SELECT * FROM t1")
    other = swingdb.connect(str(tmp_path / "other"))
    other.execute(SCHEMA[0])
    other.execute("INSERT INTO t1 VALUES (5, 'other', 1.0, DATE '2000-01-01', 2)")
    other.close()
    con.execute(f"ATTACH '{tmp_path / 'other'}' AS o")
    left = [
        ("SELECT * FROM t1 WHERE k = ? AND v > 0", [5]),  # another condition
        ("SELECT s FROM t1 WHERE s = ?", ["s5"]),  # not a key
        ("SELECT * FROM t2 WHERE a = ?", ["a5"]),  # a prefix of the key
        ("SELECT * FROM t2 WHERE a = ? AND b = ? AND x = ?", ["a5", 5, 15]),  # more than the key
        ("SELECT * FROM t1 WHERE k = 1.5", None),
        ("SELECT * FROM t1 WHERE k = 5.0", None),
        ("SELECT * FROM t1 WHERE k = ?", [5.0]),
        ("SELECT * FROM t1 WHERE k = ?", ["5"]),
        ("SELECT * FROM t1 WHERE k = ?", [2**40]),
        ("SELECT d FROM t1 WHERE k = ?", [True]),
        ("SELECT * FROM vw WHERE k = ?", [5]),
        ("SELECT * FROM o.t1 WHERE k = ?", [5]),
        ("SELECT DISTINCT s FROM t1 WHERE k = ?", [5]),
        ("SELECT s FROM t1 WHERE k = ? LIMIT 0", [5]),
        ("SELECT s FROM t1 WHERE k = ? ORDER BY s", [5]),
        ("SELECT upper(s) FROM t1 WHERE k = ?", [5]),
        ("SELECT * EXCLUDE (s) FROM t1 WHERE k = ?", [5]),
        ("SELECT s FROM t1 WHERE (k = ?)", [5]),
        ("SELECT s FROM t1, t2 WHERE k = ?", [5]),
        ("SELECT * FROM t3 WHERE id = ? AND email = ?", [5, "e5@x"]),
    ]
    for sql, params in left:
        assert not _same(con, sql, params), f"the short path answered {sql}"
    assert con.execute("SELECT s FROM o.t1 WHERE k = ?", [5]).fetchall() == [("other",)]
    # Data registered under a table's name hides the table: its rows answer.
    con.register("t3", pa.table({"id": [5], "email": ["registered"], "n": [1]}))
    assert not _same(con, "SELECT email FROM t3 WHERE id = ?", [5])
    assert con.execute("SELECT email FROM t3 WHERE id = ?", [5]).fetchall() == [("registered",)]
    con.unregister("t3")
    assert _same(con, "SELECT email FROM t3 WHERE id = ?", [6])
    # The same errors as the general path.
    for sql, params, error in [
        ("SELECT * FROM t1 WHERE k = ?", [], swingdb.ProgrammingError),
        ("SELECT * FROM t1 WHERE k = ?", [1, 2], swingdb.ProgrammingError),
        ("SELECT nope FROM t1 WHERE k = ?", [1], swingdb.ProgrammingError),
        ("SELECT * FROM missing WHERE k = ?", [1], swingdb.ProgrammingError),
    ]:
        with pytest.raises(error):
            con.execute(sql, params)
    # A point read sees the transaction's own writes, and after a rollback, not.
    con.execute("BEGIN")
    con.execute("UPDATE t1 SET s = 'mine' WHERE k = 7")
    assert con.execute("SELECT s FROM t1 WHERE k = ?", [7]).fetchall() == [("mine",)]
    con.execute("ROLLBACK")
    assert con.execute("SELECT s FROM t1 WHERE k = ?", [7]).fetchall() == [("s7",)]
    assert con.execute("SELECT d FROM t1 WHERE k = ?", [7]).fetchall() == [(datetime.date(2020, 1, 8),)]


def test_keyed_statements_see_other_connections_commits(tmp_path):
    path = str(tmp_path / "db")
    reader, writer = swingdb.connect(path), swingdb.connect(path)
    reader.execute(SCHEMA[0])
    reader.execute(f"INSERT INTO t1 SELECT r, 's' || r, 0, DATE '2020-01-01', 0 FROM range({ROWS}) AS x(r)")
    before = reader._con._keyed_statements()
    assert reader.execute("SELECT s FROM t1 WHERE k = ?", [3]).fetchall() == [("s3",)]
    writer.execute("UPDATE t1 SET s = 'changed' WHERE k = 3")
    assert reader.execute("SELECT s FROM t1 WHERE k = ?", [3]).fetchall() == [("changed",)]
    writer.execute("DELETE FROM t1 WHERE k = 3")
    assert reader.execute("SELECT s FROM t1 WHERE k = ?", [3]).fetchall() == []
    assert reader._con._keyed_statements() - before == 3


def test_lookups_see_the_rows_a_transaction_adds_between_them(tmp_path):
    """A transaction's inserts grow one inline tail segment under one name; a
    lookup's in-memory run of that segment must be rebuilt when it grows (a run
    kept by name alone missed every row added after the first lookup)."""
    con = swingdb.connect(str(tmp_path / "db"))
    con.execute(SCHEMA[0])
    con.execute(f"INSERT INTO t1 SELECT r, 's' || r, 0, DATE '2020-01-01', 0 FROM range({ROWS}) AS x(r)")
    con.begin()
    for k in range(ROWS, ROWS + 40):
        con.execute("INSERT INTO t1 VALUES (?, ?, 0, DATE '2020-01-01', 0)", [k, f"n{k}"])
        for probe in (k, k - 1, ROWS - 1 - (k - ROWS)):
            assert _same(con, "SELECT s FROM t1 WHERE k = ?", [probe])
            assert con.execute("SELECT s FROM t1 WHERE k = ?", [probe]).fetchall() == [
                (f"n{probe}" if probe >= ROWS else f"s{probe}",)
            ]
        # A scan's lookup (an IN list: not a short statement) finds them too.
        found = con.execute(f"SELECT k FROM t1 WHERE k IN ({k}, {k - 1}, 3) ORDER BY k").fetchall()
        assert found == [(3,), (k - 1,), (k,)] if k > ROWS else [(3,), (k,)]
    con.commit()
    # Committed single-row inserts: one inline segment each, then compacted together.
    for k in range(ROWS + 40, ROWS + 80):
        con.execute("INSERT INTO t1 VALUES (?, ?, 0, DATE '2020-01-01', 0)", [k, f"n{k}"])
        assert con.execute("SELECT s FROM t1 WHERE k = ?", [k]).fetchall() == [(f"n{k}",)]
        assert con.execute("SELECT s FROM t1 WHERE k = ?", [k - 20]).fetchall() == [(f"n{k - 20}",)]
    con.execute("DELETE FROM t1 WHERE k = ?", [ROWS + 50])
    assert con.execute("SELECT s FROM t1 WHERE k = ?", [ROWS + 50]).fetchall() == []
    assert con.execute("SELECT count(*) FROM t1 WHERE k >= ?", [ROWS]).fetchall() == [(79,)]


def test_lookups_in_a_large_segment_answer_as_the_scan(tmp_path):
    """Rows found by key in one segment of 400,000 rows (a saved key run):
    first and last rows, rows far apart, several at once, and a row updated
    next to an untouched one, equal to the scan's answer."""
    con = swingdb.connect(str(tmp_path / "db"))
    con.execute("CREATE TABLE t (k BIGINT PRIMARY KEY, v DOUBLE, s VARCHAR)")
    con.execute("INSERT INTO t SELECT value, value / 4, 'payload-' || value FROM range(400000)")
    scan = swingdb.connect(str(tmp_path / "db"))
    scan.execute("SET disabled_optimizers = 'key_lookup'")
    keys = [0, 1, 32767, 32768, 65535, 65536, 199999, 200000, 399998, 399999]
    listed = ", ".join(map(str, keys))
    plan = con.sql(f"EXPLAIN SELECT s FROM t WHERE k IN ({listed})").fetchall()
    assert "key lookup on" in "".join(str(r) for r in plan)
    for sql, params in [
        *[("SELECT k, v, s FROM t WHERE k = ?", [k]) for k in keys],
        (f"SELECT k, v, s FROM t WHERE k IN ({listed}) ORDER BY k", []),
    ]:
        found = con.execute(sql, params).fetchall()
        assert found == scan.execute(sql, params).fetchall(), sql
        assert found and all(row[2] == f"payload-{row[0]}" for row in found), sql
    con.execute("UPDATE t SET s = 'moved' WHERE k = ?", [32768])
    assert con.execute("SELECT s FROM t WHERE k = ?", [32768]).fetchall() == [("moved",)]
    assert con.execute("SELECT s FROM t WHERE k = ?", [32767]).fetchall() == [("payload-32767",)]
