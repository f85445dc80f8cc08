"""Shared links in a real browser, on a fresh server whose first request is the link itself.

Streamlit's older multipage mechanism would run ``pages/present.py`` alone for such a first request
(no ``app.py``: no navigation, no wide layout); ``ui.state.entry.through_app`` sends it through ``app.py``.
The Present page's own share link then reopens the same plan at the same node.
"""

from __future__ import annotations

import os
import re

import pytest

from benchmarks.app import SHADOW_ROOTS
from tests.support import SHARED
from tests.support.browser import ARTIFACTS, browser_page, launch_chromium

pytestmark = pytest.mark.browser

FRESH_SERVER = True  # the first test's link is the server's first request


def test_a_shared_link_opened_first_on_a_fresh_server(app_url):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(app_url + "/present?sample=tutorial.json&node=0.0.1")
            expect(page.get_by_role("heading", name="Step 3: Filter")).to_be_visible(timeout=90_000)
            # app.py ran: its navigation (page titles, not file names) is there
            expect(page.get_by_role("link", name="Step through")).to_be_visible()
            expect(
                page.get_by_text("Keeps the rows of products where 'Computers' is not in categories.").first
            ).to_be_visible()
            expect(page.locator(":is(.sv-stage, .stGraphVizChart) svg g.node").first).to_be_visible(timeout=60_000)
            expect(page.get_by_role("button", name="Show sample rows")).to_be_visible()
            page.wait_for_timeout(1500)  # let the last widgets settle before the picture
            page.screenshot(path=os.path.join(ARTIFACTS, "present.png"))
            page.get_by_role("button", name="Share this view").click()  # the link sits in a popover
            link = page.locator("code").filter(has_text="node=0.0.1").first.inner_text().strip()
            assert link.startswith(app_url) and "present?sample=tutorial.json&node=0.0.1" in link

            other = browser.new_page(viewport={"width": 1500, "height": 1000})
            other.goto(link)
            expect(other.get_by_role("heading", name="Step 3: Filter")).to_be_visible(timeout=90_000)
            assert "node=0.0.1" in other.url
        finally:
            browser.close()


def test_present_reads_datafusions_q03_in_an_analysts_words(app_url):  # noqa: F811
    """DataFusion's TPC-H q03 on the Present page, read off the page as an analyst sees it: every
    condition of its filter said (the dates in words), the measure the root calls revenue, no node
    id and no function written as a call; the node ids come with the technical marks. Screenshots:
    ``present_q03.png`` and ``present_q03_marks.png`` in ``tests/artifacts/``."""
    import re

    from playwright.sync_api import expect

    os.makedirs(ARTIFACTS, exist_ok=True)
    with browser_page(viewport={"width": 1500, "height": 1100}) as page:
        page.goto(app_url + "/present?sample=tpch_q03_datafusion.json&node=0.0%2A4")
        expect(page.get_by_role("heading", name="Step 6: Filter")).to_be_visible(timeout=90_000)
        main = page.locator("[data-testid='stMain']")
        expect(main.get_by_text("Keeps the first 10 rows.")).to_be_visible(timeout=30_000)
        page.wait_for_timeout(1000)
        page.screenshot(path=os.path.join(ARTIFACTS, "present_q03.png"), full_page=True)
        text = main.inner_text()
        for words in (
            "that match on c_custkey = o_custkey and l_orderkey = o_orderkey",
            "c_mktsegment is 'BUILDING'",
            "o_orderdate is before 15 March 1995",
            "l_shipdate is after 15 March 1995",
            "Sums l_extendedprice × (1 − l_discount) as revenue per l_orderkey",
            "The filter at step 6 keeps the matching pairs.",
        ):
            assert words in text, words
        assert not re.search(r"\b(multiply|subtract|sum|and|gt|lt|equal)\(", text)
        assert "node " not in text and "0.0*" not in text and "more condition" not in text
        # the technical marks: the step a sentence points to has its node id
        page.get_by_text("Show the technical marks").click()
        expect(main.get_by_text("The filter at step 6 (node 0.0*4) keeps the matching pairs.").first).to_be_visible(
            timeout=30_000
        )
        page.wait_for_timeout(500)
        page.screenshot(path=os.path.join(ARTIFACTS, "present_q03_marks.png"), full_page=True)


