"""The ``swingdb`` command (and ``python -m swingdb``): the shell, one-shot SQL,
snapshots and pipes, run by the same code as the shell program built from the
swingdb-cli crate (``swingdb --help``)."""

import sys

from . import _swingdb


def main() -> int:
    """Runs the shell with this process's command line; returns its exit code."""
    return _swingdb.shell(["swingdb", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
