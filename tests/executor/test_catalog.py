"""The catalog and safe file access: named tables, LocalFiles in every path form and format, and
every way a path could leave the data roots (refused with the allowed roots named)."""

from __future__ import annotations

import os
from datetime import UTC

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest
from substrait import algebra_pb2

from executor.data.catalog import Catalog, data_roots, named_tables
from executor.data.paths import DataRoots
from executor.errors import Refused, TableNotFound, Unsupported
from tests.support import ROOT

ROWS = {"id": [1, 2, 3], "name": ["a", "b", None]}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """root/ (the data root) with one table per format, and outside/ beside it with a secret."""
    base = tmp_path_factory.mktemp("catalog")
    root, outside = base / "root", base / "outside"
    root.mkdir()
    outside.mkdir()
    table = pa.table(ROWS)
    pq.write_table(table, root / "People.parquet")
    orc.write_table(table, str(root / "people_orc.orc"))
    with ipc.new_file(str(root / "people_arrow.arrow"), table.schema) as w:
        w.write_table(table)
    with ipc.new_stream(str(root / "people_stream.ipc"), table.schema) as w:
        w.write_table(table)
    feather.write_feather(table, str(root / "people_feather.feather"))
    (root / "people_csv.csv").write_text("id,name\n1,a\n2,b\n3,\n")
    (root / "pipes.txt").write_text("# generated\n# id|name\n1|'a|x'\n2|NULL\n3|\n")
    (root / "plain.txt").write_text("1;x\n2;\n")
    (root / "parts").mkdir()
    pq.write_table(pa.table({"id": [1]}), root / "parts" / "p1.parquet")
    pq.write_table(pa.table({"id": [2]}), root / "parts" / "p2.parquet")
    pq.write_table(pa.table({"id": [9]}), outside / "secret.parquet")
    (root / "escape_link.parquet").symlink_to(outside / "secret.parquet")
    (root / "escape_dir").symlink_to(outside)
    (root / "inner_link.parquet").symlink_to(root / "People.parquet")
    return root, outside


def _files(**kw) -> algebra_pb2.ReadRel.LocalFiles:
    item = algebra_pb2.ReadRel.LocalFiles.FileOrFiles(**kw)
    return algebra_pb2.ReadRel.LocalFiles(items=[item])


def _rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


# ---- paths: no Spark ------------------------------------------------------------------------


def test_paths_inside_the_root_resolve(tree):
    root, _ = tree
    roots = DataRoots([str(root)])
    assert roots.resolve("People.parquet") == str(root / "People.parquet")
    assert roots.resolve(str(root / "parts")) == str(root / "parts")
    assert roots.resolve(f"file://{root}/People.parquet") == str(root / "People.parquet")
    assert roots.resolve(f"file://localhost{root}/People.parquet") == str(root / "People.parquet")
    assert roots.resolve("inner_link.parquet") == str(root / "People.parquet")  # a link that stays inside
    assert roots.expand_glob("parts/*.parquet") == [
        str(root / "parts" / "p1.parquet"),
        str(root / "parts" / "p2.parquet"),
    ]


@pytest.mark.parametrize(
    "path, says",
    [
        ("../outside/secret.parquet", "`..`"),
        ("parts/../People.parquet", "`..`"),  # even when it would stay inside
        ("{outside}/secret.parquet", "outside the data roots"),  # absolute path outside
        ("file://{outside}/secret.parquet", "outside the data roots"),
        ("file://{root}/../outside/secret.parquet", "`..`"),
        ("file://otherhost/data/x.parquet", "host `otherhost`"),
        ("http://example.com/x.parquet", "scheme `http`"),
        ("https://example.com/x.parquet", "scheme `https`"),
        ("s3://bucket/x.parquet", "scheme `s3`"),
        ("hdfs://nn:8020/x.parquet", "scheme `hdfs`"),
        ("escape_link.parquet", "outside the data roots"),  # symlink leaving the root
        ("escape_dir/secret.parquet", "outside the data roots"),  # symlinked folder leaving the root
        ("/etc/passwd", "outside the data roots"),
        ("", "empty path"),
    ],
)
def test_paths_that_leave_the_root_are_refused(tree, path, says):
    root, outside = tree
    roots = DataRoots([str(root)])
    path = path.format(root=root, outside=outside)
    with pytest.raises(Refused) as err:
        roots.resolve(path)
    assert says in str(err.value)
    if says != "empty path":
        assert str(root) in str(err.value)  # the message names the allowed root


@pytest.mark.parametrize(
    "pattern, says",
    [
        ("../outside/*.parquet", "`..`"),
        ("{outside}/*.parquet", "outside the data roots"),
        ("/*/secret.parquet", "outside the data roots"),  # the fixed part "/" lies above the root
        ("escape_dir/*.parquet", "outside the data roots"),  # fixed part is a link leaving the root
        ("escape_*.parquet", "resolves to"),  # a match that is a link leaving the root
        ("s3://bucket/*.parquet", "scheme `s3`"),
    ],
)
def test_globs_that_escape_are_refused(tree, pattern, says):
    root, outside = tree
    roots = DataRoots([str(root)])
    with pytest.raises(Refused) as err:
        roots.expand_glob(pattern.format(outside=outside))
    assert says in str(err.value)


