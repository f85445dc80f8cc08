"""Loading: format detection, legacy upgrades in JSON and binary, deep plans, and bad input."""

from __future__ import annotations

import json
import os

import pytest
from google.protobuf.internal import encoder
from substrait import algebra_pb2, plan_pb2

from tests.support import CORPORA, ROOT
from tests.support.plans import CUSTOMERS, ORDERS, field, model_of, plan, read, schema_of
from viz.errors import PlanLoadError
from viz.load import load_plan
from viz.model import analyze


def _ld(number: int, payload: bytes) -> bytes:
    return encoder._VarintBytes((number << 3) | 2) + encoder._VarintBytes(len(payload)) + payload


def _varint(number: int, value: int) -> bytes:
    return encoder._VarintBytes(number << 3) + encoder._VarintBytes(value & 0xFFFFFFFFFFFFFFFF)


def test_json_and_binary_are_detected_from_content():
    doc = plan((read("orders", ORDERS), ["a", "b", "c"]))
    as_json = load_plan(json.dumps(doc).encode())
    as_binary = load_plan(as_json.plan.SerializeToString())
    assert as_json.format == "json" and as_binary.format == "binary"
    assert as_json.plan == as_binary.plan
    # Leading whitespace and a BOM do not confuse detection.
    assert load_plan(b"\xef\xbb\xbf  \n" + json.dumps(doc).encode()).format == "json"


def test_legacy_json_fields_are_upgraded_and_listed():
    doc = {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions_comparison.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "equal:any_any"}}
        ],
        "relations": [
            {
                "root": {
                    "input": {
                        "fetch": {
                            "input": {
                                "join": {
                                    "left": read("orders", ORDERS),
                                    "right": read("customers", CUSTOMERS),
                                    "type": "JOIN_TYPE_SEMI",
                                    "expression": {
                                        "scalarFunction": {
                                            "functionReference": 1,
                                            "args": [field(1), field(3)],
                                            "outputType": {"bool": {}},
                                        }
                                    },
                                }
                            },
                            "offset": "2",
                            "count": "5",
                        }
                    },
                    "names": ["a", "b", "c"],
                }
            }
        ],
    }
    loaded = load_plan(json.dumps(doc).encode())
    p = loaded.plan
    assert p.extension_urns[0].urn == "/functions_comparison.yaml" and loaded.legacy_uri_anchors == {1}
    assert p.extensions[0].extension_function.extension_urn_reference == 1
    fetch = p.relations[0].root.input.fetch
    assert fetch.offset_expr.literal.i64 == 2 and fetch.count_expr.literal.i64 == 5
    join = fetch.input.join
    assert join.type == algebra_pb2.JoinRel.JOIN_TYPE_LEFT_SEMI
    assert len(join.expression.scalar_function.arguments) == 2
    notes = " | ".join(d.message for d in loaded.diagnostics if d.code == "legacy-upgraded")
    for what in (
        "extensionUris",
        "extensionUriReference",
        "FetchRel.offset",
        "FetchRel.count",
        "JOIN_TYPE_SEMI",
        "args",
    ):
        assert what in notes, what
    assert all(d.severity.value == "info" for d in loaded.diagnostics if d.code == "legacy-upgraded")
    # The legacy URI is shown as a URI.
    m = analyze(json.dumps(doc).encode())
    assert m.extensions.to_json()["extensions"] == [{"anchor": 1, "uri": "/functions_comparison.yaml"}]
    assert m.extensions.functions[1].name == "equal"
    assert m.extensions.functions[1].definition is not None


def test_legacy_fetch_count_minus_one_means_all():
    doc = plan({"fetch": {"input": read("orders", ORDERS), "count": "-1"}})
    fetch = load_plan(json.dumps(doc).encode()).plan.relations[0].rel.fetch
    assert not fetch.HasField("count_expr")


