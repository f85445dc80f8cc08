"""Text shown as it is (issue 37): counts of any size read at a glance, ids with ``*`` shown literally,
the node picker's exact match first, a panel's failure as a message, a bad upload keeping the open plan.
AppTest, no Spark and no browser (tests/browser/test_e2e_literal.py checks the drawing in Chromium)."""

from __future__ import annotations

import json
import math
import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support import plans as P
from ui.markdown import md_escape
from ui.state.selection import match_node
from viz.counts import count_text, rows_hover, rows_text
from viz.render import NodeStat, Overlay, View, to_dot

APP = os.path.join(ROOT, "app.py")


def starred_plan() -> dict:
    """A fetch chain of 6 over a cross product whose right input is a chain of 5 over a read: node ids
    ``0``, ``0.0`` ... ``0.0*5`` (the cross product), ``0.0*5.1`` ... ``0.0*5.1.0*4`` (a read with two
    ``*`` in its id), and ``0.0*6`` (the left read)."""

    def fetch(rel: dict) -> dict:
        return {"fetch": {"input": rel, "count": "5"}}

    right = P.read("right_t", [("b", "i64")])
    for _ in range(4):
        right = fetch(right)
    rel = {"cross": {"left": P.read("left_t", [("a", "i64")]), "right": right}}
    for _ in range(5):
        rel = fetch(rel)
    return P.plan((rel, ["a", "b"]))


def _app(doc: dict, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if page:
        at.switch_page(page)
    at.run()
    at.sidebar.file_uploader[0].set_value(("starred.json", json.dumps(doc).encode(), "application/json")).run()
    assert not at.exception
    return at


# ---- counts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "0"),
        (1, "1"),
        (999_999_999, "999,999,999"),
        (1_000_000_000, "1.0 × 10⁹"),
        (1_384_000_000_000, "1.4 × 10¹²"),
        (1_350_000_000_000, "1.4 × 10¹²"),
        (1_349_999_999_999, "1.3 × 10¹²"),
        (9_960_000_000, "1.0 × 10¹⁰"),  # 9.96 rounds up to the next power
        (910908270512606691690857602809186926592 * 10**24, "9.1 × 10⁶²"),  # TPC-DS q64's largest derived count
        (10**400, "1.0 × 10⁴⁰⁰"),  # beyond any float
    ],
)
def test_a_count_reads_at_a_glance(n, text):
    assert count_text(n) == text


def test_the_exact_count_is_for_the_hover():
    assert rows_text(1) == "1 row" and rows_text(12_345) == "12,345 rows"
    assert rows_hover(12_345) == ""  # already exact
    assert rows_hover(2**64) == "exactly 18,446,744,073,709,551,616 rows"


def test_a_huge_count_on_the_graph_is_short_with_the_exact_number_on_hover():
    model = P.model_of(starred_plan())
    big = 101468682009710400000
    dot = to_dot(model, view=View(profile=Overlay((("0.0*5", NodeStat(rows=big)), ("0.0*6", NodeStat(rows=7))))))
    assert "1.0 × 10²⁰ rows" in dot and "101468682009710400000" not in dot.replace(",", "").replace("exactly 101", "")
    node = next(line for line in dot.splitlines() if line.startswith('  "0.0*5" ['))
    assert 'tooltip="0.0*5 Cross · exactly 101,468,682,009,710,400,000 rows"' in node
    edge = next(line for line in dot.splitlines() if line.startswith('  "0.0*5" -> '))
    assert 'label="1.0 × 10²⁰ rows"' in edge and 'tooltip="exactly 101,468,682,009,710,400,000 rows"' in edge
    small = next(line for line in dot.splitlines() if line.startswith('  "0.0*6" -> '))
    assert 'label="7 rows"' in small and "tooltip" not in small


def _shown(frame, column: str) -> list[str]:
    """A profile table column as the page writes it (blank where the table shows its placeholder)."""
    from ui.panels.row_counts import PROFILE_FORMATS

    return ["" if v != v else PROFILE_FORMATS[column](v) for v in frame[column]]


