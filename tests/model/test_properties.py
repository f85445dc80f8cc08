"""Orderedness and distribution through the plan (viz.properties), per the spec's "Property Maintenance" rows.

Every expected orderedness and distribution below is worked out by hand from the spec's row for the
relation and from the emit mapping; the TPC-H sort keys were read off the queries' SQL by hand.
"""

from __future__ import annotations

import collections
import copy
import json
import os

import pytest

from tests.support import CORPORA, corpus_plans
from tests.support import plans as P
from tests.support.plans import CUSTOMERS, ORDERS, call, emit, field, i64, measure, model_of, plan, read, typ
from viz.__main__ import main
from viz.errors import PlanLoadError
from viz.load import load_path
from viz.model import PlanModel, analyze_loaded
from viz.properties import EFFECTS

ASC_F, ASC_L = "SORT_DIRECTION_ASC_NULLS_FIRST", "SORT_DIRECTION_ASC_NULLS_LAST"
DESC_F, DESC_L = "SORT_DIRECTION_DESC_NULLS_FIRST", "SORT_DIRECTION_DESC_NULLS_LAST"
FINDINGS = {"sort-eliminated", "fetch-without-order", "merge-join-unordered-input", "root-order-unknown"}


# ---------------------------------------------------------------------------------------------
# Builders and accessors
# ---------------------------------------------------------------------------------------------


def orders() -> dict:
    return read("orders", ORDERS)  # o_id i64, o_cust i64?, o_total decimal<10,2>?


def customers() -> dict:
    return read("customers", CUSTOMERS)  # c_id i64, c_name string


def sort(rel: dict, *keys: tuple) -> dict:
    return {
        "sort": {
            "input": rel,
            "sorts": [{"expr": field(i) if isinstance(i, int) else i, "direction": d} for i, d in keys],
        }
    }


def filter_(rel: dict) -> dict:
    return {"filter": {"input": rel, "condition": call(2, field(0), i64(0))}}


def fetch(rel: dict, count: int | None = 5) -> dict:
    body: dict = {"input": rel}
    if count is not None:
        body["countExpr"] = i64(count)
    return {"fetch": body}


def project(rel: dict, *expressions: dict) -> dict:
    return {"project": {"input": rel, "expressions": list(expressions)}}


def fref(i: int) -> dict:
    return {"directReference": {"structField": {"field": i}}, "rootReference": {}}


def exchange(rel: dict, count: int | None = None, **kind: dict) -> dict:
    body = {"input": rel, **kind}
    if count is not None:
        body["partitionCount"] = count
    return {"exchange": body}


def scatter(rel: dict, *fields: int, count: int | None = None) -> dict:
    return exchange(rel, count, scatterByFields={"fields": [fref(i) for i in fields]})


def aggregate(rel: dict, keys: list[int], sets: list[list[int]], *measures: dict) -> dict:
    return {
        "aggregate": {
            "input": rel,
            "groupingExpressions": [field(i) for i in keys],
            "groupings": [{"expressionReferences": s} for s in sets],
            "measures": list(measures),
        }
    }


def join(kind: str, left: dict, right: dict, type_: str = "JOIN_TYPE_INNER", **extra) -> dict:
    return {kind: {"left": left, "right": right, "type": type_, **extra}}


def keys(*pairs: tuple[int, int]) -> list[dict]:
    return [
        {"left": fref(l), "right": fref(r), "comparison": {"simple": "SIMPLE_COMPARISON_TYPE_EQ"}} for l, r in pairs
    ]


WINDOW_ROW_NUMBER = {"functionReference": 6, "outputType": typ("i64"), "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT"}


def m_of(rel: dict, *more: dict | tuple) -> PlanModel:
    return model_of(plan(rel, *more))


def order(m: PlanModel, node: str = "0") -> list[tuple] | None:
    """The node's orderedness as the JSON gives it: [(index, name, direction)], [] or None."""
    o = m.node(node).to_json()["properties"]["orderedness"]
    return None if o is None else [(k["index"], k["name"], k["direction"]) for k in o]


def dist(m: PlanModel, node: str = "0") -> dict | None:
    return m.node(node).to_json()["properties"]["distribution"]


def effects(m: PlanModel, node: str = "0") -> tuple[str, str]:
    e = m.node(node).to_json()["properties"]["effects"]
    return e["orderedness"], e["distribution"]


def findings(m: PlanModel, node: str | None = None) -> list[tuple[str, str | None]]:
    """(code, node) of the property findings (all nodes, or one)."""
    out = []
    for d in m.all_diagnostics():
        if d.code in FINDINGS and (node is None or d.node == node):
            out.append((d.code, d.node))
    return out


def messages(m: PlanModel, code: str) -> list[str]:
    return [d.message for d in m.all_diagnostics() if d.code == code]


def hashed(*fields: tuple[int, str], count: int | None = None) -> dict:
    return {"kind": "hashed", "partition_count": count, "fields": [{"index": i, "name": n} for i, n in fields]}


# ---------------------------------------------------------------------------------------------
# Read, Sort, Top-N, Fetch, Filter
# ---------------------------------------------------------------------------------------------


def test_read_is_unordered_and_its_distribution_unknown():
    # The proto has no ReadRel.output_properties: "defaults to no properties".
    m = m_of(orders())
    assert order(m) == [] and dist(m) is None
    assert effects(m) == ("none", "none")
    assert "Output Properties" in m.properties["0"].order_effect.rule


def test_sort_establishes_its_keys_and_keeps_the_distribution():
    m = m_of(scatter(sort(orders(), (2, DESC_F), (0, ASC_L)), 1))
    assert order(m, "0.0") == [(2, "o_total", "DESC NULLS FIRST"), (0, "o_id", "ASC NULLS LAST")]
    assert effects(m, "0.0") == ("established", "kept")
    assert m.properties["0.0"].order_effect.rule.startswith("Sort: Will update orderedness property")
    m = m_of(sort(scatter(orders(), 1), (0, ASC_L)))
    assert dist(m) == hashed((1, "o_cust")) and effects(m) == ("established", "kept")


