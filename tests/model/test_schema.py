"""Schemas of hand-made plans, one relation kind at a time.

Each expectation was worked out by hand from the "Direct Output Order" rows of
../shared/spec/logical_relations.txt and physical_relations.txt, then the emit mapping.
"""

from __future__ import annotations

import base64

import pytest

from tests.support.plans import (
    CUSTOMERS,
    FUNCTIONS,
    ORDERS,
    call,
    codes,
    emit,
    field,
    i64,
    measure,
    model_of,
    outer_field,
    plan,
    read,
    schema_of,
    typ,
)

O = read("orders", ORDERS)
C = read("customers", CUSTOMERS)
O_SCHEMA = [("o_id", "i64"), ("o_cust", "i64?"), ("o_total", "decimal<10,2>?")]
C_SCHEMA = [("c_id", "i64"), ("c_name", "string")]


def test_read_filter_fetch_sort_keep_input_order():
    rel = {
        "fetch": {
            "input": {
                "sort": {
                    "input": {"filter": {"input": O, "condition": call(2, field(2), i64(10))}},
                    "sorts": [{"expr": field(0), "direction": "SORT_DIRECTION_DESC_NULLS_LAST"}],
                }
            },
            "countExpr": i64(5),
        }
    }
    m = model_of(plan(rel))
    for node in ("0", "0.0", "0.0.0", "0.0.0.0"):
        assert schema_of(m, node) == O_SCHEMA, node
    assert m.node("0.0.0").info.expressions == [("condition", "gt($2:o_total, 10)")]
    assert m.node("0.0").info.expressions == [("sort", "$0:o_id DESC NULLS LAST")]
    assert m.node("0").info.detail == "count 5"
    assert codes(m) == ["no-matching-signature"]  # gt(decimal<10,2>?, i64): no signature takes a decimal and an i64


def test_read_projection_mask_picks_fields():
    rel = read("orders", ORDERS, projection={"select": {"structItems": [{"field": 2}, {}]}})
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("o_total", "decimal<10,2>?"), ("o_id", "i64")]


def test_a_mask_that_lists_no_field_reads_no_column():
    """DataFusion writes ``SELECT 42 FROM orders`` as a read whose mask selects nothing (the rows only),
    its project's literal then field 0; a mask left out reads every field."""
    rel = {"project": {"input": read("orders", ORDERS, projection={"select": {}}), "expressions": [i64(42)]}}
    m = model_of(plan(rel))
    assert schema_of(m, "0.0") == []
    assert [t for _, t in schema_of(m, "0")] == ["i64"]
    assert schema_of(model_of(plan(read("orders", ORDERS, projection={}))), "0") == O_SCHEMA


def test_project_appends_expressions_and_emit_reorders():
    project = {"project": {"input": O, "expressions": [call(3, field(0), i64(1), out="i64"), field(1)]}}
    m = model_of(plan(project))
    assert schema_of(m, "0") == O_SCHEMA + [("add(o_id, 1)", "i64"), ("o_cust", "i64?")]
    m = model_of(plan(emit(project, [4, 3])))
    assert schema_of(m, "0") == [("o_cust", "i64?"), ("add(o_id, 1)", "i64")]


def test_root_names_label_the_root():
    project = emit({"project": {"input": O, "expressions": [call(3, field(0), i64(1), out="i64")]}}, [3, 0])
    m = model_of(plan((project, ["next_id", "id"])))
    assert schema_of(m, "0") == [("next_id", "i64"), ("id", "i64")]
    assert m.roots == ["0"]


def test_cross_is_left_then_right():
    m = model_of(plan({"cross": {"left": O, "right": C}}))
    assert schema_of(m, "0") == O_SCHEMA + C_SCHEMA


