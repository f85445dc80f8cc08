"""Comparing two nodes' outputs (executor.jobs.outputs); expected rows come from DuckDB."""

from __future__ import annotations

import json
import os

import duckdb
import pytest

from executor.data.catalog import Catalog
from executor.errors import ExecutionError
from executor.jobs.outputs import ColumnComparison, OutputComparison, compare_outputs
from tests.support import ROOT
from viz.model import analyze

TUTORIAL = os.path.join(ROOT, "sample_data", "tutorial")
PRODUCTS = os.path.join(TUTORIAL, "products.parquet")
ORDERS = os.path.join(TUTORIAL, "orders.parquet")


@pytest.fixture(scope="module")
def tutorial():
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        return analyze(fh.read())


@pytest.fixture(scope="module")
def catalog():
    return Catalog(data_roots=[TUTORIAL])


def test_a_node_against_itself_has_no_differences(spark, tutorial, catalog):
    c = compare_outputs(tutorial, "0.0", tutorial, "0.0", catalog, catalog, spark=spark)
    joined = duckdb.sql(
        f"SELECT count(*) FROM '{ORDERS}' o JOIN '{PRODUCTS}' p ON o.product_id = p.product_id "
        "WHERE list_position(p.categories, 'Computers') IS NULL"
    ).fetchall()[0][0]
    assert c.rows_a == c.rows_b == joined
    assert c.differing_columns == [] and c.column_count_difference == 0 and len(c.columns) == 8
    assert c.rows_compared and c.only_a_count == 0 and c.only_b_count == 0 and c.same
    assert c.only_a.empty and c.only_b.empty
    json.dumps(c.to_json())


def test_a_filter_against_its_input_shows_the_dropped_rows(spark, tutorial, catalog):
    c = compare_outputs(tutorial, "0.0.1.0", tutorial, "0.0.1", catalog, catalog, spark=spark)
    total = duckdb.sql(f"SELECT count(*) FROM '{PRODUCTS}'").fetchall()[0][0]
    dropped = sorted(
        r[0]
        for r in duckdb.sql(
            f"SELECT product_id FROM '{PRODUCTS}' WHERE list_position(categories, 'Computers') IS NOT NULL"
        ).fetchall()
    )
    assert dropped, "the oracle finds rows the filter drops"
    assert (c.rows_a, c.rows_b) == (total, total - len(dropped))
    assert c.differing_columns == [] and c.rows_compared and not c.same
    assert c.only_a_count == len(dropped) and c.only_b_count == 0
    assert sorted(int(v) for v in c.only_a["[0] product_id"]) == dropped
    assert list(c.only_a.columns) == ["[0] product_id", "[1] categories", "[2] details", "[3] product_name"]
    assert c.summary().endswith(
        f"; same schema; {len(dropped)} row{'s' if len(dropped) != 1 else ''} only in a, 0 only in b"
    )


def test_different_schemas_are_described_and_rows_not_compared(spark, tutorial, catalog):
    c = compare_outputs(tutorial, "0.0.0", tutorial, "0.0.1.0", catalog, catalog, spark=spark)
    # orders: product_id i64, quantity i32, order_date date, price decimal;
    # products: product_id, categories, details, product_name
    assert c.differing_columns == [1, 2, 3] and c.column_count_difference == 0
    assert c.columns[0].what_differs == [] and c.columns[1].what_differs == ["name", "type"]
    assert not c.rows_compared and "column 1 is int in a and array<string> in b" in c.why_not_compared
    wider = compare_outputs(tutorial, "0.0.0", tutorial, "0.0", catalog, catalog, spark=spark)
    assert wider.column_count_difference == 4 and wider.columns[5].what_differs == ["missing in a"]
    assert "a has 4 columns and b has 8" in wider.why_not_compared


def test_an_unknown_node_is_refused(tutorial, catalog):
    with pytest.raises(ExecutionError, match="b: the plan has no node '9'"):
        compare_outputs(tutorial, "0", tutorial, "9", catalog, catalog)


def test_a_node_that_cannot_run_on_spark_is_said_before_spark_is_asked(tutorial, catalog):
    """A fetch whose count is an expression cannot run on Spark: the comparison says which side's node and
    why (the page disables its button with this text; it had shown Spark's raw exception)."""
    from executor.errors import Unsupported
    from executor.jobs.outputs import cannot_compare
    from tests.support.plans import call, i64, plan, read

    orders = read("orders", [("product_id", "i64"), ("quantity", "i32")])
    counted = analyze(
        json.dumps(
            plan(({"fetch": {"input": orders, "countExpr": call(3, i64(1), i64(1), out="i64")}}, ["p", "q"]))
        ).encode()
    )
    why = cannot_compare(tutorial, "0", counted, "0", ("left", "right"))
    assert why == "right's node 0 cannot run on Spark: the fetch count and offset must be constants"
    with pytest.raises(Unsupported, match="b's node 0 cannot run on Spark: the fetch count"):
        compare_outputs(tutorial, "0", counted, "0", catalog, catalog)
    assert cannot_compare(tutorial, "0", tutorial, "0.0") is None


