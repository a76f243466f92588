"""The SWING pipeline (the seed's Figures 1 and 3) with five real processes.

    A  loads sensor readings, shares them as  readings     \\
    B  loads sensor metadata, shares it as    sensors       >  C attaches both, joins and
                                                           /   annotates, shares  annotated
    D  attaches annotated, drops the faulty rows of its copy, computes per-site means
    E  attaches annotated, rescales its copy to Fahrenheit, computes the hottest site

No process copies a table: every attach links and maps the publisher's files.
Each stage changes its own copy only; the script checks that.

    python examples/pipeline.py --rows 1000000
"""

import argparse
import multiprocessing as mp
import os
import time

import swingdb


def stage_a(rows, ready, done):
    con = swingdb.connect()
    con.sql(
        "CREATE TABLE readings AS SELECT value AS id, value % 100 AS sensor, "
        f"20.0 + (value % 17) * 0.5 AS celsius FROM range({int(rows)})"
    )
    con.share("pipeline-readings")
    ready.put(("A", os.getpid(), rows))
    done.wait()  # the snapshot lives as long as its publisher: until C has attached it


def stage_b(ready, done):
    con = swingdb.connect()
    con.sql(
        "CREATE TABLE sensors AS SELECT value AS sensor, 'site-' || CAST(value % 7 AS VARCHAR) AS site, "
        "value % 10 = 3 AS faulty FROM range(100)"
    )
    con.share("pipeline-sensors")
    ready.put(("B", os.getpid(), 100))
    done.wait()


def stage_c(ready, done):
    con = swingdb.attach("pipeline-readings")
    con.sql("ATTACH SNAPSHOT 'pipeline-sensors' AS meta")
    con.sql(
        "CREATE TABLE annotated AS SELECT r.id, r.celsius, s.site, s.faulty "
        "FROM readings r JOIN meta.sensors s USING (sensor)"
    )
    con.sql("DROP TABLE readings")  # C's copy only: A's snapshot still has it
    rows = con.sql("SELECT count(*) FROM annotated").fetchall()[0][0]
    con.share("pipeline-annotated")
    ready.put(("C", os.getpid(), rows))
    done.wait()


def stage_d(results):
    con = swingdb.attach("pipeline-annotated")
    deleted = con.execute("DELETE FROM annotated WHERE faulty").rowcount
    means = dict(con.sql("SELECT site, avg(celsius) FROM annotated GROUP BY site ORDER BY site").fetchall())
    left = con.sql("SELECT count(*) FROM annotated").fetchall()[0][0]
    results.put(("D", os.getpid(), {"deleted": deleted, "left": left, "means": means}))


def stage_e(results):
    con = swingdb.attach("pipeline-annotated")
    con.sql("UPDATE annotated SET celsius = celsius * 9 / 5 + 32")
    hottest = con.sql("SELECT site, max(celsius) AS f FROM annotated GROUP BY site ORDER BY f DESC, site LIMIT 1").fetchall()[0]
    rows = con.sql("SELECT count(*) FROM annotated").fetchall()[0][0]
    results.put(("E", os.getpid(), {"rows": rows, "hottest": hottest}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="sensor readings A loads")
    args = parser.parse_args()
    ctx = mp.get_context("spawn")  # real, independent processes (no fork-inherited state)
    ready, results = ctx.Queue(), ctx.Queue()
    sources_done, c_done = ctx.Event(), ctx.Event()

    t0 = time.perf_counter()
    a = ctx.Process(target=stage_a, args=(args.rows, ready, sources_done), daemon=True)
    b = ctx.Process(target=stage_b, args=(ready, sources_done), daemon=True)
    a.start(), b.start()
    for _ in range(2):
        print("stage {} (pid {}) shared {:,} rows".format(*ready.get(timeout=120)))
    c = ctx.Process(target=stage_c, args=(ready, c_done), daemon=True)
    c.start()
    name, pid, annotated = ready.get(timeout=120)
    print(f"stage {name} (pid {pid}) joined and shared {annotated:,} annotated rows")
    sources_done.set()  # A and B may end now; C's copy does not need them
    a.join(), b.join()

    d = ctx.Process(target=stage_d, args=(results,), daemon=True)
    e = ctx.Process(target=stage_e, args=(results,), daemon=True)
    d.start(), e.start()
    got = {}
    for _ in range(2):
        name, pid, result = results.get(timeout=120)
        got[name] = result
        print(f"stage {name} (pid {pid}): {result}")
    d.join(), e.join()
    c_done.set()
    c.join()
    elapsed = time.perf_counter() - t0

    assert annotated == args.rows, "C annotated every reading"
    assert got["D"]["deleted"] + got["D"]["left"] == args.rows
    assert got["E"]["rows"] == args.rows, "D's deletes are not in E's copy"
    assert got["E"]["hottest"][1] > 60, "E's copy is in Fahrenheit"
    assert all(20 <= m <= 29 for m in got["D"]["means"].values()), "D's copy is still in Celsius: E's update is not in it"
    for p in (a, b, c, d, e):
        assert p.exitcode == 0, f"a stage failed (exit code {p.exitcode})"
    left = [s.name for s in swingdb.snapshots() if s.name.startswith("pipeline-")]
    assert not left, f"snapshots outlived their publishers: {left}"
    print(f"pipeline of 5 processes done in {elapsed:.2f} s; every stage changed only its own copy")


if __name__ == "__main__":
    main()
