"""The README's Python quickstart runs as written."""

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
