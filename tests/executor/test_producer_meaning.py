"""Where SQL engines disagree, a run follows the plan's producer (DataFusion here) and says so, or says
what the plan leaves open: DataFusion plans SQL over TPC-H (scale 0.01) as written and optimized, each
root runs on Spark, and the rows are checked against DuckDB running the same SQL (DataFusion's own
engine where DuckDB reads the SQL otherwise).
"""

from __future__ import annotations

import os

import duckdb
import pytest

from executor.data.catalog import Catalog
from executor.engines.sql_plan import catalog_tables, sql_to_plan
from tests.support import exec_oracle as oracle
from viz.model import analyze

FORMS = ("written", "optimized")


@pytest.fixture(scope="module")
def tables(tpch_dir) -> dict[str, str]:
    return catalog_tables(Catalog(data_roots=[tpch_dir]))


def _run(sql: str, tables: dict[str, str], form: str, tpch_dir: str, node: str | None = None):
    from executor.jobs.run import run_node

    model = analyze(sql_to_plan(sql, tables, form=form).data)
    catalog = Catalog(data_roots=[tpch_dir], use_spark_catalog=False)
    return model, run_node(model, node or model.roots[0], catalog=catalog, limit=1000, count=True)


def _duckdb(tables: dict[str, str], sql: str) -> list[tuple]:
    con = duckdb.connect()
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con.execute(sql).fetchall()


def _rows(result) -> list[tuple]:
    return [tuple(r) for r in result.rows.itertuples(index=False)]


def _like_duckdb(sql: str, tables, form, tpch_dir) -> list[str]:
    """Runs ``sql``'s plan and checks its rows against DuckDB's; returns the run's notes."""
    _, result = _run(sql, tables, form, tpch_dir)
    got, want = _rows(result), _duckdb(tables, sql)
    verdict = oracle.compare(got, sql, lambda s: ([], _duckdb(tables, s)))
    assert verdict.ok, (form, verdict.reason, got[:5], want[:5])
    assert len(got) == len(want) > 0
    return result.warnings


@pytest.mark.parametrize("form", FORMS)
def test_date_parts_count_as_datafusion_does(spark, tables, tpch_dir, form):
    """DataFusion's date_part('dow', d) counts from Sunday = 0 (Spark's dayofweek from Sunday = 1): a
    Sunday (1996-12-01) is 0, as DuckDB's extract(dow) says too."""
    sql = (
        "SELECT o_orderkey, o_orderdate, extract(dow FROM o_orderdate) AS dow, date_part('doy', o_orderdate) AS doy, "
        "extract(week FROM o_orderdate) AS wk, extract(quarter FROM o_orderdate) AS q FROM orders "
        "WHERE o_orderkey <= 100"
    )
    _like_duckdb(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_case_of_a_null_and_a_string_says_nothing_and_of_a_number_and_a_string_says_its_coercion(
    spark, tables, tpch_dir, form
):
    """An untyped NULL among a CASE's branches takes the other branches' type, no value changing: no note.
    A number beside a string as written is DataFusion's coercion, to text, and is said (rows as DataFusion's)."""
    null = (
        "SELECT n_nationkey, CASE WHEN n_nationkey > 3 THEN NULL ELSE n_name END AS x FROM nation WHERE n_nationkey < 6"
    )
    assert not [n for n in _like_duckdb(null, tables, form, tpch_dir) if "CASE" in n]
    mixed = (
        "SELECT n_nationkey, CASE WHEN n_nationkey > 3 THEN n_nationkey ELSE n_name END AS x FROM nation "
        "WHERE n_nationkey < 6"
    )
    _, result = _run(mixed, tables, form, tpch_dir)  # DuckDB mixes no number and string in a CASE
    assert sorted(_rows(result)) == sorted(_datafusion_rows(tables, mixed))
    notes = [n for n in result.warnings if "CASE" in n]
    if form == "written":
        assert notes and all("and so does the run" in n for n in notes), notes
    else:  # DataFusion's analyzer wrote the cast into the plan: nothing is the run's to say
        assert not notes, notes


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(DISTINCT to_timestamp_nanos(o_orderkey * 100)) AS a FROM orders WHERE o_orderkey < 40",
        "SELECT o_orderkey, CAST(o_orderdate AS TIMESTAMP) + INTERVAL '1500 nanoseconds' AS t FROM orders "
        "WHERE o_orderkey < 5",
    ],
)
def test_a_time_the_plan_makes_finer_than_a_microsecond_is_said(spark, tables, tpch_dir, sql):
    """Spark's times hold microseconds: where the plan makes a time or an interval with nanoseconds (a
    number of them, an interval literal's), the run keeps microseconds and says the rest is dropped
    (DataFusion's engine counts 15 distinct times where the run counts 2)."""
    from executor.translate.types import MICROSECONDS_KEPT

    _, result = _run(sql, tables, "written", tpch_dir)
    assert any(MICROSECONDS_KEPT in w for w in result.warnings), result.warnings


@pytest.mark.parametrize("form", FORMS)
def test_concat_skips_nulls_and_the_operator_does_not(spark, tables, tpch_dir, form):
    """DataFusion's concat() skips a null argument and its || gives null, as DuckDB's do; the plan's
    concat says neither, so the run says whose reading it follows."""
    sql = (
        "SELECT n_name, concat(n_name, CASE WHEN n_nationkey > 2 THEN NULL ELSE '!' END) AS c, "
        "n_name || CASE WHEN n_nationkey > 2 THEN NULL ELSE '!' END AS op FROM nation WHERE n_nationkey < 5"
    )
    notes = _like_duckdb(sql, tables, form, tpch_dir)
    assert any("concat: the plan does not say how a null argument is handled" in n and "DataFusion" in n for n in notes)


