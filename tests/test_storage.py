import os
import re

import swingdb
from conftest import traced_python


def _segments(db_path):
    return sorted(os.listdir(os.path.join(db_path, "segments")))


def _only_segment_path(db_path):
    (seg,) = _segments(db_path)
    return os.path.realpath(os.path.join(db_path, "segments", seg))


def _mapping_ranges(path):
    """Address ranges at which this process has `path` memory-mapped."""
    ranges = []
    with open("/proc/self/maps") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 6 and parts[-1] == path:
                ranges.append(tuple(int(x, 16) for x in parts[0].split("-")))
    return ranges


def test_scan_memory_maps_segment_and_results_point_into_it(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS a, value * 2 AS b FROM range(200000)")
    seg_path = _only_segment_path(db_path)
    table = con.sql("SELECT a, b FROM t").arrow()
    ranges = _mapping_ranges(seg_path)
    assert ranges, "the segment file is memory-mapped"
    # The result's buffer addresses lie inside the file's mapping.
    for chunk in table.column("a").chunks:
        addr = chunk.buffers()[1].address
        assert any(lo <= addr < hi for lo, hi in ranges), "result buffer is not inside the mapped segment"
        assert addr % 64 == 0


def test_segments_are_immutable_and_versioned(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS a FROM range(10000)")
    first = _segments(db_path)
    stat_before = os.stat(os.path.join(db_path, "segments", first[0]))
    v1 = con.version()
    con.sql("INSERT INTO t VALUES (2)")
    assert con.version() == v1 + 1
    stat_after = os.stat(os.path.join(db_path, "segments", first[0]))
    assert (stat_before.st_mtime_ns, stat_before.st_size) == (stat_after.st_mtime_ns, stat_after.st_size)
    assert len(os.listdir(os.path.join(db_path, "manifests"))) >= 1


def _physical_plan(con, sql):
    rows = con.sql("EXPLAIN " + sql).fetchall()
    return "\n".join(r[1] for r in rows if r[0] == "physical_plan")


def test_min_max_statistics_skip_segments(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (a BIGINT)")
    for lo in range(0, 5000, 1000):
        con.sql(f"INSERT INTO t SELECT value + {lo} FROM range(1000)")
    # Five segments of 1000 rows each; each is one batch in the scan (read in
    # one partition: with more, the scan cuts one segment where its
    # partitions meet, see test_ordered_tables.py).
    con.sql("SET datafusion.execution.target_partitions = 1")
    assert "partition_sizes=[5]" in _physical_plan(con, "SELECT * FROM t")
    # Only the segment whose max >= 4500 is scanned.
    assert "partition_sizes=[1]" in _physical_plan(con, "SELECT * FROM t WHERE a >= 4500")
    assert "partition_sizes=[2]" in _physical_plan(con, "SELECT * FROM t WHERE a BETWEEN 1500 AND 2500")
    assert con.sql("SELECT count(*) FROM t WHERE a >= 4500").fetchall() == [(500,)]


def test_ten_thousand_single_row_inserts_are_compacted(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t (a INTEGER)")
    for i in range(10_000):
        con.execute("INSERT INTO t VALUES (?)", [i])
    assert con.sql("SELECT count(*), sum(a) FROM t").fetchall() == [(10_000, sum(range(10_000)))]
    files = _segments(db_path)
    assert len(files) <= 20, f"{len(files)} segment files left behind"
    # Commits that only add rows collect garbage every 32nd time (and a
    # collection leaves the newest manifest).
    assert len(os.listdir(os.path.join(db_path, "manifests"))) <= 33
    con.collect_garbage()
    assert len(os.listdir(os.path.join(db_path, "manifests"))) == 1


def test_compaction_merges_small_segments_without_rewriting_a_large_one(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS a FROM range(100000)")
    [big] = _segments(db_path)
    for i in range(40):
        con.execute("INSERT INTO t VALUES (?)", [-i])
    # The tiny segments were merged (several times), the 100,000-row one never.
    assert big in _segments(db_path)
    assert len(_segments(db_path)) <= 10
    assert con.sql("SELECT count(*), min(a) FROM t").fetchall() == [(100040, -39)]


def test_gc_never_removes_what_another_process_reads(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS a FROM range(1000)")
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import sys, swingdb
        con = swingdb.connect(sys.argv[1])
        con.begin()
        print(con.sql("SELECT sum(a) FROM t").fetchall()[0][0], flush=True)
        sys.stdin.readline()          # hold the snapshot while the writer rewrites t
        print(con.sql("SELECT sum(a) FROM t").fetchall()[0][0], flush=True)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", code, db_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert int(proc.stdout.readline()) == sum(range(1000))
    con.sql("DELETE FROM t WHERE a < 500")
    con.sql("CREATE OR REPLACE TABLE t AS SELECT 1 AS a")
    con.collect_garbage()
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert int(proc.stdout.readline()) == sum(range(1000)), "the reader's snapshot survived GC"
    assert proc.wait(timeout=60) == 0
    # Once the reader is gone its version becomes garbage.
    report = con.collect_garbage()
    assert report["segments"] >= 1
    assert con.sql("SELECT a FROM t").fetchall() == [(1,)]


def test_select_of_a_stored_table_reaches_numpy_as_one_view_into_the_file(db_path):
    con = swingdb.connect(db_path)
    con.sql("CREATE TABLE t AS SELECT value AS a, value * 2 AS b FROM range(300000)")
    arrays = con.sql("SELECT a, b FROM t").numpy()
    lo_hi = _mapping_ranges(_only_segment_path(db_path))
    for name in ("a", "b"):
        arr = arrays[name]
        addr = arr.__array_interface__["data"][0]
        assert any(lo <= addr and addr + arr.nbytes <= hi for lo, hi in lo_hi), name
        assert not arr.flags.writeable
    assert (arrays["b"] == 2 * arrays["a"]).all() and arrays["b"].max() == 599998


def test_scans_report_rows_not_mapped_file_sizes_to_the_join_planner(db_path):
    # Each scan slice is a window into the whole mapped file; counting the file per
    # slice made a 100k-row join partner look several MB big, so the planner hashed
    # both sides instead of building one small hash table from it.
    with swingdb.connect(db_path) as con:
        con.sql("SET datafusion.execution.target_partitions = 2")
        con.sql("CREATE TABLE big AS SELECT value AS id, value * 2 AS x FROM range(400000)")
        con.sql("CREATE TABLE small AS SELECT value * 3 AS id FROM range(100000)")
        plan = con.sql("EXPLAIN SELECT big.x FROM big JOIN small ON big.id = small.id").fetchall()[-1][1]
        assert "mode=CollectLeft" in plan, plan
        con.sql("SET datafusion.explain.show_statistics = true")
        plan = con.sql("EXPLAIN SELECT id FROM small").fetchall()[-1][1]
        assert "Rows=Exact(100000)" in plan and "Bytes=Absent" in plan, plan
        assert con.sql("SELECT count(*) FROM big JOIN small ON big.id = small.id").fetchall() == [(100000,)]


def _distinct_counts(con, sql):
    """The distinct counts the plan of `sql`'s scan reports, per column."""
    import re

    plan = con.sql("EXPLAIN " + sql).fetchall()[-1][1]
    scan = next(line for line in plan.splitlines() if "DataSourceExec" in line)
    return [int(n) for n in re.findall(r"Distinct=Inexact\((\d+)\)", scan)]


def test_scans_tell_the_planner_distinct_counts_that_survive_reopening_and_small_inserts(db_path):
    # Without distinct counts DataFusion took a GROUP BY's output for as large as
    # its input, so a join with a grouped subquery hashed both sides by key
    # (TPC-H Q18 built a semi-join's hash table from 6M rows instead of 57).
    with swingdb.connect(db_path) as con:
        con.sql("SET datafusion.execution.target_partitions = 2")
        con.sql("CREATE TABLE big AS SELECT value AS id, value % 20 AS k, 'name ' || (value % 7) AS s FROM range(400000)")
        plan = con.sql("EXPLAIN SELECT count(*) FROM big JOIN (SELECT k FROM big GROUP BY k) g ON big.id = g.k").fetchall()[-1][1]
        assert "mode=CollectLeft" in plan, plan
    with swingdb.connect(db_path) as con:
        con.sql("SET datafusion.explain.show_statistics = true")
        ids, ks, names = _distinct_counts(con, "SELECT id, k, s FROM big")
        assert abs(ids / 400000 - 1) < 0.3 and 16 <= ks <= 24 and 6 <= names <= 8, (ids, ks, names)
        # Rows added a few at a time (kept in the manifest, then in small files) add their values.
        for i in range(30):
            con.sql("INSERT INTO big VALUES (?, ?, ?)", [1000000 + i, 100 + i, f"new {i}"])
        ids, ks, names = _distinct_counts(con, "SELECT id, k, s FROM big")
        assert 40 <= ks <= 60 and 30 <= names <= 44, (ks, names)
        assert con.sql("SELECT count(DISTINCT k), count(DISTINCT s) FROM big").fetchall() == [(50, 37)]


def _plan_lines(con, sql, analyze=False):
    """The physical plan of `sql` (run, with metrics, when `analyze`), a line a node."""
    rows = con.sql(("EXPLAIN ANALYZE " if analyze else "EXPLAIN ") + sql).fetchall()
    return rows[-1][1].splitlines()


def _metric(line, name):
    """The count `name` of a plan line of EXPLAIN ANALYZE (shown as 800, 1.00 K, 2.5 M)."""
    number, unit = re.search(rf"\b{name}=([\d.]+)( [KM])?,", line).groups()
    return float(number) * {None: 1, " K": 1e3, " M": 1e6}[unit]


def test_string_equalities_are_estimated_from_distinct_counts_so_joins_build_the_small_side(con):
    # DataFusion estimated any filter it could not analyse (strings) to keep
    # 20 % of its rows: two equalities on 200,000 parts were 40,000 rows, not
    # 200, and TPC-H Q17 built its hash table from a 200,000-group average.
    con.sql("SET datafusion.explain.show_statistics = true")
    con.sql(
        "CREATE TABLE part AS SELECT value AS id, 'Brand#' || (value % 25) AS brand, "
        "'C' || (value % 40) AS container FROM range(200000)"
    )
    con.sql("CREATE TABLE item AS SELECT value % 200000 AS part, value % 50 AS qty FROM range(1000000)")
    one = "SELECT id FROM part WHERE brand = 'Brand#3' AND container = 'C7'"
    scan = next(line for line in _plan_lines(con, one) if "FilterExec" in line)
    assert "Rows=Inexact(2000)" in scan, scan  # 1 / (25 * 40), shown at its floor of 1 %
    q17 = (
        "SELECT sum(i.qty) FROM item i JOIN part p ON p.id = i.part "
        "WHERE p.brand = 'Brand#3' AND p.container = 'C7' "
        "AND i.qty < (SELECT 0.5 * avg(qty) FROM item WHERE part = p.id)"
    )
    plan = _plan_lines(con, q17)
    top_join = next(i for i, line in enumerate(plan) if "HashJoinExec" in line)
    build = plan[top_join + 1 :]
    aggregate = next(i for i, line in enumerate(build) if "AggregateExec" in line and "gby=[part" in line)
    inner = next(i for i, line in enumerate(build) if "HashJoinExec" in line)
    assert inner < aggregate, "the join of the few parts is the build side, the average is probed\n" + "\n".join(plan)
    expected = con.sql(
        "SELECT sum(i.qty) FROM item i JOIN part p ON p.id = i.part WHERE p.brand = 'Brand#3' AND p.container = 'C7' "
        "AND i.qty < (SELECT 0.5 * avg(qty) FROM item i2 WHERE i2.part = i.part)"
    ).fetchall()
    assert con.sql(q17).fetchall() == expected


def test_scans_apply_the_keys_a_join_publishes_so_a_grouped_probe_side_sees_only_matching_rows(con):
    # A hash join publishes its build side's keys when built; the scan of the
    # probe side drops rows without a match before the GROUP BY above it, which
    # then groups 3 keys' rows instead of 10,000 keys'.
    con.sql("SET datafusion.execution.target_partitions = 2")
    con.sql("CREATE TABLE big AS SELECT value % 10000 AS k, value AS v FROM range(400000)")
    con.sql("CREATE TABLE few AS SELECT * FROM (VALUES (7), (4242), (9999)) t(k)")
    sql = "SELECT f.k, g.total FROM few f JOIN (SELECT k, sum(v) AS total FROM big GROUP BY k) g ON g.k = f.k ORDER BY f.k"
    plan = _plan_lines(con, sql, analyze=True)
    partial = next(line for line in plan if "AggregateExec: mode=Partial" in line)
    assert _metric(partial, "output_rows") <= 6, "\n".join(plan)  # 3 keys, at most once per partition
    assert any("runtime filter" in line for line in plan), "\n".join(plan)
    expected = [(k, sum(range(k, 400000, 10000))) for k in (7, 4242, 9999)]
    assert con.sql(sql).fetchall() == expected
    # A filter that keeps every row is dropped after a while; answers stay whole.
    con.sql("CREATE TABLE all_keys AS SELECT value AS k FROM range(10000)")
    assert con.sql("SELECT count(*), sum(b.v) FROM all_keys a JOIN big b ON a.k = b.k").fetchall() == [
        (400000, sum(range(400000)))
    ]


def test_a_join_filter_is_judged_on_the_rows_the_query_condition_keeps(con):
    # The join's keys match 10 % of big's rows, too many for a lookup in the
    # scan to pay, but only 0.2 % of those its condition on d keeps: judged
    # on those, the filter stays, and the join probes 800 rows, not 127,000
    # (TPC-H Q3: 32M lineitem rows copied by the filter for the join to keep
    # 0.9 %).
    con.sql("SET datafusion.execution.target_partitions = 2")
    con.sql("CREATE TABLE big AS SELECT value % 10000 AS k, value % 10000 AS d, value AS v FROM range(400000)")
    con.sql("CREATE TABLE few AS SELECT value AS k FROM range(1000)")
    sql = "SELECT count(*), sum(b.v) FROM few f JOIN big b ON b.k = f.k WHERE b.d >= 980"
    plan = _plan_lines(con, sql, analyze=True)
    scan = next(line for line in plan if "DataSourceExec" in line and "runtime filter" in line)
    assert "judged under the filter above" in scan, "\n".join(plan)
    join = next(line for line in plan if "HashJoinExec" in line)
    assert _metric(join, "input_rows") <= 2000, "\n".join(plan)
    kept = [v for v in range(400000) if 980 <= v % 10000 < 1000]
    assert con.sql(sql).fetchall() == [(len(kept), sum(kept))]


def test_a_scan_feeding_a_join_directly_leaves_the_join_its_own_filter(con):
    # Applied in a scan whose rows go straight into the join, the join's
    # filter is the join's own lookup done twice; under an aggregate or a
    # filter it spares them the rows (the test above).
    con.sql("SET datafusion.execution.target_partitions = 2")
    con.sql("CREATE TABLE big AS SELECT value % 10000 AS k, value AS v FROM range(400000)")
    con.sql("CREATE TABLE few AS SELECT * FROM (VALUES (7), (4242), (9999)) t(k)")
    direct = "SELECT count(*), sum(b.v) FROM few f JOIN big b ON b.k = f.k"
    plan = _plan_lines(con, direct)
    scan = next(line for line in plan if "DataSourceExec" in line and "partition_sizes=[1]" not in line)
    assert "runtime filter" not in scan, "\n".join(plan)
    assert con.sql(direct).fetchall() == [(120, sum(v for v in range(400000) if v % 10000 in (7, 4242, 9999)))]
    filtered = "SELECT count(*) FROM few f JOIN big b ON b.k = f.k WHERE b.v % 3 = 0"
    plan = _plan_lines(con, filtered)
    assert any("runtime filter" in line for line in plan if "DataSourceExec" in line), "\n".join(plan)
    assert con.sql(filtered).fetchall() == [(sum(1 for v in range(400000) if v % 10000 in (7, 4242, 9999) and v % 3 == 0),)]


def test_segment_files_are_sent_to_disk_while_they_are_written(tmp_path):
    # The kernel is asked to start writing each 8 MiB of a new segment at once
    # (sync_file_range), so the disk works while the rest is encoded and the
    # final fsync has little left: ingest was at 74 % of dd's bandwidth.
    code = (
        "import sys, swingdb; con = swingdb.connect(sys.argv[1]); "
        "con.sql('CREATE TABLE t AS SELECT value AS a, value * 2 AS b FROM range(4000000)'); "
        "assert con.sql('SELECT count(*), sum(b) FROM t').fetchall() == [(4000000, 15999996000000)]"
    )
    calls = traced_python(code, "sync_file_range", tmp_path / "strace.log", tmp_path / "db")
    ranges = [line for line in calls if "sync_file_range(" in line]
    assert len(ranges) >= 6, calls  # 64 MB of data: one call per 8 MiB written


def test_joins_build_one_hash_table_on_machines_of_few_cores(con):
    # On up to 4 cores, repartitioning both join inputs by key cost more than
    # the parallel build it buys (TPC-H SF1 on 2 cores: geometric mean 68-77 ms
    # against 79-86); many cores keep DataFusion's choice. A user's SET wins.
    import os

    few = len(os.sched_getaffinity(0)) <= 4
    setting = "SHOW datafusion.optimizer.repartition_joins"
    assert con.sql(setting).fetchall()[0][1] == ("false" if few else "true")
    con.sql("CREATE TABLE a AS SELECT value AS id FROM range(300000)")
    con.sql("CREATE TABLE b AS SELECT value * 2 AS id FROM range(300000)")
    join = "EXPLAIN SELECT count(*) FROM a JOIN b ON a.id = b.id"
    if few:
        assert "mode=CollectLeft" in con.sql(join).fetchall()[-1][1]
    con.sql("SET datafusion.optimizer.repartition_joins = true")
    assert "mode=Partitioned" in con.sql(join).fetchall()[-1][1]
    assert con.sql("SELECT count(*) FROM a JOIN b ON a.id = b.id").fetchall() == [(150000,)]
