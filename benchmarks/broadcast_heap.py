"""Broadcasts in a small heap: DataFusion's analyzed plan of TPC-DS q35 (scale 0.01: a few MB, eleven
broadcast joins built at once) run again and again, each run from scratch (no result or translation
kept), in a driver with a 1 GB heap, with the session's memory settings against Spark's own.

- ``spark``: Spark's page size (32 MB here: a fraction of the heap) and Java's 1 MB G1 regions, the
  settings before ``executor.spark.session.LOCAL_CONF`` set them.
- ``ours``: ``LOCAL_CONF`` as it is (1 MB pages, 4 MB regions).

Each setting runs in a process of its own (a JVM's heap settings are fixed when it starts); a run that
fails is counted, and the rest go on. Half the heap of the app's default, so that a failure shows in a
few runs instead of after an hour of other work.

``run(quick=False) -> dict`` returns ``{"settings": [{"name", "runs", "failed", "seconds", ...}], ...}``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from .spark import CORPORA, _log

QUERY = os.path.join(CORPORA, "tpcds-sql", "35.sql")
HEAP = "1g"
RUNS, QUICK_RUNS = 10, 4
SETTINGS = ("spark", "ours")


def _child(setting: str, runs: int) -> dict:
    """Run the plan ``runs`` times in this process's new session with ``setting``; the figures."""
    from executor.spark import session

    session.LOCAL_CONF["spark.driver.memory"] = HEAP
    if setting == "spark":
        session.LOCAL_CONF.pop("spark.buffer.pageSize")
        options = session.LOCAL_CONF["spark.driver.extraJavaOptions"]
        session.LOCAL_CONF["spark.driver.extraJavaOptions"] = options.replace(" -XX:G1HeapRegionSize=4m", "")
    from executor.data.catalog import Catalog
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.errors import ExecutionError
    from executor.jobs.run import clear_cache, run_node
    from viz.model import analyze

    folder = tpcds(0.01)
    tables = {f[: -len(".parquet")]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
    with open(QUERY, encoding="utf-8") as f:
        model = analyze(sql_to_plan(f.read(), tables, json=False, form="analyzed").data)
    catalog = Catalog([folder], tables)
    spark = session.get_session()
    conf = spark.sparkContext.getConf()
    seconds, failures = [], []
    for _ in range(runs):
        clear_cache()
        start = time.perf_counter()
        try:
            run_node(model, model.roots[0], catalog=catalog, limit=100, explain=False)
        except ExecutionError as exc:
            failures.append(str(exc)[:160])
        else:
            seconds.append(round(time.perf_counter() - start, 3))
    return {
        "name": setting,
        "heap": HEAP,
        "page_size": conf.get("spark.buffer.pageSize", "Spark's default"),
        "java_options": conf.get("spark.driver.extraJavaOptions"),
        "runs": runs,
        "failed": len(failures),
        "failures": failures,
        "seconds": seconds,
        "median_s": statistics.median(seconds) if seconds else None,
    }


def run(quick: bool = False) -> dict:
    runs = QUICK_RUNS if quick else RUNS
    out = []
    for setting in SETTINGS:
        _log(f"broadcast heap: {setting} settings, {runs} runs of TPC-DS q35 (analyzed) in a {HEAP} heap")
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.broadcast_heap", setting, str(runs)],
            capture_output=True,
            text=True,
            check=False,
        )
        last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
        try:
            out.append(json.loads(last[0]))
        except (IndexError, json.JSONDecodeError):
            out.append({"name": setting, "error": (proc.stderr.strip().splitlines() or ["no output"])[-1]})
        _log(f"  {out[-1].get('failed', '?')} of {runs} failed; seconds {out[-1].get('seconds')}")
    return {"query": "TPC-DS q35, DataFusion 55, analyzed, scale 0.01", "settings": out}


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], int(sys.argv[2]))))
