"""Ids with ``*`` in a real browser (Playwright + headless Chromium): TPC-DS q64 as DataFusion plans
it has ids like ``0.0*22.1.0*4.1``, which Markdown read as italics (the asterisks dropped), and the
node picker's own fuzzy ranking put ``0.0*15`` above ``0.0*5`` for the text ``0.0*5``. The server
and the plan are tests/browser/conftest.py's fixtures, Chromium comes from tests/support/browser.py."""

from __future__ import annotations

import os

import pytest

from tests.support.browser import ARTIFACTS, launch_chromium

pytestmark = pytest.mark.browser
#: No test here runs a node: the server starts no JVM beside the pages (tests/browser/conftest.py).
SPARK_IN_BACKGROUND = False


def test_a_starred_id_shows_as_itself_and_the_picker_takes_it_exactly(app_url, q64_plan):  # noqa: F811
    from playwright.sync_api import expect, sync_playwright

    os.makedirs(ARTIFACTS, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(app_url + "/")
            page.locator("[data-testid=stFileUploaderDropzoneInput]").set_input_files(q64_plan)
            expect(page.get_by_role("heading", name=os.path.basename(q64_plan))).to_be_visible(timeout=60_000)
            picker = page.get_by_role("combobox", name="Select a node (type to search)")
            for typed, heading in (("0.0*5", "Aggregate · 0.0*5"), ("0.0*22.1.0*4.1", "Read · 0.0*22.1.0*4.1")):
                picker.click()
                picker.fill(typed)
                page.keyboard.press("Enter")
                expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=30_000)
            # the heading's own text, not a rendering that dropped the asterisks into an <em>
            shown = page.get_by_role("heading", name="Read · 0.0*22.1.0*4.1", exact=True)
            assert shown.inner_text() == "Read · 0.0*22.1.0*4.1"
            assert shown.locator("em").count() == 0
            assert "node=0.0%2A22.1.0%2A4.1" in page.url or "node=0.0*22.1.0*4.1" in page.url
            page.screenshot(path=os.path.join(ARTIFACTS, "literal-inspect.png"))

            page.get_by_role("link", name="Step through").click()
            step = page.get_by_role("heading", name="Read · 0.0*22.1.0*4.1", exact=True)
            expect(step).to_be_visible(timeout=60_000)
            assert step.inner_text() == "Read · 0.0*22.1.0*4.1" and step.locator("em").count() == 0
            # the ⬆ Parent button's hover names the parent as it is written
            parent = page.get_by_role("button", name="⬆ Parent")
            parent.hover()
            expect(page.get_by_text("Go up to 0.0*22.1.0*4", exact=True)).to_be_visible(timeout=10_000)
            page.screenshot(path=os.path.join(ARTIFACTS, "literal-step.png"))
        finally:
            browser.close()


def test_a_name_that_reads_as_an_address_is_no_link(app_url):
    """Column names that Markdown would make links of (a link's own syntax, a bare web or mail address)
    show as written on Inspect's schema and in Present's sentences, and nothing on either page links to
    them (an invisible word joiner keeps each one text)."""
    import json
    import time

    from playwright.sync_api import expect, sync_playwright

    from tests.support import ROOT
    from ui.state.share import save_shared

    joiner = "\u2060"  # ui.markdown.WORD_JOINER

    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), encoding="utf-8") as fh:
        plan = json.load(fh)
    names = ["[link](http://evil.example)", "mail@evil.example", "www.evil.example"]
    plan["relations"][0]["root"]["names"] = names
    key = save_shared(json.dumps(plan).encode())
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            # Present's root step names the grouping column and the rest; Inspect's schema every column
            for path, shown in ((f"/present?plan={key}&node=0", names[1:]), (f"/?plan={key}&node=0", names)):
                page.goto(app_url + path)
                main = page.locator("[data-testid='stMain']")
                expect(main).to_contain_text("evil", timeout=60_000)
                deadline, text = time.monotonic() + 60, ""
                while not all(name in text for name in shown) and time.monotonic() < deadline:
                    time.sleep(0.5)  # the page draws its parts one after another
                    text = main.inner_text().replace(joiner, "")
                assert all(name in text for name in shown), (path, text[:2000])
                assert main.locator("a[href*='evil']").count() == 0, path
        finally:
            browser.close()
