"""Sequences (CREATE SEQUENCE, nextval) across connections, processes,
crashes, snapshots and exports: a value is never handed out twice."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import swingdb

from stress.manifests import newest_manifest

TAKER = textwrap.dedent(
    """
    import random, sys, swingdb
    con = swingdb.connect(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    for _ in range(int(sys.argv[3])):
        rows = rng.choice([1, 1, 2, 7, 100, 9000])
        values = [v for (v,) in con.sql(f"SELECT nextval('s') FROM range({rows})").fetchall()]
        print(" ".join(map(str, values)), "end", flush=True)
    """
)


def _taken(outputs):
    """The values the takers printed, in whole lines only: a taker killed
    while printing leaves a line cut anywhere (in the middle of a number)."""
    lines = [line.split() for out in outputs for line in out.splitlines()]
    return [int(v) for words in lines if words[-1:] == ["end"] for v in words[:-1]]


def test_processes_taking_values_at_once_get_each_value_once_and_none_is_skipped(db_path):
    swingdb.connect(db_path).sql("CREATE SEQUENCE s")
    takers = [subprocess.Popen([sys.executable, "-c", TAKER, db_path, str(seed), "40"], stdout=subprocess.PIPE, text=True) for seed in range(4)]
    outputs = [t.communicate(timeout=300)[0] for t in takers]
    assert all(t.returncode == 0 for t in takers)
    values = _taken(outputs)
    assert len(values) > 1000
    assert sorted(values) == list(range(1, len(values) + 1)), "each value once, and no gap without a failure"
    assert swingdb.connect(db_path).sql("SELECT nextval('s')").fetchall() == [(len(values) + 1,)]


def test_takers_killed_at_random_never_make_a_value_be_given_twice(db_path):
    swingdb.connect(db_path).sql("CREATE SEQUENCE s")
    rng = random.Random(7)
    outputs = []
    for round_ in range(6):
        takers = [subprocess.Popen([sys.executable, "-c", TAKER, db_path, str(round_ * 10 + k), "100000"], stdout=subprocess.PIPE, text=True) for k in range(3)]
        time.sleep(0.6 + rng.random())
        for t in takers:
            t.send_signal(signal.SIGKILL)
        outputs += [t.communicate(timeout=60)[0] for t in takers]
    values = _taken(outputs)
    assert len(values) > 100, "the takers got going before they were killed"
    assert len(set(values)) == len(values), "a value was handed out twice"
    (after,) = swingdb.connect(db_path).sql("SELECT nextval('s')").fetchone()
    assert after > max(values), "the counter went back behind a value already handed out"


def test_a_sequence_is_stored_and_fills_defaults_after_reopening(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE SEQUENCE ids START WITH 100 INCREMENT BY 10")
    con.sql("CREATE TABLE t (id BIGINT DEFAULT nextval('ids'), name VARCHAR)")
    con.sql("INSERT INTO t (name) VALUES ('a'), ('b')")
    con.close()
    con = swingdb.connect(db_path)
    con.sql("INSERT INTO t (name) SELECT 'c'")
    assert con.sql("SELECT id, name FROM t ORDER BY id").fetchall() == [(100, "a"), (110, "b"), (120, "c")]
    assert con.sql("SELECT currval('ids')").fetchall() == [(120,)]
    assert newest_manifest(db_path)["format_version"] == 6, "older builds must refuse a database with a sequence"
    # Neither a table nor listed as one.
    assert con.sql("SHOW TABLES").fetchall() == [("t",)]
    with pytest.raises(swingdb.ProgrammingError, match="'ids' is a sequence, not a table"):
        con.sql("SELECT * FROM ids")
    with pytest.raises(swingdb.ProgrammingError, match="'ids' is a sequence, not a table; use DROP SEQUENCE"):
        con.sql("DROP TABLE ids")


def test_values_taken_in_a_rolled_back_transaction_are_not_given_again(con):
    con.sql("CREATE SEQUENCE s")
    con.begin()
    assert con.sql("SELECT nextval('s')").fetchall() == [(1,)]
    con.rollback()
    assert con.sql("SELECT nextval('s')").fetchall() == [(2,)]
    # A sequence created in a rolled-back transaction is gone, with its counter.
    con.begin()
    con.sql("CREATE SEQUENCE r")
    con.sql("SELECT nextval('r')").fetchall()
    con.rollback()
    with pytest.raises(swingdb.ProgrammingError, match="sequence 'r' does not exist"):
        con.sql("SELECT nextval('r')").fetchall()


def test_a_dropped_sequences_counter_is_collected(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE SEQUENCE s")
    def counters():
        return [f for f in os.listdir(os.path.join(db_path, "segments")) if f.endswith(".seq")]

    assert len(counters()) == 1
    con.sql("DROP SEQUENCE s")
    con.close()
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE x (a INT)")  # a commit, and a collection after it
    con.sql("DROP TABLE x")
    assert counters() == []


def test_a_snapshot_goes_on_from_the_value_it_was_shared_with_apart_from_its_source():
    name = f"seq-{os.getpid()}"
    con = swingdb.connect()
    con.sql("CREATE SEQUENCE s")
    con.sql("SELECT nextval('s') FROM range(5)").fetchall()
    con.share(name)
    attached = swingdb.attach(name)
    assert attached.sql("SELECT nextval('s')").fetchall() == [(6,)]
    assert con.sql("SELECT nextval('s')").fetchall() == [(6,)], "the attacher took nothing from the source"
    again = swingdb.attach(name)
    assert again.sql("SELECT nextval('s')").fetchall() == [(6,)], "the snapshot itself was not advanced"
    for c in (attached, again, con):
        c.close()


def test_export_writes_a_sequence_starting_where_it_would_go_on(tmp_path):
    src = swingdb.connect(str(tmp_path / "src"))
    src.sql("CREATE SEQUENCE s INCREMENT BY 5 MAXVALUE 1000 CYCLE")
    src.sql("CREATE TABLE t (id BIGINT DEFAULT nextval('s'), x INT)")
    src.sql("INSERT INTO t (x) VALUES (1), (2)")
    src.sql(f"EXPORT DATABASE '{tmp_path / 'out'}'")
    dst = swingdb.connect(str(tmp_path / "dst"))
    dst.sql(f"IMPORT DATABASE '{tmp_path / 'out'}'")
    dst.sql("INSERT INTO t (x) VALUES (3)")
    assert dst.sql("SELECT id, x FROM t ORDER BY x").fetchall() == [(1, 1), (6, 2), (11, 3)]
    src.sql("CREATE SEQUENCE done MAXVALUE 1")
    src.sql("SELECT nextval('done')").fetchall()
    with pytest.raises(swingdb.ProgrammingError, match="sequence 'done' ran out"):
        src.sql(f"EXPORT DATABASE '{tmp_path / 'again'}'")


def test_mistakes_with_sequences_say_what_to_do(con):
    con.sql("CREATE SEQUENCE s MAXVALUE 2")
    with pytest.raises(swingdb.ProgrammingError, match="nextval was not called"):
        con.sql("SELECT currval('s')").fetchall()
    con.sql("SELECT nextval('s') FROM range(2)").fetchall()
    with pytest.raises(swingdb.DataError, match=r"sequence 's' reached its maximum value \(2\)"):
        con.sql("SELECT nextval('s')").fetchall()
    with pytest.raises(swingdb.ProgrammingError, match="sequence 's' already exists; use CREATE OR REPLACE SEQUENCE"):
        con.sql("CREATE SEQUENCE s")
    with pytest.raises(swingdb.ProgrammingError, match="INCREMENT must not be 0"):
        con.sql("CREATE SEQUENCE z INCREMENT BY 0")
    with pytest.raises(swingdb.ProgrammingError, match=r"START value \(0\) must lie between MINVALUE \(1\)"):
        con.sql("CREATE SEQUENCE z START 0")
    with pytest.raises(swingdb.ProgrammingError, match="sequence 'nope' does not exist"):
        con.sql("SELECT nextval('nope')").fetchall()
    with pytest.raises(swingdb.ProgrammingError, match="takes the name of a sequence"):
        con.sql("SELECT nextval(name) FROM (VALUES ('s')) v(name)").fetchall()
    con.sql("CREATE OR REPLACE SEQUENCE s")
    assert con.sql("SELECT nextval('s')").fetchall() == [(1,)]


def test_a_read_only_connection_takes_no_value(db_path):
    swingdb.connect(db_path).sql("CREATE SEQUENCE s")
    reader = swingdb.connect(db_path, read_only=True)
    with pytest.raises(swingdb.OperationalError, match="open read-only"):
        reader.sql("SELECT nextval('s')").fetchall()
    assert swingdb.connect(db_path).sql("SELECT nextval('s')").fetchall() == [(1,)]


def test_a_sequence_named_with_another_databases_name_is_refused_not_taken_from_this_one(tmp_path):
    other = swingdb.connect(str(tmp_path / "other"))
    other.sql("CREATE SEQUENCE s START 100")
    other.close()
    con = swingdb.connect(str(tmp_path / "main"))
    con.sql("CREATE SEQUENCE s")
    con.sql(f"ATTACH '{tmp_path / 'other'}' AS o")
    with pytest.raises(swingdb.ProgrammingError, match=r"only sequences of this connection's own database \(main\)"):
        con.sql("SELECT nextval('o.s')").fetchall()
    assert con.sql("SELECT nextval('main.s')").fetchall() == [(1,)]
    assert con.sql("SELECT nextval('s')").fetchall() == [(2,)]
