"""The Streamlit pages, driven by streamlit.testing.v1.AppTest (no browser)."""

from __future__ import annotations

import html
import json
import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support import plans as P
from tests.support.app_graph import graph_text, graphs, is_graph, nodes_drawn
from ui.markdown import md_escape

APP = os.path.join(ROOT, "app.py")
SAMPLES = sorted(
    f for f in os.listdir(os.path.join(ROOT, "sample_plans")) if f.endswith(".json") and f != "manifest.json"
)


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def _dot(at: AppTest) -> str:
    return graph_text(at)


def _painted(at: AppTest) -> str | None:
    """The node the graph viewer (or, without dot, the graph-click component) paints as selected."""
    return graphs(at)[0]["selected"]


def _schema_tables(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("| index | name | type |")]


def _schema_names(at: AppTest) -> list[str]:
    """The names in the inspector's schema table (Markdown with a ``<code>`` element per name)."""
    rows = _schema_tables(at)[0].splitlines()[2:]
    return [_shown(row.split(" | ")[1]) for row in rows]


def _shown(cell: str) -> str:
    """The text a browser shows for a table cell's ``<code>`` element."""
    assert cell.startswith("<code>") and cell.endswith("</code>"), cell
    return html.unescape(cell[len("<code>") : -len("</code>")].replace("<wbr>", ""))


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_plan_renders_without_exception(sample):
    at = _app()
    at.sidebar.selectbox(key="plan_sample").select(sample).run()
    assert not at.exception
    assert is_graph(_dot(at))
    assert _schema_tables(at), "the selected node's schema is shown"


def test_opening_with_nothing_explains_what_to_do():
    at = _app()
    assert not at.exception
    assert at.info and "Upload" in at.info[0].value


def test_a_bad_upload_shows_an_error_and_the_page_keeps_working():
    at = _app()
    at.sidebar.file_uploader[0].set_value(("broken.pb", b"\x08\x96\x01\xff\xff", "application/octet-stream")).run()
    assert not at.exception
    # with no plan open, said once, where the plan would be (not again beside the uploader), and the hint
    # to upload gives way to it
    assert [e.value for e in at.main.error] == [e.value for e in at.error]
    assert at.main.error[0].value.startswith("broken.pb was not opened: expected a Substrait Plan")
    assert not at.sidebar.error and not at.info
    at.sidebar.selectbox(key="plan_sample").select("tutorial.json").run()
    assert not at.exception and not at.error
    assert is_graph(_dot(at))
    # with a plan open, the refusal of another stays beside the uploader: the plan shown is not in question
    at.sidebar.file_uploader[0].set_value(("broken.pb", b"\x08\x96\x01\xff\xff", "application/octet-stream")).run()
    assert at.sidebar.error and not at.main.error and is_graph(_dot(at))


def test_an_uploaded_json_plan_is_drawn():
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        data = fh.read()
    at = _app()
    at.sidebar.file_uploader[0].set_value(("mine.json", data, "application/json")).run()
    assert not at.exception and not at.error
    assert "mine.json" in at.markdown[0].value
    assert _schema_names(at) == ["product_name", "product_id", "sales"]  # the root is selected first


def test_a_node_without_a_schema_says_why_in_the_schema_tab():
    """An extension relation defines its own output: the Schema tab gives that reason, not only a pointer to
    the Diagnostics tab (which counts it among the notes, not the problems)."""
    doc = {
        "version": {"minorNumber": 80},
        "relations": [{"root": {"input": {"extensionLeaf": {}}, "names": ["a"]}}],
    }
    at = _app()
    at.sidebar.file_uploader[0].set_value(("ext.json", json.dumps(doc).encode(), "application/json")).run()
    assert not at.exception
    assert [w.value for w in at.warning] == [
        md_escape(
            "The output schema could not be derived: an extension relation defines its own output; its schema is "
            "unknown to this tool."
        )
    ]


