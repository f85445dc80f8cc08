"""Column lineage in the inspector: pick a column of the selected node and see where it comes from
(chains down to table columns and literals) and where it is used; the path is painted on the graph.

The lineage itself is :mod:`viz.lineage`; this module holds the widget, the text and the highlight
handed to :func:`ui.graph.viewer.graph_view`. The picked column is in the session (``lineage_column``,
the picker's key) with the node it belongs to (``lineage_node``): the graph, drawn before the
inspector, paints it on the same run; selecting another node clears it; a click on a schema row in
the graph picks one (:func:`column_clicked`). One widget key for every node keeps the widget the
same while the selection changes.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui.markdown import md_escape
from ui.state.selection import select, theme
from viz.lineage import LineageError, chain_texts, step_text, trace, use_text, used_by
from viz.model import PlanModel
from viz.render import LINEAGE_COLOURS

#: At most this many "used by" lines are listed.
MAX_USES = 25


KEY = "lineage_column"
OWNER = "lineage_node"
PLAN = "lineage_plan"  # the digest of the plan the pick was made in


def pick(node_id: str, index: int | None) -> None:
    """Pick column ``index`` of node ``node_id`` (None: none), before the picker is drawn or in a callback."""
    st.session_state[OWNER] = node_id
    st.session_state[KEY] = index


def picked_column(model: PlanModel, node_id: str | None) -> int | None:
    """The column of ``node_id`` whose lineage is shown, if one is picked and still in its schema."""
    if node_id is None or node_id not in model.graph.nodes or st.session_state.get(OWNER) != node_id:
        return None
    if st.session_state.get(PLAN, model.digest) != model.digest:
        return None  # picked in another plan
    index = st.session_state.get(KEY)
    schema = model.node(node_id).schema
    if not isinstance(index, int) or schema is None or not 0 <= index < len(schema):
        return None
    return index


def lineage_highlight(model: PlanModel, node_id: str | None) -> dict | None:
    """What the graph paints for the picked column: the nodes, edges and schema rows on its path down
    to its sources and up to where it is used; None when no column is picked."""
    index = picked_column(model, node_id)
    if index is None:
        return None
    try:
        down = trace(model, node_id, index)
        up = used_by(model, node_id, index)
    except LineageError:
        return None
    rows: dict[str, list[int]] = {}
    for n, i in [*down.steps, *(s.ref for s in up.columns)]:
        if i not in rows.setdefault(n, []):
            rows[n].append(i)
    fill, stroke = LINEAGE_COLOURS.get(theme(), LINEAGE_COLOURS["light"])
    return {
        "nodes": list(dict.fromkeys([*down.nodes(), *up.nodes()])),
        "edges": [f"{a}->{b}" for a, b in dict.fromkeys([*down.edges(), *up.edges()])],
        "rows": rows,
        "fill": fill,
        "stroke": stroke,
    }


def clicked_column(value, node_ids) -> tuple[str, int] | None:
    """The (node, column) a click on a schema row in the graph sent (its trigger value holds
    ``"<node id>|<index>"`` under ``column``), if the node is one of ``node_ids``."""
    clicked = value.get("column") if isinstance(value, dict) else getattr(value, "column", None)
    node, _, index = str(clicked or "").rpartition("|")
    if node in node_ids and index.isdigit():
        return node, int(index)
    return None


def column_clicked(key: str) -> Callable[[], None]:
    """The graph's callback for a click on a schema row: select the node and pick the column."""

    def picked() -> None:
        hit = clicked_column(st.session_state.get(key), st.session_state.get("node_ids", ()))
        if hit is not None:
            select(hit[0])
            pick(*hit)

    return picked


def lineage_panel(model: PlanModel, node_id: str) -> None:
    """The column picker and the picked column's lineage, for the inspector."""
    node = model.node(node_id)
    schema = node.schema
    if not schema:
        return
    if st.session_state.get(OWNER) != node_id or picked_column(model, node_id) is None:
        pick(node_id, None)  # another node was selected (or the plan changed): nothing picked here yet
    st.session_state[PLAN] = model.digest
    labels: dict[int | None, str] = {None: "pick a column…", **{i: f"[{i}] {f.name}" for i, f in enumerate(schema)}}
    st.selectbox(
        "Column lineage",
        list(labels),
        key=KEY,
        format_func=lambda i: labels.get(i, f"[{i}]"),
        placeholder=labels[None],  # no pick is the value None, which Streamlit shows as its placeholder
        help="Where the column comes from, down to table columns and literals, and where it is used. "
        "A click on a schema row in the graph picks it too.",
    )
    index = picked_column(model, node_id)
    if index is None:
        return
    try:
        down = trace(model, node_id, index)
        up = used_by(model, node_id, index)
    except LineageError as exc:
        st.error(md_escape(str(exc)))
        return
    st.markdown("**Comes from**")
    st.code("\n".join(chain_texts(down)), language=None, wrap_lines=True)
    sources = ", ".join(f"{s.table}.{s.column}" for s in down.sources()) or "no table column"
    literals = down.literals()
    st.caption(
        md_escape(f"Sources: {sources}" + (f" · literals: {', '.join(literals)}" if literals else ""))
        + f" · {len(down.nodes())} node{'s' if len(down.nodes()) != 1 else ''} on the path, highlighted on the graph"
        + " · places ([2]) and table columns count from 0, as in every schema"
    )
    for step in down.unknown():
        st.warning(
            md_escape(f"{step.node} [{step.index}] {step.name}: {step.origin.note or 'where it comes from is unknown'}")
        )
    for d in down.diagnostics:
        st.warning(md_escape(f"{d.node}: {d.code}: {d.message}"))
    lines = [f"- {step_text(s)}" for s in up.columns] + [f"- {use_text(u)}" for u in up.conditions]
    st.markdown("**Used by**")
    if not lines:
        st.caption("Nothing above this node reads this column.")
        return
    shown = lines[:MAX_USES]
    if len(lines) > len(shown):
        shown.append(f"- … and {len(lines) - len(shown)} more")
    st.markdown("\n".join(_escape(line) for line in shown))


def _escape(text: str) -> str:
    """Markdown-safe: ``$`` (field references) would start maths, ``*`` and ``_`` emphasis."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("*", "\\*").replace("_", "\\_").replace("[", "\\[")
