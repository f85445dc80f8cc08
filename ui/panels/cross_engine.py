"""Spark beside DataFusion in the app: one node on both engines, the first node where they disagree,
and which nodes each engine can run.

- In the node's Run tab, **Run on DataFusion too** runs the node on both engines
  (``executor.engines.cross.compare_engines``) and shows both engines' rows, whether they are the same, and
  the rows only one returns.
- Above the graph, **Find the first disagreement** walks the plan bottom-up on both engines
  (``executor.engines.bisect.bisect``) and marks the nodes on the graph: the first node that differs in red
  with both engines' counts and the expression that differs, the nodes that agree with ✓.
- **Which engines run each node** (``executor.engines.portability``): a table, and ⊘ marks on the graph
  where a gap starts, before anything runs.

The long work runs in this browser session's background thread (``ui.tasks``) with progress and
Cancel; the results are kept per plan (and node) for the session.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from executor.engines.bisect import Bisection, bisect
from executor.engines.cross import DIFFERS, SAME, EngineComparison, compare_engines
from executor.engines.portability import Portability
from ui.markdown import md_escape
from ui.panels.engines_tab import report_with_types, types_progress
from ui.rows import show_rows
from ui.state.plan_source import Plan
from ui.state.selection import select
from ui.tasks import Task, finished, progress_fragment, show_progress, start
from viz.model import PlanModel
from viz.render import Overlay, title
from viz.words import counted

TIMEOUT_S = 300.0
BISECT_SHOW = "engines_bisect_show"
PORTABILITY_SHOW = "engines_portability"


def _tasks() -> dict[tuple, Task]:
    return st.session_state.setdefault("engine_tasks", {})


@progress_fragment
def _progress_fragment(key: tuple, text: str, cancel_key: str) -> None:
    state = _tasks().get(key)
    if state is not None:
        show_progress(state, text, cancel_key)


# ---- one node on both engines -------------------------------------------------------------------


def compare_section(plan: Plan, model: PlanModel, node_id: str) -> None:
    """In the Run tab: run the node on DataFusion too, and compare."""
    st.markdown("**Spark and DataFusion**")
    key = ("compare", model.digest, node_id)
    state = _tasks().get(key)
    running = state is not None and not state.done.is_set()
    if st.button(
        "Run on DataFusion too",
        key="engines_compare_button",
        disabled=running,
        help="Run this node's subtree on Spark and on DataFusion (its Substrait consumer) over the same "
        "files, and compare their rows",
    ):
        state = Task(status="running on both engines")
        _tasks()[key] = state
        start(
            state,
            plan,
            lambda catalog: compare_engines(model, node_id, catalog, timeout_s=TIMEOUT_S, cancel=state.cancel),
            what=f"running node {node_id} on both engines",
            thread_name=f"app-engines-{node_id}",
        )
    if state is None:
        return
    result = finished(
        state, lambda: _progress_fragment(key, f"Node {node_id} on Spark and DataFusion", "engines_compare_cancel")
    )
    if result is not None:
        show_comparison(result)


def sorted_alike(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s rows sorted by every column, each by its text (values of mixed kinds and nulls sort)."""
    return frame.sort_values(list(frame.columns), key=lambda s: s.astype(str), kind="stable", ignore_index=True)


def _sentence(note: str) -> str:
    """A note as a sentence: its first letter upper-case, a full stop at its end."""
    return f"{note[:1].upper()}{note[1:]}" + ("" if note.endswith(".") else ".")


