"""Graphviz DOT for a plan diff: each side's graph with every node coloured by its status.

Added nodes are green, removed red, changed amber, unchanged nodes keep the normal fill; every
matched node carries its match number (``#3`` on both sides) so the eye can pair them. The node
boxes are ``viz.render``'s labels (title, detail, schema) inside a header row with the status.

``side_dots`` gives one DOT per plan, to draw side by side; ``combined_dot`` draws both plans as two
clusters in one graph with dashed lines between matched nodes. Pure: text in, text out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .diff import NodeDiff, PlanDiff
from .model import PlanModel
from .render import MAX_SCHEMA_ROWS, PALETTES, Palette, node_label, title


@dataclass(frozen=True)
class StatusColours:
    fill: str
    border: str


STATUS_COLOURS = {
    "light": {
        "added": StatusColours("#dcf5dc", "#2ca02c"),
        "removed": StatusColours("#fbdcdb", "#d62728"),
        "changed": StatusColours("#fff0c2", "#e6a100"),
        "same": StatusColours("", ""),  # the palette's own fill and border
    },
    "dark": {
        "added": StatusColours("#1f4023", "#4caf50"),
        "removed": StatusColours("#4a2020", "#ff5c5c"),
        "changed": StatusColours("#4d3d0f", "#ffb300"),
        "same": StatusColours("", ""),
    },
}

_MARK = {"added": "+ added", "removed": "− removed", "changed": "≠ changed", "same": "= same"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _header(entry: NodeDiff, colours: StatusColours, pal: Palette) -> str:
    tag = f"#{entry.number} " if entry.number is not None else ""
    colour = colours.border or pal.muted
    extra = (
        f" · {len(entry.differences)} difference{'s' if len(entry.differences) != 1 else ''}"
        if entry.differences
        else ""
    )
    return (
        '<TR><TD ALIGN="LEFT"><FONT POINT-SIZE="10" '
        f'COLOR="{colour}"><B>{tag}{_MARK[entry.status]}{extra}</B></FONT></TD></TR>'
    )


def diff_label(
    model: PlanModel, node_id: str, entry: NodeDiff, theme: str = "light", max_rows: int = MAX_SCHEMA_ROWS
) -> str:
    """The node's usual label under a header row with its match number and status."""
    pal = PALETTES.get(theme, PALETTES["light"])
    colours = STATUS_COLOURS.get(theme, STATUS_COLOURS["light"])[entry.status]
    inner = node_label(model.node(node_id), max_rows, pal)[1:-1]  # strip the outer < >
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0">'
        + _header(entry, colours, pal)
        + f"<TR><TD>{inner}</TD></TR></TABLE>>"
    )


def _node_lines(
    model: PlanModel, by: dict[str, NodeDiff], theme: str, max_rows: int, prefix: str, selected: str | None
) -> list[str]:
    pal = PALETTES.get(theme, PALETTES["light"])
    colours = STATUS_COLOURS.get(theme, STATUS_COLOURS["light"])
    lines = []
    for node_id in model.graph.nodes:
        entry = by[node_id]
        c = colours[entry.status]
        fill = c.fill or (pal.root_fill if node_id in model.roots else pal.node_fill)
        attrs = [
            f"label={diff_label(model, node_id, entry, theme, max_rows)}",
            f"id={_quote('node-' + prefix + node_id)}",
            f"tooltip={_quote(node_id + ' ' + title(model.node(node_id).kind) + ' (' + entry.status + ')')}",
            f'fillcolor="{fill}"',
        ]
        if c.border:
            attrs += [f'color="{c.border}"', "penwidth=2"]
        if selected is not None and entry.number is not None and str(entry.number) == selected:
            attrs += ["penwidth=4", 'style="rounded,filled,bold"']
        lines.append(f"  {_quote(prefix + node_id)} [{', '.join(attrs)}];")
    return lines


