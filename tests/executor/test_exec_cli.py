"""``python -m executor run``, called in-process (``main(argv)``) so it reuses the test session.

Expected rows come from DuckDB running the same query's SQL over the same parquet files.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import os
import shutil

import duckdb
import pytest

from executor.__main__ import json_value, main
from executor.jobs.run import clear_cache
from tests.support import CORPORA, ROOT
from tests.support.plans import plan, read

TPCH_SQL = os.path.join(CORPORA, "consumer-testing", "testdata", "integration", "tpch")
TPCH_PLANS = os.path.join(CORPORA, "consumer-testing", "snapshots", "producer", "integration", "tpch")
NATION = [("n_nationkey", "i64"), ("n_name", "string"), ("n_regionkey", "i64"), ("n_comment", "string")]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _duck_tpch(query: str, tpch_dir: str) -> list[tuple]:
    with open(os.path.join(TPCH_SQL, query)) as f:
        sql = f.read()
    tables = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")
    sql = sql.format(**{t: os.path.join(tpch_dir, f"{t}.parquet") for t in tables})
    return duckdb.sql(sql).fetchall()


def _same(ours: list, oracle: tuple) -> bool:
    """JSON values against DuckDB's: decimals (strings) exactly, dates as ISO text, ints as ints."""
    for a, b in zip(ours, oracle, strict=True):
        if isinstance(b, decimal.Decimal):
            if decimal.Decimal(a) != b:
                return False
        elif hasattr(b, "isoformat"):
            if a != b.isoformat():
                return False
        elif a != b:
            return False
    return True


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()


@pytest.fixture
def plan_file(tmp_path):
    def write(doc: dict, name: str = "plan.json") -> str:
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return str(path)

    return write


def test_tpcds_binds_the_generated_tpcds_tables(spark, plan_file):
    """``--tpcds`` binds TPC-DS at scale 0.01 as ``--tpch`` does TPC-H: a read of its ``reason`` table
    gives DuckDB's rows of the same file."""
    from executor.data.generate import tpcds

    reason = os.path.join(tpcds(0.01), "reason.parquet")
    doc = plan((read("reason", [("r_reason_sk", "i32"), ("r_reason_id", "string")]), ["r_reason_sk", "r_reason_id"]))
    code, out, err = _run(["run", plan_file(doc), "--tpcds", "--format", "json", "--count"])
    assert code == 0, (out, err)
    [result] = [json.loads(line) for line in out.splitlines()]
    oracle = duckdb.sql(f"SELECT r_reason_sk, r_reason_id FROM '{reason}'").fetchall()
    assert result["row_count"] == len(oracle) > 0
    assert sorted(map(tuple, result["rows"])) == sorted(oracle)
    # without it the table is unbound, and the message offers it
    code, out, err = _run(["run", plan_file(doc), "--format", "json"])
    assert code == 2 and "--tpcds" in json.loads(out)["error"], out


def test_scale_binds_the_tpch_tables_of_that_scale(spark, plan_file):
    """``--tpch --scale 0.001`` binds TPC-H generated at that scale, not at 0.01: a count of nation's rows
    (25 at any scale) and of lineitem's, DuckDB's count of the same file at 0.001, which differs from
    0.01's."""
    from executor.data.generate import tpch

    lineitem = [("l_orderkey", "i64")]
    doc = plan((read("lineitem", lineitem), ["l_orderkey"]))
    code, out, err = _run(["run", plan_file(doc), "--tpch", "--scale", "0.001", "--format", "json", "--count"])
    assert code == 0, (out, err)
    counted = json.loads(out)["row_count"]

    def rows_at(scale: float) -> int:
        return duckdb.sql(f"SELECT count(*) FROM '{os.path.join(tpch(scale), 'lineitem.parquet')}'").fetchall()[0][0]

    assert counted == rows_at(0.001) != rows_at(0.01), counted


