"""Rows deleted in many places of one large segment, against SQLite.

A segment keeps its deleted rows as runs of positions, in shared chunks of
about 64 runs (storage `manifest::deleted`): a write copies the chunk its
row falls in and shares the others, and versions are compared chunk by
chunk. A chunk lost, shared wrongly or compared wrongly shows a deleted row
again or hides a live one: a silent wrong answer. So the same random writes
(single rows, short ranges that join runs, re-inserted keys, transactions
committed and rolled back, statements that fail halfway) run on swingdb and
on SQLite; the table has 600,000 rows, so one segment gathers over a
thousand runs (several chunks) before it is rewritten, and after every batch
the totals, lookups by key and ranges must be equal, read by the writing
connection, a second connection and, at the end, another process.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys

import swingdb

ROWS = 600_000
TOTALS = "SELECT count(*), sum(v), sum(k * v) FROM t"


def _write(rng, cons):
    """One random write, run on both connections; both must succeed or both refuse it."""
    kind = rng.random()
    k = rng.randrange(ROWS + 1000)
    if kind < 0.5:
        sql, params = "UPDATE t SET v = v + 1 WHERE k = ?", [k]
    elif kind < 0.75:
        sql, params = "DELETE FROM t WHERE k = ?", [k]
    elif kind < 0.9:
        sql, params = "DELETE FROM t WHERE k BETWEEN ? AND ?", [k, k + rng.randrange(1, 6)]
    else:
        # A key that may be taken: refused by both, or re-inserted by both.
        sql, params = "INSERT INTO t VALUES (?, 1000)", [k]
    outcomes = []
    for con in cons:
        try:
            con.execute(sql, params)
            outcomes.append("ok")
        except (swingdb.IntegrityError, sqlite3.IntegrityError):
            outcomes.append("IntegrityError")
    assert outcomes[0] == outcomes[1], (sql, params, outcomes)


def test_scattered_writes_across_transactions_match_sqlite(tmp_path):
    path = str(tmp_path / "db")
    con = swingdb.connect(path)
    lite = sqlite3.connect(":memory:", isolation_level=None)
    for c in (con, lite):
        c.execute("CREATE TABLE t (k BIGINT PRIMARY KEY, v BIGINT)")
    con.execute(f"INSERT INTO t SELECT value, value % 97 FROM range({ROWS})")
    lite.executemany("INSERT INTO t VALUES (?, ?)", ((i, i % 97) for i in range(ROWS)))
    second = swingdb.connect(path)
    rng = random.Random(20261207)
    for batch in range(12):
        for _ in range(100):
            if rng.random() < 0.1:
                for c in (con, lite):
                    c.execute("BEGIN")
                for _ in range(rng.randrange(2, 7)):
                    _write(rng, (con, lite))
                end = rng.choice(["COMMIT", "ROLLBACK"])
                for c in (con, lite):
                    c.execute(end)
            else:
                _write(rng, (con, lite))
        expect = lite.execute(TOTALS).fetchall()
        assert con.execute(TOTALS).fetchall() == expect, f"batch {batch}"
        assert second.execute(TOTALS).fetchall() == expect, f"batch {batch}, second connection"
        for _ in range(20):
            k = rng.randrange(ROWS)
            point = "SELECT k, v FROM t WHERE k = ?"
            assert con.execute(point, [k]).fetchall() == lite.execute(point, [k]).fetchall(), k
            span = "SELECT k, v FROM t WHERE k BETWEEN ? AND ? ORDER BY k"
            assert con.execute(span, [k, k + 40]).fetchall() == lite.execute(span, [k, k + 40]).fetchall(), k
    code = f"import swingdb, sys; print(swingdb.connect(sys.argv[1]).execute({TOTALS!r}).fetchall())"
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True).stdout
    assert out.strip() == repr(lite.execute(TOTALS).fetchall())
