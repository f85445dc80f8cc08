// The graph viewer (ui/graph/viewer.py), a Streamlit components v2 module run in the page itself:
// shows the SVG laid out on the server with pan (drag), zoom (wheel, buttons, Fit, 100%), a minimap,
// the search hits one at a time, and the selection and a column's lineage painted in the page; a click
// on a node (or a schema row) is sent back as a trigger value. Everything it shows comes in
// component.data (a JSON object built by graph_view()); nothing is formatted into this source.

// READABLE_K: the smallest zoom whose node text reads (titles about 10 px, detail lines 9 px); Fit
// and a jump to a node never go below it. MIN_FRAME: the frame's least height, however small the window.
const MIN_K = 0.02, MAX_K = 4, FAR_K = 0.45, MINI_W = 180, MINI_H = 140, READABLE_K = 0.7, MIN_FRAME = 320;
// REFERENCE_H: the window height (px) a frame's greatest height (data.height) is given for
const REFERENCE_H = 1000;
// MAP_NODES: from this many nodes the minimap is shown when a drawing opens (fewer: behind the Map button)
const MAP_NODES = 30;
// MINI_PAD: room in px around the minimap's drawing, so its outermost boxes do not touch its border
const MINI_PAD = 4;

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
  // the frame: as tall as the drawing as it opens, within [220, data.height, scaled to the window]: fitted
  // to its width when its text stays readable so, else at 100% (a wide plan fitted to the width would leave
  // a strip); and no taller than the window below its top, so its bottom and the minimap show with its top
  // Given open_width, the zoom that fits a drawing that wide (side by side, both at the wider's zoom); a
  // followed node's drawing too wide to fit opens at READABLE_K, its frame no taller than that needs
  const widthK = Math.min(1, viewport.clientWidth / w);
  const openK = data.open_width ? Math.max(READABLE_K, Math.min(1, (viewport.clientWidth - 16) / data.open_width))
    : widthK >= READABLE_K ? widthK : data.follow ? READABLE_K : 1;
  const below = window.innerHeight - Math.max(0, viewport.getBoundingClientRect().top) - 16;
  // (a frame low on its page, under a form or a table, still takes half the window: scrolled to, it reads;
  // one that starts below the window's fold, as much as its whole drawing needs at READABLE_K, where that
  // is as wide as the frame: at half the window, the SQL page's four-node plan showed two nodes at 100%)
  const least = Math.max(MIN_FRAME, Math.round(0.55 * window.innerHeight));
  const whole = below < MIN_FRAME && w * READABLE_K <= viewport.clientWidth ? h * READABLE_K + 12 : 0;
  // data.height is for a window of REFERENCE_H px; a taller one (a large screen, a page zoomed out) has a
  // frame as much taller, or the drawing takes a strip of it
  const most = data.height * Math.max(1, window.innerHeight / REFERENCE_H);
  const tallest = Math.min(most, Math.max(least, below, whole));
  viewport.style.height = Math.round(Math.max(220, Math.min(tallest, h * openK + 12))) + 'px';
  // touched: the person has moved or zoomed the view themselves (a new drawing of the same plan keeps it)
  const v = { key: data.key, plan: data.plan, viewport, stage, svg, w, h, k: 1, x: 0, y: 0, selected: null, moved: false,
    touched: false, openK };
  // level of detail: a node's lines below its title come marked sv-detail (viz.export.mark_detail_lines)
  // every node's box in the drawing's own px, measured once at 100%. The nodes' text is not laid
  // out yet (the CSS in viewer.py): laying out every line of a large drawing's text would hold
  // back its first paint. A node's text is laid out when the node comes near the view (v.apply),
  // and the rest's, a few nodes at a time, when the page is idle.
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
  // the Map button hides it where it covers what a person reads (kept hidden for the page's next drawings)
  const mapButton = root.querySelector('.sv-toolbar button[data-act="map"]');
  mapButton.hidden = !big;
  v.showMap = (shown) => {
    root.__mapHidden = !shown;
    mini.style.display = shown && v.mk ? 'block' : 'none';
    mapButton.setAttribute('aria-pressed', String(shown));
    if (shown && v.placeMap) v.placeMap();  // opened by the button: clear of the selected node too
  };
  if (big) {
    // at most a third of a narrow frame's width and a quarter of its height: it must not hide the graph
    // (its room and border included)
    const edge = 2 * MINI_PAD + 2;
    const mw = Math.min(MINI_W, viewport.clientWidth / 3) - edge;
    const mh = Math.min(MINI_H, viewport.clientHeight / 4) - edge;
    const mk = Math.min(mw / w, mh / h);
    mini.style.width = Math.ceil(w * mk) + 2 * MINI_PAD + 'px';
    mini.style.height = Math.ceil(h * mk) + 2 * MINI_PAD + 'px';
    miniStage.style.left = miniStage.style.top = MINI_PAD + 'px';
    v.mk = mk;
  }
  // shown at first on a large plan; on a small one (a few nodes past the frame) it would cover the very
  // nodes a person reads, so there the Map button opens it (a person's choice is kept either way)
  v.showMap(root.__mapHidden === undefined ? nodes.length >= MAP_NODES : !root.__mapHidden);
  // node g's box in the frame's px: [x0, y0, x1, y1]
  v.frameBox = (g) => {
    const b = v.box(g), k = v.k;
    return [b.x * k + v.x, b.y * k + v.y, (b.x + b.w) * k + v.x, (b.y + b.h) * k + v.y];
  };
  // whether a box in the frame's px is under the minimap, in the bottom-left corner or the bottom-right
  // one (by default the corner it is in now)
  v.underMap = ([x0, , x1, y1], left = mini.classList.contains('sv-mini-left')) => {
    if (!v.mk || root.__mapHidden) return false;
    const vw = viewport.clientWidth, vh = viewport.clientHeight, mw = mini.offsetWidth + 8, mh = mini.offsetHeight + 8;
    return y1 > vh - mh && (left ? x0 < mw : x1 > vw - mw);
  };
  // the minimap goes to the bottom-left corner while the selected node is under it in the right one
  v.placeMap = () => {
    if (!v.mk || root.__mapHidden || !v.node) return;
    const g = v.node(v.selected), box = g && v.frameBox(g);
    mini.classList.toggle('sv-mini-left', !!box && v.underMap(box, false) && !v.underMap(box, true));
  };
  v.apply = () => {
    stage.style.transform = `translate(${v.x}px, ${v.y}px) scale(${v.k})`;
    v.near();
    v.placeMap();
    zoomLabel.textContent = Math.round(v.k * 100) + '%';
    viewport.classList.toggle('sv-far', v.k < FAR_K);
    if (v.mk) {
      miniView.style.left = MINI_PAD + (-v.x / v.k) * v.mk + 'px';
      miniView.style.top = MINI_PAD + (-v.y / v.k) * v.mk + 'px';
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
  v.fit = () => {  // the whole graph; one too large to read so: the selected node (else the roots) at READABLE_K
    const vw = viewport.clientWidth, vh = viewport.clientHeight;
    v.k = Math.max(READABLE_K, Math.min(1, 0.96 * Math.min(vw / w, vh / h)));
    const g = (w * v.k > vw || h * v.k > vh) && v.node && v.node(v.selected);
    if (g) { v.centre(g, v.k); return; }
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
      r.dataset.node = g.id;
      m.appendChild(r);
      v.miniBoxes[g.id] = r;
    });
    miniStage.innerHTML = '';
    miniStage.appendChild(m);
  }
  v.actual = (k = 1) => {  // 100% (or k) from the top: the drawing in the middle, else its topmost node (a root)
    const top = v.top(), vw = viewport.clientWidth;
    v.k = k;
    v.x = w * k <= vw || !top ? (vw - w * k) / 2 : vw / 2 - (top.x + top.w / 2) * k;
    v.y = top ? 12 - top.y * k : 8;
    v.apply();
  };
  v.centerOn = (px, py, k) => {  // px, py: a point of the drawing, in its own px
    v.k = k; v.x = viewport.clientWidth / 2 - px * k; v.y = viewport.clientHeight / 2 - py * k;
    v.apply();
  };
  v.node = (id) => id ? svg.querySelector(`[id="node-${CSS.escape(id)}"]`) : null;
  v.anchor = () => {  // the node nearest the frame's centre: its id and where its centre is in the frame
    const cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
    let best = null;
    v.boxes.forEach((b, g) => {
      const sx = (b.x + b.w / 2) * v.k + v.x, sy = (b.y + b.h / 2) * v.k + v.y;
      const d = (sx - cx) ** 2 + (sy - cy) ** 2;
      if (g.id.startsWith('node-') && (!best || d < best.d)) best = { id: g.id.slice(5), sx, sy, d, k: v.k };
    });
    return best;
  };
  v.keep = (a) => {  // the same zoom, node a.id where it was in the frame: false when this drawing lacks it
    const g = a && v.node(a.id);
    if (!g) return false;
    const b = v.box(g);
    v.k = a.k; v.x = a.sx - (b.x + b.w / 2) * a.k; v.y = a.sy - (b.y + b.h / 2) * a.k;
    v.touched = true;
    v.apply();
    return true;
  };
  // zoom k, lowered (not below READABLE_K) so that a node of box b fits the frame: a wide node at 100%
  // was cut at both sides
  v.fitting = (b, k) => Math.max(READABLE_K, Math.min(k, (viewport.clientWidth - 24) / b.w,
    (viewport.clientHeight - 24) / b.h));
  v.toSelected = () => {
    const g = v.node(v.selected);
    if (!g) return;
    const b = v.box(g);
    v.centerOn(b.x + b.w / 2, b.y + b.h / 2, v.fitting(b, Math.max(v.k, 1)));
  };
  v.inView = (g) => {  // whether node g is wholly inside the frame, and not under the minimap
    const box = v.frameBox(g), [x0, y0, x1, y1] = box, vw = viewport.clientWidth, vh = viewport.clientHeight;
    return x0 >= 0 && y0 >= 0 && x1 <= vw && y1 <= vh && !v.underMap(box);
  };
  v.reveal = (g, readable) => {  // node g centred, when outside the frame (or, with readable, too small to read)
    if (!g || (v.inView(g) && (!readable || v.k >= READABLE_K))) return;
    v.centre(g, v.fitting(v.box(g), Math.max(v.k, READABLE_K)));
  };
  v.centre = (g, k) => {  // node g in the frame's middle at zoom k
    const b = v.box(g), vw = viewport.clientWidth, vh = viewport.clientHeight;
    v.centerOn(b.x + b.w / 2, b.y + b.h / 2, k);
    // a node near the drawing's edge: the frame filled with the drawing instead, as far as g stays in it
    // (a drawing narrower or shorter than the frame in its middle, not pushed to one side by g)
    const x = v.x, y = v.y;
    const cx = w * k > vw ? Math.min(0, Math.max(vw - w * k, x)) : (vw - w * k) / 2;
    const cy = h * k > vh ? Math.min(0, Math.max(vh - h * k, y)) : (vh - h * k) / 2;
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
  const hitNote = root.querySelector('.sv-hit-note');
  v.setHits = (ids, query) => {
    v.hits = ids.map((id) => v.node(id)).filter((g) => g);
    const mid = (g) => { const b = v.box(g); return Math.round(b.y + b.h / 2); };  // a rank's nodes share it
    v.hits.sort((a, b) => mid(a) - mid(b) || v.box(a).x - v.box(b).x);
    v.hitAt = 0;
    const none = !v.hits.length && !!query;  // a search that matched nothing says so beside the graph too
    hitsLabel.hidden = !v.hits.length && !none;
    for (const b of hitsLabel.querySelectorAll('button')) b.hidden = none;
    if (none) { hitCount.textContent = 'no node matches'; hitNote.hidden = true; }
  };
  v.toHit = (i) => {  // show hit i (wrapping round) and say which it is
    if (!v.hits.length) return;
    v.hitAt = (i + v.hits.length) % v.hits.length;
    hitCount.textContent = `${v.hitAt + 1} of ${v.hits.length}`;
    // what matched there when the box does not draw it (a field among its "… more fields")
    const id = v.hits[v.hitAt].id.slice('node-'.length);
    const note = ((v.data && v.data.hit_notes) || {})[id] || '';
    hitNote.textContent = note ? `${id}: ${note}` : '';
    hitNote.hidden = !note;
    if (v.data) paint(v, v.data);
    v.reveal(v.hits[v.hitAt], true);
  };
  // drag to pan; a press that does not move is a click
  // the frame, its minimap and toolbar stay from one drawing to the next, each drawing adding its own
  // listeners: only the drawing shown answers (a Map click answered twice would toggle nothing)
  const live = () => root.__viewer === v;
  let drag = null;
  viewport.addEventListener('pointerdown', (e) => {
    if (!live() || e.button !== 0 || mini.contains(e.target)) return;
    drag = { x: e.clientX, y: e.clientY, vx: v.x, vy: v.y };
    v.moved = false;
  });
  window.addEventListener('pointermove', (e) => {
    if (!drag || !live()) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!v.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    v.moved = true;
    v.touched = true;
    viewport.classList.add('sv-dragging');
    v.x = drag.vx + dx; v.y = drag.vy + dy;
    v.apply();
  });
  window.addEventListener('pointerup', () => { drag = null; viewport.classList.remove('sv-dragging'); });
  // the wheel zooms once the person works in the frame (a press in it, until the pointer leaves) or with
  // Ctrl (a trackpad's pinch sends that): a wheel that only passes over the graph scrolls the page
  viewport.addEventListener('pointerdown', () => { if (live()) v.engaged = true; });
  viewport.addEventListener('pointerleave', () => { v.engaged = false; });
  const hint = root.querySelector('.sv-hint');
  viewport.addEventListener('wheel', (e) => {
    if (!live()) return;
    if (!(v.engaged || e.ctrlKey || e.metaKey)) {
      hint.classList.add('sv-hint-shown');
      clearTimeout(v.hintTimer);
      v.hintTimer = setTimeout(() => hint.classList.remove('sv-hint-shown'), 1500);
      return;
    }
    e.preventDefault();
    const r = viewport.getBoundingClientRect();
    v.touched = true;
    v.zoomAt(v.k * Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  // the minimap: click or drag to move the view there
  const fromMini = (e) => {
    const r = mini.getBoundingClientRect();
    v.touched = true;
    const x = e.clientX - r.left - mini.clientLeft - MINI_PAD, y = e.clientY - r.top - mini.clientTop - MINI_PAD;
    v.centerOn(x / v.mk, y / v.mk, v.k);
  };
  let miniDrag = false;
  mini.addEventListener('pointerdown', (e) => { if (!live()) return; miniDrag = true; fromMini(e); e.stopPropagation(); });
  mini.addEventListener('pointermove', (e) => { if (miniDrag && live()) fromMini(e); });
  window.addEventListener('pointerup', () => { miniDrag = false; });
  // clicks on nodes
  svg.querySelectorAll('g.node').forEach((g) => {
    g.dataset.substraitBound = '1';
    g.addEventListener('click', (e) => {
      if (v.moved || !v.data.clickable) return;
      const title = g.querySelector('title');
      const id = g.id && g.id.startsWith('node-') ? g.id.slice(5) : (title ? title.textContent : '');
      const row = v.columnClicks && e.target.closest && e.target.closest('text') ? rowOf(g, e.target.closest('text')) : null;
      v.clicked = id;  // a node clicked in the frame is not moved when it comes back selected
      v.pending = null;  // a key's selection still waiting gives way to the click
      if (id && v.setTrigger) { if (row !== null) v.setTrigger('column', id + '|' + row); else v.setTrigger('node', id); }
    });
  });
  // the keys, while the frame has the focus (Tab to it, or a click in it): the arrows move the selection
  // along the plan's edges (up to the node that reads this one, down to its first input, left and right
  // to the other inputs of the node above), Shift with an arrow pans, + and − zoom, 0 is 100%, F fits,
  // M shows or hides the map
  const readers = new Map(), inputs = new Map();  // node id -> ids, from the drawing's edges
  svg.querySelectorAll('g.edge > title').forEach((t) => {
    const [from, to] = t.textContent.split('->');
    if (!from || !to || !v.node(from) || !v.node(to)) return;
    if (!readers.has(from)) readers.set(from, []);
    if (!inputs.has(to)) inputs.set(to, []);
    readers.get(from).push(to);
    inputs.get(to).push(from);
  });
  const leftToRight = (ids) => ids.slice().sort((a, b) => v.box(v.node(a)).x - v.box(v.node(b)).x);
  v.neighbour = (id, key) => {  // the node an arrow key moves the selection to from node id, or null
    const up = readers.get(id) || [];
    if (key === 'ArrowUp') return up[0] || null;
    if (key === 'ArrowDown') return leftToRight(inputs.get(id) || [])[0] || null;
    const row = up.length ? leftToRight(inputs.get(up[0]) || []) : leftToRight(nodes.map((g) => g.id.slice(5))
      .filter((n) => !readers.has(n)));  // a root's row: the other roots
    const i = row.indexOf(id) + (key === 'ArrowRight' ? 1 : -1);
    return i >= 0 && i < row.length && row[i] !== id ? row[i] : null;
  };
  // send node id as the selection; a trigger sent while the page is busy with the one before can be lost,
  // so it is sent again until the page answers with it (three times at most, then the page's stands).
  // from: the selections the page may still answer with on the way (the keys' before it, and its own)
  v.select = (id, tries = 3,
    from = v.pending ? new Set([...v.pendingFrom, v.pending]) : new Set([v.pageSelected])) => {
    v.pending = id; v.pendingFrom = from;
    v.setTrigger('node', id);
    clearTimeout(v.retry);
    v.retry = setTimeout(() => {
      if (!live() || v.pending !== id) return;
      if (tries > 1) v.select(id, tries - 1, from);
      else { v.pending = null; v.selected = v.pageSelected; paint(v, { ...v.data, selected: v.pageSelected }); }
    }, 1500);
  };
  const KEY_ACTS = { '+': 'in', '=': 'in', '-': 'out', '−': 'out', 0: 'one', f: 'fit', F: 'fit', m: 'map', M: 'map' };
  viewport.addEventListener('keydown', (e) => {
    if (!live() || e.altKey || e.ctrlKey || e.metaKey) return;
    const step = 80, act = KEY_ACTS[e.key];
    const pans = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (e.key in pans && (e.shiftKey || !v.data.clickable)) {
      v.touched = true;
      v.x += pans[e.key][0]; v.y += pans[e.key][1];
      v.apply();
    } else if (e.key in pans) {
      const from = v.selected || (v.data && v.data.selected);
      const to = from ? v.neighbour(from, e.key) : null;
      if (to && v.setTrigger) {
        // shown selected at once, so that the next key moves on from it before the page answers
        v.selected = to;
        paint(v, { ...v.data, selected: to });
        v.reveal(v.node(to), false);
        v.select(to);
      }
    } else if (act && (act !== 'map' || v.mk)) v.act(act);  // the map's key, as its button, where there is one
    else return;
    e.preventDefault();
  });
  // a toolbar button's act (its data-act), from the button or its key
  v.act = (act) => {
    const cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
    if (act === 'map') { root.__mapChosen = true; v.showMap(!!root.__mapHidden); return; }  // the view stays
    v.touched = act !== 'fit' && act !== 'one';  // Fit and 100% are the views a new drawing opens at anyway
    v.fitted = act === 'fit';  // a new drawing of the plan (row counts drawn on it) is fitted too
    if (act === 'in') v.zoomAt(v.k * 1.25, cx, cy);
    else if (act === 'out') v.zoomAt(v.k / 1.25, cx, cy);
    else if (act === 'fit') {
      v.fit();
      // Fit that stops at the readable zoom leaves part of the graph out: the minimap is then the overview
      if (v.mk && root.__mapHidden && !root.__mapChosen) v.showMap(true);
    }
    else if (act === 'one') v.actual();
    else if (act === 'sel') v.toSelected();
    else if (act === 'next') v.toHit(v.hitAt + 1);
    else if (act === 'prev') v.toHit(v.hitAt - 1);
  };
  root.querySelectorAll('.sv-toolbar button').forEach((b) => {
    b.addEventListener('click', () => { if (live()) v.act(b.dataset.act); });
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
// the search text the hits are for ('' where the page has no search)
const searched = (data) => (data.search && data.search.query) || '';

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

// Streamlit fades an element while a rerun redraws it (a delayed opacity transition): on the viewer,
// merely setting it up re-records the whole drawing twice on every click. The graph is not faded: it
// stays what it was until its new data arrive (which it paints).
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
  const { parentElement, setTriggerValue } = component;
  let { data } = component;
  const root = parentElement.querySelector('.sv-root');
  // the SVG comes once per page and session; later reruns send only its key (see graph_view)
  const svgs = window.__substraitVizSvgs || (window.__substraitVizSvgs = new Map());
  if (data.svg) svgs.set(data.key, data.svg);
  // the hint first: the frame's height is worked out below it (a longer hint takes two lines)
  // a graph that only shows (Step through, Compare) says nothing of clicks, and Selected is there when a node is
  root.querySelector('.sv-hint').textContent = 'drag to pan · Ctrl+wheel to zoom'
    + (data.clickable ? ' · click a node (or use the arrow keys) to select it' : '')
    + (data.column_clicks ? ', a schema row for its lineage' : '');
  root.classList.toggle('sv-static', !data.clickable);
  root.querySelector('.sv-viewport').setAttribute('aria-label', "The plan's graph. "
    + (data.clickable ? 'Arrow keys: the node above, below or beside. Shift and an arrow: pan. '
      : 'Arrow keys: pan. ') + 'Plus and minus: zoom. 0: actual size. F: fit. M: the map.');
  root.querySelector('[data-act="sel"]').hidden = !data.selected;
  let v = root.__viewer;
  if (!v || v.key !== data.key) {
    const svg = svgs.get(data.key);
    if (!svg) { setTriggerValue('missing', data.key); return true; }
    // a new drawing of the same plan (row counts, marks, a view setting) keeps the view the person chose
    const old = v, kept = v && v.touched && data.plan && v.plan === data.plan ? v.anchor() : null;
    v = root.__viewer = build(root, { ...data, svg });
    root.dataset.svgKey = data.key;
    const vp = v.viewport;
    if (v.keep(kept)) {  // and what was selected and searched stays as it was: nothing to bring into view
      v.selected = old.selected; v.clicked = old.clicked;
      if (old.hitKey !== null) { v.setHits(data.hits || [], searched(data)); v.hitKey = old.hitKey; v.hitAt = old.hitAt; }
    } else if ((old && old.fitted && data.plan && old.plan === data.plan)
      || (!data.open_width && Math.min(vp.clientWidth / v.w, vp.clientHeight / v.h) >= READABLE_K)) {
      // a Fit holds for the plan's next drawing (wider with row counts); else fitted when its text stays
      // readable so; else at 100%, from the top
      v.fit(); v.fitted = true;
    } else if (data.follow && v.node(data.selected)) {
      // a followed node (Step through, Present) in the middle, at the smallest readable zoom: the nodes
      // around it show (from the top at 100%, the current node's inputs were below the frame)
      const g = v.node(data.selected);
      v.centre(g, READABLE_K);
    } else {
      v.actual(data.open_width ? v.openK : 1);
    }
  }
  v.setTrigger = setTriggerValue;
  v.columnClicks = !!data.column_clicks;
  // a key's selection the page has not answered yet stays shown (v.select sends it again while it waits)
  // (one picked otherwise since, in the page or by a click, ends the wait)
  v.pageSelected = data.selected;
  if (v.pending && v.pendingFrom.has(data.selected)) data = { ...data, selected: v.pending };
  else v.pending = null;
  const changed = v.selected !== data.selected;
  v.selected = data.selected;
  v.placeMap();
  v.data = data;
  if (data.search) window.__substraitVizSearch = { viewer: v, root, ...data.search };
  const hitKey = `${searched(data)}\u0000${(data.hits || []).join('\n')}`;
  let toHit = false;
  if (hitKey !== v.hitKey) {  // a new search (or drawing): its first hit is shown, over the selection
    v.hitKey = hitKey;
    v.setHits(data.hits || [], searched(data));
    toHit = v.hits.length > 0;
  }
  if (toHit) v.toHit(0); else paint(v, data);
  // a node selected in the page (the picker, a link, the inspector) is brought into the frame
  // followed (Step through, Present): brought into the frame at a readable zoom, not zoomed in to 100%
  if (changed && data.follow) v.reveal(v.node(data.selected), true);
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