def test_json_output_matches_duckdb_on_tpch(spark, tpch_dir):
    q03 = os.path.join(TPCH_PLANS, "q03-isthmus_plan.json")
    q06 = os.path.join(TPCH_PLANS, "q06-isthmus_plan.json")
    code, out, err = _run(["run", q03, q06, "--tpch", "--format", "json", "--count"])
    assert code == 0, out
    lines = [json.loads(line) for line in out.splitlines()]
    assert [o["file"] for o in lines] == [q03, q06]
    first, second = lines
    oracle = _duck_tpch("q03.sql", tpch_dir)  # ORDER BY revenue DESC, o_orderdate LIMIT 10: order compared
    assert len(first["rows"]) == len(oracle) == first["row_count"] == 10
    assert all(_same(a, b) for a, b in zip(first["rows"], oracle)), (first["rows"][:2], oracle[:2])
    assert first["columns"][0].startswith("[0] ") and len(first["columns"]) == len(first["types"]) == 4
    assert first["elapsed_s"] > 0 and first["truncated"] is False
    (revenue,) = _duck_tpch("q06.sql", tpch_dir)
    assert len(second["rows"]) == 1 and decimal.Decimal(second["rows"][0][0]) == revenue[0]


def test_bad_input_and_failures_have_their_exit_status(spark, tpch_dir, plan_file, tmp_path):
    good = plan_file(plan((read("nation", NATION), [c for c, _ in NATION])), "nation.json")
    unbound = plan_file(plan((read("no_such_table", NATION), [c for c, _ in NATION])), "unbound.json")
    not_plan = tmp_path / "not_a_plan.json"
    not_plan.write_text('{"hello": ')
    missing = str(tmp_path / "missing.json")
    code, out, err = _run(["run", good, unbound, "--tpch", "--format", "json", "--limit", "3"])
    assert code == 2, err  # a table no option binds is bad input, said before Spark would look for it
    ok, failed = (json.loads(line) for line in out.splitlines())
    assert len(ok["rows"]) == 3 and ok["row_count"] is None and ok["truncated"] is True
    assert failed["file"] == unbound and failed["error_type"] == "BadInput"
    assert failed["error"] == (
        "table `no_such_table` is not bound: give the data with --table NAME=PATH, --data-dir DIR (a folder of "
        "NAME.parquet files), --tpch or --tpcds (TPC-H or TPC-DS, at scale 0.01 unless --scale SF)"
    )
    code, out, _ = _run(["run", str(not_plan), missing, good, "--tpch", "--format", "json", "--limit", "1"])
    assert code == 2
    bad, gone, fine = (json.loads(line) for line in out.splitlines())
    assert "not a Substrait plan" in bad["error"] and "cannot read" in gone["error"] and len(fine["rows"]) == 1


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", "x.json", "--limit", "-1"], "must be 0 or more"),
        (["run", "x.json", "--limit", "ten"], "--limit: expected a whole number (0 or more), got 'ten'"),
        (["run", "x.json", "--table", "nation"], "NAME=PATH"),
        (["run", "x.json", "--table", "t=/no/such/file.parquet"], "does not exist"),
        (["run", "x.json", "--data-dir", "/no/such/dir"], "not a folder"),
        (["run", "x.json", "--format", "xml"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        (["run", "x.json", "--timeout", "-1"], "--timeout: must be a number of seconds above 0, not '-1'"),
        (["profile", "x.json", "--timeout", "inf"], "must be a number of seconds above 0"),
        (["bisect", "x.json", "--timeout", "soon"], "expected a number of seconds, got 'soon'"),
        # a stray argument is said with its command's usage (run's --tpch takes no scale, --scale gives it;
        # check's --tpch does)
        (["run", "x.json", "--tpch", "0.01"], "python -m executor run: error: unrecognized arguments: 0.01"),
        (["run", "x.json", "--tpch", "--scale", "0"], "--scale: must be a scale factor above 0"),
        (["profile", "x.json", "--scale", "0.1"], "--scale is the scale of the --tpch or --tpcds tables"),
    ],
)
def test_bad_arguments_exit_2(argv, says, capsys):
    code, _, err = _run(argv)
    assert code == 2
    assert says in err + capsys.readouterr().err


def test_unknown_node_is_bad_input(plan_file, tpch_dir):
    good = plan_file(plan((read("nation", NATION), [c for c, _ in NATION])))
    code, _, err = _run(["run", good, "--node", "0.7", "--tpch"])
    assert code == 2 and "no node '0.7'" in err


