"""The Step page and the Inspect page's profile overlay, driven by AppTest (Spark for the runs)."""

from __future__ import annotations

import os

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from executor.jobs.outputs import describe_step
from tests.support import CORPORA, ROOT, wait_for
from tests.support.app_graph import graph_text, node_part
from ui.markdown import md_escape
from viz.counts import count_text
from viz.model import analyze

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
    dot = graph_text(at)
    assert "#fff3c4" in node_part(dot, "0.0.1.0")  # the current node is drawn selected


def test_a_step_whose_input_fails_says_its_error_once_and_compares_nothing(spark):
    """A fetch over a read of a table bound to nothing: the read's error is said once, under its input, and
    the output points to it (the same message twice before); no comparison with the input is offered."""
    import json

    from tests.support import plans as P

    doc = P.plan(({"fetch": {"input": P.read("nosuch_t", [("a", "i64")]), "count": "3"}}, ["a"]))
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/step.py").run()
    at.sidebar.file_uploader[0].set_value(("nosuch.json", json.dumps(doc).encode(), "application/json")).run()
    at.session_state["node"] = "0"
    at.run()
    _run_step(at)
    assert not at.exception, at.exception
    [said] = [e.value for e in at.error]
    assert said.startswith("table `nosuch_t` is not bound") and said.endswith(".")
    assert "Failed as input 1 did (its error is above)." in [c.value for c in at.caption]
    assert not any("Compared with its input" in m.value for m in at.markdown)


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
    assert describe_step(model, "0.0", 9, [10, 4]) == "joined 10 rows with 4 rows → 9 rows"
    assert describe_step(model, "0", 4, [10]) == "10 rows → 4 groups"
    assert describe_step(model, "0.0.0", 17, []) == "read 17 rows from orders"
    # counts of any size as people read them (a cross product's can have sixty digits)
    big = 22_772_706_762_815 * 10**44
    assert describe_step(model, "0.0.1", big - 5, [big]) == "kept 2.3 × 10⁵⁷ of 2.3 × 10⁵⁷ rows (5 dropped)"
    assert describe_step(model, "0.0", big * 20, [big, 20]) == ("joined 2.3 × 10⁵⁷ rows with 20 rows → 4.6 × 10⁵⁸ rows")
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_duckdb.json"), "rb") as fh:
        duck = analyze(fh.read())  # DuckDB's reads carry the filters it pushed into them
    assert describe_step(duck, "0.0*5.1.0.1.0", 1, []) == "read 1 row from customer, through its filter"
    # a project says what it computed and what it kept, not the difference of the two; DuckDB writes its
    # projects as outputting only their expressions, here four that each name an input column (fields 0, 3,
    # 1, 2: the columns reordered), which pass them on, as the node's detail says
    assert not duck.conventions.project_keeps_input
    assert describe_step(duck, "0.0.0", 5, [5]) == "5 rows, none computed, the 4 input columns kept"
    # a sort's rows may already have been in its order: it sorted them, it need not have moved any
    [sort] = [n for n in duck.graph.nodes if duck.node(n).kind == "sort"]
    assert describe_step(duck, sort, 2, [2]) == "same 2 rows, sorted"
    with open(os.path.join(ROOT, "sample_plans", "window.json"), "rb") as fh:
        window = analyze(fh.read())  # emit [0, 2, 1, 4, 5, 6] over 6 inputs and one expression
    assert describe_step(window, "0", 3, [3]) == "3 rows, 1 column computed, 5 of the 6 input columns kept"
    with open(os.path.join(ROOT, "sample_plans", "tpch_q02_isthmus.json"), "rb") as fh:
        q02 = analyze(fh.read())
    # isthmus's last project: eight expressions that each name one of its 28 input columns ("8 out: 8 passed on")
    assert q02.node("0.0.0").info.detail == "8 out: 8 passed on"
    assert describe_step(q02, "0.0.0", 2, [2]) == "2 rows, none computed, 8 of the 28 input columns kept"
    with open(os.path.join(CORPORA, "isthmus-tpch", "query_05_plan.json"), "rb") as fh:
        q05 = analyze(fh.read())  # N_NAME named by an expression, and the revenue computed: as the detail says
    assert q05.node("0.0.0").info.detail == "2 out: 1 computed, 1 passed on"
    assert describe_step(q05, "0.0.0", 5, [5]) == "5 rows, 1 column computed, 1 of the 47 input columns kept"
    with open(os.path.join(ROOT, "sample_plans", "set_ops.json"), "rb") as fh:
        sets = analyze(fh.read())
    union = next(n for n in sets.graph.nodes if sets.node(n).kind == "set")
    assert describe_step(sets, union, 1, [3, 1]) == "3 rows and 1 row → 1 row"