def test_no_roots_means_nothing_is_readable(tree):
    root, _ = tree
    with pytest.raises(Refused, match="no data roots are configured"):
        DataRoots([]).resolve(str(root / "People.parquet"))


def test_a_file_root_allows_that_file_only(tree):
    root, _ = tree
    roots = DataRoots([str(root / "People.parquet")])
    assert roots.resolve(str(root / "People.parquet")) == str(root / "People.parquet")
    with pytest.raises(Refused):
        roots.resolve(str(root / "people_csv.csv"))


def test_bind_outside_the_roots_is_refused(tree):
    root, outside = tree
    cat = Catalog([str(root)])
    with pytest.raises(Refused, match="outside the data roots"):
        cat.bind("secret", str(outside / "secret.parquet"))
    with pytest.raises(TableNotFound, match="does not exist"):
        cat.bind("ghost", "ghost.parquet")


def test_a_table_file_linking_outside_is_refused(tree):
    root, _ = tree
    cat = Catalog([str(root)])
    with pytest.raises(Refused, match="outside the data roots"):
        cat.named_table(None, ["escape_link"])  # refused before Spark is needed
    (status,) = cat.status([["escape_link"]])
    assert not status.bound and status.how == "refused" and "outside the data roots" in status.message


def test_status_without_spark(tree):
    root, _ = tree
    cat = Catalog([str(root)], bindings={"Bound": str(root / "people_csv.csv")}, use_spark_catalog=False)
    status = cat.status([["people"], ["db", "BOUND"], ["missing"]])
    assert [(s.name, s.bound, s.how, s.format) for s in status] == [
        ("people", True, "data root", "parquet"),
        ("db.BOUND", True, "binding", "csv"),
        ("missing", False, "not bound", None),
    ]
    assert status[0].path == str(root / "People.parquet")
    assert "people_csv" in status[2].message and "bound" in status[2].message  # lists what exists


def test_a_table_found_in_the_shared_uploads_says_it_was_uploaded_for_another_plan(tree, tmp_path):
    """The app's uploads serve every plan; a table found there that this plan binds to nothing was uploaded
    for another plan, which its status and a run's note say (a person had run q03 on a 3-row customer
    uploaded for another plan without a word). A binding of the same file is the plan's own."""
    from executor.data.catalog import ANOTHER_PLANS

    root, _ = tree
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "customer.csv").write_text("c_custkey\n1\n")
    cat = Catalog([str(uploads), str(root)], shared_uploads=str(uploads), use_spark_catalog=False)
    [customer, people] = cat.status([["CUSTOMER"], ["people"]])
    assert (customer.bound, customer.how, people.how) == (True, ANOTHER_PLANS, "data root")
    note = cat.upload_note(["CUSTOMER"])
    assert note is not None and note.startswith(f"read from csv at {uploads / 'customer.csv'}, which was uploaded")
    assert cat.upload_note(["people"]) is None
    cat.bind("customer", str(uploads / "customer.csv"))
    assert cat.status([["customer"]])[0].how == "binding" and cat.upload_note(["customer"]) is None


def test_a_run_says_a_table_it_reads_from_another_plans_upload(spark, tmp_path):
    """The tutorial's orders read from the shared uploads: the run's notes say so, once for the read."""
    import shutil

    from executor.jobs.run import run_node
    from viz.model import analyze

    uploads = tmp_path / "uploads"
    uploads.mkdir()
    sample_data = os.path.join(ROOT, "sample_data", "tutorial")
    orders = next(f for f in os.listdir(sample_data) if f.startswith("orders."))
    shutil.copy(os.path.join(sample_data, orders), uploads / orders)
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        model = analyze(fh.read())
    cat = Catalog([str(uploads), sample_data], shared_uploads=str(uploads), use_spark_catalog=False)
    result = run_node(model, model.roots[0], catalog=cat, explain=False)
    said = [w for w in result.warnings if "uploaded for another plan" in w]
    assert len(said) == 1 and said[0].startswith("table `orders`: read from "), result.warnings


def test_named_tables_of_a_plan(corpora_dir):
    from viz.model import analyze

    with open(os.path.join(corpora_dir, "isthmus-tpch", "query_03_plan.json"), "rb") as f:
        model = analyze(f.read())
    assert sorted(named_tables(model)) == [["CUSTOMER"], ["LINEITEM"], ["ORDERS"]]


def test_available_tables_in_roots(tree):
    root, _ = tree
    names = Catalog([str(root)]).available_in_roots()
    assert {"people", "people_orc", "people_arrow", "people_stream", "people_feather", "people_csv", "parts"} <= set(
        names
    )


