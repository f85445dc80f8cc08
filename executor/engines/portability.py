"""Which engines can run each node, and why not, known before running anything.

For every node of a plan:

- **Spark**: :func:`executor.translate.executable.executability` (every relation, expression, function and type
  of the subtree has a translation; writes are refused);
- **DataFusion**: its Substrait consumer takes the node's sub-plan and its planner makes the physical
  plan, nothing executed (:meth:`executor.engines.datafusion.DataFusionRunner.check`), against the
  bound tables, or, for a table not bound, an empty stand-in with the plan's base schema.

Beside that, on every node (``executor.engines.engine_facts``): the fields it sets that an engine ignores
or reads differently, and the fields an engine's Substrait version does not know (version skew, also said
for the whole plan). On demand, since Spark answers them: the column types each engine gives
(:func:`node_types`, ``executor.engines.engine_types``) and each engine's own plan for one node
(:func:`engine_plans`, ``executor.engines.physical``). Each is kept per plan and catalog, for every session.

A node whose input cannot run on an engine cannot either; it says so with the input's id
(``inherited_from``), so a table shows where each gap starts. The reasons are sorted into
categories: ``function`` (no mapping for a function), ``type``, ``relation`` (a relation kind or
variant the engine refuses), ``refused`` (writes and DDL: never run), ``table`` (the data cannot be
given to the engine), ``other``. A relation inside a subquery runs with the node that holds the
subquery: DataFusion's answer for it is that node's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from viz.html_report import NodeEngines
from viz.render import NodeStat, Overlay, title
from viz.words import counted

from ..cache import BoundedCache
from ..translate.executable import executability, plan_error_reason
from .datafusion import DataFusionRunner, category
from .engine_facts import FieldFact, VersionNote, VersionSkew, field_uses, version_skew
from .engine_types import (
    ENGINE_NAMES,
    NodeTypes,
    TypeChange,
    difference_kind,
    engine_types,
    grouped,
    type_changes,
    type_differences,
)
from .physical import EnginePlan, datafusion_plan, spark_plan

_INHERITED = re.compile(r"^node (\S+) cannot run: ")
#: The category of a node that reads a column of an enclosing query: it runs only within that query.
CORRELATED = "correlated"


@dataclass(frozen=True)
class EngineVerdict:
    ok: bool
    reason: str | None = None
    category: str | None = None
    inherited_from: str | None = None  # the input (or subquery holder) whose gap this is
    part_of: str | None = None  # category CORRELATED: the node whose run includes this one

    @property
    def own(self) -> bool:
        return not self.ok and self.inherited_from is None

    def text(self) -> str:
        if self.ok:
            return "yes"
        if self.part_of is not None:
            return f"only within node {self.part_of}"
        return f"no, below (node {self.inherited_from})" if self.inherited_from else f"no: {self.category}"


@dataclass(frozen=True)
class NodePortability:
    node_id: str
    kind: str
    spark: EngineVerdict
    datafusion: EngineVerdict
    fields: tuple[FieldFact, ...] = ()  # fields set here that an engine ignores or reads differently
    versions: tuple[VersionNote, ...] = ()  # fields set here that an engine's Substrait version does not know

    def field_notes(self) -> tuple[str, ...]:
        return tuple(f"{ENGINE_NAMES[f.engine]}: {f.field} — {f.says}" for f in self.fields)

    def version_notes(self) -> tuple[str, ...]:
        return tuple(v.text for v in self.versions)

    def verdict(self, engine: str) -> EngineVerdict:
        return self.spark if engine == "spark" else self.datafusion


@dataclass(frozen=True)
class Portability:
    nodes: dict[str, NodePortability] = field(default_factory=dict)
    skew: VersionSkew | None = None
    types: dict[str, NodeTypes] | None = None  # the column types each engine gives, once asked for
    #: per node, the type differences that start there (beyond nullability and how an engine stores a type)
    changes: dict[str, list[TypeChange]] = field(default_factory=dict)

    def types_of(self, node_id: str) -> NodeTypes | None:
        return self.types.get(node_id) if self.types is not None else None

    def with_types(self, types: dict[str, NodeTypes], model) -> Portability:
        """This report with the types of ``model``'s nodes (its lineage says where a difference starts)."""
        return replace(self, types=types, changes=type_changes(types, passes_of(model)))

    def notes(self, types_shown: str = "see each node's types") -> list[str]:
        """What to know for the whole plan: version skew, each type difference where it starts, and how
        many columns differ only in nullability or in how an engine stores the type (``types_shown``:
        where the reader finds each node's types)."""
        out = list(self.skew.notes) if self.skew is not None else []
        for nid, changes in self.changes.items():
            out.extend(f"node {nid}, {c.text()}" for c in changes)
        if self.types:
            minor: dict[str, int] = {}
            for d in type_differences(self.types):
                for s in d.sources:
                    kind = difference_kind(d.column.declared, getattr(d.column, s))
                    if kind != "type":
                        minor[kind] = minor.get(kind, 0) + 1
            if minor:
                words = {
                    "nullability": "differ only in nullability",
                    "stores": "differ only in how the engine stores the type (a string's length, a precision)",
                }
                out.append(
                    "besides: "
                    + ", ".join(f"{n:,} column type(s) {words[k]}" for k, n in sorted(minor.items()))
                    + f" (an engine's own reading: {types_shown})"
                )
        return out

    def count(self, engine: str) -> int:
        return sum(1 for n in self.nodes.values() if getattr(n, engine).ok)

    def summary(self) -> str:
        n = len(self.nodes)
        words = f"Spark runs {self.count('spark')} of {n} nodes, DataFusion {self.count('datafusion')} of {n}"
        within = sum(1 for v in self.nodes.values() if v.spark.part_of is not None)
        if within:
            words += (
                f"; {counted(within, 'node')} inside correlated subqueries "
                f"{'runs' if within == 1 else 'run'} only within {'its' if within == 1 else 'their'} query"
            )
        return words

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
        """Marks for the graph where a gap starts (⊘ engine: category), and a muted mark above it;
        a field an engine ignores (⚑), a field an engine's version does not know (⚠), and types an
        engine gives otherwise than the plan declares (≠)."""
        stats = []
        for nid, n in self.nodes.items():
            marks = []
            if n.spark.part_of is not None:  # not a gap: such a node only ever runs within its query
                marks.append(("muted", f"runs only within node {n.spark.part_of} (a correlated subquery)"))
            for engine, v in (("Spark", n.spark), ("DataFusion", n.datafusion)):
                if v.part_of is not None:
                    continue
                if v.own:
                    marks.append(("warning", f"⊘ {engine}: {v.category} — {v.reason}"))
                elif not v.ok:
                    marks.append(("muted", f"⊘ {engine} (below)"))
            for f in n.fields:
                marks.append(("warning", f"⚑ {ENGINE_NAMES[f.engine]} {_EFFECTS.get(f.effect, f.effect)} {f.field}"))
            for text in n.version_notes():
                marks.append(("warning", f"⚠ {text}"))
            lines = grouped(self.changes.get(nid, ()))
            marks.extend(("warning", f"≠ {line}") for line in lines[:2])
            if len(lines) > 2:
                marks.append(("warning", f"≠ and {len(lines) - 2} more columns typed otherwise"))
            if marks:
                stats.append((nid, NodeStat(marks=tuple(marks))))
        return Overlay(tuple(stats))

    def to_json(self, plans: dict[str, tuple[EnginePlan, ...]] | None = None) -> dict:
        """Per node and engine: whether it runs and why not, the fields it ignores, the columns whose type
        it gives otherwise than the plan declares, version notes, and (when given) its own plan."""

        def side(n: NodePortability, engine: str) -> dict:
            v = n.verdict(engine)
            out = {"ok": v.ok, "reason": v.reason, "category": v.category, "inherited_from": v.inherited_from}
            out["ignored_fields"] = [
                {"field": f.field, "effect": f.effect, "says": f.says} for f in n.fields if f.engine == engine
            ]
            out["version_notes"] = [v.text for v in n.versions if v.engine == engine]
            types = self.types_of(n.node_id)
            if types is not None:
                out["types"] = [getattr(c, engine) for c in types.columns]
                out["types_error"] = getattr(types, f"{engine}_error")
                out["type_differences"] = [
                    {
                        "column": c.name,
                        "declared": c.declared,
                        engine: getattr(c, engine),
                        "kind": difference_kind(c.declared, getattr(c, engine)),
                        "starts_here": any(
                            t.index == i and t.source == engine for t in self.changes.get(n.node_id, ())
                        ),
                    }
                    for i, c in enumerate(types.columns)
                    if engine in c.differs()
                ]
            for p in (plans or {}).get(n.node_id, ()):
                if p.engine == engine:
                    out["plan"] = {
                        "text": p.text(),
                        "own_operators": list(p.own_operators()),
                        "notes": list(p.notes),
                        "error": p.error,
                    }
            return out

        def node(n: NodePortability) -> dict:
            out: dict = {"node": n.node_id, "relation": n.kind}
            types = self.types_of(n.node_id)
            if types is not None:
                out["columns"] = [{"name": c.name, "declared": c.declared, "spec": c.spec} for c in types.columns]
                out["type_notes"] = list(types.notes)
            out["spark"], out["datafusion"] = side(n, "spark"), side(n, "datafusion")
            return out

        out: dict = {"summary": self.summary()}
        if self.skew is not None:
            out["versions"] = {
                "plan": self.skew.plan_version,
                "engines": {e.engine: {"reads": e.reads, "how": e.how} for e in self.skew.engines},
                "notes": list(self.skew.notes),
            }
        out["notes"] = self.notes()
        out["nodes"] = [node(n) for n in self.nodes.values()]
        return out

    def node_engines(self, plans: dict[str, tuple[EnginePlan, ...]] | None = None) -> dict[str, NodeEngines]:
        """The report's words per node, for the HTML report."""
        marks = self.overlay().stats()
        out = {}
        for nid, n in self.nodes.items():
            types = self.types_of(nid)
            rows = tuple(
                (c.name, c.declared or "", c.spec or "", c.spark or "", c.datafusion or "")
                for c in (types.columns if types is not None else ())
            )
            why = types.reasons() if types is not None else []
            out[nid] = NodeEngines(
                verdicts=(("Spark", verdict_words(n.spark)), ("DataFusion", verdict_words(n.datafusion))),
                fields=n.field_notes(),
                versions=n.version_notes(),
                types=rows,
                types_note=" · ".join(why),
                plans=tuple((ENGINE_NAMES[p.engine], p.error or p.text()) for p in (plans or {}).get(nid, ())),
                marks=marks[nid].marks if nid in marks else (),
            )
        return out


