"""Directories and files planted by another user (`nobody`), run as root: a
database directory someone else made, one under a directory others may
rename in, a runtime home squatted before its owner came, and another
user's database whose subdirectory became a symbolic link. Each open is
refused with an error naming the directory, nothing is written into what
the other user controls, and the victim's own database keeps every row.

Used by the `others` torture scenario; needs root and `runuser`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

NOBODY = 65534

# The victim, in a process of its own: opens `path` (mode: write, read or
# runtime) and prints REFUSED <class> <message> or OPENED.
VICTIM = r"""
import os, sys, swingdb
path, mode = sys.argv[1], sys.argv[2]
try:
    if mode == "runtime":
        os.environ["SWINGDB_RUNTIME_DIR"] = path
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT 1 AS a")
        con.share()
    else:
        con = swingdb.connect(path, read_only=(mode == "read"))
        if mode == "write":
            con.sql("CREATE TABLE IF NOT EXISTS planted_test (a INTEGER)")
    print("OPENED")
except swingdb.Error as e:
    print("REFUSED", type(e).__name__, str(e).replace("\n", " "))
"""


def available() -> str | None:
    """Why the scenario cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (to act as another user)"
    if shutil.which("runuser") is None:
        return "needs runuser"
    return None


def as_nobody(*argv: str) -> None:
    subprocess.run(["runuser", "-u", "nobody", "--", *argv], check=True, capture_output=True, timeout=30)


def victim(path: str, mode: str) -> str:
    out = subprocess.run([sys.executable, "-c", VICTIM, path, mode], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return f"DIED {out.returncode} {out.stderr.strip()[-300:]}"
    return out.stdout.strip()


def listing(path: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(path):
        found += [os.path.relpath(os.path.join(root, n), path) for n in dirs + files]
    return sorted(found)


def _own_database(work: str) -> str:
    """The victim's own database, whose rows must survive every trial."""
    db = os.path.join(work, "own.swingdb")
    subprocess.run([sys.executable, "-c", "import sys, swingdb; swingdb.connect(sys.argv[1]).sql('CREATE TABLE keep AS SELECT value FROM range(1000)')", db],
                   check=True, timeout=120)
    return db


def _plant(kind: str, shared: str, trial: int) -> tuple[str, str, str]:
    """Plants one case; returns (path the victim opens, mode, what the refusal must name)."""
    base = os.path.join(shared, f"t{trial}")
    if kind == "their-dir":  # nobody made the directory the victim then opens
        mode = ("0777", "0755", "0775")[trial % 3]
        as_nobody("mkdir", "-m", mode, base)
        return base, "write", base
    if kind == "loose-parent":  # the victim's database under a directory anyone may rename in
        parent = base
        os.makedirs(parent)
        db = os.path.join(parent, "db.swingdb")
        subprocess.run([sys.executable, "-c", "import sys, swingdb; swingdb.connect(sys.argv[1]).sql('CREATE TABLE t AS SELECT 1 AS a')", db],
                       check=True, timeout=120)
        os.chmod(parent, 0o777)
        return db, "write", parent
    if kind == "their-parent":  # a directory of theirs above the victim's new database
        as_nobody("mkdir", "-m", "0755", base)
        os.makedirs(os.path.join(base, "mine"))  # root may write there; nobody may rename it
        return os.path.join(base, "mine", "db.swingdb"), "write", base
    if kind == "squatted-home":  # the runtime home made by nobody before its owner came
        as_nobody("mkdir", "-m", ("0700", "0777")[trial % 2], base)
        return base, "runtime", base
    if kind == "symlinked-subdir":  # their database, read by the victim, with segments/ now a link
        db = os.path.join(base, "db.swingdb")
        os.makedirs(base)
        subprocess.run([sys.executable, "-c", "import sys, swingdb; swingdb.connect(sys.argv[1]).sql('CREATE TABLE t AS SELECT 1 AS a')", db],
                       check=True, timeout=120)
        for root, dirs, files in os.walk(base):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), NOBODY, NOBODY)
        os.lchown(base, NOBODY, NOBODY)
        as_nobody("mv", os.path.join(db, "segments"), os.path.join(base, "elsewhere"))
        as_nobody("ln", "-s", os.path.join(base, "elsewhere"), os.path.join(db, "segments"))
        return db, "read", os.path.join(db, "segments")
    raise ValueError(kind)


KINDS = ("their-dir", "loose-parent", "their-parent", "squatted-home", "symlinked-subdir")


def run(budget: float, work: str, rng, tally) -> None:
    why = available()
    if why:
        tally.extra = f"skipped: {why}"
        return
    own = _own_database(work)
    # A directory the other user can reach (the scratch directory is private).
    shared = tempfile.mkdtemp(prefix="swingdb-others-", dir="/tmp")
    os.chmod(shared, 0o1777)
    start = time.time()
    try:
        while time.time() - start < budget:
            kind = rng.choice(KINDS)
            try:
                path, mode, named = _plant(kind, shared, tally.trials)
            except subprocess.SubprocessError as e:
                tally.fail(f"{kind}: planting failed: {e}")
                break
            before = listing(named) if os.path.isdir(named) else None
            said = victim(path, mode)
            tally.trials += 1
            tally.counts[kind] = tally.counts.get(kind, 0) + 1
            if not said.startswith("REFUSED OperationalError") or named not in said:
                tally.fail(f"{kind}: {path} opened ({mode}) or refused unclearly: {said[:300]}")
            elif kind in ("their-dir", "squatted-home") and listing(named) != before:
                tally.fail(f"{kind}: the victim wrote into {named}: {listing(named)[:5]}")
            keep = subprocess.run([sys.executable, "-c", "import sys, swingdb; print(swingdb.connect(sys.argv[1], read_only=True).sql('SELECT count(*) FROM keep').fetchall()[0][0])", own],
                                  capture_output=True, text=True, timeout=120)
            if keep.stdout.strip() != "1000":
                tally.fail(f"the victim's own database lost rows: {keep.stdout.strip()} {keep.stderr.strip()[-200:]}")
    finally:
        shutil.rmtree(shared, ignore_errors=True)
