"""The graph viewer: the plan's graph laid out on the server, shown in the page with pan and zoom.

Graphviz's ``dot`` lays out each distinct DOT once (:func:`viz.export.layout_svg`, cached), and the
browser only shows the SVG, in a small custom component (Streamlit components v2, which run in the
page itself):

- pan by dragging, zoom with the wheel (around the pointer) or the buttons, Fit (never below a zoom
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
import os
from typing import Callable

import streamlit as st

from ui.graph_click import graph_click, select_clicked
from ui.selection import theme
from viz.export import compact_svg, has_dot, layout_svg, mark_detail_lines
from viz.model import PlanModel
from viz.render import PALETTES, View, to_dot

_HTML = """
<div class="sv-root">
  <div class="sv-toolbar">
    <button data-act="in" title="Zoom in (+)">+</button>
    <button data-act="out" title="Zoom out (−)">−</button>
    <button data-act="fit" title="Fit the whole graph in the frame">Fit</button>
    <button data-act="one" title="Actual size: text at its drawn size">100%</button>
    <button data-act="sel" title="Zoom to the selected node">Selected</button>
    <span class="sv-zoom"></span>
    <span class="sv-hits" hidden>
      <button data-act="prev" title="Previous match (Shift+Enter in the search box)">‹</button>
      <span class="sv-hit-count"></span>
      <button data-act="next" title="Next match (Enter in the search box)">›</button>
    </span>
    <span class="sv-hint">drag to pan · wheel to zoom · click a node to select it</span>
  </div>
  <div class="sv-viewport">
    <div class="sv-stage"></div>
    <div class="sv-minimap" title="Click or drag to move the view"><div class="sv-mini-stage"></div><div class="sv-mini-view"></div></div>
  </div>
</div>
"""

_CSS = """
.sv-root { font-family: sans-serif; }
.sv-toolbar { display: flex; gap: 4px; align-items: center; margin-bottom: 4px; flex-wrap: wrap; }
.sv-toolbar button { border: 1px solid rgba(128,128,128,0.5); background: transparent; color: inherit;
  border-radius: 4px; padding: 1px 9px; cursor: pointer; font-size: 13px; }
