"""The torture scenarios. Each runs for a time budget and returns a `Tally`:
trials, failures and the worst finding."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field

from . import damage, fuzz, hostile, others, peers, records, workers


@dataclass
class Tally:
    """What one scenario did and found."""

    name: str
    unit: str
    trials: int = 0
    failures: int = 0
    findings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    extra: str = ""
    counts: dict = field(default_factory=dict)

    def notes(self) -> str:
        """The extra note and the counts, as one line."""
        parts = [self.extra] if self.extra else []
        parts += [f"{v:,} {k}" for k, v in self.counts.items()]
        return "; ".join(parts)

    def fail(self, what: str) -> None:
        self.failures += 1
        if len(self.findings) < 20:
            self.findings.append(what)


def _check(db: str, writers: int, logs: list[str], tally: Tally, *, all_committed: bool) -> None:
    """After the writers ended (killed or not): the state is exactly one each
    writer logged, every reported commit is there, the accounts still balance."""
    try:
        st = workers.state(db, writers)
    except Exception as e:  # noqa: BLE001 - the finding is the message
        tally.fail(f"verify/state failed: {e}")
        return
    if st["acct"] != workers.TOTAL:
        tally.fail(f"accounts sum to {st['acct']}, not {workers.TOTAL}: a partial transaction")
    for wid, log in enumerate(logs):
        seen = workers.WriterLog(log)
        fp = st["fingerprints"][str(wid)]
        if fp not in seen.allowed:
            tally.fail(f"writer {wid}: database shows {fp}, the log allows only {sorted(seen.allowed)}")
        events = set(st["events"][str(wid)])
        lost = seen.committed - events if all_committed else set()
        if lost:
            tally.fail(f"writer {wid}: committed transactions {sorted(lost)[:5]} are lost")
        extra = events - seen.maybe
        if extra:
            tally.fail(f"writer {wid}: transactions {sorted(extra)[:5]} appear that never reached COMMIT")


def crash(budget: float, work: str, rng: random.Random) -> Tally:
    """kill -9 at random moments and aborts at every failpoint, mixed workloads."""
    tally = Tally("crash loop (kill -9 and abort at failpoints)", "kills")
    start = time.time()
    db = os.path.join(work, "crash.swingdb")
    writers = 3
    workers.setup(db, writers)
    logs = [os.path.join(work, f"crash-w{w}.log") for w in range(writers)]
    trial = 0
    points = workers.failpoints()
    while time.time() - start < budget:
        trial += 1
        n = rng.randint(1, writers)
        point = rng.choice(points) if rng.random() < 0.5 else None
        # Abort at the point for some writers; the others are killed from outside.
        procs = []
        for w in range(n):
            fps = f"{point}={rng.randint(5, 40)}%abort" if point and w == 0 else ""
            procs.append(workers.writer(db, logs[w], w, rng.getrandbits(63), 1_000_000, fps))
        time.sleep(rng.uniform(0.02, 0.4))
        _kill_writers(procs, tally, (-signal.SIGKILL, -signal.SIGABRT), f"trial {trial}: ")
        tally.trials += n
        _check(db, writers, logs, tally, all_committed=True)
        if trial % 200 == 0:  # keep the logs and the database from growing without end
            tally.counts["commits"] = tally.counts.get("commits", 0) + sum(len(workers.WriterLog(log).committed) for log in logs)
            shutil.rmtree(db)
            for log in logs:
                os.remove(log) if os.path.exists(log) else None
            workers.setup(db, writers)
    tally.counts["commits"] = tally.counts.get("commits", 0) + sum(len(workers.WriterLog(log).committed) for log in logs)
    tally.seconds = time.time() - start
    return tally


def _kill_writers(procs: list[subprocess.Popen], tally: Tally, expected: tuple[int, ...], label: str = "") -> None:
    """SIGKILLs the writers still running and reaps them all; a writer that
    ended any other way than `expected` is a finding (with its stderr)."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
    for p in procs:
        p.wait()
        if p.returncode not in expected:
            err = p.stderr.read().decode(errors="replace").strip()
            tally.fail(f"{label}a writer exited with {p.returncode}: {err[-300:]}")
        p.stderr.close()


