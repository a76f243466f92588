"""The packages swingdb can work with but does not need (numpy, pyarrow,
pandas, polars), imported when a feature first needs one, so that
``import swingdb`` and fetching Python rows need none of them. A missing one
is an error that says which extra installs it."""

from __future__ import annotations

import importlib

from . import _swingdb


class MissingPackageError(_swingdb.InterfaceError, ImportError):
    """A feature needs a package that is not installed (an ``ImportError``
    too); the message names the ``pip install 'swingdb[...]'`` that adds it."""


def need(module: str, extra: str, what: str):
    """The module `module` (imported now), or a MissingPackageError saying that
    `what` needs it and that the extra `extra` installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.partition(".")[0]
        raise MissingPackageError(f"{what} needs {top}, which is not installed: pip install 'swingdb[{extra}]'") from None
