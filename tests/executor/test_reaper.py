"""What follows the reaper's stop of the local JVM (``executor.spark.reaper``): a new session starts in
the background, and the calls the stop cut off leave no traceback in the server's log."""

from __future__ import annotations

import logging
import sys
import time

from py4j.protocol import Py4JNetworkError

from executor.spark import reaper, session
from tests.support import until


def test_a_stopped_jvm_is_followed_by_a_session_started_in_the_background(monkeypatch):
    started: list[str] = []
    monkeypatch.setattr(reaper, "orphaned_tasks", lambda spark: 1)
    monkeypatch.setattr(reaper, "REAP_AFTER_S", 0.0)
    monkeypatch.setattr(reaper, "_kill_jvm", lambda spark: True)
    monkeypatch.setattr(session, "get_session", lambda: started.append("session") or object())
    monkeypatch.setattr(session, "common_shapes", lambda spark, data_file: started.append("shapes"))
    monkeypatch.setattr(session, "_warming", None)
    monkeypatch.setattr(session, "WARM_UP", True)
    reaped = reaper.reaped
    reaper._watch(object())
    session._warming.join(10)
    assert reaper.reaped == reaped + 1
    assert started == ["session", "shapes"]

    # with the warm-up off (the tests, the command line) the next run starts it, as before
    monkeypatch.setattr(session, "_warming", None)
    monkeypatch.setattr(session, "WARM_UP", False)
    assert session.restart_in_background() is False and session._warming is None


def _record(message: str, error: Exception) -> logging.LogRecord:
    try:
        raise error
    except Exception:  # noqa: BLE001 - the record's exc_info, as logging.exception takes it
        return logging.LogRecord("root", logging.ERROR, __file__, 1, message, (), sys.exc_info())


def test_the_calls_cut_off_by_the_stop_are_not_logged_for_a_while(monkeypatch):
    cut = _record("Exception while sending command.", Py4JNetworkError("Error while sending or receiving"))
    other = _record("Exception while sending command.", ValueError("not the JVM"))
    said = _record("something else", Py4JNetworkError("Answer from Java side is empty"))
    keep = reaper._CUT_OFF_CALLS.filter
    monkeypatch.setattr(reaper, "_quiet_until", time.monotonic() + 30)
    assert [keep(r) for r in (cut, other, said)] == [False, True, True]
    monkeypatch.setattr(reaper, "_quiet_until", time.monotonic() - 1)  # the window is over
    assert keep(cut) is True


class _LocalSession:
    class sparkContext:  # noqa: N801 - stands for SparkSession.sparkContext
        master = "local[2]"


def _quick(monkeypatch, counts):
    """The reaper with short delays, reading the orphans from ``counts`` (the last one repeats)."""
    monkeypatch.setattr(reaper, "REAP_AFTER_S", 0.3)
    monkeypatch.setattr(reaper, "CALM_S", 0.5)
    monkeypatch.setattr(reaper, "POLL_S", 0.02)
    monkeypatch.setattr(reaper, "WATCH_S", 30.0)
    monkeypatch.setattr(reaper, "restart_in_background", lambda: None)
    killed: list[object] = []
    monkeypatch.setattr(reaper, "_kill_jvm", lambda spark: killed.append(spark) or True)
    monkeypatch.setattr(reaper, "orphaned_tasks", lambda spark: counts[0] if len(counts) == 1 else counts.pop(0))
    return killed


def test_a_stop_during_a_watch_extends_it_until_its_own_orphans_are_reaped(monkeypatch):
    """A second stop while an earlier stop's watch is about to end as calm: the orphans of the second,
    which show only after that, are still reaped."""
    counts = [0]
    killed = _quick(monkeypatch, counts)
    spark = _LocalSession()
    reaper.watch(spark)
    time.sleep(reaper.CALM_S * 0.8)
    reaper.watch(spark)  # the second stop
    time.sleep(reaper.CALM_S * 0.5)  # the first watch alone would have ended calm by now
    counts[0] = 2  # the second job's tasks outlive it
    until(lambda: killed == [spark], 10.0)
    until(lambda: id(spark) not in reaper._watching, 10.0)