def test_data_files_are_the_bindable_files_in_the_roots(tree):
    root, _ = tree
    files = Catalog([str(root)]).data_files()
    assert files == sorted(files)
    assert str(root / "People.parquet") in files and str(root / "people_csv.csv") in files
    assert str(root / "plain.txt") not in files  # not a table format
    assert not any(f.startswith(str(root / "parts")) for f in files)  # folders are not listed


def test_one_resolution_order_for_the_app_and_the_command_line(tmp_path, tpch_dir):
    """A sample's own data, then the person's folders in order, then generated data, then data for
    every plan: the first root holding a table wins."""
    folders = {}
    for name in ("own", "mine", "theirs", "tpch", "tutorial"):
        folders[name] = tmp_path / name
        folders[name].mkdir()
        (folders[name] / "orders.csv").write_text(f"who\n{name}\n")
    f = {k: str(v) for k, v in folders.items()}
    roots = data_roots(own=[f["own"]], user=[f["mine"], f["theirs"]], generated=[f["tpch"]], fallback=[f["tutorial"]])
    assert roots == [f["own"], f["mine"], f["theirs"], f["tpch"], f["tutorial"]]
    assert data_roots(own=[f["tpch"]], generated=[f["tpch"]], fallback=[f["tutorial"]]) == [f["tpch"], f["tutorial"]]
    for without, wins in (("own", "mine"), ("mine", "theirs"), ("theirs", "tpch"), ("tpch", "tutorial")):
        roots = [r for r in roots if r != f[without]]
        assert Catalog(roots).status([["orders"]])[0].path == str(folders[wins] / "orders.csv")

    # the command line: --data-dir folders in order, then --tpch, through the same policy
    import argparse

    from executor.__main__ import _catalog

    tpch = str(tpch_dir)  # the folder --tpch names
    args = argparse.Namespace(data_dir=[f["mine"], f["theirs"]], table=[], tpch=True, tpcds=False, by_position=())
    cat = _catalog(args)
    assert cat.roots.roots[:2] == [os.path.realpath(f["mine"]), os.path.realpath(f["theirs"])]
    assert cat.status([["orders"]])[0].path == os.path.realpath(folders["mine"] / "orders.csv")
    assert cat.status([["lineitem"]])[0].path.startswith(os.path.realpath(tpch))


# ---- named tables and local files through Spark --------------------------------------------


def test_named_tables_every_format(spark, tree):
    root, _ = tree
    cat = Catalog([str(root)])
    expected = [(1, "a"), (2, "b"), (3, None)]
    for name in ("PEOPLE", "people_orc", "people_arrow", "people_stream", "people_feather"):
        df = cat.named_table(spark, ["db", name])
        assert df.columns == ["id", "name"], name
        assert _rows(df) == sorted(expected, key=repr), name
    # a named csv has a header and inferred types; the empty field is null
    assert _rows(cat.named_table(spark, ["people_csv"])) == sorted(expected, key=repr)
    # the same DataFrame comes back: read once
    assert cat.named_table(spark, ["people"]) is cat.named_table(spark, ["People"])


def test_named_table_resolution_order_and_errors(spark, tree, tmp_path):
    root, _ = tree
    cat = Catalog([str(root)], bindings={"tpch.people": str(root / "parts")})
    assert _rows(cat.named_table(spark, ["tpch", "people"])) == [(1,), (2,)]  # the full-name binding wins
    assert len(_rows(cat.named_table(spark, ["people"]))) == 3  # the stem in the root
    with pytest.raises(TableNotFound) as err:
        cat.named_table(spark, ["nowhere"])
    assert "`nowhere`" in str(err.value) and "tpch.people" in str(err.value)


def test_a_benchmark_table_that_is_not_bound_says_how_to_read_the_generated_data(spark, tree):
    root, _ = tree
    how = "turn on “Use the generated {suite} sample data” on the Tables page"
    cat = Catalog([str(root)], use_spark_catalog=False, bind_how="Bind it there", suite_how=how)
    for table, said in (("customer", "TPC-H"), ("store_sales", "TPC-DS")):
        with pytest.raises(TableNotFound) as err:
            cat.named_table(spark, [table])
        assert str(err.value).endswith(
            f"{table} is a {said} table: turn on “Use the generated {said} sample data” on the Tables page. "
            "Or: Bind it there."
        ), str(err.value)
    with pytest.raises(TableNotFound) as err:
        cat.named_table(spark, ["nowhere"])
    assert str(err.value).endswith("Bind it there.") and "is a TPC" not in str(err.value)


def test_spark_catalog_table(spark, tree):
    root, _ = tree
    spark.createDataFrame([(7,)], "x int").createOrReplaceTempView("catalog_test_view")
    try:
        assert _rows(Catalog([str(root)]).named_table(spark, ["catalog_test_view"])) == [(7,)]
        status = Catalog([str(root)]).status([["catalog_test_view"]])[0]
        assert status.bound and status.how == "spark catalog"
        with pytest.raises(TableNotFound):
            Catalog([str(root)], use_spark_catalog=False).named_table(spark, ["catalog_test_view"])
    finally:
        spark.catalog.dropTempView("catalog_test_view")


