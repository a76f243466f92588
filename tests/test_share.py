"""Snapshots shared between real processes: share, attach, isolation, shared
physical pages (/proc/PID/smaps), lifetimes across SIGKILL, full memory, the
seed's five-process pipeline."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
import swingdb
from conftest import run_python

from stress.records import LEAVE_FREE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _runtime_home():
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    return os.environ.get("SWINGDB_RUNTIME_DIR") or os.path.join(base or "/tmp", f"swingdb-{os.geteuid()}")


class Peer:
    """A Python process that runs `code`, reports lines, and lives until told to end."""

    def __init__(self, code, then="", env=None):
        """Runs `code`, reports ready; on the first line from `send`, runs `then`;
        on the next one (or `end`), exits."""
        body = (
            textwrap.dedent(code)
            + "\nprint('ready', flush=True)\nsys.stdin.readline()\n"
            + textwrap.dedent(then)
            + "\nsys.stdin.readline()\n"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys\n" + body],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"peer failed:\n{self.proc.stderr.read()}")
            if line.strip() == "ready":
                break
            self.lines.append(line.strip())

    @property
    def pid(self):
        return self.proc.pid

    def send(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def end(self):
        self.send()
        self.send()
        assert self.proc.wait(timeout=60) == 0, self.proc.stderr.read()

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def _smaps(pid, inodes):
    """Rss, Pss and Shared_Clean/Shared_Dirty (kB) of the mappings of files with
    these inodes (tmpfs pages count as dirty: they have no disk to be clean against)."""
    totals = {"Rss": 0, "Pss": 0, "Shared_Clean": 0, "Shared_Dirty": 0}
    current = False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and len(parts) >= 5 and ":" in parts[3]:
                current = parts[4].isdigit() and int(parts[4]) in inodes
            elif current and parts[0].rstrip(":") in totals:
                totals[parts[0].rstrip(":")] += int(parts[1])
    return totals


def test_attacher_maps_the_publishers_physical_pages():
    """After attach, both processes map the same physical pages: each one's
    segment mappings are resident, counted as shared, and Pss is half of Rss."""
    name = f"smaps-{os.getpid()}"
    publisher = Peer(f"""
        import swingdb, numpy as np
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range(8000000)")   # 64 MB
        snap = con.share("{name}")
        col = con.sql("SELECT x FROM t").numpy()["x"]
        print(int(col.sum()), flush=True)                                     # touches every page
        print(snap.path, flush=True)
    """)
    try:
        total, path = int(publisher.lines[0]), publisher.lines[1]
        seg_dir = os.path.join(path, "segments")
        inodes = {os.stat(os.path.join(seg_dir, f)).st_ino for f in os.listdir(seg_dir)}
        attacher = Peer(f"""
            import swingdb
            con = swingdb.attach("{name}")
            col = con.sql("SELECT x FROM t").numpy()["x"]
            print(int(col.sum()), flush=True)
        """)
        try:
            assert int(attacher.lines[0]) == total == sum(range(8_000_000))
            for pid in (attacher.pid, publisher.pid):
                m = _smaps(pid, inodes)
                assert m["Rss"] >= 60_000, f"the 64 MB column is resident in process {pid}: {m}"
                assert m["Shared_Clean"] + m["Shared_Dirty"] >= 0.95 * m["Rss"], f"its pages are shared, not private copies: {m}"
                assert m["Pss"] <= 0.55 * m["Rss"], f"two processes share each page: {m}"
        finally:
            attacher.end()
    finally:
        publisher.end()


def test_share_and_attach_copy_no_table_bytes():
    """The memory filesystem gains no table bytes when a 200 MB table is shared and
    attached twice (links, not copies), and the attacher's column is a view into
    the mapped file."""
    name = f"nocopy-{os.getpid()}"
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS x, value * 2 AS y, value * 3 AS z FROM range(8000000)")  # 192 MB
    before = shutil.disk_usage(_runtime_home()).used
    con.share(name)
    a = swingdb.attach(name)
    b = swingdb.attach(name)
    after = shutil.disk_usage(_runtime_home()).used
    assert after - before < 1 << 20, f"sharing and two attaches used {after - before} bytes"
    x = a.sql("SELECT x FROM t").numpy()["x"]
    assert len(x) == 8_000_000 and int(x.max()) == 7_999_999 and not x.flags.writeable
    assert swingdb._swingdb.mapped_file(x.__array_interface__["data"][0]) is not None, "a view into a mapped segment"
    for c in (a, b, con):
        c.close()


def test_attaching_flushes_nothing_to_disk(tmp_path):
    """An attached snapshot is a private database, removed with its handle and
    swept after a crash: attaching it, and committing to it, fsyncs nothing,
    while the same commit to a database on disk does (the control)."""
    if shutil.which("strace") is None:
        pytest.skip("strace is installed by `make test`")
    name = f"nosync-{os.getpid()}"
    publisher = swingdb.connect(tmp_path / "db.swingdb")
    publisher.sql("CREATE TABLE t AS SELECT value AS x FROM range(100000)")
    publisher.share(name, persist=True)
    code = (
        "import sys, swingdb; con = swingdb.attach(sys.argv[1]) if sys.argv[1] != '-' else swingdb.connect(sys.argv[2]); "
        "con.sql('INSERT INTO t VALUES (-1)'); assert con.sql('SELECT count(*) FROM t').fetchall() == [(100001,)]"
    )
    try:
        for target, synced in ((name, False), ("-", True)):
            log = tmp_path / f"strace-{synced}.log"
            subprocess.run(
                ["strace", "-f", "-qq", "-o", str(log), "-e", "trace=fsync,fdatasync,sync_file_range", sys.executable,
                 "-c", code, target, str(tmp_path / "db.swingdb")],
                check=True, timeout=120,
            )
            calls = [line for line in log.read_text().splitlines() if "sync" in line]
            assert bool(calls) == synced, calls
    finally:
        swingdb.discard(name)
        publisher.close()


def test_isolation_between_processes_both_ways(tmp_path):
    name = f"iso-{os.getpid()}"
    publisher = Peer(
        f"""
        import swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000)")
        con.share("{name}")
        """,
        then="""
        con.sql("UPDATE t SET x = -1")    # the publisher changes its copy after the attach
        con.sql("CREATE TABLE mine AS SELECT 1 AS one")
        con.collect_garbage()
        print(con.sql("SELECT sum(x) FROM t").fetchall()[0][0], flush=True)
        """,
    )
    try:
        attached = swingdb.attach(name)
        publisher.send()
        assert publisher.proc.stdout.readline().strip() == "-1000"
        assert attached.sql("SELECT sum(x) FROM t").fetchall() == [(499500,)]
        assert "mine" not in attached.table_names()
        attached.sql("DELETE FROM t WHERE x < 500")
        w = attached.sql("SELECT x FROM t").numpy(writable=True)["x"]
        w[:] = 7  # a private copy-on-write mapping: nobody else sees it
        again = swingdb.attach(name)
        assert again.sql("SELECT count(*), sum(x) FROM t").fetchall() == [(1000, 499500)]
        assert attached.sql("SELECT count(*), sum(x) FROM t").fetchall() == [(500, sum(range(500, 1000)))]
    finally:
        publisher.send()
        assert publisher.proc.wait(timeout=60) == 0, publisher.proc.stderr.read()


def test_killed_publisher_ends_its_snapshot_attachers_keep_their_copy_nothing_stays_behind():
    home = _runtime_home()
    name = f"killed-{os.getpid()}"
    before_shm = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    before_tmp = set(os.listdir("/tmp"))
    publisher = Peer(f"""
        import swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range(100000)")
        print(con.share("{name}").path, flush=True)
        print(con.path or "", flush=True)
    """)
    snap_dir = publisher.lines[0]
    attacher = Peer(f"""
        import swingdb
        con = swingdb.attach("{name}")
        print(con.sql("SELECT count(*) FROM t").fetchall()[0][0], flush=True)
    """)
    survivor = swingdb.attach(name)
    assert [s.attached for s in swingdb.snapshots() if s.name == name] == [2]
    publisher.kill()
    attacher.kill()
    assert os.path.isdir(snap_dir), "a SIGKILL leaves the snapshot directory behind"
    with pytest.raises(swingdb.OperationalError, match=f"'{name}'"):
        swingdb.attach(name)
    assert name not in [s.name for s in swingdb.snapshots()]
    assert not os.path.exists(snap_dir), "the next sweep removes what the killed publisher left"
    for kind in ("scratch", "snapshots"):
        left = [d for d in os.listdir(os.path.join(home, kind)) if d.split("-")[0] in (str(publisher.pid), str(attacher.pid))]
        assert not left, f"{kind} of killed processes left behind: {left}"
    assert survivor.sql("SELECT count(*) FROM t").fetchall() == [(100000,)]
    survivor.close()
    if before_shm:
        assert set(os.listdir("/dev/shm")) <= before_shm | {os.path.basename(home)}
    assert set(os.listdir("/tmp")) - before_tmp == set()


def test_persisted_snapshot_outlives_its_publisher_until_discarded():
    name = f"persist-{os.getpid()}"
    run_python(f"""
        import swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT 42 AS answer")
        snap = con.share("{name}", persist=True)
        assert snap.persist and snap.owner == "persisted" and snap.tables == ("t",)
    """)
    [listed] = [s for s in swingdb.snapshots() if s.name == name]
    assert listed.owner == "persisted" and listed.rows == 1
    con = swingdb.attach(name)
    assert con.sql("SELECT answer FROM t").fetchall() == [(42,)]
    swingdb.discard(name)
    assert con.sql("SELECT answer FROM t").fetchall() == [(42,)]
    with pytest.raises(swingdb.OperationalError, match=f"no snapshot named '{name}'"):
        swingdb.attach(name)
    with pytest.raises(swingdb.OperationalError, match=f"no snapshot named '{name}'"):
        swingdb.discard(name)


def _persisted(name, rows=1000):
    """Publishes snapshot `name` (persisted) from an in-memory database of a process that
    then exits: the snapshot holds the only copy of its rows."""
    run_python(f"""
        import swingdb
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range({rows})")
        con.share("{name}", persist=True)
    """)
    [snap] = [s for s in swingdb.snapshots() if s.name == name]
    assert snap.damaged is None and snap.rows == rows
    return snap


def _sweep_elsewhere(name):
    """Every kind of sweep (listing, attach, share) in another process; returns its report."""
    return run_python(f"""
        import swingdb
        swingdb.snapshots()
        try:
            swingdb.attach("{name}")
        except swingdb.Error as e:
            print(type(e).__name__, e)
        con = swingdb.connect()
        con.sql("CREATE TABLE u AS SELECT 1 AS a")
        con.share("{name}-other")
    """).stdout


def test_a_damaged_snapshot_record_is_kept_reported_and_removed_only_by_discard():
    name = f"damaged-{os.getpid()}"
    snap = _persisted(name)
    record = os.path.join(snap.path, "snapshot.json")
    with open(record) as f:
        intact = f.read()
    assert '"rows":1000' in intact
    with open(record, "w") as f:
        f.write(intact.replace('"rows":1000', '"rows":1001'))  # one digit changed
    segments = os.listdir(os.path.join(snap.path, "segments"))
    assert segments
    report = _sweep_elsewhere(name)
    assert report.startswith("CorruptionError") and "snapshot.json" in report, report
    assert sorted(os.listdir(os.path.join(snap.path, "segments"))) == sorted(segments), "a sweep removed files of a damaged snapshot"
    [listed] = [s for s in swingdb.snapshots() if s.name == name]
    assert listed.owner == "damaged" and "snapshot.json" in listed.damaged and "discard" in listed.damaged
    with pytest.raises(swingdb.CorruptionError, match=f"{record}.*damaged"):
        swingdb.attach(name)
    # Nothing was lost: repaired, the snapshot attaches with every row.
    with open(record, "w") as f:
        f.write(intact)
    assert swingdb.attach(name).sql("SELECT count(*), sum(x) FROM t").fetchall() == [(1000, 499500)]
    # A missing record is damage too; only discard removes the snapshot.
    os.remove(record)
    _sweep_elsewhere(name)
    assert os.path.isdir(snap.path)
    with pytest.raises(swingdb.CorruptionError, match="missing"):
        swingdb.attach(name)
    swingdb.discard(name)
    assert not os.path.exists(snap.path)
    assert name not in [s.name for s in swingdb.snapshots()]


def test_listing_snapshots_without_free_descriptors_deletes_nothing_and_never_answers_short():
    name = f"fds-{os.getpid()}"
    _persisted(name)
    for free in range(6):
        proc = run_python(LEAVE_FREE + textwrap.dedent(f"""
            import swingdb
            leave_free({free})
            try:
                print("listed", {name!r} in [s.name for s in swingdb.snapshots() if s.damaged is None])
            except swingdb.Error as e:
                print("error", type(e).__name__, e)
        """))
        outcome = proc.stdout.split()
        assert outcome[:2] in (["listed", "True"], ["error", "OperationalError"]), f"{free} free: {proc.stdout}"
        [snap] = [s for s in swingdb.snapshots() if s.name == name]
        assert snap.damaged is None, f"{free} free descriptors: {snap}"
    assert swingdb.attach(name).sql("SELECT count(*) FROM t").fetchall() == [(1000,)]
    swingdb.discard(name)


def test_snapshot_names_and_errors(con):
    con.sql("CREATE TABLE t AS SELECT 1 AS a")
    for bad in ["", "../x", "a/b", ".hidden", "x" * 129]:
        with pytest.raises(swingdb.ProgrammingError, match="snapshot name"):
            con.share(bad)
        with pytest.raises(swingdb.ProgrammingError, match="snapshot name"):
            swingdb.attach(bad)
    with pytest.raises(swingdb.OperationalError, match="no snapshot named 'never-shared'"):
        swingdb.attach("never-shared")
    name = f"dup-{os.getpid()}"
    con.share(name)
    with pytest.raises(swingdb.OperationalError, match="already exists"):
        con.share(name)
    con.sql("UPDATE t SET a = 2")
    con.share(name, replace=True)
    assert swingdb.attach(name).sql("SELECT a FROM t").fetchall() == [(2,)]


def test_runtime_home_is_private():
    home = _runtime_home()
    swingdb.connect().close()
    assert os.stat(home).st_mode & 0o777 == 0o700
    for kind in ("names", "scratch", "snapshots"):
        path = os.path.join(home, kind)
        if os.path.exists(path):
            assert os.stat(path).st_mode & 0o777 == 0o700, path


def test_full_memory_during_share_and_attach_is_a_clear_error_that_loses_nothing(small_disk):
    _share_on_full_memory(small_disk)


def _share_on_full_memory(mount):
    """In a process whose runtime home is on the small file system `mount`."""
    code = """
        import os, sys, swingdb
        home = os.environ["SWINGDB_RUNTIME_DIR"]
        def fill():
            with open(os.path.join(os.path.dirname(home), "filler"), "wb", buffering=0) as f:
                try:
                    while True:
                        f.write(b"\\0" * 4096)
                except OSError:
                    pass
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000000)")     # 8 MB
        con.share("before-full")
        fill()
        try:
            con.share("while-full")
            raise SystemExit("share on a full file system succeeded")
        except swingdb.OperationalError as e:
            assert "space" in str(e).lower(), e
        try:
            swingdb.attach("before-full")
            raise SystemExit("attach on a full file system succeeded")
        except swingdb.OperationalError as e:
            assert "space" in str(e).lower(), e
        names = [s.name for s in swingdb.snapshots()]
        assert names == ["before-full"], names
        assert len(os.listdir(os.path.join(home, "snapshots"))) == 1, "no half snapshot is left"
        assert len(os.listdir(os.path.join(home, "scratch"))) == 1, "no half attached database is left"
        assert con.sql("SELECT count(*) FROM t").fetchall() == [(1000000,)]
        os.remove(os.path.join(os.path.dirname(home), "filler"))
        con.share("after-full")
        assert swingdb.attach("after-full").sql("SELECT sum(x) FROM t").fetchall() == [(sum(range(1000000)),)]
    """
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SWINGDB_RUNTIME_DIR": os.path.join(mount, "home")},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_pipeline_example_with_five_processes():
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "pipeline.py"), "--rows", "200000"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pipeline of 5 processes done" in proc.stdout
    pids = {line.split("(pid ")[1].split(")")[0] for line in proc.stdout.splitlines() if "(pid " in line}
    assert len(pids) == 5 and str(os.getpid()) not in pids, proc.stdout
