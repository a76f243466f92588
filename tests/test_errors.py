import os

import pytest
import swingdb


def test_syntax_error(con):
    with pytest.raises(swingdb.ProgrammingError, match="syntax error"):
        con.sql("SELEC 1")


def test_unknown_table_is_named(con):
    with pytest.raises(swingdb.ProgrammingError, match="nosuchtable"):
        con.sql("SELECT * FROM nosuchtable")


def test_unknown_column_is_named(con):
    con.sql("CREATE TABLE t (a INTEGER)")
    with pytest.raises(swingdb.ProgrammingError, match="nosuchcol"):
        con.sql("SELECT nosuchcol FROM t")


def test_wrong_type_on_insert(con):
    con.sql("CREATE TABLE t (a INTEGER)")
    with pytest.raises(swingdb.DataError):
        con.sql("INSERT INTO t VALUES ('abc')")
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_null_into_not_null_names_column_and_table(con):
    con.sql("CREATE TABLE people (id INTEGER NOT NULL, name VARCHAR)")
    with pytest.raises(swingdb.IntegrityError, match="column 'id' of table 'people'"):
        con.execute("INSERT INTO people VALUES (?, ?)", [None, "x"])


def test_exceptions_follow_dbapi_hierarchy():
    assert issubclass(swingdb.ProgrammingError, swingdb.DatabaseError)
    assert issubclass(swingdb.DatabaseError, swingdb.Error)
    assert issubclass(swingdb.ConflictError, swingdb.OperationalError)
    assert issubclass(swingdb.IntegrityError, swingdb.DatabaseError)
    assert issubclass(swingdb.Error, Exception)


def test_unsupported_parameter_type(con):
    with pytest.raises(swingdb.ProgrammingError, match="parameter 1 has unsupported type"):
        con.execute("SELECT ?", [object()])


def test_huge_int_parameter(con):
    with pytest.raises(swingdb.DataError, match="64-bit"):
        con.execute("SELECT ?", [2**70])


def _segment_files(db_path):
    seg_dir = os.path.join(db_path, "segments")
    return sorted(os.path.join(seg_dir, f) for f in os.listdir(seg_dir))


