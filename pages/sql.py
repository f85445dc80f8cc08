"""SQL to plan: type SQL over the bound tables and get its Substrait plan from DataFusion's producer,
then inspect it or step through it like an uploaded plan.

The tables are the ones the executor would read: the tutorial tables, or TPC-H or TPC-DS (scale 0.01)
when chosen, and the user's own tables from the Tables page, resolved by the same catalog.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import streamlit as st

from executor.data.catalog import Catalog
from executor.engines.sql_plan import (
    ENTER_A_QUERY,
    FORM_WORDS,
    MAX_SQL_CHARS,
    SqlPlan,
    blank,
    catalog_tables,
    sql_to_plan,
)
from executor.errors import ExecutionError
from ui.graph.viewer import graph_view
from ui.markdown import md_escape
from ui.page import run_page
from ui.panels.boundary import panel
from ui.sql_examples import EXAMPLES
from ui.state import url
from ui.state.entry import through_app
from ui.state.plan_data import TPCH_SCALE, catalog_for, chosen_folder, sample_data_kind, suite_generated
from ui.state.plan_source import NONE, Plan, analyze_cached, open_elsewhere
from ui.state.selection import theme
from viz.describe.context import as_sentence
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
#: What the SQL box suggests for each kind of tables.
PLACEHOLDERS = {
    "tutorial": "SELECT ... FROM orders JOIN products ...",
    "tpch": "SELECT ... FROM lineitem JOIN orders ...",
    "tpcds": "SELECT ... FROM store_sales JOIN date_dim ...",
}

#: Scrolls the page to the plan just made, once it is drawn.
SHOW_RESULT = """<script>
setTimeout(() => {
  document.querySelector('.st-key-sql_result')?.scrollIntoView({behavior: 'smooth', block: 'start'});
}, 150);
</script>"""


@dataclass(frozen=True)
class Made:
    """The last plan made on this page."""

    sql: str
    data: str  # a key of DATA
    plan: SqlPlan
    form: str = "analyzed"  # a key of FORM_WORDS: the one asked for

    def unlike(self, sql: str, data: str, form: str) -> str:
        """What of the page's SQL, tables and form the plan was not made from, as words ("" where it was)."""
        differ = [
            what
            for what, same in (
                ("the SQL", sql.strip() == self.sql.strip()),
                ("the tables", data == self.data),
                ("the form", form == self.form),
            )
            if not same
        ]
        return " and ".join(differ)

    @property
    def made_as(self) -> str:
        """The form the plan has: the optimized one where DataFusion could not write the one asked for
        (a correlated subquery)."""
        return "optimized" if self.plan.optimized else self.form


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


def _tables_caption(data: str, tables: dict[str, str]) -> str:
    """The tables a query can name, the chosen ones apart from the person's own (uploads, the data
    folder): a name in both is the chosen table."""
    folder = chosen_folder(data)
    inside = os.path.realpath(folder) + os.sep if folder else None
    chosen = sorted(n for n, path in tables.items() if inside and os.path.realpath(path).startswith(inside))
    own = sorted(set(tables) - set(chosen))
    suite = f"{DATA[data].split(' ')[0]} tables"
    text = (
        f"{suite}: " + ", ".join(f"`{n}`" for n in chosen)
        if chosen
        else f"{suite}: generated when you make the plan"
        if data != "tutorial" and not suite_generated(data)
        else f"{suite}: none"
    )
    if own:
        text += "; your own (uploads, your data folder): " + ", ".join(f"`{n}`" for n in own)
    return text


def _make(sql: str, data: str, form: str) -> None:
    st.session_state.pop("sql_made", None)
    st.session_state.pop("sql_error", None)
    try:
        with st.spinner("Planning with DataFusion…"):
            tables = catalog_tables(_catalog(data))
            st.session_state["sql_made"] = Made(sql, data, sql_to_plan(sql, tables, form=form), form)
            st.session_state["sql_show"] = True  # the page brings the new plan into view once
    except ExecutionError as exc:  # SqlError, or a suite that could not be generated
        st.session_state["sql_error"] = str(exc)


def _source(made: Made) -> str:
    """The plan's name: its form and the start of its SQL ("SQL, optimized: SELECT ..."), so that two
    forms of one query are told apart."""
    text = re.sub(r"\s+", " ", made.sql).strip()
    return f"SQL, {made.made_as}: " + (text[:40] + "…" if len(text) > 40 else text)


def _plan_of(made: Made) -> Plan:
    # the data chosen here goes with the plan: the session's TPC-H toggle is every other plan's too
    return Plan(made.plan.data, source=_source(made), written_for=made.data, not_its_sql=tuple(made.plan.not_the_sql))


def _open(made: Made, page: str) -> None:
    open_elsewhere(_plan_of(made), page)