def test_the_profile_tables_numbers_sort_by_value_and_read_as_people_write_them():
    from executor.jobs.profile import NodeProfile, Profile
    from ui.panels.row_counts import PROFILE_FORMATS, profile_frame

    model = P.model_of(starred_plan())
    profile = Profile(
        {
            "0.0*5": NodeProfile("0.0*5", "filter", rows=12_000, how="count", elapsed_s=10.5, factor=2.0),
            "0.0*6": NodeProfile("0.0*6", "read", rows=900, how="count", elapsed_s=2.25, factor=0.5),
        }
    )
    frame = profile_frame(model, profile)
    # text sorted "10.500" before "2.250" and "12,000" before "900"
    assert list(frame.sort_values("time (s)")["node"]) == ["0.0*6", "0.0*5"]
    assert list(frame.sort_values("rows")["node"]) == ["0.0*6", "0.0*5"]
    assert _shown(frame, "time (s)") == ["10.500", "2.250"] and _shown(frame, "rows") == ["12,000", "900"]
    html = frame.style.format(PROFILE_FORMATS, na_rep="").to_html()  # what the page gives st.dataframe
    assert "12,000" in html and "10.500" in html and "0.5" in html


def test_a_figure_a_node_has_not_is_a_dash(monkeypatch):
    """A node not counted has no rows, time or factor: the table wrote Streamlit's faded "None" there."""
    import ui.panels.row_counts as row_counts
    from executor.jobs.profile import NodeProfile, Profile

    seen = {}
    monkeypatch.setattr(row_counts.st, "dataframe", lambda data, **kw: seen.update(kw))
    model = P.model_of(starred_plan())
    row_counts.profile_table(model, Profile({"0.0*6": NodeProfile("0.0*6", "read", skipped="not bound")}))
    assert seen["placeholder"] == "—"


def test_the_profile_table_takes_counts_past_64_bits():
    import pyarrow as pa

    from executor.jobs.profile import NodeProfile, Profile
    from ui.panels.row_counts import profile_frame, profile_styler

    model = P.model_of(starred_plan())
    profile = Profile(
        {
            "0.0*5": NodeProfile("0.0*5", "cross", rows=2**70, how="derived", factor=float("inf")),
            "0.0*6": NodeProfile("0.0*6", "read", rows=3, how="reads"),
        }
    )
    frame = profile_frame(model, profile)
    pa.Table.from_pandas(frame)  # what st.dataframe does: it failed with "Python int too large to convert to C long"
    # the grid flags a whole number of 2^53 or more in a number column as an error: the count is written as
    # text over a value that sorts above every count
    assert list(frame["rows"]) == [math.inf, 3.0]
    assert list(frame.sort_values("rows")["node"]) == ["0.0*6", "0.0*5"]
    html = profile_styler(frame).to_html()
    assert ">1.2 × 10²¹</td>" in html and ">3</td>" in html and "inf" not in html
    assert list(frame["exact rows"]) == ["1,180,591,620,717,411,303,424", "3"]
    assert list(frame.columns)[-1] == "exact rows"  # its long figures last, the other columns in sight
    assert _shown(frame, "× input") == ["", ""]  # an infinite factor is no figure
    small = Profile({"0.0*6": NodeProfile("0.0*6", "read", rows=3, how="reads")})
    assert "exact rows" not in profile_frame(model, small).columns  # only when a count is rounded


def test_the_profile_table_says_why_a_node_was_not_counted_where_it_says_how_and_small_factors_readably():
    from executor.jobs.profile import SUBQUERY_SKIP, NodeProfile, Profile
    from ui.panels.row_counts import profile_frame
    from viz.counts import factor_text

    model = P.model_of(starred_plan())
    profile = Profile(
        {
            "0.0*5": NodeProfile("0.0*5", "filter", rows=9, how="derived", factor=9 / 60_175),
            "0.0*6": NodeProfile("0.0*6", "read", skipped=SUBQUERY_SKIP),
        }
    )
    frame = profile_frame(model, profile)
    assert list(frame["counted"])[1] == f"no: {SUBQUERY_SKIP}"
    assert _shown(frame, "rows") == ["9", ""] and _shown(frame, "time (s)") == ["", ""]
    assert _shown(frame, "× input") == ["0.00015", ""]  # not 0, as two decimals had it
    assert "note" not in frame.columns  # no error: no column of blanks
    assert [factor_text(f) for f in (0.0, 0.5, 1.0, 2.345, 99.5, 1234.4, 3e-6, 2.5e12)] == [
        "0",
        "0.5",
        "1",
        "2.35",
        "99.5",
        "1,234",
        "3.0e-06",
        "2.5 × 10¹²",  # as the graph writes a count that large
    ]