def test_local_files_path_forms(spark, tree):
    root, _ = tree
    cat = Catalog([str(root)])
    parquet = algebra_pb2.ReadRel.LocalFiles.FileOrFiles.ParquetReadOptions()
    assert len(_rows(cat.local_files(spark, _files(uri_file=str(root / "People.parquet"), parquet=parquet)))) == 3
    assert len(_rows(cat.local_files(spark, _files(uri_path=f"file://{root}/People.parquet", parquet=parquet)))) == 3
    assert _rows(cat.local_files(spark, _files(uri_folder=str(root / "parts"), parquet=parquet))) == [(1,), (2,)]
    assert _rows(cat.local_files(spark, _files(uri_path_glob=f"{root}/parts/p*.parquet", parquet=parquet))) == [
        (1,),
        (2,),
    ]
    assert _rows(cat.local_files(spark, _files(uri_path_glob=f"{root}/parts/p2.*", parquet=parquet))) == [(2,)]
    # several items are unioned by position
    two = algebra_pb2.ReadRel.LocalFiles(
        items=[
            algebra_pb2.ReadRel.LocalFiles.FileOrFiles(uri_file=str(root / "parts" / "p1.parquet"), parquet=parquet),
            algebra_pb2.ReadRel.LocalFiles.FileOrFiles(uri_file=str(root / "parts" / "p1.parquet"), parquet=parquet),
        ]
    )
    assert _rows(cat.local_files(spark, two)) == [(1,), (1,)]
    with pytest.raises(Unsupported, match="not a folder"):
        cat.local_files(spark, _files(uri_folder=str(root / "People.parquet"), parquet=parquet))
    with pytest.raises(TableNotFound, match="matches no file"):
        cat.local_files(spark, _files(uri_path_glob=f"{root}/parts/none*.parquet", parquet=parquet))
    with pytest.raises(Refused, match="scheme `s3`"):
        cat.local_files(spark, _files(uri_file="s3://bucket/x.parquet", parquet=parquet))


def test_local_files_formats(spark, tree):
    root, _ = tree
    cat = Catalog([str(root)])
    F = algebra_pb2.ReadRel.LocalFiles.FileOrFiles
    expected = sorted([(1, "a"), (2, "b"), (3, None)], key=repr)
    assert (
        _rows(cat.local_files(spark, _files(uri_file=str(root / "people_orc.orc"), orc=F.OrcReadOptions()))) == expected
    )
    assert (
        _rows(cat.local_files(spark, _files(uri_file=str(root / "people_arrow.arrow"), arrow=F.ArrowReadOptions())))
        == expected
    )
    # no format given: taken from the suffix
    assert _rows(cat.local_files(spark, _files(uri_file=str(root / "People.parquet")))) == expected
    with pytest.raises(Unsupported, match="dwrf"):
        cat.local_files(spark, _files(uri_file=str(root / "People.parquet"), dwrf=F.DwrfReadOptions()))
    with pytest.raises(Unsupported, match="partial"):
        cat.local_files(
            spark, _files(uri_file=str(root / "People.parquet"), start=4, length=10, parquet=F.ParquetReadOptions())
        )


def test_local_files_delimited_text_options(spark, tree):
    root, _ = tree
    cat = Catalog([str(root)])
    F = algebra_pb2.ReadRel.LocalFiles.FileOrFiles
    # two header lines skipped, '|' delimiter, "'" quote, NULL as the null value: all strings
    text = F.DelimiterSeparatedTextReadOptions(
        field_delimiter="|", quote="'", header_lines_to_skip=2, value_treated_as_null="NULL"
    )
    df = cat.local_files(spark, _files(uri_file=str(root / "pipes.txt"), text=text))
    assert _rows(df) == [("1", "a|x"), ("2", None), ("3", "")]
    # no null value: nothing is null, an empty field is an empty string
    text = F.DelimiterSeparatedTextReadOptions(field_delimiter=";")
    df = cat.local_files(spark, _files(uri_file=str(root / "plain.txt"), text=text))
    assert _rows(df) == [("1", "x"), ("2", "")]
    # one header line through Spark's own reader, with the empty string as the null value
    text = F.DelimiterSeparatedTextReadOptions(field_delimiter=",", header_lines_to_skip=1, value_treated_as_null="")
    df = cat.local_files(spark, _files(uri_file=str(root / "people_csv.csv"), text=text))
    assert _rows(df) == sorted([("1", "a"), ("2", "b"), ("3", None)], key=repr)


def test_tpch_named_tables(spark, tpch_dir):
    cat = Catalog([tpch_dir])
    assert cat.named_table(spark, ["tpch", "NATION"]).count() == 25
    assert cat.named_table(spark, ["region"]).columns[:2] == ["r_regionkey", "r_name"]