def test_sort_emit_remaps_keys_and_a_dropped_key_stays_hidden():
    # emit [2, 0]: o_total -> 0, o_id -> 1.
    m = m_of(emit(sort(orders(), (2, DESC_F), (0, ASC_L)), [2, 0]))
    assert order(m) == [(0, "o_total", "DESC NULLS FIRST"), (1, "o_id", "ASC NULLS LAST")]
    # emit [2, 1] drops o_id: rows of one o_total are still in o_id's order, which no field shows
    m = m_of(emit(sort(orders(), (2, DESC_F), (0, ASC_L)), [2, 1]))
    assert order(m) == [(0, "o_total", "DESC NULLS FIRST"), (None, "o_id (not output)", "ASC NULLS LAST")]
    assert "drops an ordered field (o_id): the rows are still in its order" in m.properties["0"].order_effect.note
    # emit [2, 1] of a sort by o_id, o_cust, o_total: the key after the hidden one orders the rows it ties
    m = m_of(emit(sort(orders(), (0, ASC_L), (1, ASC_L), (2, DESC_F)), [2, 1]))
    assert order(m) == [
        (None, "o_id (not output)", "ASC NULLS LAST"),
        (1, "o_cust", "ASC NULLS LAST"),
        (0, "o_total", "DESC NULLS FIRST"),
    ]
    # emit [1, 2] drops the first key: the rows are still in o_id's order, which no output field holds
    # (not "no order": a fetch above takes the first rows of that order, deterministically).
    m = m_of(emit(sort(orders(), (0, ASC_L), (2, DESC_F)), [1, 2]))
    assert order(m) == [(None, "o_id (not output)", "ASC NULLS LAST"), (1, "o_total", "DESC NULLS FIRST")]
    assert m.properties["0"].order_text() == "o_id ASC NULLS LAST (not output), $1:o_total DESC NULLS FIRST"
    assert "the rows are still in its order" in m.properties["0"].order_effect.note
    assert findings(m) == []  # hidden by an emit, not eliminated: the rows are still in that order
    m = m_of(fetch(emit(sort(orders(), (0, ASC_L), (2, DESC_F)), [1, 2])))
    assert order(m) == [(None, "o_id (not output)", "ASC NULLS LAST"), (1, "o_total", "DESC NULLS FIRST")]
    assert findings(m) == []  # no "fetch-without-order": the rows it takes are the first of o_id's order
    m = m_of(fetch(project(filter_(sort(orders(), (0, ASC_L))), field(1)), count=3))
    assert findings(m) == [] and order(m) == [(0, "o_id", "ASC NULLS LAST")]
    m = m_of(fetch(emit(project(filter_(sort(orders(), (0, ASC_L))), field(1)), [3]), count=3))
    assert findings(m) == [] and order(m) == [(None, "o_id (not output)", "ASC NULLS LAST")]


def test_an_expression_key_is_read_as_the_schema_pass_typed_it(monkeypatch):
    """The properties pass does not type an expression again: it reads the node's typed expressions."""
    from viz import expressions

    typed = expressions.ExpressionTyper.expr
    passes = []

    def expr(self, e, scope):
        passes.append(self)
        return typed(self, e, scope)

    monkeypatch.setattr(expressions.ExpressionTyper, "expr", expr)
    key = call(3, field(0), field(1), out="i64?")
    m = m_of(sort(orders(), (key, ASC_F)))
    assert m.infos["0"].typed_expression(m.node("0").node.body.sorts[0].expr).text.startswith("add(")
    [(index, name, _)] = order(m)
    assert index is None and name.startswith("add(")
    assert len(passes) == 3  # add($0, $1) and its two fields, typed once: by the schema pass


def test_sort_on_an_expression_keeps_its_text_and_no_index():
    key = call(3, field(0), field(1), out="i64?")
    m = m_of(filter_(sort(orders(), (key, ASC_F))))
    [(index, name, direction)] = order(m)
    assert index is None and name.startswith("add(") and "o_id" in name and direction == "ASC NULLS FIRST"
    # A filter whose emit keeps every field where it was keeps the expression key...
    assert order(m_of(emit(filter_(sort(orders(), (key, ASC_F))), [0, 1, 2]))) == order(m)
    # ...one that moves fields hides it (the expression reads fields by index): the rows keep its order.
    [(index, name, _)] = order(m_of(emit(filter_(sort(orders(), (key, ASC_F))), [1, 0, 2])))
    assert index is None and name.startswith("add(") and name.endswith(" (not output)")


def test_filter_keeps_and_emit_remaps():
    m = m_of(filter_(sort(orders(), (0, ASC_L))))
    assert order(m) == [(0, "o_id", "ASC NULLS LAST")] and effects(m) == ("kept", "kept")
    m = m_of(emit(filter_(scatter(sort(orders(), (0, ASC_L)), 0)), [2, 0]))
    assert order(m) == [(1, "o_id", "ASC NULLS LAST")]
    assert dist(m) == hashed((1, "o_id"))
    assert effects(m) == ("remapped", "remapped")
    assert "remapped by emit" in m.properties["0"].order_effect.rule


def test_fetch_over_sort_is_a_top_n_and_fetch_keeps_order():
    m = m_of(fetch(sort(orders(), (1, DESC_L))))
    assert order(m) == [(1, "o_cust", "DESC NULLS LAST")]
    assert effects(m) == ("kept", "kept")  # "Fetch: Maintains distribution and orderedness"; the sort set it
    assert "Top-N" in m.properties["0"].order_effect.note
    m = m_of(fetch(filter_(sort(orders(), (1, DESC_L)))))
    assert order(m) == [(1, "o_cust", "DESC NULLS LAST")] and effects(m) == ("kept", "kept")
    assert findings(m) == []


