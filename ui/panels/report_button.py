"""The "Download report (HTML)" button: the plan as one self-contained HTML file
(``viz.html_report``), with the row counts and sample rows this session has for the plan.

What the session ran lives where the pages keep it, keyed by the plan's digest and its data: the profile
(``ui.panels.row_counts.finished_profile``), the Run tab (``st.session_state["runs"]``), Step through
(``"step_results"``) and Present (``"present_tasks"``); what the engines said, where ``ui.panels.engines_tab``
keeps it. They are gathered while the page runs; the
report itself is built only when the button is clicked (Streamlit calls ``data`` then, in another
thread), so a rerun never lays the graph out for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from ui.panels.engines_tab import session_findings
from ui.panels.row_counts import finished_profile
from ui.state.plan_data import data_key
from ui.state.plan_source import Plan
from viz.html_report import MAX_SAMPLE_ROWS, NodeEngines, NodeRun, html_report
from viz.model import PlanModel

LABEL = "Download report (HTML)"

#: Where the pages keep finished runs: (session-state key, where the result is, what to call it).
_RUN_SOURCES: tuple[tuple[str, Callable[[Any], Any], str], ...] = (
    ("runs", lambda state: state.result if state.done.is_set() else None, "the Run tab"),
    ("step_results", lambda result: result, "Step through"),
    ("present_tasks", lambda task: task.result if task.done.is_set() else None, "Present"),
)


def _sample(result) -> tuple[tuple[str, ...], tuple[tuple[object, ...], ...]]:
    rows = result.rows.head(MAX_SAMPLE_ROWS)
    return tuple(str(c) for c in rows.columns), tuple(tuple(r) for r in rows.itertuples(index=False, name=None))


def session_runs(plan: Plan, model: PlanModel) -> dict[str, NodeRun]:
    """Per node of ``model``, what this session ran there on the plan's data now: the profile's exact
    count, or a run's count, and the first rows of the latest run that has rows."""
    digest, data = model.digest, data_key(plan, model)
    out: dict[str, NodeRun] = {}
    for key, result_of, where in _RUN_SOURCES:
        for k, value in st.session_state.get(key, {}).items():
            # keyed (digest, node, ..., data) where the pages keep them
            if not isinstance(k, tuple) or len(k) < 3 or k[0] != digest or k[-1] != data or k[1] in out:
                continue
            result = result_of(value)
            if result is None or not hasattr(result, "rows"):
                continue  # still running, failed, or a step's error message
            columns, sample = _sample(result)
            out[k[1]] = NodeRun(
                rows=result.row_count, columns=columns, sample=sample, note=f"run in {where} ({result.elapsed_s:.2f} s)"
            )
    profile = finished_profile(plan, model)
    if profile is not None:
        for nid, p in profile.nodes.items():
            run = out.get(nid)
            if p.rows is not None:
                note = "counted by the profile" + (f"; rows {run.note}" if run is not None else "")
                out[nid] = NodeRun(
                    rows=p.rows, columns=run.columns if run else (), sample=run.sample if run else (), note=note
                )
            elif p.error and run is None:
                out[nid] = NodeRun(note=f"the profile could not count it: {p.error}")
    return out


def session_engines(plan: Plan, model: PlanModel) -> tuple[dict[str, NodeEngines], list[str]]:
    """What this session asked the engines about the plan (``ui.panels.engines_tab``): the report with
    the types once they have come, and the engines' plans of the nodes asked for, in the report's words."""
    report, plans = session_findings(plan, model)
    if report is None:
        return {}, []
    return report.node_engines(plans), report.notes()


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def file_stem(source: str) -> str:
    """A plan's name as the start of a downloaded file's name (``tpch_q03.json`` → ``tpch_q03``; a plan
    made from SQL, "SQL, analyzed: SELECT a, b …", → ``SQL_analyzed_SELECT_a_b``)."""
    if not source.startswith("SQL, "):  # its SQL holds slashes and dots that are not a path's
        source = os.path.splitext(os.path.basename(source))[0]
    return re.sub(r"_{2,}", "_", _safe(source)).strip("_") or "plan"


def report_file_name(source: str) -> str:
    return f"{file_stem(source)}-report.html"


def rows_file_name(source: str, node_id: str, ext: str) -> str:
    """A node's rows as a file: ``tutorial-node-0.0.1.csv`` (``*`` of a node id as ``s``, for every
    file system)."""
    return f"{file_stem(source)}-node-{_safe(node_id.replace('*', 's'))}.{ext}"


def report_button(plan: Plan, model: PlanModel, key: str) -> None:
    """The download button; the file is made when it is clicked."""
    runs = session_runs(plan, model)
    engines, engine_notes = session_engines(plan, model)
    counted = sum(1 for r in runs.values() if r.rows is not None)
    sampled = sum(1 for r in runs.values() if r.sample)
    what = (
        f" It includes this session's row counts for {counted} node{'s' if counted != 1 else ''} and sample "
        f"rows for {sampled}."
        if runs
        else " Profile the plan or run nodes first to include row counts and sample rows."
    ) + (" It includes what each engine will do with each node." if engines else "")
    source = plan.source
    st.download_button(
        LABEL,
        lambda: html_report(model, source, runs, engines=engines, engines_notes=engine_notes),
        file_name=report_file_name(source),
        mime="text/html",
        key=key,
        on_click="ignore",
        help="One self-contained HTML file that opens offline in any browser: the graph (click a node), every "
        "node's schema, expressions, properties and diagnostics, and the plan in words." + what,
    )
