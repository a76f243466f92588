"""The Python examples of the README, docs/pipes.md, docs/sql.md, docs/server.md and the module docstrings run as written."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_python_blocks(doc: str, at_least: int, namespace: dict | None = None) -> None:
    """Runs the ```python blocks of `doc` (relative to the repository) in order:
    all in `namespace`, or each on its own when it is None."""
    text = open(os.path.join(ROOT, doc)).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= at_least, doc
    for code in blocks:
        exec(compile(code, doc, "exec"), {} if namespace is None else namespace)


def test_readme_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {}
    _run_python_blocks("README.md", 2, namespace)
    import swingdb

    with swingdb.connect(tmp_path / "sales.swingdb") as con:
        rows = con.sql("SELECT id, region FROM sales ORDER BY id").fetchall()
    assert rows == [(1, "EU"), (2, "US")]
    assert namespace["arr"]["id"].tolist() == [1, 2]
    with swingdb.connect(tmp_path / "sales.swingdb") as con:
        assert con.sql("SELECT count(*) FROM prices").fetchall() == [(2,)]


def test_pipes_guide_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # The example across hosts sets a token if none is set; this one is undone after the test.
    monkeypatch.setenv("SWINGDB_TOKEN", "pipes-guide-token-0123456789")
    _run_python_blocks("docs/pipes.md", 2)  # each example stands alone


def test_module_docstring_examples_run():
    import doctest

    import swingdb.pipe
    import swingdb.relation
    import swingdb.share

    for module in (swingdb.pipe, swingdb.relation, swingdb.share):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module.__name__


def test_sql_reference_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_python_blocks("docs/sql.md", 12, {})  # one session, top to bottom


def test_coming_from_duckdb_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_python_blocks("docs/duckdb.md", 10, {})  # one session, top to bottom
    assert (tmp_path / "totals.parquet").exists()


def test_server_guide_python_example_runs(tmp_path, monkeypatch):
    import pytest

    pytest.importorskip("adbc_driver_flightsql", reason="adbc-driver-flightsql is in requirements-dev.txt")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    _run_python_blocks("docs/server.md", 1, namespace)
    assert namespace["table"].column("id").to_pylist() == [0, 1, 2, 3, 4]
