"""Graphviz DOT for a plan model: one box per relation with its key detail and output schema.

Pure: builds the DOT text and nothing else (drawing is the caller's business: ``st.graphviz_chart``
in the app, ``dot -Tsvg`` on a command line). Data flows bottom-up: inputs are drawn below the
relations that read them, and the roots stand side by side at the top. Shared subtrees are drawn
once, with their ReferenceRels as blue ``ref`` edges; subquery edges are dashed.

What a drawing shows is chosen with :class:`View`: the selected node, the theme, which property
to trace, collapsed subtrees, a focus node and search hits.
"""

from __future__ import annotations

import functools
import html
import math
from dataclasses import dataclass, field, replace

from .counts import count_text, rows_hover, rows_text
from .deep import gc_paused
from .errors import Severity
from .kinds import KINDS, kind
from .model import NodeView, PlanModel

#: Schemas wider than this show the first rows and a count of the rest.
MAX_SCHEMA_ROWS = 12
_MAX_TEXT = 60

_KIND_TITLES = {k: v.title for k, v in KINDS.items()}

PROPERTIES = ("orderedness", "distribution")


@dataclass(frozen=True)
class Palette:
    background: str
    text: str
    muted: str
    node_fill: str
    node_border: str
    root_fill: str
    selected_fill: str
    hit_fill: str
    edge: str
    reference: str
    error: str
    warning: str
    effects: dict[str, str] = field(default_factory=dict)  # property effect -> badge colour


_EFFECTS_LIGHT = {
    "established": "#2ca02c",
    "kept": "#9e9e9e",
    "remapped": "#1f77b4",
    "extended": "#1f77b4",
    "eliminated": "#d62728",
    "overwritten": "#ff7f0e",
    "none": "#d0d0d0",
    "unknown": "#d0d0d0",
}
_EFFECTS_DARK = {
    **_EFFECTS_LIGHT,
    "kept": "#8a8a8a",
    "none": "#555555",
    "unknown": "#555555",
    "remapped": "#4da3ff",
    "extended": "#4da3ff",
}

PALETTES = {
    "light": Palette(
        background="transparent",
        text="#1a1a1a",
        muted="#555555",
        node_fill="#ffffff",
        node_border="#888888",
        root_fill="#eef4ff",
        selected_fill="#fff3c4",
        hit_fill="#e3f7e3",
        edge="#666666",
        reference="#1f77b4",
        error="#d62728",
        warning="#ff7f0e",
        effects=_EFFECTS_LIGHT,
    ),
    "dark": Palette(
        background="transparent",
        text="#f0f0f0",
        muted="#b0b0b0",
        node_fill="#262730",
        node_border="#9a9a9a",
        root_fill="#1d2b45",
        selected_fill="#5a4a12",
        hit_fill="#1f4023",
        edge="#b0b0b0",
        reference="#4da3ff",
        error="#ff5c5c",
        warning="#ffa040",
        effects=_EFFECTS_DARK,
    ),
}

#: A column's lineage painted over the graph in the page (``ui.graph.viewer``), per theme: the fill of
#: the nodes on its path, and the colour of its edges and schema rows.
LINEAGE_COLOURS = {"light": ("#ece3ff", "#6a3fc9"), "dark": ("#3b2a66", "#c2a8ff")}


