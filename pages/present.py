"""Present a plan to an audience: the graph large, every step in plain words from the leaves to the
root, the selected step's sample rows (run in the background, with Cancel), and a link that
reopens the same plan at the same step.

The selection is the Inspect page's (``st.session_state["node"]`` and ``?node=``), so switching
pages keeps the node; a plan newly opened starts at the story's first step (not at the root, where
Inspect starts), and a plan opened again at the step it was left at (:func:`_start`).
"""

from __future__ import annotations

import streamlit as st

from executor.jobs.run import run_node
from ui.graph.viewer import graph_view
from ui.markdown import md_escape
from ui.page import not_its_sql, open_plan, run_page
from ui.panels.report_button import report_button
from ui.rows import show_rows
from ui.state import url
from ui.state.entry import through_app
from ui.state.plan_data import data_key
from ui.state.plan_source import executability_of, sample_titles
from ui.state.selection import resolve_node, select, theme
from ui.state.share import share_link_widget
from ui.tasks import Task, finished, progress_fragment, show_progress, start
from viz.describe import (
    describe_plan,
    errors_said,
    in_steps,
    spoken_model,
    story_column_names,
    story_order,
    story_runs,
)
from viz.describe.context import read_first
from viz.model import PlanModel
from viz.render import View, spoken_heading, title, to_dot
from viz.words import counted

through_app()

SAMPLE_LIMIT = 20
MAX_STEPS = 300  # steps listed; bigger plans list the first ones and say how many more
MAX_ROWS = 4  # schema rows per box unless the sidebar says otherwise
PRESENTED = "present_steps"  # the session's plans this page has presented (by digest), each with its step


def _story_lines(order: list[str], sentences: dict[str, str], selected: str) -> list[str]:
    """The story's lines (Markdown): "3. words", the selected step's words highlighted, and steps
    one after another that say the same (two reads of one table) as one line, "3–4. words (twice)".
    The numbers are written, not a Markdown list's (which would count a merged line as one)."""
    lines = []
    for begin, end in story_runs(order, sentences):
        run = end - begin
        words = md_escape(sentences[order[begin]]) + ("" if run == 1 else " (twice)" if run == 2 else f" ({run} times)")
        if selected in order[begin:end]:
            words = f"**:orange-background[{words}]**"
        lines.append(f"{begin + 1 if run == 1 else f'{begin + 1}–{end}'}\\. {words}")
    return lines


def _story(order: list[str], sentences: dict[str, str], selected: str) -> None:
    """Every step in words, leaves first, the selected one highlighted: one Markdown block. (A button
    per step would make each click of a long plan slow, the page drawing several elements more per
    step; Previous and Next, the graph and the sidebar's picker select a step.)"""
    st.subheader("The plan, step by step")
    st.caption(
        "From the tables read to the result. Previous and Next walk through it; a box in the graph "
        "or the sidebar's picker jumps to a step."
    )
    st.markdown("  \n".join(_story_lines(order[:MAX_STEPS], sentences, selected)))
    if len(order) > MAX_STEPS:
        st.caption(f"…and {counted(len(order) - MAX_STEPS, 'more step')}: pick them in the sidebar or the graph.")


def _walk(order: list[str], selected: str) -> None:
    """Previous and Next: the steps before and after the selected one in the story."""
    at = order.index(selected)
    row = st.container(horizontal=True)
    row.button(
        "Previous step",
        key="present_prev",
        icon=":material/arrow_back:",
        disabled=at == 0,
        on_click=select,
        args=(order[max(at - 1, 0)],),
    )
    row.button(
        "Next step",
        key="present_next",
        icon=":material/arrow_forward:",
        disabled=at == len(order) - 1,
        on_click=select,
        args=(order[min(at + 1, len(order) - 1)],),
    )


def _start(model: PlanModel, order: list[str]) -> str:
    """The step to show when no other is chosen, before the node is resolved: the story's first step
    for a plan this page has not presented yet in the session, also when the node another page left
    is the root it starts at (Inspect); a plan presented before and opened again, the step it was
    left at. A node the person chose (a link's, another page's) is kept."""
    presented = st.session_state.setdefault(PRESENTED, {})
    if model.digest not in presented and st.session_state.get("node") in model.roots:
        st.session_state.pop("node", None)
        url.drop("node")
    step = presented.get(model.digest)
    return step if step in model.graph.nodes else order[0]


def _tasks() -> dict:
    return st.session_state.setdefault("present_tasks", {})


@progress_fragment
def _progress(key: tuple) -> None:
    task = _tasks().get(key)
    if task is not None:
        show_progress(task, "Running this step on Spark", "present_cancel")


def _sample_rows(plan, model: PlanModel, node_id: str, step: int, shown_in, every_step: bool) -> None:
    """The button that runs step ``step`` (here) and its rows, drawn in ``shown_in`` (as wide as the page).
    ``every_step``: a step whose rows were not asked for yet runs when it is shown, so Next in front of
    an audience brings its rows without a click."""
    ok, reason = executability_of(plan.data).get(node_id, (True, None))
    if not ok:  # the node it runs as part of, or where the gap starts, as its step
        st.info(md_escape(f"This step cannot run on Spark: {in_steps(reason, model)}"))
    key = (model.digest, node_id, data_key(plan, model))  # rows of other data (bound since) are not these
    task = _tasks().get(key)
    running = task is not None and not task.done.is_set()
    clicked = st.button("Show sample rows", key="present_show_rows", disabled=not ok or running, type="primary")
    if clicked or (every_step and ok and task is None):
        task = _tasks()[key] = Task()
        start(
            task,
            plan,
            lambda catalog, t=task: run_node(
                model, node_id, catalog=catalog, limit=SAMPLE_LIMIT, cancel=t.cancel, progress=t.progress
            ),
            what=f"running step {node_id}",
            thread_name="app-present",
        )
    if task is None:
        return
    result = finished(task, lambda: _progress(key), lambda text: in_steps(text, model))  # node ids as steps
    if result is None:
        return
    n = len(result.rows)  # said beside the step: the rows are below a laptop's fold
    st.caption(f"↓ Its {counted(n, 'sample row')} {'is' if n == 1 else 'are'} under the graph.")
    with shown_in:
        _shown_rows(model, node_id, step, result)


