"""Lookups by plain index, by a key's prefix and by ranges (sql::catalog::key_lookup)
against the scan and DuckDB.

An index lookup that misses a row is a silent wrong answer, so the class is
hunted here: indexes on integer, string, date, DECIMAL, DOUBLE (never used:
-0.0 = 0.0) and two columns, with repeated values and NULLs, a composite key
looked up by its first column, a UNIQUE key whose second column is nullable
(a prefix lookup would miss `(k, NULL)` rows), spread over segments with saved
runs (>= 8192 rows) and small ones, changed by random writes inside and outside
transactions; random equality, IN, range and prefix filters are answered with
the lookups, without them (the scan) and by DuckDB. Also: the runs are rebuilt
after damage, dropped with their index, and follow a renamed column.
"""

from __future__ import annotations

import glob
import os
import random

import duckdb
import pytest
import swingdb

ROWS = 12_000

SCHEMA = [
    "CREATE TABLE t (id BIGINT PRIMARY KEY, cust INTEGER, name VARCHAR, d DATE, amt DECIMAL(10, 2), f DOUBLE, x INTEGER)",
    "CREATE INDEX t_cust ON t (cust)",
    "CREATE INDEX t_name ON t (name)",
    "CREATE INDEX t_d ON t (d)",
    "CREATE INDEX t_amt ON t (amt)",
    "CREATE INDEX t_f ON t (f)",
    "CREATE INDEX t_cust_x ON t (x, cust)",
    "CREATE TABLE c (a VARCHAR NOT NULL, b INTEGER NOT NULL, v INTEGER, PRIMARY KEY (a, b))",
    "CREATE TABLE u (k INTEGER, s VARCHAR, UNIQUE (k, s))",
]


def _load(cons, start, count):
    for con in cons:
        con.execute(
            f"INSERT INTO t SELECT r, CASE WHEN r % 11 = 0 THEN NULL ELSE CAST(r * 7 % 500 AS INTEGER) END, "
            f"CASE WHEN r % 13 = 0 THEN NULL ELSE 'n' || (r % 700) END, DATE '2024-01-01' + CAST(r % 300 AS INTEGER), "
            f"CAST(r % 250 AS DECIMAL(10, 2)) / 4, CASE WHEN r % 2 = 0 THEN -0.0 ELSE r % 9 END, CAST(r % 40 AS INTEGER) "
            f"FROM range({start}, {start + count}) AS q(r)"
        )
        con.execute(f"INSERT INTO c SELECT 'a' || (r % 60), CAST(r AS INTEGER), CAST(r % 7 AS INTEGER) FROM range({start}, {start + count}) AS q(r)")
        con.execute(
            f"INSERT INTO u SELECT CAST(r % 3000 AS INTEGER), CASE WHEN r % 4 = 0 THEN NULL ELSE 's' || r END "
            f"FROM range({start}, {start + count}) AS q(r)"
        )


def _change(cons, gen):
    """One random write, the same on every connection."""
    k = gen.randrange(0, 3 * ROWS)
    statement = gen.choice(
        [
            f"DELETE FROM t WHERE id BETWEEN {k} AND {k + 150} AND id % 3 = 0",
            f"UPDATE t SET cust = cust + 1, name = 'm' || id WHERE id BETWEEN {k} AND {k + 60}",
            f"UPDATE t SET cust = NULL, x = 41 WHERE id BETWEEN {k} AND {k + 20}",
            f"INSERT INTO t VALUES ({10**6 + k}, {k % 500}, 'n{k % 700}', DATE '2024-03-01', 1.25, 0.0, {k % 40}) ON CONFLICT DO NOTHING",
            f"DELETE FROM c WHERE b BETWEEN {k} AND {k + 40}",
            f"UPDATE c SET v = v + 1, a = 'a{k % 60}' WHERE b = {k}",
            f"INSERT INTO u VALUES ({k % 3000}, NULL)",
            f"DELETE FROM u WHERE k = {k % 3000} AND s IS NOT NULL",
        ]
    )
    for con in cons:
        con.execute(statement)


def _query(gen):
    """A random filter some index, key prefix or key range may answer."""
    k, n = gen.randrange(0, 3 * ROWS), gen.randrange(0, 700)
    return gen.choice(
        [
            f"SELECT id, name FROM t WHERE cust = {k % 500}",
            f"SELECT id FROM t WHERE cust IN ({k % 500}, {(k + 1) % 500}, NULL)",
            f"SELECT id, cust FROM t WHERE cust BETWEEN {k % 500} AND {k % 500 + 2}",
            f"SELECT count(*) FROM t WHERE cust > {k % 500 + 490}",
            f"SELECT count(*) FROM t WHERE cust <= {k % 5}",
            f"SELECT id FROM t WHERE name = 'n{n}'",
            f"SELECT id FROM t WHERE name = 'm{k}'",
            f"SELECT count(*) FROM t WHERE name >= 'n{n}' AND name < 'n{n}5'",
            f"SELECT id, d FROM t WHERE d = DATE '2024-01-01' + {k % 300}",
            "SELECT count(*) FROM t WHERE d < DATE '2024-01-03'",
            f"SELECT id FROM t WHERE amt = {(k % 250) / 4}",
            "SELECT count(*) FROM t WHERE f = 0.0",
            f"SELECT id FROM t WHERE x = {k % 40} AND cust = {k % 500}",
            f"SELECT count(*) FROM t WHERE x = {k % 42}",
            f"SELECT count(*) FROM t WHERE id BETWEEN {k} AND {k + 30}",
            f"SELECT count(*) FROM t WHERE id > {3 * ROWS - 20}",
            f"SELECT b, v FROM c WHERE a = 'a{k % 60}'",
            f"SELECT b FROM c WHERE a IN ('a{k % 60}', 'a{(k + 7) % 60}') AND b < {k}",
            "SELECT count(*) FROM c WHERE a > 'a5'",
            f"SELECT s FROM u WHERE k = {k % 3000}",
            f"SELECT count(*) FROM u WHERE k BETWEEN {k % 3000} AND {k % 3000 + 3}",
        ]
    )


