"""A page opened on a plan draws its title and graph first, and the rest once the graph is drawn
(``ui.page.open_plan``), driven by AppTest: its first run, then the rerun the graph viewer asks for.

The browser's side (the viewer asking, the graph drawn before the sidebar's inputs) is in
``tests/browser/test_e2e_links.py``.
"""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support.app_graph import graphs, nodes_drawn
from ui.graph.viewer import viewer_available

pytestmark = pytest.mark.graph_first

APP = os.path.join(ROOT, "app.py")


def _opened(page: str | None = None, **query: str) -> AppTest:
    """A new session's first run on ``page`` (``pages/<page>.py``; default: Inspect) with ``query``."""
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    if page is not None:
        at.switch_page(f"pages/{page}.py")
    return at.run()


def _schema_shown(at: AppTest) -> bool:
    return any(m.value.startswith("| index | name | type |") for m in at.markdown)


def test_a_page_opened_on_a_plan_draws_its_graph_first_then_the_whole_page():
    assert viewer_available(), "the graph viewer needs Graphviz's dot on the server (make test installs it)"
    at = _opened(sample="tutorial.json")
    assert not at.exception
    # the first run: the plan's title and caption and the graph, which asks for the rest; the overlays'
    # actions come with the rest (their places are kept: test_e2e_links checks the graph does not move)
    assert [m.value for m in at.markdown if m.value.startswith("####")] == ["#### tutorial.json"]
    assert any("5 nodes" in c.value for c in at.caption)
    assert not at.button and not at.toggle
    [first] = graphs(at)
    assert first["then_rest"] and first["sent"] and first["selected"] == "0"
    assert nodes_drawn(first["text"]) == {"0", "0.0", "0.0.0", "0.0.1", "0.0.1.0"}
    assert not at.sidebar.selectbox and not at.sidebar.text_input, "no sidebar inputs yet"
    assert not _schema_shown(at) and not at.get("download_button"), "no inspector yet"

    at.run()  # what the viewer's "drawn" trigger does
    assert not at.exception
    [whole] = graphs(at)
    # the same drawing, not sent again and not asking again
    assert whole["key"] == first["key"] and not whole["sent"] and not whole["then_rest"]
    assert at.sidebar.selectbox(key="plan_sample").value == "tutorial.json"
    assert at.selectbox(key="node").value == "0"
    assert _schema_shown(at)
    assert at.subheader[0].value == "Aggregate · 0"
    assert [b.label for b in at.button][:2] == ["Profile the plan (row counts)", "Find the first disagreement"]
    assert at.toggle[0].label == "Which engines run each node"

    at.run()  # later runs are whole pages too
    assert _schema_shown(at) and not graphs(at)[0]["then_rest"]


def test_a_link_with_a_node_and_view_settings_draws_the_graph_the_whole_page_draws():
    """The first run has no sidebar widgets, yet its graph is the one they ask for: the same DOT, so the
    whole page keeps the graph the browser has (same key) instead of laying out another."""
    query = {"sample": "tutorial.json", "node": "0.0", "trace": "orderedness", "max_rows": "3", "collapsed": "0.0.1"}
    at = _opened(**query)
    assert not at.exception
    [first] = graphs(at)
    assert first["then_rest"] and first["selected"] == "0.0"
    assert nodes_drawn(first["text"]) == {"0", "0.0", "0.0.0", "0.0.1"}, "the collapsed node's input is hidden"
    at.run()
    [whole] = graphs(at)
    assert whole["key"] == first["key"] and not whole["then_rest"]
    assert at.sidebar.radio(key="trace").value == "orderedness"
    assert at.sidebar.slider(key="max_rows").value == 3
    assert at.sidebar.multiselect(key="collapsed").value == ["0.0.1"]
    # a page opened on the same link as a whole page draws the very same graph
    again = _opened(**query)
    again.run()
    assert graphs(again)[0]["key"] == first["key"]


def test_a_search_in_the_link_paints_its_hits_from_the_first_run():
    at = _opened(sample="tutorial.json", search="orders")
    assert graphs(at)[0]["hits"] == ["0.0.0"]
    at.run()
    assert graphs(at)[0]["hits"] == ["0.0.0"]


def test_a_page_opened_without_a_plan_is_whole_at_once():
    at = _opened()
    assert not at.exception
    assert at.sidebar.selectbox(key="plan_sample").value == "(none)"
    assert at.info and "Upload" in at.info[0].value


def test_a_plan_opened_from_the_sidebar_keeps_the_sidebar():
    """Only a session's first run draws the graph alone: a sample picked later is a whole page."""
    at = _opened()
    at.sidebar.selectbox(key="plan_sample").select("tutorial.json").run()
    assert not graphs(at)[0]["then_rest"]
    assert _schema_shown(at) and at.sidebar.selectbox(key="plan_sample").value == "tutorial.json"


def test_a_link_to_a_plan_that_is_not_here_is_whole_at_once():
    at = _opened(plan="0" * 64)
    assert not at.exception
    assert at.sidebar.selectbox(key="plan_sample").value == "(none)"
    assert any("is not on this server" in e.value for e in at.error)


def test_without_the_viewer_the_page_is_whole_at_once(monkeypatch):
    """The fallback chart (no Graphviz on the server) cannot say it has drawn: no graph-first run."""
    import ui.graph.viewer

    monkeypatch.setattr(ui.graph.viewer, "IN_BROWSER", True)
    at = _opened(sample="tutorial.json")
    assert not at.exception
    assert _schema_shown(at) and at.selectbox(key="node").value == "0"
    assert at.get("graphviz_chart")


def test_a_present_link_draws_its_graph_first_then_the_story():
    at = _opened("present", sample="tutorial.json", node="0.0.1")
    assert not at.exception
    [first] = graphs(at)
    assert first["then_rest"] and first["selected"] == "0.0.1"
    assert not at.sidebar.selectbox and not at.subheader, "no sidebar inputs nor story yet"
    at.run()
    assert not at.exception
    [whole] = graphs(at)
    assert whole["key"] == first["key"] and not whole["then_rest"]
    assert at.subheader[0].value == "Step 3: Filter"
    assert at.sidebar.slider(key="present_max_rows").value == 4


def test_the_step_page_draws_a_whole_page_at_once():
    """Its graph is beside the node's rows and buttons, not the page's first answer."""
    at = _opened("step", sample="tutorial.json")
    assert not at.exception
    assert at.sidebar.selectbox(key="plan_sample").value == "tutorial.json"
    assert all(not g.get("then_rest") for g in graphs(at))
