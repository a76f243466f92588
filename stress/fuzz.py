"""Fuzzing through the Python package, in subprocesses: mutated SQL statements
and corrupted database files. A subprocess that dies by a signal is a crash;
an exception that is not a `swingdb.Error`, or an `InternalError` (a bug
swingdb admits to), is a finding too."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap

#: Statements the mutations start from: every kind of statement users run.
SEED_SQL = [
    "SELECT i, s, d FROM t WHERE i > 10 ORDER BY i LIMIT 5",
    "SELECT count(*), sum(i), avg(d), min(s), max(s) FROM t GROUP BY i % 7 HAVING count(*) > 1",
    "SELECT a.i, b.s FROM t a JOIN t b ON a.i = b.i + 1 WHERE a.s LIKE 'x%'",
    "SELECT * FROM t WHERE i IN (SELECT i FROM u) OR s = 'abc'",
    "WITH c AS (SELECT i * 2 AS j FROM t) SELECT j, row_number() OVER (ORDER BY j) FROM c",
    "SELECT CAST(s AS INT), CAST(i AS VARCHAR), CAST(d AS DECIMAL(10,2)) FROM t",
    "SELECT i / 0, 1 / i, d / 0.0, i % 0 FROM t",
    "SELECT substr(s, 2, 3), upper(s), length(s), s || 'x' FROM t",
    "SELECT date '2024-01-31' + INTERVAL '1 month', now() - INTERVAL '3 days'",
    "SELECT CASE WHEN i > 5 THEN 'a' WHEN i < 2 THEN 'b' ELSE NULL END FROM t",
    "INSERT INTO u VALUES (1, 'a'), (2, NULL), (3, 'c')",
    "INSERT INTO u SELECT i, s FROM t WHERE d > 0.5",
    "UPDATE u SET s = upper(s) WHERE i = 2",
    "DELETE FROM u WHERE i > 1",
    "CREATE TABLE v AS SELECT i, s FROM t",
    "DROP TABLE IF EXISTS v",
    "ALTER TABLE u RENAME TO u2",
    "BEGIN; INSERT INTO u VALUES (9, 'z'); ROLLBACK",
    "SELECT * FROM information_schema.columns WHERE table_name = 't'",
    "SELECT unnest([1, 2, 3]), array_length([1, 2]), struct(1 AS a).a",
    "SELECT 9223372036854775807 + 1, -2147483648 * -1, 1e308 * 10",
    "SELECT * FROM range(10) r(x) CROSS JOIN range(3) q(y) WHERE x = y",
    "COPY (SELECT 1) TO 'copy-out.csv' (FORMAT csv)",
    "SET datafusion.execution.batch_size = 1024",
    "EXPLAIN SELECT * FROM t WHERE i = 1",
    "SELECT regexp_replace(s, '[a-z]+', 'X'), md5(s), to_hex(i) FROM t",
]

TOKENS = [
    "(", ")", ",", ";", "'", '"', "*", "+", "-", "/", "%", "||", "=", "<>", "NULL", "SELECT", "FROM", "WHERE", "AND", "OR",
    "NOT", "IN", "JOIN", "ON", "GROUP BY", "ORDER BY", "LIMIT", "OFFSET", "UNION", "CAST", "AS", "INT", "BIGINT",
    "VARCHAR", "DECIMAL(38,10)", "DATE", "TIMESTAMP", "?", "$1", "$999999", "0", "-1", "9223372036854775807",
    "99999999999999999999999999999999999", "1e999", "'\x00'", "'\u00e9\u4e2d'", "t", "u", "i", "s", "d", "count(*)",
    "sum(i)", "OVER ()", "EXISTS", "INTERVAL '1' DAY", "[1,2]", "{'a': 1}", "::INT", "CASE WHEN", "END", "DISTINCT",
]


def mutate(sql: str, rng: random.Random) -> str:
    """One random edit of `sql`, or a few of them."""
    if rng.random() < 0.1:
        return sql
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        words = sql.split(" ")
        op = rng.randrange(10)
        i = rng.randrange(len(words)) if words else 0
        if op == 0 and words:
            del words[i]
        elif op == 1:
            words.insert(i, rng.choice(TOKENS))
        elif op == 2 and words:
            words[i] = rng.choice(TOKENS)
        elif op == 3 and words:
            words.insert(i, words[rng.randrange(len(words))])
        elif op == 4:  # a long operator chain or deep nesting
            n = rng.choice([10, 100, 1000, 5000, 20000])
            piece = rng.choice(["i = 1 OR ", "1 + ", "(", "NOT ", "-", "upper("])
            words.insert(i, piece * n)
        elif op == 5:
            pos = rng.randrange(len(sql) + 1)
            sql = sql[:pos] + chr(rng.choice([0, 1, 0x7F, 0xFFFD, 0x1F600, rng.randrange(32, 0x3000)])) + sql[pos:]
            continue
        elif op == 6 and len(sql) > 2:
            a = rng.randrange(len(sql))
            sql = sql[:a] + sql[a + rng.randint(1, 10):]
            continue
        elif op == 7:
            words.insert(i, str(rng.choice([0, -1, 2**31, 2**63, -(2**63), 10**40, 1.5e308, float("nan")])))
        elif op == 8:
            sql = sql + " " + rng.choice(SEED_SQL)
            continue
        else:
            words.append(rng.choice(TOKENS))
        sql = " ".join(words)
    return sql


def runner(setup: str, body: str) -> str:
    """A subprocess script that runs `body` for each item of a JSON list (item
    `item`, index `k`), counting items that ran and those refused with a
    swingdb.Error, and reporting any other exception; the progress file tells
    which item a crash or hang happened at."""
    return textwrap.dedent("""
        import json, sys
        import swingdb
        path, items = sys.argv[1], json.load(open(sys.argv[2]))
        {setup}
        progress = open(path, "w")
        ok = refused = 0
        for k, item in enumerate(items):
            progress.write(f"{{k}}\\n"); progress.flush()
            try:
        {body}
                ok += 1
            except swingdb.InternalError as e:
                print("INTERNAL", json.dumps([k, str(e)[:200]]), flush=True)
            except swingdb.Error:
                refused += 1
            except Exception as e:
                print("NONDBAPI", json.dumps([k, type(e).__module__ + "." + type(e).__name__ + ": " + str(e)[:200]]), flush=True)
        print("COUNTS", ok, refused, flush=True)
        print("DONE", flush=True)
    """).format(setup=textwrap.dedent(setup).strip(), body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8))


SQL_RUNNER = runner(
    """
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS i, 'x' || value AS s, value / 7.0 AS d FROM range(200)")
    con.sql("CREATE TABLE u (i BIGINT, s VARCHAR)")
    """,
    """
    try:
        r = con.sql(item)
        if r is not None:
            r.fetchall()
    finally:
        if not con.closed and con.in_transaction:
            con.rollback()
    """,
)


def _run_batch(items, code, work, tally, label, timeout=600, internal_fails=True):
    """Runs `code` over `items` in a subprocess; records crashes and non-DB-API
    errors, and InternalErrors as failures (`internal_fails`) or counted apart."""
    batch = os.path.join(work, f"{label}.json")
    progress = os.path.join(work, f"{label}.progress")
    json.dump(items, open(batch, "w"))
    try:
        out = subprocess.run([sys.executable, "-c", code, progress, batch], capture_output=True, text=True, timeout=timeout, cwd=work)
    except subprocess.TimeoutExpired:
        done = open(progress).read().split()
        tally.fail(f"{label}: hung at item {done[-1] if done else 0}: {str(items[int(done[-1]) if done else 0])[:200]}")
        return int(done[-1]) if done else 0
    for line in out.stdout.splitlines():
        if line.startswith("COUNTS"):
            ok, refused = map(int, line.split()[1:])
            tally.counts["ran"] = tally.counts.get("ran", 0) + ok
            tally.counts["refused with a swingdb.Error"] = tally.counts.get("refused with a swingdb.Error", 0) + refused
        if line.startswith("NONDBAPI"):
            k, what = json.loads(line.split(" ", 1)[1])
            tally.fail(f"{label}: non-DB-API exception {what} for {str(items[k])[:200]!r}")
        if line.startswith("INTERNAL"):
            k, what = json.loads(line.split(" ", 1)[1])
            if internal_fails:
                tally.fail(f"{label}: InternalError {what} for {str(items[k])[:200]!r}")
            else:
                key = "InternalError on damaged files (counted, not yet failures)"
                tally.counts[key] = tally.counts.get(key, 0) + 1
    if out.returncode != 0 or "DONE" not in out.stdout:
        done = open(progress).read().split()
        k = int(done[-1]) if done else 0
        kept = _keep_finding(items[k], label, k)
        tally.fail(f"{label}: CRASH (exit {out.returncode}) at item {k}: {str(items[k])[:300]!r}{kept} {out.stderr[-300:]}")
        return k + 1
    return len(items)


#: Where inputs that crashed are kept (the scratch directory goes at the end of a run).
FINDINGS = os.path.join(tempfile.gettempdir(), "swingdb-stress-findings")


def _keep_finding(item, label: str, k: int) -> str:
    """Copies a crashing database directory (an item that is one) to FINDINGS; says where."""
    if not (isinstance(item, str) and os.path.isdir(item)):
        return ""
    target = os.path.join(FINDINGS, f"{label}-{k}-{os.getpid()}")
    shutil.copytree(item, target, dirs_exist_ok=True)
    return f" (kept in {target})"


def run_sql(budget, work, rng, tally, batch_size=2000):
    import time

    end = time.time() + budget
    n = 0
    while time.time() < end:
        stmts = [mutate(rng.choice(SEED_SQL), rng) for _ in range(batch_size)]
        tally.trials += _run_batch(stmts, SQL_RUNNER, work, tally, f"sql{n}")
        n += 1


FILE_RUNNER = runner(
    "",
    """
    con = swingdb.connect(item)
    for name in con.table_names():
        con.sql(f'SELECT * FROM "{name}"').arrow()
        con.sql(f'SELECT count(*), min(i), max(i) FROM "{name}" WHERE i > 100').fetchall()
    con.verify()
    con.sql("INSERT INTO t SELECT * FROM t LIMIT 3")
    con.close()
    """,
)

BUILD_DB = textwrap.dedent("""
    import sys, swingdb
    con = swingdb.connect(sys.argv[1])
    con.sql("CREATE TABLE t (i INT, s VARCHAR, d DOUBLE)")
    con.sql("INSERT INTO t SELECT CAST(value AS INT), 'row ' || value, value / 3.0 FROM range(5000)")
    con.sql("CREATE TABLE u AS SELECT value AS i, [value, value + 1] AS l FROM range(300)")
    con.sql("INSERT INTO t SELECT CAST(value AS INT), NULL AS s, NULL AS d FROM range(10)")