def test_bad_paste_shows_an_error():
    at = _app()
    at.sidebar.text_area[0].input('{"relations": [').run()
    assert not at.exception
    assert at.error and "found JSON that ends early" in at.error[0].value


def test_selecting_a_node_shows_its_schema_and_puts_it_in_the_url():
    at = _app(sample="tutorial.json")
    before = _dot(at)
    assert _painted(at) == "0"  # the root first
    assert graphs(at)[0]["sent"]  # the drawing itself, the first time
    at.selectbox(key="node").select("0.0.0").run()
    assert not at.exception
    assert _schema_names(at) == ["product_id", "quantity", "order_date", "price"]
    assert at.query_params["node"] in ("0.0.0", ["0.0.0"])
    # painted in the page; the DOT stays the same, so the browser does not lay the graph out again
    assert _painted(at) == "0.0.0"
    assert _dot(at) == before
    if before.lstrip().startswith("<svg"):  # the viewer: the page has the SVG, a rerun sends only its key
        assert not graphs(at)[0]["sent"]
    assert "#fff3c4" not in before


def test_a_link_with_a_node_opens_that_node():
    at = _app(sample="tutorial.json", node="0.0.1.0")
    assert not at.exception
    assert at.selectbox(key="node").value == "0.0.1.0"
    assert "product_name" in _schema_names(at)
    # the picker says what an id like this one means
    assert "`0.1` that node's second input" in at.selectbox(key="node").help


def test_the_selection_survives_reruns():
    at = _app(sample="tutorial.json")
    at.selectbox(key="node").select("0.0.1").run()
    at.sidebar.radio(key="trace").set_value("orderedness").run()
    assert at.selectbox(key="node").value == "0.0.1"


def test_clicking_a_diagnostic_selects_its_node():
    # A filter whose condition reads field 7 of a 2-field input: an error on node 0.0.
    doc = P.plan((P.read("t", [("a", "i64"), ("b", "i64")]), ["a", "b"]))
    doc["relations"][0]["root"]["input"] = {
        "filter": {"input": doc["relations"][0]["root"]["input"], "condition": P.field(7)}
    }
    at = _app()
    at.sidebar.file_uploader[0].set_value(("bad-field.json", json.dumps(doc).encode(), "application/json")).run()
    assert at.selectbox(key="node").value == "0"
    buttons = [b for b in at.button if b.key and b.key.startswith("diag-")]
    assert [b.label.split(" · ")[0] for b in buttons] == ["error 0"]
    assert "field 7" in buttons[0].label
    at.selectbox(key="node").select("0.0").run()
    buttons[0].click().run()
    assert at.selectbox(key="node").value == "0"


def test_a_warning_about_the_whole_plan_is_boxed_once():
    """DuckDB's q03 departs from the spec's ProjectRel output: the warning's box is above the graph,
    and the diagnostics list names it in a line, not in a second box."""
    at = _app(sample="tpch_q03_duckdb.json")
    boxed = [w.value for w in at.warning if "producer-convention" in w.value]
    assert len(boxed) == 1 and "departs from the spec" in boxed[0]
    lines = [c.value for c in at.caption if "producer-convention" in c.value]
    assert len(lines) == 1 and lines[0].startswith("warning · the whole plan · producer-convention")


def test_search_focus_and_collapse_change_the_graph():
    at = _app(sample="tutorial.json")
    full = _dot(at)
    at.sidebar.text_input(key="search").input("products").run()
    assert "1 node match" in at.sidebar.caption[0].value
    # the hit is painted in the page: the graph is not laid out again
    assert graphs(at)[0]["hits"] == ["0.0.1.0"] and _dot(at) == full
    at.selectbox(key="node").select("0.0.1").run()
    at.sidebar.toggle(key="focus").set_value(True).run()
    focused = _dot(at)
    assert "0.0.1" in nodes_drawn(focused) and not {"0.0.0", "0"} & nodes_drawn(focused)
    at.sidebar.toggle(key="focus").set_value(False).run()
    at.sidebar.multiselect(key="collapsed").select("0.0").run()
    collapsed = _dot(at)
    assert "0.0" in nodes_drawn(collapsed) and "0.0.1.0" not in nodes_drawn(collapsed)
    assert "3 nodes collapsed" in collapsed
    assert "0.0.1.0" in nodes_drawn(full)


