"""Damage under a database, hunting silent answers rather than crashes.

logs: a database of many single-row commits, then one bit flipped (or one
payload byte zeroed) in a record of one of its commit logs, every record of
every log in turn and then at random. Opening and counting must give every
row, or fail with CorruptionError; the commit that follows must not succeed
over the damage; read-only with recover must give at least the rows of the
versions before the damaged record. A smaller count without an error is a
silent rollback: a failure.

truncations: a process keeps a connection open and queries a table of
several segments while this process truncates or overwrites (in place, same
size) its segment files between queries. Every query must answer in full or
raise CorruptionError naming a file (bytes overwritten in columns already
checked may read as other values, or fail as such: counted); the process
must never die.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import time

from .manifests import HEADER

BUILD = textwrap.dedent("""
    import sys, swingdb
    con = swingdb.connect(sys.argv[1])
    con.sql("CREATE TABLE t (x BIGINT)")
    for i in range(int(sys.argv[2])):
        con.execute("INSERT INTO t VALUES (?)", [i])
""")

#: Reads damaged databases named on stdin (one JSON object per line: path,
#: first damaged version), answers one JSON line each.
CHECK = textwrap.dedent("""
    import json, sys, swingdb
    for line in sys.stdin:
        item = json.loads(line)
        out = {}
        try:
            out["rows"] = swingdb.connect(item["path"]).sql("SELECT count(*) FROM t").fetchall()[0][0]
        except swingdb.CorruptionError as e:
            out["rows"] = "CorruptionError"
        except Exception as e:
            out["rows"] = f"{type(e).__name__}: {e}"
        try:
            con = swingdb.connect(item["path"])
            con.execute("INSERT INTO t VALUES (-1)")
            out["commit"] = "committed"
        except swingdb.CorruptionError:
            out["commit"] = "CorruptionError"
        except Exception as e:
            out["commit"] = f"{type(e).__name__}: {e}"
        try:
            con = swingdb.connect(item["path"], read_only=True, recover=True)
            out["recovered"] = con.sql("SELECT count(*) FROM t").fetchall()[0][0]
        except Exception as e:
            out["recovered"] = f"{type(e).__name__}: {e}"
        print(json.dumps(out), flush=True)
""")


def _records(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, payload length, version) of every record of a log, read by
    its lengths (the log is intact)."""
    found, at = [], 16
    while at + HEADER <= len(data):
        length, _dropped, version = struct.unpack_from("<IIQ", data, at)
        if length == 0 or length == 0xFFFFFFFF:
            break
        found.append((at, length, version))
        at += HEADER + length
    return found


def _damages(records, data, rng, every: bool):
    """(offset, new byte, first version affected) damages: per record one bit
    of each header field and one zeroed payload byte when `every`, else one
    of those at random."""
    fields = [(0, 4), (4, 4), (8, 8), (16, 4), (20, 4)]
    for at, length, version in records if every else [rng.choice(records)]:
        picks = fields if every else [rng.choice(fields)]
        for start, size in picks:
            byte = at + start + rng.randrange(size)
            yield byte, data[byte] ^ (1 << rng.randrange(8)), version
        if every or rng.random() < 0.3:
            byte = at + HEADER + rng.randrange(length)
            yield byte, 0, version


