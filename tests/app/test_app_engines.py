"""Spark beside DataFusion in the app (AppTest): a node on both engines, the first disagreement found
in the background and marked on the graph, and the portability table with its marks.

The expected verdicts come from the executor's own tests (tests/engines/test_bisect.py), which check them
against DuckDB; here the page must show them and mark the graph."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from executor.jobs.run import clear_cache
from executor.translate import functions
from tests.support import ROOT, wait_for
from tests.support.app_graph import graph_text
from ui.panels import engines_tab, report_button

APP = os.path.join(ROOT, "app.py")


def _open(sample: str, node: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sample"] = sample
    if node:
        at.query_params["node"] = node
    at.run()
    assert not at.exception
    return at


def test_portability_table_and_marks(monkeypatch):
    """No Spark needed: the tutorial's filter uses `index_in`, which DataFusion's consumer lacks (the types,
    which ask Spark, come as none here; tests/engines/test_engine_types.py checks them)."""
    monkeypatch.setattr(engines_tab, "node_types", lambda model, catalog: {})
    at = _open("tutorial.json")
    assert "⊘ DataFusion" not in graph_text(at)
    # before a profile or a bisection has run, there is nothing for their "show" toggles to show or hide
    keys = {t.key for t in at.toggle}
    assert "engines_portability" in keys and not keys & {"inspect_profile_show", "engines_bisect_show"}
    at.toggle(key="engines_portability").set_value(True).run()
    assert not at.exception
    wait_for(at, lambda a: any("why not (DataFusion)" in d.value.columns for d in a.dataframe))
    table = next(d.value for d in at.dataframe if "why not (DataFusion)" in d.value.columns)
    row = table[table["node"] == "0.0.1"].iloc[0]
    assert row["Spark"] == "yes" and row["DataFusion"] == "no: function" and "index_in" in row["why not (DataFusion)"]
    assert table[table["node"] == "0"].iloc[0]["DataFusion"] == "no, below (node 0.0.1)"
    assert any("Spark runs 5 of 5 nodes, DataFusion 2 of 5" in e.label for e in at.expander)
    text = graph_text(at)
    assert "⊘ DataFusion: function" in text and "⊘ DataFusion (below)" in text
    # the HTML report of this session now says it too
    [button] = [b for b in at.get("download_button") if b.label == report_button.LABEL]
    assert "what each engine will do with each node" in button.help


def test_run_a_node_on_datafusion_too(spark):
    clear_cache()
    at = _open("tpch_q03_datafusion.json", "0.0.0.0")
    at.session_state["inspector_tab"] = "Run"
    at.run()
    at.button(key="engines_compare_button").click()
    wait_for(at, lambda a: any("Node 0.0.0.0:" in m.value for m in [*a.success, *a.error, *a.info]))
    assert not at.error, [e.value for e in at.error]
    assert any("the same 138 rows" in s.value for s in at.success)
    captions = [c.value for c in at.caption]
    assert sum("138 rows in" in c for c in captions) == 2  # Spark's and DataFusion's


def test_find_the_first_disagreement_marks_the_node(spark, monkeypatch):
    clear_cache()
    at = _open("tpch_q03_datafusion.json")
    at.button(key="engines_bisect_button").click()
    wait_for(at, lambda a: a.success or a.error)
    assert at.toggle(key="engines_bisect_show").value is True  # drawn once there are marks to show
    assert any("Spark and DataFusion agree on all" in s.value for s in at.success), [e.value for e in at.error]
    assert "where the walk started" not in at.success[0].value  # green: q03's root itself agreed
    # the verdict also by the button, since the result is drawn under the graph (the cross products not run)
    assert "Spark and DataFusion agree on 8 nodes compared (more under the graph)." in [c.value for c in at.caption]
    # and why the others were not: q03's two joins without a condition, not run
    [why] = [c.value for c in at.caption if c.value.startswith("Not compared: ")]
    assert "not run" in why and why.endswith("."), why
    assert "✓ Spark = DataFusion" in graph_text(at)
    # a deliberately wrong mapping on the Spark side: `subtract` adds
    monkeypatch.setitem(functions.SCALAR, "subtract", functions.SCALAR["add"])
    clear_cache()
    at.button(key="engines_bisect_button").click()
    wait_for(at, lambda a: a.error)
    assert "first disagree at node 0.0.0.0 (Aggregate)" in at.error[0].value
    assert "First disagreement at node 0.0.0.0 (Aggregate) (more under the graph)." in [c.value for c in at.caption]
    text = graph_text(at)
    assert "≠ first disagreement" in text and "Spark 138 · DataFusion 138 rows" in text
    at.button(key="engines_select_first").click().run()
    assert at.session_state["node"] == "0.0.0.0"
    at.toggle(key="engines_bisect_show").set_value(False).run()
    assert "≠ first disagreement" not in graph_text(at)


def _plain(cell: str) -> str:
    """A cell of a Markdown table drawn with HTML allowed, as text."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", cell))