@dataclass(frozen=True)
class NodeStat:
    """One node's measured figures, for the profile overlay (see ``executor.jobs.profile``)."""

    rows: int | None = None
    elapsed_s: float | None = None
    flags: tuple[str, ...] = ()  # "empty", "exploded"
    factor: float | None = None  # rows / the largest input's rows
    error: str | None = None
    skipped: str | None = None
    #: lines of text drawn on the node, each ``(tone, text)`` with tone "error", "warning", "ok" or
    #: "muted" (the engines' comparison, portability); an "error" line also draws the border red
    marks: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Overlay:
    """Row counts and times drawn over the graph, like a query profile: ``(node id, NodeStat)`` pairs."""

    nodes: tuple[tuple[str, NodeStat], ...] = ()

    def stats(self) -> dict[str, NodeStat]:
        return dict(self.nodes)

    def with_marks(self, other: Overlay | None) -> Overlay:
        """This overlay with ``other``'s marks added to its nodes (and ``other``'s other nodes)."""
        if other is None or not other.nodes:
            return self
        mine, theirs = self.stats(), other.stats()
        merged = {
            **theirs,
            **{n: replace(s, marks=s.marks + theirs[n].marks) if n in theirs else s for n, s in mine.items()},
        }
        return Overlay(tuple(merged.items()))


def edge_penwidth(rows: int) -> float:
    """Edge width by row count: 1 for 0-1 rows, +1 per factor of 10, at most 8."""
    return round(min(8.0, 1.0 + math.log10(max(rows, 1))), 2)


def _stat_rows(stat: NodeStat, pal: Palette) -> list[str]:
    """Label rows for a node's profile figures: "rows · time", empty/exploded marks, errors."""
    out = []
    if stat.rows is not None:
        time_text = f" · {stat.elapsed_s:.2f} s" if stat.elapsed_s is not None else ""
        out.append(f'<TR><TD COLSPAN="3"><B>{_esc(rows_text(stat.rows) + time_text)}</B></TD></TR>')
    if "empty" in stat.flags:
        out.append(f'<TR><TD COLSPAN="3"><FONT COLOR="{pal.error}"><B>∅ empty</B></FONT></TD></TR>')
    if "exploded" in stat.flags:
        factor = f" ×{count_text(round(stat.factor))}" if stat.factor is not None and math.isfinite(stat.factor) else ""
        out.append(f'<TR><TD COLSPAN="3"><FONT COLOR="{pal.warning}"><B>⚠ exploded{factor}</B></FONT></TD></TR>')
    if stat.error:
        out.append(f'<TR><TD COLSPAN="3"><FONT COLOR="{pal.error}"><B>error</B></FONT></TD></TR>')
    elif stat.skipped and stat.rows is None:
        out.append(f'<TR><TD COLSPAN="3"><FONT POINT-SIZE="9" COLOR="{pal.muted}">not profiled</FONT></TD></TR>')
    tones = {"error": pal.error, "warning": pal.warning, "ok": pal.effects.get("established", pal.muted)}
    for tone, text in stat.marks:
        out.append(
            f'<TR><TD COLSPAN="3" ALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="{tones.get(tone, pal.muted)}">'
            f"{'<B>' if tone == 'error' else ''}{_esc(text)}{'</B>' if tone == 'error' else ''}</FONT></TD></TR>"
        )
    return out


@dataclass(frozen=True)
class View:
    """What to draw and how."""

    selected: str | None = None
    theme: str = "light"  # a key of PALETTES
    trace: str | None = None  # "orderedness" or "distribution": colour nodes by their effect, label edges with it
    collapsed: frozenset[str] = frozenset()  # nodes whose inputs are hidden
    focus: str | None = None  # draw only the subtree under this node
    hits: frozenset[str] = frozenset()  # search hits, tinted
    unrunnable: frozenset[str] = frozenset()  # nodes whose subtree cannot run on Spark, marked
    max_rows: int = MAX_SCHEMA_ROWS
    profile: Overlay | None = None  # row counts and times drawn over the graph
    plain: bool = (
        False  # for an audience: no node ids, expressions, property badges, diagnostic codes or "cannot run" marks
    )
    steps: tuple[tuple[str, int], ...] = ()  # (node, its step in the story told beside the graph), numbered


def title(kind: str) -> str:
    return _KIND_TITLES.get(kind, kind or "(empty)")


