"""Step through a plan: start at a leaf, step up to the parent or down to an input, and at each
step run the node (a sample of rows) beside its inputs, with one line saying what it did.

A step runs in the background (``executor.jobs.step.run_step``): the rows come first and show as they
arrive, then the counts, each within a budget; the page never waits for Spark, and Cancel stops it.

The current node is ``st.session_state["node"]`` (shared with Inspect) and ``?node=`` in the URL.
Keyboard: K parent, 1-9 the n-th input, G run.
"""

from __future__ import annotations

import streamlit as st

from executor.jobs.outputs import describe_step, too_many_to_compare
from executor.jobs.run import RunResult
from executor.jobs.step import count_notes, cross_product_warning, run_step
from ui.graph.viewer import graph_view
from ui.markdown import md_escape, md_message
from ui.page import not_its_sql, open_plan, run_page
from ui.panels.boundary import panel
from ui.panels.output_comparison import compare_panel
from ui.panels.row_counts import finished_profile, profile_overlay
from ui.rows import show_rows
from ui.state import url
from ui.state.entry import through_app
from ui.state.plan_data import catalog_for, data_key
from ui.state.plan_source import Plan, executability_of
from ui.state.selection import NODE_ID_HELP, resolve_node, select
from ui.tasks import Task, progress_fragment, show_progress, start
from viz.describe.context import read_first
from viz.kinds import kind
from viz.model import PlanModel
from viz.render import View, rows_text, title, to_dot

through_app()

BIG_PLAN = 25  # nodes; above this the graph shows the neighbourhood of the current node only


def _go(node_id: str) -> None:
    select(node_id)
    url.set("node", node_id)


def _on_leaf() -> None:
    leaf = st.session_state.get("step_leaf")
    if leaf:
        _go(leaf)


def _label(model: PlanModel, node_id: str) -> str:
    n = model.node(node_id)
    return f"{node_id} · {title(n.kind)}" + (f" · {n.info.detail[:60]}" if n.info.detail else "")


def _results() -> dict:
    return st.session_state.setdefault("step_results", {})


#: How long a step's exact count may take once its rows are in; a longer count is stopped and the
#: rows are shown without it (a cross product's count is computed from its inputs' counts instead).
COUNT_BUDGET_S = 10.0


def _tasks() -> dict:
    return st.session_state.setdefault("step_tasks", {})


def _start(plan: Plan, model: PlanModel, node_id: str, limit: int, timeout_s: float) -> None:
    """Run the node and its inputs in the background; each result lands in ``_results()`` as it comes."""
    key, data = model.digest, data_key(plan, model)
    results = _results()
    task = Task()
    _tasks()[(key, node_id, limit, data)] = task

    def landed(nid: str, result: RunResult | str) -> None:
        results[(key, nid, limit, data)] = result
        task.updates += 1
        task.progress(
            min(task.fraction + 0.5 / (len(model.node(node_id).inputs) + 1), 0.99),
            (
                "rows in"
                if isinstance(result, RunResult) and result.row_count is None
                else "done"
                if isinstance(result, RunResult)
                else "failed"
            )
            + f" for node {nid}",
        )

    start(
        task,
        plan,
        lambda catalog: run_step(
            model,
            node_id,
            catalog=catalog,
            limit=limit,
            count_budget_s=COUNT_BUDGET_S,
            timeout_s=timeout_s,
            cancel=task.cancel,
            on_result=landed,
            progress=lambda _fraction, status: task.progress(task.fraction, status),  # its place in line, too
        ),
        what=f"running node {node_id}",
        thread_name="app-step",
    )


@progress_fragment
def _progress(task_key: tuple) -> None:
    task = _tasks().get(task_key)
    if task is None:
        return
    drawn = st.session_state.setdefault("step_drawn", {})
    if drawn.get(task_key, 0) != task.updates:
        drawn[task_key] = task.updates
        st.rerun(scope="app")  # a result landed: draw it
    show_progress(task, f"Running node {task_key[1]} and its inputs", "step_cancel")


