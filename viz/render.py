"""Graphviz DOT for a plan model: one box per relation with its key detail and output schema.

Pure: builds the DOT text and nothing else (drawing is the caller's business: ``st.graphviz_chart``
in the app, ``dot -Tsvg`` on a command line). Data flows bottom-up: inputs are drawn below the
relations that read them. Reference edges to shared subtrees are dashed, subquery edges dotted.
"""

from __future__ import annotations

import html

from .errors import Severity
from .model import NodeView, PlanModel

#: Schemas wider than this show the first rows and a count of the rest.
MAX_SCHEMA_ROWS = 12
_MAX_TEXT = 60

_KIND_TITLES = {
    "read": "Read",
    "filter": "Filter",
    "fetch": "Fetch",
    "aggregate": "Aggregate",
    "sort": "Sort",
    "join": "Join",
    "lateral_join": "LateralJoin",
    "project": "Project",
    "set": "Set",
    "extension_single": "ExtensionSingle",
    "extension_multi": "ExtensionMulti",
    "extension_leaf": "ExtensionLeaf",
    "cross": "Cross",
    "reference": "Reference",
    "write": "Write",
    "ddl": "DDL",
    "update": "Update",
    "hash_join": "HashJoin",
    "merge_join": "MergeJoin",
    "nested_loop_join": "NestedLoopJoin",
    "window": "Window",
    "exchange": "Exchange",
    "expand": "Expand",
    "top_n": "TopN",
}

_SEVERITY_COLOURS = {Severity.ERROR: "#d62728", Severity.WARNING: "#ff7f0e"}


def title(kind: str) -> str:
    return _KIND_TITLES.get(kind, kind or "(empty)")


def _esc(text: str, limit: int = _MAX_TEXT) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


def node_label(node: NodeView, max_rows: int = MAX_SCHEMA_ROWS) -> str:
    """An HTML-like Graphviz label: title, detail, and the schema as ``[index] name type`` rows."""
    rows = [f'<TR><TD COLSPAN="3"><B>{_esc(title(node.kind))}</B> <FONT POINT-SIZE="9">{_esc(node.id)}</FONT></TD></TR>']
    if node.info.detail:
        rows.append(f'<TR><TD COLSPAN="3"><FONT POINT-SIZE="10">{_esc(node.info.detail)}</FONT></TD></TR>')
    schema = node.schema
    if schema is None:
        rows.append('<TR><TD COLSPAN="3"><I>schema unknown</I></TD></TR>')
    else:
        shown = schema if len(schema) <= max_rows else schema[: max_rows - 2]
        for i, f in enumerate(shown):
            rows.append(
                f'<TR><TD ALIGN="RIGHT"><FONT POINT-SIZE="9">[{i}]</FONT></TD>'
                f'<TD ALIGN="LEFT">{_esc(f.name, 32)}</TD>'
                f'<TD ALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="#555555">{_esc(f.type_text(), 32)}</FONT></TD></TR>'
            )
        if len(shown) < len(schema):
            rows.append(f'<TR><TD COLSPAN="3"><I>… {len(schema) - len(shown)} more fields ({len(schema)} in all)</I></TD></TR>')
    return "<" + '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">' + "".join(rows) + "</TABLE>>"


def _worst(node: NodeView) -> Severity | None:
    severities = {d.severity for d in node.diagnostics}
    for s in (Severity.ERROR, Severity.WARNING):
        if s in severities:
            return s
    return None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(model: PlanModel, node_ids: list[str] | None = None, selected: str | None = None) -> str:
    """DOT text for the whole plan, or for the nodes in ``node_ids``."""
    keep = set(node_ids) if node_ids is not None else None
    lines = [
        "digraph plan {",
        '  graph [rankdir=BT, nodesep=0.3, ranksep=0.4, fontname="Helvetica"];',
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#888888", fontname="Helvetica", fontsize=11];',
        '  edge [color="#666666", arrowsize=0.7];',
    ]
    roots = set(model.roots)
    for node in model.nodes():
        if keep is not None and node.id not in keep:
            continue
        attrs = [f"label={node_label(node)}", f"id={_quote('node-' + node.id)}", f"tooltip={_quote(node.id)}"]
        worst = _worst(node)
        if worst is not None:
            attrs.append(f'color="{_SEVERITY_COLOURS[worst]}"')
            attrs.append("penwidth=2")
        if node.id in roots:
            attrs.append('fillcolor="#eef4ff"')
        if node.id == selected:
            attrs.append('fillcolor="#fff3c4"')
            attrs.append("penwidth=3")
        lines.append(f"  {_quote(node.id)} [{', '.join(attrs)}];")
    for edge in model.graph.edges:
        if keep is not None and (edge.source not in keep or edge.target not in keep):
            continue
        # Data flows from the input (target) up into the consumer (source).
        style = {"input": "", "reference": ' [style=dashed, color="#1f77b4", label="ref"]', "subquery": ' [style=dotted, label="subquery"]'}[edge.kind]
        lines.append(f"  {_quote(edge.target)} -> {_quote(edge.source)}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"
