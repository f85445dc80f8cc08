"""The Tables page in a real browser: with a data root of other tables ($SUBSTRAIT_VIZ_DATA), an
uploaded TPC-H plan's CUSTOMER is never shown as bound to the file that lacks its columns; the page
says what is wrong, and the fix chosen in the page (another file of the data root) makes it bound."""

from __future__ import annotations

import os
import shutil

import pytest

from benchmarks.app import CHROMIUM, start_server
from tests.support import ROOT
from tests.support.browser import ARTIFACTS, browser_page, grid_rows_once
from tests.support.tables import other_tables

pytestmark = pytest.mark.browser

#: Every value the CUSTOMER row's "bound" cell shows from now on, caught as the grid changes.
WATCH_CUSTOMER = """() => {
  window.__customerBound = [];
  const look = () => {
    for (const r of document.querySelectorAll('[data-testid=stDataFrame] table tr')) {
      const cells = [...r.querySelectorAll('td, th')].map((c) => c.textContent.trim());
      if (cells[0] === 'CUSTOMER' && window.__customerBound.at(-1) !== cells[1]) window.__customerBound.push(cells[1]);
    }
  };
  look();
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def _customer(page) -> dict[str, str]:
    rows = grid_rows_once(page, starts="CUSTOMER")  # the page's table of named tables
    header = rows[0]
    return next(dict(zip(header, r)) for r in rows[1:] if r and r[0] == "CUSTOMER")


def test_a_mismatched_table_is_never_shown_bound_and_the_fix_in_the_page_binds_it(tmp_path):
    from playwright.sync_api import expect

    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (make test does it when it runs as root with apt)"
        )
    root = other_tables(tmp_path / "data")
    os.makedirs(ARTIFACTS, exist_ok=True)
    server = start_server({"SUBSTRAIT_VIZ_DATA": str(root), "SUBSTRAIT_VIZ_WARM_UP": "0"})
    try:
        with browser_page(viewport={"width": 1500, "height": 1300}) as page:
            page.goto(server.url + "/tables")
            page.wait_for_selector("[data-testid=stFileUploader]", timeout=90_000)
            page.evaluate(WATCH_CUSTOMER)
            page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(
                os.path.join(ROOT, "sample_plans", "tpch_q03_isthmus.json")
            )
            panel = page.locator(".st-key-fix_CUSTOMER")
            expect(panel.get_by_text("CUSTOMER · not bound")).to_be_visible(timeout=90_000)
            expect(
                panel.get_by_text(
                    f"The file {root / 'customer.parquet'} lacks 8 of the plan's 8 columns "
                    "(C_CUSTKEY, C_NAME, C_ADDRESS"
                )
            ).to_be_visible()
            expect(panel.get_by_text("The file has c_customer_sk int, c_customer_id string")).to_be_visible()
            expect(panel.get_by_text("it has 4 columns where the plan declares 8")).to_be_visible()
            row = _customer(page)
            assert (row["bound"], row["how"]) == ("no", "columns differ"), row
            assert row["notes"].startswith("lacks 8 of the plan's 8 columns"), row
            page.wait_for_timeout(800)  # the last widgets settle before the picture
            page.screenshot(path=os.path.join(ARTIFACTS, "tables_mismatch.png"), full_page=True)

            # the fix: the data root's file that has the plan's columns, picked and bound in the page
            expect(panel.get_by_role("combobox")).to_have_value(str(root / "clients.parquet"))
            panel.get_by_role("button", name="Bind").click()
            expect(page.locator(".st-key-fix_CUSTOMER")).to_have_count(0, timeout=60_000)
            grid_rows_once(page, starts="CUSTOMER", has="clients.parquet", timeout_ms=60_000)
            row = _customer(page)
            assert (row["bound"], row["how"], row["source"]) == (
                "yes",
                "binding",
                f"parquet at {root / 'clients.parquet'}",
            ), row
            # before the fix the row never said "yes": first shown "no", then "yes" once bound
            assert page.evaluate("window.__customerBound") == ["no", "yes"]
            page.wait_for_timeout(800)
            page.screenshot(path=os.path.join(ARTIFACTS, "tables_fixed.png"), full_page=True)
    finally:
        server.stop()


def test_the_sample_data_toggle_stays_on_through_the_inspectors_tabs(app_url):
    """An isthmus plan uploaded, TPC-H's generated data turned on (Tables), then Inspect's Run tab opened
    (a run of the page's fragment alone) and back to Tables: the toggle had turned itself off, so the
    run that had worked said CUSTOMER was not bound."""
    from playwright.sync_api import expect

    from tests.support import CORPORA

    with browser_page(viewport={"width": 1400, "height": 1000}) as page:
        page.goto(app_url + "/tables")
        page.wait_for_selector("[data-testid=stFileUploader]", timeout=90_000)
        page.locator("[data-testid=stSidebar] [data-testid=stFileUploader] input[type=file]").set_input_files(
            os.path.join(CORPORA, "isthmus-tpch", "query_05_plan.json")
        )
        toggle = page.get_by_role("switch", name="Use the generated TPC-H sample data")
        expect(toggle).to_be_visible(timeout=90_000)
        toggle.click(force=True)
        expect(toggle).to_be_checked(timeout=30_000)
        for tab in ("Run", "JSON", "Schema"):
            page.locator("[data-testid=stSidebarNav]").get_by_text("Inspect").click()
            page.get_by_role("tab", name=tab).click()
            expect(page.get_by_role("tab", name=tab, selected=True)).to_be_visible(timeout=60_000)
            page.wait_for_timeout(1500)  # the fragment's run ends
            page.locator("[data-testid=stSidebarNav]").get_by_text("Tables").click()
            expect(toggle).to_be_checked(timeout=60_000)
