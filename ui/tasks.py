"""Spark work for one browser session in a worker thread, so the page never waits for it.

A :class:`Task` carries what the page shows while it runs (progress, Cancel) and what it ends with
(a result or an error message). :func:`start` resolves the plan's tables, then runs the work in a
thread (:func:`run_in_background`); the Run panel, the profile, the Step and Present pages and the
compare panel use it, each with its own fragment that refreshes the progress and offers Cancel.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from executor.data.catalog import Catalog
from executor.errors import ExecutionError
from executor.spark.session import is_started
from executor.spark.turns import IN_LINE, OWNER, SPARK
from ui.markdown import md_escape, md_message
from ui.state.plan_data import catalog_for
from ui.state.plan_source import Plan
from ui.state.sessions import session_here, session_id


@dataclass
class Task:
    cancel: threading.Event = field(default_factory=threading.Event)
    fraction: float = 0.0
    # until its first progress: only the first Spark work of the process waits for Spark to start
    status: str = field(default_factory=lambda: "starting" if is_started() else "starting Spark")
    result: Any = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    updates: int = 0  # bumped by work that lands its result in parts (the page redraws each part)
    done: threading.Event = field(default_factory=threading.Event)
    waited: bool = False  # a run of the page has waited for it already (:func:`settle`)
    # who redraws the panel that shows this task when it changes (:class:`_Waker`; ``done=True``: the panel
    # that shows its result), and when and with how many parts it last did
    wake: Callable[..., None] | None = None
    _shown_updates: int = 0
    _shown_at: float = 0.0

    def progress(self, fraction: float, status: str) -> None:
        left_line = waits_in_line(self.status) and not waits_in_line(status)
        self.fraction, self.status = fraction, status
        wake = self.wake
        if wake is None:
            return
        # a part of the result is redrawn at once; a new place in line, a percentage or the seconds at
        # the next look: with many people waiting, each run's end would redraw every waiting page
        now = time.monotonic()
        if left_line and self.updates == self._shown_updates:
            # its turn came: the next look is a look from now, so a short run's next redraw is its result
            self._shown_at = now
            return
        if self.updates != self._shown_updates or now - self._shown_at >= _look_every(status):
            self._shown_updates, self._shown_at = self.updates, now
            wake()

    def finish(self) -> None:
        """The task has its result or its error: the panel showing it is redrawn."""
        self.done.set()
        wake = self.wake
        if wake is not None:
            wake(done=True)

    def watch(self, wake: Callable[..., None]) -> None:
        """From now on ``wake()`` redraws the panel that shows this task when it changes, and
        ``wake(done=True)`` the one that shows its result when it ends."""
        self._shown_updates, self._shown_at = self.updates, time.monotonic()
        self.wake = wake
        if self.done.is_set():  # ended before it was watched: nobody else will wake the panel
            wake(done=True)


def start(task: Task, plan: Plan, work: Callable[[Catalog], Any], what: str, thread_name: str) -> None:
    """Run ``work(catalog)`` for ``plan`` in a thread; its return value becomes ``task.result``.
    ``what`` names the work in the message of an unexpected error ("running node 0.1")."""
    try:
        catalog = catalog_for(plan, generate=True)
    except ExecutionError as exc:
        task.error = str(exc)
        task.finish()
        return
    run_in_background(task, lambda: work(catalog), what, thread_name)


def run_in_background(task: Task, work: Callable[[], Any], what: str, thread_name: str) -> None:
    """Run ``work()`` in a thread; its return value becomes ``task.result``, an error ``task.error``.
    Its Spark work takes turns with other browser sessions' as this session's (``executor.spark.turns``)."""
    owner = session_id()

    def run() -> None:
        OWNER.set(owner)
        try:
            task.result = work()
        except ExecutionError as exc:
            task.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: say so instead of a traceback in the page
            task.error = f"internal error while {what}: {type(exc).__name__}: {exc}"
        finally:
            task.finish()

    threading.Thread(target=run, name=thread_name, daemon=True).start()
    if _app_session() is not None:  # a server's session, which can go away (a test's app cannot)
        _ABANDONED.watch(task, owner)


#: Seconds a browser session may be gone (its tab closed or reloaded, its connection lost) before its
#: running work is cancelled: a session that reconnects within it keeps its work.
GONE_S = 10.0
#: Seconds between two looks at whether the sessions with running work are still there.
GONE_LOOK_S = 2.0


class _Abandoned:
    """Cancels the work of a browser session that has gone: nobody will see its result, and it would
    hold Spark's turn, and everyone waiting behind it, until its own timeout."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[int, tuple[Task, str]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, task: Task, owner: str) -> None:
        with self._lock:
            self._tasks[id(task)] = (task, owner)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._look, name="abandoned-work", daemon=True)
                self._thread.start()

    def _look(self) -> None:
        gone_since: dict[str, float] = {}
        while True:
            time.sleep(GONE_LOOK_S)
            with self._lock:
                watched = list(self._tasks.items())
            if not watched:
                with self._lock:
                    if not self._tasks:
                        self._thread = None
                        return
                continue
            now = time.monotonic()
            owners = {o for _, (_, o) in watched}
            for owner in set(gone_since) - owners:
                del gone_since[owner]
            for owner in owners:
                if session_here(owner):
                    gone_since.pop(owner, None)
                else:
                    gone_since.setdefault(owner, now)
            for key, (task, owner) in watched:
                gone = owner in gone_since and now - gone_since[owner] >= GONE_S
                if gone and not task.done.is_set():
                    task.cancel.set()
                    task.status = "cancelling: the page that asked for it has closed"
                if gone or task.done.is_set():
                    with self._lock:
                        self._tasks.pop(key, None)