def test_present_reads_datafusions_tpcds_q64_without_ids_or_calls(app_url):  # noqa: F811
    """DataFusion's TPC-DS q64 (analyzed) on the Present page, opened by a shared link: no node id and
    no function of the plan written as a call anywhere in its text, and every filter's sentence (which
    ``tests/model/test_describe.py`` checks names each of its conditions against the plan) is on the page."""
    import re

    from playwright.sync_api import expect

    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries
    from ui.state.share import save_shared
    from viz.describe import describe_plan, story_order
    from viz.model import analyze

    corpora = os.path.join(SHARED, "corpora", "tpcds-sql")
    [query] = [q for q in read_queries([corpora]) if q.name == "64"]
    data_dir = tpcds(0.01)
    tables = {os.path.splitext(f)[0]: os.path.join(data_dir, f) for f in os.listdir(data_dir) if f.endswith(".parquet")}
    data = sql_to_plan(query.sql, tables, form="analyzed").data
    model = analyze(data)
    sentences = describe_plan(model)
    filters = [sentences[n.id] for n in model.nodes() if n.kind == "filter"]
    last = sentences[story_order(model)[-1]]  # the root's: the story is on the page once it shows
    with browser_page(viewport={"width": 1500, "height": 1100}) as page:
        page.goto(f"{app_url}/present?plan={save_shared(data)}")
        main = page.locator("[data-testid='stMain']")
        # the page opens at the story's first step (the page draws its graph and step first): the
        # root's sentence shows once the story, whose last step it is, is on the page
        expect(main.get_by_text(last)).to_have_count(1, timeout=120_000)
        text = main.inner_text()
        page.screenshot(path=os.path.join(ARTIFACTS, "present_q64.png"))
    ids = [n for n in model.graph.nodes if "." in n or "*" in n]
    assert not [n for n in ids if re.search(rf"(?<![\w.*]){re.escape(n)}(?![\w.*])", text)]
    names = {f.name for f in model.extensions.functions.values()}
    assert not sorted({c for c in re.findall(r"\b([a-z_]+)\(", text) if c in names})
    assert "more condition" not in text and filters
    flat = " ".join(text.split())
    missing = [s for s in filters if " ".join(s.split()) not in flat]
    assert not missing, missing[:2]


# When the graph's nodes and the sidebar's file uploader first show, in ms since the page was opened
# (each checked every frame; the viewer lives in a shadow root, caught as it is attached), and every
# top the graph had in a frame from then until 2 s after the uploader showed.
FIRST_SHOWN = (
    SHADOW_ROOTS
    + """
window.__shown = {};
const roots = window.__shadowRoots;
(function check() {
  const now = performance.now();
  const drawn = roots.find((r) => r.querySelector('g.node[data-substrait-bound]'));
  if (!('graph' in __shown) && drawn) {
    __shown.graph = now;
    __shown.graphTop = document.querySelector('[data-sv-viewer]').getBoundingClientRect().top;
    __shown.tops = [];
  }
  if ('graph' in __shown) {
    const top = document.querySelector('[data-sv-viewer]').getBoundingClientRect().top;
    if (!__shown.tops.includes(top)) __shown.tops.push(top);
  }
  if (!('uploader' in __shown) && document.querySelector('[data-testid=stFileUploader]')) __shown.uploader = now;
  if (!('uploader' in __shown) || now < __shown.uploader + 2000) requestAnimationFrame(check);
  else __shown.settled = now;
})();
"""
)


