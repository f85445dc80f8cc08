"""Clicking a node in the graph selects it.

``st.graphviz_chart`` draws the DOT in the page (Graphviz compiled to WebAssembly, no system
Graphviz needed). It reports no clicks, so this small custom component (Streamlit components v2,
which run in the page itself) listens for clicks on the chart's nodes and sends the node id back
as a trigger value. Node ids come from the ``id="node-…"`` attribute ``viz.render`` puts on every
node, with the SVG ``<title>`` as a fallback.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

_JS = r"""
export default function (component) {
  const { setTriggerValue } = component;
  window.__substraitVizClick = setTriggerValue;
  const bind = () => {
    document.querySelectorAll('.stGraphVizChart svg g.node').forEach((g) => {
      if (g.dataset.substraitBound) return;
      g.dataset.substraitBound = '1';
      g.style.cursor = 'pointer';
      g.addEventListener('click', () => {
        const title = g.querySelector('title');
        const id = g.id && g.id.startsWith('node-') ? g.id.slice(5) : (title ? title.textContent : '');
        if (id && window.__substraitVizClick) window.__substraitVizClick('node', id);
      });
    });
  };
  bind();
  const observer = new MutationObserver(bind);
  observer.observe(document.body, { childList: true, subtree: true });
  return () => observer.disconnect();
}
"""

_component = st.components.v2.component("substrait_viz_graph_click", js=_JS)


def graph_click(key: str, on_click: Callable[[], None]) -> str | None:
    """Mount the listener; returns the clicked node id on the rerun a click causes."""
    result = _component(key=key, on_node_change=on_click, height=0)
    return getattr(result, "node", None)
