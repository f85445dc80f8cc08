"""The portability report with everything issue 39 adds, as the command line, the app and the HTML report
read it: per node and engine, whether it runs, the fields it ignores, version notes, the column types it
gives and its own plan.

The facts themselves are proven in test_engine_facts.py, the types in test_engine_types.py and the plans
in test_physical.py, each against the engines; here they must reach the report, its marks and its JSON."""

from __future__ import annotations

import io
import json
import os

from executor.__main__ import main
from executor.data.catalog import Catalog
from executor.engines.portability import portability
from executor.engines.sql_plan import sql_to_plan
from tests.support import CORPORA, ROOT
from viz.model import analyze

SAMPLES = os.path.join(ROOT, "sample_plans")
TUTORIAL_DATA = os.path.join(ROOT, "sample_data", "tutorial")
#: DataFusion's optimized plan of this query pushes the date filter into the read of orders.
FILTERED_SQL = "SELECT o_orderkey, o_totalprice FROM orders WHERE o_orderdate < DATE '1995-01-01'"


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(argv, out=out, err=err), out.getvalue(), err.getvalue()


def _filtered_read(tpch_dir):
    plan = sql_to_plan(FILTERED_SQL, {"orders": os.path.join(tpch_dir, "orders.parquet")}, json=False, form="optimized")
    model = analyze(plan.data)
    reads = [nid for nid in model.graph.nodes if model.node(nid).kind == "read"]
    [read] = reads
    assert model.graph.nodes[read].rel.read.HasField("filter")  # the premise: the filter is in the read
    return plan.data, model, read


def test_a_reads_filter_is_marked_and_said_for_datafusion(tpch_dir):
    _, model, read = _filtered_read(tpch_dir)
    report = portability(model, Catalog([tpch_dir]))
    node = report.nodes[read]
    assert [(f.engine, f.field, f.effect) for f in node.fields] == [("datafusion", "ReadRel.filter", "hint")]
    marks = dict(report.overlay().nodes)[read].marks
    assert ("warning", "⚑ DataFusion takes as a hint only ReadRel.filter") in marks
    side = next(n for n in report.to_json()["nodes"] if n["node"] == read)
    assert [f["field"] for f in side["datafusion"]["ignored_fields"]] == ["ReadRel.filter"]
    assert side["spark"]["ignored_fields"] == []
    others = [n for n in report.nodes.values() if n.node_id != read]
    assert all(not n.fields for n in others)


def test_a_newer_spec_version_is_said_for_the_plan(tpch_dir):
    _, model, _ = _filtered_read(tpch_dir)
    plan = model.plan.__class__()
    plan.CopyFrom(model.plan)
    plan.version.major_number, plan.version.minor_number = 0, 200
    report = portability(analyze(plan.SerializeToString()), Catalog([tpch_dir]))
    out = report.to_json()
    assert out["versions"]["plan"] == "0.200.0"
    assert out["versions"]["engines"]["datafusion"]["reads"] == "0.85.0"
    said = " ".join(out["notes"])
    assert "newer than the 0.85.0 that DataFusion reads" in said and "newer than the 0.106.0" in said
    # the plan as DataFusion wrote it declares the version DataFusion reads: nothing to say
    assert portability(model, Catalog([tpch_dir])).to_json()["notes"] == []


