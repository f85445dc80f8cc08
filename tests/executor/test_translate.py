"""The Substrait -> Spark translation on hand-made plans.

Every expected result is worked out by hand from the small tables below (or is the spec's own
example, for the set operations), never copied from the executor's output.

    orders    o_id  o_cust  o_total          customers  c_id  c_name
              1     10      5.00                        10    ann
              2     10      7.50                        20    bob
              3     20      1.25                        40    eve
              4     NULL    3.00
              5     30      NULL
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests.support import ROOT
from tests.support.plans import (
    CUSTOMERS,
    ORDERS,
    call,
    emit,
    field,
    i64,
    measure,
    model_of,
    outer_field,
    plan,
    read,
    typ,
)

ORDER_ROWS = [
    (1, 10, Decimal("5.00")),
    (2, 10, Decimal("7.50")),
    (3, 20, Decimal("1.25")),
    (4, None, Decimal("3.00")),
    (5, 30, None),
]
CUSTOMER_ROWS = [(10, "ann"), (20, "bob"), (40, "eve")]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from executor.data.catalog import Catalog

    folder = tmp_path_factory.mktemp("translate-data")
    o = list(zip(*ORDER_ROWS))
    pq.write_table(
        pa.table(
            {
                "o_id": pa.array(o[0], pa.int64()),
                "o_cust": pa.array(o[1], pa.int64()),
                "o_total": pa.array(o[2], pa.decimal128(10, 2)),
            }
        ),
        folder / "orders.parquet",
    )
    c = list(zip(*CUSTOMER_ROWS))
    pq.write_table(
        pa.table({"c_id": pa.array(c[0], pa.int64()), "c_name": pa.array(c[1], pa.string())}),
        folder / "customers.parquet",
    )
    return Catalog(data_roots=[str(folder)], use_spark_catalog=False)


def run(spark, catalog, doc: dict, node: str = "0") -> list[tuple]:
    from executor.translate.rel import translate

    model = model_of(doc)
    return [tuple(r) for r in translate(model, node, spark, catalog).df.collect()]


def same(rows, expected) -> bool:
    key = lambda r: tuple((v is None, str(v)) for v in r)  # noqa: E731
    return sorted(rows, key=key) == sorted(expected, key=key)


ORD = read("orders", ORDERS)
CUS = read("customers", CUSTOMERS)


def lit_i64(v):
    return {"literal": {"i64": str(v)}}


def vtable(values: list[int | None], name: str = "x") -> dict:
    rows = [{"fields": [lit_i64(v) if v is not None else {"literal": {"null": typ("i64?")}}]} for v in values]
    return {
        "read": {
            "baseSchema": {"names": [name], "struct": {"types": [typ("i64?")]}},
            "virtualTable": {"expressions": rows},
        }
    }


# ---------------------------------------------------------------------------------------------
# Reads, filter, project, emit
# ---------------------------------------------------------------------------------------------


def test_read_whole_table_by_position(spark, catalog):
    assert same(run(spark, catalog, plan((ORD, ["a", "b", "c"]))), ORDER_ROWS)


def test_read_matches_columns_by_name_in_any_order(spark, catalog):
    swapped = read("customers", [("c_name", "string"), ("c_id", "i64")])
    assert same(run(spark, catalog, plan(swapped)), [(n, i) for i, n in CUSTOMER_ROWS])


def test_read_filter_and_projection(spark, catalog):
    r = read(
        "orders",
        ORDERS,
        filter=call(2, field(0), i64(2)),
        projection={"select": {"structItems": [{"field": 2}, {"field": 0}]}},
    )
    assert same(run(spark, catalog, plan(r)), [(Decimal("1.25"), 3), (Decimal("3.00"), 4), (None, 5)])


def test_filter_keeps_rows_where_condition_is_true(spark, catalog):
    doc = plan({"filter": {"input": ORD, "condition": call(2, field(1), i64(10))}})
    # o_cust > 10: 20 and 30 (the null customer is not true)
    assert same(run(spark, catalog, doc), [ORDER_ROWS[2], ORDER_ROWS[4]])


def test_project_appends_expressions_and_emit_reorders(spark, catalog):
    proj = {"project": {"input": CUS, "expressions": [call(3, field(0), i64(1), out="i64")]}}
    assert same(run(spark, catalog, plan(proj)), [(10, "ann", 11), (20, "bob", 21), (40, "eve", 41)])
    assert same(run(spark, catalog, plan(emit(proj, [2, 1]))), [(11, "ann"), (21, "bob"), (41, "eve")])


def test_a_virtual_table_value_its_column_cannot_hold_stops_the_run(spark, catalog):
    """2^40 in a column typed i32: Spark's DataFrame of the rows took it as a null, a value that looks
    like one; the run stops and says which row."""
    from executor.errors import ExecutionError

    doc = plan(
        {
            "read": {
                "baseSchema": {"names": ["x"], "struct": {"types": [typ("i32?")]}},
                "virtualTable": {"expressions": [{"fields": [lit_i64(1)]}, {"fields": [lit_i64(2**40)]}]},
            }
        }
    )
    with pytest.raises(ExecutionError, match="row 1 holds 1099511627776, which its column's i32"):
        run(spark, catalog, doc)
    # a float is no integer or decimal to hold: 1.5 in an fp64 column is as it is
    floats = plan(
        {
            "read": {
                "baseSchema": {"names": ["x"], "struct": {"types": [typ("fp64?")]}},
                "virtualTable": {"expressions": [{"fields": [{"literal": {"fp64": 1.5}}]}]},
            }
        }
    )
    assert run(spark, catalog, floats) == [(1.5,)]


def test_virtual_table_with_typed_null(spark, catalog):
    assert same(run(spark, catalog, plan(vtable([1, None, 3]))), [(1,), (None,), (3,)])


# ---------------------------------------------------------------------------------------------
# Joins: all 12 types, on o_cust = c_id
# ---------------------------------------------------------------------------------------------


def join(jtype: str, left=ORD, right=CUS, cond=None) -> dict:
    cond = cond or call(1, field(1), field(3))
    return plan({"join": {"left": left, "right": right, "expression": cond, "type": f"JOIN_TYPE_{jtype}"}})


A, B, E = (10, "ann"), (20, "bob"), (40, "eve")
O1, O2, O3, O4, O5 = ORDER_ROWS
NO_ORDER = (None, None, None)
NO_CUSTOMER = (None, None)

JOINS = {
    "INNER": [O1 + A, O2 + A, O3 + B],
    "LEFT": [O1 + A, O2 + A, O3 + B, O4 + NO_CUSTOMER, O5 + NO_CUSTOMER],
    "RIGHT": [O1 + A, O2 + A, O3 + B, NO_ORDER + E],
    "OUTER": [O1 + A, O2 + A, O3 + B, O4 + NO_CUSTOMER, O5 + NO_CUSTOMER, NO_ORDER + E],
    "LEFT_SEMI": [O1, O2, O3],
    "LEFT_ANTI": [O4, O5],
    "RIGHT_SEMI": [A, B],
    "RIGHT_ANTI": [E],
    "LEFT_SINGLE": [O1 + A, O2 + A, O3 + B, O4 + NO_CUSTOMER, O5 + NO_CUSTOMER],
    # orders 1-3 match; order 4's customer is null, so the condition is unknown: null; order 5: false
    "LEFT_MARK": [O1 + (True,), O2 + (True,), O3 + (True,), O4 + (None,), O5 + (False,)],
    # eve matches no order, but the condition is unknown against order 4 (null customer): null
    "RIGHT_MARK": [A + (True,), B + (True,), E + (None,)],
}


@pytest.mark.parametrize("jtype", sorted(JOINS))
def test_join_types(spark, catalog, jtype):
    assert same(run(spark, catalog, join(jtype)), JOINS[jtype])


def test_right_single_join(spark, catalog):
    # customers on the left, orders on the right: every order matches at most one customer
    doc = join("RIGHT_SINGLE", left=CUS, right=ORD, cond=call(1, field(0), field(3)))
    assert same(run(spark, catalog, doc), [A + O1, A + O2, B + O3, NO_CUSTOMER + O4, NO_CUSTOMER + O5])


def test_join_with_equal_column_names_on_both_sides(spark, catalog):
    doc = join("INNER", left=CUS, right=CUS, cond=call(1, field(0), field(2)))
    assert same(run(spark, catalog, doc), [A + A, B + B, E + E])


def test_cross_join(spark, catalog):
    doc = plan({"cross": {"left": CUS, "right": vtable([1, 2])}})
    assert same(run(spark, catalog, doc), [c + (x,) for c in CUSTOMER_ROWS for x in (1, 2)])


def test_hash_join_keys(spark, catalog):
    key = {"directReference": {"structField": {"field": 1}}, "rootReference": {}}
    right_key = {"directReference": {"structField": {"field": 0}}, "rootReference": {}}
    doc = plan(
        {
            "hashJoin": {
                "left": ORD,
                "right": CUS,
                "keys": [{"left": key, "right": right_key, "comparison": {"simple": "SIMPLE_COMPARISON_TYPE_EQ"}}],
                "type": "JOIN_TYPE_LEFT_ANTI",
            }
        }
    )
    assert same(run(spark, catalog, doc), [O4, O5])


# ---------------------------------------------------------------------------------------------
# Set operations: the spec's own examples
# ---------------------------------------------------------------------------------------------

SETS = [
    ("MINUS_PRIMARY", [1, 2, 2, 3, 3, 3, 4], [[1, 2], [3]], [4]),
    ("MINUS_PRIMARY_ALL", [1, 2, 2, 3, 3, 3, 3], [[1, 2, 3, 4], [3]], [2, 3, 3]),
    ("MINUS_MULTISET", [1, 2, 3, 4], [[1, 2], [1, 2, 3]], [3, 4]),
    ("INTERSECTION_PRIMARY", [1, 2, 2, 3, 3, 3, 4], [[1, 2, 3, 5], [2, 3, 6]], [1, 2, 3]),
    ("INTERSECTION_MULTISET", [1, 2, 3, 4], [[2, 3], [3, 4]], [3]),
    ("INTERSECTION_MULTISET_ALL", [1, 2, 2, 3, 3, 3, 4], [[1, 2, 3, 3, 5], [2, 3, 3, 6]], [2, 3, 3]),
    ("UNION_DISTINCT", [1, 2, 2, 3, 3, 3, 4], [[2, 3, 5], [1, 6]], [1, 2, 3, 4, 5, 6]),
    ("UNION_ALL", [1, 2, 2, 3, 3, 3, 4], [[2, 3, 5], [1, 6]], [1, 2, 2, 3, 3, 3, 4, 2, 3, 5, 1, 6]),
    # "NULL matches NULL"
    ("MINUS_PRIMARY", [None, 1, 3], [[None, 2, 4]], [1, 3]),
    ("UNION_DISTINCT", [None, 1, 3], [[None, 2, 4]], [None, 1, 2, 3, 4]),
]


@pytest.mark.parametrize("op,primary,secondaries,expected", SETS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SETS)])
def test_set_operations(spark, catalog, op, primary, secondaries, expected):
    doc = plan({"set": {"inputs": [vtable(primary)] + [vtable(s) for s in secondaries], "op": f"SET_OP_{op}"}})
    assert same(run(spark, catalog, doc), [(v,) for v in expected])


# ---------------------------------------------------------------------------------------------
# Aggregate, sort, fetch
# ---------------------------------------------------------------------------------------------


def test_aggregate_group_by_with_measures(spark, catalog):
    doc = plan(
        {
            "aggregate": {
                "input": ORD,
                "groupingExpressions": [field(1)],
                "groupings": [{"expressionReferences": [0]}],
                "measures": [measure(5, field(0))],
            }
        }
    )
    assert same(run(spark, catalog, doc), [(10, 2), (20, 1), (None, 1), (30, 1)])


def test_aggregate_grouping_sets_with_index_column(spark, catalog):
    # grouping sets (o_cust), (): per customer, then the total; the i32 column names the set
    doc = plan(
        {
            "aggregate": {
                "input": ORD,
                "groupingExpressions": [field(1)],
                "groupings": [{"expressionReferences": [0]}, {"expressionReferences": []}],
                "measures": [measure(5, field(0))],
            }
        }
    )
    assert same(run(spark, catalog, doc), [(10, 2, 0), (20, 1, 0), (None, 1, 0), (30, 1, 0), (None, 5, 1)])


def test_measure_filter_and_distinct(spark, catalog):
    filtered = {**measure(5, field(0)), "filter": call(2, field(0), i64(2))}
    distinct = {"measure": {**measure(5, field(1))["measure"], "invocation": "AGGREGATION_INVOCATION_DISTINCT"}}
    doc = plan({"aggregate": {"input": ORD, "groupings": [{}], "measures": [filtered, distinct]}})
    # o_id > 2: 3 rows; distinct non-null customers: 10, 20, 30
    assert run(spark, catalog, doc) == [(3, 3)]


def sort_on(i: int, direction: str) -> dict:
    return {"expr": field(i), "direction": f"SORT_DIRECTION_{direction}"}


def test_sort_directions_and_nulls(spark, catalog):
    doc = plan({"sort": {"input": ORD, "sorts": [sort_on(1, "DESC_NULLS_FIRST"), sort_on(0, "ASC_NULLS_LAST")]}})
    assert [r[0] for r in run(spark, catalog, doc)] == [4, 5, 3, 1, 2]
    doc = plan({"sort": {"input": ORD, "sorts": [sort_on(2, "ASC_NULLS_LAST")]}})
    assert [r[0] for r in run(spark, catalog, doc)] == [3, 4, 1, 2, 5]


def test_fetch_offset_and_count(spark, catalog):
    ordered = {"sort": {"input": ORD, "sorts": [sort_on(0, "ASC_NULLS_LAST")]}}
    doc = plan({"fetch": {"input": ordered, "offsetExpr": lit_i64(1), "countExpr": lit_i64(2)}})
    assert [r[0] for r in run(spark, catalog, doc)] == [2, 3]


def test_top_n(spark, catalog):
    doc = plan({"topN": {"input": ORD, "sorts": [sort_on(2, "DESC_NULLS_LAST")], "count": lit_i64(2)}})
    assert [r[0] for r in run(spark, catalog, doc)] == [2, 1]


# ---------------------------------------------------------------------------------------------
# Reference, window, expand, exchange
# ---------------------------------------------------------------------------------------------


def test_reference_shares_a_subtree(spark, catalog):
    doc = plan(
        CUS,
        (
            {
                "join": {
                    "left": {"reference": {"subtreeOrdinal": 0}},
                    "right": {"reference": {"subtreeOrdinal": 0}},
                    "expression": call(1, field(0), field(2)),
                    "type": "JOIN_TYPE_INNER",
                }
            },
            ["a", "b", "c", "d"],
        ),
    )
    assert same(run(spark, catalog, doc, "1"), [A + A, B + B, E + E])


def test_window_function_in_project(spark, catalog):
    rn = {
        "windowFunction": {
            "functionReference": 6,
            "outputType": typ("i64"),
            "partitions": [field(1)],
            "sorts": [sort_on(0, "DESC_NULLS_LAST")],
            "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
        }
    }
    doc = plan(emit({"project": {"input": ORD, "expressions": [rn]}}, [0, 3]))
    # customer 10 has orders 2 (first, descending) and 1
    assert same(run(spark, catalog, doc), [(1, 2), (2, 1), (3, 1), (4, 1), (5, 1)])


def test_expand_duplicates_rows(spark, catalog):
    doc = plan(
        {
            "expand": {
                "input": CUS,
                "fields": [
                    {"consistentField": field(0)},
                    {"switchingField": {"duplicates": [field(1), {"literal": {"string": "-"}}]}},
                ],
            }
        }
    )
    expected = [(i, n, 0) for i, n in CUSTOMER_ROWS] + [(i, "-", 1) for i, _ in CUSTOMER_ROWS]
    assert same(run(spark, catalog, doc), expected)


def test_exchange_keeps_rows(spark, catalog):
    doc = plan(
        {
            "exchange": {
                "input": CUS,
                "partitionCount": 2,
                "scatterByFields": {
                    "fields": [{"directReference": {"structField": {"field": 0}}, "rootReference": {}}]
                },
            }
        }
    )
    assert same(run(spark, catalog, doc), CUSTOMER_ROWS)


# ---------------------------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------------------------


def project_one(spark, catalog, expression: dict, input_rel=CUS) -> list:
    doc = plan(emit({"project": {"input": input_rel, "expressions": [expression]}}, [2 if input_rel is CUS else 3]))
    return [r[0] for r in run(spark, catalog, doc)]


def test_if_then_and_or_list(spark, catalog):
    case = {
        "ifThen": {
            "ifs": [{"if": call(1, field(0), i64(10)), "then": {"literal": {"string": "ten"}}}],
            "else": {"literal": {"string": "other"}},
        }
    }
    assert sorted(project_one(spark, catalog, case)) == ["other", "other", "ten"]
    in_list = {"singularOrList": {"value": field(0), "options": [i64(20), i64(40)]}}
    assert sorted(project_one(spark, catalog, in_list)) == [False, True, True]


def test_cast_return_null_is_a_try_cast(spark, catalog):
    bad = {"cast": {"type": typ("i64?"), "input": field(1), "failureBehavior": "FAILURE_BEHAVIOR_RETURN_NULL"}}
    assert project_one(spark, catalog, bad) == [None, None, None]


def test_cast_throw_exception_raises_on_text_that_is_no_value(spark, catalog):
    # The session's casts are legacy ones (ANSI off), which make 'ann' NULL; a plan that says THROW gets an error,
    # as DataFusion (which writes THROW for its casts) and DuckDB give for such SQL.
    def cast(behaviour: str, value=None) -> dict:
        return {
            "cast": {
                "type": typ("date?") if value else typ("i64?"),
                "input": value or field(1),
                "failureBehavior": f"FAILURE_BEHAVIOR_{behaviour}",
            }
        }

    assert project_one(spark, catalog, cast("UNSPECIFIED")) == [None, None, None]
    with pytest.raises(Exception, match="cannot cast 'ann' to i64"):
        project_one(spark, catalog, cast("THROW_EXCEPTION"))
    text = {"literal": {"string": "2024-02-29"}}
    assert project_one(spark, catalog, cast("THROW_EXCEPTION", text)) == [dt.date(2024, 2, 29)] * 3


def _analyzed(spark, catalog, expression: dict) -> str:
    from executor.translate.rel import translate

    doc = plan(emit({"project": {"input": CUS, "expressions": [expression]}}, [2]))
    return translate(model_of(doc), "0", spark, catalog).df._jdf.queryExecution().analyzed().toString()


def test_a_text_literal_cast_to_a_date_is_a_date_literal(spark, catalog):
    # isthmus writes every TPC-H date as cast('1994-01-01' as date) with THROW: folded, the plan has a
    # date where it had a cast and its failure check (fewer Py4J round trips, a smaller plan to analyse)
    def cast(text: str) -> dict:
        return {
            "cast": {
                "type": typ("date"),
                "input": {"literal": {"varChar": {"value": text, "length": 10}}},
                "failureBehavior": "FAILURE_BEHAVIOR_THROW_EXCEPTION",
            }
        }

    assert project_one(spark, catalog, cast("1994-01-01")) == [dt.date(1994, 1, 1)] * 3
    plan_text = _analyzed(spark, catalog, cast("1994-01-01"))
    assert "cast" not in plan_text.lower() and "raise_error" not in plan_text, plan_text
    # text in any other form is left to Spark's cast, and its failure check still holds
    assert project_one(spark, catalog, cast("1994-1-5")) == [dt.date(1994, 1, 5)] * 3
    # PySpark's conversion of a Python date failed before 1582 (IllegalArgumentException)
    assert project_one(spark, catalog, cast("0001-01-01")) == [dt.date(1, 1, 1)] * 3
    assert project_one(spark, catalog, {"literal": {"date": -719162}}) == [dt.date(1, 1, 1)] * 3
    with pytest.raises(Exception, match="cannot cast '1994-02-30' to date"):
        project_one(spark, catalog, cast("1994-02-30"))


def test_text_cast_to_string_and_char_literals_are_not_cast(spark, catalog):
    varchar = {
        "cast": {"type": typ("string"), "input": {"cast": {"type": {"varchar": {"length": 5}}, "input": field(1)}}}
    }
    assert sorted(project_one(spark, catalog, varchar)) == ["ann", "bob", "eve"]
    fixed = {"literal": {"fixedChar": "MAIL"}}
    assert project_one(spark, catalog, fixed) == ["MAIL"] * 3
    for expression in (varchar, fixed):
        text = _analyzed(spark, catalog, expression)
        assert "cast" not in text.lower(), text


LITERALS = [
    (
        {"decimal": {"value": "OTAAAAAAAAAAAAAAAAAAAA==", "precision": 5, "scale": 2}},
        Decimal("123.45"),
    ),  # 12345 little-endian
    ({"date": 19000}, dt.date(2022, 1, 8)),
    ({"precisionTimestamp": {"value": "1000000", "precision": 6}}, dt.datetime(1970, 1, 1, 0, 0, 1)),
    (
        {"intervalDayToSecond": {"days": 1, "seconds": 30, "precision": 6, "subseconds": "5"}},
        dt.timedelta(days=1, seconds=30, microseconds=5),
    ),
    ({"list": {"values": [{"i32": 1}, {"i32": 2}]}}, [1, 2]),
    ({"struct": {"fields": [{"i32": 1}, {"string": "x"}]}}, (1, "x")),
    ({"map": {"keyValues": [{"key": {"string": "k"}, "value": {"i32": 7}}]}}, {"k": 7}),
    ({"null": typ("string?")}, None),
    ({"fp64": 2.5}, 2.5),
    ({"boolean": True}, True),
]


@pytest.mark.parametrize("lit,expected", LITERALS, ids=[next(iter(l)) for l, _ in LITERALS])
def test_literals(spark, catalog, lit, expected):
    got = project_one(spark, catalog, {"literal": lit})[0]
    if isinstance(expected, tuple):
        got = tuple(got)
    assert got == expected


def test_nested_field_reference_into_a_struct(spark, catalog):
    struct = {"nested": {"struct": {"fields": [field(1), field(0)]}}}
    inner = {"project": {"input": CUS, "expressions": [struct]}}
    ref = {
        "selection": {
            "directReference": {"structField": {"field": 2, "child": {"structField": {"field": 0}}}},
            "rootReference": {},
        }
    }
    doc = plan(emit({"project": {"input": inner, "expressions": [ref]}}, [3]))
    assert sorted(r[0] for r in run(spark, catalog, doc)) == ["ann", "bob", "eve"]


# ---------------------------------------------------------------------------------------------
# Subqueries
# ---------------------------------------------------------------------------------------------


def test_correlated_scalar_subquery(spark, catalog):
    # per customer: the count of their orders (orders.o_cust = outer c_id)
    orders_of = {"filter": {"input": ORD, "condition": call(1, field(1), outer_field(0))}}
    counted = {"aggregate": {"input": orders_of, "groupings": [{}], "measures": [measure(5, field(0))]}}
    sub = {"subquery": {"scalar": {"input": counted}}}
    assert sorted(zip([c for c, _ in CUSTOMER_ROWS], project_one(spark, catalog, sub))) == [(10, 2), (20, 1), (40, 0)]


def test_exists_and_in_subqueries(spark, catalog):
    orders_of = {"filter": {"input": ORD, "condition": call(1, field(1), outer_field(0))}}
    exists = {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": orders_of}}}
    doc = plan({"filter": {"input": CUS, "condition": exists}})
    assert same(run(spark, catalog, doc), [A, B])
    haystack = emit({"project": {"input": ORD, "expressions": []}}, [1])
    in_pred = {"subquery": {"inPredicate": {"needles": [field(0)], "haystack": haystack}}}
    doc = plan({"filter": {"input": CUS, "condition": in_pred}})
    assert same(run(spark, catalog, doc), [A, B])


def test_set_comparison_any_all(spark, catalog):
    totals = emit({"project": {"input": ORD, "expressions": []}}, [0])  # o_id: 1..5
    gt_any = {
        "subquery": {
            "setComparison": {
                "reductionOp": "REDUCTION_OP_ANY",
                "comparisonOp": "COMPARISON_OP_GT",
                "left": i64(3),
                "right": totals,
            }
        }
    }
    gt_all = {
        "subquery": {
            "setComparison": {
                "reductionOp": "REDUCTION_OP_ALL",
                "comparisonOp": "COMPARISON_OP_GT",
                "left": i64(3),
                "right": totals,
            }
        }
    }
    assert project_one(spark, catalog, gt_any) == [True] * 3
    assert project_one(spark, catalog, gt_all) == [False] * 3


# ---------------------------------------------------------------------------------------------
# Refusals and gaps
# ---------------------------------------------------------------------------------------------


def test_write_is_refused(spark, catalog):
    from executor.errors import Refused

    doc = plan(
        {
            "write": {
                "namedTable": {"names": ["orders"]},
                "tableSchema": {"names": ["x"], "struct": {"types": [typ("i64")]}},
                "op": "WRITE_OP_INSERT",
                "input": vtable([1]),
            }
        }
    )
    with pytest.raises(Refused, match="never executed"):
        run(spark, catalog, doc)


def test_extension_relation_is_unsupported(spark, catalog):
    from executor.errors import Unsupported

    doc = plan({"extensionLeaf": {"detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}})
    with pytest.raises(Unsupported, match="extension relation"):
        run(spark, catalog, doc)


def test_unknown_table_names_the_table(spark, catalog):
    from executor.errors import TableNotFound

    with pytest.raises(TableNotFound, match="nowhere"):
        run(spark, catalog, plan(read("nowhere", CUSTOMERS)))


# ---------------------------------------------------------------------------------------------
# Static executability (no Spark)
# ---------------------------------------------------------------------------------------------


def test_executability():
    from executor.translate.executable import executability

    write = {
        "write": {
            "namedTable": {"names": ["orders"]},
            "tableSchema": {"names": ["x"], "struct": {"types": [typ("i64")]}},
            "op": "WRITE_OP_INSERT",
            "input": vtable([1]),
        }
    }
    unknown_fn = {"filter": {"input": CUS, "condition": call(99, field(0))}}
    doc = plan(join("INNER")["relations"][0]["rel"], write, unknown_fn)
    ex = executability(model_of(doc))
    assert ex["0"].ok and ex["0.0"].ok and ex["0.1"].ok
    assert not ex["1"].ok and ex["1"].refused and "never executed" in ex["1"].reason
    assert ex["1.0"].ok  # the virtual table below the write can run by itself
    assert not ex["2"].ok and "anchor 99" in ex["2"].reason
    lateral = {"extensionSingle": {"input": CUS}}
    ex = executability(model_of(plan(lateral)))
    assert not ex["0"].ok and "extension_single" in ex["0"].reason and ex["0.0"].ok


def test_an_error_names_the_node_it_happened_at(spark, catalog):
    from executor.errors import TableNotFound
    from executor.translate.rel import translate
    from viz.errors import PlanError

    missing = read("no_such_table", [("x", "i64")])
    doc = plan(
        {"filter": {"input": {"cross": {"left": ORD, "right": missing}}, "condition": {"literal": {"boolean": True}}}}
    )
    model = model_of(doc)
    with pytest.raises(TableNotFound) as info:
        translate(model, "0", spark, catalog)
    assert isinstance(info.value, PlanError) and info.value.node == "0.0.1"  # the read, not the filter asked for
    assert model.node(info.value.node).kind == "read"


# ---------------------------------------------------------------------------------------------
# The model's typed expressions are the ones the translation reads
# ---------------------------------------------------------------------------------------------


def test_the_translation_reads_the_types_the_model_derived(spark, monkeypatch):
    """Every expression a sample plan's translation needs a type for was typed by the schema pass;
    the translation reads it there and never types an expression again."""
    import os

    from executor.data.catalog import Catalog
    from executor.translate import expr
    from executor.translate.rel import translate
    from viz.model import analyze

    typed_again = []

    class NoTyping:
        def __init__(self, *args, **kwargs):
            typed_again.append(args)
            raise AssertionError("the translation typed an expression again")  # (caught: best effort)

    monkeypatch.setattr(expr, "ExpressionTyper", NoTyping)
    asked = []
    read_type = expr.ExprTranslator.type_of
    monkeypatch.setattr(expr.ExprTranslator, "type_of", lambda self, e: asked.append(e) or read_type(self, e))
    root = ROOT
    catalog = Catalog([os.path.join(root, "sample_data", "tutorial")], use_spark_catalog=False)
    for path in ("tutorial.json", "aggregates.json", "window.json", "subqueries.json"):
        with open(os.path.join(root, "sample_plans", path), "rb") as fh:
            model = analyze(fh.read())
        for node_id in model.roots:
            translate(model, node_id, spark, catalog)
    assert asked  # function calls asked for their arguments' types
    assert typed_again == []


def test_a_run_s_type_notes_say_columns_alike_once():
    """TPC-DS q64's root: six sums the plan declares decimal<38,2>? that Spark gives as decimal(17,2) were six
    notes of one sentence each; columns that differ alike are one note."""
    from google.protobuf.json_format import ParseDict
    from pyspark.sql import types as S
    from substrait.type_pb2 import Type

    from executor.translate.types import finer_time_notes, type_differences
    from viz.fields import Field
    from viz.types import type_json

    dec = ParseDict(type_json("decimal<38,2>?"), Type())
    nanos = Type(precision_timestamp=Type.PrecisionTimestamp(precision=9, nullability=Type.NULLABILITY_REQUIRED))
    fields = [
        Field("name", ParseDict(type_json("string"), Type())),
        Field("s1", dec),
        Field("s2", dec),
        Field("ts", nanos),
    ]
    schema = S.StructType(
        [
            S.StructField("name", S.StringType()),
            S.StructField("s1", S.DecimalType(17, 2)),
            S.StructField("s2", S.DecimalType(17, 2)),
            S.StructField("ts", S.TimestampNTZType()),
        ]
    )
    assert type_differences(fields, schema) == [
        "columns 1 (s1) and 2 (s2) are decimal<38,2>? in the plan, but Spark's result is decimal(17,2): the same "
        "values, where they have at most 17 digits",
    ]
    assert finer_time_notes(fields, schema) == [
        "column 3 (ts) is precision_timestamp<9> in the plan: Spark keeps microseconds; a finer part stops the run "
        "where a parquet, ORC or Arrow file holds one and is said on its node where the plan makes one",
    ]


def test_a_window_in_a_filter_and_a_drawn_value_in_an_aggregate(spark, tmp_path):
    """DataFusion keeps ``HAVING count(*) > avg(count(*)) OVER ()`` as a filter whose condition holds the window;
    Spark computes windows in a select only (it had raised WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE). Counts of g
    (by hand): 3, 3, 2, 1, their mean 2.25, so g 1 and 2 stay. ``count(DISTINCT uuid())`` as written aggregates
    a value drawn per row, which Spark refuses in one step: said as such; the optimized plan computes it in a
    step below and counts the 9 rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from executor.data.catalog import Catalog
    from executor.engines.sql_plan import sql_to_plan
    from executor.errors import Unsupported
    from executor.jobs.run import run_node
    from viz.model import analyze

    pq.write_table(pa.table({"g": pa.array([1, 1, 1, 2, 2, 2, 3, 3, 4], pa.int32())}), tmp_path / "aggs.parquet")
    tables = {"aggs": str(tmp_path / "aggs.parquet")}
    catalog = Catalog([str(tmp_path)])

    def rows(sql: str, form: str) -> list[tuple]:
        model = analyze(sql_to_plan(sql, tables, json=False, form=form).data)
        result = run_node(model, model.roots[0], catalog=catalog, explain=False)
        return sorted(map(tuple, result.rows.itertuples(index=False)))

    having = "SELECT g, count(*) AS c FROM aggs GROUP BY g HAVING count(*) > avg(count(*)) OVER ()"
    for form in ("written", "optimized"):
        assert rows(having, form) == [(1, 3), (2, 3)]
    drawn = "SELECT count(DISTINCT uuid()) AS c FROM aggs"
    assert rows(drawn, "optimized") == [(9,)]
    with pytest.raises(Unsupported, match=r"an aggregate over uuid\(\), a value drawn anew for each row"):
        rows(drawn, "written")