def _rows(con, sql):
    return sorted(con.sql(sql).fetchall(), key=repr)


def _scan(con, sql):
    con.execute("SET disabled_optimizers = 'key_lookup'")
    try:
        return _rows(con, sql)
    finally:
        con.execute("SET disabled_optimizers = ''")


def _lookup_used(con, sql):
    plan = dict(con.execute("EXPLAIN " + sql).fetchall())["physical_plan"]
    return "index lookup on" in plan or "key lookup on" in plan


@pytest.mark.parametrize("seed", [1, 2])
def test_index_lookups_answer_as_the_scan_and_duckdb(tmp_path, seed):
    gen = random.Random(seed)
    con, peer = swingdb.connect(str(tmp_path / "db")), duckdb.connect()
    for statement in SCHEMA:
        con.execute(statement)
        if "INDEX" not in statement:
            peer.execute(statement)
    # Segments with saved runs (>= 8192 rows) and small ones between them.
    for start, count in ((0, ROWS), (ROWS, 200), (ROWS + 200, ROWS), (2 * ROWS + 200, 50)):
        _load((con, peer), start, count)
    used = asked = 0
    for round_ in range(12):
        explicit = round_ % 3 == 1
        if explicit:
            con.execute("BEGIN")
            peer.execute("BEGIN")
        for _ in range(gen.randrange(1, 5)):
            _change((con, peer), gen)
        for _ in range(12):
            sql = _query(gen)
            ours = _rows(con, sql)
            assert ours == _scan(con, sql), sql
            assert ours == sorted(peer.sql(sql).fetchall(), key=repr), sql
            used += _lookup_used(con, sql)
            asked += 1
        if explicit:
            end = gen.choice(["COMMIT", "ROLLBACK"])
            con.execute(end)
            peer.execute(end)
    # Most filters go through a lookup (the float index and `u`'s prefix never do).
    assert used > asked // 2, (used, asked)


def test_what_lookups_leave_to_the_scan(tmp_path):
    con = swingdb.connect(str(tmp_path / "db"))
    for statement in SCHEMA:
        con.execute(statement)
    _load([con], 0, ROWS)
    # A float index: -0.0 and 0.0 are equal in SQL, not in bytes.
    assert not _lookup_used(con, "SELECT id FROM t WHERE f = 0.0")
    zeros = sum(1 for r in range(ROWS) if r % 2 == 0 or r % 9 == 0)
    assert _rows(con, "SELECT count(*) FROM t WHERE f = 0.0") == [(zeros,)]
    # A prefix of a UNIQUE key whose next column may be NULL: (k, NULL) rows are in no run.
    assert not _lookup_used(con, "SELECT s FROM u WHERE k = 4")
    assert None in [r[0] for r in _rows(con, "SELECT s FROM u WHERE k = 4")]
    # The prefix of a key whose columns are NOT NULL, and ranges on a first column, are looked up.
    for sql in ("SELECT v FROM c WHERE a = 'a1'", "SELECT id FROM t WHERE id BETWEEN 5 AND 9",
                "SELECT id FROM t WHERE x = 3", "SELECT id FROM t WHERE name > 'n699'"):
        assert _lookup_used(con, sql), sql
    # An index's runs hold rows with NULLs: its prefix is looked up even where the next column is nullable.
    assert _rows(con, "SELECT count(*) FROM t WHERE x = 3") == _scan(con, "SELECT count(*) FROM t WHERE x = 3")
    nulls = sum(1 for r in range(ROWS) if r % 40 == 0 and r % 11 == 0)
    assert _rows(con, "SELECT count(*) FROM t WHERE x = 0 AND cust IS NULL") == [(nulls,)] != [(0,)]
    assert _lookup_used(con, "SELECT count(*) FROM t WHERE x = 0 AND cust IS NULL")
    # A filter on an index's second column alone is not.
    assert not _lookup_used(con, "SELECT v FROM c WHERE b = 4")
    assert "indexes not used" in dict(con.execute("EXPLAIN SELECT id FROM t WHERE id = 5").fetchall())["physical_plan"]


