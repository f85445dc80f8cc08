"""Running a node from the app (AppTest), with the shared Spark session: the table, progress, cancel."""

from __future__ import annotations

import json
import os

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT, wait_for
from tests.support import plans as P
from tests.support.app_graph import graphs
from ui.markdown import md_escape

APP = os.path.join(ROOT, "app.py")


def _result_frames(at: AppTest):
    return [d.value for d in at.dataframe if any(str(c).startswith("[0]") for c in d.value.columns)]


def test_run_a_node_and_see_its_rows(spark):
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["inspector_tab"] = "Run"  # the inspector draws only its open tab
    at.query_params["sample"] = "tutorial.json"
    at.query_params["node"] = "0.0.1"  # Filter: products not in the "Computers" category
    at.run()
    at.button(key="run_button").click()
    wait_for(at, lambda a: _result_frames(a) or a.error)
    assert not at.error, [e.value for e in at.error]
    rows = _result_frames(at)[0]
    assert list(rows.columns) == ["[0] product_id", "[1] categories", "[2] details", "[3] product_name"]
    products = os.path.join(ROOT, "sample_data", "tutorial", "products.parquet")
    expected = duckdb.sql(
        f"SELECT product_id FROM '{products}' WHERE list_position(categories, 'Computers') IS NULL ORDER BY 1"
    ).fetchall()
    assert sorted(int(v) for v in rows["[0] product_id"]) == [r[0] for r in expected]
    # all of them, as many as DuckDB finds: no "showing the first"
    assert any(c.value.startswith(f"Node 0.0.1: {len(expected)} rows of 4 columns · ran in") for c in at.caption)
    # the types are said as Spark's (the Schema tab has the plan's): products' id is Spark's bigint
    assert any(c.value.startswith("Spark's types: \\[0\\] product\\_id bigint") for c in at.caption), [
        c.value for c in at.caption
    ]
    downloads = at.get("download_button")
    assert {"Rows (CSV)", "Rows (Parquet)"} <= {b.label for b in downloads}
    assert all(b.proto.ignore_rerun for b in downloads)  # a download reruns nothing
    # Spark's plan is worked out when asked for, not with every run
    assert not [c for c in at.code if "Scan parquet" in c.value]
    at.button(key="explain-0.0.1").click().run()
    assert [c for c in at.code if "Scan parquet" in c.value and "Filter" in c.value]


def test_a_run_that_ends_soon_comes_with_the_click_that_started_it(spark, monkeypatch):
    """ui.tasks.finished waits for a task it shows for the first time (up to WAIT_S, here long
    enough for any machine): the rows come with the Run click's own rerun of the page, with no progress
    fragment to look again and no rerun of the whole page after it. The run, started in the click's
    callback, takes the row limit sent with the click."""
    from executor.jobs.run import clear_cache

    monkeypatch.setattr("ui.tasks.WAIT_S", 120.0)
    clear_cache()  # a real run, not a kept result
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["inspector_tab"] = "Run"
    at.query_params["sample"] = "tutorial.json"
    at.query_params["node"] = "0.0"
    at.run()
    at.number_input(key="run_limit__widget").set_value(2)  # typed just before the click: sent with it
    at.button(key="run_button").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [len(f) for f in _result_frames(at)] == [2]
    # the join's 11 rows (checked by hand) were not counted: more than the 2 asked for
    assert any(
        c.value.startswith("Node 0.0: more than 2 rows of 8 columns, showing the first 2 · ran in") for c in at.caption
    )
    assert not at.get("progress") and not [b for b in at.button if (b.key or "").startswith("cancel-")]
    assert not at.button(key="run_button").disabled  # drawn once the run had ended: it can run again


