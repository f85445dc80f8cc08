// The script of the self-contained HTML report (viz/html_report.py), inlined in its one <script> and
// allowed by its hash in the page's Content-Security-Policy: pan, zoom and Fit on the graph, a node's
// panel shown on a click (on the graph or a link), the node named in the URL. It reads the page only:
// the node shown first comes from <body data-first>. Plain ES5 in an IIFE, so any browser opens it.

(function () {
  document.documentElement.classList.add('js');
  var frame = document.querySelector('.frame');
  var stage = frame && frame.querySelector('.stage');
  var svg = stage && stage.querySelector('svg');
  var zoomLabel = document.querySelector('.zoom');
  var panels = document.querySelector('.panels');
  var nodes = {};
  var k = 1, x = 0, y = 0, w = 0, h = 0, current = null;
  function apply() {
    stage.style.transform = 'translate(' + x + 'px,' + y + 'px) scale(' + k + ')';
    if (zoomLabel) zoomLabel.textContent = Math.round(k * 100) + '%';
  }
  function zoomAt(nk, cx, cy) {
    nk = Math.max(0.03, Math.min(4, nk));
    x = cx - (cx - x) * nk / k; y = cy - (cy - y) * nk / k; k = nk; apply();
  }
  function fit() {
    var fw = frame.clientWidth, fh = frame.clientHeight;
    k = Math.min(1, (fw - 16) / w, (fh - 16) / h);
    x = (fw - w * k) / 2; y = Math.max(8, (fh - h * k) / 2); apply();
  }
  function box(g) {
    var r = g.getBoundingClientRect(), s = stage.getBoundingClientRect();
    return { x: (r.left - s.left) / k, y: (r.top - s.top) / k, w: r.width / k, h: r.height / k };
  }
  function inView(g) {
    var r = g.getBoundingClientRect(), f = frame.getBoundingClientRect();
    return r.left >= f.left && r.right <= f.right && r.top >= f.top && r.bottom <= f.bottom;
  }
  function centre(g, top) {
    var b = box(g);
    x = frame.clientWidth / 2 - (b.x + b.w / 2) * k;
    y = top ? 12 - b.y * k : frame.clientHeight / 2 - (b.y + b.h / 2) * k;
    apply();
  }
  function select(id, fromGraph, initial) {
    var panel = document.getElementById('n-' + id);
    if (!panel) return;
    if (current) current.classList.remove('shown');
    panel.classList.add('shown'); current = panel;
    if (panels) panels.scrollTop = 0;
    Object.keys(nodes).forEach(function (n) { nodes[n].classList.toggle('sel', n === id); });
    document.querySelectorAll('a[data-node]').forEach(function (a) { a.classList.toggle('sel', a.getAttribute('data-node') === id); });
    var g = nodes[id];
    if (g && !fromGraph && !inView(g)) centre(g, false);
    // the URL names the node (a reload shows it again); not while loading: the page would scroll to it
    if (!initial) try { history.replaceState(null, '', '#n-' + id); } catch (e) { /* a file: page may refuse */ }
  }
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a[data-node]');
    if (!a) return;
    e.preventDefault();
    select(a.getAttribute('data-node'), false);
    if (panels && panels.getBoundingClientRect().top < 0) panels.scrollIntoView();
  });
  if (svg) {
    svg.querySelectorAll('g.node').forEach(function (g) {
      if (g.id && g.id.indexOf('node-') === 0) nodes[g.id.slice(5)] = g;
    });
    w = svg.width.baseVal.value; h = svg.height.baseVal.value;
    frame.style.height = Math.round(Math.max(300, Math.min(window.innerHeight * 0.75, h + 24))) + 'px';
    var down = null;
    frame.addEventListener('pointerdown', function (e) {
      if (e.button !== 0) return;
      down = { x: e.clientX, y: e.clientY, px: x, py: y, moved: false, g: e.target.closest('g.node') };
    });
    window.addEventListener('pointermove', function (e) {
      if (!down) return;
      var dx = e.clientX - down.x, dy = e.clientY - down.y;
      if (!down.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      down.moved = true; frame.classList.add('dragging');
      x = down.px + dx; y = down.py + dy; apply();
    });
    window.addEventListener('pointerup', function () {
      if (!down) return;
      var d = down; down = null; frame.classList.remove('dragging');
      if (!d.moved && d.g && d.g.id.indexOf('node-') === 0) select(d.g.id.slice(5), true);
    });
    frame.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = frame.getBoundingClientRect();
      zoomAt(k * Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    document.querySelectorAll('.toolbar button').forEach(function (b) {
      b.addEventListener('click', function () {
        var act = b.getAttribute('data-act'), cx = frame.clientWidth / 2, cy = frame.clientHeight / 2;
        if (act === 'in') zoomAt(k * 1.25, cx, cy);
        else if (act === 'out') zoomAt(k / 1.25, cx, cy);
        else if (act === 'fit') fit();
        else if (act === 'one') { zoomAt(1, cx, cy); if (current && nodes[current.getAttribute('data-node')]) centre(nodes[current.getAttribute('data-node')], false); }
      });
    });
    fit();
  }
  var first = document.body.getAttribute('data-first');
  var hash = decodeURIComponent(location.hash.slice(1));
  var start = hash.indexOf('n-') === 0 && document.getElementById(hash) ? hash.slice(2) : first;
  if (start) select(start, false, true);
  if (svg && k < 0.45 && nodes[start]) { k = 1; apply(); centre(nodes[start], true); }  // too small to read: 100%, on the node
})();