def test_a_legacy_fetch_offset_without_a_count_has_a_count_of_zero():
    """[L] FetchRel "Count ... Required", -1 for ALL: an old writer's LIMIT 0 OFFSET 2 has no count field
    (protobuf leaves a 0 out), in JSON and in binary alike; the note says how it was read."""
    doc = plan({"fetch": {"input": read("orders", ORDERS), "offset": "2"}})
    orders = load_plan(json.dumps(plan(read("orders", ORDERS))).encode()).plan.relations[0].rel
    fetch = _ld(2, orders.SerializeToString()) + _varint(3, 2)  # FetchRel{input, offset=2}
    binary = _ld(3, _ld(1, _ld(3, fetch)))  # Plan.relations[PlanRel.rel[Rel.fetch]]
    for data in (json.dumps(doc).encode(), binary):
        loaded = load_plan(data)
        fetch = loaded.plan.relations[0].rel.fetch
        assert fetch.offset_expr.literal.i64 == 2 and fetch.count_expr.literal.i64 == 0, loaded.format
        notes = [d.message for d in loaded.diagnostics if d.code == "legacy-upgraded"]
        assert any("an offset and no count has a count of 0" in n for n in notes), notes
    # a current plan's offset without a count keeps every row after it
    current = plan({"fetch": {"input": read("orders", ORDERS), "offsetExpr": {"literal": {"i64": "2"}}}})
    assert not load_plan(json.dumps(current).encode()).plan.relations[0].rel.fetch.HasField("count_expr")


def test_legacy_virtual_table_interval_and_timestamp_types():
    doc = plan(
        {
            "read": {
                "baseSchema": {
                    "names": ["ts", "iv"],
                    "struct": {
                        "types": [
                            {"timestamp": {"nullability": "NULLABILITY_NULLABLE"}},
                            {"intervalDay": {"nullability": "NULLABILITY_REQUIRED"}},
                        ]
                    },
                },
                "virtualTable": {
                    "values": [
                        {"fields": [{"timestamp": "1000000"}, {"intervalDayToSecond": {"days": 1, "microseconds": 5}}]}
                    ]
                },
            }
        }
    )
    m = model_of(doc)
    assert schema_of(m, "0") == [("ts", "precision_timestamp<6>?"), ("iv", "interval_day")]
    row = m.plan.relations[0].rel.read.virtual_table.expressions[0]
    assert row.fields[0].literal.precision_timestamp.value == 1_000_000
    assert row.fields[1].literal.interval_day_to_second.subseconds == 5
    assert row.fields[1].literal.interval_day_to_second.precision == 6


def _legacy_binary_plan() -> bytes:
    """A binary plan written the old way: extension URIs, a fetch with integer count/offset, and an
    aggregate whose grouping keys sit in the legacy Grouping.grouping_expressions."""
    orders = algebra_pb2.Rel()
    orders.read.CopyFrom(load_plan(json.dumps(plan(read("orders", ORDERS))).encode()).plan.relations[0].rel.read)
    key = algebra_pb2.Expression()
    key.selection.direct_reference.struct_field.field = 1
    key.selection.root_reference.SetInParent()
    grouping = _ld(1, key.SerializeToString())
    aggregate = _ld(2, orders.SerializeToString()) + _ld(3, grouping)  # AggregateRel{input, groupings}
    agg_rel = _ld(4, aggregate)  # Rel.aggregate
    fetch = _ld(2, agg_rel) + _varint(3, 1) + _varint(4, 10)  # FetchRel{input, offset=1, count=10}
    fetch_rel = _ld(3, fetch)  # Rel.fetch
    root = _ld(1, fetch_rel) + _ld(2, b"o_cust")  # RelRoot{input, names}
    plan_rel = _ld(2, root)  # PlanRel.root
    uri = _varint(1, 7) + _ld(2, b"https://example.invalid/functions_arithmetic.yaml")
    decl = _ld(3, _varint(1, 7) + _varint(2, 0) + _ld(3, b"sum:i64"))  # extension_function
    return _ld(1, uri) + _ld(2, decl) + _ld(3, plan_rel)