@pytest.mark.restarts_spark
def test_opening_a_plan_starts_spark_in_the_background(monkeypatch, jvm):
    """The page draws without waiting; the session starts (and runs a first small query) in a thread,
    then runs each node of the small plan once, leaves first, so the first Run finds it ready."""
    from executor.spark import rehearsal, session

    rehearsed: list[list[str]] = []
    real = rehearsal.rehearse
    monkeypatch.setattr(rehearsal, "rehearse", lambda *a, **k: rehearsed.append(real(*a, **k)) or rehearsed[-1])
    monkeypatch.setattr("ui.state.plan_data.WARM_RUN_BUDGET_S", 120.0)  # all of them, however slow the machine
    session.stop_session()  # as on a fresh server
    session.WARM_UP, session._warming = True, None
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        at.session_state["inspector_tab"] = "Run"  # the inspector draws only its open tab
        at.query_params["sample"] = "tutorial.json"
        at.query_params["node"] = "0.0.1"
        at.run()
        assert not at.exception and graphs(at)
        warming = session._warming
        assert warming is not None and warming.name == "spark-warm-up"
        warming.join(timeout=300)
        assert session.is_started() and session.warm_up_error is None
        assert rehearsed == [["0.0.1.0", "0.0.1", "0.0.0", "0.0", "0"]]
        at.run()  # another rerun starts no second warm-up
        assert session._warming is warming
        at.button(key="run_button").click()
        wait_for(at, lambda a: _result_frames(a) or a.error)
        assert not at.error and len(_result_frames(at)[0]) > 0
    finally:
        session.WARM_UP = False


def test_a_long_run_shows_progress_and_can_be_cancelled(spark, tpch_dir):
    # count(*) over lineitem x lineitem x region (1.8e10 rows at scale 0.01): too many to finish before the
    # cancel, and its tasks reach an interrupt check every few seconds (a third lineitem would not: its
    # tasks would run on for hours after the cancel, see executor/spark/reaper.py).
    li = P.read("lineitem", [("l_orderkey", "i64")])
    region = P.read("region", [("r_regionkey", "i64")])
    cross = {"cross": {"left": {"cross": {"left": li, "right": li}}, "right": region}}
    agg = {"aggregate": {"input": cross, "groupings": [], "measures": [P.measure(9, out="i64")]}}
    doc = P.plan((agg, ["n"]), functions={9: ("count", "functions_aggregate_generic")})
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["inspector_tab"] = "Run"  # the inspector draws only its open tab
    at.session_state["use_tpch"] = True
    at.run()
    at.sidebar.file_uploader[0].set_value(("explode.json", json.dumps(doc).encode(), "application/json")).run()
    at.button(key="run_button").click()
    wait_for(at, lambda a: any(k.startswith("cancel-") for k in (b.key or "" for b in a.button)), 120)
    assert at.get("progress"), "a progress bar is shown while the run goes on"
    cancel = [b for b in at.button if (b.key or "").startswith("cancel-")][0]
    cancel.click()
    wait_for(at, lambda a: bool(a.error), 120)
    assert "cancelled" in at.error[0].value and "interrupted" in at.error[0].value


def test_a_table_without_the_plans_columns_is_refused_in_the_app(spark, tpch_dir, tmp_path):
    """TPC-H q03 over an uploads folder whose customer file is TPC-DS's: the run says which table and
    both column lists, and where to fix it (no command-line option); the Tables page shows it not
    bound; after binding TPC-H's customer there (renamed, with one column more) and choosing to read it
    by position, the Run runs, with a warning."""
    import shutil

    import pyarrow.parquet as pq

    from executor.data.generate import tpcds

    shutil.copy(os.path.join(tpcds(0.01), "customer.parquet"), tmp_path / "customer.parquet")
    customer = pq.read_table(os.path.join(tpch_dir, "customer.parquet"))
    pq.write_table(
        customer.rename_columns([f"col{i}" for i in range(8)]).append_column("extra", customer.column(0)),
        tmp_path / "clients.parquet",
    )
    for t in ("orders", "lineitem"):
        shutil.copy(os.path.join(tpch_dir, f"{t}.parquet"), tmp_path / f"{t}.parquet")
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        q03 = fh.read()
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["inspector_tab"] = "Run"  # the inspector draws only its open tab
    at.session_state["uploads_dir"] = str(tmp_path)
    at.run()
    at.sidebar.file_uploader[0].set_value(("q03.json", q03, "application/json")).run()
    at.button(key="run_button").click()
    wait_for(at, lambda a: bool(a.error) or bool(_result_frames(a)), 180)
    assert at.error, "the run is refused"
    message = at.error[0].value
    assert "table `customer`" in message and "lacks 8 of the plan's 8 columns" in message
    # its Markdown source: names with ``_`` escaped (a path's underscores made italics before)
    assert md_escape("The plan declares c_custkey, c_name") in message
    assert md_escape("the table has c_customer_sk int") in message
    assert "the Tables page" in message and "--" not in message, message
    # the upload by its name, not its copy's path on the server; by position not offered (it would not serve)
    assert "parquet, your upload customer.parquet" in message and str(tmp_path) not in message, message
    assert md_escape("Read by position, it would not serve either: in order, c_current_cdemo_sk is int") in message

    at.switch_page("pages/tables.py").run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert frame[frame["table"] == "customer"]["bound"].tolist() == ["no"]
    at.selectbox(key="bind_name").select("customer").run()
    at.radio(key="bind_how").set_value("a file under the data roots").run()
    at.selectbox(key="bind_path").select(str(tmp_path / "clients.parquet")).run()
    at.button(key="bind_existing").click().run()
    at.toggle(key="fix_position_customer").set_value(True).run()
    frame = at.dataframe[0].value
    assert frame[frame["table"] == "customer"]["bound"].tolist() == ["yes"]
    at.switch_page("pages/inspect.py").run()
    at.button(key="run_button").click()
    wait_for(at, lambda a: bool(a.error) or bool(_result_frames(a)), 180)
    assert not at.error, [e.value for e in at.error]
    assert any("used by position" in w.value for w in at.warning)