def test_a_warm_catalog_conforms_each_table_once_per_plan_schema(spark, tpch_dir):
    """Translating a plan again over the same catalog reuses the table's renamed and cast columns
    (``Catalog.cached``), with the same rows."""
    from benchmarks import spark as bench
    from executor.translate.rel import translate
    from viz.model import analyze

    catalog = Catalog([tpch_dir], use_spark_catalog=False)
    made: list[tuple] = []
    real = catalog.cached

    def counting(session, key, make):
        return real(session, key, lambda: (made.append(key), make())[1])

    catalog.cached = counting
    (q06,) = bench.queries([6])
    model = analyze(q06["plan"])
    first = translate(model, model.roots[0], spark, catalog).df.collect()
    assert [k[0] for k in made] == ["conformed"]  # q06 reads lineitem once
    second = translate(model, model.roots[0], spark, catalog).df.collect()
    assert len(made) == 1 and first == second
    catalog.clear_cache()
    translate(model, model.roots[0], spark, catalog)
    assert len(made) == 2  # made again once the tables are dropped


def test_a_tables_size_is_the_bytes_a_read_of_it_takes(tmp_path):
    """For its place in line (executor.spark.turns): a file's bytes; a folder's data files, not its
    hidden or bookkeeping ones (``.crc``, ``_SUCCESS``), as a read skips them; None when not found here."""
    pq.write_table(pa.table({"a": [1, 2, 3]}), tmp_path / "one.parquet")
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(2):
        pq.write_table(pa.table({"a": [i]}), folder / f"part-{i}.parquet")
    (folder / "_SUCCESS").write_bytes(b"x" * 1000)
    (folder / ".part-0.parquet.crc").write_bytes(b"x" * 1000)
    catalog = Catalog([str(tmp_path)])
    assert catalog.size(["one"]) == os.path.getsize(tmp_path / "one.parquet")
    assert catalog.size(["many"]) == sum(os.path.getsize(folder / f"part-{i}.parquet") for i in range(2))
    assert catalog.size(["missing"]) is None