def test_the_command_line_says_it_all_in_json(spark, tpch_dir, tmp_path):
    data, _, read = _filtered_read(tpch_dir)
    path = tmp_path / "plan.bin"
    path.write_bytes(data)
    html = tmp_path / "report.html"
    code, out, err = _run(["portability", str(path), "--data-dir", tpch_dir, "--format", "json", "--html", str(html)])
    assert code == 0, err
    report = json.loads(out)
    nodes = {n["node"]: n for n in report["nodes"]}
    for nid, n in nodes.items():
        for engine in ("spark", "datafusion"):
            side = n[engine]
            assert side["ok"] and side["types_error"] is None, (nid, engine, side)
            assert len(side["types"]) == len(n["columns"]) and all(side["types"]), (nid, engine)
            assert side["plan"]["error"] is None and "▶ marks node" in side["plan"]["text"], (nid, engine)
    # the read's operators are the scans; the filter and projection above it are merged into them by both
    assert "FileScan" in nodes[read]["spark"]["plan"]["own_operators"]
    assert "DataSourceExec" in nodes[read]["datafusion"]["plan"]["own_operators"]
    assert [f["field"] for f in nodes[read]["datafusion"]["ignored_fields"]] == ["ReadRel.filter"]
    page = html.read_text()
    assert "ReadRel.filter" in page and "Spark's plan" in page and "DataFusion's plan" in page


def test_nodes_of_a_correlated_subquery_do_not_fail_the_command(tpch_dir):
    """isthmus' TPC-H q02: both engines run the plan; its correlated subquery's nodes run only within
    its query, and the exit status had said 1 for them."""
    q02 = os.path.join(CORPORA, "isthmus-tpch", "query_02_plan.json")
    code, out, err = _run(["portability", q02, "--data-dir", tpch_dir, "--no-types", "--no-plans"])
    assert "inside correlated subqueries run only within their query" in out, out
    assert code == 0, out + err


def test_the_command_line_leaves_out_what_it_is_told(tmp_path):
    """Without types and plans nothing asks Spark (the refusing `java` of tests/conftest.py would fail it),
    nor for the engines' plans alone in a table, which has no column for them."""
    tutorial = os.path.join(SAMPLES, "tutorial.json")
    code, out, _ = _run(["portability", tutorial, "--data-dir", TUTORIAL_DATA, "--no-types", "--no-plans"])
    assert code == 1 and "Spark runs 5 of 5 nodes, DataFusion 2 of 5" in out
    code, out, err = _run(["portability", tutorial, "--data-dir", TUTORIAL_DATA, "--no-types"])
    assert code == 1 and "Spark runs 5 of 5 nodes, DataFusion 2 of 5" in out, out + err
    code, out, _ = _run(["portability", tutorial, "--no-types", "--no-plans", "--format", "json"])
    assert all("types" not in n["spark"] and "plan" not in n["spark"] for n in json.loads(out)["nodes"])
    code, out, err = _run(["portability", tutorial, tutorial, "--html", str(tmp_path / "r.html")])
    assert code == 2 and "one PLAN" in err


def test_a_type_difference_is_marked_where_it_starts():
    """A Spark sum typed decimal<17,2> where the plan declares decimal<38,2> (TPC-DS q64 has it) is said on the
    node that computes it, not again on a node above that passes the column on; a node above that computes a
    new sum with the same two types says its own; nullability and how an engine stores a type are counted, not
    marked."""
    from executor.engines.engine_types import ColumnTypes, NodeTypes, type_changes
    from executor.engines.portability import EngineVerdict as V
    from executor.engines.portability import NodePortability, Portability

    total = ColumnTypes("total", "decimal<38,2>?", "decimal<38,2>?", "decimal<17,2>?", "decimal<38,2>?")
    again = ColumnTypes("again", "decimal<38,2>?", "decimal<38,2>?", "decimal<17,2>?", "decimal<38,2>?")
    types = {
        "agg": NodeTypes("agg", (ColumnTypes("k", "i64", "i64", "i64?", "i64"), total)),
        "top": NodeTypes("top", (total, ColumnTypes("name", "varchar<3>", "varchar<3>", "string", "string"))),
        "sum": NodeTypes("sum", (again,)),
    }
    passed_on = {("top", 0): ("agg", 1)}  # the lineage: top's column 0 is agg's column 1; sum computes its own
    changes = type_changes(types, lambda nid, i: passed_on.get((nid, i)))
    nodes = {nid: NodePortability(nid, "aggregate", V(True), V(True)) for nid in types}
    report = Portability(nodes, types=types, changes=changes)
    assert [(c.node_id, c.index, c.column, c.source, c.theirs) for cs in report.changes.values() for c in cs] == [
        ("agg", 1, "total", "spark", "decimal<17,2>?"),
        ("sum", 0, "again", "spark", "decimal<17,2>?"),
    ]
    marks = report.overlay().stats()
    assert marks["agg"].marks == (("warning", "≠ [1] Spark: decimal<17,2>? (declared decimal<38,2>?)"),)
    assert "top" not in marks
    assert report.notes() == [
        "node agg, total: Spark decimal<17,2>? for the declared decimal<38,2>?",
        "node sum, again: Spark decimal<17,2>? for the declared decimal<38,2>?",
        "besides: 1 column type(s) differ only in nullability, 2 column type(s) differ only in how the engine stores "
        "the type (a string's length, a precision) "
        "(an engine's own reading: see each node's types)",
    ]


