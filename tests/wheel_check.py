"""What a user does right after `pip install swingdb-*.whl`, run by `make wheel-test`
in a fresh virtual environment that holds only the wheel and its dependencies, with
no Rust toolchain on PATH (not collected by pytest: its name does not start with test_).

    python tests/wheel_check.py README.md
    python tests/wheel_check.py --numpy-only

Checks: the README's Python quickstart runs; a stored column reaches numpy as a view
of the database file; the `swingdb` command answers SQL; a snapshot shared by one
process is attached by another; a table piped from one process arrives in another.
With --numpy-only (a venv with the wheel and numpy, nothing else): queries reach
Python rows and numpy views without pyarrow, pandas or polars, and arrow() says
which extra it needs.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"wheel check failed: {what}")
    print(f"ok: {what}", flush=True)


def python(code: str, cwd: str) -> subprocess.Popen:
    """Starts `code` in another Python process of this environment."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, stdout=subprocess.PIPE, text=True)


def check_numpy_view(work: str) -> None:
    """A stored column reaches numpy as a view of its segment file."""
    import swingdb

    con = swingdb.connect(os.path.join(work, "big.swingdb"))
    con.sql("CREATE TABLE t AS SELECT value AS v FROM range(1000000)")
    v = con.sql("SELECT v FROM t").numpy()["v"]
    address = v.__array_interface__["data"][0]
    mapped = [
        line.split()[-1]
        for line in open("/proc/self/maps")
        if int(line.split()[0].split("-")[0], 16) <= address < int(line.split()[0].split("-")[1], 16)
    ]
    check(len(v) == 1_000_000 and mapped and mapped[0].startswith(os.path.join(work, "big.swingdb", "segments")),
          "a stored column reaches numpy as a view of its segment file")
    con.close()


def numpy_only() -> None:
    """The wheel with numpy and nothing else."""
    import importlib.util

    missing = [m for m in ("pyarrow", "pandas", "polars") if importlib.util.find_spec(m) is None]
    check(missing == ["pyarrow", "pandas", "polars"], "pyarrow, pandas and polars are not installed")
    import swingdb

    work = tempfile.mkdtemp(prefix="swingdb-wheel-")
    con = swingdb.connect()
    rows = con.sql("SELECT 42 AS answer, 'text' AS t, DATE '2024-02-29' AS d").fetchall()
    check(rows == [(42, "text", __import__("datetime").date(2024, 2, 29))], "a query reaches Python rows")
    check_numpy_view(work)
    try:
        con.sql("SELECT 1").arrow()
        check(False, "arrow() without pyarrow says which extra to install")
    except ImportError as error:
        check("swingdb[pyarrow]" in str(error), "arrow() without pyarrow says which extra to install")
    shutil.rmtree(work)
    print("the wheel works with numpy alone")


def main(readme: str) -> None:
    check(shutil.which("cargo") is None and shutil.which("rustc") is None, "no Rust toolchain on PATH")
    import swingdb

    check(os.path.dirname(swingdb.__file__).startswith(sys.prefix), f"swingdb imported from this environment ({swingdb.__file__})")
    work = tempfile.mkdtemp(prefix="swingdb-wheel-")
    os.chdir(work)

    quickstart = re.search(r"## Quickstart \(Python\)\n.*?```python\n(.*?)```", open(readme).read(), re.S).group(1)
    namespace: dict = {}
    exec(compile(quickstart, "README.md quickstart", "exec"), namespace)
    check(namespace["arr"]["id"].tolist() == [1, 2], "the README's quickstart runs")

    check_numpy_view(work)

    shell = shutil.which("swingdb")
    done = subprocess.run([shell, "-c", "SELECT 42 AS answer"], capture_output=True, text=True, timeout=60)
    check(done.returncode == 0 and "42" in done.stdout, f"the swingdb command ({shell}) answers SQL")

    name = f"wheel-check-{os.getpid()}"
    sharer = python(f"""
        import time, swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE readings AS SELECT value AS id FROM range(1000)")
        con.share({name!r})
        print("shared", flush=True)
        time.sleep(60)
        """, work)
    check(sharer.stdout.readline().strip() == "shared", "one process shares a snapshot")
    try:
        attached = subprocess.run(
            [sys.executable, "-c", f"import swingdb; print(swingdb.attach({name!r}).sql('SELECT count(*) FROM readings').fetchall())"],
            capture_output=True, text=True, timeout=60)
        check(attached.stdout.strip() == "[(1000,)]", "another process attaches it")
    finally:
        sharer.kill()
        sharer.wait()

    pipe = f"wheel-pipe-{os.getpid()}"
    sender = python(f"""
        import swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE orders AS SELECT value AS id, value * 2 AS total FROM range(100000)")
        con.sql("COPY orders TO 'db://{pipe}'")
        print("sent", flush=True)
        """, work)
    received = subprocess.run(
        [sys.executable, "-c", f"import swingdb; con = swingdb.connect(); con.sql(\"CREATE TABLE o AS SELECT * FROM 'db://{pipe}'\");"
         " print(con.sql('SELECT count(*), sum(total) FROM o').fetchall())"],
        capture_output=True, text=True, timeout=120)
    check(sender.wait(timeout=120) == 0 and sender.stdout.read().strip() == "sent", "one process pipes a table")
    check(received.stdout.strip() == f"[(100000, {100000 * 99999})]", "another process receives it")
    shutil.rmtree(work)
    print("the wheel works as installed")


if __name__ == "__main__":
    numpy_only() if sys.argv[1] == "--numpy-only" else main(sys.argv[1])