def test_a_folder_holding_a_link_outside_is_refused_before_anything_reads_it(tmp_path):
    """Spark and pyarrow list a folder's files and follow its links: a folder table, a bound folder and a
    LocalFiles folder each holding a link to a file outside the roots are refused, the link named and
    nothing of what it leads to said."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "pw").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.csv").write_text("password\nhunter2\n")
    (root / "pw" / "part-0.csv").symlink_to(outside / "secret.csv")
    (root / "ok").mkdir()
    (root / "ok" / "part-0.csv").write_text("a\n1\n")
    (root / "ok" / "again").symlink_to(root / "ok")  # a link back up the tree stays inside: allowed
    cat = Catalog([str(root)])
    with pytest.raises(Refused, match="part-0.csv' is a link that leads outside") as found:
        cat.named_table(None, ["pw"])
    assert "hunter2" not in str(found.value)
    (status,) = cat.status([["pw"]])
    assert not status.bound and status.how == "refused" and "hunter2" not in status.message
    with pytest.raises(Refused, match="leads outside"):
        cat.bind("pw", str(root / "pw"))
    with pytest.raises(Refused, match="leads outside"):
        cat.local_files(None, _files(uri_folder="pw"))
    cat.roots.check_tree(str(root / "ok"))  # no error
    assert cat.status([["ok"]])[0].bound


def test_a_timestamp_stored_with_a_zone_is_read_in_utc_and_said(spark, tmp_path):
    """A parquet column of instants stored with zone America/New_York: the plan's precision_timestamp_tz
    keeps no zone, Spark reads UTC instants, so its hours are UTC's (16 and 14, by hand: EDT is UTC-4 on
    2024-03-10 at noon, EST UTC-5 on 2024-01-15), where DataFusion's engine takes New York's (12 and 9).
    The read says so; a column stored in UTC says nothing."""
    from datetime import datetime

    import datafusion

    from executor.engines.sql_plan import sql_to_plan
    from executor.jobs.run import run_node
    from viz.model import analyze

    instants = [datetime(2024, 3, 10, 16, 0, tzinfo=UTC), datetime(2024, 1, 15, 14, 30, tzinfo=UTC)]
    table = pa.table(
        {
            "id": pa.array([1, 2], pa.int32()),
            "ny": pa.array(instants, pa.timestamp("us", tz="America/New_York")),
            "utc": pa.array(instants, pa.timestamp("us", tz="UTC")),
        }
    )
    path = tmp_path / "zoned.parquet"
    pq.write_table(table, path)
    sql = "SELECT id, extract(hour FROM ny) AS h, extract(hour FROM utc) AS u FROM zoned ORDER BY id"

    ctx = datafusion.SessionContext()
    ctx.register_parquet("zoned", str(path))
    assert [int(h) for h in ctx.sql(sql).to_pydict()["h"]] == [12, 9]

    model = analyze(sql_to_plan(sql, {"zoned": str(path)}, json=False, form="optimized").data)
    result = run_node(model, model.roots[0], catalog=Catalog([str(tmp_path)]), explain=False)
    assert [(int(h), int(u)) for h, u in result.rows.iloc[:, 1:].itertuples(index=False)] == [(16, 16), (14, 14)]
    zoned = [w for w in result.warnings if "zone" in w]
    assert zoned == [
        "table `zoned`: column ny's file stores its instants with zone America/New_York; the plan's "
        "precision_timestamp_tz<6>? keeps no zone, so the run takes their dates and times of day in UTC, where an "
        "engine that keeps the file's zone (DataFusion's) takes them in America/New_York"
    ]


def test_a_table_with_times_of_day_and_nanosecond_timestamps_runs(spark, tmp_path):
    """A parquet file with a time of day and timestamps stored in nanoseconds (pandas writes them so), which
    Spark could not read at all before its TIME and the session's settings: every query runs in both of
    DataFusion's forms, its rows DataFusion's own (the time of day as Spark's TIME); a value with a part of
    a microsecond in a timestamp stops the run, the value said."""
    from datetime import datetime, time

    import datafusion

    from executor.engines.sql_plan import sql_to_plan
    from executor.errors import ExecutionError
    from executor.jobs.run import run_node
    from executor.translate.executable import executability
    from viz.model import analyze

    ns = [1_600_000_000_123_456_000, None, -86_400_000_000_000]  # 2020-09-13 12:26:40.123456, -, 1969-12-31
    table = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "t": pa.array([time(1, 2, 3), None, time(23, 0)], pa.time64("us")),
            "ts": pa.array(ns, pa.timestamp("ns")),
            "tz": pa.array(ns, pa.timestamp("ns", tz="UTC")),
        }
    )
    path = tmp_path / "tt.parquet"
    pq.write_table(table, path)
    catalog = Catalog([str(tmp_path)])

    def run(sql: str, form: str):
        model = analyze(sql_to_plan(sql, {"tt": str(path)}, json=False, form=form).data)
        return model, run_node(model, model.roots[0], catalog=catalog, explain=False)

    for form in ("optimized", "written"):
        _, result = run("SELECT id, count(*) AS c FROM tt GROUP BY id", form)  # Spark checks types outside a query
        assert sorted(map(tuple, result.rows.itertuples(index=False))) == [(1, 1), (2, 1), (3, 1)]
        model, result = run("SELECT id FROM tt WHERE id > 1", form)
        assert sorted(result.rows.iloc[:, 0]) == [2, 3]
    [read] = [n for n in model.nodes() if n.kind == "read"]  # the written form's: all four columns out
    assert executability(model)[read.id].rows_reason is None
    from executor.jobs.profile import profile_plan

    counts = profile_plan(model, catalog)  # in a thread of the run's, where Spark checks TIME against its settings
    assert {n: p.rows for n, p in counts.nodes.items()} == {model.roots[0]: 2, "0.0": 2, read.id: 3}

    sql = "SELECT id, t, ts, tz FROM tt ORDER BY id"
    ctx = datafusion.SessionContext()
    ctx.register_parquet("tt", str(path))
    expected = ctx.sql(sql).to_pydict()
    assert expected["ts"][0] == datetime(2020, 9, 13, 12, 26, 40, 123456)
    for form in ("written", "optimized"):
        _, result = run(sql, form)
        got = list(result.rows.itertuples(index=False))
        assert expected["t"] == [time(1, 2, 3), None, time(23, 0)]  # shown as text, a table cuts a time's fraction
        assert [r[1] for r in got] == ["01:02:03", None, "23:00:00"]
        assert [r[2].to_pydatetime() if r[2] == r[2] else None for r in got] == expected["ts"]
        assert [r[3].to_pydatetime().replace(tzinfo=None) if r[3] == r[3] else None for r in got] == [
            v.replace(tzinfo=None) if v is not None else None for v in expected["tz"]
        ]
    # a union's duplicates are told apart by the time too
    _, result = run("SELECT id FROM (SELECT * FROM tt UNION SELECT * FROM tt) x", "optimized")
    assert sorted(result.rows.iloc[:, 0]) == [1, 2, 3]

    pq.write_table(table.set_column(2, "ts", pa.array([1, None, 2], pa.timestamp("ns"))), path)
    with pytest.raises(ExecutionError, match=r"column ts holds 1970-01-01 00:00:00\.000000001, finer than"):
        run("SELECT id, ts FROM tt", "optimized")
    # an Arrow file's, read on the driver, alike (Spark had cut the nanoseconds without a word)
    arrow = tmp_path / "arrows"
    arrow.mkdir()
    feather.write_feather(table.select(["id", "ts"]), arrow / "ta.arrow")
    got = Catalog([str(arrow)]).named_table(spark, ["ta"]).orderBy("id").collect()
    assert [r.ts for r in got] == [datetime(2020, 9, 13, 12, 26, 40, 123456), None, datetime(1969, 12, 31)]
    feather.write_feather(pa.table({"ts": pa.array([-1], pa.timestamp("ns"))}), arrow / "tb.arrow")
    with pytest.raises(ExecutionError, match=r"column ts holds 1969-12-31 23:59:59\.999999999, finer than"):
        Catalog([str(arrow)]).named_table(spark, ["tb"])
    # inside a record, a list and a map's values too (they had come back as counts of nanoseconds)
    nested = pa.table(
        {
            "r": pa.array([{"ts": ns[0]}, None], pa.struct([("ts", pa.timestamp("ns"))])),
            "l": pa.array([[ns[2], None], None], pa.list_(pa.timestamp("ns"))),
            "m": pa.array([[("a", ns[0])], None], pa.map_(pa.string(), pa.timestamp("ns"))),
        }
    )
    for name, write in (("np.parquet", pq.write_table), ("na.arrow", feather.write_feather)):
        write(nested, arrow / name)
        [first, _] = Catalog([str(arrow)]).named_table(spark, [name.split(".")[0]]).collect()
        assert (first.r.ts, first.l, first.m) == (
            datetime(2020, 9, 13, 12, 26, 40, 123456),
            [datetime(1969, 12, 31), None],
            {"a": datetime(2020, 9, 13, 12, 26, 40, 123456)},
        )


def test_an_orc_file_s_nanoseconds_stop_a_run_that_reads_them(spark, tmp_path):
    """ORC timestamps count nanoseconds and Spark's reader cuts them to microseconds without a word (a
    count of distinct values could merge two): a column whose file holds a finer value stops a run that reads
    a value of it, the first such value said; the table's other columns, and a column of whole microseconds,
    read as before."""
    from datetime import datetime

    from pyspark.sql import functions as F

    orc.write_table(
        pa.table(
            {
                "id": pa.array([1, 2], pa.int64()),
                "fine": pa.array([1_600_000_000_123_456_000, None], pa.timestamp("ns")),
                "finer": pa.array([1_600_000_000_123_456_001, 1_600_000_000_123_456_002], pa.timestamp("ns")),
                "r": pa.array([{"ts": 5}, None], pa.struct([("ts", pa.timestamp("ns"))])),
            }
        ),
        str(tmp_path / "o.orc"),
    )
    df = Catalog([str(tmp_path)]).named_table(spark, ["o"])
    got = df.select("id", "fine").orderBy("id").collect()
    assert [(r.id, r.fine) for r in got] == [(1, datetime(2020, 9, 13, 12, 26, 40, 123456)), (2, None)]
    with pytest.raises(Exception, match=r"column finer holds 2020-09-13 12:26:40\.123456001, finer than"):
        df.select(F.countDistinct("finer")).collect()  # Spark's cut values would have counted 1
    with pytest.raises(Exception, match="column r holds a time finer than the microseconds Spark keeps"):
        df.select("r").collect()


def test_a_table_whose_column_names_differ_only_in_case_is_refused_by_name(spark, tmp_path):
    """Columns k and K (DataFusion reads them apart): Spark's reader, which takes names in any case, stopped
    with its COLUMN_ALREADY_EXISTS text; now the table and both names are said, on a run and on the Tables
    page's status."""
    from executor.errors import Unsupported
    from tests.support.plans import read as read_rel

    pq.write_table(pa.table({"k": [1], "K": [2]}), tmp_path / "kk.parquet")
    cat = Catalog([str(tmp_path)])
    with pytest.raises(Unsupported, match=r"table `kk` \(parquet at .*\) has columns named alike but for letter case "):
        cat.named_table(spark, ["kk"])
    from executor.data.catalog import plan_columns_by_table
    from tests.support.plans import model_of, plan

    [status] = cat.status([["kk"]], plan_columns_by_table(model_of(plan(read_rel("kk", [("k", "i64")])))))
    assert not status.bound and "(k and K), which Spark, reading names in any case, cannot tell apart" in status.message
    # parquet's time of day in milliseconds (pyarrow writes time32 so), which Spark's reader refuses outright
    pq.write_table(pa.table({"id": [1], "t": pa.array([1000], pa.time32("ms"))}), tmp_path / "ms.parquet")
    with pytest.raises(Unsupported, match=r"table `ms` .* holds a time of day in milliseconds \(t\), which Spark"):
        cat.named_table(spark, ["ms"])


