"""ATTACH 'other.swingdb' AS o: several databases in one connection, read and
written as o.table, with DuckDB's habits (alias from the file name, READ_ONLY,
one written database per transaction). The same SQL in memory is compared with
SQLite and DuckDB in tests/sql/attach.slt."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import swingdb


@pytest.fixture
def other(tmp_path):
    """A database of its own on disk, with one table."""
    path = tmp_path / "other.swingdb"
    con = swingdb.connect(str(path))
    con.execute("CREATE TABLE scores AS SELECT value AS id, value * 10 AS score FROM range(5)")
    con.close()
    return path


def test_attached_tables_are_read_joined_and_written_then_kept_in_their_own_database(tmp_path, other):
    con = swingdb.connect(str(tmp_path / "main.swingdb"))
    con.execute("CREATE TABLE people AS SELECT value AS id, 'p' || value AS name FROM range(3)")
    con.execute(f"ATTACH '{other}' AS o")
    assert con.sql("SELECT sum(score) FROM o.scores").fetchall() == [(100,)]
    joined = con.sql("SELECT name, score FROM people JOIN o.scores USING (id) ORDER BY id").fetchall()
    assert joined == [("p0", 0), ("p1", 10), ("p2", 20)]
    con.execute("INSERT INTO o.scores SELECT id + 100, 1 FROM people")
    con.execute("CREATE TABLE o.copied AS SELECT * FROM people")
    con.execute("UPDATE o.scores SET score = -1 WHERE id = 0")
    con.execute("DELETE FROM o.scores WHERE id = 4")
    con.execute("ALTER TABLE o.scores ADD COLUMN note VARCHAR")
    con.execute("CREATE VIEW o.top AS SELECT id FROM scores WHERE score > 15")
    con.close()

    # Opened on its own, the other database holds what was written through the attachment,
    # as its own tables (its view reads its own `scores`, not main's).
    alone = swingdb.connect(str(other))
    assert sorted(alone.table_names()) == ["copied", "scores", "top"]
    assert alone.sql("SELECT count(*), sum(score) FROM scores").fetchall() == [(7, 62)]
    assert alone.sql("SELECT * FROM top ORDER BY id").fetchall() == [(2,), (3,)]
    assert [c[0] for c in alone.sql("SELECT * FROM scores").description] == ["id", "score", "note"]
    assert alone.sql("SELECT count(*) FROM copied").fetchall() == [(3,)]
    # ... and main was not changed by any of it.
    main = swingdb.connect(str(tmp_path / "main.swingdb"))
    assert main.table_names() == ["people"]


def test_attached_results_are_zero_copy_views_of_the_attached_files(other):
    # Rows enough for a segment file (a few rows live in the manifest).
    writer = swingdb.connect(str(other))
    writer.execute("CREATE TABLE many AS SELECT value AS id FROM range(100000)")
    writer.close()
    con = swingdb.connect()
    con.execute(f"ATTACH '{other}' AS o")
    arrays = con.sql("SELECT id FROM o.many").numpy()
    ids = arrays["id"]
    assert ids.tolist() == list(range(100000))
    assert not ids.flags.writeable
    # The values live in a mapping of one of the attached database's segment files.
    address = ids.__array_interface__["data"][0]
    with open("/proc/self/maps") as maps:
        files = [line.split()[-1] for line in maps if _contains(line, address)]
    assert files and str(other) in files[0], files


def _contains(maps_line, address):
    start, end = (int(x, 16) for x in maps_line.split()[0].split("-"))
    return start <= address < end


def test_duckdb_spelling_alias_from_the_file_name_and_read_only(tmp_path, other):
    con = swingdb.connect()
    con.execute(f"ATTACH DATABASE IF NOT EXISTS '{other}' (READ_ONLY)")
    con.execute(f"ATTACH IF NOT EXISTS '{other}' (READ_ONLY)")  # already there: nothing to do
    assert con.sql("SELECT count(*) FROM other.scores").fetchall() == [(5,)]
    with pytest.raises(swingdb.OperationalError, match="read-only"):
        con.execute("INSERT INTO other.scores VALUES (9, 9)")
    assert con.sql("SELECT count(*) FROM other.scores").fetchall() == [(5,)]
    con.execute("DETACH other")
    with pytest.raises(swingdb.ProgrammingError):
        con.sql("SELECT * FROM other.scores").fetchall()
    # A read-only attach creates nothing.
    with pytest.raises(swingdb.Error, match="missing.swingdb"):
        con.execute(f"ATTACH '{tmp_path / 'missing.swingdb'}' AS m (READ_ONLY)")
    assert not (tmp_path / "missing.swingdb").exists()
    # Without READ_ONLY, a missing database is created, as DuckDB creates one.
    con.execute(f"ATTACH '{tmp_path / 'fresh.swingdb'}' AS f")
    con.execute("CREATE TABLE f.x AS SELECT 1 AS a")
    assert swingdb.connect(str(tmp_path / "fresh.swingdb")).sql("SELECT a FROM x").fetchall() == [(1,)]


def test_one_written_database_per_transaction_and_rollback_of_the_attached_one(tmp_path, other):
    con = swingdb.connect(str(tmp_path / "main.swingdb"))
    con.execute("CREATE TABLE t (a INTEGER)")
    con.execute(f"ATTACH '{other}' AS o")
    con.begin()
    con.execute("INSERT INTO o.scores VALUES (50, 500)")
    con.execute("INSERT INTO o.scores VALUES (51, 510)")
    with pytest.raises(swingdb.ProgrammingError, match="already changed database 'o'"):
        con.execute("INSERT INTO t VALUES (1)")
    # Also the short ways of statements with parameters (regression: a
    # parameterised single-row INSERT and executemany went unchecked).
    with pytest.raises(swingdb.ProgrammingError, match="already changed database 'o'"):
        con.execute("INSERT INTO t VALUES (?)", [1])
    with pytest.raises(swingdb.ProgrammingError, match="already changed database 'o'"):
        con.executemany("INSERT INTO t VALUES (?)", [[1], [2]])
    # The refused statement changed nothing, the transaction goes on.
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]
    assert con.sql("SELECT count(*) FROM o.scores").fetchall() == [(7,)]
    with pytest.raises(swingdb.ProgrammingError, match="COMMIT or ROLLBACK before DETACH"):
        con.execute("DETACH o")
    con.rollback()
    assert con.sql("SELECT count(*) FROM o.scores").fetchall() == [(5,)]
    con.begin()
    con.execute("INSERT INTO o.scores VALUES (50, 500)")
    con.commit()
    assert swingdb.connect(str(other)).sql("SELECT count(*) FROM scores").fetchall() == [(6,)]
    # A statement naming tables of two databases as its targets is refused before it runs.
    with pytest.raises(swingdb.ProgrammingError, match="two databases"):
        con.execute("DROP TABLE t, o.scores")
    assert con.table_names() == ["t"]


def test_every_connection_of_the_handle_sees_the_attachment_in_its_own_transaction(other):
    first = swingdb.connect()
    first.execute(f"ATTACH '{other}' AS o")
    second = swingdb.Connection(first._db)  # another connection of the same handle
    second.begin()
    assert second.sql("SELECT count(*) FROM o.scores").fetchall() == [(5,)]
    first.execute("INSERT INTO o.scores VALUES (7, 70)")
    # second's transaction reads the version it began with.
    assert second.sql("SELECT count(*) FROM o.scores").fetchall() == [(5,)]
    second.commit()
    assert second.sql("SELECT count(*) FROM o.scores").fetchall() == [(6,)]


def test_another_process_writing_the_attached_database_is_seen_at_the_next_statement(other):
    con = swingdb.connect()
    con.execute(f"ATTACH '{other}' AS o")
    assert con.sql("SELECT count(*) FROM o.scores").fetchall() == [(5,)]
    code = "import sys, swingdb; swingdb.connect(sys.argv[1]).execute('INSERT INTO scores VALUES (99, 990)')"
    subprocess.run([sys.executable, "-c", code, str(other)], check=True, timeout=120)
    assert con.sql("SELECT max(id) FROM o.scores").fetchall() == [(99,)]


def test_processes_writing_one_database_through_attachments_lose_no_commit(tmp_path, other):
    writer = textwrap.dedent(
        """
        import sys, swingdb
        con = swingdb.connect()
        con.execute(f"ATTACH '{sys.argv[1]}' AS o")
        done = 0
        while done < 15:
            try:
                con.execute("UPDATE o.scores SET score = score + 1 WHERE id = 0")
                done += 1
            except swingdb.ConflictError:
                pass
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(other)]) for _ in range(3)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    assert swingdb.connect(str(other)).sql("SELECT score FROM scores WHERE id = 0").fetchall() == [(45,)]