def test_an_inspect_link_draws_its_graph_first_then_the_whole_page(app_url):  # noqa: F811
    """ui.page.open_plan: the graph shows before the sidebar's inputs, and the rest of the page follows
    with no click, keeping the graph the browser drew (the same SVG element, the link's node selected,
    in the same place)."""
    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1500, "height": 1000}) as page:
        page.add_init_script(FIRST_SHOWN)
        page.goto(app_url + "/?sample=tutorial.json&node=0.0.1")
        graph = page.locator(".sv-stage svg")
        expect(graph.locator("g.node[data-substrait-bound]").first).to_be_attached(timeout=60_000)
        graph.evaluate("svg => { svg.dataset.firstDrawn = '1'; }")
        expect(page.get_by_role("heading", name="Filter · 0.0.1")).to_be_visible(timeout=60_000)
        expect(page.locator("[data-testid=stSidebar] [data-testid=stFileUploader]")).to_be_visible()
        page.wait_for_function("'settled' in window.__shown", timeout=30_000)
        shown = page.evaluate("window.__shown")
        assert shown["graph"] < shown["uploader"], shown
        assert page.locator(".sv-stage svg[data-first-drawn]").count() == 1, "the graph was not drawn again"
        # the overlays' actions came with the rest, in the places kept for them: the graph did not move,
        # not even while their widgets' modules loaded
        assert shown["tops"] == [shown["graphTop"]], shown
        expect(page.locator(".sv-stage g.node.substrait-selected")).to_have_id("node-0.0.1")


#: Animation frames held until a page link is clicked, and run in the click: the viewer asks for the
#: rest of a graph-first page a frame after it has drawn the graph, so here it asks in the instant
#: after the click, before the new page's run has answered (as a person's quick click can make it on a
#: busy machine).
HELD_FRAMES = """
const frame = window.requestAnimationFrame.bind(window);
const held = [];
let holding = true;
window.requestAnimationFrame = (callback) => { if (holding) { held.push(callback); return 0; } return frame(callback); \
};
document.addEventListener('click', (e) => {
  if (!(e.target instanceof Element && e.target.closest('[data-testid="stSidebarNavLink"]'))) return;
  holding = false;
  held.splice(0).forEach((callback) => callback(performance.now()));
}, true);
"""


def test_a_page_link_clicked_before_the_rest_of_the_page_opens_that_page(app_url):  # noqa: F811
    """A link opened on Inspect draws its graph first; "Step through" clicked before the viewer asks for
    the rest opens the Step page and it stays. Until the new page's run starts, the browser sends a
    widget's rerun with the page being left, and the server would run Inspect again: the viewer does
    not ask once a page link was clicked."""
    import time

    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1500, "height": 1000}) as page:
        page.add_init_script(HELD_FRAMES)
        page.goto(app_url + "/?sample=tutorial.json")
        expect(page.locator(".sv-stage svg g.node[data-substrait-bound]").first).to_be_attached(timeout=60_000)
        assert page.locator("[data-testid=stFileUploader]").count() == 0, "the page was drawn whole at once"
        page.get_by_role("link", name="Step through").click()
        leaf = page.get_by_role("combobox", name="Start at a leaf")
        expect(leaf).to_be_visible(timeout=30_000)
        time.sleep(1)  # a rerun of the page left would replace it
        expect(leaf).to_be_visible()
        assert "/step" in page.url, page.url


def test_back_and_forward_go_through_the_nodes_a_person_picked(app_url):  # noqa: F811
    """Each node picked is an entry of the browser's history: Back shows the node before (the address
    names it), and a click after that picks as before."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(app_url + "/?sample=tutorial.json")
            nodes = page.locator(":is(.sv-stage, .stGraphVizChart) svg g.node")
            expect(nodes.first).to_be_visible(timeout=90_000)
            for node_id, heading in (("0.0", "Join · 0.0"), ("0.0.1", "Filter · 0.0.1"), ("0.0.0", "Read · 0.0.0")):
                page.locator(f'svg g.node[id="node-{node_id}"]').click()
                expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=30_000)
            for node_id, heading in (("0.0.1", "Filter · 0.0.1"), ("0.0", "Join · 0.0")):
                page.go_back()
                expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=30_000)
                expect(page).to_have_url(re.compile(rf"node={re.escape(node_id)}$"), timeout=10_000)
            page.go_forward()
            expect(page.get_by_role("heading", name="Filter · 0.0.1")).to_be_visible(timeout=30_000)
            page.locator('svg g.node[id="node-0"]').click()
            expect(page.get_by_role("heading", name="Aggregate · 0")).to_be_visible(timeout=30_000)
            expect(page).to_have_url(re.compile(r"node=0$"), timeout=10_000)
        finally:
            browser.close()