# ---- a panel's failure -------------------------------------------------------------------------


def test_a_failing_panel_is_a_message_and_the_page_goes_on():
    def page():
        import streamlit as st

        from ui.panels.boundary import panel

        with panel("the broken panel"):
            st.write("before")
            raise ValueError("a *starred* value")
        st.write("after")

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert [e.value for e in at.error] == [r"internal error in the broken panel: ValueError: a \*starred\* value"]
    assert "bug in the app" in at.caption[0].value
    assert [m.value for m in at.markdown if m.value in ("before", "after")] == ["before", "after"]


def test_a_rerun_passes_through_the_boundary():
    def page():
        import streamlit as st

        from ui.panels.boundary import panel

        st.session_state.setdefault("runs", 0)
        st.session_state["runs"] += 1
        with panel("a panel"):
            if st.session_state["runs"] == 1:
                st.rerun()
        st.write(f"runs {st.session_state['runs']}")

    at = AppTest.from_function(page).run()
    assert not at.exception and not at.error
    assert at.markdown[-1].value == "runs 2"


def test_a_profile_with_a_huge_count_draws_on_the_inspect_page():
    """The page as it was after a profile of TPC-DS q07: a derived count past 2^63 (here 2^70)."""
    from executor.jobs.profile import NodeProfile, Profile
    from ui.tasks import Task

    at = _app(starred_plan())
    model_digest = P.model_of(starred_plan()).digest
    task = Task()
    task.result = Profile(
        {
            "0.0*5": NodeProfile("0.0*5", "cross", rows=2**70, how="derived"),
            "0.0*6": NodeProfile("0.0*6", "read", rows=2**35, how="reads"),
            "0.0*5.1.0*4": NodeProfile("0.0*5.1.0*4", "read", rows=2**35, how="reads"),
        }
    )
    task.done.set()
    at.session_state["inspect_profiles"] = {(model_digest, (None, (), None, (), (), (), None)): task}  # no data bound
    at.run()
    assert not at.exception and not at.error
    [table] = [d for d in at.dataframe if "exact rows" in d.value.columns]
    frame = table.value
    assert frame["rows"].max() == math.inf and "1,180,591,620,717,411,303,424" in list(frame["exact rows"])
    # the column is as wide as its longest count: right-aligned and cut on the left, it read "717,411,303,424"
    width = json.loads(table.proto.columns)["exact rows"]["width"]
    assert width >= 8.5 * len("1,180,591,620,717,411,303,424"), width
    # and the rows as wide as "1.2 × 10²¹": narrower, it showed "2 × 10²¹", cut on the left
    assert json.loads(table.proto.columns)["rows"]["width"] >= 8 * len("1.2 × 10²¹")
    # its tables are bound to nothing here: the profile says so, and where to bind them (a profile of such a
    # plan counted nothing, and the graph said "not profiled" with no reason)
    said = md_escape("The plan reads 2 tables not bound to data that serves them (left_t and right_t): the nodes")
    assert any(w.value.startswith(said) for w in at.warning), [w.value for w in at.warning]
    assert any(link.proto.page == "tables" for link in at.get("page_link"))


# ---- ids shown literally and the picker ------------------------------------------------------


def test_a_starred_id_is_escaped_in_the_inspect_and_step_headings():
    at = _app(starred_plan())
    at.selectbox(key="node").set_value("0.0*5.1.0*4").run()
    assert not at.exception
    assert at.subheader[0].value == md_escape("Read · 0.0*5.1.0*4") == r"Read · 0.0\*5.1.0\*4"
    at.switch_page("pages/step.py").run()
    assert not at.exception
    assert at.subheader[0].value == r"Read · 0.0\*5.1.0\*4"


