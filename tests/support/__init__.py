"""What the tests share: the project's paths, the corpora, and waiting on the app or on Spark.

The helper modules beside it: ``plans`` (hand-made plans), ``app_graph`` (the graph an AppTest page
drew), ``exec_oracle`` (DuckDB's rows for a plan's SQL), ``function_cases`` (the spec's function tests),
``conformance_table`` (docs/conformance.md's table), ``browser`` (Chromium for the browser tests) and
``tables`` (folders of other tables)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmarks.plans import CORPORA, corpus_plans  # the tests' corpus, shared with the benchmarks

__all__ = ["APP", "CORPORA", "ROOT", "SHARED", "SNAPSHOTS", "TESTS", "corpus_plans", "no_active_jobs", "wait_for"]

#: The tests folder and the project's root, whichever folder a test lives in.
TESTS = Path(__file__).resolve().parent.parent
ROOT = str(TESTS.parent)
APP = os.path.join(ROOT, "app.py")
SHARED = os.path.dirname(CORPORA)
#: The consumer-testing corpus's plans by producer (``relation/aggregate/...-isthmus_plan.json``).
SNAPSHOTS = os.path.join(CORPORA, "consumer-testing", "snapshots", "producer")


def wait_for(at, done, timeout_s: float = 180):
    """Rerun an AppTest until ``done(at)`` (background work in the app finishes), failing on an
    exception in the page or after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        at.run()
        assert not at.exception, at.exception
        if done(at):
            return at
        time.sleep(0.5)
    raise AssertionError(f"the app's work did not finish in {timeout_s:g} s")


def until(check, timeout_s: float = 5.0) -> None:
    """Poll ``check`` until it holds (work on another thread), failing after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def no_active_jobs(spark, within_s: float = 10.0) -> bool:
    """Whether the Spark session has no job running, now or within ``within_s`` seconds (a cancelled
    run's jobs stop a moment after the cancel)."""
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not tracker.getActiveJobsIds():
            return True
        time.sleep(0.2)
    return False
