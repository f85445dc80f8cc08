"""Benchmarks: ``python -m benchmarks [open|spark|app|profile|load|engines|heap ...] [--quick]`` (or ``make bench``).
Not part of ``make test``.

    python -m benchmarks                 # all of them, full size (TPC-H scale 1: long)
    python -m benchmarks open --quick    # one or more of them, small and fast (a minute or two each)
    python -m benchmarks.report          # rebuild the report and plot from the results already there

- ``open``: opening a plan (load, every node's schema and properties, DOT) for synthetic plans of
  100 to 50,000 nodes and the largest corpus plans, against ``substrait.type_inference``
  (``benchmarks/open_plan.py``).
- ``spark``: the executor against ``spark.sql`` on TPC-H, and the latency of a node's first 100
  rows (``benchmarks/spark.py``).
- ``app``: the app in Chromium: time to the graph drawn, a node click, peak memory, and that no
  page waits for Spark (``benchmarks/app.py``).
- ``profile``: profiling DataFusion's TPC-H plans in one run against one Spark job per node, and
  DataFusion's largest TPC-DS plans at scale 0.1 (``benchmarks/profile.py``).
- ``load``: ten browser sessions with ten plans click Run at once, against the same ten one after
  another (``benchmarks/load.py``).
- ``engines``: the column types each engine gives every node of a 92-node plan, in the process and in
  the app, and a node picked while they come (``benchmarks/engines.py``).
- ``heap``: a plan of eleven broadcasts run again and again in a 1 GB driver, with the session's memory
  settings against Spark's own (``benchmarks/broadcast_heap.py``).

Each writes ``benchmarks/results/<name>.json`` (its results and a ``machine`` block); then
``benchmarks/results/REPORT.md`` and ``docs/benchmarks.png`` are rebuilt from every results file
present. A benchmark that is missing or fails has its error recorded in its file; the others still run.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback
from importlib.metadata import PackageNotFoundError, version

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
#: Benchmark name on the command line -> module in ``benchmarks/`` with ``run(quick) -> dict``.
BENCHMARKS = {
    "open": "open_plan",
    "spark": "spark",
    "app": "app",
    "profile": "profile",
    "load": "load",
    "engines": "engines",
    "heap": "broadcast_heap",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """``[open|spark|app|profile|load|engines|heap ...] [--quick]``; no names means all of them, in that order."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Run the benchmarks, write benchmarks/results/<name>.json, REPORT.md and docs/benchmarks.png.",
    )
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"which to run: {', '.join(BENCHMARKS)} (default: all)"
    )
    parser.add_argument("--quick", action="store_true", help="small, fast versions (for development)")
    parser.add_argument("--no-report", action="store_true", help="do not rebuild the report and plot")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(map(repr, unknown))}: expected some of {', '.join(BENCHMARKS)}")
    args.names = list(dict.fromkeys(args.names)) or list(BENCHMARKS)
    return args


# ---- the machine ---------------------------------------------------------------------------------


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _package(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _java() -> str | None:
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (out.stderr or out.stdout).strip().splitlines()
    return first[0] if first else None


def machine() -> dict:
    """What the figures were measured on: CPU, cores, memory, OS, versions, date and load."""
    cpuinfo = _read("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mem = re.search(r"^MemTotal:\s*(\d+)\s*kB", _read("/proc/meminfo"), re.M)
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cpu": model.group(1).strip() if model else platform.processor() or None,
        "cores": os.cpu_count(),
        "memory_gib": round(int(mem.group(1)) / 2**20, 1) if mem else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "java": _java(),
        "pyspark": _package("pyspark"),
        "streamlit": _package("streamlit"),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load_average": load,
    }


# ---- running -------------------------------------------------------------------------------------


def run_one(name: str, quick: bool, results_dir: str | None = None) -> dict:
    """Run benchmark ``name`` and write ``<results_dir>/<name>.json``; a missing module or an
    exception is recorded as ``error`` (with the traceback's tail) instead of stopping the run."""
    record: dict = {"name": name, "quick": quick, "machine": machine()}
    print(f"== {name} ({'quick' if quick else 'full'}) ==", flush=True)
    start = time.perf_counter()
    try:
        module = importlib.import_module(f"benchmarks.{BENCHMARKS[name]}")
        record["results"] = module.run(quick=quick)
    except Exception as exc:  # noqa: BLE001 - one failing benchmark must not lose the others
        record["error"] = f"{type(exc).__name__}: {exc}"
        record["traceback"] = traceback.format_exc()[-4000:]
        print(f"== {name} failed: {record['error']}", flush=True)
    record["elapsed_s"] = round(time.perf_counter() - start, 1)
    results_dir = results_dir or RESULTS
    os.makedirs(results_dir, exist_ok=True)
    path = os.path.join(results_dir, f"{name}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=2, default=str)
    print(f"== {name} done in {record['elapsed_s']} s: {path}", flush=True)
    return record


def main(argv: list[str] | None = None, results_dir: str | None = None, png_path: str | None = None) -> int:
    """Run the chosen benchmarks, then rebuild the report; exit status 1 when any of them failed."""
    args = parse_args(argv)
    results_dir = results_dir or RESULTS
    records = [run_one(name, args.quick, results_dir) for name in args.names]
    if not args.no_report:
        from benchmarks.report import PLOT_PNG, build

        md, png = build(results_dir, png_path=png_path or PLOT_PNG)
        print(f"report: {md}\nplot:   {png}", flush=True)
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