# ---- on Spark --------------------------------------------------------------------------------


def _run_step(at: AppTest, timeout_s: float = 180) -> AppTest:
    """Press Run and wait for the background step to finish (its progress gone, a summary or an error)."""
    at.button(key="step_run").click().run()
    return wait_for(at, lambda a: not _running(a) and (a.info or a.error), timeout_s)


def _running(at: AppTest) -> bool:
    task = (
        next((t for k, t in at.session_state["step_tasks"].items() if k[1] == at.session_state["node"]), None)
        if "step_tasks" in at.session_state
        else None
    )
    return task is not None and not task.done.is_set()


def test_run_at_each_step_shows_rows_and_what_the_node_did(spark):
    at = _step_app("0.0.1")
    _run_step(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    total = _count(f"SELECT count(*) FROM '{PRODUCTS}'")
    kept = _count(f"SELECT count(*) FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NULL")
    summary = at.info[0].value
    assert summary == f"**What it did:** kept {kept} of {total} rows ({total - kept} dropped)"
    frames = [d.value for d in at.dataframe]
    assert [len(f) for f in frames[:2]] == [total, kept]  # input rows beside the node's rows (limit 20)
    # Compare with input: the dropped rows are exactly those the oracle drops.
    at.button(key="step_compare_button").click().run()
    wait_for(at, lambda a: any("[0] product_id" in d.value.columns for d in a.dataframe[2:]) or bool(a.error))
    assert not at.exception and not at.error, [e.value for e in at.error]
    dropped = sorted(
        r[0]
        for r in duckdb.sql(
            f"SELECT product_id FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NOT NULL"
        ).fetchall()
    )
    only_input = [d.value for d in at.dataframe if "[0] product_id" in d.value.columns and len(d.value) == len(dropped)]
    assert only_input and sorted(int(v) for v in only_input[-1]["[0] product_id"]) == dropped
    # the column the filter reads comes first: why each row was dropped is in view
    assert list(only_input[-1].columns)[:2] == ["[1] categories", "[0] product_id"]
    # its sides are called as the page calls them (a and b were named nowhere there), the input by its node
    said = [c.value for c in at.caption if "only in" in c.value]
    assert said and said[-1].endswith(f"{len(dropped)} rows only in the input, 0 only in the output"), said
    assert [m.label for m in at.metric][:2] == ["Rows in the input", "Rows in the output"]
    assert "##### Compared with its input, node 0.0.1.0" in [m.value for m in at.markdown]
    at.button(key="step_parent").click().run()
    _run_step(at)
    joined = _count(
        f"SELECT count(*) FROM '{ORDERS}' o JOIN '{PRODUCTS}' p ON o.product_id = p.product_id "
        "WHERE list_position(p.categories, 'Computers') IS NULL"
    )
    orders = _count(f"SELECT count(*) FROM '{ORDERS}'")
    assert at.info[0].value == f"**What it did:** joined {orders} rows with {kept} rows → {joined} rows"
    # the data changes (orders now read by position, as the Tables page offers): the rows read before are
    # not shown as its rows, nor mixed with the next run's (a window said "4 input rows → 17 rows")
    at.session_state["tables_by_position"] = ["orders"]
    at.run()
    assert not at.info and not at.dataframe
    assert "Press ▶ Run (or G) to see this node's rows beside its inputs' rows." in [c.value for c in at.caption]
    at.session_state["tables_by_position"] = []
    at.run()
    assert at.info[0].value == f"**What it did:** joined {orders} rows with {kept} rows → {joined} rows"


def test_a_step_onto_a_cross_product_is_flagged_and_never_counts_it(spark, tpch_dir):
    """DataFusion's q03 joins customer, orders and lineitem without a condition (1.35 trillion
    rows at scale 0.01): the step warns before running, shows rows, and takes the count from the
    inputs' counts, well within its budget."""
    import time

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["sample"] = "tpch_q03_datafusion.json"
    at.query_params["node"] = "0.0*5"
    at.switch_page("pages/step.py")
    at.run()
    assert _heading(at) == md_escape("Join · 0.0*5")  # its Markdown source: the star shown as written
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("A join without a condition: every row of one input meets every row of the other")
    begin = time.monotonic()
    _run_step(at, 120)
    waited = time.monotonic() - begin
    assert not at.error, [e.value for e in at.error]
    customers, orders, lineitems = (
        _count(f"SELECT count(*) FROM '{tpch_dir}/{t}.parquet'") for t in ("customer", "orders", "lineitem")
    )
    big = customers * orders * lineitems  # past a billion: said as 1.4 × 10¹²
    assert big >= 10**9 and at.info[0].value == (
        f"**What it did:** {customers * orders:,} × {lineitems:,} rows → {count_text(big)} rows"
    )
    # said once: the warning above no longer repeats the numbers "What it did" says
    assert at.warning[0].value == (
        "A join without a condition: every row of one input meets every row of the other (a cross product). "
        "Its count is computed from its inputs' counts, never run."
    )
    assert any("count worked out from its inputs' counts, not by counting its rows" in c.value for c in at.caption)
    assert waited < 60, waited  # the rows of three reads and two derived counts, not a trillion-row count


def test_a_filter_over_a_cross_product_is_not_compared_with_it(spark, tpch_dir):
    """The filter above q03's cross products keeps a few thousand of its 1.35 trillion input rows:
    comparing the two would read every input row, so the comparison is not offered, and says why
    (the count checked against DuckDB's counts of the three tables)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["sample"] = "tpch_q03_datafusion.json"
    at.query_params["node"] = "0.0*4"
    at.switch_page("pages/step.py")
    at.run()
    _run_step(at, 120)
    assert not at.error, [e.value for e in at.error]
    rows = 1
    for t in ("customer", "orders", "lineitem"):
        rows *= _count(f"SELECT count(*) FROM '{tpch_dir}/{t}.parquet'")
    assert at.button(key="step_compare_button").disabled
    assert any(
        c.value
        == md_escape(
            f"Its input, node 0.0*5, has {rows:,} rows: a comparison reads every one and would not "
            "end (at most 100,000,000 are compared)."
        )
        for c in at.caption
    ), [c.value for c in at.caption]


@pytest.mark.restarts_spark
def test_the_next_step_after_the_jvm_stopped_starts_a_new_session(spark):
    """Whatever stopped Spark (its JVM killed, or the session stopped), the next Run starts a new
    session and shows rows."""
    from pyspark import SparkContext

    from executor.spark.session import get_session, stop_session

    at = _step_app("0.0.0")
    _run_step(at)
    assert not at.error
    jvm = SparkContext._gateway.proc
    jvm.kill()  # as a crash would: the JVM is gone without a word
    jvm.wait(30)
    at.button(key="step_parent").click().run()  # the join: not run yet, nothing cached
    _run_step(at)
    assert not at.error, [e.value for e in at.error]
    orders = _count(f"SELECT count(*) FROM '{ORDERS}'")
    assert at.info[0].value.startswith(f"**What it did:** joined {orders} rows with ")
    stop_session()  # and a polite stop
    at.button(key="step_parent").click().run()  # the aggregate
    _run_step(at)
    assert not at.error, [e.value for e in at.error]
    assert at.info[0].value.endswith(" groups")
    assert get_session().range(3).count() == 3  # the new session serves the tests that follow


def test_a_relation_with_no_type_says_the_plan_is_wrong_and_offers_no_run(tmp_path, monkeypatch):
    """A Rel with nothing set (a broken plan): the step says the plan is wrong there, as its diagnostic
    does, not that a relation called "empty" is unsupported, and does not ask for a Run it cannot give."""
    import json

    from tests.support import plans as P
    from ui.state import share

    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    doc = P.plan(({"filter": {"input": {}, "condition": {"literal": {"boolean": True}}}}, ["a"]))
    digest = share.save_shared(json.dumps(doc).encode())
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["plan"] = digest
    at.query_params["node"] = "0.0"
    at.switch_page("pages/step.py")
    at.run()
    assert not at.exception
    [warning] = [w.value for w in at.warning if "cannot run on Spark" in w.value]
    assert "the plan is wrong at node 0.0 (empty-relation)" in warning and "is not supported" not in warning, warning
    assert at.button(key="step_run").disabled
    assert not any("Press ▶ Run" in c.value for c in at.caption)