def test_fetch_over_unordered_input_is_a_finding():
    m = m_of(fetch(filter_(orders())))
    assert findings(m) == [("fetch-without-order", "0")]
    assert "0.0 (filter)" in messages(m, "fetch-without-order")[0]
    # No finding when the fetch takes no rows away, or takes from the one row of a global aggregate.
    assert findings(m_of(fetch(orders(), count=None))) == []
    assert findings(m_of(fetch(aggregate(orders(), [], [], measure(5, field(0)))))) == []
    # Input of unknown order (an extension) is not known to be unordered.
    assert findings(m_of(fetch({"extensionSingle": {"input": orders()}}))) == []


def test_top_n_establishes_and_its_emit_remaps():
    top = {"topN": {"input": orders(), "sorts": [{"expr": field(1), "direction": DESC_F}], "count": i64(3)}}
    m = m_of(emit(top, [1, 0]))
    assert order(m) == [(0, "o_cust", "DESC NULLS FIRST")]
    assert effects(m) == ("established", "kept")
    # A Top-N without sort fields over unordered input is a fetch of arbitrary rows.
    m = m_of({"topN": {"input": orders(), "count": i64(3)}})
    assert findings(m) == [("fetch-without-order", "0")]


# ---------------------------------------------------------------------------------------------
# Project: kept, extended by direct references, remapped, eliminated by window functions
# ---------------------------------------------------------------------------------------------


def test_project_extends_the_order_to_a_copied_field():
    # Spec reading: o_id, o_cust, o_total, $3 = copy of o_id, $4 = copy of o_cust (not ordered).
    m = m_of(project(sort(orders(), (0, ASC_L)), field(0), field(1)))
    assert effects(m) == ("extended", "kept")
    (key,) = m.properties["0"].orderedness
    assert key.indices == (0, 3)  # both columns hold the sort key
    assert order(m) == [(0, "o_id", "ASC NULLS LAST")]
    assert "$0=$3:o_id" in m.properties["0"].order_text()


def test_extension_lets_the_order_survive_an_emit_that_drops_the_original():
    # emit [3, 2]: the copy of o_id becomes field 0; the original o_id is dropped.
    m = m_of(emit(project(sort(orders(), (0, ASC_L), (2, DESC_F)), field(0)), [3, 2]))
    assert order(m) == [(0, "o_id", "ASC NULLS LAST"), (1, "o_total", "DESC NULLS FIRST")]
    assert effects(m)[0] == "extended"
    # The same emit without the copy: the rows are in o_id's order, which no output field holds.
    m = m_of(emit(project(sort(orders(), (0, ASC_L), (2, DESC_F)), call(3, field(0), field(1), out="i64?")), [3, 2]))
    assert order(m) == [(None, "o_id (not output)", "ASC NULLS LAST"), (1, "o_total", "DESC NULLS FIRST")]
    assert effects(m)[0] == "remapped"
    assert findings(m) == []  # hidden, not eliminated


def test_project_keeps_order_with_computed_columns():
    m = m_of(project(sort(orders(), (2, ASC_L)), call(3, field(0), field(1), out="i64?")))
    assert order(m) == [(2, "o_total", "ASC NULLS LAST")] and effects(m) == ("kept", "kept")


def test_project_with_a_window_function_eliminates_order():
    m = m_of(project(scatter(sort(orders(), (0, ASC_L)), 1), {"windowFunction": WINDOW_ROW_NUMBER}))
    assert order(m) == [] and effects(m) == ("eliminated", "kept")
    assert dist(m) == hashed((1, "o_cust"))  # distribution is maintained
    assert findings(m) == [("sort-eliminated", "0.0.0")]
    assert "node 0 (project)" in messages(m, "sort-eliminated")[0]
    # A window function nested inside another expression counts too.
    nested = {"cast": {"type": typ("i64?"), "input": {"windowFunction": WINDOW_ROW_NUMBER}}}
    assert order(m_of(project(sort(orders(), (0, ASC_L)), nested))) == []


def test_project_follows_the_expressions_only_convention_the_model_picked():
    # Two root names for [o_total, o_id]: only the "project outputs its expressions" reading fits,
    # so o_id (the sort key) is field 1, not field 0 as the spec reading would have it.
    m = model_of(plan((project(sort(orders(), (0, ASC_L)), field(2), field(0)), ["total", "id"])))
    assert m.conventions.project_keeps_input is False
    assert order(m) == [(1, "id", "ASC NULLS LAST")]
    assert effects(m)[0] == "remapped"


# ---------------------------------------------------------------------------------------------
# Aggregate
# ---------------------------------------------------------------------------------------------


def test_aggregate_eliminates_the_order_of_a_sort_below_it():
    m = m_of(aggregate(sort(orders(), (0, ASC_L)), [1], [[0]], measure(5, field(0))))
    assert order(m) == [] and effects(m)[0] == "eliminated"
    assert findings(m) == [("sort-eliminated", "0.0")]
    assert "node 0 (aggregate)" in messages(m, "sort-eliminated")[0]
    assert "No orderedness guaranteed" in messages(m, "sort-eliminated")[0]


def test_aggregate_keeps_a_hash_distribution_on_a_grouping_key():
    # Hashed on o_cust, grouped by o_cust: output [o_cust, count] is hashed on field 0.
    m = m_of(aggregate(scatter(orders(), 1), [1], [[0]], measure(5, field(0))))
    # no order below to lose: "kept" (none), as the graph shows no badge for it
    assert dist(m) == hashed((0, "o_cust")) and effects(m) == ("kept", "remapped")
    # Grouped by o_id only: the hash field is not a grouping key.
    m = m_of(aggregate(scatter(orders(), 1), [0], [[0]], measure(5, field(0))))
    assert dist(m) is None and effects(m)[1] == "eliminated"


