"""The SQL page (AppTest): an example query becomes a plan (graph and JSON), the plan opens in
Inspect, and bad SQL shows DataFusion's message as an error, not an exception."""

from __future__ import annotations

import json
import os

from streamlit.testing.v1 import AppTest

from executor.engines.sql_plan import FORM_WORDS
from tests.support import ROOT
from tests.support.app_graph import graph_text, graphs
from ui.markdown import md_escape
from ui.sql_examples import EXAMPLES, TUTORIAL_SQL

APP = os.path.join(ROOT, "app.py")
SQL = "pages/sql.py"
TUTORIAL = next(title for title, e in EXAMPLES.items() if e.sql == TUTORIAL_SQL)


def _sql_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(SQL).run()
    assert not at.exception, at.exception
    return at


def test_the_tutorial_example_becomes_a_plan_and_opens_in_inspect():
    at = _sql_page()
    at.selectbox(key="sql_example").select(TUTORIAL).run()
    assert at.text_area(key="sql_text").value == TUTORIAL_SQL
    assert "`orders`" in at.caption[1].value and "`products`" in at.caption[1].value
    at.button(key="sql_make").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    dot = graph_text(at)
    for label in ("Aggregate", "Join", "Filter", "orders", "products"):
        assert label in dot, label
    shown = json.loads(at.code[0].value)
    assert shown["version"]["producer"] == "datafusion"
    assert any("reads orders, products" in c.value for c in at.caption)
    assert [b.label for b in at.get("download_button")] == ["Download plan (JSON)"]
    assert at.get("download_button")[0].proto.ignore_rerun

    at.session_state["use_tpch"] = True  # the session's toggle, for the other plans it opens
    at.button(key="sql_inspect").click().run()
    assert not at.exception, at.exception
    plan = at.session_state["plan"]
    assert plan.source.startswith("SQL, analyzed: SELECT p.product_name")
    assert json.loads(plan.data) == shown
    # the data chosen goes with the plan (and its address); the toggle the other plans use is left as it was
    assert plan.written_for == "tutorial" and at.query_params["data"] == "tutorial"
    assert at.session_state["use_tpch"] is True
    # the Inspect page is showing it: its heading is the plan's source, its graph the same plan
    # (escaped: the SQL's asterisks and underscores are shown as written, not read as Markdown)
    assert any(m.value == f"#### {md_escape(plan.source)}" for m in at.markdown)
    assert "Aggregate" in graph_text(at)


def test_a_tpch_example_is_bound_to_tpch_and_steps_through(tpch_dir):
    at = _sql_page()
    title = next(t for t in EXAMPLES if t.startswith("TPC-H q06"))
    at.selectbox(key="sql_example").select(title).run()
    assert at.radio(key="sql_data").value == "tpch"
    at.button(key="sql_make").click().run()
    assert not at.error, [e.value for e in at.error]
    assert any("reads lineitem" in c.value for c in at.caption)
    at.button(key="sql_step").click().run()
    assert not at.exception, at.exception
    assert at.session_state["plan"].written_for == "tpch" and "use_tpch" not in at.session_state
    assert at.session_state["plan"].source.startswith("SQL, analyzed: SELECT sum(l_extendedprice * l_discount)")
    assert not at.error, [e.value for e in at.error]  # its tables bound: TPC-H's


def test_a_plan_from_sql_can_be_presented(tpch_dir):
    """The Present page said "Open a plan in the sidebar" for a plan just made here: a button opens it there."""
    at = _sql_page()
    at.selectbox(key="sql_example").select(next(t for t in EXAMPLES if t.startswith("TPC-H q06"))).run()
    at.button(key="sql_make").click().run()
    at.button(key="sql_present").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["plan"].source.startswith("SQL, analyzed: SELECT sum(l_extendedprice * l_discount)")
    assert any(h.value.startswith("Step 1:") for h in at.subheader), [h.value for h in at.subheader]


