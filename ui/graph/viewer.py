"""The graph viewer: the plan's graph laid out on the server, shown in the page with pan and zoom.

Graphviz's ``dot`` lays out each distinct DOT once (:func:`viz.export.layout_svg`, cached), and the
browser only shows the SVG, in a small custom component (Streamlit components v2, which run in the
page itself):

- pan by dragging, zoom with the wheel (around the pointer; once the person has pressed in the frame,
  or with Ctrl, so a wheel passing over the graph scrolls the page) or the buttons, Fit (never below a zoom
  whose text reads: a larger graph shows its top, the minimap the whole), 100%, and a jump to the
  selected node; a minimap for a graph Fit cannot show whole, and the frame within the window;
- the search hits one at a time (next and previous, "2 of 5"), each brought into the frame; a node
  the page selects is brought there too when it is outside;
- level of detail: zoomed far out, the boxes show their titles only; a node's text is laid out
  when the node first comes near the view (the rest's when the page is idle), so a large graph's
  first paint does not wait for the text of nodes nobody can see yet;
- a click on a node sends its id back (a trigger value); the selection and the search hits are
  painted in the page, so selecting or searching never lays the graph out again, and the view
  (zoom and position) stays where it was across reruns while the SVG is the same.

Zoom and pan never ask the server anything. Without ``dot`` on the machine the page falls back to
``st.graphviz_chart`` (Graphviz compiled to WebAssembly, in the browser) and says what to install.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import replace
from importlib import resources

import streamlit as st

from executor.cache import BoundedCache
from executor.settings import SETTINGS
from ui.graph.chart_click import graph_click, select_clicked
from ui.state.cache_keys import LARGE_TEXT
from ui.state.selection import theme
from viz.export import compact_svg, has_dot, layout_svg, mark_detail_lines
from viz.model import PlanModel
from viz.render import PALETTES, View, to_dot

_HTML = """
<div class="sv-root">
  <div class="sv-toolbar">
    <button data-act="in" title="Zoom in (+)">+</button>
    <button data-act="out" title="Zoom out (−)">−</button>
    <button data-act="fit" title="The whole graph in the frame, down to 70%, the smallest zoom whose text \
reads; past that, its top (the Map button shows all of it)">Fit</button>
    <button data-act="one" title="Actual size: text at its drawn size">100%</button>
    <button data-act="sel" title="Zoom to the selected node">Selected</button>
    <button data-act="map" title="Show or hide the overview map (it can cover a corner of the graph)" \
aria-pressed="true" hidden>Map</button>
    <span class="sv-zoom"></span>
    <span class="sv-hits" hidden>
      <button data-act="prev" title="Previous match (Shift+Enter in the search box)">‹</button>
      <span class="sv-hit-count"></span>
      <button data-act="next" title="Next match (Enter in the search box)">›</button>
      <span class="sv-hit-note" hidden></span>
    </span>
    <span class="sv-hint" title="In the frame (Tab to it, or click in it): the arrow keys move the \
selection to the node above, below or beside; Shift and an arrow pans; + and − zoom; 0 is 100%; F fits; M \
shows or hides the map">drag to pan · Ctrl+wheel to zoom</span>
  </div>
  <div class="sv-viewport" tabindex="0" role="group" aria-label="The plan's graph. Arrow keys: the node above, \
below or beside. Shift and an arrow: pan. Plus and minus: zoom. 0: actual size. F: fit. M: the map.">
    <div class="sv-stage"></div>
    <div class="sv-minimap" title="Click or drag to move the view"><div class="sv-mini-stage"></div><div \
class="sv-mini-view"></div></div>
  </div>
</div>
"""

_CSS = """
.sv-root { font-family: sans-serif; }
.sv-toolbar { display: flex; gap: 4px; align-items: center; margin-bottom: 4px; flex-wrap: wrap; }
.sv-toolbar button { border: 1px solid rgba(128,128,128,0.5); background: transparent; color: inherit;
  border-radius: 4px; padding: 1px 9px; cursor: pointer; font-size: 13px; }