def test_in_memory_attachments_and_detach(con):
    con.execute("ATTACH ':memory:' AS scratch")
    con.execute("CREATE TABLE scratch.x AS SELECT * FROM range(4)")
    assert con.sql("SELECT sum(value) FROM scratch.x").fetchall() == [(6,)]
    names = con.sql(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = 'scratch'"
    ).fetchall()
    assert names == [("scratch", "x")]
    con.execute("DETACH DATABASE scratch")
    con.execute("DETACH DATABASE IF EXISTS scratch")
    with pytest.raises(swingdb.ProgrammingError, match="no database or snapshot is attached as 'scratch'"):
        con.execute("DETACH scratch")
    # Attached again, the in-memory database is a new, empty one.
    con.execute("ATTACH ':memory:' AS scratch")
    assert con.sql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'scratch'").fetchall() == [(0,)]


def test_mistakes_get_errors_that_say_what_to_do(tmp_path, other):
    db = tmp_path / "main.swingdb"
    con = swingdb.connect(str(db))
    with pytest.raises(swingdb.ProgrammingError, match="own database"):
        con.execute(f"ATTACH '{db}' AS again")
    with pytest.raises(swingdb.ProgrammingError, match="taken by swingdb's own schema"):
        con.execute(f"ATTACH '{other}' AS main")
    con.execute(f"ATTACH '{other}' AS o")
    with pytest.raises(swingdb.ProgrammingError, match="already attached as 'o'"):
        con.execute(f"ATTACH '{tmp_path / 'x.swingdb'}' AS o")
    with pytest.raises(swingdb.ProgrammingError, match="already attached as 'o'"):
        con.execute(f"ATTACH '{other}' AS p")
    with pytest.raises(swingdb.NotSupportedError, match="TYPE sqlite"):
        con.execute(f"ATTACH '{tmp_path / 'x.db'}' AS s (TYPE sqlite)")
    with pytest.raises(swingdb.ProgrammingError, match="no database is attached as .nowhere.*ATTACH .path. AS nowhere"):
        con.execute("INSERT INTO nowhere.t VALUES (1)")
    with pytest.raises(swingdb.ProgrammingError, match="needs a name"):
        con.execute("ATTACH ':memory:'")
    locked = swingdb.connect(external_access=False)
    with pytest.raises(swingdb.ProgrammingError, match="external access is disabled"):
        locked.execute(f"ATTACH '{other}' AS o")


def test_attach_inside_a_transaction_joins_it(other):
    con = swingdb.connect()
    con.begin()
    con.execute(f"ATTACH '{other}' AS o")
    con.execute("INSERT INTO o.scores VALUES (8, 80)")
    assert con.sql("SELECT count(*) FROM o.scores").fetchall() == [(6,)]
    con.rollback()
    assert con.sql("SELECT count(*) FROM o.scores").fetchall() == [(5,)]
    assert np.array_equal(con.sql("SELECT id FROM o.scores ORDER BY id").numpy()["id"], np.arange(5))


def test_the_shell_attaches_and_lists_databases(tmp_path, other):
    from test_cli import CLI, run

    if CLI is None:
        pytest.skip("the swingdb shell is installed into .venv/bin by `make build`")
    script = f"ATTACH '{other}' AS o (READ_ONLY);\nATTACH ':memory:' AS m;\n.databases\nSELECT count(*) AS n FROM o.scores;\n"
    p = run("-csv", str(tmp_path / "main.swingdb"), stdin=script)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert f"main: {tmp_path / 'main.swingdb'}" in lines
    assert "m: :memory:" in lines
    assert f"o: {other} (read-only)" in lines
    assert lines[-2:] == ["n", "5"]

