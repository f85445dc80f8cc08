"""Profiling a plan (executor.jobs.profile): one run, derived counts, own counts; and the overlay (viz.render).

Every expected count comes from DuckDB running hand-written SQL over the same files, from
counting each node in its own Spark job (``one_run=False``, the way one run has to agree with), or
from DataFusion's engine counting the node (DataFusion's own TPC-H plans).
"""

from __future__ import annotations

import json
import os
import re
import threading

import duckdb
import pytest

from executor.data.catalog import Catalog
from executor.jobs.profile import (
    EXPLODE_MIN_ROWS,
    SUBQUERY_SKIP,
    clear_cache,
    flags_for,
    is_cross_product,
    profile_plan,
)
from tests.support import ROOT
from tests.support import plans as P
from viz.model import analyze
from viz.render import NodeStat, Overlay, View, edge_penwidth, to_dot

TUTORIAL = os.path.join(ROOT, "sample_data", "tutorial")
ORDERS = os.path.join(TUTORIAL, "orders.parquet")
PRODUCTS = os.path.join(TUTORIAL, "products.parquet")
ORDER_COLUMNS = [("product_id", "i64"), ("quantity", "i32"), ("order_date", "date"), ("price", "decimal<10,2>?")]

KEPT = f"(SELECT * FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NULL)"
JOINED = f"(SELECT * FROM '{ORDERS}' o JOIN {KEPT} p ON o.product_id = p.product_id)"
TUTORIAL_SQL = {
    "0.0.0": f"SELECT count(*) FROM '{ORDERS}'",
    "0.0.1.0": f"SELECT count(*) FROM '{PRODUCTS}'",
    "0.0.1": f"SELECT count(*) FROM {KEPT}",
    "0.0": f"SELECT count(*) FROM {JOINED}",
    "0": f"SELECT count(*) FROM (SELECT DISTINCT product_id, product_name FROM {JOINED})",
}


def _duck(sql: str) -> int:
    return duckdb.sql(sql).fetchall()[0][0]


def _catalog() -> Catalog:
    return Catalog(data_roots=[TUTORIAL])


def _tutorial():
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        return analyze(fh.read())


# ---- pure: flags and the overlay ----------------------------------------------------------


def test_flag_rule():
    assert flags_for(0, [5]) == (["empty"], 0.0)
    assert flags_for(0, [0]) == ([], None)  # nothing came in: not "empty"
    assert flags_for(3, []) == ([], None)  # a leaf is never flagged
    assert flags_for(EXPLODE_MIN_ROWS + 1, [100]) == (["exploded"], (EXPLODE_MIN_ROWS + 1) / 100)
    assert flags_for(900, [10])[0] == []  # x90 but under the minimum
    assert flags_for(5000, [600])[0] == []  # over the minimum but only x8.3


def test_overlay_dot_has_counts_widths_and_marks():
    model = _tutorial()
    overlay = Overlay(
        (
            ("0", NodeStat(rows=0, elapsed_s=0.5, flags=("empty",), factor=0.0)),
            ("0.0", NodeStat(rows=12_345, elapsed_s=0.25, flags=("exploded",), factor=726.2)),
            ("0.0.0", NodeStat(rows=17, elapsed_s=0.1)),
            ("0.0.1", NodeStat(error="Spark failed")),
            ("0.0.1.0", NodeStat(rows=12, elapsed_s=0.1)),
        )
    )
    plain = to_dot(model, view=View())
    dot = to_dot(model, view=View(profile=overlay))
    assert " rows" not in plain and "penwidth=2.23" not in plain
    assert '"0.0" -> "0" [penwidth=5.09, label="12,345 rows"]' in dot  # 1 + log10(12345)
    assert '"0.0.0" -> "0.0" [penwidth=2.23, label="17 rows"]' in dot
    assert '"0.0.1.0" -> "0.0.1" [penwidth=2.08, label="12 rows"]' in dot
    assert '"0.0.1" -> "0.0";' in dot  # no count for the failed node's edge
    node = lambda nid: dot.split(f'  "{nid}" [', 1)[1].split("];\n", 1)[0]
    assert "0 rows · 0.50 s" in node("0") and "∅ empty" in node("0") and "dashed" in node("0")
    assert "12,345 rows · 0.25 s" in node("0.0") and "⚠ exploded ×726" in node("0.0")
    assert ">error<" in node("0.0.1") and 'color="#d62728"' in node("0.0.1")
    assert "17 rows · 0.10 s" in node("0.0.0") and "dashed" not in node("0.0.0")
    assert edge_penwidth(0) == 1.0 and edge_penwidth(10**9) == 8.0
    assert hash(View(profile=overlay)) == hash(View(profile=overlay))  # View stays hashable
    # Inspect's SVG download draws what the page draws, its counts with it, on a light page without the
    # selection (it had been the plain graph)
    from ui.graph.viewer import export_dot

    exported = export_dot(model, View(profile=overlay, theme="dark", selected="0.0", trace="order"))
    assert exported == to_dot(model, view=View(profile=overlay, theme="light", trace="order"))
    assert '"0.0" -> "0" [penwidth=5.09, label="12,345 rows"]' in exported