def _rows_block(
    model: PlanModel, nid: str, heading: str, result: RunResult | str | None, running: bool, said: dict[str, str]
) -> None:
    """One node's rows under ``heading``; an error said already in ``said`` (error -> the heading it is
    under: an input's table error is the output's too) is pointed to, not repeated."""
    st.markdown(f"**{heading}** · {md_escape(f'{title(model.node(nid).kind)} {nid}')}")
    if result is None:
        st.caption("Running…" if running else "Not run yet.")
    elif isinstance(result, str) and result in said:
        st.caption(f"Failed as {said[result]} did (its error is above).")
    elif isinstance(result, str):
        said[result] = heading.lower()
        st.error(md_message(result))
    else:
        if result.row_count is not None:
            total = rows_text(result.row_count)
        else:
            total = f"more than {rows_text(len(result.rows))}" + (" (counting…)" if running else "")
        # the counts under the table: the table's toolbar, shown on hover, would cover a caption above it
        show_rows(result.rows)
        st.caption(f"{total}, showing {len(result.rows):,}")
        for note in count_notes(result):
            st.caption(md_escape(note))


def _graph(plan: Plan, model: PlanModel, node_id: str) -> None:
    big = len(model.graph.nodes) > BIG_PLAN
    ids = None
    if big:
        ids = model.graph.around(node_id, levels=2)
    profile = finished_profile(plan, model)
    view = View(selected=node_id, max_rows=4 if big else 6, profile=profile_overlay(profile))
    # the current node is brought into the frame whenever a step takes it out
    graph_view(
        to_dot(model, node_ids=ids, view=view),
        "step_graph",
        selected=node_id,
        clickable=False,
        height=560,
        plan=model.digest,
        follow=True,  # opened in the middle of the frame, its inputs and parents around it
    )
    if big:
        st.caption("The neighbourhood of the current node (the plan is large): two levels up and down.")


def main() -> None:
    opened = open_plan(
        "Step through a plan",
        "Open a plan in the sidebar (upload, sample or paste), then step through it node by node.",
        empty="The plan has no relations to step through.",
    )
    if opened is None:
        return
    plan, model = opened.plan, opened.model
    node_ids = list(model.graph.nodes)
    leaves = model.graph.leaves()
    node_id = resolve_node(node_ids, leaves[0] if leaves else node_ids[0])
    with st.sidebar:
        st.header("Step")
        st.selectbox(
            "Start at a leaf",
            leaves,
            index=None,
            key="step_leaf",
            on_change=_on_leaf,
            format_func=lambda n: _label(model, n),
            placeholder="jump to a leaf",
            help=NODE_ID_HELP,
        )
        st.session_state.setdefault("step_limit", 20)  # kept across pages: defaults given once
        st.session_state.setdefault("step_timeout", 120)
        limit = int(st.number_input("Rows to show", 1, 1000, key="step_limit", persist_state="session"))
        timeout_s = float(st.number_input("Timeout (s)", 5, 3600, key="step_timeout", persist_state="session"))
        st.caption("Keys: **K** parent · **1**-**9** input · **G** run")

    node = model.node(node_id)
    parents = model.graph.parents(node_id)
    inputs = list(node.inputs)
    not_its_sql(plan)
    st.subheader(md_escape(f"{title(node.kind)} · {node_id}"))
    if node.info.detail:
        st.caption(md_escape(node.info.detail))

    nav = st.container(horizontal=True)
    nav.button(
        "⬆ Parent",
        key="step_parent",
        disabled=not parents,
        on_click=_go,
        args=(parents[0],) if parents else (),
        shortcut="K",
        help=md_escape(f"Go up to {parents[0]}") if parents else "A root: no parent",
    )
    for i, inp in enumerate(inputs):
        nav.button(
            f"⬇ Input {i + 1}: {title(model.node(inp).kind)}",
            key=f"step_input_{i}",
            on_click=_go,
            args=(inp,),
            shortcut=str(i + 1) if i < 9 else None,
            help=md_escape(f"Go down to {_label(model, inp)}"),
        )
    ok, reason = executability_of(plan.data).get(node_id, (True, None))
    run = nav.button(
        "▶ Run",
        key="step_run",
        type="primary",
        disabled=not ok,
        shortcut="G",  # no tooltip: Streamlit kept it over the page after the run's rerun
    )
    if not ok:
        st.warning(md_escape(f"This node cannot run on Spark: {reason}"))
    if len(parents) > 1:
        st.caption(md_escape("Shared by several parents: " + ", ".join(parents) + f" (⬆ goes to {parents[0]})"))

    # halves: a narrower frame showed little more than the current node
    graph_col, rows_col = st.columns(2, gap="medium")
    with graph_col, panel("the graph"):
        _graph(plan, model, node_id)
    with rows_col, panel("the rows"):
        _rows(plan, model, node, inputs, run, limit, timeout_s, ok)


