"""Profiling a plan node by node (executor.profile) and the row-count overlay (viz.render).

Every expected count comes from DuckDB running hand-written SQL over the same files.
"""

from __future__ import annotations

import json
import os
import threading

import duckdb
import pytest

from executor.catalog import Catalog
from executor.profile import EXPLODE_MIN_ROWS, flags_for, profile_plan
from tests import plans as P
from viz.model import analyze
from viz.render import NodeStat, Overlay, View, edge_penwidth, to_dot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    overlay = Overlay((
        ("0", NodeStat(rows=0, elapsed_s=0.5, flags=("empty",), factor=0.0)),
        ("0.0", NodeStat(rows=12_345, elapsed_s=0.25, flags=("exploded",), factor=726.2)),
        ("0.0.0", NodeStat(rows=17, elapsed_s=0.1)),
        ("0.0.1", NodeStat(error="Spark failed")),
        ("0.0.1.0", NodeStat(rows=12, elapsed_s=0.1)),
    ))
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


# ---- on Spark -----------------------------------------------------------------------------


@pytest.mark.spark
def test_tutorial_profile_matches_duckdb(spark):
    model = _tutorial()
    seen = []
    profile = profile_plan(model, _catalog(), spark=spark, progress=lambda f, s: seen.append(f))
    assert profile.stopped is None and not profile.errors
    assert {n: p.rows for n, p in profile.nodes.items()} == {n: _duck(sql) for n, sql in TUTORIAL_SQL.items()}
    for p in profile.nodes.values():
        assert p.elapsed_s is not None and p.elapsed_s >= 0 and p.own_s is not None and p.own_s >= 0
        assert p.flags == []
    assert profile.nodes["0.0.1"].factor == _duck(TUTORIAL_SQL["0.0.1"]) / _duck(TUTORIAL_SQL["0.0.1.0"])
    assert seen and seen[-1] == 1.0
    data = json.loads(json.dumps(profile.to_json()))
    assert data["nodes"]["0.0"]["rows"] == _duck(TUTORIAL_SQL["0.0"])
    again = profile_plan(model, _catalog(), spark=spark)  # memoised per (plan, node, catalog)
    assert all(p.cached for p in again.nodes.values())
    assert {n: p.rows for n, p in again.nodes.items()} == {n: p.rows for n, p in profile.nodes.items()}
    dot = to_dot(model, view=View(profile=profile.overlay()))
    assert f'label="{_duck(TUTORIAL_SQL["0.0.0"])} rows"' in dot


@pytest.mark.spark
def test_a_filter_that_drops_everything_is_empty(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    nothing = {"filter": {"input": orders, "condition": {"literal": {"boolean": False}}}}
    model = P.model_of(P.plan((nothing, [c for c, _ in ORDER_COLUMNS])))
    profile = profile_plan(model, _catalog(), spark=spark)
    assert profile.nodes["0"].rows == 0
    assert profile.nodes["0.0"].rows == _duck(f"SELECT count(*) FROM '{ORDERS}'") > 0
    assert profile.flagged("empty") == ["0"] and profile.flagged("exploded") == []
    assert "∅ empty" in to_dot(model, view=View(profile=profile.overlay()))


@pytest.mark.spark
def test_a_cross_join_that_explodes_is_flagged(spark):
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
    # 17 x 17 = 289 rows: x17 its input but under 1,000 rows; 289 x 12 = 3,468 rows: x12 and over 1,000.
    assert profile.flagged("exploded") == ["0"]
    assert profile.nodes["0"].factor == outer_rows / inner_rows
    assert "⚠ exploded ×12" in to_dot(model, view=View(profile=profile.overlay()))


@pytest.mark.spark
def test_a_failing_node_is_collected_and_the_rest_goes_on(spark):
    missing = P.read("no_such_table", [("x", "i64")])
    orders = P.read("orders", ORDER_COLUMNS)
    cross = {"cross": {"left": orders, "right": missing}}
    model = P.model_of(P.plan(cross))
    profile = profile_plan(model, _catalog(), spark=spark)
    assert profile.nodes["0.0"].rows == _duck(f"SELECT count(*) FROM '{ORDERS}'")
    assert "no_such_table" in profile.nodes["0.1"].error
    assert profile.nodes["0"].rows is None and profile.nodes["0"].skipped == "not run: its input 0.1 failed"
    assert list(profile.errors) == ["0.1"]


@pytest.mark.spark
def test_a_cancelled_profile_stops_and_says_so(spark):
    orders = P.read("orders", ORDER_COLUMNS)
    cube = {"cross": {"left": {"cross": {"left": orders, "right": orders}}, "right": {"cross": {"left": orders, "right": orders}}}}
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
