"""The graph viewer in a real browser, on a 92-node plan DataFusion writes for TPC-DS query 64.

Laid out on the server by Graphviz's ``dot``: the page shows the SVG with pan and zoom. Zooming,
panning and fitting happen in the browser (no message goes to the server), a large graph opens at
a readable size, Fit never makes it smaller than readable, and zooming to a clicked node shows its
schema text at a readable size. On a 97-node synthetic plan, a search hit and a picked node are
brought into the frame. The screenshots are saved to ``tests/artifacts/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from urllib.parse import parse_qs, urlparse

import pytest

from benchmarks.app import SHADOW_ROOTS
from benchmarks.plans import wide_joins
from tests.support.browser import ARTIFACTS, browser_page, launch_chromium
from viz.model import analyze
from viz.render import MAX_SCHEMA_ROWS
from viz.report import hidden_matches, search

pytestmark = pytest.mark.browser
#: No test here runs a node: the server starts no JVM beside the pages (tests/browser/conftest.py).
SPARK_IN_BACKGROUND = False

GRAPH = ".sv-stage svg"
# The viewer's element in the page (Streamlit names it after the widget key of pages/inspect.py)
GRAPH_ELEMENT = "[data-testid=stElementContainer].st-key-graph_click"


# From now on, the most animations the viewer's element has had at once (checked every frame): Streamlit
# fades an element a rerun redraws, which re-records a large drawing twice per click (ui.graph.viewer).
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
FIRST_FRAME = (
    SHADOW_ROOTS
    + """
window.__firstFrame = null;
const roots = window.__shadowRoots;
(function check() {
  const svg = roots.map((r) => r.querySelector('.sv-stage svg')).find((s) => s && \
s.querySelector('g.node[data-substrait-bound]'));
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
)


# Every node's box on screen, by id, and the graph's frame (.sv-viewport), as [left, top, right, bottom].
BOXES = """(frame) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const nodes = {};
  frame.querySelectorAll('g.node').forEach((g) => { nodes[g.id.slice(5)] = box(g); });
  return { frame: box(frame), nodes };
}"""


def _inside(box: list[float], frame: list[float]) -> bool:
    return box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2] and box[3] <= frame[3]


@contextlib.contextmanager
def _uploaded_page(app_url: str, plan: str, width: int, height: int):
    """A page of ``width`` × ``height`` with the plan file ``plan`` uploaded, laid out by dot."""
    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": width, "height": height}) as page:
        page.goto(app_url)
        page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(plan)
        yield page


@contextlib.contextmanager
def _joins_page(app_url: str, tmp_path, nodes: int):
    """A 1400×900 page with a plan of about ``nodes`` joins (:func:`wide_joins`) uploaded, laid out by dot."""
    plan = tmp_path / f"wide_joins_{nodes}.json"
    plan.write_text(json.dumps(wide_joins(nodes)))
    with _uploaded_page(app_url, str(plan), 1400, 900) as page:
        yield page