def test_tracing_a_property_colours_the_nodes_that_change_it():
    at = _app(sample="tpch_q03_duckdb.json")
    at.sidebar.radio(key="trace").set_value("orderedness").run()
    assert not at.exception
    assert "order: established" in _dot(at)


def test_inspector_shows_inputs_with_referenced_fields_and_exports():
    at = _app(sample="tutorial.json", node="0.0")
    assert not [d for d in at.dataframe if "read" in d.value.columns]  # only the open tab (Schema) is drawn
    at.session_state["inspector_tab"] = "Inputs"
    at.run()
    frames = [d.value for d in at.dataframe]
    read = [list(f["read"]) for f in frames if "read" in f.columns]
    assert read == [["●", "", "", ""], ["●", "", "", ""]]  # the join reads $0 and $4: product_id on each side
    assert all(list(f.columns)[0] == "read" for f in frames if "read" in f.columns)  # the mark shows first
    # the right input's record type (51 characters) took the tab's width and pushed the names out of sight:
    # its column is at most 180 px (the page's TYPE_MAX_PX), the left's as wide as "decimal<10,2>?" needs
    widths = [json.loads(d.proto.columns)["type"]["width"] for d in at.dataframe if "read" in d.value.columns]
    assert widths == [20 + 8 * len("decimal<10,2>?"), 180], widths
    labels = [b.label for b in at.get("download_button")]
    assert "Graph (DOT)" in labels and "Node report (JSON)" in labels
    # a download changes nothing on the page, so it reruns nothing (on a busy server, work taken from runs)
    assert all(b.proto.ignore_rerun for b in at.get("download_button")), labels


def test_the_inputs_tab_says_a_reference_that_no_input_has():
    """The tutorial's join with its right key changed from $4 to $14 (the inputs have 8 fields): the tab
    marks $0 and says $14 is in no input, where it marked $0 alone."""
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), encoding="utf-8") as fh:
        text = fh.read()
    doc = json.loads(text)
    join = doc["relations"][0]["root"]["input"]["aggregate"]["input"]["join"]
    ref = join["expression"]["scalarFunction"]["arguments"][1]["value"]["selection"]["directReference"]
    assert ref["structField"]["field"] == 4
    ref["structField"]["field"] = 14
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.sidebar.text_area(key="plan_pasted").input(json.dumps(doc)).run()
    at.selectbox(key="node").set_value("0.0").run()
    at.session_state["inspector_tab"] = "Inputs"
    at.run()
    assert not at.exception
    assert [e.value for e in at.warning if e.value.startswith("Its expressions refer")] == [
        "Its expressions refer to a field no input has: field 14 is out of range: the input has 8 fields (0-7)."
    ]


TABLES = "pages/tables.py"


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s != "errors.json"])
def test_tables_page_binds_every_sample_to_its_data(sample):
    at = _app(sample=sample)
    at.switch_page(TABLES).run()
    assert not at.exception and not at.error
    frames = [d.value for d in at.dataframe if "bound" in d.value.columns]
    if frames:  # plans that read only virtual tables need no data
        assert set(frames[0]["bound"]) == {"yes"}, frames[0]


