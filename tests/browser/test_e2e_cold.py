"""Several people open the app at once, just after it started: every page draws, none shows a traceback.

pyspark's package and its sql module import each other; pages that loaded together on a fresh server
each imported half of it, and all four showed an ImportError (``ui/spark_import.py``).
"""

from __future__ import annotations

import pytest

from benchmarks.app import VIEWPORT
from benchmarks.load import _errors_on

FRESH_SERVER = True  # the pages below are the server's first requests
SPARK_IN_BACKGROUND = False

pytestmark = [pytest.mark.browser]

PAGES = {
    "Present": "/present?sample=tpch_q03_datafusion.json",
    "Inspect": "/?sample=tutorial.json",
    "Tables": "/tables?sample=tpch_q02_isthmus.json",
    "Step through": "/step?sample=subqueries.json",
}


def test_pages_opened_together_on_a_fresh_server_all_draw(app_url):
    from playwright.sync_api import sync_playwright

    from benchmarks.app import _browser

    with sync_playwright() as p:
        browser = _browser(p)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            pages = {name: context.new_page() for name in PAGES}
            for name, page in pages.items():  # each request sent before any page has drawn
                page.goto(app_url + PAGES[name], wait_until="commit")
            for name, page in pages.items():
                # the page's own sidebar once its script has drawn, or the error that stopped it
                drawn = "[data-testid=stSidebarUserContent], [data-testid=stException]"
                page.locator(drawn).first.wait_for(timeout=60_000)
                assert _errors_on(page) == [], name
                assert "Traceback" not in page.inner_text("body"), name
        finally:
            browser.close()


def test_the_app_imports_pyspark_whole_before_any_page():
    """The guard itself, which the browser test above does not always need to catch its absence (the
    failure depends on when the sessions' first imports meet): app.py imports ``ui.spark_import``, which
    imports ``pyspark.sql``, before it runs a page."""
    import ast
    import os

    from tests.support import ROOT

    with open(os.path.join(ROOT, "app.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    order = [
        node.names[0].name if isinstance(node, ast.Import) else "st.navigation"
        for node in tree.body
        if isinstance(node, ast.Import) or (isinstance(node, ast.Expr) and "navigation" in ast.unparse(node))
    ]
    assert order.index("ui.spark_import") < order.index("st.navigation"), order
    with open(os.path.join(ROOT, "ui", "spark_import.py"), encoding="utf-8") as fh:
        assert "import pyspark.sql" in fh.read()
