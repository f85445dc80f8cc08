"""The lineage pass: each node's facts by its kind's rule (memoised beside the model, its emit
applied), and the walks over them: down to a column's sources (:func:`trace`), up to its uses
(:func:`used_by`), and every column's sources at once (:func:`column_sources`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Diagnostic, error
from ..graph import Node
from ..kinds import emit
from ..model import MemoBeside, PlanModel
from .reading import Context
from .results import (
    Lineage,
    LineageError,
    Origin,
    Ref,
    Source,
    Step,
    Summary,
    Usage,
    Use,
)
from .rules import RULES, RuleResult


@dataclass
class NodeLineage:
    """One node's lineage facts: where each output column (after the emit) comes from, one step
    down, and the conditions and keys it reads its incoming columns in."""

    columns: list[Origin]
    uses: list[Use]
    diagnostics: list[Diagnostic]


@dataclass
class _Memo:
    nodes: dict[str, NodeLineage] = field(default_factory=dict)
    readers: dict[Ref, list[Ref]] | None = None
    users: dict[Ref, list[Use]] | None = None
    summaries: dict[str, list[Summary]] = field(default_factory=dict)
    json: dict[int, dict] = field(default_factory=dict)  # lineage_json's, by the summary's id


#: This module's memo for a model, kept beside it (not in it) for as long as it lives.
_memo = MemoBeside(_Memo)


def _unknown_why(model: PlanModel, node: Node) -> str:
    if node.kind.startswith("extension_"):
        return "an extension relation defines its own columns: where they come from is unknown"
    if node.kind not in RULES:
        return f"relation kind {node.kind or '(empty)'} is not understood"
    missing = [i for i in node.inputs if model.infos.get(i) is None or model.infos[i].schema is None]
    if missing:
        return f"the schema of input {', '.join(missing)} is unknown"
    return "the node's columns could not be derived"


def node_lineage(model: PlanModel, node_id: str) -> NodeLineage:
    """Node ``node_id``'s lineage facts (memoised). Never raises for a node of the model: a rule that
    fails leaves the node's columns unknown, with a diagnostic naming the node."""
    memo = _memo(model)
    hit = memo.nodes.get(node_id)
    if hit is not None:
        return hit
    node = model.graph.nodes[node_id]
    info = model.infos[node_id]
    diagnostics: list[Diagnostic] = []
    ctx = Context(model, node, info, diagnostics)
    rule = RULES.get(node.kind)
    local = RuleResult(None)
    if rule is not None:
        try:
            local = rule(ctx)
            done = 0
            while done < len(ctx.keys):  # keys inside the expressions read (reading them may find more)
                role, e = ctx.keys[done]
                done += 1
                local.uses.append(ctx.use(role, ctx.text(e), ctx.reads(e)))
        except Exception as exc:  # an odd plan must not stop the lineage of the rest
            diagnostics.append(
                error(
                    "lineage-failed",
                    f"the lineage of this {node.kind} could not be followed: {type(exc).__name__}: {exc}",
                    node_id,
                )
            )
            local = RuleResult(None)
    schema = info.schema or []
    direct = local.direct
    mapping = emit(node.body) if node.kind else None
    columns: list[Origin] = []
    if direct is None:
        why = _unknown_why(model, node)
        columns = [Origin("unknown", "unknown", note=why) for _ in schema]
    else:
        picks = mapping if mapping is not None else range(len(direct))
        for m in picks:
            columns.append(
                direct[m]
                if 0 <= m < len(direct)
                else Origin("unknown", "unknown", note=f"the emit maps field {m}, which the relation does not produce")
            )
        if len(columns) != len(schema):
            diagnostics.append(
                error("lineage-width", f"lineage found {len(columns)} columns, the schema has {len(schema)}", node_id)
            )
            columns = (columns + [Origin("unknown", "unknown", note="no lineage for this column")] * len(schema))[
                : len(schema)
            ]
    result = NodeLineage(columns, local.uses, diagnostics)
    memo.nodes[node_id] = result
    return result


def _name(model: PlanModel, ref: Ref) -> str:
    info = model.infos.get(ref[0])
    schema = info.schema if info is not None else None
    return schema[ref[1]].name if schema is not None and 0 <= ref[1] < len(schema) else f"field_{ref[1]}"


def _check(model: PlanModel, node_id: str, index: int) -> None:
    if node_id not in model.graph.nodes:
        raise LineageError(
            f"node {node_id!r} is not in the plan (its nodes: "
            f"{', '.join(list(model.graph.nodes)[:12])}{' …' if len(model.graph.nodes) > 12 else ''})",
            node=node_id,
        )
    schema = model.infos[node_id].schema
    if schema is None:
        why = _unknown_why(model, model.graph.nodes[node_id])
        raise LineageError(f"node {node_id}'s columns are unknown, so they have no lineage: {why}", node=node_id)
    if not 0 <= index < len(schema):
        valid = f"0-{len(schema) - 1}" if schema else "none"
        raise LineageError(
            f"field {index} is out of range: node {node_id} has {len(schema)} fields ({valid})", node=node_id
        )


def _step(model: PlanModel, ref: Ref) -> Step | None:
    node_id, index = ref
    if node_id not in model.graph.nodes:
        return None
    columns = node_lineage(model, node_id).columns
    if not 0 <= index < len(columns):
        return None
    return Step(node_id, index, _name(model, ref), columns[index])


