"""The warm-up's rehearsal of an opened plan: its nodes run once each, as Run would, their rows not kept.

Spark's first queries of a shape (planning, code generation, the JIT) cost a run several times what
the same run costs again: the tutorial's filter took 0.98 s on a fresh JVM and 0.30 s after a
rehearsal. ``ui.data.warm_spark`` rehearses the plan a person has just opened, in the background.
"""

from __future__ import annotations

import time

from .profile import is_cross_product
from .run import Cancelled, SparkRun, supervise
from .session import in_background


def rehearse(model, node_ids: list[str], spark, catalog, budget_s: float, limit: int = 100) -> list[str]:
    """Run each of ``node_ids`` once as Run would (its first ``limit`` rows, no count, no explain),
    keeping nothing: Spark's first queries of a shape (planning, code generation, the JIT) cost a run
    several times what the same run costs again. Stops when ``budget_s`` seconds have gone (the run
    then under way is interrupted). The nodes rehearsed to the end, in order; a node that fails is
    passed over (its own Run says why), and so is a node over a cross product: interrupted, a cross
    product's tasks can run on (``executor.reaper``), and no one asked for this run. It gives way to
    the runs a person asks for (``executor.session.in_background``): once one starts, the run under way is
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
                supervise(SparkRun(model, node_id, spark, catalog, limit, count=False, explain=False), spark, left, stop,
                          None, background=True)
            except Cancelled:  # out of time (TimedOut), or a person's run started
                break
            except Exception:  # noqa: BLE001 - a rehearsal only warms; the node's own Run reports its error
                continue
            done.append(node_id)
    return done
