"""Writes the hand-made sample plans, ``manifest.json`` and the table in ``README.md``.

    .venv/bin/python sample_plans/make_plans.py

The plans are ordinary protobuf JSON (current proto: ``extensionUrns``, compound function names
such as ``equal:any_any``); this script only saves typing and keeps the manifest, the README and
the files in step. The copied plans (``tutorial.json`` and the TPC-H plans) are not written here, only listed.

Field indices are worked out by hand in the comments. The tutorial tables (``sample_data/tutorial``):

    orders    $0 product_id i64, $1 quantity i32, $2 order_date date, $3 price decimal<10,2>?
    products  $0 product_id i64, $1 categories list<string>, $2 details struct<manufacturer, year_created>?,
              $3 product_name string?

``products_short()`` reads products with emit [0, 3]: $0 product_id, $1 product_name.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the repository, for viz

from viz.types import type_json  # noqa: E402

Json = dict[str, Any]

# ---------------------------------------------------------------- types

typ = type_json  # "i64" required, "string?" nullable, "decimal<10,2>?"


ORDERS_SCHEMA = {
    "names": ["product_id", "quantity", "order_date", "price"],
    "struct": {
        "types": [typ("i64"), typ("i32"), typ("date"), typ("decimal<10,2>?")],
        "nullability": "NULLABILITY_REQUIRED",
    },
}

PRODUCTS_SCHEMA = {
    "names": ["product_id", "categories", "details", "manufacturer", "year_created", "product_name"],
    "struct": {
        "types": [
            typ("i64"),
            {"list": {"type": typ("string"), "nullability": "NULLABILITY_REQUIRED"}},
            {
                "struct": {
                    "types": [typ("string?"), typ("i32?")],
                    "nullability": "NULLABILITY_NULLABLE",
                }
            },
            typ("string?"),
        ],
        "nullability": "NULLABILITY_REQUIRED",
    },
}

# ---------------------------------------------------------------- functions

# compound name -> standard extension file
_EXTENSION_OF = {
    "equal:any_any": "functions_comparison",
    "lt:any_any": "functions_comparison",
    "gt:any_any": "functions_comparison",
    "gte:any_any": "functions_comparison",
    "and:bool": "functions_boolean",
    "sum:i32": "functions_arithmetic",
    "sum:i64": "functions_arithmetic",
    "max:dec": "functions_arithmetic_decimal",
    "count:": "functions_aggregate_generic",
    "row_number:": "functions_arithmetic",
}


class Functions:
    """The function anchors of one plan, handed out in order of first use."""

    def __init__(self) -> None:
        self.anchors: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        return self.anchors.setdefault(name, len(self.anchors) + 1)

    def declarations(self) -> tuple[list[Json], list[Json]]:
        stems = sorted({_EXTENSION_OF[n] for n in self.anchors})
        urns = [{"extensionUrnAnchor": i + 1, "urn": f"extension:io.substrait:{s}"} for i, s in enumerate(stems)]
        decls = [
            {
                "extensionFunction": {
                    "extensionUrnReference": stems.index(_EXTENSION_OF[n]) + 1,
                    "functionAnchor": a,
                    "name": n,
                }
            }
            for n, a in self.anchors.items()
        ]
        return urns, decls


# ---------------------------------------------------------------- expressions


def field(i: int) -> Json:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def outer(i: int, steps: int = 1) -> Json:
    """A field of the record ``steps`` subquery levels out."""
    return {"selection": {"directReference": {"structField": {"field": i}}, "outerReference": {"stepsOut": steps}}}


def key(i: int) -> Json:
    """A FieldReference (join keys, scatter fields)."""
    return {"directReference": {"structField": {"field": i}}, "rootReference": {}}


def date(text: str) -> Json:
    return {"literal": {"date": (dt.date.fromisoformat(text) - dt.date(1970, 1, 1)).days}}


def i32(v: int) -> Json:
    return {"literal": {"i32": v}}


def call(fn: Functions, name: str, *args: Json, out: str = "bool") -> Json:
    return {
        "scalarFunction": {
            "functionReference": fn(name),
            "arguments": [{"value": a} for a in args],
            "outputType": typ(out),
        }
    }


def agg(fn: Functions, name: str, *args: Json, out: str) -> Json:
    return {
        "functionReference": fn(name),
        "arguments": [{"value": a} for a in args],
        "outputType": typ(out),
        "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
        "invocation": "AGGREGATION_INVOCATION_ALL",
    }


def asc(i: int) -> Json:
    return {"expr": field(i), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}


def desc(i: int) -> Json:
    return {"expr": field(i), "direction": "SORT_DIRECTION_DESC_NULLS_LAST"}


# ---------------------------------------------------------------- relations


def with_emit(rel: Json, mapping: list[int]) -> Json:
    ((kind, body),) = rel.items()
    rest = {k: v for k, v in body.items() if k != "common"}
    return {kind: {"common": {"emit": {"outputMapping": mapping}}, **rest}}


def read(table: str, schema: Json) -> Json:
    return {"read": {"common": {"direct": {}}, "baseSchema": schema, "namedTable": {"names": [table]}}}


def orders() -> Json:
    return read("orders", ORDERS_SCHEMA)


def products() -> Json:
    return read("products", PRODUCTS_SCHEMA)


def products_short() -> Json:
    """products with emit [0, 3]: $0 product_id, $1 product_name."""
    return with_emit(products(), [0, 3])


def filter_(inp: Json, condition: Json) -> Json:
    return {"filter": {"input": inp, "condition": condition}}


def project(inp: Json, expressions: list[Json]) -> Json:
    return {"project": {"input": inp, "expressions": expressions}}


def join(left: Json, right: Json, type_: str, condition: Json) -> Json:
    return {"join": {"left": left, "right": right, "expression": condition, "type": f"JOIN_TYPE_{type_}"}}


def set_op(op: str, *inputs: Json) -> Json:
    return {"set": {"inputs": list(inputs), "op": f"SET_OP_{op}"}}


def aggregate(inp: Json, keys: list[Json], measures: list[Json]) -> Json:
    body: Json = {"input": inp, "measures": [{"measure": m} for m in measures]}
    if keys:
        body["groupingExpressions"] = keys
        body["groupings"] = [{"expressionReferences": list(range(len(keys)))}]
    else:
        body["groupings"] = [{}]
    return {"aggregate": body}


def sort(inp: Json, sorts: list[Json]) -> Json:
    return {"sort": {"input": inp, "sorts": sorts}}


def reference(ordinal: int) -> Json:
    return {"reference": {"subtreeOrdinal": ordinal}}


def root(rel: Json, names: list[str]) -> Json:
    return {"root": {"input": rel, "names": names}}


def plan(fn: Functions, relations: list[Json]) -> Json:
    urns, decls = fn.declarations()
    return {
        "version": {"minorNumber": 80, "producer": "substrait-viz sample_plans/make_plans.py"},
        "extensionUrns": urns,
        "extensions": decls,
        "relations": relations,
    }


def on_product_id(fn: Functions, left: int, right: int) -> Json:
    return call(fn, "equal:any_any", field(left), field(right))


# ---------------------------------------------------------------- the plans

ORDER_COLS = "o.product_id, o.quantity, o.order_date, o.price"
ORDER_NAMES = ["product_id", "quantity", "order_date", "price"]


def joins_outer() -> tuple[Json, list[str | None]]:
    """Inner, left, right, outer, left single and right single joins, one root each.

    Roots 0-4: orders (left, $0-$3) with products_short (right, $4 product_id, $5 product_name),
    on $0 = $4; output all six fields. Root 5 swaps the sides (products_short $0-$1 left,
    orders $2-$5 right, on $0 = $2) so that the single side (left, products) has a key.
    """
    fn = Functions()
    names = ["product_id", "quantity", "order_date", "price", "p_product_id", "product_name"]
    sql_cols = f"{ORDER_COLS}, p.product_id, p.product_name"
    rels, sql = [], []
    for type_, sql_join in (
        ("INNER", "JOIN"),
        ("LEFT", "LEFT JOIN"),
        ("RIGHT", "RIGHT JOIN"),
        ("OUTER", "FULL JOIN"),
        ("LEFT_SINGLE", "LEFT JOIN"),  # products.product_id is a key: at most one match
    ):
        rels.append(root(join(orders(), products_short(), type_, on_product_id(fn, 0, 4)), names))
        sql.append(f"SELECT {sql_cols} FROM orders o {sql_join} products p ON o.product_id = p.product_id")
    rels.append(
        root(
            join(products_short(), orders(), "RIGHT_SINGLE", on_product_id(fn, 0, 2)),
            ["p_product_id", "product_name"] + ORDER_NAMES,
        )
    )
    sql.append(
        f"SELECT p.product_id, p.product_name, {ORDER_COLS} "
        "FROM products p RIGHT JOIN orders o ON p.product_id = o.product_id"
    )
    return plan(fn, rels), sql


def joins_semi_anti_mark() -> tuple[Json, list[str | None]]:
    """Semi, anti and mark joins on both sides: orders (left, $0-$3) with products_short
    (right, $4-$5) on $0 = $4. Semi/anti output one side; mark joins add a nullable boolean."""
    fn = Functions()
    exists = "EXISTS (SELECT 1 FROM products p WHERE p.product_id = o.product_id)"
    p_exists = "EXISTS (SELECT 1 FROM orders o WHERE o.product_id = p.product_id)"
    cases = [
        ("LEFT_SEMI", ORDER_NAMES, f"SELECT {ORDER_COLS} FROM orders o WHERE {exists}"),
        ("LEFT_ANTI", ORDER_NAMES, f"SELECT {ORDER_COLS} FROM orders o WHERE NOT {exists}"),
        (
            "RIGHT_SEMI",
            ["product_id", "product_name"],
            f"SELECT p.product_id, p.product_name FROM products p WHERE {p_exists}",
        ),
        (
            "RIGHT_ANTI",
            ["product_id", "product_name"],
            f"SELECT p.product_id, p.product_name FROM products p WHERE NOT {p_exists}",
        ),
        (
            "LEFT_MARK",
            ORDER_NAMES + ["has_product"],
            f"SELECT {ORDER_COLS}, o.product_id IN (SELECT product_id FROM products) AS has_product FROM orders o",
        ),
        (
            "RIGHT_MARK",
            ["product_id", "product_name", "was_ordered"],
            (
                "SELECT p.product_id, p.product_name, p.product_id IN (SELECT product_id FROM orders) AS was_ordered "
                "FROM products p"
            ),
        ),
    ]
    rels = [root(join(orders(), products_short(), t, on_product_id(fn, 0, 4)), names) for t, names, _ in cases]
    return plan(fn, rels), [s for _, _, s in cases]


_MONTHS = {
    "january": ("2024-01-01", "2024-02-01"),
    "february": ("2024-02-01", "2024-03-01"),
    "march": ("2024-03-01", "2024-04-01"),
}


def _month(fn: Functions, month: str) -> Json:
    """product_id of the orders of one month: filter($2 >= start AND $2 < end), emit [0]."""
    start, end = _MONTHS[month]
    cond = call(
        fn, "and:bool", call(fn, "gte:any_any", field(2), date(start)), call(fn, "lt:any_any", field(2), date(end))
    )
    return with_emit(filter_(orders(), cond), [0])


def _month_sql(month: str) -> str:
    start, end = _MONTHS[month]
    return f"SELECT product_id FROM orders WHERE order_date >= DATE '{start}' AND order_date < DATE '{end}'"


def set_ops() -> tuple[Json, list[str | None]]:
    """Every SetRel op over four shared inputs (relations 0-3, each one column product_id),
    read through ReferenceRels by roots 4-11."""
    fn = Functions()
    jan, feb, mar = (_month_sql(m) for m in ("january", "february", "march"))
    prod = "SELECT product_id FROM products"
    shared = [{"rel": _month(fn, m)} for m in ("january", "february", "march")]
    shared.append({"rel": with_emit(products(), [0])})
    JAN, FEB, MAR, PROD = 0, 1, 2, 3
    cases = [
        ("UNION_ALL", (JAN, FEB, MAR), f"{jan} UNION ALL {feb} UNION ALL {mar}"),
        ("UNION_DISTINCT", (JAN, FEB, MAR), f"{jan} UNION {feb} UNION {mar}"),
        ("MINUS_PRIMARY", (JAN, FEB, MAR), f"{jan} EXCEPT {feb} EXCEPT {mar}"),
        ("MINUS_PRIMARY_ALL", (JAN, FEB), f"{jan} EXCEPT ALL {feb}"),
        ("MINUS_MULTISET", (PROD, FEB, MAR), f"{prod} EXCEPT ({feb} INTERSECT {mar})"),
        ("INTERSECTION_PRIMARY", (PROD, FEB, MAR), f"{prod} INTERSECT ({feb} UNION {mar})"),
        ("INTERSECTION_MULTISET", (JAN, FEB, MAR), f"{jan} INTERSECT {feb} INTERSECT {mar}"),
        ("INTERSECTION_MULTISET_ALL", (JAN, FEB), f"{jan} INTERSECT ALL {feb}"),
    ]
    roots = [root(set_op(op, *(reference(i) for i in ins)), ["product_id"]) for op, ins, _ in cases]
    return plan(fn, shared + roots), [None] * len(shared) + [s for _, _, s in cases]


def dag_two_roots() -> tuple[Json, list[str | None]]:
    """Relation 0 (shared, no root): per product, units and number of orders.
    aggregate(orders) by $0 product_id; sum($1 quantity), count() -> $0 product_id, $1 units, $2 n_orders.

    Root 1: join(ref 0 ($0-$2), products_short ($3 product_id, $4 product_name)) on $0 = $3,
    emit [4, 1, 2] -> product_name, units, n_orders; sorted by units DESC.
    Root 2: aggregate(ref 0) without keys: count(), sum($1 units), sum($2 n_orders).
    """
    fn = Functions()
    per_product = aggregate(
        orders(),
        [field(0)],
        [agg(fn, "sum:i32", field(1), out="i64?"), agg(fn, "count:", out="i64")],
    )
    joined = with_emit(join(reference(0), products_short(), "INNER", on_product_id(fn, 0, 3)), [4, 1, 2])
    top = sort(joined, [desc(1)])
    totals = aggregate(
        reference(0),
        [],
        [
            agg(fn, "count:", out="i64"),
            agg(fn, "sum:i64", field(1), out="i64?"),
            agg(fn, "sum:i64", field(2), out="i64?"),
        ],
    )
    per_product_sql = "SELECT product_id, sum(quantity) AS units, count(*) AS n_orders FROM orders GROUP BY product_id"
    sql = [
        None,
        (
            f"WITH s AS ({per_product_sql}) SELECT p.product_name, s.units, s.n_orders "
            "FROM s JOIN products p ON s.product_id = p.product_id ORDER BY s.units DESC"
        ),
        f"WITH s AS ({per_product_sql}) SELECT count(*), sum(units), sum(n_orders) FROM s",
    ]
    rels = [
        {"rel": per_product},
        root(top, ["product_name", "units", "n_orders"]),
        root(totals, ["products_ordered", "units", "n_orders"]),
    ]
    return plan(fn, rels), sql


def subqueries() -> tuple[Json, list[str | None]]:
    """Filter: IN (uncorrelated) and EXISTS (correlated); project: two scalar subqueries, one
    correlated. The outer record is products ($0 product_id ... $3 product_name).

    project output: products $0-$3, $4 n_orders, $5 max_price; emit [0, 3, 4, 5].
    """
    fn = Functions()
    feb_on = with_emit(filter_(orders(), call(fn, "gte:any_any", field(2), date("2024-02-01"))), [0])
    in_feb = {"subquery": {"inPredicate": {"needles": [field(0)], "haystack": feb_on}}}
    big_order = filter_(
        orders(),
        call(
            fn,
            "and:bool",
            call(fn, "equal:any_any", field(0), outer(0)),  # orders.product_id = products.product_id
            call(fn, "gte:any_any", field(1), i32(2)),  # quantity >= 2
        ),
    )
    exists = {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": big_order}}}
    n_orders = {
        "subquery": {
            "scalar": {
                "input": aggregate(
                    filter_(orders(), call(fn, "equal:any_any", field(0), outer(0))),
                    [],
                    [agg(fn, "count:", out="i64")],
                )
            }
        }
    }
    max_price = {
        "subquery": {"scalar": {"input": aggregate(orders(), [], [agg(fn, "max:dec", field(3), out="decimal<10,2>?")])}}
    }
    filtered = filter_(products(), call(fn, "and:bool", in_feb, exists))
    top = with_emit(project(filtered, [n_orders, max_price]), [0, 3, 4, 5])
    sql = (
        "SELECT p.product_id, p.product_name, "
        "(SELECT count(*) FROM orders o WHERE o.product_id = p.product_id) AS n_orders, "
        "(SELECT max(price) FROM orders) AS max_price "
        "FROM products p "
        "WHERE p.product_id IN (SELECT product_id FROM orders WHERE order_date >= DATE '2024-02-01') "
        "AND EXISTS (SELECT 1 FROM orders o WHERE o.product_id = p.product_id AND o.quantity >= 2)"
    )
    return plan(fn, [root(top, ["product_id", "product_name", "n_orders", "max_price"])]), [sql]


def _scatter(inp: Json, i: int) -> Json:
    return {"exchange": {"input": inp, "partitionCount": 4, "scatterByFields": {"fields": [key(i)]}}}


def _keys(left: int, right: int) -> list[Json]:
    """Join keys: left field ``left`` of the left input, right field ``right`` of the right input."""
    return [{"left": key(left), "right": key(right), "comparison": {"simple": "SIMPLE_COMPARISON_TYPE_EQ"}}]


def physical() -> tuple[Json, list[str | None]]:
    """Root 0: a hash join (build side right) of orders and products_short, both inputs
    hash-partitioned on product_id by an ExchangeRel into 4 partitions.
    Root 1: a left merge join of orders and products_short, both sorted on product_id.
    Keys index their own input: left $0 (orders.product_id) = right $0 (products.product_id).
    Output: orders $0-$3, products $4 product_id, $5 product_name.
    """
    fn = Functions()
    names = ["product_id", "quantity", "order_date", "price", "p_product_id", "product_name"]
    hash_join = {
        "hashJoin": {
            "left": _scatter(orders(), 0),
            "right": _scatter(products_short(), 0),
            "keys": _keys(0, 0),
            "type": "JOIN_TYPE_INNER",
            "buildInput": "BUILD_INPUT_RIGHT",
        }
    }
    merge_join = {
        "mergeJoin": {
            "left": sort(orders(), [asc(0)]),
            "right": sort(products_short(), [asc(0)]),
            "keys": _keys(0, 0),
            "type": "JOIN_TYPE_LEFT",
        }
    }
    cols = f"{ORDER_COLS}, p.product_id, p.product_name"
    sql = [
        f"SELECT {cols} FROM orders o JOIN products p ON o.product_id = p.product_id",
        f"SELECT {cols} FROM orders o LEFT JOIN products p ON o.product_id = p.product_id",
    ]
    return plan(fn, [root(hash_join, names), root(merge_join, names)]), sql


def window() -> tuple[Json, list[str | None]]:
    """A ConsistentPartitionWindowRel over orders (partition by $0 product_id, order by
    $2 order_date, $1 quantity) adding $4 row_number() and $5 a running sum($1 quantity);
    then a ProjectRel adding $6 sum($1 quantity) OVER (PARTITION BY $0), emit [0, 2, 1, 4, 5, 6]."""
    fn = Functions()
    running = {
        **agg(fn, "sum:i32", field(1), out="i64?"),
        "boundsType": "BOUNDS_TYPE_ROWS",
        "lowerBound": {"unbounded": {}},
        "upperBound": {"currentRow": {}},
    }
    numbered = {
        "window": {
            "input": orders(),
            "partitionExpressions": [field(0)],
            "sorts": [asc(2), asc(1)],
            "windowFunctions": [agg(fn, "row_number:", out="i64?"), running],
        }
    }
    product_qty = {
        "windowFunction": {
            **agg(fn, "sum:i32", field(1), out="i64?"),
            "partitions": [field(0)],
            "boundsType": "BOUNDS_TYPE_ROWS",
            "lowerBound": {"unbounded": {}},
            "upperBound": {"unbounded": {}},
        }
    }
    top = with_emit(project(numbered, [product_qty]), [0, 2, 1, 4, 5, 6])
    sql = (
        "SELECT product_id, order_date, quantity, "
        "row_number() OVER (PARTITION BY product_id ORDER BY order_date, quantity) AS order_no, "
        "sum(quantity) OVER (PARTITION BY product_id ORDER BY order_date, quantity "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_qty, "
        "sum(quantity) OVER (PARTITION BY product_id) AS product_qty "
        "FROM orders"
    )
    names = ["product_id", "order_date", "quantity", "order_no", "running_qty", "product_qty"]
    return plan(fn, [root(top, names)]), [sql]


def aggregates() -> tuple[Json, list[str | None]]:
    """Two grouping sets over orders: (product_id) and () - a ROLLUP. Output: $0 product_id
    (nullable: the () set has no product_id), $1 units = sum($1 quantity), $2 n_orders = count(),
    $3 the i32 grouping-set column (0 for the per-product rows, 1 for the grand total)."""
    fn = Functions()
    rollup = {
        "aggregate": {
            "input": orders(),
            "groupingExpressions": [field(0)],
            "groupings": [{"expressionReferences": [0]}, {}],
            "measures": [
                {"measure": agg(fn, "sum:i32", field(1), out="i64?")},
                {"measure": agg(fn, "count:", out="i64")},
            ],
        }
    }
    sql = (
        "SELECT product_id, sum(quantity) AS units, count(*) AS n_orders, GROUPING(product_id) AS grouping_set "
        "FROM orders GROUP BY ROLLUP (product_id)"
    )
    return plan(fn, [root(rollup, ["product_id", "units", "n_orders", "grouping_set"])]), [sql]


# The deliberate mistakes of errors.json, as (node id, diagnostic code); README lists them.
ERRORS = [
    ("0", "emit-out-of-range"),
    ("0", "unknown-function"),
    ("0.0", "field-out-of-range"),
    ("1", "type-mismatch"),
    ("2", "reference-out-of-range"),
]


def errors() -> tuple[Json, list[str | None]]:
    """Deliberate mistakes for the diagnostics view; the rest of the plan still derives.

    Root 0: join(orders $0-$3, products_short $4-$5) on $0 = $4 (fine), then
    filter on gt($7, 10): the join has 6 fields (0-5), so $7 is out of range;
    project adding $6 = function anchor 42 (never declared) of $3, emit [0, 5, 7]: 7 is out of range.
    Root 1: UNION ALL of orders emit [0] (1 column) and products_short (2 columns).
    Root 2: a ReferenceRel to relation 7; the plan has 3.
    """
    fn = Functions()
    joined = join(orders(), products_short(), "INNER", on_product_id(fn, 0, 4))
    bad_filter = filter_(joined, call(fn, "gt:any_any", field(7), i32(10)))
    unknown = {
        "scalarFunction": {"functionReference": 42, "arguments": [{"value": field(3)}], "outputType": typ("fp64?")}
    }
    top = with_emit(project(bad_filter, [unknown]), [0, 5, 7])
    union = set_op("UNION_ALL", with_emit(orders(), [0]), products_short())
    rels = [
        root(top, ["product_id", "product_name", "score"]),
        root(union, ["product_id"]),
        root(reference(7), ["anything"]),
    ]
    return plan(fn, rels), [None, None, None]


# ---------------------------------------------------------------- manifest

Entry = dict[str, Any]

# TPC-H queries 2 and 3 as consumer-testing runs them (testdata/integration/tpch/q02.sql, q03.sql).
TPCH_Q02 = (
    "SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment FROM part, "
    "supplier, partsupp, nation, region WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND "
    "p_size = 15 AND p_type LIKE '%BRASS' AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey"
    " AND r_name = 'EUROPE' AND ps_supplycost = ( SELECT min(ps_supplycost) FROM partsupp, supplier, "
    "nation, region WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND s_nationkey = "
    "n_nationkey AND n_regionkey = r_regionkey AND r_name = 'EUROPE') ORDER BY s_acctbal DESC, "
    "n_name, s_name, p_partkey LIMIT 100"
)
TPCH_Q03 = (
    "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, "
    "o_shippriority FROM customer, orders, lineitem WHERE c_mktsegment = 'BUILDING' AND c_custkey = "
    "o_custkey AND l_orderkey = o_orderkey AND o_orderdate < CAST('1995-03-15' AS date) AND "
    "l_shipdate > CAST('1995-03-15' AS date) GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER "
    "BY revenue DESC, o_orderdate LIMIT 10"
)

COPIED: dict[str, Entry] = {
    "tutorial.json": {
        "title": "The SQL-to-Substrait tutorial plan",
        "data": "tutorial",
        "sql": "SELECT p.product_name, p.product_id, sum(o.quantity * o.price) AS sales "
        "FROM orders o JOIN products p ON o.product_id = p.product_id "
        "WHERE list_position(p.categories, 'Computers') IS NULL "
        "GROUP BY p.product_name, p.product_id",
        "about": "the plan built step by step in the Substrait SQL-to-Substrait tutorial: read, filter, join, "
        "aggregate with emit (copied from substrait-io/substrait, Apache-2.0)",
    },
    "tpch_q02_isthmus.json": {
        "title": "TPC-H query 2 (isthmus)",
        "data": "tpch",
        "sql": TPCH_Q02,
        "about": "TPC-H query 2 from isthmus (Calcite): cross products, a correlated scalar subquery, sort + fetch "
        "(copied from substrait-io/consumer-testing, Apache-2.0)",
    },
    "tpch_q03_duckdb.json": {
        "title": "TPC-H query 3 (DuckDB)",
        "data": "tpch",
        "sql": TPCH_Q03,
        "about": "TPC-H query 3 from DuckDB: joins, an aggregate, Top-N; its ProjectRels follow DuckDB's "
        "expressions-only convention (copied from substrait-io/consumer-testing, Apache-2.0)",
    },
    "tpch_q03_isthmus.json": {
        "title": "TPC-H query 3 (isthmus)",
        "data": "tpch",
        "sql": TPCH_Q03,
        "about": "TPC-H query 3 from isthmus (Calcite): cross products under one filter, a project before the "
        "aggregate; pairs with the DataFusion and DuckDB plans of the same query on the Compare page "
        "(copied from substrait-io/consumer-testing, Apache-2.0)",
    },
    "tpch_q03_datafusion.json": {
        "title": "TPC-H query 3 (DataFusion)",
        "data": "tpch",
        "sql": TPCH_Q03,
        "about": "TPC-H query 3 from DataFusion 55's producer (unoptimized logical plan): inner joins without "
        "conditions under one filter, sums with no output type (made by tests/data/datafusion_tpch/make_plans.py)",
    },
}

MADE = {
    "joins_outer.json": (
        joins_outer,
        "Inner, outer and single joins",
        "tutorial",
        "six roots: JoinRel inner, left, right, outer, left single and right single (outer sides become nullable)",
    ),
    "joins_semi_anti_mark.json": (
        joins_semi_anti_mark,
        "Semi, anti and mark joins",
        "tutorial",
        (
            "six roots: JoinRel left/right semi, left/right anti (one side's columns) "
            "and left/right mark (plus a nullable boolean)"
        ),
    ),
    "set_ops.json": (
        set_ops,
        "Every set operation",
        "tutorial",
        (
            "eight roots, one per SetRel op, over four shared inputs (product ids by order month, all products) "
            "read through ReferenceRels"
        ),
    ),
    "dag_two_roots.json": (
        dag_two_roots,
        "A shared subtree used by two roots",
        "tutorial",
        (
            "relation 0 (units per product) is drawn once and read by two roots through ReferenceRels: "
            "a top list and totals"
        ),
    ),
    "subqueries.json": (
        subqueries,
        "Subqueries",
        "tutorial",
        (
            "IN and correlated EXISTS in a filter, an uncorrelated and a correlated scalar subquery in a project "
            "(outer references)"
        ),
    ),
    "physical.json": (
        physical,
        "Physical relations",
        "tutorial",
        "a HashJoinRel over two hash-partitioning ExchangeRels, and a MergeJoinRel over two sorted inputs",
    ),
    "window.json": (
        window,
        "Window functions",
        "tutorial",
        "a ConsistentPartitionWindowRel (row_number, running sum) and a window function inside a ProjectRel",
    ),
    "aggregates.json": (
        aggregates,
        "Grouping sets",
        "tutorial",
        (
            "an AggregateRel with two grouping sets (a ROLLUP): keys missing from a set become nullable, "
            "plus the grouping-set column"
        ),
    ),
    "errors.json": (
        errors,
        "Deliberate errors",
        None,
        "mistakes for the diagnostics view: "
        + ", ".join(f"`{code}` on node {node}" for node, code in ERRORS)
        + "; everything else still derives",
    ),
}


def _sql_entry(per_relation: list[str | None], doc: Json) -> str | list[str | None] | None:
    """One string for a plan with one RelRoot, else one entry per RelRoot in plan order."""
    per_root = [s for s, r in zip(per_relation, doc["relations"]) if "root" in r]
    if not any(per_root):
        return None
    return per_root[0] if len(per_root) == 1 else per_root


def main() -> None:
    manifest: dict[str, Entry] = dict(COPIED)
    for filename, (build, title, data, about) in MADE.items():
        doc, sql = build()
        with open(os.path.join(HERE, filename), "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        manifest[filename] = {"title": title, "data": data, "sql": _sql_entry(sql, doc), "about": about}
    with open(os.path.join(HERE, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=2)
        fh.write("\n")
    _write_readme(manifest)


README_HEAD = """# Sample plans

