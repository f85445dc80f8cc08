"""Stepping through a plan: a node's rows beside its inputs' rows, rows first, counts within a budget.

``run_step(model, node_id, catalog=...)`` runs the node's inputs and then the node in two passes:

1. rows: each one's first ``limit`` rows (``executor.jobs.run.run_node`` without a count), reported
   through ``on_result`` as soon as they are in;
2. counts: where the rows did not all fit in the limit, the exact counts, by a profile of those
   nodes (``executor.jobs.profile.profile_plan``) within ``count_budget_s`` in all: one run observes
   them, and a node whose rows follow from its inputs' (a project, a sort, a fetch, a join without
   a condition, ...) takes its count from them, so stepping onto a cross product never computes
   it. Counts not done within the budget are stopped, leaving those rows without a count and a
   warning that says so.

``cross_product_warning`` says, before anything runs, that a node is a join without a condition,
with its expected rows when its inputs' counts are known.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from ..errors import ExecutionError
from .profile import is_cross_product, profile_plan, rows_from_inputs
from .run import RunResult, run_node
from .supervise import Progress

OnResult = Callable[[str, "RunResult | str"], None]

DERIVED_NOTE = "count worked out from its inputs' counts, not by counting its rows"
_COUNT_NOTES = ("counting stopped after ", "not counted: ", "the count failed: ", DERIVED_NOTE)


def count_notes(result: RunResult) -> list[str]:
    """The warnings :func:`run_step` added about a result's count (how it was had, or why not)."""
    return [w for w in result.warnings if w.startswith(_COUNT_NOTES)]


def run_step(
    model,
    node_id: str,
    *,
    catalog,
    limit: int = 20,
    count_budget_s: float = 10.0,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    on_result: OnResult | None = None,
    progress: Progress | None = None,
) -> dict[str, RunResult | str]:
    """The results of ``node_id``'s inputs and of the node (a ``RunResult`` or an error message),
    each reported to ``on_result`` when it changes (rows first, then with its count); ``progress(fraction,
    status)`` hears how each run and the counts go (a place in line for Spark among them)."""

    def of(what: str) -> Progress | None:
        return None if progress is None else lambda fraction, status: progress(fraction, f"{what}: {status}")

    ids = [*model.node(node_id).inputs, node_id]
    results: dict[str, RunResult | str] = {}

    def report(nid: str, result: RunResult | str) -> None:
        results[nid] = result
        if on_result is not None:
            on_result(nid, result)

    for nid in ids:
        if cancel is not None and cancel.is_set():  # the rest is said to be cancelled, not left blank
            report(nid, f"the run of node {nid} was cancelled before it ran")
            continue
        try:
            report(
                nid,
                run_node(
                    model,
                    nid,
                    catalog=catalog,
                    limit=limit,
                    timeout_s=timeout_s,
                    cancel=cancel,
                    explain=False,
                    progress=of(f"node {nid}"),
                ),
            )
        except ExecutionError as exc:
            report(nid, str(exc))
    pending = [n for n in ids if isinstance(results.get(n), RunResult) and results[n].row_count is None]
    if pending and not (cancel is not None and cancel.is_set()):
        profile = profile_plan(
            model, catalog, node_ids=pending, timeout_s=count_budget_s, cancel=cancel, progress=of("counting")
        )
        for nid in pending:
            p, result = profile.nodes[nid], results[nid]
            assert isinstance(result, RunResult)
            if p.rows is not None:
                note = [DERIVED_NOTE] if p.how == "derived" else []
                report(nid, replace(result, row_count=p.rows, warnings=[*result.warnings, *note]))
            elif p.error:
                report(nid, replace(result, warnings=[*result.warnings, f"the count failed: {p.error}"]))
            else:
                why = (
                    f"counting stopped after {count_budget_s:g} s (the count budget)"
                    if profile.stopped
                    else f"not counted: {p.skipped}"
                )
                report(nid, replace(result, warnings=[*result.warnings, f"{why}: more than {len(result.rows):,} rows"]))
    return results


def cross_product_warning(model, node_id: str, input_rows: list[int | None] | None = None) -> str | None:
    """What to know before running a join without a condition (None for any other node)."""
    if not is_cross_product(model, node_id):
        return None
    text = "A join without a condition: every row of one input meets every row of the other (a cross product)."
    if input_rows and None not in input_rows:
        rows = rows_from_inputs(model, node_id, input_rows)
        text += f" {' × '.join(f'{r:,}' for r in input_rows)} rows → {rows:,} rows."
    return text + " Its count is computed from its inputs' counts, never run."


__all__ = ["count_notes", "cross_product_warning", "run_step"]
