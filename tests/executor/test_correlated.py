"""A node inside a correlated subquery reads a column of the query around it, so it cannot run on its own:
``executor.translate.executable`` says so before Spark is touched (``part_of``: the node whose run includes
it), and the engines' report says it runs only within that node, for both engines. Spark itself is the
oracle: every node said to run does, every node said not to fails for its outer reference."""

from __future__ import annotations

import os

import pytest

from executor.data.catalog import Catalog
from executor.engines.portability import CORRELATED, portability
from executor.jobs.run import translation
from executor.translate.executable import executability
from tests.support import CORPORA, ROOT
from viz.model import analyze

TUTORIAL = os.path.join(ROOT, "sample_data", "tutorial")


def _subqueries():
    return analyze(open(os.path.join(ROOT, "sample_plans", "subqueries.json"), "rb").read())


@pytest.mark.parametrize(
    "path, data",
    [
        (os.path.join(ROOT, "sample_plans", "subqueries.json"), "tutorial"),
        (os.path.join(CORPORA, "isthmus-tpch", "query_17_plan.json"), "tpch"),
        (os.path.join(CORPORA, "isthmus-tpch", "query_04_plan.json"), "tpch"),
    ],
    ids=["subqueries.json", "isthmus q17", "isthmus q04"],
)
def test_what_is_said_to_run_alone_runs_and_a_correlated_node_does_not(spark, tpch_dir, path, data):
    model = analyze(open(path, "rb").read())
    catalog = Catalog([TUTORIAL if data == "tutorial" else tpch_dir])
    verdicts = executability(model)
    within = {nid for nid, v in verdicts.items() if v.part_of is not None}
    assert within, "the plan has a correlated subquery"
    for nid, verdict in verdicts.items():
        try:
            translation(model, nid, spark, catalog).df.limit(3).collect()
            error = None
        except Exception as e:  # noqa: BLE001 - the translation's own error is the finding
            error = str(e)
        if verdict.ok:
            assert error is None, (nid, error)
        else:
            assert nid in within and verdict.reason and "only as part of node" in verdict.reason, (nid, verdict)
            assert error is not None and "outer reference" in error, (nid, error)
            assert verdicts[verdict.part_of].ok  # the node named runs, the subquery with it


def test_the_engines_report_says_a_correlated_node_runs_only_within_its_query():
    report = portability(_subqueries(), Catalog([TUTORIAL]))
    within = {nid for nid, n in report.nodes.items() if n.spark.category == CORRELATED}
    assert within == {"0.s0", "0.s0.0", "0.0.s1"}  # the two subqueries that read products.product_id (^$0)
    for nid in within:
        n = report.nodes[nid]
        assert n.datafusion.category == CORRELATED and n.spark.part_of == n.datafusion.part_of
        assert n.spark.text() == f"only within node {n.spark.part_of}"
    assert report.nodes["0.s0"].spark.part_of == "0" and report.nodes["0.0.s1"].spark.part_of == "0.0"
    # the read under a correlated filter runs alone on both engines, and nothing else is said not to run
    assert report.nodes["0.s0.0.0"].spark.ok and report.nodes["0.s0.0.0"].datafusion.ok
    assert all(n.spark.ok and n.datafusion.ok for nid, n in report.nodes.items() if nid not in within)
    assert report.summary().endswith("3 nodes inside correlated subqueries run only within their query")
    marks = dict(report.overlay().nodes)
    assert marks["0.s0.0"].marks == (("muted", "runs only within node 0 (a correlated subquery)"),)
