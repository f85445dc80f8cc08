"""One supervised Spark job: run in a worker thread under a tag, polled, cancellable, time-limited, reaped.

Every piece of work that runs Spark jobs for a person (a run, a step's counts, a profile, a comparison,
the cross-engine checks and bisect through the run) is a :class:`Job` handed to :func:`supervise`:

- the job's ``work`` runs in a worker thread whose Spark jobs carry a unique tag (``spark.addTag``, and on
  classic sessions the job group of that name), so they can be interrupted on classic and Spark Connect
  sessions alike;
- the supervisor polls the worker, reports progress, and on a ``cancel`` Event or after ``timeout_s``
  stops it: no new Spark action starts (``stopped``), its running jobs are interrupted for up to
  :data:`STOP_GRACE_S` while the worker lives (it may be between its stop check and submitting a job),
  tasks that ignore the interrupt are ended by ``executor.spark.reaper``, and a worker still alive
  after that gives its turn on Spark back, so no one after it waits for it;
- a stopped job raises :class:`~executor.errors.Cancelled` (or :class:`~executor.errors.TimedOut`) with
  the job's own message; a failed one raises what the job makes of its error.

A job a person asked for makes the background work give way (``executor.spark.session.asked_for``) and
waits for its turn on Spark (``executor.spark.turns``); a background job (``background=True``) does neither.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import Cancelled, TimedOut
from ..spark import reaper
from ..spark.jvm import activate
from ..spark.session import asked_for, can_run, get_session, is_connect
from ..spark.turns import OWNER, SPARK, Held, Stopped, in_line_text

POLL_S = 0.1
STOP_GRACE_S = 5.0  # after a stop, how long to keep interrupting jobs the worker may still start

Progress = Callable[[float, str], None]


@contextlib.contextmanager
def tagged(spark, tag: str, description: str) -> Iterator[None]:
    """Run the Spark actions of the ``with`` block under ``tag`` (and, classic sessions, the job
    group of that name), so that :func:`interrupt_tag` can stop them."""
    spark.addTag(tag)
    try:
        if not is_connect(spark):
            spark.sparkContext.setJobGroup(tag, description, interruptOnCancel=True)
        yield
    finally:
        with contextlib.suppress(Exception):
            spark.removeTag(tag)


def interrupt_tag(spark, tag: str) -> None:
    """Interrupt the Spark jobs carrying ``tag`` (and, classic sessions, its job group)."""
    with contextlib.suppress(Exception):
        spark.interruptTag(tag)
    if not is_connect(spark):
        with contextlib.suppress(Exception):
            spark.sparkContext.cancelJobGroup(tag)


def tasks_done(spark, tag: str) -> tuple[int, int, int] | None:
    """(jobs, tasks done, tasks) of the Spark jobs tagged ``tag``; None where it cannot be told (Connect)."""
    if is_connect(spark):
        return None
    try:
        tracker = spark.sparkContext.statusTracker()
        done = total = 0
        jobs = tracker.getJobIdsForGroup(tag)
        for job_id in jobs:
            job = tracker.getJobInfo(job_id)
            for stage_id in job.stageIds if job else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done += stage.numCompletedTasks
                    total += stage.numTasks
    except Exception:  # a stopped or dead session: no figure
        return None
    return len(jobs), done, total


class Job:
    """Work done in a worker thread whose Spark jobs carry ``tag``. A subclass defines :meth:`work`
    (and, where it has its own words, :meth:`stop_message`, :meth:`failure` and :meth:`progress`).

    ``work`` calls :meth:`check` before each Spark action, and sets ``started_execution`` before its
    first one: a job stopped before that starts no Spark job, so it is not interrupted nor waited for.
    """

    description = "substrait-viz job"  # the job group's description in Spark's UI
    tag_prefix = "substrait-viz-"

    def __init__(self, spark, *, background: bool = False, begin: float | None = None) -> None:
        """``background``: no one asked for it, so it takes no turn and others need not give way;
        ``begin``: when its time limit started (default: when it is supervised)."""
        self.spark = spark
        self.background = background
        self.takes_turns = not background  # a person's job waits for its turn on Spark
        self.begin = begin
        self.tag = f"{self.tag_prefix}{uuid.uuid4().hex}"
        self.stopped = threading.Event()  # set by the supervisor: start no more Spark actions
        self.started_execution = threading.Event()
        self.owner = OWNER.get()  # made in the asking thread: its browser session
        self.in_line: int | None = None  # its place in line while it waits for its turn
        self.result: Any = None
        self.error: BaseException | None = None
        self.held: Held | None = None  # its turn on Spark, while it holds one
        self.tried_again = False  # on a new session, its first one's JVM having stopped under it

    def again(self) -> None:
        """Ready the job to run once more, from the start, on a new session (its worker gets it)."""
        self.spark, self.tried_again = None, True
        self.tag = f"{self.tag_prefix}{uuid.uuid4().hex}"
        self.started_execution.clear()
        self.result = self.error = self.held = self.in_line = None

    # ---- in the worker thread ----

    def work(self) -> Any:
        raise NotImplementedError

    def __call__(self) -> None:
        try:
            if self.spark is None:  # run again (:meth:`again`): a new JVM starts here, not in the supervisor
                self.spark = get_session()
            activate(self.spark)  # a thread of our own: the DataFrames it makes read the session's settings
            with tagged(self.spark, self.tag, self.description):
                self.result = self.work()
        except BaseException as exc:  # noqa: BLE001 - reported in the supervisor's thread
            self.error = exc

    def check(self) -> None:
        """Raise ``Cancelled`` once the job was stopped (before a Spark action)."""
        if self.stopped.is_set():
            raise Cancelled("stopped before running")

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """The job's turn on Spark (a background job needs none: it gives way by itself). The seconds
        the block took, when it ends well, go to :meth:`ran`."""
        held = (
            SPARK.turn(self.owner, self.stopped.is_set, self._waiting, reads=self.reads(), took=self.took())
            if self.takes_turns
            else contextlib.nullcontext()
        )
        try:
            with held as self.held:
                self.in_line = None
                start = time.perf_counter()
                yield
                self.ran(time.perf_counter() - start)
        except Stopped as exc:
            raise Cancelled(str(exc)) from None

    def _waiting(self, place: int) -> None:
        self.in_line = place

    def reads(self) -> int | None:
        """Bytes of the tables the job reads, for its place in line; None when not known."""
        return None

    def took(self) -> float | None:
        """Seconds the same work took in its turn when it last ran, for its place in line; None when
        not known."""
        return None

    def ran(self, seconds: float) -> None:
        """The work's turn took ``seconds`` (kept by a job whose :meth:`took` tells it)."""

    # ---- in the supervisor's thread ----

    def progress(self, elapsed: float) -> tuple[float, str]:
        """The fraction done and what is under way, while the worker runs."""
        if self.in_line is not None:
            return 0.0, f"{in_line_text(self.in_line)} ({elapsed:.0f} s)"
        return 0.0, f"running ({elapsed:.0f} s)"

    def stop_message(self, reason: str, in_line: int | None) -> str:
        """What a stopped job says; ``reason`` is "cancelled" or "timed out after N s", ``in_line``
        its place in line when it was stopped while waiting for its turn."""
        return f"the job was {reason}; its Spark jobs were interrupted"

    def failure(self, exc: BaseException) -> BaseException:
        """The error raised for the worker's error ``exc``."""
        return exc


