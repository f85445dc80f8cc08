"""SQL to plan with DataFusion's Substrait producer: the plans load in our model, run on Spark with
the same rows as DuckDB running the same SQL over the same files, and bad or unsafe SQL gives a
``SqlError`` that says why.
"""

from __future__ import annotations

import json
import os
import time

import duckdb
import pytest

from executor.data.catalog import Catalog
from executor.engines.sql_plan import (
    MAX_SQL_CHARS,
    SqlError,
    SqlPlan,
    catalog_tables,
    sql_to_plan,
)
from tests.support import ROOT
from tests.support import exec_oracle as oracle
from ui.sql_examples import (
    EXAMPLES,
    TPCH_Q01,
    TPCH_Q03,
    TPCH_Q05,
    TPCH_Q06,
    TPCH_Q10,
    TUTORIAL_SQL,
)
from viz.errors import Severity
from viz.model import analyze

TUTORIAL = os.path.join(ROOT, "sample_data", "tutorial")

#: TPC-H q04 has a correlated EXISTS: DataFusion's producer needs its optimized (decorrelated) plan.
TPCH_Q04 = """\
SELECT o_orderpriority, count(*) AS order_count FROM orders
WHERE o_orderdate >= CAST('1993-07-01' AS date) AND o_orderdate < CAST('1993-10-01' AS date)
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority ORDER BY o_orderpriority"""

TPCH_QUERIES = {"q01": TPCH_Q01, "q03": TPCH_Q03, "q04": TPCH_Q04, "q05": TPCH_Q05, "q06": TPCH_Q06, "q10": TPCH_Q10}


@pytest.fixture(scope="module")
def tutorial_tables() -> dict[str, str]:
    return catalog_tables(Catalog(data_roots=[TUTORIAL]))


@pytest.fixture(scope="module")
def tpch_tables(tpch_dir) -> dict[str, str]:
    return catalog_tables(Catalog(data_roots=[tpch_dir]))


def _errors(model) -> list[str]:
    return [f"{d.node}: {d.code}: {d.message}" for d in model.all_diagnostics() if d.severity is Severity.ERROR]


# ---- the tables a catalog offers --------------------------------------------------------------


def test_catalog_tables_lists_bindings_and_root_tables(tmp_path, tpch_dir):
    (tmp_path / "extra.csv").write_text("a,b\n1,2\n")
    catalog = Catalog(data_roots=[TUTORIAL, str(tmp_path), tpch_dir])
    catalog.bind("sales", os.path.join(TUTORIAL, "orders.parquet"))
    catalog.bind("tpch.nation", os.path.join(tpch_dir, "nation.parquet"))
    tables = catalog_tables(catalog)
    assert tables["orders"] == os.path.join(TUTORIAL, "orders.parquet")  # the first root wins, as in plans
    assert tables["sales"] == os.path.join(TUTORIAL, "orders.parquet")
    assert tables["nation"] == os.path.join(tpch_dir, "nation.parquet")
    assert tables["extra"] == str(tmp_path / "extra.csv")
    assert "lineitem" in tables and "products" in tables


# ---- plans: they load, and they run on Spark like DuckDB runs the SQL ----------------------


def _duckdb(tables: dict[str, str]):
    con = duckdb.connect()
    con.execute("SET threads = 1")
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")

    def run(sql: str):
        cur = con.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()

    return run


def _check_runs_like_duckdb(sql: str, tables: dict[str, str], root: str, label: str) -> SqlPlan:
    from executor.jobs.run import run_node

    start = time.perf_counter()
    made = sql_to_plan(sql, tables)
    produced_s = time.perf_counter() - start
    json.loads(made.data)  # protobuf JSON text
    model = analyze(made.data)
    assert model.loaded.format == "json"
    assert not _errors(model), _errors(model)
    assert model.plan.version.producer == "datafusion"
    catalog = Catalog(data_roots=[root], use_spark_catalog=False)
    result = run_node(model, model.roots[0], catalog=catalog, limit=1000, count=True)
    got = [tuple(r) for r in result.rows.itertuples(index=False)]
    verdict = oracle.compare(got, sql, _duckdb(tables))
    print(
        f"{label}: {len(got)} rows, produced in {produced_s * 1000:.0f} ms, ran in {result.elapsed_s:.2f} s; "
        f"{'same as DuckDB' if verdict.ok else 'DIFFERENT: ' + verdict.reason} {verdict.reason if verdict.ok else ''}"
    )
    assert verdict.ok, f"{label}: {verdict.reason}"
    assert result.row_count == len(got) > 0
    return made


