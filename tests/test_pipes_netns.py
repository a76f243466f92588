"""Pipes across hosts between two network namespaces this test makes (a veth
pair with a bandwidth limit, and 40 ms of round trip where the kernel has
netem): rows cross the link whole, at the link's pace, and a cut link fails
both ends with clear errors while the target table stays as it was."""

import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from bench.netns import Link, unavailable  # noqa: E402

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=str(unavailable()))

TOKEN = "netns-token-0123456789abcdef"

EXPORT = """
    import sys, swingdb
    con = swingdb.connect()
    con.sql("CREATE TABLE t AS SELECT value AS k, value * 0.5 AS v, 'row ' || value AS s FROM range(" + sys.argv[2] + ")")
    try:
        print(con.sql("COPY t TO '" + sys.argv[1] + "'").fetchall()[0][0], flush=True)
    except swingdb.Error as e:
        print(type(e).__name__, e, flush=True)
"""

IMPORT = """
    import sys, time, swingdb
    con = swingdb.connect()
    con.sql("CREATE TABLE u (k BIGINT, v DOUBLE, s VARCHAR)")
    con.sql("INSERT INTO u VALUES (-1, 0, 'kept')")
    start = time.monotonic()
    try:
        con.sql("INSERT INTO u SELECT * FROM '" + sys.argv[1] + "'")
        print("ok", time.monotonic() - start)
    except swingdb.Error as e:
        print(type(e).__name__, e)
    print(con.sql("SELECT count(*), sum(k), sum(v) FROM u").fetchall())
"""


def _python(link, ns, code, *args):
    env = {**os.environ, "SWINGDB_TOKEN": TOKEN}
    return link.run(ns, [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _transfer(link, rows, workers):
    url = f"db://{link.addr_a}:7400/netns-{uuid.uuid4().hex[:8]}"
    exporter = _python(link, link.a, EXPORT, f"{url}?workers={workers}", rows)
    importer = _python(link, link.b, IMPORT, f"{url}?workers={workers}")
    out_i, err_i = importer.communicate(timeout=300)
    out_e, err_e = exporter.communicate(timeout=60)
    return out_e, err_e, out_i, err_i


@pytest.mark.parametrize("latency", [False, True], ids=["bandwidth-limit", "40ms-rtt"])
def test_rows_cross_a_limited_link_whole_and_at_its_pace(latency):
    if latency and (missing := Link.netem_missing()):
        pytest.skip(missing)
    rate_mbit = 200
    with Link(rate=f"{rate_mbit}mbit", delay="20ms" if latency else None) as link:
        rows = 400_000
        out_e, err_e, out_i, err_i = _transfer(link, rows, workers=4)
    assert out_e.strip() == str(rows), (out_e, err_e)
    status, counts = out_i.strip().splitlines()
    assert status.startswith("ok"), (out_i, err_i)
    assert counts == f"[({rows + 1}, {sum(range(rows)) - 1}, {sum(range(rows)) * 0.5})]"
    # At least the bytes of the ids and doubles crossed a link of 200 Mbit/s:
    # the rows went over the limited link, not around it.
    seconds = float(status.split()[1])
    assert seconds >= rows * 16 * 8 / (rate_mbit * 1e6), seconds


def test_a_cut_link_fails_both_ends_and_keeps_the_table():
    with Link(rate="20mbit") as link:
        url = f"db://{link.addr_a}:7400/netns-cut?timeout=4"
        exporter = _python(link, link.a, EXPORT, url, 3_000_000)
        importer = _python(link, link.b, IMPORT, url)
        time.sleep(3)
        link.cut()
        out_i, err_i = importer.communicate(timeout=120)
        out_e, err_e = exporter.communicate(timeout=120)
    status, counts = out_i.strip().splitlines()
    assert status.startswith("OperationalError") and "nothing was imported" in status, (out_i, err_i)
    assert counts == "[(1, -1, 0.0)]", "the table is as it was before the import"
    assert out_e.startswith("OperationalError") and "importer" in out_e, (out_e, err_e)