.sv-toolbar button:hover { border-color: var(--st-primary-color, #ff4b4b); }
.sv-zoom { font-size: 12px; opacity: 0.75; min-width: 3.5em; }
.sv-hits { display: flex; gap: 4px; align-items: center; font-size: 12px; }
.sv-hits[hidden] { display: none; }
.sv-hits button { padding: 1px 7px; }
.sv-hint { font-size: 11px; opacity: 0.55; margin-left: auto; }
.sv-viewport { position: relative; overflow: hidden; border: 1px solid rgba(128,128,128,0.35);
  border-radius: 6px; cursor: grab; touch-action: none; }
.sv-viewport.sv-dragging { cursor: grabbing; }
.sv-stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.sv-stage svg { display: block; }
.sv-stage svg text { font-family: Helvetica, sans-serif; }  /* compact_svg drops it from every text */
.sv-stage g.node { cursor: pointer; }
.sv-far .sv-detail { display: none; }
/* a node's text is laid out once the node comes near the view (or the page is idle): see build */
.sv-stage svg g.node:not(.sv-near) text { display: none; }
.sv-minimap { position: absolute; right: 8px; bottom: 8px; border: 1px solid rgba(128,128,128,0.6);
  background: rgba(255,255,255,0.92); overflow: hidden; display: none; cursor: pointer; }
.sv-mini-stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; pointer-events: none; }

.sv-mini-view { position: absolute; border: 2px solid #e8590c; background: rgba(232,89,12,0.08); pointer-events: none; }
"""

_JS = r"""
// READABLE_K: the smallest zoom whose node text reads (titles about 10 px, detail lines 9 px); Fit
// and a jump to a node never go below it. MIN_FRAME: the frame's least height, however small the window.
const MIN_K = 0.02, MAX_K = 4, FAR_K = 0.45, MINI_W = 180, MINI_H = 140, READABLE_K = 0.7, MIN_FRAME = 320;

function build(root, data) {
  const viewport = root.querySelector('.sv-viewport');
  const stage = root.querySelector('.sv-stage');
  const mini = root.querySelector('.sv-minimap');
  const miniStage = root.querySelector('.sv-mini-stage');
  const miniView = root.querySelector('.sv-mini-view');
  const zoomLabel = root.querySelector('.sv-zoom');
  stage.innerHTML = data.svg;
  stage.style.transform = '';  // measured at 100% below
  const svg = stage.querySelector('svg');
  const w = svg.width.baseVal.value, h = svg.height.baseVal.value;  // its drawn size, in px
  // the frame: as tall as the drawing as it opens, within [220, data.height]: fitted to its width when
  // its text stays readable so, else at 100% (a wide plan fitted to the width would leave a strip);
  // and no taller than the window below its top, so its bottom and the minimap show with its top
  const widthK = Math.min(1, viewport.clientWidth / w);
  const openK = widthK >= READABLE_K ? widthK : 1;
  const below = window.innerHeight - Math.max(0, viewport.getBoundingClientRect().top) - 16;
  const tallest = Math.max(Math.min(MIN_FRAME, data.height), Math.min(data.height, below));
  viewport.style.height = Math.round(Math.max(220, Math.min(tallest, h * openK + 12))) + 'px';
  const v = { key: data.key, viewport, stage, svg, w, h, k: 1, x: 0, y: 0, selected: null, moved: false };
  // level of detail: a node's lines below its title come marked sv-detail (viz.export.mark_detail_lines)
  // every node's box in the drawing's own px, measured once at 100%. The nodes' text is not laid
  // out yet (the CSS above): the first layout of a new SVG is its text's, 50 µs a line here, so a
  // 500-node drawing took 0.3 s before its first paint. A node's text is laid out when the node
  // comes near the view (v.apply), and the rest's, a few nodes at a time, when the page is idle.
  const s0 = stage.getBoundingClientRect();
  const nodes = [...svg.querySelectorAll('g.node')];
  v.boxes = new Map(nodes.map((g) => {
    const r = g.getBoundingClientRect();
    return [g, { x: r.left - s0.left, y: r.top - s0.top, w: r.width, h: r.height }];
  }));
  v.box = (g) => v.boxes.get(g) || { x: 0, y: 0, w: 0, h: 0 };
  v.far = new Set(nodes);  // nodes whose text is not laid out yet
  v.near = () => {  // lay out the text of the nodes in or near the view (half a view around it)
    if (!v.far.size) return;
    const vw = viewport.clientWidth / v.k, vh = viewport.clientHeight / v.k;
    const x0 = -v.x / v.k - vw / 2, y0 = -v.y / v.k - vh / 2, x1 = x0 + 2 * vw, y1 = y0 + 2 * vh;
    v.far.forEach((g) => {
      const b = v.box(g);
      if (b.x < x1 && b.x + b.w > x0 && b.y < y1 && b.y + b.h > y0) { g.classList.add('sv-near'); v.far.delete(g); }
    });
  };
  // a minimap where Fit cannot show the whole graph readably: it is then the overview
  const big = Math.min(viewport.clientWidth / w, viewport.clientHeight / h) < READABLE_K;
  if (big) {
    const mk = Math.min(MINI_W / w, MINI_H / h);
    mini.style.width = Math.ceil(w * mk) + 'px';
    mini.style.height = Math.ceil(h * mk) + 'px';
    mini.style.display = 'block';
    v.mk = mk;
  }
  v.apply = () => {
    stage.style.transform = `translate(${v.x}px, ${v.y}px) scale(${v.k})`;
    v.near();
    zoomLabel.textContent = Math.round(v.k * 100) + '%';
    viewport.classList.toggle('sv-far', v.k < FAR_K);
    if (v.mk) {
      miniView.style.left = (-v.x / v.k) * v.mk + 'px';
      miniView.style.top = (-v.y / v.k) * v.mk + 'px';
      miniView.style.width = (viewport.clientWidth / v.k) * v.mk + 'px';
      miniView.style.height = (viewport.clientHeight / v.k) * v.mk + 'px';
    }
  };
  v.zoomAt = (k, cx, cy) => {
    k = Math.max(MIN_K, Math.min(MAX_K, k));
    v.x = cx - (cx - v.x) * (k / v.k);
    v.y = cy - (cy - v.y) * (k / v.k);
    v.k = k;
    v.apply();
  };
  v.top = () => {  // the topmost node's box (a root), or null
    let top = null;
    v.boxes.forEach((b) => { if (!top || b.y < top.y) top = b; });
    return top;
  };
  v.fit = () => {  // the whole graph; one too large to read so: its top (the roots) at READABLE_K
    const vw = viewport.clientWidth, vh = viewport.clientHeight;
    v.k = Math.max(READABLE_K, Math.min(1, 0.96 * Math.min(vw / w, vh / h)));
    const top = v.top();
    v.x = w * v.k <= vw || !top ? (vw - w * v.k) / 2
      : Math.min(0, Math.max(vw - w * v.k, vw / 2 - (top.x + top.w / 2) * v.k));
    v.y = h * v.k <= vh ? (vh - h * v.k) / 2 : 8 - (top ? top.y : 0) * v.k;
    v.apply();
  };
  if (v.mk) {  // the minimap: each node as a box, selected and hit nodes in their colours
    const ns = 'http://www.w3.org/2000/svg';
    const m = document.createElementNS(ns, 'svg');
    m.setAttribute('width', Math.ceil(w * v.mk)); m.setAttribute('height', Math.ceil(h * v.mk));
    m.setAttribute('viewBox', `0 0 ${w} ${h}`);
    v.miniBoxes = {};
    v.boxes.forEach((b, g) => {
      const r = document.createElementNS(ns, 'rect');
      r.setAttribute('x', b.x); r.setAttribute('y', b.y); r.setAttribute('width', b.w); r.setAttribute('height', b.h);
      r.setAttribute('fill', '#b8c7db');
      m.appendChild(r);
      v.miniBoxes[g.id] = r;
    });
    miniStage.innerHTML = '';
    miniStage.appendChild(m);
  }
  v.actual = () => {  // 100%, the topmost node (a root) at the top, in the middle
    const top = v.top();
    v.k = 1;
    v.x = top ? viewport.clientWidth / 2 - (top.x + top.w / 2) : (viewport.clientWidth - w) / 2;
    v.y = top ? 12 - top.y : 8;
    v.apply();
  };
  v.centerOn = (px, py, k) => {  // px, py: a point of the drawing, in its own px
    v.k = k; v.x = viewport.clientWidth / 2 - px * k; v.y = viewport.clientHeight / 2 - py * k;
    v.apply();
  };
  v.node = (id) => id ? svg.querySelector(`[id="node-${CSS.escape(id)}"]`) : null;
  v.toSelected = () => {
    const g = v.node(v.selected);
    if (!g) return;
    const b = v.box(g);
    v.centerOn(b.x + b.w / 2, b.y + b.h / 2, Math.max(v.k, 1));
  };
  v.inView = (g) => {  // whether node g is wholly inside the frame, and not under the minimap
    const b = v.box(g), k = v.k, vw = viewport.clientWidth, vh = viewport.clientHeight;
    const x0 = b.x * k + v.x, y0 = b.y * k + v.y, x1 = (b.x + b.w) * k + v.x, y1 = (b.y + b.h) * k + v.y;
    const under = v.mk && x1 > vw - mini.offsetWidth - 8 && y1 > vh - mini.offsetHeight - 8;
    return x0 >= 0 && y0 >= 0 && x1 <= vw && y1 <= vh && !under;
  };
  v.reveal = (g, readable) => {  // node g centred, when outside the frame (or, with readable, too small to read)
    if (!g || (v.inView(g) && (!readable || v.k >= READABLE_K))) return;
    const b = v.box(g), k = Math.max(v.k, READABLE_K), vw = viewport.clientWidth, vh = viewport.clientHeight;
    v.centerOn(b.x + b.w / 2, b.y + b.h / 2, k);
    // a node near the drawing's edge: the frame filled with the drawing instead, as far as g stays in it
    const x = v.x, y = v.y;
    const cx = w * k > vw ? Math.min(0, Math.max(vw - w * k, x)) : x;
    const cy = h * k > vh ? Math.min(0, Math.max(vh - h * k, y)) : y;
    for (const [px, py] of [[cx, cy], [x, cy], [cx, y]]) {
      v.x = px; v.y = py;
      if (v.inView(g)) break;
      v.x = x; v.y = y;
    }
    v.apply();
  };
  // the search hits, in reading order (top to bottom, then left to right), and the one shown
  v.hitKey = null; v.hits = []; v.hitAt = 0;
  const hitsLabel = root.querySelector('.sv-hits'), hitCount = root.querySelector('.sv-hit-count');
  v.setHits = (ids) => {
    v.hits = ids.map((id) => v.node(id)).filter((g) => g);
    const mid = (g) => { const b = v.box(g); return Math.round(b.y + b.h / 2); };  // a rank's nodes share it
    v.hits.sort((a, b) => mid(a) - mid(b) || v.box(a).x - v.box(b).x);
    v.hitAt = 0;
    hitsLabel.hidden = !v.hits.length;
  };
  v.toHit = (i) => {  // show hit i (wrapping round) and say which it is
    if (!v.hits.length) return;
    v.hitAt = (i + v.hits.length) % v.hits.length;
    hitCount.textContent = `${v.hitAt + 1} of ${v.hits.length}`;
    if (v.data) paint(v, v.data);
    v.reveal(v.hits[v.hitAt], true);
  };
  // drag to pan; a press that does not move is a click
  let drag = null;
  viewport.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || mini.contains(e.target)) return;
    drag = { x: e.clientX, y: e.clientY, vx: v.x, vy: v.y };
    v.moved = false;
  });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!v.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    v.moved = true;
    viewport.classList.add('sv-dragging');
    v.x = drag.vx + dx; v.y = drag.vy + dy;
    v.apply();
  });
  window.addEventListener('pointerup', () => { drag = null; viewport.classList.remove('sv-dragging'); });
  viewport.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = viewport.getBoundingClientRect();
    v.zoomAt(v.k * Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  // the minimap: click or drag to move the view there
  const fromMini = (e) => {
    const r = mini.getBoundingClientRect();
    v.centerOn((e.clientX - r.left) / v.mk, (e.clientY - r.top) / v.mk, v.k);
  };
  let miniDrag = false;
  mini.addEventListener('pointerdown', (e) => { miniDrag = true; fromMini(e); e.stopPropagation(); });
  mini.addEventListener('pointermove', (e) => { if (miniDrag) fromMini(e); });
  window.addEventListener('pointerup', () => { miniDrag = false; });
  // clicks on nodes
  svg.querySelectorAll('g.node').forEach((g) => {
    g.dataset.substraitBound = '1';
    g.addEventListener('click', (e) => {
      if (v.moved) return;
      const title = g.querySelector('title');
      const id = g.id && g.id.startsWith('node-') ? g.id.slice(5) : (title ? title.textContent : '');
      const row = v.columnClicks && e.target.closest && e.target.closest('text') ? rowOf(g, e.target.closest('text')) : null;
      v.clicked = id;  // a node clicked in the frame is not moved when it comes back selected
      if (id && v.setTrigger) { if (row !== null) v.setTrigger('column', id + '|' + row); else v.setTrigger('node', id); }
    });
  });
  root.querySelectorAll('.sv-toolbar button').forEach((b) => {
    b.addEventListener('click', () => {
      const act = b.dataset.act, cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
      if (act === 'in') v.zoomAt(v.k * 1.25, cx, cy);
      else if (act === 'out') v.zoomAt(v.k / 1.25, cx, cy);
      else if (act === 'fit') v.fit();
      else if (act === 'one') v.actual();
      else if (act === 'sel') v.toSelected();
      else if (act === 'next') v.toHit(v.hitAt + 1);
      else if (act === 'prev') v.toHit(v.hitAt - 1);
    });
  });
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  const rest = () => {  // the far nodes' text, thirty nodes per idle moment, while this drawing is shown
    if (!v.far.size || root.__viewer !== v || !stage.contains(svg)) return;
    [...v.far].slice(0, 30).forEach((g) => { g.classList.add('sv-near'); v.far.delete(g); });
    idle(rest);
  };
  requestAnimationFrame(() => idle(rest));
  return v;
}