def concurrency(budget: float, work: str, rng: random.Random, writers: int = 4, readers: int = 4) -> Tally:
    """N writers (shared and own tables) + M readers with failpoint delays."""
    tally = Tally(f"concurrency ({writers} writers + {readers} readers, failpoint delays)", "commits")
    start = time.time()
    db = os.path.join(work, "conc.swingdb")
    workers.setup(db, writers)
    logs = [os.path.join(work, f"conc-w{w}.log") for w in range(writers)]
    delays = _delays(
        [(p, pct, f"delay({ms})") for p, pct, ms in [
            ("lease.after_create", 50, 20),
            ("commit.after_lock", 10, 5),
            ("publish.before_link", 10, 20),
            ("publish.after_link", 10, 5),
            ("gc.after_lock", 20, 10),
            ("gc.before_unlink", 10, 5),
            ("pin.after_read_latest", 10, 5),
            ("segment.after_write", 5, 10),
        ]]
    )
    seconds = max(1.0, budget - 5)
    procs = [workers.writer(db, logs[w], w, rng.getrandbits(63), 1_000_000, delays) for w in range(writers)]
    reads = [workers.reader(db, seconds, writers, delays) for _ in range(readers)]
    peak_files = 0
    while time.time() - start < seconds:
        time.sleep(0.5)
        peak_files = max(peak_files, len(os.listdir(os.path.join(db, "segments"))))
    for r in reads:
        out, err = r.communicate(timeout=300)
        if r.returncode != 0:
            tally.fail(f"reader: {err.strip()[-300:]}")
    for p in procs:
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stderr.close()
    _check(db, writers, logs, tally, all_committed=True)
    commits = sum(len(workers.WriterLog(log).committed) for log in logs)
    tally.trials = commits
    files = len(os.listdir(os.path.join(db, "segments")))
    tally.extra = f"peak {peak_files} segment files, {files} after the final collection"
    tally.seconds = time.time() - start
    return tally


def faults(budget: float, work: str, rng: random.Random) -> Tally:
    """A full disk (small tmpfs) and read-only media: writes fail with an
    OperationalError naming the file, reads keep working, nothing is lost."""
    tally = Tally("faults (ENOSPC on a 32 MiB tmpfs, read-only remount)", "rounds")
    start = time.time()
    if os.geteuid() != 0:
        tally.extra = "skipped: needs root to mount"
        return tally
    mount = os.path.join(work, "mnt")
    os.makedirs(mount, exist_ok=True)
    code = textwrap.dedent("""
        import os, sys, swingdb
        db, phase = sys.argv[1], sys.argv[2]
        con = swingdb.connect(db, read_only=(phase == "ro"))
        if phase == "fill":
            con.sql("CREATE TABLE IF NOT EXISTS t (x BIGINT)")
            ok = 0
            while True:
                try:
                    con.execute("INSERT INTO t SELECT value FROM range(200000)")
                    ok += 1
                except swingdb.OperationalError as e:
                    assert "No space left" in str(e) and ".swingdb" in str(e), str(e)
                    break
            print(ok * 200000)
        n = con.sql("SELECT count(*) FROM t").fetchall()[0][0]
        assert con.verify()["rows"] == n
        print(n)
    """)
    while time.time() - start < budget:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", mount], check=True)
        try:
            db = os.path.join(mount, "d.swingdb")
            fill = subprocess.run([sys.executable, "-c", code, db, "fill"], capture_output=True, text=True, timeout=300)
            if fill.returncode != 0:
                tally.fail(f"full disk: exit {fill.returncode}: {fill.stdout.strip()[-200:]} {fill.stderr.strip()[-300:]}")
                continue
            stored, counted = fill.stdout.split()
            if stored != counted:
                tally.fail(f"full disk: {stored} rows committed, {counted} readable")
            for media in ("a full disk", "read-only media"):
                if media == "read-only media":
                    subprocess.run(["mount", "-o", "remount,ro", mount], check=True)
                for phase in ("read", "ro"):  # a read-write handle, then a read-only one
                    r = subprocess.run([sys.executable, "-c", code, db, phase], capture_output=True, text=True, timeout=300)
                    if r.returncode != 0 or r.stdout.split() != [stored]:
                        tally.fail(f"{phase} on {media}: exit {r.returncode}: {r.stdout.strip()[-200:]} {r.stderr.strip()[-300:]}")
            tally.trials += 1
        finally:
            subprocess.run(["umount", "-l", mount], check=False)
    tally.seconds = time.time() - start
    return tally