def test_a_common_value_reads_the_segment_whole(tmp_path):
    """A lookup that would take more than one row in 8 of a segment reads it instead: same answer."""
    con = swingdb.connect(str(tmp_path / "db"))
    con.execute(SCHEMA[0])
    con.execute("CREATE INDEX t_x ON t (x)")
    con.execute(f"INSERT INTO t SELECT r, 1, 'n', DATE '2024-01-01', 1, 2, CAST(r % 2 AS INTEGER) FROM range({ROWS}) AS q(r)")
    plan = dict(con.execute("EXPLAIN SELECT count(*) FROM t WHERE x = 1").fetchall())["physical_plan"]
    assert f"{ROWS} of {ROWS} rows read" in plan, plan
    assert _rows(con, "SELECT count(*) FROM t WHERE x = 1") == [(ROWS // 2,)]


def _index_runs(db):
    return sorted(glob.glob(os.path.join(db, "keys", "*-all.keys")))


def test_index_runs_are_rebuilt_after_damage_and_dropped_with_their_index(tmp_path):
    db = str(tmp_path / "db")
    con = swingdb.connect(db)
    con.execute(SCHEMA[0])
    con.execute(f"INSERT INTO t SELECT r, CAST(r % 97 AS INTEGER), 'n' || r, DATE '2024-01-01', 1, 1, 0 FROM range({ROWS}) AS q(r)")
    assert _index_runs(db) == []
    con.execute("CREATE INDEX t_cust ON t (cust)")
    runs = _index_runs(db)
    assert len(runs) == 1, "CREATE INDEX builds the runs of the segments already there"
    expected = _scan(con, "SELECT id FROM t WHERE cust = 5")
    con.close()
    # Damaged: a flipped byte fails the run's checksum; the run is rebuilt, the answer right.
    with open(runs[0], "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0x5A]))
    con = swingdb.connect(db)
    assert _lookup_used(con, "SELECT id FROM t WHERE cust = 5")
    assert _rows(con, "SELECT id FROM t WHERE cust = 5") == expected and len(expected) > 100
    # Truncated: the same.
    con.close()
    os.truncate(runs[0], 10)
    con = swingdb.connect(db)
    assert _rows(con, "SELECT id FROM t WHERE cust = 5") == expected
    # New segments get their runs when written.
    con.execute(f"INSERT INTO t SELECT r, CAST(r % 97 AS INTEGER), 'n' || r, DATE '2024-01-01', 1, 1, 0 FROM range({ROWS}, {3 * ROWS}) AS q(r)")
    assert len(_index_runs(db)) == 2
    # A renamed column keeps its index (a new fingerprint only if the type changes).
    con.execute("ALTER TABLE t RENAME COLUMN cust TO customer")
    assert "index lookup on t_cust (customer)" in dict(con.execute("EXPLAIN SELECT id FROM t WHERE customer = 5").fetchall())["physical_plan"]
    assert _rows(con, "SELECT id FROM t WHERE customer = 5") == _scan(con, "SELECT id FROM t WHERE customer = 5")
    con.execute("DROP INDEX t_cust")
    assert _index_runs(db) == []
    assert not _lookup_used(con, "SELECT id FROM t WHERE customer = 5")


KILLED_WRITER = """
import sys, swingdb
con = swingdb.connect(sys.argv[1])
start = int(sys.argv[2])
while True:
    # Segments large enough for saved runs: each write saves a key run and an index run.
    con.execute(f"INSERT INTO t SELECT r, CAST(r % 97 AS INTEGER), 'n' || r, DATE '2024-01-01', 1, 2, 0 "
                f"FROM range({start}, {start + 9000}) AS q(r)")
    print(start, flush=True)
    start += 9000
"""


def test_index_runs_stay_right_when_writers_are_killed(tmp_path):
    """SIGKILLed while saving runs (temporary files half written, not yet
    renamed): what a later process reads through the index equals the scan,
    and the collector clears the dead writers' temporary files."""
    import signal
    import subprocess
    import sys
    import time

    db = str(tmp_path / "db")
    con = swingdb.connect(db)
    con.execute(SCHEMA[0])
    con.execute(SCHEMA[1])
    con.close()
    gen = random.Random(7)
    start = 0
    for _ in range(5):
        writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, db, str(start)], stdout=subprocess.PIPE, text=True)
        writer.stdout.readline()  # one write committed: the next is on its way
        time.sleep(gen.uniform(0.0, 0.15))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        con = swingdb.connect(db)
        start = con.sql("SELECT coalesce(max(id), -1) + 1 FROM t").fetchall()[0][0]
        for cust in (gen.randrange(97), gen.randrange(97)):
            sql = f"SELECT id FROM t WHERE cust = {cust}"
            assert _lookup_used(con, sql)
            assert _rows(con, sql) == _scan(con, sql), sql
            assert _rows(con, f"SELECT count(*) FROM t WHERE id BETWEEN {start - 5} AND {start + 5}") == [(5,)]
        con.close()
    con = swingdb.connect(db)
    con.collect_garbage()
    assert not [f for f in os.listdir(os.path.join(db, "keys")) if f.startswith("tmp-")]
