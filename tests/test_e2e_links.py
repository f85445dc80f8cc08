"""Shared links in a real browser, on a fresh server whose first request is the link itself.

Streamlit's older multipage mechanism would run ``pages/present.py`` alone for such a first request
(no ``app.py``: no navigation, no wide layout); ``ui.entry.through_app`` sends it through ``app.py``.
The Present page's own share link then reopens the same plan at the same node.
"""

from __future__ import annotations

import os

import pytest

from tests.test_e2e import ARTIFACTS, _browser, app_url  # noqa: F401  (app_url is a fixture: a fresh server per module)

pytestmark = pytest.mark.browser


def test_a_shared_link_opened_first_on_a_fresh_server(app_url):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(app_url + "/present?sample=tutorial.json&node=0.0.1")
            expect(page.get_by_role("heading", name="Step 3: Filter")).to_be_visible(timeout=90_000)
            # app.py ran: its navigation (page titles, not file names) is there
            expect(page.get_by_role("link", name="Step through")).to_be_visible()
            expect(page.get_by_text("Keeps products whose categories does not contain 'Computers'.").first).to_be_visible()
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
