"""Writes by key without planning (sql::statements::keyed_write) against the
general path.

`UPDATE t SET c = ?, ... WHERE k = ?` and `DELETE FROM t WHERE k = ?` find
their rows through the key's runs and write them as the general path does.
The same statements run on two databases loaded alike, one with the short
path and one without (`key_lookup` switched off turns both the lookups and
the short path off); after each, the rows affected (or the error's class)
and the whole table must be equal. Values of every kind go into columns of
every type (casts, NULLs into NOT NULL, keys moved onto taken keys, CHECKs,
overflowing arithmetic), and the connection's count of statements run by
key shows which path ran.
"""

from __future__ import annotations

import datetime
import decimal
import os
import random
import subprocess
import sys

import pytest
import swingdb
from conftest import traced_python

ROWS = 12_000

CREATE = [
    "CREATE TABLE w (k INTEGER PRIMARY KEY, big BIGINT, small SMALLINT, f DOUBLE, dec DECIMAL(10, 2), "
    "s VARCHAR, d DATE, ts TIMESTAMP, b BOOLEAN, nn INTEGER NOT NULL, u VARCHAR UNIQUE, CHECK (small >= -1000))",
    "CREATE TABLE c (a VARCHAR, n BIGINT, x INTEGER, PRIMARY KEY (a, n))",
]

LOAD = [
    f"INSERT INTO w SELECT r, r * 1000, CAST(r % 500 AS SMALLINT), r / 8.0, CAST(r / 100.0 AS DECIMAL(10, 2)), "
    f"'s' || r, DATE '2020-01-01' + CAST(r % 900 AS INTEGER), TIMESTAMP '2020-01-01 00:00:00' + CAST(r || ' seconds' AS INTERVAL), "
    f"r % 2 = 0, CAST(r AS INTEGER), 'u' || r FROM range({ROWS}) AS x(r)",
    "INSERT INTO w VALUES (-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL)",
    f"INSERT INTO c SELECT 'a' || (r % 40), r, CAST(r AS INTEGER) FROM range({ROWS}) AS x(r)",
]

VALUES = [
    0, 1, -7, 2**31, 2**40, 1.5, -2.0, "text", "12", "2021-03-04", None, True, False,
    decimal.Decimal("3.25"), datetime.date(2022, 2, 2), datetime.datetime(2022, 2, 2, 3, 4, 5),
]
COLUMNS = ["big", "small", "f", "dec", "s", "d", "ts", "b", "nn", "u", "k"]
EXPRESSIONS = [
    "big = big + 1", "small = small + 30000", "small = -small", "f = f * 2 + 1", "dec = dec - 1",
    "s = s || 'x'", "nn = nn * 3", "big = CASE WHEN b THEN big ELSE 0 END", "u = NULL", "k = k + 100000",
    "b = b IS NULL", "small = small - 2000",
]


