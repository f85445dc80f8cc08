"""A named table is bound only when its file serves the plan (executor.data.columns, Catalog.status with the
plan's columns): the plan's base schema against the file's columns, read from its footer or header
without Spark, and reading by position only where the count and the types allow it."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.feather as feather
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from executor.data.catalog import Catalog, plan_columns_by_table
from executor.data.columns import Column, check_columns, file_columns, spark_columns
from executor.errors import ExecutionError
from tests.support import ROOT
from tests.support import plans as P

# TPC-H's nation as a plan reads it, and files that do or do not serve it
NATION = [("n_nationkey", "i64"), ("n_name", "string"), ("n_regionkey", "i64"), ("n_comment", "string")]


def _columns(model) -> dict:
    return plan_columns_by_table(model)


def _plan(columns=NATION, table="nation"):
    return P.model_of(P.plan((P.read(table, columns), [c for c, _ in columns])))


@pytest.fixture
def root(tmp_path):
    """nation.parquet with other columns (TPC-DS's reason table), right.parquet with the plan's
    columns as int32 and decimal (numbers serve numbers), swapped.parquet with n_name a number."""
    pq.write_table(
        pa.table({"r_reason_sk": pa.array([1], pa.int32()), "r_reason_id": ["a"], "r_reason_desc": ["b"]}),
        tmp_path / "nation.parquet",
    )
    pq.write_table(
        pa.table(
            {
                "N_NATIONKEY": pa.array([1], pa.int32()),
                "n_name": ["x"],
                "n_regionkey": pa.array([1], pa.decimal128(10, 0)),
                "n_comment": ["c"],
                "extra": [1.5],
            }
        ),
        tmp_path / "right.parquet",
    )
    pq.write_table(
        pa.table({"n_nationkey": [1], "n_name": [7], "n_regionkey": [1], "n_comment": ["x"]}),
        tmp_path / "swapped.parquet",
    )
    pq.write_table(pa.table({"a": [1], "b": ["x"], "c": [2], "d": ["y"]}), tmp_path / "other.parquet")
    return tmp_path


def test_check_columns_by_name_and_family():
    plan = [Column("k", "bigint", "int"), Column("name", "string", "str"), Column("v", "double", "num")]
    ok = check_columns(
        [Column("K", "int", "int"), Column("v", "decimal(10,2)", "num"), Column("name", "string", "str")], plan
    )
    assert ok.ok and ok.missing == [] and ok.clashes == []
    assert not ok.by_position  # in order, v (a number) stands where the plan reads name (a string)
    assert ok.position_clashes == [
        "v is decimal(10,2) where the plan reads name string",
        "name is string where the plan reads v double",
    ]
    bad = check_columns([Column("k", "string", "str"), Column("x", "int", "int")], plan)
    assert bad.missing == ["name", "v"] and bad.clashes == ["k is string in the table, bigint in the plan"]
    assert bad.problem() == "lacks 2 of the plan's 3 columns (name, v)"
    assert bad.why_not_by_position() == "it has 2 columns where the plan declares 3"
    one = check_columns([Column("x", "int", "int")], [Column("name", "string", "str")])
    assert one.problem() == "lacks the plan's one column (name)"  # not "1 of the plan's 1 columns"
    # a read of 2 of the 3 columns the plan declares: the count is of those it reads (it had said "2 of the
    # plan's 3 columns" for a file with none of the 3)
    some = [Column("k", "bigint", "int", read=False), Column("name", "string", "str"), Column("v", "double", "num")]
    assert check_columns([Column("x", "int", "int")], some).problem() == "lacks the 2 columns the plan reads (name, v)"
    partly = check_columns([Column("v", "double", "num")], some + [Column("w", "int", "int")])
    assert partly.problem() == "lacks 2 of the 3 columns the plan reads (name, w)"
    some[1] = Column("name", "string", "str", read=False)
    assert check_columns([Column("x", "int", "int")], some).problem() == "lacks the one column the plan reads (v)"
    typed = check_columns(
        [Column("k", "string", "str"), Column("name", "string", "str"), Column("v", "int", "int")], plan
    )
    assert typed.problem() == "has the plan's columns with other types: k is string in the table, bigint in the plan"
    # a plan that names its columns without types (DataFusion): only the names and the count count
    untyped = [Column("k", None, None), Column("name", None, None)]
    other = check_columns([Column("a", "int", "int"), Column("b", "date", "time"), Column("c", "int", "int")], untyped)
    assert not other.ok and other.by_position and other.why_not_by_position() == ""


def test_a_file_without_the_plans_columns_is_not_bound(root):
    model = _plan()
    cat = Catalog([str(root)], use_spark_catalog=False)
    [plain] = cat.status([["nation"]])  # without the plan's columns: found, as before
    assert plain.bound and plain.check is None
    [s] = cat.status([["nation"]], _columns(model))
    assert (s.bound, s.how, s.path) == (False, "columns differ", str(root / "nation.parquet"))
    assert s.check.missing == ["n_nationkey", "n_name", "n_regionkey", "n_comment"]
    assert s.message == (
        f"parquet at {root / 'nation.parquet'} lacks 4 of the plan's 4 columns "
        "(n_nationkey, n_name, n_regionkey, n_comment)"
    )
    assert [c.shown() for c in s.check.table] == ["r_reason_sk int", "r_reason_id string", "r_reason_desc string"]
    assert not s.check.by_position  # 3 columns for the plan's 4
    # chosen by position all the same: still not bound, the count does not allow it
    [s] = Catalog([str(root)], use_spark_catalog=False, by_position=["nation"]).status([["nation"]], _columns(model))
    assert not s.bound


def test_a_binding_with_the_plans_columns_is_bound_and_one_with_other_types_is_not(root):
    model = _plan()
    cat = Catalog([str(root)], bindings={"nation": str(root / "right.parquet")}, use_spark_catalog=False)
    [s] = cat.status([["nation"]], _columns(model))
    assert (s.bound, s.how) == (True, "binding") and s.check.ok
    cat = Catalog([str(root)], bindings={"nation": str(root / "swapped.parquet")}, use_spark_catalog=False)
    [s] = cat.status([["nation"]], _columns(model))
    assert (s.bound, s.how) == (False, "columns differ")
    assert (
        s.check.problem()
        == "has the plan's columns with other types: n_name is bigint in the table, string in the plan"
    )
    assert cat.check_file(str(root / "right.parquet"), _columns(model)["nation"]).ok


def test_by_position_binds_only_where_count_and_types_allow(root):
    model = _plan()
    bound = {"nation": str(root / "other.parquet")}  # a, b, c, d: int, string, int, string
    [s] = Catalog([str(root)], bound, use_spark_catalog=False).status([["nation"]], _columns(model))
    assert not s.bound and s.check.by_position
    [s] = Catalog([str(root)], bound, use_spark_catalog=False, by_position=["NATION"]).status(
        [["nation"]], _columns(model)
    )
    assert (s.bound, s.how) == (True, "binding, by position")
    # a plan that reads the second column as a number: by position no longer fits
    numbers = _plan([("n_nationkey", "i64"), ("n_name", "i64"), ("n_regionkey", "i64"), ("n_comment", "string")])
    [s] = Catalog([str(root)], bound, use_spark_catalog=False, by_position=["nation"]).status(
        [["nation"]], _columns(numbers)
    )
    assert not s.bound and s.check.why_not_by_position() == "in order, b is string where the plan reads n_name bigint"


def test_file_columns_of_each_format_and_an_unreadable_file(tmp_path):
    table = pa.table({"id": pa.array([1, 2], pa.int64()), "day": pa.array([0, 1], pa.date32()), "name": ["a", "b"]})
    pq.write_table(table, tmp_path / "t.parquet")
    orc.write_table(table, str(tmp_path / "t.orc"))
    feather.write_feather(table, str(tmp_path / "t.arrow"))
    pcsv.write_csv(table, str(tmp_path / "t.csv"))
    want = ["id bigint", "day date", "name string"]
    for fmt in ("parquet", "orc", "arrow", "csv"):
        assert [c.shown() for c in file_columns(str(tmp_path / f"t.{fmt}"), fmt)] == want, fmt
    (tmp_path / "broken.parquet").write_bytes(b"not parquet")
    with pytest.raises(ExecutionError, match="cannot read the columns of"):
        file_columns(str(tmp_path / "broken.parquet"), "parquet")
    [s] = Catalog([str(tmp_path)], bindings={"t": str(tmp_path / "broken.parquet")}, use_spark_catalog=False).status(
        [["t"]], _columns(_plan([("id", "i64")], table="t"))
    )
    assert (s.bound, s.how) == (False, "unreadable") and "cannot read the columns" in s.message


def test_the_footer_gives_the_types_spark_reads(spark, tpch_dir):
    """The oracle: Spark's own schema of the same files (TPC-H's parquet, the tutorial's tables)."""
    files = [os.path.join(tpch_dir, f) for f in ("customer.parquet", "lineitem.parquet", "orders.parquet")]
    tutorial = os.path.join(ROOT, "sample_data", "tutorial")
    files += [os.path.join(tutorial, f) for f in sorted(os.listdir(tutorial)) if f.endswith(".parquet")]
    for path in files:
        assert file_columns(path, "parquet") == spark_columns(spark.read.parquet(path).schema), path


def test_a_csv_column_without_values_is_text_as_spark_reads_it(spark, tmp_path):
    """A CSV of a header only (or a column empty in every row): pyarrow infers its type as null, Spark's
    reader as text; the Tables page says what a run will find (it said "hello void")."""
    (tmp_path / "h.csv").write_text("hello,world\n")
    (tmp_path / "e.csv").write_text("id,note\n1,\n2,\n")
    for name in ("h.csv", "e.csv"):
        path = str(tmp_path / name)
        spark_read = spark.read.option("header", "true").option("inferSchema", "true").csv(path).schema
        empty = [c for c in spark_columns(spark_read) if c.name != "id"]  # Spark reads 1 as int, pyarrow bigint
        assert [c for c in file_columns(path, "csv") if c.name != "id"] == empty, name
    assert [c.shown() for c in file_columns(str(tmp_path / "h.csv"), "csv")] == ["hello string", "world string"]


@pytest.mark.parametrize(
    "sample",
    [
        "tutorial.json",
        "tpch_q02_isthmus.json",
        "tpch_q03_isthmus.json",
        "tpch_q03_duckdb.json",
        "tpch_q03_datafusion.json",
    ],
)
def test_every_sample_plan_is_bound_to_its_own_data(sample, tpch_dir):
    from viz.model import analyze

    with open(os.path.join(ROOT, "sample_plans", "manifest.json"), encoding="utf-8") as fh:
        kind = json.load(fh)[sample]["data"]
    with open(os.path.join(ROOT, "sample_plans", sample), "rb") as fh:
        model = analyze(fh.read())
    data = os.path.join(ROOT, "sample_data", "tutorial") if kind == "tutorial" else tpch_dir
    columns = _columns(model)
    statuses = Catalog([data], use_spark_catalog=False).status([n.split(".") for n in columns], columns)
    assert statuses and all(s.bound and s.check.ok for s in statuses), [(s.name, s.message) for s in statuses]


def test_a_cast_that_may_change_a_value_is_named():
    """executor.data.columns.narrows, case by case: a fraction cut off, a decimal rounded, a number too
    large, a time of day dropped; widening and approximate targets change nothing worth a stop."""
    from executor.data.columns import narrows

    changes = [
        ("double", "int"),
        ("float", "bigint"),
        ("double", "decimal(15,2)"),
        ("decimal(15,2)", "int"),
        ("decimal(15,4)", "decimal(15,2)"),
        ("decimal(20,0)", "decimal(10,0)"),
        ("bigint", "int"),
        ("int", "decimal(5,0)"),
        ("timestamp", "date"),
    ]
    keeps = [
        ("int", "bigint"),
        ("int", "double"),
        ("decimal(10,0)", "bigint"),
        ("decimal(7,2)", "decimal(15,2)"),
        ("double", "float"),
        ("date", "timestamp"),
        ("string", "string"),
        (None, "int"),
    ]
    assert [c for c in changes if not narrows(*c)] == []
    assert [c for c in keeps if narrows(*c)] == []
    plan = [Column("k", "int", "int"), Column("v", "decimal(15,2)", "num")]
    check = check_columns([Column("k", "double", "num"), Column("v", "decimal(15,2)", "num")], plan)
    assert check.ok and check.narrowed == ["k is double in the table, int in the plan"]
    assert (
        check.narrowing()
        == "k is double in the table, int in the plan: a run stops with an error at any value the plan's type "
        "cannot hold exactly"
    )


def test_a_time_of_day_is_bound_as_one_and_checked_like_the_other_columns(tmp_path):
    """A file's time64 column is Spark's TIME of the file's digits: bound for a plan's time of day, a clash for
    its timestamp, and a cast to fewer digits of a second is checked as it reads (a value it would change
    stops the run)."""
    from datetime import time

    pq.write_table(
        pa.table(
            {
                "id": pa.array([1], pa.int64()),
                "t": pa.array([time(1, 2)], pa.time64("us")),
                "n": pa.array([time(1, 2)], pa.time64("ns")),
            }
        ),
        tmp_path / "e.parquet",
    )
    columns = file_columns(str(tmp_path / "e.parquet"), "parquet")
    assert [c.shown() for c in columns] == ["id bigint", "t time(6)", "n time(9)"]
    reads = [Column("id", "bigint", "int"), Column("t", "time(6)", "clock"), Column("n", "time(6)", "clock")]
    check = check_columns(columns, reads)
    assert check.ok and check.narrowing() == (
        "n is time(9) in the table, time(6) in the plan: a run stops with an error at any value the plan's type "
        "cannot hold exactly"
    )
    clash = check_columns(columns, [Column("t", "timestamp_ntz", "time")])
    assert not clash.ok and clash.problem() == (
        "has the plan's columns with other types: t is time(6) in the table, timestamp_ntz in the plan"
    )


def test_a_value_the_plans_type_would_change_stops_the_run(spark, tmp_path):
    """A CSV's key with decimals (2.7) under the plan's i32 stops the run and names the value, where Spark's
    cast would give 2; whole numbers in the same double column read as the plan's ints (checked by hand)."""
    from executor.jobs.run import run_node

    region = [("r_regionkey", "i32"), ("r_name", "string")]
    model = P.model_of(P.plan(P.read("region", region)))
    for folder, keys in (("cut", "1.0\n2.7"), ("whole", "0.0\n2.0")):
        os.makedirs(tmp_path / folder)
        names = ["AFRICA", "ASIA"]
        (tmp_path / folder / "region.csv").write_text(
            "r_regionkey,r_name\n" + "\n".join(f"{k},{n}" for k, n in zip(keys.split(), names)) + "\n"
        )
    [status] = Catalog([str(tmp_path / "cut")], use_spark_catalog=False).status([["region"]], _columns(model))
    assert status.bound and status.check.narrowed == ["r_regionkey is double in the table, int in the plan"]
    with pytest.raises(ExecutionError) as info:
        run_node(model, "0", catalog=Catalog([str(tmp_path / "cut")], use_spark_catalog=False), limit=10)
    assert str(info.value).startswith(
        "node 0 stopped: table `region`: column r_regionkey holds 2.7, which the plan's type int"
    )
    result = run_node(model, "0", catalog=Catalog([str(tmp_path / "whole")], use_spark_catalog=False), limit=10)
    assert result.rows.values.tolist() == [[0, "AFRICA"], [2, "ASIA"]] and result.types == ["int", "string"]


def test_a_file_without_the_columns_a_read_never_uses_serves_it(spark, tpch_dir, tmp_path):
    """DuckDB's TPC-H q03 reads customer with a projection of c_custkey and a filter on c_mktsegment: a file
    of those two columns serves it (a user check found it refused for the six columns the read never uses),
    the status says what it lacks, and the run's rows equal those over TPC-H's whole customer. A file
    without c_mktsegment, which the filter tests, does not serve."""
    import shutil

    from executor.jobs.run import run_node
    from viz.model import analyze

    customer = pq.read_table(os.path.join(tpch_dir, "customer.parquet"), columns=["c_custkey", "c_mktsegment"])
    pq.write_table(customer, tmp_path / "customer.parquet")
    for t in ("orders", "lineitem"):
        shutil.copy(os.path.join(tpch_dir, f"{t}.parquet"), tmp_path / f"{t}.parquet")
    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_duckdb.json"), "rb") as fh:
        model = analyze(fh.read())
    partial = Catalog([str(tmp_path)], use_spark_catalog=False)
    [status] = [s for s in partial.status([["customer"]], _columns(model))]
    assert status.bound and status.check.unread == [
        "c_name",
        "c_address",
        "c_nationkey",
        "c_phone",
        "c_acctbal",
        "c_comment",
    ]
    assert status.check.unread_note().startswith("lacks c_name, c_address, c_nationkey, c_phone, c_acctbal, …, which")
    got = run_node(model, model.roots[0], catalog=partial, limit=100).rows
    whole = run_node(model, model.roots[0], catalog=Catalog([tpch_dir], use_spark_catalog=False), limit=100).rows
    assert len(got) == len(whole) == 10 and got.equals(whole)
    pq.write_table(customer.select(["c_custkey"]), tmp_path / "customer.parquet")
    [status] = [s for s in Catalog([str(tmp_path)]).status([["customer"]], _columns(model))]
    assert not status.bound and status.check.missing == ["c_mktsegment"]
    # read by position under other names, every column is the plan's: none of them a null (the first
    # version of the change read them all as nulls, and the run gave no rows)
    whole_customer = pq.read_table(os.path.join(tpch_dir, "customer.parquet"))
    pq.write_table(whole_customer.rename_columns([f"col{i}" for i in range(8)]), tmp_path / "customer.parquet")
    by_position = Catalog([str(tmp_path)], use_spark_catalog=False, by_position=["customer"])
    assert run_node(model, model.roots[0], catalog=by_position, limit=100).rows.equals(whole)