def test_legacy_binary_fields_arrive_as_unknown_fields_and_are_upgraded():
    loaded = load_plan(_legacy_binary_plan())
    assert loaded.format == "binary"
    p = loaded.plan
    assert p.extension_urns[0].extension_urn_anchor == 7
    assert p.extension_urns[0].urn.endswith("functions_arithmetic.yaml")
    assert p.extensions[0].extension_function.extension_urn_reference == 7
    fetch = p.relations[0].root.input.fetch
    assert fetch.offset_expr.literal.i64 == 1 and fetch.count_expr.literal.i64 == 10
    agg = fetch.input.aggregate
    assert len(agg.grouping_expressions) == 1
    assert list(agg.groupings[0].expression_references) == [0]
    m = analyze(_legacy_binary_plan())
    assert schema_of(m, "0.0") == [("o_cust", "i64?")]  # the GROUP BY key survived
    assert "legacy-upgraded" in [d.code for d in m.plan_diagnostics]


def test_grouping_references_win_over_a_legacy_copy_of_the_keys():
    # DataFusion 55 writes each grouping's keys twice: expression references (current) and the legacy
    # Grouping.grouping_expressions (for older consumers). The keys are not doubled.
    key = {"selection": {"directReference": {"structField": {"field": 1}}, "rootReference": {}}}
    doc = plan(
        (
            {
                "aggregate": {
                    "input": read("orders", ORDERS),
                    "groupingExpressions": [key],
                    "groupings": [{"expressionReferences": [0], "groupingExpressions": [key]}],
                }
            },
            ["o_cust"],
        )
    )
    agg = load_plan(json.dumps(doc).encode()).plan.relations[0].root.input.aggregate
    assert len(agg.grouping_expressions) == 1
    assert list(agg.groupings[0].expression_references) == [0]


def test_unknown_fields_are_a_diagnostic_not_a_failure():
    doc = plan(read("orders", ORDERS))
    doc["relations"][0]["rel"]["read"]["futureOption"] = {"x": 1}
    loaded = load_plan(json.dumps(doc).encode())
    unknown = [d for d in loaded.diagnostics if d.code == "unknown-field"]
    assert unknown and "substrait.ReadRel.futureOption" in unknown[0].message
    binary = load_plan(
        load_plan(json.dumps(plan(read("orders", ORDERS))).encode()).plan.SerializeToString() + _varint(99, 1)
    )
    assert [d.code for d in binary.diagnostics if d.code == "unknown-field"] == ["unknown-field"]


def test_plan_without_version_loads():
    doc = plan(read("orders", ORDERS))
    del doc["version"]
    loaded = load_plan(json.dumps(doc).encode())
    assert "no-version" in [d.code for d in loaded.diagnostics]


def _deep_plan(depth: int) -> dict:
    rel = read("orders", ORDERS)
    for _ in range(depth):
        rel = {"filter": {"input": rel, "condition": {"literal": {"boolean": True}}}}
    return plan((rel, ["a", "b", "c"]))


@pytest.mark.parametrize("depth", [1000, 5000])
def test_deep_plans_load_in_json_and_binary(depth):
    doc = _deep_plan(depth)
    m = model_of(doc)
    assert len(m.graph.nodes) == depth + 1
    deepest = f"0.0*{depth}"
    assert m.node(deepest).kind == "read"
    assert schema_of(m, "0") == [("a", "i64"), ("b", "i64?"), ("c", "decimal<10,2>?")]
    binary = m.plan.SerializeToString()
    mb = analyze(binary)
    assert mb.loaded.format == "binary" and len(mb.graph.nodes) == depth + 1