_ABANDONED = _Abandoned()


#: Seconds between two looks at a running task when nothing wakes its panel (Streamlit's internals
#: differ, or a test's app): each look holds, see :data:`LOOK_S`.
POLL_S = 0.3
#: Seconds between two looks at a task its panel is woken for: only a safety net for a lost wake-up.
SAFETY_S = 10.0
#: Seconds between two redraws of a running task's progress while it changes only in its seconds, and
#: the same while it waits in line for Spark: on a busy server each redraw is work taken from the runs.
LOOK_S = 1.0
LOOK_IN_LINE_S = 5.0
HOLD_STEP_S = 0.05
_SECONDS = re.compile(r"\(\d+ s\)")


def _worth_a_look(status: str) -> str:
    """What of a status is worth a redraw: all but its seconds."""
    return _SECONDS.sub("", status)


def waits_in_line(status: str) -> bool:
    """Whether a task's status says it waits for its turn on Spark (a step's says so of one of its runs)."""
    return IN_LINE in status


def _look_every(status: str) -> float:
    return LOOK_IN_LINE_S if waits_in_line(status) else LOOK_S


def progress_fragment(draw: Callable[..., None]) -> Callable[..., None]:
    """``draw`` (which calls :func:`show_progress`) as a fragment: redrawn when its task wakes it
    (:class:`_Waker`), so a page waiting for Spark runs no script and draws nothing meanwhile, else
    looked at every :data:`POLL_S`."""
    woken = st.fragment(draw, run_every=SAFETY_S)
    polled = st.fragment(draw, run_every=POLL_S)

    @functools.wraps(draw)
    def show(*args: Any, **kwargs: Any) -> None:
        (woken if _Waker.possible() else polled)(*args, **kwargs)

    return show


def show_progress(task: Task, text: str, cancel_key: str, rerun: str | None = None) -> None:
    """Inside a :func:`progress_fragment`: the progress bar and Cancel, or once the task is done a
    rerun of the fragment keyed ``rerun`` (the panel that shows the result), else of the whole page.
    The task wakes this fragment when it changes; where it cannot, the look holds (:func:`_hold`)."""
    if task.done.is_set():
        _rerun(rerun)
    st.progress(task.fraction, text=md_escape(f"{text}: {task.status}"))  # ids hold `*`
    # in the click's callback, before any script runs: a fragment that reruns the page as a result
    # lands (Step's) would otherwise end its run before reaching the button, and the click be lost
    if st.button("■ Cancel", key=cancel_key, on_click=_cancel, args=(task,)):
        return
    waker = _Waker.here(rerun)
    if waker is not None:
        task.watch(waker)
        return
    _hold(task)
    if task.done.is_set():
        _rerun(rerun)