def test_tutorial_sql_becomes_the_tutorial_plan(tutorial_tables):
    made = sql_to_plan(TUTORIAL_SQL, tutorial_tables)
    assert made.tables_used == ["orders", "products"]
    assert made.warnings == [] and not made.optimized
    model = analyze(made.data)
    assert not _errors(model), _errors(model)
    kinds = [v.kind for v in model.nodes()]
    assert sorted(kinds) == ["aggregate", "filter", "join", "project", "read", "read"]
    assert model.graph.root_names[model.roots[0]] == ["product_name", "product_id", "sales"]
    functions = {e.extension_function.name for e in model.plan.extensions}
    assert {"array_position", "is_null", "multiply", "sum", "equal"} <= functions


def test_tutorial_sql_runs_like_duckdb(spark, tutorial_tables):
    _check_runs_like_duckdb(TUTORIAL_SQL, tutorial_tables, TUTORIAL, "tutorial")


def test_tutorial_join_and_aggregate_run_like_duckdb(spark, tutorial_tables):
    sql = (
        "SELECT p.product_name, count(*) AS n, sum(o.quantity * o.price) AS sales, min(o.order_date) AS first "
        "FROM orders o JOIN products p ON o.product_id = p.product_id WHERE o.quantity > 1 "
        "GROUP BY p.product_name ORDER BY sales DESC, p.product_name"
    )
    made = _check_runs_like_duckdb(sql, tutorial_tables, TUTORIAL, "tutorial join + aggregate")
    assert made.tables_used == ["orders", "products"]


@pytest.mark.parametrize("name", sorted(TPCH_QUERIES))
def test_tpch_sql_becomes_a_plan_that_runs_like_duckdb(spark, tpch_dir, tpch_tables, name):
    made = _check_runs_like_duckdb(TPCH_QUERIES[name], tpch_tables, tpch_dir, f"TPC-H {name}")
    assert made.optimized == (name == "q04"), made.warnings
    if name == "q04":
        assert "correlated subqueries" in made.warnings[0]


def test_the_page_examples_all_become_plans(tutorial_tables, tpch_tables):
    for title, example in EXAMPLES.items():
        made = sql_to_plan(example.sql, tutorial_tables if example.data == "tutorial" else tpch_tables)
        assert not _errors(analyze(made.data)), title


def test_binary_output_is_the_same_plan(tutorial_tables):
    as_json = analyze(sql_to_plan(TUTORIAL_SQL, tutorial_tables).data)
    as_binary = analyze(sql_to_plan(TUTORIAL_SQL, tutorial_tables, json=False).data)
    assert as_binary.loaded.format == "binary"
    # DataFusion numbers its function anchors in hash order, so compare what the plans say, not bytes
    assert [(v.id, v.kind, [f.name for f in v.schema]) for v in as_binary.nodes()] == [
        (v.id, v.kind, [f.name for f in v.schema]) for v in as_json.nodes()
    ]
    assert [t for _, t in as_binary.node("0.0.0").info.expressions] == [
        t for _, t in as_json.node("0.0.0").info.expressions
    ]


def test_implicit_casts_are_explicit(tpch_tables):
    # the plan as written would call subtract(i64, decimal); the analyzed plan casts the 1 to a decimal
    model = analyze(sql_to_plan("SELECT 1 - l_discount AS x FROM lineitem", tpch_tables).data)
    texts = [t for _, t in model.node(model.roots[0]).info.expressions]
    assert any("subtract(cast(" in t.lower() and "decimal" in t.lower() for t in texts), texts