def _compare(made: Made) -> None:
    """Compare plans, this plan on the right and the plan open on the other pages on the left."""
    st.session_state["compare_b"] = _plan_of(made)
    st.session_state["compare_sample_b"] = NONE
    st.session_state.pop("compare_selected", None)
    st.switch_page("pages/compare.py")


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
    form = FORM_WORDS[made.made_as]
    st.caption(
        md_escape(f"Substrait plan from DataFusion, {form} · {counted(len(model.graph.nodes), 'node')} · reads {used}")
    )
    # side by side as wide as their labels, wrapping where the page is narrow (five equal columns cut
    # "Download plan (JSON)" short)
    row = st.container(horizontal=True)
    if row.button("Inspect this plan", key="sql_inspect", type="primary"):
        _open(made, "pages/inspect.py")
    if row.button("Step through", key="sql_step"):
        _open(made, "pages/step.py")
    if row.button("Present", key="sql_present"):
        _open(made, "pages/present.py")
    opened = st.session_state.get("plan")
    if row.button(
        "Compare",
        key="sql_compare",
        disabled=opened is None,
        help="With the plan open on the other pages"
        + (f" ({opened.source})" if opened is not None else ": open one first (Inspect this plan)"),
    ):
        _compare(made)
    row.download_button(
        "Download plan (JSON)",
        made.plan.data,
        file_name=f"plan-{made.made_as}.json",
        mime="application/json",
        key="sql_download",
        on_click="ignore",
    )
    graph_tab, json_tab = st.tabs(["Graph", "JSON"])
    with graph_tab:
        # as tall as Inspect's frame: at 560 px a five-node plan opened at 100% with its reads below the frame
        graph_view(to_dot(model, view=View(theme=theme())), "sql_graph", clickable=False, height=720)
    with json_tab:
        st.code(made.plan.data.decode(), language="json")


def main() -> None:
    st.title("SQL to plan")
    st.caption(
        "Type a query over the tables below; DataFusion plans it (without running it) and its Substrait "
        "producer writes the plan. Then inspect it or step through it like an uploaded plan."
    )
    opened = st.session_state.get("plan")
    # the tables of the plan open elsewhere, or a link's (data=tpcds), else the tutorial's
    st.session_state.setdefault("sql_data", sample_data_kind(opened) or url.get("data"))
    if st.session_state["sql_data"] not in DATA:
        st.session_state["sql_data"] = "tutorial"
    st.selectbox("Example", [OWN, *EXAMPLES], key="sql_example", on_change=_on_example)
    data = st.radio(
        "Tables",
        list(DATA),
        format_func=DATA.get,
        key="sql_data",
        persist_state="session",
        horizontal=True,
        help="Your own tables from the Tables page are always included",
        on_change=lambda: st.session_state.pop("sql_error", None),  # an error of the other tables
    )
    # filled once the page's plan is made: making it generates the tables the caption names
    tables_caption = st.empty()
    sql = st.text_area(
        "SQL",
        key="sql_text",
        persist_state="session",
        height=240,
        max_chars=MAX_SQL_CHARS,
        placeholder=PLACEHOLDERS[data],
    )
    st.session_state.setdefault("sql_form", "analyzed")
    form = st.radio(
        "Plan",
        list(FORM_WORDS),
        format_func=FORM_WORDS.get,
        key="sql_form",
        persist_state="session",
        horizontal=True,
        help="The logical plan DataFusion's producer writes: after its analyzer (its type coercions as casts), "
        "as the query was written (coercions implicit, as df.logical_plan() gives it; the Inspect page says "
        "which coercion a run applies), or after its optimizer (filters and projections pushed down, "
        "subqueries turned into joins). To compare two forms: make one, Inspect it, then make the other and "
        "press Compare.",
    )
    if st.button("Make plan", key="sql_make", type="primary"):
        if blank(sql or ""):  # nothing to plan yet: a hint, not an error
            st.session_state.pop("sql_error", None)
            st.info(as_sentence(f"{ENTER_A_QUERY} above, then Make plan"))
        else:
            _make(sql, data, form)
    tables_caption.caption(_tables_caption(data, catalog_tables(_catalog(data, generate=False))))
    if "sql_error" in st.session_state:
        st.error(md_escape(as_sentence(st.session_state["sql_error"])))
    made = st.session_state.get("sql_made")
    if made is not None:
        with st.container(key="sql_result"), panel("the plan made from SQL"):
            unlike = made.unlike(sql or "", data, form)
            if unlike:  # the buttons below open this plan, not one of what the page now shows
                st.warning(
                    md_escape(
                        f"This plan was made before {unlike} above changed: press Make plan for a plan of what is "
                        "there now."
                    ),
                    icon=":material/history:",
                )
            _result(made)
        if st.session_state.pop("sql_show", False):
            # below the SQL box the plan starts under the fold: it is scrolled to, once, when made
            st.html(SHOW_RESULT, unsafe_allow_javascript=True)


run_page("the SQL to plan page", main)
