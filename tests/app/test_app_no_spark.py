"""No page waits for Spark: every page opens (AppTest) with a sample plan while starting Spark fails.

``executor.spark.session.get_session`` is replaced where the pages reach it: in ``executor.spark.session`` (looked
up there at call time by ``executor.jobs.outputs`` and ``executor.jobs.profile``) and in ``executor.jobs.run``
(which imported the name); ``SparkSession.Builder.getOrCreate`` too, as a backstop for any other way
in. Each replacement records the call and raises, so a page that needed Spark shows an exception.
Spark starts only when the user runs something (the Run tab, Step's run, Present's sample rows,
Compare's rows), which these tests never click.
"""

from __future__ import annotations

import os

import pytest
from pyspark.sql import SparkSession
from streamlit.testing.v1 import AppTest

import executor.jobs.run
import executor.spark.session
from tests.support import ROOT
from tests.support.app_graph import graph_text, graphs, is_graph

APP = os.path.join(ROOT, "app.py")


def _open(page: str | None, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def _ok(at: AppTest, calls: list[str]) -> None:
    assert not at.exception, at.exception
    assert calls == [], f"Spark was started by: {calls}"


def test_the_patches_catch_a_spark_start(spark_calls):
    """The guard itself: what the pages would call to start Spark is refused and recorded."""
    with pytest.raises(RuntimeError, match="started Spark"):
        executor.jobs.run.get_session()
    with pytest.raises(RuntimeError, match="started Spark"):
        SparkSession.builder.master("local[1]").getOrCreate()
    assert spark_calls == ["executor.jobs.run.get_session", "SparkSession.Builder.getOrCreate"]


def test_inspect_draws_selects_and_shows_the_run_tab_without_spark(spark_calls):
    at = _open(None, sample="tutorial.json")
    assert is_graph(graph_text(at))
    # the inspector draws only its open tab (Schema at first); opening Run draws its button
    assert [t.label for t in at.tabs][:2] == ["Schema", "Run"] and "run_button" not in [b.key for b in at.button]
    at.session_state["inspector_tab"] = "Run"
    at.run()
    assert at.button(key="run_button").label == "▶ Run this node"  # the Run tab is there, not clicked
    at.selectbox(key="node").select("0.0.1").run()
    assert at.subheader[0].value == "Filter · 0.0.1"
    _ok(at, spark_calls)


def test_inspect_of_a_tpch_sample_needs_no_spark(spark_calls):
    at = _open(None, sample="tpch_q03_isthmus.json")
    assert is_graph(graph_text(at))
    _ok(at, spark_calls)


def test_step_through_needs_no_spark(spark_calls):
    at = _open("pages/step.py", sample="tutorial.json")
    assert at.subheader[0].value == "Read · 0.0.0"
    at.button(key="step_parent").click().run()
    assert at.subheader[0].value == "Join · 0.0"
    _ok(at, spark_calls)


def test_present_needs_no_spark(spark_calls):
    at = _open("pages/present.py", sample="tutorial.json")
    assert at.button(key="present_show_rows")  # offered, not clicked
    assert any("Reads table orders" in m.value for m in at.markdown)
    _ok(at, spark_calls)


def test_tables_needs_no_spark(spark_calls):
    at = _open("pages/tables.py", sample="tutorial.json")
    _ok(at, spark_calls)
    assert at.dataframe, "the plan's tables are listed"


def test_compare_needs_no_spark(spark_calls):
    at = _open("pages/compare.py", sample="tutorial.json")
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    assert len(graphs(at)) == 2
    assert at.button(key="compare_outputs_button")  # offered, not clicked
    _ok(at, spark_calls)


def test_sql_to_plan_needs_no_spark(spark_calls):
    from ui.sql_examples import EXAMPLES, TUTORIAL_SQL

    at = _open("pages/sql.py", sample="tutorial.json")
    tutorial = next(title for title, e in EXAMPLES.items() if e.sql == TUTORIAL_SQL)
    at.selectbox(key="sql_example").select(tutorial).run()
    at.button(key="sql_make").click().run()  # DataFusion makes the plan; Spark is not needed
    assert not at.error, [e.value for e in at.error]
    assert "Aggregate" in graph_text(at)
    _ok(at, spark_calls)


def test_a_profile_of_a_plan_whose_reads_are_all_unbound_starts_nothing_and_says_why(spark_calls):
    """The profile ran a Spark job that counted nothing and only then warned; now the click says which
    tables to bind, and where, and starts no run."""
    import json

    from tests.support import plans as P
    from ui.markdown import md_escape

    doc = P.plan({"cross": {"left": P.read("left_t", [("a", "i64")]), "right": P.read("right_t", [("b", "i64")])}})
    at = _open(None)
    at.sidebar.file_uploader[0].set_value(("two.json", json.dumps(doc).encode(), "application/json")).run()
    at.button(key="inspect_profile_button").click().run()
    _ok(at, spark_calls)
    said = md_escape("The plan reads 2 tables not bound to data that serves them (left_t and right_t): nothing")
    assert any(w.value.startswith(said) for w in at.warning), [w.value for w in at.warning]
    assert any(link.proto.page == "tables" for link in at.get("page_link"))
    assert not at.session_state["inspect_profiles"]  # no run was started
    at.run()  # the warning stays until the tables are bound
    assert any(w.value.startswith(said) for w in at.warning)