def test_times_of_day_run_as_datafusion_s_engine_takes_them(spark, tmp_path):
    """A time of day (parquet's time64, a plan's precision_time) runs on Spark's TIME: compared, grouped,
    joined, its parts, truncated, cast to and from text (DataFusion writes 3, 6 or 9 digits of a second and
    reads only two-digit parts), to its count of units and from a timestamp; each query's rows are DataFusion's
    own on the same file, in both of its forms. Adding an interval (DataFusion wraps past midnight, Spark
    stops) and parts a time has none of are refused with the reason; a nanosecond is shown, not cut."""
    import datafusion
    import pyarrow as pa
    import pyarrow.parquet as pq

    from executor.data.catalog import Catalog
    from executor.engines.rows import exact_values
    from executor.engines.sql_plan import sql_to_plan
    from executor.errors import Unsupported
    from executor.jobs.run import run_node
    from viz.model import analyze

    at = dt.time
    pq.write_table(
        pa.table(
            {
                "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
                "t": pa.array([at(1, 2, 3, 456789), None, at(23, 0), at(12, 0, 0, 400000), at(0, 0)], pa.time64("us")),
                "tn": pa.array([at(1, 2, 3), None, at(23, 0), at(12, 0), at(0, 0)], pa.time64("ns")),
                "ts": pa.array([1, 2, 3, 4, 86_399_999_999], pa.timestamp("us")),
            }
        ),
        tmp_path / "tt.parquet",
    )
    tables = {"tt": str(tmp_path / "tt.parquet")}
    ctx = datafusion.SessionContext()
    ctx.register_parquet("tt", tables["tt"])

    def rows(sql: str, form: str) -> list[tuple]:
        model = analyze(sql_to_plan(sql, tables, json=False, form=form).data)
        table = run_node(model, model.roots[0], catalog=Catalog([str(tmp_path)]), explain=False).arrow
        return list(zip(*[exact_values(c) for c in table.columns]))

    queries = [
        "SELECT id FROM tt WHERE t > '12:00:00' ORDER BY id",
        "SELECT t, count(*) AS c FROM tt GROUP BY t ORDER BY t",
        "SELECT id, CAST(t AS VARCHAR) AS s, CAST(tn AS VARCHAR) AS n FROM tt ORDER BY id",
        "SELECT id, date_part('hour', t) AS h, date_part('second', t) AS s, date_part('millisecond', t) AS ms, "
        "date_part('epoch', t) AS e FROM tt ORDER BY id",
        "SELECT id, date_trunc('minute', t) AS m, CAST(t AS BIGINT) AS us FROM tt ORDER BY id",
        "SELECT a.id, b.id AS other FROM tt a JOIN tt b ON a.t = b.t AND a.id <> b.id ORDER BY 1",
        "SELECT id, CAST(ts AS TIME) AS t FROM tt ORDER BY id",
        "SELECT min(t) AS lo, max(t) AS hi, count(DISTINCT t) AS n FROM tt",
        "SELECT TRY_CAST(x AS TIME) AS t "
        "FROM (VALUES ('7:5:3'), ('25:00:00'), ('12:00'), ('01:02:03.4'), ('1:02:03')) v(x)",
        "SELECT approx_distinct(t) AS n FROM tt",
    ]
    for sql in queries:
        expected = [tuple(r.values()) for r in ctx.sql(sql).to_pylist()]
        for form in ("written", "optimized"):
            assert rows(sql, form) == expected, (sql, form)
    # by hand, DataFusion's text of a time: 3 digits of a second for 0.4 s, 6 for 0.456789 s
    assert rows("SELECT CAST(t AS VARCHAR) FROM tt WHERE id IN (1, 4) ORDER BY id", "written") == [
        ("01:02:03.456789",),
        ("12:00:00.400",),
    ]
    # a nanosecond a Python time cannot hold is shown as text
    assert rows("SELECT CAST('23:00:00.000000001' AS TIME) AS t", "optimized") == [("23:00:00.000000001",)]
    # the table a page shows holds each time as its text: a time value's fraction was cut there (01:02:03)
    model = analyze(sql_to_plan("SELECT t FROM tt WHERE id IN (1, 3) ORDER BY t", tables, json=False).data)
    shown = run_node(model, model.roots[0], catalog=Catalog([str(tmp_path)]), explain=False).rows
    assert list(shown.iloc[:, 0]) == ["01:02:03.456789", "23:00:00"]
    for sql, reason in (
        ("SELECT t + INTERVAL '1 hour' FROM tt", "`add` of a time of day: the run compares"),
        ("SELECT date_part('dow', t) FROM tt", "date_part of 'dow' of a time of day: its parts are hour"),
        ("SELECT CAST(t AS TIMESTAMP) FROM tt", "a cast from precision_time to precision_timestamp"),
        ("SELECT tn - CAST(t AS TIME) FROM tt", "the interval between two times of day of nanoseconds"),
    ):
        with pytest.raises(Unsupported, match=reason):
            rows(sql, "written")


