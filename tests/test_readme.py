"""The Python examples of the README, docs/pipes.md, docs/sql.md and the module docstrings run as written."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_readme_python_examples_run(tmp_path, monkeypatch):
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code in blocks:
        exec(compile(code, "README.md", "exec"), namespace)
    import swingdb

    with swingdb.connect(tmp_path / "sales.swingdb") as con:
        rows = con.sql("SELECT id, region FROM sales ORDER BY id").fetchall()
    assert rows == [(1, "EU"), (2, "US")]
    assert namespace["arr"]["id"].tolist() == [1, 2]
    with swingdb.connect(tmp_path / "sales.swingdb") as con:
        assert con.sql("SELECT count(*) FROM prices").fetchall() == [(2,)]


def test_pipes_guide_python_examples_run(tmp_path, monkeypatch):
    text = open(os.path.join(ROOT, "docs", "pipes.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "docs/pipes.md", "exec"), {})


def test_module_docstring_examples_run():
    import doctest

    import swingdb.pipe
    import swingdb.share

    for module in (swingdb.pipe, swingdb.share):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module.__name__


def test_sql_reference_examples_run(tmp_path, monkeypatch):
    text = open(os.path.join(ROOT, "docs", "sql.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for code in blocks:
        exec(compile(code, "docs/sql.md", "exec"), namespace)