def test_a_read_whose_filter_reads_a_column_spark_lacks_is_refused_whatever_its_emit_keeps():
    """The read's filter tests t (of a user-defined type no run takes) and its emit outputs only id: the read
    cannot run, since Spark would evaluate the filter on t (an emit had hidden the filter's use of t)."""
    from executor.translate.executable import executability
    from tests.support.plans import call, emit, field, model_of, plan, read

    base = read("tt", [("id", "i64?"), ("t", "string?")], filter=call(1, field(1), out="boolean"))
    base["read"]["baseSchema"]["struct"]["types"][1] = {
        "userDefined": {"typeReference": 9, "nullability": "NULLABILITY_NULLABLE"}
    }
    doc = plan((emit(base, [0]), ["id"]), functions={1: ("is_null:any", "functions_comparison")})
    doc["extensions"].append({"extensionType": {"extensionUriReference": 1, "typeAnchor": 9, "name": "geometry"}})
    model = model_of(doc)
    why = executability(model)[model.roots[0]].rows_reason
    assert why is not None and why.startswith("column t of the base schema: u!geometry has no Spark equivalent")


def test_the_run_cache_s_key_holds_the_state_of_what_the_plan_reads(tmp_path):
    """``fingerprint(model)`` stamps the entries the plan's tables are found at and the files its
    LocalFiles items name, not every entry of a data root (a large folder made each page slow), so a
    file named deep in a folder and written again in place is new data too."""
    from tests.support.plans import model_of, plan, read

    (tmp_path / "sub").mkdir()
    pq.write_table(pa.table({"id": [1]}), tmp_path / "orders.parquet")
    deep = tmp_path / "sub" / "deep.parquet"
    pq.write_table(pa.table({"id": [1]}), deep)
    doc = plan(
        (read("orders", [("id", "i64")]), ["id"]),
        (read("t", [("id", "i64")], localFiles={"items": [{"uriFile": str(deep), "parquet": {}}]}), ["id"]),
    )
    doc["relations"][1]["root"]["input"]["read"].pop("namedTable")
    model = model_of(doc)
    cat = Catalog([str(tmp_path)])
    first = cat.fingerprint(model)
    assert cat.fingerprint(model) == first
    pq.write_table(pa.table({"id": [1, 2, 3]}), deep)  # in place, below the root's top
    second = cat.fingerprint(model)
    assert second != first
    pq.write_table(pa.table({"id": [2, 3]}), tmp_path / "orders.parquet")
    assert cat.fingerprint(model) != second