# Join output by type, worked out from the Join Types table: outer joins make the padded side
# nullable; semi/anti keep one side; mark appends a nullable boolean after that side.
_nullable_o = [("o_id", "i64?"), ("o_cust", "i64?"), ("o_total", "decimal<10,2>?")]
_nullable_c = [("c_id", "i64?"), ("c_name", "string?")]
JOIN_CASES = {
    "JOIN_TYPE_INNER": O_SCHEMA + C_SCHEMA,
    "JOIN_TYPE_OUTER": _nullable_o + _nullable_c,
    "JOIN_TYPE_LEFT": O_SCHEMA + _nullable_c,
    "JOIN_TYPE_RIGHT": _nullable_o + C_SCHEMA,
    "JOIN_TYPE_LEFT_SEMI": O_SCHEMA,
    "JOIN_TYPE_RIGHT_SEMI": C_SCHEMA,
    "JOIN_TYPE_LEFT_ANTI": O_SCHEMA,
    "JOIN_TYPE_RIGHT_ANTI": C_SCHEMA,
    "JOIN_TYPE_LEFT_SINGLE": O_SCHEMA + _nullable_c,
    "JOIN_TYPE_RIGHT_SINGLE": _nullable_o + C_SCHEMA,
    "JOIN_TYPE_LEFT_MARK": O_SCHEMA + [("mark", "boolean?")],
    "JOIN_TYPE_RIGHT_MARK": C_SCHEMA + [("mark", "boolean?")],
}


@pytest.mark.parametrize("join_type", sorted(JOIN_CASES))
def test_join_types(join_type):
    rel = {"join": {"left": O, "right": C, "expression": call(1, field(1), field(3)), "type": join_type}}
    m = model_of(plan(rel))
    assert schema_of(m, "0") == JOIN_CASES[join_type]
    # The condition reads the concatenated inputs: o_cust is $1, c_id is $3.
    assert m.node("0").info.expressions == [("on", "equal($1:o_cust, $3:c_id)")]
    assert codes(m, "0") == []


