"""Column lineage in a real browser: a click on a schema row in the graph picks the column, the
inspector shows its chains, and its path is painted on the graph (nodes, edges, rows) without
laying the graph out again. The screenshot is saved to ``tests/artifacts/lineage.png``."""

from __future__ import annotations

import os
import re

import pytest

from tests.support.browser import ARTIFACTS, launch_chromium

pytestmark = pytest.mark.browser
#: No test here runs a node: the server starts no JVM beside the pages (tests/browser/conftest.py).
SPARK_IN_BACKGROUND = False

GRAPH = ".sv-stage svg"


def test_click_a_column_in_the_graph_and_see_where_it_comes_from(app_url):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(app_url + "/?sample=tutorial.json")
            page.wait_for_selector(f"{GRAPH} g.node[data-substrait-bound]", timeout=90_000)
            page.locator(GRAPH).first.evaluate("svg => { svg.dataset.drawnBeforeClick = '1'; }")
            # the root aggregate's schema row "[2] sales decimal<38,2>?": click its name
            page.locator(f'{GRAPH} g[id="node-0"] text', has_text=re.compile(r"^sales$")).first.click()
            chain = (
                "[2] sales ← sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price)) ← quantity of orders "
                "(table column 1)"
            )
            expect(page.locator("code").filter(has_text=chain).first).to_be_visible(timeout=60_000)
            # the path: the aggregate, the join and the orders read (not the products side)
            traced = page.locator(f"{GRAPH} g.node.substrait-lineage")
            expect(traced).to_have_count(3, timeout=30_000)
            assert sorted(traced.evaluate_all("gs => gs.map(g => g.id)")) == ["node-0", "node-0.0", "node-0.0.0"]
            assert page.locator(f"{GRAPH} g.edge.substrait-lineage-edge").count() == 2
            rows = page.locator(f'{GRAPH} g[id="node-0.0.0"] text.substrait-lineage-row')
            assert {t.strip() for t in rows.all_text_contents()} >= {"[1]", "quantity", "[3]", "price"}
            assert page.locator(f"{GRAPH}[data-drawn-before-click]").count() == 1  # painted, not drawn again
            page.wait_for_timeout(1000)
            page.screenshot(path=os.path.join(ARTIFACTS, "lineage.png"))
            # a row of another node: that node is selected and its column picked
            page.locator(f'{GRAPH} g[id="node-0.0.1"] text', has_text=re.compile(r"^product_name$")).first.click()
            expect(page.get_by_role("heading", name="Filter · 0.0.1")).to_be_visible(timeout=60_000)
            expect(
                page.locator("code")
                .filter(has_text="[3] product_name ← product_name of products (table column 3)")
                .first
            ).to_be_visible(timeout=60_000)
            expect(traced).to_have_count(4, timeout=30_000)  # the filter, its read, and the join and aggregate above
        finally:
            browser.close()
