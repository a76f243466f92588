"""Data bigger than memory: loads in bounded memory, queries under a memory
limit that spill. Each runs in a process of its own: the limit holds for
the whole process."""

from pathlib import Path

import pytest
from conftest import run_python

# Peak anonymous memory (RssAnon, sampled every 2 ms on a thread) a load of
# argv[1] rows adds, in MB. File pages (segments written, mapped) are not
# counted: the kernel reclaims them under pressure, anonymous memory it cannot.
LOAD_PEAK = """
import sys, threading, time
import swingdb

def anon_mb():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("RssAnon:")) / 1024

rows, db = int(sys.argv[1]), sys.argv[2]
con = swingdb.connect(db, memory_limit="128MB")
base, peak, done = anon_mb(), [0.0], threading.Event()

def sample():
    while not done.is_set():
        peak[0] = max(peak[0], anon_mb())
        time.sleep(0.002)

sampler = threading.Thread(target=sample)
sampler.start()
con.execute(f"CREATE TABLE t AS SELECT value AS a, value * 3 AS b, value % 97 AS c, value * 7 AS d FROM range({rows})")
done.set()
sampler.join()
count, total = con.execute("SELECT count(*), sum(d) FROM t").fetchone()
print(peak[0] - base, count, total)
"""


def test_a_load_takes_the_same_memory_for_2m_and_20m_rows(tmp_path):
    """20M rows of four BIGINTs are 640 MB: gathered in memory (as every load
    did), the load of 20M took some 600 MB more than that of 2M. Spooled
    beyond an eighth of memory_limit (16 MB here), both take the same."""
    peaks = {}
    for rows in (2_000_000, 20_000_000):
        out = run_python(LOAD_PEAK, rows, tmp_path / f"db{rows}", timeout=300).stdout.split()
        peak, loaded, total = float(out[0]), int(out[1]), int(out[2])
        assert (loaded, total) == (rows, 7 * rows * (rows - 1) // 2)
        peaks[rows] = peak
    assert peaks[20_000_000] < peaks[2_000_000] + 32, peaks
    assert peaks[20_000_000] < 100, f"far below the 640 MB loaded: {peaks}"


def test_a_loaded_table_still_reaches_numpy_without_a_copy(tmp_path):
    """Spooled (60 MB of rows, beyond the 32 MB gathered under this limit) or
    not, a segment is one record batch: a column is one array in the mapped
    file."""
    out = run_python(
        """
        import sys, numpy as np, swingdb
        con = swingdb.connect(sys.argv[1], memory_limit="256MB")
        con.execute("CREATE TABLE t AS SELECT value * 2 AS a, 'x' || value AS s FROM range(3000000)")
        first = con.execute("SELECT a FROM t").numpy()["a"]
        again = con.execute("SELECT a FROM t").numpy()["a"]
        fd_offset = swingdb._swingdb.mapped_file(first.__array_interface__["data"][0])
        print(np.shares_memory(first, again), fd_offset is not None, int(first.max()), len(first))
        """,
        tmp_path / "db",
        timeout=300,
    ).stdout.split()
    assert out == ["True", "True", str(2 * 2_999_999), "3000000"]


SPILL = """
import sys, swingdb
con = swingdb.connect(sys.argv[1], memory_limit="64MB", temp_directory=sys.argv[2])
con.execute("SET threads = 1")
print(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
con.execute("SET memory_limit = 'none'")
con.execute("CREATE TABLE t AS SELECT value AS k, (value * 7919) % 1000003 AS v, 'row ' || value AS s FROM range(4000000)")
sort = "SELECT k, v, s FROM t ORDER BY v DESC, k"
groups = "SELECT v % 500000 AS g, count(*) AS n, max(s) AS m FROM t GROUP BY g ORDER BY g"
unlimited = [con.execute(q).arrow() for q in (sort, groups)]
con.execute("SET memory_limit = '64MB'")
limited = [con.execute(q).arrow() for q in (sort, groups)]
print(all(a.equals(b) for a, b in zip(unlimited, limited)))
plan = " ".join(str(r) for r in con.execute("EXPLAIN ANALYZE " + sort).fetchall())
print(sum(int(p.split(",")[0].split()[0]) for p in plan.split("spill_count=")[1:]) > 0)
swingdb._swingdb.set_memory_limit("64KiB")
try:
    con.execute(sort).arrow()
except swingdb.OperationalError as e:
    print("OperationalError", "memory_limit (64.0 KiB)" in str(e), "Sort" in str(e))
try:
    con.execute("SET memory_limit = 'plenty'")
except swingdb.ProgrammingError as e:
    print("ProgrammingError", "'2GB'" in str(e))
"""


def test_a_sort_and_an_aggregation_beyond_memory_limit_spill_and_answer_as_without_it(tmp_path):
    out = run_python(SPILL, tmp_path / "db", tmp_path / "spill", timeout=300).stdout.splitlines()
    assert out == ["61.0 MiB", "True", "True", "OperationalError True True", "ProgrammingError True"]
    assert (tmp_path / "spill").is_dir()


# A table made by argv[2], the query argv[3] answered without a limit and
# under the limit argv[4]; prints whether the answers are equal and the
# first column of the limited one.
UNDER_LIMIT = """
import sys, swingdb
con = swingdb.connect(sys.argv[1])
con.execute(sys.argv[2])
unlimited = con.execute(sys.argv[3]).fetchall()
con.execute(f"SET memory_limit = '{sys.argv[4]}'")
limited = con.execute(sys.argv[3]).fetchall()
print(limited == unlimited, [row[0] for row in limited])
"""


def test_a_top_k_over_batches_far_larger_than_k_rows_fits_a_small_limit(tmp_path):
    """ORDER BY ... LIMIT keeps k rows, however large the batches it reads:
    the top-k held on to its first batch whole (rows of 1 KB strings here,
    17 MiB) and failed under a 4 MB limit that its 5 rows fit."""
    create = "CREATE TABLE w AS SELECT i AS id, repeat('x', 1000) || i AS s FROM range(20000) t(i)"
    query = "SELECT id, s FROM w ORDER BY id % 7 DESC, id LIMIT 5"
    out = run_python(UNDER_LIMIT, tmp_path / "db", create, query, "4MB").stdout
    assert out == "True [6, 13, 20, 27, 34]\n", out


def test_the_few_rows_a_filter_passes_on_are_accounted_at_their_size(tmp_path):
    """Five rows of 200,000 pass a filter into a top-k under a 512 KB limit:
    the filter's last batch (its rows gathered into buffers made for a full
    32K-row batch) was charged 1 MB to the top-k that keeps it, besides the
    0.9 MB the top-k reserved up front for the sort keys of a full batch."""
    create = "CREATE TABLE w AS SELECT i AS a, i * 2 AS b, i * 3 AS c, i * 4 AS d FROM range(200000) t(i)"
    query = "SELECT a, b, c, d FROM w WHERE a % 40000 = 7 ORDER BY b DESC LIMIT 5"
    out = run_python(UNDER_LIMIT, tmp_path / "db", create, query, "512KB").stdout
    assert out == "True [160007, 120007, 80007, 40007, 7]\n", out


@pytest.mark.parametrize("value", ["2GB", "1.5GiB", "none"])
def test_memory_limit_takes_duckdb_sizes(value):
    out = run_python(
        """
        import sys, swingdb
        con = swingdb.connect(memory_limit=sys.argv[1])
        print(con.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        """,
        value,
    ).stdout.strip()
    assert out == {"2GB": "1.8 GiB", "1.5GiB": "1.5 GiB", "none": "none"}[value]


# Random joins of two tables, each answered under no limit and under limits
# that make their joins spill, compared whole (rows sorted). Keys repeat and
# are NULL in some rows; the ON clause sometimes has a condition besides the
# keys. Prints one line per limit: the queries whose answer differs, the
# plans with a grace hash join, and whether one spilled.
JOINS = """
import random, re, sys, swingdb
con = swingdb.connect(sys.argv[1], temp_directory=sys.argv[2])
con.execute("CREATE TABLE a AS SELECT value AS id, CASE WHEN value % 97 = 0 THEN NULL ELSE value % 150000 END AS k, "
            "value % 7 AS k2, 'a' || (value % 1000) AS s FROM range(600000)")
con.execute("CREATE TABLE b AS SELECT value AS id, CASE WHEN value % 89 = 0 THEN NULL ELSE (value * 7) % 200000 END AS k, "
            "value % 5 AS k2, value * 0.5 AS w FROM range(500000)")
rng = random.Random(int(sys.argv[3]))
kinds = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "SEMI", "ANTI"]
queries = []
for i in range(int(sys.argv[4])):
    kind = kinds[i % len(kinds)]
    keys = rng.choice(["a.k = b.k", "a.k = b.k AND a.k2 = b.k2"])
    extra = rng.choice(["", " AND a.id < b.id", " AND b.w > 1000"])
    if kind == "SEMI":
        queries.append(f"SELECT a.id, a.s FROM a WHERE EXISTS (SELECT 1 FROM b WHERE {keys}{extra})")
    elif kind == "ANTI":
        queries.append(f"SELECT a.id, a.k FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE {keys}{extra})")
    else:
        queries.append(f"SELECT a.id, a.s, b.id, b.w FROM a {kind} b ON {keys}{extra}")

def answers():
    return [sorted(con.execute(q).fetchall(), key=repr) for q in queries]

expected = answers()
print("rows", min(map(len, expected)) > 1000)
for limit in sys.argv[5:]:
    con.execute(f"SET memory_limit = '{limit}'")
    differ = [i for i, rows in enumerate(answers()) if rows != expected[i]]
    joins = [line for q in queries for _, line in con.execute("EXPLAIN ANALYZE " + q).fetchall()
             if "GraceHashJoinExec" in line]
    spilled = sum(int(re.search(r"spill_count=(\\d+)", line).group(1)) > 0 for line in joins)
    print(limit, differ, len(joins), spilled)
"""


@pytest.mark.parametrize("seed", [1, 2])
def test_joins_beyond_memory_limit_spill_and_answer_as_without_it(tmp_path, seed):
    """Under 24 MB the build sides (~10 MB of rows here, twice that while
    the hash join copies them) mostly do not fit: each join runs as a grace
    hash join that splits both sides into spill files; under 128 MB they fit
    and the same operator joins in memory. Every answer equals the one without a
    limit (DuckDB has shipped a spilling join that dropped rows)."""
    out = run_python(JOINS, tmp_path / "db", tmp_path / "spill", seed, 12, "128MB", "24MB", timeout=600).stdout
    first, roomy, tight = out.splitlines()
    assert first == "rows True"
    limit, differ, grace, spilled = roomy.split(" ", 1)[0], *roomy.split(" ", 1)[1].rsplit(" ", 2)
    assert (limit, differ, int(grace) > 0, spilled) == ("128MB", "[]", True, "0"), out
    limit, differ, grace, spilled = tight.split(" ", 1)[0], *tight.split(" ", 1)[1].rsplit(" ", 2)
    # Whether a small build side fits depends on what the other partition holds at that moment.
    assert (limit, differ, grace, int(spilled) >= 6) == ("24MB", "[]", "12", True), out


# TPC-H's 22 queries at scale 0.1, answered under no limit and under each
# limit of argv[3:], compared whole (rows sorted). Prints one line per limit:
# the queries whose answer differs, the plans with a grace hash join, and how
# many of those spilled.
TPCH_LIMITS = """
import re, sys, swingdb
from bench.tpch import QUERIES, TABLES, generate
data = generate(0.1, sys.argv[1])
con = swingdb.connect(sys.argv[2])
for table in TABLES:
    con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{data}/{table}.parquet')")

def answers():
    return {n: sorted(con.execute(q).fetchall(), key=repr) for n, q in QUERIES.items()}

expected = answers()
for limit in sys.argv[3:]:
    con.execute(f"SET memory_limit = '{limit}'")
    differ = [n for n, rows in answers().items() if rows != expected[n]]
    joins = [line for q in QUERIES.values() for _, line in con.execute("EXPLAIN ANALYZE " + q).fetchall()
             if "GraceHashJoinExec" in line]
    spilled = sum(int(m) > 0 for line in joins for m in re.findall(r"GraceHashJoinExec.*?spill_count=(\\d+)", line))
    print(limit, differ, len(joins) > 0, spilled > 0)
"""


def test_tpch_answers_the_same_under_memory_limits(tmp_path):
    """TPC-H's 22 queries (scale 0.1) under 64 MB and 10 MB answer exactly as
    without a limit: the larger joins run as grace hash joins, which under
    10 MB spill (issue 75's differential test; under 12 MB whether one spills
    depends on how the two partitions' reservations interleave). The sorts'
    merge reservation is cut to the limit (DataFusion's 10 MB failed Q5, 7, 8
    and 9 under 12 MB)."""
    out = run_python(TPCH_LIMITS, tmp_path / "tpch", tmp_path / "db", "64MB", "10MB", timeout=600,
                     cwd=Path(__file__).parent.parent).stdout
    assert out.splitlines() == ["64MB [] True False", "10MB [] True True"], out
