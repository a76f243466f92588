"""The differential SQL fuzzer (stress/answers.py): a seeded slice of its
random SELECTs must answer as DuckDB does (`make stress` runs it for
minutes with fresh seeds), and the fuzzer itself must catch, minimize and
write out a wrong answer.

The size is a flag: SWINGDB_FUZZ_STATEMENTS=20000 pytest tests/test_fuzz_answers.py."""

import os

import pytest

from stress import answers

STATEMENTS = int(os.environ.get("SWINGDB_FUZZ_STATEMENTS", "1500"))


def test_random_selects_answer_as_duckdb():
    report = answers.run(seed=20261203, statements=STATEMENTS)
    findings = report.internal + report.mismatches
    print(f"\n{report.statements} statements, {report.compared} compared ({report.ordered} ordered), "
          f"{report.duckdb_errors} refused by DuckDB, {sum(report.swingdb_errors.values())} by swingdb only")
    for key, count in report.swingdb_errors.most_common(10):
        print(f"  {count:5d}  {key}")
    assert not findings, f"{len(findings)} statements answered differently:\n\n" + "\n".join(f["repro"] for f in findings[:5])
    # Most statements must be compared, not refused by either engine.
    assert report.compared >= STATEMENTS * 0.75, report.as_dict()
    assert report.ordered >= STATEMENTS * 0.1


def test_the_fuzzer_catches_and_minimizes_a_wrong_answer(monkeypatch, tmp_path):
    """An engine that drops a row whenever a statement counts: the fuzzer
    must report it, and the repro must be smaller than the statement."""
    real = answers.Engines.answer

    def wrong(self, con, sql, ordered):
        rows = real(self, con, sql, ordered)
        if con is self.swing and "count(" in sql and isinstance(rows, list) and rows:
            return rows[1:]
        return rows

    monkeypatch.setattr(answers.Engines, "answer", wrong)
    report = answers.run(seed=5, statements=300, repros=str(tmp_path))
    assert report.mismatches, "no mismatch found"
    first = report.mismatches[0]
    statement = next(line for line in first["repro"].splitlines() if line.endswith(";"))
    assert len(statement) < len(first["sql"]), first
    assert "count(" in statement
    # SQLite referees: the engine that dropped a row is never the one it sides with.
    assert "-- sqlite:" in first["repro"]
    assert all(f["verdict"] != "sqlite agrees with swingdb" for f in report.mismatches), report.verdicts
    assert sum(report.verdicts.values()) == len(report.mismatches)
    written = sorted(os.listdir(tmp_path))
    assert written and written[0].startswith("mismatch-5-"), written


def test_sqlite_verdicts():
    assert answers.verdict([(1,)], [(2,)], [(1,)]) == "sqlite agrees with swingdb"
    assert answers.verdict([(1,)], [(2,)], [(2,)]) == "sqlite agrees with duckdb"
    assert answers.verdict([(1,)], [(2,)], [(3,)]) == "sqlite differs from both"
    assert answers.verdict([(1,)], [(2,)], ValueError("no")) == "sqlite refuses"


@pytest.mark.parametrize("value, key", [
    (-0.0, 0), (2.0, 2), (float("nan"), "NaN"), (1 / 3, 0.333333333333), (True, 1), (None, None),
])
def test_answers_are_compared_by_value(value, key):
    assert answers.normalize(value) == key