def test_the_picker_matches_an_exact_id_first():
    ids = ["0", "0.0*15", "0.0*5", "0.0*5.1"]
    labels = {
        "0": "0 · Sort",
        "0.0*15": "0.0*15 · Join · inner",
        "0.0*5": "0.0*5 · Aggregate · by x",
        "0.0*5.1": "0.0*5.1 · Read · store_returns",
    }
    assert match_node(ids, "0.0*5", labels.get) == "0.0*5"
    assert match_node(ids, " 0.0*5 ", labels.get) == "0.0*5"
    assert match_node(ids, "STORE_returns", labels.get) == "0.0*5.1"  # then a label holding the text
    assert match_node(ids, "join", labels.get) == "0.0*15"
    assert match_node(ids, "nothing like it", labels.get) is None
    assert match_node(ids, "0.0*9", None) is None
    # an id however its steps are written: each step spelled out, or counted differently
    assert match_node(ids, "0.0.0.0.0.0", None) == "0.0*5"
    assert match_node(ids, "0.0*2.0*3.1", None) == "0.0*5.1"


def test_an_address_naming_a_node_by_each_of_its_steps_opens_that_node():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tpch_q03_isthmus.json"
    at.query_params["node"] = "0.0.0.0.0.0.0"  # 0.0*6 written out: it had opened the root, with a toast
    at.run()
    assert not at.exception and not at.toast
    assert at.subheader[0].value.endswith(md_escape("0.0*6"))
    assert at.query_params["node"] == "0.0*6"


class _Typed(str):
    """Text typed in a picker that takes any text: the browser sends it as it is, not an option's label."""


def _type(at: AppTest, key: str, text: str) -> None:
    at.selectbox(key=key).set_value(_Typed(text))
    at.run()