def test_tables_page_shows_an_unbound_table_and_binds_an_upload(tmp_path):
    doc = P.plan((P.read("my_table", [("a", "i64"), ("b", "string")]), ["a", "b"]))
    at = _app()
    at.sidebar.file_uploader[0].set_value(("mine.json", json.dumps(doc).encode(), "application/json")).run()
    at.switch_page(TABLES).run()
    frame = [d.value for d in at.dataframe if "bound" in d.value.columns][0]
    assert list(frame["table"]) == ["my_table"] and list(frame["bound"]) == ["no"]
    at.file_uploader(key="bind_file").set_value(("../../evil name.csv", b"a,b\n1,x\n", "text/csv")).run()
    at.button(key="bind_upload").click().run()
    assert not at.exception
    frame = [d.value for d in at.dataframe if "bound" in d.value.columns][0]
    assert list(frame["bound"]) == ["yes"]
    [for_plan] = at.session_state["table_bindings"].values()  # bindings are kept per plan
    bound_path = for_plan["my_table"]
    assert os.path.basename(bound_path) == "evil_name.csv"  # the uploaded name cannot leave the uploads folder
    assert bound_path.startswith(at.session_state["uploads_dir"])

    # another plan reading my_table does not get this plan's binding
    other = P.plan((P.read("my_table", [("a", "i64")]), ["a"]))
    at.switch_page("pages/inspect.py").run()
    at.sidebar.file_uploader[0].set_value(("other.json", json.dumps(other).encode(), "application/json")).run()
    at.switch_page(TABLES).run()
    assert list([d.value for d in at.dataframe if "bound" in d.value.columns][0]["bound"]) == ["no"]
    assert not any(b.key == "unbind" for b in at.button)  # nothing bound for this plan

    # back to the first plan: bound; unbinding it makes it unbound again
    at.switch_page("pages/inspect.py").run()
    at.sidebar.file_uploader[0].set_value(("mine.json", json.dumps(doc).encode(), "application/json")).run()
    at.switch_page(TABLES).run()
    assert list([d.value for d in at.dataframe if "bound" in d.value.columns][0]["bound"]) == ["yes"]
    at.button(key="unbind").click().run()
    assert not at.exception
    assert list([d.value for d in at.dataframe if "bound" in d.value.columns][0]["bound"]) == ["no"]


OTHER_PAGES = ["pages/step.py", "pages/compare.py", "pages/sql.py", "pages/present.py", "pages/tables.py"]


def test_settings_and_selection_survive_a_trip_to_every_other_page():
    at = _app(sample="tutorial.json", node="0.0.1")
    at.radio(key="trace").set_value("orderedness").run()
    at.slider(key="max_rows").set_value(9).run()
    at.switch_page(TABLES).run()
    at.toggle(key="use_tpch").set_value(True).run()
    for page in OTHER_PAGES:
        at.switch_page(page).run()
        assert not at.exception, page
        at.switch_page("pages/inspect.py").run()
        assert not at.exception
        assert at.session_state["node"] == "0.0.1", page
        assert at.radio(key="trace").value == "orderedness", page
        assert at.slider(key="max_rows").value == 9, page
        assert at.session_state["use_tpch"] is True, page
    at.switch_page(TABLES).run()
    assert at.toggle(key="use_tpch").value is True


def test_view_settings_are_in_the_url_and_a_link_opens_with_them():
    at = _app(sample="tutorial.json", node="0.0.1")
    assert "trace" not in at.query_params and "max_rows" not in at.query_params  # defaults stay out
    at.radio(key="trace").set_value("orderedness").run()
    at.toggle(key="focus").set_value(True).run()
    at.multiselect(key="collapsed").select("0.0.1").run()
    at.slider(key="max_rows").set_value(9).run()
    at.text_input(key="search").input("orders").run()
    link = {k: at.query_params[k] for k in ("trace", "focus", "collapsed", "max_rows", "search")}
    assert link == {"trace": "orderedness", "focus": "1", "collapsed": "0.0.1", "max_rows": "9", "search": "orders"}
    # someone opens that link: the view is the same
    other = _app(sample="tutorial.json", node="0.0.1", **link)
    assert other.radio(key="trace").value == "orderedness" and other.toggle(key="focus").value is True
    assert other.multiselect(key="collapsed").value == ["0.0.1"] and other.slider(key="max_rows").value == 9
    assert other.text_input(key="search").value == "orders"
    # values the page cannot take are ignored, not errors
    odd = _app(sample="tutorial.json", trace="sideways", focus="maybe", collapsed="9.9", max_rows="400")
    assert not odd.exception and odd.radio(key="trace").value == "none" and odd.toggle(key="focus").value is False
    assert odd.multiselect(key="collapsed").value == [] and odd.slider(key="max_rows").value == 12
    odd.radio(key="trace").set_value("distribution").run()
    assert odd.query_params["trace"] == "distribution"
    odd.radio(key="trace").set_value("none").run()
    assert "trace" not in odd.query_params


