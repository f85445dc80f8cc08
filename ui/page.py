"""A page's start, shared by Inspect, Step through and Present."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import streamlit as st

from ui.graph.viewer import viewer_available
from ui.markdown import md_escape
from ui.panels.boundary import panel
from ui.preload import preload_result_modules
from ui.state import url
from ui.state.plan_data import warm_spark
from ui.state.plan_source import REFUSED, Plan, analyze_cached, current_model, plan_from_url, plan_sidebar
from viz.model import PlanModel

#: Whether a page opened on a plan may draw its graph first (:func:`open_plan`). Tests that drive
#: the pages without a browser (AppTest) turn it off: nothing there draws the graph and asks for the
#: rest, so each of their runs is a whole page.
GRAPH_FIRST = True
#: Set in the session by its first run: the runs after it draw whole pages.
_OPENED = "page_opened"


class Opened(NamedTuple):
    plan: Plan
    model: PlanModel
    #: This run draws the page's title and graph only; the graph viewer, once it has drawn the
    #: graph in the browser, asks for the rest (a rerun, which draws the whole page).
    graph_only: bool


def _first_run() -> bool:
    """True on the session's first run (a page just opened), False after."""
    first = _OPENED not in st.session_state
    st.session_state[_OPENED] = True
    return first


def open_plan(title: str, hint: str, empty: str | None = None, graph_first: bool = False) -> Opened | None:
    """The plan inputs in the sidebar, then the plan and its model. Without a model, the page's
    ``title`` and ``hint`` when no plan is open (an unreadable one has its error shown) and None;
    with ``empty`` given, a plan without relations is that warning and None. With a plan open,
    Spark starts in the background (:func:`ui.state.plan_data.warm_spark`): the page never waits for it.

    With ``graph_first``, a page opened on a plan (a link, ``?sample=`` or ``?plan=``: the session's
    first run) skips the sidebar's inputs and says so (``graph_only``): the page then draws its
    graph alone. The browser draws the elements that arrive together in one go, each widget's
    module loaded first, so the graph would wait for the forty others (the sidebar's inputs,
    the inspector). Drawn alone it shows about as soon as
    a bare Streamlit page, and the rest follows when the viewer asks for it."""
    # _first_run() first: every page's first run marks the session, whatever the rest says
    if _first_run() and graph_first and GRAPH_FIRST and viewer_available():
        plan = plan_from_url()
        model = analyze_cached(plan.data) if plan is not None else None
        if isinstance(model, PlanModel) and model.graph.nodes:
            return _opened(plan, model, graph_only=True)
    plan = plan_sidebar()
    model = current_model(plan)
    if model is None:
        if plan is None:
            st.title(title)
            no_plan(hint)
        return None
    if empty is not None and not model.graph.nodes:
        st.warning(empty)
        return None
    return _opened(plan, model, graph_only=False)


def no_plan(hint: str) -> None:
    """A page's body with no plan open: why the last upload or paste was not opened, else ``hint``."""
    refused = st.session_state.get(REFUSED)
    if refused:  # here, where a person looks for the plan (the sidebar says it while another is open)
        st.error(md_escape(refused))
    else:
        st.info(hint)


def _opened(plan: Plan, model: PlanModel, graph_only: bool) -> Opened:
    st.session_state["node_ids"] = list(model.graph.nodes)
    warm_spark(plan, model)
    if not graph_only:  # the graph alone draws first, with nothing else loading
        preload_result_modules()
    return Opened(plan, model, graph_only)


def not_its_sql(plan: Plan) -> None:
    """What is known to differ between the plan and the SQL it was made from, on each page that shows it:
    its rows are the plan's, which both engines give alike."""
    for said in plan.not_its_sql:
        st.warning(md_escape(f"This plan does not mean the SQL it was made from: {said}"), icon="⚠️")


def run_page(name: str, main: Callable[[], None]) -> None:
    """A page's run: its ``main`` in a panel (a failure is said in its place, ``name`` naming the page),
    then the run's changes to the address made in one change (:mod:`ui.state.url`)."""
    with panel(name):
        main()
    url.apply()