@pytest.mark.parametrize(
    "data,expected",
    [
        (b"", "the input is empty"),
        (b"   \n", "the input is empty"),
        (b"\x00\x01garbage\xff\xfe", "neither protobuf JSON nor a binary protobuf Plan"),
        (b"hello, this is text", "not a Substrait plan"),
        (
            b'{"relations": [',
            "JSON that ends early (it stops at line 1, column 16, where more was expected)",
        ),  # cut off
        (
            b'{"relations": [{"root": {"names": ["a',
            "JSON that ends early (the string that opens at line 1, column 36 never closes",
        ),  # cut off inside a string
        (b'{"relations": [,]}', "invalid JSON at line 1, column 16"),
        (b'{"name": "package.json", "version": "1.0"}', "a JSON object without 'relations' (its keys: name, version)"),
        (b"[1, 2, 3]", "not a Substrait plan: a JSON array, expected an object with 'relations'"),
        (  # a wrong field outside every relation: the plan cannot be read around it
            b'{"extensions": [{"extensionFunction": {"functionAnchor": "one"}}], "relations": []}',
            "not a valid Substrait plan: at extensions[0].extensionFunction.functionAnchor: expected an integer",
        ),
        (b'{"relations": [{"root": {"names": [1]}}]}', "at relations[0].root.names: expected a string, got int"),
        (b'{"version": {"minorNumber": ' + b"9" * 5000 + b"}}", "a number of thousands of digits"),  # Python's limit
    ],
)
def test_input_that_is_not_a_plan_gives_one_clear_message(data, expected):
    with pytest.raises(PlanLoadError) as info:
        load_plan(data)
    assert expected in str(info.value)


@pytest.mark.parametrize("keep", [1, 2, 0.5, -1])
def test_truncated_binary_is_called_cut_off(keep):
    good = load_plan(json.dumps(plan(read("orders", ORDERS))).encode()).plan.SerializeToString()
    end = int(len(good) * keep) if isinstance(keep, float) else keep % len(good)
    with pytest.raises(PlanLoadError, match=f"binary protobuf that ends early .* at byte {end:,}.*: it looks cut off"):
        load_plan(good[:end])


