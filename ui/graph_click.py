"""Clicking a node in the in-browser chart selects it, and the selected node is highlighted in the page.

This is the fallback of :mod:`ui.graph_view` (the viewer) on a server without Graphviz's ``dot``.

``st.graphviz_chart`` draws the DOT in the page (Graphviz compiled to WebAssembly, no system
Graphviz needed). It reports no clicks, so this small custom component (Streamlit components v2,
which run in the page itself) listens for clicks on the chart's nodes and sends the node id back
as a trigger value. Node ids come from the ``id="node-…"`` attribute ``viz.render`` puts on every
node, with the SVG ``<title>`` as a fallback.

The selection is painted here too, not written into the DOT: the chart lays the graph out again
whenever its DOT changes (about 20 s for 500 nodes in the browser), so a DOT that stays the same
when another node is selected keeps a click as fast as the rerun.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from ui.selection import select, theme
from viz.render import PALETTES

_JS = r"""
export default function (component) {
  const { setTriggerValue, data } = component;
  window.__substraitVizClick = setTriggerValue;
  const selected = data && data.selected ? 'node-' + data.selected : null;
  const fill = (data && data.fill) || '#fff3c4';
  const hits = new Set(((data && data.hits) || []).map((n) => 'node-' + n));
  const lin = data && data.lineage;  // a column's lineage: its nodes take the lineage colours
  const path = new Set(((lin && lin.nodes) || []).map((n) => 'node-' + n));
  const paint = () => {
    document.querySelectorAll('.stGraphVizChart svg g.node').forEach((g) => {
      if (!g.dataset.substraitBound) {
        g.dataset.substraitBound = '1';
        g.style.cursor = 'pointer';
        g.addEventListener('click', () => {
          const title = g.querySelector('title');
          const id = g.id && g.id.startsWith('node-') ? g.id.slice(5) : (title ? title.textContent : '');
          if (id && window.__substraitVizClick) window.__substraitVizClick('node', id);
        });
      }
      // the node's outline is its first shape; an inline style wins over the DOT's attributes
      const shape = g.querySelector('path, polygon, ellipse');
      if (!shape) return;
      const on = g.id === selected, hit = hits.has(g.id), traced = path.has(g.id);
      shape.style.fill = on ? fill : (hit ? data.hit_fill : (traced ? lin.fill : ''));
      shape.style.strokeWidth = on ? '3' : (hit || traced ? '2' : '');
      shape.style.stroke = traced ? lin.stroke : '';
      if (on) g.classList.add('substrait-selected'); else g.classList.remove('substrait-selected');
      g.classList.toggle('substrait-lineage', traced);
    });
  };
  paint();
  const observer = new MutationObserver(paint);
  observer.observe(document.body, { childList: true, subtree: true });
  return () => observer.disconnect();
}
"""

_component = st.components.v2.component("substrait_viz_graph_click", js=_JS)


def select_clicked(key: str) -> None:
    """Select the clicked node, if it is one of the plan's (``st.session_state["node_ids"]``)."""
    value = st.session_state.get(key)
    node = value.get("node") if isinstance(value, dict) else getattr(value, "node", None)
    if node and node in st.session_state.get("node_ids", ()):
        select(node)


def graph_click(key: str, selected: str | None = None, on_click: Callable[[], None] | None = None,
                hits: frozenset[str] | set[str] = frozenset(), lineage: dict | None = None) -> str | None:
    """Mount the listener and paint ``selected`` as the selected node (draw the DOT without a
    selection), and the nodes of a column's ``lineage`` (``ui.lineage_panel.lineage_highlight``);
    returns the clicked node id on the rerun a click causes. By default a click selects the node
    (``ui.selection``)."""
    callback = on_click if on_click is not None else (lambda: select_clicked(key))
    pal = PALETTES[theme()]
    data = {"selected": selected, "fill": pal.selected_fill, "hits": sorted(hits), "hit_fill": pal.hit_fill,
            "lineage": lineage}
    result = _component(key=key, data=data, on_node_change=callback, height=0)
    return getattr(result, "node", None)