def _cancel(task: Task) -> None:
    task.cancel.set()
    task.status = "cancelling"


def _hold(task: Task) -> None:
    """Hold this look while nothing worth a redraw happens, for up to :func:`_look_every`: the task
    ends, its status changes (while in line: it leaves the line), or the person clicks or leaves.
    A page that waits long is then redrawn about once in that time, not at every poll."""
    in_line = waits_in_line(task.status)

    def worth(status: str) -> object:
        return waits_in_line(status) if in_line else _worth_a_look(status)

    shown = worth(task.status)
    deadline = time.monotonic() + _look_every(task.status)
    while not task.done.wait(HOLD_STEP_S) and time.monotonic() < deadline and not _asked_for_another_run():
        if worth(task.status) != shown:
            break


@dataclass(frozen=True)
class _Waker:
    """Reruns one fragment of one browser session from any thread, as the fragment's own timer would:
    the task that a progress fragment shows calls it when it changes. Streamlit has no public call for
    it; where its internals differ there is none, and the fragment looks by itself."""

    session: Any  # streamlit's AppSession
    fragment_id: str
    query_string: str
    page_script_hash: str
    done_ids: tuple[str, ...] = ()  # the fragment that shows the result, if not this one's page

    @staticmethod
    def possible() -> bool:
        return _app_session() is not None

    @classmethod
    def here(cls, done: str | None = None) -> _Waker | None:
        """A waker of the fragment being run, and at the end of the fragment keyed ``done`` (else of
        this one, which then reruns the page), or None."""
        try:
            from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

            session, ctx = _app_session(), get_script_run_ctx()
            fragment_id = ThreadState.get().fragment_id
            if session is None or ctx is None or not fragment_id:
                return None
            done_ids = tuple(ctx.fragment_storage.resolve_target(done)) if done else ()
            return cls(session, fragment_id, ctx.query_string, ctx.page_script_hash, done_ids)
        except Exception:  # noqa: BLE001 - see the class docstring
            return None

    def __call__(self, done: bool = False) -> None:
        ids = list(self.done_ids) if done and self.done_ids else [self.fragment_id]
        try:
            self.session._event_loop.call_soon_threadsafe(self._request, ids)
        except Exception:  # noqa: BLE001 - a closed session: nobody to redraw for
            pass

    def _request(self, ids: list[str]) -> None:  # on the server's event loop, as a browser's request would be
        try:
            from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

            ids = [i for i in ids if self.session.has_fragment(i)]
            if not ids:
                return  # the person has moved on: the task's result waits in the session
            data = RerunData(
                query_string=self.query_string,
                page_script_hash=self.page_script_hash,
                fragment_id_queue=ids,
                is_fragment_scoped_rerun=True,
                is_auto_rerun=True,
            )
            runner = self.session._scriptrunner
            if runner is None or not runner.request_rerun(data):
                self.session._create_scriptrunner(data)
        except Exception:  # noqa: BLE001 - see the class docstring; the safety look still comes
            pass


def _app_session() -> Any:
    """This browser session's AppSession on a running server, or None (a test's app, other internals)."""
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.app_session import AppSession

        ctx = get_script_run_ctx()
        if ctx is None or not Runtime.exists():
            return None
        session = Runtime.instance().get_app_session(ctx.session_id)
        if (
            not isinstance(session, AppSession)
            or not hasattr(session, "_event_loop")
            or not hasattr(session, "_scriptrunner")
        ):
            return None  # a test's app has a stand-in runtime
        return session
    except Exception:  # noqa: BLE001 - see _Waker
        return None


def _rerun(key: str | None) -> None:
    """Rerun the fragment registered under ``key``, or the whole page: redrawing only the panel that
    shows a result spares the browser the whole page, which on a busy server is work taken from the
    runs. Streamlit allows a keyed rerun from a widget's callback only, so it is asked for as
    ``st.rerun`` does; where Streamlit's internals differ, the whole page reruns."""
    if key is None:
        st.rerun(scope="app")
    try:
        from streamlit.commands.execution_control import _force_yield_point
        from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

        ctx = get_script_run_ctx()
        data = RerunData(
            query_string=ctx.query_string,
            page_script_hash=ctx.page_script_hash,
            fragment_id_queue=ctx.fragment_storage.resolve_target(key),
            is_fragment_scoped_rerun=True,
            cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info,
        )
        requests = ctx.script_requests
    except Exception:  # noqa: BLE001 - see the docstring
        st.rerun(scope="app")
    requests.request_rerun(data)
    _force_yield_point()


