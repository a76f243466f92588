"""Forty-odd common mistakes, each run on swingdb and on DuckDB side by side.
swingdb's message must be a DB-API class, name what the mistake is about,
point at it with a caret wherever DuckDB does, and show none of the engine's
insides (Arrow type names, Rust syntax trees, "internal error", DataFusion).
Each entry: the statement, the class, and what the message must contain."""

import re

import duckdb
import pytest
import swingdb

SETUP = [
    "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, qty INTEGER, price DECIMAL(10,2), day DATE)",
    "INSERT INTO t VALUES (1, 'ann', 3, 1.50, DATE '2024-01-01')",
    "CREATE TABLE u (id INTEGER, note VARCHAR)",
    "CREATE VIEW v AS SELECT id, name FROM t",
]

MISTAKES = [
    ("SELECT nme FROM t", swingdb.ProgrammingError, ["nme", "Did you mean", "name"]),
    ("SELECT avrage(qty) FROM t", swingdb.ProgrammingError, ["'avrage'", "Did you mean 'avg'"]),
    ("SELECT name, sum(qty) FROM t", swingdb.ProgrammingError, ['column "name"', "GROUP BY name"]),
    ("INSERT INTO t VALUES ('x', 'b', 2, 1, NULL)", swingdb.DataError, ["'x'", "INTEGER"]),
    ("SELECT qty / 0 FROM t", swingdb.DataError, ["Division by zero"]),
    ("SELECT * FROM t WHERE name = 1", swingdb.DataError, ["'ann'", "column name", "BIGINT"]),
    ("SELECT name + 1 FROM t", swingdb.ProgrammingError, ["VARCHAR + BIGINT"]),
    ("INSERT INTO t VALUES (2, 'b')", swingdb.ProgrammingError, ['table "t"', "5 columns", "2 values"]),
    ("INSERT INTO t (id, name) VALUES (2, 'b', 3)", swingdb.ProgrammingError, ["INSERT INTO t", "2 columns", "3 values"]),
    ("INSERT INTO t VALUES (2, NULL, 1, 1, NULL)", swingdb.IntegrityError, ["column 'name'", "table 't'", "NOT NULL"]),
    ("INSERT INTO t (name, id) VALUES ('b', NULL)", swingdb.IntegrityError, ["column 'id'", "table 't'"]),
    ("INSERT INTO t VALUES (1, 'dup', 1, 1, NULL)", swingdb.IntegrityError, ["table 't'", "id = 1"]),
    ("SELECT * FROM tt", swingdb.ProgrammingError, ["'tt'", "Did you mean 't'"]),
    ("SELECT t.nme FROM t", swingdb.ProgrammingError, ["nme", "t.name"]),
    ("SELECT x.id FROM t", swingdb.ProgrammingError, ["x.id"]),
    ("SELECT id FROM t, u", swingdb.ProgrammingError, ['"id" is ambiguous']),
    ("SELECT * FROM t WHERE", swingdb.ProgrammingError, ["syntax error"]),
    ("SELEC * FROM t", swingdb.ProgrammingError, ["SELEC"]),
    ("SELECT * FROM t ORDER BY 9", swingdb.ProgrammingError, ["ORDER BY 9", "5"]),
    ("SELECT * FROM t GROUP BY 9", swingdb.ProgrammingError, ["GROUP BY 9", "5"]),
    ("SELECT sum(name) FROM t", swingdb.ProgrammingError, ["sum(VARCHAR)"]),
    ("SELECT upper(qty) FROM t", swingdb.ProgrammingError, ["upper(INTEGER)"]),
    ("SELECT abs('x')", swingdb.ProgrammingError, ["abs(VARCHAR)"]),
    ("SELECT substr('abc')", swingdb.ProgrammingError, ["substr", "start"]),
    ("SELECT CAST('abc' AS INTEGER)", swingdb.DataError, ["'abc'", "INTEGER"]),
    ("SELECT CAST(name AS INTEGER) FROM t", swingdb.DataError, ["'ann'", "column name", "INTEGER"]),
    ("SELECT DATE '2024-13-45'", swingdb.DataError, ["'2024-13-45'", "DATE"]),
    ("SELECT 2147483647::INTEGER + 1::INTEGER", swingdb.DataError, ["INTEGER", "2147483647 + 1"]),
    ("CREATE TABLE t (a INT)", swingdb.ProgrammingError, ["'t' already exists"]),
    ("DROP TABLE nope", swingdb.ProgrammingError, ["'nope' does not exist"]),
    ("ALTER TABLE t ADD COLUMN qty INTEGER", swingdb.ProgrammingError, ["'qty'", "already exists"]),
    ("ALTER TABLE t DROP COLUMN nope", swingdb.ProgrammingError, ["'nope'", "table 't'"]),
    ("ALTER TABLE nope ADD COLUMN a INT", swingdb.ProgrammingError, ["'nope' does not exist"]),
    ("UPDATE t SET nope = 1", swingdb.ProgrammingError, ["nope", "name"]),
    ("UPDATE t SET qty = 'many'", swingdb.DataError, ["'many'", "INTEGER"]),
    ("DELETE FROM nope", swingdb.ProgrammingError, ["'nope' does not exist"]),
    ("INSERT INTO v VALUES (5, 'z')", swingdb.ProgrammingError, ["'v' is a view"]),
    ("SELECT * FROM t JOIN u ON t.id = u.nope", swingdb.ProgrammingError, ["u.nope", "u.note"]),
    ("SELECT * FROM t UNION SELECT * FROM u", swingdb.ProgrammingError, ["UNION", "number of columns"]),
    ("SELECT (SELECT id FROM t UNION ALL SELECT 2)", swingdb.ProgrammingError, ["more than one row"]),
    ("SELECT count(*) FROM t HAVING nope > 1", swingdb.ProgrammingError, ["nope"]),
    ("SELECT * FROM t LIMIT -1", swingdb.ProgrammingError, ["LIMIT", "-1"]),
    ("SELECT * FROM t LIMIT 'a'", swingdb.ProgrammingError, ["LIMIT", "VARCHAR"]),
    ("CREATE TABLE w (a INTEGR)", swingdb.ProgrammingError, ["'INTEGR'", "INTEGER"]),
    ("CREATE TABLE w (a INT, a INT)", swingdb.ProgrammingError, ['"a"', "twice"]),
    ("SELECT 1 +", swingdb.ProgrammingError, ["syntax error"]),
    ("SELECT * FROM t WHERE id IN (SELECT id, name FROM t)", swingdb.ProgrammingError, ["one column"]),
    ("SELECT row_number() FROM t", swingdb.ProgrammingError, ["row_number()", "OVER"]),
    ("SELECT sum(sum(qty)) FROM t", swingdb.ProgrammingError, ["nested"]),
    ("SELECT * FROM read_parquet('missing.parquet')", swingdb.ProgrammingError, ["'missing.parquet'", "does not exist"]),
    ("SELECT 5 % 0", swingdb.DataError, ["Division by zero"]),
    ("SET threads = -5", swingdb.ProgrammingError, ["threads", "from 1 to"]),
]

