"""What each engine will do with a node, in headless Chromium against ``streamlit run``: DataFusion's TPC-DS
q64 (92 relations) uploaded, the aggregate whose sums each engine types otherwise than the plan declares
picked, the Engines tab opened and its types table read from the page: every column of it within the
inspector at a laptop's 1,280 px.

The expected types were checked by hand: DataFusion's producer declares ``sum`` of a ``decimal<7,2>`` column
``decimal<38,2>?`` (the spec's YAML says the same); Spark's ``sum`` gives ``decimal<17,2>`` (precision + 10)
and so does DataFusion's own consumer when it plans the sub-plan. The screenshot is saved to
``tests/artifacts/engines-types.png`` (the README's picture is a copy of it)."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.browser.test_e2e_zoom import GRAPH
from tests.support.browser import ARTIFACTS, browser_page

pytestmark = pytest.mark.browser

#: The aggregate of q64's second `cs_ui` subquery: sum(cs_ext_list_price) and sum(refunds).
AGGREGATE = "0.0*22.1.0.0"


def test_a_nodes_types_on_each_engine(app_url, q64_plan, jvm):  # the server starts Spark
    from playwright.sync_api import expect

    if shutil.which("dot") is None:
        pytest.skip("no Graphviz dot here: make test installs Debian's graphviz when it runs as root with apt")
    os.makedirs(ARTIFACTS, exist_ok=True)
    with browser_page(viewport={"width": 1280, "height": 1000}) as page:
        page.goto(app_url)
        uploader = "[data-testid='stFileUploader'] input[type='file']"
        page.wait_for_selector(uploader, timeout=60_000, state="attached")
        page.locator(uploader).set_input_files(q64_plan)
        page.wait_for_selector(f"{GRAPH} g.node[data-substrait-bound]", timeout=120_000)
        page.get_by_role("combobox", name="Select a node (type to search)").click()
        page.keyboard.type(AGGREGATE)
        page.keyboard.press("Enter")
        expect(page.locator(f"{GRAPH} g.node.substrait-selected")).to_have_id(f"node-{AGGREGATE}", timeout=30_000)
        page.get_by_role("tab", name="Engines").click()
        table = page.locator("[data-testid=stMarkdownContainer] table").filter(has_text="DataFusion")
        table.filter(has_text="decimal<17,2>").wait_for(timeout=180_000)
        cells = "t => [...t.rows].map((r) => [...r.cells].map((c) => c.textContent.trim()))"
        rows = [[c.replace("\u00ad", "") for c in r] for r in table.evaluate(cells)]  # a soft hyphen
        header = rows[0]
        # the spec agrees with the plan on every column here: its column gives the engines the room
        assert header == ["column: declared", "Spark", "DataFusion"], header
        page.get_by_text(
            "By the Substrait spec's own function definitions, every column has the type the plan declares "
            "(so the table leaves the spec out)"
        ).wait_for()
        declared_of = table.evaluate(
            "t => [...t.rows].slice(1).map((r) => r.cells[0].querySelectorAll('code')[1].textContent)"
        )
        by_name = {
            r[0].removesuffix(d): {"declared": d, "Spark": r[1], "DataFusion": r[2]}
            for r, d in zip(rows[1:], declared_of)
        }
        [price] = [v for k, v in by_name.items() if k.startswith("sum(cs_ext_list_price")]
        # DataFusion declares no type on its sum: the run gives the YAMLs' (the model's), its engine its own
        assert (price["declared"], price["Spark"], price["DataFusion"]) == (
            "decimal<38,2>?",
            "=",
            "decimal<17,2>?",
        ), price
        # every column in sight: the table's right edge within the inspector's (it wraps, never scrolls)
        fits = "t => t.scrollWidth <= t.parentElement.clientWidth + 1 && t.getBoundingClientRect().right <= innerWidth"
        assert table.evaluate(fits), table.bounding_box()
        page.set_viewport_size({"width": 1024, "height": 1000})  # a smaller laptop: the inspector about 250 px
        page.wait_for_timeout(1000)
        assert table.evaluate(fits), table.bounding_box()
        page.set_viewport_size({"width": 1280, "height": 1000})
        assert page.locator("[data-testid=stException]").count() == 0
        tab = page.locator("[data-testid=stTabs]").last
        tab.scroll_into_view_if_needed()
        page.screenshot(path=os.path.join(ARTIFACTS, "engines-types.png"))
