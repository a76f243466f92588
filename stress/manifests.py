"""Reading a database's newest manifest straight from its files, for tests
that look at what was stored: the last valid record of the newest commit log
(`manifests/<base>.log`), read here from the format documented in
`crates/swingdb/src/storage/dir/log.rs`, independently of the code that
writes it."""

from __future__ import annotations

import json
import os
import struct
import zlib

MAGIC = b"SWGLOG01"
HEADER = 24


def newest_log(db_path: str) -> str:
    """The path of the newest commit log of the database at `db_path`."""
    directory = os.path.join(db_path, "manifests")
    logs = sorted(n for n in os.listdir(directory) if n.endswith(".log") and not n.startswith("tmp-"))
    if not logs:
        raise FileNotFoundError(f"{directory} holds no commit log")
    return os.path.join(directory, logs[-1])


def records(log_path: str) -> list[tuple[int, int, bytes]]:
    """(version, offset of the manifest JSON, manifest JSON) of every valid
    record of the log, oldest first."""
    with open(log_path, "rb") as f:
        data = f.read()
    assert data[:8] == MAGIC, f"{log_path} is not a commit log"
    found, at = [], 16
    while at + HEADER <= len(data):
        length, dropped, version, _prev, crc = struct.unpack_from("<IIQII", data, at)
        end = at + HEADER + length
        if length == 0 or end > len(data) or zlib.crc32(data[at : at + 20] + data[at + HEADER : end]) != crc:
            break
        found.append((version, at + HEADER + dropped, data[at + HEADER + dropped : end]))
        at = end
    return found


def newest_manifest(db_path: str) -> dict:
    """The newest manifest of the database at `db_path`, as parsed JSON."""
    return json.loads(records(newest_log(db_path))[-1][2])