def test_bad_sql_shows_datafusion_message():
    at = _sql_page()
    at.text_area(key="sql_text").input("SELECT product_id FROM orders WHERE").run()
    at.button(key="sql_make").click().run()
    assert not at.exception, at.exception
    assert len(at.error) == 1
    assert at.error[0].value.startswith("SQL syntax error: Expected: an expression")
    assert not graphs(at)
    at.text_area(key="sql_text").input("SELECT * FROM lineitem").run()
    at.button(key="sql_make").click().run()
    assert at.error[0].value == "Table 'lineitem' is not bound; bound tables: orders, products."
    at.text_area(key="sql_text").input("COPY orders TO '/tmp/x.csv'").run()
    at.button(key="sql_make").click().run()
    assert at.error[0].value.startswith("Only queries can become a plan")
    assert "plan" not in at.session_state
    # no query yet (nothing, or comments only): a hint, not an error, and not DataFusion's raw text
    for nothing in ("", "  \n", "-- total revenue per nation\n/* to do */"):
        at.text_area(key="sql_text").input(nothing).run()
        at.button(key="sql_make").click().run()
        assert not at.exception and not at.error, (nothing, at.error)
        assert [i.value for i in at.info] == [
            "Enter a SQL query (SELECT, WITH ... SELECT or VALUES) above, then Make plan."
        ]


def test_the_users_own_tables_can_be_queried(tmp_path):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["uploads_dir"] = str(tmp_path)  # the Tables page's uploads folder for this session
    (tmp_path / "people.csv").write_text("name,age\nada,36\nalan,41\n")
    at.run()
    at.switch_page(SQL).run()
    assert "`people`" in at.caption[1].value
    at.text_area(key="sql_text").input("SELECT name FROM people WHERE age > 40").run()
    at.button(key="sql_make").click().run()
    assert not at.error, [e.value for e in at.error]
    assert any("reads people" in c.value for c in at.caption)
    assert "people" in graph_text(at)


def test_a_tpcds_query_is_planned_over_tpcds_alone():
    """TPC-DS is a choice of its own, its tables without the tutorial's; the plan made goes to Inspect with its
    data, and TPC-H's list holds no tutorial table either (its ``products``)."""
    from executor.data.generate import tpcds

    tpcds(0.01)  # generated once for the run
    at = _sql_page()
    at.radio(key="sql_data").set_value("tpch").run()
    tables = next(c.value for c in at.caption if c.value.startswith("TPC-H tables: "))
    assert "`lineitem`" in tables and "`products`" not in tables, tables
    at.radio(key="sql_data").set_value("tpcds").run()
    tables = next(c.value for c in at.caption if c.value.startswith("TPC-DS tables: "))
    assert "`store_sales`" in tables and "`products`" not in tables and "`lineitem`" not in tables, tables
    at.text_area(key="sql_text").input(
        "SELECT d_year, count(*) AS n FROM store_sales JOIN date_dim ON ss_sold_date_sk = d_date_sk GROUP BY d_year"
    ).run()
    at.button(key="sql_make").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(c.value.endswith("reads store\\_sales, date\\_dim") for c in at.caption)  # shown escaped
    at.button(key="sql_inspect").click().run()
    assert not at.exception
    assert at.session_state["plan"].written_for == "tpcds" and at.query_params["data"] in ("tpcds", ["tpcds"])


