"""The differential SQL fuzzer: random SELECTs from a typed grammar, run on
swingdb and DuckDB over the same data, answers compared; each mismatch is
minimized (query and data) and written out as a repro.

    python -m stress.answers --statements 20000 --seed 1 --repros /tmp/repros
    python -m stress --minutes 10 --only answers     # as a torture scenario

The grammar: joins (inner, outer, cross, comma), semi/anti joins through
EXISTS / IN / NOT IN, correlated and scalar subqueries, GROUP BY / HAVING,
aggregates (DISTINCT too), window functions, CASE / COALESCE / NULLIF,
casts, string and date functions, set operations (ALL too), CTEs (used
twice too), DISTINCT, ORDER BY / LIMIT / OFFSET; over four tables of every
column type holding NULLs, duplicates, '', -0.0, NaN, infinities, extreme
integers, decimals, dates and non-ASCII text.

Answers are compared as multisets, or as lists where the statement orders by
every output column. Numbers are compared by value (an INTEGER 3, a DOUBLE 3.0
and a DECIMAL 3.00 are the same answer; floats to 12 significant digits), as
DuckDB's and swingdb's result types differ by design (DuckDB's SUM of an
INTEGER is a HUGEINT, ours a BIGINT).

Each mismatch is also put to SQLite (loaded with the same rows: dates as
ISO text, decimals as REAL, NaN as NULL, as SQLite stores them): its answer,
where its dialect lets it give one, says which side it takes, so that a
DuckDB bug is told from ours at a glance (`verdicts` in the report).

A statement only one engine answers is not a mismatch: where DuckDB refuses,
there is nothing to hold swingdb to; where swingdb refuses, it is counted
(`swingdb_only_errors`, by message) and shown in the report; an
`InternalError` from swingdb is a failure. Where the engines differ by design,
the difference is in `DIALECT`, with its reason, and the grammar does not
produce it (so that it cannot hide a real mismatch).
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import math
import os
import random
import re
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

#: Where swingdb and DuckDB answer differently on purpose, and why. The
#: grammar leaves each out; docs/sql.md lists them for users.
DIALECT = {
    "integer division": "`7 / 2` is 3 in swingdb (the SQL standard's, PostgreSQL's and SQLite's integer division) "
    "and 3.5 in DuckDB; both spell DuckDB's truncating division `7 // 2`. The grammar divides integers with `//`.",
    "NULLs in descending order": "`ORDER BY x DESC` puts NULLs first in swingdb (PostgreSQL's rule), last in DuckDB. "
    "The grammar always says NULLS FIRST or NULLS LAST after DESC.",
    "sum of integers": "SUM of BIGINTs that overflows is an error in swingdb (its result is a BIGINT); DuckDB widens "
    "to HUGEINT. Refused, not compared.",
    "result types": "DuckDB's SUM of INTEGERs is a HUGEINT, AVG of DECIMALs a DOUBLE; swingdb keeps BIGINT and "
    "DECIMAL. Values are compared, not types.",
    "string_agg order": "string_agg without ORDER BY concatenates in an unspecified order in both; the grammar "
    "always orders it.",
}

TYPES = {"int": "INTEGER", "big": "BIGINT", "dbl": "DOUBLE", "dec": "DECIMAL(10,2)", "text": "VARCHAR", "date": "DATE", "bool": "BOOLEAN"}
#: The columns of every table: (name, type).
COLUMNS = [("k", "int"), ("i", "int"), ("b", "big"), ("d", "dbl"), ("n", "dec"), ("s", "text"), ("dt", "date"), ("f", "bool")]
TABLES = ["t0", "t1", "t2", "t3"]
#: Types that compare and sort with each other.
ORDERED = ["int", "big", "dbl", "dec", "text", "date", "bool"]
NUMERIC = ["int", "big", "dbl", "dec"]


def value_literal(rng: random.Random, typ: str) -> str:
    """A value for a table row, as SQL both engines read alike."""
    if rng.random() < 0.15:
        return "NULL"
    if typ == "int":
        if rng.random() < 0.03:
            return rng.choice(["2147483647", "-2147483647"])
        return str(rng.choice([0, 1, 2, 3, -1, -2, 7, 42, rng.randint(-5, 9)]))
    if typ == "big":
        return rng.choice(["0", "1", "-1", "5", "1000000000000", "9223372036854775807", "CAST('-9223372036854775808' AS BIGINT)", str(rng.randint(-9, 9))])
    if typ == "dbl":
        return rng.choice(["CAST('-0.0' AS DOUBLE)", "CAST(0.0 AS DOUBLE)", "CAST(1.5 AS DOUBLE)", "CAST(-2.25 AS DOUBLE)",
                           "CAST(3.0 AS DOUBLE)", "CAST(100.125 AS DOUBLE)", "CAST('NaN' AS DOUBLE)", "CAST('inf' AS DOUBLE)",
                           "CAST('-inf' AS DOUBLE)", "CAST(-0.5 AS DOUBLE)", "CAST(-0.0 AS DOUBLE)"])
    if typ == "dec":
        return rng.choice(["0.00", "1.25", "-1.25", "3.50", "0.53", "12345678.99", "-0.01", "2.00"])
    if typ == "text":
        return rng.choice(["''", "'a'", "'b'", "'ab'", "'A'", "' a'", "'b%c'", "'a_c'", "'é'", "'日本'", "'x\\y'", "'abc'", "'B'"])
    if typ == "date":
        return rng.choice(["DATE '2024-02-29'", "DATE '2024-03-01'", "DATE '1970-01-01'", "DATE '1999-12-31'", "DATE '2024-01-01'"])
    return rng.choice(["TRUE", "FALSE"])


@dataclass
class Data:
    """Four tables' rows, each row a list of SQL literals in COLUMNS order."""

    rows: dict = field(default_factory=dict)

    @staticmethod
    def random(rng: random.Random) -> Data:
        sizes = {"t0": rng.randint(6, 14), "t1": rng.randint(3, 10), "t2": rng.randint(0, 6), "t3": rng.randint(0, 3)}
        data = Data()
        for table, size in sizes.items():
            rows = [[value_literal(rng, typ) for _, typ in COLUMNS] for _ in range(size)]
            for _ in range(rng.randint(0, 2)):  # duplicates
                if rows:
                    rows.append(list(rng.choice(rows)))
            data.rows[table] = rows
        return data

    def statements(self) -> list[str]:
        """The SQL that creates and fills the tables."""
        decl = ", ".join(f"{name} {TYPES[typ]}" for name, typ in COLUMNS)
        out = []
        for table, rows in self.rows.items():
            out.append(f"CREATE TABLE {table} ({decl})")
            if rows:
                out.append(f"INSERT INTO {table} VALUES " + ", ".join("(" + ", ".join(r) + ")" for r in rows))
        return out