def test_how_a_type_differs():
    from executor.engines.engine_types import difference_kind

    assert difference_kind("i64", "i64?") == "nullability"
    assert difference_kind("list<string>", "list<string?>?") == "nullability"  # Spark's array elements
    assert (
        difference_kind("varchar<3>", "string?") == "stores" and difference_kind("fixedchar<2>", "string") == "stores"
    )
    assert difference_kind("list<varchar<3>>", "list<string?>") == "stores"
    assert difference_kind("fixedbinary<16>", "binary?") == "stores" and difference_kind("uuid", "string") == "stores"
    assert difference_kind("precision_timestamp<3>", "precision_timestamp<6>?") == "stores"
    assert difference_kind("interval_day<9>", "interval_day<6>") == "stores"
    assert difference_kind("precision_timestamp<6>", "precision_timestamp_tz<6>") == "type"  # a time zone is not
    assert difference_kind("decimal<38,2>?", "decimal<17,2>?") == "type"
    assert difference_kind("i32", "i64") == "type" and difference_kind("varchar<3>", "binary") == "type"


def test_a_planted_phase_is_marked_on_its_aggregate(tpch_dir):
    """A measure asked for a partial phase, which both engines ignore (test_engine_facts.py proves it)."""
    from substrait.algebra_pb2 import AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE

    sql = "SELECT o_orderpriority, count(*) AS n FROM orders GROUP BY o_orderpriority"
    plan = sql_to_plan(sql, {"orders": os.path.join(tpch_dir, "orders.parquet")}, json=False)
    model = analyze(plan.data)
    [agg] = [nid for nid in model.graph.nodes if model.node(nid).kind == "aggregate"]
    assert not portability(model, Catalog([tpch_dir])).nodes[agg].fields  # INITIAL_TO_RESULT: nothing to say
    planted = model.plan.__class__()
    planted.CopyFrom(model.plan)
    rel = planted.relations[0].root.input
    path = [int(p) for p in agg.split(".")[1:]]  # node ids are the path of inputs from the root
    for i in path:
        body = getattr(rel, rel.WhichOneof("rel_type"))
        rel = body.input if i == 0 and body.HasField("input") else body.inputs[i]
    rel.aggregate.measures[0].measure.phase = AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE
    report = portability(analyze(planted.SerializeToString()), Catalog([tpch_dir]))
    marks = dict(report.overlay().nodes)[agg].marks
    assert ("warning", "⚑ DataFusion ignores AggregateFunction.phase") in marks
    assert ("warning", "⚑ Spark ignores AggregateFunction.phase") in marks


def test_engines_that_agree_on_another_type_are_said_together():
    from executor.engines.engine_types import TypeChange, grouped

    changes = [
        TypeChange("n", 1, "sum(p)", "spark", "decimal<38,2>?", "decimal<17,2>?"),
        TypeChange("n", 1, "sum(p)", "datafusion", "decimal<38,2>?", "decimal<17,2>?"),
        TypeChange("n", 2, "avg(p)", "spark", "decimal<38,6>?", "decimal<11,6>?"),
    ]
    assert grouped(changes) == [
        "[1] Spark and DataFusion: decimal<17,2>? (declared decimal<38,2>?)",
        "[2] Spark: decimal<11,6>? (declared decimal<38,6>?)",
    ]