def test_a_query_planned_in_each_form_and_the_tables_of_the_plan_open():
    """The same query as written (DataFusion's implicit coercion left as it is), as analyzed (the default:
    the coercion a cast) and optimized; the caption names the form. The page starts on the tables of the
    plan open elsewhere, and an error of other tables goes when the tables are changed."""
    at = _sql_page()
    sql = "SELECT product_id FROM orders WHERE quantity > 1.5"
    at.text_area(key="sql_text").input(sql).run()
    texts = {}
    for form in ("written", "analyzed", "optimized"):
        at.radio(key="sql_form").set_value(form).run()
        at.button(key="sql_make").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert any(f"Substrait plan from DataFusion, {FORM_WORDS[form]} · " in c.value for c in at.caption), form
        texts[form] = at.code[0].value
    assert len(set(texts.values())) == 3  # three different plans
    assert '"cast"' not in texts["written"] and '"cast"' in texts["analyzed"]  # quantity (an integer) vs 1.5

    at.text_area(key="sql_text").input("SELECT * FROM lineitem").run()
    at.button(key="sql_make").click().run()
    assert at.error
    at.radio(key="sql_data").set_value("tpch").run()
    assert not at.error  # the error was of the tutorial's tables

    linked = AppTest.from_file(APP, default_timeout=60)
    linked.query_params["sample"] = "tpch_q03_isthmus.json"  # written for TPC-H (the samples' manifest)
    linked.run()
    linked.switch_page(SQL).run()
    assert linked.radio(key="sql_data").value == "tpch"


def test_two_forms_of_one_query_are_named_apart_and_compared():
    """As written, inspected (the open plan), then optimized and sent to Compare: the left plan is the one
    open, the right the new one, each named by its form."""
    at = _sql_page()
    at.text_area(key="sql_text").input("SELECT product_id FROM orders WHERE quantity > 1.5").run()
    at.radio(key="sql_form").set_value("written").run()
    at.button(key="sql_make").click().run()
    assert at.button(key="sql_compare").disabled  # no plan open to compare it with
    at.button(key="sql_inspect").click().run()
    assert at.session_state["plan"].source.startswith("SQL, written: SELECT product_id")
    at.switch_page(SQL).run()
    at.radio(key="sql_form").set_value("optimized").run()
    at.button(key="sql_make").click().run()
    at.button(key="sql_compare").click().run()
    assert not at.exception, at.exception
    assert at.session_state["compare_a"].source.startswith("SQL, written: ")
    assert at.session_state["compare_b"].source.startswith("SQL, optimized: ")
    assert {m.label for m in at.metric} == {"same", "changed", "removed", "added"}


def test_the_tables_a_query_can_name_are_said_by_where_they_come_from(tmp_path, monkeypatch):
    """A data folder of the person's own beside the tutorial's tables: its tables are listed apart, and a
    name both have (``orders``) is listed once, as the tutorial's, which a query reads."""
    import dataclasses
    import shutil

    from executor import settings

    own = tmp_path / "mine"
    own.mkdir()
    shutil.copy(os.path.join(ROOT, "sample_data", "tutorial", "orders.parquet"), own / "orders.parquet")
    shutil.copy(os.path.join(ROOT, "sample_data", "tutorial", "orders.parquet"), own / "shipments.parquet")
    monkeypatch.setattr(settings, "SETTINGS", dataclasses.replace(settings.SETTINGS, data=str(own)))
    at = _sql_page()
    at.radio(key="sql_data").set_value("tutorial").run()
    tables = next(c.value for c in at.caption if c.value.startswith("Tutorial tables: "))
    assert tables == "Tutorial tables: `orders`, `products`; your own (uploads, your data folder): `shipments`"


def test_a_plan_just_made_is_scrolled_into_view_once():
    """Below the SQL box the plan starts under the fold: the rerun that makes it scrolls there; the next
    ones (a click in the result) leave the page where the person put it."""
    at = _sql_page()
    at.selectbox(key="sql_example").select(TUTORIAL).run()

    def scrolls() -> bool:
        return any("scrollIntoView" in (e.proto.body or "") for e in at.get("html"))

    assert not scrolls()
    at.button(key="sql_make").click().run()
    assert scrolls()
    at.run()
    assert not scrolls()


