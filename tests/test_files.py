import json

import pyarrow as pa
import pyarrow.csv
import pyarrow.feather
import pyarrow.parquet as pq
import pytest
import swingdb


@pytest.fixture
def sample():
    return pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", None], "x": [0.5, 1.5, 2.5]})


def test_query_parquet_csv_arrow_json_by_path(con, tmp_path, sample):
    pq.write_table(sample, tmp_path / "s.parquet")
    pyarrow.csv.write_csv(sample, tmp_path / "s.csv")
    pyarrow.feather.write_feather(sample, tmp_path / "s.arrow", compression="uncompressed")
    with open(tmp_path / "s.json", "w") as fh:
        for row in sample.to_pylist():
            fh.write(json.dumps(row) + "\n")
    for ext in ("parquet", "csv", "arrow", "json"):
        rows = con.sql(f"SELECT id, name FROM '{tmp_path}/s.{ext}' ORDER BY id").fetchall()
        assert rows == [(1, "a"), (2, "b"), (3, None)], ext


def test_read_functions(con, tmp_path, sample):
    pq.write_table(sample, tmp_path / "s.parquet")
    pyarrow.csv.write_csv(sample, tmp_path / "data.txt", write_options=pyarrow.csv.WriteOptions(delimiter="|"))
    assert con.sql(f"SELECT sum(x) FROM read_parquet('{tmp_path}/s.parquet')").fetchall() == [(4.5,)]
    assert con.sql(f"SELECT count(*) FROM read_csv('{tmp_path}/data.txt', true, '|')").fetchall() == [(3,)]
    with pytest.raises(swingdb.ProgrammingError, match="read_csv takes a file path"):
        con.sql("SELECT * FROM read_csv(42)")


def test_create_table_from_file(con, tmp_path, sample):
    pq.write_table(sample, tmp_path / "s.parquet")
    con.sql(f"CREATE TABLE t AS SELECT * FROM '{tmp_path}/s.parquet'")
    assert con.sql("SELECT count(*), sum(id) FROM t").fetchall() == [(3, 6)]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json", "arrow"])
def test_copy_to_and_from(con, tmp_path, fmt):
    con.sql("CREATE TABLE t (id BIGINT, name VARCHAR)")
    con.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)")
    out = tmp_path / f"out.{fmt}"
    con.sql(f"COPY t TO '{out}' (FORMAT {fmt})")
    assert out.exists()
    con.sql("CREATE TABLE back (id BIGINT, name VARCHAR)")
    n = con.execute(f"COPY back FROM '{out}' (FORMAT {fmt})").rowcount
    assert n == 3
    assert con.sql("SELECT * FROM back ORDER BY id").fetchall() == [(1, "a"), (2, "b"), (3, None)]


def test_copy_from_csv_with_type_error_loads_nothing(con, tmp_path):
    (tmp_path / "bad.csv").write_text("id\n1\n2\nthree\n")
    con.sql("CREATE TABLE t (id INTEGER)")
    with pytest.raises(swingdb.DatabaseError):
        con.sql(f"COPY t FROM '{tmp_path}/bad.csv'")
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_stored_segments_are_plain_arrow_ipc_files(db_path):
    with swingdb.connect(db_path) as con:
        con.sql("CREATE TABLE t AS SELECT value AS a FROM range(1000)")
    import os

    seg_dir = os.path.join(db_path, "segments")
    (name,) = os.listdir(seg_dir)
    with pa.memory_map(os.path.join(seg_dir, name)) as source:
        table = pa.ipc.open_file(source).read_all()
    assert table.column("a").to_pylist() == list(range(1000))


