"""When a background task redraws the panel that shows it (``ui.tasks.Task``): at once for what a
person waits to see (a part of the result, the end), else at most once per look interval (a new place
in line, a percentage, the seconds; leaving the line a look after it), so pages waiting on a busy
server cost the server and browser nothing."""

from __future__ import annotations

import threading
import time

import pytest

from executor.spark.turns import Line
from ui import tasks
from ui.tasks import Task


def _watched(monkeypatch, now: list[float]) -> tuple[Task, list[float]]:
    monkeypatch.setattr(tasks.time, "monotonic", lambda: now[0])
    task, woken = Task(), []
    task.watch(lambda done=False: woken.append((now[0], done)) if done else woken.append(now[0]))
    return task, woken


def test_a_waiting_task_shows_its_place_and_leaving_the_line_at_its_looks_not_at_each_change(monkeypatch):
    """Each run's end moves every waiting place: with many people waiting, a redraw of every page at
    each end would be most of the work, so a waiting page is redrawn once per look."""
    now = [100.0]
    task, woken = _watched(monkeypatch, now)
    for second, place in enumerate(("5th", "4th", "3rd", "2nd")):
        now[0] = 100.0 + second
        task.progress(0.0, f"waiting for Spark: {place} in line ({second} s)")
    assert woken == []
    now[0] = 100.0 + tasks.LOOK_IN_LINE_S
    task.progress(0.0, "waiting for Spark: 1st in line (5 s)")
    assert woken == [now[0]]  # its look
    now[0] += 0.5
    task.progress(0.0, "translating and planning (5 s)")  # out of the line: shown within a look while it runs
    assert len(woken) == 1
    now[0] += tasks.LOOK_S
    task.progress(0.0, "running (6 s)")
    assert woken[-1] == now[0]


def test_leaving_the_line_is_shown_a_look_later_so_a_short_run_goes_from_its_place_to_its_result(monkeypatch):
    """Ten pages clicked together: each would be redrawn once as its turn comes and again a moment
    later with its rows; the first redraw is the one a short run does without."""
    now = [100.0]
    task, woken = _watched(monkeypatch, now)
    task.progress(0.0, "waiting for Spark: 3rd in line (0 s)")
    now[0] = 103.0  # in line for 3 s, less than a look in line: not redrawn
    task.progress(0.0, "waiting for Spark: 1st in line (3 s)")
    now[0] = 103.5
    task.progress(0.0, "translating and planning (3 s)")  # its turn: its last redraw was 3.5 s ago
    assert woken == []
    now[0] = 103.9
    task.finish()
    assert woken == [(103.9, True)]  # straight to the result

    now = [200.0]
    task, woken = _watched(monkeypatch, now)
    task.progress(0.0, "waiting for Spark: 1st in line (0 s)")
    now[0] = 203.0
    task.progress(0.0, "translating and planning (3 s)")
    now[0] = 203.0 + tasks.LOOK_S
    task.progress(0.2, "running (4 s)")  # a longer run shows its progress a look after its turn came
    assert woken == [now[0]]


def test_a_running_task_is_redrawn_at_most_once_per_look_and_at_its_end(monkeypatch):
    now = [0.0]
    task, woken = _watched(monkeypatch, now)
    for step in range(1, 31):  # a supervisor's progress every 0.1 s for 3 s, its percentage changing
        now[0] = step / 10
        task.progress(step / 100, f"running: {step}% of tasks ({step // 10} s)")
    assert len(woken) == 3  # once per LOOK_S
    assert all(b - a >= tasks.LOOK_S - 1e-9 for a, b in zip(woken, woken[1:]))
    task.finish()
    assert len(woken) == 4 and woken[-1] == (3.0, True) and task.done.is_set()  # the result's panel


def test_a_part_of_the_result_wakes_the_panel_at_once(monkeypatch):
    now = [0.0]
    task, woken = _watched(monkeypatch, now)
    for _part in range(3):
        now[0] += 0.01
        task.updates += 1
        task.progress(0.5, "node 0.0: rows in")
    assert len(woken) == 3


def test_a_task_that_ended_before_it_was_watched_wakes_its_panel_when_watched():
    task, woken = Task(), []
    task.finish()  # nobody watching: nothing to wake
    task.watch(lambda done=False: woken.append(done))
    assert woken == [True]


