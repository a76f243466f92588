"""SQL behaviour, file by file: each tests/sql/*.slt runs on swingdb, SQLite and
DuckDB (see tests/sqllogic.py for the format)."""

from pathlib import Path

import pytest
from sqllogic import parse, run_file

FILES = sorted((Path(__file__).parent / "sql").glob("*.slt"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_sql_file(path):
    failures = run_file(path)
    assert not failures, f"{len(failures)} record(s) failed:\n" + "\n".join(failures)


@pytest.mark.parametrize("compression", ["zstd", "light"])
def test_sql_files_answer_the_same_over_compressed_tables(compression):
    """Every file's answers again on swingdb alone, its tables created with
    compression = 'zstd' (every column that compresses stored as ZSTD frames,
    whatever its size) or 'light' (integers, dates and timestamps in their
    narrowest width, floats of few decimals as decimals): readers of stored
    columns must decode them."""
    failures = [f for path in FILES for f in run_file(path, engines=("swingdb",), compression=compression)]
    assert not failures, f"{len(failures)} record(s) failed:\n" + "\n".join(failures)


def test_runner_catches_a_wrong_answer(tmp_path):
    wrong = tmp_path / "wrong.slt"
    wrong.write_text("query I\nSELECT 1 + 1\n----\n3\n\nstatement error DataError\nSELECT 1\n")
    failures = run_file(wrong)
    # Both records fail on every engine: a wrong answer, and no error where one was expected.
    assert len(failures) == 6, failures
    assert "answer differs" in failures[0] and "expected an error" in failures[1]


def test_runner_reads_conditions(tmp_path):
    path = tmp_path / "c.slt"
    path.write_text("skipif sqlite\nonlyif duckdb\nquery T rowsort\nSELECT 'x'\n----\nx\n")
    [record] = parse(path)
    assert record.skip == {"sqlite"} and record.only == {"duckdb"} and record.rowsort
    assert record.runs_on("duckdb") and not record.runs_on("swingdb") and not record.runs_on("sqlite")


def test_runner_checks_plans(tmp_path):
    path = tmp_path / "p.slt"
    path.write_text(
        "statement ok\nCREATE TABLE t (a INTEGER)\n\n"
        "plan contains TableScan: t\nSELECT a FROM t\n\n"
        "plan lacks TableScan: t\nSELECT a FROM t\n"
    )
    records = parse(path)
    assert [r.plan for r in records[1:]] == [("contains", "TableScan: t"), ("lacks", "TableScan: t")]
    assert all(r.only == {"swingdb"} for r in records[1:])
    [failure] = run_file(path)
    assert ":7 [swingdb]" in failure and "contains 'TableScan: t'" in failure, failure
