"""Reading a database's newest manifest straight from its files, for tests
that look at what was stored: the last valid record of the newest commit log
(`manifests/<base>.log`), a whole manifest or a change applied to the ones
before it, read here from the formats documented in
`crates/swingdb-storage/src/dir/log.rs` and `manifest/delta.rs`,
independently of the code that writes them."""

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
    """(version, offset of the manifest, manifest as stored: whole JSON, or a
    change beginning with `D`) of every valid record of the log, oldest first."""
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


def apply_change(manifest: dict, change: dict) -> dict:
    """The manifest a change record makes of `manifest`, the version before it."""
    tables = {n: t for n, t in manifest["tables"].items() if n not in change.get("removed", [])}
    for name, table in change.get("tables", {}).items():
        if "whole" in table:
            tables[name] = table["whole"]
            continue
        old, new = tables[name]["segments"], table["segments"]
        segments = []
        for piece in new["pieces"]:
            segments.extend(old[piece[0] : piece[1]] if isinstance(piece, list) else [piece])
        tables[name] = {**tables[name], "modified": new["modified"], "segments": segments}
    return {"format_version": change["format_version"], "version": change["version"], "tables": tables}


def newest_manifest(db_path: str) -> dict:
    """The newest manifest of the database at `db_path`, as parsed JSON."""
    manifest = None
    for _, _, stored in records(newest_log(db_path)):
        if stored.startswith(b"D"):
            manifest = apply_change(manifest, json.loads(stored[1:]))
        else:
            manifest = json.loads(stored)
    return manifest