def test_without_a_server_session_the_panel_looks_by_itself():
    """Outside a running server (here, and a test's app) there is no session to wake: the progress
    fragment falls back to looking every POLL_S, and a look holds."""
    assert tasks._Waker.here() is None
    assert tasks._Waker.possible() is False


def test_a_task_says_it_starts_spark_only_when_spark_is_not_up(monkeypatch):
    """Until its first progress, a task's status is its first words: "starting Spark" is true only for
    the first Spark work of the process (a Run, a profile, a step)."""
    from ui.panels.run_tab import RunState

    for up, said in ((True, "starting"), (False, "starting Spark")):
        monkeypatch.setattr(tasks, "is_started", lambda up=up: up)
        assert Task().status == said and RunState(node_id="0").status == said
    assert Task(status="asking the engines").status == "asking the engines"


class _Slot:
    """Stands for ``st.empty()``: what the waiting page drew in it, and when."""

    def __init__(self, now: list[float]) -> None:
        self.now, self.drawn, self.emptied = now, [], False

    def progress(self, fraction: float, text: str) -> None:
        self.drawn.append((self.now[0], text))

    def empty(self) -> None:
        self.emptied = True


class _Ticking:
    """A task's ``done`` whose waits advance the fake clock, and whose ``step`` changes the task."""

    def __init__(self, now: list[float], step) -> None:
        self.now, self.step, self._set = now, step, False

    def wait(self, seconds: float) -> bool:
        self.now[0] += seconds
        self.step(self.now[0])
        return self._set

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True