def test_aggregate_distribution_needs_the_field_in_every_grouping_set():
    # Grouping expressions [o_cust, o_id]; sets {o_cust, o_id} and {o_cust}: o_cust is in both.
    m = m_of(aggregate(scatter(orders(), 1), [1, 0], [[0, 1], [0]], measure(5, field(0))))
    assert dist(m) == hashed((0, "o_cust"))
    # Sets {o_cust, o_id} and {o_id}: o_cust is missing from one set.
    m = m_of(aggregate(scatter(orders(), 1), [1, 0], [[0, 1], [1]], measure(5, field(0))))
    assert dist(m) is None
    # A broadcast has no distribution fields: it is maintained.
    m = m_of(aggregate(exchange(orders(), broadcast={}), [0], [[0]]))
    assert dist(m)["kind"] == "broadcast"


def test_aggregate_grouping_expressions_that_are_equal_share_one_column():
    """ "Two grouping expressions will be returned using the same column if the protobuf messages
    describing the expressions are equal": [o_cust, o_cust, o_id] is two columns, o_cust and o_id."""
    m = m_of(aggregate(scatter(orders(), 0), [1, 1, 0], [[0, 1, 2]], measure(5, field(0))))
    assert [f["name"] for f in m.node("0").schema_json()][:2] == ["o_cust", "o_id"]
    assert dist(m) == hashed((1, "o_id"))
    # [o_id, o_id, o_cust] in sets {0} and {1, 2}: o_id (expressions 0 and 1 alike) is in both sets
    m = m_of(aggregate(scatter(orders(), 0), [0, 0, 1], [[0], [1, 2]], measure(5, field(0))))
    assert dist(m) == hashed((0, "o_id"))


def test_aggregate_over_rows_dealt_round_robin_loses_it_and_says_why():
    m = m_of(aggregate(exchange(orders(), roundRobin={}), [0], [[0]]))
    assert dist(m) is None and effects(m)[1] == "eliminated"
    assert "not dealt by value" in m.properties["0"].distribution_effect.note


# ---------------------------------------------------------------------------------------------
# Joins
# ---------------------------------------------------------------------------------------------


def test_join_and_cross_eliminate_order_and_keep_the_left_distribution():
    on = {"expression": call(1, field(1), field(3))}
    for kind, extra in (("join", on), ("cross", {})):
        body = join(kind, scatter(sort(orders(), (0, ASC_L)), 1), scatter(customers(), 0), **extra)
        if kind == "cross":
            del body["cross"]["type"]
        m = m_of(body)
        assert order(m) == [] and effects(m) == ("eliminated", "kept"), kind
        assert dist(m) == hashed((1, "o_cust")), kind
        assert findings(m) == [("sort-eliminated", "0.0.0")], kind


def test_join_distribution_by_join_type_and_emit():
    on = {"expression": call(1, field(1), field(3))}
    left, right = scatter(orders(), 1), scatter(customers(), 0)
    assert dist(m_of(join("join", left, right, "JOIN_TYPE_RIGHT_SEMI", **on))) == hashed((0, "c_id"))
    assert dist(m_of(join("join", left, right, "JOIN_TYPE_LEFT_ANTI", **on))) == hashed((1, "o_cust"))
    # A broadcast left side: each output row is where its right row is (right fields start at 3).
    m = m_of(join("join", exchange(orders(), broadcast={}), right, **on))
    assert dist(m) == hashed((3, "c_id"))
    # emit [3, 1] keeps o_cust at 1; emit [0, 3] drops it, so the distribution is unknown.
    assert dist(m_of(emit(join("join", left, right, **on), [3, 1]))) == hashed((1, "o_cust"))
    m = m_of(emit(join("join", left, right, **on), [0, 3]))
    assert dist(m) is None and effects(m)[1] == "eliminated"


def test_join_keeps_the_distribution_of_an_input_that_places_every_output_row():
    """Worked by hand: an output row is made where the join met its rows. An input whose rows are each in
    one partition, and which the join never pads with nulls, places every output row by its own row."""
    on = {"expression": call(1, field(1), field(3))}
    unknown, hashed_c = orders(), scatter(customers(), 0)
    # inner, the left's distribution unknown: each output row is where its right row is (fields from 3)
    m = m_of(join("join", unknown, hashed_c, **on))
    assert dist(m) == hashed((3, "c_id")) and effects(m)[1] == "kept"
    # left outer: the unmatched left rows, padded on the right, are wherever the left rows are
    m = m_of(join("join", unknown, hashed_c, "JOIN_TYPE_LEFT", **on))
    assert dist(m) is None and effects(m)[1] == "eliminated"
    assert "pads with nulls" in m.properties["0"].distribution_effect.note
    assert dist(m_of(join("join", scatter(orders(), 1), hashed_c, "JOIN_TYPE_LEFT", **on))) == hashed((1, "o_cust"))
    assert dist(m_of(join("join", scatter(orders(), 1), hashed_c, "JOIN_TYPE_RIGHT", **on))) == hashed((3, "c_id"))
    assert dist(m_of(join("join", scatter(orders(), 1), hashed_c, "JOIN_TYPE_OUTER", **on))) is None
    # a broadcast input's rows are in every partition: with the other side unknown, so is the output
    broadcast = exchange(orders(), broadcast={})
    m = m_of(join("join", broadcast, customers(), **on))
    assert dist(m) is None and effects(m)[1] == "eliminated"
    # a semi join of a broadcast left keeps the left rows matched in each partition: not a broadcast
    assert dist(m_of(join("join", broadcast, hashed_c, "JOIN_TYPE_LEFT_SEMI", **on))) is None
    # both broadcast: every partition computes the whole join
    both = m_of(join("join", broadcast, exchange(customers(), broadcast={}), **on))
    assert dist(both) == {"kind": "broadcast", "partition_count": None}


