"""Find the first node where Spark and DataFusion disagree.

``bisect(model, catalog)`` walks the plan (or the subtree under ``node_id``) bottom-up, every node
after its inputs (:meth:`viz.graph.PlanGraph.post_order`, subqueries left out: a subquery's relations
run with the node that holds them), and runs each node on both engines
(:func:`executor.engines.cross.compare_engines`). It stops at the first node whose outputs differ: a node
that differs while every input it has was compared and agreed, or could not be compared (said on the
result). That node, both engines' rows and the rows only one returns, and its expressions (those
computing the differing columns first) are the answer.

A node DataFusion (or Spark) cannot take is recorded with the reason and the walk goes on; its
ancestors then cannot run on that engine either. A node with more rows than the limit on both
engines is not compared row by row (its parents still are). Spark's translations are the executor's
cached ones; DataFusion's context is made once per bisect.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from viz.render import NodeStat, Overlay
from viz.schema import SPEC
from viz.words import counted

from ..errors import ExecutionError
from .cross import DEFAULT_LIMIT, DIFFERS, NOT_COMPARED, SAME, EngineComparison, compare_engines
from .datafusion import DataFusionRunner

Progress = Callable[[float, str], None]


#: The end of a reason a node shares with one below it, where it starts.
STARTS_BELOW = " (the reason is node {node}'s, below it)"
_STARTS_BELOW = re.compile(re.escape(STARTS_BELOW).replace(re.escape("{node}"), ".+?") + "$")


@dataclass
class BisectNode:
    node_id: str
    kind: str
    verdict: str  # SAME, DIFFERS, NOT_COMPARED
    why: str
    elapsed_s: float = 0.0
    comparison: EngineComparison | None = field(default=None, repr=False)


@dataclass
class Bisection:
    start: str  # the node whose subtree was walked
    nodes: dict[str, BisectNode] = field(default_factory=dict)  # in the order they were compared
    first: str | None = None  # the first node whose outputs differ
    unchecked_inputs: list[str] = field(default_factory=list)  # inputs of ``first`` that were not compared
    skipped: list[str] = field(default_factory=list)  # not reached: above the first disagreement
    elapsed_s: float = 0.0
    stopped: str | None = None  # "cancelled" when cancelled
    notes: list[str] = field(default_factory=list)  # what to know when reading the verdicts

    @property
    def agree(self) -> bool:
        return self.first is None and self.stopped is None

    @property
    def compared(self) -> int:
        return sum(1 for n in self.nodes.values() if n.verdict != NOT_COMPARED)

    @property
    def start_agrees(self) -> bool:
        """Whether both engines gave the same rows for the node the walk started from (the plan's output
        when it started at a root)."""
        node = self.nodes.get(self.start)
        return node is not None and node.verdict == SAME

    @property
    def first_comparison(self) -> EngineComparison | None:
        return self.nodes[self.first].comparison if self.first else None

    def summary(self) -> str:
        n = len(self.nodes)
        if self.stopped:
            return f"stopped ({self.stopped}) after {counted(n, 'node')}"
        if self.first is not None:
            return f"first disagreement at node {self.first}: {self.nodes[self.first].why}"
        compared, left = self.compared, n - self.compared
        if not compared:
            return f"no node could be compared ({counted(left, 'node')} tried)"
        agree = "Spark and DataFusion agree on " + (
            "the one node compared"
            if compared == 1
            else "both nodes compared"
            if compared == 2
            else f"all {compared} nodes compared"
        )
        if not left:
            return agree
        start = self.nodes.get(self.start)
        if start is not None and start.verdict == NOT_COMPARED:  # said first: the rows asked about were not compared
            others = f"; {counted(left - 1, 'other node')} could not be compared either" if left > 1 else ""
            return (
                f"node {self.start}, where the walk started, could not be compared: {start.why}. Below it, "
                f"{agree}{others}"
            )
        return f"{agree}; {counted(left, 'node')} could not be compared"

    def not_compared_reasons(self, besides_start: bool = False) -> list[tuple[int, str]]:
        """Why nodes were not compared, most often first: (how many, one node's reason, without where it
        starts) for each reason, nodes whose reasons differ only in their figures ("89,807 × 8,923 →
        801,347,861 rows") or in the node the reason starts at counted together; ``besides_start``: not
        the start node (:meth:`summary` says its reason), so the counts add up to its "other nodes"."""

        def key(why: str) -> str:
            return re.sub(r"[\d,.]+|\([^)]*\)", "#", _STARTS_BELOW.sub("", why))

        groups: dict[str, list[str]] = {}
        for nid, n in self.nodes.items():
            if n.verdict == NOT_COMPARED and not (besides_start and nid == self.start):
                groups.setdefault(key(n.why), []).append(_STARTS_BELOW.sub("", n.why))
        return sorted(((len(whys), whys[0]) for whys in groups.values()), key=lambda g: -g[0])

    def reasons_beside_summary(self) -> list[tuple[int, str]]:
        """:meth:`not_compared_reasons` as listed under :meth:`summary`: without the start's where the summary says
        it (some node was compared), every node's where it says none could be."""
        return self.not_compared_reasons(besides_start=bool(self.compared))

    def not_compared_text(self, shown: int = 3) -> str | None:
        """:meth:`reasons_beside_summary` as one line, the ``shown`` most frequent reasons and a count of
        the rest: "Not compared: 2 nodes (for each, DataFusion cannot run it: …)." (a node's reason says
        "it": "2 nodes: … cannot run it" read as if of one); None when every node was compared."""
        reasons = self.reasons_beside_summary()
        if not reasons:
            return None
        said = [f"{counted(n, 'node')} ({'' if n == 1 else 'for each, '}{why})" for n, why in reasons[:shown]]
        more = sum(n for n, _ in reasons[shown:])
        return "Not compared: " + "; ".join(said) + (f"; {counted(more, 'other node')}" if more else "") + "."

    def overlay(self) -> Overlay:
        """Marks for the graph: the first disagreement (red, with both engines' counts), the nodes that
        agree (✓) and those not compared (with why)."""
        stats = []
        for nid, n in self.nodes.items():
            if n.verdict == DIFFERS:
                c = n.comparison
                counts = f"Spark {c.spark.count_text()} · DataFusion {c.datafusion.count_text()} rows" if c else ""
                marks = [("error", "≠ first disagreement" if nid == self.first else "≠ engines differ")]
                if counts:
                    marks.append(("error", counts))
                if c and c.differing_columns:
                    marks.append(
                        (
                            "error",
                            "differs in " + ", ".join(c.columns[i] for i in c.differing_columns if i < len(c.columns)),
                        )
                    )
                if c and c.expressions:
                    marks.append(("error", c.expressions[0][1]))
                stats.append((nid, NodeStat(marks=tuple(marks))))
            elif n.verdict == SAME:
                stats.append((nid, NodeStat(marks=(("ok", "✓ Spark = DataFusion"),))))
            else:
                stats.append((nid, NodeStat(marks=(("muted", "not compared: " + n.why),))))
        return Overlay(tuple(stats))

    def to_json(self) -> dict:
        return {
            "start": self.start,
            "agree": self.agree,
            "first": self.first,
            "unchecked_inputs": self.unchecked_inputs,
            "elapsed_s": round(self.elapsed_s, 6),
            "stopped": self.stopped,
            "notes": self.notes,
            "nodes": [
                {
                    "node": n.node_id,
                    "relation": n.kind,
                    "verdict": n.verdict,
                    "why": n.why,
                    "seconds": round(n.elapsed_s, 6),
                }
                for n in self.nodes.values()
            ],
            "first_disagreement": self.first_comparison.to_json() if self.first_comparison else None,
        }


def bisect(
    model,
    catalog,
    node_id: str | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Bisection:
    """Walk node ``node_id``'s subtree (default: the plan's first root) bottom-up on both engines and
    stop at the first disagreement (see the module). ``timeout_s`` bounds each node's Spark run; a set
    ``cancel`` stops the walk between nodes (and Spark's jobs at once)."""
    from viz.render import title

    if node_id is None:
        if not model.roots:
            raise ExecutionError("the plan has no relations")
        node_id = model.roots[0]
    if node_id not in model.graph.nodes:
        raise ExecutionError(f"the plan has no node {node_id!r}; its roots are {', '.join(model.roots) or 'none'}")
    began = time.monotonic()
    order = model.graph.post_order([node_id], subqueries=False)
    out = Bisection(node_id)
    conventions = model.conventions_in_play  # a grouping-set reading only where the plan has grouping sets
    if conventions != SPEC:  # DataFusion is given the plan as its producer wrote it (DataFusionRunner)
        out.notes.append(
            f"the plan follows its producer's reading, not the spec's: {'; '.join(conventions.describe())}. "
            "Both engines run it that way"
        )
    runner = DataFusionRunner(model, catalog)
    rows: dict[str, int | None] = {}  # exact rows of the nodes both engines agree on; None: not known
    reasons: dict[str, tuple[str, str]] = {}  # a node not compared: (why, the node where that reason starts)
    for i, nid in enumerate(order):
        if cancel is not None and cancel.is_set():
            out.stopped = "cancelled"
            break
        if progress is not None:
            progress(i / len(order), f"node {nid} ({title(model.node(nid).kind)}), {i + 1} of {len(order)}")
        started = time.monotonic()
        too_many = _too_many(model, nid, rows, limit)
        if too_many:
            out.nodes[nid] = BisectNode(nid, model.node(nid).kind, NOT_COMPARED, too_many)
            rows[nid] = None
            continue
        try:
            c = compare_engines(model, nid, catalog, limit=limit, timeout_s=timeout_s, cancel=cancel, runner=runner)
        except ExecutionError:
            if cancel is not None and cancel.is_set():
                out.stopped = "cancelled"
                break
            raise
        why = c.why
        if c.verdict == NOT_COMPARED:
            # the same reason as an input's: said where it starts (an engine that cannot run a filter cannot
            # run anything above it, and the error is the filter's)
            below = [ch for ch in model.graph.children(nid, subqueries=False) if reasons.get(ch, (None,))[0] == c.why]
            origin = reasons[below[0]][1] if below else nid
            reasons[nid] = (c.why, origin)
            if origin != nid:
                why = f"{c.why}{STARTS_BELOW.format(node=origin)}"
        out.nodes[nid] = BisectNode(nid, model.node(nid).kind, c.verdict, why, time.monotonic() - started, c)
        rows[nid] = c.spark.row_count if c.verdict == SAME and c.spark.complete else None
        if c.verdict == DIFFERS:
            out.first = nid
            out.unchecked_inputs = [
                ch
                for ch in model.graph.children(nid, subqueries=False)
                if out.nodes.get(ch) is None or out.nodes[ch].verdict != SAME
            ]
            out.skipped = order[i + 1 :]
            break
    out.notes.extend(sorted(runner.notes))
    out.elapsed_s = time.monotonic() - began
    if progress is not None:
        progress(1.0, out.summary())
    return out


def _too_many(model, nid: str, rows: dict[str, int | None], limit: int) -> str | None:
    """Why node ``nid`` is not run: its rows follow from its inputs' (a join without a condition...)
    and are more than the limit (a cross product whose condition sits in a filter above). None
    when it is to be run."""
    from ..jobs.profile import is_cross_product, rows_from_inputs

    inputs = model.node(nid).inputs
    counts = [rows.get(i) for i in inputs]
    if inputs and all(c is not None for c in counts):
        derived = rows_from_inputs(model, nid, counts)
        if derived is not None and derived > limit:
            return (
                f"its rows follow from its inputs' ({' × '.join(f'{c:,}' for c in counts)} → {derived:,} rows), "
                f"more than the {limit:,} compared: not run"
            )
    elif inputs and is_cross_product(model, nid) and all(c is None or c > 0 for c in counts):
        return f"a cross product of an input with more than {limit:,} rows: not run"
    return None


__all__ = ["Bisection", "BisectNode", "bisect"]