def _settled(monkeypatch, step, asked=lambda now: False, line: Line | None = None) -> tuple[Task, _Slot]:
    now = [0.0]
    slot = _Slot(now)
    monkeypatch.setattr(tasks.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(tasks.st, "empty", lambda: slot)
    monkeypatch.setattr(tasks, "_asked_for_another_run", lambda: asked(now[0]))
    monkeypatch.setattr(tasks, "SPARK", line or Line(slots=1))
    task = Task(status="starting")
    task.done = _Ticking(now, lambda t: step(task, t))
    tasks.settle(task)
    return task, slot


def test_the_first_wait_redraws_its_progress_bar_at_most_once_per_look(monkeypatch):
    """A run's first wait (the click's own run of the page): its supervisor reports every few tenths
    of a second, and each redraw of the bar redraws the whole page in the browser."""

    def step(task, t):
        task.progress(t / 2, f"1 Spark job(s), {int(t * 20)}/40 tasks ({t:.0f} s)")
        if t >= 1.4:
            task.done.set()

    _task, slot = _settled(monkeypatch, step)
    times = [t for t, _ in slot.drawn]
    assert 1 < len(times) <= 1 + 1.4 / tasks.WAIT_LOOK_S  # drawn, and then once per look
    assert all(b - a >= tasks.WAIT_LOOK_S - 1e-9 for a, b in zip(times, times[1:]))
    assert slot.emptied  # the result takes its place


def test_the_first_wait_ends_when_the_task_waits_in_line_or_the_person_asks_for_another_run(monkeypatch):
    def in_line(task, t):
        if t >= 0.3:
            task.progress(0.0, "waiting for Spark: 3rd in line (0 s)")

    _task, slot = _settled(monkeypatch, in_line)
    assert slot.emptied and slot.now[0] < 0.5  # left at once, not after WAIT_S

    _task, slot = _settled(monkeypatch, lambda task, t: None, asked=lambda t: t >= 0.2)  # a page link
    assert slot.emptied and slot.now[0] < 0.3


def test_while_another_person_s_work_holds_spark_the_first_wait_draws_nothing_and_ends_once_in_line(monkeypatch):
    """The task will wait for its turn anyway: the click's run of the page draws no progress bar and
    waits only until the task is in line, so the page's click is drawn in one piece, with its place
    (with ten pages clicked together, each drawing a bar and taking it away again is work taken from
    the runs)."""
    line = Line(slots=1)
    release = threading.Event()
    holder = threading.Thread(target=lambda: _hold_turn(line, "someone else", release), daemon=True)
    holder.start()
    while line.busy() != (1, 0):
        time.sleep(0.01)

    def in_line(task, t):
        if t >= 0.2:
            task.progress(0.0, "waiting for Spark: 2nd in line (0 s)")

    try:
        _task, slot = _settled(monkeypatch, in_line, line=line)
        assert not slot.drawn and not slot.emptied  # no bar, not even its place on the page
        assert 0.2 <= slot.now[0] < 0.3  # left once in line
        _task, slot = _settled(monkeypatch, lambda task, t: None, line=line)  # never gets in line
        assert not slot.drawn and slot.now[0] == pytest.approx(tasks.IN_LINE_WAIT_S, abs=0.06)
    finally:
        release.set()
        holder.join(5)
    _task, slot = _settled(monkeypatch, lambda task, t: None, line=line)  # Spark free again: the wait is back
    assert slot.drawn and slot.now[0] >= tasks.WAIT_S


def _hold_turn(line: Line, owner: str, release: threading.Event) -> None:
    with line.turn(owner):
        release.wait(10)


def _progress_app():
    from ui.tasks import Task, show_progress

    show_progress(Task(status="rows in for node 0.0*7.1"), "Running node 0.0*7 and its inputs", "cancel")


def test_a_progress_text_shows_starred_ids_as_they_are():
    """``st.progress`` reads its text as Markdown: two ``*`` in a node id would make italics of the
    text between them and drop the stars."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_progress_app).run()
    bars = [e.proto for e in at.main if e.type == "progress"]
    assert len(bars) == 1, [e.type for e in at.main]
    assert bars[0].text == r"Running node 0.0\*7 and its inputs: rows in for node 0.0\*7.1"


def _failed_app() -> None:
    from ui.tasks import Task, finished

    task = Task()
    task.error = "comparing node 0.0*6 with node 0.0*5 timed out after 120 s"
    task.done.set()
    finished(task, lambda: None)


def test_a_failed_task_shows_starred_ids_as_they_are():
    """A task's error names nodes whose ids hold ``*``: shown literally, not as italics."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_failed_app).run()
    assert [e.proto.body for e in at.error] == [r"comparing node 0.0\*6 with node 0.0\*5 timed out after 120 s"]


def _page_whose_result_lands_as_cancel_is_clicked() -> None:
    """A progress fragment that reruns the page when a part of the result lands (as Step's does), with
    a part landing just as Cancel is clicked."""
    import streamlit as st

    from ui.tasks import Task, show_progress

    task = st.session_state.setdefault("task", Task(status="running"))

    @st.fragment
    def progress() -> None:
        if st.session_state.pop("landed", False):
            st.rerun(scope="app")
        show_progress(task, "Running", "a_cancel")

    progress()


def test_a_cancel_click_is_not_lost_when_a_result_lands_with_it():
    """Cancel is handled in its click's callback: a fragment that reruns the page as a result lands ended
    its run before reaching the button, and the click was lost (a busy machine showed it)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_whose_result_lands_as_cancel_is_clicked)
    at.run()
    task = at.session_state["task"]
    at.session_state["landed"] = True
    at.button(key="a_cancel").click().run()
    assert task.cancel.is_set() and task.status == "cancelling"


def test_the_work_of_a_session_gone_longer_than_its_grace_is_cancelled_and_a_reconnect_keeps_it(monkeypatch):
    """A closed or reloaded tab's run would hold Spark's turn, and everyone behind it, until its timeout."""
    monkeypatch.setattr(tasks, "GONE_S", 0.3)
    monkeypatch.setattr(tasks, "GONE_LOOK_S", 0.05)
    here = {"stays", "blinks"}
    monkeypatch.setattr(tasks, "session_here", lambda sid: sid in here)
    watcher = tasks._Abandoned()
    closed, stays, blinks, ended = Task(), Task(), Task(), Task()
    ended.done.set()
    for task, owner in ((closed, "closed"), (stays, "stays"), (blinks, "blinks"), (ended, "closed")):
        watcher.watch(task, owner)
    here.discard("blinks")
    time.sleep(0.15)
    here.add("blinks")  # back within the grace: a lost connection that came back
    assert closed.cancel.wait(2.0)
    assert "has closed" in closed.status
    time.sleep(0.5)
    assert not stays.cancel.is_set() and not blinks.cancel.is_set() and not ended.cancel.is_set()
    for task in (stays, blinks):
        task.done.set()
    deadline = time.monotonic() + 2.0
    while watcher._thread is not None and time.monotonic() < deadline:  # nothing left to watch: it ends
        time.sleep(0.05)
    assert watcher._thread is None and watcher._tasks == {}
