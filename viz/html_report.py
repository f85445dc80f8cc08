"""One report file: the whole plan as a single self-contained HTML page that opens offline.

``html_report(model, source)`` returns the page: the graph laid out by Graphviz's ``dot`` as an
inline SVG (click a node to show its panel; drag to pan, the wheel to zoom), and for every node its
schema, detail, expressions, properties, diagnostics and sentence from the plan in words, plus the
run results the caller passes (``NodeRun``: a row count and sample rows). Without ``dot`` the page
says so and lists the nodes as a nested list instead of the graph.

Pure apart from calling ``dot`` (through ``layout``). The page holds no script, link, font or image
that reaches the network: inline CSS, one small inline script allowed by its hash in a
Content-Security-Policy that forbids every fetch, and every plan-provided string escaped (a ``://``
in plan text is written with character references, so the file holds no URL at all).
"""

from __future__ import annotations

import base64
import hashlib
import html
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from importlib import resources

from .describe import describe_plan, story_order
from .errors import Diagnostic, Severity
from .export import layout_svg
from .model import NodeView, PlanModel, version_text
from .properties.spec import cited
from .render import PALETTES, NodeStat, Overlay, View, title, to_dot

#: Sample rows and columns shown per node, and the longest cell text.
MAX_SAMPLE_ROWS = 20
MAX_SAMPLE_COLUMNS = 40
MAX_CELL = 200
#: Plans with more nodes than this draw fewer schema rows per box (the panel has the full schema).
BIG_PLAN = 60


@dataclass(frozen=True)
class NodeRun:
    """What a run found at one node: its exact row count (None when not counted) and its first rows."""

    rows: int | None = None
    columns: tuple[str, ...] = ()
    sample: tuple[tuple[object, ...], ...] = ()
    note: str = ""  # how the figures were obtained, or what went wrong


@dataclass(frozen=True)
class NodeEngines:
    """What each engine will do with one node, in words (the executor's portability report): whether
    it runs there, the fields an engine ignores or reads differently, version notes, the column types
    each gives, and the engine's own plan (its lines, this node's operators marked)."""

    verdicts: tuple[tuple[str, str], ...] = ()  # (engine, "runs" or why not)
    fields: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    #: (column, declared, spec, Spark, DataFusion): a type an engine cannot say is ""
    types: tuple[tuple[str, str, str, str, str], ...] = ()
    types_note: str = ""  # why there are no types, or what to know about them
    plans: tuple[tuple[str, str], ...] = ()  # (engine, its physical plan as text)
    marks: tuple[tuple[str, str], ...] = ()  # drawn on the node in the graph, as ``NodeStat.marks``


def _e(text: object) -> str:
    """Plain text for HTML text or a quoted attribute: escaped, and with ``://`` written as
    character references, so a plan's URI is shown as text and the file holds no URL."""
    return html.escape(str(text), quote=True).replace("://", ":&#47;&#47;")


# ---------------------------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------------------------


def _overlay(runs: Mapping[str, NodeRun], engines: Mapping[str, NodeEngines]) -> Overlay | None:
    stats = tuple((n, NodeStat(rows=r.rows)) for n, r in runs.items() if r.rows is not None)
    marks = tuple((n, NodeStat(marks=e.marks)) for n, e in engines.items() if e.marks)
    if not (stats or marks):
        return None
    return Overlay(stats).with_marks(Overlay(marks))


def _clean_svg(svg: str) -> str:
    """Graphviz's SVG made fit to sit inside the page: no XML namespace URLs (the HTML parser puts
    inline SVG in its namespace), no comments, and no ``://`` left in plan text."""
    head_end = svg.find(">")
    head = (
        svg[:head_end]
        .replace(' xmlns="http://www.w3.org/2000/svg"', "")
        .replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    )
    body = svg[head_end:]
    out, pos = [], 0
    while True:  # drop comments (Graphviz writes one per node and edge, naming them)
        start = body.find("<!--", pos)
        if start < 0:
            out.append(body[pos:])
            break
        end = body.find("-->", start)
        out.append(body[pos:start])
        pos = len(body) if end < 0 else end + 3
    return (head + "".join(out)).replace("://", ":&#47;&#47;")