def _url_node(url: str) -> str:
    """The node a page's address names (``node=``)."""
    return parse_qs(urlparse(url).query)["node"][0]


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
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.add_init_script(FIRST_FRAME)
            sent: list[float] = []
            page.on("websocket", lambda ws: ws.on("framesent", lambda _payload: sent.append(time.monotonic())))
            page.goto(app_url)
            page.wait_for_selector(
                "[data-testid='stFileUploader'] input[type='file']", timeout=60_000, state="attached"
            )
            page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(q64_plan)
            page.wait_for_selector(f"{GRAPH} g.node[data-substrait-bound]", timeout=120_000)
            assert page.locator(f"{GRAPH} g.node").count() == 92
            # too big to fit readably: it opens at 100%, on the root, with a minimap
            expect(page.locator(".sv-zoom")).to_have_text("100%")
            assert _text_height(page, "0") >= 10
            assert page.locator(".sv-minimap").is_visible()
            # the Map button hides the minimap (where it covers a node's text) and shows it again
            page.click(".sv-toolbar button[data-act='map']")
            expect(page.locator(".sv-minimap")).to_be_hidden()
            expect(page.locator(".sv-zoom")).to_have_text("100%")  # the view stays
            page.click(".sv-toolbar button[data-act='map']")
            expect(page.locator(".sv-minimap")).to_be_visible()
            # the first paint lays out the text of the nodes in and near the view only; the rest's follows
            # when the page is idle
            first = page.evaluate("window.__firstFrame")
            assert first["nodes"] == 92 and 0 < first["near"] < 92 and first["rootNear"], first
            assert first["farTextShown"] is False, first
            expect(page.locator(f"{GRAPH} g.node:not(.sv-near)")).to_have_count(0, timeout=10_000)
            time.sleep(1.0)  # let the page settle: no more messages from the upload's reruns

            before = len(sent)
            # Fit stays readable: the graph's top, with the minimap for the whole
            page.click(".sv-toolbar button[data-act='fit']")
            assert float(page.inner_text(".sv-zoom").rstrip("%")) == 70
            page.screenshot(path=os.path.join(ARTIFACTS, "zoom-fitted.png"))
            for _ in range(3):
                page.click(".sv-toolbar button[data-act='out']")
            fitted = float(page.inner_text(".sv-zoom").rstrip("%"))
            assert fitted < 40
            # zoomed out, the boxes show their titles only (level of detail)
            assert page.locator(".sv-stage text.sv-detail").first.evaluate("t => getComputedStyle(t).display") == "none"
            box = page.locator(".sv-viewport").bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            # a wheel passing over the graph scrolls the page, and the hint says how to zoom
            page.mouse.wheel(0, -240)
            time.sleep(0.3)
            assert float(page.inner_text(".sv-zoom").rstrip("%")) == fitted
            assert page.locator(".sv-hint.sv-hint-shown").count() == 1
            page.keyboard.down("Control")  # Ctrl+wheel zooms (a trackpad's pinch sends the same)
            page.mouse.wheel(0, -240)
            page.keyboard.up("Control")
            expect(page.locator(".sv-zoom")).not_to_have_text(f"{fitted:g}%")
            ctrl_zoomed = float(page.inner_text(".sv-zoom").rstrip("%"))
            # once the person works in the frame (here a drag, which selects nothing), the wheel zooms
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 + 12, box["y"] + box["height"] / 2, steps=3)
            page.mouse.up()
            for _ in range(3):
                page.mouse.wheel(0, -240)
            expect(page.locator(".sv-zoom")).not_to_have_text(f"{ctrl_zoomed:g}%")
            assert float(page.inner_text(".sv-zoom").rstrip("%")) > fitted
            stage = page.locator(".sv-stage").evaluate("s => s.style.transform")
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 - 120, box["y"] + box["height"] / 2 - 80, steps=6)
            page.mouse.up()
            assert page.locator(".sv-stage").evaluate("s => s.style.transform") != stage  # panned
            time.sleep(0.5)
            assert len(sent) == before, "zooming and panning must not ask the server anything"

            # click the deepest join Fit shows, then zoom to it: its schema text is readable
            page.click(".sv-toolbar button[data-act='fit']")
            shown = page.locator(".sv-viewport").evaluate(BOXES)
            joins = [
                g.get_attribute("id").removeprefix("node-")
                for g in page.locator(f"{GRAPH} g.node", has_text="Join").all()
            ]
            in_frame = [j for j in joins if _inside(shown["nodes"][j], shown["frame"])]
            node_id = max(in_frame, key=lambda j: shown["nodes"][j][3])
            join = page.locator(f'{GRAPH} [id="node-{node_id}"]')
            page.evaluate(FADE_WATCH)
            join.click()
            expect(page.get_by_role("heading", name=f"Join · {node_id}")).to_be_visible(timeout=60_000)
            # not faded while it reran, and never to be (the stale fade is turned off on it)
            assert page.evaluate("window.__graphAnimations") == 0, "the graph must not fade while the page reruns"
            assert (
                page.evaluate(f"getComputedStyle(document.querySelector('{GRAPH_ELEMENT}')).transitionProperty")
                == "none"
            )
            page.click(".sv-toolbar button[data-act='sel']")
            assert float(page.inner_text(".sv-zoom").rstrip("%")) >= 100
            assert _text_height(page, node_id) >= 10
            assert page.locator(f"{GRAPH} g.node.substrait-selected").get_attribute("id") == f"node-{node_id}"
            time.sleep(0.5)
            page.screenshot(path=os.path.join(ARTIFACTS, "zoom-node.png"))

            # a hit whose matching field is among its box's "… more fields" says which field matched
            with open(q64_plan, "rb") as fh:
                model = analyze(fh.read())
            hits = search(model, "income_band")
            notes = hidden_matches(model, "income_band", hits, MAX_SCHEMA_ROWS)
            assert notes and len(notes) < len(hits)  # some hits draw it, some do not
            page.get_by_role("textbox", name="Search nodes").fill("income_band")
            page.get_by_role("textbox", name="Search nodes").press("Enter")
            expect(page.locator(".sv-hit-count")).to_have_text(f"1 of {len(hits)}", timeout=30_000)
            seen = set()
            for i in range(len(hits)):
                expect(page.locator(".sv-hit-count")).to_have_text(f"{i + 1} of {len(hits)}")
                shown = page.locator(f"{GRAPH} g.node.substrait-hit-shown").get_attribute("id").removeprefix("node-")
                note = page.locator(".sv-hit-note")
                if shown in notes:
                    expect(note).to_have_text(f"{shown}: {notes[shown]}")
                    assert "ib_income_band_sk" in notes[shown] or "income_band" in notes[shown]
                else:
                    expect(note).to_be_hidden()
                seen.add(shown)
                page.click(".sv-toolbar button[data-act='next']")
            assert seen == set(hits)

            # a search that matches nothing says so beside the graph, with nothing to step through
            page.get_by_role("textbox", name="Search nodes").fill("zzz no such node")
            page.get_by_role("textbox", name="Search nodes").press("Enter")
            expect(page.locator(".sv-hit-count")).to_have_text("no node matches", timeout=30_000)
            expect(page.locator(".sv-toolbar button[data-act='next']")).to_be_hidden()
            expect(page.locator(".sv-toolbar button[data-act='prev']")).to_be_hidden()
            page.get_by_role("textbox", name="Search nodes").fill("")
            page.get_by_role("textbox", name="Search nodes").press("Enter")
            expect(page.locator(".sv-hits")).to_be_hidden(timeout=30_000)
        finally:
            browser.close()