def test_the_schema_table_keeps_every_character_of_names_and_types():
    # names and types are code whose punctuation is character references: `*`, `$`, `_` and `<...>` are
    # neither Markdown nor HTML, a `|` does not end the cell; a name breaks after `_`, not mid-word
    from ui.panels.schema_table import schema_markdown

    rows = [
        {"index": 0, "name": "a|b", "type": "struct<x: i32, y: string?>?", "nullable": True},
        {"index": 1, "name": "$1*_x", "type": "i64", "nullable": False},
        {"index": 2, "name": "q`t</code><b>", "type": "string?", "nullable": True},
        {"index": 3, "name": "b_street_number", "type": "decimal<38,2>?", "nullable": True},
    ]
    lines = schema_markdown(rows).splitlines()
    assert lines[0] == "| index | name | type |"
    cells = [line.split(" | ") for line in lines[2:]]
    assert [c[0] for c in cells] == ["| 0", "| 1", "| 2", "| 3"] and all(len(c) == 3 for c in cells)
    assert [_shown(c[1]) for c in cells] == [r["name"] for r in rows]
    assert [_shown(c[2].removesuffix(" |")) for c in cells] == [r["type"] for r in rows]
    assert not any(ch in c[1][6:-7].replace("<wbr>", "") for c in cells for ch in "|*$`<>")  # only the tags raw
    assert cells[3][1] == "<code>b&#95;<wbr>street&#95;<wbr>number</code>"


def test_the_url_keeps_naming_the_plan_shown():
    """Streamlit drops the query when the page changes; the next run puts the plan back in the URL, so a
    reload opens the same plan. A plan opened from the sidebar replaces the one the URL named."""
    from ui.state.share import save_shared

    at = _app(sample="tutorial.json")
    assert at.query_params["sample"] in ("tutorial.json", ["tutorial.json"])
    del at.query_params["sample"]  # what a page switch in the browser does
    at.run()
    assert not at.exception
    assert at.query_params["sample"] in ("tutorial.json", ["tutorial.json"])
    # pasted JSON is named by its copy saved for sharing, under the name it was opened with; the
    # sample (in the URL and the sidebar's picker) no longer describes what is shown
    with open(os.path.join(ROOT, "sample_plans", "set_ops.json"), encoding="utf-8") as fh:
        pasted = fh.read()
    at.sidebar.text_area(key="plan_pasted").input(pasted).run()
    assert not at.exception and at.session_state["plan"].source == "pasted JSON"
    assert "sample" not in at.query_params and at.sidebar.selectbox(key="plan_sample").value == "(none)"
    digest = save_shared(pasted.encode())
    assert at.query_params["plan"] in (digest, [digest]) and at.query_params["name"] in ("pasted JSON", ["pasted JSON"])
    reloaded = _app(plan=digest, name="pasted JSON")  # a reload: a new session on the same URL
    assert not reloaded.exception and reloaded.session_state["plan"].data == pasted.encode()
    assert reloaded.session_state["plan"].source == "pasted JSON"
    # a shared plan's link is put back too
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        digest = save_shared(fh.read())
    shared = _app(plan=digest)
    del shared.query_params["plan"]
    shared.run()
    assert not shared.exception and shared.query_params["plan"] in (digest, [digest])
    assert "sample" not in shared.query_params
    # a plan made from SQL over TPC-H: the data it was made over comes with the link (its tables are TPC-H's
    # in a session whose TPC-H toggle is off)
    made = _app(plan=digest, name="SQL: SELECT 1", data="tpch")
    assert not made.exception and made.session_state["plan"].written_for == "tpch"
    assert made.query_params["data"] in ("tpch", ["tpch"]) and not made.session_state.get("use_tpch")
    assert _app(plan=digest, data="../etc").session_state["plan"].written_for is None  # only the known kinds