# ---- pure: which nodes one run observes ----------------------------------------------------


def _sample(name: str):
    with open(os.path.join(ROOT, "sample_plans", name), "rb") as fh:
        return analyze(fh.read())


def test_a_datafusion_plan_runs_once_from_its_aggregate_and_derives_the_rest():
    from executor.jobs.profile import _derivable, _plan_runs

    model = _sample(
        "tpch_q03_datafusion.json"
    )  # fetch <- sort <- project <- aggregate <- filter <- join(join(c, o), l)
    kinds = {n: model.node(n).kind for n in model.graph.nodes}
    derived = {n for n in model.graph.nodes if _derivable(model, n)}
    assert {kinds[n] for n in derived} == {"fetch", "sort", "project", "join"}
    assert sum(kinds[n] == "join" for n in derived) == 2  # both joins have no condition
    reads = {n for n in model.graph.nodes if kinds[n] == "read"}
    runs = _plan_runs(model, list(model.graph.nodes), derived, reads)
    assert [r.target for r in runs] == ["0.0.0.0"]  # the aggregate: the sort and fetch above follow from it
    assert sorted(kinds[n] for n in runs[0].observed) == ["aggregate", "filter"]  # the reads are counted apart


def test_a_node_below_a_fetch_is_not_observed_in_the_run():
    from executor.jobs.profile import _derivable, _plan_runs

    orders = P.read("orders", ORDER_COLUMNS)
    first = {
        "fetch": {
            "input": {"filter": {"input": orders, "condition": {"literal": {"boolean": True}}}},
            "countExpr": P.i64(5),
        }
    }
    products = P.read("products", [("product_id", "i64")])
    join = {
        "join": {
            "left": first,
            "right": products,
            "type": "JOIN_TYPE_INNER",
            "expression": P.call(1, P.field(0), P.field(4)),
        }
    }
    model = P.model_of(P.plan(join))
    derived = {n for n in model.graph.nodes if _derivable(model, n)}
    assert derived == {"0.0"}  # the fetch
    runs = _plan_runs(model, list(model.graph.nodes), derived)
    assert [(r.target, sorted(r.observed)) for r in runs] == [("0", ["0", "0.1"])]  # not 0.0.0 nor 0.0.0.0
    assert [
        (r.target, sorted(r.observed)) for r in _plan_runs(model, list(model.graph.nodes), derived, {"0.1", "0.0*4"})
    ] == [("0", ["0"])]


# ---- on Spark -----------------------------------------------------------------------------


def _agrees_with_per_node(model, catalog, spark, crosses_too: bool = False) -> tuple:
    """Profile one run and one job per node; assert equal rows on every node (a cross product,
    an inner join without a condition, whose own count would take too long on TPC-H, against its
    inputs' own counts). Returns both profiles."""
    clear_cache()
    one = profile_plan(model, catalog, spark=spark)
    crosses = (
        [] if crosses_too else [n for n, p in one.nodes.items() if p.how == "derived" and is_cross_product(model, n)]
    )
    clear_cache()
    each = profile_plan(model, catalog, spark=spark, one_run=False, node_ids=[n for n in one.nodes if n not in crosses])
    clear_cache()
    assert not one.stopped and not each.stopped
    assert {n: p.rows for n, p in each.nodes.items()} == {n: one.nodes[n].rows for n in each.nodes}
    assert {n: p.error for n, p in each.nodes.items()} == {n: one.nodes[n].error for n in each.nodes}
    for n in crosses:
        left, right = (
            (each.nodes.get(i) or one.nodes[i]).rows for i in model.node(n).inputs
        )  # a cross of crosses: checked too
        assert one.nodes[n].rows == left * right
    return one, each