def test_a_plan_that_does_not_mean_its_sql_says_so_on_every_page_that_shows_it(tmp_path, monkeypatch):
    """DataFusion's producer writes a RANGE frame of days as unbounded: the SQL page warns, and so do
    Inspect, Step through and Present once the plan is open there (it said so on the SQL page only), and
    the plan's share link opened in another session, and Compare (they said nothing)."""
    from ui.state import share

    monkeypatch.setattr(share, "SHARE_DIR", str(tmp_path))
    at = _sql_page()
    at.radio(key="sql_data").set_value("tutorial").run()
    at.text_area(key="sql_text").input(
        "SELECT order_date, sum(quantity) OVER (ORDER BY order_date RANGE BETWEEN INTERVAL '7 days' PRECEDING "
        "AND CURRENT ROW) AS s FROM orders"
    ).run()
    at.button(key="sql_make").click().run()
    assert not at.exception, at.exception
    [made] = [w.value for w in at.warning if "does not keep the window frame" in w.value]
    at.button(key="sql_inspect").click().run()
    assert not at.exception, at.exception
    said = "This plan does not mean the SQL it was made from: DataFusion"
    assert at.session_state["plan"].not_its_sql and any(said in w.value for w in at.warning), at.warning
    for page in ("pages/step.py", "pages/present.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        assert any(said in w.value and "RANGE BETWEEN 7 days PRECEDING" in w.value for w in at.warning), page
    assert "RANGE BETWEEN 7 days PRECEDING AND CURRENT ROW" in made
    link = share.share_query(at.session_state["plan"], "0")
    for page, params in (("pages/inspect.py", link), ("pages/compare.py", {"a": link["plan"], "b": "tutorial.json"})):
        other = AppTest.from_file(APP, default_timeout=60)
        for key, value in params.items():
            other.query_params[key] = value
        other.switch_page(page).run()
        assert not other.exception, (page, other.exception)
        assert any(said in w.value and "RANGE BETWEEN 7 days PRECEDING" in w.value for w in other.warning), page


def test_the_plan_form_chosen_is_kept_across_pages():
    """The form picked (optimized) is the one the next plan is made in after a visit to another page;
    it had fallen back to analyzed."""
    at = _sql_page()
    at.radio(key="sql_form").set_value("optimized").run()
    at.switch_page("pages/inspect.py").run()
    at.switch_page(SQL).run()
    assert not at.exception
    assert at.radio(key="sql_form").value == "optimized"


def test_a_plan_made_before_the_sql_changed_says_so():
    """A browser check picked another example after making a plan: the text box held the new SQL while the
    plan of the old one stayed below without a word, and its buttons opened it. Now the plan says what of
    the page changed since it was made; made again, the note goes."""
    at = _sql_page()
    at.selectbox(key="sql_example").select(TUTORIAL).run()
    at.button(key="sql_make").click().run()
    assert not at.warning, [w.value for w in at.warning]
    at.text_area(key="sql_text").input(TUTORIAL_SQL + " LIMIT 1").run()
    assert [w.value for w in at.warning] == [
        "This plan was made before the SQL above changed: press Make plan for a plan of what is there now."
    ]
    at.button(key="sql_make").click().run()
    assert not at.warning and not at.exception


def test_the_tables_caption_names_the_tables_its_plan_just_generated(tmp_path, monkeypatch):
    """With TPC-H not generated yet, the caption says it is made with the plan; once Make plan has made
    it, the same run of the page names its tables (it had kept saying they were still to be made)."""
    from executor.data import generate
    from ui.state import plan_data

    monkeypatch.setattr(generate, "CACHE", str(tmp_path))
    monkeypatch.setattr(plan_data, "CACHE", str(tmp_path))
    at = _sql_page()
    at.radio(key="sql_data").set_value("tpch").run()
    assert any(c.value == "TPC-H tables: generated when you make the plan" for c in at.caption)
    at.text_area(key="sql_text").input("SELECT n_name FROM nation").run()
    at.button(key="sql_make").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    tables = next(c.value for c in at.caption if c.value.startswith("TPC-H tables: "))
    assert "`nation`" in tables and "`lineitem`" in tables, tables
    assert os.path.isfile(tmp_path / "tpch-sf0.01" / "nation.parquet")