def test_text_with_a_zone_name_is_read_as_datafusion_reads_it(spark):
    """DataFusion's cast reads a timestamp's text ending in an IANA zone name (after a space or not) as that
    zone's instant, moved to UTC, and a date of it; the run had given null (a hunt found it). Names DataFusion
    does not read stay null: an offset after a name (``UTC+1``) and the three-letter names Java maps to a
    region (``PST``), which Spark's cast would have read. DataFusion's own rows are the oracle."""
    import datafusion

    from executor.data.catalog import Catalog
    from executor.engines.sql_plan import sql_to_plan
    from executor.jobs.run import run_node
    from viz.model import analyze

    texts = [
        "2020-06-15 12:00:00 UTC",
        "2020-06-15 23:00:00 Europe/Paris",
        "2020-06-15T12:00:00America/New_York",
        "2020-06-15 12:00:00 Etc/GMT-14",
        "2020-06-15 12:00:00 EST",
        "2020-06-15 12:00:00 UTC+1",
        "2020-06-15 12:00:00 PST",
        "2020-06-15 12:00:00 utc",
        "2024-03-10 02:30:00 US/Pacific",  # a local time the clocks skip
        "2024-11-03 01:30:00 America/New_York",  # one they pass twice
    ]
    values = ", ".join(f"({i}, '{t}')" for i, t in enumerate(texts))
    sql = f"SELECT i, try_cast(s AS TIMESTAMP) AS t, try_cast(s AS DATE) AS d FROM (VALUES {values}) v(i, s) ORDER BY i"
    expected = [tuple(r.values()) for r in datafusion.SessionContext().sql(sql).to_pylist()]
    assert [r[1] for r in expected][:2] == [dt.datetime(2020, 6, 15, 12), dt.datetime(2020, 6, 15, 21)]
    assert [r[1] for r in expected][5:] == [None] * 5
    for form in ("written", "optimized"):
        model = analyze(sql_to_plan(sql, {}, json=False, form=form).data)
        table = run_node(model, model.roots[0], catalog=Catalog(), explain=False).arrow
        assert list(zip(*[c.to_pylist() for c in table.columns])) == expected, form