#: The least room, in px, between the minimap's boxes and each inner edge of its border.
MAP_GAPS = """m => {
  const inner = m.getBoundingClientRect(), l = inner.left + m.clientLeft, t = inner.top + m.clientTop;
  const r = l + m.clientWidth, b = t + m.clientHeight;
  const gaps = {left: 1e9, top: 1e9, right: 1e9, bottom: 1e9};
  m.querySelectorAll('svg rect').forEach((e) => {
    const x = e.getBoundingClientRect();
    gaps.left = Math.min(gaps.left, x.left - l); gaps.top = Math.min(gaps.top, x.top - t);
    gaps.right = Math.min(gaps.right, r - x.right); gaps.bottom = Math.min(gaps.bottom, b - x.bottom);
  });
  return gaps;
}"""


def test_search_hits_and_a_picked_node_are_brought_into_view_and_fit_stays_readable(app_url, tmp_path):  # noqa: F811
    """A 97-node plan (benchmarks.plans.wide_joins) in a 1400×900 window: the frame and its minimap
    within the window; Fit no smaller than readable (70%, titles 10 px); a search's first hit, the next
    (button) and the previous (Shift+Enter in the search box) each brought from outside the frame into
    it; a node picked in the inspector's picker brought into it too."""
    from playwright.sync_api import expect

    with _joins_page(app_url, tmp_path, 100) as page:
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]")).to_have_count(97, timeout=120_000)
        frame = page.locator(".sv-viewport")
        boxes = lambda: frame.evaluate(BOXES)  # noqa: E731
        assert frame.bounding_box()["y"] + frame.bounding_box()["height"] <= 900
        minimap = page.locator(".sv-minimap").bounding_box()
        assert minimap is not None and minimap["y"] + minimap["height"] <= 900
        # every box of the map inside its border, with room around the outermost ones
        gaps = page.locator(".sv-minimap").evaluate(MAP_GAPS)
        assert min(gaps.values()) >= 2, gaps

        page.click(".sv-toolbar button[data-act='fit']")
        assert float(page.inner_text(".sv-zoom").rstrip("%")) >= 70
        title = page.locator(f'{GRAPH} [id="node-0"] text').first
        assert title.evaluate("t => t.getBoundingClientRect().height") >= 10
        page.screenshot(path=os.path.join(ARTIFACTS, "zoom-wide-fit.png"))

        def step(act, expected: str) -> str:
            """Do ``act``; the hit shown then was outside the frame before and is inside it now."""
            before = boxes()
            act()
            expect(page.locator(".sv-hit-count")).to_have_text(expected, timeout=30_000)
            shown = page.locator(f"{GRAPH} g.node.substrait-hit-shown").get_attribute("id").removeprefix("node-")
            after = boxes()
            assert not _inside(before["nodes"][shown], before["frame"]), (shown, before["nodes"][shown])
            assert _inside(after["nodes"][shown], after["frame"]), (shown, after["nodes"][shown])
            return shown

        search = page.get_by_role("textbox", name="Search nodes")
        search.fill("t2")  # t2 and t20..t29: reads in the bottom row
        first = step(lambda: search.press("Enter"), "1 of 11")
        second = step(lambda: page.click(".sv-toolbar button[data-act='next']"), "2 of 11")
        assert second != first
        assert step(lambda: search.press("Shift+Enter"), "1 of 11") == first

        picked = page.locator(f"{GRAPH} g.node", has_text="t31").get_attribute("id").removeprefix("node-")
        assert not _inside(boxes()["nodes"][picked], boxes()["frame"])
        page.get_by_role("combobox", name="Select a node (type to search)").click()
        page.keyboard.type("t31")
        page.keyboard.press("Enter")
        expect(page.locator(f"{GRAPH} g.node.substrait-selected")).to_have_id(f"node-{picked}", timeout=30_000)
        after = boxes()
        assert _inside(after["nodes"][picked], after["frame"]), after["nodes"][picked]
        page.screenshot(path=os.path.join(ARTIFACTS, "zoom-wide-picked.png"))

        # a click on a node's box in the minimap brings that node to the frame's middle
        far = next(n for n, b in boxes()["nodes"].items() if not _inside(b, boxes()["frame"]))
        page.locator(f'.sv-minimap rect[data-node="node-{far}"]').click(force=True)
        after = boxes()
        (x0, y0, x1, y1), (f0, g0, f1, g1) = after["nodes"][far], after["frame"]
        assert abs((x0 + x1) / 2 - (f0 + f1) / 2) < 8 and abs((y0 + y1) / 2 - (g0 + g1) / 2) < 8, (far, after)