@pytest.mark.parametrize("form", FORMS)
def test_in_a_subquery_with_a_null_is_unknown_as_a_value(spark, tables, tpch_dir, form):
    """x IN (subquery) as a value: null where no row equals x and the subquery holds a null (SQL, DuckDB);
    NOT IN likewise. Spark's own IN in a projection gave false."""
    sub = "(SELECT CASE WHEN r_regionkey = 0 THEN NULL ELSE r_regionkey END FROM region)"
    sql = (
        f"SELECT n_nationkey, n_nationkey IN {sub} AS i, n_nationkey NOT IN {sub} AS ni, "
        "n_nationkey IN (SELECT r_regionkey FROM region WHERE r_regionkey > 10) AS empty "
        "FROM nation WHERE n_nationkey < 7"
    )
    _like_duckdb(sql, tables, form, tpch_dir)
    # in a filter, unknown drops the row as false does: NOT IN with a null keeps none
    sql = f"SELECT n_nationkey FROM nation WHERE n_nationkey NOT IN {sub} OR n_nationkey = 1"
    if form == "written":
        _like_duckdb(sql, tables, form, tpch_dir)


def test_a_mark_join_of_datafusion_is_never_null_and_says_so(spark, tables, tpch_dir):
    """DataFusion's optimizer writes NOT IN under an OR as a mark join, and its mark is true or false,
    never null (the spec's is null where the condition was unknown): its engine keeps every row no region
    key equals, where SQL (DuckDB) keeps only the row the OR keeps. The run follows the producer and says so."""
    import datafusion

    sub = "(SELECT CASE WHEN r_regionkey = 0 THEN NULL ELSE r_regionkey END FROM region)"
    sql = f"SELECT n_nationkey FROM nation WHERE n_nationkey NOT IN {sub} OR n_nationkey = 1"
    _, result = _run(sql, tables, "optimized", tpch_dir)
    ctx = datafusion.SessionContext()
    for name in ("nation", "region"):
        ctx.register_parquet(name, tables[name])
    want = [(r["n_nationkey"],) for r in ctx.sql(sql).to_pylist()]
    assert sorted(_rows(result)) == sorted(want)
    assert len(want) == 22 and _duckdb(tables, sql) == [(1,)]  # keys 0, 1 and 5-24, against SQL's one
    assert any("mark join" in n and "never null" in n for n in result.warnings), result.warnings


@pytest.mark.parametrize("form", FORMS)
def test_substring_from_zero_begins_left_of_the_string(spark, tables, tpch_dir, form):
    """substring(s FROM 0 FOR 3) is the first 2 characters in SQL (DuckDB, DataFusion); Spark's own
    reads 0 as 1."""
    sql = "SELECT n_name, substring(n_name FROM 0 FOR 3) AS s0, substring(n_name, 2) AS s2 FROM nation"
    _like_duckdb(sql, tables, form, tpch_dir)


def test_a_negative_start_follows_datafusion_and_says_so(spark, tables, tpch_dir):
    """substr(s, -3, 5): DataFusion begins left of the string (the first character); DuckDB counts from
    the end. The plan does not say which; the run follows its producer and says so."""
    import datafusion

    sql = "SELECT p_partkey, substr(p_name, -3, 5) AS neg FROM part WHERE p_partkey <= 8"
    _, result = _run(sql, tables, "written", tpch_dir)
    ctx = datafusion.SessionContext()
    ctx.register_parquet("part", tables["part"])
    want = [(r["p_partkey"], r["neg"]) for r in ctx.sql(sql).to_pylist()]
    assert sorted(_rows(result)) == sorted(want)
    assert any("negative_start" in n and "DataFusion, its producer" in n for n in result.warnings), result.warnings


def test_a_node_without_columns_counts_its_rows(spark, tables, tpch_dir):
    """DataFusion's optimized count(*) over a filter keeps no column below the count: its rows are
    counted all the same (DuckDB's count of the same rows)."""
    sql = "SELECT count(*) AS n FROM customer WHERE c_acctbal > 0"
    model, _ = _run(sql, tables, "optimized", tpch_dir)
    [empty] = [n.id for n in model.nodes() if n.schema is not None and len(n.schema) == 0]
    _, result = _run(sql, tables, "optimized", tpch_dir, node=empty)
    [(want,)] = _duckdb(tables, sql)
    assert result.row_count == want > 1000
    assert len(result.rows) == 1000  # the limit's worth shown


def test_not_in_made_an_anti_join_is_said(tables):
    """DataFusion's optimizer writes NOT IN as a left anti join, which keeps a row that no right row
    equals even where the right has a null (SQL's NOT IN keeps none): the join says so."""
    sql = (
        "SELECT count(*) AS n FROM customer WHERE c_nationkey NOT IN "
        "(SELECT o_custkey % 25 FROM orders WHERE o_orderkey < 10 UNION ALL SELECT NULL)"
    )
    model = analyze(sql_to_plan(sql, tables, form="optimized").data)
    codes = [d.code for d in model.all_diagnostics()]
    assert "anti-join-nulls" in codes, codes
    written = analyze(sql_to_plan(sql, tables, form="written").data)  # a subquery there, not a join
    assert "anti-join-nulls" not in [d.code for d in written.all_diagnostics()]