def test_lateral_join_is_read_like_join():
    m = m_of(join("lateralJoin", sort(orders(), (0, ASC_L)), customers(), expression=call(1, field(1), field(3))))
    assert order(m) == [] and effects(m)[0] == "eliminated"
    assert "no row in the spec" in m.properties["0"].order_effect.note


def test_hash_join_keeps_the_probe_side_order_for_inner_joins():
    left = scatter(sort(orders(), (2, DESC_F)), 1)
    m = m_of(join("hashJoin", left, customers(), keys=keys((1, 0))))
    assert order(m) == [(2, "o_total", "DESC NULLS FIRST")] and effects(m) == ("kept", "kept")
    assert dist(m) == hashed((1, "o_cust"))
    m = m_of(emit(join("hashJoin", left, customers(), keys=keys((1, 0))), [4, 2]))
    assert order(m) == [(1, "o_total", "DESC NULLS FIRST")] and effects(m)[0] == "remapped"


def test_hash_join_eliminates_order_for_other_join_types_and_on_the_build_side():
    m = m_of(join("hashJoin", sort(orders(), (2, DESC_F)), customers(), "JOIN_TYPE_LEFT", keys=keys((1, 0))))
    assert order(m) == [] and effects(m)[0] == "eliminated"
    assert findings(m) == [("sort-eliminated", "0.0")]
    # INNER, but the sort is on the build (right) side.
    m = m_of(join("hashJoin", orders(), sort(customers(), (1, ASC_L)), keys=keys((1, 0))))
    assert order(m) == []
    assert findings(m) == [("sort-eliminated", "0.1")]
    assert "node 0 (hash_join)" in messages(m, "sort-eliminated")[0]


def test_hash_join_with_the_left_side_as_build_keeps_the_right_order():
    m = m_of(
        join("hashJoin", orders(), sort(customers(), (1, ASC_L)), keys=keys((1, 0)), buildInput="BUILD_INPUT_LEFT")
    )
    assert order(m) == [(4, "c_name", "ASC NULLS LAST")]  # right fields start after 3 left fields


def test_merge_join_eliminates_order_and_checks_its_inputs_are_sorted_on_the_keys():
    left, right = sort(orders(), (1, ASC_L)), sort(customers(), (0, ASC_L))
    m = m_of(join("mergeJoin", left, right, keys=keys((1, 0))))
    assert order(m) == [] and effects(m)[0] == "eliminated"
    assert findings(m) == []  # the sorts feed the merge join: not wasted
    m = m_of(join("mergeJoin", orders(), right, keys=keys((1, 0))))
    assert findings(m) == [("merge-join-unordered-input", "0")]
    assert "left input 0.0" in messages(m, "merge-join-unordered-input")[0]
    m = m_of(join("mergeJoin", left, sort(customers(), (1, ASC_L)), keys=keys((1, 0))))
    assert findings(m) == [("merge-join-unordered-input", "0")]
    assert "right input 0.1" in messages(m, "merge-join-unordered-input")[0]
    # Two keys, sorted on both in the other order: still sorted on the key set.
    m = m_of(
        join(
            "mergeJoin",
            sort(orders(), (1, ASC_L), (0, ASC_L)),
            sort(customers(), (0, ASC_L), (1, ASC_L)),
            keys=keys((0, 1), (1, 0)),
        )
    )
    assert findings(m) == []
    # Sorted on only the first of two keys: not enough.
    m = m_of(
        join(
            "mergeJoin",
            sort(orders(), (1, ASC_L)),
            sort(customers(), (0, ASC_L), (1, ASC_L)),
            keys=keys((1, 0), (0, 1)),
        )
    )
    assert findings(m) == [("merge-join-unordered-input", "0")]


def test_nested_loop_join_eliminates_order():
    m = m_of(
        join(
            "nestedLoopJoin",
            scatter(sort(orders(), (0, ASC_L)), 0),
            customers(),
            expression=call(1, field(1), field(3)),
        )
    )
    assert order(m) == [] and effects(m) == ("eliminated", "kept")
    assert dist(m) == hashed((0, "o_id"))


# ---------------------------------------------------------------------------------------------
# Set, Reference, Window, Exchange, Expand, Write/DDL, extensions
# ---------------------------------------------------------------------------------------------


def test_set_keeps_only_a_distribution_all_inputs_share():
    same = {"set": {"inputs": [scatter(sort(orders(), (0, ASC_L)), 0), scatter(orders(), 0)], "op": "SET_OP_UNION_ALL"}}
    m = m_of(same)
    assert order(m) == [] and dist(m) == hashed((0, "o_id")) and effects(m) == ("eliminated", "kept")
    assert findings(m) == [("sort-eliminated", "0.0.0")]
    different = {"set": {"inputs": [scatter(orders(), 0), scatter(orders(), 1)], "op": "SET_OP_UNION_ALL"}}
    m = m_of(different)
    assert dist(m) is None and effects(m) == ("kept", "eliminated")  # neither input had an order


def test_reference_has_the_properties_of_the_referenced_subtree():
    shared = scatter(sort(orders(), (1, DESC_L)), 0)
    m = m_of(shared, emit(filter_({"reference": {"subtreeOrdinal": 0}}), [1, 0]))
    assert order(m, "1.0") == [(1, "o_cust", "DESC NULLS LAST")] and dist(m, "1.0") == hashed((0, "o_id"))
    assert effects(m, "1.0") == ("kept", "kept")
    assert order(m, "1") == [(0, "o_cust", "DESC NULLS LAST")] and dist(m, "1") == hashed((1, "o_id"))


