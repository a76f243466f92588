"""Damaged records and starved processes: persisted snapshots (whose publishers
are gone, so a snapshot holds the only copy of its rows) get their records
bit-flipped, truncated, emptied, removed or replaced by a directory, and every
sweep (listing, attach, share, discard of another name) and a commit then run
in processes with 0-6 free file descriptors. Nothing that could be read before may be
deleted: every snapshot directory stays until it is discarded, every intact
snapshot still attaches with all its rows, a listing either answers in full
(damaged snapshots marked so) or fails with an error, and every commit that
reported success is there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time

#: Publishes persisted snapshots `prefix-0..n-1` of 1000 rows each, then exits.
PUBLISH = textwrap.dedent("""
    import sys, swingdb
    prefix, n = sys.argv[1], int(sys.argv[2])
    for i in range(n):
        con = swingdb.connect()
        con.sql(f"CREATE TABLE t AS SELECT value + {i} AS x FROM range(1000)")
        con.share(f"{prefix}-{i}", persist=True)
        con.close()
""")

#: Code that defines `leave_free(n)`: lowers this process's RLIMIT_NOFILE so
#: that exactly `n` more file descriptors can be opened.
LEAVE_FREE = textwrap.dedent("""
    import os, resource
    def leave_free(n):
        def is_open(fd):
            try:
                os.fstat(fd)
                return True
            except OSError:
                return False
        taken = {fd for fd in map(int, os.listdir("/proc/self/fd")) if is_open(fd)}
        limit, spare = 0, 0
        while spare < n or limit in taken:
            spare += limit not in taken
            limit += 1
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
""")

#: Runs every kind of sweep, and a commit to the database argv[4], with `free`
#: file descriptors left; prints what it saw.
SWEEP = LEAVE_FREE + textwrap.dedent("""
    import sys, swingdb
    prefix, n, free = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    leave_free(free)
    for step in ("list", "attach", "share", "discard", "commit"):
        try:
            if step == "commit":
                db = swingdb.connect(sys.argv[4])
                db.sql("INSERT INTO c VALUES (1)")
                print("committed")
            elif step == "list":
                listed = swingdb.snapshots()
                names = {s.name for s in listed}
                missing = [f"{prefix}-{i}" for i in range(n) if f"{prefix}-{i}" not in names]
                print("listed", len(listed), "missing", *missing)
            elif step == "attach":
                swingdb.attach(f"{prefix}-0").close()
            elif step == "share":
                con = swingdb.connect()
                con.sql("CREATE TABLE u AS SELECT 1 AS a")
                con.share(f"{prefix}-extra", replace=True)
            else:
                swingdb.discard(f"{prefix}-extra")
        except swingdb.Error:
            pass
""")

#: Attaches each snapshot and prints its rows, or the error class.
CHECK = textwrap.dedent("""
    import sys, swingdb
    prefix, n = sys.argv[1], int(sys.argv[2])
    listed = {s.name: s for s in swingdb.snapshots()}
    for i in range(n):
        name = f"{prefix}-{i}"
        state = "damaged" if name in listed and listed[name].damaged else ("listed" if name in listed else "unlisted")
        try:
            con = swingdb.attach(name)
            print(name, state, con.sql("SELECT count(*), sum(x) FROM t").fetchall()[0])
            con.close()
        except swingdb.Error as e:
            print(name, state, type(e).__name__)
""")


def _damage(path: str, rng) -> str:
    """Damages the snapshot record `path` one way; says which."""
    how = rng.choice(["flip", "truncate", "empty", "remove", "directory", "junk"])
    if how == "flip":
        data = bytearray(open(path, "rb").read())
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        open(path, "wb").write(bytes(data))
    elif how == "truncate":
        data = open(path, "rb").read()
        open(path, "wb").write(data[: rng.randrange(len(data))])
    elif how == "empty":
        open(path, "wb").close()
    elif how == "remove":
        os.remove(path)
    elif how == "directory":
        os.remove(path)
        os.mkdir(path)
    else:
        open(path, "wb").write(os.urandom(rng.randrange(1, 300)))
    return how


def run(budget: float, work: str, rng, tally) -> None:
    runtime = os.path.join(work, "runtime")
    env = {**os.environ, "SWINGDB_RUNTIME_DIR": runtime}
    py = lambda code, *args: subprocess.run(  # noqa: E731
        [sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True, timeout=120
    )
    start = time.time()
    while time.time() - start < budget:
        shutil.rmtree(runtime, ignore_errors=True)
        os.makedirs(runtime, mode=0o700)
        prefix, n = f"r{tally.trials}", 4
        out = py(PUBLISH, prefix, n)
        if out.returncode != 0:
            tally.fail(f"publishing failed: {out.stderr.strip()[-300:]}")
            continue
        db = os.path.join(work, f"commits-{tally.trials}.swingdb")
        py("import sys, swingdb; swingdb.connect(sys.argv[1]).sql('CREATE TABLE c (x INTEGER)')", db)
        committed = 0
        dirs = {os.path.realpath(os.path.join(runtime, "names", f"{prefix}-{i}")) for i in range(n)}
        damaged = {}
        for i in rng.sample(range(n), rng.randint(0, n)):
            record = os.path.join(os.path.realpath(os.path.join(runtime, "names", f"{prefix}-{i}")), "snapshot.json")
            damaged[f"{prefix}-{i}"] = _damage(record, rng)
        for _ in range(3):
            free = rng.randint(0, 6)
            out = py(SWEEP, prefix, n, free, db)
            tally.trials += 1
            committed += out.stdout.split().count("committed")
            if out.returncode != 0:
                tally.fail(f"a sweep with {free} free descriptors died ({out.returncode}): {out.stderr.strip()[-300:]}")
            for line in out.stdout.splitlines():
                if line.startswith("listed") and "missing" in line and line.split("missing")[1].strip():
                    tally.fail(f"a listing with {free} free descriptors left out {line.split('missing')[1].strip()} without an error")
            gone = [d for d in dirs if not os.path.isdir(d)]
            if gone:
                tally.fail(f"sweeps with {free} free descriptors deleted {len(gone)} snapshot(s) ({damaged})")
                break
        out = py("import sys, swingdb; c = swingdb.connect(sys.argv[1]); c.verify(); print(c.sql('SELECT count(*) FROM c').fetchall()[0][0])", db)
        if out.stdout.strip() != str(committed):
            tally.fail(f"{committed} commits with few descriptors reported, the table holds {out.stdout.strip() or out.stderr.strip()[-300:]}")
        out = py(CHECK, prefix, n)
        for line in out.stdout.splitlines():
            name, state, result = line.split(" ", 2)
            if name in damaged:
                tally.counts["damaged kept"] = tally.counts.get("damaged kept", 0) + 1
                if state != "damaged" or "Error" not in result:
                    tally.fail(f"{name} ({damaged[name]} record): {state}, attach gave {result}")
            else:
                i = int(name.rsplit("-", 1)[1])
                if result != f"(1000, {499500 + 1000 * i})":
                    tally.fail(f"{name} (intact): {state}, attach gave {result}")
        for i in range(n):
            py("import sys, swingdb; swingdb.discard(sys.argv[1])", f"{prefix}-{i}")
        left = [d for d in dirs if os.path.isdir(d)]
        if left:
            tally.fail(f"discard left {len(left)} snapshot directories")
    shutil.rmtree(runtime, ignore_errors=True)