def test_a_new_drawing_of_the_same_plan_keeps_the_view_the_person_chose(app_url):  # noqa: F811
    """Zoomed in and panned on isthmus's TPC-H q03, then orderedness traced (View settings): the graph
    is drawn again (the sort's colour, edge labels) at the same zoom, with the node that was at the
    frame's centre where it was. Profile and the engines' marks draw it again the same way."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1400, "height": 900}) as page:
        page.goto(app_url + "/?sample=tpch_q03_isthmus.json")
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        frame = page.locator(".sv-viewport")
        for _ in range(2):
            page.click(".sv-toolbar button[data-act='in']")
        box = frame.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 - 180, box["y"] + box["height"] / 2 - 120, steps=5)
        page.mouse.up()
        zoom = page.inner_text(".sv-zoom")
        before = frame.evaluate(BOXES)
        cx, cy = (before["frame"][0] + before["frame"][2]) / 2, (before["frame"][1] + before["frame"][3]) / 2

        def centre(b: list[float]) -> tuple[float, float]:
            return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2

        anchor = min(
            before["nodes"],
            key=lambda n: (centre(before["nodes"][n])[0] - cx) ** 2 + (centre(before["nodes"][n])[1] - cy) ** 2,
        )
        key = page.locator(".sv-root").get_attribute("data-svg-key")

        page.get_by_role("button", name="View settings").click()
        page.get_by_text("orderedness", exact=True).click()
        expect(page.locator(".sv-root")).not_to_have_attribute("data-svg-key", key, timeout=60_000)
        expect(page.locator(".sv-zoom")).to_have_text(zoom)
        after = frame.evaluate(BOXES)
        (bx, by), (ax, ay) = centre(before["nodes"][anchor]), centre(after["nodes"][anchor])
        assert abs(ax - bx) <= 2 and abs(ay - by) <= 2, (anchor, (bx, by), (ax, ay))
        page.screenshot(path=os.path.join(ARTIFACTS, "zoom-wide-kept.png"))


def test_a_step_through_a_large_plan_opens_on_the_current_node_with_the_nodes_around_it(app_url, q64_plan):  # noqa: F811
    """DataFusion's TPC-DS q64 (92 nodes): Step through draws the current node's neighbourhood, too tall
    for the frame at a readable zoom; it opens at that zoom (70%) with the current node in the frame's
    middle, so the nodes above and below it show (it opened at 100% from the top, and the current node's
    inputs were under the frame)."""
    from playwright.sync_api import expect

    with _uploaded_page(app_url, q64_plan, 1500, 950) as page:
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        page.get_by_role("link", name="Step through").click()
        page.get_by_role("combobox", name="Start at a leaf").click()
        page.get_by_role("option").first.click()
        expect(page.get_by_role("heading", name="Read · ")).to_be_visible(timeout=60_000)
        page.get_by_role("heading", name="Read · ").click()  # focus the page, not a widget
        selected = page.locator(f"{GRAPH} g.node.substrait-selected")
        for _ in range(4):  # up to a cross product of three joins' columns, with two inputs below it
            before = selected.get_attribute("id")
            page.keyboard.press("k")
            expect(selected).not_to_have_id(before, timeout=60_000)
        page.wait_for_timeout(1500)  # the page settles: no step still on its way
        node = selected.get_attribute("id").removeprefix("node-")
        after = page.locator(".sv-viewport").evaluate(BOXES)
        (_, y0, _, y1), (_, g0, _, g1) = after["nodes"][node], after["frame"]
        assert page.inner_text(".sv-zoom") == "70%"
        assert _inside(after["nodes"][node], after["frame"])
        assert abs((y0 + y1) / 2 - (g0 + g1) / 2) < 0.15 * (g1 - g0), (node, after)
        tops = [b[1] for n, b in after["nodes"].items() if b[1] > y1]  # the boxes under it: its inputs
        assert tops and min(tops) < g1 - 40, (node, after)  # the first of them in the frame, title and all
        page.screenshot(path=os.path.join(ARTIFACTS, "step-large-centred.png"))


def test_stepping_brings_the_current_node_into_the_frame(app_url, tmp_path):  # noqa: F811
    """Step through a 23-node plan of joins (benchmarks.plans.wide_joins, the whole plan drawn) in a
    1400×900 window: the root it opens at, a leaf picked in the sidebar, its parent (K) and a far leaf
    are each inside the graph's frame once shown, painted as selected; the graph, which only shows, says nothing of
    clicking a node, and its Selected button is there; its minimap leaves most of the frame to the graph."""
    from playwright.sync_api import expect

    with _joins_page(app_url, tmp_path, 24) as page:
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        page.get_by_role("link", name="Step through").click()
        frame = page.locator(".sv-viewport")

        def shown(node_id: str) -> None:
            expect(page.locator(f"{GRAPH} g.node.substrait-selected")).to_have_id(f"node-{node_id}", timeout=30_000)
            page.wait_for_timeout(300)  # the move to it is immediate; let the frame settle
            after = frame.evaluate(BOXES)
            assert _inside(after["nodes"][node_id], after["frame"]), (node_id, after["nodes"][node_id], after["frame"])

        expect(page.get_by_role("heading", name="Filter · 0", exact=True)).to_be_visible(timeout=60_000)  # Inspect's
        shown("0")

        def pick(read: str) -> str:
            page.get_by_role("combobox", name="Start at a leaf").click()
            page.get_by_role("option").filter(has_text=read).click()
            expect(page.get_by_role("heading", name="Read · ")).to_be_visible(timeout=60_000)
            return _url_node(page.url)

        leaf = pick("t0")
        shown(leaf)
        assert "click" not in page.inner_text(".sv-hint")
        expect(page.locator(".sv-toolbar button[data-act='sel']")).to_be_visible()

        page.get_by_role("heading", name="Read · ").click()  # focus the page, not a widget
        page.keyboard.press("k")
        expect(page.get_by_role("heading", name="Join · ")).to_be_visible(timeout=60_000)
        shown(_url_node(page.url))

        far = pick("t7")
        assert far != leaf
        shown(far)
        # a plan of 23 nodes opens without its minimap, which would cover nodes; the Map button shows it
        expect(page.locator(".sv-minimap")).to_be_hidden()
        page.click(".sv-toolbar button[data-act='map']")
        expect(page.locator(".sv-minimap")).to_be_visible()
        # the frame takes half the page's width, and its minimap at most a third of the frame's
        box, mini = frame.bounding_box(), page.locator(".sv-minimap").bounding_box()
        assert box["width"] >= 420 and mini is not None and mini["width"] <= box["width"] / 3 + 4, (
            box,
            mini,
        )  # + its border
        page.screenshot(path=os.path.join(ARTIFACTS, "step-wide-followed.png"))


def test_the_minimap_leaves_the_corner_of_the_selected_node(app_url):  # noqa: F811
    """The tutorial's filter, selected and fitted at 1280 x 800: a plan this small opens without its
    minimap, and Fit, which stops at the readable zoom short of the whole plan here, opens it as the
    overview. The filter, panned into the frame's bottom-right corner, sends the minimap to the
    bottom-left one, where it covers no part of it. Hidden by the Map button, it stays hidden through the
    next Fit."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1280, "height": 800}) as page:
        page.goto(app_url + "/?sample=tutorial.json&node=0.0.1")
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        expect(page.locator(".sv-minimap")).to_be_hidden()  # a small plan opens without it
        page.click(".sv-toolbar button[data-act='fit']")
        assert float(page.inner_text(".sv-zoom").rstrip("%")) == 70
        frame = page.locator(".sv-viewport")
        frame.focus()
        for _ in range(20):  # Shift and an arrow pans by 80 px: the filter into the bottom-right corner
            shown = frame.evaluate(BOXES)
            node, box = shown["nodes"]["0.0.1"], shown["frame"]
            if node[2] + 80 < box[2] - 4:
                page.keyboard.press("Shift+ArrowLeft")
            elif node[3] + 80 < box[3] - 4:
                page.keyboard.press("Shift+ArrowUp")
            else:
                break
        expect(page.locator(".sv-minimap")).to_have_class("sv-minimap sv-mini-left")
        mini = page.locator(".sv-minimap").bounding_box()
        node = page.locator(f'{GRAPH} [id="node-0.0.1"]').bounding_box()
        assert mini["x"] + mini["width"] < node["x"] or mini["y"] > node["y"] + node["height"], (mini, node)
        page.screenshot(path=os.path.join(ARTIFACTS, "minimap-left.png"))
        page.click(".sv-toolbar button[data-act='map']")
        expect(page.locator(".sv-minimap")).to_be_hidden()
        page.click(".sv-toolbar button[data-act='fit']")
        expect(page.locator(".sv-minimap")).to_be_hidden()