def test_consistent_partition_window_maintains_order_and_distribution():
    window = {
        "window": {
            "input": scatter(sort(orders(), (0, ASC_L)), 1),
            "windowFunctions": [WINDOW_ROW_NUMBER],
            "partitionExpressions": [field(1)],
        }
    }
    m = m_of(window)
    assert order(m) == [(0, "o_id", "ASC NULLS LAST")] and dist(m) == hashed((1, "o_cust"))
    assert effects(m) == ("kept", "kept")
    m = m_of(emit(window, [3, 1, 0]))
    assert order(m) == [(2, "o_id", "ASC NULLS LAST")] and dist(m) == hashed((1, "o_cust"))


def test_exchange_keeps_order_and_overwrites_distribution():
    m = m_of(scatter(scatter(sort(orders(), (0, ASC_L)), 1), 0, 2, count=4))
    assert order(m) == [(0, "o_id", "ASC NULLS LAST")]
    assert dist(m) == hashed((0, "o_id"), (2, "o_total"), count=4)
    assert effects(m) == ("kept", "overwritten")
    m = m_of(exchange(orders(), singleTarget={"expression": field(0)}))
    assert dist(m) == {"kind": "bucketed", "partition_count": None, "expression": "$0:o_id", "multi": False}
    m = m_of(exchange(orders(), 8, multiTarget={"expression": field(0)}))
    assert dist(m)["multi"] is True and dist(m)["partition_count"] == 8
    assert dist(m_of(exchange(orders(), broadcast={}))) == {"kind": "broadcast", "partition_count": None}
    assert dist(m_of(exchange(orders(), roundRobin={"exact": True}))) == {
        "kind": "round_robin",
        "partition_count": None,
        "exact": True,
    }
    assert dist(m_of(exchange(orders(), 1, roundRobin={}))) == {"kind": "single", "partition_count": 1}


def test_exchange_emit_dropping_a_hash_field_makes_the_distribution_unknown():
    m = m_of(emit(scatter(orders(), 1), [0, 2]))
    assert dist(m) is None and effects(m)[1] == "overwritten"
    m = m_of(emit(filter_(scatter(orders(), 1)), [0, 2]))
    assert dist(m) is None and effects(m)[1] == "eliminated"
    m = m_of(emit(filter_(scatter(orders(), 1)), [1]))
    assert dist(m) == hashed((0, "o_cust"))


def test_expand_keeps_order_down_to_consistent_direct_fields():
    fields = [{"consistentField": field(0)}, {"switchingField": {"duplicates": [field(1), field(1)]}}]
    m = m_of({"expand": {"input": scatter(sort(orders(), (0, ASC_L), (1, DESC_L)), 0), "fields": fields}})
    assert order(m) == [(0, "o_id", "ASC NULLS LAST")]  # o_cust is only a switching field
    assert effects(m) == ("remapped", "kept")
    assert m.properties["0"].order_effect.note == "it does not output an ordered field: the order ends before it"
    assert dist(m) == hashed((0, "o_id"))
    m = m_of({"expand": {"input": scatter(orders(), 1), "fields": fields}})
    assert dist(m) is None and effects(m)[1] == "eliminated"


def write_of(output: str) -> dict:
    """An insert of sorted orders into t, outputting ``output`` (an OutputMode's name)."""
    return {
        "write": {
            "namedTable": {"names": ["t"]},
            "tableSchema": read("t", ORDERS)["read"]["baseSchema"],
            "op": "WRITE_OP_INSERT",
            "input": sort(orders(), (0, ASC_L)),
            "output": output,
        }
    }


def test_write_and_ddl_output_no_properties():
    m = m_of(write_of("OUTPUT_MODE_NO_OUTPUT"))
    assert order(m) == [] and dist(m) is None and effects(m) == ("none", "none")
    assert findings(m) == []
    ddl = {
        "ddl": {
            "namedObject": {"names": ["t"]},
            "object": "DDL_OBJECT_TABLE",
            "op": "DDL_OP_CREATE",
            "tableSchema": read("t", ORDERS)["read"]["baseSchema"],
        }
    }
    assert effects(m_of(ddl)) == ("none", "none")


def test_a_write_that_outputs_its_modified_records_has_unknown_properties():
    """ "Output depends on OutputMode (none, or modified records)": the spec says no more of the modified
    records, so their order and distribution are unknown, not "none"."""
    m = m_of(write_of("OUTPUT_MODE_MODIFIED_RECORDS"))
    assert order(m) is None and dist(m) is None and effects(m) == ("unknown", "unknown")
    assert "modified" in m.properties["0"].order_effect.note


def test_an_enhancement_makes_the_properties_unknown():
    """An enhancement "alter[s] semantics. Cannot be ignored by a consumer": a filter with one is not known
    to keep its input's order and distribution."""
    body = filter_(scatter(sort(orders(), (0, ASC_L)), 1))
    body["filter"]["advancedExtension"] = {"enhancement": {"@type": "type.googleapis.com/google.protobuf.Empty"}}
    m = m_of(body)
    assert order(m) is None and dist(m) is None and effects(m) == ("unknown", "unknown")
    assert "enhancement" in m.properties["0"].order_effect.rule


def test_set_inputs_dealt_round_robin_exactly_and_not_are_not_the_same_distribution():
    inputs = [exchange(orders(), roundRobin={"exact": True}), exchange(orders(), roundRobin={})]
    m = m_of({"set": {"inputs": inputs, "op": "SET_OP_UNION_ALL"}})
    assert dist(m) is None and effects(m)[1] == "eliminated"


def test_an_emit_over_a_bucket_exchange_says_the_bucket_expression_cannot_follow():
    m = m_of(emit(exchange(orders(), multiTarget={"expression": field(0)}), [1, 0, 2]))
    assert dist(m) is None
    assert "bucket expression" in m.properties["0"].distribution_effect.note


def test_extension_relations_are_unknown_and_a_sorted_plan_with_an_unknown_root_is_a_finding():
    m = m_of({"extensionSingle": {"input": sort(orders(), (0, ASC_L))}})
    assert order(m) is None and dist(m) is None and effects(m) == ("unknown", "unknown")
    assert findings(m) == [("root-order-unknown", "0")]
    assert "0.0" in messages(m, "root-order-unknown")[0]
    # Without a sort in the plan, an unknown root order is nothing to report.
    assert findings(m_of({"extensionSingle": {"input": orders()}})) == []
    assert order(m_of({"extensionLeaf": {}})) is None


