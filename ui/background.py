"""Spark work for one browser session in a worker thread, so the page never waits for it.

A :class:`Task` carries what the page shows while it runs (progress, Cancel) and what it ends with
(a result or an error message). :func:`start` resolves the plan's tables, then runs the work in a
thread (:func:`run_in_background`); the Run panel, the profile, the Step and Present pages and the
compare panel use it, each with its own fragment that refreshes the progress and offers Cancel.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from executor.catalog import Catalog
from executor.errors import ExecutionError
from executor.turns import IN_LINE, OWNER
from ui.data import catalog_for
from ui.plan_source import Plan


@dataclass
class Task:
    cancel: threading.Event = field(default_factory=threading.Event)
    fraction: float = 0.0
    status: str = "starting Spark"
    result: Any = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    updates: int = 0  # bumped by work that lands its result in parts (the page redraws each part)
    done: threading.Event = field(default_factory=threading.Event)
    waited: bool = False  # a run of the page has waited for it already (:func:`settle`)

    def progress(self, fraction: float, status: str) -> None:
        self.fraction, self.status = fraction, status


def start(task: Task, plan: Plan, work: Callable[[Catalog], Any], what: str, thread_name: str) -> None:
    """Run ``work(catalog)`` for ``plan`` in a thread; its return value becomes ``task.result``.
    ``what`` names the work in the message of an unexpected error ("running node 0.1")."""
    try:
        catalog = catalog_for(plan, generate=True)
    except ExecutionError as exc:
        task.error = str(exc)
        task.done.set()
        return
    run_in_background(task, lambda: work(catalog), what, thread_name)


def run_in_background(task: Task, work: Callable[[], Any], what: str, thread_name: str) -> None:
    """Run ``work()`` in a thread; its return value becomes ``task.result``, an error ``task.error``.
    Its Spark work takes turns with other browser sessions' as this session's (``executor.turns``)."""
    owner = _session_id()

    def run() -> None:
        OWNER.set(owner)
        try:
            task.result = work()
        except ExecutionError as exc:
            task.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: say so instead of a traceback in the page
            task.error = f"internal error while {what}: {type(exc).__name__}: {exc}"
        finally:
            task.done.set()

    threading.Thread(target=run, name=thread_name, daemon=True).start()


def _session_id() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


#: Seconds between the end of one look at a running task and the next (the fragment's ``run_every``).
POLL_S = 0.3
#: Seconds one look holds while nothing changes: the progress is drawn, then the look waits for the
#: task to end, its status to change, or the person to click or leave, before it returns. A page that
#: waits long is redrawn about once in this time, not at every poll: on a busy server each redraw is
#: work taken from the runs. Its end still shows within :data:`HOLD_STEP_S`.
HOLD_S = 1.0
#: The same while the task waits in line for Spark: only leaving the line ends the look early (its
#: place is updated at the next look).
HOLD_IN_LINE_S = 5.0
HOLD_STEP_S = 0.05
_SECONDS = re.compile(r"\(\d+ s\)")


def show_progress(task: Task, text: str, cancel_key: str, rerun: str | None = None) -> None:
    """Inside a ``st.fragment(run_every=...)``: the progress bar and Cancel, or once the task is done a
    rerun of the fragment keyed ``rerun`` (the panel that shows the result), else of the whole page
    (see :data:`HOLD_S`)."""
    if task.done.is_set():
        _rerun(rerun)
    st.progress(task.fraction, text=f"{text}: {task.status}")
    if st.button("■ Cancel", key=cancel_key):
        task.cancel.set()
        task.status = "cancelling"
        return
    in_line = task.status.startswith(IN_LINE)

    def worth_a_look(status: str) -> object:  # in line: only leaving it; else the status but its seconds
        return status.startswith(IN_LINE) if in_line else _SECONDS.sub("", status)

    shown = worth_a_look(task.status)
    deadline = time.monotonic() + (HOLD_IN_LINE_S if in_line else HOLD_S)
    while not task.done.wait(HOLD_STEP_S) and time.monotonic() < deadline and not _asked_for_another_run():
        if worth_a_look(task.status) != shown:
            break
    if task.done.is_set():
        _rerun(rerun)


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
        data = RerunData(query_string=ctx.query_string, page_script_hash=ctx.page_script_hash,
                         fragment_id_queue=ctx.fragment_storage.resolve_target(key), is_fragment_scoped_rerun=True,
                         cached_message_hashes=ctx.cached_message_hashes, context_info=ctx.context_info)
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
#: page (0.3-0.6 s of the 1.0 s a first Run of the tutorial's filter took).
WAIT_S = 1.5
#: Seconds between two updates of the progress while the page waits: each is a point where Streamlit
#: stops the run for a newer one (a page link), so the page answers meanwhile. A click inside the same
#: fragment is queued, by Streamlit, until the wait ends: at most :data:`WAIT_S` later.
WAIT_STEP_S = 0.05


def finished(task: Task, running: Callable[[], None]) -> Any:
    """The task's result once it has one. The first time, it is waited for here, up to :data:`WAIT_S`
    (with a progress bar); after that, ``running()`` draws its progress (a fragment with Cancel) until
    it ends. A task that failed shows its error. None unless finished well."""
    settle(task)
    if not task.done.is_set():
        running()
        return None
    if task.error is not None:
        st.error(task.error)
        return None
    return task.result


def settle(task: Task) -> None:
    """Wait for ``task`` here, the first time it is shown, up to :data:`WAIT_S`: a panel whose controls
    depend on whether it still runs (a disabled button) calls this before drawing them. A progress bar
    is updated meanwhile (each update a point where Streamlit can stop this run for a newer one); it
    goes when the wait ends, or as soon as the task waits in line for Spark (it cannot end soon, and
    a page held in a long run fades and redraws meanwhile)."""
    if task.done.is_set() or task.waited:
        return
    task.waited = True
    slot = st.empty()
    deadline = time.monotonic() + WAIT_S
    shown = None
    while not task.done.wait(WAIT_STEP_S) and time.monotonic() < deadline:
        if task.status.startswith(IN_LINE):
            break
        if shown != (task.fraction, task.status):
            shown = (task.fraction, task.status)
            slot.progress(task.fraction, text=task.status)
    slot.empty()
