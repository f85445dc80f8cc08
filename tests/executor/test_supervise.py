"""The one supervised job runner (executor.jobs.supervise): stops, errors, progress, and that it is the one."""

from __future__ import annotations

import os
import re
import threading
import time
from types import SimpleNamespace

import pytest

from executor.errors import Cancelled, ExecutionError, TimedOut
from executor.jobs import run as run_mod
from executor.jobs import supervise as supervise_mod
from executor.jobs.outputs import compare_outputs
from executor.jobs.supervise import STOP_GRACE_S, Job, supervise
from executor.spark.session import people_running
from executor.spark.turns import SPARK
from tests.support import ROOT, no_active_jobs


class FakeSpark:
    """What the supervisor asks of a classic session, recorded (a cluster master, so nothing is reaped)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.interrupted = threading.Event()
        self.sparkContext = SimpleNamespace(
            master="spark://cluster:7077",
            setJobGroup=lambda tag, what, interruptOnCancel: self.calls.append(("group", tag)),
            cancelJobGroup=lambda tag: self.calls.append(("cancel group", tag)),
        )

    def addTag(self, tag: str) -> None:
        self.calls.append(("add", tag))

    def removeTag(self, tag: str) -> None:
        self.calls.append(("remove", tag))

    def interruptTag(self, tag: str) -> None:
        self.calls.append(("interrupt", tag))
        self.interrupted.set()


class Waits(Job):
    """Work that runs until its Spark job is interrupted (``executing``) or its stop is seen (not)."""

    def __init__(self, spark, *, executing: bool, background: bool = True) -> None:
        super().__init__(spark, background=background)
        self.executing = executing

    def work(self) -> str:
        if self.executing:
            self.started_execution.set()
            self.spark.interrupted.wait(30)
            raise RuntimeError("job interrupted")
        while True:
            self.check()
            time.sleep(0.01)

    def stop_message(self, reason: str, in_line: int | None) -> str:
        return f"the wait was {reason}"


def test_a_timeout_interrupts_the_tagged_jobs_and_says_so():
    spark = FakeSpark()
    job = Waits(spark, executing=True)
    start = time.monotonic()
    with pytest.raises(TimedOut, match=r"^the wait was timed out after 0\.3 s$") as caught:
        supervise(job, timeout_s=0.3)
    assert 0.3 <= time.monotonic() - start < 3
    assert caught.value.reason == "timed out after 0.3 s"
    tag = job.tag
    assert spark.calls[:2] == [("add", tag), ("group", tag)]
    assert ("interrupt", tag) in spark.calls and ("cancel group", tag) in spark.calls
    assert ("remove", tag) in spark.calls and job.error is not None  # the worker ended within the grace


class Stuck(Job):
    """A person's work that holds its turn on Spark and ends at no stop (a collect whose serving thread died)."""

    def __init__(self, spark, never: threading.Event) -> None:
        super().__init__(spark)
        self.never = never

    def work(self) -> None:
        with self.turn():
            self.started_execution.set()
            self.never.wait(30)


def test_work_that_does_not_end_when_stopped_gives_its_turn_back(monkeypatch):
    monkeypatch.setattr(supervise_mod, "STOP_GRACE_S", 0.2)
    never = threading.Event()
    job = Stuck(FakeSpark(), never)
    assert SPARK.busy() == (0, 0)
    try:
        with pytest.raises(TimedOut):
            supervise(job, timeout_s=0.3)
        assert job.held is not None and job.held.given_back
        assert SPARK.busy() == (0, 0)  # the next person's run is not held up by it
        got = threading.Event()

        def next_run() -> None:
            with SPARK.turn("another person"):
                got.set()

        threading.Thread(target=next_run, daemon=True).start()
        assert got.wait(2)
    finally:
        never.set()  # the stuck worker ends now; giving its turn back a second time changes nothing
    time.sleep(0.1)
    assert SPARK.busy() == (0, 0)


def test_a_job_cancelled_before_it_executes_is_not_interrupted():
    spark, cancel = FakeSpark(), threading.Event()
    cancel.set()
    with pytest.raises(Cancelled, match="^the wait was cancelled$") as caught:
        supervise(Waits(spark, executing=False), cancel=cancel)
    assert not isinstance(caught.value, TimedOut) and caught.value.reason == "cancelled"
    assert not any(what == "interrupt" for what, _ in spark.calls)