class Node:
    """A piece of a generated statement: text and child nodes, rendered in
    order (or, for a list, the children that are not left out, joined by
    `sep`). `typ` is an expression's type; an `optional` node may be left
    out whole. The minimizer replaces nodes by simpler ones."""

    __slots__ = ("parts", "typ", "optional", "sep")

    def __init__(self, parts, typ=None, optional=False, sep=None):
        self.parts = list(parts)
        self.typ = typ
        self.optional = optional
        self.sep = sep

    def render(self) -> str:
        texts = [p if isinstance(p, str) else p.render() for p in self.parts]
        if self.sep is not None:
            return self.sep.join(t for t in texts if t)
        return "".join(texts)

    def nodes(self):
        """This node and every node under it, parents first."""
        yield self
        for p in self.parts:
            if isinstance(p, Node):
                yield from p.nodes()


def N(*parts, typ=None, optional=False):
    return Node(parts, typ=typ, optional=optional)


def simple_literal(typ: str) -> str:
    return {"int": "1", "big": "CAST(1 AS BIGINT)", "dbl": "CAST(1.5 AS DOUBLE)", "dec": "CAST(1.25 AS DECIMAL(10,2))",
            "text": "'a'", "date": "DATE '2024-01-01'", "bool": "TRUE"}[typ]


def null_literal(typ: str) -> str:
    return f"CAST(NULL AS {TYPES[typ]})"


@dataclass
class Relation:
    """A name in scope and its columns: [(column, type)]."""

    alias: str
    columns: list


