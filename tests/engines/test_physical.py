"""The engine's own plan for a node (executor.engines.physical): Spark's and DataFusion's physical plan
of a node's subtree, the node's operators set apart from its inputs'.

The oracle is each engine's own explain output: the operators expected below were read by hand from
Spark's ``explain()`` and DataFusion's ``display_indent()`` of these plans on TPC-H at scale 0.01 (a
filter over a read: Spark keeps a ``Filter`` above the scan and pushes the predicate into it as
``PushedFilters``; an aggregate: a final and a partial ``HashAggregate`` around an ``Exchange``, two
``AggregateExec`` around a hash ``RepartitionExec``; nation ⋈ region: ``BroadcastHashJoin``, and
``HashJoinExec`` in ``CollectLeft`` mode with region as the build side).
"""

from __future__ import annotations

import pytest

from executor.data.catalog import Catalog
from executor.engines.physical import (
    SPARK_AQE_SOURCE,
    SPARK_SOURCE,
    clear_cache,
    datafusion_plan,
    parse_spark,
    spark_plan,
)
from executor.jobs.run import clear_cache as clear_translations
from tests.support import plans as P

NATION = [("n_nationkey", "i64"), ("n_name", "string"), ("n_regionkey", "i64"), ("n_comment", "string")]
REGION = [("r_regionkey", "i64"), ("r_name", "string"), ("r_comment", "string")]


def _planted():
    """Root 0: nation where n_regionkey > 1; root 1: count per region key; root 2: nation ⋈ region;
    root 3: an insert (which no engine is given)."""
    filt = {"filter": {"input": P.read("nation", NATION), "condition": P.call(2, P.field(2), P.i64(1))}}
    agg = {
        "aggregate": {
            "input": P.read("nation", NATION),
            "groupings": [{"groupingExpressions": [P.field(2)]}],
            "measures": [P.measure(5, P.field(0))],
        }
    }
    join = {
        "join": {
            "left": P.read("nation", NATION),
            "right": P.read("region", REGION),
            "expression": P.call(1, P.field(2), P.field(4)),
            "type": "JOIN_TYPE_INNER",
        }
    }
    write = {
        "write": {
            "namedTable": {"names": ["t"]},
            "tableSchema": {"names": ["a"], "struct": {"types": [P.typ("i64")]}},
            "op": "WRITE_OP_INSERT",
            "input": P.read("nation", [("n_nationkey", "i64")]),
        }
    }
    return P.model_of(P.plan((filt, list("abcd")), (agg, ["k", "n"]), (join, list("abcdefg")), (write, ["a"])))


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    clear_translations()
    yield
    clear_cache()


def _scans(plan) -> list[bool]:
    """Whether each scan line is marked as the node's."""
    return [line.own for line in plan.lines if line.name in ("FileScan", "DataSourceExec")]


# ---- DataFusion ------------------------------------------------------------------------------------


def test_datafusion_sets_a_nodes_operators_apart(tpch_dir):
    model, catalog = _planted(), Catalog([tpch_dir])
    filt = datafusion_plan(model, "0", catalog)
    assert filt.error is None and "FilterExec" in filt.own_operators()
    assert _scans(filt) == [False]  # the read's DataSourceExec stays the input's
    assert any("predicate=" in n for n in filt.notes)  # DataFusion also pushes the predicate into the scan
    agg = datafusion_plan(model, "1", catalog)
    assert agg.own_operators().count("AggregateExec") == 2 and _scans(agg) == [False]  # partial and final
    join = datafusion_plan(model, "2", catalog)
    assert "HashJoinExec" in join.own_operators() and _scans(join) == [False, False]
    read = datafusion_plan(model, "2.1", catalog)
    assert read.own_operators() == ("DataSourceExec",) and "region.parquet" in read.lines[0].text
    marked = filt.text().splitlines()
    assert marked[0].startswith("DataFusion's physical plan") and any(
        x.startswith("▶ ") and "FilterExec" in x for x in marked
    )


