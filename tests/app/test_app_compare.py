"""The Compare page, driven by streamlit.testing.v1.AppTest (no browser)."""

from __future__ import annotations

import os
import re

from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support.app_graph import graphs, is_graph

APP = os.path.join(ROOT, "app.py")


def _compare() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    return at


def _metrics(at: AppTest) -> dict[str, int]:
    return {m.label: int(m.value) for m in at.metric}


def test_with_no_plans_the_page_says_what_to_do():
    at = _compare()
    assert at.info and "two plans" in at.info[0].value
    assert not graphs(at)


def test_a_sample_pair_shows_summary_graphs_table_and_a_pair():
    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    assert not at.exception and not at.error
    # isthmus q3 (11 nodes) against DataFusion q3 (10 nodes): 10 pairs, isthmus's extra project removed.
    # Two producers: names are compared without regard to case by default (L_ORDERKEY / l_orderkey);
    # the customer reads are then the same
    assert at.toggle(key="compare_ignore_case").value is True
    assert _metrics(at) == {"same": 1, "changed": 9, "removed": 1, "added": 0}
    # with case, no pair is the same
    at.toggle(key="compare_ignore_case").set_value(False).run()
    assert _metrics(at) == {"same": 0, "changed": 10, "removed": 1, "added": 0}
    charts = graphs(at)
    assert len(charts) == 2 and all(is_graph(c["text"]) for c in charts)
    # side by side at one scale, not each fitted to its frame: the wider drawing's width, given to both
    widths = [float(re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', c["text"]).group(1)) * 4 / 3 for c in charts]
    assert [c["open_width"] for c in charts] == [max(widths)] * 2
    assert "#1 ≠ changed" in charts[0]["text"] and "− removed" in charts[0]["text"]

    table = at.dataframe[0].value
    assert list(table["status"]).count("changed") == 10 and list(table["status"]).count("removed") == 1
    removed = table[table["status"] == "removed"]
    # every cell is text: a removed node has no number ("" rather than None) and no b
    assert list(removed["kind"]) == ["Project"] and list(removed["#"]) == [""] and list(removed["b"]) == [""]
    cross = table[table["kind"] == "Cross → Join"]
    # a join without a condition is said a cross product, as a CrossRel is: their details do not differ
    assert len(cross) == 2 and not any("detail" in d for d in cross["differences"])
    assert not any("kind" in d or "None" in d for d in table["differences"])

    # the first changed pair is selected; choose the customer reads (#8): the schemas side by side
    assert at.selectbox(key="compare_selected").value == 1
    at.selectbox(key="compare_selected").select(8).run()
    assert not at.exception
    # dataframes in page order: the differences table, the pair's two schemas, its other differences
    left, right = at.dataframe[1].value, at.dataframe[2].value
    left, right = getattr(left, "data", left), getattr(right, "data", right)  # a Styler or a frame
    assert list(left["name"])[:2] == ["C_CUSTKEY", "C_NAME"] and list(right["name"])[:2] == ["c_custkey", "c_name"]
    assert list(left["type"])[3] == "i32" and list(right["type"])[3] == "i64"
    others = at.dataframe[3].value.to_dict(orient="records")  # the pair's other differences, in the table's words
    assert others[0] == {"difference": "field 0 name", "a": "C_CUSTKEY", "b": "c_custkey"}
    assert {"difference": "field 3 type", "a": "i32", "b": "i64"} in others

    at.toggle(key="compare_ignore_case").set_value(True).run()
    assert _metrics(at) == {"same": 1, "changed": 9, "removed": 1, "added": 0}

    assert at.multiselect(key="compare_status").value == ["changed", "removed", "added"]  # the default
    at.multiselect(key="compare_status").set_value(["removed"]).run()
    assert list(at.dataframe[0].value["status"]) == ["removed"]

    at.radio(key="compare_layout").set_value("one graph").run()
    charts = graphs(at)
    # one graph: the two plans side by side, a dashed line between the nodes of each pair
    text = charts[0]["text"]
    assert len(charts) == 1 and ("stroke-dasharray" in text or "constraint=false" in text)


def test_a_pair_with_expression_differences_shows_both_texts():
    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    assert at.toggle(key="compare_ignore_case").value is True
    # with nullability ignored the two filters are the same condition (DataFusion's nested ands spread out)
    assert at.toggle(key="compare_ignore_nullability").value is True
    at.selectbox(key="compare_selected").select(5).run()  # the filters
    import html
    import re

    def texts() -> tuple[list[str], list[str]]:
        shown = [m.value for m in at.markdown if m.value.startswith(("<code>", "<mark>"))]
        return shown, [html.unescape(re.sub(r"<[^>]+>", "", v)) for v in shown]

    assert texts()[1] == []
    at.toggle(key="compare_ignore_nullability").set_value(False).run()
    shown, plain = texts()
    assert any(t.startswith("and(equal($6:C_MKTSEGMENT") for t in plain), plain
    # DataFusion's and(and(and(...))) is shown spread out, as the graph's key line shows it
    assert any(t.startswith("and(equal($6:c_mktsegment") and "AS date? OR ERROR" in t for t in plain), plain
    # what differs is marked: DataFusion's date? where isthmus casts to date; the names differ only in
    # case, which the page ignores for plans of two producers, and they are not marked
    [right] = [v for v, t in zip(shown, plain) if t.startswith("and(equal($6:c_mktsegment")]
    marked = '<code><span style="background-color: rgba(245, 158, 11, 0.45); border-radius: 2px">'
    assert marked in right and not [
        part for part in right.split(marked)[1:] if "mktsegment" in part.split("</span>")[0]
    ]
    assert any("Marked: the parts of an expression" in c.value for c in at.caption)


def test_changed_spans_mark_what_one_side_has_otherwise():
    from viz.diff import changed_spans

    a, b = changed_spans("gt($1:price, cast(10 AS decimal<10,2>))", "gt($1:PRICE, 10)", ignore_case=True)
    assert "".join(t for t, changed in a if changed) == "cast( AS decimal<10,2>)"
    assert [t for t, changed in b if changed] == []  # what b has is all in a (PRICE is price, case aside)
    assert [t for t, changed in changed_spans("$1:price", "$1:PRICE")[1] if changed] == ["$1:PRICE"]
    assert "".join(t for t, _ in a) == "gt($1:price, cast(10 AS decimal<10,2>))"


def test_two_samples_chosen_one_by_one():
    at = _compare()
    at.selectbox(key="compare_sample_a").select("tutorial.json").run()
    assert not graphs(at)
    at.selectbox(key="compare_sample_b").select("tutorial.json").run()
    assert not at.exception
    assert _metrics(at) == {"same": 5, "changed": 0, "removed": 0, "added": 0}
    assert any("are the same" in s.value for s in at.success)
    assert at.toggle(key="compare_ignore_case").value is False  # one producer: case counts


def test_a_bad_upload_shows_an_error_naming_the_file():
    at = _compare()
    at.selectbox(key="compare_sample_a").select("tutorial.json").run()
    at.file_uploader(key="compare_upload_b").set_value(
        ("broken.pb", b"\x08\x96\x01\xff\xff", "application/octet-stream")
    ).run()
    assert not at.exception
    assert at.error and "broken.pb" in at.error[0].value and "expected a Substrait Plan" in at.error[0].value
    assert not at.metric


def test_a_bad_upload_leaves_the_comparison_it_would_have_replaced():
    """A truncated plan uploaded as the left plan of a comparison on show: the error names the file and
    says the left plan stays, and the comparison is still there (it was thrown away, with "Chosen:" naming
    the bad file)."""
    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    before = _metrics(at)
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        cut = fh.read()[:300]
    at.file_uploader(key="compare_upload_a").set_value(("truncated_q03.json", cut, "application/json")).run()
    assert not at.exception
    error = at.error[0].value.replace("\\", "")
    assert error.startswith("truncated_q03.json was not opened: expected a Substrait Plan"), error
    assert error.endswith("The left plan is still tpch_q03_isthmus.json."), error
    assert _metrics(at) == before
    assert [c.value for c in at.caption if c.value.startswith("Chosen:")][0] == "Chosen: tpch\\_q03\\_isthmus.json"


def test_both_uploaders_state_the_plan_size_limit_the_loader_keeps():
    from viz.load import MAX_PLAN_BYTES

    uploaders = _compare().main.get("file_uploader")
    assert len(uploaders) == 2
    assert all(u.proto.max_upload_size_mb * 2**20 == MAX_PLAN_BYTES for u in uploaders)


def test_the_plan_open_elsewhere_is_the_left_plan():
    """Opened on Inspect, a plan is Compare's left plan at once; the right one is chosen here."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tpch_q03_isthmus.json"
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.session_state["compare_a"].source == "tpch_q03_isthmus.json"
    assert at.selectbox(key="compare_sample_a").value == "tpch_q03_isthmus.json"
    assert any(c.value == "Chosen: tpch\\_q03\\_isthmus.json" for c in at.caption), [c.value for c in at.caption]
    at.selectbox(key="compare_sample_b").select("tpch_q03_datafusion.json").run()
    assert not at.exception and _metrics(at)["removed"] == 1  # isthmus's extra project
    assert not at.warning  # both read TPC-H's tables
    # another plan opened on Inspect becomes the left plan, its pair chosen afresh
    at.switch_page("pages/inspect.py").run()
    at.sidebar.selectbox(key="plan_sample").select("tpch_q02_isthmus.json").run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.session_state["compare_a"].source == "tpch_q02_isthmus.json"
    assert any(c.value == "Chosen: tpch\\_q02\\_isthmus.json" for c in at.caption), [c.value for c in at.caption]
    # TPC-H q02 and q03 read no table in common: most likely two different queries, and said so
    [warning] = at.warning
    assert warning.value == (
        "The two plans read no table in common (left: nation, part, partsupp, region and supplier; right: "
        "customer, lineitem and orders): they are most likely different queries, and their matches say little."
    ), warning.value


def test_another_page_s_address_opened_on_compare_names_the_left_plan():
    """/compare?sample=… (an Inspect link with its page changed) opens that plan on the left, as ?a= does;
    it was ignored."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tpch_q03_isthmus.json"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.session_state["compare_a"].source == "tpch_q03_isthmus.json"
    assert at.selectbox(key="compare_sample_a").value == "tpch_q03_isthmus.json"
    at.selectbox(key="compare_sample_b").select("tpch_q03_datafusion.json").run()
    assert not at.exception and _metrics(at)["removed"] == 1
    assert dict(at.query_params) == {"a": "tpch_q03_isthmus.json", "b": "tpch_q03_datafusion.json"}


def test_a_plan_whose_tables_are_not_bound_is_sent_to_the_tables_page():
    """An upload is bound to nothing of its own: its rows cannot be compared, the page says which tables
    and offers to bind them, which opens it on the Tables page (whose plan is the open one). The sample
    pickers no longer name what is compared."""
    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_isthmus.json"), "rb") as fh:
        at.file_uploader(key="compare_upload_a").set_value(("q03_v1.json", fh.read(), "application/json")).run()
    assert not at.exception
    assert at.selectbox(key="compare_pair").value == "(none)" and at.selectbox(key="compare_sample_a").value == "(none)"
    warnings = [w.value for w in at.warning if "not bound to data that serves them" in w.value]
    assert len(warnings) == 1 and warnings[0].startswith("Left plan (a) reads 3 tables "), warnings
    assert all(t in warnings[0] for t in ("CUSTOMER", "ORDERS", "LINEITEM"))
    assert at.button(key="compare_outputs_button").disabled
    assert any(c.value.startswith("Bind the tables of the left plan (a) first") for c in at.caption)
    at.button(key="bind_a").click().run()
    assert not at.exception
    assert at.session_state["plan"].source == "q03_v1.json"
    assert any(h.value == "Tables" for h in at.title)


def test_rows_alike_with_columns_differing_only_in_nullability_read_as_the_same_rows(spark):
    """DataFusion's and DuckDB's TPC-H q3 give the same 10 rows (both engines' tests check q03 against
    DuckDB); their columns differ only in nullability, which is not counted as columns differing, and
    with "Ignore nullability" on (as two producers open) is not said at all."""
    from tests.support import wait_for

    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: DataFusion vs DuckDB").run()
    assert not at.exception and not at.error
    assert at.toggle(key="compare_ignore_nullability").value is True
    at.selectbox(key="compare_selected").select(1).run()  # the roots
    for ignored in (True, False):
        at.toggle(key="compare_ignore_nullability").set_value(ignored).run()
        at.button(key="compare_outputs_button").click().run()
        wait_for(at, lambda a: any(m.label == "Columns differing" for m in a.metric) or bool(a.error))
        assert not at.error, [e.value for e in at.error]
        [metric] = [m for m in at.metric if m.label == "Columns differing"]
        assert int(metric.value) == 0
        if ignored:
            assert any(s.value == "Same schema and the same 10 rows." for s in at.success)
            assert "nullability" not in " ".join(c.value for c in at.caption)
        else:
            assert "differing only in nullability" in metric.proto.help
            said = [s.value for s in at.success]
            assert any(s.startswith("The same 10 rows; the schemas differ only in nullability") for s in said)


def test_rows_alike_with_a_column_of_another_type_read_as_the_same_rows(spark):
    """isthmus's and DataFusion's TPC-H q3 give the same 10 rows; revenue is decimal<31,4> in one and
    decimal<38,4> in the other. The page says the rows are the same where "Columns differing 1" alone read
    like a difference in the data (a user check)."""
    from tests.support import wait_for

    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    at.selectbox(key="compare_selected").select(1).run()  # the roots
    at.button(key="compare_outputs_button").click().run()
    wait_for(at, lambda a: any(m.label == "Columns differing" for m in a.metric) or bool(a.error))
    assert not at.error, [e.value for e in at.error]
    assert [int(m.value) for m in at.metric if m.label == "Columns differing"] == [1]
    assert "The same 10 rows: the columns below differ in their schema, not in a value." in [
        s.value for s in at.success
    ]
    assert any("type decimal\\<31,4\\>? vs decimal\\<38,4\\>?" in c.value for c in at.caption)


def test_the_address_names_both_plans_and_reopens_the_comparison(tmp_path, monkeypatch):
    """Two plans chosen: the address names them (a sample by its file, another plan by its shared digest),
    and that address opened in a new session shows the same comparison; a side the server does not have
    is said on its side."""
    from ui.state import share

    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    at = _compare()
    at.selectbox(key="compare_pair").set_value("TPC-H q3: isthmus vs DataFusion").run()
    assert not at.exception
    assert dict(at.query_params) == {"a": "tpch_q03_isthmus.json", "b": "tpch_q03_datafusion.json"}
    summary = _metrics(at)
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_duckdb.json"), "rb") as fh:
        digest = share.save_shared(fh.read())
    for b, shown in (("tpch_q03_datafusion.json", summary), (digest, None)):
        again = AppTest.from_file(APP, default_timeout=60)
        again.query_params["a"] = "tpch_q03_isthmus.json"
        again.query_params["b"] = b
        again.switch_page("pages/compare.py").run()
        assert not again.exception and not again.error, [e.value for e in again.error]
        assert [c.value for c in again.caption if c.value.startswith("Chosen:")] == [
            "Chosen: tpch\\_q03\\_isthmus.json",
            "Chosen: " + ("tpch\\_q03\\_datafusion.json" if shown else f"shared plan {digest[:8]}"),
        ]
        if shown is not None:
            assert _metrics(again) == shown
    lost = AppTest.from_file(APP, default_timeout=60)
    lost.query_params["a"] = "tpch_q03_isthmus.json"
    lost.query_params["b"] = "0" * 64
    lost.switch_page("pages/compare.py").run()
    assert not lost.exception
    assert [e.value for e in lost.error] == [
        "The link's right plan (b), '" + "0" * 64 + "', is not on this server: choose it here instead."
    ]


def test_an_uploaded_plan_keeps_its_name_through_the_compare_address(tmp_path, monkeypatch):
    """An uploaded plan on the right: the address carries the name it was uploaded under beside its
    digest, and the address opened in a new session names it so (it was "shared plan 1a2b3c4d")."""
    from ui.state import share

    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    at = _compare()
    at.selectbox(key="compare_sample_a").select("tutorial.json").run()
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        data = fh.read()
    at.file_uploader(key="compare_upload_b").set_value(("my plan.json", data, "application/json")).run()
    assert not at.exception
    params = dict(at.query_params)
    assert params == {"a": "tutorial.json", "b": share.save_shared(data), "b_name": "my plan.json"}, params
    again = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        again.query_params[key] = value
    again.switch_page("pages/compare.py").run()
    assert not again.exception
    assert [c.value for c in again.caption if c.value.startswith("Chosen:")] == [
        "Chosen: tutorial.json",
        "Chosen: my plan.json",
    ]


def test_the_ignore_toggles_keep_their_values_across_pages():
    """Both "Ignore" toggles are as the person left them after a visit to another page (the nullability
    one had fallen back to off, so every node of two producers' plans differed)."""
    at = _compare()
    at.selectbox(key="compare_pair").select("TPC-H q3: isthmus vs DataFusion").run()
    assert at.toggle(key="compare_ignore_nullability").value is True  # two producers: on by default
    at.toggle(key="compare_ignore_case").set_value(False).run()
    at.switch_page("pages/tables.py").run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.toggle(key="compare_ignore_nullability").value is True
    assert at.toggle(key="compare_ignore_case").value is False