def spoken_heading(node: NodeView) -> str:
    """A node's title for an audience ("Keep the first rows"); a join's with its type ("Join (left)"), an
    inner join's without, a semi, anti or mark join's by what it does ("Keep rows with a match")."""
    from .expressions import is_true
    from .kinds import spoken_title
    from .schema import join_type_name

    heading = spoken_title(node.kind)
    body = node.node.body
    if kind(node.kind).joins and body is not None and "type" in body.DESCRIPTOR.fields_by_name:
        which = join_type_name(body).removeprefix("JOIN_TYPE_").replace("_", " ").lower()
        if which.endswith(("semi", "anti", "mark")):
            heading = _KEEPING_HEADINGS[which.rsplit(" ", 1)[1]]  # as its sentence says: it pairs no rows
        elif which not in ("inner", "unspecified"):
            heading += f" ({_JOIN_WORDS.get(which, which)})"
        elif node.kind == "join" and (not body.HasField("expression") or is_true(body.expression)):
            heading = spoken_title("cross")  # as its sentence says: DataFusion writes its joins so
    elif node.kind == "set" and body is not None:
        heading = _SET_TITLES.get(body.op, heading)  # an except or an intersect combines no rows
    return heading


#: A semi, anti or mark join's title: it keeps or marks one side's rows, as its sentence says.
_KEEPING_HEADINGS = {"semi": "Keep rows with a match", "anti": "Keep rows without a match", "mark": "Look up matches"}
#: A join type as SQL says it ("full outer", not the plan's "outer").
_JOIN_WORDS = {"outer": "full outer"}

#: A set operation's title by its op: an except and an intersect keep rows of the first input.
_SET_TITLES = {1: "Except", 2: "Except", 7: "Except", 3: "Intersect", 4: "Intersect", 8: "Intersect"}