def test_csv_tables_can_be_planned(tmp_path):
    (tmp_path / "people.csv").write_text("name,age\nada,36\nalan,41\n")
    made = sql_to_plan("SELECT name FROM people WHERE age > 40", catalog_tables(Catalog(data_roots=[str(tmp_path)])))
    model = analyze(made.data)
    reads = [v for v in model.nodes() if v.kind == "read"]
    assert [f.name for f in reads[0].schema] == ["name", "age"]
    assert made.tables_used == ["people"]


# ---- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELEC product_id FROM orders", "SQL syntax error: Expected: an SQL statement, found: SELEC"),
        ("SELECT product_id FROM orders WHERE", "SQL syntax error: Expected: an expression"),
        ("SELECT * FROM nope", "table 'nope' is not bound; bound tables: orders, products"),
        ("SELECT nope FROM orders", "No field named nope."),
        ("", "enter a SQL query"),
        ("-- a comment\n/* and another */\n", "enter a SQL query"),
        ("/* a /* nested */ comment */", "enter a SQL query"),
        ("SELECT 1; SELECT 2", "enter one query"),
        ("CREATE TABLE t AS SELECT 1", "only queries can become a plan"),
        ("DROP TABLE orders", "this statement starts with DROP"),
        ("INSERT INTO orders VALUES (1, 2, '2020-01-01', 3.5)", "this statement starts with INSERT"),
        ("COPY orders TO '/tmp/out.csv'", "this statement starts with COPY"),
        ("SET datafusion.execution.batch_size = 1", "this statement starts with SET"),
        ("EXPLAIN SELECT * FROM orders", "this statement starts with EXPLAIN"),
        ("SELECT * FROM orders o, LATERAL (SELECT o.quantity) t", "DataFusion cannot turn this query into Substrait"),
        ("SELECT * FROM generate_series(1, 3)", "'generate_series()', which is not a bound table"),
    ],
)
def test_bad_sql_gives_a_clear_error(tutorial_tables, sql, expected):
    with pytest.raises(SqlError) as info:
        sql_to_plan(sql, tutorial_tables)
    message = str(info.value)
    assert expected in message
    assert "backtrace" not in message.lower() and "DFSchema" not in message and len(message) < 600


def test_a_query_the_optimizer_fails_on_gives_a_clear_error(tutorial_tables):
    """The optimized form folds constants, and a text that is no date fails there (TPC-DS 58 and 83)."""
    sql = "SELECT product_id FROM orders WHERE order_date = CAST('not a date' AS DATE)"
    with pytest.raises(SqlError) as info:
        sql_to_plan(sql, tutorial_tables, form="optimized")
    message = str(info.value)
    assert "DataFusion's optimizer fails on the query" in message and "not a date" in message
    assert "backtrace" not in message.lower() and len(message) < 600


def test_unknown_column_lists_the_valid_ones(tutorial_tables):
    with pytest.raises(SqlError, match=r"Valid fields are .*orders\.quantity"):
        sql_to_plan("SELECT qty FROM orders", tutorial_tables)


def test_sql_length_is_limited(tutorial_tables):
    sql = "SELECT 1" + " " * MAX_SQL_CHARS
    with pytest.raises(SqlError, match="at most 100,000"):
        sql_to_plan(sql, tutorial_tables)