def test_tutorial_profile_matches_duckdb_in_one_run(spark):
    clear_cache()
    model = _tutorial()
    seen = []
    said = []
    profile = profile_plan(model, _catalog(), spark=spark, progress=lambda f, s: (seen.append(f), said.append(s)))
    assert profile.stopped is None and not profile.errors
    # said in the plan's nodes: its steps ("step 2 of 7" on a plan of 5 nodes) did not match them
    assert said and [s for s in said if s and not re.match(r"\d (of 5 )?nodes counted", s)] == [], said
    assert {n: p.rows for n, p in profile.nodes.items()} == {n: _duck(sql) for n, sql in TUTORIAL_SQL.items()}
    assert profile.jobs == 2 and [r.target for r in profile.runs] == ["0"]  # the reads' count, then one run
    for p in profile.nodes.values():
        if p.kind == "read":
            assert (p.how, p.run_of) == ("reads", None)
        else:
            assert (p.how, p.run_of, p.elapsed_s) == ("run", "0", profile.runs[0].seconds)
        assert p.own_s is None and p.flags == []
    assert profile.nodes["0.0.1"].factor == _duck(TUTORIAL_SQL["0.0.1"]) / _duck(TUTORIAL_SQL["0.0.1.0"])
    assert seen and seen[-1] == 1.0
    data = json.loads(json.dumps(profile.to_json()))
    assert data["nodes"]["0.0"]["rows"] == _duck(TUTORIAL_SQL["0.0"]) and data["runs"][0]["target"] == "0"
    again = profile_plan(model, _catalog(), spark=spark)  # memoised per (plan, node, catalog)
    assert all(p.cached for p in again.nodes.values()) and again.jobs == 0
    assert {n: p.rows for n, p in again.nodes.items()} == {n: p.rows for n, p in profile.nodes.items()}
    dot = to_dot(model, view=View(profile=profile.overlay()))
    assert f'label="{_duck(TUTORIAL_SQL["0.0.0"])} rows"' in dot
    node = lambda nid: dot.split(f'  "{nid}" [', 1)[1].split("];\n", 1)[0]
    assert " s<" in node("0") and " s<" not in node("0.0")  # the run's time on the node it ran, not on each


def test_per_node_counts_each_node_in_its_own_job(spark):
    clear_cache()
    profile = profile_plan(_tutorial(), _catalog(), spark=spark, one_run=False)
    clear_cache()
    assert {n: p.rows for n, p in profile.nodes.items()} == {n: _duck(sql) for n, sql in TUTORIAL_SQL.items()}
    assert profile.jobs == 5 and not profile.runs
    assert all(p.how == "count" and p.own_s is not None and p.own_s >= 0 for p in profile.nodes.values())


@pytest.mark.parametrize(
    "name",
    [n for n in sorted(os.listdir(os.path.join(ROOT, "sample_plans"))) if n.endswith(".json") and n != "manifest.json"],
)
def test_one_run_agrees_with_per_node_on_the_sample_plans(spark, tpch_dir, name):
    with open(os.path.join(ROOT, "sample_plans", "manifest.json")) as fh:
        data = json.load(fh)[name].get("data")
    model = _sample(name)
    roots = {"tutorial": [TUTORIAL], "tpch": [tpch_dir]}.get(data, [])
    one, each = _agrees_with_per_node(model, Catalog(data_roots=roots), spark)
    if data:
        assert any(p.rows is not None for p in one.nodes.values())
        assert one.jobs <= each.jobs


def _join_types_sql(how: str, right: str) -> str:
    return f"SELECT count(*) FROM '{ORDERS}' o {how} JOIN {right} p ON true"