.sv-toolbar button[hidden] { display: none; }
.sv-toolbar button:hover { border-color: var(--st-primary-color, #ff4b4b); }
.sv-toolbar button[aria-pressed="true"] { background: rgba(128,128,128,0.18); }
.sv-zoom { font-size: 12px; opacity: 0.75; min-width: 3.5em; }
.sv-hits { display: flex; gap: 4px; align-items: center; font-size: 12px; }
.sv-hits[hidden] { display: none; }
.sv-hits button { padding: 1px 7px; }
.sv-hit-count { white-space: nowrap; }
.sv-hit-note { opacity: 0.8; font-style: italic; }
.sv-hit-note[hidden] { display: none; }
.sv-hint { font-size: 11px; opacity: 0.55; margin-left: auto; transition: opacity 0.2s; }
.sv-hint.sv-hint-shown { opacity: 1; font-weight: 600; }
.sv-viewport { position: relative; overflow: hidden; border: 1px solid rgba(128,128,128,0.35);
  border-radius: 6px; cursor: grab; touch-action: none; }
.sv-viewport.sv-dragging { cursor: grabbing; }
.sv-viewport:focus { outline: none; }
.sv-viewport:focus-visible { outline: 2px solid var(--st-primary-color, #ff4b4b); outline-offset: 1px; }
.sv-stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.sv-stage svg { display: block; }
.sv-stage svg text { font-family: Helvetica, sans-serif; }  /* compact_svg drops it from every text */
.sv-root:not(.sv-static) .sv-stage g.node { cursor: pointer; }
.sv-far .sv-detail { display: none; }
/* a node's text is laid out once it comes near the view (or the page is idle): static/viewer.js */
.sv-stage svg g.node:not(.sv-near) text { display: none; }
.sv-minimap { position: absolute; right: 8px; bottom: 8px; border: 1px solid rgba(128,128,128,0.6);
  box-sizing: content-box;
  background: rgba(255,255,255,0.92); overflow: hidden; display: none; cursor: pointer; opacity: 0.55;
  transition: opacity 0.15s; }
/* faint while the pointer is elsewhere, so what it covers still reads */
.sv-viewport:hover .sv-minimap { opacity: 1; }
.sv-minimap.sv-mini-left { right: auto; left: 8px; }
.sv-mini-stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; pointer-events: none; }

.sv-mini-view { position: absolute; border: 2px solid #e8590c; background: rgba(232,89,12,0.08); pointer-events: none; }
"""

#: The viewer's script, in ``ui/graph/static/viewer.js`` (read once, given to the component as its text);
#: what it shows comes in the component's data, a JSON object (:func:`graph_view`).
_JS = (resources.files("ui.graph") / "static" / "viewer.js").read_text(encoding="utf-8")

_component = st.components.v2.component("substrait_viz_graph_view", html=_HTML, css=_CSS, js=_JS)

#: ``SUBSTRAIT_VIZ_LAYOUT=browser`` lays graphs out in the browser as before the viewer (the
#: benchmark's baseline, or a server without Graphviz).
IN_BROWSER = SETTINGS.layout_in_browser


def viewer_available() -> bool:
    """Whether graphs are shown in the viewer (laid out on the server by Graphviz's ``dot``), not in
    the fallback chart, which cannot tell the page it has drawn."""
    return not IN_BROWSER and has_dot()


#: Distinct drawings kept laid out, for every session (a large plan's SVG runs to megabytes).
LAYOUTS_KEPT = 64


@st.cache_resource(show_spinner=False, max_entries=LAYOUTS_KEPT, hash_funcs=LARGE_TEXT)
def _layout(dot: str) -> tuple[str, str] | None:
    """The SVG of ``dot`` and its key, laid out once per distinct DOT for every session."""
    svg = layout_svg(dot)
    if svg is None:
        return None
    svg = mark_detail_lines(compact_svg(svg))  # marked here, once, not in the page on every rerun
    key = hashlib.sha1(svg.encode()).hexdigest()
    _LAID_OUT.put(key, svg)
    return svg, key


def drawing_width(dot: str) -> float | None:
    """How wide ``dot`` is drawn at 100%, in CSS px (None without Graphviz on the server)."""
    laid = None if IN_BROWSER else _layout(dot)
    found = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', laid[0]) if laid else None
    return float(found.group(1)) * 4 / 3 if found else None


def plan_dot(model: PlanModel, view: View) -> str:
    """``viz.render.to_dot(model, view=view)``, made once per plan and view for every session: a click's
    rerun draws the same DOT (selection and hits are painted in the page), which is not written again."""
    return _dot(model.digest, view, model)


def export_dot(model: PlanModel, view: View) -> str:
    """The DOT of an exported drawing (SVG): what the page draws with ``view`` (its row counts, engine marks,
    traced property, focus), on a light page, without the selection and search hits painted in it."""
    return plan_dot(model, replace(view, theme="light", selected=None, hits=frozenset()))


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs={View: repr})
def _dot(digest: str, view: View, _model: PlanModel) -> str:
    return to_dot(_model, view=view)


#: The SVGs laid out most recently, by key: as many as :func:`_layout` keeps.
_LAID_OUT: BoundedCache[str, str] = BoundedCache(LAYOUTS_KEPT)


def laid_out(key: str) -> str | None:
    """The SVG of a key the viewer was given (what a page shows; for tests without a browser)."""
    return _LAID_OUT.get(key)


def _sent() -> set[str]:
    """The SVGs this session's page already has (the viewer keeps them in the page)."""
    return st.session_state.setdefault("graph_svgs_sent", set())


#: Set in the session when the viewer says it has drawn a graph it was asked to draw first.
_DRAWN = "graph_view_drawn"


def _resend(key: str) -> None:
    """The page lost an SVG it was sent (it was reloaded): send it again on this rerun."""
    value = st.session_state.get(key)
    missing = value.get("missing") if isinstance(value, dict) else getattr(value, "missing", None)
    _sent().discard(missing)


def graph_view(
    dot: str,
    key: str,
    selected: str | None = None,
    hits: frozenset[str] | set[str] = frozenset(),
    hit_notes: dict[str, str] | None = None,
    on_click: Callable[[], None] | None = None,
    height: int = 720,
    follow: bool = False,
    clickable: bool = True,
    lineage: dict | None = None,
    on_column: Callable[[], None] | None = None,
    then_rest: bool = False,
    search_box: tuple[str, str] | None = None,
    plan: str | None = None,
    open_width: float | None = None,
) -> None:
    """Show ``dot`` laid out on the server, with pan and zoom; ``selected`` and ``hits`` are
    painted in the page. A click selects the node (``ui.state.selection``) unless ``on_click`` says
    otherwise; ``follow`` brings the selected node into the frame, readable, when the selection changes.
    ``lineage`` (``ui.panels.column_lineage.lineage_highlight``) is painted too: its nodes, edges and schema
    rows; with ``on_column``, a click on a schema row calls it instead (the value ``"<node>|<index>"``).
    With ``then_rest`` (a page that draws its graph first, :func:`ui.page.open_plan`), the viewer reruns
    the script once it has drawn the graph, and that run draws the whole page; call it only when
    :func:`viewer_available`. ``hit_notes`` says, for a hit, what matched that its box does not draw
    (:func:`viz.report.hidden_matches`), beside the hit's number. The first of ``hits`` (in reading
    order) is brought into the frame when
    they change, a selection changed by the page when it is outside the frame; with ``search_box``
    (the label of the page's search input, the query ``hits`` are for), Enter there steps to the next
    hit and Shift+Enter to the previous. Called in a fragment, the viewer's "drawn" reruns the
    fragment, which then reruns the whole app. The viewer does not ask once a page link was clicked
    (the browser would send the rerun with the page being left). ``plan`` names what the drawing shows
    (the model's digest): a new drawing of the same plan opens where the person last moved or zoomed the
    previous one (the node at the frame's centre stays there, at the same zoom). ``open_width``: it opens
    at the zoom that fits a drawing this wide (px at 100%) to the frame's width, within readable and 100%,
    not fitted to its own size (two drawings side by side, given the wider's width, show their boxes at one
    scale)."""
    if st.session_state.pop(_DRAWN, None) and then_rest:
        st.rerun(scope="app")
    laid = None if IN_BROWSER else _layout(dot)
    if laid is None:  # no Graphviz on the server: lay it out in the browser, without zoom
        st.graphviz_chart(dot, width="stretch")
        if clickable:
            graph_click(key, selected, on_click, hits=hits, lineage=lineage)
        if not IN_BROWSER:
            st.caption(
                "Install Graphviz on the server (`apt-get install graphviz`, or `make run` as root) for a graph "
                "you can pan and zoom, laid out once instead of on every page."
            )
        return
    svg, svg_key = laid
    sent = _sent()
    pal = PALETTES[theme()]
    data = {
        # a rerun of the same drawing sends only its key: a click must not carry a large plan's SVG again
        "svg": None if svg_key in sent else svg,
        "key": svg_key,
        "selected": selected,
        "hits": sorted(hits),
        "hit_notes": hit_notes or {},
        "fill": pal.selected_fill,
        "hit_fill": pal.hit_fill,
        "height": height,
        "follow": follow,
        "lineage": lineage,
        "clickable": clickable,
        "column_clicks": clickable and on_column is not None,
        "then_rest": then_rest,
        "search": {"label": search_box[0], "query": search_box[1]} if search_box else None,
        "plan": plan,
        "open_width": open_width,
    }
    callback = (on_click if on_click is not None else (lambda: select_clicked(key))) if clickable else (lambda: None)
    _component(
        key=key,
        data=data,
        on_node_change=callback,
        on_missing_change=lambda: _resend(key),
        on_drawn_change=lambda: st.session_state.__setitem__(_DRAWN, True),
        on_column_change=on_column if clickable and on_column is not None else (lambda: None),
    )
    sent.add(svg_key)
