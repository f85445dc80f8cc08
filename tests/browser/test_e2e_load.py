"""Several people at once, in a real browser: three sessions, each with its own plan, click Run together.

Each page's rows come, right (the same lines as the same run made here, in this process), with no
error on any page, and each CSV download works at its first click. The full figure, ten sessions
against the same ten one after another, is ``python -m benchmarks load`` (``benchmarks/load.py``).
"""

from __future__ import annotations

import os
import time
from collections import Counter

import pytest

from benchmarks.app import VIEWPORT
from benchmarks.load import ROWS, RUN_SCRIPT, SCHEDULE_CLICK, _download, _errors_on, _open, _shown_s
from tests.support import ROOT

PLANS = ("tutorial.json", "aggregates.json", "window.json")
GRID_MODULE_LOADED = (
    "() => performance.getEntriesByType('resource')"
    ".some((e) => /\\/static\\/js\\/DataFrame\\.[\\w-]+\\.js$/.test(e.name))"
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _expected(name: str, spark) -> Counter:
    from executor.data.catalog import Catalog
    from executor.jobs.run import run_node, to_csv_bytes
    from viz.model import analyze

    with open(os.path.join(ROOT, "sample_plans", name), "rb") as fh:
        model = analyze(fh.read())
    result = run_node(model, "0", catalog=Catalog([os.path.join(ROOT, "sample_data", "tutorial")]), limit=ROWS)
    return Counter(to_csv_bytes(result).decode().splitlines())


def test_three_sessions_run_at_once_each_gets_its_rows_and_its_download(spark, app_url):
    from playwright.sync_api import sync_playwright

    from benchmarks.app import _browser

    expected = {name: _expected(name, spark) for name in PLANS}
    with sync_playwright() as p:
        browser = _browser(p)
        try:
            pages = {
                name: _open(browser.new_context(viewport=VIEWPORT, accept_downloads=True), f"{app_url}/?sample={name}")
                for name in PLANS
            }
            for page in pages.values():
                # the result grid's module is loaded while the page is idle, before any Run
                page.wait_for_function(GRID_MODULE_LOADED, timeout=30_000)
                page.evaluate(RUN_SCRIPT, "0")
            at = int(time.time() * 1000) + 1000
            for page in pages.values():
                page.evaluate(SCHEDULE_CLICK, at)
            seconds = {name: _shown_s(page) for name, page in pages.items()}
            assert all(s > 0 for s in seconds.values()), seconds
            for name, page in pages.items():
                assert _errors_on(page) == [], name
                rows, failure = _download(page)
                assert failure is None, f"{name}: {failure}"
                assert rows == expected[name], name
        finally:
            browser.close()
