"""The Step page and the Inspect page's profile overlay, driven by AppTest (Spark for the runs)."""

from __future__ import annotations

import os

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from executor.compare import describe_step
from tests.conftest import wait_for
from viz.model import analyze

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP = os.path.join(ROOT, "app.py")
ORDERS = os.path.join(ROOT, "sample_data", "tutorial", "orders.parquet")
PRODUCTS = os.path.join(ROOT, "sample_data", "tutorial", "products.parquet")


def _count(sql: str) -> int:
    return duckdb.sql(sql).fetchall()[0][0]


def _step_app(node: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["sample"] = "tutorial.json"
    if node:
        at.query_params["node"] = node
    at.switch_page("pages/step.py")
    at.run()
    assert not at.exception, at.exception
    return at


def _heading(at: AppTest) -> str:
    return at.subheader[0].value


# ---- no Spark: navigation ----------------------------------------------------------------------


def test_step_page_starts_at_a_leaf_and_steps_up_and_down():
    at = _step_app()
    assert _heading(at) == "Read · 0.0.0"  # the first leaf: the orders read
    assert at.session_state["node"] == "0.0.0" and at.query_params["node"] == "0.0.0"
    assert at.button(key="step_parent").proto.shortcut == "k"
    at.button(key="step_parent").click().run()
    assert _heading(at) == "Join · 0.0" and at.session_state["node"] == "0.0"
    assert at.button(key="step_input_1").proto.shortcut == "2"
    at.button(key="step_input_1").click().run()
    assert _heading(at) == "Filter · 0.0.1"
    at.button(key="step_parent").click().run()
    at.button(key="step_parent").click().run()
    assert _heading(at) == "Aggregate · 0"
    assert at.button(key="step_parent").disabled  # a root
    at.button(key="step_input_0").click().run()
    assert _heading(at) == "Join · 0.0"
    at.sidebar.selectbox(key="step_leaf").select("0.0.1.0").run()
    assert _heading(at) == "Read · 0.0.1.0"
    dot = at.get("graphviz_chart")[0].proto.spec
    assert 'fillcolor="#fff3c4"' in dot.split('"0.0.1.0" [', 1)[1].split("];", 1)[0]  # the current node is selected


def test_the_step_node_is_shared_with_inspect():
    at = _step_app("0.0.1")
    assert _heading(at) == "Filter · 0.0.1"
    at.switch_page("pages/inspect.py").run()
    assert not at.exception
    assert at.subheader[0].value == "Filter · 0.0.1"


def test_describe_step_sentences():
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        model = analyze(fh.read())
    assert describe_step(model, "0.0.1", 7, [10]) == "kept 7 of 10 rows (3 dropped)"
    assert describe_step(model, "0.0", 9, [10, 4]) == "10 × 4 rows → 9 rows"
    assert describe_step(model, "0", 4, [10]) == "10 rows → 4 groups"
    assert describe_step(model, "0.0.0", 17, []) == "read 17 rows from orders"


# ---- on Spark --------------------------------------------------------------------------------


@pytest.mark.spark
def test_run_at_each_step_shows_rows_and_what_the_node_did(spark):
    at = _step_app("0.0.1")
    at.button(key="step_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    total = _count(f"SELECT count(*) FROM '{PRODUCTS}'")
    kept = _count(f"SELECT count(*) FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NULL")
    summary = at.info[0].value
    assert summary == f"**What it did:** kept {kept} of {total} rows ({total - kept} dropped)"
    frames = [d.value for d in at.dataframe]
    assert [len(f) for f in frames[:2]] == [total, kept]  # input rows beside the node's rows (limit 20)
    # Compare with input: the dropped rows are exactly those the oracle drops.
    at.button(key="step_compare_button").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    dropped = sorted(r[0] for r in duckdb.sql(
        f"SELECT product_id FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NOT NULL").fetchall())
    only_input = [d.value for d in at.dataframe if "[0] product_id" in d.value.columns and len(d.value) == len(dropped)]
    assert only_input and sorted(int(v) for v in only_input[-1]["[0] product_id"]) == dropped
    at.button(key="step_parent").click().run()
    at.button(key="step_run").click().run()
    joined = _count(f"SELECT count(*) FROM '{ORDERS}' o JOIN '{PRODUCTS}' p ON o.product_id = p.product_id "
                    "WHERE list_position(p.categories, 'Computers') IS NULL")
    orders = _count(f"SELECT count(*) FROM '{ORDERS}'")
    assert at.info[0].value == f"**What it did:** {orders} × {kept} rows → {joined} rows"


@pytest.mark.spark
def test_inspect_profile_button_draws_counts_on_the_graph(spark):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["sample"] = "tutorial.json"
    at.run()
    assert " rows" not in at.get("graphviz_chart")[0].proto.spec
    at.button(key="inspect_profile_button").click().run()
    wait_for(at, lambda a: "rows\"" in a.get("graphviz_chart")[0].proto.spec or a.error, 240)
    assert not at.error, [e.value for e in at.error]
    dot = at.get("graphviz_chart")[0].proto.spec
    orders = _count(f"SELECT count(*) FROM '{ORDERS}'")
    assert f'label="{orders} rows"' in dot and "penwidth=" in dot
    assert any("nodes counted" in e.label for e in at.expander)
    at.toggle(key="inspect_profile_show").set_value(False).run()
    assert " rows" not in at.get("graphviz_chart")[0].proto.spec