_EFFECTS = {"ignored": "ignores", "hint": "takes as a hint only", "differs": "reads differently"}


def passes_of(model) -> Callable[[str, int], tuple[str, int] | None]:
    """``passes(node, index)``: the input column that column ``index`` of ``node`` passes on unchanged
    (or renamed), from the model's lineage, or None (computed, read, or unknown)."""
    from viz.lineage import node_lineage

    def passes(node_id: str, index: int) -> tuple[str, int] | None:
        columns = node_lineage(model, node_id).columns
        origin = columns[index] if index < len(columns) else None
        if origin is None or origin.kind != "passes" or len(origin.inputs) != 1:
            return None
        return origin.inputs[0]

    return passes


def verdict_words(v: EngineVerdict) -> str:
    """Whether an engine runs a node, in words (the report's and the Engines tab's): "runs", or why not,
    its kind of gap first ("cannot (function): …"; a gap of no known kind without one, as "(other)" said
    nothing), or the input it cannot run."""
    if v.ok:
        return "runs"
    if v.inherited_from:
        return f"cannot: an input cannot (node {v.inherited_from}): {v.reason}"
    kind = f" ({v.category})" if v.category and v.category != "other" else ""
    return f"cannot{kind}: {v.reason}"


def _spark(model) -> dict[str, EngineVerdict]:
    out = {}
    for nid, e in executability(model).items():
        if e.ok:
            out[nid] = EngineVerdict(True)
            continue
        m = _INHERITED.match(e.reason or "")
        reason = e.reason[m.end() :] if m else e.reason
        below = m.group(1) if m and m.group(1) != nid else None
        kind = "refused" if e.refused else CORRELATED if e.part_of else category(reason or "")
        out[nid] = EngineVerdict(False, reason, kind, below, e.part_of)
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
        # blocked below, a node the plan is wrong at says its own error (DataFusion is not asked about it)
        wrong = plan_error_reason(model.node(nid)) if below is not None else None
        if wrong is not None:
            out[nid] = EngineVerdict(False, wrong, "other")
            continue
        if below is not None:
            start = out[below].inherited_from or below
            out[nid] = EngineVerdict(False, out[below].reason, out[below].category, start)
            continue
        reason = runner.check(nid)
        out[nid] = EngineVerdict(True) if reason is None else EngineVerdict(False, reason, category(reason))
    spark = executability(model)
    within = {nid for nid in graph.nodes if nid not in out and spark[nid].part_of is not None}
    for nid in within:  # reads its query's columns: no engine runs it alone
        out[nid] = EngineVerdict(False, spark[nid].reason, CORRELATED, part_of=spark[nid].part_of)
    for nid in graph.nodes:  # relations inside subqueries: with the node that holds them
        if nid in out:
            continue
        holder = nid
        while holder not in out or holder in within:
            parents = graph.parents(holder, subqueries=True)
            if not parents:
                break
            holder = parents[0]
        if holder in out and holder not in within:
            v = out[holder]
            out[nid] = EngineVerdict(v.ok, v.reason, v.category, holder if not v.ok else None)
        else:
            reason = runner.check(nid)
            out[nid] = EngineVerdict(True) if reason is None else EngineVerdict(False, reason, category(reason))
    return out


