"""The opening-a-plan benchmark's pieces: the baseline's per-node walk and the row it reports.

Speed is not asserted here (that is the benchmark's job); these check that what is measured is
what the report says is measured.
"""

from __future__ import annotations

import json

import pytest

from benchmarks import open_plan
from benchmarks.plans import deep_chain, wide_joins, wide_union
from viz.model import analyze


def _data(plan: dict) -> bytes:
    return json.dumps(plan).encode()


def test_baseline_visits_every_node_with_its_subtree():
    from google.protobuf import json_format
    from substrait import plan_pb2

    for make, n in ((deep_chain, 30), (wide_joins, 40), (wide_union, 40)):
        data = _data(make(n))
        plan = json_format.Parse(data, plan_pb2.Plan())
        rels = open_plan._rels_with_sizes(plan)
        model = analyze(data)
        assert len(rels) == len(model.graph.nodes)
        # the top relation's subtree is the whole plan; a leaf's is itself
        assert rels[0][1] == len(rels)
        assert min(size for _, size in rels) == 1
    chain = open_plan._rels_with_sizes(json_format.Parse(_data(deep_chain(30)), plan_pb2.Plan()))
    assert sorted(size for _, size in chain) == list(range(1, 31))


def test_baseline_completes_or_extrapolates():
    data = _data(deep_chain(60))
    full = open_plan.baseline(data, budget_s=60)
    assert full["complete"] and full["nodes_done"] == full["nodes"] == 60
    assert full["subtree_visits"] == 60 * 61 // 2
    assert full["failed_nodes"] == 0 and full["seconds"] > 0
    cut = open_plan.baseline(data, budget_s=0)
    assert not cut["complete"] and cut["nodes_done"] == 1
    assert "seconds" not in cut and cut["estimate_s"] > 0


def test_case_row_reports_ours_phases_and_ratio():
    row = open_plan._case("deep chain", _data(deep_chain(20)), budget_s=60)
    assert row["nodes"] == 20
    assert set(row["phases"]) == {"load", "graph", "schemas", "properties", "dot"}
    assert row["ours_s"] > 0 and row["baseline_s"] > 0
    assert abs(row["ratio"] - row["ours_s"] / row["baseline_s"]) < 0.01 * row["ratio"] + 1e-3
    assert row["ok_10k_under_2s"] is None  # only a 10,000-node case is held to the target
    summary = open_plan.summarize([row], [20])
    assert set(summary["shapes"]) == set(open_plan.SHAPES)


def test_inspect_cli_times_the_command_in_processes_of_its_own():
    row = open_plan.inspect_cli("wide union", _data(wide_union(30)), repeat=2)
    assert row["nodes"] == len(analyze(_data(wide_union(30))).graph.nodes)
    assert len(row["runs"]) == 2 and all(r > 0 for r in row["runs"])
    assert row["min_s"] == min(row["runs"]) and row["min_s"] <= row["seconds"]
    assert row["ok"] is None  # only a 10,000-node plan is held to the target
    with pytest.raises(RuntimeError, match="failed"):  # a plan the command refuses is not timed as if it ran
        open_plan.inspect_cli("broken", b"{not json", repeat=1)
