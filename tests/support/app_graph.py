"""The graphs an AppTest page drew: the graph viewer's data (``ui.graph.viewer``), or the fallback
chart's DOT where Graphviz's ``dot`` is not installed."""

from __future__ import annotations

import html
import json
import re

from streamlit.testing.v1 import AppTest

from ui.graph.viewer import laid_out

VIEWER = "substrait_viz_graph_view"
CLICKS = "substrait_viz_graph_click"  # the fallback chart's click listener, which paints it


def graphs(at: AppTest) -> list[dict]:
    """Each graph on the page, in page order: ``{"text": ..., "selected": ..., "hits": [...], "lineage": ...}``
    (and, from the viewer, its SVG's ``key``, whether the SVG was ``sent`` and ``then_rest``). The
    text is the laid-out SVG with its entities decoded (what the browser shows), or the DOT of the
    fallback chart."""
    out = []
    for c in at.get("bidi_component"):
        if c.proto.component_name == VIEWER:
            data = json.loads(c.proto.json)
            svg = data["svg"] or laid_out(data["key"])  # a rerun of the same drawing sends only its key
            out.append(
                {
                    "text": html.unescape(svg),
                    "selected": data["selected"],
                    "hits": data["hits"],
                    "sent": data["svg"] is not None,
                    "lineage": data.get("lineage"),
                    "key": data["key"],
                    "then_rest": data["then_rest"],
                    "open_width": data.get("open_width"),
                }
            )
    clicks = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == CLICKS]
    for i, chart in enumerate(at.get("graphviz_chart")):
        painted = clicks[i] if i < len(clicks) else {}
        out.append(
            {
                "text": chart.proto.spec,
                "selected": painted.get("selected"),
                "hits": painted.get("hits", []),
                "lineage": painted.get("lineage"),
            }
        )
    return out


def graph_text(at: AppTest, index: int = 0) -> str:
    drawn = graphs(at)
    assert len(drawn) > index, "the graph is drawn"
    return drawn[index]["text"]


def is_graph(text: str) -> bool:
    """A laid-out SVG or, in the fallback, a DOT digraph."""
    return text.lstrip().startswith("<svg") or "digraph" in text


def nodes_drawn(text: str) -> set[str]:
    """The ids of the nodes a graph draws (its SVG's ``node-<id>`` groups, or the DOT's node statements)."""
    if text.lstrip().startswith("<svg"):
        return set(re.findall(r'<g id="node-([^"]+)" class="node">', text))
    return set(re.findall(r'^\s*"([^"]+)" \[', text, flags=re.M))


def node_part(text: str, node_id: str) -> str:
    """What the graph draws for one node: its SVG group, or its DOT statement."""
    if text.lstrip().startswith("<svg"):
        start = text.index(f'<g id="node-{node_id}" class="node">')
        return text[start : text.index("</g>", start)]
    return text.split(f'"{node_id}" [', 1)[1].split("];", 1)[0]