// a schema row of a node's label: its "[i]" text and the texts on the same line
function rowTexts(g, index) {
  const texts = [...g.querySelectorAll('text')];
  const head = texts.find((t) => t.textContent.trim() === '[' + index + ']');
  if (!head) return [];
  const y = parseFloat(head.getAttribute('y'));
  return texts.filter((t) => Math.abs(parseFloat(t.getAttribute('y')) - y) < 4);
}
function rowOf(g, text) {  // the index of the schema row a clicked text is on, or null
  const y = parseFloat(text.getAttribute('y'));
  for (const t of g.querySelectorAll('text')) {
    const m = /^\[(\d+)\]$/.exec(t.textContent.trim());
    if (m && Math.abs(parseFloat(t.getAttribute('y')) - y) < 4) return parseInt(m[1], 10);
  }
  return null;
}

// a column's lineage: the nodes, edges and schema rows on its path, in the lineage colours
function paintLineage(v, lin) {
  v.svg.querySelectorAll('.substrait-lineage-row').forEach((t) => {
    t.classList.remove('substrait-lineage-row'); t.style.fill = ''; t.style.fontWeight = '';
  });
  const edges = new Set((lin && lin.edges) || []);
  v.svg.querySelectorAll('g.edge').forEach((g) => {
    const title = g.querySelector('title');
    const on = !!title && edges.has(title.textContent);
    g.classList.toggle('substrait-lineage-edge', on);
    g.querySelectorAll('path').forEach((p) => { p.style.stroke = on ? lin.stroke : ''; p.style.strokeWidth = on ? '3' : ''; });
    g.querySelectorAll('polygon').forEach((p) => { p.style.stroke = on ? lin.stroke : ''; p.style.fill = on ? lin.stroke : ''; });
  });
  if (!lin) return;
  Object.entries(lin.rows || {}).forEach(([node, indices]) => {
    const g = v.svg.querySelector(`[id="node-${CSS.escape(node)}"]`);
    if (!g) return;
    indices.forEach((i) => rowTexts(g, i).forEach((t) => {
      t.classList.add('substrait-lineage-row'); t.style.fill = lin.stroke; t.style.fontWeight = 'bold';
    }));
  });
}

