"""Compare two nodes' outputs in the app (``executor.jobs.outputs.compare_outputs``): counts, schemas, rows.

``compare_panel`` is a button plus the result; the Step page uses it to compare a node with its
input, and the Compare-plans page for a matched pair of nodes of two plans. The comparison runs in
the background with progress and Cancel (``ui.tasks``); the page never waits for it.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from executor.jobs.outputs import OutputComparison, cannot_compare, compare_outputs
from ui.markdown import md_escape
from ui.rows import show_rows
from ui.tasks import Task, finished, progress_fragment, run_in_background, show_progress
from viz.model import PlanModel
from viz.words import counted

DEFAULT_TIMEOUT_S = 120.0


def _tasks() -> dict:
    return st.session_state.setdefault("compare_panel_tasks", {})


@progress_fragment
def _progress(ident: tuple, key: str, text: str) -> None:
    task = _tasks().get(ident)
    if task is not None:
        show_progress(task, text, f"{key}_cancel")


def schema_frame(c: OutputComparison, labels: tuple[str, str]) -> pd.DataFrame:
    a, b = labels
    rows = [
        {
            "index": col.index,
            f"{a} name": col.name_a,
            f"{a} type": col.type_a or col.spark_type_a,
            f"{b} name": col.name_b,
            f"{b} type": col.type_b or col.spark_type_b,
            "differs": ", ".join(col.what_differs),
        }
        for col in c.columns
    ]
    return pd.DataFrame(rows, columns=["index", f"{a} name", f"{a} type", f"{b} name", f"{b} type", "differs"])


def show_comparison(
    c: OutputComparison, labels: tuple[str, str] = ("a", "b"), order: Callable[[int], list[int]] | None = None
) -> None:
    """Draw a finished comparison: counts, the schema side by side, rows only on one side (their columns
    in ``order(width)``'s order, when given: a filter's own columns first)."""
    a, b = labels
    m1, m2, m3 = st.columns(3)
    m1.metric(md_escape(f"Rows in {a}"), f"{c.rows_a:,}")
    m2.metric(
        md_escape(f"Rows in {b}"), f"{c.rows_b:,}", delta=f"{c.rows_b - c.rows_a:+,}" if c.rows_b != c.rows_a else None
    )
    loose = c.nullability_only  # the same values either way: said apart from the columns that differ
    m3.metric(
        "Columns differing",
        len(c.differing_columns) - len(loose),
        help=f"Not counted: {counted(len(loose), 'column')} differing only in nullability" if loose else None,
    )
    if c.same:
        st.success(f"Same schema and the same {c.rows_a:,} rows.")
    elif c.same_rows and len(loose) == len(c.differing_columns):
        st.success(
            f"The same {c.rows_a:,} rows; the schemas differ only in nullability ({counted(len(loose), 'column')})."
        )
    elif c.same_rows and not c.column_count_difference:  # a type or a name: said below, but no value differs
        st.success(f"The same {c.rows_a:,} rows: the columns below differ in their schema, not in a value.")
    st.caption(md_escape(c.summary(labels)))
    with st.expander("Schemas side by side", expanded=bool(c.differing_columns)):
        st.dataframe(schema_frame(c, labels), hide_index=True, width="stretch")
    if not c.rows_compared:
        st.info(md_escape(f"Rows were not compared: {c.why_not_compared}"))
        return
    for label, count, frame in ((a, c.only_a_count, c.only_a), (b, c.only_b_count, c.only_b)):
        if count:
            shown = f", the first {len(frame):,} shown" if len(frame) < count else ""
            st.markdown(f"**Rows only in {md_escape(label)}**: {count:,}{shown}")
            show_rows(frame.iloc[:, order(len(frame.columns))] if order is not None else frame)


def compare_panel(
    model_a: PlanModel,
    node_a: str,
    model_b: PlanModel,
    node_b: str,
    catalog_a,
    catalog_b,
    *,
    key: str,
    labels: tuple[str, str] = ("a", "b"),
    sample: int = 20,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    button: str = "Compare outputs",
    ignore_case: bool = False,
    refused: str | None = None,
    ignore_nullability: bool = False,
    order: Callable[[int], list[int]] | None = None,
) -> OutputComparison | None:
    """A button that compares the two nodes (on Spark, in the background with Cancel and a timeout) and the result.

    ``key`` names the widget (unique per page); the result is kept for this pair of nodes and data.
    ``refused``: why the comparison cannot be made (the button is then disabled and says why); ``order``: as
    :func:`show_comparison` takes it."""
    ident = (
        key,
        model_a.digest,
        node_a,
        model_b.digest,
        node_b,
        catalog_a.fingerprint(model_a),
        catalog_b.fingerprint(model_b),
        sample,
        ignore_case,
        ignore_nullability,
    )
    task = _tasks().get(ident)
    running = task is not None and not task.done.is_set()
    refused = refused or cannot_compare(model_a, node_a, model_b, node_b, labels)
    if refused:
        st.button(button, key=f"{key}_button", disabled=True)
        st.caption(md_escape(refused))
        return None
    if st.button(button, key=f"{key}_button", disabled=running):
        task = _tasks()[ident] = Task()
        work = lambda t=task: compare_outputs(
            model_a,
            node_a,
            model_b,
            node_b,
            catalog_a,
            catalog_b,  # noqa: E731
            sample=sample,
            timeout_s=timeout_s,
            ignore_case=ignore_case,
            ignore_nullability=ignore_nullability,
            cancel=t.cancel,
            progress=t.progress,  # its place in line while it waits for Spark
        )
        run_in_background(task, work, what="comparing", thread_name="app-compare")
    if task is None:
        return None
    result = finished(task, lambda: _progress(ident, key, f"Comparing {labels[0]} with {labels[1]}"))
    if result is not None:
        show_comparison(result, labels, order)
    return result
