"""The Run tab: run the selected node's subtree on Spark in the background, with progress and cancel.

A run happens in a worker thread owned by this browser session, so the page never waits for Spark
(nor for it to start) and stays responsive. It starts in the Run click's callback; that click's rerun
waits for it a moment (``ui.tasks.finished``), and a longer run leaves a fragment that refreshes
its progress. The results are cached per plan and node by ``executor.jobs.run``.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from executor.errors import ExecutionError
from executor.jobs.profile import is_cross_product
from executor.jobs.run import explain_node, run_node, to_csv_bytes, to_parquet_bytes
from ui.markdown import md_escape
from ui.panels.report_button import rows_file_name
from ui.rows import show_rows
from ui.state.entry import kept_input, kept_value
from ui.state.plan_data import catalog_for, data_key
from ui.state.plan_source import Plan
from ui.tasks import Task, finished, progress_fragment, settle, show_progress, start
from viz.counts import rows_text
from viz.model import PlanModel

DEFAULT_TIMEOUT_S = 300.0


@dataclass
class RunState(Task):
    node_id: str = ""
    limit: int = 0
    count: bool = False
    # the rows as files, made by the run and kept with it: a download link made on a later rerun of
    # the page could be gone by the time it is clicked
    csv: bytes = b""
    parquet: bytes = b""


def _runs() -> dict[tuple, RunState]:
    return st.session_state.setdefault("runs", {})


def _start(plan: Plan, model: PlanModel, node_id: str, limit: int, count: bool, timeout_s: float) -> None:
    state = RunState(node_id=node_id, limit=limit, count=count)
    _runs()[(model.digest, node_id, data_key(plan, model))] = state

    def work(catalog):
        result = run_node(
            model,
            node_id,
            catalog=catalog,
            limit=limit,
            count=count,
            timeout_s=timeout_s,
            cancel=state.cancel,
            progress=state.progress,
            explain=False,
        )
        state.csv, state.parquet = to_csv_bytes(result), to_parquet_bytes(result)
        return result

    start(state, plan, work, what=f"running node {node_id}", thread_name=f"app-run-{node_id}")


def _clicked(plan: Plan, model: PlanModel, node_id: str) -> None:
    """Run's callback: the run starts with the options as the click sent them (a row limit typed just
    before the click comes with it, after the page drew the button)."""
    _start(
        plan,
        model,
        node_id,
        int(kept_value("run_limit")),
        bool(kept_value("run_count")),
        float(kept_value("run_timeout")),
    )


#: The Run tab's fragment: a click on Run, and the end of a run, redraw this tab, not the whole page.
RUN_TAB = "run-tab"


@st.fragment(key=RUN_TAB)
def run_tab(plan: Plan, model: PlanModel, node_id: str, executable: tuple[bool, str | None]) -> None:
    ok, reason = executable
    if not ok:
        st.warning(md_escape(f"This node cannot run on Spark: {reason}"))
    elif is_cross_product(model, node_id):  # said before the click: an exact count runs the whole product
        st.warning(
            "A join without a condition: every row of one input meets every row of the other (a cross product). "
            "Its first rows come quickly, but **Exact row count** counts every pair and may not end before the "
            "timeout: **Profile the plan** works the count out from its inputs' counts instead."
        )
    c1, c2 = st.columns(2)
    # kept for the session, through runs where this tab is closed (the three are read by the click's callback)
    with c1:
        kept_input(st.number_input, "Rows", "run_limit", 100, min_value=1, max_value=10_000, step=50)
    with c2:
        kept_input(st.number_input, "Timeout (s)", "run_timeout", int(DEFAULT_TIMEOUT_S), min_value=5, max_value=3600)
    # on a line of its own: a third column cut its label short in a narrow inspector
    kept_input(st.checkbox, "Exact row count", "run_count", False)
    key = (model.digest, node_id, data_key(plan, model))  # rows of other data (bound since) are not these
    state = _runs().get(key)
    if state is not None:  # a run the click's callback has just started: its end may come with this rerun
        settle(state)
    running = state is not None and not state.done.is_set()
    # started in the click's callback, before the page's run draws the graph and the inspector again
    # (so ``state`` above is already the click's run)
    st.button(
        "▶ Run this node",
        key="run_button",
        disabled=not ok or running,
        type="primary",
        on_click=_clicked,
        args=(plan, model, node_id),
    )
    if state is not None:
        _show(plan, model, state, key)


@progress_fragment
def _progress_fragment(key: tuple) -> None:
    state = _runs().get(key)
    if state is not None:
        show_progress(state, f"Running node {state.node_id}", f"cancel-{state.node_id}", rerun=RUN_TAB)


def _show(plan: Plan, model: PlanModel, state: RunState, key: tuple) -> None:
    result = finished(state, lambda: _progress_fragment(key))
    if result is None:
        return
    shown = len(result.rows)
    # the columns counted: a table wider than the panel shows no sign of the ones past its edge
    of = f" of {len(result.columns)} column{'s' if len(result.columns) != 1 else ''}"
    if result.row_count == shown:
        total = rows_text(shown) + of  # all of them
    else:
        total = (rows_text(result.row_count) if result.row_count is not None else f"more than {rows_text(shown)}") + (
            f"{of}, showing the first {shown:,}"
        )
    st.caption(md_escape(f"Node {state.node_id}: {total} · ran in {result.elapsed_s:.2f} s"))
    if result.warnings:  # one box, a line each: six boxes of predicate notes had pushed the rows below the fold
        lines = [md_escape(w) for w in result.warnings]
        st.warning(lines[0] if len(lines) == 1 else "\n".join(f"- {line}" for line in lines))
    show_rows(result.rows)
    st.caption(md_escape("Spark's types: " + ", ".join(f"{c} {t}" for c, t in zip(result.columns, result.types))))
    d1, d2 = st.columns(2)
    # a download changes nothing on the page: no rerun of the tab for it
    d1.download_button(
        "Rows (CSV)",
        state.csv,
        file_name=rows_file_name(plan.source, state.node_id, "csv"),
        mime="text/csv",
        on_click="ignore",
    )
    d2.download_button(
        "Rows (Parquet)",
        state.parquet,
        file_name=rows_file_name(plan.source, state.node_id, "parquet"),
        mime="application/octet-stream",
        on_click="ignore",
    )
    with st.expander("Spark's plan for this subtree"):
        _explain(plan, model, state.node_id)


def _explain(plan: Plan, model: PlanModel, node_id: str) -> None:
    """Spark's plan, worked out when asked for (planning is not free), then kept for the session."""
    plans = st.session_state.setdefault("spark_plans", {})
    key = (model.digest, node_id)
    if key not in plans:
        if not st.button("Show Spark's plan", key=f"explain-{node_id}"):
            return
        with st.spinner("Planning on Spark…"):
            try:
                plans[key] = explain_node(model, node_id, catalog=catalog_for(plan))
            except ExecutionError as exc:
                plans[key] = f"(Spark could not plan this subtree: {exc})"
    st.code(plans[key] or "(no plan)", language=None)
