"""Writes python/hot-code.txt: the functions of the extension that a fresh
process runs when it first uses swingdb, which the linker places together at
the start of the code (see build.rs).

Why: the extension is ~100 MB of machine code, and the code one first query
runs is spread over all of it: a fresh process faulted 54-61 MB of it in
before its first answer, a third of connect + first query on a 10 MB table.
Laid out together (~9 MB of functions), the same work touches 9-15 MB.

How: a representative first use (create and load a database in one process;
open it and query it in another, results to numpy, pyarrow, pandas and polars)
runs under valgrind's callgrind, which records every function executed; the
functions of the extension are written out by mangled name, the query
process's first. Symbol names carry hashes of the crate versions and flags,
so the list stays valid across most source changes; regenerate it after
dependency upgrades (`make hot-code`, needs valgrind), and the test
tests/test_results.py::test_a_first_query_touches_little_of_the_extensions_code
says when it has gone stale.

    python python/hot_code.py [--out python/hot-code.txt]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CREATE = """
import sys, datetime, decimal
import pyarrow as pa, swingdb
con = swingdb.connect(sys.argv[1])
n = 50_000
t = pa.table({
    "id": pa.array(range(n), pa.int64()),
    "k": pa.array([i % 97 for i in range(n)], pa.int32()),
    "x": pa.array([i * 0.5 for i in range(n)], pa.float64()),
    "s": pa.array([f"name {i % 1000}" for i in range(n)]),
    "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 700) for i in range(n)]),
    "m": pa.array([decimal.Decimal(i % 10_000) / 100 for i in range(n)], pa.decimal128(12, 2)),
})
con.create_table("facts", t)
con.sql("CREATE TABLE dims AS SELECT value AS k, 'dim ' || value AS label FROM range(97)")
con.sql("CREATE TABLE log (id BIGINT, note VARCHAR)")
con.execute("INSERT INTO log VALUES (?, ?)", (1, "first"))
con.sql("INSERT INTO log SELECT id, s FROM facts WHERE id < 100")
con.sql("UPDATE log SET note = 'changed' WHERE id = 1")
con.sql("DELETE FROM log WHERE id > 90")
con.close()
"""

QUERY = """
import sys
import swingdb
con = swingdb.connect(sys.argv[1], read_only=True)
con.sql("SELECT COUNT(*) AS n, SUM(k) AS s FROM facts").numpy()
con.sql("SELECT * FROM facts WHERE k < 10").numpy()
con.sql("SELECT id, x FROM facts WHERE x > 100.5 AND s LIKE 'name 1%'").arrow()
con.sql("SELECT k, COUNT(*), AVG(x), MIN(d), MAX(m) FROM facts GROUP BY k ORDER BY k").df()
con.sql("SELECT f.id, d.label FROM facts f JOIN dims d ON f.k = d.k WHERE f.id % 100 = 0").pl()
con.sql("SELECT s, SUM(m) AS total FROM facts GROUP BY s ORDER BY total DESC LIMIT 10").fetchall()
con.sql("SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY id) AS r FROM facts WHERE id < 1000").numpy()
con.sql("SELECT EXTRACT(YEAR FROM d) AS y, COUNT(DISTINCT k) FROM facts GROUP BY y").numpy()
con.execute("SELECT note FROM log WHERE id = ?", (1,)).fetchone()
con.sql("SELECT * FROM facts WHERE id IN (SELECT id FROM log)").numpy()
"""


def executed_functions(script: str, database: str, work: Path) -> list[str]:
    """The extension's functions (mangled names) that `script` runs, per callgrind."""
    out = work / f"callgrind.{abs(hash(script))}"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
           "--compress-strings=no", "--compress-pos=no", "--demangle=no", sys.executable, "-c", script, database]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    names, in_extension = {}, False
    with open(out, errors="replace") as fh:
        for line in fh:
            if line.startswith("ob="):
                in_extension = "_swingdb" in line
            elif line.startswith("fn=") and in_extension:
                name = re.sub(r"'\d+$", "", line[3:].strip())  # callgrind's recursion-depth suffix
                if not name.startswith("0x"):  # code without a symbol
                    names[name] = None
    return list(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("hot-code.txt")))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        database = str(work / "hot.swingdb")
        subprocess.run([sys.executable, "-c", CREATE, database], check=True)
        query = executed_functions(QUERY, database, work)
        create = executed_functions(CREATE, str(work / "hot2.swingdb"), work)
    names = list(dict.fromkeys(query + create))
    Path(args.out).write_text("\n".join(names) + "\n")
    print(f"{len(names)} functions ({len(query)} of the query process) -> {args.out}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONMALLOC", "malloc")  # valgrind sees Python's allocations as they are
    main()
