"""The warm-up's rehearsal of an opened plan: its nodes run once each, as Run would, their rows not kept.

Spark's first queries of a shape (planning, code generation, the JIT) cost a run several times what
the same run costs again, so ``ui.state.plan_data.warm_spark`` rehearses the plan a person has just
opened, in the background: the first plan of the process node by node, those opened later their roots
(:func:`prepare_later`), each only while Spark has no one's work.
"""

from __future__ import annotations

import queue
import threading
import time

from ..cache import BoundedCache
from ..errors import Cancelled
from ..jobs.profile import is_cross_product
from ..jobs.run import SparkRun, translation
from ..jobs.supervise import supervise
from .session import in_background, peek_session, people_running, warming
from .turns import SPARK


def rehearse(model, node_ids: list[str], spark, catalog, budget_s: float, limit: int = 100) -> list[str]:
    """Run each of ``node_ids`` once as Run would (its first ``limit`` rows, no count, no explain),
    keeping nothing: Spark's first queries of a shape (planning, code generation, the JIT) cost a run
    several times what the same run costs again. Stops when ``budget_s`` seconds have gone (the run
    then under way is interrupted). The nodes rehearsed to the end, in order; a node that fails is
    passed over (its own Run says why), and so is a node over a cross product: interrupted, a cross
    product's tasks can run on (``executor.spark.reaper``), and no one asked for this run. It gives way to
    the runs a person asks for (``executor.spark.session.in_background``): once one starts, the run under way is
    interrupted and no other starts."""
    done: list[str] = []
    deadline = time.monotonic() + budget_s
    with in_background() as stop:
        for node_id in node_ids:
            left = deadline - time.monotonic()
            if left <= 0 or stop.is_set():
                break
            if any(is_cross_product(model, n) for n in model.graph.subtree(node_id)):
                continue
            try:
                supervise(
                    SparkRun(model, node_id, spark, catalog, limit, count=False, explain=False, background=True),
                    timeout_s=left,
                    cancel=stop,
                )
            except Cancelled:  # out of time (TimedOut), or a person's run started
                break
            except Exception:  # noqa: BLE001 - a rehearsal only warms; the node's own Run reports its error
                continue
            done.append(node_id)
    return done


# ---- plans opened later ----------------------------------------------------------------------------

#: Plans whose nodes were handed to the preparer, most recent last (a plan reopened is not prepared twice).
PREPARED_KEPT = 256
#: Seconds between two looks at whether Spark is idle.
IDLE_POLL_S = 0.2
#: Seconds a plan opened later spends rehearsing its roots once Spark is idle (then interrupted).
LATER_RUN_BUDGET_S = 8.0
#: Times each such root is rehearsed: a shape's first few runs each cost more than the next (the JIT
#: compiles what the run before made hot), and this work is best done while nobody waits.
LATER_REHEARSALS = 3
_prepared: BoundedCache[tuple, None] = BoundedCache(PREPARED_KEPT)
_waiting: queue.SimpleQueue = queue.SimpleQueue()
_preparer: threading.Thread | None = None
_lock = threading.Lock()


def prepare_later(model, node_ids: list[str], catalog) -> bool:
    """Translate ``node_ids`` of a plan just opened, in the background, one at a time and only while
    Spark has no one's work, then rehearse those of them that are roots (:func:`rehearse`,
    :data:`LATER_REHEARSALS` times, for :data:`LATER_RUN_BUDGET_S`): the plans opened after the
    warm-up's (which prepares the first one) have their translation ready when Run is clicked, so a
    run's turn on Spark is its execution only, and the root's execution is not Spark's first of that
    shape. Never blocks; False when the plan (with these tables) was handed over before, or prepared by
    the warm-up (:func:`prepared_by_warm_up`)."""
    global _preparer
    with _lock:
        if not _claim(model, catalog):
            return False
        _waiting.put((model, list(node_ids), catalog))
        if _preparer is None or not _preparer.is_alive():
            _preparer = threading.Thread(target=_prepare_forever, name="spark-prepare", daemon=True)
            _preparer.start()
    return True


def prepared_by_warm_up(model, catalog) -> None:
    """The warm-up prepares this plan (with these tables): reopened, it is not prepared again."""
    with _lock:
        _claim(model, catalog)


def _claim(model, catalog) -> bool:
    """Mark the plan (with these tables) as prepared; False when it was already."""
    key = (model.digest, catalog.fingerprint(model))
    if key in _prepared:
        return False
    _prepared.put(key, None)
    return True


def spark_idle() -> bool:
    """No run a person asked for is under way or waiting."""
    return SPARK.busy() == (0, 0) and not people_running()


def _idle_session():
    """The session once Spark has no one's work (and, opened while Spark starts, once it is up); None
    when there is none."""
    while not spark_idle():
        time.sleep(IDLE_POLL_S)
    while peek_session() is None and warming():  # opened while Spark starts: ready when it is
        time.sleep(IDLE_POLL_S)
    return peek_session()


def _prepare_forever() -> None:
    while True:
        model, node_ids, catalog = _waiting.get()
        for node_id in node_ids:
            spark = _idle_session()
            if spark is None:
                break
            try:
                translation(model, node_id, spark, catalog)
            except Exception:  # noqa: BLE001 - only a head start: the node's own Run reports its error
                continue
        # then the roots, run as Run would: the node a plan opens on is the one most often run first
        spark = _idle_session()
        roots = [n for n in node_ids if n in model.roots]
        if spark is not None and roots:
            rehearse(model, roots * LATER_REHEARSALS, spark, catalog, LATER_RUN_BUDGET_S)
