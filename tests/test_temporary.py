"""Temporary tables beyond one connection's SQL (tests/sql/temporary.slt has
that): another connection of the same handle or process never sees them,
they are gone when their connection closes, nothing of them is written to
the database's directory or shared in a snapshot, and the Python API's
table-name methods (table_names, insert, describe) find them first."""

import os

import pyarrow as pa
import pytest
import swingdb


def _files(path):
    return sorted(os.path.relpath(os.path.join(d, f), path) for d, _, fs in os.walk(path) for f in fs)


def test_temporary_tables_are_private_to_their_connection_and_gone_at_close(tmp_path):
    path = str(tmp_path / "db.swingdb")
    db = swingdb.connect(path)
    db.execute("CREATE TABLE kept (x INTEGER)")
    before = _files(path)
    db.execute("CREATE TEMP TABLE scratch AS SELECT value AS x FROM range(100000)")
    db.execute("CREATE TEMP TABLE kept (y VARCHAR)")
    assert db.execute("SELECT count(*) FROM scratch").fetchone() == (100000,)
    assert _files(path) == before, "a temporary table wrote to the database's directory"
    other = swingdb.connect(path)
    with pytest.raises(swingdb.ProgrammingError, match="scratch"):
        other.execute("SELECT * FROM scratch")
    assert [d[0] for d in other.execute("SELECT * FROM kept").description] == ["x"]
    assert [d[0] for d in db.execute("SELECT * FROM kept").description] == ["y"]
    assert "scratch" in db.table_names() and "scratch" not in other.table_names()
    other.close()
    db.close()
    again = swingdb.connect(path)
    with pytest.raises(swingdb.ProgrammingError, match="scratch"):
        again.execute("SELECT * FROM scratch")
    assert [d[0] for d in again.execute("SELECT * FROM kept").description] == ["x"]
    again.close()


def test_the_python_api_finds_temporary_tables_first(tmp_path):
    db = swingdb.connect(str(tmp_path / "db.swingdb"))
    db.execute("CREATE TABLE t (a BIGINT)")
    db.execute("CREATE TEMP TABLE t (a BIGINT, b VARCHAR)")
    assert db.insert("t", pa.table({"a": [1, 2], "b": ["x", "y"]})) == 2
    assert db.execute("SELECT a, b FROM t ORDER BY a").fetchall() == [(1, "x"), (2, "y")]
    assert db.execute("SELECT count(*) FROM main.t").fetchone() == (0,)
    assert [r[0] for r in db.execute("DESCRIBE t").fetchall()] == ["a", "b"]
    db.close()


def test_a_snapshot_holds_no_temporary_table(tmp_path):
    db = swingdb.connect(str(tmp_path / "db.swingdb"))
    db.execute("CREATE TABLE stored AS SELECT 1 AS x")
    db.execute("CREATE TEMP TABLE private AS SELECT 2 AS x")
    name = f"temp-{os.getpid()}"
    db.share(name)
    reader = swingdb.attach(name)
    assert "stored" in reader.table_names() and "private" not in reader.table_names()
    reader.close()
    db.close()


def test_a_failed_commit_undoes_the_temporary_tables_changes_too(tmp_path):
    # The stored database commits first, the temporary one only after it: a
    # transaction that loses a conflict on a stored table keeps nothing.
    path = str(tmp_path / "db.swingdb")
    a, b = swingdb.connect(path), swingdb.connect(path)
    a.execute("CREATE TABLE c (n INTEGER)")
    a.execute("INSERT INTO c VALUES (0)")
    a.execute("CREATE TEMP TABLE notes (s VARCHAR)")
    a.begin()
    b.begin()
    a.execute("INSERT INTO notes VALUES ('changed c')")
    a.execute("UPDATE c SET n = 10")
    b.execute("UPDATE c SET n = 20")
    b.commit()
    with pytest.raises(swingdb.ConflictError):
        a.commit()
    assert a.execute("SELECT count(*) FROM notes").fetchone() == (0,)
    assert a.execute("SELECT n FROM c").fetchone() == (20,)
    # Both change together when the commit succeeds.
    a.begin()
    a.execute("INSERT INTO notes VALUES ('changed c')")
    a.execute("UPDATE c SET n = 30")
    a.commit()
    assert a.execute("SELECT count(*) FROM notes").fetchone() == (1,)
    assert b.execute("SELECT n FROM c").fetchone() == (30,)
    a.close()
    b.close()
