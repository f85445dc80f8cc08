"""Types per engine for a large plan: how long a person waits for them, and that the page does not.

The plan is DataFusion's TPC-DS q64 (92 relations) over TPC-DS at scale 0.01; in the process also its q04
(165 relations).

- *In the process* (Spark already up and used once, as it is in the app once a plan is open): every node's column
  types on both engines the first time they are asked for (``executor.engines.portability.node_types``),
  and again (kept per plan); the baseline is the least such an answer takes, the root's types alone
  (one translation and one DataFusion sub-plan). Also the report without types (no Spark).
- *In the app* (``streamlit run``, Chromium), each plan: opened through a share link, Spark up, the
  inspector's Engines tab opened on the root: seconds from the click to the types table. Meanwhile,
  half a second after that click, a node is picked in the picker: seconds until the inspector shows it,
  against the same pick on an idle page (the page must not wait for the types).

``python -m benchmarks engines [--quick]`` (``--quick``: the in-process figures only). The target: the
types within 5 s of asking, and the pick while they come about as fast as on an idle page.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

from benchmarks.app import TIMEOUT_MS, VIEWPORT, _browser, _log, java_children, start_server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_S = 5.0
#: Seconds after the JVM is up before the first click, as a person reads the graph meanwhile.
READING_S = 10.0
#: The node picked while the types come: an aggregate of q64's `cs_ui` subquery, q04's first below the root.
PICKED = {"64": "0.0*22.1.0.0", "04": "0.0"}
GRAPH = ".sv-stage svg"


def _tpcds(name: str) -> tuple[bytes, str]:
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries

    folder = tpcds(0.01)
    tables = {os.path.splitext(f)[0]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
    sql = os.path.join(ROOT, "..", "shared", "corpora", "tpcds-sql")
    [query] = [q for q in read_queries([sql]) if q.name == name]
    return sql_to_plan(query.sql, tables).data, folder


def in_process(data: bytes, folder: str) -> dict:
    from executor.data.catalog import Catalog
    from executor.engines import portability as P
    from executor.engines.engine_types import engine_types
    from executor.spark.session import get_session
    from viz.model import analyze

    get_session()
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:  # as the app's warm-up would
        engine_types(analyze(fh.read()), Catalog([os.path.join(ROOT, "sample_data", "tutorial")]))
    model, catalog = analyze(data), Catalog([folder])
    began = time.perf_counter()
    engine_types(model, catalog, nodes=[model.roots[0]])
    root_s = time.perf_counter() - began
    began = time.perf_counter()
    P.portability(model, catalog)
    report_s = time.perf_counter() - began
    began = time.perf_counter()
    types = P.node_types(model, catalog)
    first_s = time.perf_counter() - began
    began = time.perf_counter()
    P.node_types(model, catalog)
    again_s = time.perf_counter() - began
    out = {
        "nodes": len(model.graph.nodes),
        "baseline_root_only_s": round(root_s, 3),
        "report_without_types_s": round(report_s, 3),
        "types_first_s": round(first_s, 3),
        "types_again_s": round(again_s, 4),
        "nodes_with_types": sum(1 for t in types.values() if t.columns),
    }
    _log(f"in process: {out}")
    return out


def _pick(page, node: str) -> float:
    """Seconds from picking ``node`` in the picker to the inspector's heading naming it."""
    began = time.perf_counter()
    page.get_by_role("combobox", name="Select a node (type to search)").click()
    page.keyboard.type(node)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('h3')].some((h) => h.textContent.trim().endsWith('· ' + n))",
        arg=node,
        timeout=60_000,
    )
    return time.perf_counter() - began


def in_app(data: bytes, folder: str, picked: str) -> dict:
    from playwright.sync_api import sync_playwright

    from ui.state.share import save_shared

    link = save_shared(data)
    server = start_server({"SUBSTRAIT_VIZ_DATA": folder})
    try:
        with sync_playwright() as p:
            browser = _browser(p)
            try:
                page = browser.new_context(viewport=VIEWPORT).new_page()
                page.goto(f"{server.url}/?plan={link}", timeout=TIMEOUT_MS)
                page.wait_for_selector(f"{GRAPH} g.node", timeout=TIMEOUT_MS)
                deadline = time.time() + 180
                while not java_children(server.proc.pid) and time.time() < deadline:
                    time.sleep(0.5)
                time.sleep(READING_S)
                idle = [_pick(page, picked), _pick(page, "0")]
                began = time.perf_counter()
                page.get_by_role("tab", name="Engines").click()
                time.sleep(0.5)
                during = _pick(page, picked)
                page.wait_for_function(  # the types table's header
                    "() => [...document.querySelectorAll('[data-testid=stDataFrame] table tr')]"
                    ".some((r) => r.textContent.includes('declared'))",
                    timeout=180_000,
                )
                types_s = time.perf_counter() - began
                errors = page.locator("[data-testid=stException]").count()
            finally:
                browser.close()
    finally:
        server.stop()
    out = {
        "click_to_types_s": round(types_s, 3),
        "pick_while_types_come_s": round(during, 3),
        "pick_idle_s": round(statistics.median(idle), 3),
        "exceptions": errors,
    }
    _log(f"in the app: {out}")
    return out


def run(quick: bool = False) -> dict:
    data, folder = _tpcds("64")
    results: dict = {"plan": "DataFusion TPC-DS q64 (scale 0.01)", "target_s": TARGET_S}
    results["in_process"] = in_process(data, folder)
    if not quick:
        larger, _ = _tpcds("04")
        results["larger"] = {"plan": "DataFusion TPC-DS q04 (scale 0.01)", **in_process(larger, folder)}
        results["app"] = in_app(data, folder, PICKED["64"])
        results["app_larger"] = in_app(larger, folder, PICKED["04"])
    firsts = [results[k]["types_first_s"] for k in ("in_process", "larger") if k in results]
    apps = [results[k]["click_to_types_s"] for k in ("app", "app_larger") if k in results]
    results["within_target"] = max(firsts + apps) <= TARGET_S
    return results


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv[1:]), indent=2))
