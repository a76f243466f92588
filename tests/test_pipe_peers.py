"""A pipe's partner is untrusted input: a fake exporter speaking the wire
protocol (length-prefixed JSON on the control socket) offers real segment
files with lies about them, names that leave its directory, symbolic links
and other users' files. The importer takes only what the bytes prove: every
import here either stores exactly the offered rows, with statistics that
answer correctly, or fails with an error and stores nothing."""

import glob
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import uuid

import pyarrow as pa
import pytest
import swingdb

from stress import peers
from stress.peers import SCHEMA, FakeExporter


def _stored(tmp_path, rows=peers.ROWS):
    return peers.stored(str(tmp_path / "source.swingdb"), rows)


def _import(name, tmp_path):
    dst = swingdb.connect(str(tmp_path / "dst.swingdb"))
    return dst, lambda: dst.pipe_from(name, "t2")


def _no_table_and_no_files(dst, tmp_path):
    with pytest.raises(swingdb.ProgrammingError):
        dst.sql("SELECT * FROM t2")
    assert glob.glob(str(tmp_path / "dst.swingdb" / "segments" / "*.arrow")) == []


def _refused(tmp_path, schema, offer, why):
    """An import from a fake exporter offering `offer` fails with a CorruptionError
    saying `why` and leaves neither a table nor a file."""
    peer = FakeExporter(schema, offer)
    dst, run = _import(peer.name, tmp_path)
    with pytest.raises(swingdb.CorruptionError, match=why):
        run()
    _no_table_and_no_files(dst, tmp_path)
    dst.close()


def test_false_statistics_of_an_offered_segment_do_not_prune_rows(tmp_path):
    segments, [segment] = _stored(tmp_path)
    segment["stats"][0]["min"] = "100"  # a lie: the segment holds 0..99999
    peer = FakeExporter(SCHEMA, {"dir": segments, "segments": [segment]})
    dst, run = _import(peer.name, tmp_path)
    assert run() == 100_000
    assert peer.kinds()[-1] == "done"
    assert dst.sql("SELECT count(*) FROM t2 WHERE a < 100").fetchall() == [(100,)]
    assert dst.sql("SELECT min(a), max(a), count(*) FROM t2").fetchall() == [(0, 99_999, 100_000)]
    dst.verify()


def test_false_row_count_or_checksum_is_refused(tmp_path):
    segments, [segment] = _stored(tmp_path)
    for lie in ({"rows": 100_001}, {"crc32": (segment["crc32"] + 1) % 2**32}, {"bytes": segment["bytes"] - 8}):
        peer = FakeExporter(SCHEMA, {"dir": segments, "segments": [dict(segment, **lie)]})
        dst, run = _import(peer.name, tmp_path)
        with pytest.raises(swingdb.CorruptionError, match="the exporter offered segment .* but it holds 100000 rows"):
            run()
        assert peer.kinds()[-1] == "abort"
        _no_table_and_no_files(dst, tmp_path)
        dst.close()


@pytest.mark.parametrize("bad", ["../../../etc/hostname", "/etc/hostname", "..", ".hidden", "a/b.arrow"])
def test_names_that_leave_the_exporters_directory_are_refused(tmp_path, bad):
    segments, [segment] = _stored(tmp_path)
    peer = FakeExporter(SCHEMA, {"dir": segments, "segments": [dict(segment, file=bad)]})
    dst, run = _import(peer.name, tmp_path)
    with pytest.raises(swingdb.CorruptionError, match="which is not a segment's"):
        run()
    assert peer.kinds()[-1] == "abort"
    _no_table_and_no_files(dst, tmp_path)


def test_a_symbolic_link_or_a_file_of_another_type_is_refused(tmp_path):
    segments, [segment] = _stored(tmp_path)
    os.symlink(os.path.join(segments, segment["file"]), os.path.join(segments, "link.arrow"))
    os.mkfifo(os.path.join(segments, "fifo.arrow"))
    for name, why in (("link.arrow", "a symbolic link"), ("fifo.arrow", "not a regular file")):
        _refused(tmp_path, SCHEMA, {"dir": segments, "segments": [dict(segment, file=name)]}, why)


