"""The HTML report (``viz.html_report``, ``python -m viz html``, the app's "Download report (HTML)").

Structure: every node has its panel (schema, expressions, properties, diagnostics, its sentence) and
its box in the SVG; plan strings are escaped; the file holds nothing that reaches the network (no
URL, ``src``, ``<link``, ``url(``, only ``#`` links, one inline script allowed by its hash in the
page's Content-Security-Policy). Without ``dot`` the nodes are listed instead of drawn. The command
line's exit codes and messages. In the app (AppTest), the button's file holds the plan's nodes and
the session's run results. In headless Chromium, offline with every non-file request aborted: the
page opens, a click on a node shows its schema, no request leaves, no script error; dark mode
recolours the graph. The opened report is saved to ``tests/artifacts/report.png``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import shutil
from html.parser import HTMLParser

import pandas as pd
import pytest

from tests.support import ROOT
from viz.__main__ import main as viz_main
from viz.describe import describe_plan, story_order
from viz.html_report import NodeEngines, NodeRun, html_report
from viz.model import analyze
from viz.render import PALETTES

SAMPLES = os.path.join(ROOT, "sample_plans")
SAMPLE_FILES = sorted(f for f in os.listdir(SAMPLES) if f.endswith(".json") and f != "manifest.json")
EVIL_COLUMN = "<script>alert(1)</script>"
EVIL_TABLE = '"><img src=x onerror=alert(2)>'
URL_TABLE = "https://evil.example/orders.js"
HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="no Graphviz dot: make test installs Debian's graphviz")


def _model(name: str):
    with open(os.path.join(SAMPLES, name), "rb") as fh:
        return analyze(fh.read())


def _evil_plan() -> bytes:
    """The tutorial plan with a column named like a script, a table named like an attribute break-out,
    and a table named by a URL."""
    with open(os.path.join(SAMPLES, "tutorial.json"), encoding="utf-8") as fh:
        text = fh.read()
    text = text.replace('"product_name"', json.dumps(EVIL_COLUMN)).replace('"products"', json.dumps(EVIL_TABLE))
    return text.replace('"orders"', json.dumps(URL_TABLE)).encode()


class _Page(HTMLParser):
    """What a browser would build from the file: every start tag with its attributes, element ids,
    and the text inside each node panel and each SVG node."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.panels: dict[str, list[str]] = {}
        self.svg_nodes: dict[str, list[str]] = {}
        self.scripts: list[str] = []
        self._open: list[tuple[str, str | None, dict]] = []  # (tag, a panel/box id it opens, its text map)
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if a.get("id"):
            self.ids.add(a["id"])
        opened, where = None, None
        if tag == "section" and "panel" in (a.get("class") or "").split():
            opened, where = a["id"][2:], self.panels
        elif tag == "g" and a.get("class") == "node":
            opened, where = a["id"][5:], self.svg_nodes
        if opened is not None:
            where[opened] = []
        self._open.append((tag, opened, where))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        while self._open:
            t, _, _ = self._open.pop()
            if t == tag:
                break
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)
        for _, opened, where in self._open:
            if opened is not None:
                where[opened].append(data)

    def text(self, where: dict[str, list[str]], node_id: str) -> str:
        return " ".join(" ".join(where[node_id]).split())


def _parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