const HIT_STROKE = '#c77700';

function paint(v, data) {
  const selected = data.selected ? 'node-' + data.selected : null;
  const hits = new Set((data.hits || []).map((n) => 'node-' + n));
  const lin = data.lineage;
  const path = new Set(((lin && lin.nodes) || []).map((n) => 'node-' + n));
  const current = v.hits[v.hitAt];  // the hit last shown: a thicker outline in the hits' colour
  v.svg.querySelectorAll('g.node').forEach((g) => {
    const shape = g.querySelector('path, polygon, ellipse');  // the node's outline: its first shape
    if (!shape) return;
    const on = g.id === selected, hit = hits.has(g.id), traced = path.has(g.id), shown = hit && g === current;
    shape.style.fill = on ? data.fill : (hit ? data.hit_fill : (traced ? lin.fill : ''));
    shape.style.strokeWidth = shown ? '4' : (on ? '3' : (hit || traced ? '2' : ''));
    shape.style.stroke = shown ? HIT_STROKE : (traced ? lin.stroke : '');
    g.classList.toggle('substrait-selected', on);
    g.classList.toggle('substrait-hit', hit);
    g.classList.toggle('substrait-hit-shown', shown);
    g.classList.toggle('substrait-lineage', traced);
    const r = v.miniBoxes && v.miniBoxes[g.id];
    if (r) r.setAttribute('fill', on ? '#e8590c' : shown ? HIT_STROKE : hit ? '#f0b400' : traced ? '#8d6be0' : '#b8c7db');
  });
  paintLineage(v, lin);
}