def test_bytes_of_another_kind_are_not_called_cut_off():
    # a parquet file and a PNG's header: neither starts with a Plan's fields
    for data in (b"PAR1\x15\x04\x15\x80\x01\x15\x80\x01L", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"):
        with pytest.raises(PlanLoadError, match="neither protobuf JSON nor a binary protobuf Plan"):
            load_plan(data)


def test_empty_plan_object_loads_with_a_warning():
    # isthmus wrote TPC-H query 15 as "{}": a valid, empty Plan message.
    m = analyze(b"{}")
    assert m.roots == [] and "empty-plan" in [d.code for d in m.plan_diagnostics]


def test_tutorial_binary_and_json_agree():
    with open(os.path.join(CORPORA, "spec", "tutorial_final_plan.json"), "rb") as fh:
        js = analyze(fh.read())
    b = analyze(js.plan.SerializeToString())
    assert [n.to_json()["schema"] for n in js.nodes()] == [n.to_json()["schema"] for n in b.nodes()]


def test_plan_is_a_plan_message():
    assert isinstance(load_plan(b"{}").plan, plan_pb2.Plan)


def test_fast_json_reader_matches_protobufs_json_format_on_every_corpus_plan():
    """The one-pass JSON reader against an independent oracle: protobuf's own json_format, run on
    the same (upgraded) dicts."""
    from google.protobuf import json_format

    from tests.support import corpus_plans
    from viz.deep import run_deep
    from viz.load import _json_to_plan

    checked = 0
    for path in corpus_plans():
        with open(path, "rb") as fh:
            doc = json.loads(fh.read())
        mine = run_deep(_json_to_plan, doc, [], {})  # upgrades ``doc`` in place as it reads it
        oracle = plan_pb2.Plan()
        json_format.ParseDict(doc, oracle, ignore_unknown_fields=True)
        assert mine == oracle, path
        checked += 1
    assert checked >= 600


def test_unknown_enum_value_is_a_diagnostic():
    doc = plan({"join": {"left": read("a", ORDERS), "right": read("b", CUSTOMERS), "type": "JOIN_TYPE_SIDEWAYS"}})
    loaded = load_plan(json.dumps(doc).encode())
    assert [d.code for d in loaded.diagnostics] == ["unknown-enum-value"]
    assert "JOIN_TYPE_SIDEWAYS" in loaded.diagnostics[0].message
    # a number the enum does not define is not kept either (protobuf keeps any number)
    doc["relations"][0]["rel"]["join"]["type"] = 42
    loaded = load_plan(json.dumps(doc).encode())
    assert [d.code for d in loaded.diagnostics] == ["unknown-enum-value"]
    assert loaded.diagnostics[0].message.startswith("42 at relations[0].rel.join.type is not a value of")
    assert loaded.plan.relations[0].rel.join.type == 0


def test_a_set_operation_or_a_table_name_the_spec_does_not_define_is_an_error_on_its_node():
    from google.protobuf import json_format

    from executor.translate.executable import executability

    doc = plan({"set": {"inputs": [read("a", ORDERS), read("b", ORDERS)], "op": "SET_OP_UNION_ALL"}})
    binary = json_format.ParseDict(doc, plan_pb2.Plan())
    binary.relations[0].rel.set.op = 42  # a binary plan keeps any number
    model = analyze(binary.SerializeToString())
    (d,) = [d for d in model.node("0").diagnostics if d.severity == "error"]
    assert d.code == "unknown-set-op" and "number 42" in d.message
    assert not executability(model)["0"].ok
    for names, said in (([], "the read names no table"), (["", "a"], "a part of the table's name is empty")):
        doc = plan(read("a", ORDERS))
        doc["relations"][0]["rel"]["read"]["namedTable"]["names"] = names
        model = analyze(json.dumps(doc).encode())
        (d,) = [d for d in model.node("0").diagnostics if d.severity == "error"]
        assert d.code == "no-table-name" and d.message.startswith(said)
        assert not executability(model)["0"].ok


def test_extension_detail_of_an_unknown_type_is_a_diagnostic_naming_the_type():
    doc = plan({"extensionLeaf": {"detail": {"@type": "type.example/acme.ScanOptions", "x": 1}}})
    loaded = load_plan(json.dumps(doc).encode())
    found = [d for d in loaded.diagnostics if d.code == "undecodable-extension"]
    assert found and "acme.ScanOptions" in found[0].message
    assert loaded.plan.relations[0].rel.WhichOneof("rel_type") == "extension_leaf"
    # its type is kept, as a binary plan's is: the box and the JSON tab name the extension
    assert loaded.plan.relations[0].rel.extension_leaf.detail.type_url == "type.example/acme.ScanOptions"


def test_an_unknown_extension_detail_shows_as_json_with_its_type_and_bytes():
    """The JSON tab of a binary plan's extension relation whose detail no descriptor here knows: the
    relation as JSON, the detail as its type and its bytes in base64, where it had been protobuf text."""
    from viz.model import analyze
    from viz.report import raw_json

    doc = plan({"extensionSingle": {"input": read("a", ORDERS)}})
    binary = json_format_parse(doc)
    detail = binary.relations[0].rel.extension_single.detail
    detail.type_url, detail.value = "type.example/acme.Sampler", b"\x08\x01"
    model = analyze(binary.SerializeToString())
    shown = raw_json(model, "0")
    assert shown["extensionSingle"] == {
        "detail": {"@type": "type.example/acme.Sampler", "value": "CAE="},
        "input": "<node 0.0>",
    }
    assert "base64" in shown["note"]


def json_format_parse(doc: dict):
    from google.protobuf import json_format

    return json_format.ParseDict(doc, plan_pb2.Plan())


def test_the_collector_is_paused_while_a_model_is_built_and_back_after():
    import gc

    from viz.deep import gc_paused
    from viz.model import analyze

    seen = []
    with gc_paused():
        seen.append(gc.isenabled())
        with gc_paused():  # nested
            seen.append(gc.isenabled())
        seen.append(gc.isenabled())  # still paused: the outer pause has not ended
    seen.append(gc.isenabled())
    assert seen == [False, False, False, True]
    with pytest.raises(PlanLoadError):
        analyze(b"{not json")
    assert gc.isenabled()  # back after a failure too
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


def test_parents_and_leaves_follow_inputs_and_references():
    with open(
        os.path.join(ROOT, "sample_plans", "dag_two_roots.json"),
        "rb",
    ) as fh:
        model = analyze(fh.read())
    g = model.graph
    kinds = {n: model.node(n).kind for n in g.nodes}
    assert [kinds[n] for n in g.leaves()] == ["read", "read"]  # a reference is not a leaf: it reads a relation
    shared = "0"  # the first root, read again by the references of the other two
    assert sorted(kinds[p] for p in g.parents(shared)) == ["reference", "reference"]
    assert g.parents("1") == [] and all(shared in g.nodes[p].inputs for p in g.parents(shared))


def test_a_plans_digest_is_its_content_whatever_the_format():
    root = ROOT
    with open(os.path.join(root, "sample_plans", "tutorial.json"), "rb") as fh:
        data = fh.read()
    a, b = analyze(data), analyze(data)
    binary = analyze(a.plan.SerializeToString())
    assert a.digest == b.digest == binary.digest and len(a.digest) == 64
    assert a.digest is a.digest  # computed once
    with open(os.path.join(root, "sample_plans", "set_ops.json"), "rb") as fh:
        assert analyze(fh.read()).digest != a.digest


def _json_plan(name: str) -> dict:
    with open(os.path.join(ROOT, "sample_plans", name), encoding="utf-8") as fh:
        return json.load(fh)


def _bad_field_nodes(model) -> dict[str, list[str]]:
    return {
        n.id: [d.message for d in n.diagnostics if d.code == "bad-field"]
        for n in model.nodes()
        if any(d.code == "bad-field" for d in n.diagnostics)
    }


def test_a_field_of_the_wrong_kind_inside_a_relation_is_an_error_on_its_node_and_the_rest_of_the_plan_shows():
    from executor.translate.executable import executability

    doc = _json_plan("tutorial.json")
    good = analyze(json.dumps(doc).encode())
    # the filter's condition refers to a field by a word where its index belongs
    doc["relations"][0]["root"]["input"]["aggregate"]["input"]["join"]["expression"] = {
        "selection": {"directReference": {"structField": {"field": "seven"}}, "rootReference": {}}
    }
    model = analyze(json.dumps(doc).encode())
    assert set(model.graph.nodes) == set(good.graph.nodes)
    (message,) = _bad_field_nodes(model)["0.0"]
    assert message.startswith(
        "relations[0].root.input.aggregate.input.join.expression.selection.directReference.structField.field: "
        "expected an integer, got 'seven'; the field is left out"
    )
    verdicts = executability(model)
    assert verdicts["0.0"].reason.startswith("the plan is wrong at node 0.0 (bad-field)")
    assert verdicts["0.0.0"].ok  # the reads below it still run
    assert not verdicts["0"].ok  # and what reads the join does not


def test_a_wrong_field_is_put_on_the_node_of_the_relation_it_is_in():
    # the second input of a set relation (a repeated field of relations)
    doc = _json_plan("set_ops.json")
    doc["relations"][4]["root"]["input"]["set"]["inputs"][1]["reference"]["subtreeOrdinal"] = "one"
    assert list(_bad_field_nodes(analyze(json.dumps(doc).encode()))) == ["4.1"]
    # inside a subquery: the subquery's own node, not the filter that holds it
    doc = _json_plan("subqueries.json")
    condition = doc["relations"][0]["root"]["input"]["project"]["input"]["filter"]["condition"]
    haystack = condition["scalarFunction"]["arguments"][0]["value"]["subquery"]["inPredicate"]["haystack"]
    haystack["filter"]["condition"]["scalarFunction"]["arguments"][0]["value"]["selection"]["directReference"][
        "structField"
    ]["field"] = [2]
    assert list(_bad_field_nodes(analyze(json.dumps(doc).encode()))) == ["0.0.s0"]
    # and in the needle, outside the subquery: the filter's
    doc = _json_plan("subqueries.json")
    condition = doc["relations"][0]["root"]["input"]["project"]["input"]["filter"]["condition"]
    needle = condition["scalarFunction"]["arguments"][0]["value"]["subquery"]["inPredicate"]["needles"][0]
    needle["selection"]["directReference"]["structField"]["field"] = True
    assert list(_bad_field_nodes(analyze(json.dumps(doc).encode()))) == ["0.0"]


def test_a_legacy_field_of_the_wrong_shape_keeps_the_relations_inputs():
    """The loader upgrades a FetchRel's legacy count; one of the wrong kind is an error on the fetch,
    and the plan below it still shows."""
    doc = _json_plan("tutorial.json")
    below = doc["relations"][0]["root"]["input"]
    doc["relations"][0]["root"]["input"] = {"fetch": {"input": below, "count": "ten"}}
    model = analyze(json.dumps(doc).encode())
    assert len(model.graph.nodes) == 6  # the fetch and the tutorial's five
    assert list(_bad_field_nodes(model)) == ["0"]


def test_an_enum_given_as_a_list_is_a_wrong_field_that_says_what_was_expected():
    doc = _json_plan("tutorial.json")
    doc["relations"][0]["root"]["input"]["aggregate"]["input"]["join"]["type"] = [1]
    (message,) = _bad_field_nodes(analyze(json.dumps(doc).encode()))["0.0"]
    assert "expected a name or a number of substrait.JoinRel.JoinType, got list" in message


def test_a_join_type_or_a_sort_direction_the_spec_does_not_define_is_an_error_on_its_node():
    from executor.translate.executable import executability

    model = analyze(json.dumps(_json_plan("tutorial.json")).encode())
    binary = plan_pb2.Plan()
    binary.CopyFrom(model.plan)
    binary.relations[0].root.input.aggregate.input.join.type = 42  # a binary plan keeps any number
    model = analyze(binary.SerializeToString())
    (d,) = [d for d in model.node("0.0").diagnostics if d.severity == "error"]
    assert d.code == "unknown-join-type" and "number 42" in d.message
    assert not executability(model)["0.0"].ok
    doc = _json_plan("tpch_q03_isthmus.json")
    text = json.dumps(doc).replace('"direction": "SORT_DIRECTION_DESC_NULLS_FIRST"', '"direction": 9', 1)
    model = analyze(text.encode())
    errors = [(n.id, d.code) for n in model.nodes() for d in n.diagnostics if d.severity == "error"]
    assert errors == [("0.0", "unknown-sort-direction")]
    assert not executability(model)["0.0"].ok


def test_a_plan_of_a_newer_substrait_or_with_no_relations_says_so():
    """A plan declaring a release after the one this tool's protobuf definitions are (0.106) is told to
    be newer; one of that release or before is not. ``"relations": []`` is an empty plan, as ``{}`` is."""
    from viz.load import READS_UP_TO

    assert READS_UP_TO == (0, 106)  # substrait-protobuf in requirements.txt
    for version, newer in (({"minorNumber": 250}, True), ({"majorNumber": 1}, True), ({"minorNumber": 106}, False)):
        doc = plan(read("a", ORDERS))
        doc["version"] = version
        found = [d for d in load_plan(json.dumps(doc).encode()).diagnostics if d.code == "newer-version"]
        assert bool(found) is newer, version
    [said] = [
        d
        for d in load_plan(json.dumps(plan(read("a", ORDERS)) | {"version": {"minorNumber": 250}}).encode()).diagnostics
        if d.code == "newer-version"
    ]
    assert said.message.startswith("the plan declares Substrait 0.250.0, newer than the 0.106 this tool reads")
    for doc in ({"relations": []}, {}):
        assert [d.code for d in load_plan(json.dumps(doc).encode()).diagnostics if d.severity == "warning"] == [
            "empty-plan"
        ]


def test_an_extended_expression_is_named_as_what_it_is():
    doc = {"version": {"minorNumber": 80}, "referredExpr": [], "baseSchema": {"names": []}}
    with pytest.raises(PlanLoadError, match=r"^not a Substrait plan: an ExtendedExpression \(expressions over"):
        load_plan(json.dumps(doc).encode())