def _priced(name: str, decimal: str):
    """orders' product_id and price, the price cast to ``decimal`` and the column named ``name``."""
    from tests.support.plans import emit, field, plan, read, typ

    orders = read(
        "orders", [("product_id", "i64"), ("quantity", "i32"), ("order_date", "date"), ("price", "decimal<10,2>?")]
    )
    cast = {"cast": {"type": typ(decimal), "input": field(3), "failureBehavior": "FAILURE_BEHAVIOR_THROW_EXCEPTION"}}
    project = emit({"project": {"input": orders, "expressions": [cast]}}, [0, 4])
    return analyze(json.dumps(plan((project, ["product_id", name]))).encode())


def test_decimals_of_different_precision_compare_by_value_and_case_can_be_ignored(spark, catalog):
    # the same prices as decimal<38,4> and decimal<31,4> (what isthmus and DataFusion write for q03's
    # revenue), named PRICE and price
    a, b = _priced("PRICE", "decimal<38,4>?"), _priced("price", "decimal<31,4>?")
    c = compare_outputs(a, "0", b, "0", catalog, catalog, spark=spark)
    total = duckdb.sql(f"SELECT count(*) FROM '{ORDERS}'").fetchall()[0][0]
    assert c.rows_compared and c.rows_a == c.rows_b == total
    assert c.only_a_count == 0 and c.only_b_count == 0
    assert c.columns[1].what_differs == ["name", "type"]
    c = compare_outputs(a, "0", b, "0", catalog, catalog, spark=spark, ignore_case=True)
    assert c.columns[1].what_differs == ["type"] and c.only_a_count == 0
    # prices rounded to one decimal place differ by value where the cents are not a multiple of 10
    rounded = _priced("PRICE", "decimal<12,1>?")
    c = compare_outputs(a, "0", rounded, "0", catalog, catalog, spark=spark)
    changed = duckdb.sql(f"SELECT count(*) FROM '{ORDERS}' WHERE price * 10 <> round(price * 10)").fetchall()[0][0]
    assert changed > 0, "the oracle finds prices that round"
    assert c.rows_compared and c.only_a_count == c.only_b_count == changed


def _column(index: int, a: tuple[str, str] | None, b: tuple[str, str] | None) -> ColumnComparison:
    """A column compared by position: ``a`` and ``b`` are (name, Spark type), None where a side has none."""
    return ColumnComparison(
        index=index,
        name_a=a[0] if a else None,
        name_b=b[0] if b else None,
        type_a=None,
        type_b=None,
        spark_type_a=a[1] if a else None,
        spark_type_b=b[1] if b else None,
        nullable_a=True if a else None,
        nullable_b=True if b else None,
    )


