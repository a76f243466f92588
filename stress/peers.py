"""A pipe's partner that lies: a fake exporter speaking the wire protocol
(length-prefixed JSON on the control socket, see crates/swingdb-pipe/src/wire.rs)
that offers real segment files with false claims, names that leave its
directory, links, other kinds of files, frames that never end, or silence.
Used by the `peers` torture scenario and by tests/test_pipe_peers.py."""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid

import pyarrow as pa

from .manifests import newest_manifest

#: The column the fake offers: t(a BIGINT) = 0 .. ROWS-1.
SCHEMA = pa.schema([("a", pa.int64())])
ROWS = 100_000


def runtime_home() -> str:
    """The runtime home swingdb uses in this environment (see share/home.rs)."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
    return os.environ.get("SWINGDB_RUNTIME_DIR") or os.path.join(base, f"swingdb-{os.geteuid()}")


def send(conn: socket.socket, message) -> None:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    conn.sendall(struct.pack("<I", len(body)) + body)


def receive(conn: socket.socket):
    """The next message, or None when the connection ended."""

    def exactly(n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    head = exactly(4)
    body = head and exactly(struct.unpack("<I", head)[0])
    return None if body is None else json.loads(body)


class FakeExporter:
    """Waits at the rendezvous as the exporter of a new pipe, answers the importer's
    hello with `hello` (or with the raw bytes `raw`, then silence) and records what
    the importer sends."""

    def __init__(self, schema=SCHEMA, offer=None, raw: bytes | None = None, runtime: str | None = None, hello: dict | None = None):
        self.name = "fake-" + uuid.uuid4().hex[:12]
        pipes = os.path.join(runtime or runtime_home(), "pipes", self.name)
        os.makedirs(pipes, mode=0o700, exist_ok=True)
        path = os.path.join(pipes, f"export-{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:16]}.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        sink = pa.BufferOutputStream()
        pa.ipc.new_stream(sink, schema).close()
        self.hello = {
            "kind": "hello", "protocol": 1, "pid": os.getpid(), "workers": 1, "compression": None, "verify": False,
            "schema": list(sink.getvalue().to_pybytes()), "offer": offer,
        } | (hello or {})
        self.raw = raw
        self.release = threading.Event()
        self.heard: list = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.server.settimeout(120)
        try:
            conn, _ = self.server.accept()
        except OSError:
            return
        with conn:
            self.heard.append(receive(conn))
            if self.raw is not None:
                conn.sendall(self.raw)
                self.release.wait(120)
                return
            send(conn, self.hello)
            while (message := receive(conn)) is not None:
                self.heard.append(message)
                if message["kind"] in ("done", "abort"):
                    break

    def kinds(self) -> list[str]:
        """The kinds of message the importer sent, once it is done."""
        self.thread.join(timeout=30)
        return [m["kind"] for m in self.heard if m]

    def close(self) -> None:
        self.release.set()
        self.server.close()


def stored(path: str, rows: int = ROWS) -> tuple[str, list[dict]]:
    """A database at `path` holding t(a BIGINT) = 0..rows-1 in segment files: its
    segments directory and the segments' metadata as its manifest records them."""
    subprocess.run(
        [sys.executable, "-c", f"import swingdb; swingdb.connect({path!r}).sql('CREATE TABLE t AS SELECT value AS a FROM range({rows})')"],
        check=True, timeout=120,
    )
    segments = newest_manifest(path)["tables"]["t"]["segments"]
    assert all("inline" not in s for s in segments)
    return os.path.join(path, "segments"), segments


