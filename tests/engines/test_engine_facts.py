"""The engine facts of executor.engines.engine_facts, each proven by running the engine on a small plan
that sets the field and on one that does not: DataFusion 55's consumer as it is (none of our runner's
re-applied read filters), Spark through our translation. Expected rows are worked out by hand from the
table below.

    orders    o_id  o_cust  o_total
              1     10      500
              2     10      750
              3     20      125
              4     NULL    300
              5     30      NULL
"""

from __future__ import annotations

import copy
import os

import pytest

from executor.engines.engine_facts import (
    DATAFUSION_FACTS,
    SPARK_FACTS,
    VersionNote,
    field_uses,
    version_skew,
)
from tests.support.plans import call, field, i64, measure, model_of, plan, read

ORD = [("o_id", "i64?"), ("o_cust", "i64?"), ("o_total", "i64?")]
CUS = [("c_id", "i64?"), ("c_name", "string?")]
ORDER_ROWS = [(1, 10, 500), (2, 10, 750), (3, 20, 125), (4, None, 300), (5, 30, None)]
CUSTOMER_ROWS = [(10, "ann"), (10, "ada"), (20, "bob")]  # customer 10 twice: two matches for a single join
NAMES = ["a", "b", "c"]
OVER_400 = call(2, field(2), i64(400))  # o_total > 400
SUM_TOTAL = [(1675,)]


def _tables():
    import pyarrow as pa

    o = list(zip(*ORDER_ROWS))
    c = list(zip(*CUSTOMER_ROWS))
    return {
        "orders": pa.table({n: pa.array(v, pa.int64()) for n, v in zip(("o_id", "o_cust", "o_total"), o)}),
        "customers": pa.table({"c_id": pa.array(c[0], pa.int64()), "c_name": pa.array(c[1], pa.string())}),
    }


def datafusion_rows(doc: dict) -> list[tuple]:
    """Plain DataFusion on the plan: its consumer and its engine, nothing of ours in between."""
    from datafusion import SessionContext
    from datafusion.substrait import Consumer, Serde
    from google.protobuf import json_format
    from substrait import plan_pb2

    ctx = SessionContext()
    for name, table in _tables().items():
        ctx.register_record_batches(name, [table.to_batches()])
    data = json_format.ParseDict(doc, plan_pb2.Plan()).SerializeToString()
    logical = Consumer.from_substrait_plan(ctx, Serde.deserialize_bytes(data))
    table = ctx.create_dataframe_from_logical_plan(logical).to_arrow_table()
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    import pyarrow.parquet as pq

    from executor.data.catalog import Catalog

    folder = tmp_path_factory.mktemp("engine-facts-data")
    for name, table in _tables().items():
        pq.write_table(table, folder / f"{name}.parquet")
    return Catalog(data_roots=[str(folder)], use_spark_catalog=False)


def spark_rows(spark, catalog, doc: dict) -> list[tuple]:
    from executor.translate.rel import translate

    model = model_of(doc)
    return sorted((tuple(r) for r in translate(model, model.roots[0], spark, catalog).df.collect()), key=repr)


def fact(facts, name: str):
    (found,) = [f for f in facts if f.field == name]
    return found


def sum_plan(phase: str | None) -> dict:
    m = measure(4, field(2), out="i64?")
    if phase is None:
        del m["measure"]["phase"]
    else:
        m["measure"]["phase"] = phase
    return plan(({"aggregate": {"input": read("orders", ORD), "groupings": [], "measures": [m]}}, ["s"]))