# ---- nothing outside the bound tables is read ----------------------------------------------


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT * FROM read_parquet('{secret}')", "table function 'read_parquet' is not available"),
        ("SELECT * FROM read_csv('{secret}')", "table function 'read_csv' is not available"),
        ("SELECT * FROM '{secret}'", "is not bound; bound tables: orders, products"),
        ('SELECT * FROM "{secret}"', "is not bound; bound tables: orders, products"),
        ("CREATE EXTERNAL TABLE s STORED AS CSV LOCATION '{secret}'", "this statement starts with CREATE"),
        ("/* hi */ -- there\n create external table s stored as csv location '{secret}'", "starts with CREATE"),
        ("SELECT * FROM information_schema.tables", "is not bound"),
        ("WITH x AS (SELECT 1) SELECT * FROM parquet_metadata('{secret}')", "'parquet_metadata' is not available"),
    ],
)
def test_files_outside_the_bound_tables_cannot_be_read(tmp_path, tutorial_tables, sql, expected):
    secret = tmp_path / "secret.csv"
    secret.write_text("password\nhunter2\n")
    with pytest.raises(SqlError) as info:
        sql_to_plan(sql.replace("{secret}", str(secret)), tutorial_tables)
    assert expected in str(info.value)
    assert "hunter2" not in str(info.value) and "password" not in str(info.value)


@pytest.mark.parametrize(
    "sql",
    ["CREATE EXTERNAL TABLE s STORED AS CSV LOCATION '{secret}'", "COPY (SELECT 1) TO '{out}'", "SET a.b = 1"],
)
def test_datafusion_refuses_ddl_dml_and_statements_too(tmp_path, sql):
    # the second guard, behind the first-word check: DataFusion plans with DDL, DML and statements off
    from executor.engines.sql_plan import _context, _plan

    secret = tmp_path / "secret.csv"
    secret.write_text("password\nhunter2\n")
    ctx, registered, _ = _context({}, optimize=False)
    with pytest.raises(SqlError, match="only queries can become a plan"):
        _plan(ctx, sql.format(secret=secret, out=tmp_path / "out.csv"), registered)
    assert not ctx.table_exist("s")
    assert not (tmp_path / "out.csv").exists()