def test_a_poll_that_cannot_tell_does_not_end_the_watch(monkeypatch):
    killed = _quick(monkeypatch, [None, 2])
    spark = _LocalSession()
    reaper.watch(spark)
    until(lambda: killed == [spark], 10.0)


def test_a_session_that_cannot_be_told_any_more_ends_the_watch(monkeypatch):
    killed = _quick(monkeypatch, [None])
    spark = _LocalSession()
    reaper.watch(spark)
    until(lambda: id(spark) not in reaper._watching, 10.0)
    assert killed == []


def test_a_job_of_the_stopped_work_that_is_still_live_is_cancelled_and_keeps_the_watch_on(monkeypatch):
    """A job of the stopped work still runs after the stop's interrupts (submitted after them, or its
    end not yet seen by Spark's status listener): no orphans show meanwhile, yet the watch does not end
    as calm; it cancels that job, and reaps its tasks once they outlive it."""
    killed = _quick(monkeypatch, [0])
    live = [1]
    cancelled: list[tuple[object, str]] = []
    monkeypatch.setattr(reaper, "live_jobs", lambda spark, tags: live[0])
    spark = _LocalSession()
    reaper.watch(spark, "substrait-viz-late", lambda session, tag: cancelled.append((session, tag)))
    time.sleep(reaper.CALM_S * 3)  # calm but for the live job: the watch goes on
    assert id(spark) in reaper._watching and killed == []
    assert cancelled and set(cancelled) == {(spark, "substrait-viz-late")}
    live[0] = 0
    monkeypatch.setattr(reaper, "orphaned_tasks", lambda spark: 2)  # its tasks outlive it
    until(lambda: killed == [spark], 10.0)
    until(lambda: id(spark) not in reaper._watching and id(spark) not in reaper._stopped_tags, 10.0)


def test_a_supervised_stop_is_watched_its_whole_length(monkeypatch):
    """Calm after a supervised stop (no orphan, no live job) does not end its watch: the stopped work's
    tasks may show as orphans only later (a job its interrupts came before, cancelled again), and are
    still reaped; the watch ends after WATCH_S."""
    counts = [0]
    killed = _quick(monkeypatch, counts)
    monkeypatch.setattr(reaper, "live_jobs", lambda spark, tags: 0)
    spark = _LocalSession()
    reaper.watch(spark, "substrait-viz-late", lambda session, tag: None)
    time.sleep(reaper.CALM_S * 3)  # calm: a stop without the work's tag would have ended its watch
    assert id(spark) in reaper._watching and killed == []
    counts[0] = 2
    until(lambda: killed == [spark], 10.0)
    monkeypatch.setattr(reaper, "WATCH_S", 0.5)
    other = _LocalSession()
    counts[0] = 0
    reaper.watch(other, "substrait-viz-done", lambda session, tag: None)
    until(lambda: id(other) not in reaper._watching and id(other) not in reaper._stopped_tags, 10.0)
    assert killed == [spark]


def test_a_watch_that_ends_with_work_still_running_says_so(monkeypatch, caplog):
    """A job of the stopped work that stays live for the whole watch (its end never seen) is not reaped,
    since its tasks are not orphans; the watch's end says that work may run on rather than ending
    silently."""
    killed = _quick(monkeypatch, [0])
    monkeypatch.setattr(reaper, "WATCH_S", 0.6)
    monkeypatch.setattr(reaper, "live_jobs", lambda spark, tags: 1)
    spark = _LocalSession()
    with caplog.at_level("WARNING", logger=reaper.__name__):
        reaper.watch(spark, "substrait-viz-never-ends", lambda session, tag: None)
        # the watch ends, then says so: wait for its words, not for its end
        until(lambda: any(r.name == reaper.__name__ for r in caplog.records), 10.0)
    assert killed == [] and id(spark) not in reaper._watching
    [said] = [r.getMessage() for r in caplog.records if r.name == reaper.__name__]
    assert "ended after 1 s with 0 orphaned Spark task(s) and 1 job(s) of the stopped work still running" in said
