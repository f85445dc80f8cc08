"""Every field of every relation message, as the spec and algebra.proto's comments define it.

One small plan per field: its derived schema (``viz.schema``), checked by hand against the rule it
cites, and, where Spark can run it, its rows (``executor.jobs.run.run_node`` over virtual tables, so no
files are needed). Every expected row was worked out by hand from the cited rule on the tiny inputs
below, never copied from our output. Where Spark cannot run a relation (DDL, writes, extensions...),
the refusal message is checked instead. docs/relation-fields.md is the table of these fields.

Sources cited: [L] ../shared/spec/logical_relations.txt, [P] physical_relations.txt, [R]
proto_reference.txt (algebra.proto's comments as the spec's reference shows them) and, for fields the
shared copy predates, [A] algebra.proto's comments in substrait-io/substrait (the proto our
``substrait`` package is built from has these fields; e.g. ``offset_expr``, ``build_input``,
``create_mode``, ``Hint.output_names``, ``AdvancedExtension.enhancement``) and [N] the newer
logical_relations.md (the set-operation examples, the fetch expressions).

    L  a i64   b i64?          R  c i64?  d string        R1  c i64?  d string
       1       10                 10      x                   10      x
       2       20                 20      y                   20      y
       3       NULL               20      z
       4       20                 NULL    w
                                  50      v
"""

from __future__ import annotations

import pytest

from executor.data.catalog import Catalog
from executor.errors import ExecutionError, Refused, Unsupported
from executor.jobs.run import run_node
from executor.translate.executable import executability
from tests.support.plans import call, codes, emit, field, i64, measure, model_of, plan, read, schema_of, typ

# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def _lit(v, t: str) -> dict:
    if v is None:
        return {"literal": {"null": typ(t if t.endswith("?") else t + "?")}}
    kind = t.rstrip("?")
    if kind == "i64":
        return {"literal": {"i64": str(v)}}
    if kind == "i32":
        return {"literal": {"i32": v}}
    return {"literal": {kind: v}}


def values(columns: list[tuple[str, str]], rows: list[tuple]) -> dict:
    """A ReadRel of a virtual table: the base schema ``columns`` and one literal per cell."""
    return {
        "read": {
            "baseSchema": {"names": [c for c, _ in columns], "struct": {"types": [typ(t) for _, t in columns]}},
            "virtualTable": {"expressions": [{"fields": [_lit(v, t) for v, (_, t) in zip(r, columns)]} for r in rows]},
        }
    }


L_COLS = [("a", "i64"), ("b", "i64?")]
R_COLS = [("c", "i64?"), ("d", "string")]
L_ROWS = [(1, 10), (2, 20), (3, None), (4, 20)]
R_ROWS = [(10, "x"), (20, "y"), (20, "z"), (None, "w"), (50, "v")]
R1_ROWS = [(10, "x"), (20, "y")]
L = values(L_COLS, L_ROWS)
R = values(R_COLS, R_ROWS)
R1 = values(R_COLS, R1_ROWS)
L_SCHEMA = [("a", "i64"), ("b", "i64?")]
R_SCHEMA = [("c", "i64?"), ("d", "string")]
L_NULLABLE = [("a", "i64?"), ("b", "i64?")]
R_NULLABLE = [("c", "i64?"), ("d", "string?")]


def ref(i: int) -> dict:
    """A FieldReference (not wrapped in an Expression): hash/merge join keys, scatter fields."""
    return {"directReference": {"structField": {"field": i}}, "rootReference": {}}


def lit(v) -> dict:
    return i64(v)


