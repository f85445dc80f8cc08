"""The properties pass: every node's properties, inputs before consumers, by its kind's rule in
:data:`~viz.properties.rules.RULES`, then its emit; and its findings (a sort lost before the root, a
root whose order is unknown although the plan sorts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import NamedTuple

from ..errors import Diagnostic, warning
from ..expressions import ExpressionTyper
from ..extensions import Extensions
from ..fields import Field
from ..graph import Node, PlanGraph
from ..kinds import emit, enhancement_of
from ..schema import Conventions, NodeInfo
from .facts import Distribution, Effect, FieldMap, NodeProperties, Ordering, order_cut
from .rules import RULES, UNKNOWN, Context, Derived
from .spec import Spec


def _emit_map(node: Node, info: NodeInfo) -> FieldMap | None:
    mapping = emit(node.body) if node.kind else None
    if mapping is None:
        return None
    targets: dict[int, list[int]] = {}
    for out, m in enumerate(mapping):
        targets.setdefault(m, []).append(out)
    width = len(info.direct) if info.direct is not None else None
    return FieldMap.of(targets, width is not None and mapping == list(range(width)))


def _apply_emit(derived: Derived, m: FieldMap | None) -> Derived:
    if m is None:
        return derived
    order = m.order(derived.order)
    dist = m.distribution(derived.distribution)
    order_effect, dist_effect = derived.order_effect, derived.distribution_effect
    if order != derived.order:
        order_effect = _emitted(order_effect, order_cut(derived.order, order, "the emit drops"))
    if dist != derived.distribution:
        lost = dist is None
        note = ""
        if lost and derived.distribution is not None and derived.distribution.kind == "bucketed":
            note = "the emit moves the fields its bucket expression reads: the distribution is unknown"
        elif lost:
            note = "the emit drops a distribution field: the distribution is unknown"
        dist_effect = _emitted(dist_effect, note, "eliminated" if lost else "remapped")
    return Derived(order, dist, order_effect, dist_effect)


def _emitted(effect: Effect, note: str, kind: str = "remapped") -> Effect:
    rule = effect.rule if "emit" in effect.rule else f"{effect.rule} ({Spec.EMIT})"
    notes = "; ".join(n for n in (effect.note, note) if n)
    if effect.kind == "kept":
        return Effect(kind, rule, notes)
    return Effect(effect.kind, rule, notes)


def _named(
    order: Ordering, dist: Distribution | None, schema: list[Field] | None
) -> tuple[Ordering, Distribution | None]:
    def name(indices: tuple[int, ...]) -> str:
        i = indices[0]
        return schema[i].name if schema is not None and 0 <= i < len(schema) else f"${i}"

    def renamed(item):  # a key or field with its name at this node; the same object when unchanged
        if not item.indices:
            return item
        new = name(item.indices)
        return item if new == item.name else replace(item, name=new)

    if order is not None:
        order = tuple(renamed(k) for k in order)
    if dist is not None and dist.fields:
        fields = tuple(renamed(f) for f in dist.fields)
        if fields != dist.fields:
            dist = replace(dist, fields=fields)
    return order, dist


class _Plan(NamedTuple):
    """What the properties pass reads: the graph, every node's schema facts, the extensions."""

    graph: PlanGraph
    infos: Mapping[str, NodeInfo]
    extensions: Extensions


