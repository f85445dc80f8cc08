// The click listener of the in-browser chart (ui/graph/chart_click.py), the fallback when the server has
// no Graphviz: sends a clicked node's id back as a trigger value and paints the selection, the search
// hits and a column's lineage on st.graphviz_chart's SVG. Its values come in component.data (JSON).

export default function (component) {
  const { setTriggerValue, data } = component;
  window.__substraitVizClick = setTriggerValue;
  const selected = data && data.selected ? 'node-' + data.selected : null;
  const fill = (data && data.fill) || '#fff3c4';
  const hits = new Set(((data && data.hits) || []).map((n) => 'node-' + n));
  const lin = data && data.lineage;  // a column's lineage: its nodes take the lineage colours
  const path = new Set(((lin && lin.nodes) || []).map((n) => 'node-' + n));
  const paint = () => {
    document.querySelectorAll('.stGraphVizChart svg g.node').forEach((g) => {
      if (!g.dataset.substraitBound) {
        g.dataset.substraitBound = '1';
        g.style.cursor = 'pointer';
        g.addEventListener('click', () => {
          const title = g.querySelector('title');
          const id = g.id && g.id.startsWith('node-') ? g.id.slice(5) : (title ? title.textContent : '');
          if (id && window.__substraitVizClick) window.__substraitVizClick('node', id);
        });
      }
      // the node's outline is its first shape; an inline style wins over the DOT's attributes
      const shape = g.querySelector('path, polygon, ellipse');
      if (!shape) return;
      const on = g.id === selected, hit = hits.has(g.id), traced = path.has(g.id);
      shape.style.fill = on ? fill : (hit ? data.hit_fill : (traced ? lin.fill : ''));
      shape.style.strokeWidth = on ? '3' : (hit || traced ? '2' : '');
      shape.style.stroke = traced ? lin.stroke : '';
      if (on) g.classList.add('substrait-selected'); else g.classList.remove('substrait-selected');
      g.classList.toggle('substrait-lineage', traced);
    });
  };
  paint();
  const observer = new MutationObserver(paint);
  observer.observe(document.body, { childList: true, subtree: true });
  return () => observer.disconnect();
}
