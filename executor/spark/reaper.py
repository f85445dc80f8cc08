"""Spark tasks that outlive their cancelled job, and what is done about them.

Cancelling a job (a timeout, Cancel) interrupts its task threads, but a task stops only where Spark
checks for the interrupt: between input batches. A cross product of large inputs is one generated
loop per input batch (a broadcast nested-loop join fused with its aggregate), so its tasks may run on
for hours after the job was cancelled, and they hold every core of a local session: everybody's later
runs crawl behind them. (Measured: orders x orders x orders at TPC-H scale 0.01 kept both cores busy
for more than 30 minutes after its job was cancelled.)

:func:`watch` is started after a stop. It compares the tasks the executors are running with the tasks
of the stages that are still active; tasks beyond those belong to no live job. A job of the stopped
work that is still live (submitted after the stop's interrupts, or not yet seen to end by Spark's
status listener) is cancelled again, and the watch does not end while one is; the watch of such a
stop lasts :data:`WATCH_S`, since orphans may show only once a late job is cancelled. If orphans are
still running after :data:`REAP_AFTER_S`, the local session's JVM is stopped, which ends them, and a
fresh session is started in the background when the warm-up is on (else by the next run:
``executor.spark.session`` recovers from a dead JVM). A job of another user
that is in progress at that moment runs again, once, on the fresh session (``executor.jobs.supervise``);
without the stop it would wait behind the orphans. Spark Connect and cluster sessions are left alone (their
executors are not this process's to stop); there the orphans run until their batch ends.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..settings import SETTINGS
from .session import is_connect, restart_in_background

#: How long orphaned tasks may keep running after a stop before the local JVM is stopped.
REAP_AFTER_S = SETTINGS.reap_after_s
#: How long the watch lasts at most after the latest stop (orphans that appear later are not ours).
WATCH_S = REAP_AFTER_S + 60.0
#: No orphans for this long after the latest stop: the stop went through, the watch ends.
CALM_S = 10.0
POLL_S = 0.5
#: Polls in a row that cannot tell the orphans before the watch takes the session for stopped.
UNKNOWN_POLLS = 3

log = logging.getLogger(__name__)
#: The sessions watched, by id, each with the time of its latest stop: a stop during a watch extends
#: it, since the watch under way may be about to end as calm before the new orphans show.
_watching: dict[int, float] = {}
Interrupt = Callable[[Any, str], None]
#: The job groups (tags) of the work stopped on each watched session, by its id, each with the
#: function that interrupts its jobs (the supervisor's: it alone tags and interrupts Spark jobs).
_stopped_tags: dict[int, dict[str, Interrupt]] = {}
_lock = threading.Lock()
reaped = 0  # JVMs stopped by the reaper in this process (for tests and the status line)


def orphaned_tasks(spark) -> int | None:
    """Tasks running on the executors beyond those of active stages; None when it cannot be told."""
    try:
        sc = spark.sparkContext
        tracker = sc.statusTracker()
        in_stages = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                in_stages += info.numActiveTasks
        running = sum(e.numRunningTasks() for e in sc._jsc.sc().statusTracker().getExecutorInfos())
    except Exception:  # a stopped or dead session
        return None
    return max(0, running - in_stages)


def live_jobs(spark, tags: Iterable[str]) -> int | None:
    """Jobs of the job groups ``tags`` that Spark still runs; None when it cannot be told."""
    try:
        tracker = spark.sparkContext.statusTracker()
        live = 0
        for tag in tags:
            for job_id in tracker.getJobIdsForGroup(tag):
                info = tracker.getJobInfo(job_id)
                live += info is not None and info.status == "RUNNING"
    except Exception:  # a stopped or dead session
        return None
    return live


def _cancel(spark, tags: dict[str, Interrupt]) -> None:
    for tag, interrupt in tags.items():
        with contextlib.suppress(Exception):
            interrupt(spark, tag)


#: Seconds after a stop of the JVM in which py4j's reports of the calls it cut off are not logged.
QUIET_S = 60.0
_quiet_until = 0.0


class _CutOffCalls(logging.Filter):
    """py4j logs each call the stopped JVM cut off, with its traceback, on the root logger ("Exception
    while sending command."); those calls' jobs run again or say their own error, and the stop is
    logged once, by the reaper."""

    def filter(self, record: logging.LogRecord) -> bool:
        if time.monotonic() >= _quiet_until or not record.exc_info:
            return True
        from py4j.protocol import Py4JNetworkError

        return not (
            record.msg == "Exception while sending command." and isinstance(record.exc_info[1], Py4JNetworkError)
        )


_CUT_OFF_CALLS = _CutOffCalls()


def _kill_jvm(spark) -> bool:
    global _quiet_until
    try:
        proc = spark.sparkContext._gateway.proc
    except Exception:
        return False
    _quiet_until = time.monotonic() + QUIET_S
    root = logging.getLogger()
    if _CUT_OFF_CALLS not in root.filters:
        root.addFilter(_CUT_OFF_CALLS)
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except OSError:
        return False
    with contextlib.suppress(Exception):  # collected, or it stays a zombie for as long as the server runs
        proc.wait(30)
    return True


def _ended(key: int, stopped_at: float) -> bool:
    """End the watch of ``key`` unless a stop came after ``stopped_at`` (then the watch goes on)."""
    with _lock:
        if _watching.get(key, stopped_at) != stopped_at:
            return False
        _watching.pop(key, None)
        _stopped_tags.pop(key, None)
        return True


def _watch(spark) -> None:
    global reaped
    key = id(spark)
    ended = False  # by _ended: the key may belong to a watch started since
    since: float | None = None  # when orphans were first seen
    calm_since = time.monotonic()  # when the count was last seen at 0
    unknown = 0
    try:
        while True:
            with _lock:
                stopped_at = _watching.setdefault(key, time.monotonic())
                tags = dict(_stopped_tags.get(key, {}))
            live = live_jobs(spark, tags) if tags else 0
            if live:  # the stopped work's job still runs: its tasks are not orphans yet
                _cancel(spark, tags)
            orphans = orphaned_tasks(spark)
            now = time.monotonic()
            if live:
                unknown, calm_since = 0, now
            elif orphans is None:  # a stopped or dead session, unless the next polls can tell
                unknown += 1
                if unknown >= UNKNOWN_POLLS:
                    return
            elif orphans == 0:
                unknown, since = 0, None
                # a supervised stop's work may still submit a job its interrupts came before, whose tasks
                # then outlive it: its watch lasts WATCH_S, not only until the first calm
                if not tags and now - max(calm_since, stopped_at) >= CALM_S and _ended(key, stopped_at):
                    ended = True
                    return
            else:
                unknown, calm_since = 0, now
                since = since if since is not None else now
                if now - since >= REAP_AFTER_S:
                    log.warning(
                        "%d Spark task(s) kept running %.0f s after their job was cancelled; "
                        "stopping the local Spark JVM (the next run starts a new session)",
                        orphans,
                        REAP_AFTER_S,
                    )
                    if _kill_jvm(spark):
                        reaped += 1
                        restart_in_background()  # the next person's run does not wait for a JVM to start
                    return
            if now - stopped_at >= WATCH_S and _ended(key, stopped_at):
                ended = True
                if orphans or live:  # said, so that work left running is not a silence
                    log.warning(
                        "the watch of a stopped run ended after %.0f s with %s orphaned Spark task(s) and %s "
                        "job(s) of the stopped work still running; they may keep cores busy until they end",
                        WATCH_S,
                        orphans,
                        live,
                    )
                return
            time.sleep(POLL_S)
    finally:
        if not ended:
            with _lock:
                _watching.pop(key, None)
                _stopped_tags.pop(key, None)


def watch(spark, tag: str | None = None, interrupt: Interrupt | None = None) -> None:
    """After a stop of the work whose jobs carry the job group ``tag``: end its jobs (by
    ``interrupt(spark, tag)``) and the orphaned tasks of a local session (see the module docstring).
    Returns at once; a stop while the session is watched extends the watch under way."""
    if is_connect(spark):
        return
    try:
        if not spark.sparkContext.master.startswith("local"):
            return
    except Exception:
        return
    with _lock:
        under_way = id(spark) in _watching
        _watching[id(spark)] = time.monotonic()
        if tag is not None and interrupt is not None:
            _stopped_tags.setdefault(id(spark), {})[tag] = interrupt
    if not under_way:
        threading.Thread(target=_watch, args=(spark,), name="substrait-viz-reaper", daemon=True).start()


__all__ = ["REAP_AFTER_S", "live_jobs", "orphaned_tasks", "watch"]
