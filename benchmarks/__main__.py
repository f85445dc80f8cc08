"""Benchmarks: ``python -m benchmarks`` (or ``make bench``). Not part of ``make test``.

Opening a plan: load (JSON) + every node's schema + the inspect JSON + DOT, for synthetic plans of
growing size. Prints a table and writes benchmarks/results/plan_model.json.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time

from benchmarks.plans import deep_chain, wide_joins
from viz.model import analyze
from viz.render import to_dot

SIZES = [100, 1_000, 5_000, 10_000]
REPEAT = 3


def _time(fn) -> float:
    runs = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def open_plan(data: bytes) -> None:
    model = analyze(data)
    json.dumps(model.to_json())
    to_dot(model)


def main() -> int:
    rows = []
    for shape, make in (("deep chain", deep_chain), ("wide joins", wide_joins)):
        for size in SIZES:
            data = json.dumps(make(size)).encode()
            nodes = len(analyze(data).graph.nodes)
            seconds = _time(lambda: open_plan(data))
            rows.append({"shape": shape, "nodes": nodes, "bytes": len(data), "seconds": round(seconds, 4),
                         "us_per_node": round(seconds / nodes * 1e6, 1)})
            print(f"{shape:11} {nodes:7,} nodes {len(data)/1e6:7.2f} MB  {seconds:7.3f} s  {seconds / nodes * 1e6:7.1f} µs/node", flush=True)
    out_dir = os.path.join(os.path.dirname(__file__), "results")
    os.makedirs(out_dir, exist_ok=True)
    machine = {"python": sys.version.split()[0], "platform": platform.platform(), "cpus": os.cpu_count()}
    with open(os.path.join(out_dir, "plan_model.json"), "w") as fh:
        json.dump({"machine": machine, "open_plan": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
