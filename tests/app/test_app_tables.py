"""The Tables page shows a table as bound only when its file serves the plan, says what is wrong
otherwise, and its fixes (another file, by position, the generated TPC-H table) reach the session's
catalog. Spark is never started: the columns come from the files' footers."""

from __future__ import annotations

import dataclasses
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from executor import settings
from tests.support import ROOT
from tests.support.tables import TPCH_CUSTOMER, other_tables

APP = os.path.join(ROOT, "app.py")


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """$SUBSTRAIT_VIZ_DATA holding other tables (:func:`other_tables`)."""
    root = other_tables(tmp_path / "data")
    monkeypatch.setattr(settings, "SETTINGS", dataclasses.replace(settings.SETTINGS, data=str(root)))
    return root


def _tables_page(tmp_path, sample_file: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    uploads = tmp_path / "uploads"
    uploads.mkdir(exist_ok=True)
    at.session_state["uploads_dir"] = str(uploads)
    at.switch_page("pages/tables.py")
    at.run()
    with open(os.path.join(ROOT, "sample_plans", sample_file), "rb") as fh:
        at.sidebar.file_uploader[0].set_value((sample_file, fh.read(), "application/json")).run()
    assert not at.exception, at.exception
    return at


def _row(at: AppTest, table: str) -> dict:
    frame = at.dataframe[0].value
    return frame[frame["table"] == table].iloc[0].to_dict()


def test_a_file_without_the_plans_columns_is_not_bound_and_another_file_fixes_it(tmp_path, data_root, spark_calls):  # noqa: F811
    at = _tables_page(tmp_path, "tpch_q03_isthmus.json")
    row = _row(at, "CUSTOMER")
    assert (row["bound"], row["how"]) == ("no", "columns differ")
    assert row["notes"].startswith("lacks 8 of the plan's 8 columns (C_CUSTKEY, C_NAME")
    errors = [e.value.replace("\\", "") for e in at.error]  # shown escaped (Markdown)
    assert (
        f"The file {data_root / 'customer.parquet'} lacks 8 of the plan's 8 columns (C_CUSTKEY, C_NAME, C_ADDRESS, "
        "C_NATIONKEY, C_PHONE, C_ACCTBAL, C_MKTSEGMENT, C_COMMENT)." in errors
    )
    assert any("The file has c\\_customer\\_sk int, c\\_customer\\_id string" in c.value for c in at.caption)
    # what the pickers search, and how long a binding lasts, said where a person binds (a user check)
    said = [c.value for c in at.caption]
    assert any("directly in the data roots (their subfolders are not searched)" in c for c in said), said
    assert (
        "A binding lasts as long as this browser tab's session: a reload or a link opens the plan without it." in said
    )
    # by position would need 8 columns where the file has 4: not offered, and the page says why
    assert not [t for t in at.toggle if t.key == "fix_position_CUSTOMER"]
    assert any(
        "Reading it by position would not serve either: it has 4 columns where the plan declares 8" in c.value
        for c in at.caption
    )
    # the tutorial's orders (the last data root) is no TPC-H orders either
    assert (_row(at, "ORDERS")["bound"], _row(at, "ORDERS")["how"]) == ("no", "columns differ")
    # the fix: the one file of the data roots with the plan's columns
    pick = at.selectbox(key="fix_file_CUSTOMER")
    assert pick.options == [str(data_root / "clients.parquet")]
    at.button(key="fix_bind_CUSTOMER").click().run()
    assert not at.exception, at.exception
    row = _row(at, "CUSTOMER")
    assert (row["bound"], row["how"], row["source"]) == (
        "yes",
        "binding",
        f"parquet at {data_root / 'clients.parquet'}",
    )
    assert not [s for s in at.selectbox if s.key == "fix_file_CUSTOMER"]  # its panel is gone
    # the choice is in the session's catalog (ui.state.plan_data.catalog_for), the one the runs take
    catalog = at.session_state["catalog"][1]
    assert catalog.bindings["customer"] == str(data_root / "clients.parquet")
    assert "--" not in catalog.by_position_how and "Tables page" in catalog.by_position_how
    assert spark_calls == []


def test_reading_by_position_is_offered_where_count_and_types_allow(tmp_path, data_root, spark_calls):  # noqa: F811
    """A file of the plan's column count and types in order, under other names, can be read by
    position, and only once the person says so is it bound."""
    pq.write_table(
        pa.table({f"col{i}": v for i, v in enumerate(TPCH_CUSTOMER.values())}), data_root / "customer.parquet"
    )
    at = _tables_page(tmp_path, "tpch_q03_datafusion.json")
    assert _row(at, "customer")["bound"] == "no"
    toggle = at.toggle(key="fix_position_customer")
    assert toggle.value is False
    toggle.set_value(True).run()
    assert not at.exception, at.exception
    row = _row(at, "customer")
    assert (row["bound"], row["how"]) == ("yes", "data root, by position")
    assert at.session_state["tables_by_position"] == ["customer"]
    assert at.session_state["catalog"][1].reads_by_position(["customer"])
    at.toggle(key="fix_position_customer").set_value(False).run()
    assert _row(at, "customer")["bound"] == "no" and at.session_state["tables_by_position"] == []
    assert spark_calls == []


def test_the_generated_tpch_tables_fix_every_table_at_once(tmp_path, data_root, tpch_dir, spark_calls):  # noqa: F811
    at = _tables_page(tmp_path, "tpch_q03_isthmus.json")
    assert {_row(at, t)["bound"] for t in ("CUSTOMER", "ORDERS", "LINEITEM")} == {"no"}
    at.button(key="fix_tpch_all").click().run()
    assert not at.exception, at.exception
    for t in ("CUSTOMER", "ORDERS", "LINEITEM"):
        row = _row(at, t)
        assert (row["bound"], row["source"]) == (
            "yes",
            f"parquet at {os.path.join(tpch_dir, t.lower() + '.parquet')}",
        ), row
    assert not at.warning  # nothing left to fix
    assert spark_calls == []


def test_an_upload_without_the_plans_columns_is_said_as_the_persons_own_binding(
    tmp_path,
    data_root,
    tpch_dir,
    spark_calls,  # noqa: F811
):
    """A CSV uploaded for customer that lacks the plan's columns: the table stays unbound, its panel says
    it is the person's binding that does not serve, by the upload's name (not the session's copy), the
    list of bindings says so too, and undoing it from the panel leaves the table as before; one table
    of three is said in the singular."""
    at = _tables_page(tmp_path, "tpch_q03_datafusion.json")
    at.button(key="fix_tpch_orders").click().run()  # TPC-H's folder, now a data root, serves lineitem too
    assert [_row(at, t)["bound"] for t in ("customer", "orders", "lineitem")] == ["no", "yes", "yes"]
    before = _row(at, "customer")
    at.selectbox(key="bind_name").set_value("customer").run()
    at.file_uploader(key="bind_file").set_value(("my customers.csv", b"id,name\n1,x\n", "text/csv")).run()
    at.button(key="bind_upload").click().run()
    assert not at.exception, at.exception
    row = _row(at, "customer")
    assert (row["bound"], row["source"]) == ("no", "csv, your upload my_customers.csv")
    panel = [m.value for m in at.markdown if m.value.startswith("**customer**")]
    assert panel == ["**customer** · your binding does not serve it"], panel
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(e.startswith("Your upload my_customers.csv lacks 8 of the plan's 8 columns") for e in errors), errors
    assert not any(at.session_state["uploads_dir"] in e for e in errors)
    unbind = at.selectbox(key="unbind_name")
    assert unbind.label == "Your bindings for this plan"
    assert unbind.options[0] == "customer → your upload my_customers.csv (does not serve the plan)"
    warning = at.warning[0].value
    assert warning.startswith("1 of the plan's 3 tables cannot serve it as it is: a run that reads it is refused")
    at.button(key="fix_unbind_customer").click().run()
    assert not at.exception, at.exception
    assert _row(at, "customer") == before, (_row(at, "customer"), before)
    assert [o.split(" → ")[0] for o in at.selectbox(key="unbind_name").options] == ["orders"]
    assert spark_calls == []


def test_an_unbound_upload_no_longer_stands_for_its_table(
    tmp_path,
    data_root,
    tpch_dir,
    spark_calls,  # noqa: F811
):
    """A customer.parquet uploaded for customer, then unbound: the table is as it was, and the generated
    TPC-H customer binds it. Before, the upload stayed in the session's folder and stood for every plan's
    customer, ahead of the TPC-H data the person turned on (a user check found it)."""
    import io

    at = _tables_page(tmp_path, "tpch_q03_datafusion.json")
    before = _row(at, "customer")
    buffer = io.BytesIO()
    pq.write_table(pa.table({"c_custkey": [1], "c_name": ["x"]}), buffer)
    at.selectbox(key="bind_name").set_value("customer").run()
    at.file_uploader(key="bind_file").set_value(("customer.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    at.button(key="bind_upload").click().run()
    assert _row(at, "customer")["source"] == "parquet, your upload customer.parquet"
    at.button(key="fix_unbind_customer").click().run()
    assert not at.exception, at.exception
    assert _row(at, "customer") == before, (_row(at, "customer"), before)
    assert os.listdir(at.session_state["uploads_dir"]) == []
    at.button(key="fix_tpch_all").click().run()
    row = _row(at, "customer")
    assert (row["bound"], row["source"]) == ("yes", f"parquet at {os.path.join(tpch_dir, 'customer.parquet')}"), row
    assert spark_calls == []


def test_an_upload_for_one_plan_is_said_where_another_plan_reads_it(tmp_path, data_root, tpch_dir, spark_calls):  # noqa: F811
    """customer.parquet uploaded and bound for DataFusion's q03, then isthmus's q03 opened: its CUSTOMER is
    read from that upload (uploads serve every plan), and the page says so, with the fixes, where it had
    said "data root" and offered the generated TPC-H data for the other tables only (a user check)."""
    at = _tables_page(tmp_path, "tpch_q03_datafusion.json")
    with open(os.path.join(tpch_dir, "customer.parquet"), "rb") as fh:
        customer = fh.read()
    at.selectbox(key="bind_name").set_value("customer").run()
    at.file_uploader(key="bind_file").set_value(("customer.parquet", customer, "application/octet-stream"))
    at.run()
    at.button(key="bind_upload").click().run()
    assert _row(at, "customer")["how"] == "binding"
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_isthmus.json"), "rb") as fh:
        at.sidebar.file_uploader[0].set_value(("tpch_q03_isthmus.json", fh.read(), "application/json")).run()
    assert not at.exception, at.exception
    row = _row(at, "CUSTOMER")
    assert (row["bound"], row["how"], row["source"]) == (
        "yes",
        "upload for another plan",
        "parquet, your upload customer.parquet",
    ), row
    said = [m.value for m in at.markdown]
    assert "**CUSTOMER** · read from a file you uploaded for another plan" in said, said
    assert spark_calls == []


def test_an_upload_replaced_by_another_goes_and_unbind_leaves_the_table_as_it_was(
    tmp_path,
    data_root,
    spark_calls,  # noqa: F811
):
    """customer.csv bound, then customer.parquet bound in its place, then Unbind: the table is as it was
    before either. The CSV had stayed in the session's folder and stood for customer again after the
    Unbind (a user check found it); the list of bindings says the binding made last."""
    import io

    at = _tables_page(tmp_path, "tpch_q03_datafusion.json")
    before = _row(at, "customer")
    at.selectbox(key="bind_name").set_value("customer").run()
    at.file_uploader(key="bind_file").set_value(("customer.csv", b"c_custkey,c_name\n1,x\n", "text/csv")).run()
    at.button(key="bind_upload").click().run()
    buffer = io.BytesIO()
    pq.write_table(pa.table({"c_custkey": [1], "c_name": ["x"]}), buffer)
    at.file_uploader(key="bind_file").set_value(("customer.parquet", buffer.getvalue(), "application/octet-stream"))
    at.run()
    at.button(key="bind_upload").click().run()
    assert not at.exception, at.exception
    assert _row(at, "customer")["source"] == "parquet, your upload customer.parquet"
    assert os.listdir(at.session_state["uploads_dir"]) == ["customer.parquet"]
    assert at.selectbox(key="unbind_name").options == [
        "customer → your upload customer.parquet (does not serve the plan)"
    ]
    at.button(key="unbind").click().run()
    assert not at.exception, at.exception
    assert _row(at, "customer") == before, (_row(at, "customer"), before)
    assert os.listdir(at.session_state["uploads_dir"]) == []
    assert spark_calls == []


def test_a_tpcds_plan_is_bound_to_generated_tpcds_in_one_click(tmp_path, data_root, spark_calls):  # noqa: F811
    """DataFusion's TPC-DS q64 (its customer is TPC-DS's, not TPC-H's): the page offers TPC-DS's tables
    for all of them and not TPC-H's customer, whose columns are other; one click binds every table."""
    from executor.data.generate import TPCDS_TABLES, tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries
    from tests.support import SHARED

    folder = tpcds(0.01)
    tables = {t: os.path.join(folder, f"{t}.parquet") for t in TPCDS_TABLES}
    [query] = [q for q in read_queries([os.path.join(SHARED, "corpora", "tpcds-sql")]) if q.name == "64"]
    plan = sql_to_plan(query.sql, tables).data
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["uploads_dir"] = str(tmp_path)
    at.switch_page("pages/tables.py")
    at.run()
    at.sidebar.file_uploader[0].set_value(("q64.json", plan, "application/json")).run()
    assert not at.exception, at.exception
    read = set(at.dataframe[0].value["table"])
    assert "customer" in read and "store_sales" in read and {_row(at, t)["bound"] for t in read} == {"no"}
    keys = {b.key for b in at.button}
    assert "fix_tpcds_all" in keys and "fix_tpch_customer" not in keys and "fix_tpcds_customer" in keys
    at.button(key="fix_tpcds_all").click().run()
    assert not at.exception, at.exception
    for t in read:
        assert (_row(at, t)["bound"], _row(at, t)["source"]) == ("yes", f"parquet at {tables[t]}"), t
    assert at.session_state["use_tpcds"] is True and not at.warning
    assert spark_calls == []


def test_a_wider_table_column_that_serves_the_plan_is_a_caution_not_a_problem(tpch_dir):
    """isthmus's TPC-H q03 types customer's C_NATIONKEY i32 where the generated file has bigint: the table
    is bound (a run checks each value), and its note says so as a caution. DuckDB's types it so too, but its
    read never uses the column (its projection keeps c_custkey, its filter tests c_mktsegment): no caution."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sample"] = "tpch_q03_isthmus.json"
    at.run()
    at.switch_page("pages/tables.py").run()
    assert not at.exception, at.exception
    row = _row(at, "CUSTOMER")
    assert row["bound"] == "yes"
    assert row["notes"] == (
        "caution: C_NATIONKEY is bigint in the table, int in the plan: a run stops with an error at any value the "
        "plan's type cannot hold exactly"
    ), row
    assert "problem" not in at.dataframe[0].value.columns
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["sample"] = "tpch_q03_duckdb.json"
    at.run()
    at.switch_page("pages/tables.py").run()
    assert (_row(at, "customer")["bound"], _row(at, "customer")["notes"]) == ("yes", "")


def test_an_unbound_table_names_the_uploads_folder_as_the_person_knows_it(tmp_path):
    """The "not bound" message lists the data roots; this session's uploads folder is "your uploads",
    not its path on the server."""
    from executor.data.catalog import Catalog
    from ui.state.plan_data import shown_path

    uploads = tmp_path / "uploads"
    uploads.mkdir()
    catalog = Catalog(data_roots=[str(uploads)], shown_path=lambda p: shown_path(p, uploads=str(uploads)))
    (status,) = catalog.status([["lineitem"]])
    assert status.how == "not bound"
    assert "tables in the data roots (your uploads): none" in status.message, status.message
    assert str(uploads) not in status.message


def test_a_samples_note_says_which_tables_the_person_bound_instead(tmp_path):
    """The tutorial sample's tables are bound for the person; once they bind orders to a file of their own,
    the note says so, not that every table is still the sample's."""
    at = AppTest.from_file(APP, default_timeout=120)
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    at.session_state["uploads_dir"] = str(uploads)
    at.switch_page("pages/tables.py")
    at.run()
    at.sidebar.selectbox(key="plan_sample").select("tutorial.json").run()
    notes = [c.value for c in at.caption if "bound for you" in c.value]
    assert notes and notes[0].endswith("the tutorial tables, bound for you."), notes
    at.selectbox(key="bind_name").set_value("orders").run()
    at.file_uploader(key="bind_file").set_value(("my orders.csv", b"product_id,quantity\n1,2\n", "text/csv")).run()
    at.button(key="bind_upload").click().run()
    assert not at.exception, at.exception
    notes = [c.value for c in at.caption if "bound for you" in c.value]
    assert notes and notes[0].endswith("bound for you; you bound orders yourself."), notes


def test_an_upload_read_by_position_is_said_to_serve_in_the_list_of_bindings(tmp_path, spark_calls):  # noqa: F811
    """An upload for the tutorial's orders under other names, then read by position: the table's card and
    the list of the person's bindings both say it serves the plan."""
    at = _tables_page(tmp_path, "tutorial.json")
    at.selectbox(key="bind_name").set_value("orders").run()
    csv = b"id,qty,when,amount\n1,2,2024-01-01,3.5\n2,5,2024-02-03,7.25\n"
    at.file_uploader(key="bind_file").set_value(("orders_bad.csv", csv, "text/csv")).run()
    at.button(key="bind_upload").click().run()
    assert "does not serve" in at.selectbox(key="unbind_name").options[0]
    at.toggle(key="fix_position_orders").set_value(True).run()
    assert not at.exception, at.exception
    assert _row(at, "orders")["bound"] == "yes"
    assert at.selectbox(key="unbind_name").options[0] == (
        "orders → your upload orders_bad.csv (serves the plan, read by position)"
    )
    assert spark_calls == []


def test_an_upload_that_is_no_table_is_refused_and_the_binding_before_it_stays(tmp_path, spark_calls):  # noqa: F811
    """A picture named .csv, an empty .csv and text named .parquet, each uploaded for a table already bound
    to a good upload of that name: each is refused with the reader's reason in words (no server path, none
    of the file's own bytes), nothing is bound, and the good file is neither replaced nor unbound."""
    at = _tables_page(tmp_path, "tutorial.json")
    at.selectbox(key="bind_name").set_value("orders").run()
    good = b"product_id,quantity,order_date,price\n1,2,2024-01-01,2.5\n"
    at.file_uploader(key="bind_file").set_value(("orders.csv", good, "text/csv")).run()
    at.button(key="bind_upload").click().run()
    bound = _row(at, "orders")
    assert (bound["source"], bound["bound"]) == ("csv, your upload orders.csv", "yes"), bound
    uploads = at.session_state["uploads_dir"]
    for name, data, says in [
        ("orders.csv", bytes(range(256)) * 4, "orders.csv cannot be read as CSV: CSV parse error: Row #3: Expected"),
        ("orders.csv", b"", "orders.csv cannot be read as CSV: CSV parse error: Empty CSV file"),
        ("orders.parquet", b"order_id\n1\n", "orders.parquet cannot be read as Parquet: Parquet magic bytes not found"),
    ]:
        at.file_uploader(key="bind_file").set_value((name, data, "application/octet-stream")).run()
        at.button(key="bind_upload").click().run()
        assert not at.exception, at.exception
        errors = [e.value.replace("\\", "") for e in at.error]
        assert any(e.startswith(says) and e.endswith("It was not bound to orders.") for e in errors), errors
        assert not any(uploads in e or "\x00" in e or "\x10" in e for e in errors), errors
        assert _row(at, "orders") == bound
        with open(os.path.join(uploads, "orders.csv"), "rb") as fh:
            assert fh.read() == good
    assert sorted(os.listdir(uploads)) == ["orders.csv"]
    assert spark_calls == []


def test_uploads_of_servers_that_no_longer_run_are_removed_and_a_session_makes_its_folder_when_it_uploads(
    tmp_path, monkeypatch
):
    import subprocess
    import time

    from ui.state import plan_data

    ended = subprocess.Popen(["true"])
    ended.wait()
    root = tmp_path / "uploads"
    for name in (str(ended.pid), str(os.getpid()), "a" * 32, "b" * 32, "c" * 32):
        (root / name).mkdir(parents=True)
    (root / str(ended.pid) / "orders.parquet").write_bytes(b"x")  # an ended server's session's upload
    (root / ("b" * 32)).joinpath("orders.csv").write_text("a\n1\n")  # the older layout, in use today
    (root / ("c" * 32)).joinpath("orders.csv").write_text("a\n1\n")  # the older layout, two days old
    old = time.time() - 2 * 24 * 3600
    os.utime(root / ("c" * 32), (old, old))
    removed = plan_data.clean_uploads(str(root))
    assert sorted(os.path.basename(p) for p in removed) == sorted([str(ended.pid), "a" * 32, "c" * 32])
    assert sorted(os.listdir(root)) == sorted([str(os.getpid()), "b" * 32])

    # a session that opens pages without uploading leaves no folder behind
    monkeypatch.setattr(plan_data, "UPLOADS_ROOT", str(tmp_path / "fresh"))
    monkeypatch.setattr(plan_data, "_process_uploads", None)
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/tables.py")
    at.run()
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        at.sidebar.file_uploader[0].set_value(("tutorial.json", fh.read(), "application/json")).run()
    assert not at.exception, at.exception
    assert at.session_state["uploads_dir"].startswith(str(tmp_path / "fresh" / str(os.getpid())))
    assert not os.path.exists(at.session_state["uploads_dir"])


def test_the_uploads_of_sessions_that_ended_are_removed_when_another_session_uploads(tmp_path, monkeypatch):
    import time

    from ui.state import plan_data

    here = {"connected"}
    monkeypatch.setattr(plan_data, "session_here", lambda sid: sid in here)
    server = tmp_path / "uploads" / "123"
    for name in ("ended", "connected", "ended-lately", "mine"):
        (server / name).mkdir(parents=True)
        (server / name / "orders.csv").write_text("a\n1\n")
    old = time.time() - plan_data.ENDED_UPLOADS_S - 60
    for name in ("ended", "connected", "mine"):
        os.utime(server / name, (old, old))
    removed = plan_data.remove_ended_uploads(str(server), keep=str(server / "mine"))
    # a session gone for longer than the grace; one that may still come back, one connected and one's own stay
    assert [os.path.basename(p) for p in removed] == ["ended"]
    assert sorted(os.listdir(server)) == ["connected", "ended-lately", "mine"]


def test_rows_and_counts_kept_for_a_plan_s_data_are_not_those_of_a_file_written_again_under_its_name(
    tmp_path, monkeypatch
):
    """The pages keep runs, steps and profiles under ``data_key``: a table uploaded again under its name had
    kept the first file's rows and counts on show."""
    from ui.state import plan_data

    path = tmp_path / "orders.parquet"
    pq.write_table(pa.table({"id": [1]}), path)
    folder = tmp_path / "mine"
    folder.mkdir()
    monkeypatch.setattr(plan_data, "bindings", lambda plan: {"orders": str(path)})
    monkeypatch.setattr(plan_data, "user_data", lambda: str(folder))
    monkeypatch.setattr(plan_data, "by_position", lambda: [])
    monkeypatch.setattr(plan_data, "sample_data_kind", lambda plan: None)
    from tests.support.plans import model_of, plan, read

    # the plan reads orders (bound) and lineitem (found in the folder by name), as the pages call it
    model = model_of(plan((read("orders", [("id", "i64")]), ["id"]), (read("lineitem", [("id", "i64")]), ["id"])))
    first = plan_data.data_key(None, model)
    assert plan_data.data_key(None, model) == first
    pq.write_table(pa.table({"id": [2, 3]}), path)
    second = plan_data.data_key(None, model)
    assert second != first
    pq.write_table(pa.table({"id": [4]}), folder / "lineitem.parquet")  # a table of the folder, found by name
    third = plan_data.data_key(None, model)
    assert third != second
    assert plan_data.data_key(None, model) == third
    pq.write_table(pa.table({"id": [5, 6]}), folder / "lineitem.parquet")  # in place
    assert plan_data.data_key(None, model) != third