A curated set of plans to open in the app or with `python -m viz inspect sample_plans/FILE.json`.
`manifest.json` says, for each file, its title, which data it runs on (`tutorial`: the tutorial's
`orders` and `products` in `../sample_data/tutorial`; `tpch`: TPC-H generated on first use by
`executor.data.generate.tpch()`; `null`: not meant to run), the equivalent SQL over those tables (in DuckDB's
dialect: the tests run it in DuckDB as the oracle for the executor's rows), and one line about it. `sql` is a string \
for a plan with one root, a list with one entry per root (in plan
order) when it has several (`null` for a root with none).

Note the name clash: the tutorial's `orders` (product_id, quantity, order_date, price) is not
TPC-H's `orders`; bind the data the manifest names.

| file | title | data | what it shows |
|---|---|---|---|
"""

README_TAIL = """
`tutorial.json`, `tpch_q02_isthmus.json` and `tpch_q03_duckdb.json` are copied unchanged from
`../shared/corpora` (Apache-2.0). The others are written by `make_plans.py` (run
`.venv/bin/python sample_plans/make_plans.py` after changing it); their field indices are worked out
by hand in its comments. `tests/model/test_sample_plans.py` checks that every plan derives with no error
(except the deliberate ones of `errors.json`), that root names fit, and that DuckDB running each
plan's SQL gives as many columns as the root (and, with Spark, the same rows as the executor).

`tpch_q03_isthmus.json` is also copied unchanged from `../shared/corpora`; `tpch_q03_datafusion.json` is
`tests/data/datafusion_tpch/q03.json`, written by DataFusion's own producer (see `make_plans.py` there).
The three TPC-H query 3 plans are the Compare page's sample pairs.

## The deliberate errors in `errors.json`

| node | code | the mistake |
|---|---|---|
| `0` | `emit-out-of-range` | the project's emit asks for field 7; the project has 7 fields (0-6) |
| `0` | `unknown-function` | the project calls function anchor 42, which the plan never declares |
| `0.0` | `field-out-of-range` | the filter compares field 7; the join below has 6 fields (0-5) |
| `1` | `type-mismatch` | a UNION ALL of a 1-column and a 2-column input |
| `2` | `reference-out-of-range` | a ReferenceRel to relation 7; the plan has 3 relations (0-2) |
"""


def _write_readme(manifest: dict[str, Entry]) -> None:
    rows = [f"| `{name}` | {e['title']} | {e['data'] or '-'} | {e['about']} |" for name, e in manifest.items()]
    with open(os.path.join(HERE, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(README_HEAD + "\n".join(rows) + "\n" + README_TAIL)


if __name__ == "__main__":
    main()
