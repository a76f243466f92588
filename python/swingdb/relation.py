"""A small relational API, as DuckDB's: ``filter``, ``project``,
``aggregate``, ``order`` and ``limit`` compose lazily into one SQL statement
(each step wraps the one before as a subquery, which the planner flattens),
run when something reads the rows; ``to_table``, ``write_parquet`` and
``write_csv`` store or write them.

    >>> import swingdb
    >>> con = swingdb.connect()
    >>> con.sql("CREATE TABLE sales AS SELECT * FROM (VALUES ('EU', 3), ('US', 5), ('EU', 4)) v(region, qty)")
    >>> rel = con.table("sales").filter("qty > 3").aggregate("region, sum(qty) AS total", "region").order("region")
    >>> rel.fetchall()
    [('EU', 4), ('US', 5)]

Expressions are SQL, written by the programmer (as in DuckDB); values belong
in parameters. Table names and paths given to these methods never become SQL
text.
"""

from __future__ import annotations

from . import _swingdb


class Relation:
    """Rows defined by a query and not read yet. Every reading method of
    :class:`~swingdb.Result` works on it (``fetchall``, ``df``, ``arrow``,
    ``pl``, ``numpy``, ``show``, ...): the query runs on the first read and
    its result is kept for later ones."""

    def __init__(self, connection, query: str, params=None):
        self._connection = connection
        self._query = query
        self._params = params
        self._result = None

    @property
    def sql(self) -> str:
        """The statement this relation runs."""
        return self._query

    def _wrap(self, query: str) -> "Relation":
        return Relation(self._connection, query, self._params)

    def _from(self) -> str:
        return f"(\n{self._query}\n) AS _rel"

    # -- composing (lazy) ----------------------------------------------------
    def filter(self, condition: str) -> "Relation":
        """The rows for which the SQL `condition` holds."""
        return self._wrap(f"SELECT * FROM {self._from()} WHERE {condition}")

    def project(self, *expressions: str) -> "Relation":
        """Columns computed by SQL `expressions` (``"a", "b * 2 AS c"``)."""
        if not expressions:
            raise _swingdb.ProgrammingError("project needs at least one expression")
        return self._wrap(f"SELECT {', '.join(expressions)} FROM {self._from()}")

    select = project

    def aggregate(self, expressions: str, group_by: str | None = None) -> "Relation":
        """`expressions` (aggregates, and the group's columns to keep) over
        groups of `group_by` (none: the whole relation is one group)."""
        grouping = f" GROUP BY {group_by}" if group_by else ""
        return self._wrap(f"SELECT {expressions} FROM {self._from()}{grouping}")

    def order(self, expressions: str) -> "Relation":
        """Sorted by the SQL `expressions` (``"total DESC, region"``)."""
        return self._wrap(f"SELECT * FROM {self._from()} ORDER BY {expressions}")

    def limit(self, n: int, offset: int = 0) -> "Relation":
        """At most `n` rows, after skipping `offset`."""
        for name, value in (("n", n), ("offset", offset)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _swingdb.ProgrammingError(f"limit: {name} must be a whole number >= 0, not {value!r}")
        return self._wrap(f"SELECT * FROM {self._from()} LIMIT {n} OFFSET {offset}")

    # -- reading -------------------------------------------------------------
    def execute(self):
        """Runs the query (once) and returns its :class:`~swingdb.Result`."""
        if self._result is None:
            from .result import Result

            self._result = Result(self._connection._run(self._query, self._params), origin=(self._connection, self._query, self._params))
        return self._result

    def __getattr__(self, name):
        # Reading methods and properties of the result (fetchall, df, columns, ...).
        if name.startswith("__"):
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
