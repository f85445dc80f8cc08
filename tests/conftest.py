from __future__ import annotations

import os
import time

import pytest

from benchmarks.plans import CORPORA, corpus_plans  # noqa: F401 - the tests' corpus, shared with the benchmarks

# The app starts Spark in the background once a plan is open; in the tests only where a test says so
# (tests/test_app_run.py), so the page tests stay free of Spark (tests/test_app_no_spark.py).
os.environ.setdefault("SUBSTRAIT_VIZ_WARM_UP", "0")

SHARED = os.path.dirname(CORPORA)


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="tests/test_golden.py: rewrite the golden files in tests/golden instead of comparing (check the diff by hand first)",
    )


def pytest_collection_modifyitems(session, config, items):
    """Tests that stop or kill the shared Spark session run last: a new JVM would start cold and
    warm its compiler again for every Spark test after them. After them, the tests whose cancelled
    job may leave tasks running: executor.reaper stops the JVM when they outlive its delay, and the
    next test would wait for that (28 s in the CI run of 2026-11-26)."""
    def rank(item) -> int:
        if item.get_closest_marker("leaves_spark_tasks") is not None:
            return 2
        return 1 if item.get_closest_marker("restarts_spark") is not None else 0

    items.sort(key=rank)  # stable


@pytest.fixture(autouse=True)
def whole_pages(request, monkeypatch):
    """AppTest has no browser to draw a graph and ask for the rest of the page (ui.page.open_plan):
    every run draws a whole page, but in tests marked ``graph_first``, which test that first run."""
    if request.node.get_closest_marker("graph_first") is None:
        import ui.page

        monkeypatch.setattr(ui.page, "GRAPH_FIRST", False)


@pytest.fixture(scope="session")
def corpora_dir() -> str:
    if not os.path.isdir(CORPORA):
        pytest.fail(f"the corpora are expected at {CORPORA} (../shared beside the repo)")
    return CORPORA


@pytest.fixture
def spark():
    """The executor's shared session: one for the whole run, started by the first test that needs it
    (a new one only if the JVM died, as the app would do). Tasks that a previous test's cancelled job
    left running are waited out first: executor.reaper stops the JVM when they outlive its delay, and
    it must not do so under the next test."""
    from executor import reaper
    from executor.session import get_session

    session = get_session()
    end = time.monotonic() + reaper.REAP_AFTER_S + 15
    while time.monotonic() < end:
        orphans = reaper.orphaned_tasks(session)
        if orphans == 0:
            break
        if orphans is None:  # cannot be told, or stopped meanwhile (by the reaper): the next session
            again = get_session()
            if again is session:
                break
            session = again
            continue
        time.sleep(0.5)
    return session


@pytest.fixture(scope="session")
def tpch_dir() -> str:
    """TPC-H at scale 0.01 as NAME.parquet, generated once into the project's cache folder."""
    from executor.data import tpch

    return tpch(0.01)


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