def test_a_node_id_written_long_is_the_node_written_short(plan_file, tpch_dir, spark):
    """0.0.0.0.0 is 0.0*4 (the README says so): --node took only the short form."""
    rel = read("nation", NATION)
    for _ in range(5):
        rel = {"fetch": {"input": rel, "count": "20"}}
    chain = plan_file(plan((rel, [c for c, _ in NATION])))
    code, out, err = _run(["run", chain, "--node", "0.0.0.0.0", "--tpch", "--limit", "3"])
    assert code == 0, err
    assert "node 0.0*4: 3/? rows" in out.splitlines()[0], out


def test_help_documents_roots_and_formats(capsys):
    assert main(["run", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--table NAME=PATH (that file or folder only" in text
    assert "decimals are strings" in text and "exit status" in text


def test_table_binding_csv_output_and_its_root(spark, tpch_dir, plan_file, tmp_path):
    """--table makes that one file readable; a plan's LocalFiles beside it are still refused."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(os.path.join(tpch_dir, "nation.parquet"), data / "countries.parquet")
    shutil.copy(os.path.join(tpch_dir, "region.parquet"), data / "region.parquet")
    nation_plan = plan_file(plan((read("nation", NATION), [c for c, _ in NATION])), "nation.json")
    code, out, err = _run(["run", nation_plan, "--table", f"NATION={data / 'countries.parquet'}", "--format", "csv"])
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"# {nation_plan}"
    rows = list(csv.reader(lines[1:]))
    assert rows[0] == ["n_nationkey", "n_name", "n_regionkey", "n_comment"]  # as the app's download names them
    oracle = duckdb.sql(f"select * from '{data / 'countries.parquet'}'").fetchall()
    assert sorted(tuple(r) for r in rows[1:]) == sorted(tuple(str(v) for v in r) for r in oracle)
    beside = {
        "read": {
            "baseSchema": read("x", [("r_regionkey", "i64")])["read"]["baseSchema"],
            "localFiles": {"items": [{"uriFile": str(data / "region.parquet"), "parquet": {}}]},
        }
    }
    sneaky = plan_file(plan((beside, ["r_regionkey"])), "sneaky.json")
    code, out, err = _run(["run", sneaky, "--table", f"nation={data / 'countries.parquet'}", "--format", "json"])
    assert code == 1
    failed = json.loads(out)
    assert failed["error_type"] == "Refused" and "outside the data roots" in failed["error"]
    # with the folder as a data dir, the same read is allowed and the table format prints a header line
    code, out, err = _run(["run", sneaky, "--data-dir", str(data)])
    assert code == 0, err
    assert out.splitlines()[0] == f"== {sneaky} node 0: 5/5 rows in " + out.splitlines()[0].split(" rows in ")[1]


def test_json_values():
    import datetime as dt

    assert json_value(decimal.Decimal("12.30")) == "12.30"
    assert json_value(dt.date(1995, 3, 15)) == "1995-03-15"
    assert json_value(dt.datetime(1995, 3, 15, 1, 2, 3)) == "1995-03-15T01:02:03"
    assert json_value(dt.timedelta(days=1, seconds=1, microseconds=500000)) == "P1DT1.5S"
    assert json_value(dt.timedelta(seconds=-2)) == "-P0DT2S"
    assert json_value(b"\x00\xff") == "AP8="
    assert json_value(float("nan")) == "NaN" and json_value(float("-inf")) == "-Infinity"
    assert json_value([("k", decimal.Decimal("1"))]) == [["k", "1"]]
    assert json_value({"a": None, "b": True}) == {"a": None, "b": True}


def test_json_writes_intervals_of_months_as_iso_durations(spark, tmp_path):
    """A year-month interval, which Arrow cannot carry and the table shows as Spark's text, is an ISO 8601
    duration in JSON, as the help says (1 year 2 months is P1Y2M; negative, -P1Y2M); a null stays null."""
    from executor.engines.rows import months_duration
    from tests.support.plans import year_months

    rel = year_months((1, 2), (-1, -2), None)
    path = tmp_path / "ym.json"
    path.write_text(json.dumps(plan(rel)))
    code, out, err = _run(["run", str(path), "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["rows"] == [["P1Y2M"], ["-P1Y2M"], [None]]
    assert months_duration("1 months 3 days 4.5 seconds") == "P1M3DT4.5S"  # Spark's calendar interval
    assert months_duration("-1 months 3 days") == "P-1M3D"  # parts of both signs: each keeps its own
    assert months_duration("INTERVAL '0-0' YEAR TO MONTH") == "P0D" and months_duration("text") is None


def test_a_table_whose_columns_are_not_the_plans_is_refused_with_both_lists(spark, tpch_dir, tmp_path):
    """TPC-H q03 (DataFusion) over a folder whose customer file is TPC-DS's: refused, naming the table
    and both column lists, instead of TPC-DS values labelled c_name; by position only when asked, and
    only where the first columns have the plan's types."""
    from executor.data.generate import tpcds

    shutil.copy(os.path.join(tpcds(0.01), "customer.parquet"), tmp_path / "customer.parquet")
    for t in ("orders", "lineitem"):
        shutil.copy(os.path.join(tpch_dir, f"{t}.parquet"), tmp_path / f"{t}.parquet")
    sample = os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json")
    code, out, err = _run(["run", sample, "--data-dir", str(tmp_path)])
    assert code == 1 and out == ""
    assert "table `customer`" in err and "lacks 8 of the plan's 8 columns" in err
    assert (
        "The plan declares c_custkey, c_name, c_address, c_nationkey, c_phone, c_acctbal, c_mktsegment, c_comment"
        in err
    )
    assert "the table has c_customer_sk int, c_customer_id string," in err
    # reading by position is not offered where it would not serve: it would read c_current_cdemo_sk (a
    # number) as c_address (a string)
    assert "--by-position" not in err and (
        "Read by position, it would not serve either: in order, c_current_cdemo_sk is int where the plan reads "
        "c_address string" in err
    ), err
    assert "Bind it with --table NAME=PATH, --data-dir DIR, --tpch or --tpcds, to a table with the plan's columns" in (
        err
    )
    # asked for all the same: refused too
    code, out, err = _run(["run", sample, "--data-dir", str(tmp_path), "--by-position", "customer"])
    assert (
        code == 1
        and "cannot be read by position either: in order, c_current_cdemo_sk is int where the plan "
        "reads c_address string"
        in err
    ), err
    # TPC-H's customer under other names, with one more column: by position when asked
    import pyarrow.parquet as pq

    tpch_customer = pq.read_table(os.path.join(tpch_dir, "customer.parquet"))
    renamed = tpch_customer.rename_columns([f"col{i}" for i in range(8)]).append_column(
        "extra", tpch_customer.column(0)
    )
    pq.write_table(renamed, tmp_path / "customer.parquet")
    code, out, err = _run(["run", sample, "--data-dir", str(tmp_path), "--by-position", "customer", "--format", "json"])
    assert code == 0, err
    assert "its first 8 columns are used by position" in out


def test_a_column_of_another_type_family_is_refused(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # n_name holds numbers here: the plan reads it as a string
    pq.write_table(
        pa.table({"n_nationkey": [1], "n_name": [7], "n_regionkey": [1], "n_comment": ["x"]}),
        tmp_path / "nation.parquet",
    )
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan((read("nation", NATION), [c for c, _ in NATION]))))
    code, out, err = _run(["run", str(plan_file), "--data-dir", str(tmp_path)])
    assert code == 1 and "n_name is bigint in the table, string in the plan" in err


def test_a_setting_that_is_not_a_number_is_bad_input():
    """A value of the environment the settings cannot read: one line naming the variable, exit status 2."""
    import subprocess
    import sys

    env = {**os.environ, "SUBSTRAIT_VIZ_REAP_AFTER_S": "abc"}
    plan_path = os.path.join(ROOT, "sample_plans", "tutorial.json")
    done = subprocess.run(
        [sys.executable, "-m", "executor", "run", plan_path], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "error: SUBSTRAIT_VIZ_REAP_AFTER_S must be a number of seconds, not 'abc'"


def test_csv_writes_lists_and_structs_as_json(spark):
    """The tutorial's products: a list and a struct per row, as JSON in their cells (another tool reads
    them), against DuckDB reading the same file."""
    folder = os.path.join(ROOT, "sample_data", "tutorial")
    code, out, err = _run(
        ["run", os.path.join(ROOT, "sample_plans", "tutorial.json"), "--node", "0.0.1.0", "--data-dir", folder]
        + ["--format", "csv"]
    )
    assert code == 0, err
    rows = list(csv.DictReader(out.splitlines()[1:]))
    products = next(f for f in os.listdir(folder) if f.startswith("products"))
    oracle = duckdb.sql(f"select product_id, categories, details from '{os.path.join(folder, products)}'").fetchall()
    want = {str(pid): (categories, details) for pid, categories, details in oracle}
    assert len(rows) == len(want) > 0
    for row in rows:  # a null is an empty cell
        got = tuple(json.loads(row[c]) if row[c] else None for c in ("categories", "details"))
        assert got == want[row["product_id"]]
    assert any(None in row for row in want.values()) and any(None not in row for row in want.values())


def test_csv_takes_nested_and_binary_values_from_arrow():
    """A null in a list of floats is null (pandas made it NaN, which a real NaN also is); binary is base64."""
    import pyarrow as pa

    from executor.jobs.run import RunResult, to_csv_text, to_pandas

    table = pa.table(
        {
            "a": pa.array([[None, 2.5], None, [float("nan")]], pa.list_(pa.float64())),
            "b": pa.array([b"ab", None, b"\x00"]),
            "c": pa.array([1, None, 3]),
        }
    )
    columns = ["[0] a", "[1] b", "[2] c"]
    result = RunResult(columns, ["x"] * 3, to_pandas(table, columns), 0.0, 3, "", ["a", "b", "c"])
    result.arrow = table.rename_columns(columns)
    rows = list(csv.reader(to_csv_text(result).splitlines()))
    assert rows == [["a", "b", "c"], ["[null, 2.5]", "YWI=", "1"], ["", "", ""], ['["NaN"]', "AA==", "3"]]


def test_a_nanosecond_inside_a_list_record_or_map_is_kept_in_the_csv_and_the_table():
    """A Python time holds microseconds: inside a nested value the nanosecond was cut (01:02:03)."""
    import pyarrow as pa

    from executor.jobs.run import RunResult, to_csv_text, to_pandas

    ns = 3_723_000_000_001  # 01:02:03.000000001
    table = pa.table(
        {
            "l": pa.array([[ns, None], None, [3_723_500_000_000]], pa.list_(pa.time64("ns"))),
            "r": pa.array([{"t": ns}, {"t": 60_000_000_000}, None], pa.struct([("t", pa.time64("ns"))])),
            "m": pa.array([[("a", ns)], None, [("b", 0)]], pa.map_(pa.string(), pa.time64("ns"))),
        }
    ).slice(0, 3)
    columns = [f"[{i}] {n}" for i, n in enumerate(table.column_names)]
    shown = to_pandas(table, columns)
    result = RunResult(columns, ["x"] * 3, shown, 0.0, 3, "", table.column_names)
    result.arrow = table.rename_columns(columns)
    assert list(csv.reader(to_csv_text(result).splitlines())) == [
        ["l", "r", "m"],
        ['["01:02:03.000000001", null]', '{"t": "01:02:03.000000001"}', '{"a": "01:02:03.000000001"}'],
        ["", '{"t": "00:01:00"}', ""],
        ['["01:02:03.500000"]', "", '{"b": "00:00:00"}'],
    ]
    assert list(shown.iloc[:, 1]) == ['{"t": "01:02:03.000000001"}', '{"t": "00:01:00"}', None]
    assert list(shown.iloc[:, 2])[0] == '{"a": "01:02:03.000000001"}'
    # a slice (Arrow's offsets), a fixed-size list with a null, a list of maps
    from executor.engines.rows import exact_values

    assert exact_values(table.column("l").combine_chunks().slice(1)) == [None, ["01:02:03.500000"]]
    fixed = pa.array([[ns, 0], None, [1, ns]], pa.list_(pa.time64("ns"), 2))
    assert exact_values(fixed.slice(1)) == [None, ["00:00:00.000000001", "01:02:03.000000001"]]
    deep = pa.array([[[("k", ns)]], None], pa.list_(pa.map_(pa.string(), pa.time64("ns"))))
    assert exact_values(deep) == [[[("k", "01:02:03.000000001")]], None]


def test_a_virtual_table_without_columns_or_rows_runs_to_no_rows(spark, plan_file):
    """DataFusion writes CREATE TABLE as a read of an empty virtual table with no columns; pyarrow's slice
    of a table without columns gives as many rows as asked."""
    empty = plan_file(
        {"relations": [{"root": {"input": {"read": {"baseSchema": {"struct": {}}, "virtualTable": {}}}}}]}
    )
    code, out, err = _run(["run", empty, "--format", "json", "--count"])
    assert code == 0, err
    result = json.loads(out)
    assert (result["rows"], result["row_count"], result["truncated"]) == ([], 0, False)


def test_csv_writes_each_value_as_other_tools_read_it():
    """pandas wrote a null and an empty text alike, a NaN as a null, True, a timestamp at midnight as a
    date and a day-time interval as "0 days 01:30:00"."""
    import datetime as dt

    import pyarrow as pa

    from executor.jobs.run import RunResult, to_csv_text, to_pandas

    table = pa.table(
        {
            "s": pa.array(["", None, "a,b"]),
            "f": pa.array([float("nan"), None, 0.1 + 0.2]),
            "b": pa.array([True, None, False]),
            "t": pa.array([dt.datetime(1970, 1, 1), None, dt.datetime(2024, 3, 10, 1, 2, 3, 123456)]),
            "d": pa.array([dt.timedelta(minutes=90), None, dt.timedelta(days=400)]),
        }
    )
    columns = [f"[{i}] {n}" for i, n in enumerate(table.column_names)]
    result = RunResult(columns, ["x"] * 5, to_pandas(table, columns), 0.0, 3, "", table.column_names)
    result.arrow = table.rename_columns(columns)
    assert to_csv_text(result).splitlines() == [
        "s,f,b,t,d",
        '"",NaN,true,1970-01-01 00:00:00,01:30:00',
        ",,,,",
        '"a,b",0.30000000000000004,false,2024-03-10 01:02:03.123456,400 days 00:00:00',
    ]


def test_the_table_writes_decimals_in_plain_digits_in_lists_too():
    """Python writes a decimal zero of scale 15 as ``0E-15``, which reads as another number."""
    from decimal import Decimal

    from executor.__main__ import _holds_decimal, _plain_decimals

    assert _plain_decimals(Decimal("0E-15")) == "0.000000000000000"
    assert _plain_decimals([Decimal("1.250000000000000"), None, Decimal("1E+2")]) == "[1.250000000000000, null, 100]"
    assert _plain_decimals({"a": Decimal("0E-3")}) == {"a": "0.000"}
    assert _plain_decimals(Decimal("NaN")) == "NaN"
    assert _holds_decimal([[Decimal("1")]]) and not _holds_decimal([1.5, "x"]) and not _holds_decimal(None)


def test_the_table_writes_a_null_as_null_a_nan_as_nan_and_booleans_as_sql_does():
    """A null prints as NULL in every column (a float's had printed NaN, as the NaN beside it in another
    column does, where JSON and CSV say null; the others' None, which reads as a text), a boolean as
    true or false; a result without rows names its columns and says so."""
    import types

    import pyarrow as pa

    from executor.__main__ import _print_table
    from executor.jobs.run import to_pandas

    table = pa.table(
        {
            "sd": [0.5, None],
            "n": [float("nan"), None],
            "k": pa.array([1, None], pa.int64()),
            "s": ["None", None],
            "b": [True, None],
            "c": [False, True],
        }
    )
    columns = ["[0] sd", "[1] n", "[2] k", "[3] s", "[4] b", "[5] c"]
    result = types.SimpleNamespace(
        rows=to_pandas(table, columns),
        columns=columns,
        types=["double", "double", "bigint", "string", "boolean", "boolean"],
        row_count=2,
        elapsed_s=0.1,
        warnings=[],
    )
    out = io.StringIO()
    _print_table("plan.json", "0", result, out)
    last = out.getvalue().splitlines()[-1].split()
    assert last == ["NULL", "NULL", "NULL", "NULL", "NULL", "true"], out.getvalue()
    assert out.getvalue().splitlines()[-2].split() == ["0.5", "NaN", "1", "None", "true", "false"], out.getvalue()
    none = types.SimpleNamespace(**{**vars(result), "rows": to_pandas(table.slice(0, 0), columns), "row_count": 0})
    out = io.StringIO()
    _print_table("plan.json", "0", none, out)
    assert out.getvalue().splitlines()[1:] == [
        "[0] sd: double  [1] n: double  [2] k: bigint  [3] s: string  [4] b: boolean  [5] c: boolean",
        "(no rows)",
    ], out.getvalue()
