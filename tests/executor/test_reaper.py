"""What follows the reaper's stop of the local JVM (``executor.spark.reaper``): a new session starts in
the background, and the calls the stop cut off leave no traceback in the server's log."""

from __future__ import annotations

import logging
import sys
import time

from py4j.protocol import Py4JNetworkError

from executor.spark import reaper, session


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