NULL_I64 = {"literal": {"null": typ("i64?")}}
SORT_A = [{"expr": field(0), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]
B_EQ_C = call(1, field(1), field(2))  # equal($1:b, $2:c) over the join's input order (left, then right)


def sorted_l(**fetch) -> dict:
    """L sorted by a, under a FetchRel with the given fields."""
    return {"fetch": {"input": {"sort": {"input": L, "sorts": SORT_A}}, **fetch}}


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------

CATALOG = Catalog(use_spark_catalog=False)  # virtual tables only: no table is ever looked up


def rows(doc: dict, node: str = "0") -> list[tuple]:
    """The node's rows, in Spark's order, as Python values (None for null)."""
    result = run_node(model_of(doc), node, catalog=CATALOG, limit=1000, timeout_s=120, explain=False)
    table = result.arrow
    return list(zip(*[c.to_pylist() for c in table.columns])) if table.num_columns else [()] * table.num_rows


def bag(rs) -> list:
    """Rows as a multiset (sorted, nulls first), for relations whose output order is not defined."""
    return sorted(rs, key=lambda r: tuple((v is not None, v) for v in r))


def refusal(doc: dict, node: str = "0") -> ExecutionError:
    """The error a run of the node raises before Spark is asked anything."""
    with pytest.raises(ExecutionError) as caught:
        run_node(model_of(doc), node, catalog=CATALOG, limit=10, timeout_s=30, explain=False)
    return caught.value


# =============================================================================================
# RelCommon
# =============================================================================================


def test_common_emit_remaps_and_hides_fields():
    """[R] RelCommon.emit: "Remap which fields are output and in which order"; direct: "no change on
    presence and ordering of fields in the output"."""
    rel = {"filter": {"input": L, "condition": call(2, field(1), lit(15))}}
    assert schema_of(model_of(plan(emit(rel, [1, 1, 0]))), "0") == [("b", "i64?"), ("b", "i64?"), ("a", "i64")]
    direct = {"filter": {**rel["filter"], "common": {"direct": {}}}}
    assert schema_of(model_of(plan(direct)), "0") == L_SCHEMA


def test_common_emit_rows(spark):
    # b > 15 keeps (2, 20) and (4, 20); the emit outputs (b, a)
    rel = emit({"filter": {"input": L, "condition": call(2, field(1), lit(15))}}, [1, 0])
    assert bag(rows(plan(rel))) == [(20, 2), (20, 4)]


def test_common_hint_output_names_rename_the_output():
    """[A] Hint.output_names: "Assigns alternative output field names for any relation. Equivalent to
    the names field in RelRoot but applies to the output of the relation this RelCommon is attached
    to" - so after the emit. alias and stats "should not impact correctness": no change."""
    rel = {
        "filter": {
            "common": {
                "emit": {"outputMapping": [1, 0]},
                "hint": {"outputNames": ["bee", "ay"], "alias": "f", "stats": {"rowCount": 2}},
            },
            "input": L,
            "condition": call(2, field(1), lit(15)),
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("bee", "i64?"), ("ay", "i64")]
    assert codes(m, "0") == []
    # a consumer reads the renamed fields; the root's names still win at the root
    proj = {"project": {"input": rel, "expressions": [field(0)]}}
    assert schema_of(model_of(plan(proj)), "0")[-1] == ("bee", "i64?")
    assert schema_of(model_of(plan((rel, ["x", "y"]))), "0") == [("x", "i64?"), ("y", "i64")]


def test_common_hint_output_names_of_the_wrong_length_are_a_warning():
    rel = {
        "filter": {"common": {"hint": {"outputNames": ["only"]}}, "input": L, "condition": call(2, field(1), lit(15))}
    }
    m = model_of(plan(rel))
    assert "output-names-mismatch" in codes(m, "0")
    assert schema_of(m, "0") == [("only", "i64"), ("b", "i64?")]  # as RelRoot's names: as far as they go


def test_common_hint_output_names_name_the_run_columns(spark):
    rel = {
        "filter": {"common": {"hint": {"outputNames": ["p", "q"]}}, "input": L, "condition": call(2, field(1), lit(15))}
    }
    result = run_node(model_of(plan(rel)), "0", catalog=CATALOG, limit=10, timeout_s=120, explain=False)
    assert result.columns == ["[0] p", "[1] q"]


ENHANCEMENT = {"advancedExtension": {"enhancement": {"@type": "type.googleapis.com/google.protobuf.Empty"}}}


def test_common_advanced_extension_enhancement_is_not_ignored():
    """[A] AdvancedExtension.enhancement: "An enhancement alter semantics. Cannot be ignored by a
    consumer." (an optimization "may be ignored"). The schema is shown with a warning; a run refuses."""
    for where in ("common", "body"):
        body = {"input": L, "condition": call(2, field(1), lit(15))}
        if where == "common":
            body["common"] = ENHANCEMENT
        else:
            body.update(ENHANCEMENT)
        doc = plan({"filter": body})
        assert "enhancement" in codes(model_of(doc), "0"), where
        err = refusal(doc)
        assert isinstance(err, Unsupported) and "enhancement" in str(err) and "google.protobuf.Empty" in str(err)
    optimized = plan(
        {
            "filter": {
                "common": {
                    "advancedExtension": {"optimization": [{"@type": "type.googleapis.com/google.protobuf.Empty"}]}
                },
                "input": L,
                "condition": call(2, field(1), lit(15)),
            }
        }
    )
    assert codes(model_of(optimized), "0") == []


# =============================================================================================
# ReadRel
# =============================================================================================


def test_read_base_schema_is_the_direct_schema():
    """[L] Read: "Direct Schema: Defines the schema of the output of the read (before any projection or
    emit)"; NamedStruct names are depth-first [R]."""
    nested = {
        "read": {
            "namedTable": {"names": ["t"]},
            "baseSchema": {
                "names": ["k", "s", "s1", "s2"],
                "struct": {
                    "types": [
                        typ("i64"),
                        {"struct": {"types": [typ("string"), typ("i32?")], "nullability": "NULLABILITY_REQUIRED"}},
                    ]
                },
            },
        }
    }
    m = model_of(plan(nested))
    s = m.node("0").schema
    assert [(f.name, f.type_text()) for f in s] == [("k", "i64"), ("s", "struct<s1: string, s2: i32?>")]
    assert s[1].nested == ("s1", "s2")


@pytest.mark.parametrize(
    "read_type,detail",
    [
        ({"namedTable": {"names": ["db", "t"]}}, "db.t"),
        ({"localFiles": {"items": [{"uriFile": "file:///x.parquet", "parquet": {}}]}}, "parquet: file:///x.parquet"),
        (
            {"extensionTable": {"detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}},
            "extension table google.protobuf.Empty",
        ),
        ({"icebergTable": {"direct": {"metadataUri": "s3://b/t/v1.metadata.json"}}}, "iceberg table"),
    ],
)
def test_read_types_all_output_the_base_schema(read_type, detail):
    rel = read("t", L_COLS)
    body = {k: v for k, v in rel["read"].items() if k != "namedTable"}
    body.update(read_type)
    m = model_of(plan({"read": body}))
    assert schema_of(m, "0") == L_SCHEMA
    assert m.node("0").info.detail == detail


@pytest.mark.parametrize(
    "read_type",
    [
        {"extensionTable": {"detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}},
        {"icebergTable": {"direct": {"metadataUri": "s3://b/t/v1.metadata.json"}}},
    ],
)
def test_read_types_spark_cannot_read_are_refused_by_name(read_type):
    body = {k: v for k, v in read("t", L_COLS)["read"].items() if k != "namedTable"}
    body.update(read_type)
    err = refusal(plan({"read": body}))
    which = "extension_table" if "extensionTable" in read_type else "iceberg_table"
    assert isinstance(err, Unsupported) and f"reading `{which}` is not supported" in str(err)


def test_read_virtual_table_expressions_are_its_rows(spark):
    """[L] Virtual Table: "a table whose contents are embedded in the plan itself"; [N] its records may
    be "expressions that can be resolved without referencing any input data"."""
    assert schema_of(model_of(plan(L)), "0") == L_SCHEMA
    assert bag(rows(plan(L))) == bag(L_ROWS)
    computed = {
        "read": {
            "baseSchema": {"names": ["n"], "struct": {"types": [typ("i64")]}},
            "virtualTable": {"expressions": [{"fields": [call(3, lit(1), lit(2), out="i64")]}]},
        }
    }
    assert rows(plan(computed)) == [(3,)]  # add(1, 2)


def test_read_virtual_table_of_year_month_intervals_runs(spark):
    """A virtual table of literals only, one column a year-month interval (PySpark makes none from a Python
    value, and such a table had been refused): its rows, 1 year 2 months and a null, shown as Spark's text."""
    from tests.support.plans import year_months

    rel = year_months((1, 2), None)
    assert rows(plan(rel)) == [("INTERVAL '1-2' YEAR TO MONTH",), (None,)]


def test_read_virtual_table_legacy_values_are_upgraded(spark):
    """[A] VirtualTable.values is deprecated for expressions; a plan that still writes it keeps its rows."""
    rel = {
        "read": {
            "baseSchema": {"names": ["n", "s"], "struct": {"types": [typ("i64"), typ("string")]}},
            "virtualTable": {
                "values": [{"fields": [{"i64": "7"}, {"string": "q"}]}, {"fields": [{"i64": "8"}, {"string": "r"}]}]
            },
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("n", "i64"), ("s", "string")]
    assert "legacy-upgraded" in [d.code for d in m.plan_diagnostics]
    assert bag(rows(plan(rel))) == [(7, "q"), (8, "r")]


def test_read_filter_reads_the_direct_schema_before_the_projection():
    """[L] "A filter expression must be interpreted against the direct schema before the projection
    expression has been applied. As a result, fields may be referenced by the filter expression which
    are not included in the relation's output." The same for the best effort filter."""
    rel = {
        "read": {
            **L["read"],
            "filter": call(2, field(1), lit(15)),
            "bestEffortFilter": call(2, field(1), lit(0)),
            "projection": {"select": {"structItems": [{"field": 0}]}},
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("a", "i64")]
    assert m.node("0").info.expressions[:2] == [("filter", "gt($1:b, 15)"), ("best effort filter", "gt($1:b, 0)")]
    assert codes(m, "0") == []


def test_read_filter_rows(spark):
    # b > 15 on the direct schema keeps a = 2 and 4; the projection then keeps a alone
    rel = {
        "read": {
            **L["read"],
            "filter": call(2, field(1), lit(15)),
            "projection": {"select": {"structItems": [{"field": 0}]}},
        }
    }
    assert bag(rows(plan(rel))) == [(2,), (4,)]


def test_read_best_effort_filter_may_or_may_not_be_applied(spark):
    """[L] the best effort filter "may be applied to the data" and "does not have to be satisfied": the
    rows lie between those that pass it (b > 15: a = 2, 4) and all of them."""
    rel = {"read": {**L["read"], "bestEffortFilter": call(2, field(1), lit(15))}}
    got = bag(rows(plan(rel)))
    assert set(got) >= {(2, 20), (4, 20)} and set(got) <= set(L_ROWS)


def test_read_projection_selects_and_orders_fields():
    """[L] Read "Direct Output Order: ... the schema of the data read after the optional projection
    (masked complex expression) is applied"; [R] a mask expression "selectively removes fields"."""
    rel = {"read": {**L["read"], "projection": {"select": {"structItems": [{"field": 1}, {"field": 0}]}}}}
    assert schema_of(model_of(plan(rel)), "0") == [("b", "i64?"), ("a", "i64")]


def test_read_projection_rows(spark):
    rel = {"read": {**L["read"], "projection": {"select": {"structItems": [{"field": 1}, {"field": 0}]}}}}
    assert bag(rows(plan(rel))) == bag([(b, a) for a, b in L_ROWS])


NESTED = {
    "read": {
        "namedTable": {"names": ["t"]},
        "baseSchema": {
            "names": ["k", "s", "s1", "s2", "l", "m"],
            "struct": {
                "types": [
                    typ("i64"),
                    {"struct": {"types": [typ("string"), typ("i32?")], "nullability": "NULLABILITY_REQUIRED"}},
                    {"list": {"type": typ("i64"), "nullability": "NULLABILITY_REQUIRED"}},
                    {"map": {"key": typ("string"), "value": typ("i64?"), "nullability": "NULLABILITY_REQUIRED"}},
                ]
            },
        },
    }
}


def _masked(*items) -> dict:
    return {"read": {**NESTED["read"], "projection": {"select": {"structItems": list(items)}}}}


def test_read_projection_list_and_map_selects_keep_their_types():
    """[R] a mask expression "does not fundamentally alter the structure of data beyond the elimination of
    unnecessary elements": a list slice is "Same type as original list" (field references), and a map
    select keeps the map."""
    m = model_of(
        plan(
            _masked(
                {"field": 2, "child": {"list": {"selection": [{"slice": {"start": 0, "end": 2}}]}}},
                {"field": 3, "child": {"map": {"key": {"mapKey": "a"}}}},
            )
        )
    )
    assert schema_of(m, "0") == [("l", "list<i64>"), ("m", "map<string, i64?>")]


@pytest.mark.parametrize(
    "child", [{"list": {"selection": [{"slice": {"start": 0, "end": 2}}]}}, {"map": {"key": {"mapKey": "a"}}}]
)
def test_read_projection_list_or_map_select_is_not_run_silently(child):
    """The run does not apply a list or map select: the node says it cannot run, rather than giving
    the whole list or map."""
    ex = executability(model_of(plan(_masked({"field": 2 if "list" in child else 3, "child": child}))))["0"]
    assert not ex.ok and "list or a map" in ex.reason


def test_read_projection_nested_struct_select_narrows_the_struct():
    """[R] "one might initially have an inner struct with 100 fields but a particular operation only needs
    ... 2 of those 100 fields. In this situation, one would use a mask expression to eliminate the 98"."""
    m = model_of(plan(_masked({"field": 0}, {"field": 1, "child": {"struct": {"structItems": [{"field": 1}]}}})))
    s = m.node("0").schema
    assert [(f.name, f.type_text()) for f in s] == [("k", "i64"), ("s", "struct<s2: i32?>")]
    assert s[1].nested == ("s2",)
    assert codes(m) == []


def _struct_values() -> dict:
    """(k, s struct<s1 string, s2 i32?>): (1, ('x', 10)), (2, ('y', null))."""

    def row(k, s1, s2):
        return {
            "fields": [
                lit(k),
                {
                    "nested": {
                        "struct": {
                            "fields": [
                                {"literal": {"string": s1}},
                                s2 if isinstance(s2, dict) else {"literal": {"i32": s2}},
                            ]
                        }
                    }
                },
            ]
        }

    return {
        "read": {
            "baseSchema": NESTED["read"]["baseSchema"]
            | {
                "names": ["k", "s", "s1", "s2"],
                "struct": {"types": NESTED["read"]["baseSchema"]["struct"]["types"][:2]},
            },
            "virtualTable": {"expressions": [row(1, "x", 10), row(2, "y", {"literal": {"null": typ("i32?")}})]},
        }
    }


def test_read_projection_nested_struct_select_rows(spark):
    """The members the mask lists, in its order: s narrowed to (s2, s1), then k. By hand:
    (1, ('x', 10)) -> ((10, 'x'), 1); (2, ('y', null)) -> ((null, 'y'), 2)."""
    read = _struct_values()
    read["read"]["projection"] = {
        "select": {
            "structItems": [
                {"field": 1, "child": {"struct": {"structItems": [{"field": 1}, {"field": 0}]}}},
                {"field": 0},
            ]
        }
    }
    doc = plan(read)
    assert schema_of(model_of(doc), "0") == [("s", "struct<s2: i32?, s1: string>"), ("k", "i64")]
    got = sorted(((tuple(s.values()), k) for s, k in rows(doc)), key=lambda r: r[1])
    assert got == [((10, "x"), 1), ((None, "y"), 2)]


# =============================================================================================
# ProjectRel, FilterRel, CrossRel, ReferenceRel
# =============================================================================================


def test_project_expressions_follow_the_input():
    """[L] Project "Direct Output Order: The field order of the input + the list of new expressions in
    the order they are declared"."""
    rel = {"project": {"input": L, "expressions": [call(3, field(0), lit(1), out="i64"), field(1)]}}
    assert schema_of(model_of(plan(rel)), "0") == L_SCHEMA + [("add(a, 1)", "i64"), ("b", "i64?")]


def test_project_rows(spark):
    rel = {"project": {"input": L, "expressions": [call(3, field(0), lit(1), out="i64")]}}
    assert bag(rows(plan(rel))) == [(1, 10, 2), (2, 20, 3), (3, None, 4), (4, 20, 5)]


def test_filter_condition_keeps_the_input_order():
    """[L] Filter "Direct Output Order: The field order as the input"; the condition must be boolean."""
    m = model_of(plan({"filter": {"input": L, "condition": call(2, field(1), lit(15))}}))
    assert schema_of(m, "0") == L_SCHEMA
    bad = model_of(plan({"filter": {"input": L, "condition": call(3, field(0), lit(1), out="i64")}}))
    assert "type-mismatch" in codes(bad, "0")


def test_filter_rows(spark):
    # [L] "eliminates one or more records ... based on a boolean filter expression": b > 10 is true for
    # (2, 20) and (4, 20); for (3, NULL) it is null, which does not include the record
    assert bag(rows(plan({"filter": {"input": L, "condition": call(2, field(1), lit(10))}}))) == [(2, 20), (4, 20)]


def test_cross_is_left_then_right():
    """[L] Cross "Direct Output Order: The emit order of the left input followed by the emit order of the
    right input"."""
    assert schema_of(model_of(plan({"cross": {"left": L, "right": emit(R1, [1, 0])}})), "0") == L_SCHEMA + [
        ("d", "string"),
        ("c", "i64?"),
    ]


def test_cross_rows(spark):
    # [L] "pairs every record from the left input with every record of the right input": 4 x 2 rows
    assert bag(rows(plan({"cross": {"left": L, "right": R1}}))) == bag([l + r for l in L_ROWS for r in R1_ROWS])


def test_reference_is_the_referred_relation(spark):
    """[L] Reference: "A zero-indexed positional reference to a Rel defined within the same Plan";
    "Direct Output Order: Maintains order"."""
    shared = {"filter": {"input": L, "condition": call(2, field(1), lit(15))}}
    doc = plan(shared, ({"fetch": {"input": {"reference": {"subtreeOrdinal": 0}}, "countExpr": lit(10)}}, ["x", "y"]))
    m = model_of(doc)
    assert schema_of(m, "1.0") == L_SCHEMA and m.node("1.0").inputs == ["0"]
    assert bag(rows(doc, "1")) == [(2, 20), (4, 20)]


# =============================================================================================
# FetchRel
# =============================================================================================


def test_fetch_keeps_the_input_schema():
    """[L] Fetch "Direct Output Order: Unchanged from input"."""
    m = model_of(plan(sorted_l(offsetExpr=lit(1), countExpr=lit(2))))
    assert schema_of(m, "0") == L_SCHEMA and m.node("0").info.detail == "count 2, offset 1"


@pytest.mark.parametrize(
    "fields,expected",
    [
        # [N] offset: records to skip; count: records to return. Sorted by a: 1, 2, 3, 4.
        ({"offsetExpr": lit(1), "countExpr": lit(2)}, [(2, 20), (3, None)]),
        # [A] "Unset is treated as ALL" (count) / "as 0" (offset)
        ({"offsetExpr": lit(3)}, [(4, 20)]),
        # [A] "An expression evaluating to null signals that ALL records should be returned" / "is treated as 0"
        ({"offsetExpr": NULL_I64, "countExpr": NULL_I64}, L_ROWS),
        ({"countExpr": lit(0)}, []),
        # [L] the legacy fields: "use -1 to signal that ALL records should be returned"
        ({"offset": "2", "count": "-1"}, [(3, None), (4, 20)]),
        # [L] "Count ... Required": a legacy count left out is protobuf's 0 (LIMIT 0 OFFSET 2 is written so)
        ({"offset": "2"}, []),
    ],
    ids=["offset-count", "offset-only", "nulls", "count-0", "legacy-all", "legacy-offset-only"],
)
def test_fetch_rows(spark, fields, expected):
    assert rows(plan(sorted_l(**fields))) == expected


def test_fetch_negative_values_are_an_error():
    """[A] count_expr / offset_expr: "Evaluating to a negative integer should result in an error."
    (Only the legacy ``count`` used -1 for ALL.)"""
    for name in ("countExpr", "offsetExpr"):
        doc = plan(sorted_l(**{name: lit(-2)}))
        assert "negative-fetch" in codes(model_of(doc), "0"), name
        err = refusal(doc)
        assert "negative" in str(err) and "-2" in str(err)


def test_fetch_count_that_is_not_a_literal_is_refused_clearly():
    doc = plan(sorted_l(countExpr=call(3, lit(1), lit(1), out="i64")))
    assert schema_of(model_of(doc), "0") == L_SCHEMA
    assert "the fetch count and offset must be constants" in str(refusal(doc))


# =============================================================================================
# SortRel
# =============================================================================================


def test_sort_keeps_the_input_schema():
    """[L] Sort "Direct Output Order: The field order of the input"."""
    m = model_of(plan({"sort": {"input": L, "sorts": SORT_A}}))
    assert schema_of(m, "0") == L_SCHEMA and m.node("0").info.detail == "$0:a ASC NULLS LAST"


@pytest.mark.parametrize(
    "direction,expected",
    [
        # sorted by b in the given direction, then by a ascending (b = 20 twice: a = 2 before 4)
        ("SORT_DIRECTION_ASC_NULLS_FIRST", [(3, None), (1, 10), (2, 20), (4, 20)]),
        ("SORT_DIRECTION_DESC_NULLS_LAST", [(2, 20), (4, 20), (1, 10), (3, None)]),
        # (ASC_NULLS_LAST and DESC_NULLS_FIRST: the same two choices, combined the other way;
        # tests/executor/test_translate.py)
    ],
)
def test_sort_directions(spark, direction, expected):
    rel = {"sort": {"input": L, "sorts": [{"expr": field(1), "direction": direction}, SORT_A[0]]}}
    assert rows(plan(rel)) == expected


def test_sort_clustered_puts_equal_values_together(spark):
    """CLUSTERED (orderedness in [L]'s basics): equal values adjacent, in no particular order."""
    got = rows(plan({"sort": {"input": L, "sorts": [{"expr": field(1), "direction": "SORT_DIRECTION_CLUSTERED"}]}}))
    assert bag(got) == bag(L_ROWS)
    keys = [b for _, b in got]
    assert all(keys.index(k) + keys.count(k) - 1 == len(keys) - 1 - keys[::-1].index(k) for k in keys)


def test_sort_by_comparison_function_is_refused_clearly():
    doc = plan({"sort": {"input": L, "sorts": [{"expr": field(1), "comparisonFunctionReference": 2}]}})
    assert schema_of(model_of(doc), "0") == L_SCHEMA
    assert "sorting with a comparison function is not supported" in str(refusal(doc))


# =============================================================================================
# AggregateRel
# =============================================================================================


def _agg(groupings=None, measures=None, exprs=None, input_=L) -> dict:
    body = {"input": input_}
    if exprs is not None:
        body["groupingExpressions"] = exprs
    if groupings is not None:
        body["groupings"] = [{"expressionReferences": g} for g in groupings]
    if measures is not None:
        body["measures"] = measures
    return {"aggregate": body}


COUNT = {"measure": measure(5)["measure"]}
SUM_B = {"measure": measure(4, field(1), out="i64?")["measure"]}


def test_aggregate_measures_only():
    """[L] "In its simplest form, an aggregation has only measures. In this case, all records are folded
    into one, and a column is returned for each aggregate expression in the measures list"."""
    assert schema_of(model_of(plan(_agg(measures=[COUNT, SUM_B]))), "0") == [("count()", "i64"), ("sum(b)", "i64?")]


def test_aggregate_measures_only_rows(spark):
    assert rows(plan(_agg(measures=[COUNT, SUM_B]))) == [(4, 50)]  # 4 records; 10 + 20 + 20 (null skipped)
    # one record even from no records: count 0, sum null
    empty = {"filter": {"input": L, "condition": call(2, field(0), lit(99))}}
    assert rows(plan(_agg(measures=[COUNT, SUM_B], input_=empty))) == [(0, None)]


def test_aggregate_grouping_keys_then_measures():
    """[L] "Direct Output Order: The list of distinct columns from each grouping set (ordered by their
    first appearance) followed by the list of measures in declaration order"."""
    m = model_of(plan(_agg(groupings=[[0]], measures=[COUNT], exprs=[field(1)])))
    assert schema_of(m, "0") == [("b", "i64?"), ("count()", "i64")]


def test_aggregate_grouping_rows(spark):
    # group by b: 10 once, 20 twice, NULL once (nulls fold together)
    assert bag(rows(plan(_agg(groupings=[[0]], measures=[COUNT], exprs=[field(1)])))) == [(None, 1), (10, 1), (20, 2)]


def test_aggregate_several_grouping_sets():
    """[L] "The columns for grouping expressions that do not appear in all grouping sets will be nullable
    (regardless of the nullability of the type returned by the grouping expression)"; "an aggregate
    relation with more than one grouping set receives an extra i32 column on the right-hand side"."""
    m = model_of(plan(_agg(groupings=[[0, 1], [0]], measures=[COUNT], exprs=[field(1), field(0)])))
    assert schema_of(m, "0") == [("b", "i64?"), ("a", "i64?"), ("count()", "i64"), ("grouping_set", "i32")]


def test_aggregate_several_grouping_sets_rows(spark):
    # GROUPING SETS ((b), ()): set 0 groups by b, set 1 folds every record; "The value of this field
    # will be the zero-based index of the grouping set that yielded the record"
    got = rows(plan(_agg(groupings=[[0], []], measures=[COUNT], exprs=[field(1)])))
    assert bag(got) == [(None, 1, 0), (None, 4, 1), (10, 1, 0), (20, 2, 0)]


def test_aggregate_equal_grouping_expressions_share_a_column():
    """[L] "Two grouping expressions will be returned using the same column if the protobuf messages
    describing the expressions are equal"."""
    m = model_of(plan(_agg(groupings=[[0], [1]], measures=[COUNT], exprs=[field(1), field(1)])))
    assert schema_of(m, "0") == [("b", "i64?"), ("count()", "i64"), ("grouping_set", "i32")]


def test_aggregate_keys_in_order_of_first_appearance():
    """[L]'s rule orders keys by their first appearance in the grouping sets. (The newer text, written for
    grouping_expressions, says "in declaration order"; the two differ only when a set references them out
    of order: see docs/relation-fields.md.)"""
    m = model_of(plan(_agg(groupings=[[1, 0]], measures=[COUNT], exprs=[field(0), field(1)])))
    assert schema_of(m, "0") == [("b", "i64?"), ("a", "i64"), ("count()", "i64")]


def test_aggregate_without_measures_and_the_legacy_grouping_form():
    """[L] "If at least one grouping expression is present, the aggregation is allowed to not have any
    aggregate expressions"; [A] Grouping.grouping_expressions is "Deprecated in favor of
    expression_references" and is upgraded, not dropped. "An aggregate relation is invalid if it would
    yield zero columns"."""
    assert schema_of(model_of(plan(_agg(groupings=[[0]], exprs=[field(1)]))), "0") == [("b", "i64?")]
    legacy = {"aggregate": {"input": L, "groupings": [{"groupingExpressions": [field(1)]}]}}
    assert schema_of(model_of(plan(legacy)), "0") == [("b", "i64?")]
    assert "empty-aggregate" in codes(model_of(plan(_agg())), "0")


def test_aggregate_without_measures_is_distinct(spark):
    assert bag(rows(plan(_agg(groupings=[[0]], exprs=[field(1)])))) == [(None,), (10,), (20,)]


def test_aggregate_measure_filter_and_invocation(spark):
    """[L] Measure.filter: "filter which records are included in the measure. True means include this
    record"; [R] invocation DISTINCT: "Use only distinct values in the aggregation calculation"."""
    a_gt_1 = call(2, field(0), lit(1))
    measures = [
        {**COUNT, "filter": a_gt_1},
        {**SUM_B, "filter": a_gt_1},
        {"measure": {**SUM_B["measure"], "invocation": "AGGREGATION_INVOCATION_DISTINCT"}},
        {"measure": {**measure(5, field(1))["measure"], "invocation": "AGGREGATION_INVOCATION_DISTINCT"}},
    ]
    # a > 1: records 2, 3, 4: count 3, sum 20 + 20 = 40 (null skipped); distinct b: {10, 20}: sum 30, count 2
    assert rows(plan(_agg(measures=measures))) == [(3, 40, 30, 2)]


# =============================================================================================
# JoinRel (and the physical joins, whose "Direct Output Order" is "Same as the Join operator" [P])
# =============================================================================================

# [L] Join Types, on b = c. Outer joins pad the other side with nulls (so its fields are nullable);
# semi and anti joins output one side; a mark join appends a nullable boolean after its side ([N]:
# "listed after all columns from left side"; the shared [L] copy says "after all columns from both
# sides", which its own Direct Output Order contradicts for a semi-like join: docs/relation-fields.md).
JOIN_SCHEMAS = {
    "INNER": L_SCHEMA + R_SCHEMA,
    "OUTER": L_NULLABLE + R_NULLABLE,
    "LEFT": L_SCHEMA + R_NULLABLE,
    "RIGHT": L_NULLABLE + R_SCHEMA,
    "LEFT_SEMI": L_SCHEMA,
    "RIGHT_SEMI": R_SCHEMA,
    "LEFT_ANTI": L_SCHEMA,
    "RIGHT_ANTI": R_SCHEMA,
    "LEFT_SINGLE": L_SCHEMA + R_NULLABLE,
    "RIGHT_SINGLE": L_NULLABLE + R_SCHEMA,
    "LEFT_MARK": L_SCHEMA + [("mark", "boolean?")],
    "RIGHT_MARK": R_SCHEMA + [("mark", "boolean?")],
}

_INNER = [(1, 10, 10, "x"), (2, 20, 20, "y"), (2, 20, 20, "z"), (4, 20, 20, "y"), (4, 20, 20, "z")]
# Worked out by hand from [L]'s Join Types table on L and R (L and R1 for the single joins, where each
# record must find at most one partner).
JOIN_ROWS = {
    "INNER": (R, _INNER),
    "LEFT": (R, _INNER + [(3, None, None, None)]),
    "RIGHT": (R, _INNER + [(None, None, None, "w"), (None, None, 50, "v")]),
    "OUTER": (R, _INNER + [(3, None, None, None), (None, None, None, "w"), (None, None, 50, "v")]),
    "LEFT_SEMI": (R, [(1, 10), (2, 20), (4, 20)]),
    "LEFT_ANTI": (R, [(3, None)]),
    "RIGHT_SEMI": (R, [(10, "x"), (20, "y"), (20, "z")]),
    "RIGHT_ANTI": (R, [(None, "w"), (50, "v")]),
    "LEFT_SINGLE": (R1, [(1, 10, 10, "x"), (2, 20, 20, "y"), (3, None, None, None), (4, 20, 20, "y")]),
    # each record of R1 ... 20 has two partners in L; R1's 10 one: the right single join uses R's 10 and 50
    "RIGHT_SINGLE": (values(R_COLS, [(10, "x"), (50, "v")]), [(1, 10, 10, "x"), (None, None, 50, "v")]),
    # a = 3 has b NULL: b = c is null for every right record, none true: the mark is NULL
    "LEFT_MARK": (R, [(1, 10, True), (2, 20, True), (3, None, None), (4, 20, True)]),
    # (NULL, w) compares null with all; (50, v) is false against 10, 20, 20 but null against b NULL
    "RIGHT_MARK": (R, [(10, "x", True), (20, "y", True), (20, "z", True), (None, "w", None), (50, "v", None)]),
}


@pytest.mark.parametrize("join_type", sorted(JOIN_SCHEMAS))
def test_join_type_schemas(join_type):
    rel = {"join": {"left": L, "right": R, "expression": B_EQ_C, "type": f"JOIN_TYPE_{join_type}"}}
    m = model_of(plan(rel))
    assert schema_of(m, "0") == JOIN_SCHEMAS[join_type]
    assert m.node("0").info.expressions == [("on", "equal($1:b, $2:c)")]  # [L]: "the direct output order of the data"


@pytest.mark.parametrize("join_type", sorted(JOIN_ROWS))
def test_join_type_rows(spark, join_type):
    right, expected = JOIN_ROWS[join_type]
    rel = {"join": {"left": L, "right": right, "expression": B_EQ_C, "type": f"JOIN_TYPE_{join_type}"}}
    assert bag(rows(plan(rel))) == bag(expected)


@pytest.mark.parametrize("join_type", ["LEFT_SINGLE", "RIGHT_SINGLE"])
def test_a_single_join_with_two_matches_for_a_record_stops(spark, join_type):
    """[L] a single join returns "one arbitrary matching record" or throws: with R, L's 20s have two partners
    (y, z) and R's 20s two (L's 2 and 4). One arbitrary match would be a row that looks right and differs
    from run to run, so the run stops, naming the side."""
    rel = {"join": {"left": L, "right": R, "expression": B_EQ_C, "type": f"JOIN_TYPE_{join_type}"}}
    with pytest.raises(ExecutionError, match="matches more than one row of the (right|left) input in a"):
        rows(plan(rel))


def test_a_left_semi_join_s_post_join_filter_on_the_right_input_is_refused_clearly(spark):
    """A left semi join's records are the left input's alone; a post-join filter reading the right input's
    columns is refused with the reason (it was Spark's unresolved column ``_3``); one on the left's runs."""
    right_col = {"join": {"left": L, "right": R, "expression": B_EQ_C, "type": "JOIN_TYPE_LEFT_SEMI"}}
    right_col["join"]["postJoinFilter"] = call(1, field(3), _lit("y", "string"))
    assert "reads the right input on a left semi/anti join" in str(refusal(plan(right_col)))


@pytest.mark.parametrize("join_type", ["INNER", "LEFT"])
def test_lateral_join_whose_right_does_not_read_the_left_row_runs_as_a_join(spark, join_type):
    """[L] a lateral join's right input is evaluated per left row; one that reads nothing of the left row
    gives every left row the same right input: the join's rows (worked out by hand above)."""
    rel = {
        "lateralJoin": {
            "common": {"relAnchor": 1},
            "left": L,
            "right": R,
            "expression": B_EQ_C,
            "type": f"JOIN_TYPE_{join_type}",
        }
    }
    assert bag(rows(plan(rel))) == bag(JOIN_ROWS[join_type][1])


def test_lateral_join_whose_right_reads_the_left_row_is_refused_clearly():
    right = {
        "filter": {
            "input": R,
            "condition": call(
                1,
                field(0),
                {
                    "selection": {
                        "directReference": {"structField": {"field": 1}},
                        "outerReference": {"relReference": 1},
                    }
                },
            ),
        }
    }
    rel = {"lateralJoin": {"common": {"relAnchor": 1}, "left": L, "right": right, "type": "JOIN_TYPE_INNER"}}
    err = refusal(plan(rel))
    assert "outer references to a lateral relation are not supported" in str(err)


def test_join_without_expression_and_unspecified_type():
    """[L] Join Expression "Required. Can be the literal True": one left out matches everything.
    An unspecified type is an error, and is not run."""
    m = model_of(plan({"join": {"left": L, "right": R1, "type": "JOIN_TYPE_INNER"}}))
    assert schema_of(m, "0") == L_SCHEMA + R_SCHEMA and codes(m, "0") == []
    doc = plan({"join": {"left": L, "right": R1, "expression": B_EQ_C}})
    assert "unspecified-join-type" in codes(model_of(doc), "0")
    assert "unspecified" in str(refusal(doc))


def test_join_post_join_filter_reads_the_input_order():
    """[L] Post-Join Filter: "A boolean condition to be applied to each result record after the inputs
    have been joined"; its references are over the left fields then the right ones, like the join
    expression ([N] "All field references of Join Properties are over this order")."""
    rel = {
        "join": {
            "left": L,
            "right": R,
            "expression": B_EQ_C,
            "postJoinFilter": call(2, field(2), lit(15)),
            "type": "JOIN_TYPE_LEFT",
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == JOIN_SCHEMAS["LEFT"]
    assert ("post-join filter", "gt($2:c, 15)") in m.node("0").info.expressions
    bad = {"join": {**rel["join"], "postJoinFilter": call(3, field(0), lit(1), out="i64")}}
    assert "type-mismatch" in codes(model_of(plan(bad)), "0")


def test_join_post_join_filter_applies_after_the_join(spark):
    # LEFT join on b = c, then c > 15: (1, 10, 10, x) fails; (3, NULL, NULL, NULL) - the padded record -
    # is null, so it is not kept either (an ON condition would have kept both left records)
    rel = {
        "join": {
            "left": L,
            "right": R,
            "expression": B_EQ_C,
            "postJoinFilter": call(2, field(2), lit(15)),
            "type": "JOIN_TYPE_LEFT",
        }
    }
    assert bag(rows(plan(rel))) == bag(_INNER[1:])


def test_join_post_join_filter_on_a_mark_join_is_not_silently_dropped(spark):
    """A mark join outputs one side and the mark, so a post-join filter over both sides has no record to
    apply to after it; it is refused rather than dropped (it was dropped)."""
    doc = plan(
        {
            "join": {
                "left": L,
                "right": R,
                "expression": B_EQ_C,
                "postJoinFilter": call(2, field(2), lit(15)),
                "type": "JOIN_TYPE_LEFT_MARK",
            }
        }
    )
    with pytest.raises(Unsupported, match="post-join filter on a mark join"):
        rows(doc)


# -- HashJoinRel, MergeJoinRel ----------------------------------------------------------------------


def _key(left: int, right: int, simple: str = "SIMPLE_COMPARISON_TYPE_EQ") -> dict:
    return {"left": ref(left), "right": ref(right), "comparison": {"simple": simple}}


def _hash(*keys, kind: str = "hashJoin", jtype="JOIN_TYPE_INNER", **extra) -> dict:
    return {kind: {"left": L, "right": R, "keys": list(keys), "type": jtype, **extra}}


def test_hash_join_keys_index_each_side():
    """[P] "Left Keys: References to the fields to join on in the left input. Right Keys: ... in the right
    input" (so c is right field 0, shown as the incoming record's field 2)."""
    for kind in ("hashJoin", "mergeJoin"):
        m = model_of(plan(_hash(_key(1, 0), kind=kind)))
        assert schema_of(m, "0") == JOIN_SCHEMAS["INNER"]
        assert m.node("0").info.expressions == [("key", "$1:b = $2:c")]
        assert m.node("0").info.referenced_fields == {1, 2}


def test_hash_join_comparison_types_are_shown_as_they_compare():
    """[A] ComparisonJoinKey: IS_NOT_DISTINCT_FROM "Returns true if both values are null"; MIGHT_EQUAL
    "Returns true if either value is null ... a = b OR isnull(a = b)"."""
    texts = {}
    for simple in ("EQ", "IS_NOT_DISTINCT_FROM", "MIGHT_EQUAL"):
        m = model_of(plan(_hash(_key(1, 0, f"SIMPLE_COMPARISON_TYPE_{simple}"))))
        texts[simple] = m.node("0").info.expressions[0][1]
    assert texts == {
        "EQ": "$1:b = $2:c",
        "IS_NOT_DISTINCT_FROM": "$1:b IS NOT DISTINCT FROM $2:c",
        "MIGHT_EQUAL": "$1:b MIGHT EQUAL $2:c",
    }


@pytest.mark.parametrize(
    "simple,expected",
    [
        ("SIMPLE_COMPARISON_TYPE_EQ", _INNER),  # "Returns true only if both values are equal and not null"
        ("SIMPLE_COMPARISON_TYPE_IS_NOT_DISTINCT_FROM", _INNER + [(3, None, None, "w")]),
        # a = b OR isnull(a = b): a = 3 (b NULL) matches all five; (NULL, w) matches every left record
        (
            "SIMPLE_COMPARISON_TYPE_MIGHT_EQUAL",
            _INNER + [(3, None) + r for r in R_ROWS] + [(1, 10, None, "w"), (2, 20, None, "w"), (4, 20, None, "w")],
        ),
    ],
)
def test_hash_join_comparison_rows(spark, simple, expected):
    assert bag(rows(plan(_hash(_key(1, 0, simple))))) == bag(expected)


def test_hash_join_needs_keys():
    """[A] keys: "One or more keys to join on. The relation is invalid if this is empty (unless the
    deprecated left_keys/right_keys fields are being used)"."""
    doc = plan(_hash())
    assert "no-join-keys" in codes(model_of(doc), "0")
    assert "no keys" in str(refusal(doc))


def test_hash_join_legacy_left_and_right_keys_are_upgraded():
    """[A] left_keys/right_keys: "deprecated in favor of keys. If they are set then the two lists ... must
    have the same length and the comparion function is considered to be SimpleEqualityType::EQ"."""
    for kind in ("hashJoin", "mergeJoin"):
        legacy = {kind: {"left": L, "right": R, "leftKeys": [ref(1)], "rightKeys": [ref(0)], "type": "JOIN_TYPE_INNER"}}
        m = model_of(plan(legacy))
        assert m.node("0").info.expressions == [("key", "$1:b = $2:c")], kind
        assert "legacy-upgraded" in codes(m) and "unknown-field" not in codes(m)  # listed, nothing lost


def test_hash_join_legacy_keys_are_upgraded_from_binary_plans():
    from substrait import algebra_pb2, plan_pb2

    from viz.model import analyze

    doc = plan(_hash(_key(1, 0)))
    m = model_of(doc)
    p = plan_pb2.Plan()
    p.CopyFrom(m.plan)
    join = p.relations[0].rel.hash_join
    join.ClearField("keys")
    # the legacy fields 4 and 5 (FieldReference), written by hand on the wire as an older producer would
    key_l, key_r = algebra_pb2.Expression.FieldReference(), algebra_pb2.Expression.FieldReference()
    key_l.direct_reference.struct_field.field = 1
    key_r.direct_reference.struct_field.field = 0
    key_l.root_reference.SetInParent()
    key_r.root_reference.SetInParent()
    raw = join.SerializeToString()
    for number, k in ((4, key_l), (5, key_r)):
        body = k.SerializeToString()
        raw += bytes([number << 3 | 2, len(body)]) + body
    join.ParseFromString(raw)
    m2 = analyze(p.SerializeToString())
    assert m2.node("0").info.expressions == [("key", "$1:b = $2:c")]


def test_hash_join_legacy_keys_rows(spark):
    legacy = {
        "hashJoin": {"left": L, "right": R, "leftKeys": [ref(1)], "rightKeys": [ref(0)], "type": "JOIN_TYPE_INNER"}
    }
    assert bag(rows(plan(legacy))) == bag(_INNER)


def test_hash_join_type_enum_is_its_own(spark):
    """HashJoinRel.JoinType numbers its values differently from JoinRel's (7 is LEFT_ANTI there, LEFT_SINGLE
    in JoinRel): read by name from each message's own enum."""
    rel = _hash(_key(1, 0), jtype=7)
    assert schema_of(model_of(plan(rel)), "0") == L_SCHEMA
    assert rows(plan(rel)) == [(3, None)]


def test_hash_join_post_join_filter_and_build_input(spark):
    """[P] "Post Join Predicate: An additional expression that can be used to reduce the output of the
    join operation post the equality condition"; [A] build_input only picks the hash table's side."""
    rel = _hash(
        _key(1, 0), jtype="JOIN_TYPE_LEFT", postJoinFilter=call(2, field(2), lit(15)), buildInput="BUILD_INPUT_LEFT"
    )
    m = model_of(plan(rel))
    assert schema_of(m, "0") == JOIN_SCHEMAS["LEFT"]
    assert ("post-join filter", "gt($2:c, 15)") in m.node("0").info.expressions
    assert bag(rows(plan(rel))) == bag(_INNER[1:])  # as the JoinRel case: the padded (3, NULL) fails c > 15


def test_join_key_with_a_custom_comparison_is_refused_clearly():
    """[A] ComparisonJoinKey.custom_function_reference: "A custom comparison behavior ... must be a binary
    function with a boolean return type": not run (Spark has no such join)."""
    key = {"left": ref(1), "right": ref(0), "comparison": {"customFunctionReference": 1}}
    doc = plan(_hash(key))
    assert schema_of(model_of(doc), "0") == JOIN_SCHEMAS["INNER"]
    assert "a join key with a custom comparison function is not supported" in str(refusal(doc))


# -- NestedLoopJoinRel ------------------------------------------------------------------------------


def test_nested_loop_join_expression_is_optional():
    """[P] NLJ Join Expression: "Optional. Defaults to true (a Cartesian join)"."""
    m = model_of(plan({"nestedLoopJoin": {"left": L, "right": R1, "type": "JOIN_TYPE_INNER"}}))
    assert schema_of(m, "0") == L_SCHEMA + R_SCHEMA and codes(m, "0") == []


def test_nested_loop_join_rows(spark):
    assert bag(rows(plan({"nestedLoopJoin": {"left": L, "right": R1, "type": "JOIN_TYPE_INNER"}}))) == bag(
        [l + r for l in L_ROWS for r in R1_ROWS]
    )


# =============================================================================================
# SetRel
# =============================================================================================


def _set(op: str, *inputs: list) -> dict:
    return {"set": {"op": op, "inputs": [values([("n", "i64?")], [(v,) for v in vs]) for vs in inputs]}}


# [N]'s own examples (p, s1, s2 -> yields), each op's rule in its comment
SET_CASES = {
    # "excluding any matching rows from secondary inputs, removing duplicates" (EXCEPT DISTINCT)
    "SET_OP_MINUS_PRIMARY": ([1, 2, 2, 3, 3, 3, 4], [1, 2], [3], [4]),
    # "max(0, m - sum(n1, n2, ..., n)) copies" (EXCEPT ALL)
    "SET_OP_MINUS_PRIMARY_ALL": ([1, 2, 2, 3, 3, 3, 3], [1, 2, 3, 4], [3], [2, 3, 3]),
    # "excluding any records that are included in *all* secondary inputs"
    "SET_OP_MINUS_MULTISET": ([1, 2, 3, 4], [1, 2], [1, 2, 3], [3, 4]),
    # "present in any secondary input, removing duplicates"
    "SET_OP_INTERSECTION_PRIMARY": ([1, 2, 2, 3, 3, 3, 4], [1, 2, 3, 5], [2, 3, 6], [1, 2, 3]),
    # "match at least one record from *all* secondary inputs" (INTERSECT DISTINCT)
    "SET_OP_INTERSECTION_MULTISET": ([1, 2, 3, 4], [2, 3], [3, 4], [3]),
    # "min(m, n1, n2, ..., n) copies" (INTERSECT ALL)
    "SET_OP_INTERSECTION_MULTISET_ALL": ([1, 2, 2, 3, 3, 3, 4], [1, 2, 3, 3, 5], [2, 3, 3, 6], [2, 3, 3]),
    "SET_OP_UNION_DISTINCT": ([1, 2, 2, 3, 3, 3, 4], [2, 3, 5], [1, 6], [1, 2, 3, 4, 5, 6]),
    "SET_OP_UNION_ALL": ([1, 2, 2, 3, 3, 3, 4], [2, 3, 5], [1, 6], [1, 2, 2, 3, 3, 3, 4, 2, 3, 5, 1, 6]),
}


@pytest.mark.parametrize("op", list(SET_CASES))
def test_set_op_rows(spark, op):
    p, s1, s2, expected = SET_CASES[op]
    assert bag(rows(plan(_set(op, p, s1, s2)))) == bag([(v,) for v in expected])


def test_set_ops_match_null_with_null(spark):
    """[L] "Note that for set operations, NULL matches NULL": {NULL, 1, 3} MINUS {NULL, 2, 4} === (1), (3).
    (The spec's INTERSECTION example, {NULL, 1, 3} and {NULL, 2, 3} giving only (NULL), leaves out the 3
    both hold; with {NULL, 2, 4} it gives (NULL).)"""
    assert bag(rows(plan(_set("SET_OP_MINUS_PRIMARY", [None, 1, 3], [None, 2, 4])))) == [(1,), (3,)]
    assert rows(plan(_set("SET_OP_INTERSECTION_MULTISET", [None, 1, 3], [None, 2, 4]))) == [(None,)]


def test_set_op_schema_and_problems():
    """[L] Set "Direct Output Order: The field order of the inputs. All inputs must have identical field
    types, but field nullabilities may vary"; "There must be at least two inputs" [R]."""
    rel = {"set": {"op": "SET_OP_UNION_ALL", "inputs": [L, values([("x", "i64"), ("y", "i64")], [(1, 2)])]}}
    assert schema_of(model_of(plan(rel)), "0") == L_SCHEMA  # names from the primary; b nullable in one
    assert "too-few-inputs" in codes(model_of(plan({"set": {"op": "SET_OP_UNION_ALL", "inputs": [L]}})), "0")
    assert "unspecified-set-op" in codes(model_of(plan({"set": {"inputs": [L, L]}})), "0")
    # b is i64, d a string: reported on the node (how a producer's coercion is read is another concern)
    mismatch = model_of(plan({"set": {"op": "SET_OP_UNION_ALL", "inputs": [L, R]}}))
    found = [d for d in mismatch.node("0").diagnostics if "column 1" in d.message]
    assert found and found[0].severity.value in ("error", "warning")


# =============================================================================================
# ExtensionSingleRel, ExtensionMultiRel, ExtensionLeafRel
# =============================================================================================


@pytest.mark.parametrize(
    "rel",
    [
        {"extensionSingle": {"input": L, "detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}},
        {"extensionMulti": {"inputs": [L, R], "detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}},
        {"extensionLeaf": {"detail": {"@type": "type.googleapis.com/google.protobuf.Empty"}}},
    ],
    ids=["single", "multi", "leaf"],
)
def test_extension_relations_define_their_own_output(rel):
    """[R] "Stub to support extension with a single input / multiple inputs / zero inputs": the detail
    (an Any) defines the relation, so its output is unknown here, and Spark cannot run it."""
    m = model_of(plan(rel))
    assert schema_of(m, "0") is None and codes(m, "0") == ["unknown-schema"]
    assert m.node("0").info.detail == "extension: google.protobuf.Empty"
    err = refusal(plan(rel))
    assert isinstance(err, Unsupported) and "not supported" in str(err)


# =============================================================================================
# ExpandRel, ExchangeRel, ConsistentPartitionWindowRel
# =============================================================================================

EXPAND = {
    "expand": {
        "input": L,
        "fields": [{"consistentField": field(0)}, {"switchingField": {"duplicates": [field(1), NULL_I64]}}],
    }
}


def test_expand_fields_then_the_duplicate_index():
    """[P] Expand "Direct Output Order: The expand fields followed by an i32 column describing the index of
    the duplicate that the row is derived from"; [A] SwitchingField: "The effective type of the output
    field will be nullable if any of the duplicate expressions are nullable"."""
    m = model_of(plan(EXPAND))
    assert schema_of(m, "0") == [("a", "i64"), ("b", "i64?"), ("expand_index", "i32")]
    uneven = {
        "expand": {
            "input": L,
            "fields": [
                {"switchingField": {"duplicates": [field(0)]}},
                {"switchingField": {"duplicates": [field(1), field(1)]}},
            ],
        }
    }
    assert "type-mismatch" in codes(model_of(plan(uneven)), "0")  # "must have the same number of duplicates"


def test_expand_rows(spark):
    # every record twice: duplicate 0 takes b, duplicate 1 takes NULL; a is consistent
    expected = [(a, b, 0) for a, b in L_ROWS] + [(a, None, 1) for a, _ in L_ROWS]
    assert bag(rows(plan(EXPAND))) == bag(expected)


EXCHANGES = {
    "scatter": {"scatterByFields": {"fields": [ref(1)]}, "partitionCount": 3},
    "single": {"singleTarget": {"expression": call(3, field(0), lit(1), out="i64")}},
    "multi": {
        "multiTarget": {
            "expression": {"literal": {"list": {"values": [{"i32": 0}, {"i32": 1}]}}},
            "constrainedToCount": True,
        },
        "partitionCount": 2,
    },
    "round_robin": {
        "roundRobin": {"exact": True},
        "partitionCount": 2,
        "targets": [{"partitionId": [0], "uri": "a"}, {"partitionId": [1], "uri": "b"}],
    },
    "broadcast": {"broadcast": {}},
}


@pytest.mark.parametrize("kind", list(EXCHANGES))
def test_exchange_keeps_the_input_schema(kind):
    """[P] Exchange "Direct Output Order: Order of the input"; partition_count and targets place records,
    they do not change them."""
    m = model_of(plan({"exchange": {"input": L, **EXCHANGES[kind]}}))
    assert schema_of(m, "0") == L_SCHEMA


@pytest.mark.parametrize("kind", ["scatter", "round_robin"])  # (a bucket expression runs as a repartition too)
def test_exchange_rows_are_the_input_rows(spark, kind):
    assert bag(rows(plan({"exchange": {"input": L, **EXCHANGES[kind]}}))) == bag(L_ROWS)


WINDOW = {
    "window": {
        "input": L,
        "windowFunctions": [
            {"functionReference": 6, "outputType": typ("i64"), "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT"}
        ],
        "partitionExpressions": [field(1)],
        "sorts": SORT_A,
    }
}


def test_window_input_then_functions():
    """[P] Consistent Partition Window "Direct Output Order: Same as Project operator (input followed by each
    window expression)"."""
    m = model_of(plan(WINDOW))
    assert schema_of(m, "0") == L_SCHEMA + [("row_number()", "i64")]
    assert m.node("0").info.detail == "1 window function, partition by $1:b, order by $0:a ASC NULLS LAST"


def test_window_rows(spark):
    # row_number() over (partition by b order by a): b = 20 holds a = 2 then 4; the others are alone
    assert bag(rows(plan(WINDOW))) == [(1, 10, 1), (2, 20, 1), (3, None, 1), (4, 20, 2)]


def test_window_keeps_its_input_order(spark):
    """[P] Consistent Partition Window "Property Maintenance: Maintains distribution and ordering", and a Fetch
    above it takes the first records of that order (a review's plan: Spark's window, a shuffle by partition,
    had given them grouped by partition). By hand: L by a DESC is a = 4, 3, 2, 1; row_number() by b in a's
    order is 2, 1, 1, 1 (b = 20 holds a = 2 then 4)."""
    by_a_desc = {"sort": {"input": L, "sorts": [{"expr": field(0), "direction": "SORT_DIRECTION_DESC_NULLS_LAST"}]}}
    window = {"window": {**WINDOW["window"], "input": by_a_desc}}
    assert model_of(plan(window)).node("0").properties.order_text() == "$0:a DESC NULLS LAST"
    assert rows(plan(window)) == [(4, 20, 2), (3, None, 1), (2, 20, 1), (1, 10, 1)]
    assert rows(plan({"fetch": {"input": window, "count": "2"}})) == [(4, 20, 2), (3, None, 1)]


def test_window_function_bounds(spark):
    """[A] WindowRelFunction lower_bound / upper_bound: "The bound is inclusive"; bounds_type ROWS: "how many
    rows before and after the current row the window should extend"."""
    running = {
        "window": {
            "input": L,
            "sorts": SORT_A,
            "windowFunctions": [
                {
                    "functionReference": 4,
                    "arguments": [{"value": field(1)}],
                    "outputType": typ("i64?"),
                    "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
                    "boundsType": "BOUNDS_TYPE_ROWS",
                    "lowerBound": {"preceding": {"offset": "1"}},
                    "upperBound": {"currentRow": {}},
                }
            ],
        }
    }
    assert schema_of(model_of(plan(running)), "0") == L_SCHEMA + [("sum(b)", "i64?")]
    # by a: the previous and the current b: 10; 10 + 20; 20 + NULL; NULL + 20
    assert bag(rows(plan(running))) == [(1, 10, 10), (2, 20, 30), (3, None, 20), (4, 20, 20)]


def test_window_distinct_and_range_offsets_are_said_and_refused(spark):
    """[A] WindowRelFunction invocation: "whether equivalent records are merged before being aggregated": shown
    as count(DISTINCT …), and refused (Spark computes no window function on distinct values; it had given
    its DISTINCT_WINDOW_FUNCTION_UNSUPPORTED text). No bound is the whole partition: said as such for a window
    relation's function too (it read as SQL's running frame). A RANGE frame bounded by an offset needs one
    numeric sort key (Spark's DATATYPE_MISMATCH text before)."""

    def function(fn: int, **more) -> dict:
        return {
            "functionReference": fn,
            "arguments": [{"value": field(1)}],
            "outputType": typ("i64?"),
            "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
            **more,
        }

    counted = {
        "window": {**WINDOW["window"], "windowFunctions": [function(5, invocation="AGGREGATION_INVOCATION_DISTINCT")]}
    }
    m = model_of(plan(counted))
    assert m.node("0").info.expressions[-1][1] == (
        "count(DISTINCT $1:b) OVER (PARTITION BY $1:b ORDER BY $0:a ASC NULLS LAST "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
    )
    with pytest.raises(Unsupported, match="`count` with DISTINCT over a window: Spark computes no window function"):
        rows(plan(counted))
    ranged = function(
        4, boundsType="BOUNDS_TYPE_RANGE", lowerBound={"preceding": {"offset": "1"}}, upperBound={"currentRow": {}}
    )
    two_keys = {"window": {**WINDOW["window"], "sorts": SORT_A * 2, "windowFunctions": [ranged]}}
    with pytest.raises(Unsupported, match="RANGE frame bounded by an offset, with 2 sort keys"):
        rows(plan(two_keys))
    text_key = {
        "window": {
            "input": R,
            "sorts": [{"expr": field(1), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}],
            "windowFunctions": [{**ranged, "arguments": [{"value": field(0)}]}],
        }
    }
    with pytest.raises(Unsupported, match="ordered by a value of type string: the offset is a distance in numbers"):
        rows(plan(text_key))
    # one numeric key: b within 1 of the current row's a... by hand, a = 1..4 and sum(b) over a in [a - 1, a]
    one_key = {"window": {**WINDOW["window"], "partitionExpressions": [], "windowFunctions": [ranged]}}
    assert bag(rows(plan(one_key))) == [(1, 10, 10), (2, 20, 30), (3, None, 20), (4, 20, 20)]


def test_a_sort_without_sort_fields_is_a_plan_error():
    """[L] Sort: "Sort Fields | List of one or more fields to sort by. | One sort field required" (Spark's
    CANNOT_BE_EMPTY text had been the only word)."""
    m = model_of(plan({"sort": {"input": L}}))
    assert "no-sort-fields" in codes(m, "0")
    assert "no-sort-fields" in executability(m)["0"].reason


def test_what_the_spec_requires_of_a_window_a_measure_filter_and_a_fetch_count_is_checked():
    """[P] Consistent Partition Window: "Window Functions ... At least one required"; [A] Measure filter: "An
    optional boolean expression"; [A] FetchRel count_expr "evaluates to a non-negative integer". A review's
    plans had run without a word (a filter of 1 as true, a count of '2' as 2)."""
    bare = {"window": {**WINDOW["window"], "windowFunctions": []}}
    assert "no-window-functions" in codes(model_of(plan(bare)), "0")
    one = {"literal": {"i32": 1}}
    grouped = {"aggregate": {"input": L, "measures": [{**measure(5, field(0)), "filter": one}]}}
    m = model_of(plan(grouped))
    assert "type-mismatch" in codes(m, "0")
    assert any("measure 0's filter must be boolean, but is i32" in d.message for d in m.node("0").info.diagnostics)
    texts = model_of(plan({"fetch": {"input": L, "countExpr": {"literal": {"string": "2"}}}}))
    assert any(
        "the fetch count must be an integer, but is string" in d.message for d in texts.node("0").info.diagnostics
    )
    assert "type-mismatch" not in codes(model_of(plan(sorted_l(countExpr=lit(2)))), "0")


# -- TopNRel (physical: "a combination of a logical sort and logical fetch operations" [P]) ---------------


def _top(count: int, mode: str, offset: int | None = None) -> dict:
    body = {
        "input": L,
        "sorts": [{"expr": field(1), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}],
        "count": lit(count),
        "mode": mode,
    }
    if offset is not None:
        body["offset"] = lit(offset)
    return {"topN": body}


def test_top_n_keeps_the_input_schema():
    """[P] Top-N "Direct Output Order: The field order of the input"."""
    m = model_of(plan(_top(2, "FETCH_MODE_WITH_TIES", offset=1)))
    assert schema_of(m, "0") == L_SCHEMA
    assert m.node("0").info.detail == "top 2 with ties offset 1 by $1:b ASC NULLS LAST"


def test_top_n_rows_only_and_with_ties(spark):
    # by b: 10, 20, 20, NULL. Two rows: 10 and one of the 20s; with ties the other 20 too
    only = rows(plan(_top(2, "FETCH_MODE_ROWS_ONLY")))
    assert only[0] == (1, 10) and only[1] in [(2, 20), (4, 20)] and len(only) == 2
    assert bag(rows(plan(_top(2, "FETCH_MODE_WITH_TIES")))) == [(1, 10), (2, 20), (4, 20)]
    # offset 1: skip 10, then one 20 and its tie
    assert bag(rows(plan(_top(1, "FETCH_MODE_WITH_TIES", offset=1)))) == [(2, 20), (4, 20)]


# =============================================================================================
# WriteRel, DdlRel, UpdateRel: never run
# =============================================================================================

TABLE_SCHEMA = {"names": ["x", "y"], "struct": {"types": [typ("i64"), typ("i64?")]}}


@pytest.mark.parametrize(
    "output,expected",
    [
        ("OUTPUT_MODE_NO_OUTPUT", []),  # "return no records at all"
        ("OUTPUT_MODE_UNSPECIFIED", []),  # [L] "Common default is NO_OUTPUT"
        # "return all the record INSERTED/DELETED/UPDATED ... the AFTER-image": the table's columns
        ("OUTPUT_MODE_MODIFIED_RECORDS", [("x", "i64"), ("y", "i64?")]),
    ],
)
def test_write_output_mode(output, expected):
    rel = {
        "write": {
            "namedTable": {"names": ["t"]},
            "tableSchema": TABLE_SCHEMA,
            "op": "WRITE_OP_CTAS",
            "createMode": "CREATE_MODE_REPLACE_IF_EXISTS",
            "input": L,
            "output": output,
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == expected
    assert m.node("0").info.detail == "ctas t"
    err = refusal(plan(rel))
    assert isinstance(err, Refused) and "never executed" in str(err) and "writes a table" in str(err)


def test_write_modified_records_without_table_schema_keeps_the_input():
    """[L] Write "Direct Output Order: Unchanged from input"."""
    rel = {
        "write": {
            "namedTable": {"names": ["t"]},
            "op": "WRITE_OP_DELETE",
            "input": L,
            "output": "OUTPUT_MODE_MODIFIED_RECORDS",
        }
    }
    assert schema_of(model_of(plan(rel)), "0") == L_SCHEMA


def test_ddl_has_no_output_and_is_refused():
    """[L] DDL: "Outputs 0", "Direct Output Order N/A"; the view definition is an input of the node."""
    rel = {
        "ddl": {
            "namedObject": {"names": ["v"]},
            "tableSchema": TABLE_SCHEMA,
            "object": "DDL_OBJECT_VIEW",
            "op": "DDL_OP_CREATE_OR_REPLACE",
            "viewDefinition": L,
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [] and m.node("0").inputs == ["0.0"]
    assert m.node("0").info.detail == "create_or_replace view v"
    err = refusal(plan(rel))
    assert isinstance(err, Refused) and "creates, alters or drops a table" in str(err)
    # its view definition alone runs (it changes nothing)
    assert schema_of(m, "0.0") == L_SCHEMA


def test_update_reads_the_table_schema_and_is_refused():
    """[A] UpdateRel: table_schema "The full schema of the named_table"; condition and transformations read
    it; column_target is an "index of the column to apply the transformation to"."""
    rel = {
        "update": {
            "namedTable": {"names": ["t"]},
            "tableSchema": TABLE_SCHEMA,
            "condition": call(2, field(1), lit(0)),
            "transformations": [{"columnTarget": 1, "transformation": call(3, field(0), lit(1), out="i64")}],
        }
    }
    m = model_of(plan(rel))
    assert schema_of(m, "0") == [("x", "i64"), ("y", "i64?")]
    assert m.node("0").info.expressions == [("condition", "gt($1:y, 0)"), ("set $1", "add($0:x, 1)")]
    err = refusal(plan(rel))
    assert isinstance(err, Refused) and "updates a table" in str(err)