def _asked_for_another_run() -> bool:
    """Whether this session has asked for another run since this one began (a click, a page link;
    not the fragment's own timer), so a look that holds returns at once and the request is taken.
    Streamlit has no public call for it; where its internals differ, looks hold to their end."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

        requests = get_script_run_ctx().script_requests
        if requests is None or requests._state == ScriptRequestType.CONTINUE:
            return False
        return requests._state != ScriptRequestType.RERUN or not requests._rerun_data.is_auto_rerun
    except Exception:  # noqa: BLE001 - see the docstring
        return False


#: Seconds the page's run waits for a task the first time it shows it (the run that started it), before
#: it leaves the task to its progress fragment: a run on a warm session mostly ends within it, and its
#: rows then come with this run of the page, without the fragment's next look and a rerun of the whole
#: page, which would be a large part of a short run's wait.
WAIT_S = 1.5
#: Seconds between two looks at the task while the page waits (has it ended, has another run of the
#: page been asked for: a page link then leaves the wait at once). A click inside the same fragment is
#: queued, by Streamlit, until the wait ends: at most :data:`WAIT_S` later.
WAIT_STEP_S = 0.05
#: Seconds the page's run waits, drawing nothing, for a task to be in line while another person's work
#: holds Spark: the page then shows its place at once (the task says it only once it asks for a turn).
IN_LINE_WAIT_S = 0.5
#: Seconds between two redraws of the progress bar while the page waits: each redraws the whole page in
#: the browser, which on a busy server is work taken from the runs.
WAIT_LOOK_S = 0.5


def finished(task: Task, running: Callable[[], None], worded: Callable[[str], str] = str) -> Any:
    """The task's result once it has one. The first time, it is waited for here, up to :data:`WAIT_S`
    (with a progress bar); after that, ``running()`` draws its progress (a fragment with Cancel) until
    it ends. A task that failed shows its error, put in the page's words by ``worded``. None unless
    finished well."""
    settle(task)
    if not task.done.is_set():
        running()
        return None
    if task.error is not None:
        st.error(md_message(worded(task.error)))  # ids hold `*`
        return None
    return task.result


def settle(task: Task) -> None:
    """Wait for ``task`` here, the first time it is shown, up to :data:`WAIT_S`: a panel whose controls
    depend on whether it still runs (a disabled button) calls this before drawing them. A progress bar
    shows meanwhile, redrawn at most every :data:`WAIT_LOOK_S`; it goes when the wait ends, as soon
    as the task waits in line for Spark (it cannot end soon, and a page held in a long run fades and
    redraws meanwhile), or when the person asks for another run of the page (a page link). While
    another person's work holds Spark, the task waits for its turn anyway: the wait is only until it
    is in line (at most :data:`IN_LINE_WAIT_S`) and draws nothing, so the page's click is drawn in one
    piece, with the task's place in line (no bar drawn and taken away again)."""
    if task.done.is_set() or task.waited:
        return
    task.waited = True
    held = SPARK.held_by_others(session_id())
    slot = None if held else st.empty()
    deadline = time.monotonic() + (IN_LINE_WAIT_S if held else WAIT_S)
    shown, shown_at = None, 0.0
    while not task.done.wait(WAIT_STEP_S) and time.monotonic() < deadline:
        if waits_in_line(task.status) or _asked_for_another_run():
            break
        now = time.monotonic()
        if slot is not None and (
            shown is None or (shown != (task.fraction, task.status) and now - shown_at >= WAIT_LOOK_S)
        ):
            shown, shown_at = (task.fraction, task.status), now
            slot.progress(task.fraction, text=md_escape(task.status))
    if slot is not None:
        slot.empty()  # also the point where Streamlit stops this run for the newer one