def test_the_summary_names_the_differing_columns_in_singular_or_plural():
    same = _column(0, ("id", "bigint"), ("id", "bigint"))
    one = OutputComparison("0", "1", 10, 10, [same, _column(1, ("revenue", "bigint"), ("revenue", "int"))], True)
    one.only_a_count, one.only_b_count = 1, 0
    # one column: what differs, with both sides' values
    assert one.summary() == (
        '10 vs 10 rows; column 1 "revenue" differs: Spark\'s type bigint vs int; 1 row only in a, 0 only in b'
    )
    typed = _column(1, ("REVENUE", "decimal(31,4)"), ("revenue", "decimal(38,4)"))
    typed.type_a, typed.type_b, typed.nullable_b = "decimal<31,4>", "decimal<38,4>?", None
    assert typed.what_differs_said() == (
        'name "REVENUE" vs "revenue", type decimal<31,4> vs decimal<38,4>?, nullability nullable vs unknown'
    )

    # isthmus' and DuckDB's TPC-H q3: a key required on one side and nullable on the other is one type
    key = _column(0, ("L_ORDERKEY", "bigint"), ("l_orderkey", "bigint"))
    key.type_a, key.type_b, key.nullable_a, key.nullable_b = "i64", "i64?", False, True
    assert key.what_differs == ["name", "nullability"]
    assert key.what_differs_said() == 'name "L_ORDERKEY" vs "l_orderkey", nullability required vs nullable'
    # Compare's "Ignore upper/lower case" and "Ignore nullability" both on: alike (the summary said
    # "(name, nullability)" with both on)
    key.ignore_case = key.ignore_nullability = True
    assert key.what_differs == [] and not key.differs
    key.ignore_case = False
    assert key.what_differs == ["name"] and key.what_differs_said() == 'name "L_ORDERKEY" vs "l_orderkey"'
    nested = _column(0, ("s", "struct<x:int>"), ("s", "struct<x:int>"))
    nested.type_a, nested.type_b = "struct<x: i32>?", "struct<x: i32?>?"  # a member's nullability is its type's
    assert nested.what_differs == ["type"]

    # a column only b has is named by b's name; past three the rest are counted
    many = [
        same,
        *(_column(i, (f"c{i}", "int"), (f"c{i}", "bigint")) for i in range(1, 5)),
        _column(5, None, ("x", "int")),
    ]
    two = OutputComparison("0", "1", 3, 2, many[:2] + many[-1:], False, why_not_compared="a has 2 columns and b has 3")
    assert (
        two.summary()
        == '3 vs 2 rows; columns 1 "c1" (type) and 5 "x" (missing in a) differ; rows not compared: a has 2 columns '
        "and b has 3"
    )
    five = OutputComparison("0", "1", 3, 3, many, True, only_a_count=0, only_b_count=2)
    assert (
        five.summary()
        == '3 vs 3 rows; columns 1 "c1" (type), 2 "c2" (type), 3 "c3" (type) and 2 more differ; 0 rows only in a, '
        "2 only in b"
    )
    assert five.to_json()["differing_columns"] == [1, 2, 3, 4, 5]  # the JSON keeps the indices alone

    same_only = OutputComparison("0", "1", 4, 4, [same], True, only_a_count=0, only_b_count=0)
    assert same_only.summary() == "4 vs 4 rows; same schema; 0 rows only in a, 0 only in b"
    single = OutputComparison("0", "1", 1, 1, [same], True, only_a_count=0, only_b_count=0)
    assert single.summary() == "1 vs 1 row; same schema; 0 rows only in a, 0 only in b"


def test_columns_differing_only_in_nullability_are_told_apart():
    """DataFusion's and DuckDB's TPC-H q3 give the same rows; three of their columns differ only in whether
    they may be null, which the page does not count as columns differing."""
    loose = [_column(i, (n, "bigint"), (n, "bigint")) for i, n in enumerate(("a", "b", "c"))]
    for c in loose:
        c.type_a, c.type_b, c.nullable_a, c.nullable_b = "i64", "i64?", False, True
    typed = _column(3, ("d", "bigint"), ("d", "int"))
    c = OutputComparison("0", "0", 10, 10, [*loose, typed], True, only_a_count=0, only_b_count=0)
    assert c.differing_columns == [0, 1, 2, 3] and c.nullability_only == [0, 1, 2]
    assert c.summary() == (
        '10 vs 10 rows; column 3 "d" differs: Spark\'s type bigint vs int; only nullability differs in 3 other '
        "columns; 0 rows only in a, 0 only in b"
    )
    loose_only = OutputComparison("0", "0", 10, 10, loose, True, only_a_count=0, only_b_count=0)
    assert loose_only.summary() == (
        "10 vs 10 rows; same schema but for the nullability of 3 columns; 0 rows only in a, 0 only in b"
    )


def test_integers_of_different_widths_compare_by_value(spark, catalog):
    """isthmus writes q07's l_year as i64 where DataFusion writes i32: the same years, compared by value
    (quantity, an i32, as i64 and as i16 here); a string beside a number still does not line up."""
    from tests.support.plans import emit, field, plan, read, typ

    def quantity_as(t: str):
        orders = read(
            "orders", [("product_id", "i64"), ("quantity", "i32"), ("order_date", "date"), ("price", "decimal<10,2>?")]
        )
        cast = {"cast": {"type": typ(t), "input": field(1), "failureBehavior": "FAILURE_BEHAVIOR_THROW_EXCEPTION"}}
        project = emit({"project": {"input": orders, "expressions": [cast]}}, [0, 4])
        return analyze(json.dumps(plan((project, ["product_id", "quantity"]))).encode())

    c = compare_outputs(quantity_as("i64"), "0", quantity_as("i16"), "0", catalog, catalog, spark=spark)
    total = duckdb.sql(f"SELECT count(*) FROM '{ORDERS}'").fetchall()[0][0]
    assert c.rows_compared and c.rows_a == c.rows_b == total and c.only_a_count == c.only_b_count == 0
    assert c.columns[1].what_differs == ["type"]
    c = compare_outputs(quantity_as("i64"), "0", quantity_as("string"), "0", catalog, catalog, spark=spark)
    assert not c.rows_compared and "column 1 is bigint in a and string in b" in c.why_not_compared