def share(budget: float, work: str, rng: random.Random, sharers: int = 4) -> Tally:
    """Processes sharing, attaching, discarding and closing snapshots under a
    few names at once, with failpoint delays and aborts, some killed with
    SIGKILL: every attach sees a whole snapshot, held copies stay whole, and
    once everyone is gone a sweep leaves nothing but persisted, named snapshots."""
    tally = Tally(f"share ({sharers} processes on 4 names, failpoints, kill -9)", "operations")
    start = time.time()
    runtime = os.path.join(work, "runtime")
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    delays = _delays(
        [
            ("share.before_name", 20, "delay(20)"),
            ("attach.after_lock", 20, "delay(20)"),
            ("attach.before_publish", 10, "delay(10)"),
            ("sweep.before_remove", 20, "delay(10)"),
            ("lease.after_create", 10, "delay(5)"),
        ]
    )
    aborts = ["share.before_name", "attach.after_lock", "attach.before_publish", "sweep.before_remove"]

    def spawn(sid: int) -> subprocess.Popen:
        fps = delays + (f";{rng.choice(aborts)}=5%abort" if rng.random() < 0.3 else "")
        return workers.sharer(runtime, sid, rng.getrandbits(63), rng.uniform(0.5, 3.0), 4, fps)

    _churn(budget, start, rng, tally, sharers, spawn)
    # Everyone is gone: what is left must be persisted and named, and nothing else.
    try:
        names = workers.sweep(runtime)
        linked = {os.path.realpath(os.path.join(runtime, "names", n)) for n in os.listdir(os.path.join(runtime, "names"))}
        for kind in ("snapshots", "scratch"):
            for d in os.listdir(os.path.join(runtime, kind)) if os.path.isdir(os.path.join(runtime, kind)) else []:
                path = os.path.realpath(os.path.join(runtime, kind, d))
                if kind == "scratch" or path not in linked:
                    tally.fail(f"left behind after every process ended: {kind}/{d}")
        tally.extra = f"{len(names)} persisted snapshots left, as they should"
    except Exception as e:  # noqa: BLE001 - the finding is the message
        tally.fail(f"final sweep failed: {e}")
    shutil.rmtree(runtime, ignore_errors=True)
    tally.seconds = time.time() - start
    return tally


def pipes(budget: float, work: str, rng: random.Random, pipers: int = 4) -> Tally:
    """Processes exporting and importing through a few pipe names at once
    (stored tables handed over, queries streamed with random workers,
    compression and checksums), with failpoint delays and aborts, some killed
    with SIGKILL: every import that succeeds holds one whole export, every one
    that fails leaves its table as it was, and once everyone is gone nothing is
    left at the rendezvous or in the runtime home."""
    tally = Tally(f"pipes ({pipers} processes on 2 names, failpoints, kill -9)", "operations")
    start = time.time()
    runtime = os.path.join(work, "runtime-pipes")
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    delays = _delays(
        [
            ("pipe.after_connect", 20, "delay(20)"),
            ("pipe.waiting", 20, "delay(10)"),
            ("pipe.export.after_hello", 10, "delay(20)"),
            ("pipe.export.before_sent", 10, "delay(20)"),
            ("pipe.import.after_link", 20, "delay(20)"),
            ("pipe.import.before_done", 10, "delay(20)"),
        ]
    )
    aborts = ["pipe.after_connect", "pipe.waiting", "pipe.export.after_hello", "pipe.export.before_sent", "pipe.import.after_link", "pipe.import.before_done"]

    def spawn(pid: int) -> subprocess.Popen:
        roll = rng.random()
        extra = f";{rng.choice(aborts)}=5%abort" if roll < 0.3 else f";{rng.choice(aborts)}=5%error" if roll < 0.6 else ""
        return workers.piper(runtime, pid, rng.getrandbits(63), rng.uniform(0.5, 3.0), 2, delays + extra)

    _churn(budget, start, rng, tally, pipers, spawn)
    try:
        left = workers.pipesweep(runtime)
        if left:
            tally.fail(f"still waiting at the rendezvous after every process ended: {left}")
        pipes_dir = os.path.join(runtime, "pipes")
        extra = sorted(set(os.listdir(pipes_dir)) - {"rendezvous.lock"}) if os.path.isdir(pipes_dir) else []
        if extra:
            tally.fail(f"left in the rendezvous directory: {extra}")
        workers.sweep(runtime)  # in-memory databases of killed processes
        scratch_dir = os.path.join(runtime, "scratch")
        if os.path.isdir(scratch_dir) and os.listdir(scratch_dir):
            tally.fail(f"private databases left behind: {os.listdir(scratch_dir)}")
    except Exception as e:  # noqa: BLE001 - the finding is the message
        tally.fail(f"final sweep failed: {e}")
    shutil.rmtree(runtime, ignore_errors=True)
    tally.seconds = time.time() - start
    return tally