@pytest.mark.parametrize(
    "sql, said",
    [
        ("SELECT CAST(o_orderkey * 1000000000 AS INT) AS i FROM orders WHERE o_orderkey < 5", "cannot cast"),
        ("SELECT CAST(o_totalprice AS DECIMAL(5,2)) AS d FROM orders WHERE o_orderkey < 5", "cannot cast"),
        ("SELECT CAST(CAST(n_nationkey AS DOUBLE) * 1e10 AS INT) AS i FROM nation", "cannot cast"),
        ("SELECT n_nationkey / (n_regionkey - n_regionkey) AS q FROM nation", "division by zero"),
        ("SELECT CAST(n_nationkey AS DECIMAL(10,2)) / CAST(0 AS DECIMAL(10,2)) AS q FROM nation", "division by zero"),
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_a_value_datafusion_stops_at_stops_the_run(spark, tables, tpch_dir, form, sql, said):
    """A cast that does not fit (the plan's cast throws on failure) and a division of integers or decimals by
    zero: DataFusion's engine stops on the SQL, and so does the run of its plan, saying where (Spark's own
    wraps, saturates or gives null: a wrong answer that looks right)."""
    import datafusion

    from executor.errors import ExecutionError

    ctx = datafusion.SessionContext()
    for name in ("orders", "nation"):
        ctx.register_parquet(name, tables[name])
    with pytest.raises(Exception, match=r"(?i)cast|divide|too large"):  # the oracle: DataFusion refuses the SQL
        ctx.sql(sql).to_pylist()
    with pytest.raises(ExecutionError) as stopped:
        _run(sql, tables, form, tpch_dir)
    assert said in str(stopped.value), str(stopped.value)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT arrow_cast(n_nationkey, 'UInt8') * arrow_cast(100, 'UInt8') AS m FROM nation",
        "SELECT n_nationkey FROM nation WHERE arrow_cast('18446744073709551615', 'UInt64') > arrow_cast(n_nationkey, "
        "'UInt64')",
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_datafusions_unsigned_integers_are_refused(spark, tables, tpch_dir, form, sql):
    """DataFusion's unsigned integers (its engine: 2 * 100 is 200 in a UInt8, where Spark's byte gives -56;
    2^64 - 1 is no -1): refused by name in both forms, not run to a wrong answer (checked by hand against
    DataFusion's engine)."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError) as refused:
        _run(sql, tables, form, tpch_dir)
    assert "DataFusion's unsigned integer type u" in str(refused.value), str(refused.value)


@pytest.fixture(scope="module")
def unsigned_table(tmp_path_factory) -> dict[str, str]:
    """A table of Arrow's unsigned integers, each column with values past the signed type of its width."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path_factory.mktemp("unsigned") / "u.parquet")
    pq.write_table(
        pa.table(
            {
                "x": pa.array([1, 200, 255, None], pa.uint8()),
                "y": pa.array([1, 40000, 65535, 7], pa.uint16()),
                "z": pa.array([1, 3_000_000_000, 5, 6], pa.uint32()),
                "k": pa.array([1, 2, 3, 4], pa.int32()),
            }
        ),
        path,
    )
    return {"u": path}


def _datafusion_rows(tables: dict[str, str], sql: str) -> list[tuple]:
    import datafusion

    ctx = datafusion.SessionContext()
    for name, path in tables.items():
        ctx.register_parquet(name, path)
    return [tuple(r.values()) for r in ctx.sql(sql).to_pylist()]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT x, y, z, k FROM u",
        "SELECT k FROM u WHERE x > 100 AND y = 40000",
        "SELECT k FROM u WHERE z > 2000000000",
        "SELECT max(x) AS mx, min(x) AS nx, max(y) AS my, max(z) AS mz, count(x) AS c FROM u",
        "SELECT x + 1 AS a, y * 2 AS b FROM u",
        "SELECT k, lag(x) OVER (ORDER BY k) AS px, first_value(y) OVER (ORDER BY k DESC) AS fy FROM u",
        "SELECT greatest(x, x) AS g, coalesce(x, x) AS c, nullif(y, 1) AS n, sum(z) OVER () AS s FROM u",
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_datafusions_unsigned_integers_keep_their_values(spark, unsigned_table, form, sql):
    """DataFusion's unsigned integers are held in Spark's signed type of twice their width, as Spark reads
    Parquet's: 200 in a u8, 40000 in a u16 and 3e9 in a u32 are themselves (DataFusion's engine gives the
    rows; 200 in a byte had stopped the run, and the u16 compared with 40000 had found no row)."""
    from executor.jobs.run import run_node

    folder = os.path.dirname(unsigned_table["u"])
    model = analyze(sql_to_plan(sql, unsigned_table, form=form).data)
    result = run_node(model, model.roots[0], catalog=Catalog(data_roots=[folder], use_spark_catalog=False), limit=100)
    want = _datafusion_rows(unsigned_table, sql)
    assert sorted(_rows(result), key=repr) == sorted(want, key=repr) and want
    # max of a u8 is a u8 (the YAMLs' i8 keeps the argument's variation), held as Spark's smallint
    assert not [w for w in result.warnings if "in the plan, but Spark's result is" in w], result.warnings


@pytest.mark.parametrize("form", FORMS)
def test_a_rollup_of_eight_keys_has_its_grouping_ids(spark, tables, tpch_dir, form):
    """DataFusion's grouping id of 8 keys is a u8 (255 for the grand total), whose bits its optimized plan
    reads with u8 literals of 128 and more (a byte had made them negative: GROUPING came out -1)."""
    keys = "l_returnflag, l_linestatus, l_shipmode, l_shipinstruct, l_tax, l_discount, l_linenumber, l_quantity"
    sql = (
        f"SELECT l_returnflag, GROUPING(l_returnflag) AS g1, GROUPING(l_quantity) AS g8, GROUPING({keys}) AS g, "
        f"count(*) AS c FROM lineitem WHERE l_orderkey < 40 GROUP BY ROLLUP ({keys})"
    )
    _, result = _run(sql, tables, form, tpch_dir)
    want = _datafusion_rows(tables, sql)
    assert sorted(_rows(result), key=repr) == sorted(want, key=repr)
    assert (None, 1, 1, 255, 55) in want  # the grand total, by hand: 55 rows, every key left out


def test_arithmetic_on_two_unsigned_integers_is_refused(spark, unsigned_table):
    """u8 + u8 wraps or fails at 255 in DataFusion; Spark's wider type would not: refused by name."""
    from executor.errors import ExecutionError
    from executor.jobs.run import run_node

    sql = "SELECT x + x AS a FROM u"
    model = analyze(sql_to_plan(sql, unsigned_table, form="written").data)
    folder = os.path.dirname(unsigned_table["u"])
    with pytest.raises(ExecutionError, match="DataFusion's unsigned integer type u8"):
        run_node(model, model.roots[0], catalog=Catalog(data_roots=[folder], use_spark_catalog=False))


def test_a_zone_the_plans_type_cannot_carry_is_refused_or_said(spark, tables, tpch_dir):
    """DataFusion's engine makes 1996-01-02 a timestamp at midnight in +05:00, an instant five hours before
    midnight in UTC; Substrait's timestamp type has no zone. As written, arrow_cast names the zone: the run
    is refused. Optimized, a plain cast remains: the run reads the date in UTC and says so."""
    from executor.errors import ExecutionError

    sql = "SELECT arrow_cast(o_orderdate, 'Timestamp(Microsecond, Some(\"+05:00\"))') AS t FROM orders"
    with pytest.raises(ExecutionError, match=r"zone \+05:00"):
        _run(sql, tables, "written", tpch_dir)
    _, result = _run(sql, tables, "optimized", tpch_dir)
    assert any("the plan's type carries no zone" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT n_nationkey, CAST(n_nationkey + 10 AS DECIMAL(38,0)) * CAST('10000000000000000000000000000000000000' "
        "AS DECIMAL(38,0)) AS m FROM nation WHERE n_nationkey < 3",
        "SELECT sum(CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0))) AS s FROM nation",
    ],
)
def test_a_decimal_beyond_38_digits_stops_the_run(spark, tables, tpch_dir, sql):
    """DataFusion's engine gives a product of 39 digits, and wraps a sum beyond 128 bits; Spark holds 38
    digits and would give null, a value that looks like one: the run stops and says why."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match="more than 38 digits"):
        _run(sql, tables, "optimized", tpch_dir)


@pytest.mark.parametrize(
    "sql, said",
    [
        ("SELECT INTERVAL '1 month' = INTERVAL '30 days' AS e FROM nation", "equal of an interval of months"),
        ("SELECT INTERVAL '1 month' + INTERVAL '3 days' AS e FROM nation", "add of an interval of months"),
    ],
)
def test_an_interval_of_months_with_one_of_days_is_refused(spark, tables, tpch_dir, sql, said):
    """As written, DataFusion compares and adds an interval of months and one of days in its month-day-nano
    interval (its engine gives false, and 1 month 3 days); Spark has neither: the run says so, where it
    stopped on Spark's analysis error."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match=said):
        _run(sql, tables, "written", tpch_dir)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT array_sort([[n_regionkey, NULL], [n_regionkey, 1], NULL], 'ASC', 'NULLS LAST') AS al FROM nation",
        "SELECT array_sort([[n_regionkey, NULL], NULL, [n_regionkey], [n_regionkey, 1]], 'DESC') AS d FROM nation",
    ],
)
def test_a_sort_of_lists_holding_nulls_where_spark_orders_them_otherwise_is_refused(spark, tables, tpch_dir, sql):
    """DataFusion's engine puts the nulls inside each list where the call puts null lists ([0, 1] before
    [0, null] in ASC NULLS LAST); Spark's sort puts them first: refused, not run to another order."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match="orders the nulls inside each element"):
        _run(sql, tables, "written", tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_median_and_an_average_of_decimals_are_datafusions_decimals(spark, tables, tpch_dir, form):
    """DataFusion's median of decimals is a decimal, the two middle values' mean cut toward zero (-282.405
    is -282.40; Spark's median is the double); its average of a decimal<15,2> has six places (the YAMLs'
    two). Compared exactly with DataFusion's engine running the SQL."""
    import datafusion

    sql = (
        "SELECT c_mktsegment, median(c_acctbal) AS m, median(-c_acctbal) AS n, avg(c_acctbal) AS a "
        "FROM customer WHERE c_acctbal < 500 GROUP BY 1"
    )
    ctx = datafusion.SessionContext()
    ctx.register_parquet("customer", tables["customer"])
    want = sorted(tuple(r.values()) for r in ctx.sql(sql).to_pylist())
    _, result = _run(sql, tables, form, tpch_dir)
    got = sorted(_rows(result))
    assert [tuple(str(v) for v in r) for r in got] == [tuple(str(v) for v in r) for r in want]
    assert any(str(r[1]).endswith(("0", "5")) for r in want)  # a mean of two middle values among them


