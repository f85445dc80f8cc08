"""The schema pass: every node's schema, inputs before consumers, by its kind's rule in
:data:`~viz.schema.rules.DERIVE`, then its emit, its hint's names and the plan's root names."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import Diagnostic, error, info, warning
from ..expressions import ExpressionTyper
from ..extensions import Extensions
from ..fields import Field, named_struct_fields
from ..graph import Node, PlanGraph, rel_fields
from ..kinds import JOIN_KINDS, emit, enhancement_of, output_names
from .context import SPEC, Context, Conventions, NodeInfo, concat_fields
from .rules import DERIVE


def _apply_emit(ctx: Context, direct: list[Field] | None) -> list[Field] | None:
    mapping = emit(ctx.node.body)
    if mapping is None:
        return direct
    if direct is None:
        return None
    out: list[Field] = []
    for m in mapping:
        if 0 <= m < len(direct):
            out.append(direct[m])
        else:
            valid = f"0-{len(direct) - 1}" if direct else "none"
            ctx.diag(
                error(
                    "emit-out-of-range",
                    f"emit maps output field {m}, but the relation produces {len(direct)} fields ({valid})",
                    ctx.node.id,
                )
            )
            out.append(Field(f"field_{m}", None))
    return out


def derive_schemas(
    graph: PlanGraph, ext: Extensions, conventions: Conventions = SPEC, *, spec_types: bool = False
) -> dict[str, NodeInfo]:
    """Derive a :class:`NodeInfo` for every node of ``graph``, inputs before consumers. ``spec_types``:
    calls take the type the extension YAMLs derive, not a declared output type that differs from it."""
    infos: dict[str, NodeInfo] = {}
    scopes: dict[str, tuple[Sequence[Sequence[Field] | None], dict[int, Sequence[Field] | None]]] = {}
    for node_id in graph.post_order():
        node = graph.nodes[node_id]
        outer, anchors = _scope(graph, node_id, infos, scopes)
        infos[node_id] = _derive_node(node, infos, ext, outer, anchors, conventions, spec_types)
    _label_roots(graph, infos)
    return infos


def _scope(graph: PlanGraph, node_id: str, infos, scopes):
    """The outer records and rel anchors node ``node_id``'s expressions may read, handed down from
    the node that holds it: a subquery reads its enclosing node's incoming record (and everything
    that node may read), a lateral join's right input the left row. A plan's top relation, and a
    shared subtree reached through a reference, start with none. Derived once per node, upwards
    through ``parent`` (iterative), when the holder's inputs are derived: the post-order lists a
    node's inputs before its subqueries."""
    chain: list[str] = []
    cur: str | None = node_id
    while cur is not None and cur not in scopes:
        chain.append(cur)
        cur = graph.nodes[cur].parent
    for child in reversed(chain):
        node = graph.nodes[child]
        holder = graph.nodes.get(node.parent) if node.parent is not None else None
        if holder is None:
            scopes[child] = ((), {})
            continue
        outer, anchors = scopes[holder.id]
        if child in holder.subqueries:
            scopes[child] = ((_incoming_before(holder, infos), *outer), anchors)
        else:
            scopes[child] = (outer, _anchors_for_input(holder, holder.inputs.index(child), infos, anchors))
    return scopes[node_id]


def _anchors_for_input(node: Node, pos: int, infos, anchors):
    """A lateral join's right input may read the left row through the join's rel anchor."""
    if node.kind == "lateral_join" and pos == 1:
        common = node.body.common
        if common.HasField("rel_anchor") and node.inputs:
            left = infos.get(node.inputs[0])
            return {**anchors, common.rel_anchor: left.schema if left else None}
    return anchors


def _incoming_before(node: Node, infos: dict[str, NodeInfo]) -> list[Field] | None:
    """The record a node's expressions read, computable once its inputs are derived."""
    ins = [infos[i].schema if i in infos else None for i in node.inputs]
    if node.kind in JOIN_KINDS:
        return concat_fields(*ins[:2]) if len(ins) >= 2 else None
    if node.kind == "read":
        return named_struct_fields(node.body.base_schema) if node.body.HasField("base_schema") else None
    if node.kind == "update":
        return named_struct_fields(node.body.table_schema)
    return ins[0] if ins else None


#: Inputs a relation may go without (a DDL's view definition is there only for a view).
_OPTIONAL_INPUTS = frozenset({"view_definition"})