def keyed(budget: float, work: str, rng: random.Random, writers: int = 3) -> Tally:
    """Writers racing on keys, identities and FOREIGN KEYs, killed at random (see stress/keyed.py)."""
    tally = Tally("keys under kill -9 (PRIMARY KEY, UNIQUE, key runs, identity, FOREIGN KEY)", "kills")
    start = time.time()
    db = os.path.join(work, "keyed.swingdb")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "stress.keyed", *args], capture_output=True, text=True, timeout=300, cwd=_ROOT)

    setup = run("setup", db)
    if setup.returncode != 0:
        tally.fail(f"setup failed: {setup.stderr[-300:]}")
        return tally
    logs: list[str] = []
    while time.time() - start < budget:
        procs = []
        for _ in range(rng.randint(1, writers)):
            log = os.path.join(work, f"keyed-w{len(logs)}.log")
            logs.append(log)
            cmd = [sys.executable, "-m", "stress.keyed", "writer", db, log, str(len(logs) - 1), str(rng.getrandbits(63))]
            procs.append(subprocess.Popen(cmd, stderr=subprocess.PIPE, cwd=_ROOT))
        time.sleep(rng.uniform(0.5, 2.5))
        _kill_writers(procs, tally, (-signal.SIGKILL,))
        tally.trials += len(procs)
        checked = run("check", db, *logs)
        if checked.returncode != 0:
            tally.fail(f"check failed: {checked.stderr[-300:]}")
        for finding in checked.stdout.splitlines():
            tally.fail(finding)
    # A writer killed while it was still starting (a loaded machine) never
    # opened its log: it committed nothing.
    tally.counts["transactions committed"] = sum(line == "done" for log in logs if os.path.exists(log) for line in open(log).read().splitlines())
    keys = os.path.join(db, "keys")
    tally.counts["key runs saved at the end"] = len(os.listdir(keys)) if os.path.isdir(keys) else 0
    tally.seconds = time.time() - start
    return tally


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _delays(points: list[tuple[str, int, str]]) -> str:
    """`SWINGDB_FAILPOINTS` for (failpoint, percent, action) triples."""
    return ";".join(f"{p}={pct}%{action}" for p, pct, action in points)


def _churn(budget: float, start: float, rng: random.Random, tally: Tally, count: int, spawn) -> None:
    """Keeps `count` workers running (`spawn(i)` starts worker i again when it
    ends) until the budget is nearly spent, killing a random one with SIGKILL
    now and then; then waits for all and collects what each reported."""
    procs = {}
    while time.time() - start < budget - 2:
        for i in range(count):
            p = procs.get(i)
            if p is not None and p.poll() is None:
                continue
            if p is not None:
                _collect_worker(p, tally)
            procs[i] = spawn(i)
        time.sleep(rng.uniform(0.05, 0.5))
        victim = procs[rng.randrange(count)]
        if rng.random() < 0.3 and victim.poll() is None:
            victim.send_signal(signal.SIGKILL)
            tally.counts["kills"] = tally.counts.get("kills", 0) + 1
    for p in procs.values():
        p.wait(timeout=120)
        _collect_worker(p, tally)


def _collect_worker(p: subprocess.Popen, tally: Tally) -> None:
    out, err = p.communicate(timeout=120)
    for line in out.splitlines():
        if line.startswith("ops "):
            tally.trials += int(line.split()[1])
        elif line.startswith("count "):
            _, key, n = line.split()
            tally.counts[key] = tally.counts.get(key, 0) + int(n)
        elif line.startswith("FAIL"):
            tally.fail(line)
    if p.returncode not in (0, -signal.SIGKILL, -signal.SIGABRT) and not any(line.startswith("FAIL") for line in out.splitlines()):
        tally.fail(f"a worker exited with {p.returncode}: {err.strip()[-300:]}")