def test_a_field_our_protos_do_not_know_is_said_even_after_the_plan_without_it(tpch_dir):
    """The model drops the field (its digest is the same with and without it), so the report of the plan
    without it, asked for first, must not stand in for the plan with it."""
    data, model, read = _filtered_read(tpch_dir)
    planted = model.plan.__class__()
    planted.CopyFrom(model.plan)
    holder = planted.relations[0].root.input
    while holder.WhichOneof("rel_type") != "read":
        holder = getattr(holder, holder.WhichOneof("rel_type")).input
    with_field = holder.read.SerializeToString() + bytes([0xB8, 0x3E, 7])  # field 999, varint 7
    holder.read.Clear()
    holder.read.MergeFromString(with_field)
    other = analyze(planted.SerializeToString())
    assert other.digest == model.digest  # the premise
    catalog = Catalog([tpch_dir])
    assert not portability(model, catalog).nodes[read].versions
    report = portability(other, catalog)
    [note] = report.nodes[read].versions
    assert note.engine == "spark" and "ReadRel field 999" in note.text and "0.106.0" in note.text
    [entry] = [n for n in report.to_json()["nodes"] if n["node"] == read]
    assert entry["spark"]["version_notes"] == [note.text] and entry["datafusion"]["version_notes"] == []


def test_datafusions_duplicate_names_are_a_gap_of_names():
    """DataFusion 55's consumer refuses its own TPC-DS q64 plan at a join whose inputs both have d_date_sk
    (its message, as `executor portability --tpcds` shows it)."""
    from executor.engines.datafusion import category

    message = "DataFusion's consumer: Schema contains duplicate qualified field name left.d_date_sk"
    assert category(message) == "names"
    assert category('DataFusion\'s consumer: not implemented: Unsupported function name: "index_in"') == "function"


def test_a_gap_of_no_known_kind_is_said_without_one():
    """The Engines tab said "DataFusion cannot (other): …" of errors.json's broken reference: "(other)"
    named no kind of gap. A known kind is still said."""
    from executor.engines.portability import EngineVerdict, verdict_words

    assert verdict_words(EngineVerdict(False, "index out of bounds", "other")) == "cannot: index out of bounds"
    assert verdict_words(EngineVerdict(False, "no Spark mapping", "function")) == "cannot (function): no Spark mapping"


def test_a_plan_nested_too_deep_for_the_main_stack_is_said_not_crashed():
    """A filter condition of 20,000 nested calls: protobuf's writer overflowed the main thread's stack
    (the process died of a segmentation fault) where the plan's digest and DataFusion's sub-plan were
    serialised; both are written where deep recursion is safe, and DataFusion's refusal is said."""
    from executor.engines.datafusion import DataFusionRunner
    from viz.model import analyze

    depth = 20_000
    call = '{"scalarFunction":{"functionReference":1,"outputType":{"bool":{}},"arguments":[{"value":'
    condition = (
        call * depth + '{"selection":{"directReference":{"structField":{}},"rootReference":{}}}' + "}]}}" * depth
    )
    plan = (
        '{"extensionUris":[{"extensionUriAnchor":1,"uri":"functions_boolean.yaml"}],"extensions":[{"extensionFunction":'
        '{"extensionUriReference":1,"functionAnchor":1,"name":"not:bool"}}],"relations":[{"root":{"input":{"filter":'
        '{"input":{"read":{"namedTable":{"names":["t"]},"baseSchema":{"names":["a"],"struct":{"types":[{"bool":{}}]}}}},'
        f'"condition":{condition}}}}},"names":["a"]}}}}]}}'
    )
    model = analyze(plan.encode())
    assert len(model.digest) == 64
    assert DataFusionRunner(model).check("0") == (
        "DataFusion's consumer: the plan nests deeper than DataFusion's protobuf reader takes (100 nested messages)"
    )