@pytest.mark.parametrize(
    "sql, said",
    [
        (
            "SELECT to_timestamp(concat('05/03/', CAST(60 + n_nationkey AS VARCHAR), ' 10:11'), '%d/%m/%y %H:%M') "
            "AS t FROM nation",
            "%y of",
        ),
        (
            "SELECT to_timestamp(concat('2020-01-01 00:00:01 ', CAST(n_nationkey + 100 AS VARCHAR)), "
            "'%Y-%m-%d %H:%M:%S %f') AS t FROM nation",
            "%f of",
        ),
        (
            "SELECT to_timestamp(concat('Mon 5 Jan 2015 ', CAST(n_nationkey % 24 AS VARCHAR), ':00'), "
            "'%a %d %b %Y %H:%M') AS t FROM nation",
            "%a of",
        ),
        ("SELECT date_trunc('decade', o_orderdate) AS d FROM orders", "date_trunc to 'decade'"),
    ],
)
def test_a_format_or_unit_spark_reads_otherwise_is_refused(spark, tables, tpch_dir, sql, said):
    """chrono reads %y 70 as 1970 (Java's yy, 2070), %f as a count of nanoseconds (Java, a fraction), and
    Spark parses no weekday names; Spark truncates to a decade, which DataFusion refuses: each refused by
    name (checked by hand against DataFusion's engine), where the run gave other rows or Spark's error."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match=said):
        _run(sql, tables, "written", tpch_dir)


def test_a_range_frame_near_an_integers_limits_counts_its_rows(spark, tables, tpch_dir):
    """RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING over int and bigint keys near their limits: Spark works
    each edge out in the key's type, which wrapped and emptied the frame (counts of 0); the run widens the
    key, and the counts are those of DataFusion's engine running the SQL (the optimized form keeps the
    frame; the written one loses it, the producer's doing)."""
    import datafusion

    sql = (
        "SELECT k, count(*) OVER (ORDER BY k RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS c, "
        "count(*) OVER (ORDER BY b DESC RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS d FROM ("
        "SELECT CAST(2147483645 + n_nationkey % 3 AS INT) AS k, 9223372036854775805 + n_nationkey % 3 AS b "
        "FROM nation UNION ALL SELECT CAST(-2147483647 + n_nationkey % 3 AS INT), "
        "-9223372036854775807 + n_nationkey % 3 FROM nation) t"
    )
    ctx = datafusion.SessionContext()
    ctx.register_parquet("nation", tables["nation"])
    want = sorted(tuple(r.values()) for r in ctx.sql(sql).to_pylist())
    _, result = _run(sql, tables, "optimized", tpch_dir)
    assert sorted(_rows(result)) == want and min(r[1] for r in want) > 0