// Streamlit fades an element while a rerun redraws it (an opacity transition, delayed 0.5 s): on the
// viewer, merely setting it up re-records the whole drawing twice (~40 ms each at 500 nodes) on every
// click. The graph is not faded: it stays what it was until its new data arrive (which it paints).
const NO_FADE = 'sv-no-fade';
function keepOpaque(component) {
  if (!document.getElementById(NO_FADE)) {
    const style = document.createElement('style');
    style.id = NO_FADE;
    style.textContent = '[data-sv-viewer] { opacity: 1 !important; transition: none !important; }';
    document.head.appendChild(style);
  }
  const host = component.parentElement.getRootNode().host || component.parentElement;
  const box = host.closest('[data-testid="stElementContainer"]');
  if (box) box.dataset.svViewer = '1';
}

// A page link clicked (or the browser's back or forward) while a page draws its graph first: the page
// is being left. Until the new page's run starts, Streamlit's browser sends a widget's rerun with the
// page it shows, and the server runs the last rerun it got: asking for the rest of the page then would
// run the page being left instead of the one asked for (the Step page never drew). Listened for once
// per page load; capturing, so it is known before any later frame asks.
if (!window.__substraitVizLeaving) {
  window.__substraitVizLeaving = { left: false };
  const LINKS = '[data-testid="stSidebarNavLink"], [data-testid="stTopNavLink"], [data-testid="stPageLink-NavLink"]';
  document.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest(LINKS)) window.__substraitVizLeaving.left = true;
  }, true);
  window.addEventListener('popstate', () => { window.__substraitVizLeaving.left = true; });
}

