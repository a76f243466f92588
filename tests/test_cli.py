import re
import shutil
import subprocess
import sys

import pytest

CLI = shutil.which("swingdb")
pytestmark = pytest.mark.skipif(CLI is None, reason="the swingdb shell is installed into .venv/bin by `make build`")

# The shell program built from swingdb-cli, and the `swingdb` command the Python
# package installs (`python -m swingdb`), which runs the same code in the extension.
SHELLS = {"program": [CLI], "python -m swingdb": [sys.executable, "-m", "swingdb"]}
COMMAND = SHELLS["program"]


@pytest.fixture(autouse=True, params=list(SHELLS))
def shell_command(request, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "COMMAND", SHELLS[request.param])


def cell(value) -> str:
    """A regex for a table cell holding `value` (numbers are right-aligned)."""
    return r"\|\s+" + re.escape(str(value)) + r"\s+\|"


def run(*args, stdin=None):
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, input=stdin, timeout=60)


def test_help():
    p = run("--help")
    assert p.returncode == 0 and "Usage" in p.stdout and "--command" in p.stdout


def test_one_shot_and_persistence(tmp_path):
    db = str(tmp_path / "cli.swingdb")
    assert run(db, "-c", "CREATE TABLE t AS SELECT 1 AS a, 'x' AS b").returncode == 0
    p = run(db, "-c", "SELECT * FROM t")
    assert p.returncode == 0
    assert "| a      | b       |" in p.stdout and "| BIGINT | VARCHAR |" in p.stdout
    assert "|      1 | x       |" in p.stdout and "1 row" in p.stdout


def test_error_exit_code():
    p = run("-c", "SELECT * FROM missing_table")
    assert p.returncode == 1 and "missing_table" in p.stderr


def test_script_on_stdin(tmp_path):
    p = run(str(tmp_path / "s.swingdb"), stdin="CREATE TABLE t (a INTEGER);\nINSERT INTO t VALUES (1), (2);\nSELECT sum(a) AS s FROM t;\n")
    assert p.returncode == 0 and re.search(cell(3), p.stdout)


def test_interactive_shell(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    db = str(tmp_path / "i.swingdb")
    child = pexpect.spawn(COMMAND[0], [*COMMAND[1:], db], encoding="utf-8", timeout=30, env={"HOME": str(tmp_path), "TERM": "dumb"})
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
    child.expect(r'CREATE TABLE "items" \(\r?\n    "id" INTEGER NOT NULL,\r?\n    "name" VARCHAR\r?\n\);')  # SQL type names, not Arrow's Utf8
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
    assert p.returncode == 0 and re.search(cell(23), p.stdout), p.stdout + p.stderr
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(123,)], "the shell changed its own copy only"
    p = run("discard", name)
    assert p.returncode == 0
    p = run("attach", name, "-c", "SELECT 1")
    assert p.returncode == 1 and f"no snapshot named '{name}'" in p.stderr
    con.close()


def test_script_goes_on_after_an_error_naming_its_line_unless_bail(tmp_path):
    script = "CREATE TABLE t (a INTEGER);\nINSERT INTO t VALUES (1), (2);\nSELECT count(*) AS n FROM t;\n\nSELECT nme\n  FROM t;\n.frobnicate\nSELECT 'after' AS x;\n"
    p = run(str(tmp_path / "s.swingdb"), stdin=script)
    assert p.returncode == 1  # an error happened
    assert "2 rows affected" in p.stdout and "| n " in p.stdout  # results of statements 2 and 3
    assert "Error (stdin line 5): No field named nme" in p.stderr
    assert "LINE 5: SELECT nme\n               ^^^" in p.stderr  # the caret counts lines of the script
    assert "Error (stdin line 7): unknown command .frobnicate; try .help" in p.stderr
    assert "after" in p.stdout  # as DuckDB's shell, the script went on
    bailed = run(str(tmp_path / "b.swingdb"), "-bail", stdin=script)
    assert bailed.returncode == 1 and "No field named nme" in bailed.stderr
    assert "after" not in bailed.stdout and "frobnicate" not in bailed.stderr
    both = run("-c", "SELECT 1 AS first; SELECT 2 AS second")
    assert "first" in both.stdout and "second" in both.stdout


