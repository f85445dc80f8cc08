"""SQL to plan: type SQL over the bound tables and get its Substrait plan from DataFusion's producer,
then inspect it or step through it like an uploaded plan.

The tables are the ones the executor would read: the tutorial tables, or TPC-H or TPC-DS (scale 0.01)
when chosen, and the user's own tables from the Tables page, resolved by the same catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import streamlit as st

from executor.data.catalog import Catalog
from executor.engines.sql_plan import MAX_SQL_CHARS, SqlPlan, catalog_tables, sql_to_plan
from executor.errors import ExecutionError
from ui.graph.viewer import graph_view
from ui.markdown import md_escape
from ui.panels.boundary import panel
from ui.sql_examples import EXAMPLES
from ui.state.entry import through_app
from ui.state.plan_data import TPCH_SCALE, catalog_for, suite_generated
from ui.state.plan_source import Plan, analyze_cached, open_elsewhere
from ui.state.selection import theme
from viz.describe.sentences import as_sentence
from viz.errors import Severity
from viz.render import View, to_dot
from viz.words import counted

through_app()

OWN = "(your own query)"
DATA = {
    "tutorial": "Tutorial tables (orders, products)",
    "tpch": f"TPC-H (scale {TPCH_SCALE:g}, generated on first use)",
    "tpcds": f"TPC-DS (scale {TPCH_SCALE:g}, generated on first use)",
}


@dataclass(frozen=True)
class Made:
    """The last plan made on this page."""

    sql: str
    data: str  # a key of DATA
    plan: SqlPlan


def _on_example() -> None:
    example = EXAMPLES.get(st.session_state.get("sql_example", OWN))
    if example is not None:
        st.session_state["sql_text"] = example.sql
        st.session_state["sql_data"] = example.data


def _catalog(data: str, generate: bool = True) -> Catalog:
    """The catalog the Inspect page will run this plan with (the data chosen here goes with the plan,
    ``Plan.written_for``): the chosen data first, then uploads and user data.

    ``generate``: generate the chosen suite now if it is not there yet (a few seconds)."""
    return catalog_for(None, generate, data=data)


def _make(sql: str, data: str) -> None:
    st.session_state.pop("sql_made", None)
    st.session_state.pop("sql_error", None)
    try:
        with st.spinner("Planning with DataFusion…"):
            tables = catalog_tables(_catalog(data))
            st.session_state["sql_made"] = Made(sql, data, sql_to_plan(sql, tables))
    except ExecutionError as exc:  # SqlError, or a suite that could not be generated
        st.session_state["sql_error"] = str(exc)


def _source(sql: str) -> str:
    text = re.sub(r"\s+", " ", sql).strip()
    return "SQL: " + (text[:40] + "…" if len(text) > 40 else text)


def _open(made: Made, page: str) -> None:
    # the data chosen here goes with the plan: the session's TPC-H toggle is every other plan's too
    open_elsewhere(Plan(made.plan.data, source=_source(made.sql), written_for=made.data), page)


def _result(made: Made) -> None:
    model = analyze_cached(made.plan.data)
    if isinstance(model, str):  # DataFusion made something our model cannot load
        st.error(md_escape(f"DataFusion produced a plan this app cannot load: {model}"))
        return
    for w in made.plan.warnings:
        st.warning(md_escape(w))
    problems = [d for d in model.all_diagnostics() if d.severity is Severity.ERROR]
    for d in problems:
        st.error(md_escape(f"{d.node} · {d.code}: {d.message}"))
    used = ", ".join(made.plan.tables_used) or "no tables"
    st.caption(md_escape(f"Substrait plan from DataFusion · {counted(len(model.graph.nodes), 'node')} · reads {used}"))
    c1, c2, c3, c4 = st.columns(4)
    if c1.button("Inspect this plan", key="sql_inspect", type="primary"):
        _open(made, "pages/inspect.py")
    if c2.button("Step through", key="sql_step"):
        _open(made, "pages/step.py")
    if c3.button("Present", key="sql_present"):
        _open(made, "pages/present.py")
    c4.download_button(
        "Download plan (JSON)",
        made.plan.data,
        file_name="plan.json",
        mime="application/json",
        key="sql_download",
        on_click="ignore",
    )
    graph_tab, json_tab = st.tabs(["Graph", "JSON"])
    with graph_tab:
        graph_view(to_dot(model, view=View(theme=theme())), "sql_graph", clickable=False, height=560)
    with json_tab:
        st.code(made.plan.data.decode(), language="json")


def main() -> None:
    st.title("SQL to plan")
    st.caption(
        "Type a query over the tables below; DataFusion plans it (without running it) and its Substrait "
        "producer writes the plan. Then inspect it or step through it like an uploaded plan."
    )
    st.session_state.setdefault("sql_data", "tutorial")
    st.selectbox("Example", [OWN, *EXAMPLES], key="sql_example", on_change=_on_example)
    data = st.radio(
        "Tables",
        list(DATA),
        format_func=DATA.get,
        key="sql_data",
        horizontal=True,
        help="Your own tables from the Tables page are always included",
    )
    names = sorted(catalog_tables(_catalog(data, generate=False)))
    st.caption(
        "Tables: "
        + (", ".join(f"`{n}`" for n in names) or "none yet")
        + (
            f" ({DATA[data].split(' ')[0]} is generated when you make the plan)"
            if data != "tutorial" and not suite_generated(data)
            else ""
        )
    )
    sql = st.text_area(
        "SQL",
        key="sql_text",
        height=240,
        max_chars=MAX_SQL_CHARS,
        placeholder="SELECT ... FROM orders JOIN products ...",
    )
    if st.button("Make plan", key="sql_make", type="primary"):
        _make(sql, data)
    if "sql_error" in st.session_state:
        st.error(md_escape(as_sentence(st.session_state["sql_error"])))
    made = st.session_state.get("sql_made")
    if made is not None:
        with panel("the plan made from SQL"):
            _result(made)


with panel("the SQL to plan page"):
    main()