def lies(segments_dir: str, segment: dict) -> dict:
    """Every way the fake lies, by name: the keyword arguments of a FakeExporter."""
    offer = lambda **changed: {"dir": segments_dir, "segments": [dict(segment, **changed)]}  # noqa: E731
    stats = lambda **changed: [dict(segment["stats"][0], **changed)]  # noqa: E731
    for name, make in (("link.arrow", "symlink"), ("fifo.arrow", "fifo"), ("junk.arrow", "junk")):
        path = os.path.join(segments_dir, name)
        if not os.path.lexists(path):
            if make == "symlink":
                os.symlink(os.path.join(segments_dir, segment["file"]), path)
            elif make == "fifo":
                os.mkfifo(path)
            else:
                with open(path, "wb") as f:
                    f.write(b"ARROW1" + os.urandom(4000))
    return {
        "honest": {"offer": offer()},
        "false min": {"offer": offer(stats=stats(min="100"))},
        "false max": {"offer": offer(stats=stats(max="5"))},
        "false nulls": {"offer": offer(stats=stats(nulls=7))},
        "false rows": {"offer": offer(rows=ROWS + 1)},
        "false checksum": {"offer": offer(crc32=(segment["crc32"] + 1) % 2**32)},
        "false size": {"offer": offer(bytes=segment["bytes"] - 8)},
        "traversal name": {"offer": offer(file="../../../etc/hostname")},
        "absolute name": {"offer": offer(file="/etc/hostname")},
        "hidden name": {"offer": offer(file=".x")},
        "symbolic link": {"offer": offer(file="link.arrow")},
        "fifo": {"offer": offer(file="fifo.arrow")},
        "not a segment": {"offer": offer(file="junk.arrow")},
        "other column type": {"offer": offer(), "schema": pa.schema([("a", pa.float64())])},
        "other protocol": {"offer": offer(), "hello": {"protocol": 99}},
        "no hello": {"raw": b""},
        "endless frame": {"raw": struct.pack("<I", 200 << 20) + b'{"kind":'},
        "garbage frame": {"raw": struct.pack("<I", 9) + b"not json!"},
        "huge length": {"raw": struct.pack("<I", 0xFFFFFFFF)},
    }


#: What the importer runs: prints "imported", then its answers, or "error <class>".
IMPORTER = textwrap.dedent("""
    import sys, swingdb
    dst = swingdb.connect(sys.argv[1])
    try:
        dst.pipe_from(f"db://{sys.argv[2]}?timeout=2", "t2")
    except swingdb.Error as e:
        print("error", type(e).__name__, str(e).replace(chr(10), " "))
        try:
            dst.sql("SELECT * FROM t2")
            print("a failed import left a table")
        except swingdb.ProgrammingError:
            pass
        raise SystemExit(0)
    print("imported", dst.sql("SELECT count(*), min(a), max(a), sum(a), count(*) FILTER (WHERE a < 100), count(a) FROM t2").fetchall())
    dst.verify()
""")


def answers(rows: int = ROWS) -> str:
    """What an import of t must answer."""
    return f"imported [({rows}, 0, {rows - 1}, {rows * (rows - 1) // 2}, 100, {rows})]"


def run(budget: float, work: str, rng, tally) -> None:
    """The `peers` scenario: imports from lying fake exporters, each either right
    or an error, never a wrong answer, a crash or a wait past the timeout."""
    # Short: a socket's path must fit 107 bytes (swingdb itself reaches its
    # sockets through /proc/self/fd; this fake binds by path).
    runtime = tempfile.mkdtemp(prefix="sw-", dir="/tmp")
    env = {**os.environ, "SWINGDB_RUNTIME_DIR": runtime}
    segments_dir, [segment] = stored(os.path.join(work, "source.swingdb"))
    kinds = lies(segments_dir, segment)
    start = time.time()
    while time.time() - start < budget:
        lie = rng.choice(sorted(kinds))
        peer = FakeExporter(runtime=runtime, **kinds[lie])
        dst = os.path.join(work, f"dst-{tally.trials}.swingdb")
        began = time.monotonic()
        try:
            out = subprocess.run([sys.executable, "-c", IMPORTER, dst, peer.name], env=env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            tally.fail(f"{lie}: the importer hung past 60 s with a 2 s timeout")
            continue
        finally:
            peer.close()
        took = time.monotonic() - began
        tally.trials += 1
        tally.counts[lie] = tally.counts.get(lie, 0) + 1
        result = out.stdout.strip()
        if out.returncode != 0:
            tally.fail(f"{lie}: the importer died ({out.returncode}): {out.stderr.strip()[-300:]}")
        elif result.startswith("imported") and result != answers():
            tally.fail(f"{lie}: a wrong answer: {result}")
        elif not result.startswith(("imported", "error")) or "left a table" in result:
            tally.fail(f"{lie}: {result or out.stderr.strip()[-300:]}")
        elif lie == "honest" and not result.startswith("imported"):
            tally.fail(f"an honest offer was refused: {result}")
        elif took > 30:
            tally.fail(f"{lie}: took {took:.0f} s with a 2 s timeout")
    shutil.rmtree(runtime, ignore_errors=True)
