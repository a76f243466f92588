"""A relational API, as DuckDB's: ``filter``, ``project``, ``aggregate``,
``order``, ``limit``, ``distinct``, ``join``, ``union``, ``except_`` and
``intersect`` compose lazily into one SQL statement (each step wraps the ones
before as subqueries, which the planner flattens), run when something reads
the rows; ``to_table``, ``write_parquet`` and ``write_csv`` store or write them.

    >>> import swingdb
    >>> con = swingdb.connect()
    >>> con.sql("CREATE TABLE sales AS SELECT * FROM (VALUES ('EU', 3), ('US', 5), ('EU', 4)) v(region, qty)")
    >>> rel = con.table("sales").filter("qty > 3").aggregate("region, sum(qty) AS total", "region").order("region")
    >>> rel.fetchall()
    [('EU', 4), ('US', 5)]
    >>> regions = con.sql("SELECT * FROM (VALUES ('EU', 'Europe')) v(region, name)")
    >>> con.table("sales").join(regions, "region").project("name, qty").order("qty").fetchall()
    [('Europe', 3), ('Europe', 4)]

Expressions are SQL, written by the programmer (as in DuckDB); values belong
in parameters. Table names and paths given to these methods never become SQL
text. Set operations keep duplicates (``union`` is ``UNION ALL``, ``except_``
is ``EXCEPT ALL``, ``intersect`` is ``INTERSECT ALL``), as in DuckDB; chain
``distinct()`` for set semantics.
"""

from __future__ import annotations

import itertools

from . import _swingdb

#: Join kinds `join(how=...)` takes, with the SQL each means.
JOINS = {
    "inner": "JOIN",
    "left": "LEFT JOIN",
    "right": "RIGHT JOIN",
    "outer": "FULL JOIN",
    "full": "FULL JOIN",
    "semi": "LEFT SEMI JOIN",
    "anti": "LEFT ANTI JOIN",
    "cross": "CROSS JOIN",
}

_unnamed = itertools.count(1)


def quote_identifier(name: str) -> str:
    """`name` as one SQL identifier, whatever it holds (quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


class SqlType(str):
    """A column's SQL type name (``BIGINT``, ``DECIMAL(10,2)``), shown bare as DuckDB shows its types."""

    def __repr__(self) -> str:
        return str(self)