@pytest.mark.parametrize(
    "sql, said",
    [
        (
            "SELECT sum(n_regionkey) OVER (ORDER BY n_nationkey ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) AS s "
            "FROM nation",
            "ends before it starts",
        ),
        (
            "SELECT nth_value(n_nationkey, -1) OVER (ORDER BY n_nationkey ROWS BETWEEN UNBOUNDED PRECEDING AND "
            "UNBOUNDED FOLLOWING) AS s FROM nation",
            "counts from the frame's end",
        ),
        (
            "SELECT n_nationkey, ntile(0) OVER (ORDER BY n_nationkey) AS b FROM nation",
            r"ntile\(0\): the number of buckets must be a positive integer",
        ),
    ],
)
def test_a_window_spark_does_not_take_is_refused_by_name(spark, tables, tpch_dir, sql, said):
    """A frame that ends before it starts (DataFusion's is empty: a null sum), nth_value from the end and
    ntile of no buckets (which DataFusion's engine refuses too): Spark's analysis refused each with its own
    error, which quoted its rewriting of the plan; the run says why."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match=said):
        _run(sql, tables, "optimized", tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_distinct_sum_of_decimals_beyond_38_digits_stops(spark, tables, tpch_dir, form):
    """DataFusion's engine wraps a DISTINCT sum of decimals beyond 38 digits into a wrong number (its
    plain sum stops); Spark's is null. The run stops, as a plain sum's does, with neither's answer."""
    import datafusion

    from executor.errors import ExecutionError

    sql = "SELECT sum(DISTINCT CAST(l_extendedprice AS DECIMAL(38,32))) AS a FROM lineitem WHERE l_orderkey < 100"
    ctx = datafusion.SessionContext()
    ctx.register_parquet("lineitem", tables["lineitem"])
    [wrapped] = [r["a"] for r in ctx.sql(sql).to_pylist()]
    exact = _duckdb(tables, sql.replace("DECIMAL(38,32)", "DECIMAL(38,2)"))[0][0]
    assert wrapped != exact  # the oracle: DataFusion's number is not the sum
    with pytest.raises(ExecutionError, match="more than 38 digits"):
        _run(sql, tables, form, tpch_dir)


