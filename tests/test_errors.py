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


def test_corrupted_segment_is_reported_and_other_tables_still_read(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE victim AS SELECT value AS a, value * 2 AS b FROM range(100000)")
        before = set(_segment_files(db_path))
        con.sql("CREATE TABLE healthy AS SELECT value AS a FROM range(10)")
        (victim_file,) = before
    # Flip bytes in the middle of the data (a new file: segments are never modified in place).
    data = bytearray(open(victim_file, "rb").read())
    for i in range(len(data) // 2, len(data) // 2 + 16):
        data[i] ^= 0xFF
    os.remove(victim_file)
    with open(victim_file, "wb") as fh:
        fh.write(data)
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
