"""The graph viewer in a real browser, on a 92-node plan DataFusion writes for TPC-DS query 64.

Laid out on the server by Graphviz's ``dot``: the page shows the SVG with pan and zoom. Zooming,
panning and fitting happen in the browser (no message goes to the server), a large graph opens at
a readable size, and zooming to a clicked node shows its schema text at a readable size. The
screenshots (fitted, and zoomed to the node) are saved to ``tests/artifacts/``.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from benchmarks.app import SHADOW_ROOTS
from tests.test_e2e import ARTIFACTS, _browser, app_url  # noqa: F401  (app_url is a fixture: a fresh server per module)

pytestmark = pytest.mark.browser

GRAPH = ".sv-stage svg"
# The viewer's element in the page (Streamlit names it after the widget key of pages/inspect.py)
GRAPH_ELEMENT = "[data-testid=stElementContainer].st-key-graph_click"


@pytest.fixture(scope="module")
def q64_plan(tmp_path_factory) -> str:
    """TPC-DS query 64 planned by DataFusion over TPC-DS at scale 0.01 (92 relations)."""
    from executor.data import tpcds
    from executor.producer_check import read_queries
    from executor.sql_plan import sql_to_plan
    from tests.conftest import SHARED

    data_dir = tpcds(0.01)
    tables = {os.path.splitext(f)[0]: os.path.join(data_dir, f) for f in os.listdir(data_dir) if f.endswith(".parquet")}
    [query] = [q for q in read_queries([os.path.join(SHARED, "corpora", "tpcds-sql")]) if q.name == "64"]
    path = tmp_path_factory.mktemp("zoom") / "tpcds_q64_datafusion.json"
    path.write_bytes(sql_to_plan(query.sql, tables).data)
    return str(path)


# From now on, the most animations the viewer's element has had at once (checked every frame): Streamlit
# fades an element a rerun redraws, which re-records a large drawing twice per click (ui.graph_view).
FADE_WATCH = """() => {
  const host = [...document.querySelectorAll('*')].find((e) => e.shadowRoot && e.shadowRoot.querySelector('.sv-root'));
  const element = host.closest('[data-testid=stElementContainer]');
  window.__graphAnimations = 0;
  (function check() {
    window.__graphAnimations = Math.max(window.__graphAnimations, element.getAnimations().length);
    requestAnimationFrame(check);
  })();
}"""


# In the first frame that shows the graph: how many nodes there are, how many have their text laid out
# (``sv-near``), whether the root (node 0) is one of them, and whether a node without it shows any text.
FIRST_FRAME = SHADOW_ROOTS + """
window.__firstFrame = null;
const roots = window.__shadowRoots;
(function check() {
  const svg = roots.map((r) => r.querySelector('.sv-stage svg')).find((s) => s && s.querySelector('g.node[data-substrait-bound]'));
  if (!svg) { requestAnimationFrame(check); return; }
  const nodes = [...svg.querySelectorAll('g.node')];
  const far = nodes.find((g) => !g.classList.contains('sv-near'));
  window.__firstFrame = {
    nodes: nodes.length, near: nodes.filter((g) => g.classList.contains('sv-near')).length,
    rootNear: svg.querySelector('[id="node-0"]').classList.contains('sv-near'),
    farTextShown: far ? [...far.querySelectorAll('text')].some((t) => getComputedStyle(t).display !== 'none') : null,
  };
})();
"""


def _text_height(page, node_id: str) -> float:
    """The on-screen height (px) of the first schema line of node ``node_id``."""
    text = page.locator(f'.sv-stage [id="node-{node_id}"] text.sv-detail').first
    return text.evaluate("t => t.getBoundingClientRect().height")


def test_zoom_and_pan_in_the_browser_and_read_a_node(app_url, q64_plan):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.add_init_script(FIRST_FRAME)
            sent: list[float] = []
            page.on("websocket", lambda ws: ws.on("framesent", lambda _payload: sent.append(time.monotonic())))
            page.goto(app_url)
            page.wait_for_selector("[data-testid='stFileUploader'] input[type='file']", timeout=60_000, state="attached")
            page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(q64_plan)
            page.wait_for_selector(f"{GRAPH} g.node[data-substrait-bound]", timeout=120_000)
            assert page.locator(f"{GRAPH} g.node").count() == 92
            # too big to fit readably: it opens at 100%, on the root, with a minimap
            expect(page.locator(".sv-zoom")).to_have_text("100%")
            assert _text_height(page, "0") >= 10
            assert page.locator(".sv-minimap").is_visible()
            # the first paint lays out the text of the nodes in and near the view only; the rest's follows
            # when the page is idle
            first = page.evaluate("window.__firstFrame")
            assert first["nodes"] == 92 and 0 < first["near"] < 92 and first["rootNear"], first
            assert first["farTextShown"] is False, first
            expect(page.locator(f"{GRAPH} g.node:not(.sv-near)")).to_have_count(0, timeout=10_000)
            time.sleep(1.0)  # let the page settle: no more messages from the upload's reruns

            before = len(sent)
            page.click(".sv-toolbar button[data-act='fit']")
            fitted = float(page.inner_text(".sv-zoom").rstrip("%"))
            assert fitted < 60
            # zoomed out, the boxes show their titles only (level of detail)
            assert page.locator(".sv-stage text.sv-detail").first.evaluate("t => getComputedStyle(t).display") == "none"
            page.screenshot(path=os.path.join(ARTIFACTS, "zoom-fitted.png"))
            box = page.locator(".sv-viewport").bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            for _ in range(4):
                page.mouse.wheel(0, -240)
            expect(page.locator(".sv-zoom")).not_to_have_text(f"{fitted:g}%")
            assert float(page.inner_text(".sv-zoom").rstrip("%")) > fitted
            stage = page.locator(".sv-stage").evaluate("s => s.style.transform")
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 - 120, box["y"] + box["height"] / 2 - 80, steps=6)
            page.mouse.up()
            assert page.locator(".sv-stage").evaluate("s => s.style.transform") != stage  # panned
            time.sleep(0.5)
            assert len(sent) == before, "zooming and panning must not ask the server anything"

            # click a join deep in the plan, then zoom to it: its schema text is readable
            join = page.locator(f"{GRAPH} g.node", has_text="Join").nth(5)
            node_id = join.get_attribute("id").removeprefix("node-")
            page.click(".sv-toolbar button[data-act='fit']")
            page.evaluate(FADE_WATCH)
            join.click()
            expect(page.get_by_role("heading", name=f"Join · {node_id}")).to_be_visible(timeout=60_000)
            # not faded while it reran, and never to be (the stale fade is turned off on it)
            assert page.evaluate("window.__graphAnimations") == 0, "the graph must not fade while the page reruns"
            assert page.evaluate(f"getComputedStyle(document.querySelector('{GRAPH_ELEMENT}')).transitionProperty") == "none"
            page.click(".sv-toolbar button[data-act='sel']")
            assert float(page.inner_text(".sv-zoom").rstrip("%")) >= 100
            assert _text_height(page, node_id) >= 10
            assert page.locator(f"{GRAPH} g.node.substrait-selected").get_attribute("id") == f"node-{node_id}"
            time.sleep(0.5)
            page.screenshot(path=os.path.join(ARTIFACTS, "zoom-node.png"))
        finally:
            browser.close()