def _dark_css() -> str:
    """CSS that redraws the light SVG in the dark palette's colours (CSS wins over SVG
    presentation attributes): box fills and strokes, and text colours, mapped field by field."""
    light, dark = PALETTES["light"], PALETTES["dark"]
    shapes: dict[str, str] = {}
    texts: dict[str, str] = {}
    for f in fields(light):
        a, b = getattr(light, f.name), getattr(dark, f.name)
        if f.name == "effects":
            for effect, colour in a.items():
                shapes.setdefault(colour, b.get(effect, colour))
            continue
        if a == b or a == "transparent":
            continue
        if f.name in ("text", "muted", "error", "warning"):
            texts.setdefault(a, b)
        if f.name not in ("text", "muted"):
            shapes.setdefault(a, b)
    rules = []
    for a, b in shapes.items():
        if a == b:
            continue
        rules.append(f'.frame :not(text)[fill="{a}"]{{fill:{b}}}')
        rules.append(f'.frame [stroke="{a}"]{{stroke:{b}}}')
    for a, b in texts.items():
        rules.append(f'.frame text[fill="{a}"]{{fill:{b}}}')
    return "\n".join(rules)


# ---------------------------------------------------------------------------------------------
# Node panels
# ---------------------------------------------------------------------------------------------


def _link(node_id: str, text: str | None = None) -> str:
    return f'<a href="#n-{_e(node_id)}" data-node="{_e(node_id)}">{_e(text if text is not None else node_id)}</a>'


def _node_name(model: PlanModel, node_id: str) -> str:
    return f"{title(model.node(node_id).kind)} {node_id}"


def _diagnostic_items(diags: Sequence[Diagnostic], model: PlanModel | None = None) -> str:
    items = []
    for d in diags:
        where = ""
        if model is not None and d.node and d.node in model.graph.nodes:
            where = " " + _link(d.node, f"node {d.node}")
        items.append(
            f'<li class="sev-{_e(d.severity.value)}"><b>{_e(d.severity.value)}</b>{where} '
            f"<code>{_e(d.code)}</code>: {_e(d.message)}</li>"
        )
    return '<ul class="diags">' + "".join(items) + "</ul>"


def _schema_table(node: NodeView) -> str:
    rows = node.schema_json()
    if rows is None:
        return '<p class="warn">The output schema could not be derived; the diagnostics say why.</p>'
    if not rows:
        return "<p>No columns.</p>"
    # rows without their optional end tags: a wide plan repeats thousands of them
    body = "".join(
        f"<tr><td>{r['index']}<td>{_e(r['name'])}<td>{_e(r['type'])}"
        f"<td>{'' if r['nullable'] is None else ('nullable' if r['nullable'] else 'not null')}"
        for r in rows
    )
    return (
        '<table class="schema"><thead><tr><th>index</th><th>name</th><th>type</th><th>nullability</th></tr>'
        f"</thead><tbody>{body}</tbody></table>"
    )


def _properties(node: NodeView) -> str:
    p = node.properties
    if p is None:
        return "<p>No property information.</p>"
    out = []
    for prop, value, effect in (
        ("orderedness", p.order_text(), p.order_effect),
        ("distribution", p.distribution_text(), p.distribution_effect),
    ):
        out.append(f"<dt>{prop}: <code>{_e(value)}</code> <i>{_e(effect.kind)}</i></dt>")
        if effect.rule:
            out.append(f'<dd class="muted">{_e(cited(effect.rule))}</dd>')
        if effect.note:
            out.append(f'<dd class="muted">{_e(effect.note)}</dd>')
    return '<dl class="props">' + "".join(out) + "</dl>"


def _cell(value: object) -> str:
    if value is None:
        return '<td class="null">null</td>'
    text = str(value)
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return f"<td>{_e(text)}</td>"


