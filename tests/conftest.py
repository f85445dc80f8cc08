from __future__ import annotations

import os
import shutil
import tempfile
import time

import pytest

from tests.support import CORPORA

# The app starts Spark in the background once a plan is open; in the tests only where a test says so
# (tests/app/test_app_run.py), so the page tests stay free of Spark (tests/app/test_app_no_spark.py).
os.environ.setdefault("SUBSTRAIT_VIZ_WARM_UP", "0")


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="tests/model/test_golden.py: rewrite the golden files in tests/golden instead of comparing (check the "
        "diff by hand first)",
    )


#: The fixture every test that needs Java requests, directly or through another fixture (``spark``,
#: ``spark_session``): the ``spark`` marker comes from it alone, so ``-m "not spark"`` (make test-fast)
#: leaves out exactly the tests that start a JVM, here or in an app server they drive.
JVM_FIXTURE = "jvm"


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the markers
def pytest_collection_modifyitems(session, config, items):
    """Every test whose fixtures include ``jvm`` is marked ``spark``. The browser tests run first, so
    that the tests without Spark, which ``make test`` runs in a second process (tests/support/suite.py),
    share the cores with them and not with the Spark sweeps. Tests that stop or kill the shared Spark
    session run last: a new JVM would start cold and warm its compiler again for every Spark test after
    them. After them, the tests whose cancelled job may leave tasks running: executor.spark.reaper stops
    the JVM when they outlive its delay, and the next test would wait for that."""
    for item in items:
        if JVM_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)

    def rank(item) -> int:
        if item.get_closest_marker("leaves_spark_tasks") is not None:
            return 3
        if item.get_closest_marker("restarts_spark") is not None:
            return 2
        return 0 if item.get_closest_marker("browser") is not None else 1

    items.sort(key=rank)  # stable


# A ``java`` that refuses to start and writes down who asked: JAVA_HOME points at it in a run that
# selects no Spark test, so such a run starts no JVM, in this process or in the app servers and
# command lines its tests start (Spark's launcher takes JAVA_HOME's java first).
_REFUSING_JAVA = """#!/bin/sh
echo "${PYTEST_CURRENT_TEST:-after the tests}: java $*" >> "%s"
echo "this run selects no Spark test and starts no JVM: a test that needs Spark requests the spark fixture \
(tests/conftest.py)" >&2
exit 1
"""
_JVM_LOG_KEY = pytest.StashKey[str]()


def pytest_collection_finish(session):
    if session.config.option.collectonly or not session.items:
        return
    if any(item.get_closest_marker("spark") is not None for item in session.items):
        return
    home = tempfile.mkdtemp(prefix="no-jvm-")
    log = os.path.join(home, "asked")
    os.makedirs(os.path.join(home, "bin"))
    java = os.path.join(home, "bin", "java")
    with open(java, "w") as fh:
        fh.write(_REFUSING_JAVA % log)
    os.chmod(java, 0o755)
    open(log, "w").close()
    session.config.stash[_JVM_LOG_KEY] = log
    os.environ["JAVA_HOME"] = home
    import dataclasses

    from executor import settings  # read before this hook, when the test modules were imported

    settings.SETTINGS = dataclasses.replace(settings.SETTINGS, java_home=home)


@pytest.fixture(autouse=True)
def no_unmarked_jvm(request):
    """In a run without Spark tests, a test that asked for a JVM fails and says so (its own Spark
    call may have swallowed the launcher's error)."""
    log = request.config.stash.get(_JVM_LOG_KEY, None)
    if log is None:
        yield
        return
    before = os.path.getsize(log)
    yield
    if os.path.getsize(log) > before:
        with open(log) as fh:
            fh.seek(before)
            asked = fh.read().strip()
        pytest.fail(
            f"this test started a JVM without the spark marker (request the spark fixture): {asked}", pytrace=False
        )


def pytest_sessionfinish(session, exitstatus):
    """What asked for a JVM after the last test looked (an app server's late start) fails the run too."""
    log = session.config.stash.get(_JVM_LOG_KEY, None)
    if log is None:
        return
    with open(log) as fh:
        asked = fh.read().strip()
    shutil.rmtree(os.path.dirname(log), ignore_errors=True)
    if asked:
        print(f"\nthis run selects no Spark test and yet a JVM was asked for:\n{asked}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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


@pytest.fixture(scope="session")
def jvm() -> str:
    """The ``java`` that Spark starts, in this process or in an app server a test drives. A test that
    requests it, directly or through another fixture, is marked ``spark`` (pytest_collection_modifyitems)."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):
        pytest.fail(
            "Spark needs Java 17 or newer and no java was found: make test checks it, make test-fast runs without it",
            pytrace=False,
        )
    return java


@pytest.fixture(scope="session")
def spark_session(jvm):
    """The executor's shared session as the run first starts it (the fixtures below give the live one)."""
    from executor.spark.session import get_session

    return get_session()


def live_session():
    """The executor's shared session: one for the whole run (a new one only if the JVM died, as the
    app would do). Tasks that a previous test's cancelled job left running are waited out first:
    executor.spark.reaper stops the JVM when they outlive its delay, and it must not do so under the
    next test."""
    from executor.spark import reaper
    from executor.spark.session import get_session

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


@pytest.fixture
def spark(spark_session):
    """The shared session for a test (:func:`live_session`), started by the first test that needs it."""
    return live_session()


@pytest.fixture(scope="module")
def module_spark(spark_session):
    """The shared session for a module's fixture (:func:`live_session`): the one the run started may
    have been replaced since, when a JVM died under an earlier test."""
    return live_session()


@pytest.fixture
def spark_calls(monkeypatch) -> list[str]:
    """The places that tried to start Spark during the test (each attempt also raises): a page that
    starts Spark before the user ran anything fails (tests/app/test_app_no_spark.py says where)."""
    calls: list[str] = []

    def refuse(where: str):
        def start(*_args, **_kwargs):
            calls.append(where)
            raise RuntimeError(f"a page started Spark ({where}) before the user ran anything")

        return start

    from pyspark.sql import SparkSession

    import executor.jobs.run
    import executor.spark.session

    monkeypatch.setattr(executor.spark.session, "get_session", refuse("executor.spark.session.get_session"))
    monkeypatch.setattr(executor.jobs.run, "get_session", refuse("executor.jobs.run.get_session"))
    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", refuse("SparkSession.Builder.getOrCreate"))
    return calls


@pytest.fixture(scope="session")
def tpch_dir() -> str:
    """TPC-H at scale 0.01 as NAME.parquet, generated once into the project's cache folder."""
    from executor.data.generate import tpch

    return tpch(0.01)
