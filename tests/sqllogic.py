"""A small sqllogictest runner: each ``tests/sql/*.slt`` file runs on swingdb
and, record by record, on SQLite (stdlib ``sqlite3``) and DuckDB, so every
expected answer is one the peers agree with (or the record says which peer
differs, with ``skipif``).

The format is the one SQLite, DuckDB and DataFusion keep their SQL tests in::

    # a comment
    statement ok
    CREATE TABLE t (a INTEGER)

    statement error DataError: BIGINT out of range
    SELECT 9223372036854775807 + 1

    skipif sqlite
    query IT rowsort
    SELECT a, b FROM t
    ----
    1 x
    2 NULL

A ``plan contains TEXT`` (or ``plan lacks TEXT``) record runs on swingdb
alone: the ``EXPLAIN`` of its query (logical and physical plan) must
contain (or must not contain) ``TEXT``; with ``SET disabled_optimizers``
around it, it shows what an optimizer rule changes.

A query's letters give each column's rendering: ``I`` integer, ``R`` real
(three decimals), ``T`` text, ``B`` boolean; ``rowsort`` sorts the rendered
rows before comparing. ``NULL`` is SQL NULL, ``(empty)`` the empty string.
An error's pattern is a regular expression matched against swingdb's
``ClassName: message``; the peers must only fail. ``onlyif ENGINE`` runs a
record on that engine alone, ``skipif ENGINE`` everywhere but there
(engines: ``swingdb``, ``sqlite``, ``duckdb``).

Our own runner rather than the ``sqllogictest`` crate: every record runs on
three engines, DuckDB through its Python package; the crate would need
``duckdb-rs``, which compiles DuckDB's C++ from source (longer than the rest
of the build on this 2-core machine), to compare with DuckDB at all.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sqlite3
from decimal import Decimal
from pathlib import Path

ENGINES = ("swingdb", "sqlite", "duckdb")


@dataclasses.dataclass
class Record:
    """One statement or query of a file, with where it starts."""

    line: int
    kind: str  # "statement", "query" or "plan"
    sql: str
    error: str | None = None  # pattern, when an error is expected
    types: str = ""
    plan: tuple[str, str] | None = None  # ("contains" | "lacks", text) of a plan record
    rowsort: bool = False
    expected: list[str] = dataclasses.field(default_factory=list)
    skip: set[str] = dataclasses.field(default_factory=set)
    only: set[str] = dataclasses.field(default_factory=set)

    def runs_on(self, engine: str) -> bool:
        return engine not in self.skip and (not self.only or engine in self.only)


def parse(path: Path) -> list[Record]:
    """The records of an .slt file (blank lines separate them)."""
    records = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
            continue
        skip, only = set(), set()
        while line.startswith(("skipif ", "onlyif ")):
            word, engine = line.split()[:2]
            if engine not in ENGINES:
                raise ValueError(f"{path}:{i + 1}: unknown engine {engine!r}")
            (skip if word == "skipif" else only).add(engine)
            i += 1
            line = lines[i].strip()
        start = i + 1
        head = line.split(maxsplit=2)
        record = Record(line=start, kind=head[0], sql="", skip=skip, only=only)
        if head[0] not in ("statement", "query", "plan"):
            raise ValueError(f"{path}:{start}: expected 'statement', 'query' or 'plan', found {line!r}")
        if head[0] == "plan":
            if len(head) < 3 or head[1] not in ("contains", "lacks"):
                raise ValueError(f"{path}:{start}: expected 'plan contains TEXT' or 'plan lacks TEXT'")
            record.plan = (head[1], head[2])
            record.only = {"swingdb"}
        elif len(head) > 1 and head[1] == "error":
            record.error = line.split("error", 1)[1].strip()
        elif head[0] == "query":
            record.types = head[1]
            record.rowsort = len(head) > 2 and head[2] == "rowsort"
        i += 1
        sql = []
        while i < len(lines) and lines[i].strip() and lines[i].strip() != "----":
            sql.append(lines[i])
            i += 1
        record.sql = "\n".join(sql)
        if i < len(lines) and lines[i].strip() == "----":
            i += 1
            while i < len(lines) and lines[i].strip():
                record.expected.append(lines[i].strip())
                i += 1
        records.append(record)
    return records


def render(value, letter: str) -> str:
    """A value as the test file writes it, for a column of type ``letter``."""
    if value is None:
        return "NULL"
    if letter == "I":
        if isinstance(value, float) and not value.is_integer():
            return f"{value:.3f}"
        return str(int(value))
    if letter == "R":
        if isinstance(value, (float, Decimal)) and not math.isfinite(float(value)):
            return str(value)
        return f"{float(value):.3f}"
    if letter == "B":
        return "true" if value else "false"
    text = str(value)
    return text if text else "(empty)"


class Engine:
    """One database connection the records run on."""

    def __init__(self, name: str, compression: str | None = None):
        self.name = name
        if name == "swingdb":
            import swingdb

            self.con = swingdb.connect()
            if compression:
                self.con.execute(f"SET default_compression = '{compression}'")
        elif name == "sqlite":
            self.con = sqlite3.connect(":memory:", isolation_level=None)
        else:
            import duckdb

            self.con = duckdb.connect()

    def run(self, sql: str) -> list[tuple]:
        cur = self.con.execute(sql)
        return cur.fetchall() if cur.description else []

    def close(self):
        self.con.close()


def check(record: Record, engine: Engine) -> str | None:
    """None when ``engine`` answers ``record`` as the file expects, else why not."""
    if record.plan is not None:
        word, text = record.plan
        plan = "\n".join(f"{kind}:\n{step}" for kind, step in engine.run("EXPLAIN " + record.sql))
        if (text in plan) != (word == "contains"):
            return f"the plan {'does not contain' if word == 'contains' else 'contains'} {text!r}:\n{plan}"
        return None
    try:
        rows = engine.run(record.sql)
    except Exception as e:  # every engine's error is an answer here
        if record.error is None:
            return f"unexpected error: {type(e).__name__}: {e}"
        if engine.name == "swingdb" and record.error:
            said = f"{type(e).__name__}: {e}"
            if not re.search(record.error, said):
                return f"error {said!r} does not match {record.error!r}"
        return None
    if record.error is not None:
        return f"expected an error, got {rows!r}"
    if record.kind == "statement":
        return None
    got = []
    for row in rows:
        if len(row) != len(record.types):
            return f"{len(row)} columns, the record declares {len(record.types)} ({record.types})"
        try:
            got.append(" ".join(render(v, t) for v, t in zip(row, record.types)))
        except (TypeError, ValueError) as e:
            return f"row {row!r} does not render as {record.types}: {e}"
    if record.rowsort:
        got.sort()
    if got != record.expected:
        return "answer differs:\n  expected: " + "\n            ".join(record.expected) + "\n  got:      " + "\n            ".join(got)
    return None


def run_file(path: Path, engines=ENGINES, compression: str | None = None) -> list[str]:
    """Runs every record of ``path`` on each engine; the failures, located.
    With ``compression``, swingdb's tables are created with it and plans are
    not checked (reading compressed columns may take other operators)."""
    records = [r for r in parse(path) if not (compression and r.plan)]
    failures = []
    for name in engines:
        engine = Engine(name, compression)
        try:
            for record in records:
                if record.runs_on(name):
                    why = check(record, engine)
                    if why:
                        failures.append(f"{path.name}:{record.line} [{name}] {record.sql.splitlines()[0]}\n  {why}")
        finally:
            engine.close()
    return failures
