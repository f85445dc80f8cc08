"""The SVG the graph viewer sends: dot's drawing made smaller without changing what it shows."""

from __future__ import annotations

import re
import shutil

import pytest

from viz.export import compact_svg, layout_svg
from viz.model import analyze
from viz.render import to_dot

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