def _edge_lines(model: PlanModel, prefix: str, pal: Palette) -> list[str]:
    lines = []
    for edge in model.graph.edges:
        if edge.source not in model.graph.nodes or edge.target not in model.graph.nodes:
            continue
        attrs = []
        if edge.kind == "reference":
            attrs += ["style=bold", f'color="{pal.reference}"', 'label="ref"']
        elif edge.kind == "subquery":
            attrs += ["style=dashed", 'label="subquery"']
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        lines.append(f"  {_quote(prefix + edge.target)} -> {_quote(prefix + edge.source)}{suffix};")
    return lines


def _head(name: str, pal: Palette) -> list[str]:
    """The graph, node and edge defaults of ``viz.render.to_dot``, so both views look alike."""
    return [
        f"digraph {name} {{",
        f'  graph [rankdir=BT, nodesep=0.3, ranksep=0.4, fontname="Helvetica", bgcolor="{pal.background}", '
        f'fontcolor="{pal.text}"];',
        f'  node [shape=box, style="rounded,filled", fillcolor="{pal.node_fill}", color="{pal.node_border}", '
        f'fontcolor="{pal.text}", fontname="Helvetica", fontsize=11];',
        f'  edge [color="{pal.edge}", fontcolor="{pal.muted}", fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]


def side_dot(
    model: PlanModel,
    diff: PlanDiff,
    side: str,
    theme: str = "light",
    max_rows: int = MAX_SCHEMA_ROWS,
    selected: int | None = None,
) -> str:
    """DOT for one side (``"a"`` or ``"b"``) of the diff; ``selected`` is a match number to outline."""
    if side not in ("a", "b"):
        raise ValueError(f"side must be 'a' or 'b', not {side!r}")
    pal = PALETTES.get(theme, PALETTES["light"])
    by = diff.by_a if side == "a" else diff.by_b
    sel = None if selected is None else str(selected)
    lines = _head(f"plan_{side}", pal)
    lines += _node_lines(model, by, theme, max_rows, "", sel)
    roots = [r for r in model.roots if r in model.graph.nodes]
    if len(roots) > 1:
        lines.append("  { rank=same; " + " ".join(_quote(r) for r in roots) + " }")
    lines += _edge_lines(model, "", pal)
    lines.append("}")
    return "\n".join(lines) + "\n"


def side_dots(
    a: PlanModel,
    b: PlanModel,
    diff: PlanDiff,
    theme: str = "light",
    max_rows: int = MAX_SCHEMA_ROWS,
    selected: int | None = None,
) -> tuple[str, str]:
    """The two sides' DOT, to draw next to each other."""
    return side_dot(a, diff, "a", theme, max_rows, selected), side_dot(b, diff, "b", theme, max_rows, selected)


def combined_dot(
    a: PlanModel,
    b: PlanModel,
    diff: PlanDiff,
    theme: str = "light",
    max_rows: int = MAX_SCHEMA_ROWS,
    labels: tuple[str, str] = ("a", "b"),
) -> str:
    """Both plans in one graph, as clusters ``a:`` and ``b:``, with a dashed line between each
    matched pair (lines do not constrain the layout)."""
    pal = PALETTES.get(theme, PALETTES["light"])
    lines = _head("plan_diff", pal)
    for prefix, model, by, label in (("a:", a, diff.by_a, labels[0]), ("b:", b, diff.by_b, labels[1])):
        lines.append(f"  subgraph {_quote('cluster_' + prefix[0])} {{")
        lines.append(f'    label={_quote(label)}; labelloc="b"; style="rounded,dashed"; color="{pal.muted}";')
        lines += ["  " + line for line in _node_lines(model, by, theme, max_rows, prefix, None)]
        lines += ["  " + line for line in _edge_lines(model, prefix, pal)]
        lines.append("  }")
    for entry in diff.pairs():
        colour = STATUS_COLOURS.get(theme, STATUS_COLOURS["light"])[entry.status].border or pal.muted
        lines.append(
            f"  {_quote('a:' + entry.a)} -> {_quote('b:' + entry.b)} "
            f'[style=dashed, dir=none, constraint=false, color="{colour}", penwidth=0.8];'
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["STATUS_COLOURS", "combined_dot", "diff_label", "side_dot", "side_dots"]