def hinted(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["relations"][0]["root"]["input"]["read"]["common"] = {
        "direct": {},
        "hint": {"stats": {"rowCount": 1}, "alias": "o"},
    }
    return doc


def single_join(join_type: str) -> dict:
    cond = call(1, field(1), field(3))  # o_cust = c_id
    rel = {
        "join": {"left": read("orders", ORD), "right": read("customers", CUS), "expression": cond, "type": join_type}
    }
    return plan((rel, ["a", "b", "c", "d", "e"]))


# ---- DataFusion's facts -------------------------------------------------------------------------


def test_datafusion_takes_read_filter_as_a_hint():
    unfiltered = datafusion_rows(plan((read("orders", ORD), NAMES)))
    filtered = datafusion_rows(plan((read("orders", ORD, filter=OVER_400), NAMES)))
    assert unfiltered == sorted(ORDER_ROWS, key=repr)
    assert filtered == unfiltered  # the spec says rows 1 and 2 only
    doc = plan((read("orders", ORD, filter=OVER_400), NAMES))
    assert fact(DATAFUSION_FACTS, "ReadRel.filter").applies(model_of(doc).graph.nodes["0"].rel)


def test_datafusion_does_not_apply_best_effort_filter():
    doc = plan((read("orders", ORD, bestEffortFilter=OVER_400), NAMES))
    assert datafusion_rows(doc) == sorted(ORDER_ROWS, key=repr)  # all five: nothing removed
    assert fact(DATAFUSION_FACTS, "ReadRel.best_effort_filter").applies(model_of(doc).graph.nodes["0"].rel)


def test_datafusion_ignores_aggregate_phase():
    final = datafusion_rows(sum_plan("AGGREGATION_PHASE_INITIAL_TO_RESULT"))
    assert final == SUM_TOTAL
    for partial in ("AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE", "AGGREGATION_PHASE_INTERMEDIATE_TO_RESULT"):
        assert datafusion_rows(sum_plan(partial)) == final
    f = fact(DATAFUSION_FACTS, "AggregateFunction.phase")
    assert f.applies(model_of(sum_plan("AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE")).graph.nodes["0"].rel)
    assert not f.applies(model_of(sum_plan("AGGREGATION_PHASE_INITIAL_TO_RESULT")).graph.nodes["0"].rel)


def test_datafusion_ignores_rel_hint():
    doc = plan((read("orders", ORD), NAMES))
    assert datafusion_rows(hinted(doc)) == datafusion_rows(doc) == sorted(ORDER_ROWS, key=repr)
    assert fact(DATAFUSION_FACTS, "RelCommon.hint").applies(model_of(hinted(doc)).graph.nodes["0"].rel)
    assert not fact(DATAFUSION_FACTS, "RelCommon.hint").applies(model_of(doc).graph.nodes["0"].rel)


# ---- Spark's facts (our translation) -----------------------------------------------------------


def test_spark_ignores_aggregate_phase(spark, catalog):
    final = spark_rows(spark, catalog, sum_plan("AGGREGATION_PHASE_INITIAL_TO_RESULT"))
    assert [tuple(int(v) for v in r) for r in final] == SUM_TOTAL
    assert spark_rows(spark, catalog, sum_plan("AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE")) == final


def test_spark_ignores_rel_hint(spark, catalog):
    doc = plan((read("orders", ORD), NAMES))
    assert spark_rows(spark, catalog, hinted(doc)) == spark_rows(spark, catalog, doc) == sorted(ORDER_ROWS, key=repr)


def test_every_fact_names_a_proof_in_this_file():
    names = {n for n in globals() if n.startswith("test_")}
    for f in (*SPARK_FACTS, *DATAFUSION_FACTS):
        path, name = f.proof.split("::")
        assert path == "tests/engines/test_engine_facts.py" and name in names, f.proof
        assert f.effect in ("ignored", "hint", "differs")


# ---- field_uses on DataFusion's own plans ------------------------------------------------------


def _filtered_reads(model) -> set[str]:
    return {
        nid for nid, n in model.graph.nodes.items() if n.kind == "read" and model.node(nid).node.body.HasField("filter")
    }


def test_field_uses_marks_every_filtered_read_of_datafusion_tpch_plans(tpch_dir):
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries
    from viz.model import analyze

    tables = {f[: -len(".parquet")]: os.path.join(tpch_dir, f) for f in os.listdir(tpch_dir) if f.endswith(".parquet")}
    read_filter = fact(DATAFUSION_FACTS, "ReadRel.filter")
    marked = 0
    for q in read_queries(["executor/producer/sql/tpch.sql"]):
        model = analyze(sql_to_plan(q.sql, tables, json=False, form="optimized").data)
        uses = field_uses(model)
        reads = _filtered_reads(model)
        for nid in reads:
            assert read_filter in uses.get(nid, ()), (q.name, nid)
        assert {nid for nid, fs in uses.items() if read_filter in fs} == reads, q.name
        marked += len(reads)
    assert marked > 20  # optimized plans push most WHERE clauses into the reads


@pytest.mark.slow
def test_field_uses_marks_every_filtered_read_of_datafusion_tpcds_plans():
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import SqlError, sql_to_plan
    from executor.producer.check import read_queries
    from tests.support import CORPORA
    from viz.model import analyze

    folder = tpcds(0.01)
    tables = {f[: -len(".parquet")]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
    read_filter = fact(DATAFUSION_FACTS, "ReadRel.filter")
    planned = marked = 0
    for q in read_queries([os.path.join(CORPORA, "tpcds-sql")]):
        try:
            model = analyze(sql_to_plan(q.sql, tables, json=False, form="optimized").data)
        except SqlError:
            continue
        planned += 1
        uses = field_uses(model)
        reads = _filtered_reads(model)
        assert {nid for nid, fs in uses.items() if read_filter in fs} == reads, q.name
        marked += len(reads)
    assert planned > 50 and marked > 100


def test_planted_phase_shows_its_facts():
    uses = field_uses(model_of(sum_plan("AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE")))
    assert {(f.engine, f.field) for f in uses["0"]} == {
        ("datafusion", "AggregateFunction.phase"),
        ("spark", "AggregateFunction.phase"),
    }
    assert "0" not in field_uses(model_of(sum_plan("AGGREGATION_PHASE_INITIAL_TO_RESULT")))


# ---- version skew ----------------------------------------------------------------------------


def with_version(minor: int) -> dict:
    doc = plan((read("orders", ORD), NAMES))
    doc["version"]["minorNumber"] = minor
    return doc


def test_engine_versions_are_read_from_the_libraries():
    skew = version_skew(model_of(with_version(80)))
    reads = {e.engine: e.reads for e in skew.engines}
    assert reads == {"datafusion": "0.85.0", "spark": "0.106.0"}  # DataFusion 55; substrait-python's protos
    assert skew.plan_version == "0.80.0" and skew.notes == () and skew.nodes == {}


def test_a_plan_newer_than_an_engine_is_noted():
    new = version_skew(model_of(with_version(200)))
    assert new.plan_version == "0.200.0"
    assert any("0.200.0" in n and "DataFusion" in n for n in new.notes)
    assert any("0.200.0" in n and "Spark" in n for n in new.notes)
    between = version_skew(model_of(with_version(90)))  # newer than DataFusion's 0.85, older than ours
    assert [n for n in between.notes if "DataFusion" in n] and not [n for n in between.notes if "Spark" in n]
    old = version_skew(model_of(with_version(50)))
    assert old.notes == ()


def test_fields_datafusion_does_not_know_are_named_on_their_nodes():
    """Fields of newer specs than 0.85: prost drops them in a round trip, and DataFusion's consumer
    then reads an empty condition."""
    doc = plan(
        (
            {"filter": {"input": read("orders", ORD), "condition": {"executionContextVariable": {"currentDate": {}}}}},
            NAMES,
        )
    )
    doc["executionBehavior"] = {"variableEvalMode": "VARIABLE_EVALUATION_MODE_PER_PLAN"}
    skew = version_skew(model_of(doc))
    assert skew.nodes == {
        "0": (
            VersionNote(
                "datafusion",
                "DataFusion (spec 0.85.0) does not know Expression.execution_context_variable: it drops it",
            ),
        )
    }
    assert any("Plan.execution_behavior" in n for n in skew.notes)
    plain = version_skew(model_of(plan(({"filter": {"input": read("orders", ORD), "condition": OVER_400}}, NAMES))))
    assert plain.nodes == {} and plain.notes == ()


def test_fields_our_protobuf_does_not_know_are_named_on_their_nodes():
    from google.protobuf import json_format
    from substrait import plan_pb2

    from viz.model import analyze

    doc = plan(({"filter": {"input": read("orders", ORD), "condition": OVER_400}}, NAMES))
    message = json_format.ParseDict(doc, plan_pb2.Plan())
    data = bytearray(message.SerializeToString())
    # field 999 (varint 7) appended to the read: protobuf keeps it as an unknown field of the ReadRel
    read_rel = plan_pb2.Plan()
    read_rel.CopyFrom(message)
    read_msg = read_rel.relations[0].root.input.filter.input.read
    planted = read_msg.SerializeToString() + bytes([0xB8, 0x3E, 7])
    read_msg.Clear()
    read_msg.MergeFromString(planted)
    assert len(read_rel.SerializeToString()) == len(data) + 3
    skew = version_skew(analyze(read_rel.SerializeToString()))
    assert list(skew.nodes) == ["0.0"]  # the read under the filter
    (note,) = skew.nodes["0.0"]
    assert note.engine == "spark" and "ReadRel field 999" in note.text and "0.106.0" in note.text