@pytest.fixture
def typing(monkeypatch):
    """AppTest's selectbox sends an option's label; with this, a ``_Typed`` value is sent as typed."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState
    from streamlit.testing.v1.element_tree import Selectbox

    sent = Selectbox._widget_state

    def state(self):
        if not isinstance(self._value, _Typed):
            return sent.fget(self)
        ws = WidgetState()
        ws.id = self.id
        ws.string_value = str(self._value)
        return ws

    monkeypatch.setattr(Selectbox, "_widget_state", property(state))


def test_typing_an_id_in_the_picker_selects_exactly_that_node(typing):
    at = _app(starred_plan())
    for typed, heading in (
        ("0.0*5", "Cross · 0.0*5"),
        ("0.0*5.1.0*4", "Read · 0.0*5.1.0*4"),
        ("right_t", "Read · 0.0*5.1.0*4"),
        ("0.0*4", "Fetch · 0.0*4"),
    ):
        _type(at, "node", typed)
        assert not at.exception
        assert at.subheader[0].value == md_escape(heading), typed
        assert at.selectbox(key="node").value == heading.split(" · ")[1]
    _type(at, "node", "no such node")  # the node shown stays
    assert not at.exception and at.subheader[0].value == md_escape("Fetch · 0.0*4")
    assert at.toast and "No node matches" in at.toast[0].value


def test_text_that_matches_several_nodes_says_how_many_and_which_is_shown(typing):
    at = _app(starred_plan())
    _type(at, "node", "read")  # two Reads: 0.0*6 comes before 0.0*5.1.0*4 in plan order
    assert not at.exception and at.subheader[0].value == md_escape("Read · 0.0*6")
    [toast] = at.toast
    assert toast.value.startswith(md_escape("“read” matches 2 nodes: this is the first in plan order, 0.0*6")), (
        toast.value
    )


# ---- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, data, found",
    [
        ("rows.csv", b"a,b\n1,2\n", "found text that is not JSON, starting “a,b 1,2”."),
        ("broken.pb", b"\x08\x96\x01\xff\xff", "found 5 bytes of binary data that do not read as a Plan message."),
        # control bytes are no text, though they are UTF-8
        ("garbage.bin", b"\x00\x01\x02garbage", "found 10 bytes of binary data that do not read as a Plan message."),
        ("other.json", b'{"foo": 1}', "found a JSON object without 'relations' (its keys: foo)."),
        ("list.json", b"[1, 2]", "found a JSON array."),
        (
            "wrong.json",
            b'{"relations": [{"root": {"input": {"read": {}}, "names": [5]}}]}',
            "found JSON that does not read as a Plan at relations[0].root.names: expected a string, got int.",
        ),
        (
            "cut.json",
            b'{"relations": [',
            "found JSON that ends early (it stops at line 1, column 16, where more was expected): it looks cut off "
            "(an interrupted download or copy?).",
        ),
        ("empty.json", b"", "found an empty file."),
        # a binary Plan of a version alone (minor 53, producer x): a Plan, but none of its relations to show
        (
            "version.pb",
            b"2\x05\x105*\x01x",
            "found 7 bytes that read as a protobuf Plan without relations (nothing to draw).",
        ),
        (  # a binary plan cut after its first relation began (field 3, 200 bytes long)
            "cut.pb",
            b"\x1a\xc8\x01\x12\x00",
            "found 5 bytes of binary protobuf that ends early (the field that starts at byte 0 runs past the end, "
            "at byte 5): it looks cut off (an interrupted download or copy?).",
        ),
    ],
)
def test_a_bad_upload_keeps_the_open_plan_and_says_what_was_expected(name, data, found):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tutorial.json"
    at.run()
    at.selectbox(key="node").set_value("0.0.1").run()
    at.sidebar.file_uploader[0].set_value((name, data, "application/octet-stream")).run()
    assert not at.exception
    assert at.markdown[0].value == "#### tutorial.json"  # still the plan shown, and its graph and node
    assert at.selectbox(key="node").value == "0.0.1"
    assert at.sidebar.selectbox(key="plan_sample").value == "tutorial.json"
    [message] = [e.value for e in at.error]
    expected = (
        f"{name} was not opened: expected a Substrait Plan as protobuf JSON or binary protobuf, {found} "
        "The plan shown is still tutorial.json."
    )
    assert message == md_escape(expected)
    assert message.count("not a Substrait plan") == 0
    assert [t.value for t in at.toast] == [message]  # in the page too, once: the sidebar's is easy to miss
    at.selectbox(key="node").set_value("0.0").run()  # the page goes on working, the message stays
    assert not at.exception and at.subheader[0].value.endswith("0.0")
    assert [e.value for e in at.error] == [message] and not at.toast
    # another page's uploader is empty: the message about its file goes (it stayed on every page)
    at.session_state["plan_upload"] = None
    at.run()
    assert not at.error and at.markdown[0].value == "#### tutorial.json"


def test_a_bad_paste_keeps_the_open_plan():
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tutorial.json"
    at.run()
    at.sidebar.text_area[0].input('{"relations": [').run()
    assert not at.exception and at.markdown[0].value == "#### tutorial.json"
    assert [e.value for e in at.error] == [
        md_escape(
            "pasted JSON was not opened: expected a Substrait Plan as protobuf JSON, found JSON "
            "that ends early (it stops at line 1, column 16, where more was expected): it looks cut off (an "
            "interrupted download or copy?). The plan shown is still tutorial.json."
        )
    ]


def test_a_message_keeps_its_code_spans_and_escapes_the_rest():
    """A task's error names a table in a code span (shown as code) and node ids outside one (shown as
    written: two ``*`` would make italics)."""
    from ui.markdown import md_message

    text = "table `no_such_table` is not bound; node 0.0*6 with node 0.0*5 [see `a*b`]"
    assert md_message(text) == r"table `no_such_table` is not bound; node 0.0\*6 with node 0.0\*5 \[see `a*b`\]"
    assert md_message("an unclosed ` tick") == r"an unclosed \` tick"


def test_a_bad_upload_with_no_plan_open_is_said_on_the_tables_page_as_on_the_others():
    """With no plan open, the Tables page said "Open a plan first" where Inspect, Step and Present say why
    the upload was not opened."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/tables.py").run()
    at.sidebar.file_uploader[0].set_value(("empty.json", b"", "application/octet-stream")).run()
    assert not at.exception
    [message] = [e.value for e in at.error]
    assert message.startswith(md_escape("empty.json was not opened: expected a Substrait Plan")), message
    assert not at.info


def test_a_long_list_of_unbound_tables_is_cut_and_one_table_is_said_in_the_singular():
    """TPC-DS q64 unbound listed 13 tables in one sentence that ended "item, not bound to data that serves it"."""

    def script():
        from ui.panels.unbound import unbound_warning

        # the link needs the app's pages (the other tests open the pages that show it)
        unbound_warning([f"t{i}" for i in range(13)], "The plan", "the nodes that read {them} are not counted", False)
        unbound_warning(["orders"], "It", "neither engine runs it until then", link=False)

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert [w.value for w in at.warning] == [
        md_escape(
            "The plan reads 13 tables not bound to data that serves them (t0, t1, t2, t3 and 9 more): the nodes "
            "that read them are not counted."
        ),
        md_escape("It reads orders, which is not bound to data that serves it: neither engine runs it until then."),
    ]