@pytest.mark.parametrize("empty_right", [False, True])
def test_joins_without_a_condition_are_derived_as_spark_and_duckdb_count_them(spark, empty_right):
    orders = P.read("orders", ORDER_COLUMNS)
    products = P.read("products", [("product_id", "i64")])
    if empty_right:
        products = {"filter": {"input": products, "condition": {"literal": {"boolean": False}}}}
    right_sql = f"(SELECT * FROM '{PRODUCTS}' WHERE {'false' if empty_right else 'true'})"
    types = {
        "JOIN_TYPE_INNER": "INNER",
        "JOIN_TYPE_LEFT": "LEFT",
        "JOIN_TYPE_RIGHT": "RIGHT",
        "JOIN_TYPE_OUTER": "FULL",
        "JOIN_TYPE_LEFT_SEMI": "SEMI",
        "JOIN_TYPE_LEFT_ANTI": "ANTI",
    }
    roots = [{"join": {"left": orders, "right": products, "type": t}} for t in types]
    roots.append({"cross": {"left": orders, "right": products}})
    model = P.model_of(P.plan(*roots))
    one, each = _agrees_with_per_node(model, _catalog(), spark, crosses_too=True)  # small: every node counted alone
    expected = [_duck(_join_types_sql(how, right_sql)) for how in types.values()]
    expected.append(_duck(f"SELECT count(*) FROM '{ORDERS}' CROSS JOIN {right_sql}"))
    assert [one.nodes[r].rows for r in model.roots] == expected
    assert all(one.nodes[r].how == "derived" for r in model.roots)