def test_the_pasted_plan_opens_with_its_button():
    """Ctrl+Enter in the box is not the only way: the button under it opens what was pasted."""
    at = _app()
    with open(os.path.join(ROOT, "sample_plans", "set_ops.json"), encoding="utf-8") as fh:
        at.session_state["plan_pasted"] = fh.read()  # in the box, not applied
    at.run()
    assert "plan" not in at.session_state
    at.sidebar.button(key="plan_paste_open").click().run()
    assert not at.exception and at.session_state["plan"].source == "pasted JSON"


def test_the_uploader_states_the_plan_size_limit_the_loader_keeps():
    """Streamlit's default hint, "200MB per file", promised more than a plan may hold."""
    from viz.load import MAX_PLAN_BYTES

    at = _app()
    assert at.sidebar.file_uploader[0].proto.max_upload_size_mb * 2**20 == MAX_PLAN_BYTES


def test_the_properties_tab_says_what_each_effect_means():
    """The physical sample's merge join loses its sorted inputs' order (the spec: "Merge Equijoin:
    Orderedness is eliminated"); the tutorial's root aggregate has an unordered input, so nothing to lose:
    the tab says each in words beside the effect's name."""
    for sample, node, said in (
        ("physical.json", "1", "**orderedness**: `none` — *eliminated* (this node loses its input's)"),
        ("tutorial.json", "0", "**orderedness**: `none` — *kept* (its input's is none too)"),
    ):
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["inspector_tab"] = "Properties"
        at.query_params["sample"] = sample
        at.query_params["node"] = node
        at.run()
        assert not at.exception
        lines = [m.value for m in at.markdown if m.value.startswith("**orderedness**")]
        assert lines == [said], lines


def test_the_run_tab_warns_of_a_cross_product_before_anything_runs():
    """DataFusion's TPC-H q03 joins customer and orders without a condition (0.0*5, its filter above): the
    Run tab says so before a click, and what the exact count would do; a join on a key gets no such word."""
    # the tutorial's join is on product_id
    for sample, node, warned in (("tpch_q03_datafusion.json", "0.0*5", True), ("tutorial.json", "0.0", False)):
        at = AppTest.from_file(APP, default_timeout=60)
        at.session_state["inspector_tab"] = "Run"
        at.query_params["sample"] = sample
        at.query_params["node"] = node
        at.run()
        assert not at.exception and at.button(key="run_button")  # the Run tab is drawn
        said = [w.value for w in at.warning if w.value.startswith("A join without a condition")]
        assert bool(said) is warned and all("Exact row count" in w for w in said), (node, said)


def test_the_expressions_tab_lists_a_nested_and_one_condition_a_line():
    """A filter of ``and(and(a, b), c)``: the tab lists a, b and c, and keeps the plan's nesting below."""
    from tests.model.test_spread import BOOLEAN, ORDERS

    a, b, c = (P.call(1, P.field(i), P.i64(i)) for i in range(3))
    condition = P.call(11, P.call(11, a, b), c)
    doc = P.plan(
        ({"filter": {"input": P.read("orders", ORDERS), "condition": condition}}, ["a", "b", "c"]), functions=BOOLEAN
    )
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.sidebar.text_area(key="plan_pasted").input(json.dumps(doc)).run()
    at.session_state["inspector_tab"] = "Expressions"
    at.run()
    assert not at.exception
    assert "**condition**: all of these 3 (and)" in [m.value for m in at.markdown]
    codes = [c.value for c in at.code]
    assert codes[0] == "equal($0:o_id, 0)\n\nequal($1:o_cust, 1)\n\nequal($2:o_total, 2)"
    assert codes[1].startswith("and(and(equal($0:o_id, 0), equal($1:o_cust, 1)), ")  # the plan's own shape


