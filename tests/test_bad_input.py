"""A randomized test of bad input (issue 13's target): whatever a user throws
at swingdb (garbled SQL, wrong types, wrong parameters, odd API calls), the
error that reaches Python is a DB-API class (a swingdb.Error), never a
pyarrow, Rust or Python built-in exception, and the connection goes on."""

import math
import os
import random

import pytest
import swingdb

WORDS = [
    "SELECT", "FROM", "WHERE", "GROUP BY", "ORDER BY", "LIMIT", "INSERT INTO", "VALUES", "UPDATE", "SET", "DELETE",
    "CREATE TABLE", "DROP TABLE", "ALTER TABLE", "ADD COLUMN", "JOIN", "ON", "AS", "AND", "OR", "NOT", "NULL", "CAST(",
    "AS INTEGER)", "(", ")", ",", ";", "*", "+", "-", "/", "%", "=", "<", "'text'", "'", '"', "1", "0", "-1", "1e309",
    "9223372036854775807", "t", "u", "a", "b", "nope", "sum(", "avg(", "count(*)", "?", "$1", "$name", ":x", "->", "->>",
    "'{\"k\": 1}'", "read_csv('missing.csv')", "range(3)", "DATE '2024-13-45'", "TIMESTAMP 'x'", "DECIMAL(3,1)", "1.23456",
    "BEGIN", "COMMIT", "ROLLBACK", "SUMMARIZE", "UNION", "EXCEPT", "DISTINCT", "CASE WHEN", "THEN", "ELSE", "END",
    "[1, 2]", "x'00'", "--", "/*", "*/", "\u00e9", "\x00",
]
PARAMS = [None, 1, -1, 2**70, 1.5, math.nan, math.inf, "s", b"\x00\xff", True, [], {}, object(), ("timestamp",), (1, 2)]


VALUES = ["a", "b", "1", "0", "NULL", "'x'", "'2024-13-01'", "9223372036854775807", "-1", "1.5", "'{\"k\": [1]}'", "?", "$1"]
TEMPLATES = [
    "SELECT {v} / {v}, {v} * 9223372036854775807 FROM t",
    "SELECT CAST({v} AS {ty}) FROM t",
    "SELECT sum({v}) FROM t GROUP BY {v}",
    "INSERT INTO t VALUES ({v}, {v})",
    "INSERT INTO u VALUES ({v}, {v})",
    "UPDATE t SET a = {v} WHERE b = {v}",
    "SELECT {v} ->> {v} FROM t",
    "SELECT * FROM t WHERE a IN (SELECT {v} FROM u)",
    "SELECT substr({v}, {v}) FROM t",
    "SELECT date_trunc({v}, {v})",
    "COPY t TO {v}",
    "SELECT * FROM read_json({v})",
    "SUMMARIZE {v}",
]
TYPES = ["INTEGER", "BIGINT", "DATE", "TIMESTAMP", "DECIMAL(3,1)", "BOOLEAN", "VARCHAR", "JSON", "BLOB", "SMALLINT"]


def _statement(rng: random.Random) -> str:
    """Garbled SQL half the time, else almost-right SQL that fails while it runs or is fetched."""
    if rng.random() < 0.5:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    template = rng.choice(TEMPLATES)
    while "{v}" in template or "{ty}" in template:
        template = template.replace("{v}", rng.choice(VALUES), 1).replace("{ty}", rng.choice(TYPES), 1)
    return template


@pytest.mark.parametrize("seed", range(4))
def test_random_bad_input_only_ever_raises_dbapi_errors(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    monkeypatch.chdir(tmp_path)
    con = swingdb.connect(str(tmp_path / "db"))
    con.sql("CREATE TABLE t (a INTEGER, b VARCHAR)")
    con.sql("INSERT INTO t VALUES (1, 'x'), (2, NULL)")
    con.sql("CREATE TABLE u (a BIGINT PRIMARY KEY, b DOUBLE)")
    tried = failed = 0
    for _ in range(400):
        sql = _statement(rng)
        params = None
        if rng.random() < 0.3:
            params = [rng.choice(PARAMS) for _ in range(rng.randint(0, 3))]
        elif rng.random() < 0.1:
            params = {rng.choice(["x", "name", "k"]): rng.choice(PARAMS)}
        how = rng.choice(["fetchall", "df", "arrow", "numpy", "show", "cursor"])
        tried += 1
        try:
            if how == "cursor":
                con.execute(sql, params).fetchall()
                continue
            result = con.sql(sql, params)
            if result is not None:
                getattr(result, how)()
        except swingdb.Error:
            failed += 1
        except Exception as error:  # anything else is the defect this test looks for
            pytest.fail(f"{type(error).__module__}.{type(error).__name__} escaped for {sql!r} {params!r} ({how}): {error}")
        if con.in_transaction and rng.random() < 0.5:
            con.rollback()
    assert tried // 2 < failed < tried  # the input was mostly bad, and some of it ran
    if con.in_transaction:
        con.rollback()
    assert con.sql("SELECT count(*) FROM t").fetchall()[0][0] >= 0  # still usable


def test_copy_to_a_device_is_a_clear_error_not_an_internal_one(con):
    with pytest.raises(swingdb.OperationalError, match="COPY could not finish writing '/dev/null'"):
        con.sql("COPY (SELECT 1) TO '/dev/null' (FORMAT csv)")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
