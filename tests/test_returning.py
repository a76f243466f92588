"""RETURNING through the faces: Python's cursor (parameters, description,
Arrow results, DB-API errors while the write is undone), the shell, and
Flight SQL through ADBC. Its SQL answers are in tests/sql/returning.slt."""

import decimal
import shutil
import subprocess

import pytest
import swingdb


@pytest.fixture
def con(tmp_path):
    con = swingdb.connect(str(tmp_path / "r.swingdb"))
    con.execute("CREATE TABLE acct (id INTEGER PRIMARY KEY, owner VARCHAR, amt DECIMAL(10, 2) DEFAULT 1.50)")
    yield con
    con.close()


def test_a_write_returns_its_rows_with_parameters_and_description(con):
    cur = con.execute("INSERT INTO acct (id, owner) VALUES (?, ?), (?, ?) RETURNING id, owner, amt", [1, "ann", 2, "bob"])
    assert [d[0] for d in cur.description] == ["id", "owner", "amt"]
    assert cur.fetchall() == [(1, "ann", decimal.Decimal("1.50")), (2, "bob", decimal.Decimal("1.50"))]
    # A placeholder used only in RETURNING takes its value from the same list.
    cur = con.execute("UPDATE acct SET amt = amt + ? WHERE id = ? RETURNING id, amt * $3 AS scaled", [1, 2, 10])
    assert cur.fetchall() == [(2, decimal.Decimal("25.000"))]
    rows = con.execute("DELETE FROM acct WHERE owner = ? RETURNING *", ["ann"]).arrow()
    assert rows.column_names == ["id", "owner", "amt"] and rows.num_rows == 1
    assert con.execute("SELECT id FROM acct").fetchall() == [(2,)]


def test_a_failing_returning_clause_undoes_the_write_and_is_a_dbapi_error(con):
    con.execute("INSERT INTO acct VALUES (1, 'ann', 3)")
    with pytest.raises(swingdb.DataError):
        con.execute("UPDATE acct SET amt = 0 WHERE id = 1 RETURNING CAST(1 AS INTEGER) // CAST(amt AS INTEGER)")
    with pytest.raises(swingdb.ProgrammingError, match="nope"):
        con.execute("DELETE FROM acct RETURNING nope")
    assert con.execute("SELECT id, amt FROM acct").fetchall()[0][0] == 1
    assert str(con.execute("SELECT amt FROM acct").fetchone()[0]) == "3.00"
    # Inside a transaction, the failed statement alone is undone.
    con.execute("BEGIN")
    assert con.execute("INSERT INTO acct VALUES (2, 'bob', 1) RETURNING id").fetchall() == [(2,)]
    with pytest.raises(swingdb.IntegrityError):
        con.execute("INSERT INTO acct VALUES (2, 'dup', 1) RETURNING id")
    con.execute("COMMIT")
    assert con.execute("SELECT count(*) FROM acct").fetchone() == (2,)


def test_the_shell_prints_returned_rows(tmp_path):
    program = shutil.which("swingdb")
    assert program
    db = str(tmp_path / "cli.swingdb")
    subprocess.run([program, db, "-c", "CREATE TABLE t (id INTEGER, v VARCHAR)"], check=True, capture_output=True)
    out = subprocess.run(
        [program, db, "-c", "INSERT INTO t VALUES (7, 'seven') RETURNING v, id + 1 AS next"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert "seven" in out and "next" in out and "8" in out


def test_flight_sql_clients_get_returned_rows(flight_server):
    flightsql = pytest.importorskip("adbc_driver_flightsql.dbapi")
    from conftest import FLIGHT_TOKEN

    bearer = {"adbc.flight.sql.authorization_header": f"Bearer {FLIGHT_TOKEN}"}
    with flightsql.connect(flight_server(), db_kwargs=bearer, autocommit=True) as fc, fc.cursor() as cur:
        cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR)")
        cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        cur.execute("UPDATE t SET v = upper(v) WHERE id = ? RETURNING id, v", (2,))
        assert cur.fetchall() == [(2, "B")]
        cur.execute("SELECT v FROM t ORDER BY id")
        assert cur.fetchall() == [("a",), ("B",)]