def test_the_expressions_tab_heads_a_projects_columns_by_their_place_in_the_output():
    """isthmus's q03 project 0.0*4 computes $33-$36 (after its input's 33 fields) and its emit outputs them as
    [0]-[3]: the headings say [0] L_ORDERKEY ... as the schema does, where "$33" read like the "$n:name" of
    the input fields in the text below it (a user check)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tpch_q03_isthmus.json"
    at.query_params["node"] = "0.0*4"
    at.session_state["inspector_tab"] = "Expressions"
    at.run()
    at.run()  # the inspector's tabs are drawn after the graph
    assert not at.exception
    heads = [m.value for m in at.markdown if m.value.startswith("**\\[")]
    assert heads[:3] == [
        "**\\[0\\] L\\_ORDERKEY (\\$33 before the emit)**",
        "**\\[1\\] O\\_ORDERDATE (\\$34 before the emit)**",
        "**\\[2\\] O\\_SHIPPRIORITY (\\$35 before the emit)**",
    ], heads


def test_an_address_naming_a_node_the_plan_lacks_says_so_on_each_page():
    """A link whose node is not in its plan (``node=0.9.9.9``) opens the page's own first node and says
    which node the address named (it was changed without a word), naming what is shown as the page does
    (Present talks in steps); the next rerun says nothing more."""
    pages = (("pages/inspect.py", "node 0", "0"), ("pages/step.py", "node 0.0.0", "0.0.0"))
    for page, called, shown in pages + (("pages/present.py", "step 1", None),):
        at = AppTest.from_file(APP, default_timeout=60)
        at.query_params["sample"] = "tutorial.json"
        at.query_params["node"] = "0.9.9.9"
        at.switch_page(page).run()
        assert not at.exception
        [toast] = [t.value for t in at.toast]
        assert toast == md_escape(f"This plan has no node “0.9.9.9”, which the address names: {called} is shown.")
        if shown is not None:
            assert at.query_params["node"] in (shown, [shown])
        at.run()
        assert not at.toast


def test_the_search_box_says_what_the_graphs_colours_mean():
    """Blue, green, yellow and orange all showed on a searched graph, and nothing said which was what."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tutorial.json"
    at.run()
    assert not at.exception
    help_text = at.sidebar.text_input(key="search").help
    assert all(word in help_text for word in ("match", "green", "orange", "selected node is yellow", "root blue"))


def test_another_plan_opens_without_the_last_ones_search_and_collapsed_nodes():
    """A search or a collapsed node belongs to the plan it was made in: another plan, opened from the
    samples, starts with neither, and the URL drops them (the search had stayed, matching nothing)."""
    at = _app(sample="tutorial.json")
    at.text_input(key="search").input("orders").run()
    at.multiselect(key="collapsed").select("0.0.1").run()
    assert at.query_params.get("search") and at.query_params.get("collapsed")
    at.sidebar.selectbox(key="plan_sample").select("tpch_q03_isthmus.json").run()
    assert not at.exception
    assert at.text_input(key="search").value == "" and at.multiselect(key="collapsed").value == []
    assert "search" not in at.query_params and "collapsed" not in at.query_params


def test_the_diagnostics_heading_counts_errors_warnings_and_notes_apart():
    """A browser check read "2 problems" over a plan whose rows were right: its two warnings (a producer's own
    types) were counted as problems. The heading counts each severity by its name."""
    at = _app(sample="errors.json")
    assert not at.exception
    [heading] = [m.value for m in at.markdown if m.value.startswith("**Diagnostics**")]
    assert heading == "**Diagnostics** (5 errors, 0 warnings, 0 notes)"  # the sample's five errors, by hand