@functools.lru_cache(maxsize=1 << 16)
def _esc(text: str, limit: int = _MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters and escaped for an HTML-like label (memoised: names,
    types and titles repeat across a plan's nodes)."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text.translate(_CONTROLS), quote=True)


#: Control characters as escapes (a name's newline had joined its two lines into one word).
_CONTROLS = {c: repr(chr(c))[1:-1] for c in (*range(32), 127)}


def _effects(node: NodeView) -> dict[str, str]:
    p = node.properties
    if p is None:
        return {}
    return {"orderedness": p.order_effect.kind, "distribution": p.distribution_effect.kind}


def _had(model: PlanModel, node_id: str, prop: str) -> bool:
    """Whether the property held (was non-empty) at this node."""
    p = model.properties.get(node_id)
    if p is None:
        return False
    return bool(p.orderedness) if prop == "orderedness" else p.distribution is not None


def shown_effects(model: PlanModel, node: NodeView) -> dict[str, str]:
    """What the node does to each property, when it matters: establishing, remapping or extending,
    or eliminating / overwriting a property that one of its inputs had."""
    out = {}
    for prop, effect in _effects(node).items():
        if effect in ("none", "unknown", "kept"):
            continue
        if effect in ("eliminated", "overwritten") and not any(_had(model, i, prop) for i in node.inputs):
            continue
        out[prop] = effect
    return out


def _badges(effects: dict[str, str], pal: Palette) -> str:
    cells = []
    for prop, effect in effects.items():
        short = "order" if prop == "orderedness" else "dist"
        cells.append(
            f'<TD BGCOLOR="{pal.effects[effect]}"><FONT POINT-SIZE="8" COLOR="#ffffff"> {short}: {effect} </FONT></TD>'
        )
    if not cells:
        return ""
    return (
        '<TR><TD COLSPAN="3"><TABLE BORDER="0" CELLSPACING="2" '
        f'CELLPADDING="1"><TR>{"".join(cells)}</TR></TABLE></TD></TR>'
    )


def _hidden_count(model: PlanModel, node_id: str, visible: set[str]) -> int:
    return sum(1 for n in model.graph.subtree(node_id) if n != node_id and n not in visible)


def node_label(
    node: NodeView,
    max_rows: int = MAX_SCHEMA_ROWS,
    pal: Palette | None = None,
    hidden: int = 0,
    effects: dict[str, str] | None = None,
    unrunnable: bool = False,
    stat: NodeStat | None = None,
    findings: bool = True,
    plain: bool = False,
    step: int | None = None,
) -> str:
    """An HTML-like Graphviz label: title, detail, property badges, findings (the codes of the node's
    warnings and errors, unless ``findings`` is off) and the schema as ``[index] name type`` rows.
    ``plain`` (for an audience): no node id, the step's title in an audience's words (a join's type
    said), and no detail but a table's name or "cross product" (the rest is written as the producer's
    expressions); the words beside the graph say what the step does. ``step``: its number there."""
    pal = pal or PALETTES["light"]
    node_id = "" if plain else f' <FONT POINT-SIZE="9" COLOR="{pal.muted}">{_esc(node.id)}</FONT>'
    heading = spoken_heading(node) if plain else title(node.kind)
    number = f"{step}. " if step is not None else ""
    rows = [f'<TR><TD COLSPAN="3"><B>{_esc(number + heading)}</B>{node_id}</TD></TR>']
    if node.info.detail and (not plain or kind(node.kind).plain_detail):
        rows.append(f'<TR><TD COLSPAN="3"><FONT POINT-SIZE="10">{_esc(node.info.detail)}</FONT></TD></TR>')
    if node.info.condition and not plain:
        rows.append(f'<TR><TD COLSPAN="3"><FONT POINT-SIZE="10">{_esc(node.info.condition)}</FONT></TD></TR>')
    if stat is not None:
        rows.extend(_stat_rows(stat, pal))
    rows.append(_badges(effects or {}, pal))
    counted: dict[tuple[Severity, str], int] = {}  # one row a code, with its count: legible however many
    for d in node.diagnostics if findings else ():
        if d.severity is not Severity.INFO:
            counted[(d.severity, d.code)] = counted.get((d.severity, d.code), 0) + 1
    for (severity, code), n in counted.items():
        colour = pal.error if severity is Severity.ERROR else pal.warning
        times = f" ×{n}" if n > 1 else ""
        rows.append(
            f'<TR><TD COLSPAN="3" ALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="{colour}">⚑ '
            f"{_esc(code, 40)}{times}</FONT></TD></TR>"
        )
    if unrunnable:
        rows.append(
            f'<TR><TD COLSPAN="3" ALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="{pal.muted}">⊘ cannot run on '
            "Spark</FONT></TD></TR>"
        )
    schema = node.schema
    if schema is None:
        rows.append('<TR><TD COLSPAN="3"><I>schema unknown</I></TD></TR>')
    else:
        # at most max_rows lines, the last saying how many more (a negative slice showed all but two for 0)
        shown = schema if len(schema) <= max_rows else schema[: max(max_rows - 1, 0)]
        for i, f in enumerate(shown):
            rows.append(_schema_row(i, f.name, node.type_text(f), pal.muted))
        if not shown and schema:
            rows.append(f'<TR><TD COLSPAN="3"><I>{len(schema)} field{"s" if len(schema) != 1 else ""}</I></TD></TR>')
        elif len(shown) < len(schema):
            rows.append(
                f'<TR><TD COLSPAN="3"><I>… {len(schema) - len(shown)} more fields ({len(schema)} in all)</I></TD></TR>'
            )
    if hidden:
        rows.append(
            f'<TR><TD COLSPAN="3"><FONT POINT-SIZE="9" COLOR="{pal.muted}">▸ {hidden} '
            f"node{'s' if hidden != 1 else ''} collapsed</FONT></TD></TR>"
        )
    return "<" + '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">' + "".join(rows) + "</TABLE>>"


@functools.cache  # a theme's few fills, once each
def _dark(colour: str) -> bool:
    """Whether white text on a ``#rrggbb`` fill contrasts more than black text does (WCAG's relative
    luminance)."""
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return (1.05 / (luminance + 0.05)) > ((luminance + 0.05) / 0.05)


@functools.lru_cache(maxsize=1 << 16)
def _schema_row(i: int, name: str, type_text: str, muted: str) -> str:
    """One ``[i] name type`` row of a label (memoised: chains repeat the same schema)."""
    return (
        f'<TR><TD ALIGN="RIGHT"><FONT POINT-SIZE="9" COLOR="{muted}">[{i}]</FONT></TD>'
        f'<TD ALIGN="LEFT">{_esc(name, 32)}</TD>'
        f'<TD ALIGN="LEFT"><FONT POINT-SIZE="9" COLOR="{muted}">{_esc(type_text, 32)}</FONT></TD></TR>'
    )


def _worst(node: NodeView) -> Severity | None:
    severities = {d.severity for d in node.diagnostics}
    for s in (Severity.ERROR, Severity.WARNING):
        if s in severities:
            return s
    return None


def _stat_attrs(stat: NodeStat | None, pal: Palette) -> list[str]:
    """Border attributes for flagged nodes: empty red dashed, exploded orange, failed red."""
    if stat is None:
        return []
    if "empty" in stat.flags or stat.error:
        style = '"rounded,filled,dashed"' if "empty" in stat.flags else '"rounded,filled"'
        return [f'color="{pal.error}"', f"style={style}", "penwidth=3"]
    if "exploded" in stat.flags:
        return [f'color="{pal.warning}"', "penwidth=3"]
    if any(tone == "error" for tone, _ in stat.marks):
        return [f'color="{pal.error}"', "penwidth=3"]
    return []


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def visible_nodes(model: PlanModel, view: View = View(), node_ids: list[str] | None = None) -> list[str]:
    """The nodes a view draws, in model order: everything reachable from the roots (or the focus
    node) without passing through a collapsed node's inputs, limited to ``node_ids`` when given."""
    starts = [view.focus] if view.focus in model.graph.nodes else list(model.roots)
    seen = set(model.graph.subtree(*starts, expand=lambda n: n not in view.collapsed))
    if node_ids is not None:
        seen &= set(node_ids)
    return [n for n in model.graph.nodes if n in seen]


def _edge_property(model: PlanModel, target: str, prop: str) -> str:
    p = model.properties.get(target)
    if p is None:
        return ""
    text = p.order_text() if prop == "orderedness" else p.distribution_text()
    return "" if text in ("none", "unknown") else text


def to_dot(
    model: PlanModel, node_ids: list[str] | None = None, selected: str | None = None, view: View | None = None
) -> str:
    """DOT text for the plan as ``view`` shows it (everything, by default), or for ``node_ids``."""
    with gc_paused():
        return _to_dot(model, node_ids, selected, view)


def _to_dot(model: PlanModel, node_ids: list[str] | None, selected: str | None, view: View | None) -> str:
    view = view or View(selected=selected)
    if selected is not None and view.selected is None:
        view = replace(view, selected=selected)
    pal = PALETTES.get(view.theme, PALETTES["light"])
    lines = [
        "digraph plan {",
        f'  graph [rankdir=BT, nodesep=0.3, ranksep=0.4, fontname="Helvetica", bgcolor="{pal.background}", '
        f'fontcolor="{pal.text}"];',
        f'  node [shape=box, style="rounded,filled", fillcolor="{pal.node_fill}", color="{pal.node_border}", '
        f'fontcolor="{pal.text}", fontname="Helvetica", fontsize=11];',
        f'  edge [color="{pal.edge}", fontcolor="{pal.muted}", fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]
    stats = view.profile.stats() if view.profile is not None else {}
    steps = dict(view.steps)
    keep = visible_nodes(model, view, node_ids)
    kept = set(keep)
    # a plan relation that a ReferenceRel reads is a shared subtree (a CTE), drawn below its readers,
    # not a root at the top
    shared = {e.target for e in model.graph.edges if e.kind == "reference"}
    roots = [r for r in model.roots if r in kept and r not in shared]
    for node_id in keep:
        node = model.node(node_id)
        hidden = _hidden_count(model, node_id, kept) if node_id in view.collapsed else 0
        effects = shown_effects(model, node)
        stat = stats.get(node.id)
        fill = pal.node_fill
        if node.id in model.roots and node.id not in shared:
            fill = pal.root_fill
        traced = effects.get(view.trace) if view.trace in PROPERTIES else None
        if traced is not None:
            fill = pal.effects[traced]
        if node.id in view.hits:
            fill = pal.hit_fill
        if node.id == view.selected:
            fill = pal.selected_fill
        # on a trace's fill the text is white on a dark colour, dark on a light one; on the selection's
        # or a search hit's fill, the theme's own
        on_fill = traced is not None and fill == pal.effects[traced]
        ink = ("#ffffff", "#f0f0f0") if _dark(fill) else ("#1a1a1a", "#3a3a3a")
        label = node_label(
            node,
            view.max_rows,
            replace(pal, text=ink[0], muted=ink[1]) if on_fill else pal,
            hidden,
            {} if view.plain else effects,
            node.id in view.unrunnable and not view.plain,
            stat,
            findings=not view.plain,
            plain=view.plain,
            step=steps.get(node.id),
        )
        exact = rows_hover(stat.rows) if stat is not None and stat.rows is not None else ""
        tooltip = ("" if view.plain else node.id + " ") + title(node.kind) + (f" · {exact}" if exact else "")
        attrs = [
            f"label={label}",
            f"id={_quote('node-' + node.id)}",
            f"tooltip={_quote(tooltip)}",
        ]
        if on_fill:
            attrs.append(f'fontcolor="{ink[0]}"')
        worst = None if view.plain else _worst(node)  # an audience is shown no diagnostics to explain it
        if worst is not None:
            attrs.append(f'color="{pal.error if worst is Severity.ERROR else pal.warning}"')
            attrs.append("penwidth=2")
        if node.id == view.selected:
            attrs.append("penwidth=3")
        attrs.append(f'fillcolor="{fill}"')
        attrs.extend(_stat_attrs(stats.get(node.id), pal))
        if node.id in view.collapsed and hidden:
            attrs.append("peripheries=2")
        lines.append(f"  {_quote(node.id)} [{', '.join(attrs)}];")
    if len(roots) > 1:
        lines.append("  { rank=same; " + " ".join(_quote(r) for r in roots) + " }")
    for edge in model.graph.edges:
        if edge.source not in kept or edge.target not in kept or edge.source in view.collapsed:
            continue
        attrs = []
        label = ""
        if edge.kind == "reference":
            attrs += ["style=bold", f'color="{pal.reference}"']
            label = "ref"
        elif edge.kind == "subquery":
            attrs += ["style=dashed"]
            label = "subquery"
        if view.trace in PROPERTIES:
            text = _edge_property(model, edge.target, view.trace)
            if text:
                label = _esc(text, 40)
                attrs.append("penwidth=2")
        stat = stats.get(edge.target)
        if stat is not None and stat.rows is not None and edge.kind != "subquery":
            # The profile overlay: the rows flowing along the edge, and a width by their count.
            label = rows_text(stat.rows) + (f" · {label}" if label else "")
            attrs = [a for a in attrs if not a.startswith("penwidth=")] + [f"penwidth={edge_penwidth(stat.rows)}"]
            exact = rows_hover(stat.rows)
            if exact:  # the exact count where the label shows it rounded
                attrs += [f"tooltip={_quote(exact)}", f"labeltooltip={_quote(exact)}"]
        if label:
            attrs.append(f"label={_quote(label)}")
        suffix = f" [{', '.join(attrs)}]" if attrs else ""
        # Data flows from the input (target) up into the consumer (source).
        lines.append(f"  {_quote(edge.target)} -> {_quote(edge.source)}{suffix};")
    lines.append("}")
    return "\n".join(lines) + "\n"
