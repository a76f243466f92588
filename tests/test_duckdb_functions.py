"""Which of DuckDB's common functions swingdb answers to, asked of both
engines: every string, regex, numeric, list, date and aggregate function in
DuckDB's own catalog is called here by its name; the ones swingdb does not
know must be exactly the ones docs/duckdb.md lists as not there yet, so the
list stays true as functions are added."""

import re
from pathlib import Path

import duckdb
import swingdb

DOCS = Path(__file__).resolve().parent.parent / "docs" / "duckdb.md"
FAMILIES = ["string", "regex", "numeric", "list", "date", "timestamp"]


def _duckdb_functions():
    con = duckdb.connect()
    rows = con.execute(
        """SELECT DISTINCT function_name, function_type = 'aggregate', list_has_any(categories, ['lambda'])
           FROM duckdb_functions()
           WHERE (list_has_any(categories, ?) OR function_type = 'aggregate')
             AND NOT starts_with(function_name, '__') AND regexp_full_match(function_name, '[a-z_0-9]+')""",
        [FAMILIES],
    ).fetchall()
    return rows


def _known(con, name):
    try:
        con.execute(f"SELECT {name}()").fetchall()
    except swingdb.Error as error:
        return not re.search(rf"Invalid function '{name}'", str(error))
    return True


def _documented():
    text = DOCS.read_text()
    lines = {}
    for family in ["Functions that take lambdas", "Aggregates", "Strings and numbers"]:
        line = re.search(rf"^  - {family}: (.*)$", text, re.M)  # no line: none missing
        lines[family] = set(re.findall(r"`(\w+)`", line.group(1))) if line else set()
    return lines


def test_the_documented_missing_functions_are_exactly_the_missing_ones():
    con = swingdb.connect()
    missing = {"Functions that take lambdas": set(), "Aggregates": set(), "Strings and numbers": set()}
    for name, aggregate, lambda_ in _duckdb_functions():
        if _known(con, name):
            continue
        family = "Functions that take lambdas" if lambda_ else "Aggregates" if aggregate else "Strings and numbers"
        missing[family].add(name)
    documented = _documented()
    for family, names in missing.items():
        assert names == documented[family], (
            f"{family}: missing but not documented {sorted(names - documented[family])}, "
            f"documented but present {sorted(documented[family] - names)}"
        )


def test_the_common_ones_are_there():
    con = swingdb.connect()
    common = ["len", "list_value", "typeof", "regexp_extract", "regexp_full_match", "string_split", "strftime", "strptime",
              "date_diff", "datediff", "dayname", "arg_max", "arg_min", "lower", "upper", "substr", "sum", "avg", "median"]
    assert [name for name in common if not _known(con, name)] == []


def test_moments_and_products_of_many_rows_in_parallel_agree_with_duckdb():
    """Across the engine's partitions (partial states merged), per group."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(3)
    data = pa.table({"g": rng.integers(0, 40, 200_000), "x": rng.gamma(2.0, 1.5, 200_000), "f": 1 + rng.normal(0, 0.001, 200_000)})
    sql = "SELECT g, skewness(x), kurtosis(x), kurtosis_pop(x), product(f) FROM data GROUP BY g ORDER BY g"
    ours = swingdb.connect().register("data", data).sql(sql).fetchall()
    duck = duckdb.connect()
    duck.register("data", data)
    theirs = duck.sql(sql).fetchall()
    assert len(ours) == len(theirs) == 40
    for mine, peer in zip(ours, theirs):
        assert mine[0] == peer[0]
        assert np.allclose(mine[1:], peer[1:], rtol=1e-9), (mine, peer)


def test_value_aggregates_of_random_groups_agree_with_duckdb():
    """quantile_disc (fractions as DECIMAL, DOUBLE, negative and in lists),
    mad, entropy, histogram and the top value, per group, over 20,000 rows
    with NULLs, merged across the engine's partitions."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(11)
    n = 20_000
    x = rng.integers(0, 50, n)
    data = pa.table({
        "g": rng.integers(0, 30, n),
        "x": pa.array(x, mask=rng.random(n) < 0.1),
        "f": rng.normal(0, 10, n),
        "s": pa.array([f"v{v % 13}" for v in x]),
    })
    sql = """SELECT g, quantile_disc(x, 0.37), quantile_disc(x, 0.37::DOUBLE), quantile_disc(x, -0.8),
                    quantile_disc(s, [0.1, 0.5, 1.0]), quantile(f, 0.5), mad(f), entropy(x), entropy(s),
                    map_keys(histogram(x)), map_values(histogram(x)), map_values(histogram(x, [10, 20, 30]))
             FROM data GROUP BY g ORDER BY g"""
    ours = swingdb.connect().register("data", data).sql(sql).fetchall()
    duck = duckdb.connect()
    duck.register("data", data)
    theirs = duck.sql(sql).fetchall()
    assert len(ours) == len(theirs) == 30
    for mine, peer in zip(ours, theirs):
        exact = [0, 1, 2, 3, 4, 5, 9, 10, 11]
        assert [mine[i] for i in exact] == [peer[i] for i in exact], (mine[0], mine[:6], peer[:6])
        assert np.allclose(mine[6:9], peer[6:9], rtol=1e-12), (mine[6:9], peer[6:9])


def test_bars_and_grades_of_random_values_agree_with_duckdb():
    """bar's eighths of a character, and list_grade_up's order (ties kept in
    place, NULLs last), at random values."""
    import numpy as np

    rng = np.random.default_rng(5)
    values = [round(float(v), 3) for v in rng.uniform(-2, 12, 300)]
    lists = [[None if rng.random() < 0.1 else int(rng.integers(0, 5)) for _ in range(rng.integers(0, 8))] for _ in range(100)]
    con, duck = swingdb.connect(), duckdb.connect()
    for v in values:
        sql = f"SELECT bar({v}, 0, 10, 17), bar({v}, -1, 11)"
        assert con.sql(sql).fetchall() == duck.sql(sql).fetchall(), v
    for items in lists:
        text = "[" + ", ".join("NULL" if i is None else str(i) for i in items) + "]"
        sql = f"SELECT list_grade_up({text}::INTEGER[]), list_grade_up({text}::INTEGER[], 'DESC')"
        assert con.sql(sql).fetchall() == duck.sql(sql).fetchall(), items
