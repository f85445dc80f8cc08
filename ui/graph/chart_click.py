"""Clicking a node in the in-browser chart selects it, and the selected node is highlighted in the page.

This is the fallback of :mod:`ui.graph.viewer` (the viewer) on a server without Graphviz's ``dot``.

``st.graphviz_chart`` draws the DOT in the page (Graphviz compiled to WebAssembly, no system
Graphviz needed). It reports no clicks, so this small custom component (Streamlit components v2,
which run in the page itself) listens for clicks on the chart's nodes and sends the node id back
as a trigger value. Node ids come from the ``id="node-…"`` attribute ``viz.render`` puts on every
node, with the SVG ``<title>`` as a fallback.

The selection is painted here too, not written into the DOT: the chart lays the graph out again
whenever its DOT changes (slow for a large plan in the browser), so a DOT that stays the same
when another node is selected keeps a click as fast as the rerun.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

import streamlit as st

from ui.state.selection import select, theme
from viz.render import PALETTES

#: The listener's script, in ``ui/graph/static/chart_click.js`` (read once, given to the component as its
#: text); what it paints comes in the component's data, a JSON object (:func:`graph_click`).
_JS = (resources.files("ui.graph") / "static" / "chart_click.js").read_text(encoding="utf-8")

_component = st.components.v2.component("substrait_viz_graph_click", js=_JS)


def select_clicked(key: str) -> None:
    """Select the clicked node, if it is one of the plan's (``st.session_state["node_ids"]``)."""
    value = st.session_state.get(key)
    node = value.get("node") if isinstance(value, dict) else getattr(value, "node", None)
    if node and node in st.session_state.get("node_ids", ()):
        select(node)


def graph_click(
    key: str,
    selected: str | None = None,
    on_click: Callable[[], None] | None = None,
    hits: frozenset[str] | set[str] = frozenset(),
    lineage: dict | None = None,
) -> str | None:
    """Mount the listener and paint ``selected`` as the selected node (draw the DOT without a
    selection), and the nodes of a column's ``lineage`` (``ui.panels.column_lineage.lineage_highlight``);
    returns the clicked node id on the rerun a click causes. By default a click selects the node
    (``ui.state.selection``)."""
    callback = on_click if on_click is not None else (lambda: select_clicked(key))
    pal = PALETTES[theme()]
    data = {
        "selected": selected,
        "fill": pal.selected_fill,
        "hits": sorted(hits),
        "hit_fill": pal.hit_fill,
        "lineage": lineage,
    }
    result = _component(key=key, data=data, on_node_change=callback, height=0)
    return getattr(result, "node", None)
