"""Run tree work on very deep plans without hitting Python's or protobuf's nesting limits.

Protobuf's parsers refuse messages nested deeper than 100 levels (about 50 chained relations), the
JSON decoder and ``json_format`` recurse once per nesting level, and so do the expression passes.
:func:`run_deep` runs a function in a worker thread with a large stack and a raised recursion limit,
so a plan of thousands of nested relations loads and derives like a small one.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: Stack of the worker thread. Deep JSON costs C stack in the json decoder (about 0.5 KiB a level).
STACK_BYTES = 512 * 1024 * 1024
#: Python recursion limit while the worker runs.
RECURSION_LIMIT = 200_000

_lock = threading.Lock()
_local = threading.local()


def allow_deep_protobuf() -> None:
    """Lift upb's 100-level nesting limit for binary parsing (a process-wide switch)."""
    try:
        from google._upb import _message  # type: ignore[attr-defined]

        _message.SetAllowOversizeProtos(True)
    except Exception:  # pragma: no cover - other protobuf backends
        from google.protobuf.internal import api_implementation

        if api_implementation.Type() == "cpp":  # pragma: no cover
            from google.protobuf.pyext import _message  # type: ignore

            _message.SetAllowOversizeProtos(True)


#: How long an idle worker waits for more work before it ends.
IDLE_S = 60.0
_idle: list[_Worker] = []  # workers waiting for work (guarded by _lock)


class _Worker(threading.Thread):
    """A deep-capable thread that runs one call after another, and ends after ``IDLE_S`` idle.

    Kept, not started per call: a new thread costs a Py4J connection (and a JVM thread) at its first
    Spark call, which every translation would pay again.
    """

    def __init__(self) -> None:
        super().__init__(name="viz-deep", daemon=True)
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def run(self) -> None:
        _local.deep = True
        while True:
            try:
                job = self.jobs.get(timeout=IDLE_S)
            except queue.Empty:
                with _lock:
                    if self in _idle:  # else a caller took this worker just now: its job is coming
                        _idle.remove(self)
                        return
                continue
            job()
            del job  # it holds its result: the caller's reference is to be the last one
            with _lock:
                _idle.append(self)


def _worker() -> _Worker:
    with _lock:
        if _idle:
            return _idle.pop()
        old_stack = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        # The limit is per interpreter: it is raised once and left raised, since other deep workers
        # may be running.
        if sys.getrecursionlimit() < RECURSION_LIMIT:
            sys.setrecursionlimit(RECURSION_LIMIT)
        try:
            worker = _Worker()
            worker.start()
        finally:
            threading.stack_size(old_stack)
        return worker


def run_deep(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``fn(*args, **kwargs)`` where deep recursion is safe, and return its result.

    Nested calls run inline (the worker is already deep-capable). Exceptions propagate unchanged.
    Each call runs in a fresh ``contextvars`` context, as in a new thread.
    """
    if getattr(_local, "deep", False):
        return fn(*args, **kwargs)
    result: list[Any] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(contextvars.Context().run(fn, *args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller
            failure.append(exc)
        finally:
            done.set()

    _worker().jobs.put(work)
    done.wait()
    if failure:
        raise failure[0]
    return result[0]


_gc_lock = threading.Lock()
_gc_depth = 0
_gc_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a plan's model is built.

    Building a model makes hundreds of thousands of objects that all stay alive, so the collector's
    passes over them find nothing and cost about a tenth of the time on a 10,000-node plan.
    Reference counting still frees everything as usual. Nested and concurrent pauses share one
    switch: the collector comes back when the last of them ends (if it was on before the first).
    """
    global _gc_depth, _gc_was_enabled
    with _gc_lock:
        if _gc_depth == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_was_enabled:
                gc.enable()