class Counts(Job):
    def __init__(self, spark, fail: BaseException | None = None, background: bool = False) -> None:
        super().__init__(spark, background=background)
        self.fail, self.asked = fail, None

    def work(self) -> int:
        self.asked = people_running()
        time.sleep(0.35)
        if self.fail is not None:
            raise self.fail
        return 42

    def failure(self, exc: BaseException) -> BaseException:
        return ExecutionError(f"counting failed: {exc}")


def test_result_progress_failure_and_background():
    seen: list[tuple[float, str]] = []
    job = Counts(FakeSpark())
    assert supervise(job, timeout_s=30, progress=lambda f, m: seen.append((f, m))) == 42
    assert seen and all(f == 0.0 and m.startswith("running (") for f, m in seen)
    assert job.asked and job.takes_turns  # a person's job: the background gives way, it takes a turn
    with pytest.raises(ExecutionError, match="^counting failed: boom$"):
        supervise(Counts(FakeSpark(), fail=ValueError("boom")))
    background = Counts(FakeSpark(), background=True)
    assert supervise(background) == 42
    assert background.asked is False and not background.takes_turns


def test_only_the_supervisor_tags_and_interrupts_spark_jobs():
    words = re.compile(r"interruptTag|cancelJobGroup|removeTag|addTag")
    found = set()
    for top in ("executor", "ui", "pages"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as fh:
                        if words.search(fh.read()):
                            found.add(os.path.relpath(path, ROOT))
    assert found == {os.path.join("executor", "jobs", "supervise.py")}


# ---- a comparison on Spark: the same stops as a run -------------------------------------------


@pytest.fixture
def slow_translations(monkeypatch):
    """Every node translates to a count that takes minutes: a filter over a trillion numbers."""

    def slow(model, node_id, spark, catalog):
        df = spark.range(0, 10**12, numPartitions=4).filter("id % 7 = 3").selectExpr("id AS _0")
        return SimpleNamespace(df=df, names=["id"], warnings=[])

    run_mod.clear_cache()
    monkeypatch.setattr(run_mod, "_translate", slow)
    yield
    run_mod.clear_cache()  # no slow translation kept for the tests after


@pytest.fixture(scope="module")
def tutorial():
    from viz.model import analyze

    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        return analyze(fh.read())


def test_a_comparison_times_out_and_is_cancelled_like_a_run(spark, tutorial, slow_translations):
    from executor.data.catalog import Catalog

    start = time.monotonic()
    with pytest.raises(TimedOut, match=r"^comparing node 0 with node 0\.0 timed out after 2 s; its Spark jobs"):
        compare_outputs(tutorial, "0", tutorial, "0.0", Catalog(), Catalog(), spark=spark, timeout_s=2)
    assert time.monotonic() - start < 2 + STOP_GRACE_S + 8  # slack for a loaded machine
    assert no_active_jobs(spark)

    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    with pytest.raises(Cancelled, match=r"^comparing node 0 with node 0\.0 was cancelled; its Spark jobs"):
        compare_outputs(tutorial, "0", tutorial, "0.0", Catalog(), Catalog(), spark=spark, cancel=cancel)
    assert no_active_jobs(spark)


def test_a_job_whose_jvm_stops_under_it_runs_again_once_on_a_new_session(spark):
    """The reaper stops the local JVM to end tasks a cancelled job left running: a run that had just
    begun on it gets a new session, not an internal error."""
    from executor.spark.session import get_session

    class Counts(Job):
        def __init__(self, spark) -> None:
            super().__init__(spark)
            self.sessions: list[object] = []

        def work(self):
            self.sessions.append(self.spark)
            with self.turn():
                self.started_execution.set()
                if len(self.sessions) == 1:
                    jvm = self.spark.sparkContext._gateway.proc
                    jvm.kill()  # as the reaper does
                    jvm.wait(30)
                return self.spark.range(6).count()

    job = Counts(get_session())
    assert supervise(job, timeout_s=300) == 6
    assert len(job.sessions) == 2 and job.sessions[0] is not job.sessions[1] and job.tried_again

    class Fails(Counts):
        def work(self):
            self.sessions.append(self.spark)
            raise ConnectionRefusedError(111, "Connection refused")  # the session itself still runs

    failing = Fails(get_session())
    with pytest.raises(ConnectionRefusedError):
        supervise(failing, timeout_s=60)
    assert len(failing.sessions) == 1