def test_a_file_that_is_no_segment_of_the_pipes_columns_is_refused(tmp_path):
    segments, [segment] = _stored(tmp_path)
    with open(os.path.join(segments, "junk.arrow"), "wb") as f:
        f.write(b"ARROW1" + os.urandom(4000))
    wrong = pa.schema([("a", pa.float64())])
    for schema, file, why in ((SCHEMA, "junk.arrow", "not a valid segment"), (wrong, segment["file"], "columns of types")):
        _refused(tmp_path, schema, {"dir": segments, "segments": [dict(segment, file=file)]}, why)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_file_the_exporter_does_not_own_is_refused(tmp_path):
    segments, [segment] = _stored(tmp_path)
    foreign = os.path.join(segments, "foreign.arrow")
    shutil.copy(os.path.join(segments, segment["file"]), foreign)
    os.chown(foreign, 65534, 65534)  # nobody
    peer = FakeExporter(SCHEMA, {"dir": segments, "segments": [dict(segment, file="foreign.arrow")]})
    dst, run = _import(peer.name, tmp_path)
    with pytest.raises(swingdb.CorruptionError, match="owned by user 65534 and not by the exporter"):
        run()
    _no_table_and_no_files(dst, tmp_path)


def test_a_failed_copy_across_filesystems_leaves_no_partial_file(tmp_path, small_disk):
    # The exporter's segment (70 MB) lives on another filesystem than the
    # importer's database, a 64 MiB one: linking fails, the copy fills the disk.
    segments, offered = _stored(tmp_path, rows=9_000_000)
    dst = swingdb.connect(os.path.join(small_disk, "dst.swingdb"))
    peer = FakeExporter(SCHEMA, {"dir": segments, "segments": offered})
    with pytest.raises(swingdb.OperationalError, match="copying"):
        dst.pipe_from(peer.name, "t2")
    assert glob.glob(os.path.join(small_disk, "dst.swingdb", "segments", "*")) == []
    dst.sql("CREATE TABLE after AS SELECT 1 AS ok")  # the disk has room again
    assert dst.sql("SELECT ok FROM after").fetchall() == [(1,)]


@pytest.mark.parametrize(
    "says, what",
    [(b"", "a hello that never comes"), (struct.pack("<I", 200 << 20) + b'{"kind":', "a 200 MB frame that stalls")],
)
def test_a_silent_exporter_fails_the_import_after_the_timeout(tmp_path, says, what):
    peer = FakeExporter(raw=says)
    dst = swingdb.connect()
    start = time.monotonic()
    with pytest.raises(swingdb.OperationalError, match="the exporter was silent for longer than the pipe's timeout"):
        dst.pipe_from(f"db://{peer.name}?timeout=2", "t2")
    waited = time.monotonic() - start
    peer.release.set()
    assert 1.5 < waited < 15, f"{what}: failed after {waited:.1f} s with a 2 s timeout"


def test_an_exporter_stopped_mid_stream_fails_the_import_after_the_timeout():
    name = "stopped-" + uuid.uuid4().hex[:12]
    code = f"import swingdb; swingdb.connect().pipe_to('db://{name}?timeout=600', 'SELECT value FROM range(100000000000) WHERE value % 1000 = 0')"
    exporter = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dst = swingdb.connect()
    stopper = threading.Timer(3.0, lambda: os.kill(exporter.pid, signal.SIGSTOP))
    stopper.start()
    start = time.monotonic()
    try:
        with pytest.raises(swingdb.OperationalError, match="silent for longer than the pipe's timeout"):
            dst.pipe_from(f"db://{name}?timeout=3", "t2")
        waited = time.monotonic() - start
        assert waited < 30, f"waited {waited:.1f} s"
        with pytest.raises(swingdb.ProgrammingError):
            dst.sql("SELECT count(*) FROM t2")
    finally:
        stopper.cancel()
        os.kill(exporter.pid, signal.SIGKILL)
        exporter.wait()
