"""Explicit transactions as a block or a function, the function retried when
another process committed a conflicting change first.

A transaction that loses a conflict changed nothing (swingdb checks at
COMMIT and writes all or nothing), so running it again from the start is
safe: as a later transaction, it reads what the other one committed. Only a
function can be run again; a ``with`` block cannot.

    with con.transaction():
        con.execute("UPDATE accounts SET balance = balance - 10 WHERE id = 1")
        con.execute("UPDATE accounts SET balance = balance + 10 WHERE id = 2")

    @con.transaction(retries=5)
    def move(amount):
        con.execute("UPDATE accounts SET balance = balance - ? WHERE id = 1", [amount])
        con.execute("UPDATE accounts SET balance = balance + ? WHERE id = 2", [amount])

    move(10)   # BEGIN, the body, COMMIT; on ConflictError ROLLBACK and again
"""

from __future__ import annotations

import functools
import random
import time

from . import _swingdb

# The first wait before a retry; each later wait doubles, up to _MAX_WAIT,
# with jitter so that processes that lost together do not retry together.
_FIRST_WAIT = 0.002
_MAX_WAIT = 0.1


class Transaction:
    """``con.transaction(retries=N)``: a context manager, or a decorator whose
    function runs in a transaction of its own, retried up to ``retries``
    times after a :class:`~swingdb.ConflictError`."""

    def __init__(self, connection, retries: int = 0):
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise _swingdb.ProgrammingError(f"retries must be a whole number of at least 0, not {retries!r}")
        self._con = connection
        self._retries = retries

    def __enter__(self):
        if self._retries:
            raise _swingdb.ProgrammingError(
                "a with-block cannot be run again after a conflict; decorate a function instead: "
                "@con.transaction(retries=N)"
            )
        self._con.begin()
        return self._con

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._con.commit()
        else:
            self._con.rollback()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            wait = _FIRST_WAIT
            for attempt in range(self._retries + 1):
                self._con.begin()
                try:
                    value = function(*args, **kwargs)
                    self._con.commit()
                    return value
                except _swingdb.ConflictError:
                    self._con.rollback()
                    if attempt == self._retries:
                        raise
                except BaseException:
                    self._con.rollback()
                    raise
                time.sleep(wait * random.uniform(0.5, 1.5))
                wait = min(2 * wait, _MAX_WAIT)

        return run