def trace(model: PlanModel, node_id: str, index: int) -> Lineage:
    """Where column ``index`` of node ``node_id`` comes from, down to table columns and literals.
    Raises :class:`LineageError` (with a message listing what exists) for a column not in the plan."""
    _check(model, node_id, index)
    steps: dict[Ref, Step] = {}
    diagnostics: list[Diagnostic] = []
    seen_nodes: set[str] = set()
    stack: list[Ref] = [(node_id, index)]
    while stack:
        ref = stack.pop()
        if ref in steps:
            continue
        step = _step(model, ref)
        if step is None:
            diagnostics.append(error("lineage-missing", f"column {ref[1]} of node {ref[0]} is not in the plan", ref[0]))
            continue
        steps[ref] = step
        if step.node not in seen_nodes:
            seen_nodes.add(step.node)
            diagnostics.extend(node_lineage(model, step.node).diagnostics)
        stack.extend(reversed(step.origin.inputs))
    return Lineage((node_id, index), steps, tuple(diagnostics))


def _index(model: PlanModel) -> tuple[dict[Ref, list[Ref]], dict[Ref, list[Use]]]:
    """Who reads each column: the columns computed from it, and the conditions and keys reading it."""
    memo = _memo(model)
    if memo.readers is None or memo.users is None:
        readers: dict[Ref, list[Ref]] = {}
        users: dict[Ref, list[Use]] = {}
        for node_id in model.graph.nodes:
            facts = node_lineage(model, node_id)
            for j, origin in enumerate(facts.columns):
                for r in origin.inputs:
                    readers.setdefault(r, []).append((node_id, j))
            for use in facts.uses:
                for r in use.inputs:
                    users.setdefault(r, []).append(use)
        memo.readers, memo.users = readers, users
    return memo.readers, memo.users


def used_by(model: PlanModel, node_id: str, index: int) -> Usage:
    """Where column ``index`` of node ``node_id`` is used going up: the columns computed from it
    (through any number of steps, nearest first) and the conditions and keys that read it or one of
    them. Raises :class:`LineageError` for a column not in the plan."""
    _check(model, node_id, index)
    readers, users = _index(model)
    start = (node_id, index)
    columns: list[Step] = []
    conditions: dict[tuple[str, str, str], Use] = {}
    seen = {start}
    frontier = [start]
    while frontier:
        nxt: list[Ref] = []
        for ref in frontier:
            for use in users.get(ref, ()):
                conditions.setdefault((use.node, use.role, use.text), use)
            for r in readers.get(ref, ()):
                if r not in seen:
                    seen.add(r)
                    step = _step(model, r)
                    if step is not None:
                        columns.append(step)
                        nxt.append(r)
        frontier = nxt
    return Usage(start, tuple(columns), tuple(conditions.values()))


def carried_only(model: PlanModel, node_id: str, index: int) -> list[str] | None:
    """The nodes whose output carries column ``index`` of node ``node_id`` unchanged (the node first), when
    that is all that becomes of it: no condition or key reads it, no column is computed from it, and every
    node above follows its columns. None when something reads it, or may (an unknown column above)."""
    _check(model, node_id, index)
    for above in model.graph.ancestors(node_id):
        if any(origin.kind == "unknown" for origin in node_lineage(model, above).columns):
            return None
    usage = used_by(model, node_id, index)
    if usage.conditions or any(step.origin.kind != "passes" for step in usage.columns):
        return None
    return list(dict.fromkeys([node_id, *(step.node for step in usage.columns)]))


def column_sources(model: PlanModel, node_id: str) -> list[Summary]:
    """Each output column of node ``node_id`` with its source table columns and literals (bottom-up
    over what the node reads, once per model)."""
    done = _memo(model).summaries
    for cur in model.graph.post_order([node_id], done=done):
        done[cur] = [_summary(origin, done) for origin in node_lineage(model, cur).columns]
    return done.get(node_id, [])


def _summary(origin: Origin, done: dict[str, list[Summary]]) -> Summary:
    """The sources of a column that comes from ``origin``, those of the columns it reads in ``done``."""
    if len(origin.inputs) == 1 and not origin.sources and not origin.literals and origin.kind != "unknown":
        n, i = origin.inputs[0]
        below = done.get(n)
        if below is not None and 0 <= i < len(below):
            return below[i]  # read from one column only: that column's summary, shared
    sources: dict[Source, None] = dict.fromkeys(origin.sources)
    literals: dict[str, None] = dict.fromkeys(origin.literals)
    unknown = origin.kind == "unknown"
    for n, i in origin.inputs:
        below = done.get(n)
        if below is None or not 0 <= i < len(below):
            unknown = True
            continue
        s = below[i]
        sources.update(dict.fromkeys(s.sources))
        literals.update(dict.fromkeys(s.literals))
        unknown = unknown or s.unknown
    return Summary(tuple(sources), tuple(literals), unknown)


def lineage_json(model: PlanModel, node_id: str) -> list[dict]:
    """``column_sources`` as JSON: one ``{"sources": [{"table", "column"}...], "literals": [...]}`` per
    column. Columns with one summary share one dict (made once per model): the caller reads it only."""
    made = _memo(model).json
    out = []
    for summary in column_sources(model, node_id):
        doc = made.get(id(summary))  # by identity: the memo keeps every summary alive with the model
        if doc is None:
            doc = made[id(summary)] = summary.to_json()
        out.append(doc)
    return out