def test_datafusion_says_why_it_has_no_plan(tpch_dir):
    from tests.engines.test_bisect import TUTORIAL_DATA, _model

    tutorial = datafusion_plan(_model("tutorial.json"), "0.0.1", Catalog([TUTORIAL_DATA]))
    assert tutorial.lines == () and "index_in" in tutorial.error  # DataFusion maps no `index_in`
    assert "index_in" in tutorial.text()
    write = datafusion_plan(_planted(), "3", Catalog([tpch_dir]))
    assert "never executed" in write.error
    assert "no node" in datafusion_plan(_planted(), "9", None).error


def test_datafusion_plans_are_kept(tpch_dir):
    model, catalog = _planted(), Catalog([tpch_dir])
    assert datafusion_plan(model, "1", catalog) is datafusion_plan(model, "1", catalog)
    assert datafusion_plan(model, "1", None) is not datafusion_plan(model, "1", catalog)  # another catalog


# ---- Spark -----------------------------------------------------------------------------------------

#: Spark's simple explain of a filter under adaptive execution, with a scalar subquery (Spark prints it
#: two levels below its holder), as Spark 4 prints them.
EXPLAINED = """== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- Filter (isnotnull(n_regionkey#2L) AND (n_regionkey#2L > Subquery subquery#10, [id=#20]))
   :  +- Subquery subquery#10, [id=#20]
   :     +- AdaptiveSparkPlan isFinalPlan=false
   :        +- HashAggregate(keys=[], functions=[min(r_regionkey#5L)])
   :           +- FileScan parquet [r_regionkey#5L] Location: InMemoryFileIndex(1 paths)[file:/d/region.parquet]
   +- FileScan parquet [n_regionkey#2L] Location: InMemoryFileIndex(1 paths)[file:/d/nation.parquet]
"""


def test_spark_explain_is_read_as_a_tree():
    root, source = parse_spark(EXPLAINED)
    assert source == SPARK_AQE_SOURCE and root.name == "Filter"
    assert [c.name for c in root.children] == ["Subquery", "FileScan"]  # the subquery hangs under its holder
    assert root.children[1].key == "FileScan[nation.parquet]" and root.children[1].line.startswith("+- FileScan")
    codegen, source = parse_spark("== Physical Plan ==\n*(1) ColumnarToRow\n+- FileScan parquet [a#1]\n")
    assert source == SPARK_SOURCE and codegen.name == "ColumnarToRow" and codegen.wrapper


def test_spark_sets_a_nodes_operators_apart(spark, tpch_dir):
    model, catalog = _planted(), Catalog([tpch_dir])
    filt = spark_plan(model, "0", catalog)
    assert filt.error is None and "Filter" in filt.own_operators() and "FileScan" not in filt.own_operators()
    assert any("PushedFilters" in n for n in filt.notes)  # Spark also pushes the predicate into the scan
    agg = spark_plan(model, "1", catalog)
    assert agg.own_operators().count("HashAggregate") == 2 and "Exchange" in agg.own_operators()
    assert _scans(agg) == [False] and agg.source == SPARK_AQE_SOURCE
    join = spark_plan(model, "2", catalog)
    assert {"BroadcastHashJoin", "SortMergeJoin"} & set(join.own_operators()) and _scans(join) == [False, False]
    assert spark_plan(model, "2", catalog) is join


def test_spark_says_why_it_has_no_plan(spark, tpch_dir):
    write = spark_plan(_planted(), "3", Catalog([tpch_dir]))
    assert write.lines == () and "never executed" in write.error
    assert write.text().startswith("Spark has no plan for node 3: ")


def test_spark_plans_a_table_not_bound_as_an_empty_stand_in(spark):
    """As the types do: with no tables given, Spark still plans every node (over empty tables with the
    plan's columns) and says so, instead of failing on a table it cannot find."""
    import os

    from tests.support import ROOT
    from viz.model import analyze

    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        model = analyze(fh.read())
    for nid in model.graph.nodes:
        plan = spark_plan(model, nid, None)
        assert plan.error is None, (nid, plan.error)
        assert "not bound, so planned as empty tables" in plan.source, plan.source
    reads = [nid for nid in model.graph.nodes if model.node(nid).kind == "read"]
    assert all("Scan" in spark_plan(model, r, None).own_operators() for r in reads)  # "Scan ExistingRDD"
