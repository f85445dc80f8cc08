"""The result grid's modules, loaded while the page is idle (``ui.preload``): the files are found in the
installed Streamlit, and a whole page carries the script that loads them. That the browser loads the
grid's module before any Run is asserted in a real browser (``tests/browser/test_e2e_load.py``)."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from ui.preload import RESULT_MODULES, module_files

APP = os.path.join(ROOT, "app.py")


def test_each_result_module_has_its_file_in_the_installed_streamlit():
    files = module_files()
    for stem in RESULT_MODULES:  # a renamed module after an upgrade fails here, not silently in the page
        assert any(f.startswith(stem + ".") and f.count(".") == stem.count(".") + 2 for f in files), stem


def test_a_whole_page_carries_the_script_and_the_graph_alone_does_not(monkeypatch):
    import ui.page

    def scripts(at: AppTest) -> list[str]:
        return [h.proto.body for h in at.sidebar.get("html") if "__substraitVizPreloaded" in h.proto.body]

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tutorial.json"
    at.run()
    [script] = scripts(at)
    assert all(f in script for f in module_files())

    monkeypatch.setattr(ui.page, "GRAPH_FIRST", True)
    monkeypatch.setattr(ui.page, "viewer_available", lambda: True)
    first = AppTest.from_file(APP, default_timeout=60)
    first.query_params["sample"] = "tutorial.json"
    first.run()  # a page opened on a plan draws its graph alone first: nothing else loads meanwhile
    assert not first.exception and not first.sidebar.get("file_uploader")  # the graph-alone run
    assert scripts(first) == []
