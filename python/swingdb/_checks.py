"""Checks of the text a user hands over: SQL, parameters and names."""

from __future__ import annotations

from . import _swingdb


def checked_text(value: str, what: str) -> str:
    """`value` if it can be UTF-8 (a lone surrogate cannot); a DataError naming `what` if not."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _swingdb.DataError(
            f"{what} holds the lone surrogate {value[error.start]!r} at position {error.start}, which is not text; "
            "decode the bytes it came from with errors='replace'"
        ) from None
    return value


def checked_name(name, what: str) -> str:
    """`name` checked as the name of a `what` (snapshot, pipe)."""
    if not isinstance(name, str):
        raise _swingdb.ProgrammingError(f"a {what} name must be a str, not {type(name).__name__}")
    return checked_text(name, f"the {what} name")
