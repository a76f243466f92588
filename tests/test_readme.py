"""The README's Python quickstart runs as written."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_readme_python_quickstart_runs(tmp_path, monkeypatch):
    text = open(os.path.join(ROOT, "README.md")).read()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    import swingdb

    with swingdb.connect(tmp_path / "sales.swingdb") as con:
        rows = con.sql("SELECT id, region FROM sales ORDER BY id").fetchall()
    assert rows == [(1, "EU"), (2, "US")]
    assert namespace["arr"]["id"].tolist() == [1, 2]