def test_the_engines_tab_shows_each_engines_types(spark):
    """DataFusion's q03 plan, its aggregate: the types of its four columns as the plan, the spec and each engine
    have them."""
    clear_cache()
    at = _open("tpch_q03_datafusion.json", "0.0.0.0")
    at.session_state["inspector_tab"] = "Engines"
    at.run()
    assert not at.exception
    wait_for(at, lambda a: any(m.value.startswith("| column: declared |") for m in a.markdown))
    [text] = [m.value for m in at.markdown if m.value.startswith("| column: declared |")]
    head, _rule, *lines = text.splitlines()
    assert head == "| column: declared | Spark | Data&shy;Fusion |"  # the spec agrees: no column of its own
    # each column's declared type under its name
    table = [[_plain(c) for c in line.strip("| ").replace("<br>", " | ", 1).split(" | ")] for line in lines]
    [note] = [c.value for c in at.caption if "own function definitions, every column" in c.value]
    assert note.startswith(  # a sentence
        "By the Substrait spec's own function definitions, every column has the type the plan declares (so the "
        "table leaves the spec out)."
    )
    assert len(table) == 4
    # Spark reads every file column as nullable (its file sources do); DataFusion keeps the file's `required`
    assert table[0] == ["l_orderkey", "i64", "i64?", "="]
    assert table[3][1] == "decimal<38,4>?" and table[3][2:] == ["=", "="]
    # grey: only the nullability differs; every cell is code, a type free to break after "<" and ","
    assert '<code><span style="color: #888888">i64&#63;</span></code>' in lines[0]
    assert "<code>decimal&#60;<wbr>38&#44;<wbr>4&#62;&#63;</code>" in lines[3]
    assert any("Spark** runs it" in m.value or "Spark runs it" in m.value for m in at.markdown)


def test_a_bisection_that_could_not_compare_the_root_is_not_drawn_green(spark):
    """The tutorial's root uses index_in, which DataFusion cannot run: the nodes below agree, but the
    plan's own rows were never compared, so the page warns instead of reporting success."""
    clear_cache()
    at = _open("tutorial.json")
    at.button(key="engines_bisect_button").click()
    wait_for(at, lambda a: a.success or a.warning or a.error)
    assert not at.success and not at.error, [m.value for m in [*at.success, *at.error]]
    [said] = [
        w.value for w in at.warning if w.value.startswith("Node 0, where the walk started, could not be compared: ")
    ]
    # index_in is the filter's (0.0.1), not the aggregate's: the reason is said where it starts
    assert "index\\_in" in said and "(the reason is node 0.0.1's, below it)" in said, said
    [verdict] = [c.value for c in at.caption if c.value.endswith("(more under the graph).")]
    assert verdict.startswith("Node 0's rows could not be compared; below it, no disagreement on ") and (
        verdict.endswith(" nodes compared (more under the graph).")
    )


def test_an_engine_that_cannot_run_the_node_is_said_once(spark):
    """The tutorial's filter uses index_in, which DataFusion's consumer lacks: the tab says so where it
    says which engines run the node, and the types' notes point there instead of saying it again."""
    clear_cache()
    at = _open("tutorial.json", "0.0.1")
    at.session_state["inspector_tab"] = "Engines"
    at.run()
    wait_for(at, lambda a: any(m.value.startswith("| column: declared |") for m in a.markdown))
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    said = [t for t in texts if "Unsupported function name" in t]
    assert len(said) == 1, said
    assert any("DataFusion gives no types: it cannot run this node (above)" in c.value for c in at.caption)


def test_each_engine_s_types_are_shown_as_written(spark):
    """The tutorial's join has a struct column: `struct<manufacturer:string,…>` in a Markdown caption
    would read as a link (`<scheme:…>`); the caption escapes it so it shows as written."""
    clear_cache()
    at = _open("tutorial.json", "0.0")
    at.session_state["inspector_tab"] = "Run"
    at.run()
    at.button(key="engines_compare_button").click()
    wait_for(at, lambda a: any("types:" in c.value for c in a.caption))
    captions = [c.value for c in at.caption if "types:" in c.value]
    assert captions and all("struct\\<manufacturer:string" in c for c in captions), captions


def test_the_graph_does_not_mark_a_correlated_subquery_as_a_gap():
    """Inside a correlated subquery a node runs only as part of its query (the Run tab says so): the
    graph marks no node of subqueries.json as one Spark cannot run."""
    at = _open("subqueries.json", "0.s0.0")
    text = graph_text(at)
    assert "Filter" in text and "cannot run on Spark" not in text
    at.session_state["inspector_tab"] = "Run"
    at.run()
    assert any("runs only as part of node 0" in w.value for w in at.warning)


def test_a_node_whose_tables_do_not_serve_it_is_not_said_to_run(monkeypatch):
    """DuckDB's q03 pasted with only the tutorial's data: `orders` there has none of the plan's columns and the
    other two tables are not bound, so neither engine runs the aggregate until they are bound; the tab says so
    (it said "Spark runs it") and links the Tables page."""
    monkeypatch.setattr(engines_tab, "node_types", lambda model, catalog: {})
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_duckdb.json"), encoding="utf-8") as fh:
        at.sidebar.text_area(key="plan_pasted").input(fh.read()).run()
    at.selectbox(key="node").set_value("0.0.0.0").run()
    at.session_state["inspector_tab"] = "Engines"
    at.run()
    wait_for(at, lambda a: any("runs it" in m.value or "cannot" in m.value for m in a.markdown))
    assert not at.exception
    [warning] = [w.value for w in at.warning if "not bound to data that serves them" in w.value]
    assert warning.startswith("It reads 3 tables ") and all(t in warning for t in ("customer", "orders", "lineitem"))
    assert "**Spark** runs it, once its tables are bound." in [m.value for m in at.markdown]
    assert not any(m.value == "**Spark** runs it." for m in at.markdown)
