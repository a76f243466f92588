"""Snapshots shared between processes.

One process publishes what it sees under a name; any process of the same user
attaches it and gets a database of its own, in time and memory that do not grow
with the data (the files are linked and mapped, never copied)::

    >>> import swingdb
    >>> loader = swingdb.connect()
    >>> loader.sql("CREATE TABLE t AS SELECT value AS x FROM range(5)")
    >>> snap = loader.share("doc-example")
    >>> snap.rows
    5
    >>> mine = swingdb.attach("doc-example")          # in this or any other process
    >>> _ = mine.sql("DELETE FROM t WHERE x < 3")     # changes only my copy
    >>> mine.sql("SELECT count(*) FROM t").fetchall(), loader.sql("SELECT count(*) FROM t").fetchall()
    ([(2,)], [(5,)])
    >>> loader.close()                                 # the snapshot ends with its publisher
    >>> "doc-example" in [s.name for s in swingdb.snapshots()]
    False
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from . import _swingdb
from ._checks import checked_name


@dataclass(frozen=True)
class Snapshot:
    """A published snapshot, as :meth:`Connection.share` and :func:`snapshots` describe it."""

    name: str
    #: Its directory (links to the publisher's segment files).
    path: str
    #: Whether it outlives its publisher (until :func:`discard`).
    persist: bool
    #: The process that published it.
    pid: int
    #: The database it was taken from.
    source: str
    tables: tuple
    rows: int
    bytes: int
    created: _dt.datetime
    #: Live databases attached from it (0 in what ``share`` returns).
    attached: int
    #: Why it cannot be attached (its record is damaged or could not be read), else
    #: ``None``. A damaged snapshot is kept, never swept, until :func:`discard` removes it.
    damaged: str | None = None

    @property
    def owner(self):
        """The publishing process id, ``"persisted"`` or ``"damaged"``."""
        if self.damaged is not None:
            return "damaged"
        return "persisted" if self.persist else self.pid

    @classmethod
    def _from(cls, d: dict) -> Snapshot:
        created = _dt.datetime.fromtimestamp(d["created"], tz=_dt.timezone.utc)
        return cls(d["name"], d["path"], d["persist"], d["pid"], d["source"], tuple(d["tables"]), d["rows"], d["bytes"], created, d["attached"], d["damaged"])

    def __repr__(self) -> str:
        if self.damaged is not None:
            return f"Snapshot({self.name!r}, damaged={self.damaged!r})"
        return (
            f"Snapshot({self.name!r}, owner={self.owner!r}, tables={list(self.tables)}, rows={self.rows:,}, "
            f"bytes={self.bytes:,}, attached={self.attached})"
        )


def snapshots() -> list[Snapshot]:
    """The snapshots of this user, by name: those that can be attached, and damaged ones
    (``damaged`` says why) that are kept until :func:`discard` removes them."""
    return [Snapshot._from(d) for d in _swingdb.snapshots()]


def discard(name: str) -> None:
    """Removes snapshot ``name``. Databases attached from it keep what they have."""
    _swingdb.discard(checked_name(name, "snapshot"))