def _derive_node(
    node: Node, infos, ext, outer, anchors, conventions: Conventions = SPEC, spec_types: bool = False
) -> NodeInfo:
    info_ = NodeInfo(schema=None, direct=None, incoming=None)

    def subquery_schema(rel):
        sub_id = node.subquery_rels.get(id(rel))
        if sub_id is None or sub_id not in infos:
            return ("?", None)
        return (sub_id, infos[sub_id].schema)

    typer = ExpressionTyper(
        ext, node.id, info_.diagnostics, subquery_schema, conventions.dialect, prefer_derived=spec_types
    )
    inputs = [infos[i].schema if i in infos else None for i in node.inputs]
    for f in rel_fields(node.body.DESCRIPTOR) if node.body is not None else ():
        if not f.is_repeated and f.name not in _OPTIONAL_INPUTS and not node.body.HasField(f.name):
            info_.diagnostics.append(
                error(
                    "missing-input",
                    f"the relation has no {f.name} input ({node.body.DESCRIPTOR.name}.{f.name} is not set): its output "
                    "cannot be known and it cannot run",
                    node.id,
                )
            )
    ctx = Context(node, inputs, ext, outer, typer, info_, anchors, conventions)
    derive = DERIVE.get(node.kind)
    if derive is None:
        if node.kind:
            info_.diagnostics.append(
                warning(
                    "unsupported-relation",
                    f"relation kind {node.kind} is not understood; its schema is unknown",
                    node.id,
                )
            )
        return info_
    try:
        direct = derive(ctx)
    except RecursionError:
        info_.diagnostics.append(error("too-deep", "an expression nests too deeply to analyse", node.id))
        direct = None
    info_.direct = list(direct) if direct is not None else None
    info_.schema = _apply_emit(ctx, info_.direct)
    names = output_names(node.body)
    if names is not None and info_.schema is not None:
        # RelCommon.Hint.output_names: "Equivalent to the names field in RelRoot but applies to the
        # output of the relation this RelCommon is attached to" (after the emit)
        info_.schema = _relabel(info_.schema, names, info_.diagnostics, node.id, "output-names-mismatch", "the hint")
    enhancement = enhancement_of(node.body)
    if enhancement is not None:
        info_.diagnostics.append(
            warning(
                "enhancement",
                f"an advanced extension enhancement ({enhancement}) changes what this relation means, which this tool "
                "does not know: its output may differ from the one shown",
                node.id,
            )
        )
    if info_.incoming is None and node.kind not in ("read", "update"):
        info_.incoming = inputs[0] if len(inputs) == 1 else None
    if not info_.referenced_fields:
        info_.referenced_fields = typer.referenced_fields
    info_.functions = typer.used_functions
    info_.outer_steps = typer.outer_steps
    info_.typed = typer.typed
    if info_.schema is None and not any(
        d.severity.value != "info" or d.code == "unknown-schema" for d in info_.diagnostics
    ):
        missing = [i for i, s in zip(node.inputs, inputs) if s is None]
        if missing:
            info_.diagnostics.append(
                info(
                    "unknown-input-schema",
                    f"the schema is unknown because input {', '.join(missing)} is unknown",
                    node.id,
                )
            )
    return info_


def root_name_mismatches(graph: PlanGraph, infos: dict[str, NodeInfo]) -> list[str]:
    """Root node ids whose derived width (with nested names) differs from their RelRoot names."""
    out = []
    for root_id, names in graph.root_names.items():
        info_ = infos.get(root_id)
        if info_ is None or info_.schema is None or not names:
            continue
        if sum(1 + len(f.nested) for f in info_.schema) != len(names):
            out.append(root_id)
    return out


def unused_expressions(graph: PlanGraph, infos: dict[str, NodeInfo]) -> list[str]:
    """Projects whose emit leaves out an expression they compute: no producer writes one, so a reading
    of the plan that makes one (a column too many below it) is the wrong reading."""
    out = []
    for node_id, node in graph.nodes.items():
        mapping = emit(node.body) if node.kind == "project" else None
        below = infos.get(node.inputs[0]) if mapping is not None and node.inputs else None
        if below is None or below.schema is None:
            continue
        base = len(below.schema)
        if any(base + i not in mapping for i in range(len(node.body.expressions))):
            out.append(node_id)
    return out


def _label_roots(graph: PlanGraph, infos: dict[str, NodeInfo]) -> None:
    """Relabel each RelRoot's node with the root names; report a count mismatch."""
    for root_id, names in graph.root_names.items():
        info_ = infos.get(root_id)
        if info_ is None or info_.schema is None or not names:
            continue
        info_.schema = _relabel(info_.schema, names, info_.diagnostics, root_id, "root-names-mismatch", "the root")


def _relabel(
    fields: list[Field], names: Sequence[str], diagnostics: list[Diagnostic], node_id: str, code: str, whose: str
) -> list[Field]:
    """``fields`` named by ``names`` (depth-first, nested struct fields included, as RelRoot's); a count
    that does not fit is reported, and the names are given as far as they go."""
    needed = sum(1 + len(f.nested) for f in fields)
    if needed != len(names):
        diagnostics.append(
            warning(
                code,
                f"{whose} gives {len(names)} names, but its output needs {needed} "
                f"({len(fields)} columns, counting nested struct fields)",
                node_id,
            )
        )
    pos = 0
    out: list[Field] = []
    for f in fields:
        if pos >= len(names):
            out.append(f)
            continue
        n = len(f.nested)
        nested = tuple(names[pos + 1 : pos + 1 + n])
        if len(nested) < n:
            nested = f.nested
        out.append(Field(names[pos], f.type, nested))
        pos += 1 + n
    return out