class Grammar:
    """Random statements over t0..t3 (columns COLUMNS)."""

    def __init__(self, rng: random.Random):
        self.r = rng
        # Whether a statement names its own columns is drawn apart, so that
        # adding the choice left every seed's other statements as they were.
        self.naming = random.Random(hash(rng.getstate()))
        self.aliases = 0

    def alias(self, prefix="a") -> str:
        self.aliases += 1
        return f"{prefix}{self.aliases}"

    # -- expressions -------------------------------------------------------

    def column(self, scope, typ):
        cands = [f"{rel.alias}.{c}" for rel in scope for c, t in rel.columns if t == typ]
        return self.r.choice(cands) if cands else None

    def literal(self, typ):
        r = self.r
        if r.random() < 0.08:
            return null_literal(typ)
        if typ == "int":
            return str(r.choice([0, 1, 2, 3, -1, 5, 10]))
        if typ == "big":
            return r.choice(["CAST(2 AS BIGINT)", "CAST(0 AS BIGINT)", "CAST(-1 AS BIGINT)", "CAST(1000000000000 AS BIGINT)"])
        if typ == "dbl":
            # Numbers with an exponent are DOUBLE (as in DuckDB).
            return r.choice(["CAST(0.0 AS DOUBLE)", "CAST('-0.0' AS DOUBLE)", "CAST(1.5 AS DOUBLE)", "CAST(-2.25 AS DOUBLE)", "CAST('NaN' AS DOUBLE)", "CAST(2 AS DOUBLE)",
                             "1.5e0", "-2.5E-1", "1e20"])
        if typ == "dec":
            # Numbers with a decimal point are exact DECIMALs (as in DuckDB).
            return r.choice(["CAST(0.53 AS DECIMAL(10,2))", "CAST(0 AS DECIMAL(10,2))", "CAST(1.25 AS DECIMAL(10,2))", "CAST(-1.25 AS DECIMAL(10,2))",
                             "0.53", "1.25", "-0.10", "0.1"])
        if typ == "text":
            return r.choice(["'a'", "''", "'b'", "'ab'", "'é'", "'abc'", "'A'"])
        if typ == "date":
            return r.choice(["DATE '2024-02-29'", "DATE '2024-01-01'", "DATE '1999-12-31'"])
        return r.choice(["TRUE", "FALSE"])

    def expr(self, typ, scope, depth=0, agg=None):
        """An expression of type `typ` over the columns in `scope`. In a
        grouped SELECT, `agg` is the scope of the FROM clause, which the
        aggregates in the expression range over, and `scope` holds the
        grouped columns only."""
        r = self.r
        leaf = depth >= 3 or r.random() < 0.35
        if agg and r.random() < 0.45:
            a = self.aggregate(typ, agg, depth)
            if a is not None:
                return a
        if leaf:
            col = self.column(scope, typ) if r.random() < 0.8 else None
            return N(col if col else self.literal(typ), typ=typ)
        sub = lambda t=typ: self.expr(t, scope, depth + 1, agg)  # noqa: E731
        choice = r.random()
        if choice < 0.12:
            return N("CASE WHEN ", self.pred(scope, depth + 1, agg), " THEN ", sub(), " ELSE ", sub(), " END", typ=typ)
        if choice < 0.2:
            return N("COALESCE(", sub(), ", ", sub(), ")", typ=typ)
        if choice < 0.25 and typ != "bool":
            return N("NULLIF(", sub(), ", ", sub(), ")", typ=typ)
        if choice < 0.3 and depth < 2 and scope and not agg:
            return self.scalar_subquery(typ, scope, depth)
        if typ == "bool":
            return self.pred(scope, depth, agg)
        if typ in ("int", "big"):
            op = r.random()
            if op < 0.3:
                return N("(", sub(), r.choice([" + ", " - ", " * "]), sub(), ")", typ=typ)
            if op < 0.38:
                return N("(", sub(), r.choice([" // ", " % "]), str(r.choice([2, 3, -2, 7])), ")", typ=typ)
            if op < 0.48:
                return N("abs(", sub(), ")", typ=typ)
            if op < 0.55:
                return N("(- ", sub(), ")", typ=typ)
            if op < 0.65 and typ == "int":
                return N("length(", sub("text"), ")", typ=typ)
            if op < 0.72 and typ == "int":
                return N("CAST(", sub(r.choice(["dbl", "dec"])), " AS INTEGER)", typ=typ)
            if op < 0.8 and typ == "big":
                return N("CAST(", sub("int"), " AS BIGINT)", typ=typ)
            if op < 0.85 and typ == "big":
                return N("CAST(extract(year FROM ", sub("date"), ") AS BIGINT)", typ=typ)
            if op < 0.9 and typ == "int":
                return N("sign(", sub("int"), ")", typ=typ)
            return N("CASE ", sub(), " WHEN ", sub(), " THEN ", sub(), " ELSE ", sub(), " END", typ=typ)
        if typ == "dbl":
            op = r.random()
            if op < 0.35:
                return N("(", sub(), r.choice([" + ", " - ", " * "]), sub(), ")", typ=typ)
            if op < 0.45:
                return N("(- ", sub(), ")", typ=typ)
            if op < 0.55:
                return N("abs(", sub(), ")", typ=typ)
            if op < 0.7:
                return N("CAST(", sub(r.choice(["int", "dec"])), " AS DOUBLE)", typ=typ)
            if op < 0.8:
                return N("floor(", sub(), ")", typ=typ)
            if op < 0.87:
                # A DECIMAL divided, or met by a DOUBLE, gives a DOUBLE.
                return N("(", sub(r.choice(["dec", "int"])), " / ", r.choice(["2.5", "0.3", "3.0", "-0.5"]), ")", typ=typ)
            if op < 0.93:
                return N("(", sub("dec"), r.choice([" + ", " * "]), sub(), ")", typ=typ)
            return N("(", sub(), " / ", r.choice(["CAST(2 AS DOUBLE)", "CAST(4 AS DOUBLE)", "CAST(-0.5 AS DOUBLE)"]), ")", typ=typ)
        if typ == "dec":
            op = r.random()
            if op < 0.35:
                return N("(", sub(), r.choice([" + ", " - "]), sub(), ")", typ=typ)
            if op < 0.5:
                return N("abs(", sub(), ")", typ=typ)
            if op < 0.7:
                return N("CAST(", sub("int"), " AS DECIMAL(10,2))", typ=typ)
            if op < 0.85:
                return N("(- ", sub(), ")", typ=typ)
            if op < 0.92:
                return N("(", sub(), " * ", r.choice(["0.5", "1.1", "2", "-0.25"]), ")", typ=typ)
            return N("CAST(round(", sub(), ", 1) AS DECIMAL(10,2))", typ=typ)
        if typ == "text":
            op = r.random()
            if op < 0.2:
                return N("(", sub(), " || ", sub(), ")", typ=typ)
            if op < 0.3:
                return N("upper(", sub(), ")", typ=typ)
            if op < 0.4:
                return N("lower(", sub(), ")", typ=typ)
            if op < 0.5:
                return N("substr(", sub(), ", ", str(r.randint(1, 3)), ", ", str(r.randint(0, 3)), ")", typ=typ)
            if op < 0.6:
                return N("CAST(", sub(r.choice(["int", "big", "date", "bool"])), " AS VARCHAR)", typ=typ)
            if op < 0.7:
                return N("trim(", sub(), ")", typ=typ)
            if op < 0.8:
                return N("replace(", sub(), ", 'a', 'x')", typ=typ)
            if op < 0.9:
                return N("concat(", sub(), ", ", sub(), ")", typ=typ)
            return N("reverse(", sub(), ")", typ=typ)
        if typ == "date":
            op = r.random()
            if op < 0.5:
                return N("CAST(", r.choice(["'2024-02-29'", "'2000-01-01'"]), " AS DATE)", typ=typ)
            return N("CAST(date_trunc('month', ", sub(), ") AS DATE)", typ=typ)
        raise AssertionError(typ)

    def comparable_pair(self, scope, depth, agg):
        typ = self.r.choice(ORDERED)
        return typ, self.expr(typ, scope, depth + 1, agg), self.expr(typ, scope, depth + 1, agg)

    def pred(self, scope, depth=0, agg=None):
        r = self.r
        if depth >= 3 or r.random() < 0.2:
            typ, a, b = self.comparable_pair(scope, depth + 2, agg)
            return N("(", a, r.choice([" = ", " <> ", " < ", " <= ", " > ", " >= "]), b, ")", typ="bool")
        choice = r.random()
        sub = lambda: self.pred(scope, depth + 1, agg)  # noqa: E731
        if choice < 0.25:
            typ, a, b = self.comparable_pair(scope, depth, agg)
            return N("(", a, r.choice([" = ", " <> ", " < ", " <= ", " > ", " >= ", " IS DISTINCT FROM ", " IS NOT DISTINCT FROM "]), b, ")", typ="bool")
        if choice < 0.35:
            return N("(", sub(), r.choice([" AND ", " OR "]), sub(), ")", typ="bool")
        if choice < 0.4:
            return N("(NOT ", sub(), ")", typ="bool")
        if choice < 0.48:
            typ = r.choice(ORDERED)
            return N("(", self.expr(typ, scope, depth + 1, agg), r.choice([" IS NULL", " IS NOT NULL"]), ")", typ="bool")
        if choice < 0.55:
            typ = r.choice(ORDERED)
            e = [self.expr(typ, scope, depth + 1, agg) for _ in range(3)]
            return N("(", e[0], r.choice([" BETWEEN ", " NOT BETWEEN "]), e[1], " AND ", e[2], ")", typ="bool")
        if choice < 0.63:
            typ = r.choice(ORDERED)
            items = [self.expr(typ, scope, depth + 2, agg) for _ in range(r.randint(1, 3))]
            parts = ["(", self.expr(typ, scope, depth + 1, agg), r.choice([" IN (", " NOT IN ("])]
            for j, it in enumerate(items):
                parts += ([", "] if j else []) + [it]
            return Node(parts + ["))"], typ="bool")
        if choice < 0.68:
            return N("(", self.expr("text", scope, depth + 1, agg), r.choice([" LIKE ", " NOT LIKE "]),
                     r.choice(["'a%'", "'%b'", "'_'", "'%'", "''", "'%a%'", "'b\\%c'", "'a_c'"]), ")", typ="bool")
        if choice < 0.7:
            # A DECIMAL compared with a DOUBLE: both as DOUBLE.
            return N("(", self.expr("dec", scope, depth + 1, agg), r.choice([" = ", " < ", " >= "]),
                     self.expr("dbl", scope, depth + 1, agg), ")", typ="bool")
        if choice < 0.74:
            col = self.column(scope, "bool")
            if col:
                return N(col, typ="bool")
        if depth < 2 and scope and not agg:
            return self.subquery_pred(scope, depth)
        typ, a, b = self.comparable_pair(scope, depth, agg)
        return N("(", a, " = ", b, ")", typ="bool")

    def aggregate(self, typ, scope, depth):
        r = self.r
        arg = lambda t: self.expr(t, scope, depth + 1)  # noqa: E731
        if typ == "int":
            return None
        if typ == "big":
            choice = r.random()
            if choice < 0.4:
                return N("count(*)", typ=typ)
            t = r.choice(ORDERED)
            if choice < 0.75:
                return N("count(", arg(t), ")", typ=typ)
            if choice < 0.9:
                return N("count(DISTINCT ", arg(t), ")", typ=typ)
            return N("CAST(sum(", arg("int"), ") AS BIGINT)", typ=typ)
        if typ == "dbl":
            choice = r.random()
            if choice < 0.3:
                return N("sum(", arg("dbl"), ")", typ=typ)
            if choice < 0.5:
                return N("CAST(avg(", arg(r.choice(["int", "dbl"])), ") AS DOUBLE)", typ=typ)
            if choice < 0.6:
                return N("sum(DISTINCT ", arg("dbl"), ")", typ=typ)
            return N(r.choice(["min(", "max("]), arg("dbl"), ")", typ=typ)
        if typ == "dec":
            choice = r.random()
            if choice < 0.4:
                return N("CAST(sum(", arg("dec"), ") AS DECIMAL(10,2))", typ=typ)
            return N(r.choice(["min(", "max("]), arg("dec"), ")", typ=typ)
        if typ == "text":
            choice = r.random()
            if choice < 0.25:
                col = self.column(scope, "text")
                if col:
                    return N(f"string_agg({col}, ',' ORDER BY {col})", typ=typ)
            return N(r.choice(["min(", "max("]), arg("text"), ")", typ=typ)
        if typ == "date":
            return N(r.choice(["min(", "max("]), arg("date"), ")", typ=typ)
        if typ == "bool":
            choice = r.random()
            if choice < 0.5:
                return N(r.choice(["bool_and(", "bool_or("]), self.pred(scope, depth + 1), ")", typ=typ)
            a = self.aggregate("big", scope, depth)
            return N("(", a, r.choice([" > ", " = ", " >= "]), str(r.randint(0, 3)), ")", typ=typ)
        return None

    def subquery_pred(self, scope, depth):
        r = self.r
        table = r.choice(TABLES)
        inner = Relation(self.alias("q"), COLUMNS)
        typ = r.choice(ORDERED)
        corr = ""
        if r.random() < 0.6:
            ctyp = r.choice(ORDERED)
            outer = self.expr(ctyp, scope, 3)
            corr_node = N(" WHERE ", N("(", self.expr(ctyp, [inner], 2), r.choice([" = ", " <> ", " < ", " >= "]), outer, ")", typ="bool"), optional=True)
        else:
            corr_node = N(" WHERE ", self.pred([inner], 2), optional=True)
        choice = r.random()
        if choice < 0.35:
            return N("(", r.choice(["EXISTS", "NOT EXISTS"]), " (SELECT 1 FROM ", table, " ", inner.alias, corr_node, "))", typ="bool")
        corr = corr_node
        left = self.expr(typ, scope, 2)
        return N("(", left, r.choice([" IN ", " NOT IN "]), "(SELECT ", self.expr(typ, [inner], 2), " FROM ", table, " ", inner.alias, corr, "))", typ="bool")

    def scalar_subquery(self, typ, scope, depth):
        r = self.r
        table = r.choice(TABLES)
        inner = Relation(self.alias("q"), COLUMNS)
        ctyp = r.choice(ORDERED)
        where = N(" WHERE ", N("(", self.expr(ctyp, [inner], 2), r.choice([" = ", " <> ", " < ", " >= "]), self.expr(ctyp, scope, 3), ")", typ="bool"), optional=True)
        agg = self.aggregate(typ, [inner], 2) if typ != "int" else None
        if agg is None:
            # One row at most: a key-free scalar needs LIMIT over a total order.
            cols = ", ".join(f"{inner.alias}.{c}" for c, _ in COLUMNS)
            return N("(SELECT ", self.expr(typ, [inner], 2), " FROM ", table, " ", inner.alias, where, f" ORDER BY {cols} LIMIT 1)", typ=typ)
        return N("(SELECT ", agg, " FROM ", table, " ", inner.alias, where, ")", typ=typ)

    # -- FROM --------------------------------------------------------------

    def from_item(self, depth, ctes):
        """A FROM item and the relations it brings into scope."""
        r = self.r
        choice = r.random()
        if ctes and choice < 0.2:
            name, cols = r.choice(ctes)
            rel = Relation(self.alias("c"), cols)
            return N(f"{name} {rel.alias}"), [rel]
        if depth < 2 and choice < 0.35:
            types = [r.choice(ORDERED) for _ in range(r.randint(1, 3))]
            sub = self.select(types, depth + 1, ctes)
            rel = Relation(self.alias("d"), [(f"c{j}", t) for j, t in enumerate(types)])
            return N("(", sub, f") {rel.alias}"), [rel]
        rel = Relation(self.alias("a"), COLUMNS)
        return N(f"{r.choice(TABLES)} {rel.alias}"), [rel]

    def from_clause(self, depth, ctes):
        r = self.r
        node, scope = self.from_item(depth, ctes)
        parts = [node]
        # A comma binds looser than JOIN: an ON sees the items since the last comma.
        joined = list(scope)
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            item, rels = self.from_item(depth + 1, ctes)
            kind = r.choice(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", ","])
            if kind in ("CROSS JOIN", ","):
                parts += [f" {kind} " if kind != "," else ", ", item]
                joined = rels if kind == "," else joined + rels
            else:
                both = joined + rels
                typ = r.choice(ORDERED)
                left, right = self.column(joined, typ), self.column(rels, typ)
                cond = N("(", left or self.literal(typ), " = ", right or self.literal(typ), ")", typ="bool")
                if r.random() < 0.35:
                    cond = N("(", cond, r.choice([" AND ", " OR "]), self.pred(both, 2), ")", typ="bool")
                parts += [f" {kind} ", item, " ON ", cond]
                joined = joined + rels
            scope = scope + rels
        return Node(parts), scope

    # -- SELECT ------------------------------------------------------------

    def select(self, types, depth=0, ctes=None, named=True):
        """A SELECT of len(types) columns of those types, named c0.. (or, not
        `named`, as each engine names an expression: for a statement's own
        select list, which nothing refers to by name)."""
        r = self.r
        ctes = ctes or []
        if depth < 2 and r.random() < 0.15:
            return self.set_operation(types, depth, ctes)
        from_node, scope = self.from_clause(depth, ctes)
        grouped = r.random() < 0.3
        windowed = not grouped and r.random() < 0.12
        items = []
        group_node = N("")
        having = N("")
        if grouped:
            keys = []
            gscope_cols = []
            for _ in range(r.randint(0, 2)):
                typ = r.choice(ORDERED)
                col = self.column(scope, typ)
                if col and col not in keys:
                    keys.append(col)
                    gscope_cols.append((col, typ))
            # Grouped columns are in scope as themselves.
            gscope = [Relation(c.split(".")[0], [(c.split(".")[1], t)]) for c, t in gscope_cols]
            for j, typ in enumerate(types):
                items.append(N(self.expr(typ, gscope, 0, agg=scope), f" AS c{j}" if named else ""))
            if keys:
                group_node = N(" GROUP BY " + ", ".join(keys))
            if r.random() < 0.35:
                having = N(" HAVING ", self.pred(gscope, 1, agg=scope), optional=True)
        else:
            for j, typ in enumerate(types):
                if windowed and r.random() < 0.5 and typ in ("big", "dbl", "int"):
                    items.append(N(self.window(typ, scope), f" AS c{j}" if named else ""))
                else:
                    items.append(N(self.expr(typ, scope, 0), f" AS c{j}" if named else ""))
        where = N(" WHERE ", self.pred(scope), optional=True) if r.random() < 0.6 else N("")
        distinct = "DISTINCT " if r.random() < 0.12 else ""
        tail = N("")
        if depth > 0 and r.random() < 0.15:
            tail = N(f" ORDER BY {self.positions(len(types))} LIMIT {r.randint(0, 5)}", optional=True)
        return N("SELECT ", distinct, Node(items, sep=", "), " FROM ", from_node, where, group_node, having, tail)

    def direction(self) -> str:
        """ASC or DESC, and where NULLs go (always said after DESC: see DIALECT)."""
        if self.r.random() < 0.5:
            return self.r.choice(["", " NULLS FIRST", " NULLS LAST"])
        return self.r.choice([" DESC NULLS FIRST", " DESC NULLS LAST"])

    def positions(self, count: int) -> str:
        """An ORDER BY of every output column, by position."""
        return ", ".join(f"{j + 1}{self.direction()}" for j in range(count))

    def window(self, typ, scope):
        r = self.r
        ptyp, otyp = r.choice(ORDERED), r.choice(ORDERED)
        part = self.column(scope, ptyp)
        order = self.column(scope, otyp)
        over = []
        if part and r.random() < 0.7:
            over.append(f"PARTITION BY {part}")
        if order and r.random() < 0.7:
            over.append(f"ORDER BY {order}{self.direction()}")
        over_text = " OVER (" + " ".join(over) + ")"
        has_order = any(o.startswith("ORDER") for o in over)
        if typ == "big":
            fn = r.choice(["rank()", "dense_rank()", "count(*)"] if has_order else ["count(*)"])
            if fn == "count(*)" and r.random() < 0.5:
                return N("count(", self.expr(r.choice(ORDERED), scope, 2), ")", over_text, typ=typ)
            return N(fn, over_text, typ=typ)
        if typ == "int":
            return N("CAST(", r.choice(["min(", "max("]), self.expr("int", scope, 2), ")", over_text, " AS INTEGER)", typ=typ)
        return N(r.choice(["sum(", "min(", "max("]), self.expr("dbl", scope, 2), ")", over_text, typ=typ)

    def set_operation(self, types, depth, ctes):
        op = self.r.choice(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"])
        left = self.select(types, depth + 1, ctes)
        right = self.select(types, depth + 1, ctes)
        return N("SELECT * FROM ((", left, f") {op} (", right, f")) {self.alias('u')}")

    def statement(self) -> tuple[str, Node, bool]:
        """A statement: its tree, and whether it orders all its output."""
        r = self.r
        self.aliases = 0
        types = [r.choice(ORDERED) for _ in range(r.randint(1, 3))]
        ctes = []
        with_node = N("")
        if r.random() < 0.15:
            ctypes = [r.choice(ORDERED) for _ in range(r.randint(1, 2))]
            body = self.select(ctypes, 1)
            ctes = [("w", [(f"c{j}", t) for j, t in enumerate(ctypes)])]
            with_node = N("WITH w AS (", body, ") ")
        body = self.select(types, 0, ctes, named=self.naming.random() < 0.7)
        ordered = r.random() < 0.3
        tail = N("")
        if ordered:
            positions = self.positions(len(types))
            limit = f" LIMIT {r.randint(0, 6)}" + (f" OFFSET {r.randint(1, 3)}" if r.random() < 0.3 else "") if r.random() < 0.6 else ""
            tail = N(f" ORDER BY {positions}{limit}")
        return N(with_node, body, tail), ordered


# -- running and comparing ---------------------------------------------------


def normalize(value):
    """A value as both engines' answers are compared (see the module doc)."""
    if value is None:
        return None
    if isinstance(value, datetime.date):
        return value.isoformat()  # SQLite's dates are text
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, decimal.Decimal):
        if value == value.to_integral_value():
            return int(value)
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return value
        if value == int(value) and abs(value) < 2**53:
            return int(value)
        return float(f"{value:.12g}")
    return value


def _sort_key(row):
    return tuple((v is None, type(v).__name__ if not isinstance(v, (int, float)) else "num", v if v is not None else 0) for v in row)


class Engines:
    """swingdb and DuckDB, holding the same tables."""

    def __init__(self, data: Data):
        import duckdb
        import swingdb

        self.swing = swingdb.connect()
        self.duck = duckdb.connect()
        self.lite = sqlite3.connect(":memory:")
        self.swingdb = swingdb
        self.load(data)

    def load(self, data: Data):
        for con in (self.swing, self.duck):
            for t in TABLES:
                con.execute(f"DROP TABLE IF EXISTS {t}")
            for sql in data.statements():
                con.execute(sql)
        decl = ", ".join(f"{name} {TYPES[typ]}" for name, typ in COLUMNS)
        marks = ", ".join("?" for _ in COLUMNS)
        for t in TABLES:
            self.lite.execute(f"DROP TABLE IF EXISTS {t}")
            self.lite.execute(f"CREATE TABLE {t} ({decl})")
            rows = self.duck.execute(f"SELECT * FROM {t}").fetchall()
            self.lite.executemany(f"INSERT INTO {t} VALUES ({marks})", [tuple(map(_sqlite_value, r)) for r in rows])

    def answer(self, con, sql, ordered):
        try:
            rows = con.execute(sql).fetchall()
        except Exception as e:  # every engine's error is an answer
            return e
        rows = [tuple(normalize(v) for v in row) for row in rows]
        return rows if ordered else sorted(rows, key=lambda row: repr(_sort_key(row)))

    def compare(self, sql, ordered):
        """(kind, swingdb's answer, DuckDB's): kind is 'same', 'mismatch',
        'duckdb_error', 'swingdb_error' or 'internal'."""
        duck = self.answer(self.duck, sql, ordered)
        ours = self.answer(self.swing, sql, ordered)
        if isinstance(ours, self.swingdb.InternalError) or (isinstance(ours, Exception) and not isinstance(ours, self.swingdb.Error)):
            return "internal", ours, duck
        if isinstance(duck, Exception):
            return "duckdb_error", ours, duck
        if isinstance(ours, Exception):
            return "swingdb_error", ours, duck
        return ("same" if ours == duck else "mismatch"), ours, duck

    def referee(self, sql, ordered):
        """SQLite's answer to `sql` (an exception where its dialect refuses it)."""
        return self.answer(self.lite, sql, ordered)

    def close(self):
        self.swing.close()
        self.duck.close()
        self.lite.close()


def _sqlite_value(value):
    """A value of DuckDB's table as SQLite stores it."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def verdict(ours, duck, lite) -> str:
    """Which side SQLite's answer takes in a mismatch."""
    if isinstance(lite, Exception):
        return "sqlite refuses"
    if lite == ours:
        return "sqlite agrees with swingdb"
    if lite == duck:
        return "sqlite agrees with duckdb"
    return "sqlite differs from both"


def minimize(engines: Engines, data: Data, tree: Node, ordered: bool, kind: str, budget: int = 400):
    """Smaller statement and data that still give `kind` ('mismatch' or
    'internal'): nodes replaced by a simple literal or by a descendant of
    their type, optional clauses left out, rows dropped. Returns the SQL
    and the data (the engines are left holding that data)."""
    checks = [0]

    def still(sql):
        checks[0] += 1
        return engines.compare(sql, ordered)[0] == kind

    changed = True
    while changed and checks[0] < budget:
        changed = False
        for node in list(tree.nodes()):
            if checks[0] >= budget:
                break
            saved = (node.parts, node.sep)
            candidates = []
            if node.optional:
                candidates.append([""])
            if node.typ:
                candidates.append([null_literal(node.typ)])
                candidates.append([simple_literal(node.typ)])
                for d in node.nodes():
                    if d is not node and d.typ == node.typ:
                        candidates.append([d])
            if node.sep is not None and len(node.parts) > 1:
                for j in range(len(node.parts)):
                    candidates.append(("list", node.parts[:j] + node.parts[j + 1:]))
            for cand in candidates:
                if isinstance(cand, tuple):
                    node.parts = cand[1]
                else:
                    node.parts, node.sep = cand, None
                if node.render() != Node(saved[0], sep=saved[1]).render() and still(tree.render()):
                    changed = True
                    break
                node.parts, node.sep = saved
            if changed:
                break
    sql = tree.render()
    # Rows: drop halves, then single rows, while the answer still differs.
    for table in TABLES:
        rows = data.rows[table]
        chunk = max(1, len(rows) // 2)
        while chunk >= 1 and checks[0] < budget * 2:
            j = 0
            while j < len(rows):
                trial = Data({**data.rows, table: rows[:j] + rows[j + chunk:]})
                engines.load(trial)
                checks[0] += 1
                if engines.compare(sql, ordered)[0] == kind:
                    rows = trial.rows[table]
                    data = trial
                else:
                    j += chunk
            chunk //= 2
        engines.load(data)
    return sql, data


def _short(answer, limit=8):
    if isinstance(answer, Exception):
        return f"{type(answer).__name__}: {str(answer).splitlines()[0][:200]}"
    return repr(answer[:limit]) + (f" ... ({len(answer)} rows)" if len(answer) > limit else "")


def repro_text(sql, data, ours, duck, lite=None) -> str:
    """A self-contained SQL script of a finding, with the answers."""
    answers = [f"-- swingdb: {_short(ours)}", f"-- duckdb:  {_short(duck)}"]
    if lite is not None:
        answers.append(f"-- sqlite:  {_short(lite)}")
    return "\n".join(data.statements() + [sql + ";"] + answers) + "\n"


def error_key(err) -> str:
    """An error message with its numbers and names blurred, to count alike errors together."""
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    text = re.sub(r"\d+", "N", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'X'", text)
    return f"{type(err).__name__}: {text[:140]}"


@dataclass
class Report:
    """What a run of the fuzzer did and found."""

    statements: int = 0
    compared: int = 0
    ordered: int = 0
    mismatches: list = field(default_factory=list)
    internal: list = field(default_factory=list)
    duckdb_errors: int = 0
    swingdb_errors: Counter = field(default_factory=Counter)
    # The first statement of each kind of swingdb-only refusal, with its
    # data, as a script to rerun it.
    swingdb_error_examples: dict = field(default_factory=dict)
    verdicts: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def as_dict(self):
        return {
            "statements": self.statements, "compared": self.compared, "ordered": self.ordered,
            "mismatches": self.mismatches, "internal": self.internal, "duckdb_errors": self.duckdb_errors,
            "swingdb_errors": dict(self.swingdb_errors.most_common()),
            "swingdb_error_examples": self.swingdb_error_examples, "verdicts": dict(self.verdicts),
            "seconds": round(self.seconds, 1),
        }


def run(seed: int, statements: int = 0, seconds: float = 0.0, repros: str | None = None, per_data: int = 150,
        minimize_budget: int = 400, progress=None) -> Report:
    """Runs the fuzzer for `statements` statements or `seconds` seconds
    (whichever is given); mismatches and internal errors minimized and, with
    `repros`, written there as `<kind>-<seed>-<n>.sql`."""
    rng = random.Random(seed)
    report = Report()
    start = time.time()
    engines = None
    data = None
    try:
        while (statements and report.statements < statements) or (seconds and time.time() - start < seconds):
            if report.statements % per_data == 0:
                data = Data.random(rng)
                if engines is None:
                    engines = Engines(data)
                else:
                    engines.load(data)
            tree, ordered = Grammar(rng).statement()
            sql = tree.render()
            report.statements += 1
            kind, ours, duck = engines.compare(sql, ordered)
            if kind == "duckdb_error":
                report.duckdb_errors += 1
            elif kind == "swingdb_error":
                key = error_key(ours)
                report.swingdb_errors[key] += 1
                if key not in report.swingdb_error_examples:
                    report.swingdb_error_examples[key] = "\n".join(data.statements() + [sql + ";"])
            elif kind in ("same", "mismatch"):
                report.compared += 1
                report.ordered += ordered
            if kind in ("mismatch", "internal"):
                small_sql, small_data = minimize(engines, data, tree, ordered, kind, minimize_budget)
                _, ours, duck = engines.compare(small_sql, ordered)
                lite = engines.referee(small_sql, ordered) if kind == "mismatch" else None
                text = repro_text(small_sql, small_data, ours, duck, lite)
                finding = {"sql": sql, "repro": text}
                if kind == "mismatch":
                    finding["verdict"] = verdict(ours, duck, lite)
                    report.verdicts[finding["verdict"]] += 1
                (report.mismatches if kind == "mismatch" else report.internal).append(finding)
                if repros:
                    os.makedirs(repros, exist_ok=True)
                    n = len(report.mismatches) + len(report.internal)
                    with open(os.path.join(repros, f"{kind}-{seed}-{n}.sql"), "w") as f:
                        f.write(f"-- found by: python -m stress.answers --seed {seed}\n-- original: {sql}\n" + text)
                engines.load(data)
            if progress and report.statements % 1000 == 0:
                progress(report)
    finally:
        if engines is not None:
            engines.close()
    report.seconds = time.time() - start
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stress.answers", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--repros", help="directory for minimized repros")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not args.statements and not args.seconds:
        args.statements = 2000
    seed = args.seed if args.seed is not None else random.randrange(2**32)

    def progress(rep):
        print(f"  {rep.statements:,} statements, {len(rep.mismatches)} mismatches, {len(rep.internal)} internal errors", file=sys.stderr, flush=True)

    report = run(seed, args.statements, args.seconds, args.repros, progress=progress)
    if args.json:
        print(json.dumps({"seed": seed, **report.as_dict()}))
    else:
        print(f"seed {seed}: {report.statements:,} statements in {report.seconds:.0f} s, {report.compared:,} compared "
              f"({report.ordered:,} ordered), {len(report.mismatches)} mismatches, {len(report.internal)} internal errors, "
              f"{report.duckdb_errors:,} refused by DuckDB, {sum(report.swingdb_errors.values()):,} refused by swingdb only")
        for key, count in report.swingdb_errors.most_common(15):
            print(f"  {count:5d}  {key}")
        for key, count in report.verdicts.most_common():
            print(f"  mismatches where {key}: {count}")
        for finding in (report.internal + report.mismatches)[:20]:
            print("\n" + finding["repro"])
    return 1 if report.mismatches or report.internal else 0


if __name__ == "__main__":
    sys.exit(main())
