"""A filter's or join's key line spreads nested ``and`` / ``or`` out (``and(and(a, b), c)`` is shown
``and(a, b, c)``, the same condition), while the expression's own text stays as the plan writes it."""

from __future__ import annotations

from tests.support.plans import FUNCTIONS, call, field, i64, model_of, plan, read

ORDERS = [("o_id", "i64"), ("o_cust", "i64"), ("o_total", "i64")]
BOOLEAN = {**FUNCTIONS, 11: ("and:bool", "functions_boolean"), 12: ("or:bool", "functions_boolean")}


def _filter(condition: dict):
    return model_of(
        plan(
            ({"filter": {"input": read("orders", ORDERS), "condition": condition}}, ["a", "b", "c"]), functions=BOOLEAN
        )
    )


def test_nested_ands_are_one_list_of_conditions_on_the_graph():
    a, b, c = (call(1, field(i), i64(i)) for i in range(3))
    model = _filter(call(11, call(11, a, b), c))
    detail = model.node("0").info.detail
    assert detail == "and(equal($0:o_id, 0), equal($1:o_cust, 1), equal($2:o_total, 2))"
    [(_, text)] = model.node("0").info.expressions
    assert text.startswith("and(and(equal($0:o_id, 0), equal($1:o_cust, 1)), ")  # the plan's own shape


def test_only_the_same_function_is_spread():
    a, b, c, d = (call(2, field(i % 3), i64(i)) for i in range(4))
    model = _filter(call(11, call(12, a, b), call(11, c, d)))
    assert model.node("0").info.detail == (
        "and(or(gt($0:o_id, 0), gt($1:o_cust, 1)), gt($2:o_total, 2), gt($0:o_id, 3))"
    )
