"""The Present page (AppTest): the plan in plain words, the selected step, sample rows, share links."""

from __future__ import annotations

import os
import re

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT, wait_for
from tests.support.app_graph import graph_text, graphs
from ui.markdown import md_escape
from ui.state import share
from ui.state.plan_source import sample_titles
from viz.describe import describe_plan, story_order
from viz.model import analyze

APP = os.path.join(ROOT, "app.py")
PRESENT = "pages/present.py"

# The tutorial plan's steps from the leaves to the root, each checked by hand against its JSON
# (tests/model/test_describe.py says why each sentence is right).
TUTORIAL_STORY = [
    "Reads table orders (4 columns: product_id, quantity, order_date and price).",
    "Reads table products (4 columns: product_id, categories, details and product_name).",
    "Keeps the rows of products where 'Computers' is not in categories.",
    "Joins orders to products on the same product_id, keeping only matches.",
    "Sums quantity × price per product_id and product_name.",
]


def _present(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(PRESENT)
    return at.run()


def _plain(label: str) -> str:
    return label.replace("\\", "")  # the text is Markdown-escaped


HIGHLIGHT = re.compile(r"^\*\*:orange-background\[(.*)\]\*\*$")
LINE = re.compile(r"^(\d+)(?:–(\d+))?\\\. (.*)$")
RUN = re.compile(r"^(.*) \((?:twice|(\d+) times)\)$")


def _story_lines(at: AppTest) -> list[str]:
    """The story's lines as the page writes them ("3\\. words", "3–4\\. words (twice)")."""
    [story] = [m.value for m in at.markdown if m.value.startswith("1\\. ")]
    return story.split("  \n")


def _story(at: AppTest) -> list[tuple[str, bool]]:
    """The story's steps in page order: each sentence, and whether it is the highlighted one. Its
    lines are numbered 1, 2, 3... with a run of steps saying the same thing as one line "3–4"
    (checked here), expanded to its steps."""
    steps = []
    for line in _story_lines(at):
        m = LINE.match(line)
        assert m, line
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        assert first == len(steps) + 1 and last >= first, (len(steps), line)
        text = _plain(m.group(3))
        highlighted = HIGHLIGHT.match(text)
        text = highlighted.group(1) if highlighted else text
        if last > first:
            run = RUN.match(text)
            assert run and int(run.group(2) or 2) == last - first + 1, line
            text = run.group(1)
        steps.extend([(text, highlighted is not None)] * (last - first + 1))
    return steps


def _highlighted(at: AppTest) -> list[str]:
    return [text for text, on in _story(at) if on]


def _link(at: AppTest) -> str:
    codes = [c.value for c in at.code if "node=" in c.value]
    assert codes, "the share link is shown"
    return codes[0]


def test_a_sample_link_opens_the_story_at_the_node():
    at = _present(sample="tutorial.json", node="0.0.1")
    assert not at.exception and not at.error
    # every step in words, leaves first; the selected one (the filter, third from the leaves) highlighted
    assert [text for text, _ in _story(at)] == TUTORIAL_STORY
    assert _highlighted(at) == [TUTORIAL_STORY[2]]
    assert any("Step 3: Filter" in h.value for h in at.subheader)
    assert graphs(at), "the graph is drawn"
    assert _link(at) == "present?sample=tutorial.json&node=0.0.1"
    titles = sample_titles()
    assert at.markdown[0].value == f"#### {md_escape(titles['tutorial.json'])}" != "#### tutorial.json"
    # said by its step, not its node id
    assert "The link reopens the same sample at the same step (3)." in [c.value for c in at.caption]


def test_previous_and_next_walk_through_the_story():
    at = _present(sample="tutorial.json", node="0.0.1")
    at.button(key="present_next").click().run()
    assert not at.exception
    assert at.session_state["node"] == "0.0"
    assert at.query_params["node"] in ("0.0", ["0.0"])
    assert any("Step 4: Join" in h.value for h in at.subheader)
    assert _highlighted(at) == [TUTORIAL_STORY[3]]
    assert _link(at) == "present?sample=tutorial.json&node=0.0"
    at.button(key="present_next").click().run()  # the root: the last step
    assert _highlighted(at) == [TUTORIAL_STORY[4]] and at.session_state["node"] == "0"
    assert at.button(key="present_next").disabled and not at.button(key="present_prev").disabled
    for _ in range(4):
        at.button(key="present_prev").click().run()
    assert _highlighted(at) == [TUTORIAL_STORY[0]] and any("Step 1: Read" in h.value for h in at.subheader)
    assert at.button(key="present_prev").disabled and not at.button(key="present_next").disabled


def test_a_plan_opens_at_the_first_step_and_reopens_at_the_step_left_at():
    # a sample opened without a node: the story's first step (the read of orders), not the root
    at = _present(sample="tutorial.json")
    assert not at.exception
    assert at.session_state["node"] == "0.0.0" and _highlighted(at) == [TUTORIAL_STORY[0]]
    assert any("Step 1: Read" in h.value for h in at.subheader)
    assert at.button(key="present_prev").disabled
    for _ in range(2):
        at.button(key="present_next").click().run()
    assert _highlighted(at) == [TUTORIAL_STORY[2]]
    # to Inspect and back: the same step
    at.switch_page("pages/inspect.py").run()
    assert not at.exception and at.session_state["node"] == "0.0.1"
    at.switch_page(PRESENT).run()
    assert _highlighted(at) == [TUTORIAL_STORY[2]]
    # another plan opened: its first step; the first plan opened again: the step it was left at
    at.sidebar.selectbox(key="plan_sample").select("joins_outer.json").run()
    assert not at.exception
    with open(os.path.join(ROOT, "sample_plans", "joins_outer.json"), "rb") as fh:
        assert at.session_state["node"] == story_order(analyze(fh.read()))[0]
    at.sidebar.selectbox(key="plan_sample").select("tutorial.json").run()
    assert at.session_state["node"] == "0.0.1" and _highlighted(at) == [TUTORIAL_STORY[2]]


def test_a_plan_opened_on_inspect_is_presented_from_its_first_step():
    """Inspect starts at the root (the last step of the story): the Present page starts at the first;
    a node chosen on Inspect is kept."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sample"] = "tutorial.json"
    at.switch_page("pages/inspect.py").run()
    assert not at.exception and at.session_state["node"] == "0"
    at.switch_page(PRESENT).run()
    assert not at.exception
    assert at.session_state["node"] == "0.0.0" and _highlighted(at) == [TUTORIAL_STORY[0]]
    at = _present(sample="tutorial.json", node="0.0")  # a link naming the join: kept
    assert _highlighted(at) == [TUTORIAL_STORY[3]]


def test_a_shared_plan_link_reopens_the_plan_at_the_node(tmp_path, monkeypatch):
    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        data = fh.read()
    digest = share.save_shared(data)
    at = _present(plan=digest, node="0.0")
    assert not at.exception and not at.error
    assert f"shared plan {digest[:8]}" in at.markdown[0].value
    assert [text for text, _ in _story(at)] == TUTORIAL_STORY
    assert _highlighted(at) == [TUTORIAL_STORY[3]]
    assert _link(at) == f"present?plan={digest}&node=0.0"


def test_an_unknown_shared_plan_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    at = _present(plan="0" * 64)
    assert not at.exception
    assert at.error and "is not on this server" in at.error[0].value
    at = _present(plan="../../etc/passwd")
    assert at.error and "expected 64 lowercase hex characters" in at.error[0].value
    # a sample that is not here: said, not an empty page
    at = _present(sample="nope.json")
    assert not at.exception
    assert [e.value for e in at.error] == [
        md_escape(
            "The link names a sample plan, 'nope.json', that is not on this server; open one of the samples or "
            "upload the plan instead."
        )
    ]


def test_a_sample_link_may_leave_out_the_files_extension():
    """``?sample=tutorial`` opens tutorial.json, as ``?sample=tutorial.json`` does."""
    at = _present(sample="tutorial", node="0.0")
    assert not at.exception and not at.error
    assert [text for text, _ in _story(at)] == TUTORIAL_STORY


def test_show_sample_rows_runs_the_selected_node(spark):
    at = _present(sample="tutorial.json", node="0.0.1")
    at.button(key="present_show_rows").click().run()
    wait_for(at, lambda a: bool(a.dataframe) or bool(a.error))
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows = [d.value for d in at.dataframe][0]
    # the column the filter reads first, each keeping its place's label
    assert list(rows.columns) == ["[1] categories", "[0] product_id", "[2] details", "[3] product_name"]
    products = os.path.join(ROOT, "sample_data", "tutorial", "products.parquet")
    expected = duckdb.sql(
        f"SELECT product_id FROM '{products}' WHERE list_position(categories, 'Computers') IS NULL ORDER BY 1"
    ).fetchall()
    assert sorted(int(v) for v in rows["[0] product_id"]) == [r[0] for r in expected]
    assert any("ran in" in c.value and "(the first ones)" not in c.value for c in at.caption)  # all its rows
    # another step: the rows shown are not the filter's any more until it is run
    at.button(key="present_prev").click().run()
    assert not at.dataframe


def test_sample_rows_at_every_step_come_without_a_click(spark):
    """With the sidebar's toggle on, Previous brings the step's rows by itself: the tutorial's step 2
    reads products (all of them, checked against DuckDB's count), and the step left keeps its rows."""
    at = _present(sample="tutorial.json", node="0.0.1")
    at.toggle(key="present_every_step").set_value(True).run()
    wait_for(at, lambda a: bool(a.dataframe) or bool(a.error))
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.button(key="present_prev").click().run()
    wait_for(at, lambda a: any(c.value.startswith("**Sample rows of step 2") for c in a.markdown) and bool(a.dataframe))
    assert not at.exception and not at.error, [e.value for e in at.error]
    products = os.path.join(ROOT, "sample_data", "tutorial", "products.parquet")
    [(count,)] = duckdb.sql(f"SELECT count(*) FROM '{products}'").fetchall()
    assert len(at.dataframe[0].value) == count
    # beside the step, where the presenter looks: where its rows are (under the graph, below a laptop's fold)
    assert f"↓ Its {count} sample rows are under the graph." in [c.value for c in at.caption]
    at.button(key="present_next").click().run()  # back to step 3: its rows kept, not run again
    assert any(m.value.startswith("**Sample rows of step 3") for m in at.markdown) and at.dataframe


def test_sample_rows_name_computed_columns_as_the_story_does(spark):
    """DataFusion's q03 aggregate names its measure ``sum(multiply(…``; the root calls it revenue, and
    so do the story, the graph and the sample rows' header."""
    at = _present(sample="tpch_q03_datafusion.json", node="0.0.0.0")
    at.button(key="present_show_rows").click().run()
    wait_for(at, lambda a: bool(a.dataframe) or bool(a.error))
    assert not at.exception and not at.error, [e.value for e in at.error]
    columns = list(at.dataframe[0].value.columns)
    assert any(c.endswith("] revenue") for c in columns) and not any("sum(" in c for c in columns), columns
    assert any(c.value.startswith("20 rows (the first ones), ran in") for c in at.caption)  # of its 138 groups
    # under the graph and the step, as wide as the page: not in the narrow column beside the graph
    assert not any(c.dataframe for c in at.columns)
    # the run's note on the coercion it applies names the step, not the node id
    notes = [c.value for c in at.caption if c.value.startswith("⚠")]
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        step = story_order(analyze(fh.read())).index("0.0.0.0") + 1
    assert notes and all("0.0.0.0" not in n for n in notes) and any(f"step {step}" in n for n in notes), notes
    # notes of types and engines, for the technical reader: folded away unless the technical marks are on
    [folded] = [e for e in at.expander if e.label.endswith("on how these rows were computed")]
    assert [c.value for c in folded.caption] == notes


def test_a_failing_run_shows_a_message_not_a_traceback(spark, monkeypatch, tmp_path):
    # a plan reading a table no data root has: TableNotFound, shown as st.error
    import json

    from tests.support import plans as P

    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    doc = P.plan((P.read("no_such_table", [("a", "i64")]), ["a"]))
    digest = share.save_shared(json.dumps(doc).encode())
    at = _present(plan=digest, node="0")
    at.button(key="present_show_rows").click().run()
    wait_for(at, lambda a: bool(a.error))
    assert not at.exception
    assert at.error and "no_such_table" in at.error[0].value


def test_a_failed_run_names_the_step_not_the_node_id(monkeypatch):
    """An error that names a node (the executor's "node 0.0.1: …") is said with the story's step
    number, also when the run fails while the page still waits for it (the tutorial's filter is the
    story's third step)."""
    import executor.jobs.run as run

    def failing_run(*args, **kwargs):
        raise run.ExecutionError("node 0.0.1: stopped by the test")

    monkeypatch.setattr(run, "run_node", failing_run)
    at = _present(sample="tutorial.json", node="0.0.1")
    at.button(key="present_show_rows").click().run()
    wait_for(at, lambda a: bool(a.error))
    assert not at.exception
    assert [e.value for e in at.error] == ["step 3: stopped by the test"]


SAMPLES = sorted(
    f for f in os.listdir(os.path.join(ROOT, "sample_plans")) if f.endswith(".json") and f != "manifest.json"
)


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_presents_without_exception(sample):
    at = _present(sample=sample)
    assert not at.exception
    with open(os.path.join(ROOT, "sample_plans", sample), "rb") as fh:
        model = analyze(fh.read())
    sentences = describe_plan(model)
    order = story_order(model)
    # every step's sentence, in the story's order, the selected one (the first, at first) highlighted
    assert [text for text, _ in _story(at)] == [sentences[n] for n in order]
    assert [n for n, (_, on) in zip(order, _story(at)) if on] == [at.session_state["node"]] == [order[0]]
    assert f"sample={sample}" in _link(at)


def test_the_graph_for_an_audience_has_no_technical_marks_until_asked():
    # errors.json has nodes with warnings and errors (⚑ codes) and the sort/fetch order badges
    at = _present(sample="errors.json")
    assert not at.exception
    spec = graph_text(at)
    assert "⚑" not in spec and "order: " not in spec and "cannot run on Spark" not in spec
    at.toggle(key="present_details").set_value(True).run()
    spec = graph_text(at)
    assert "⚑" in spec
    # DataFusion's q03 sorts: its order badges ("order: established") show only when asked
    at = _present(sample="tpch_q03_datafusion.json")
    assert "order: " not in graph_text(at)
    at.toggle(key="present_details").set_value(True).run()
    assert "order: established" in graph_text(at)


def test_a_running_step_says_so_without_its_node_id(monkeypatch):
    """The progress shows under "Step n": an audience is not shown node ids."""
    import threading

    import executor.jobs.run as run

    release = threading.Event()

    def slow_run(*args, **kwargs):
        release.wait(30)
        raise run.ExecutionError("stopped by the test")

    monkeypatch.setattr(run, "run_node", slow_run)
    try:
        at = _present(sample="tutorial.json", node="0.0.1")
        at.button(key="present_show_rows").click().run()
        bars = [e.proto.text for e in at.main if e.type == "progress"]
        assert bars and bars[0].startswith("Running this step on Spark"), bars
        assert "0.0.1" not in " ".join(bars)
    finally:
        release.set()


def test_step_headings_are_in_an_audiences_words():
    """q03's last step is a Fetch: its heading says what it does; the technical marks add the relation's name.
    Read, Filter, Join and Sort are words already and stay as they are."""
    at = _present(sample="tpch_q03_datafusion.json", node="0")
    assert not at.exception
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        steps = len(story_order(analyze(fh.read())))
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == [f"Step {steps}: Keep the first rows"]
    at.toggle(key="present_details").set_value(True).run()
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == [
        f"Step {steps}: Keep the first rows (Fetch)"
    ]


def test_a_reads_other_columns_are_listed_under_its_sentence_not_again():
    """The read's sentence names its first six columns "and 2 more": the caption names those two only."""
    at = _present(sample="tpch_q03_datafusion.json")
    said = [m.value for m in at.markdown if m.value.startswith("**Reads table customer")]
    assert said and "and 2 more" in said[0]
    assert "Its other columns: c\\_mktsegment, c\\_comment" in [c.value for c in at.caption]


def test_a_plan_with_errors_says_so_above_its_story():
    """errors.json has 5 errors (``python -m viz inspect`` lists them) on steps 4, 5, 8 and 9; Present told
    it in sentences as plain as a sound plan's ("Keeps rows where field 7 is above 10"), the errors shown
    only with the technical marks. A sound plan says nothing of errors."""
    at = _present(sample="errors.json")
    assert not at.exception
    warned = [w.value for w in at.warning if "error" in w.value]
    assert warned and warned[0].startswith("This plan has 5 errors (steps 4, 5, 8 and 9): what those steps say")
    at = _present(sample="tutorial.json")
    assert not [w.value for w in at.warning if "This plan has" in w.value]


def test_a_step_that_cannot_run_names_steps_not_node_ids():
    """A correlated subquery's step runs only as part of the query around it: the note names that
    query's step, as the story numbers it, not its node id (isthmus's q02: the subquery reads the
    outer part, node 0.0.0.0)."""
    with open(os.path.join(ROOT, "sample_plans", "tpch_q02_isthmus.json"), "rb") as fh:
        model = analyze(fh.read())
    outer = story_order(model).index("0.0.0.0") + 1
    at = _present(sample="tpch_q02_isthmus.json", node="0.0.0.0.s0")
    assert not at.exception
    [note] = [i.value for i in at.info if "cannot run on Spark" in i.value]
    assert _plain(note).endswith(f"so it runs only as part of step {outer}"), note
    assert "0.0.0.0" not in note


def test_a_join_without_a_condition_is_headed_as_the_pairing_its_sentence_says():
    """DataFusion writes q03's joins without a condition (the keys in a filter above): the heading, on the
    page and on the graph's box, says "Pair every row" as isthmus's Cross does and as the sentence says
    ("a cross product"), not "Join"."""
    at = _present(sample="tpch_q03_datafusion.json", node="0.0*5")
    assert not at.exception
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        model = analyze(fh.read())
    step = story_order(model).index("0.0*5") + 1
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == [f"Step {step}: Pair every row"]
    assert "(a cross product)" in describe_plan(model)["0.0*5"]
    assert f"{step}. Pair every row" in graph_text(at)
    at.toggle(key="present_details").set_value(True).run()
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == [f"Step {step}: Pair every row (Join)"]
