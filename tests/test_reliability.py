"""Regression tests for the defects of the reliability review (issue 9): each
failed before its fix. Lost commits, collected leases, SQL injection through
names, other users, deep expressions, exceptions outside the DB-API classes,
unchecked manifests, full and read-only disks, and the smaller ones."""

import decimal
import glob
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import time

import pyarrow as pa
import pytest
import swingdb
from conftest import run_python

from stress.manifests import newest_log, records

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting file systems and switching users needs root")


# -- 1. a commit reported successful is never lost --------------------------------


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is installed by `make test`")
def test_slow_publisher_racing_collection_loses_no_commit(db_path):
    """The review's deterministic repro: B's link() is delayed 0.5 s while A
    commits and collects garbage; B's commit must be visible afterwards."""
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE a (x BIGINT)")
    con.sql("CREATE TABLE b (x BIGINT)")
    con.close()
    looper = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import sys, time, swingdb
            con = swingdb.connect(sys.argv[1])
            end = time.time() + 4
            n = 0
            while time.time() < end:
                con.execute("INSERT INTO a VALUES (1)")
                n += 1
            print(n)
        """), db_path],
        stdout=subprocess.PIPE, text=True,
    )
    time.sleep(1.0)
    slow = subprocess.run(
        ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=linkat", "-e", "inject=linkat:delay_enter=500000:when=1",
         sys.executable, "-c", textwrap.dedent("""
            import sys, swingdb
            con = swingdb.connect(sys.argv[1])
            con.execute("INSERT INTO b VALUES (42)")
            print(con.sql("SELECT count(*) FROM b").fetchall()[0][0])
         """), db_path],
        capture_output=True, text=True, timeout=120,
    )
    assert slow.returncode == 0, slow.stderr
    inserted = int(looper.communicate(timeout=120)[0])
    assert slow.stdout.split() == ["1"], "the slow writer sees its own commit"
    con = swingdb.connect(db_path)
    assert con.sql("SELECT count(*), sum(x) FROM b").fetchall() == [(1, 42)]
    assert con.sql("SELECT count(*) FROM a").fetchall() == [(inserted,)]


def test_three_writers_lose_no_commit(db_path):
    con = swingdb.connect(db_path)
    for t in "abc":
        con.sql(f"CREATE TABLE {t} (x BIGINT)")
    con.close()
    code = """
        import sys, swingdb
        con = swingdb.connect(sys.argv[1])
        for i in range(300):
            con.execute(f"INSERT INTO {sys.argv[2]} VALUES (?)", [i])
    """
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), db_path, t]) for t in "abc"]
    for p in procs:
        assert p.wait(timeout=300) == 0
    con = swingdb.connect(db_path)
    for t in "abc":
        assert con.sql(f"SELECT count(*), count(DISTINCT x) FROM {t}").fetchall() == [(300, 300)], t
    assert con.verify()["rows"] == 900


# -- 3. no SQL injection through names ------------------------------------------------


def test_table_names_from_python_are_never_sql(con):
    con.sql("CREATE TABLE victim AS SELECT 1 AS v")
    evil = 'x" AS SELECT 1 AS a; DROP TABLE victim; CREATE TABLE "y'
    data = pa.table({"a": [1, 2, 3]})
    con.create_table(evil, data)
    assert con.insert(evil, data) == 3
    assert con.sql("SELECT v FROM victim").fetchall() == [(1,)]
    assert sorted(con.table_names()) == sorted(["victim", evil])
    assert con.sql('SELECT count(*) FROM "x"" AS SELECT 1 AS a; DROP TABLE victim; CREATE TABLE ""y"').fetchall() == [(6,)]
    with pytest.raises(swingdb.ProgrammingError, match="table 'nope' does not exist"):
        con.insert("nope", data)
    with pytest.raises(swingdb.ProgrammingError, match="already exists"):
        con.create_table(evil, data)


def test_cli_schema_takes_the_name_as_a_value(tmp_path):
    import pexpect

    db = str(tmp_path / "cli.swingdb")
    con = swingdb.connect(db)
    con.sql("CREATE TABLE victim AS SELECT 1 AS v")
    con.close()
    child = pexpect.spawn("swingdb", [db], encoding="utf-8", timeout=30, env={**os.environ, "HOME": str(tmp_path), "TERM": "dumb"})
    child.expect("swingdb> ")
    child.sendline(".schema x' OR '1'='1")
    child.expect("swingdb> ")
    injected = child.before
    child.sendline(".schema victim")
    child.expect("swingdb> ")
    listed = child.before
    child.sendline(".quit")
    child.expect(pexpect.EOF)
    assert '"v" BIGINT' not in injected and "does not exist" in injected, injected
    assert 'CREATE TABLE "victim" (' in listed and '"v" BIGINT' in listed, listed


# -- 4. other local users -------------------------------------------------------------


def _modes(root):
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            found[path] = stat.S_IMODE(os.lstat(path).st_mode)
        found[dirpath] = stat.S_IMODE(os.lstat(dirpath).st_mode)
    return found


def test_databases_are_private_to_their_user(db_path):
    old = os.umask(0o022)
    try:
        # Enough rows for a segment file (a few would be kept in the manifest).
        mem = swingdb.connect()
        mem.sql("CREATE TABLE t AS SELECT value AS a FROM range(10000)")
        disk = swingdb.connect(db_path)
        disk.sql("CREATE TABLE t AS SELECT value AS a FROM range(10000)")
        mem_root = mem._db.path
        for root in (mem_root, db_path):
            modes = _modes(root)
            assert any(p.endswith(".arrow") for p in modes) and any(p.endswith(".lock") for p in modes)
            for path, mode in modes.items():
                expected = 0o700 if os.path.isdir(path) else 0o600
                assert mode == expected, (path, oct(mode))
    finally:
        os.umask(old)


@needs_root  # with a umask that takes the owner's write bit, only root can still write into the 0500 directories
def test_a_stricter_umask_is_respected(db_path):
    old = os.umask(0o277)
    try:
        con = swingdb.connect(db_path)
        con.sql("CREATE TABLE t AS SELECT value AS a FROM range(10000)")
        seg = glob.glob(os.path.join(db_path, "segments", "*.arrow"))[0]
        assert stat.S_IMODE(os.stat(seg).st_mode) == 0o400
        assert con.sql("SELECT sum(a) FROM t").fetchall() == [(49995000,)]
    finally:
        os.umask(old)


@needs_root
def test_another_user_can_neither_read_nor_lock(tmp_path):
    os.chmod(tmp_path, 0o755)  # the parent is open: only swingdb's own modes protect the data
    mem = swingdb.connect()
    mem.sql("CREATE TABLE secret AS SELECT 'hunter2' AS pw")
    disk_path = str(tmp_path / "d.swingdb")
    disk = swingdb.connect(disk_path)
    disk.sql("CREATE TABLE secret AS SELECT 'hunter2' AS pw")
    targets = []
    for root in (mem._db.path, disk_path):
        targets += glob.glob(os.path.join(root, "segments", "*.arrow")) + [os.path.join(root, "gc.lock"), os.path.join(root, "commit.lock")]
    probe = textwrap.dedent("""
        import fcntl, sys
        for path in sys.argv[1:]:
            try:
                with open(path, "rb") as f:
                    fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                print("OPENED", path)
            except OSError as e:
                print("refused", e.errno)
    """)
    # The project's Python lives under /root; the other user runs the system's.
    python = shutil.which("python3", path="/usr/bin:/bin") or pytest.skip("no system python3 for the other user")
    out = subprocess.run(["runuser", "-u", "nobody", "--", python, "-c", probe, *targets], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "OPENED" not in out.stdout and out.stdout.count("refused") == len(targets), out.stdout


def test_a_lock_held_by_someone_else_does_not_block_commits(db_path):
    """A process holding gc.lock (the review's attack) makes garbage collection
    wait, never a commit."""
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (x BIGINT)")
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent("""
            import fcntl, sys, time
            f = open(sys.argv[1], "rb")
            fcntl.flock(f, fcntl.LOCK_SH)
            print("held", flush=True)
            time.sleep(600)
        """), os.path.join(db_path, "gc.lock")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        out = run_python("""
            import sys, swingdb
            con = swingdb.connect(sys.argv[1])
            for i in range(20):
                con.execute("INSERT INTO t VALUES (?)", [i])
            print(con.sql("SELECT count(*) FROM t").fetchall()[0][0])
        """, db_path, timeout=60)
        assert out.stdout.split() == ["20"]
    finally:
        holder.kill()
        holder.wait()


# -- 5. deep expressions ------------------------------------------------------------------


def test_deep_expressions_give_a_clear_error_not_a_crash(con):
    con.sql("CREATE TABLE t AS SELECT value AS i FROM range(100)")
    at_limit = " OR ".join(f"i = {k}" for k in range(998))
    assert con.sql(f"SELECT count(*) FROM t WHERE {at_limit}").fetchall() == [(100,)]
    for sql in (
        "SELECT count(*) FROM t WHERE " + " OR ".join(f"i = {k}" for k in range(9000)),
        "SELECT " + " + ".join(["1"] * 10_000),
        "SELECT " + "(" * 50_000 + "1" + ")" * 50_000,
        "SELECT count(*) FROM t WHERE " + " AND ".join(["i >= 0"] * 300_000),
    ):
        with pytest.raises(swingdb.ProgrammingError, match="nested too deeply"):
            con.sql(sql)
    assert con.sql("SELECT count(*) FROM t").fetchall() == [(100,)]


def test_deep_expressions_in_a_thread_with_a_small_stack():
    out = run_python("""
        import threading, swingdb
        threading.stack_size(512 * 1024)
        con = swingdb.connect()
        con.sql("CREATE TABLE t AS SELECT value AS i FROM range(10)")
        result = []
        def work():
            try:
                con.sql("SELECT count(*) FROM t WHERE " + " OR ".join(f"i = {k}" for k in range(50_000)))
            except swingdb.ProgrammingError as e:
                result.append(str(e))
            result.append(con.sql("SELECT count(*) FROM t WHERE " + " OR ".join(f"i = {k}" for k in range(900))).fetchall())
        t = threading.Thread(target=work)
        t.start(); t.join()
        print(result)
    """)
    assert "nested too deeply" in out.stdout and "[(10,)]" in out.stdout


# -- 6. every error is a DB-API error -------------------------------------------------------


@pytest.mark.parametrize(
    "sql, cls",
    [
        ("SELECT 1/0", swingdb.DataError),
        ("SELECT CAST('x' AS INT)", swingdb.DataError),
        ("SELECT CAST(value AS TINYINT) FROM range(1000)", swingdb.DataError),
    ],
)
def test_errors_while_streaming_are_dbapi_errors(con, sql, cls):
    for fetch in ("fetchall", "arrow", "df", "numpy", "pl", "fetchone"):
        try:
            result = con.sql(sql)
        except cls:
            continue  # failed before streaming: also the right class
        with pytest.raises(cls):
            getattr(result, fetch)()
        with pytest.raises(swingdb.Error):
            con.sql(sql).fetch_record_batch().read_all()


@pytest.mark.skipif(os.geteuid() != 0, reason="making directories of another user needs root")
def test_a_database_directory_another_user_can_change_is_refused(tmp_path):
    # A directory the other user can reach (pytest's own are private to root).
    shared = tempfile.mkdtemp(prefix="swingdb-shared-")
    os.chmod(shared, 0o1777)  # as /tmp: others may add names, not rename ours
    loose, theirs = os.path.join(shared, "loose"), os.path.join(shared, "theirs")
    try:
        for path, mode in ((loose, "0777"), (theirs, "0755")):
            subprocess.run(["runuser", "-u", "nobody", "--", "mkdir", "-m", mode, path], check=True)
        with pytest.raises(swingdb.OperationalError, match=r"loose can be written by other users \(mode 777\)"):
            swingdb.connect(loose)
        with pytest.raises(swingdb.OperationalError, match=r"belongs to another user \(uid 65534\)"):
            swingdb.connect(theirs)
        assert os.listdir(loose) == [] and os.listdir(theirs) == [], "nothing was written into them"
        # A directory of theirs above a database, or one anyone may rename in.
        mine = os.path.join(theirs, "mine")
        os.mkdir(mine)
        with pytest.raises(swingdb.OperationalError, match=r"the directory above it, .*theirs, belongs to another user \(uid 65534\)"):
            swingdb.connect(os.path.join(mine, "db"))
        assert os.listdir(mine) == []
        os.chmod(shared, 0o777)
        with pytest.raises(swingdb.OperationalError, match=r"swingdb-shared-\w+, can be written by other users without the sticky bit"):
            swingdb.connect(os.path.join(shared, "new.swingdb"))
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    # A database of one's own whose manifests directory was opened up to others.
    own = str(tmp_path / "own.swingdb")
    swingdb.connect(own).sql("CREATE TABLE t AS SELECT 1 AS a")
    os.chmod(os.path.join(own, "manifests"), 0o777)
    with pytest.raises(swingdb.OperationalError, match="manifests can be written by other users"):
        swingdb.connect(own)
    os.chmod(os.path.join(own, "manifests"), 0o700)
    assert swingdb.connect(own).sql("SELECT a FROM t").fetchall() == [(1,)]
    # Another user's database that only they can write stays readable.
    os.chown(own, 65534, 65534)
    with pytest.raises(swingdb.OperationalError, match="belongs to another user"):
        swingdb.connect(own)
    assert swingdb.connect(own, read_only=True).sql("SELECT a FROM t").fetchall() == [(1,)]


def test_arguments_of_the_wrong_kind_give_dbapi_errors(con):
    with pytest.raises(swingdb.ProgrammingError, match="must be a str, not NoneType"):
        con.execute(None)
    with pytest.raises(swingdb.ProgrammingError, match="must be a list, tuple or dict, not int"):
        con.execute("SELECT ?", 5)
    with pytest.raises(swingdb.DataError, match="lone surrogate"):
        con.execute("SELECT '\ud800'")
    with pytest.raises(swingdb.DataError, match="a parameter holds the lone surrogate"):
        con.execute("SELECT ?", ["a\udc80b"])
    with pytest.raises(swingdb.ProgrammingError, match="snapshot name must be a str"):
        con.share(None)
    with pytest.raises(swingdb.ProgrammingError, match="snapshot name must be a str"):
        swingdb.attach(None)


def test_api_misuse_gives_dbapi_errors(con):
    with pytest.raises(swingdb.DataError, match="does not fit a DECIMAL"):
        con.execute("SELECT ?", [decimal.Decimal("1E-1000")])
    assert con.execute("SELECT ?", [decimal.Decimal("1.5")]).fetchall() == [(decimal.Decimal("1.5"),)]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(swingdb.ProgrammingError, match="positive integer"):
            con.sql("SELECT 1").fetch_record_batch(bad)
    with pytest.raises(swingdb.ProgrammingError):
        con.sql("SET datafusion.u.batch_size = 1024")
    assert con.execute("SELECT ?", ["a\x00b"]).fetchall() == [("a\x00b",)]
    # A NUL in a column name is fine for Python rows; Arrow's C interface cannot carry it.
    named = con.sql('SELECT 1 AS "a\x00b"')
    assert named.columns == ["a\x00b"] and named.fetchall() == [(1,)]
    with pytest.raises(swingdb.ProgrammingError, match="NUL character"):
        named.arrow()
    con.sql("CREATE TABLE s (x VARCHAR)")
    con.execute("INSERT INTO s VALUES (?)", ["nul\x00inside"])
    assert con.sql("SELECT length(x) FROM s").fetchall() == [(10,)]


# -- 7. manifests are checksummed ---------------------------------------------------------


def test_an_edited_manifest_is_detected(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT CAST(value AS INT) AS i FROM range(10000)")
    assert con.sql("SELECT count(*) FROM t WHERE i > 7000").fetchall() == [(2999,)]
    con.close()
    # The newest version's record in the commit log, edited in place: it is
    # damage, not the log's end (which would silently show the empty version before).
    log = newest_log(db_path)
    data = bytearray(open(log, "rb").read())
    _, start, manifest = records(log)[-1]
    at = start + manifest.index(b'"9999"')
    data[at + 1 : at + 2] = b"6"
    os.chmod(log, 0o600)
    open(log, "wb").write(bytes(data))
    con = swingdb.connect(db_path)
    with pytest.raises(swingdb.CorruptionError, match=r"commit log .*\.log is damaged .*checksum"):
        con.sql("SELECT count(*) FROM t WHERE i > 7000").fetchall()
    with pytest.raises(swingdb.CorruptionError, match="checksum"):
        con.verify()


@pytest.mark.parametrize("record", [10, 38])
def test_a_flipped_bit_in_an_old_commit_record_is_reported_not_taken_for_the_end(db_path, record):
    """Issue 71's repro: 40 single-row commits, then 256 added to the length
    of record 10 (or 38) of the commit log. It looked unfinished: the
    database opened showing 9 rows, verify() passed, and the next commit
    began a new log over the 31 acknowledged commits after it."""
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (x INTEGER)")
    for i in range(40):
        con.execute("INSERT INTO t VALUES (?)", [i])
    con.close()
    log = newest_log(db_path)
    data = bytearray(open(log, "rb").read())
    assert len(records(log)) >= 41
    header = 16  # the log's own header, then records of a 24-byte header and a payload of its first field's length
    for _ in range(record):
        header += 24 + struct.unpack_from("<I", data, header)[0]
    data[header + 1] ^= 1  # the length's second byte: + 256
    open(log, "wb").write(bytes(data))
    con = swingdb.connect(db_path)
    with pytest.raises(swingdb.CorruptionError, match=r"commit log .*\.log is damaged at byte \d+"):
        con.sql("SELECT count(*) FROM t").fetchall()
    with pytest.raises(swingdb.CorruptionError, match="damaged"):
        con.verify()
    with pytest.raises(swingdb.CorruptionError):
        con.execute("INSERT INTO t VALUES (100)")
    con.close()
    # The error's way out: read-only with recover, the versions before the
    # damage (CREATE TABLE and `record - 1` inserts) open, to export them.
    with pytest.raises(swingdb.CorruptionError, match=r"read_only=True, recover=True"):
        swingdb.connect(db_path).sql("SELECT 1 FROM t").fetchall()
    with pytest.raises(swingdb.ProgrammingError, match="open it read-only"):
        swingdb.connect(db_path, recover=True)
    salvaged = swingdb.connect(db_path, read_only=True, recover=True)
    assert salvaged.sql("SELECT count(*) FROM t").fetchall() == [(record - 1,)]
    salvaged.close()
    # Nothing was written over the damage: mended, every commit is there.
    data[header + 1] ^= 1
    open(log, "wb").write(bytes(data))
    assert swingdb.connect(db_path).sql("SELECT count(*), sum(x) FROM t").fetchall() == [(40, 780)]


def test_a_segment_truncated_under_an_array_handed_to_numpy_is_named_before_the_process_dies(db_path):
    """Issue 71: arrays handed to numpy are windows into the segment files;
    one truncated by another program under them cannot be read (the bytes
    are gone). The process dies of SIGBUS, as it must rather than read
    made-up values, but first says which file and byte failed, and why."""
    script = textwrap.dedent("""
        import glob, os, sys, swingdb
        con = swingdb.connect(sys.argv[1])
        con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000000)")
        x = con.sql("SELECT x FROM t").numpy()["x"]
        (segment,) = glob.glob(os.path.join(sys.argv[1], "segments", "*"))
        print(segment, int(x[-1]), flush=True)
        os.truncate(segment, 4096)
        print(int(x.sum()), flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script, db_path], capture_output=True, text=True, timeout=120)
    segment, last = out.stdout.split("\n")[0].split()
    assert last == "999999"
    assert out.returncode == -signal.SIGBUS, f"exit {out.returncode}: {out.stdout}{out.stderr}"
    assert f"swingdb: the segment file {segment} was changed while this process had it mapped" in out.stderr, out.stderr
    assert re.search(r"reading its byte \d+ failed \(SIGBUS\)", out.stderr), out.stderr