def _rows(
    plan: Plan, model: PlanModel, node, inputs: list[str], run: bool, limit: int, timeout_s: float, ok: bool
) -> None:
    """The node's rows beside its inputs' rows, what it did, and the comparison with its input."""
    node_id = node.id
    key, data = model.digest, data_key(plan, model)  # rows of other data (bound since) are not these
    task_key = (key, node_id, limit, data)
    task = _tasks().get(task_key)
    if run and (task is None or task.done.is_set()):
        for nid in [*inputs, node_id]:
            _results().pop((key, nid, limit, data), None)
        _start(plan, model, node_id, limit, timeout_s)
        task = _tasks()[task_key]
    own = _results().get((key, node_id, limit, data))
    ins = [_results().get((key, i, limit, data)) for i in inputs]
    if task is not None and task.error:
        st.error(md_message(task.error))
    if task is not None and not task.done.is_set():
        _progress(task_key)
    counted = (
        isinstance(own, RunResult)
        and own.row_count is not None
        and all(isinstance(r, RunResult) and r.row_count is not None for r in ins)
    )
    # once "What it did" says a cross product's numbers, the warning does not say them again
    input_rows = None if counted else [r.row_count if isinstance(r, RunResult) else None for r in ins]
    warning = cross_product_warning(model, node_id, input_rows)
    if warning:
        st.warning(md_escape(warning))
    if counted:
        st.info(
            f"**What it did:** {md_escape(describe_step(model, node_id, own.row_count, [r.row_count for r in ins]))}"
        )
    if own is None and task is None:
        if ok:  # else the warning above says why Run is off
            st.caption("Press ▶ Run (or G) to see this node's rows beside its inputs' rows.")
        return
    running = task is not None and not task.done.is_set()
    # the inputs side by side, the output under them as wide as the panel: three tables in a row are
    # too narrow to read
    said: dict[str, str] = {}
    for i, (inp, res, col) in enumerate(zip(inputs, ins, st.columns(len(inputs)) if inputs else [])):
        with col:
            _rows_block(model, inp, f"Input {i + 1}", res, running, said)
    _rows_block(model, node_id, "Output", own, running, said)

    # after a failed run (not one the person stopped) a comparison would fail the same way
    compared = ok and task is not None and task.done.is_set() and (not said or task.cancel.is_set())
    if kind(node.kind).keeps_input_rows and len(inputs) == 1 and compared:
        st.markdown(f"##### Compared with its input, node {md_escape(inputs[0])}")
        catalog = catalog_for(plan, generate=True)
        with panel("the comparison with its input"):
            compare_panel(
                model,
                inputs[0],
                model,
                node_id,
                catalog,
                catalog,
                key="step_compare",
                labels=("the input", "the output"),  # the heading names the input's node: ids cut the counts' labels
                sample=limit,
                timeout_s=timeout_s,
                button="Compare with input" + (" (which rows were dropped)" if kind(node.kind).drops_rows else ""),
                order=lambda width: read_first(model, node_id, width),  # the columns the step's condition reads first
                refused=too_many_to_compare(
                    ins[0].row_count if isinstance(ins[0], RunResult) else None, f"Its input, node {inputs[0]},"
                ),
            )


run_page("the Step through page", main)