class Composable:
    """The composing methods shared by :class:`Relation` and query results
    (``con.sql(...).filter(...)``); each returns a new lazy :class:`Relation`."""

    def _relation(self) -> Relation:
        raise NotImplementedError

    def set_alias(self, alias: str) -> Relation:
        """These rows under the name `alias`, to qualify columns with in :meth:`join` conditions."""
        return self._relation().set_alias(alias)

    def filter(self, condition: str) -> Relation:
        """The rows for which the SQL `condition` holds."""
        rel = self._relation()
        return rel._wrap(f"SELECT * FROM {rel._from()} WHERE {condition}")

    def project(self, *expressions: str) -> Relation:
        """Columns computed by SQL `expressions` (``"a", "b * 2 AS c"``)."""
        if not expressions:
            raise _swingdb.ProgrammingError("project needs at least one expression")
        rel = self._relation()
        return rel._wrap(f"SELECT {', '.join(expressions)} FROM {rel._from()}")

    def select(self, *expressions: str) -> Relation:
        """The same as :meth:`project`."""
        return self.project(*expressions)

    def aggregate(self, expressions: str, group_by: str | None = None) -> Relation:
        """`expressions` (aggregates, and the group's columns to keep) over
        groups of `group_by` (none: the whole relation is one group)."""
        rel = self._relation()
        grouping = f" GROUP BY {group_by}" if group_by else ""
        return rel._wrap(f"SELECT {expressions} FROM {rel._from()}{grouping}")

    def order(self, expressions: str) -> Relation:
        """Sorted by the SQL `expressions` (``"total DESC, region"``)."""
        rel = self._relation()
        return rel._wrap(f"SELECT * FROM {rel._from()} ORDER BY {expressions}")

    def limit(self, n: int, offset: int = 0) -> Relation:
        """At most `n` rows, after skipping `offset`."""
        for name, value in (("n", n), ("offset", offset)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _swingdb.ProgrammingError(f"limit: {name} must be a whole number >= 0, not {value!r}")
        rel = self._relation()
        return rel._wrap(f"SELECT * FROM {rel._from()} LIMIT {n} OFFSET {offset}")

    def distinct(self) -> Relation:
        """Each distinct row once."""
        rel = self._relation()
        return rel._wrap(f"SELECT DISTINCT * FROM {rel._from()}")

    def join(self, other, condition: str | None = None, how: str = "inner") -> Relation:
        """This relation joined with `other` (a relation or result of the same
        connection). `condition` is a SQL condition over both aliases
        (``"l.id = r.id"``, see :meth:`set_alias`) or the names of columns both
        have (``"id"`` or ``"id, day"``: one column each in the output, as
        ``USING``); `how` is ``inner``, ``left``, ``right``, ``outer`` (or
        ``full``), ``semi``, ``anti`` or ``cross`` (no condition)."""
        kind = JOINS.get(how.lower() if isinstance(how, str) else how)
        if kind is None:
            raise _swingdb.ProgrammingError(f"join: unknown how={how!r}; use one of {', '.join(JOINS)}")
        left, right = self._relation(), _as_relation(other, "join")
        left._same_connection(right, "join")
        if left.alias == right.alias:
            raise _swingdb.ProgrammingError(
                f"join: both relations are called {left.alias!r}; give one another name with set_alias()"
            )
        on = ""
        if how == "cross":
            if condition is not None:
                raise _swingdb.ProgrammingError("join: a cross join takes no condition")
        elif condition is None:
            raise _swingdb.ProgrammingError(f"join: a {how} join needs a condition (or the names of the columns to join on)")
        else:
            names = [c.strip() for c in condition.split(",")]
            if all(n.isidentifier() for n in names):
                on = f" USING ({', '.join(names)})"
            else:
                on = f" ON {condition}"
        joined = f"{left._from()} {kind} {right._subquery()}{on}"
        rel = left._combine(right, f"SELECT * FROM {joined}")
        rel._joined = joined  # the next step reads the join itself: both aliases stay in scope
        return rel

    def union(self, other) -> Relation:
        """The rows of both (``UNION ALL``: duplicates kept, as DuckDB's ``union``)."""
        return self._set_operation(other, "UNION ALL")

    def except_(self, other) -> Relation:
        """The rows not in `other` (``EXCEPT ALL``: each row of `other` removes one match)."""
        return self._set_operation(other, "EXCEPT ALL")

    def intersect(self, other) -> Relation:
        """The rows in both (``INTERSECT ALL``: as many times as in both)."""
        return self._set_operation(other, "INTERSECT ALL")

    def _set_operation(self, other, operator: str) -> Relation:
        left, right = self._relation(), _as_relation(other, operator.split()[0].lower())
        left._same_connection(right, operator)
        query = f"SELECT * FROM {left._from()} {operator} SELECT * FROM {right._from()}"
        return left._combine(right, query)


def _as_relation(other, what: str) -> Relation:
    if not isinstance(other, Composable):
        raise _swingdb.ProgrammingError(f"{what}: expected a relation or query result, not {type(other).__name__}")
    return other._relation()


class Relation(Composable):
    """Rows defined by a query and not read yet. Every reading method of
    :class:`~swingdb.Result` works on it (``fetchall``, ``df``, ``arrow``,
    ``pl``, ``numpy``, ``show``, ...): the query runs on the first read and
    its result is kept for later ones.

    `keep` holds what the query needs to stay valid (the registration of a
    DataFrame or file it reads), for as long as any relation built on it lives."""

    def __init__(self, connection, query: str, params=None, alias: str | None = None, keep: tuple = ()):
        self._connection = connection
        self._query = query
        self._params = params
        self._alias = alias or f"unnamed_relation_{next(_unnamed)}"
        self._keep = keep
        self._result = None
        # For a join: its FROM clause, which the next step selects from
        # directly, so that columns can still be qualified by either alias.
        self._joined: str | None = None

    @property
    def sql(self) -> str:
        """The statement this relation runs."""
        return self._query

    @property
    def alias(self) -> str:
        """The name the relation's columns are qualified with in :meth:`join`
        conditions (a table's name for ``con.table(name)``)."""
        return self._alias

    def set_alias(self, alias: str) -> Relation:
        """The same rows under another :attr:`alias`."""
        if not isinstance(alias, str) or not alias:
            raise _swingdb.ProgrammingError(f"an alias must be a non-empty string, not {alias!r}")
        return Relation(self._connection, self._query, self._params, alias, self._keep)

    def _relation(self) -> Relation:
        return self

    def _wrap(self, query: str) -> Relation:
        return Relation(self._connection, query, self._params, None, self._keep)

    def _from(self) -> str:
        """What the next step selects from."""
        return self._subquery() if self._joined is None else self._joined

    def _subquery(self) -> str:
        """This relation as one table, under its alias."""
        return f"(\n{self._query}\n) AS {quote_identifier(self._alias)}"

    def _same_connection(self, other: Relation, what: str) -> None:
        if other._connection is not self._connection:
            raise _swingdb.ProgrammingError(f"{what}: both relations must come from the same connection")

    def _combine(self, other: Relation, query: str) -> Relation:
        """A relation of `query` over this one and `other`, with both's parameters."""
        params = _join_params(self._params, other._params)
        return Relation(self._connection, query, params, None, self._keep + other._keep)

    # -- reading -------------------------------------------------------------
    def execute(self):
        """Runs the query (once) and returns its :class:`~swingdb.Result`."""
        if self._result is None:
            self._result = self._connection._result_of(self._query, self._params, self._keep)
        return self._result

    def __getattr__(self, name):
        # Reading methods and properties of the result (fetchall, df, columns, ...).
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.execute(), name)

    def __iter__(self):
        return iter(self.execute())

    def __arrow_c_stream__(self, requested_schema=None):
        return self.execute().__arrow_c_stream__(requested_schema)

    def __repr__(self) -> str:
        return repr(self.execute())

    def _repr_html_(self) -> str:
        return self.execute()._repr_html_()


def _join_params(a, b):
    """The parameters of a statement made of two relations' statements: those
    of either, or both named ones that do not disagree (positional ones would
    be renumbered: ``$1`` of the second is not the first's ``$1``)."""
    if not a:
        return b
    if not b:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        clash = [k for k in a.keys() & b.keys() if a[k] != b[k]]
        if clash:
            raise _swingdb.ProgrammingError(f"the two relations give parameter(s) {clash} different values")
        return {**a, **b}
    raise _swingdb.ProgrammingError(
        "both relations have parameters; to combine them, give them as named parameters ($name) with a dict"
    )
