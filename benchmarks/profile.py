"""Profiling benchmark: ``executor.jobs.profile.profile_plan`` against the per-node way.

``run(quick=False) -> dict`` (JSON-able), on one warm session (``get_session()``):

1. Each TPC-H query planned by DataFusion (``executor.engines.sql_plan.sql_to_plan``, the producer of
   today, which writes its joins without a condition and their keys in a filter above), profiled
   (the reads' count, one run observing every other node, counts that follow from the inputs
   derived) against the per-node way (``one_run=False``: each node counted in a Spark job of its
   own), the profile memo cleared before each. The per-node way cannot count a cross product in
   any useful time (q03's is 1.35 trillion rows at scale 0.01), so it is given every node but
   those, and the two must agree on each node it counts.
2. ``python -m executor profile``'s work on DataFusion's plans of the largest TPC-DS queries at
   scale 0.1 (target: under a minute each).

Data: TPC-H at scale 1 (quick: 0.1) from ``executor.data.generate.tpch``; TPC-DS at 0.1 from
``executor.data.generate.tpcds`` (quick: query 72 only).
"""

from __future__ import annotations

import os
import statistics
import time

from executor.data.generate import tpch

from .spark import CORPORA, SQL_DIR, _log

TPCDS_SQL = os.path.join(CORPORA, "tpcds-sql")
TPCDS_PROFILE_QUERIES = ("04", "64", "72")  # the most nodes, the most joins, the longest run
TPCDS_PROFILE_SCALE = 0.1
TARGET_PROFILE_S = 60.0


def profiling(spark, data_dir: str, numbers, tpcds_queries=TPCDS_PROFILE_QUERIES) -> dict:
    """One run against one job per node on DataFusion's TPC-H plans, and the TPC-DS profiles."""
    from executor.data.catalog import Catalog
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.jobs.profile import clear_cache, is_cross_product, profile_plan
    from executor.producer.check import read_queries
    from viz.model import analyze

    def profile_of(folder: str, names: set[str], sql_dir: str, per_node: bool) -> list[dict]:
        tables = {f[: -len(".parquet")]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
        catalog = Catalog([folder])
        out = []
        chosen = [q for q in read_queries([sql_dir]) if q.name in names]
        if chosen:  # one untimed profile each way first: the first Spark jobs of a session are slow
            warm = analyze(sql_to_plan(chosen[0].sql, tables).data)
            profile_plan(warm, catalog, spark=spark, timeout_s=600)
            profile_plan(
                warm,
                catalog,
                spark=spark,
                one_run=False,
                timeout_s=600,
                node_ids=[n for n in warm.graph.nodes if not is_cross_product(warm, n)],
            )
            clear_cache()
        for q in chosen:
            row: dict = {"query": q.name}
            try:
                model = analyze(sql_to_plan(q.sql, tables).data)
                clear_cache()
                start = time.perf_counter()
                one = profile_plan(model, catalog, spark=spark, timeout_s=600)
                row.update(
                    nodes=len(one.nodes),
                    one_run_s=round(time.perf_counter() - start, 3),
                    one_run_jobs=one.jobs,
                    stopped=one.stopped,
                    errors=len(one.errors),
                )
                if per_node:
                    crosses = [n for n in one.nodes if is_cross_product(model, n)]
                    clear_cache()
                    start = time.perf_counter()
                    each = profile_plan(
                        model,
                        catalog,
                        spark=spark,
                        one_run=False,
                        timeout_s=600,
                        node_ids=[n for n in one.nodes if n not in crosses],
                    )
                    per_s = time.perf_counter() - start
                    row.update(
                        per_node_s=round(per_s, 3),
                        per_node_jobs=each.jobs,
                        cross_products_left_out=len(crosses),
                        speedup=round(per_s / row["one_run_s"], 2),
                        same_counts=all(each.nodes[n].rows == one.nodes[n].rows for n in each.nodes),
                    )
                _log(f"profile {q.name}: {row}")
            except Exception as exc:  # noqa: BLE001 - recorded per query; the others still run
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            out.append(row)
            clear_cache()
        return out

    tpch_rows = profile_of(data_dir, {f"q{n:02d}" for n in numbers}, SQL_DIR, per_node=True)
    tpcds_rows = (
        profile_of(tpcds(TPCDS_PROFILE_SCALE), set(tpcds_queries), TPCDS_SQL, per_node=False) if tpcds_queries else []
    )
    speedups = [r["speedup"] for r in tpch_rows if "speedup" in r]
    return {
        "tpch": tpch_rows,
        "median_speedup": round(statistics.median(speedups), 2) if speedups else None,
        "tpcds_scale": TPCDS_PROFILE_SCALE,
        "tpcds": tpcds_rows,
        "target_s": TARGET_PROFILE_S,
    }


def run(quick: bool = False) -> dict:
    from executor.spark.session import get_session

    scale = 0.1 if quick else 1
    data_dir = tpch(scale)
    spark = get_session()
    result = profiling(spark, data_dir, range(1, 23), TPCDS_PROFILE_QUERIES[-1:] if quick else TPCDS_PROFILE_QUERIES)
    return {"quick": quick, "scale": scale, "spark_version": spark.version, **result}


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
