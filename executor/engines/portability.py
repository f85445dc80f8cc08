"""Which engines can run each node, and why not, known before running anything.

For every node of a plan:

- **Spark**: :func:`executor.translate.executable.executability` (every relation, expression, function and type
  of the subtree has a translation; writes are refused);
- **DataFusion**: its Substrait consumer takes the node's sub-plan and its planner makes the physical
  plan, nothing executed (:meth:`executor.engines.datafusion.DataFusionRunner.check`), against the
  bound tables, or, for a table not bound, an empty stand-in with the plan's base schema.

A node whose input cannot run on an engine cannot either; it says so with the input's id
(``inherited_from``), so a table shows where each gap starts. The reasons are sorted into
categories: ``function`` (no mapping for a function), ``type``, ``relation`` (a relation kind or
variant the engine refuses), ``refused`` (writes and DDL: never run), ``table`` (the data cannot be
given to the engine), ``other``. A relation inside a subquery runs with the node that holds the
subquery: DataFusion's answer for it is that node's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from viz.render import NodeStat, Overlay, title

from ..translate.executable import executability
from .datafusion import DataFusionRunner, category

_INHERITED = re.compile(r"^node (\S+) cannot run: ")


@dataclass(frozen=True)
class EngineVerdict:
    ok: bool
    reason: str | None = None
    category: str | None = None
    inherited_from: str | None = None  # the input (or subquery holder) whose gap this is

    @property
    def own(self) -> bool:
        return not self.ok and self.inherited_from is None

    def text(self) -> str:
        if self.ok:
            return "yes"
        return f"no, below (node {self.inherited_from})" if self.inherited_from else f"no: {self.category}"


@dataclass(frozen=True)
class NodePortability:
    node_id: str
    kind: str
    spark: EngineVerdict
    datafusion: EngineVerdict


@dataclass
class Portability:
    nodes: dict[str, NodePortability] = field(default_factory=dict)

    def count(self, engine: str) -> int:
        return sum(1 for n in self.nodes.values() if getattr(n, engine).ok)

    def summary(self) -> str:
        n = len(self.nodes)
        return f"Spark runs {self.count('spark')} of {n} nodes, DataFusion {self.count('datafusion')} of {n}"

    def rows(self) -> list[dict]:
        """One row per node: whether each engine runs it, and the reason where it starts."""
        out = []
        for n in self.nodes.values():
            out.append(
                {
                    "node": n.node_id,
                    "relation": title(n.kind),
                    "Spark": n.spark.text(),
                    "DataFusion": n.datafusion.text(),
                    "why not (Spark)": n.spark.reason if n.spark.own else "",
                    "why not (DataFusion)": n.datafusion.reason if n.datafusion.own else "",
                }
            )
        return out

    def overlay(self) -> Overlay:
        """Marks for the graph where a gap starts (⊘ engine: category), and a muted mark above it."""
        stats = []
        for nid, n in self.nodes.items():
            marks = []
            for engine, v in (("Spark", n.spark), ("DataFusion", n.datafusion)):
                if v.own:
                    marks.append(("warning", f"⊘ {engine}: {v.category} — {v.reason}"))
                elif not v.ok:
                    marks.append(("muted", f"⊘ {engine} (below)"))
            if marks:
                stats.append((nid, NodeStat(marks=tuple(marks))))
        return Overlay(tuple(stats))

    def to_json(self) -> dict:
        def side(v: EngineVerdict) -> dict:
            return {"ok": v.ok, "reason": v.reason, "category": v.category, "inherited_from": v.inherited_from}

        return {
            "summary": self.summary(),
            "nodes": [
                {"node": n.node_id, "relation": n.kind, "spark": side(n.spark), "datafusion": side(n.datafusion)}
                for n in self.nodes.values()
            ],
        }


def _spark(model) -> dict[str, EngineVerdict]:
    out = {}
    for nid, e in executability(model).items():
        if e.ok:
            out[nid] = EngineVerdict(True)
            continue
        m = _INHERITED.match(e.reason or "")
        reason = e.reason[m.end() :] if m else e.reason
        below = m.group(1) if m and m.group(1) != nid else None
        out[nid] = EngineVerdict(False, reason, "refused" if e.refused else category(reason or ""), below)
    return out


def _datafusion(model, catalog) -> dict[str, EngineVerdict]:
    runner = DataFusionRunner(model, catalog)
    graph = model.graph
    main = graph.post_order(model.roots, subqueries=False)
    out: dict[str, EngineVerdict] = {}
    for nid in main:
        below = (
            next((c for c in graph.children(nid, subqueries=False) if not out[c].ok), None)
            if all(c in out for c in graph.children(nid, subqueries=False))
            else None
        )
        if below is not None:
            start = out[below].inherited_from or below
            out[nid] = EngineVerdict(False, out[below].reason, out[below].category, start)
            continue
        reason = runner.check(nid)
        out[nid] = EngineVerdict(True) if reason is None else EngineVerdict(False, reason, category(reason))
    for nid in graph.nodes:  # relations inside subqueries: with the node that holds them
        if nid in out:
            continue
        holder = nid
        while holder not in out:
            parents = graph.parents(holder, subqueries=True)
            if not parents:
                break
            holder = parents[0]
        if holder in out:
            v = out[holder]
            out[nid] = EngineVerdict(v.ok, v.reason, v.category, holder if not v.ok else None)
        else:
            reason = runner.check(nid)
            out[nid] = EngineVerdict(True) if reason is None else EngineVerdict(False, reason, category(reason))
    return out


def portability(model, catalog=None) -> Portability:
    """Each node: can Spark run it, can DataFusion, and why not (see the module). Nothing runs."""
    spark, df = _spark(model), _datafusion(model, catalog)
    out = Portability()
    for nid in model.graph.nodes:
        out.nodes[nid] = NodePortability(nid, model.node(nid).kind, spark[nid], df[nid])
    return out


__all__ = ["EngineVerdict", "NodePortability", "Portability", "portability"]