@pytest.mark.parametrize(
    "sql, said",
    [
        (
            "SELECT o_orderdate + CASE WHEN o_orderkey % 2 = 0 THEN INTERVAL '1 month' ELSE INTERVAL '2 months' END "
            "AS a FROM orders WHERE o_orderkey < 40",
            "a date moved by an interval that is not a literal",
        ),
        (
            "SELECT CAST(from_unixtime(CAST(o_orderkey AS BIGINT) * 3600, '+05:00') AS VARCHAR) AS a FROM orders",
            "from_unixtime in a time zone other than UTC",
        ),
        (
            "SELECT CASE WHEN n_nationkey > 1 THEN INTERVAL '1 month' ELSE INTERVAL '1 day 2 hours' END AS i "
            "FROM nation",
            "intervals of months and intervals of days or time as one value",
        ),
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_intervals_and_zones_spark_cannot_hold_are_refused_by_name(spark, tables, tpch_dir, sql, said, form):
    """A date plus a CASE of month intervals came out a day off (the interval counted as days since 1970),
    from_unixtime's zone was dropped (its hours were UTC's), and a CASE of month and day intervals stopped
    with Spark's own type error: each now says why it does not run."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match=said):
        _run(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_date_of_more_days_than_an_int_holds_stops(spark, tables, tpch_dir, form):
    """An integer is a date as a number of days from 1970-01-01, which DataFusion holds in an i32: one beyond
    stops there (checked below), and the run stops too, where Spark's cast would have wrapped it."""
    import datafusion

    from executor.errors import ExecutionError

    sql = "SELECT CAST(n_nationkey * 1000000000 AS DATE) AS d FROM nation"
    ctx = datafusion.SessionContext()
    ctx.register_parquet("nation", tables["nation"])
    with pytest.raises(Exception, match="Can't cast value 3000000000 to type Int32"):
        ctx.sql(sql).to_pylist()
    with pytest.raises(ExecutionError, match=r"cannot cast '\d+' to date \(days beyond an i32\)"):
        _run(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_product_of_four_rates_groups_as_duckdb_does(spark, tables, tpch_dir, form):
    """DataFusion declares the product of four ``decimal(15,2)`` rates a ``decimal(38,8)``; Spark's own
    product keeps 6 digits, so 1e-8 grouped with 0 (80 rows where DuckDB counts 45): each digit kept."""
    sql = (
        "SELECT l_discount * l_tax * l_discount * l_tax AS k, count(*) AS c FROM lineitem WHERE l_orderkey < 200 "
        "GROUP BY 1 ORDER BY 1 LIMIT 5"
    )
    _like_duckdb(sql, tables, form, tpch_dir)


_REGIONS_AND_A_NULL = "(SELECT CASE WHEN r_regionkey = 4 THEN NULL ELSE r_regionkey END FROM region)"


def test_in_and_not_in_as_any_and_all_are_unknown_where_sql_says(spark, tables, tpch_dir):
    """``x = ANY`` and ``x <> ALL`` over 0, 1, 2, 3 and a null: unknown for 4 and 5, by hand and as DuckDB
    says; Spark's own IN in a projection gives false there (a hunt found it)."""
    sql = (
        f"SELECT n_nationkey, n_nationkey = ANY {_REGIONS_AND_A_NULL} AS a, n_nationkey <> ALL {_REGIONS_AND_A_NULL} "
        "AS b FROM nation WHERE n_nationkey BETWEEN 3 AND 5 ORDER BY 1"
    )
    _, result = _run(sql, tables, "written", tpch_dir)
    assert _rows(result) == [(3, True, False), (4, None, None), (5, None, None)] == _duckdb(tables, sql)


@pytest.mark.parametrize("form", FORMS)
def test_an_unknown_any_is_kept_by_is_null(spark, tables, tpch_dir, form):
    """The 21 nation keys beyond 0..3 compare unknown with a list holding a null (by hand; DuckDB agrees)."""
    sql = f"SELECT count(*) AS c FROM nation WHERE (n_nationkey = ANY {_REGIONS_AND_A_NULL}) IS NULL"
    _, result = _run(sql, tables, form, tpch_dir)
    assert _rows(result) == [(21,)] == _duckdb(tables, sql)


@pytest.mark.parametrize("form", FORMS)
def test_a_date_after_year_9999_or_in_year_0_is_shown_as_text(spark, tables, tpch_dir, form):
    """DataFusion's optimizer folds ``DATE '9999-12-31' + 1 day`` into a date literal of 2,932,897 days, which
    Python's dates cannot hold (the run had stopped with an internal error); as written Spark adds the day.
    Both show the day after, by hand, as text and say so; a filter against it counts every order."""
    _, result = _run("SELECT DATE '9999-12-31' + INTERVAL '1 day' AS d", tables, form, tpch_dir)
    assert list(result.rows.iloc[:, 0]) == ["10000-01-01"]
    assert any("after 9999, shown as text" in w for w in result.warnings)
    # year 0, which Python's dates start after (the run had stopped with an internal error: "ordinal must be >= 1")
    _, result = _run("SELECT DATE '0000-01-01' AS d", tables, form, tpch_dir)
    assert list(result.rows.iloc[:, 0]) == ["0000-01-01"]
    assert any("a year before 1 or after 9999, shown as text" in w for w in result.warnings)
    sql = "SELECT count(*) AS c FROM orders WHERE o_orderdate < DATE '9999-12-31' + INTERVAL '1 day'"
    _, result = _run(sql, tables, form, tpch_dir)
    assert _rows(result) == _duckdb(tables, sql) == [(15000,)]


def test_a_cast_of_a_cast_that_overflows_stops_as_datafusion_does(spark, tables, tpch_dir):
    """DataFusion writes VALUES of a decimal(38,0) and a decimal(38,37) as casts to decimal(38,37); 100 does
    not fit, and its engine stops. The run had read the innermost literal ('100', text) as the value to
    check, let Spark's cast through, and showed a null (a second hunt found it)."""
    from executor.errors import ExecutionError

    sql = "SELECT x FROM (VALUES (CAST('100' AS DECIMAL(38,0))), (CAST('0.5' AS DECIMAL(38,37)))) t(x)"
    with pytest.raises(ExecutionError, match="cannot cast '100' to decimal"):
        _run(sql, tables, "written", tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_repeat_count_beyond_an_int_is_not_wrapped(spark, tables, tpch_dir, form):
    """repeat(s, n) with n beyond a 32-bit int: nothing, as DuckDB says (and DataFusion); Spark's cast of
    the count had wrapped -4294967295 to 1 and -4294967294 to 2."""
    sql = "SELECT n_nationkey, repeat(n_name, n_nationkey - 4294967296) AS r FROM nation WHERE n_nationkey < 3"
    _like_duckdb(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_limit_beyond_what_spark_takes_runs_without_it_and_says_so(spark, tables, tpch_dir, form):
    """LIMIT 2^31 (more than Spark's limit, a Java int, takes): every row, as DuckDB gives, and a note; it
    had failed with a Py4J error that said nothing."""
    sql = "SELECT n_nationkey FROM nation ORDER BY n_nationkey LIMIT 2147483648"
    notes = _like_duckdb(sql, tables, form, tpch_dir)
    assert any("a limit of 2,147,483,648 rows, more than Spark's limit takes" in n for n in notes), notes


@pytest.mark.parametrize("form", FORMS)
def test_an_offset_beyond_what_spark_takes_stops_and_says_why(spark, tables, tpch_dir, form):
    from executor.errors import ExecutionError

    sql = "SELECT n_nationkey FROM nation ORDER BY n_nationkey OFFSET 2147483648"
    with pytest.raises(ExecutionError, match=r"an offset of 2,147,483,648 rows: Spark's offset skips at most"):
        _run(sql, tables, form, tpch_dir)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT o_orderstatus, count(*) * 1.0 / (SELECT count(*) FROM orders) AS share FROM orders "
        "GROUP BY o_orderstatus",
        "SELECT n_nationkey, CAST(n_nationkey AS DOUBLE) % (SELECT count(*) FROM region) AS m FROM nation",
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_a_scalar_subquery_as_an_operand_runs(spark, tables, tpch_dir, form, sql):
    """A share of the total (a division by a scalar subquery) and a remainder by one: Spark takes no
    subquery inside a lambda, and a division computes its operands once in one; the run had failed."""
    _like_duckdb(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_regressions_of_decimals_are_doubles_to_the_last_digit(spark, tables, tpch_dir, form):
    """regr_avgx and regr_avgy take Float64 (DataFusion casts a decimal argument, as written): the mean of
    0, 0 and 2 is 0.6666666666666666, as DuckDB says; Spark's own of the decimals had been 0.6667 (a decimal
    average four places longer), which passed any comparison within a decimal's last place."""
    sql = (
        "SELECT regr_avgx(n_nationkey, CAST(n_regionkey AS DECIMAL(10,0))) AS ax, "
        "regr_avgy(CAST(n_regionkey AS DECIMAL(10,0)), n_nationkey) AS ay, "
        "regr_sxx(n_nationkey, CAST(n_regionkey AS DECIMAL(10,0))) AS sxx FROM nation WHERE n_nationkey IN (0, 1, 3)"
    )
    _, result = _run(sql, tables, form, tpch_dir)
    [got] = _rows(result)
    [want] = _duckdb(tables, sql)
    assert all(isinstance(v, float) for v in got), got
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12) and want[0] == pytest.approx(2 / 3, rel=1e-12)


@pytest.fixture(scope="module")
def rewrite_tables(tmp_path_factory) -> dict[str, str]:
    """Strings whose case mapping changes their length, and a negative zero beside a positive one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("rewrites")
    tables = {
        "cs": pa.table({"id": pa.array([1, 2, 3, 4], pa.int32()), "s": ["ß", "ﬁ", "ẞ", "ŉ"]}),
        "z": pa.table({"id": pa.array([1, 2, 3], pa.int32()), "f": pa.array([-0.0, 0.0, 1.0], pa.float64())}),
        "z2": pa.table({"id": pa.array([1, 2], pa.int32()), "f": pa.array([0.0, -0.0], pa.float64())}),
    }
    for name, table in tables.items():
        pq.write_table(table, str(folder / f"{name}.parquet"))
    return {name: str(folder / f"{name}.parquet") for name in tables}


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT cs.id, lower(upper(cs.s)) AS lu FROM cs ORDER BY cs.id",
        "SELECT z.id, 1 / z.f AS inv FROM z WHERE z.f = 0 AND 1 / z.f < 0 ORDER BY z.id",
        "SELECT z.f, count(*) AS c FROM z GROUP BY z.f HAVING z.f = 0 AND 1 / z.f < 0 ORDER BY 1",
        # Spark's max and min keep whichever zero comes first; -0.0 is below 0.0 (IEEE's total order)
        "SELECT 1 / max(z.f) AS inv_max, 1 / min(z.f) AS inv_min FROM z WHERE z.id <= 2",
        "SELECT 1 / max(z2.f) AS inv_max, 1 / min(z2.f) AS inv_min FROM z2",
        "SELECT z2.id, 1 / max(z2.f) OVER () AS inv_max FROM z2 ORDER BY z2.id",
    ],
)
@pytest.mark.parametrize("form", FORMS)
def test_spark_rewrites_that_change_values_are_not_applied(spark, rewrite_tables, form, sql):
    """Spark's optimizer made lower(upper(s)) lower(s) ('ß' stayed 'ß'; upper makes it 'SS', so DataFusion
    gives 'ss', worked by hand with Unicode's full case mapping), and replaced z.f by 0 in 1 / z.f < 0 once
    z.f = 0 was known, so the run's check of -0.0's sign read 0's and the row of -0.0 (1 / -0.0 = -inf)
    was lost; max and min of -0.0 and 0.0 took whichever came first (1 / max is inf, 1 / min -inf, by
    hand). DataFusion's engine gives the rows."""
    from executor.jobs.run import run_node

    folder = os.path.dirname(rewrite_tables["cs"])
    model = analyze(sql_to_plan(sql, rewrite_tables, form=form).data)
    result = run_node(model, model.roots[0], catalog=Catalog(data_roots=[folder], use_spark_catalog=False), limit=100)
    want = _datafusion_rows(rewrite_tables, sql)
    assert _rows(result) == want and want, (_rows(result), want)


def test_what_a_plan_s_own_values_stop_is_said_in_words(spark, tables, tpch_dir):
    """A scalar subquery of more than one row and a pattern that is no regular expression stop every engine;
    the run said Spark's text (its SCALAR_SUBQUERY_TOO_MANY_ROWS, a pattern as the translation rewrote it,
    Java's index into it). Now the words say what of the plan stopped it (a hunt found both)."""
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match="stopped: a scalar subquery gave more than one row, where it may give"):
        _run("SELECT (SELECT n_nationkey FROM nation) AS x", tables, "written", tpch_dir)
    with pytest.raises(ExecutionError, match=r"stopped: a regular expression of the plan is not a valid one") as e:
        _run("SELECT regexp_replace(n_name, '(', 'x') AS r FROM nation", tables, "written", tpch_dir)
    assert "vzbefore" not in str(e.value) and "SQLSTATE" not in str(e.value)
    with pytest.raises(ExecutionError, match=r"not a valid one \(Unclosed character class\)$"):
        _run("SELECT regexp_like(n_name, '[') AS r FROM nation", tables, "written", tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_floats_text_is_one_call_where_spark_takes_it_and_the_same_digits_where_not(spark, tables, tpch_dir, form):
    """A double's text is one call of Java 19's shortest text (Schubfach, in Spark's jackson-core) in a
    projection; as an aggregate function's argument, where Spark refuses such a call, it is made from
    Spark's own expressions. DataFusion's digits either way (order 544's is 6.716049322271604e17; Java
    17's own text ends in ...605E17)."""
    from executor.engines.sql_plan import DataFusionEngine
    from executor.translate.rel import translate

    value = "CAST(CAST(o_orderkey AS DOUBLE) * 1234567.8901234567e9 AS VARCHAR)"
    projected = f"SELECT o_orderkey, {value} AS a FROM orders WHERE o_orderkey IN (1, 544, 2999) ORDER BY o_orderkey"
    aggregated = (
        f"SELECT string_agg({value}, ',' ORDER BY o_orderkey) AS a FROM orders WHERE o_orderkey IN (1, 544, 2999)"
    )
    catalog = Catalog(data_roots=[tpch_dir], use_spark_catalog=False)
    for sql, by_call in ((projected, True), (aggregated, False)):
        model, result = _run(sql, tables, form, tpch_dir)
        want = [tuple(r.values()) for r in DataFusionEngine(tables).run(sql).table.to_pylist()]
        assert _rows(result) == want, (form, sql)
        df = translate(model, model.roots[0], spark, catalog).df
        assert ("reflect(" in df._jdf.queryExecution().analyzed().toString()) is by_call, (form, sql)
    assert "6.716049322271604e17" in str(want)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT string_agg(r_name, substr(r_name, 1, 1) ORDER BY r_name) AS s FROM region",
        "SELECT r_regionkey, string_agg(r_name, substr(r_name, 1, 1)) AS s FROM region GROUP BY r_regionkey",
    ],
)
def test_string_agg_with_a_separator_that_is_not_a_literal_is_refused(spark, tables, tpch_dir, sql):
    """DataFusion's engine refuses a separator that is not a literal; Spark's listagg failed on its own
    analysis (MISSING_GROUP_BY) without a GROUP BY, and took one row's separator with one (a hunt)."""
    from executor.errors import ExecutionError

    for form in ("written", "optimized"):
        with pytest.raises(ExecutionError, match="string_agg with a separator that is not a literal"):
            _run(sql, tables, form, tpch_dir)


@pytest.mark.parametrize("form", FORMS)
def test_a_window_over_a_float_key_says_how_it_takes_signed_zeros(spark, tables, tpch_dir, form):
    """-0.0 and 0.0 in a window's partition: the run takes them as one value, as DuckDB does (its rows
    checked against DuckDB's), and says so once per window, where DataFusion's engine puts them apart; a window over an
    integer key says nothing of it."""
    sql = (
        "SELECT o_orderkey, rank() OVER (PARTITION BY z ORDER BY o_orderkey) AS r, "
        "count(*) OVER (PARTITION BY z) AS c FROM (SELECT o_orderkey, CASE WHEN o_orderkey % 2 = 0 "
        "THEN CAST('-0.0' AS DOUBLE) ELSE CAST('0.0' AS DOUBLE) END AS z FROM orders WHERE o_orderkey < 40) AS t"
    )
    notes = [n for n in _like_duckdb(sql, tables, form, tpch_dir) if "-0.0 and 0.0" in n]
    nodes = [n.split(":")[0] for n in notes]  # each window's node, once (two functions over one window)
    assert notes and len(nodes) == len(set(nodes)), notes
    assert all("DataFusion's engine partitions and ranks them apart" in n for n in notes)
    ints = (
        "SELECT o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS r FROM orders "
        "WHERE o_orderkey < 40"
    )
    assert not [n for n in _like_duckdb(ints, tables, form, tpch_dir) if "-0.0" in n]
