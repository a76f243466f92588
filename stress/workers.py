"""The Rust worker processes (`swingdb-stress`, built with failpoints) and the
reading of their logs."""

from __future__ import annotations

import json
import os
import subprocess

#: What an untouched writer's tables look like.
EMPTY = "d=0:0,a=-,e=0:0"
ACCOUNTS = 8
TOTAL = ACCOUNTS * 1000


def binary() -> str:
    """Path of the worker binary (`make stress` and `make test` build it)."""
    path = os.environ.get("SWINGDB_STRESS_BIN") or os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/swingdb-target")), "release", "swingdb-stress"
    )
    if not os.access(path, os.X_OK):
        raise SystemExit(f"{path} is missing: build it with `cargo build --release -p swingdb-stress` (make stress does)")
    return path


def failpoints() -> list[str]:
    """Every failpoint of the storage layer, as the worker binary knows them."""
    out = subprocess.run([binary(), "failpoints"], check=True, capture_output=True, text=True, timeout=60)
    return out.stdout.split()


def setup(db: str, writers: int) -> None:
    subprocess.run([binary(), "setup", db, str(writers), str(ACCOUNTS)], check=True, capture_output=True, timeout=120)


def writer(db: str, log: str, wid: int, seed: int, ops: int, failpoints: str = "") -> subprocess.Popen:
    env = {**os.environ, "SWINGDB_FAILPOINTS": failpoints}
    return subprocess.Popen(
        [binary(), "writer", db, log, str(wid), str(seed), str(ops)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def reader(db: str, seconds: float, writers: int, failpoints: str = "") -> subprocess.Popen:
    env = {**os.environ, "SWINGDB_FAILPOINTS": failpoints}
    return subprocess.Popen(
        [binary(), "reader", db, str(seconds), str(writers), str(TOTAL)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def state(db: str, writers: int) -> dict:
    """Verifies the database and returns each writer's fingerprint and events."""
    out = subprocess.run([binary(), "state", db, str(writers)], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"state check failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


class WriterLog:
    """What one writer logged: the fingerprints the database may show now, and
    the sequence numbers it reported committed."""

    def __init__(self, path: str):
        self.allowed = {EMPTY}
        self.committed: set[int] = set()
        self.maybe: set[int] = set()
        if not os.path.exists(path):
            return
        pending = None
        open_ended: set[str] = set()  # pending fingerprints whose outcome is unknown
        last = EMPTY
        with open(path) as f:
            lines = f.read().splitlines()
        for line in lines:
            parts = line.split(" ", 2)
            if len(parts) < 2 or not parts[1].lstrip("-").isdigit():
                continue  # a line torn by the kill
            kind, seq = parts[0], int(parts[1])
            rest = parts[2] if len(parts) > 2 else ""
            if kind == "pending":
                pending = (seq, rest)
                open_ended.add(rest)
                self.maybe.add(seq)
            elif kind == "committed":
                last, pending, open_ended = rest, None, set()
                self.committed.add(seq)
            elif kind == "aborted" and pending and pending[0] == seq:
                open_ended.discard(pending[1])
                self.maybe.discard(seq)
                pending = None
            # "failed": the outcome is unknown, the pending fingerprint stays allowed.
        self.allowed = {last} | open_ended
        self.maybe |= self.committed


def _in_runtime(runtime: str, failpoints: str = "") -> dict:
    """The environment of a worker whose runtime home is `runtime`."""
    return {**os.environ, "SWINGDB_FAILPOINTS": failpoints, "SWINGDB_RUNTIME_DIR": runtime}


def _runtime_worker(kind: str, runtime: str, wid: int, seed: int, seconds: float, names: int, failpoints: str) -> subprocess.Popen:
    return subprocess.Popen(
        [binary(), kind, str(wid), str(seed), str(seconds), str(names)],
        env=_in_runtime(runtime, failpoints), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _runtime_output(kind: str, runtime: str) -> str:
    return subprocess.run([binary(), kind], env=_in_runtime(runtime), check=True, capture_output=True, text=True, timeout=120).stdout


def sharer(runtime: str, sid: int, seed: int, seconds: float, names: int, failpoints: str = "") -> subprocess.Popen:
    """A process that shares, attaches, checks and discards snapshots s0..s<names-1>."""
    return _runtime_worker("sharer", runtime, sid, seed, seconds, names, failpoints)


def sweep(runtime: str) -> list[str]:
    """Lists the snapshots in `runtime` (which sweeps what dead processes left); their names."""
    return _runtime_output("sweep", runtime).split()


def piper(runtime: str, pid: int, seed: int, seconds: float, names: int, failpoints: str = "") -> subprocess.Popen:
    """A process that exports and imports through pipes p0..p<names-1>, checking every import."""
    return _runtime_worker("piper", runtime, pid, seed, seconds, names, failpoints)


def pipesweep(runtime: str) -> list[str]:
    """Sweeps the rendezvous of `runtime`; the ends still waiting there."""
    return _runtime_output("pipesweep", runtime).splitlines()