@pytest.mark.parametrize("join_type", sorted(JOIN_CASES))
@pytest.mark.parametrize("kind", ["hash_join", "merge_join"])
def test_physical_joins_follow_join_output(kind, join_type):
    rel = {
        "hashJoin" if kind == "hash_join" else "mergeJoin": {
            "left": O,
            "right": C,
            "type": join_type,
            "keys": [
                {
                    "left": {"directReference": {"structField": {"field": 1}}, "rootReference": {}},
                    "right": {"directReference": {"structField": {"field": 0}}, "rootReference": {}},
                    "comparison": {"simple": "SIMPLE_COMPARISON_TYPE_EQ"},
                }
            ],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == JOIN_CASES[join_type]
    # the right key indexes the right input (c_id is its field 0); it is shown at its place in the incoming
    # record, as a logical join's condition shows it (a "$0 = $0" would read as a column against itself)
    assert m.node("0").info.expressions == [("key", "$1:o_cust = $3:c_id")]
    # Indices into the incoming record (left then right) that the node reads, for the inspector.
    assert m.node("0").info.referenced_fields == {1, 3}


def test_nested_loop_join():
    rel = {
        "nestedLoopJoin": {"left": O, "right": C, "expression": call(2, field(2), field(3)), "type": "JOIN_TYPE_LEFT"}
    }
    assert schema_of(model_of(plan(rel)), "0") == JOIN_CASES["JOIN_TYPE_LEFT"]


# The spec's own example (Output Type Derivation Examples): inputs with nullabilities
#   primary (R,R,R,R,N,N,N,N), second (R,R,N,N,R,R,N,N), third (R,N,R,N,R,N,R,N).
SET_EXAMPLE = {
    "SET_OP_MINUS_PRIMARY": "RRRRNNNN",
    "SET_OP_MINUS_MULTISET": "RRRRNNNN",
    "SET_OP_INTERSECTION_PRIMARY": "RRRRRNNN",
    "SET_OP_INTERSECTION_MULTISET": "RRRRRRRN",
    "SET_OP_UNION_DISTINCT": "RNNNNNNN",
    "SET_OP_UNION_ALL": "RNNNNNNN",
}


def _set_input(pattern: str, table: str) -> dict:
    return read(table, [(f"{table}{i}", "i32" + ("?" if c == "N" else "")) for i, c in enumerate(pattern)])


@pytest.mark.parametrize("op", sorted(SET_EXAMPLE))
def test_set_op_nullability_follows_the_spec_table(op):
    rel = {
        "set": {
            "inputs": [_set_input("RRRRNNNN", "a"), _set_input("RRNNRRNN", "b"), _set_input("RNRNRNRN", "c")],
            "op": op,
        }
    }
    m = model_of(plan(rel))
    got = "".join("N" if t.endswith("?") else "R" for _, t in schema_of(m, "0"))
    assert got == SET_EXAMPLE[op]
    assert [n for n, _ in schema_of(m, "0")] == [f"a{i}" for i in range(8)]  # names from the primary


def test_set_op_type_mismatch_is_a_diagnostic():
    rel = {"set": {"inputs": [read("a", [("x", "i32")]), read("b", [("y", "string")])], "op": "SET_OP_UNION_ALL"}}
    m = model_of(plan(rel))
    assert "type-mismatch" in codes(m, "0")
    # the producer's coercions are unknown: the error says the run applies Spark's, whose union of an
    # i32 and a string is a string
    [d] = [d for d in m.node("0").diagnostics if d.code == "type-mismatch"]
    assert "Spark" in d.message and "string" in d.message
    assert schema_of(m, "0") == [("x", "string")]


def test_aggregate_keys_then_measures():
    # GROUP BY o_cust: sum(o_id), count(*)
    rel = {
        "aggregate": {
            "input": O,
            "groupingExpressions": [field(1)],
            "groupings": [{"expressionReferences": [0]}],
            "measures": [measure(4, field(0), out="i64?"), measure(5)],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("o_cust", "i64?"), ("sum(o_id)", "i64?"), ("count()", "i64")]
    assert ("group by", "$1:o_cust") in m.node("0").info.expressions


def test_aggregate_grouping_sets_nullable_keys_and_index_column():
    # GROUPING SETS ((o_id, o_cust), (o_id)): o_cust is missing from one set, so it becomes
    # nullable; with two sets an i32 grouping-set index is appended.
    rel = {
        "aggregate": {
            "input": O,
            "groupingExpressions": [field(0), field(1)],
            "groupings": [{"expressionReferences": [0, 1]}, {"expressionReferences": [0]}],
            "measures": [measure(5)],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("o_id", "i64"), ("o_cust", "i64?"), ("count()", "i64"), ("grouping_set", "i32")]


def test_aggregate_legacy_grouping_expressions_are_upgraded_not_dropped():
    rel = {
        "aggregate": {
            "input": O,
            "groupings": [{"groupingExpressions": [field(1), field(0)]}, {"groupingExpressions": [field(1)]}],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("o_cust", "i64?"), ("o_id", "i64?"), ("grouping_set", "i32")]
    assert "legacy-upgraded" in [d.code for d in m.plan_diagnostics]


def test_window_and_expand_and_exchange_and_top_n():
    window = {
        "window": {
            "input": O,
            "windowFunctions": [
                {"functionReference": 6, "outputType": typ("i64"), "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT"}
            ],
            "partitionExpressions": [field(1)],
            "sorts": [{"expr": field(0), "direction": "SORT_DIRECTION_ASC_NULLS_FIRST"}],
        }
    }
    m = model_of(plan(window))
    assert schema_of(m, "0") == O_SCHEMA + [("row_number()", "i64")]

    expand = {
        "expand": {
            "input": O,
            "fields": [
                {"consistentField": field(0)},
                {"switchingField": {"duplicates": [field(1), {"literal": {"null": typ("i64?")}}]}},
            ],
        }
    }
    m = model_of(plan(expand))
    assert schema_of(m, "0") == [("o_id", "i64"), ("o_cust", "i64?"), ("expand_index", "i32")]
    # a switching field whose first duplicate is a null is named by the first that is not
    expand["expand"]["fields"][1] = {"switchingField": {"duplicates": [{"literal": {"null": typ("i64?")}}, field(1)]}}
    assert schema_of(model_of(plan(expand)), "0")[1] == ("o_cust", "i64?")

    exchange = {
        "exchange": {
            "input": O,
            "scatterByFields": {"fields": [{"directReference": {"structField": {"field": 1}}, "rootReference": {}}]},
            "partitionCount": 4,
        }
    }
    m = model_of(plan(exchange))
    assert schema_of(m, "0") == O_SCHEMA
    assert m.node("0").info.detail == "scatter by $1:o_cust into 4"

    top = {
        "topN": {
            "input": O,
            "sorts": [{"expr": field(2), "direction": "SORT_DIRECTION_DESC_NULLS_FIRST"}],
            "count": i64(3),
        }
    }
    m = model_of(plan(top))
    assert schema_of(m, "0") == O_SCHEMA
    assert m.node("0").info.detail == "top 3 by $2:o_total DESC NULLS FIRST"


def test_virtual_table_types_from_base_schema_and_rows():
    rel = {
        "read": {
            "baseSchema": {"names": ["x", "y"], "struct": {"types": [typ("i64"), typ("string")]}},
            "virtualTable": {"values": [{"fields": [{"i64": "1"}, {"string": "a"}]}]},
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("x", "i64"), ("y", "string")]
    assert "virtual table, 1 row" in m.node("0").info.detail


def test_write_ddl_and_extension_relations():
    write = {
        "write": {
            "namedTable": {"names": ["t"]},
            "tableSchema": {"names": ["o_id"], "struct": {"types": [typ("i64")]}},
            "op": "WRITE_OP_INSERT",
            "input": O,
            "output": "OUTPUT_MODE_NO_OUTPUT",
        }
    }
    m = model_of(plan(write))
    assert schema_of(m, "0") == []
    assert m.node("0").inputs == ["0.0"]
    ddl = {
        "ddl": {
            "namedObject": {"names": ["v"]},
            "object": "DDL_OBJECT_VIEW",
            "op": "DDL_OP_CREATE",
            "viewDefinition": O,
        }
    }
    m = model_of(plan(ddl))
    assert schema_of(m, "0") == [] and m.node("0").inputs == ["0.0"]
    ext = {"extensionSingle": {"input": O}}
    m = model_of(plan(ext))
    assert schema_of(m, "0") is None
    assert codes(m, "0") == ["unknown-schema"]


def test_nested_struct_names_are_depth_first():
    # The tutorial's products table: details is struct<manufacturer, year_created>.
    rel = {
        "read": {
            "baseSchema": {
                "names": ["id", "details", "manufacturer", "year_created", "name"],
                "struct": {
                    "types": [
                        typ("i64"),
                        {"struct": {"types": [typ("string?"), typ("i32?")], "nullability": "NULLABILITY_NULLABLE"}},
                        typ("string?"),
                    ]
                },
            },
            "namedTable": {"names": ["products"]},
        }
    }
    project = {
        "project": {
            "input": rel,
            "expressions": [
                {
                    "selection": {
                        "directReference": {"structField": {"field": 1, "child": {"structField": {"field": 1}}}},
                        "rootReference": {},
                    }
                }
            ],
        }
    }
    m = model_of(plan(project))
    s = m.node("0").schema
    assert [f.name for f in s] == ["id", "details", "name", "details.year_created"]
    assert s[1].nested == ("manufacturer", "year_created")
    assert s[1].type_text() == "struct<manufacturer: string?, year_created: i32?>?"
    # A member of a nullable struct is nullable.
    assert s[3].type_text() == "i32?"
    assert m.node("0").info.expressions == [("$3", "$1:details.year_created")]


def test_reference_rel_is_an_edge_to_the_shared_subtree():
    shared = {"filter": {"input": O, "condition": call(2, field(2), i64(0))}}
    q1 = (
        {
            "join": {
                "left": {"reference": {"subtreeOrdinal": 0}},
                "right": C,
                "expression": call(1, field(1), field(3)),
                "type": "JOIN_TYPE_INNER",
            }
        },
        ["a", "b", "c", "d", "e"],
    )
    q2 = ({"fetch": {"input": {"reference": {"subtreeOrdinal": 0}}, "countExpr": i64(1)}}, ["x", "y", "z"])
    m = model_of(plan(shared, q1, q2))
    assert m.roots == ["0", "1", "2"]
    assert m.node("1.0").kind == "reference" and m.node("1.0").inputs == ["0"]
    assert m.node("2.0").inputs == ["0"]
    # Drawn once: the shared filter is one node.
    assert sum(1 for n in m.nodes() if n.kind == "filter") == 1
    assert schema_of(m, "2") == [("x", "i64"), ("y", "i64?"), ("z", "decimal<10,2>?")]
    assert schema_of(m, "1.0") == O_SCHEMA  # root names of other relations do not leak in


def test_subquery_relations_are_nodes_with_outer_references():
    # customers WHERE EXISTS (SELECT * FROM orders WHERE o_cust = customers.c_id)
    sub = {"filter": {"input": O, "condition": call(1, field(1), outer_field(0))}}
    rel = {
        "filter": {
            "input": C,
            "condition": {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": sub}}},
        }
    }
    m = model_of(plan(rel))
    assert m.node("0").inputs == ["0.0"]
    assert m.node("0").node.subqueries == ["0.s0"]
    assert m.node("0.s0").kind == "filter"
    assert m.node("0.s0").info.expressions == [("condition", "equal($1:o_cust, ^$0:c_id)")]
    assert m.node("0").info.expressions == [("condition", "EXISTS (subquery 0.s0)")]
    assert codes(m) == []
    # how far out its own expressions read: the subquery's filter one boundary, the others none
    assert {n.id: n.info.outer_steps for n in m.nodes()} == {"0": 0, "0.0": 0, "0.s0": 1, "0.s0.0": 0}


def test_a_node_records_the_deepest_outer_reference_of_its_own_expressions():
    # customers WHERE EXISTS (orders WHERE EXISTS (orders o2
    #     WHERE o2.o_cust = customers.c_id AND o2.o_id = orders.o_id))
    inner = {
        "filter": {
            "input": O,
            "condition": call(7, call(1, field(1), outer_field(0, steps=2)), call(1, field(0), outer_field(0))),
        }
    }
    middle = {
        "filter": {
            "input": O,
            "condition": {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": inner}}},
        }
    }
    rel = {
        "filter": {
            "input": C,
            "condition": {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": middle}}},
        }
    }
    m = model_of(plan(rel, functions={**FUNCTIONS, 7: ("and:bool", "functions_boolean")}))
    assert m.node("0.s0.s0").info.expressions == [
        ("condition", "and(equal($1:o_cust, ^^$0:c_id), equal($0:o_id, ^$0:o_id))")
    ]
    assert {n.id: n.info.outer_steps for n in m.nodes()} == {
        "0": 0,
        "0.0": 0,
        "0.s0": 0,  # its subquery reads out, not its own expressions
        "0.s0.0": 0,
        "0.s0.s0": 2,
        "0.s0.s0.0": 0,
    }
    assert codes(m) == []


def test_scalar_subquery_type():
    sub = {"aggregate": {"input": O, "measures": [measure(5)]}}
    rel = {"project": {"input": C, "expressions": [{"subquery": {"scalar": {"input": sub}}}]}}
    m = model_of(plan(rel))
    assert schema_of(m, "0")[-1] == ("subquery_0.s0", "i64?")


DIAGNOSTIC_CASES = [
    (
        {"filter": {"input": O, "condition": call(2, field(7), i64(1))}},
        "0",
        "field-out-of-range",
        "field 7 is out of range: the input has 3 fields (0-2)",
    ),
    (
        {"filter": {"input": O, "condition": call(99, field(0), i64(1))}},
        "0",
        "unknown-function",
        "function anchor 99 is not declared",
    ),
    (
        {"read": {"baseSchema": {"names": ["a", "b"]}, "namedTable": {"names": ["t"]}}},
        "0",
        "untyped-base-schema",
        "names 2 columns but gives no types",
    ),
    (
        {"fetch": {"input": {"reference": {"subtreeOrdinal": 5}}}},
        "0.0",
        "reference-out-of-range",
        "points at relation 5, but the plan has 1 relations (0-0)",
    ),
    ({"fetch": {"input": {"reference": {"subtreeOrdinal": 0}}}}, "0.0", "reference-cycle", "cycle"),
    (
        {"filter": {"input": O, "condition": call(3, field(0), i64(1), out="i64")}},
        "0",
        "type-mismatch",
        "the filter condition must be boolean, but is i64",
    ),
    (
        emit({"filter": {"input": O, "condition": call(2, field(0), i64(1))}}, [0, 9]),
        "0",
        "emit-out-of-range",
        "emit maps output field 9, but the relation produces 3 fields (0-2)",
    ),
]


@pytest.mark.parametrize("rel,node,code,text", DIAGNOSTIC_CASES, ids=[c[2] for c in DIAGNOSTIC_CASES])
def test_problems_become_diagnostics_and_the_rest_still_derives(rel, node, code, text):
    m = model_of(plan(rel))
    found = [d for d in m.node(node).diagnostics if d.code == code]
    assert found, [d.code for d in m.node(node).diagnostics]
    assert text in found[0].message
    assert found[0].severity.value in ("error", "warning")
    # Every node still has a view; the plan still renders.
    from viz.render import to_dot

    assert "digraph" in to_dot(m)


def test_field_out_of_range_keeps_the_other_columns():
    rel = {"project": {"input": O, "expressions": [field(9), field(0)]}}
    m = model_of(plan(rel))
    assert schema_of(m, "0") == O_SCHEMA + [("field_9", "unknown"), ("o_id", "i64")]


def test_project_expressions_only_convention_is_detected_from_root_names():
    # DuckDB writes Project as if it output only its expressions; the root names say so.
    rel = {"project": {"input": O, "expressions": [field(2), field(0)]}}
    m = model_of(plan((rel, ["total", "id"])))
    assert schema_of(m, "0") == [("total", "decimal<10,2>?"), ("id", "i64")]
    assert "producer-convention" in [d.code for d in m.plan_diagnostics]
    # The same plan with names that fit the spec reading stays with the spec.
    m = model_of(plan((rel, ["a", "b", "c", "d", "e"])))
    assert len(schema_of(m, "0")) == 5
    assert "producer-convention" not in [d.code for d in m.plan_diagnostics]


# The proto has two set ops the spec's table predates: MINUS_PRIMARY_ALL keeps the primary's
# nullability like the other minus ops; INTERSECTION_MULTISET_ALL follows INTERSECTION_MULTISET.
@pytest.mark.parametrize(
    "op,expected", [("SET_OP_MINUS_PRIMARY_ALL", "RRRRNNNN"), ("SET_OP_INTERSECTION_MULTISET_ALL", "RRRRRRRN")]
)
def test_newer_set_ops(op, expected):
    rel = {
        "set": {
            "inputs": [_set_input("RRRRNNNN", "a"), _set_input("RRNNRRNN", "b"), _set_input("RNRNRNRN", "c")],
            "op": op,
        }
    }
    got = "".join("N" if t.endswith("?") else "R" for _, t in schema_of(model_of(plan(rel)), "0"))
    assert got == expected


def test_update_outputs_the_table_schema_and_reads_it_in_expressions():
    rel = {
        "update": {
            "namedTable": {"names": ["orders"]},
            "tableSchema": {"names": [c for c, _ in ORDERS], "struct": {"types": [typ(t) for _, t in ORDERS]}},
            "condition": call(2, field(2), i64(100)),
            "transformations": [{"columnTarget": 1, "transformation": i64(0)}],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == O_SCHEMA
    assert m.node("0").info.expressions == [("condition", "gt($2:o_total, 100)"), ("set $1", "0")]


def test_lateral_join_reads_the_left_row_through_its_anchor():
    right = {
        "filter": {
            "input": C,
            "condition": call(
                1,
                field(0),
                {
                    "selection": {
                        "directReference": {"structField": {"field": 1}},
                        "outerReference": {"relReference": 7},
                    }
                },
            ),
        }
    }
    rel = {"lateralJoin": {"common": {"relAnchor": 7}, "left": O, "right": right, "type": "JOIN_TYPE_LEFT"}}
    m = model_of(plan(rel))
    assert schema_of(m, "0") == O_SCHEMA + _nullable_c
    assert m.node("0.1").info.expressions == [("condition", "equal($0:c_id, $@7.1:o_cust)")]
    assert codes(m) == []


def test_extension_multi_and_leaf_are_drawn_with_unknown_schema():
    m = model_of(plan({"extensionMulti": {"inputs": [O, C]}}, {"extensionLeaf": {}}))
    assert m.node("0").inputs == ["0.0", "0.1"] and schema_of(m, "0") is None
    assert schema_of(m, "1") is None
    assert codes(m, "0") == ["unknown-schema"] and codes(m, "1") == ["unknown-schema"]


def test_a_column_compared_with_itself_is_a_warning():
    """``equal($13, $13)``: TPC-DS q78's ``cs_item_sk = cs_item_sk`` (where ``ss_item_sk`` was meant),
    which DataFusion writes as it stands. The result does not depend on the column: said on the node.
    Two columns compared are not."""
    rel = {"join": {"left": O, "right": C, "expression": call(1, field(3), field(3)), "type": 1}}
    m = model_of(plan(rel))
    assert codes(m, "0") == ["self-comparison"]
    [d] = m.node("0").info.diagnostics
    assert "equal($3:c_id, $3:c_id) compares a column with itself" in d.message
    m = model_of(plan({"filter": {"input": O, "condition": call(2, field(0), field(0))}}))
    assert codes(m, "0") == ["self-comparison"]
    m = model_of(plan({"filter": {"input": O, "condition": call(2, field(0), field(1))}}))
    assert "self-comparison" not in codes(m, "0")


def test_a_relation_without_an_input_it_needs_is_an_error_on_its_node():
    """A join whose right input is not set: an error on the join (its output cannot be known), so the
    run refuses it before Spark; the rest of the plan still derives."""
    rel = {"join": {"left": O, "expression": call(1, field(0), field(0)), "type": "JOIN_TYPE_INNER"}}
    m = model_of(plan(rel))
    missing = [d for d in m.node("0").diagnostics if d.code == "missing-input"]
    assert [d.message for d in missing] == [
        "the relation has no right input (JoinRel.right is not set): its output cannot be known and it cannot run"
    ]
    assert schema_of(m, "0.0") == O_SCHEMA


@pytest.mark.parametrize(
    "t, says",
    [
        ({"decimal": {"precision": 0, "scale": 2}}, "decimal<0,2>: a decimal's precision is 1 to 38"),
        ({"decimal": {"precision": 99, "scale": 2}}, "decimal<99,2>: a decimal's precision is 1 to 38"),
        ({"decimal": {"precision": 10, "scale": -5}}, "decimal<10,-5>: a decimal's scale is 0 to its precision"),
        ({"list": {"type": {"varchar": {"length": 0}}}}, "varchar<0>: the length is at least 1"),
    ],
)
def test_an_invalid_type_is_an_error_on_its_node(t, says):
    """The spec's bounds of parameterized types (decimal<P,S>: P in 1..38, S in 0..P), in a base schema."""
    rel = {"read": {"baseSchema": {"names": ["x"], "struct": {"types": [t]}}, "namedTable": {"names": ["t"]}}}
    m = model_of(plan(rel))
    assert [d.message for d in m.node("0").diagnostics if d.code == "invalid-type"] == [
        f"the base schema's x is not a valid type: {says}"
    ]


def _decimal_literal(unscaled: int, precision: int, scale: int) -> dict:
    raw = unscaled.to_bytes(16, "little", signed=True)
    return {"literal": {"decimal": {"value": base64.b64encode(raw).decode(), "precision": precision, "scale": scale}}}


def test_a_decimal_literal_with_more_digits_than_its_precision_is_an_error_on_its_node():
    """DataFusion 55 folds cast(12345678901234.5678 AS decimal(38,10)) * cast(98765.4321 AS decimal(38,10))
    into a decimal<38,20> of 39 digits (its engine gives that value; DuckDB stops on the overflow): the
    plan is invalid there, and says so before Spark refuses it. A literal that fits, and one in a list,
    are checked alike."""
    too_long = 121932631124828538929049205997568000000
    rel = {"filter": {"input": C, "condition": call(1, field(1), _decimal_literal(too_long, 38, 20))}}
    m = model_of(plan(rel))
    assert [d.message for d in m.node("0").diagnostics if d.code == "invalid-literal"] == [
        "the decimal literal 1219326311248285389.29049205997568000000 has 39 digits, more than its type "
        "decimal<38,20> holds"
    ]
    fits = {"filter": {"input": C, "condition": call(1, field(1), _decimal_literal(-99999, 5, 2))}}
    assert not [d for d in model_of(plan(fits)).node("0").diagnostics if d.code == "invalid-literal"]
    listed = {"list": {"values": [_decimal_literal(1234, 3, 0)["literal"]]}}
    in_list = {"filter": {"input": C, "condition": call(1, field(1), {"literal": listed})}}
    assert [d.code for d in model_of(plan(in_list)).node("0").diagnostics if d.code == "invalid-literal"] == [
        "invalid-literal"
    ]


def test_an_empty_string_literal_is_a_valid_type():
    """isthmus writes every string literal as a fixed_char, so '' is a fixed_char<0>: its length is the
    value's own, not an invalid type (a plan comparing a column with '' was refused)."""
    rel = {"filter": {"input": C, "condition": call(1, field(1), {"literal": {"fixedChar": ""}})}}
    m = model_of(plan(rel))
    assert not [d for n in m.graph.nodes for d in m.node(n).diagnostics if d.code == "invalid-type"]


def test_a_plan_whose_emit_leaves_out_a_computed_column_is_read_without_the_grouping_set_column():
    """isthmus wrote multi-set aggregates without the spec's grouping-set column until 2025, and its
    plans of then have no version. Its projects emit every expression they compute: read with the
    column, the project over the aggregate would emit the grouping index and leave out the sum, which
    no producer writes. DuckDB on the query's SQL gives (sum, L_LINENUMBER, L_ORDERKEY)."""
    import os

    from tests.support import SNAPSHOTS
    from viz import types as T
    from viz.model import analyze

    path = os.path.join(SNAPSHOTS, "relation", "aggregate", "aggregate_with_grouping_set-isthmus_plan.json")
    with open(path, "rb") as fh:
        model = analyze(fh.read())
    assert "producer-convention" in [d.code for d in model.plan_diagnostics]
    root = model.node(model.roots[0])
    assert [(f.name, T.render(f.type)) for f in root.schema] == [
        ("EXPR$0", "decimal<15,2>?"),
        ("L_LINENUMBER", "i64?"),
        ("L_ORDERKEY", "i64?"),
    ]


def test_every_row_of_a_virtual_table_is_checked_against_its_columns():
    # rows of the columns' own parameterless types pass unexamined; any other value is typed and checked
    rows = [[{"i64": "1"}, {"string": "a"}, {"date": 1}]] * 3
    rows.append([{"string": "2"}, {"string": "b"}, {"date": 2}])  # row 3: a string in the i64 column
    rows.append([{"i64": "3"}, {"null": typ("string?")}, {"date": 3}])  # row 4: a null in the required y
    rows.append([{"i64": "4"}, {"string": "d"}, {"decimal": {"value": "AQAAAAAAAAAAAAAAAAAAAA==", "precision": 3}}])
    rel = {
        "read": {
            "baseSchema": {
                "names": ["x", "y", "z"],
                "struct": {"types": [typ("i64?"), typ("string"), typ("date?")]},
            },
            "virtualTable": {"expressions": [{"fields": [{"literal": v} for v in r]} for r in rows]},
        }
    }
    m = model_of(plan(rel))
    said = sorted((d.code, d.message) for d in m.node("0").diagnostics if d.code != "no-version")
    assert said == [
        (
            "null-in-required-column",
            "virtual table row 4 column 1 is null, but the schema declares the column "
            "string, which is required (it holds no nulls)",
        ),
        ("type-mismatch", "virtual table row 3 column 0 is string, the schema says i64?"),
        ("type-mismatch", "virtual table row 5 column 2 is decimal<3,0>, the schema says date?"),
    ]


def test_a_projects_expressions_are_labelled_by_their_place_in_the_output():
    """A project's expression role is its place before the emit ($p); its label is where the emit puts it
    ([k] name, as the schema), or that the emit leaves it out. isthmus's q03 project 0.0*4 emits $33-$36
    as [0]-[3] (its input has 33 fields); DuckDB's project outputs its expressions alone, from [0]."""
    import os

    from tests.support import ROOT
    from viz.model import analyze

    def model(name):
        with open(os.path.join(ROOT, "sample_plans", name), "rb") as fh:
            return analyze(fh.read())

    isthmus = model("tpch_q03_isthmus.json").node("0.0*4")
    assert [isthmus.expression_label(r) for r, _ in isthmus.info.expressions][:2] == [
        "[0] L_ORDERKEY ($33 before the emit)",
        "[1] O_ORDERDATE ($34 before the emit)",
    ]
    duckdb = model("tpch_q03_duckdb.json").node("0.0*5.1")
    assert duckdb.expression_label("$0") == "[0] o_custkey" and duckdb.expression_label("condition") == "condition"
    import json

    from tests.support import plans as P

    kept_one = P.emit({"project": {"input": P.read("t", [("a", "i64")]), "expressions": [P.i64(1), P.i64(2)]}}, [2, 0])
    node = analyze(json.dumps(P.plan((kept_one, ["two", "a"]))).encode()).node("0")
    assert [node.expression_label(r) for r, _ in node.info.expressions] == [
        "$1, computed but not output (the emit leaves it out)",
        "[0] two ($2 before the emit)",
    ]
