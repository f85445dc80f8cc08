"""The whole app once in a real browser: Playwright driving Debian's headless Chromium.

Starts ``streamlit run app.py`` on a free port, uploads the tutorial plan, clicks a node in the
graph and checks that the inspector shows that node's schema. Screenshots of the page (light and
dark theme) are saved to ``tests/artifacts/`` (or ``$E2E_ARTIFACTS``).

Chromium is installed by ``make test`` where it can be (``apt-get install chromium``); where it
cannot, the test is skipped with a message saying so.
"""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from tests.support import ROOT
from tests.support.browser import ARTIFACTS, CHROMIUM, browser_page, launch_chromium, requested_elsewhere

pytestmark = pytest.mark.browser


# Elements Streamlit marks stale (``data-stale="true"``) while a rerun redraws them, in the main area
# and in the sidebar, from now on.
STALE_WATCH = """() => {
  const stale = window.__stale = {main: 0, sidebar: 0};
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.target.getAttribute('data-stale') !== 'true') continue;
      stale[c.target.closest('[data-testid=stSidebar]') ? 'sidebar' : 'main'] += 1;
    }
  }).observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-stale']});
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_upload_click_a_node_and_see_its_schema(app_url, scheme):
    from playwright.sync_api import expect, sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000}, color_scheme=scheme)
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            page.goto(app_url)
            page.wait_for_selector("[data-testid='stFileUploader']", timeout=60_000)
            page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
                os.path.join(ROOT, "sample_plans", "tutorial.json")
            )
            # Wait for the click listener to have bound the drawn nodes, then click the Filter node
            # (the root is selected first).
            page.wait_for_selector(":is(.sv-stage, .stGraphVizChart) svg g.node[data-substrait-bound]", timeout=60_000)
            page.wait_for_selector(":is(.sv-stage, .stGraphVizChart) g.node.substrait-selected#node-0", timeout=30_000)
            page.locator(":is(.sv-stage, .stGraphVizChart) svg").first.evaluate(
                "svg => { svg.dataset.drawnBeforeClick = '1'; }"
            )
            # The click reruns the graph and inspector alone (a fragment): no sidebar element is marked
            # stale (8 were, before). That the watch sees stale elements is checked by the Run test below.
            page.evaluate(STALE_WATCH)
            page.locator(":is(.sv-stage, .stGraphVizChart) svg g.node", has_text="Filter").first.click()
            expect(page.get_by_role("heading", name="Filter · 0.0.1")).to_be_visible(timeout=60_000)
            assert "node=0.0.1" in page.url
            # the node picker above the inspector follows the click
            picker = page.locator("[data-testid=stMain] [data-testid=stSelectbox]").filter(has_text="Select a node")
            expect(picker.get_by_role("combobox")).to_have_value(re.compile(r"^0\.0\.1 · Filter"))
            assert page.evaluate("window.__stale")["sidebar"] == 0
            # The selection is painted in the page: the clicked node turns the selected colour and
            # the graph is not drawn again (the same SVG element is still there).
            selected = page.locator(":is(.sv-stage, .stGraphVizChart) g.node.substrait-selected")
            expect(selected).to_have_id("node-0.0.1", timeout=30_000)
            fill = selected.locator("path, polygon").first.evaluate("shape => getComputedStyle(shape).fill")
            assert fill == {"light": "rgb(255, 243, 196)", "dark": "rgb(90, 74, 18)"}[scheme]
            assert page.locator(":is(.sv-stage, .stGraphVizChart) g.node.substrait-selected").count() == 1
            assert page.locator(":is(.sv-stage, .stGraphVizChart) svg[data-drawn-before-click]").count() == 1
            grid = page.locator("[data-testid='stMarkdownContainer'] table").filter(has_text="index").first
            expect(grid).to_contain_text("categories", timeout=30_000)
            expect(grid).to_contain_text("list<string>")
            time.sleep(1.5)  # let the graph settle before the screenshot
            # the page asks nothing of any machine but the app's (the tab's icon was fetched from
            # fonts.gstatic.com, as a page's Material icon is by default)
            assert requested and not requested_elsewhere(requested, app_url), requested_elsewhere(requested, app_url)
            page.screenshot(path=os.path.join(ARTIFACTS, f"inspect-{scheme}.png"))
            if scheme == "dark":
                background = page.evaluate("getComputedStyle(document.querySelector('.stApp')).backgroundColor")
                assert background != "rgb(255, 255, 255)", "the dark theme is in use"
        finally:
            browser.close()


def test_a_laptop_s_inspector_shows_the_run_and_engines_tabs_without_scrolling(app_url):
    """At 1280 px the inspector's tab strip holds about four tabs and scrolls the rest out of sight: Run
    and Engines, the two a person acts in, come right after Schema so that they are never among them."""
    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/?sample=aggregates.json")
        strip = page.locator("[role=tablist]").first
        strip.wait_for(timeout=60_000)
        right = strip.bounding_box()["x"] + strip.bounding_box()["width"]
        for name in ("Schema", "Run", "Engines"):
            box = page.get_by_role("tab", name=name).bounding_box()
            assert box is not None and box["x"] + box["width"] <= right, (name, box, right)


def test_the_run_tab_keeps_its_settings_when_another_tab_or_page_was_open(app_url):
    """Rows, timeout and the exact count as the person set them, after the Schema tab and the Step page
    were open: widgets keyed by the kept values came back at their minimums (1 row, 5 s)."""
    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/?sample=tutorial.json&node=0")
        page.get_by_role("tab", name="Run").click(timeout=60_000)
        rows, timeout = page.get_by_label("Rows"), page.get_by_label("Timeout (s)")
        expect(rows).to_have_value("100", timeout=60_000)
        expect(timeout).to_have_value("300")
        rows.fill("7")
        rows.press("Tab")
        page.get_by_text("Exact row count").click()
        page.wait_for_timeout(500)
        for leave in ("tab", "page"):
            if leave == "tab":
                page.get_by_role("tab", name="Schema").click()
                page.get_by_role("columnheader", name="type").first.wait_for(timeout=60_000)
            else:
                page.get_by_role("link", name="Step through").click()
                page.get_by_role("button", name="⬆ Parent").wait_for(timeout=60_000)
                page.get_by_role("link", name="Inspect").click()
            page.get_by_role("tab", name="Run").click(timeout=60_000)
            expect(page.get_by_label("Rows")).to_have_value("7", timeout=60_000)
            expect(page.get_by_label("Timeout (s)")).to_have_value("300")
            expect(page.get_by_label("Exact row count")).to_be_checked()


def test_another_plan_opens_with_an_empty_search_box(app_url):
    """A search belongs to the plan it was typed for: another sample opened from the sidebar starts with an
    empty box. The page had dropped the search but the browser kept its text in the box."""
    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1280, "height": 900}) as page:
        page.goto(app_url + "/?sample=tutorial.json")
        box = page.get_by_role("textbox", name="Search nodes")
        box.fill("products", timeout=60_000)
        box.press("Enter")
        expect(page.get_by_text("1 node matches")).to_be_visible(timeout=60_000)
        page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").first.click()
        page.get_by_role("option", name=re.compile("tpch_q03_duckdb")).first.click()
        expect(page).to_have_url(re.compile("sample=tpch_q03_duckdb"), timeout=60_000)
        expect(page.get_by_role("textbox", name="Search nodes")).to_have_value("", timeout=60_000)
        assert "search=" not in page.url


#: Each schema type of the inspector's table: its text, its height and its line height (px), the table's right
#: edge and its container's.
SCHEMA_TYPES = """() => {
  const table = document.querySelector('[data-testid=stMarkdownContainer] table');
  const cells = [...table.querySelectorAll('tbody td:last-child code')];
  return {types: cells.map((c) => [c.textContent, c.getBoundingClientRect().height,
                                   parseFloat(getComputedStyle(c).lineHeight)]),
          right: table.getBoundingClientRect().right, scrolls: table.scrollWidth > table.clientWidth + 1,
          edge: table.closest('[data-testid=stVerticalBlock]').getBoundingClientRect().right};
}"""

#: Whether the inspector's tab strip hides a tab (scrolls sideways), and each tab's right edge against the strip's.
TABS_SHOWN = """() => {
  const strip = document.querySelector('[role=tablist]');
  const right = strip.getBoundingClientRect().right;
  return {scrolls: strip.scrollWidth > strip.clientWidth + 1,
          outside: [...strip.querySelectorAll('[role=tab]')].filter((t) => t.getBoundingClientRect().right > right + 1)
                     .map((t) => t.textContent)};
}"""


def test_the_inspector_s_schema_types_stay_whole_and_inside_it(app_url):
    """DataFusion's TPC-H q03 aggregate, a long expression name beside them: the types (decimal<38,4>?, i64,
    date, i32) each on one line, not broken mid-word, and the table within the inspector; at 1,280 px all of
    it in sight, at 1,024 px scrolled sideways in its place. Every inspector tab is in sight at both widths."""
    for width in (1280, 1024):
        with browser_page(viewport={"width": width, "height": 900}) as page:
            page.goto(app_url + "/?sample=tpch_q03_datafusion.json&node=0.0.0.0")
            page.get_by_role("columnheader", name="type").first.wait_for(timeout=60_000)
            shown = page.evaluate(SCHEMA_TYPES)
            assert [t for t, _, _ in shown["types"]] == ["i64", "date", "i32", "decimal<38,4>?"]
            assert all(height < 1.5 * line for _, height, line in shown["types"]), (width, shown)
            assert shown["right"] <= shown["edge"] + 1, (width, shown)
            assert shown["scrolls"] is (width < 1280), (width, shown)
            tabs = page.evaluate(TABS_SHOWN)  # every tab in sight: a second row, never a strip that scrolls
            assert tabs == {"scrolls": False, "outside": []}, (width, tabs)


def test_what_follows_the_run_tab_is_stale_while_the_run_click_waits(app_url, jvm):  # the server runs it on Spark
    """The Run click's rerun waits for the run (ui.tasks.finished) before it draws what follows
    the Run tab (the node report's button, the share link, the diagnostics): those are stale meanwhile.
    This is also the check that STALE_WATCH sees stale elements at all, which a node click's rerun
    cannot show on a fast machine (its messages can reach the page in one batch, no frame between)."""
    from playwright.sync_api import expect

    with browser_page(viewport={"width": 1500, "height": 1000}) as page:
        page.goto(app_url + "/?sample=tutorial.json&node=0.0.0")
        page.get_by_role("tab", name="Run").click(timeout=60_000)
        button = page.get_by_role("button", name="▶ Run this node")
        expect(button).to_be_enabled(timeout=60_000)
        page.evaluate(STALE_WATCH)
        button.click()
        expect(page.get_by_text(re.compile(r"^Node 0\.0\.0: .* ran in"))).to_be_visible(timeout=180_000)
        assert page.evaluate("window.__stale")["main"] > 0


def _parent(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            # the command's name, in parentheses, may hold spaces: the parent follows the last ')'
            return fh.read().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):  # gone meanwhile
        return None


def _ours(pid: str) -> bool:
    """Whether ``pid`` descends from this test process (other browsers on the machine are not counted)."""
    me = str(os.getpid())
    while pid not in (None, "0", "1"):
        if pid == me:
            return True
        pid = _parent(pid)
    return False


def _ui_renderers() -> int:
    """This test's Chromium processes drawing the browser's own UI in a page of theirs (``--top-chrome-webui``)."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"--top-chrome-webui" not in fh.read():
                    continue
        except OSError:  # gone meanwhile
            continue
        count += _ours(pid)
    return count


def test_the_browser_starts_no_renderer_for_its_own_ui():
    """benchmarks.app.BROWSER_UI_FEATURES: each new window of headless Chromium 156 started a renderer for
    its address bar's popup, which took a core from the page while it loaded (0.3 s of a page load on
    this machine). A Chromium that renames the features would bring it back: this says so."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (make test does it when it runs as root with apt)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for _ in range(2):
                context = browser.new_context()
                context.new_page().goto("about:blank")
                time.sleep(1)
                assert _ui_renderers() == 0
                context.close()
        finally:
            browser.close()