def _key(model, catalog) -> tuple:
    return (model.digest, catalog.fingerprint(model) if catalog is not None else None)


#: The engines' verdicts and the types per plan and catalog, for every session (``executor.engines.physical``
#: keeps the plans). The fields and versions are found again each time: cheap, and they depend on fields
#: the model drops (a field our protos do not know), which its digest does not see.
_VERDICTS: BoundedCache[tuple, tuple[dict, dict]] = BoundedCache(32)
_TYPES: BoundedCache[tuple, dict[str, NodeTypes]] = BoundedCache(32)


def portability(model, catalog=None) -> Portability:
    """Each node: can Spark run it, can DataFusion, and why not, the fields an engine ignores there, and
    version skew (see the module). Nothing runs."""
    key = _key(model, catalog)
    verdicts = _VERDICTS.get(key)
    if verdicts is None:
        verdicts = (_spark(model), _datafusion(model, catalog))
        _VERDICTS.put(key, verdicts)
    spark, df = verdicts
    uses, skew = field_uses(model), version_skew(model)
    nodes = {
        nid: NodePortability(
            nid, model.node(nid).kind, spark[nid], df[nid], tuple(uses.get(nid, ())), tuple(skew.nodes.get(nid, ()))
        )
        for nid in model.graph.nodes
    }
    return Portability(nodes, skew)


def node_types(model, catalog=None) -> dict[str, NodeTypes]:
    """The column types the plan, the spec, Spark and DataFusion give every node (starts Spark)."""
    key = _key(model, catalog)
    cached = _TYPES.get(key)
    if cached is None:
        cached = engine_types(model, catalog)
        _TYPES.put(key, cached)
    return cached


def engine_plans(model, node_id: str, catalog=None) -> tuple[EnginePlan, ...]:
    """Spark's and DataFusion's own plans for node ``node_id``'s subtree, this node's operators marked."""
    return (spark_plan(model, node_id, catalog), datafusion_plan(model, node_id, catalog))


__all__ = [
    "EngineVerdict",
    "NodePortability",
    "Portability",
    "engine_plans",
    "node_types",
    "portability",
    "verdict_words",
]