def test_a_folder_s_listing_is_kept_only_while_the_folder_is_unchanged(tmp_path):
    """Table names are looked up in a kept listing of each data root, read again once the folder's time
    changes; a listing made right after a change is not kept (a change within the file system's tick
    would leave the time as it was)."""
    from executor.data import catalog as catalog_mod

    root = tmp_path / "data"
    root.mkdir()
    pq.write_table(pa.table({"id": [1]}), root / "Orders.parquet")
    assert catalog_mod._stem_in_folder(str(root), "orders") == str(root / "Orders.parquet")
    assert catalog_mod._LISTINGS.get(str(root)) is None  # changed just now: not kept
    old = os.stat(root).st_mtime - 60
    os.utime(root, (old, old))
    assert catalog_mod._stem_in_folder(str(root), "lineitem") is None
    assert catalog_mod._LISTINGS.get(str(root)) is not None  # kept
    pq.write_table(pa.table({"id": [1]}), root / "lineitem.parquet")  # the folder's time moves
    assert catalog_mod._stem_in_folder(str(root), "lineitem") == str(root / "lineitem.parquet")
    (root / "part").mkdir()
    assert catalog_mod._stem_in_folder(str(root), "part") == str(root / "part")
    stamp = catalog_mod.folder_stamp(str(root), {"orders"})
    assert [s[0] for s in stamp[2:]] == [str(root / "Orders.parquet")]  # only the plan's table's entry


def test_generated_data_is_made_by_one_process_while_the_others_wait(tmp_path, monkeypatch):
    """Two processes asking for the same data (the app and a command line side by side): one generates
    it, under a lock on a file beside the folder, and publishes it whole; a folder a run left partial
    is replaced, and a failed generation leaves no temporary folder behind."""
    import fcntl
    import subprocess

    from executor.data import generate
    from executor.errors import ExecutionError

    folder = tmp_path / "tpch-sf0.01"
    held: list[bool] = []  # whether the lock was held while each generation ran
    fails: list[bool] = []  # non-empty: the generator fails

    def generator(command, **_kwargs):
        with open(f"{folder}.lock", "a") as other:  # another process asking now: it must wait
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(True)
            else:
                held.append(False)
                fcntl.flock(other, fcntl.LOCK_UN)
        if fails:
            return subprocess.CompletedProcess(command, 1, "", "disk full")
        out = command[-1].split("=", 1)[1]
        for t in generate.TPCH_TABLES:
            open(os.path.join(out, f"{t}.parquet"), "w").write("ours")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(generate, "_generator", lambda name: name)
    monkeypatch.setattr(generate.subprocess, "run", generator)
    folder.mkdir()
    (folder / "nation.parquet").write_text("partial")  # a run that died
    (tmp_path / "tpch-sf0.01.tmp999999").mkdir()  # the copy of a generating process that was killed
    assert generate.tpch(0.01, cache=str(tmp_path)) == str(folder)
    assert not (tmp_path / "tpch-sf0.01.tmp999999").exists()
    assert held == [True]
    assert (folder / "nation.parquet").read_text() == "ours" and (folder / "lineitem.parquet").exists()
    assert generate.tpch(0.01, cache=str(tmp_path)) == str(folder) and held == [True]  # whole: not made again
    fails.append(True)
    with pytest.raises(ExecutionError, match="disk full"):
        generate.tpch(0.01, cache=str(tmp_path / "other"))
    assert sorted(p.name for p in (tmp_path / "other").iterdir()) == ["tpch-sf0.01.lock"]