def test_fetches_are_derived_and_what_a_fetch_cuts_short_is_counted_on_its_own(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    kept = {"filter": {"input": orders, "condition": P.call(2, P.field(1), {"literal": {"i32": 1}})}}
    first = {"fetch": {"input": kept, "offsetExpr": P.i64(2), "countExpr": P.i64(5)}}
    products = P.read("products", [("product_id", "i64")])
    join = {
        "join": {
            "left": first,
            "right": products,
            "type": "JOIN_TYPE_INNER",
            "expression": P.call(1, P.field(0), P.field(4)),
        }
    }
    top = {
        "fetch": {
            "input": {
                "sort": {"input": join, "sorts": [{"expr": P.field(0), "direction": "SORT_DIRECTION_ASC_NULLS_FIRST"}]}
            },
            "countExpr": P.i64(3),
        }
    }
    model = P.model_of(P.plan(top))
    one, _ = _agrees_with_per_node(model, _catalog(), spark)
    kept_rows = _duck(f"SELECT count(*) FROM '{ORDERS}' WHERE quantity > 1")
    assert one.nodes["0.0*4"].rows == kept_rows > 7  # the filter below the fetch: whole, in its own job
    assert one.nodes["0.0*4"].how == "count" and one.nodes["0.0*5"].how == "reads"  # a read is counted whole anyway
    assert one.nodes["0.0.0.0"].rows == 5 and one.nodes["0.0.0.0"].how == "derived"
    assert [r.target for r in one.runs] == ["0.0.0"]  # the join: the sort and the fetch above follow from it
    assert (one.nodes["0"].rows, one.nodes["0.0"].rows) == (min(3, one.nodes["0.0.0"].rows), one.nodes["0.0.0"].rows)


@pytest.mark.slow
def test_one_run_agrees_with_datafusion_on_every_datafusion_tpch_plan(spark, tpch_dir):
    """DataFusion 55 plans the 22 TPC-H queries (joins without a condition, their keys in a filter
    above): the profile counts every node in fewer jobs than nodes, and each count equals the node's
    own on DataFusion's engine (a cross product, too long to count there, equals its inputs' product).
    The per-node way is checked against one run on the sample plans above."""
    from executor.engines.datafusion import DataFusionRunner
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries

    sql_dir = os.path.join(ROOT, "..", "shared", "corpora", "consumer-testing", "testdata", "integration", "tpch")
    tables = {f[:-8]: os.path.join(tpch_dir, f) for f in os.listdir(tpch_dir) if f.endswith(".parquet")}
    catalog = Catalog(data_roots=[tpch_dir])
    queries = read_queries([sql_dir])
    assert len(queries) == 22
    crosses = counted = in_subqueries = 0
    for q in queries:
        model = analyze(sql_to_plan(q.sql, tables, json=False).data)
        clear_cache()
        one = profile_plan(model, catalog, spark=spark)
        assert not one.errors and not one.stopped, (q.name, one.errors)
        assert all(p.rows is not None or p.skipped == SUBQUERY_SKIP for p in one.nodes.values()), q.name
        runner = DataFusionRunner(model, catalog)
        ran = [n for n, p in one.nodes.items() if p.skipped is None]
        # a subquery that reads nothing of the query around it is counted as a plan of its own
        in_subqueries += len(set(ran) - set(model.graph.subtree(*model.roots, subqueries=False)))
        for n in ran:
            if one.nodes[n].how == "derived" and is_cross_product(model, n):
                left, right = (one.nodes[i].rows for i in model.node(n).inputs)  # each checked as a node of its own
                assert one.nodes[n].rows == left * right, (q.name, n)
                crosses += 1
            else:
                assert one.nodes[n].rows == runner.count(n), (q.name, n, one.nodes[n])
                counted += 1
        assert one.jobs < len(ran), (q.name, one.jobs, len(ran))  # per node: a job each
    assert crosses > 20  # DataFusion's condition-less joins, each counted as its inputs' product
    assert counted > 200
    assert in_subqueries > 20, in_subqueries


def test_a_filter_that_drops_everything_is_empty(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    nothing = {"filter": {"input": orders, "condition": {"literal": {"boolean": False}}}}
    model = P.model_of(P.plan((nothing, [c for c, _ in ORDER_COLUMNS])))
    profile = profile_plan(model, _catalog(), spark=spark)
    assert profile.nodes["0"].rows == 0
    assert profile.nodes["0.0"].rows == _duck(f"SELECT count(*) FROM '{ORDERS}'") > 0
    assert profile.flagged("empty") == ["0"] and profile.flagged("exploded") == []
    assert "∅ empty" in to_dot(model, view=View(profile=profile.overlay()))


def test_a_cross_join_that_explodes_is_flagged_without_running_it(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    products = P.read("products", [("product_id", "i64")])
    inner = {"cross": {"left": orders, "right": orders}}
    outer = {"cross": {"left": inner, "right": products}}
    model = P.model_of(P.plan(outer))
    profile = profile_plan(model, _catalog(), spark=spark)
    n_orders, n_products = _duck(f"SELECT count(*) FROM '{ORDERS}'"), _duck(f"SELECT count(*) FROM '{PRODUCTS}'")
    inner_rows = _duck(f"SELECT count(*) FROM '{ORDERS}' a CROSS JOIN '{ORDERS}' b")
    outer_rows = _duck(f"SELECT count(*) FROM '{ORDERS}' a CROSS JOIN '{ORDERS}' b CROSS JOIN '{PRODUCTS}' c")
    assert (inner_rows, outer_rows) == (n_orders**2, n_orders**2 * n_products)  # the oracle agrees with itself
    assert profile.nodes["0.0"].rows == inner_rows and profile.nodes["0"].rows == outer_rows
    assert not profile.runs and profile.jobs == 1  # the reads' count: no cross product runs
    # 17 x 17 = 289 rows: x17 its input but under 1,000 rows; 289 x 12 = 3,468 rows: x12 and over 1,000.
    assert profile.flagged("exploded") == ["0"]
    assert profile.nodes["0"].factor == outer_rows / inner_rows
    assert "⚠ exploded ×12" in to_dot(model, view=View(profile=profile.overlay()))


def test_a_failing_node_is_collected_and_the_rest_goes_on(spark):
    missing = P.read("no_such_table", [("x", "i64")])
    orders = P.read("orders", ORDER_COLUMNS)
    join = {
        "join": {
            "left": orders,
            "right": missing,
            "type": "JOIN_TYPE_INNER",
            "expression": P.call(1, P.field(0), P.field(4)),
        }
    }
    model = P.model_of(P.plan(join))
    profile = profile_plan(model, _catalog(), spark=spark)
    assert profile.runs[0].error and "no_such_table" in profile.runs[0].error  # the run failed; then node by node
    assert profile.nodes["0.0"].rows == _duck(f"SELECT count(*) FROM '{ORDERS}'")
    assert "no_such_table" in profile.nodes["0.1"].error
    assert profile.nodes["0"].rows is None and profile.nodes["0"].skipped == "not run: its input 0.1 failed"
    assert list(profile.errors) == ["0.1"]


def test_a_cancelled_profile_stops_and_says_so(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    cube = {
        "cross": {
            "left": {"cross": {"left": orders, "right": orders}},
            "right": {"cross": {"left": orders, "right": orders}},
        }
    }
    model = P.model_of(P.plan({"filter": {"input": cube, "condition": {"literal": {"boolean": True}}}}))
    cancel = threading.Event()
    cancel.set()
    profile = profile_plan(model, _catalog(), spark=spark, cancel=cancel)
    assert profile.stopped == "cancelled"
    assert profile.nodes["0"].rows is None and "cancelled" in profile.nodes["0"].skipped


def test_unknown_node_ids_are_refused():
    from executor.errors import ExecutionError

    with pytest.raises(ExecutionError, match="no node 'nope'"):
        profile_plan(_tutorial(), _catalog(), node_ids=["nope"])


# ---- the command ----------------------------------------------------------------------------


def test_profile_command(spark):
    import io

    from executor.__main__ import main

    clear_cache()
    plan = os.path.join(ROOT, "sample_plans", "tutorial.json")
    out, err = io.StringIO(), io.StringIO()
    assert main(["profile", plan, "--data-dir", TUTORIAL, "--format", "json"], out=out, err=err) == 0, err.getvalue()
    (line,) = out.getvalue().splitlines()
    data = json.loads(line)
    assert data["file"] == plan and data["jobs"] == 2
    assert {n["node"]: n["rows"] for n in data["nodes"]} == {n: _duck(sql) for n, sql in TUTORIAL_SQL.items()}
    assert [n["how"] for n in data["nodes"]] == ["run", "run", "reads", "run", "reads"]
    assert [n["relation"] for n in data["nodes"]] == ["aggregate", "join", "read", "filter", "read"]
    assert all(n["seconds"] >= 0 for n in data["nodes"])
    out = io.StringIO()
    clear_cache()
    assert main(["profile", plan, "--data-dir", TUTORIAL], out=out, err=err) == 0
    text = out.getvalue()
    assert text.startswith(f"== {plan}: 5 of 5 nodes counted in ") and "(2 Spark jobs)" in text
    assert (
        f"{_duck(TUTORIAL_SQL['0.0']):>18}  run of 0" in text
        and f"{_duck(TUTORIAL_SQL['0.0.0']):>18}  reads' count" in text
    )
    # a table without the plan's columns: the node says why, the exit status is 1
    out, err = io.StringIO(), io.StringIO()
    wrong = os.path.join(ROOT, "sample_plans", "tpch_q03_isthmus.json")
    relative = os.path.relpath(ORDERS)  # --table paths are relative to where the command runs
    assert (
        main(["profile", wrong, "--table", f"customer={relative}", "--tpch", "--format", "json"], out=out, err=err) == 1
    )
    nodes = json.loads(out.getvalue())["nodes"]
    assert any(n["error"] and "table `CUSTOMER`" in n["error"] and "lacks" in n["error"] for n in nodes), nodes
    # bad input: exit 2, one clear line
    err = io.StringIO()
    assert main(["profile", os.path.join(ROOT, "README.md")], out=io.StringIO(), err=err) == 2
    said = err.getvalue()
    assert said.startswith(f"error: {os.path.join(ROOT, 'README.md')}: not a Substrait plan: ")
    assert said.count("Substrait") == 1


def test_a_profile_takes_a_turn_per_spark_job_so_a_run_clicked_meanwhile_goes_between_them(spark, monkeypatch):
    """A profile of many jobs held one turn for all of them: another person's tiny run waited for it all."""
    import contextlib

    from executor.spark.turns import OWNER, SPARK

    clear_cache()
    turns: list[str] = []
    ask = SPARK.turn
    b_in_line = threading.Event()

    def b_runs() -> None:
        OWNER.set("b")
        with SPARK.turn("b", waiting=lambda place: b_in_line.set()):
            pass

    @contextlib.contextmanager
    def recorded(owner=None, *args, **kwargs):
        with ask(owner, *args, **kwargs) as held:
            turns.append(owner)
            if turns == ["a"]:  # b clicks Run while the profile's first job runs
                threading.Thread(target=b_runs, daemon=True).start()
                assert b_in_line.wait(30)
            yield held

    monkeypatch.setattr(SPARK, "turn", recorded)
    token = OWNER.set("a")
    try:
        profile = profile_plan(_tutorial(), _catalog(), spark=spark, one_run=False)
    finally:
        OWNER.reset(token)
        clear_cache()
    assert profile.jobs == 5
    assert turns == ["a", "b", "a", "a", "a", "a"]
