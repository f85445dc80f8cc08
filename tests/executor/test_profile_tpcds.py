"""Profile TPC-DS plans as DataFusion writes them (issue 37): every node counted, the counts on the
graph, and the profile's table drawn without an exception, though a cross product's derived count is
far past 2^63 (q64's largest is about 9.1 × 10⁶²). Plans from ``executor.engines.sql_plan.sql_to_plan`` over
TPC-DS at scale 0.01; the queries cover the shapes: q04 (165 nodes, unions of aggregates over
cross products), q07 and q19 (a star join written as cross products under one filter), q64 (92
nodes, a self-join of a CTE, derived counts beyond any 64-bit integer)."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import SHARED

QUERIES = ("04", "07", "19", "64")


def _page(plan: bytes, profile_json: dict) -> None:
    """The Inspect page's profile table and graph for a finished profile (run in AppTest)."""
    import streamlit as st

    from executor.jobs.profile import NodeProfile, Profile
    from ui.panels.boundary import panel
    from ui.panels.row_counts import profile_overlay, profile_table
    from viz.model import analyze
    from viz.render import View, to_dot

    model = analyze(plan)
    profile = Profile({n: NodeProfile(**p) for n, p in profile_json["nodes"].items()})
    with panel("the profile table"):
        profile_table(model, profile)
    with panel("the graph"):
        st.session_state["dot"] = to_dot(model, view=View(profile=profile_overlay(profile)))


@pytest.mark.slow
def test_profiles_of_datafusion_tpcds_plans_draw_with_counts_and_no_exception(spark):
    from executor.data.catalog import Catalog
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.jobs.profile import profile_plan
    from executor.producer.check import read_queries
    from viz.counts import rows_text
    from viz.model import analyze

    folder = tpcds(0.01)
    tables = {f[: -len(".parquet")]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
    queries = {q.name: q for q in read_queries([os.path.join(SHARED, "corpora", "tpcds-sql")])}
    catalog = Catalog(data_roots=[folder])
    beyond_64_bits = 0
    for name in QUERIES:
        data = sql_to_plan(queries[name].sql, tables, json=False).data
        model = analyze(data)
        profile = profile_plan(model, catalog, spark=spark, timeout_s=300)
        assert not profile.stopped and not profile.errors, (name, profile.stopped, profile.errors)
        assert all(p.rows is not None for p in profile.nodes.values()), name  # every node counted
        beyond_64_bits += sum(p.rows >= 2**63 for p in profile.nodes.values())

        at = AppTest.from_function(_page, args=(data, profile.to_json()), default_timeout=60).run()
        assert not at.exception and not at.error, (name, at.exception, [e.value for e in at.error])
        [frame] = [d.value for d in at.dataframe]
        assert len(frame) == len(model.graph.nodes)
        dot = at.session_state["dot"]
        for nid, p in profile.nodes.items():  # each node's count on its box
            line = next(line for line in dot.splitlines() if line.startswith(f'  "{nid}" ['))
            assert rows_text(p.rows) in line, (name, nid)
    assert beyond_64_bits > 0  # the case that failed: counts a dataframe's integers cannot hold