def _damage_middle(path):
    """Flips 16 bytes in the middle of a segment file's data (written as a new
    file: segments are never modified in place)."""
    data = bytearray(open(path, "rb").read())
    for i in range(len(data) // 2, len(data) // 2 + 16):
        data[i] ^= 0xFF
    os.remove(path)
    with open(path, "wb") as fh:
        fh.write(data)


def test_a_damaged_segment_among_many_is_named_by_the_parallel_first_check(db_path):
    """A query's first read checks its columns in all segments at once, on
    several threads; a damaged one among them is still the one named, and
    stays an error on the next query."""
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE t (a BIGINT, b BIGINT)")
        for i in range(4):
            con.sql(f"INSERT INTO t SELECT value, value * {i} FROM range(100000)")
        files = _segment_files(db_path)
    assert len(files) == 4, files
    victim = files[2]
    _damage_middle(victim)
    with swingdb.connect(db_path) as con:
        for _ in range(2):
            with pytest.raises(swingdb.CorruptionError, match=os.path.basename(victim)):
                con.sql("SELECT sum(a), sum(b) FROM t").fetchall()


def test_corrupted_segment_is_reported_and_other_tables_still_read(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE victim AS SELECT value AS a, value * 2 AS b FROM range(100000)")
        before = set(_segment_files(db_path))
        con.sql("CREATE TABLE healthy AS SELECT value AS a FROM range(10)")
        (victim_file,) = before
    _damage_middle(victim_file)
    with swingdb.connect(db_path) as con:
        with pytest.raises(swingdb.CorruptionError, match=os.path.basename(victim_file)):
            con.sql("SELECT sum(a) FROM victim").fetchall()
        assert con.sql("SELECT sum(a) FROM healthy").fetchall() == [(45,)]
        with pytest.raises(swingdb.CorruptionError):
            con.verify()


def test_missing_segment_is_reported(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE t AS SELECT value AS a FROM range(10000)")
    for f in _segment_files(db_path):
        os.remove(f)
    with swingdb.connect(db_path) as con:
        with pytest.raises(swingdb.CorruptionError, match="missing"):
            con.sql("SELECT * FROM t").fetchall()


def test_missing_file_query(con, tmp_path):
    with pytest.raises(swingdb.ProgrammingError, match="does not exist"):
        con.sql(f"SELECT * FROM read_csv('{tmp_path}/nope.csv')")


def test_a_mistyped_function_gets_the_name_meant(con):
    """DataFusion suggested `range` for `avrage` (smallest edit distance); the
    suggestion now credits the letters a name starts with and counts a swap
    of neighbours as one edit."""
    for typed, meant in [("avrage(1)", "avg"), ("lenght('x')", "length"), ("uper('a')", "upper"), ("row_numbr() OVER ()", "row_number")]:
        with pytest.raises(swingdb.ProgrammingError, match=rf"Invalid function '\w+'\. Did you mean '{meant}'\?"):
            con.sql(f"SELECT {typed}")


# The ten typical mistakes of issue 13, each with what its message must give
# (the name involved, the fix, a caret under the mistake where the parser or
# binder knows the place). DuckDB's message for each is in the comment.
TEN_MISTAKES = [
    # Binder Error: Referenced column "nme" not found ... Candidate bindings: "name" + caret
    ("SELECT nme FROM t", None, swingdb.ProgrammingError, ["nme", "Did you mean 't.name'", "LINE 1: SELECT nme FROM t\n               ^^^"]),
    # Catalog Error: Scalar Function with name avrage does not exist! Did you mean "avg"? + caret
    ("SELECT avrage(qty) FROM t", None, swingdb.ProgrammingError, ["'avrage'", "Did you mean 'avg'", "\n               ^"]),
    # Binder Error: column "name" must appear in the GROUP BY clause ... ANY_VALUE("name") + caret
    ("SELECT name, sum(qty) FROM t", None, swingdb.ProgrammingError, ['column "name"', "GROUP BY name", "any_value(name)", "^^^^"]),
    # Conversion Error: Could not convert string 'x' to INT32 + caret
    ("INSERT INTO t VALUES ('x', 'b', 2)", None, swingdb.DataError, ["'x'", "INTEGER"]),
    # (DuckDB answers NULL)
    ("SELECT qty / 0 FROM t", None, swingdb.DataError, ["Division by zero"]),
    # IO Error: No files found that match the pattern "nope.csv" + caret
    ("SELECT * FROM read_csv('nope.csv')", None, swingdb.ProgrammingError, ["'nope.csv'", "working directory"]),
    # Invalid Input Error: Values were not provided for the following parameters: 2
    ("SELECT * FROM t WHERE id = ? AND qty = ?", [1], swingdb.ProgrammingError, ["2 parameter placeholders", "1 value was given"]),
    # Parser Error: unterminated string literal + caret
    ("SELECT 'abc FROM t", None, swingdb.ProgrammingError, ["Unterminated string literal", "LINE 1: SELECT 'abc FROM t\n               ^"]),
    # Binder Error: Ambiguous reference to column name "id" (use: 't.id' or 'u.id') + caret
    ("SELECT id FROM t, u", None, swingdb.ProgrammingError, ['column "id" is ambiguous', "qualify it", "\n               ^^"]),
    # Catalog Error: Table with name tt does not exist! Did you mean "t"? (no statement number)
    ("CREATE TABLE z (a INT);\nSELECT * FROM tt;\nSELECT 1", None, swingdb.ProgrammingError, ["table 'tt' does not exist", "Did you mean 't'", "LINE 2: SELECT * FROM tt;"]),
]


@pytest.mark.parametrize("sql,params,kind,parts", TEN_MISTAKES, ids=[m[0][:30] for m in TEN_MISTAKES])
def test_the_ten_typical_mistakes_get_messages_that_teach(tmp_path, monkeypatch, sql, params, kind, parts):
    monkeypatch.chdir(tmp_path)
    con = swingdb.connect()
    con.sql("CREATE TABLE t (id INTEGER, name VARCHAR, qty INTEGER)")
    con.sql("INSERT INTO t VALUES (1, 'a', 3)")
    con.sql("CREATE TABLE u (id INTEGER, name VARCHAR)")
    with pytest.raises(kind) as caught:
        con.execute(sql, params).fetchall()
    message = str(caught.value)
    for part in parts:
        assert part in message, f"{part!r} not in:\n{message}"
    # The failed statement kept nothing (statements before it in a script committed, as in DuckDB).
    assert con.table_names() == (["t", "u", "z"] if sql.startswith("CREATE") else ["t", "u"])


def test_a_failing_statement_of_a_script_is_named_when_it_has_no_place():
    con = swingdb.connect()
    con.sql("CREATE TABLE s (x INTEGER)")
    with pytest.raises(swingdb.DataError, match=r"Division by zero \(in statement 2 of 3\)"):
        con.sql("INSERT INTO s VALUES (1); INSERT INTO s SELECT x / 0 FROM s; SELECT 2")
    assert con.sql("SELECT x FROM s").fetchall() == [(1,)]
