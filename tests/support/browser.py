"""Chromium for the browser tests (tests/browser) and the HTML report's: one way to start it, the
benchmark's, and where screenshots go."""

from __future__ import annotations

import contextlib
import os
import shutil

from benchmarks.app import CHROMIUM, CHROMIUM_ARGS
from tests.support import ROOT

__all__ = [
    "ARTIFACTS",
    "CHROMIUM",
    "GRID_ROWS",
    "browser_page",
    "grid_rows_once",
    "launch_chromium",
    "requested_elsewhere",
]

ARTIFACTS = os.environ.get("E2E_ARTIFACTS", os.path.join(ROOT, "tests", "artifacts"))

#: The rows of the page's tables (``st.dataframe``), from the grid's accessible table (cells as text).
GRID_ROWS = """() => [...document.querySelectorAll('[data-testid=stDataFrame] table tr')]
  .map((r) => [...r.querySelectorAll('td, th')].map((c) => c.textContent.trim()))"""
_GRID_ROW_SHOWN = """({starts, has}) => [...document.querySelectorAll('[data-testid=stDataFrame] table tr')]
  .some((r) => r.textContent.startsWith(starts) && r.textContent.includes(has))"""


def grid_rows_once(page, *, starts: str = "", has: str = "", timeout_ms: int = 30_000) -> list[list[str]]:
    """The page's table rows (:data:`GRID_ROWS`) once a row's text starts with ``starts`` and holds ``has``."""
    page.wait_for_function(_GRID_ROW_SHOWN, arg={"starts": starts, "has": has}, timeout=timeout_ms)
    return page.evaluate(GRID_ROWS)


def requested_elsewhere(requested: list[str], app_url: str) -> list[str]:
    """The URLs among ``requested`` that go to a machine other than the app's (``data:`` and ``blob:``
    stay in the page)."""
    return [u for u in requested if not u.startswith((app_url + "/", "data:", "blob:"))]


def launch_chromium(p):
    """Debian's headless Chromium (or the one on PATH), launched by Playwright ``p``."""
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    return p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def browser_page(**options):
    """A page (``options`` as Playwright's ``new_page`` takes them) of a Chromium of its own, closed
    afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            yield browser.new_page(**options)
        finally:
            browser.close()