def run_logs(budget, work, rng, tally, commits=1000):
    start = time.time()
    base = os.path.join(work, "logs.swingdb")
    shutil.rmtree(base, ignore_errors=True)
    subprocess.run([sys.executable, "-c", BUILD, base, str(commits)], check=True, timeout=600)
    logs = sorted(glob.glob(os.path.join(base, "manifests", "*.log")))
    intact = {log: open(log, "rb").read() for log in logs}
    first_round = True
    checker = subprocess.Popen([sys.executable, "-c", CHECK], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        while first_round or time.time() - start < budget:
            for log in logs:
                data = intact[log]
                for byte, value, version in _damages(_records(data), data, rng, every=first_round):
                    if value == data[byte]:
                        continue
                    damaged = bytearray(data)
                    damaged[byte] = value
                    with open(log, "wb") as f:
                        f.write(damaged)
                    checker.stdin.write(json.dumps({"path": base}) + "\n")
                    checker.stdin.flush()
                    line = checker.stdout.readline()
                    with open(log, "wb") as f:
                        f.write(data)
                    if not line:
                        tally.fail(f"the checker died at byte {byte} of {os.path.basename(log)}")
                        return
                    out = json.loads(line)
                    tally.trials += 1
                    where = f"byte {byte} of {os.path.basename(log)} (version {version}) set to {value:#04x}"
                    key = "reported" if out["rows"] == "CorruptionError" else "read"
                    tally.counts[key] = tally.counts.get(key, 0) + 1
                    if out["rows"] not in (commits, "CorruptionError"):
                        tally.fail(f"{where}: {out['rows']} rows of {commits}, no error (a silent rollback)")
                    if out["commit"] == "committed" and out["rows"] != commits:
                        tally.fail(f"{where}: a commit succeeded over the damage")
                    if out["commit"] == "committed":
                        # Undo the row the commit added: the next trial starts from the intact log.
                        shutil.rmtree(base)
                        subprocess.run([sys.executable, "-c", BUILD, base, str(commits)], check=True, timeout=600)
                        logs[:] = sorted(glob.glob(os.path.join(base, "manifests", "*.log")))
                        intact.clear()
                        intact.update({path: open(path, "rb").read() for path in logs})
                        break
                    recovered = out["recovered"]
                    if not isinstance(recovered, int) and out["rows"] == "CorruptionError":
                        tally.counts["recover refused"] = tally.counts.get("recover refused", 0) + 1
                    elif isinstance(recovered, int) and recovered < version - 2 and out["rows"] == "CorruptionError":
                        tally.fail(f"{where}: recover read {recovered} rows, fewer than the versions before the damage")
                if time.time() - start > budget and not first_round:
                    break
            first_round = False
    finally:
        checker.stdin.close()
        checker.wait(timeout=60)


READER = textwrap.dedent("""
    import sys, swingdb
    con = swingdb.connect(sys.argv[1], read_only=True)
    expected = con.sql("SELECT count(*), sum(x) FROM t").fetchall()
    print("ready", flush=True)
    for line in sys.stdin:
        try:
            got = con.sql("SELECT count(*), sum(x) FROM t").fetchall()
            print("same" if got == expected else f"DIFFERENT {got} {expected}", flush=True)
        except swingdb.CorruptionError as e:
            print("CorruptionError", str(e).replace("\\n", " "), flush=True)
        except swingdb.Error as e:  # overwritten bytes read as values: an overflow, say
            print(type(e).__name__, str(e).replace("\\n", " "), flush=True)
""")

MAKE_TABLE = textwrap.dedent("""
    import sys, swingdb
    con = swingdb.connect(sys.argv[1])
    con.sql("CREATE TABLE t (x BIGINT)")
    for i in range(6):
        con.sql(f"INSERT INTO t SELECT value FROM range({i * 200000}, {(i + 1) * 200000})")
""")


def run_truncations(budget, work, rng, tally):
    start = time.time()
    while time.time() - start < budget:
        db = os.path.join(work, "truncated.swingdb")
        shutil.rmtree(db, ignore_errors=True)
        subprocess.run([sys.executable, "-c", MAKE_TABLE, db], check=True, timeout=300)
        reader = subprocess.Popen([sys.executable, "-c", READER, db], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        assert reader.stdout.readline().strip() == "ready"
        segments = sorted(glob.glob(os.path.join(db, "segments", "*.arrow")))
        truncated = set()
        for _ in range(10):
            victim = rng.choice(segments)
            size = os.path.getsize(victim)
            os.chmod(victim, 0o600)
            if rng.random() < 0.5:
                os.truncate(victim, rng.randrange(size))
                truncated.add(os.path.basename(victim))
                what = "truncated"
            else:
                with open(victim, "r+b") as f:
                    f.seek(rng.randrange(size))
                    f.write(os.urandom(rng.randint(1, 256)))
                what = "overwritten"
            reader.stdin.write("query\n")
            reader.stdin.flush()
            answer = reader.stdout.readline().strip()
            tally.trials += 1
            if not answer:
                reader.wait(timeout=60)
                tally.fail(f"a segment {what} under a live connection: the reader died ({reader.returncode}): "
                           f"{reader.stderr.read().strip()[-300:]}")
                break
            kind = answer.split()[0]
            tally.counts[f"{what}: {kind}"] = tally.counts.get(f"{what}: {kind}", 0) + 1
            if kind == "DIFFERENT" and truncated:
                tally.fail(f"a truncated segment gave another answer without an error: {answer[:300]}")
            if kind == "CorruptionError" and truncated and not any(name in answer for name in truncated) and what == "truncated":
                tally.fail(f"the error names no truncated segment ({sorted(truncated)}): {answer[:300]}")
        reader.stdin.close()
        reader.wait(timeout=60)