export default function (component) {
  const { data, setTriggerValue } = component;
  let asked = false;
  try {
    keepOpaque(component);
    asked = show(component);
  } finally {
    // a page that drew its graph first: now that the graph is drawn (painted, unless the tab is hidden),
    // ask for the rest of the page; asked once whatever happened above, so the page is never left half drawn
    if (data.then_rest && !asked) {
      // not once the page is being left (above) or is gone
      const rest = () => {
        if (!window.__substraitVizLeaving.left && component.parentElement.isConnected) setTriggerValue('drawn', data.key);
      };
      if (document.hidden) rest(); else requestAnimationFrame(() => setTimeout(rest, 0));
    }
  }
}

// draw (or update) the viewer; true when it asked the server for something instead (a lost SVG)
function show(component) {
  const { parentElement, data, setTriggerValue } = component;
  const root = parentElement.querySelector('.sv-root');
  // the SVG comes once per page and session; later reruns send only its key (see graph_view)
  const svgs = window.__substraitVizSvgs || (window.__substraitVizSvgs = new Map());
  if (data.svg) svgs.set(data.key, data.svg);
  // the hint first: the frame's height is worked out below it (a longer hint takes two lines)
  root.querySelector('.sv-hint').textContent = 'drag to pan · wheel to zoom · click a node to select it'
    + (data.column_clicks ? ', a schema row for its lineage' : '');
  let v = root.__viewer;
  if (!v || v.key !== data.key) {
    const svg = svgs.get(data.key);
    if (!svg) { setTriggerValue('missing', data.key); return true; }
    v = root.__viewer = build(root, { ...data, svg });
    root.dataset.svgKey = data.key;
    // fitted when its text stays readable so; else at 100%, from the top (the roots)
    const vp = v.viewport;
    if (Math.min(vp.clientWidth / v.w, vp.clientHeight / v.h) >= READABLE_K) v.fit(); else v.actual();
  }
  v.setTrigger = setTriggerValue;
  v.columnClicks = !!data.column_clicks;
  const changed = v.selected !== data.selected;
  v.selected = data.selected;
  v.data = data;
  if (data.search) window.__substraitVizSearch = { viewer: v, root, ...data.search };
  const hitKey = (data.hits || []).join('\n');
  let toHit = false;
  if (hitKey !== v.hitKey) {  // a new search (or drawing): its first hit is shown, over the selection
    v.hitKey = hitKey;
    v.setHits(data.hits || []);
    toHit = v.hits.length > 0;
  }
  if (toHit) v.toHit(0); else paint(v, data);
  // a node selected in the page (the picker, a link, the inspector) is brought into the frame
  if (changed && data.follow) v.toSelected();
  else if (changed && !toHit && data.selected !== v.clicked) v.reveal(v.node(data.selected), false);
  return false;
}

