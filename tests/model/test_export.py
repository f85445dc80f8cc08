"""The SVG the graph viewer sends: dot's drawing made smaller without changing what it shows."""

from __future__ import annotations

import re
import shutil

import pytest

from viz.export import compact_svg, layout_svg, mark_detail_lines
from viz.model import analyze
from viz.render import View, to_dot

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot (make test installs it)")


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


def test_compact_svg_keeps_every_node_text_and_position():
    with open("sample_plans/tpch_q03_isthmus.json", "rb") as fh:
        model = analyze(fh.read())
    svg = layout_svg(to_dot(model))
    small = compact_svg(svg)
    assert len(small) < 0.8 * len(svg)
    assert "<!--" not in small and "font-family=" not in small and 'text-anchor="start"' not in small
    assert _texts(small) == _texts(svg)  # every label line, in order
    assert re.findall(r' (?:x|y)="[^"]*"', small) == re.findall(r' (?:x|y)="[^"]*"', svg)
    assert re.findall(r'id="([^"]*)"', small) == re.findall(r'id="([^"]*)"', svg)
    assert small.count('text-anchor="middle"') == svg.count('text-anchor="middle"')  # only the default goes


def test_a_node_s_lines_below_its_title_are_marked_as_details():
    """The viewer hides a node's detail lines when zoomed far out; the server marks them once."""
    with open("sample_plans/tpch_q03_isthmus.json", "rb") as fh:
        model = analyze(fh.read())
    svg = compact_svg(layout_svg(to_dot(model, view=View(trace="orderedness"))))
    marked = mark_detail_lines(svg)
    assert _texts(marked) == _texts(svg) and re.sub(r' class="sv-detail"', "", marked) == svg
    groups = re.split(r'(?=<g id="[^"]*" class="(?:node|edge|cluster)">)', marked)
    nodes = [g for g in groups if 'class="node"' in g[:60]]
    edges = [g for g in groups if 'class="edge"' in g[:60]]
    assert len(nodes) == len(model.graph.nodes)
    for group in nodes:
        texts = re.findall(r'<text( class="sv-detail")? [^>]*?y="(-?[\d.]+)"[^>]*>([^<]*)<', group)
        top = float(texts[0][1])
        assert not texts[0][0], "a node's first line is its title"
        for detail, y, _ in texts:
            assert bool(detail) == (float(y) > top + 2), (detail, y, top)
        assert sum(1 for d, _, _ in texts if not d) < len(texts), "every node here has a line below its title"
    assert any("<text" in g for g in edges), "the trace labels the edges"
    assert all("sv-detail" not in g for g in edges), "edge labels are not a node's details"