def test_a_plan_known_not_to_mean_its_sql_says_so(tpch_tables):
    """DataFusion 55's producer writes a RANGE frame with offsets as unbounded (read back by its own
    consumer, the frame is another), and its planner makes EXCEPT ALL an anti join: the plan made says
    so, and a frame it keeps (ROWS) says nothing."""
    ranged = (
        "SELECT l_orderkey, sum(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_quantity "
        "RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) AS s FROM lineitem WHERE l_orderkey <= 3"
    )
    for form in ("written", "analyzed"):
        made = sql_to_plan(ranged, tpch_tables, form=form)
        (said,) = made.not_the_sql
        assert said.startswith(
            "DataFusion's Substrait producer does not keep the window frame RANGE BETWEEN 5 PRECEDING AND 5 "
            "FOLLOWING: the plan has RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
        )
        assert said in made.warnings  # shown where the plan is made
    # an interval offset is dropped the same way, and DataFusion writes it in words
    by_days = (
        "SELECT o_orderdate, count(*) OVER (ORDER BY o_orderdate RANGE BETWEEN INTERVAL '30 days' PRECEDING "
        "AND CURRENT ROW) AS c FROM orders WHERE o_orderkey < 200"
    )
    (said,) = sql_to_plan(by_days, tpch_tables, form="written").not_the_sql
    assert said.startswith(
        "DataFusion's Substrait producer does not keep the window frame RANGE BETWEEN 30 days PRECEDING AND "
        "CURRENT ROW: the plan has RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    )
    # in SQL's own interval syntax, DataFusion writes the unit in capitals (the frame went unsaid)
    (said,) = sql_to_plan(by_days.replace("'30 days'", "'30' DAY"), tpch_tables, form="written").not_the_sql
    assert said.startswith("DataFusion's Substrait producer does not keep the window frame RANGE BETWEEN 30 DAY ")
    rows = (
        "SELECT n_nationkey, sum(n_nationkey) OVER (ORDER BY n_nationkey ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) "
        "FROM nation"
    )
    assert sql_to_plan(rows, tpch_tables, form="written").not_the_sql == []
    (said,) = sql_to_plan(
        "SELECT n_regionkey FROM nation EXCEPT ALL SELECT n_regionkey FROM nation WHERE n_nationkey < 10",
        tpch_tables,
        form="optimized",
    ).not_the_sql
    assert said.startswith("DataFusion plans EXCEPT ALL as an anti join")
    # lag(x) IGNORE NULLS: the plan has no such option, and DataFusion running it gives the nulls' rows
    ignoring = "SELECT n_nationkey, lag(n_comment) IGNORE NULLS OVER (ORDER BY n_nationkey) AS l FROM nation"
    for form in ("written", "analyzed", "optimized"):
        (said,) = sql_to_plan(ignoring, tpch_tables, form=form).not_the_sql
        assert said.startswith("DataFusion's Substrait producer does not keep IGNORE NULLS"), form
    respecting = "SELECT n_nationkey, lag(n_comment) OVER (ORDER BY n_nationkey) AS l FROM nation"
    assert sql_to_plan(respecting, tpch_tables, form="written").not_the_sql == []
    # count(DISTINCT x) OVER: the plan's count takes every row (DataFusion reading it back: count(x))
    distinct = "SELECT n_nationkey, count(DISTINCT n_regionkey) OVER () AS c FROM nation"
    for form in ("written", "analyzed", "optimized"):
        (said,) = sql_to_plan(distinct, tpch_tables, form=form).not_the_sql
        assert said.startswith("DataFusion's Substrait producer does not keep DISTINCT in a window function"), form
    assert sql_to_plan(distinct.replace("DISTINCT ", ""), tpch_tables, form="written").not_the_sql == []
    second = "SELECT n_nationkey, sum(n_nationkey) OVER () AS s, count(DISTINCT n_regionkey) OVER () AS c FROM nation"
    (said,) = sql_to_plan(second, tpch_tables, form="written").not_the_sql
    assert said.startswith("DataFusion's Substrait producer does not keep DISTINCT in a window function")
    # inside a subquery of an expression too (the plan's count is 25, the SQL's 5)
    inner = (
        "SELECT r_regionkey, (SELECT max(c) FROM (SELECT count(DISTINCT n_regionkey) OVER () AS c FROM nation) x) AS s"
    )
    filtered = (
        "SELECT r_regionkey FROM region WHERE r_regionkey IN (SELECT count(DISTINCT n_regionkey) OVER () FROM nation)"
    )
    for sql in (f"{inner} FROM region", filtered):
        for form in ("written", "analyzed", "optimized"):
            (said,) = sql_to_plan(sql, tpch_tables, form=form).not_the_sql
            assert said.startswith("DataFusion's Substrait producer does not keep DISTINCT in a window function"), form
    assert sql_to_plan(f"{inner.replace('DISTINCT ', '')} FROM region", tpch_tables, form="written").not_the_sql == []
    # a window function over a column named for a distinct count (the optimized form renames it) keeps its meaning
    over_distinct = "SELECT n_regionkey, sum(count(DISTINCT n_nationkey)) OVER () AS s FROM nation GROUP BY n_regionkey"
    for form in ("written", "analyzed", "optimized"):
        assert sql_to_plan(over_distinct, tpch_tables, form=form).not_the_sql == [], form
    # a bracket or comma in a string among a window function's arguments does not hide the next one's DISTINCT
    bracket = (
        "SELECT first_value(concat(n_name, '],x')) OVER () AS f, count(DISTINCT n_regionkey) OVER () AS c FROM nation"
    )
    (said,) = sql_to_plan(bracket, tpch_tables, form="written").not_the_sql
    assert said.startswith("DataFusion's Substrait producer does not keep DISTINCT in a window function")
    # a window function's FILTER: dropped by the producer in every form (DataFusion's engine running the plan
    # sums every row of the window)
    window_filter = (
        "SELECT n_nationkey, sum(n_nationkey) FILTER (WHERE n_nationkey > 5) OVER (PARTITION BY n_regionkey) AS s "
        "FROM nation"
    )
    for form in ("written", "analyzed", "optimized"):
        (said,) = sql_to_plan(window_filter, tpch_tables, form=form).not_the_sql
        assert said.startswith("DataFusion's Substrait producer does not keep a window function's FILTER"), form
    aggregate_filter = "SELECT sum(n_nationkey) FILTER (WHERE n_nationkey > 5) AS s FROM nation"
    assert sql_to_plan(aggregate_filter, tpch_tables, form="optimized").not_the_sql == []  # an aggregate's is kept
    # NOT IN (subquery): the optimizer's anti join leaves a row out where a null makes it unknown; a Substrait
    # join cannot (DataFusion's engine running the optimized plan gives 21 rows, the SQL none)
    not_in = (
        "SELECT n_nationkey FROM nation WHERE n_nationkey NOT IN "
        "(SELECT CASE WHEN r_regionkey = 2 THEN NULL ELSE r_regionkey END FROM region)"
    )
    (said,) = sql_to_plan(not_in, tpch_tables, form="optimized").not_the_sql
    assert said.startswith("DataFusion's optimizer plans NOT IN (subquery) as an anti join that knows SQL's nulls")
    assert sql_to_plan(not_in, tpch_tables, form="written").not_the_sql == []  # the subquery as it is
    not_exists = (
        "SELECT n_nationkey FROM nation WHERE NOT EXISTS (SELECT 1 FROM region WHERE r_regionkey = n_nationkey)"
    )
    assert sql_to_plan(not_exists, tpch_tables, form="optimized").not_the_sql == []  # SQL's anti join itself
    # words in a string or a quoted name are no SQL: no INTERSECT ALL here, and one after a $$--$$ string
    for quoted in ('SELECT 1 AS "x INTERSECT ALL y"', "SELECT $$ INTERSECT ALL $$ AS x", "SELECT 1 AS `INTERSECT ALL`"):
        assert sql_to_plan(quoted, tpch_tables, form="written").not_the_sql == [], quoted
    (said,) = sql_to_plan("SELECT $$--$$ AS x INTERSECT ALL SELECT 'a'", tpch_tables, form="written").not_the_sql
    assert said.startswith("DataFusion plans INTERSECT ALL as a semi join")
    assert sql_to_plan("SELECT count(DISTINCT n_regionkey) FROM nation", tpch_tables).not_the_sql == []


def test_a_timestamp_finer_than_a_microsecond_is_said_on_its_node(spark, tpch_dir, tpch_tables):
    """DataFusion's timestamps count nanoseconds; Spark keeps microseconds. A nanosecond in a timestamp
    of the plan (a text cast, as the SQL is written) is dropped by the run, and the run says so; one in
    whole microseconds says nothing."""
    from executor.jobs.run import run_node

    catalog = Catalog(data_roots=[tpch_dir], use_spark_catalog=False)
    for stamp, said in (("13:45:30.123456789", True), ("13:45:30.123456000", False)):
        sql = f"SELECT to_char(TIMESTAMP '2024-03-10 {stamp}', '%H:%M:%S.%f') AS s FROM region WHERE r_regionkey = 0"
        model = analyze(sql_to_plan(sql, tpch_tables, form="written").data)
        result = run_node(model, model.roots[0], catalog=catalog)
        assert list(result.rows["[0] s"]) == ["13:45:30.123456000"]
        dropped = [w for w in result.warnings if "digits below a microsecond are dropped" in w]
        assert bool(dropped) == said, result.warnings


def test_comment_marks_inside_strings_or_other_comments_are_no_comments(tutorial_tables):
    """A ``/*`` in a line comment, ``--`` in a string: read left to right, as DataFusion's parser does."""
    from executor.engines.sql_plan import blank

    assert not blank("-- /*\nSELECT 1 AS x\n-- */")
    assert sql_to_plan("-- /*\nSELECT 1 AS x\n-- */", tutorial_tables).tables_used == []
    assert not blank("SELECT '--' AS x") and not blank("SELECT '/*' AS x")
    assert blank("/* a */ -- b\n  ") and blank("/* a /* b */ c */")