// Enter in the page's search box (data.search.label) steps to the next hit, Shift+Enter to the previous,
// once the box holds the query the hits are for (before, Enter sends the new query, whose first hit is
// shown when its hits come). Listened for once per page load, for the viewer that last had a search.
if (!window.__substraitVizSearchKeys) {
  window.__substraitVizSearchKeys = true;
  document.addEventListener('keydown', (e) => {
    const s = window.__substraitVizSearch, box = e.target;
    if (!s || e.key !== 'Enter' || !(box instanceof HTMLInputElement) || !s.root.isConnected) return;
    if (box.getAttribute('aria-label') !== s.label || box.value !== s.query || !s.viewer.hits.length) return;
    s.viewer.toHit(s.viewer.hitAt + (e.shiftKey ? -1 : 1));
  }, true);
}
"""

_component = st.components.v2.component("substrait_viz_graph_view", html=_HTML, css=_CSS, js=_JS)

#: ``SUBSTRAIT_VIZ_LAYOUT=browser`` lays graphs out in the browser as before the viewer (the
#: benchmark's baseline, or a server without Graphviz).
IN_BROWSER = os.environ.get("SUBSTRAIT_VIZ_LAYOUT") == "browser"

def viewer_available() -> bool:
    """Whether graphs are shown in the viewer (laid out on the server by Graphviz's ``dot``), not in
    the fallback chart, which cannot tell the page it has drawn."""
    return not IN_BROWSER and has_dot()


@st.cache_resource(show_spinner=False, max_entries=64)
def _layout(dot: str) -> tuple[str, str] | None:
    """The SVG of ``dot`` and its key, laid out once per distinct DOT for every session."""
    svg = layout_svg(dot)
    if svg is None:
        return None
    svg = mark_detail_lines(compact_svg(svg))  # marked here, not in the page: 40 ms less there at 500 nodes
    key = hashlib.sha1(svg.encode()).hexdigest()
    _LAID_OUT[key] = svg
    return svg, key


def plan_dot(model: PlanModel, view: View) -> str:
    """``viz.render.to_dot(model, view=view)``, made once per plan and view for every session: a click's
    rerun draws the same DOT (selection and hits are painted in the page), 20 ms to write at 500 nodes."""
    return _dot(model.digest, view, model)


@st.cache_resource(show_spinner=False, max_entries=32, hash_funcs={View: repr})
def _dot(digest: str, view: View, _model: PlanModel) -> str:
    return to_dot(_model, view=view)


#: Every SVG laid out, by key (as long as the process lives; one per distinct drawing).
_LAID_OUT: dict[str, str] = {}


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
    on_click: Callable[[], None] | None = None,
    height: int = 720,
    follow: bool = False,
    clickable: bool = True,
    lineage: dict | None = None,
    on_column: Callable[[], None] | None = None,
    then_rest: bool = False,
    search_box: tuple[str, str] | None = None,
) -> None:
    """Show ``dot`` laid out on the server, with pan and zoom; ``selected`` and ``hits`` are
    painted in the page. A click selects the node (``ui.selection``) unless ``on_click`` says
    otherwise; ``follow`` moves the view to the selected node when the selection changes.
    ``lineage`` (``ui.lineage_panel.lineage_highlight``) is painted too: its nodes, edges and schema
    rows; with ``on_column``, a click on a schema row calls it instead (the value ``"<node>|<index>"``).
    With ``then_rest`` (a page that draws its graph first, :func:`ui.page.open_plan`), the viewer reruns
    the script once it has drawn the graph, and that run draws the whole page; call it only when
    :func:`viewer_available`. The first of ``hits`` (in reading order) is brought into the frame when
    they change, a selection changed by the page when it is outside the frame; with ``search_box``
    (the label of the page's search input, the query ``hits`` are for), Enter there steps to the next
    hit and Shift+Enter to the previous. Called in a fragment, the viewer's "drawn" reruns the
    fragment, which then reruns the whole app. The viewer does not ask once a page link was clicked
    (the browser would send the rerun with the page being left)."""
    if st.session_state.pop(_DRAWN, None) and then_rest:
        st.rerun(scope="app")
    laid = None if IN_BROWSER else _layout(dot)
    if laid is None:  # no Graphviz on the server: lay it out in the browser, without zoom
        st.graphviz_chart(dot, width="stretch")
        if clickable:
            graph_click(key, selected, on_click, hits=hits, lineage=lineage)
        if not IN_BROWSER:
            st.caption("Install Graphviz on the server (`apt-get install graphviz`, or `make run` as root) for a graph "
                       "you can pan and zoom, laid out once instead of on every page.")
        return
    svg, svg_key = laid
    sent = _sent()
    pal = PALETTES[theme()]
    data = {
        # a rerun of the same drawing sends only its key: a click must not carry a 500-node SVG (1.4 MB)
        "svg": None if svg_key in sent else svg,
        "key": svg_key,
        "selected": selected,
        "hits": sorted(hits),
        "fill": pal.selected_fill,
        "hit_fill": pal.hit_fill,
        "height": height,
        "follow": follow,
        "lineage": lineage,
        "column_clicks": clickable and on_column is not None,
        "then_rest": then_rest,
        "search": {"label": search_box[0], "query": search_box[1]} if search_box else None,
    }
    callback = (on_click if on_click is not None else (lambda: select_clicked(key))) if clickable else (lambda: None)
    _component(key=key, data=data, on_node_change=callback, on_missing_change=lambda: _resend(key),
               on_drawn_change=lambda: st.session_state.__setitem__(_DRAWN, True),
               on_column_change=on_column if clickable and on_column is not None else (lambda: None))
    sent.add(svg_key)