def _key(gen):
    return gen.choice([0, 1, 2, 5, ROWS - 1, ROWS + 3, -1, ROWS // 2]) if gen.random() < 0.5 else gen.randrange(ROWS)


def _statement(gen):
    """(sql, params) of a write by key."""
    k = _key(gen)
    kind = gen.randrange(5)
    if kind == 0:
        column = gen.choice(COLUMNS)
        return f"UPDATE w SET {column} = ? WHERE k = ?", [gen.choice(VALUES), k]
    if kind == 1:
        first, second = gen.sample(COLUMNS[:-1], 2)
        return f"UPDATE w SET {first} = ?, {second} = ? WHERE k = ?", [gen.choice(VALUES), gen.choice(VALUES), k]
    if kind == 2:
        return f"UPDATE w SET {gen.choice(EXPRESSIONS)}, s = ? WHERE w.k = ?", ["set", k]
    if kind == 3:
        return "DELETE FROM w WHERE k = ?", [gen.choice([k, None, "1"])]
    return "UPDATE c SET x = x + ? WHERE n = ? AND a = ?", [1, k, f"a{k % 40}"]


def _outcome(con, sql, params):
    try:
        return ("count", con.execute(sql, params).rowcount)
    except swingdb.Error as e:
        return ("error", type(e).__name__)


def _tables(con):
    return [con.sql(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in ("w", "c")]


@pytest.mark.parametrize("seed", [1, 2])
def test_writes_by_key_do_what_the_general_path_does(tmp_path, seed):
    gen = random.Random(seed)
    short, general = swingdb.connect(str(tmp_path / "short")), swingdb.connect(str(tmp_path / "general"))
    general.execute("SET disabled_optimizers = 'key_lookup'")
    for con in (short, general):
        for statement in CREATE + LOAD:
            con.execute(statement)
    ran = 0
    for round_ in range(8):
        explicit = round_ % 3 == 2
        if explicit:
            short.execute("BEGIN")
            general.execute("BEGIN")
        for _ in range(25):
            sql, params = _statement(gen)
            before = short._con._keyed_statements()
            outcome = _outcome(short, sql, params)
            ran += short._con._keyed_statements() - before
            assert outcome == _outcome(general, sql, params), (sql, params)
        assert _tables(short) == _tables(general), f"tables differ after round {round_}"
        if explicit:
            end = gen.choice(["COMMIT", "ROLLBACK"])
            short.execute(end)
            general.execute(end)
    assert general._con._keyed_statements() == 0
    # Many took the short path (the others fell back: a value whose cast
    # would round, a key value of another type; a failed one may count too).
    assert ran >= 80, ran
    short.close()
    reopened = swingdb.connect(str(tmp_path / "short"))
    assert _tables(reopened) == _tables(general)


def test_what_writes_by_key_leave_to_the_general_path(tmp_path):
    con = swingdb.connect(str(tmp_path / "db"))
    for statement in CREATE + LOAD:
        con.execute(statement)
    taken = [
        ("UPDATE w SET big = big + 1 WHERE k = ?", [5]),
        ("UPDATE w SET s = ?, f = ? WHERE k = ?", ["x", 2.5, 6]),
        ("UPDATE w SET nn = -nn WHERE k = 7", None),
        ("DELETE FROM w WHERE k = ?", [8]),
        ("DELETE FROM w WHERE k = ?", [None]),
        ("UPDATE c SET x = 0 WHERE a = ? AND n = ?", ["a5", 5]),
    ]
    for sql, params in taken:
        before = con._con._keyed_statements()
        assert _outcome(con, sql, params)[0] == "count"
        assert con._con._keyed_statements() == before + 1, f"the short path did not run {sql}"
    left = [
        ("UPDATE w SET big = big + 1 WHERE k = ? AND small > 0", [5]),
        ("UPDATE w SET big = ? WHERE s = ?", [1, "s5"]),
        ("UPDATE w SET big = abs(big) WHERE k = ?", [5]),
        ("UPDATE w SET big = big + ? WHERE k = ?", [1, 5]),
        ("UPDATE w SET d = now() WHERE k = ?", [5]),
        ("UPDATE w SET big = (SELECT max(n) FROM c) WHERE k = ?", [5]),
        ("UPDATE w SET small = 2.5 WHERE k = ?", [5]),
        ("UPDATE w SET k = ? WHERE k = ?", [7.0, 5]),
        ("DELETE FROM w WHERE k = ? RETURNING k", [5]),
        ("DELETE FROM c WHERE a = ?", ["a5"]),
        ("UPDATE c SET x = 1 WHERE a = ?", ["a5"]),
    ]
    for sql, params in left:
        before = con._con._keyed_statements()
        _outcome(con, sql, params)
        assert con._con._keyed_statements() == before, f"the short path ran {sql}"
    # now() is evaluated at each run by the general path, never kept.
    con.execute("UPDATE w SET ts = now() WHERE k = ?", [9])
    first = con.sql("SELECT ts FROM w WHERE k = 9").fetchall()
    con.execute("UPDATE w SET ts = now() WHERE k = ?", [9])
    assert con.sql("SELECT ts FROM w WHERE k = 9").fetchall() != first


def _bytes_written():
    """Bytes this process has passed to write calls (/proc/self/io)."""
    with open("/proc/self/io") as io:
        return int(next(line for line in io if line.startswith("wchar")).split()[1])


def _large_segments(path):
    folder = os.path.join(path, "segments")
    return sorted(f for f in os.listdir(folder) if os.path.getsize(os.path.join(folder, f)) > 1 << 20)


def test_single_row_updates_of_a_large_segment_mark_rows_without_rewriting_it(tmp_path):
    """700 UPDATEs of rows far apart leave 700 runs of marks on one segment of
    600,000 rows: it stays (a fixed limit of 512 runs rewrote it whole, with
    its key's index), each commit's record holds its one new mark (not all the
segment's), and
    another process reads every change from the records."""
    path = str(tmp_path / "db")
    con = swingdb.connect(path)
    con.execute("CREATE TABLE t (k BIGINT PRIMARY KEY, v DOUBLE)")
    con.execute("INSERT INTO t SELECT value, 0 FROM range(600000)")
    large = _large_segments(path)
    assert len(large) == 1
    written = _bytes_written()
    for i in range(700):
        con.execute("UPDATE t SET v = v + 1 WHERE k = ?", [i * 800 + 7])
    per_commit = (_bytes_written() - written) / 700
    assert _large_segments(path) == large, "the segment was rewritten"
    # Records that repeated every mark wrote 16.5 kB a commit here, 4.6 kB without.
    assert per_commit < 8192, f"{per_commit:.0f} bytes written a commit: the records repeat the marks"
    expect = [(600000, 700.0, 700)]
    assert con.sql("SELECT count(*), sum(v), count(*) FILTER (WHERE v = 1) FROM t").fetchall() == expect
    code = (
        "import swingdb, sys; c = swingdb.connect(sys.argv[1]); "
        "print(c.sql('SELECT count(*), sum(v), count(*) FILTER (WHERE v = 1) FROM t').fetchall())"
    )
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True).stdout
    assert out.strip() == repr(expect)


def test_a_segment_rewritten_by_updates_keeps_every_key_found_and_its_run_as_built(tmp_path):
    """600 UPDATEs of rows far apart pass the marks a 20,000-row segment
    holds (512 runs): it is rewritten without its deleted rows, and its
    key's run is derived from the old one (positions moved, no sort). Every
    key is still found, by lookup as by scan; a taken key is refused; and
    the saved run is byte for byte the one a fresh build makes."""
    path = str(tmp_path / "db")
    con = swingdb.connect(path)
    con.execute("CREATE TABLE t (k BIGINT PRIMARY KEY, v DOUBLE)")
    con.execute("INSERT INTO t SELECT (value * 7919) % 20000, value FROM range(20000)")
    before = set(os.listdir(os.path.join(path, "segments")))
    for i in range(600):
        con.execute("UPDATE t SET v = v + 1 WHERE k = ?", [i * 31 + 5])
    after = set(os.listdir(os.path.join(path, "segments")))
    folder = os.path.join(path, "segments")
    rewritten = max(after - before, key=lambda f: os.path.getsize(os.path.join(folder, f)), default=None)
    assert rewritten and os.path.getsize(os.path.join(folder, rewritten)) > 100_000, "the segment was not rewritten"
    rng = random.Random(7)
    for k in [5, 36, 31 * 599 + 5, 0, 19999, *(rng.randrange(20000) for _ in range(200))]:
        found = con.execute("SELECT k, v FROM t WHERE k = ?", [k]).fetchall()
        scanned = con.execute("SELECT k, v FROM t WHERE k + 0 = ?", [k]).fetchall()
        assert found == scanned and len(found) == 1, (k, found, scanned)
    with pytest.raises(swingdb.IntegrityError):
        con.execute("INSERT INTO t VALUES (?, 0)", [31 * 17 + 5])
    assert con.sql("SELECT count(*), count(DISTINCT k), sum(v) FROM t").fetchall() == [
        (20000, 20000, 20000 * 19999 / 2 + 600)
    ]
    keys = os.path.join(path, "keys")
    runs = {f: open(os.path.join(keys, f), "rb").read() for f in os.listdir(keys) if f.startswith(rewritten + ".")}
    assert len(runs) == 1, os.listdir(keys)
    con.close()
    for name in runs:
        os.remove(os.path.join(keys, name))
    # Another process builds the run afresh from the segment (an INSERT checks the key).
    code = "import swingdb, sys; c = swingdb.connect(sys.argv[1]); c.execute('INSERT INTO t VALUES (20000, 0)')"
    subprocess.run([sys.executable, "-c", code, path], check=True)
    for name, derived in runs.items():
        with open(os.path.join(keys, name), "rb") as built:
            assert built.read() == derived, "the derived run differs from a built one"


def test_single_row_writes_open_no_file_once_warm(tmp_path):
    """Autocommit writes by key, once the first ones ran, open no file: the
    commit lock's descriptor is kept (it was opened at every commit), and the
    runs of segments too small to have one saved are not looked for on disk
    (every UPDATE's new row probed `keys/` for a file that is never there)."""
    code = (
        "import os, sys, swingdb; con = swingdb.connect(sys.argv[1]); "
        "con.execute('CREATE TABLE t (k BIGINT PRIMARY KEY, v DOUBLE)'); "
        "con.execute('INSERT INTO t SELECT value, 0 FROM range(20000)'); "
        "[con.execute('UPDATE t SET v = v + 1 WHERE k = ?', [i]) for i in range(40)]; "
        "os.write(2, b'WARM\\n'); "
        "[con.execute('UPDATE t SET v = v + 1 WHERE k = ?', [i * 7]) for i in range(30)]; "
        "[con.execute('INSERT INTO t VALUES (?, 1)', [10**6 + i]) for i in range(30)]; "
        "[con.execute('DELETE FROM t WHERE k = ?', [i * 11]) for i in range(30)]; "
        "os.write(2, b'DONE\\n')"
    )
    lines = traced_python(code, "openat,write", tmp_path / "strace.log", tmp_path / "db")
    warm = next(i for i, line in enumerate(lines) if "WARM" in line)
    done = next(i for i, line in enumerate(lines) if "DONE" in line)
    opened = [line for line in lines[warm:done] if "openat(" in line]
    assert not [line for line in opened if "commit.lock" in line], opened
    assert not [line for line in opened if "/keys/" in line and "ENOENT" in line], opened
    v = dict.fromkeys(range(20000), 0.0)
    for k in [*range(40), *(i * 7 for i in range(30))]:
        v[k] += 1
    v.update({10**6 + i: 1.0 for i in range(30)})
    for i in range(30):
        del v[i * 11]
    db = swingdb.connect(str(tmp_path / "db"))
    assert db.sql("SELECT count(*), sum(v) FROM t").fetchall() == [(len(v), sum(v.values()))]