def test_sort_over_sort_replaces_the_first_order():
    m = m_of(sort(sort(orders(), (0, ASC_L)), (1, ASC_L)))
    assert order(m) == [(1, "o_cust", "ASC NULLS LAST")]
    assert findings(m) == [("sort-eliminated", "0.0")]
    assert "replaced by a new sort" in messages(m, "sort-eliminated")[0]


def test_every_effect_is_one_of_the_documented_words_and_json_has_the_issue_shape():
    m = m_of(fetch(project(sort(orders(), (0, ASC_L)), field(0))))
    for node in m.nodes():
        props = node.to_json()["properties"]
        assert set(props) == {"orderedness", "distribution", "effects"}
        assert set(props["effects"]) == {"orderedness", "distribution"}
        assert set(props["effects"].values()) <= set(EFFECTS)
        for key in props["orderedness"] or []:
            assert set(key) == {"index", "name", "direction"}
    json.dumps(m.to_json())


def test_deep_plans_derive_properties_without_recursion():
    rel = sort(orders(), (2, DESC_F))
    for _ in range(3000):
        rel = filter_(rel)
    m = m_of(fetch(rel))
    assert order(m) == [(2, "o_total", "DESC NULLS FIRST")]
    assert len(m.properties) == 3003


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------

Q01 = os.path.join(CORPORA, "isthmus-tpch", "query_01_plan.json")


def test_inspect_text_shows_order_distribution_and_effects(capsys):
    assert main(["inspect", Q01]) == 0
    out = capsys.readouterr().out
    assert "order: $0:L_RETURNFLAG ASC NULLS LAST, $1:L_LINESTATUS ASC NULLS LAST (established)" in out
    assert "distribution: unknown (kept)" in out
    assert "spec: Aggregate: No orderedness guaranteed." in out


