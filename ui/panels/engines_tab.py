"""What each engine will do with the plan: the report behind the portability toggle's marks and the
inspector's Engines tab.

Two background tasks per plan, shared by the toggle and the tab (``executor.engines.portability``):

- the *report*: which engines take each node and why not, the fields an engine ignores or reads
  differently, and version skew; nothing runs, DataFusion plans each node;
- the *types*: the column types Spark (through our translation) and DataFusion (through its consumer)
  give each node, found without reading data; it starts Spark when Spark is not up yet.

Both are kept per plan and catalog for every session (``executor.engines.portability`` caches them),
and the page never waits for them: a task that has not ended shows its progress. The engines' own
plans for one node are asked for with a button, in a third task.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from executor.data.catalog import unbound_tables
from executor.engines.engine_types import ENGINE_NAMES, difference_kind
from executor.engines.physical import EnginePlan
from executor.engines.portability import Portability, engine_plans, node_types, portability, verdict_words
from executor.errors import ExecutionError
from ui.markdown import md_escape
from ui.panels.schema_table import NAME_BREAKS, code_html, markdown_table
from ui.panels.unbound import unbound_warning
from ui.state.plan_data import catalog_for
from ui.state.plan_source import Plan
from ui.tasks import Task, finished, progress_fragment, run_in_background, show_progress
from viz.model import PlanModel

TYPES_HEADS = ("column", "declared", "spec", "Spark", "DataFusion")
#: The fragment that draws the graph and the inspector (the Inspect page keys it so): what the engines
#: found for the graph's marks redraws it alone, not the whole page.
REDRAWN = "graph-and-inspector"
#: The Engines tab's own fragment: what it waits for redraws the tab alone.
ENGINES_TAB = "engines-tab"


def _tasks() -> dict[tuple, Task]:
    return st.session_state.setdefault("engine_report_tasks", {})


@progress_fragment
def _progress_fragment(key: tuple, text: str, cancel_key: str, rerun: str) -> None:
    state = _tasks().get(key)
    if state is not None:
        show_progress(state, text, cancel_key, rerun=rerun)


def task_key(plan: Plan, model: PlanModel, what: str, node_id: str | None = None) -> tuple:
    """The key of the session's task ``what`` ("report", "types", "plans") for this plan, the tables it
    is bound to now (a table bound since asks again) and the node."""
    try:
        tables = catalog_for(plan).fingerprint(model)
    except ExecutionError:  # the task says why when it starts
        tables = None
    return (what, model.digest, tables, node_id)


def _task(plan: Plan, model: PlanModel, what: str, work, node_id: str | None = None) -> tuple[Task, tuple]:
    """The session's task ``what`` for this plan (and node), started the first time it is asked for,
    and its key. It reads no rows: the tables are not generated for it (a table not bound stands in empty)."""
    key = task_key(plan, model, what, node_id)
    task = _tasks().get(key)
    if task is None:
        # never waited for in the page's run (``ui.tasks.settle``): its progress shows at once
        task = Task(waited=True)  # its status says whether Spark is still starting
        _tasks()[key] = task
        try:
            catalog = catalog_for(plan)
        except ExecutionError as exc:
            task.error = str(exc)
            task.finish()
            return task, key
        run_in_background(
            task, lambda: work(catalog), what=f"asking the engines ({what})", thread_name=f"app-engines-{what}"
        )
    return task, key


def report_task(plan: Plan, model: PlanModel) -> tuple[Task, tuple]:
    return _task(plan, model, "report", lambda catalog: portability(model, catalog))


def types_task(plan: Plan, model: PlanModel) -> tuple[Task, tuple]:
    return _task(plan, model, "types", lambda catalog: node_types(model, catalog))


def _wait(task: Task, key: tuple, text: str, rerun: str = REDRAWN):
    """The task's result, or its progress (or error) drawn and None; when it ends, the fragment keyed
    ``rerun`` is redrawn."""
    cancel = f"cancel-{key[0]}-{rerun}"
    return finished(task, lambda: _progress_fragment(key, text, cancel, rerun))


def _found(key: tuple):
    """The result of the session's task ``key`` once it ended well, else None (nothing is started)."""
    task = _tasks().get(key)
    return task.result if task is not None and task.done.is_set() and task.error is None else None


def session_findings(plan: Plan, model: PlanModel) -> tuple[Portability | None, dict[str, tuple[EnginePlan, ...]]]:
    """What this session's tasks found for the plan, asking nothing: the report with the types once they
    have come (None before the report), and the engines' plans of the nodes asked for, by node."""
    report = _found(task_key(plan, model, "report"))
    if report is None:
        return None, {}
    types = _found(task_key(plan, model, "types"))
    if types is not None:
        report = report.with_types(types, model)
    plans_of = task_key(plan, model, "plans")[:3]
    plans = {k[3]: r for k in _tasks() if k[:3] == plans_of and (r := _found(k)) is not None}
    return report, plans


def report_with_types(plan: Plan, model: PlanModel) -> Portability | None:
    """The report with whatever types have come (none yet: the report alone), or None while the
    report itself is being made (its progress is drawn)."""
    types_task(plan, model)  # both asked for at once: the types need not wait for the report
    if _wait(*report_task(plan, model), "Asking both engines") is None:
        return None
    return session_findings(plan, model)[0]


def types_progress(plan: Plan, model: PlanModel) -> None:
    """The types' progress (or error) while they come: when they land, the page is drawn again with them."""
    _wait(*types_task(plan, model), "Asking Spark and DataFusion for the types")


