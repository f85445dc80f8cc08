from __future__ import annotations

import os
import sys
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


def uses_this_runs_spark(item: pytest.Item) -> bool:
    """Whether a test runs Spark in the test process (the ``spark`` fixture, or marked ``spark`` without
    ``own_jvm``). Every other test passes with Spark unable to start in the test process."""
    if "spark" in item.fixturenames:
        return True
    return item.get_closest_marker("spark") is not None and item.get_closest_marker("own_jvm") is None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # `make test` runs two workers (`-n 2 --dist loadgroup`): the tests of this run's Spark session all
    # in one of them, in their order, so that the run has one session; the rest, which wait on browsers,
    # servers and other processes more than on Spark, in the other. Without xdist the mark does nothing.
    for item in items:
        item.add_marker(pytest.mark.xdist_group("spark" if uses_this_runs_spark(item) else "rest"))


_spark_tests_run = 0


@pytest.fixture(autouse=True)
def _spark_only_where_marked(request):
    """Fails a test that started Spark in the test process without saying so (the ``spark`` fixture or
    mark): in `make test` it would start a second session in the other worker."""
    global _spark_tests_run
    if uses_this_runs_spark(request.node):
        _spark_tests_run += 1
    yield
    session = sys.modules.get("executor.session")
    if _spark_tests_run == 0 and session is not None and session.is_started():
        pytest.fail(f"{request.node.nodeid} started Spark in the test process: give it the spark fixture or mark")


@pytest.fixture(scope="session")
def corpora_dir() -> str:
    if not os.path.isdir(CORPORA):
        pytest.fail(f"the corpora are expected at {CORPORA} (../shared beside the repo)")
    return CORPORA


@pytest.fixture
def spark():
    """The executor's shared session: one for the whole run, started by the first test that needs it
    (a new one only if the JVM died, as the app would do)."""
    from executor.session import get_session

    return get_session()


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
