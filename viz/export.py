"""Exports that need an outside renderer: SVG through Graphviz's ``dot``, when it is installed."""

from __future__ import annotations

import re
import shutil
import subprocess


def has_dot() -> bool:
    """Whether Graphviz's ``dot`` is on the PATH."""
    return shutil.which("dot") is not None


def svg_or_none(dot: str, timeout_s: float = 20.0) -> bytes | None:
    """The DOT drawn as SVG by Graphviz's ``dot``; None when ``dot`` is not installed or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=dot.encode(), capture_output=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def layout_svg(dot: str, timeout_s: float = 60.0) -> str | None:
    """The DOT laid out by ``dot`` as an ``<svg>`` element to put in a page (no XML prologue);
    None when ``dot`` is not installed or fails."""
    svg = svg_or_none(dot, timeout_s)
    if svg is None:
        return None
    text = svg.decode("utf-8", errors="replace")
    start = text.find("<svg")
    return text[start:] if start >= 0 else None


_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
_FONT = re.compile(r' font-family="Helvetica,sans-Serif"')
_START = re.compile(r' text-anchor="start"')


def compact_svg(svg: str) -> str:
    """``dot``'s SVG without what the page does not need: comments, the font family repeated on
    every text (the page sets Helvetica once) and the default ``text-anchor="start"``. A third
    smaller at 500 nodes, which is a third less for the browser to parse."""
    return _START.sub("", _FONT.sub("", _COMMENT.sub("", svg)))


_GROUP_OR_TEXT = re.compile(r'<g id="[^"]*" class="(node|edge|cluster|graph)">|<text (?=[^>]* y="(-?[\d.]+)")')


def mark_detail_lines(svg: str, cls: str = "sv-detail") -> str:
    """``svg`` with ``class="<cls>"`` on every text of a node below the node's first line (its title):
    the lines a viewer hides when zoomed far out. Edge and cluster labels are left alone."""
    top: float | None = None
    in_node = False

    def mark(m: re.Match) -> str:
        nonlocal top, in_node
        if m.group(1) is not None:  # a new group: a node's texts start again from its title
            in_node, top = m.group(1) == "node", None
            return m.group(0)
        y = float(m.group(2))
        if not in_node:
            return m.group(0)
        if top is None:
            top = y
            return m.group(0)
        return f'<text class="{cls}" ' if y > top + 2 else m.group(0)

    return _GROUP_OR_TEXT.sub(mark, svg)