def show_comparison(c: EngineComparison) -> None:
    text = md_escape(f"Node {c.node_id}: {c.why}")
    (st.success if c.verdict == SAME else st.error if c.verdict == DIFFERS else st.info)(
        (
            "Same on both engines. "
            if c.verdict == SAME
            else "The engines differ. "
            if c.verdict == DIFFERS
            else "Not compared. "
        )
        + text
    )
    # rows of no defined order, all of them on both sides: sorted alike, so that they line up
    aligned = (
        not c.ordered
        and all(s.rows is not None and s.complete and len(s.rows) == s.row_count for s in (c.spark, c.datafusion))
        and len(c.spark.rows) > 1
    )
    left, right = st.columns(2)
    for col, side in ((left, c.spark), (right, c.datafusion)):
        with col:
            st.markdown(f"**{side.engine}**")
            if side.cannot or side.error:
                why = side.cannot or side.error or ""
                if why in c.why:  # said in the verdict above already
                    st.caption("Could not run it (the reason is above).")
                else:
                    st.warning(md_escape(why))
                continue
            st.caption(md_escape(f"{side.rows_text()} in {side.elapsed_s:.2f} s · types: {', '.join(side.types)}"))
            if side.rows is not None:
                show_rows(sorted_alike(side.rows) if aligned else side.rows)
    if aligned:
        st.caption("The node's rows have no order of their own: both sides are shown sorted alike.")
    if c.split is not None and not c.split.same:
        for label, frame, count in (
            ("Rows only on Spark", c.only_spark, c.split.only_a_count),
            ("Rows only on DataFusion", c.only_datafusion, c.split.only_b_count),
        ):
            st.markdown(f"**{label}**: {count:,}" + (f" (the first {len(frame)})" if count > len(frame) else ""))
            if count:
                show_rows(frame)
    for note in c.notes:
        st.caption(md_escape(_sentence(note)))
    if c.verdict == DIFFERS and c.expressions:
        st.markdown("**The node's expressions** (those computing the differing columns first)")
        for role, expr in c.expressions:
            st.code(f"{role}: {expr}", language=None, wrap_lines=True)


# ---- the first disagreement ---------------------------------------------------------------------


def bisect_controls(plan: Plan, model: PlanModel, button_at=st, results_at=st) -> Bisection | None:
    """The "Find the first disagreement" button (in ``button_at``, a container), then its progress, and
    once it is done the toggle that shows its marks and its result (in ``results_at``); returns the
    finished bisection when its marks are to be drawn."""
    key = ("bisect", model.digest)
    state = _tasks().get(key)
    running = state is not None and not state.done.is_set()
    if button_at.button(
        "Find the first disagreement",
        key="engines_bisect_button",
        disabled=running,
        help="Run the plan bottom-up on Spark and on DataFusion, node by node, and stop at the first "
        "node whose rows differ while its inputs agree",
    ):
        state = Task(status="starting")
        _tasks()[key] = state
        start(
            state,
            plan,
            lambda catalog: bisect(model, catalog, timeout_s=TIMEOUT_S, cancel=state.cancel, progress=state.progress),
            what="comparing Spark and DataFusion",
            thread_name="app-bisect",
        )
    if state is None:
        return None
    if state.done.is_set() and state.result is not None:  # nothing to show or hide before it is done
        st.toggle("Show Spark vs DataFusion on the graph", value=True, key=BISECT_SHOW)
    result = finished(state, lambda: _progress_fragment(key, "Spark vs DataFusion", "engines_bisect_cancel"))
    if result is None:
        return None
    if results_at is not st:  # the result is drawn elsewhere (under the graph): its verdict here, by the button
        st.caption(md_escape(f"{_verdict(model, result)} (more under the graph)."))
    with results_at:
        _show_bisection(model, result)
    return result if st.session_state.get(BISECT_SHOW, True) else None


def _verdict(model: PlanModel, b: Bisection) -> str:
    """The bisection's outcome in one short sentence, without its reasons."""
    if b.stopped:
        return f"Stopped ({b.stopped}) after {counted(len(b.nodes), 'node')}"
    if b.first is not None:
        return f"First disagreement at node {b.first} ({title(model.node(b.first).kind)})"
    if not b.compared:
        return "No node could be compared"
    if b.start_agrees:
        return f"Spark and DataFusion agree on {counted(b.compared, 'node')} compared"
    # the rows asked about first: "no disagreement" read as if the result had been checked
    return (
        f"Node {b.start}'s rows could not be compared; below it, no disagreement on "
        f"{counted(b.compared, 'node')} compared"
    )