def test_copy_to_runs_without_fetching_the_result(con, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    con.sql("CREATE TABLE t AS SELECT 1 AS a")
    con.sql("COPY t TO 'relative.parquet'")  # DataFusion's own COPY syntax, result never read
    assert (tmp_path / "relative.parquet").is_file()
    assert con.sql("SELECT a FROM 'relative.parquet'").fetchall() == [(1,)]


def test_read_csv_options_and_type_detection_agree_with_duckdb(tmp_path):
    import datetime

    import duckdb

    data = tmp_path / "it's data.csv"  # a quote in the path: it never becomes SQL text in the Python API
    data.write_text("id;flag;day;iso;qty;name\n1;true;02/01/2024;2024-01-02;NA;a\n2;false;03/02/2024;2024-02-03;5;NA\n")
    con = swingdb.connect()
    ours = con.read_csv(data, delim=";", nullstr="NA", dateformat="%d/%m/%Y")
    assert ours.sql_types == ["BIGINT", "BOOLEAN", "DATE", "DATE", "BIGINT", "VARCHAR"]
    expected = [
        (1, True, datetime.date(2024, 1, 2), datetime.date(2024, 1, 2), None, "a"),
        (2, False, datetime.date(2024, 2, 3), datetime.date(2024, 2, 3), 5, None),
    ]
    assert ours.fetchall() == expected
    theirs = duckdb.read_csv(str(data), delimiter=";", na_values="NA", date_format="%d/%m/%Y").fetchall()
    def drop_iso(rows):  # DuckDB reads the ISO column as TIMESTAMP once a date format is set
        return [r[:3] + r[4:] for r in rows]

    assert drop_iso(theirs) == drop_iso(expected)
    # The same options in SQL, DuckDB's spelling (name = value, or =>).
    plain = tmp_path / "plain.csv"
    plain.write_text("1|x\n2|y\n")
    sql = f"SELECT * FROM read_csv('{plain}', header = false, delim => '|')"
    assert con.sql(sql).fetchall() == duckdb.sql(sql).fetchall() == [(1, "x"), (2, "y")]
    with pytest.raises(swingdb.ProgrammingError, match="unknown option 'bogus'; options: header, delim"):
        con.sql(f"SELECT * FROM read_csv('{plain}', bogus = 1)")
    with pytest.raises(swingdb.ProgrammingError, match="option delim takes one character"):
        con.read_csv(plain, delim="||")


def test_read_json_of_documents_arrays_and_lines_agrees_with_duckdb(tmp_path):
    import duckdb

    files = {
        "array.json": '[\n {"id": 1, "tags": ["a"], "meta": {"x": 1.5}},\n {"id": 2, "tags": [], "meta": {"x": null}}\n]\n',
        "document.json": '{\n  "id": 7,\n  "name": "doc"\n}\n',
        "lines.json": '{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n',
    }
    con = swingdb.connect()
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        sql = f"SELECT * FROM read_json('{path}')"
        ours, theirs = con.sql(sql), duckdb.sql(sql)
        assert ours.columns == theirs.columns, name  # keys in the order they appear
        assert ours.fetchall() == theirs.fetchall(), name
    assert con.sql(f"SELECT * FROM read_json('{tmp_path / 'array.json'}')").sql_types == ["BIGINT", "VARCHAR[]", "STRUCT(x DOUBLE)"]
    (tmp_path / "numbers.json").write_text("[1, 2]")
    with pytest.raises(swingdb.ProgrammingError, match="not of objects"):
        con.sql(f"SELECT * FROM read_json('{tmp_path / 'numbers.json'}')")


@pytest.mark.parametrize(
    "text",
    [
        "a;b;c\n1;x;2.5\n2;y;3.5\n",  # semicolons
        "a|b|c\n1|x|2.5\n2|y|3.5\n",  # pipes
        "a\tb\tc\n1\tx\t2.5\n2\ty\t3.5\n",  # tabs
        'a,b,c\n1,"x, quoted",2.5\n2,y,3.5\n',  # commas, one inside quotes
        "1,x,2.5\n2,y,3.5\n",  # no header: the first line is data
    ],
)
def test_read_csv_guesses_the_delimiter_and_header_as_duckdb(tmp_path, text):
    import duckdb

    path = tmp_path / "guess.csv"
    path.write_text(text)
    con = swingdb.connect()
    ours = con.sql(f"SELECT * FROM read_csv('{path}')")
    theirs = duckdb.sql(f"SELECT * FROM read_csv('{path}')")
    assert ours.fetchall() == theirs.fetchall()
    assert len(ours.columns) == 3
    if text[0] == "a":
        assert ours.columns == theirs.columns == ["a", "b", "c"]
    assert con.read_csv(path).fetchall() == theirs.fetchall()
    # Given options are kept as given.
    assert len(con.read_csv(path, delim=",").columns) == (3 if "," in text.split("\n")[0] else 1)


def test_read_csv_takes_duckdbs_names_columns_types_and_auto_detect(tmp_path):
    """Each option answers as DuckDB's read_csv does on the same file."""
    import duckdb

    path = tmp_path / "c.csv"
    path.write_text("id,name,amount\n1,ann,2.5\n2,bob,3\n")
    con, peer = swingdb.connect(), duckdb.connect()
    for options in [
        "names = ['a', 'b', 'c']",
        "columns = {'k': 'BIGINT', 'who': 'VARCHAR', 'amt': 'DECIMAL(10,2)'}, header = true",
        "types = {'amount': 'VARCHAR'}",
        "names = ['x', 'y', 'z'], types = {'z': 'VARCHAR'}",
    ]:
        sql = f"SELECT * FROM read_csv('{path}', {options})"
        ours, theirs = con.sql(sql), peer.sql(sql)
        assert ours.columns == theirs.columns, options
        assert ours.types == [str(t) for t in theirs.types], options
        assert ours.fetchall() == theirs.fetchall(), options
    assert con.sql(f"SELECT * FROM read_csv('{path}', auto_detect = false, header = true)").fetchall() == [("1", "ann", "2.5"), ("2", "bob", "3")]
    relation = con.read_csv(path, names=["x", "y", "z"], types={"z": "VARCHAR"})
    assert relation.types == ["BIGINT", "VARCHAR", "VARCHAR"] and relation.fetchall() == [(1, "ann", "2.5"), (2, "bob", "3")]
    with pytest.raises(swingdb.ProgrammingError, match="names column 'nope', which the file does not have"):
        con.sql(f"SELECT * FROM read_csv('{path}', types = {{'nope': 'INTEGER'}})")
    with pytest.raises(swingdb.ProgrammingError, match="'INTEGR' is not a SQL type"):
        con.sql(f"SELECT * FROM read_csv('{path}', types = {{'id': 'INTEGR'}})")


def test_a_bad_value_in_a_csv_file_is_shown_with_its_line_and_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,name\n1,ann\n2,bob\nx,cy\n")
    con = swingdb.connect()
    with pytest.raises(swingdb.DataError, match=r"could not read 'x' as INTEGER: column 1 on line 4 of the file \(x,cy\)"):
        con.sql(f"SELECT * FROM read_csv('{path}', types = {{'id': 'INTEGER'}})").fetchall()


def test_files_read_again_are_read_as_they_are_now_as_duckdb_reads_them(tmp_path):
    # DataFusion's runtime kept every directory listing it made for the life of
    # the process: a glob or a directory read again missed files added since
    # (silently: fewer rows), and failed on files removed since. Each step
    # changes the files, then both engines read them with the same query, on
    # the same connection and on a fresh one.
    duckdb = pytest.importorskip("duckdb")
    folder = tmp_path / "parts"
    folder.mkdir()
    con, peer = swingdb.connect(), duckdb.connect()

    def write_csv(name, values):
        (folder / name).write_text("x\n" + "".join(f"{v}\n" for v in values))

    def write_parquet(name, values):
        pq.write_table(pa.table({"x": pa.array(values, pa.int64())}), folder / name)

    steps = [
        ("one file", lambda: write_csv("a.csv", [1, 2])),
        ("a file added", lambda: write_csv("b.csv", [3])),
        ("a file rewritten, same size", lambda: write_csv("a.csv", [7, 8])),
        ("a file removed", lambda: (folder / "a.csv").unlink()),
        ("a file grown", lambda: write_csv("b.csv", [3, 4, 5])),
    ]
    queries = {
        "glob": f"SELECT sum(x), count(*) FROM read_csv('{folder}/*.csv')",
        "path": f"SELECT sum(x), count(*) FROM '{folder}/*.csv'",
    }
    for step, change in steps:
        change()
        for name, sql in queries.items():
            expected = peer.sql(sql).fetchall()
            assert con.sql(sql).fetchall() == expected, (step, name)
            assert swingdb.connect().sql(sql).fetchall() == expected, (step, name, "fresh connection")
    for step, values in (("parquet", [1, 2]), ("parquet rewritten", [5, 6]), ("parquet grown", [1, 2, 3, 4])):
        write_parquet("p.parquet", values)
        sql = f"SELECT sum(x), count(*) FROM '{folder}/*.parquet'"
        assert con.sql(sql).fetchall() == peer.sql(sql).fetchall(), step