""")


def corrupt(path: str, rng: random.Random) -> str:
    """Damages one file in place; returns what was done."""
    data = bytearray(open(path, "rb").read())
    op = rng.randrange(6)
    if op == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        what = "bit flips"
    elif op == 1:
        data = data[: rng.randrange(len(data) + 1)]
        what = "truncated"
    elif op == 2:
        data += os.urandom(rng.randint(1, 4096))
        what = "extended"
    elif op == 3 and data:
        a = rng.randrange(len(data))
        data[a:a + rng.randint(1, 64)] = os.urandom(rng.randint(0, 64))
        what = "overwritten"
    elif op == 4 and path.endswith(".json"):
        text = data.decode(errors="replace")
        for old, new in [('"rows": ', '"rows": 9'), ('"bytes": ', '"bytes": 1'), ('"type": "', '"type": "x'), ('"file": "', '"file": "../')]:
            if old in text and rng.random() < 0.5:
                text = text.replace(old, new, 1)
        data = bytearray(text.encode())
        what = "edited fields"
    else:
        data = bytearray()
        what = "emptied"
    os.chmod(path, 0o600)
    open(path, "wb").write(bytes(data))
    return what


def run_files(budget, work, rng, tally, batch_size=100):
    import time

    base = os.path.join(work, "base.swingdb")
    subprocess.run([sys.executable, "-c", BUILD_DB, base], check=True, timeout=120)
    end = time.time() + budget
    n = 0
    while time.time() < end:
        dbs = []
        for k in range(batch_size):
            db = os.path.join(work, f"f{k}.swingdb")
            shutil.rmtree(db, ignore_errors=True)
            shutil.copytree(base, db)
            files = [os.path.join(dp, f) for dp, _, fs in os.walk(db) for f in fs]
            data_files = [f for f in files if f.endswith((".arrow", ".json", ".log"))]
            victim = rng.choice(data_files if rng.random() < 0.85 else files)
            corrupt(victim, rng)
            dbs.append(db)
        tally.trials += _run_batch(dbs, FILE_RUNNER, work, tally, f"files{n}", internal_fails=False)
        n += 1