def supervise(
    job: Job, *, timeout_s: float | None = None, cancel: threading.Event | None = None, progress: Progress | None = None
) -> Any:
    """Run ``job`` in a worker thread and return its result; stop it on ``cancel`` or after
    ``timeout_s`` (raising ``Cancelled`` / ``TimedOut``); report its progress (see the module)."""
    if job.background:
        return _supervise(job, timeout_s, cancel, progress)
    with asked_for():
        return _supervise(job, timeout_s, cancel, progress)


def _supervise(job: Job, timeout_s: float | None, cancel: threading.Event | None, progress: Progress | None) -> Any:
    worker = threading.Thread(target=job, name=f"job-{job.tag}", daemon=True)
    begin = job.begin if job.begin is not None else time.monotonic()
    worker.start()
    reason: str | None = None
    in_line: int | None = None
    while worker.is_alive():
        worker.join(POLL_S)
        elapsed = time.monotonic() - begin
        if not worker.is_alive():
            break
        if cancel is not None and cancel.is_set():
            reason = "cancelled"
        elif timeout_s is not None and elapsed > timeout_s:
            reason = f"timed out after {timeout_s:g} s"
        if reason:
            in_line = job.in_line  # where it stood when stopped, if still in line
            _stop(job, worker)
            break
        if progress is not None:
            progress(*job.progress(elapsed))
    if reason:
        error = TimedOut if reason.startswith("timed out") else Cancelled
        raise error(job.stop_message(reason, in_line), reason=reason)
    if job.error is not None:
        asked_to_stop = cancel is not None and cancel.is_set()
        if not job.tried_again and not asked_to_stop and _jvm_stopped(job.spark, job.error):
            # the local JVM stopped under the job (the reaper ends tasks a cancelled job left running,
            # which ends everyone's work on it): the job runs again, once, on a new session
            job.again()
            return _supervise(job, timeout_s, cancel, progress)
        raise job.failure(job.error)
    return job.result


def _jvm_stopped(spark, error: BaseException) -> bool:
    """Whether ``error`` is the local session's JVM gone (its connection lost, and it answers no more)."""
    try:
        from py4j.protocol import Py4JError
    except ImportError:  # a Connect-only client
        return False
    return isinstance(error, (ConnectionError, Py4JError)) and not is_connect(spark) and not can_run(spark)


def _stop(job: Job, worker: threading.Thread) -> None:
    """Stop a job: no new Spark action starts, and its running jobs are interrupted.

    Before execution the worker's own check stops it. Once executing, it may be between its stop
    check and submitting a job, so the interrupt is repeated while it is alive, for up to
    ``STOP_GRACE_S``.
    """
    job.stopped.set()
    if not job.started_execution.is_set():
        return  # the worker has yet to pass its last check before Spark actions: none will start
    end = time.monotonic() + STOP_GRACE_S
    while True:
        interrupt_tag(job.spark, job.tag)
        if not worker.is_alive() or time.monotonic() > end:
            break
        worker.join(POLL_S)
    if worker.is_alive() and job.held is not None:
        SPARK.give_back(job.held)  # work that does not end when stopped holds up no one after it
    # jobs submitted after the interrupts, and tasks that ignore them (a fused nested-loop join), end too
    reaper.watch(job.spark, job.tag, interrupt_tag)


__all__ = ["Job", "POLL_S", "Progress", "STOP_GRACE_S", "interrupt_tag", "supervise", "tagged", "tasks_done"]
