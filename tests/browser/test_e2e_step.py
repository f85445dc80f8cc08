"""A step-through of the tutorial plan in a real browser (Playwright + headless Chromium).

Opens the Step page on ``?sample=tutorial.json``, starts at the orders read, steps up to the join
and the aggregate (the K shortcut, then the button), runs each node and checks the heading and the
"what it did" line at each step against DuckDB's counts. Screenshots: tests/artifacts/step-N.png.
The Streamlit server is tests/browser/conftest.py's fixture, Chromium comes from tests/support/browser.py.
"""

from __future__ import annotations

import os

import duckdb
import pytest

from tests.support import ROOT
from tests.support.browser import ARTIFACTS, launch_chromium, requested_elsewhere

pytestmark = pytest.mark.browser

ORDERS = os.path.join(ROOT, "sample_data", "tutorial", "orders.parquet")
PRODUCTS = os.path.join(ROOT, "sample_data", "tutorial", "products.parquet")
KEPT = f"(SELECT * FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NULL)"
JOINED = f"(SELECT * FROM '{ORDERS}' o JOIN {KEPT} p ON o.product_id = p.product_id)"


def _count(sql: str) -> int:
    return duckdb.sql(f"SELECT count(*) FROM {sql}").fetchall()[0][0]


def test_step_through_the_tutorial_plan(app_url, jvm):  # noqa: F811  (the server runs each step on Spark)
    from playwright.sync_api import expect, sync_playwright

    orders, kept, joined = _count(f"'{ORDERS}'"), _count(KEPT), _count(JOINED)
    groups = _count(f"(SELECT DISTINCT product_id, product_name FROM {JOINED})")
    steps = [
        ("Read · 0.0.0", f"read {orders} rows from orders"),
        ("Join · 0.0", f"joined {orders} rows with {kept} rows → {joined} rows"),
        ("Aggregate · 0", f"{joined} rows → {groups} groups"),
    ]
    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            # Through the app's navigation (app.py runs first and lays the page out wide).
            page.goto(app_url + "/?sample=tutorial.json")
            expect(page.get_by_role("heading", name="tutorial.json")).to_be_visible(timeout=60_000)
            page.get_by_role("link", name="Step through").click()
            expect(page.get_by_role("heading", name="Aggregate · 0")).to_be_visible(timeout=60_000)  # Inspect's node
            page.get_by_role("combobox", name="Start at a leaf").click()
            page.get_by_role("option", name="0.0.0 · Read · orders").click()
            for i, (heading, summary) in enumerate(steps, start=1):
                if i == 2:  # the keyboard shortcut for "⬆ Parent"
                    page.get_by_role("heading", name=steps[0][0]).click()  # focus the page, not a widget
                    page.keyboard.press("k")
                elif i == 3:
                    page.get_by_role("button", name="⬆ Parent").click()
                expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=60_000)
                assert f"node={heading.split(' · ')[1]}" in page.url
                page.get_by_role("button", name="▶ Run").click()
                expect(page.get_by_text(summary)).to_be_visible(timeout=180_000)
                page.wait_for_timeout(1000)  # let the graph and the grids settle before the screenshot
                page.screenshot(path=os.path.join(ARTIFACTS, f"step-{i}.png"), full_page=True)
            # two pages, a run at each step: nothing asked of any machine but the app's
            assert requested and not requested_elsewhere(requested, app_url), requested_elsewhere(requested, app_url)
        finally:
            browser.close()