def test_inspect_counts_a_plan_of_one_node_in_the_singular(tmp_path, capsys):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(P.plan(P.read("t", [("a", "i64")]))))
    assert main(["inspect", str(one)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"== {one} (json, 1 node)"


def test_inspect_says_a_finding_made_at_two_places_of_a_node_once_with_its_number(capsys):
    """isthmus' q01 writes L_EXTENDEDPRICE × (1 − L_DISCOUNT) twice in one project (for sum_disc_price and
    sum_charge): its type warning was printed twice, alike."""
    assert main(["inspect", Q01]) == 0
    lines = [
        x
        for x in capsys.readouterr().out.splitlines()
        if "multiply(L_EXTENDEDPRICE, subtract(1, L_DISCOUNT)) declares" in x
    ]
    assert len(lines) == 1 and lines[0].endswith("(2x)"), lines


def test_a_stray_argument_is_said_with_its_command_s_usage(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["render", Q01, Q01])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "usage: python -m viz render" in err and "python -m viz render: error: unrecognized arguments" in err


def test_inspect_json_has_properties_per_node(capsys):
    assert main(["inspect", "--json", Q01]) == 0
    doc = json.loads(capsys.readouterr().out)
    root = doc["nodes"][0]
    assert root["properties"] == {
        "orderedness": [
            {"index": 0, "name": "L_RETURNFLAG", "direction": "ASC NULLS LAST"},
            {"index": 1, "name": "L_LINESTATUS", "direction": "ASC NULLS LAST"},
        ],
        "distribution": None,
        "effects": {"orderedness": "established", "distribution": "kept"},
    }
    assert all("properties" in n for n in doc["nodes"])


# ---------------------------------------------------------------------------------------------
# TPC-H in the corpora
# ---------------------------------------------------------------------------------------------

# The ORDER BY keys of each TPC-H query, read by hand from the SQL in
# consumer-testing/testdata/integration/tpch/qNN.sql (the isthmus-tpch plans are the standard TPC-H
# queries, whose ORDER BY clauses are the same). Names are the output column names (aliases where the
# query sorts on an alias); None: the query has no ORDER BY.
TPCH_ORDER_BY: dict[int, list[tuple[str, str]] | None] = {
    1: [("l_returnflag", "ASC"), ("l_linestatus", "ASC")],
    2: [("s_acctbal", "DESC"), ("n_name", "ASC"), ("s_name", "ASC"), ("p_partkey", "ASC")],
    3: [("revenue", "DESC"), ("o_orderdate", "ASC")],
    4: [("o_orderpriority", "ASC")],
    5: [("revenue", "DESC")],
    6: None,
    7: [("supp_nation", "ASC"), ("cust_nation", "ASC"), ("l_year", "ASC")],
    8: [("o_year", "ASC")],
    9: [("nation", "ASC"), ("o_year", "DESC")],
    10: [("revenue", "DESC")],
    11: [("value", "DESC")],
    12: [("l_shipmode", "ASC")],
    13: [("custdist", "DESC"), ("c_count", "DESC")],
    14: None,
    15: [("s_suppkey", "ASC")],
    16: [("supplier_cnt", "DESC"), ("p_brand", "ASC"), ("p_type", "ASC"), ("p_size", "ASC")],
    17: None,
    18: [("o_totalprice", "DESC"), ("o_orderdate", "ASC")],
    19: None,
    20: [("s_name", "ASC")],
    21: [("numwait", "DESC"), ("s_name", "ASC")],
    22: [("cntrycode", "ASC")],
}
TPCH_DIR = os.path.join(CORPORA, "consumer-testing", "snapshots", "producer", "integration", "tpch")


def _tpch_plans() -> list[tuple[int, str]]:
    """(query, path): the isthmus-tpch plans (query 15 is an empty plan) and the consumer-testing
    isthmus, validate-isthmus and DuckDB ones. The corpora hold no DataFusion TPC-H plans."""
    out = [(q, os.path.join(CORPORA, "isthmus-tpch", f"query_{q:02d}_plan.json")) for q in TPCH_ORDER_BY if q != 15]
    for name in sorted(os.listdir(TPCH_DIR)):
        out.append((int(name[1:3]), os.path.join(TPCH_DIR, name)))
    return out


@pytest.mark.parametrize(
    "query,path", _tpch_plans(), ids=lambda v: os.path.basename(v) if isinstance(v, str) else str(v)
)
def test_tpch_order_by_queries_end_ordered_on_their_sort_keys(query, path):
    m = analyze_loaded(load_path(path))
    (root,) = m.roots
    names = [n.lower() for n in m.graph.root_names[root]]
    got = order(m, root)
    expected = TPCH_ORDER_BY[query]
    if expected is None:
        assert got == [] and not any(n.kind in ("sort", "top_n") for n in m.graph.nodes.values())
    else:
        assert [(name.lower(), direction.split()[0]) for _, name, direction in got] == expected
        assert [names[index] for index, _, _ in got] == [k for k, _ in expected]  # the index points at it
    assert findings(m) == []  # every sort reaches the root; no fetch over unordered rows


def test_tpch_sorts_under_an_aggregate_are_shown_eliminated():
    # No TPC-H plan in the corpora aggregates over a sort (every Sort sits at the root or under the
    # LIMIT's Fetch). So take each real plan with an ORDER BY and put a SELECT DISTINCT on its first
    # column over it: the sort must then be reported as eliminated by that aggregate.
    checked = 0
    for query, path in _tpch_plans():
        if TPCH_ORDER_BY[query] is None:
            continue
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        root = doc["relations"][0]["root"]
        root["input"] = {
            "aggregate": {
                "input": root["input"],
                "groupingExpressions": [field(0)],
                "groupings": [{"expressionReferences": [0]}],
            }
        }
        root["names"] = root["names"][:1]
        m = model_of(copy.deepcopy(doc))
        sorts = [n for n, node in m.graph.nodes.items() if node.kind == "sort"]
        assert order(m) == [] and effects(m)[0] == "eliminated", path
        assert set(findings(m)) == {("sort-eliminated", s) for s in sorts}, path
        assert all("node 0 (aggregate)" in msg for msg in messages(m, "sort-eliminated")), path
        checked += 1
    assert checked == 17 + 46  # isthmus-tpch ORDER BY queries + the 57 consumer-testing plans less 11 without


# ---------------------------------------------------------------------------------------------
# Every corpus plan
# ---------------------------------------------------------------------------------------------


def test_every_corpus_plan_derives_properties(corpora_dir, capsys):
    plans = corpus_plans()
    assert len(plans) >= 600
    effects_seen: collections.Counter = collections.Counter()
    found: collections.Counter = collections.Counter()
    for path in plans:
        try:
            m = analyze_loaded(load_path(path))
        except PlanLoadError:
            continue
        assert set(m.properties) == set(m.graph.nodes), path
        for node in m.nodes():
            props = node.to_json()["properties"]
            effects_seen[(node.kind, props["effects"]["orderedness"])] += 1
        for code, _ in findings(m):
            found[code] += 1
        json.dumps(m.to_json())
    with capsys.disabled():
        print(f"\nproperties over {len(plans)} corpus plans: findings {dict(found)}")
        print("  (kind, orderedness effect): " + ", ".join(f"{k}={v}" for k, v in sorted(effects_seen.items())))
    # Every LIMIT without ORDER BY in the function tests is a fetch over unordered rows; nothing else fires.
    assert set(found) == {"fetch-without-order"}


def test_contains_rex_finds_kinds_in_expressions_but_not_inside_subquery_relations():
    from google.protobuf import json_format
    from substrait import algebra_pb2

    from viz.expressions import contains_rex

    window_in_sub = {"subquery": {"scalar": {"input": {"project": {"expressions": [{"windowFunction": {}}]}}}}}
    e = json_format.ParseDict({"scalarFunction": {"arguments": [{"value": window_in_sub}]}}, algebra_pb2.Expression())
    assert contains_rex(e, frozenset({"subquery"}))
    assert not contains_rex(e, frozenset({"window_function"}))  # only inside the subquery's relation
    plain = json_format.ParseDict(
        {"scalarFunction": {"arguments": [{"value": {"windowFunction": {}}}]}}, algebra_pb2.Expression()
    )
    assert contains_rex(plain, frozenset({"window_function"}))


def test_a_rule_is_cited_as_the_spec_s_words_or_said_as_this_tool_s():
    from viz.properties.spec import Spec, cited

    assert cited(Spec.FILTER) == "The spec, Filter: “Orderedness, Distribution, remapped by emit”"
    assert cited(Spec.FETCH) == "The spec, Fetch: “Maintains distribution and orderedness.”"
    # where the spec has no row, the tool's own words are not put in its mouth
    assert cited(Spec.UPDATE) == Spec.UPDATE and cited(Spec.UNSUPPORTED).startswith("This relation kind")
    # "(remapped by emit)", this tool's addition, stays outside the spec's quotation marks
    assert cited(f"{Spec.PROJECT_DIST} ({Spec.EMIT})") == (
        "The spec, Project: “Distribution maintained, mapped by emit.” (remapped by emit)"
    )


def test_a_hidden_order_stays_hidden_through_later_nodes_without_a_second_note():
    m = m_of(filter_(project(emit(sort(orders(), (0, ASC_L)), [1, 2]), field(0))))
    assert order(m) == [(None, "o_id (not output)", "ASC NULLS LAST")]
    assert [m.properties[n].order_effect.note for n in ("0", "0.0")] == ["", ""]
    assert "first ordered field" in m.properties["0.0.0"].order_effect.note