def _assert_offline(page: str) -> None:
    """Nothing in the file can reach the network."""
    for bad in ("http://", "https://", "<link", "url(", "@import", "//evil"):
        assert bad not in page.lower(), bad
    parsed = _parse(page)
    for tag, attrs in parsed.tags:
        assert "src" not in attrs and "srcset" not in attrs and "action" not in attrs, (tag, attrs)
        assert tag not in ("link", "iframe", "img", "object", "embed", "base", "form", "image", "use"), tag
        href = attrs.get("href") or attrs.get("xlink:href")
        assert href is None or href.startswith("#"), href
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
    assert [t for t, _ in parsed.tags].count("script") == 1
    # the one script is allowed by its hash, and nothing else may load
    [csp] = [a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in csp
    digest = base64.b64encode(hashlib.sha256("".join(parsed.scripts).encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp


@needs_dot
@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_node_has_its_box_and_its_panel(name):
    model = _model(name)
    page = html_report(model, name)
    _assert_offline(page)
    parsed = _parse(page)
    nodes = list(model.graph.nodes)
    assert sorted(parsed.panels) == sorted(nodes)
    assert sorted(parsed.svg_nodes) == sorted(nodes)
    sentences = describe_plan(model)
    for node in model.nodes():
        text = parsed.text(parsed.panels, node.id)
        assert " ".join(sentences[node.id].split()) in text
        for f in node.schema_json() or []:
            assert f" {f['index']} {' '.join(f['name'].split())} {' '.join(f['type'].split())}" in text, (node.id, f)
        for _role, expr in node.info.expressions:
            assert " ".join(expr.split()) in text
        if node.properties is not None:
            assert f"orderedness: {' '.join(node.properties.order_text().split())}" in text
        for d in node.diagnostics:
            assert d.code in text
    # the plan in words, in story order, each step linking to its node
    story = page[page.index('<ol class="story">') :]
    positions = [story.index(f'data-node="{html.escape(n)}"') for n in story_order(model)]
    assert positions == sorted(positions)


def test_plan_strings_are_escaped_and_urls_are_text():
    model = analyze(_evil_plan())
    page = html_report(model, EVIL_COLUMN + ".json")
    assert EVIL_COLUMN not in page and EVIL_TABLE not in page and "<img" not in page
    _assert_offline(page)
    parsed = _parse(page)
    panel = parsed.text(parsed.panels, "0.0.1")  # the Filter over the products read
    assert EVIL_COLUMN in panel  # shown as text
    assert EVIL_COLUMN in parsed.text(parsed.svg_nodes, "0.0.1")
    assert EVIL_TABLE in parsed.text(parsed.panels, "0.0.1.0")
    assert URL_TABLE in parsed.text(parsed.panels, "0.0.0")  # readable, though the file holds no "https://"
    assert html.unescape(page).count(URL_TABLE) >= 2


def test_run_results_show_in_the_panel_and_on_the_graph():
    model = _model("tutorial.json")
    runs = {
        "0.0.1": NodeRun(
            rows=1234,
            columns=("[0] product_id", "[1] <b>name</b>"),
            sample=((1, "<b>x</b>"), (2, None)),
            note="counted by the profile",
        ),
        "no-such-node": NodeRun(rows=5),
    }
    svgs: list[str] = []
    page = html_report(model, "tutorial.json", runs, layout=lambda dot: svgs.append(dot) or None)
    parsed = _parse(page)
    text = parsed.text(parsed.panels, "0.0.1")
    assert "1,234 rows · counted by the profile" in text
    assert "[1] <b>name</b>" in text and "<b>x</b>" in text and "null" in text
    assert "<b>x</b>" not in page
    join_panel = page.split('<section class="panel" id="n-0.0"')[1].split("</section>")[0]
    assert 'class="rows"' not in join_panel and "Sample rows" not in join_panel  # not run: no rows shown
    assert "1,234 rows" in svgs[0]  # the count is drawn on the graph (the profile overlay)
    assert "no-such-node" not in page
    assert "row counts or sample rows for 1 node" in page


def test_what_the_engines_do_shows_in_the_panel_and_on_the_graph():
    model = _model("tutorial.json")
    engines = {
        "0.0.1": NodeEngines(
            verdicts=(("Spark", "runs"), ("DataFusion", "no: <function> has no mapping")),
            fields=("DataFusion takes ReadRel.filter as a hint only",),
            versions=("the plan declares Substrait 0.200, newer than DataFusion's 0.85",),
            types=(("price", "decimal<10,2>", "decimal<10,2>", "decimal<12,2>", ""),),
            types_note="DataFusion cannot take this node",
            plans=(("Spark", "▶ Filter (x > 1)\n  FileScan parquet"),),
            marks=(("warning", "≠ types: Spark"),),
        ),
        "no-such-node": NodeEngines(verdicts=(("Spark", "runs"),)),
    }
    svgs: list[str] = []
    page = html_report(
        model,
        "tutorial.json",
        layout=lambda dot: svgs.append(dot) or None,
        engines=engines,
        engines_notes=("DataFusion reads Substrait 0.85",),
    )
    parsed = _parse(page)
    text = parsed.text(parsed.panels, "0.0.1")
    assert "Engines" in text and "DataFusion : no: <function> has no mapping" in text
    assert "ReadRel.filter as a hint only" in text and "newer than DataFusion's 0.85" in text
    assert "Spark's plan" in text and "▶ Filter (x > 1)" in text
    row = page.split('<table class="schema types">')[1].split("</table>")[0]
    # the Spark type that is not the declared one is marked; the spec's, the same, is not; no DataFusion type: a dash
    assert '<td class="differs">decimal&lt;12,2&gt;' in row and '<td class="">decimal&lt;10,2&gt;' in row
    assert '<td class="">—' in row
    assert "<function>" not in page
    other = page.split('<section class="panel" id="n-0.0"')[1].split("</section>")[0]
    assert "<h3>Engines</h3>" not in other  # nothing said about it: no section
    assert "≠ types: Spark" in svgs[0]  # the mark is drawn on the graph
    assert "no-such-node" not in page
    assert "DataFusion reads Substrait 0.85" in page
    _assert_offline(page)


def test_without_dot_the_nodes_are_listed_instead():
    model = _model("dag_two_roots.json")
    page = html_report(model, "dag_two_roots.json", layout=lambda dot: None)
    _assert_offline(page)
    parsed = _parse(page)
    assert "<svg" not in page and not parsed.svg_nodes
    assert "The graph is not drawn" in page
    tree = page[page.index('<ul class="tree">') :]
    for node_id in model.graph.nodes:  # every node is in the list, as a link to its panel
        assert f'href="#n-{html.escape(node_id)}"' in tree
    shared = {e.target for e in model.graph.edges if e.kind == "reference"}
    assert shared and "(listed above)" in tree  # the shared subtree is listed once, then linked
    assert sorted(parsed.panels) == sorted(model.graph.nodes)


def test_cli_writes_the_report_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "tutorial.html"
    assert viz_main(["html", os.path.join(SAMPLES, "tutorial.json"), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="n-0.0.1"' in page and page.rstrip().endswith("</html>")

    bad = tmp_path / "not-a-plan.json"
    bad.write_text('{"hello": 1}')
    target = tmp_path / "never.html"
    assert viz_main(["html", str(bad), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: not a Substrait plan") and "Traceback" not in err
    assert not target.exists()

    assert viz_main(["html", str(tmp_path / "missing.json"), "-o", str(target)]) == 2
    assert "cannot read" in capsys.readouterr().err

    assert viz_main(["html", os.path.join(SAMPLES, "tutorial.json"), "-o", str(tmp_path / "no" / "dir.html")]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write {tmp_path / 'no' / 'dir.html'}:")

    assert viz_main(["html", os.path.join(SAMPLES, "aggregates.json")]) == 0  # no -o: standard output
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")


def test_cli_without_dot_warns_and_still_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)  # viz.export looks dot up through shutil
    out = tmp_path / "r.html"
    assert viz_main(["html", os.path.join(SAMPLES, "tutorial.json"), "-o", str(out)]) == 0
    assert "warning: the graph is not drawn" in capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert "Graphviz's <code>dot</code> is not installed" in page and 'id="n-0.0.1"' in page


# ---------------------------------------------------------------------------------------------
# The app: AppTest
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def deferred(monkeypatch) -> dict[str, object]:
    """The files download buttons would make when clicked, by file name: the callables Streamlit
    registers for deferred downloads."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    made: dict[str, object] = {}
    real = MediaFileManager.add_deferred

    def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        made[file_name] = data_callable
        return real(self, data_callable, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    return made


@pytest.mark.parametrize("page", [None, "pages/present.py"])
def test_the_app_offers_the_report_with_the_session_runs(page, deferred, spark_calls):  # noqa: F811
    from streamlit.testing.v1 import AppTest

    from executor.jobs.run import RunResult
    from ui.panels.report_button import LABEL
    from ui.panels.run_tab import RunState

    model = _model("tutorial.json")
    result = RunResult(
        columns=["[0] product_id", "[1] categories"],
        types=["bigint", "array<string>"],
        rows=pd.DataFrame({"[0] product_id": [3, 5], "[1] categories": ["['Audio']", "['Books']"]}),
        elapsed_s=0.25,
        row_count=7,
        explain="",
        names=["product_id", "categories"],
    )
    state = RunState(node_id="0.0.1", limit=100)
    state.result = result
    state.done.set()

    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=120)
    at.query_params["sample"] = "tutorial.json"
    # kept by plan, node and data (a sample's own tables, nothing bound)
    at.session_state["runs"] = {(model.digest, "0.0.1", ("tutorial", (), None, (), (), (), None)): state}
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    assert spark_calls == []
    [button] = [b for b in at.get("download_button") if b.label == LABEL]
    assert "row counts for 1 node and sample rows for 1" in button.help
    made = deferred["tutorial-report.html"]()
    _assert_offline(made)
    parsed = _parse(made)
    assert sorted(parsed.panels) == sorted(model.graph.nodes)
    assert (sorted(parsed.svg_nodes) == sorted(model.graph.nodes)) or not HAS_DOT
    text = parsed.text(parsed.panels, "0.0.1")
    assert "7 rows · run in the Run tab (0.25 s)" in text and "['Books']" in text


# ---------------------------------------------------------------------------------------------
# In a browser, offline
# ---------------------------------------------------------------------------------------------


@pytest.mark.browser
@needs_dot
def test_the_report_opens_offline_and_a_click_shows_the_schema(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from tests.support.browser import ARTIFACTS, CHROMIUM, launch_chromium

    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(f"no Chromium at {CHROMIUM}: make test installs Debian's chromium when it runs as root with apt")
    model = _model("tutorial.json")
    report = tmp_path / "tutorial.html"
    runs = {
        "0.0.1": NodeRun(
            rows=7,
            columns=("[0] product_id", "[1] categories"),
            sample=((3, "['Audio']"),),
            note="counted by the profile",
        )
    }
    report.write_text(html_report(model, "tutorial.json", runs), encoding="utf-8")
    evil = tmp_path / "evil.html"
    evil.write_text(html_report(analyze(_evil_plan()), "evil.json"), encoding="utf-8")
    os.makedirs(ARTIFACTS, exist_ok=True)

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            ctx = browser.new_context(offline=True, viewport={"width": 1400, "height": 900}, color_scheme="light")
            requests: list[str] = []
            aborted: list[str] = []
            ctx.on("request", lambda r: requests.append(r.url))

            def gate(route):
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:
                    aborted.append(route.request.url)
                    route.abort()

            ctx.route("**/*", gate)
            page = ctx.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("dialog", lambda d: (problems.append("dialog: " + d.message), d.dismiss()))
            page.goto(report.as_uri())

            # the root's panel is shown first; clicking the Filter's box shows its schema instead
            expect(page.locator('[id="n-0"]')).to_be_visible()
            filt = page.locator('[id="n-0.0.1"]')
            expect(filt).to_be_hidden()
            page.locator('.frame [id="node-0.0.1"]').click()
            expect(filt).to_be_visible()
            expect(page.locator('[id="n-0"]')).to_be_hidden()
            schema = filt.locator("table.schema")
            expect(schema).to_contain_text("categories")
            expect(schema).to_contain_text("list<string>")
            expect(filt).to_contain_text("7 rows")
            assert page.locator('.frame [id="node-0.0.1"]').get_attribute("class") == "node sel"
            # a link in the plan in words selects its node too
            page.locator('ol.story a[data-node="0.0.0"]').click()
            expect(page.locator('[id="n-0.0.0"]')).to_be_visible()
            expect(filt).to_be_hidden()
            page.locator('.frame [id="node-0.0.1"]').click()
            # the wheel zooms in the page
            before = page.inner_text(".zoom")
            box = page.locator(".frame").bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.wheel(0, -300)
            expect(page.locator(".zoom")).not_to_have_text(before)
            page.locator('.toolbar button[data-act="fit"]').click()
            expect(page.locator(".zoom")).to_have_text(before)
            page.screenshot(path=os.path.join(ARTIFACTS, "report.png"))

            # dark mode: the graph takes the dark palette
            dark = browser.new_context(offline=True, viewport={"width": 1400, "height": 900}, color_scheme="dark")
            dark.on("request", lambda r: requests.append(r.url))
            dark.route("**/*", gate)
            dpage = dark.new_page()
            dpage.goto(report.as_uri())
            fill = dpage.locator('.frame [id="node-0.0"] path').first.evaluate("e => getComputedStyle(e).fill")
            expected = PALETTES["dark"].node_fill.lstrip("#")
            assert fill == "rgb({}, {}, {})".format(*(int(expected[i : i + 2], 16) for i in (0, 2, 4)))
            dpage.screenshot(path=os.path.join(ARTIFACTS, "report-dark.png"))
            dark.close()

            # a plan's strings never run as markup
            page.goto(evil.as_uri())
            page.locator('.frame [id="node-0.0.1"]').click()
            expect(page.locator('[id="n-0.0.1"] table.schema')).to_contain_text(EVIL_COLUMN)
            assert page.locator("img").count() == 0 and page.locator("script").count() == 1
        finally:
            browser.close()
    assert problems == [], problems
    assert aborted == [], aborted  # nothing even tried to leave the machine
    assert requests and all(u.startswith("file://") for u in requests), requests