def test_output_modes_and_mode_flags():
    sql = "SELECT * FROM (VALUES (1, 'a,b'), (2, NULL)) v(id, name) ORDER BY id"
    assert run("-csv", "-c", sql).stdout == 'id,name\n1,"a,b"\n2,\n'
    assert run("-json", "-c", sql).stdout == '[\n{"id":1,"name":"a,b"},\n{"id":2,"name":null}\n]\n'
    assert run("--mode", "markdown", "-c", sql).stdout == "| id  | name |\n|----:|------|\n|   1 | a,b  |\n|   2 | NULL |\n"
    nulls = run(stdin=".nullvalue (none)\n" + sql + ";\n.mode csv\n" + sql + ";\n.nullvalue\n" + sql + ";\n").stdout
    assert "| (none) |" in nulls.replace("  ", " ") and '2,(none)\n' in nulls and nulls.endswith('2,\n')
    assert "name = a,b" in run("-line", "-c", sql).stdout
    assert "│" in run("-box", "-c", sql).stdout
    script = ".mode json\n" + sql + ";\n.mode nope\n"
    p = run(stdin=script)
    assert '"id":1' in p.stdout and "unknown mode 'nope'; modes: table, box, csv, markdown, json, line" in p.stderr


def test_output_once_import_read_open_maxrows_tables_schema(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("Qty,region\n3,EU\n5,US\n")
    out, once, more = tmp_path / "out.txt", tmp_path / "once.txt", tmp_path / "more.sql"
    more.write_text("INSERT INTO sales VALUES (7, 'ASIA');\n.mode csv\nSELECT sum(qty) AS total FROM sales;\n")
    db = tmp_path / "other.swingdb"
    script = f"""
.import {data} sales
.once {once}
SELECT region FROM sales ORDER BY region;
.output {out}
SELECT count(*) AS n FROM sales;
.output
.read {more}
.mode table
.maxrows 4
SELECT * FROM range(100);
.tables sal
.tables nope
.schema sales
.open {db}
CREATE TABLE fresh (x INTEGER);
.tables
"""
    p = run(stdin=script)
    assert "2 rows imported into sales" in p.stdout
    assert "EU" in once.read_text() and "EU" not in p.stdout  # .once: only the next result went there
    assert re.search(cell(2), out.read_text())
    assert "total\n15\n" in p.stdout  # .read ran the file, its .mode csv included
    assert "100 rows (4 shown, 96 left out; .maxrows N shows more)" in p.stdout
    assert "sales" in p.stdout and "no table matches 'nope'" in p.stderr
    assert p.returncode == 1  # .tables nope failed; the script went on
    assert 'CREATE TABLE "sales" (\n    "Qty" BIGINT,\n    "region" VARCHAR\n);' in p.stdout and "fresh" in p.stdout
    p = run(stdin=".schema nope\n")
    assert "table 'nope' does not exist" in p.stderr
    p = run(stdin=f".open {db}\nCREATE TABLE fresh (x INTEGER);\n.tables\n")
    assert p.returncode == 0 and "fresh" in p.stdout and (db / "manifests").exists() or db.exists()


def test_tab_completion_and_a_narrow_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(COMMAND[0], COMMAND[1:], encoding="utf-8", timeout=30, env={"HOME": str(tmp_path), "TERM": "xterm"}, dimensions=(24, 40))
    child.expect("swingdb> ")
    child.sendline("CREATE TABLE inventory (warehouse_name VARCHAR, quantity_on_hand INTEGER, last_counted DATE, comment VARCHAR);")
    child.expect("swingdb> ")
    child.send("SELECT quantity_o\t FROM inven\t;\r")
    # Both names were completed, or the statement would fail: its result's header names the column.
    child.expect(r"\| quantity_on_hand \|")
    child.expect("0 rows")
    child.expect("swingdb> ")
    child.sendline("INSERT INTO inventory VALUES ('north', 3, DATE '2026-01-02', 'a long comment that goes on and on');")
    child.expect("swingdb> ")
    child.sendline("SELECT * FROM inventory;")
    child.expect("left out to fit the terminal; .mode line shows all")
    child.sendline(".quit")
    child.expect(pexpect.EOF)