def _show_bisection(model: PlanModel, b: Bisection) -> None:
    if b.first is None:
        # green only when the node asked about gave the same rows on both engines
        said = b.summary()
        (st.success if b.start_agrees else st.warning)(md_escape(f"{said[:1].upper()}{said[1:]} ({b.elapsed_s:.1f} s)"))
        why_not = b.not_compared_text()
        if why_not:
            st.caption(md_escape(why_not))
    else:
        st.error(
            md_escape(
                f"Spark and DataFusion first disagree at node {b.first} "
                f"({title(model.node(b.first).kind)}): {b.nodes[b.first].why}"
            )
        )
        if b.unchecked_inputs:
            st.caption(
                md_escape(
                    f"{'Its input' if len(b.unchecked_inputs) == 1 else 'Its inputs'} "
                    f"{', '.join(b.unchecked_inputs)} could not be compared: the difference may "
                    "start there."
                )
            )
        st.button(md_escape(f"Select node {b.first}"), key="engines_select_first", on_click=select, args=(b.first,))
    for note in b.notes:
        st.caption(md_escape(_sentence(note)))
    with st.expander(f"Spark vs DataFusion, bottom-up: {counted(len(b.nodes), 'node')}", expanded=False):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "node": n.node_id,
                        "relation": title(n.kind),
                        "verdict": n.verdict,
                        "time (s)": round(n.elapsed_s, 2),
                        "why": n.why,
                    }
                    for n in b.nodes.values()
                ],
                columns=["node", "relation", "verdict", "time (s)", "why"],
            ),
            hide_index=True,
            width="stretch",
        )
        if b.first_comparison is not None:
            show_comparison(b.first_comparison)


# ---- portability --------------------------------------------------------------------------------


def portability_controls(plan: Plan, model: PlanModel, toggle_at=st, results_at=st) -> Portability | None:
    """The portability toggle (in ``toggle_at``, a container); when on, the table and the plan-wide
    notes (in an expander, in ``results_at``), and the report for the marks. The report and the types are
    made in the background (``ui.panels.engines_tab``): meanwhile their progress shows, the marks come
    when they land."""
    on = toggle_at.toggle(
        "Which engines run each node",
        key=PORTABILITY_SHOW,
        help="Before running: whether Spark's translation and DataFusion's Substrait consumer take "
        "each node, and why not (missing function mapping, type, relation kind, refused); the fields an "
        "engine ignores, version skew, and the column types each engine gives (marked ≠ where they differ)",
    )
    if not on:
        return None
    report = report_with_types(plan, model)
    if report is None:
        return None
    with results_at, st.expander(md_escape(f"Portability: {report.summary()}"), expanded=False):
        st.dataframe(pd.DataFrame(report.rows()), hide_index=True, width="stretch")
        st.caption("“below”: an input cannot run on that engine (the reason is on the node where the gap starts).")
        if report.types is None:
            types_progress(plan, model)
        notes = report.notes()
        if notes:
            st.markdown("**For the whole plan**")
            st.markdown("\n".join(f"- {md_escape(n)}" for n in notes))
    return report


def engine_overlay(base: Overlay | None, bisection: Bisection | None, report: Portability | None) -> Overlay | None:
    """The profile's overlay (or none) with the engines' marks added."""
    out = base
    for extra in (
        bisection.overlay() if bisection is not None else None,
        report.overlay() if report is not None else None,
    ):
        if extra is not None:
            out = (out or Overlay()).with_marks(extra)
    return out


__all__ = ["bisect_controls", "compare_section", "engine_overlay", "portability_controls", "show_comparison"]