def test_a_segment_shortened_under_a_live_connection_is_an_error_not_a_signal(db_path):
    """Issue 71: a query, then the second of four segment files truncated
    (as a backup, sync or cleanup tool might), then the query again on the
    same connection: the process died of SIGBUS. It must raise
    CorruptionError naming the file, and stay alive."""
    script = textwrap.dedent("""
        import glob, os, sys, swingdb
        con = swingdb.connect(sys.argv[1])
        con.sql("CREATE TABLE t (x BIGINT)")
        for i in range(4):
            con.sql(f"INSERT INTO t SELECT value FROM range({i * 100000}, {(i + 1) * 100000})")
        query = "SELECT count(*), sum(x) FROM t"
        print(con.sql(query).fetchall(), flush=True)
        files = sorted(glob.glob(os.path.join(sys.argv[1], "segments", "*")), key=os.path.getmtime)
        assert len(files) == 4, files
        os.truncate(files[1], 4096)
        try:
            con.sql(query).fetchall()
        except swingdb.CorruptionError as e:
            assert os.path.basename(files[1]) in str(e), e
            print("CorruptionError:", e, flush=True)
        again = None
        try:
            con.sql(query).fetchall()
        except swingdb.CorruptionError:
            again = "again"
        print(again, "alive", flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script, db_path], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stdout}{out.stderr}"
    assert "[(400000, 79999800000)]" in out.stdout
    assert "CorruptionError: segment" in out.stdout and "was shortened" in out.stdout, out.stdout
    assert "again alive" in out.stdout, out.stdout


# -- 8. full and read-only disks ---------------------------------------------------------------


def _fill(mount, leave_bytes):
    filler = os.path.join(mount, "filler")
    with open(filler, "wb") as f:
        chunk = b"\0" * (1 << 20)
        while True:
            free = shutil.disk_usage(mount).free
            if free <= leave_bytes:
                break
            try:
                f.write(chunk[: max(4096, min(len(chunk), free - leave_bytes))])
                f.flush()
            except OSError:
                break
    return filler


def test_full_disk_readers_work_writers_get_clear_errors_small_writes_skip_compaction(small_disk):
    db = os.path.join(small_disk, "d.swingdb")
    con = swingdb.connect(db)
    con.sql("CREATE TABLE t (x BIGINT)")
    for _ in range(9):  # nine small segments: the next commit would compact them
        con.execute("INSERT INTO t SELECT value FROM range(400000)")
    con.close()
    filler = _fill(small_disk, 256 * 1024)
    ro = swingdb.connect(db, read_only=True)
    assert ro.sql("SELECT count(*) FROM t").fetchall() == [(3_600_000,)]
    rw = swingdb.connect(db)
    assert rw.sql("SELECT count(*) FROM t").fetchall() == [(3_600_000,)]
    # A one-row insert fits; compacting 29 MB of small segments would not, so it is skipped.
    rw.execute("INSERT INTO t VALUES (-1)")
    assert rw.sql("SELECT count(*) FROM t").fetchall() == [(3_600_001,)]
    _fill(small_disk, 0)
    with pytest.raises(swingdb.OperationalError, match=r"(segment|manifest|lease) .*d\.swingdb.*No space left"):
        rw.execute("INSERT INTO t SELECT value FROM range(1000000)")
    assert rw.sql("SELECT count(*) FROM t").fetchall() == [(3_600_001,)]
    os.remove(filler)
    rw.execute("INSERT INTO t VALUES (-2)")
    assert rw.sql("SELECT count(*) FROM t").fetchall() == [(3_600_002,)]
    assert rw.verify()["rows"] == 3_600_002


def test_read_only_media(small_disk):
    db = os.path.join(small_disk, "d.swingdb")
    con = swingdb.connect(db)
    con.sql("CREATE TABLE t AS SELECT value AS x FROM range(1000)")
    con.close()
    subprocess.run(["mount", "-o", "remount,ro", small_disk], check=True)
    for read_only in (True, False):
        c = swingdb.connect(db, read_only=read_only)
        assert c.sql("SELECT sum(x) FROM t").fetchall() == [(499500,)]
        assert c.verify()["rows"] == 1000
        with pytest.raises(swingdb.OperationalError, match="(?i)read-only"):
            c.execute("INSERT INTO t VALUES (1)")
        c.close()


# -- 9. smaller ones ------------------------------------------------------------------------------


def test_commit_and_rollback_on_a_closed_connection_raise(con):
    con.close()
    for method in (con.commit, con.rollback):
        with pytest.raises(swingdb.ProgrammingError, match="closed"):
            method()


def test_empty_table_names_are_refused(con):
    with pytest.raises(swingdb.ProgrammingError, match="empty"):
        con.sql('CREATE TABLE "" (a INT)')
    with pytest.raises(swingdb.ProgrammingError, match="empty"):
        con.create_table("", pa.table({"a": [1]}))
    assert con.table_names() == []


def test_huge_select_lists_get_a_clear_error_not_a_hang(con):
    """100,000 parameters hung in planning (DataFusion plans a select list in
    quadratic time); past 10,000 items the error says what to do instead."""
    n = 100_000
    with pytest.raises(swingdb.ProgrammingError, match="100000 items"):
        con.execute("SELECT " + ", ".join("?" for _ in range(n)), list(range(n)))
    row = con.execute("SELECT " + ", ".join("?" for _ in range(2000)), list(range(2000))).fetchall()[0]
    assert row[0] == 0 and row[-1] == 1999


# -- 10. external access can be switched off ---------------------------------------------------------


def test_external_access_off_refuses_files(tmp_path):
    csv = tmp_path / "data.csv"
    csv.write_text("a\n1\n2\n")
    con = swingdb.connect(external_access=False)
    con.sql("CREATE TABLE t (a BIGINT)")
    for sql in (
        f"COPY t FROM '{csv}'",
        f"COPY t TO '{tmp_path / 'out.csv'}'",
        f"COPY (SELECT 1) TO '{tmp_path / 'out.parquet'}'",
        f"SELECT * FROM read_csv('{csv}')",
    ):
        with pytest.raises(swingdb.ProgrammingError, match="external access is disabled"):
            con.sql(sql)
    with pytest.raises(swingdb.ProgrammingError, match="external access is disabled"):
        con.sql(f"SELECT * FROM '{csv}'")
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "out.parquet").exists()
    df = pa.table({"a": [5]})  # noqa: F841 (the query reads it by name)
    assert con.sql("SELECT a FROM df").fetchall() == [(5,)]  # in-process data stays usable
    open_con = swingdb.connect()
    assert open_con.sql(f"SELECT count(*) FROM '{csv}'").fetchall() == [(2,)]