def _shown_rows(model: PlanModel, node_id: str, step: int, result) -> None:
    st.markdown(f"**Sample rows of step {step}**")
    rows = result.rows
    names = story_column_names(model, node_id)
    if names and len(names) == len(rows.columns):  # the columns as the story names them: revenue, not sum(…
        rows = rows.set_axis([f"[{i}] {name}" for i, name in enumerate(names)], axis=1)
    show_rows(rows.iloc[:, read_first(model, node_id, len(rows.columns))])
    n = len(result.rows)
    more = " (the first ones)" if result.truncated else ""
    st.caption(f"{n} row{'s' if n != 1 else ''}{more}, ran in {result.elapsed_s:.1f}s")
    if not result.warnings:
        return
    # the run's notes speak of types and engines: in the open with the technical marks, else a click away
    notes = (
        st.container()
        if st.session_state.get("present_details", False)
        else st.expander(f"{counted(len(result.warnings), 'note')} on how these rows were computed")
    )
    with notes:
        for w in result.warnings:
            st.caption(md_escape(f"⚠ {in_steps(w, model)}"))


def main() -> None:
    opened = open_plan(
        "Present a plan",
        "Open a plan in the sidebar (a sample, an upload or pasted JSON) to present it.",
        empty="The plan has no relations to present.",
        graph_first=True,
    )
    if opened is None:
        return
    # a link opened in front of an audience shows the graph first, the story when the graph is drawn
    # (ui.page.open_plan)
    plan, model, graph_only = opened
    node_ids = list(model.graph.nodes)
    order = story_order(model)
    number = {node_id: i for i, node_id in enumerate(order, start=1)}
    resolve_node(node_ids, _start(model, order), called=lambda i: f"step {number[i]}")
    st.session_state[PRESENTED][model.digest] = st.session_state["node"]

    # node ids in the words only with the technical marks (the toggle below, drawn after this)
    sentences = describe_plan(model, ids=st.session_state.get("present_details", False))
    if graph_only:
        max_rows = st.session_state.get("present_max_rows", MAX_ROWS)
        details = st.session_state.get("present_details", False)
    else:
        with st.sidebar:
            st.header("Step")
            st.selectbox("Selected step", order, key="node", format_func=lambda i: f"{number[i]}. {sentences[i][:80]}")
            st.session_state.setdefault("present_max_rows", MAX_ROWS)  # kept across pages: a default given once
            max_rows = st.slider("Schema rows per box", 0, 20, key="present_max_rows", persist_state="session")
            details = st.toggle(
                "Show the technical marks",
                key="present_details",
                persist_state="session",
                help="Property badges (order, distribution) and diagnostic codes on the boxes",
            )
            st.toggle(
                "Sample rows at every step",
                key="present_every_step",
                persist_state="session",
                help="Each step's rows are run as it is shown, without the Show sample rows click",
            )
    selected = st.session_state["node"]

    # a sample by its title, for an audience ("TPC-H query 2 (isthmus)", not tpch_q02_isthmus.json)
    shown = sample_titles().get(plan.sample, plan.source) if getattr(plan, "sample", None) else plan.source
    st.markdown(f"#### {md_escape(shown)}")
    not_its_sql(plan)
    broken = errors_said(model)
    if broken:
        st.warning(md_escape(broken), icon=":material/error:")
    # the graph large and the step beside it; under both, as wide as the page, the step's rows (in the side
    # column a table showed two or three of its columns), then the whole story
    graph_col, side_col = st.columns([2, 1], gap="large")
    rows_area = st.container()
    with graph_col:
        # columns by their names (revenue, not sum(multiply(…), as the story names them
        # each box numbered as its step in the list beside it
        view = View(theme=theme(), max_rows=max_rows, plain=not details, steps=tuple(number.items()))
        dot = to_dot(spoken_model(model), view=view)
        graph_view(dot, "present_graph_click", selected, height=600, follow=True, then_rest=graph_only)
    if graph_only:
        return
    with side_col:
        node = model.node(selected)
        # in an audience's words; the relation's own name too with the technical marks
        heading, relation = spoken_heading(node), title(node.kind)
        technical = details and heading != relation
        st.subheader(f"Step {number[selected]}: {heading}" + (f" ({relation})" if technical else ""))
        _walk(order, selected)
        st.markdown(f"**{md_escape(sentences[selected])}**")
        names = story_column_names(model, selected) or []  # computed columns by their name or in words
        # those the sentence does not name already (a read's names its first few)
        rest = [n for n in names if n not in sentences[selected]]
        if rest:
            st.caption(
                ("Its other columns: " if len(rest) < len(names) else "Columns: ")
                + md_escape(", ".join(rest[:20]))
                + (f" and {len(rest) - 20} more" if len(rest) > 20 else "")
            )
        every_step = st.session_state.get("present_every_step", False)
        _sample_rows(plan, model, selected, number[selected], rows_area, every_step)
        share_link_widget(plan, selected, page="present", at=f"the same step ({number[selected]})")
        report_button(plan, model, key="present_report")
    st.divider()
    _story(order, sentences, selected)


run_page("the Present page", main)