def test_a_node_wider_than_the_frame_is_shown_whole_by_selected(app_url):
    """The Step page's narrow frame (1280 px window) and DuckDB's q03 sort, whose key is a long
    expression: at 100% its box was wider than the frame and cut at both sides. **Selected** zooms it out
    as far as it fits, not below readable (70%)."""
    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/step?sample=tpch_q03_duckdb.json&node=0.0")
        expect(page.locator(f'{GRAPH} [id="node-0.0"].substrait-selected')).to_have_count(1, timeout=120_000)
        frame = page.locator(".sv-viewport")
        page.click(".sv-toolbar button[data-act='one']")
        shown = frame.evaluate(BOXES)
        assert not _inside(shown["nodes"]["0.0"], shown["frame"])  # at 100%: cut
        page.click(".sv-toolbar button[data-act='sel']")
        page.wait_for_timeout(500)
        shown = frame.evaluate(BOXES)
        assert _inside(shown["nodes"]["0.0"], shown["frame"]), shown["nodes"]["0.0"]
        assert 70 <= float(page.inner_text(".sv-zoom").rstrip("%")) < 100


def test_the_keys_move_the_selection_along_the_plan_and_pan_and_zoom(app_url):  # noqa: F811
    """The tutorial (0 aggregate ← 0.0 join ← 0.0.0 read and 0.0.1 filter ← 0.0.1.0 read), its graph
    reached with Tab: Down selects the first input, Right the next input of the same node, Left back,
    Up the node that reads it, and each is sent to the page (the address follows); Shift and an arrow
    pans without selecting, + zooms in, 0 is 100%, F fits. Before, no key did anything in the graph."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/?sample=tutorial.json&node=0")
        selected = page.locator(f"{GRAPH} g.node.substrait-selected")
        expect(selected).to_have_id("node-0", timeout=120_000)
        frame = page.locator(".sv-viewport")
        frame.focus()  # as Tab brings it: a focusable frame
        assert frame.evaluate("f => document.activeElement === f || f.getRootNode().activeElement === f")
        for key, node in (
            ("ArrowDown", "0.0"),
            ("ArrowDown", "0.0.0"),
            ("ArrowRight", "0.0.1"),
            ("ArrowLeft", "0.0.0"),
            ("ArrowRight", "0.0.1"),
            ("ArrowUp", "0.0"),
        ):
            page.keyboard.press(key)
            expect(selected).to_have_id(f"node-{node}", timeout=30_000)
            expect(page).to_have_url(re.compile(r"[?&]node=" + re.escape(node) + r"(&|$)"), timeout=30_000)
        stage = page.locator(".sv-stage")
        before = stage.evaluate("s => s.style.transform")
        page.keyboard.press("Shift+ArrowLeft")
        assert stage.evaluate("s => s.style.transform") != before
        expect(selected).to_have_id("node-0.0")  # panning selects nothing
        page.keyboard.press("0")
        assert page.inner_text(".sv-zoom") == "100%"
        page.keyboard.press("+")
        assert page.inner_text(".sv-zoom") == "125%"
        page.keyboard.press("f")
        assert float(page.inner_text(".sv-zoom").rstrip("%")) <= 100
        page.screenshot(path=os.path.join(ARTIFACTS, "keys.png"))


def test_a_node_clicked_in_a_compare_graph_picks_its_matched_pair(app_url):  # noqa: F811
    """Compare, side by side (isthmus's and DataFusion's TPC-H q03): the graphs could not be clicked, and a
    pair was picked only from its list. A click on a matched node of the right plan other than the pair
    shown picks its pair: the list names it, and both graphs mark it as selected."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1400, "height": 1000}) as page:
        page.goto(app_url + "/compare?a=tpch_q03_isthmus.json&b=tpch_q03_datafusion.json")
        right = page.locator(".st-key-compare_graph_b .sv-stage")
        expect(right.locator("g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        picker = page.locator(".st-key-compare_selected input")
        shown = picker.input_value().split(" ")[0]  # "#1 · 0 Fetch ↔ 0 Fetch (changed)"
        # each node's label begins with its pair's "#N" (a node with no match has none)
        heads = right.locator("g.node").evaluate_all(
            "gs => gs.map((g) => [g.id.slice(5), (g.querySelector('text') || {}).textContent || ''])"
        )
        node, number = next((n, t.split(" ")[0]) for n, t in heads if t.startswith("#") and t.split(" ")[0] != shown)
        right.locator(f'[id="node-{node}"]').click()
        expect(picker).to_have_value(re.compile("^" + re.escape(number) + " "), timeout=30_000)
        expect(right.locator(f'[id="node-{node}"].substrait-selected')).to_have_count(1, timeout=30_000)
        left = page.locator(".st-key-compare_graph_a .sv-stage")
        expect(left.locator("g.node.substrait-selected")).to_have_count(1)
        page.screenshot(path=os.path.join(ARTIFACTS, "compare-picked.png"))
        # a node only the left plan has: said, and selected on its side, so the arrow keys go on from it
        heads = left.locator("g.node").evaluate_all(
            "gs => gs.map((g) => [g.id.slice(5), (g.querySelector('text') || {}).textContent || ''])"
        )
        alone = next(n for n, t in heads if "removed" in t)
        left.locator(f'[id="node-{alone}"]').click()
        expect(page.get_by_text(f"Node {alone} of the left plan matches no node of the right plan.")).to_be_visible(
            timeout=30_000
        )
        expect(left.locator(f'[id="node-{alone}"].substrait-selected')).to_have_count(1, timeout=30_000)
        page.keyboard.press("ArrowDown")
        expect(left.locator(f'[id="node-{alone}"].substrait-selected')).to_have_count(0, timeout=30_000)


def test_fit_holds_for_the_plans_next_drawing(app_url):  # noqa: F811
    """isthmus's TPC-H q03 at 1280 x 800, Fit pressed (70%, the readable zoom short of the whole plan),
    then the graph drawn again (orderedness traced; a profile's counts do the same): it opened at 100%
    with the reads below the frame, and is fitted again now."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1280, "height": 800}) as page:
        page.goto(app_url + "/?sample=tpch_q03_isthmus.json")
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        page.click(".sv-toolbar button[data-act='one']")
        page.click(".sv-toolbar button[data-act='fit']")
        fitted = page.inner_text(".sv-zoom")
        assert fitted != "100%", fitted
        key = page.locator(".sv-root").get_attribute("data-svg-key")
        page.get_by_role("button", name="View settings").click()
        page.get_by_text("orderedness", exact=True).click()
        expect(page.locator(".sv-root")).not_to_have_attribute("data-svg-key", key, timeout=60_000)
        expect(page.locator(".sv-zoom")).to_have_text(fitted)


def test_fit_on_a_plan_too_large_to_read_whole_keeps_the_selected_node_in_the_frame(app_url, q64_plan):  # noqa: F811
    """DataFusion's q64 (92 nodes) with a join ten levels down selected: Fit stops at the readable zoom,
    and now shows the selected node there (it jumped to the roots, the node out of the frame). On Step
    through, whose graph does not select, the frame says the arrow keys pan."""
    from playwright.sync_api import expect

    with _uploaded_page(app_url, q64_plan, 1280, 900) as page:
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        frame = page.locator(".sv-viewport")
        frame.focus()
        for _ in range(10):
            before = page.url
            page.keyboard.press("ArrowDown")
            expect(page).not_to_have_url(before, timeout=30_000)
        node = _url_node(page.url)
        page.keyboard.press("f")
        assert page.inner_text(".sv-zoom") == "70%"
        shown = frame.evaluate(BOXES)
        assert _inside(shown["nodes"][node], shown["frame"]), (node, shown["nodes"][node], shown["frame"])
        assert "Arrow keys: the node above" in frame.get_attribute("aria-label")
        page.goto(app_url + "/step?sample=tutorial.json&node=0.0")
        expect(page.locator(f"{GRAPH} g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        expect(page.locator(".sv-viewport")).to_have_attribute("aria-label", re.compile("Arrow keys: pan"))


def test_compare_opens_both_graphs_at_one_zoom_that_shows_the_wider_whole(app_url):  # noqa: F811
    """Compare at 1600 px (isthmus's and DataFusion's TPC-H q03 side by side): both opened at 100%, and
    the wider plan's outer boxes were cut at its frame's edges. Both now open at the zoom that fits the
    wider drawing's width (one scale for both, not below readable), so every box of each shows across its
    frame."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1600, "height": 900}) as page:
        page.goto(app_url + "/compare?a=tpch_q03_isthmus.json&b=tpch_q03_datafusion.json")
        zooms = []
        for side in "ab":
            frame = page.locator(f".st-key-compare_graph_{side} .sv-viewport")
            expect(frame.locator("g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
            zooms.append(page.locator(f".st-key-compare_graph_{side} .sv-zoom").inner_text())
            edges = frame.evaluate(
                "f => { const r = f.getBoundingClientRect(); return [r.left, r.right, [...f.querySelectorAll("
                "'g.node')].map((g) => { const b = g.getBoundingClientRect(); return [b.left, b.right]; })]; }"
            )
            left, right, boxes = edges
            assert all(left <= a and b <= right for a, b in boxes), (side, zooms, edges)
        page.screenshot(path=os.path.join(ARTIFACTS, "compare-opened.png"))
        assert zooms[0] == zooms[1] and 70 <= int(zooms[0].rstrip("%")) < 100, zooms


@contextlib.contextmanager
def _presented(app_url: str, sample: str, viewport: dict):
    """A page of Present on ``sample`` in a window of ``viewport``, and its graph's frame, once the frame
    shows the selected step."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport=viewport) as page:
        page.goto(app_url + f"/present?sample={sample}")
        frame = page.locator(".sv-viewport")
        expect(frame.locator("g.node.substrait-selected")).to_have_count(1, timeout=120_000)
        yield page, frame


def test_a_followed_plan_too_wide_to_fit_opens_in_a_frame_its_drawing_fills(app_url):  # noqa: F811
    """Present at 1280 px on errors.json (9 nodes, too wide to fit readably): it opened at 70% in a frame
    sized for 100%, the selected read pinned to the frame's middle, and the frame's lower half empty."""
    with _presented(app_url, "errors.json", {"width": 1280, "height": 900}) as (page, frame):
        page.wait_for_timeout(500)
        assert page.inner_text(".sv-zoom") == "70%"
        drawn = frame.evaluate(
            "f => { const r = f.getBoundingClientRect(), s = f.querySelector('.sv-stage').getBoundingClientRect();"
            " return [r.top, r.bottom, s.top, s.bottom]; }"
        )
        top, bottom, stage_top, stage_bottom = drawn
        # the drawing spans the frame's height (within its margins), none of the frame left empty below it
        assert stage_top >= top - 2 and stage_bottom <= bottom + 2 and bottom - stage_bottom < 40, drawn
        page.screenshot(path=os.path.join(ARTIFACTS, "present-followed.png"))


def test_a_taller_window_has_a_taller_frame(app_url):  # noqa: F811
    """Present's frame is at most 600 px high in a window 1,000 px high. Zoomed out to 70 % (a window of
    1,429 px as the page sees it), isthmus's TPC-H q02 (20 nodes) still had 600: the drawing in a strip of
    the window, its text about 5 px on screen. The frame's limit grows with the window: 857 px here."""
    with _presented(app_url, "tpch_q02_isthmus.json", {"width": 2143, "height": 1429}) as (_, frame):
        height = frame.evaluate("f => f.getBoundingClientRect().height")
        assert abs(height - 600 * 1429 / 1000) <= 2, height


def test_a_plan_made_on_the_sql_page_shows_whole_below_the_form(app_url):  # noqa: F811
    """The SQL page's frame starts below the window's fold (under the query and its buttons): at half the
    window's height, a plan of a few nodes opened at 100% with two of them in sight. It is now as tall as
    the drawing needs at the readable zoom (within the page's 720 px), and the whole plan shows."""
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/sql")
        page.wait_for_selector("textarea", timeout=90_000)
        page.locator("textarea").first.fill(
            "SELECT product_id, sum(quantity) AS units FROM orders WHERE quantity > 1 GROUP BY product_id "
            "ORDER BY units DESC"
        )
        page.get_by_role("button", name="Make plan").click()
        frame = page.locator(".sv-viewport")
        expect(frame.locator("g.node[data-substrait-bound]").first).to_be_attached(timeout=120_000)
        page.wait_for_timeout(500)
        shown = frame.evaluate(
            "f => { const r = f.getBoundingClientRect(); return [r.top, r.bottom, [...f.querySelectorAll("
            "'g.node')].map((g) => { const b = g.getBoundingClientRect(); return [b.top, b.bottom]; })]; }"
        )
        top, bottom, boxes = shown
        assert len(boxes) >= 4 and all(top <= a and b <= bottom for a, b in boxes), (page.inner_text(".sv-zoom"), shown)
        frame.scroll_into_view_if_needed()
        page.screenshot(path=os.path.join(ARTIFACTS, "sql-plan-whole.png"))
