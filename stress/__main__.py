"""swingdb's torture suite.

    python -m stress --minutes 60                 # every scenario, time split between them
    python -m stress --seconds 40 --only crash    # one scenario
    python -m stress --minutes 90 --report docs/reliability.md
    python -m stress --each crash=25,concurrency=10 --report docs/reliability.md

Scenarios: crash (kill -9 at random moments and aborts at every failpoint,
checked against the writers' fsynced logs), concurrency (4 writers + 4 readers
with failpoint delays), keyed (writers racing on keys, identities and FOREIGN
KEYs, killed with kill -9), faults (a full tmpfs and read-only remounts; needs
root), share (processes sharing, attaching and discarding snapshots under
failpoints and kill -9), pipes (processes exporting and importing through pipes
under failpoints and kill -9), records (damaged snapshot records and sweeps
without free file descriptors), peers (fake pipe exporters that lie, stall or
name files outside their directory), relations (random relation chains against
DuckDB's), answers (random SELECTs whose answers must be DuckDB's, see
stress/answers.py), fuzz-sql (mutated statements), fuzz-files (corrupted files), logs
(a bit flipped in every record of every commit log: never a silent rollback), truncations
(segments truncated or overwritten under a live connection: never a signal), flight (a
hostile Flight SQL client: never INTERNAL, never unbounded memory). Exits 1 if
any scenario found a failure; prints a summary table (and writes it to
--report, with the machine it ran on).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import shutil
import sys

from . import scenarios

#: Share of the time budget each scenario gets.
SHARES = {
    "crash": 0.2, "concurrency": 0.12, "keyed": 0.08, "faults": 0.05, "share": 0.1, "pipes": 0.1, "records": 0.08, "peers": 0.08,
    "others": 0.02, "relations": 0.04, "answers": 0.1, "fuzz-sql": 0.1, "fuzz-files": 0.1, "logs": 0.06, "truncations": 0.04, "flight": 0.04,
}


def table(tallies) -> str:
    rows = ["| scenario | trials | failures | time | worst finding / notes |", "|---|---:|---:|---:|---|"]
    for t in tallies:
        worst = t.findings[0] if t.findings else "none"
        notes = f"{worst}" + (f"; {t.notes()}" if t.notes() else "")
        rows.append(f"| {t.name} | {t.trials:,} {t.unit} | {t.failures} | {t.seconds:.0f} s | {notes.replace('|', '/')} |")
    return "\n".join(rows)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Linux {platform.release()}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stress", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--minutes", type=float)
    length.add_argument("--seconds", type=float)
    length.add_argument("--each", help="minutes per scenario, e.g. crash=25,fuzz-sql=8 (runs just those)")
    parser.add_argument("--only", default=",".join(SHARES), help="comma-separated scenarios")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--report", help="write the summary to this Markdown file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    total = args.seconds if args.seconds else (args.minutes or 10) * 60
    chosen = [s for s in args.only.split(",") if s]
    budgets = {}
    if args.each:
        budgets = {k: float(v) * 60 for k, v in (item.split("=") for item in args.each.split(","))}
        chosen = list(budgets)
        total = sum(budgets.values())
    unknown = [s for s in chosen if s not in scenarios.ALL]
    if unknown:
        parser.error(f"unknown scenario(s) {unknown}; choose from {list(scenarios.ALL)}")
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    share = sum(SHARES[s] for s in chosen)
    work = scenarios.scratch()
    print(f"stress: seed {seed}, {total:.0f} s, scratch {work}", flush=True)
    tallies = []
    try:
        for name in chosen:
            budget = budgets.get(name, total * SHARES[name] / share)
            rng = random.Random(f"{seed}-{name}")
            sub = os.path.join(work, name)
            os.makedirs(sub)
            print(f"stress: {name} for {budget:.0f} s ...", flush=True)
            tally = scenarios.ALL[name](budget, sub, rng)
            print(f"stress: {name}: {tally.trials} {tally.unit}, {tally.failures} failures; {tally.notes()}", flush=True)
            for finding in tally.findings[:5]:
                print(f"    {finding}", flush=True)
            tallies.append(tally)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    summary = table(tallies)
    print(summary)
    if args.report:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(args.report, "w") as f:
            f.write(REPORT.format(stamp=stamp, machine=machine(), total=total / 60, seed=seed, table=summary, cmd=" ".join(sys.argv)))
    return 1 if any(t.failures for t in tallies) else 0


REPORT = """# Reliability: the torture suite

What `python -m stress` (also `make stress`) found in its last published run.
Run on {machine}, {stamp}, {total:.0f} minutes, seed {seed}:
`{cmd}`.

{table}

## What each scenario does