def _fuzzing(name: str, unit: str, run):
    """A scenario that runs `run(budget, work, rng, tally)` from the fuzz module."""

    def scenario(budget: float, work: str, rng: random.Random) -> Tally:
        tally = Tally(name, unit)
        start = time.time()
        run(budget, work, rng, tally)
        tally.seconds = time.time() - start
        return tally

    return scenario


fuzz_sql = _fuzzing("fuzz: mutated SQL", "statements", fuzz.run_sql)
fuzz_files = _fuzzing("fuzz: corrupted files (segments, manifests, leases, marker)", "files", fuzz.run_files)
damaged_records = _fuzzing("records: damaged snapshot records, sweeps with 0-6 free descriptors", "sweeps", records.run)
lying_peers = _fuzzing("peers: fake exporters that lie, stall or point outside", "imports", peers.run)
damaged_logs = _fuzzing("logs: a bit flipped in every record of every commit log (1,000 commits)", "flips", damage.run_logs)
truncated_segments = _fuzzing("truncations: segments truncated or overwritten under a live connection", "queries", damage.run_truncations)
hostile_client = _fuzzing("flight: a hostile client that asks and never fetches, abandons transactions, sends garbage", "calls", hostile.run)
other_users = _fuzzing("others: directories another user made, renames or links", "opens", others.run)


def relations(budget: float, work: str, rng: random.Random) -> Tally:
    """Random relation chains on swingdb and DuckDB (tests/test_relation_differential.py),
    as many as fit the budget at about 60 a second (joins and set operations make
    them slower than plain chains), at least 1,000."""
    tally = Tally("relations: random chains against DuckDB's relation API", "chains")
    start = time.time()
    chains = max(1000, int(budget * 60))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "SWINGDB_RELATION_CHAINS": str(chains), "SWINGDB_RELATION_SEED": str(rng.getrandbits(32))}
    test = "tests/test_relation_differential.py::test_random_relation_chains_answer_as_duckdb"
    tally.trials = chains
    try:
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", test], cwd=root, env=env, capture_output=True, text=True, timeout=budget + 600)
    except subprocess.TimeoutExpired:
        tally.fail(f"{chains} chains did not finish within {budget + 600:.0f} s")
    else:
        if out.returncode != 0:
            tally.fail(out.stdout.strip()[-1500:])
    tally.seconds = time.time() - start
    return tally


def differential_answers(budget: float, work: str, rng: random.Random) -> Tally:
    """Random SELECTs on swingdb and DuckDB (stress/answers.py), in a
    subprocess (a crash is a finding too): every mismatch and InternalError,
    minimized, is a failure; statements only swingdb refuses are counted."""
    tally = Tally("answers: random SELECTs against DuckDB", "statements")
    start = time.time()
    repros = os.path.join(work, "repros")
    cmd = [sys.executable, "-m", "stress.answers", "--seconds", str(budget), "--seed", str(rng.getrandbits(32)), "--json", "--repros", repros]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=budget + 600)
    except subprocess.TimeoutExpired:
        tally.fail(f"the fuzzer did not finish within {budget + 600:.0f} s")
        tally.seconds = time.time() - start
        return tally
    if out.returncode < 0 or not out.stdout.strip():
        tally.fail(f"the fuzzer died (exit {out.returncode}): {out.stderr.strip()[-1500:]}")
    else:
        report = json.loads(out.stdout.strip().splitlines()[-1])
        tally.trials = report["statements"]
        for finding in report["internal"] + report["mismatches"]:
            tally.fail(finding["repro"].strip().replace("\n", " / ")[-1500:])
        refused = sum(report["swingdb_errors"].values())
        tally.counts = {"compared": report["compared"], "refused by DuckDB": report["duckdb_errors"], "refused by swingdb only": refused}
    tally.seconds = time.time() - start
    return tally


ALL = {
    "crash": crash, "concurrency": concurrency, "keyed": keyed, "faults": faults, "share": share, "pipes": pipes,
    "records": damaged_records, "logs": damaged_logs, "truncations": truncated_segments, "flight": hostile_client, "peers": lying_peers, "others": other_users, "relations": relations, "answers": differential_answers, "fuzz-sql": fuzz_sql, "fuzz-files": fuzz_files,
}


def scratch() -> str:
    return tempfile.mkdtemp(prefix="swingdb-stress-")
