"""A page's start, shared by Inspect, Step through and Present."""

from __future__ import annotations

import streamlit as st

from ui.data import warm_spark
from ui.plan_source import Plan, current_model, plan_sidebar
from viz.model import PlanModel


def open_plan(title: str, hint: str, empty: str | None = None) -> tuple[Plan, PlanModel] | None:
    """The plan inputs in the sidebar, then the plan and its model. Without a model, the page's
    ``title`` and ``hint`` when no plan is open (an unreadable one has its error shown) and None;
    with ``empty`` given, a plan without relations is that warning and None. With a plan open,
    Spark starts in the background (:func:`ui.data.warm_spark`): the page never waits for it."""
    plan = plan_sidebar()
    model = current_model(plan)
    if model is None:
        if plan is None:
            st.title(title)
            st.info(hint)
        return None
    if empty is not None and not model.graph.nodes:
        st.warning(empty)
        return None
    st.session_state["node_ids"] = list(model.graph.nodes)
    warm_spark(plan, model)
    return plan, model