- **crash loop**: 1-3 writer processes (`swingdb-stress`, built with failpoints) run random
  transactions (bulk and single-row INSERT, UPDATE, DELETE, CREATE OR REPLACE TABLE AS,
  DROP, transfers between shared accounts, several statements per explicit transaction) and
  log, fsynced, the state each transaction leads to before its COMMIT and after it returns.
  They are killed with SIGKILL at a random moment, or abort themselves at a failpoint of the
  commit, publish, GC, lease and compaction paths. After every kill the database is
  verified (manifest and segment checksums) and each writer's tables must show exactly the
  last state it logged as committed, or the one it was committing: no lost, partial or
  resurrected transaction; the shared accounts must still balance.
- **concurrency**: 4 writers and 4 readers with random delays at every failpoint. Readers
  check in every snapshot that the shared accounts balance and that snapshots never go back
  in time; at the end every transaction a writer reported committed must be there.
- **keyed**: 1-3 writer processes race on one database: parents inserted and deleted by
  key, children numbered by an identity column and referencing them, blocks of 9,000 rows
  (large enough for persisted key runs) that collide whole or not at all; each is killed
  with SIGKILL at a random moment. After each round: no duplicate key in any table, no
  child without its parent, no partial block, every block and child a writer's fsynced
  log saw committed is there, and a fresh connection refuses an existing key of each table.
- **faults**: a 32 MiB tmpfs is filled by a writer until ENOSPC (the error must be an
  OperationalError naming the file); then readers (read-only and read-write handles) must
  read everything committed, also after the file system is remounted read-only.
- **records**: four persisted snapshots (their publisher gone: the snapshots hold the only
  copy) get records bit-flipped, truncated, emptied, removed, replaced by a directory or by
  junk; then listings, attaches, shares, discards and a commit run in processes left 0-6
  free file descriptors. No snapshot directory may vanish before its discard, intact
  snapshots must attach with all their rows, damaged ones must be listed as damaged and
  refused by attach, a listing must answer in full or fail with an error, and every commit
  reported must be in the (verified) database.
- **peers**: a fake exporter speaks the pipe protocol and lies: false statistics, row
  counts, sizes and checksums, names outside its directory, a symbolic link, a FIFO, junk,
  another column type or protocol, no hello, a frame that never ends, garbage. Each import
  (`?timeout=2`) must store exactly the rows with right answers, or fail with a
  `swingdb.Error` and store nothing, within 30 s.
- **others** (as root): another user (`nobody`) makes the directory a database is then
  opened in, owns or opens up a directory above one, squats the runtime home before its
  owner comes, or turns a subdirectory of its database into a symbolic link. Each open must
  be refused with an OperationalError naming that directory, nothing may be written into
  what the other user controls, and the victim's own database keeps every row.
- **relations**: random chains of filter, project, order, limit and aggregate on swingdb's
  relation API and DuckDB's, the same answers where both answer.
- **answers**: the differential SQL fuzzer (`stress/answers.py`): random SELECTs from a typed
  grammar (joins of every kind, EXISTS / IN / NOT IN and correlated subqueries, GROUP BY /
  HAVING, DISTINCT aggregates, windows, CASE / COALESCE / NULLIF, casts, string and date
  functions, set operations with ALL, CTEs, ORDER BY / LIMIT) over four tables holding NULLs,
  duplicates, '', -0.0, NaN, infinities, extreme integers, decimals, dates and non-ASCII text,
  run on swingdb and DuckDB; each different answer (and each InternalError) is minimized,
  statement and data, and written out as a repro.
- **fuzz-sql**: seed statements of every kind, mutated (tokens dropped, repeated, swapped,
  long operator chains and deep nesting, NUL and non-ASCII characters, huge numbers), run
  through the Python package in subprocesses: a subprocess that dies is a crash, an
  exception that is not a `swingdb.Error` a finding.
- **fuzz-files**: a database whose segment, manifest, marker or lock files are bit-flipped,
  truncated, extended, overwritten, edited or emptied, then opened, queried, verified and
  written to in subprocesses, counted the same way.
- **logs**: a database of 1,000 single-row commits whose commit logs get one bit flipped in
  each header field, and one payload byte zeroed, of every record of every log, then at
  random: opening must give every row or CorruptionError, a commit must not succeed over
  the damage, and read-only recover must read the versions before it. A smaller count
  without an error is a silent rollback, a failure.
- **truncations**: a live read-only connection queries a table of six segments while the
  files are truncated or overwritten in place between queries: an answer in full or
  CorruptionError naming the file, never a signal (overwritten bytes of columns already
  checked read as they now are: counted as DIFFERENT, not failed).
- **flight**: `swingdb serve` over a 2M-row table; one client (with the token) asks for
  sorts it never fetches, begins transactions and prepared statements it abandons and sends
  garbage, while an honest client on its own connection queries every ten calls. No call
  may be answered INTERNAL or with Rust debug text, a refusal must name its limit, the
  honest client is never refused, and the server's memory grows by less than 1 GiB.
"""


if __name__ == "__main__":
    sys.exit(main())