def _derive_node(
    node: Node, model: _Plan, done: dict[str, NodeProperties], conventions: Conventions, findings: list[Diagnostic]
) -> NodeProperties:
    info = model.infos[node.id]
    rule = RULES.get(node.kind)
    if rule is None:
        return UNKNOWN
    typer = ExpressionTyper(model.extensions, node.id, [], lambda rel: ("?", None))
    ctx = Context(
        node,
        [done.get(i, UNKNOWN) for i in node.inputs],
        [model.graph.nodes[i] for i in node.inputs if i in model.graph.nodes],
        [model.infos[i].schema if i in model.infos else None for i in node.inputs],
        info,
        typer,
        conventions,
    )
    direct = rule(ctx)
    if enhancement_of(node.body) is not None:
        note = "an advanced extension enhancement changes what this relation means, which this tool does not know"
        direct = Derived(
            None, None, Effect("unknown", Spec.ENHANCEMENT, note), Effect("unknown", Spec.ENHANCEMENT, note)
        )
    if direct.order_effect.kind == "eliminated" and ctx.inputs and all(p.orderedness == () for p in ctx.inputs):
        direct.order_effect = replace(direct.order_effect, kind="kept")  # no input had an order to lose
    # keys named as the node's fields before its emit, so a key the emit drops still says what it was
    direct.order, direct.distribution = _named(direct.order, direct.distribution, info.direct)
    findings.extend(ctx.findings)
    _check_lost_sorts(node, ctx.inputs, direct, model, findings)
    derived = _apply_emit(direct, _emit_map(node, info))
    order, dist = _named(derived.order, derived.distribution, info.schema)
    return NodeProperties(order, dist, derived.order_effect, derived.distribution_effect)


def _origins(order: Ordering) -> list[str]:
    out: list[str] = []
    for k in order or ():
        if k.origin not in out:
            out.append(k.origin)
    return out


def _check_lost_sorts(
    node: Node, inputs: list[NodeProperties], direct: Derived, model: _Plan, findings: list[Diagnostic]
) -> None:
    """A Sort's order that this node's rule eliminates (or replaces by a new sort) on its way to a root.

    Checked before the emit, and not for a rule that only remaps fields: an order that is merely
    hidden (its sort key is not output) is not reported, since the rows are still in that order. A
    merge join uses its inputs' order (it has its own finding when they are not ordered), and a
    relation without output (Write, DDL) has no order to keep.
    """
    if direct.order is None or direct.order_effect.kind in ("remapped", "extended", "unknown", "none"):
        return
    if node.kind == "merge_join":
        return
    kept = set(_origins(direct.order))
    for p in inputs:
        for origin in _origins(p.orderedness):
            origin_node = model.graph.nodes.get(origin)
            if origin in kept or origin_node is None or origin_node.kind not in ("sort", "top_n"):
                continue
            how = "replaced by a new sort" if direct.order_effect.kind == "established" else "eliminated"
            findings.append(
                warning(
                    "sort-eliminated",
                    f"the order this {origin_node.kind.replace('_', '-')} sets is {how} at node {node.id} "
                    f"({node.kind}) before it reaches the root: {direct.order_effect.rule}",
                    origin,
                )
            )


def _check_roots(model: _Plan, props: dict[str, NodeProperties], findings: list[Diagnostic]) -> None:
    for root in model.graph.roots:
        p = props.get(root)
        if p is None or p.orderedness is not None:
            continue
        sorts = [n for n in model.graph.subtree(root) if model.graph.nodes[n].kind in ("sort", "top_n")]
        if sorts:
            findings.append(
                warning(
                    "root-order-unknown",
                    f"the plan sorts (at node {', '.join(sorts[:3])}{' …' if len(sorts) > 3 else ''}), but the "
                    "orderedness of this root is unknown, so it cannot be shown the result is ordered",
                    root,
                )
            )


def derive_properties(
    graph: PlanGraph, infos: Mapping[str, NodeInfo], extensions: Extensions, conventions: Conventions
) -> tuple[dict[str, NodeProperties], list[Diagnostic]]:
    """Properties of every node of ``graph`` (whose schemas are ``infos``), inputs before consumers,
    and the findings: diagnostics, each tagged with its node, for the model to attach.
    """
    model = _Plan(graph, infos, extensions)
    done: dict[str, NodeProperties] = {}
    findings: list[Diagnostic] = []
    for node_id in graph.post_order(subqueries=False):
        done[node_id] = _derive_node(graph.nodes[node_id], model, done, conventions, findings)
    _check_roots(model, done, findings)
    return done, findings