def test_present_step_and_the_compare_panel_can_be_cancelled(spark, tpch_dir):
    """Each of them runs in the background with a Cancel button that stops its Spark jobs: a filter
    over count(*) of lineitem x lineitem x nation (9e10 rows at scale 0.01: five times the test above,
    so that no run ends before its cancel on a busy machine, and its tasks still reach an interrupt
    check every few seconds)."""
    li = P.read("lineitem", [("l_orderkey", "i64")])
    nation = P.read("nation", [("n_nationkey", "i64")])
    cross = {"cross": {"left": {"cross": {"left": li, "right": li}}, "right": nation}}
    agg = {"aggregate": {"input": cross, "groupings": [], "measures": [P.measure(9, out="i64")]}}
    kept = {"filter": {"input": agg, "condition": {"literal": {"boolean": True}}}}
    doc = P.plan((kept, ["n"]), functions={9: ("count", "functions_aggregate_generic")})
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["inspector_tab"] = "Run"  # the inspector draws only its open tab
    at.session_state["use_tpch"] = True
    at.run()
    at.sidebar.file_uploader[0].set_value(("explode.json", json.dumps(doc).encode(), "application/json")).run()

    def cancel(key: str) -> None:
        wait_for(at, lambda a: any(b.key == key for b in a.button), 120)
        assert at.get("progress"), "a progress bar is shown while it runs"
        next(b for b in at.button if b.key == key).click()
        wait_for(at, lambda a: bool(a.error) and not any(b.key == key for b in a.button), 120)
        assert "cancelled" in at.error[0].value, [e.value for e in at.error]

    at.switch_page("pages/present.py").run()  # a plan newly presented opens at its first step
    while not at.button(key="present_next").disabled:  # to the last step, the root (the filter)
        at.button(key="present_next").click().run()
    at.button(key="present_prev").click().run()  # and back to the aggregate
    at.button(key="present_show_rows").click().run()
    cancel("present_cancel")

    at.switch_page("pages/step.py").run()
    at.button(key="step_run").click().run()  # the aggregate (the selection followed from Present)
    cancel("step_cancel")

    at.button(key="step_parent").click().run()  # the filter: its output compared with its input
    at.button(key="step_run").click().run()
    cancel("step_cancel")
    at.button(key="step_compare_button").click().run()
    cancel("step_compare_cancel")


def test_a_runs_notes_come_in_one_box_before_its_rows(spark, monkeypatch):
    """DuckDB's TPC-H q03 root: its run's notes (each predicate DuckDB types as a date keeps its boolean)
    come as the lines of one box, where six boxes had pushed the rows below the window's fold."""
    monkeypatch.setattr("ui.tasks.WAIT_S", 120.0)
    at = AppTest.from_file(APP, default_timeout=180)
    at.session_state["inspector_tab"] = "Run"
    at.query_params["sample"] = "tpch_q03_duckdb.json"
    at.run()
    at.button(key="run_button").click().run()
    wait_for(at, lambda a: bool(_result_frames(a)) or bool(a.error), 180)
    assert not at.exception and not at.error, [e.value for e in at.error]
    [box] = [w.value for w in at.warning if "a predicate's result is kept boolean" in w.value]
    lines = box.split("\n")
    assert len(lines) >= 2 and all(line.startswith("- ") for line in lines), box