@st.fragment(key=ENGINES_TAB)
def engines_tab(plan: Plan, model: PlanModel, node_id: str) -> None:
    """The inspector's Engines tab for node ``node_id``."""
    types_task(plan, model)  # both asked for at once: the types need not wait for the report
    report = _wait(*report_task(plan, model), "Asking both engines", ENGINES_TAB)
    if report is None:
        return
    node = report.nodes.get(node_id)
    if node is None:
        st.info("No engine report for this node.")
        return
    if node.spark.part_of is not None:  # the same for both engines: no engine runs it alone
        st.info(md_escape(f"Neither engine runs it alone: {node.spark.reason}."))
    # the verdicts are the plan's; a table bound to nothing, or to a file without the plan's columns, stops a run
    unserved = unbound_tables(catalog_for(plan), model, node_id)
    if unserved:
        unbound_warning(unserved, "It", "neither engine runs it until then")
    for engine, verdict in (("Spark", node.spark), ("DataFusion", node.datafusion)):
        if verdict.part_of is not None:
            continue
        if verdict.ok:
            st.markdown(f"**{engine}** runs it" + (", once its tables are bound." if unserved else "."))
        else:
            st.markdown(md_escape(f"{engine} {verdict_words(verdict)}"))
    for line in node.field_notes() + node.version_notes():
        st.warning(md_escape(line))
    cannot = {engine: v.reason for engine, v in (("spark", node.spark), ("datafusion", node.datafusion)) if not v.ok}
    _types(plan, model, node_id, cannot)
    _plans(plan, model, node_id)


def _types(plan: Plan, model: PlanModel, node_id: str, cannot: dict[str, str] | None = None) -> None:
    """The node's column types on each engine; ``cannot``: why the engines said above not to run the
    node cannot ("spark", "datafusion"), not said again."""
    st.markdown("**Column types on each engine**")
    types = _wait(*types_task(plan, model), "Asking Spark and DataFusion for the types", ENGINES_TAB)
    if types is None:
        return
    node = types.get(node_id)
    if node is None:
        st.caption("No types for this node.")
        return
    if model.node(node_id).schema is None:
        st.caption("The plan's schema of this node is unknown (its diagnostics say why): there is nothing to compare.")
        return
    # a type as the plan declares it is "=": the table is narrow, and what differs stands out
    rows = [
        (
            c.name,
            c.declared or "—",
            *(_cell(c.declared, getattr(c, source)) for source in ("spec", "spark", "datafusion")),
        )
        for c in node.columns
    ]
    frame = pd.DataFrame(rows, columns=list(TYPES_HEADS))
    notes = node.reasons(said=cannot)
    if (frame["spec"] == "=").all():  # the narrow panel keeps room for the engines
        frame = frame.drop(columns="spec")
        notes.insert(
            0,
            "By the Substrait spec's own function definitions, every column has the type the plan declares "
            "(so the table leaves the spec out)",
        )

    # Markdown, not a grid: its cells wrap (types after "<" and ","), so every column fits the narrow
    # inspector instead of scrolling out of sight
    markdown_table(types_markdown(frame), len(frame))
    st.caption(
        "= : as the plan declares it. In bold: another type; in grey: only the nullability differs, or how the "
        "engine stores the type (a string's length, a precision). Spark's types are our translation's, which "
        "casts each function call to the type the plan declares (where it declares none, the type the extension "
        "YAMLs derive): Spark's own typing shows where a relation's rule, not a call, makes the type."
    )
    if notes:  # each a sentence
        st.caption(md_escape(" ".join(n if n.endswith((".", "?", "!")) else n + "." for n in notes)))


def types_markdown(frame: pd.DataFrame) -> str:
    """The types table as Markdown drawn with HTML allowed: names and types as code (:func:`code_html`),
    each column's declared type under its name (a column less: the table fits an inspector 250 px wide),
    a type that differs from the declared one in bold amber, one that differs only in nullability or
    storage in grey."""
    rest = [h.replace("DataFusion", "Data&shy;Fusion") for h in frame.columns[2:]]  # may break in a narrow column
    heads = ["column: declared", *rest]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for _, row in frame.iterrows():
        declared = row["declared"]
        cells = [f"{code_html(row['column'], NAME_BREAKS)}<br>{code_html(declared, TYPE_BREAKS)}"]
        for t in row.iloc[2:]:
            if t in ("=", "—"):
                cells.append(t)
                continue
            cells.append(code_html(t, TYPE_BREAKS, _style(declared, t)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: Where a type may break in the narrow table: after the parts of its parameters.
TYPE_BREAKS = "<,"


def _cell(declared: str | None, theirs: str | None) -> str:
    if theirs is None:
        return "—"
    return "=" if theirs == declared else theirs


def _style(declared: str, shown: str) -> str:
    if shown in ("=", "—") or declared == "—":
        return ""
    if difference_kind(declared, shown) == "type":
        return "color: #b45309; font-weight: bold"
    return "color: #888888"


def _plans(plan: Plan, model: PlanModel, node_id: str) -> None:
    st.markdown("**Each engine's own plan for this node**")
    key = task_key(plan, model, "plans", node_id)
    task = _tasks().get(key)
    if task is None:
        if st.button(
            "Show the engines' plans",
            key=f"engine-plans-{node_id}",
            help="Spark's physical plan for this node's subtree and DataFusion's, with the operators that "
            "are this node's marked ▶ (nothing runs)",
        ):
            task, key = _task(plan, model, "plans", lambda catalog: engine_plans(model, node_id, catalog), node_id)
        else:
            return
    plans = _wait(task, key, f"Asking both engines for node {node_id}'s plan", ENGINES_TAB)
    if plans is None:
        return
    for p in plans:
        name = ENGINE_NAMES[p.engine]
        st.caption(md_escape(f"{name}: {p.error}" if p.error else name))
        if not p.error:
            st.code(p.text(), language=None)


__all__ = ["engines_tab", "report_task", "report_with_types", "session_findings", "types_progress", "types_task"]