INSIDES = re.compile(
    r"Internal error|internal error|DataFusion|please report|Span\(|\{ value|Ident \{|"
    r"\b(?:Utf8|LargeUtf8|Utf8View|U?Int(?:8|16|32|64)|Float(?:16|32|64)|Date32|Decimal128|Timestamp\()"
)


def _connect(module):
    con = module.connect()
    for statement in SETUP:
        con.execute(statement)
    return con


def _message(con, sql):
    try:
        con.execute(sql).fetchall()
    except Exception as error:  # noqa: BLE001 - both engines' classes are compared below
        return error
    return None


def test_there_are_forty_mistakes_or_more():
    assert len(MISTAKES) >= 40


@pytest.mark.parametrize("sql,kind,parts", MISTAKES, ids=[m[0][:40] for m in MISTAKES])
def test_a_mistake_gets_a_message_at_least_as_good_as_duckdbs(tmp_path, monkeypatch, sql, kind, parts):
    monkeypatch.chdir(tmp_path)
    ours = _message(_connect(swingdb), sql)
    assert isinstance(ours, kind), f"{sql}: {type(ours).__name__}: {ours}"
    message = str(ours)
    for part in parts:
        assert part in message, f"{part!r} not in:\n{message}"
    assert not INSIDES.search(message), f"the engine's insides show in:\n{message}"
    theirs = _message(_connect(duckdb), sql)
    if theirs is not None and "LINE " in str(theirs):
        assert "LINE " in message and "^" in message, f"DuckDB points at the mistake, swingdb does not:\n{message}\n--- DuckDB:\n{theirs}"
