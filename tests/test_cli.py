import shutil
import subprocess

import pytest

CLI = shutil.which("swingdb")
pytestmark = pytest.mark.skipif(CLI is None, reason="the swingdb shell is installed into .venv/bin by `make build`")


def run(*args, stdin=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, input=stdin, timeout=60)


def test_help():
    p = run("--help")
    assert p.returncode == 0 and "Usage" in p.stdout and "--command" in p.stdout


def test_one_shot_and_persistence(tmp_path):
    db = str(tmp_path / "cli.swingdb")
    assert run(db, "-c", "CREATE TABLE t AS SELECT 1 AS a, 'x' AS b").returncode == 0
    p = run(db, "-c", "SELECT * FROM t")
    assert p.returncode == 0
    assert "| a | b |" in p.stdout and "| 1 | x |" in p.stdout and "1 row" in p.stdout


def test_error_exit_code():
    p = run("-c", "SELECT * FROM missing_table")
    assert p.returncode == 1 and "missing_table" in p.stderr


def test_script_on_stdin(tmp_path):
    p = run(str(tmp_path / "s.swingdb"), stdin="CREATE TABLE t (a INTEGER);\nINSERT INTO t VALUES (1), (2);\nSELECT sum(a) AS s FROM t;\n")
    assert p.returncode == 0 and "| 3 |" in p.stdout


def test_interactive_shell(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    db = str(tmp_path / "i.swingdb")
    child = pexpect.spawn(CLI, [db], encoding="utf-8", timeout=30, env={"HOME": str(tmp_path), "TERM": "dumb"})
    child.expect("swingdb> ")
    child.sendline("CREATE TABLE items (id INTEGER NOT NULL,")
    child.expect(r"\.\.\.> ")
    child.sendline("name VARCHAR);")
    child.expect("swingdb> ")
    child.sendline("INSERT INTO items VALUES (1, 'apple');")
    child.expect("1 row affected")
    child.sendline(".tables")
    child.expect("items")
    child.sendline(".schema items")
    child.expect(r"name\s+\| VARCHAR")  # SQL type names, not Arrow's Utf8
    child.sendline(".schema nope")
    child.expect("table 'nope' does not exist")
    child.sendline(".timer on")
    child.sendline("SELECT name FROM items;")
    child.expect("apple")
    child.expect("Run Time")
    child.sendline(".help")
    child.expect(".tables")
    child.sendline(".quit")
    child.expect(pexpect.EOF)
    assert (tmp_path / ".swingdb_history").exists()


def test_snapshots_attach_and_discard_from_the_shell():
    import os

    import swingdb

    name = f"cli-{os.getpid()}"
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS v FROM range(123)")
    con.share(name)
    p = run("snapshots")
    assert p.returncode == 0 and name in p.stdout and f"pid {os.getpid()}" in p.stdout and "123" in p.stdout, p.stdout
    p = run("attach", name, "-c", "DELETE FROM t WHERE v < 100; SELECT count(*) AS n FROM t")
    assert p.returncode == 0 and "| 23 |" in p.stdout, p.stdout + p.stderr
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(123,)], "the shell changed its own copy only"
    p = run("discard", name)
    assert p.returncode == 0
    p = run("attach", name, "-c", "SELECT 1")
    assert p.returncode == 1 and f"no snapshot named '{name}'" in p.stderr
    con.close()