def _run_count(run: NodeRun) -> str:
    """The line under a node's title: its rows, as the session's run counted them."""
    if run.rows is not None:
        count = f"{run.rows:,} row{'s' if run.rows != 1 else ''}"
    elif run.sample:
        count = f"not counted (at least {len(run.sample):,} rows)"
    else:
        count = "not counted"
    return (
        f'<p class="rows"><b>{_e(count)}</b>'
        + (f' <span class="muted">· {_e(run.note)}</span>' if run.note else "")
        + "</p>"
    )


def _sample_rows(run: NodeRun) -> str:
    shown = run.sample[:MAX_SAMPLE_ROWS]
    if not (run.columns and shown):
        return ""
    cols = run.columns[:MAX_SAMPLE_COLUMNS]
    more_cols = len(run.columns) - len(cols)
    head = "".join(f"<th>{_e(c)}</th>" for c in cols) + (f"<th>… {more_cols} more</th>" if more_cols else "")
    body = "".join(
        "<tr>" + "".join(_cell(v) for v in row[: len(cols)]) + ("<td></td>" if more_cols else "") + "</tr>"
        for row in shown
    )
    if run.rows is not None and run.rows == len(shown):
        which = "All its rows" if len(shown) != 1 else "Its one row"
    else:
        which = "The first row" if len(shown) == 1 else f"The first {len(shown):,} rows"
    return (
        f'<h3>Sample rows</h3><p class="muted">{which}, from this session\'s run.</p>'
        f'<div class="scroll"><table class="sample"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


_TYPE_HEADS = ("column", "declared", "spec", "Spark", "DataFusion")


def _engines(engines: NodeEngines) -> str:
    """The node's engines section: verdicts, field and version notes, the types table (a type that is
    not the declared one marked), and each engine's plan."""
    out = ["<h3>Engines</h3>"]
    if engines.verdicts:
        out.append(
            '<ul class="engines">'
            + "".join(f"<li><b>{_e(engine)}</b>: {_e(text)}</li>" for engine, text in engines.verdicts)
            + "</ul>"
        )
    notes = engines.fields + engines.versions
    if notes:
        out.append('<ul class="diags">' + "".join(f'<li class="warn">{_e(n)}</li>' for n in notes) + "</ul>")
    if engines.types:
        head = "".join(f"<th>{h}</th>" for h in _TYPE_HEADS)
        body = "".join(
            f"<tr><td>{_e(row[0])}<td>{_e(row[1])}"
            + "".join(f'<td class="{"differs" if t and t != row[1] else ""}">{_e(t or "—")}' for t in row[2:])
            for row in engines.types
        )
        out.append(f'<table class="schema types"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
    if engines.types_note:
        out.append(f'<p class="muted">{_e(engines.types_note)}</p>')
    for engine, text in engines.plans:
        out.append(f'<h4>{_e(engine)}\'s plan</h4><pre class="engine-plan">{_e(text)}</pre>')
    return "".join(out)


def _panel(
    model: PlanModel,
    node: NodeView,
    sentence: str,
    parents: list[str],
    run: NodeRun | None,
    engines: NodeEngines | None = None,
) -> str:
    nid = node.id
    out = [
        f'<section class="panel" id="n-{_e(nid)}" data-node="{_e(nid)}">',
        f'<h2>{_e(title(node.kind))} <span class="id">{_e(nid)}</span>'
        + (' <span class="badge">root</span>' if nid in model.roots else "")
        + "</h2>",
    ]
    if node.info.detail:
        out.append(f'<p class="detail">{_e(node.info.detail)}</p>')
    out.append(f'<p class="words">{_e(sentence)}</p>')
    links = []
    if node.inputs:
        links.append("Inputs: " + ", ".join(_link(i, _node_name(model, i)) for i in node.inputs))
    if node.node.subqueries:
        links.append("Subqueries: " + ", ".join(_link(i, _node_name(model, i)) for i in node.node.subqueries))
    if parents:
        links.append("Read by: " + ", ".join(_link(i, _node_name(model, i)) for i in parents))
    if links:
        out.append('<p class="links">' + " · ".join(links) + "</p>")
    if run is not None:
        out.append(_run_count(run))
    n_fields = len(node.schema) if node.schema is not None else None
    out.append(
        f"<h3>Schema{'' if n_fields is None else f' ({n_fields} column' + ('s' if n_fields != 1 else '') + ')'}</h3>"
    )
    out.append(_schema_table(node))
    if run is not None:
        out.append(_sample_rows(run))
    out.append("<h3>Expressions</h3>")
    if node.info.expressions:
        out.append(
            '<dl class="exprs">'
            + "".join(f"<dt>{_e(role)}</dt><dd><pre>{_e(text)}</pre></dd>" for role, text in node.info.expressions)
            + "</dl>"
        )
    else:
        out.append("<p>No expressions.</p>")
    out.append("<h3>Properties</h3>" + _properties(node))
    out.append("<h3>Diagnostics</h3>")
    out.append(_diagnostic_items(node.diagnostics) if node.diagnostics else "<p>No diagnostics.</p>")
    if engines is not None:
        out.append(_engines(engines))
    out.append("</section>")
    return "".join(out)


def _outline(model: PlanModel) -> str:
    """Every node as a nested list from the roots down (inputs, then subqueries); a node reached
    a second time (a shared subtree) is a link to where it is listed. Iterative: plans of any depth."""
    out = ['<ul class="tree">']
    seen: set[str] = set()
    nodes = model.graph.nodes
    starts = list(model.roots) + [n for n in nodes if n not in set(model.roots)]
    for start in starts:
        if start in seen:
            continue
        stack: list[tuple[str, str] | None] = [(start, "")]
        while stack:
            item = stack.pop()
            if item is None:
                out.append("</ul></li>")
                continue
            nid, how = item
            node = model.node(nid)
            label = how + _link(nid, f"{title(node.kind)} {nid}")
            if nid in seen:
                out.append(f'<li>{label} <span class="muted">(listed above)</span></li>')
                continue
            seen.add(nid)
            if node.info.detail:
                label += f' <span class="muted">{_e(node.info.detail)}</span>'
            kids = [(i, "") for i in node.inputs] + [(s, "subquery: ") for s in node.node.subqueries]
            if not kids:
                out.append(f"<li>{label}</li>")
                continue
            out.append(f"<li>{label}<ul>")
            stack.append(None)
            stack.extend(reversed(kids))
    out.append("</ul>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------

_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1a1a; --muted: #5f6368; --line: #d7d9de;
  --soft: #f4f5f7; --accent: #e8590c; --link: #1a5fb4; --err: #c62828; --warn: #b35c00; --info: #3d6fb6; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0e1117; --fg: #f0f0f0; --muted: #a8adb7; --line: #3a3f4b; --soft: #1b1f27;
    --accent: #ff8c42; --link: #7db4ff; --err: #ff6b6b; --warn: #ffb15c; --info: #8ab4f8; }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 20px 40px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
h1 { font-size: 20px; margin: 0 0 2px; word-break: break-all; }
h2 { font-size: 17px; margin: 0 0 6px; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 16px 0 6px; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
a.sel { font-weight: 700; color: var(--accent); }
.frame a:hover { text-decoration: none; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; background: var(--soft); padding: 6px 8px; \
border-radius: 4px; }
.muted { color: var(--muted); }
.meta { color: var(--muted); margin: 0 0 12px; }
.layout { display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); gap: 16px; align-items: start; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } }
.graph-col, .panels { border: 1px solid var(--line); border-radius: 6px; }
.toolbar { display: flex; gap: 4px; align-items: center; padding: 4px 6px; border-bottom: 1px solid var(--line); \
flex-wrap: wrap; }
.toolbar button { border: 1px solid var(--line); background: transparent; color: inherit; border-radius: 4px;
  padding: 1px 9px; cursor: pointer; font: inherit; font-size: 13px; }
.toolbar button:hover { border-color: var(--accent); }
.zoom { font-size: 12px; color: var(--muted); min-width: 3.5em; }
.hint { font-size: 11px; color: var(--muted); margin-left: auto; }
.frame { position: relative; overflow: hidden; height: 75vh; min-height: 300px; cursor: grab; touch-action: none; }
.frame.dragging { cursor: grabbing; }
.stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.stage svg { display: block; }
.frame g.node { cursor: pointer; }
.frame g.node.sel > g > a > path:first-of-type, .frame g.node.sel > path:first-of-type { stroke: var(--accent); \
stroke-width: 3px; }
.nograph { padding: 10px 14px; }
.notice { border-left: 4px solid var(--warn); background: var(--soft); padding: 8px 12px; margin: 0 0 10px; }
.panels { padding: 12px 14px; max-height: calc(75vh + 34px); overflow: auto; }
.panel { display: none; }
.panel.shown { display: block; }
html:not(.js) .panel:target { display: block; }
.panel .id { font-weight: 400; color: var(--muted); font-size: 14px; }
.badge { font-size: 11px; border: 1px solid var(--line); border-radius: 8px; padding: 0 6px; color: var(--muted); \
font-weight: 400; }
.detail { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; margin: 0 0 \
6px; word-break: break-word; }
.words { font-size: 15px; margin: 4px 0 8px; }
.links { margin: 4px 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 2px 8px; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
table.schema td:first-child { text-align: right; color: var(--muted); }
table.schema td:nth-child(3) { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: \
12.5px; }
td.null { color: var(--muted); font-style: italic; }
.scroll { overflow: auto; max-height: 360px; }
dl { margin: 0; }
dt { font-weight: 600; margin-top: 6px; }
dd { margin: 2px 0 0 0; }
.props dd { font-size: 12.5px; }
.diags { padding-left: 18px; margin: 4px 0; }
.diags li { margin: 2px 0; }
.sev-error b { color: var(--err); }
.sev-warning b { color: var(--warn); }
.sev-info b { color: var(--info); }
.warn { color: var(--warn); }
table.types td { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
table.types td:first-child { font-family: inherit; text-align: left; color: inherit; }
table.types td.differs { color: var(--warn); font-weight: 600; }
pre.engine-plan { font-size: 12px; overflow: auto; max-height: 320px; }
section.more { margin-top: 24px; }
section.more h2 { border-bottom: 1px solid var(--line); padding-bottom: 4px; }
ol.story li { margin: 3px 0; }
ul.tree { padding-left: 18px; }
ul.tree ul { padding-left: 18px; border-left: 1px dotted var(--line); }
footer { margin-top: 28px; color: var(--muted); font-size: 12px; }
"""

#: The report's script, in ``viz/static/html_report.js``: read once, inlined in the page's one
#: ``<script>`` and allowed by its hash; what it needs from the page it reads there (``data-first``).
_JS = (resources.files("viz") / "static" / "html_report.js").read_text(encoding="utf-8")


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def html_report(
    model: PlanModel,
    source: str,
    runs: Mapping[str, NodeRun] | None = None,
    layout: Callable[[str], str | None] = layout_svg,
    engines: Mapping[str, NodeEngines] | None = None,
    engines_notes: Sequence[str] = (),
) -> str:
    """The report page for ``model`` (``source`` names the plan: its file name). ``runs`` maps node
    ids to what the session ran there; ``layout`` draws DOT as an ``<svg>`` (None: not drawn);
    ``engines`` maps node ids to what each engine will do there, and ``engines_notes`` says it for
    the whole plan (both from the executor's portability report)."""
    runs = {n: r for n, r in (runs or {}).items() if n in model.graph.nodes}
    engines = {n: e for n, e in (engines or {}).items() if n in model.graph.nodes}
    node_ids = list(model.graph.nodes)
    sentences = describe_plan(model)
    order = story_order(model)
    parents: dict[str, list[str]] = {}
    for edge in model.graph.edges:
        parents.setdefault(edge.target, [])
        if edge.source not in parents[edge.target]:
            parents[edge.target].append(edge.source)

    svg = None
    if node_ids:
        view = View(theme="light", max_rows=12 if len(node_ids) <= BIG_PLAN else 6, profile=_overlay(runs, engines))
        svg = layout(to_dot(model, view=view))
    first = model.roots[0] if model.roots else (node_ids[0] if node_ids else "")

    n, r = len(node_ids), len(model.roots)
    version = version_text(model.plan)
    meta = [model.loaded.format, f"{n:,} node{'s' if n != 1 else ''}", f"{r} root{'s' if r != 1 else ''}"]
    if version:
        meta.append(f"Substrait {version}")
    if runs:
        meta.append(f"row counts or sample rows for {len(runs)} node{'s' if len(runs) != 1 else ''}")

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(_JS)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{_e(source)} · Substrait plan report</title>",
        f"<style>{_CSS}\n@media (prefers-color-scheme: dark) {{\n{_dark_css()}\n}}</style>",
        f'</head><body data-first="{_e(first)}">',
        f"<header><h1>{_e(source)}</h1>",
        f'<p class="meta">Substrait plan report · {" · ".join(_e(m) for m in meta)}</p></header>',
    ]
    plan_diags = [d for d in model.plan_diagnostics if d.severity is not Severity.INFO]
    if plan_diags:
        parts.append(_diagnostic_items(plan_diags, model))
    if not node_ids:
        parts.append("<p>The plan has no relations.</p>")
    else:
        parts.append('<div class="layout"><div class="graph-col">')
        if svg is not None:
            parts.append(
                '<div class="toolbar"><button data-act="in" title="Zoom in">+</button>'
                '<button data-act="out" title="Zoom out">−</button>'
                '<button data-act="fit" title="Fit the whole graph">Fit</button>'
                '<button data-act="one" title="Actual size, on the selected node">100%</button>'
                '<span class="zoom"></span><span class="hint">drag to pan · wheel to zoom · click a node</span></div>'
                f'<div class="frame"><div class="stage">{_clean_svg(svg)}</div></div>'
            )
        else:
            why = (
                "Graphviz's <code>dot</code> is not installed where this report was made"
                if shutil.which("dot") is None
                else "Graphviz's <code>dot</code> could not lay this plan out"
            )
            parts.append(
                f'<div class="nograph"><p class="notice">The graph is not drawn: {why}. '
                "Every node is listed here instead; click one to see it.</p>"
                f"{_outline(model)}</div>"
            )
        parts.append('</div><div class="panels">')
        for nid in node_ids:
            parts.append(
                _panel(model, model.node(nid), sentences[nid], parents.get(nid, []), runs.get(nid), engines.get(nid))
            )
        parts.append("</div></div>")

        parts.append(
            '<section class="more"><h2>The plan in words</h2>'
            '<p class="muted">From the tables read to the result; each step links to its node.</p><ol class="story">'
        )
        for nid in order:
            parts.append(
                f'<li>{_e(sentences[nid])} <span class="muted">({_link(nid, _node_name(model, nid))})</span></li>'
            )
        parts.append("</ol></section>")

        if engines or engines_notes:
            parts.append('<section class="more"><h2>Engines</h2>')
            if engines_notes:
                parts.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in engines_notes) + "</ul>")
            parts.append("</section>")

        diags = model.all_diagnostics()
        problems = sum(1 for d in diags if d.severity is not Severity.INFO)
        parts.append(
            f'<section class="more"><h2>Diagnostics</h2><p class="muted">{problems} problem'
            f"{'s' if problems != 1 else ''}, {len(diags) - problems} "
            f"note{'s' if len(diags) - problems != 1 else ''}.</p>"
        )
        if diags:
            parts.append(_diagnostic_items(diags, model))
        parts.append("</section>")
        if svg is not None:
            parts.append(f'<section class="more"><h2>All nodes</h2>{_outline(model)}</section>')
    parts.append(
        "<footer>Made by the Substrait plan visualizer (<code>python -m viz html</code>). "
        "Self-contained: it reads nothing from the network.</footer>"
    )
    parts.append(f"<script>{_JS}</script></body></html>\n")
    return "\n".join(parts)


__all__ = ["NodeEngines", "NodeRun", "html_report"]
