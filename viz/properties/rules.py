"""One properties rule per relation kind (:data:`RULES`): each takes the node's :class:`Context`
(its inputs' properties already derived) and returns its properties before its emit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from substrait import algebra_pb2

from ..errors import Diagnostic, warning
from ..expressions import ExpressionTyper, Scope, contains_rex, direct_field, reference_field, sort_direction
from ..fields import Field
from ..graph import Node
from ..kinds import project_outputs_input
from ..schema import Conventions, NodeInfo, aggregate_layout, join_layout, join_padding, join_type_name
from .facts import Distribution, Effect, FieldMap, NodeProperties, Ordering, PartitionField, SortKey, order_cut
from .spec import Spec

Expression = algebra_pb2.Expression


def has_window_function(e: Expression) -> bool:
    """Whether a window function appears anywhere in ``e`` (not looking inside subqueries)."""
    return contains_rex(e, _WINDOW)


_WINDOW = frozenset({"window_function"})


# ---------------------------------------------------------------------------------------------
# The context of one node, and what a rule returns
# ---------------------------------------------------------------------------------------------


@dataclass
class Derived:
    """A rule's result: the node's properties before its emit."""

    order: Ordering
    distribution: Distribution | None
    order_effect: Effect
    distribution_effect: Effect


@dataclass
class Context:
    node: Node
    inputs: list[NodeProperties]
    input_nodes: list[Node]
    input_schemas: list[list[Field] | None]
    info: NodeInfo
    typer: ExpressionTyper
    conventions: Conventions
    findings: list[Diagnostic] = field(default_factory=list)

    def input(self, k: int = 0) -> NodeProperties:
        return self.inputs[k] if k < len(self.inputs) else UNKNOWN

    def width(self, k: int = 0) -> int | None:
        s = self.input_schemas[k] if k < len(self.input_schemas) else None
        return None if s is None else len(s)

    def text(self, e: Expression) -> str:
        known = self.info.typed_expression(e)  # as the schema pass typed it
        return known.text if known is not None else self.typer.expr(e, Scope(self.info.incoming)).text

    def sort_keys(self, sorts: Sequence[algebra_pb2.SortField]) -> tuple[SortKey, ...]:
        keys = []
        for s in sorts:
            i = direct_field(s.expr)
            if s.WhichOneof("sort_kind") == "comparison_function_reference":
                direction = f"USING {self.typer.function_name(s.comparison_function_reference)}"
            else:
                direction = sort_direction(s.direction)
            keys.append(
                SortKey(
                    (i,) if i is not None else (), "" if i is not None else self.text(s.expr), direction, self.node.id
                )
            )
        return tuple(keys)

    def finding(self, code: str, message: str) -> None:
        self.findings.append(warning(code, message, self.node.id))


UNKNOWN = NodeProperties(None, None, Effect("unknown", Spec.UNSUPPORTED), Effect("unknown", Spec.UNSUPPORTED))


def _kept(ctx: Context, order_rule: str, dist_rule: str, k: int = 0) -> Derived:
    p = ctx.input(k)
    return Derived(p.orderedness, p.distribution, Effect("kept", order_rule), Effect("kept", dist_rule))


def _through(ctx: Context, m: FieldMap, order_rule: str, dist_rule: str, window: bool = False) -> Derived:
    """Order and distribution of input 0 carried through a field map (Project, Expand)."""
    p = ctx.input(0)
    order = m.order(p.orderedness)
    dist = m.distribution(p.distribution)
    if window:
        order_effect = Effect("eliminated", Spec.PROJECT_WINDOW)
        order = ()
    else:
        note = order_cut(p.orderedness, order, "it does not output")
        order_effect = Effect(_map_effect(p.orderedness, order), order_rule, note)
    dist_effect = Effect(_dist_map_effect(p.distribution, dist), dist_rule)
    return Derived(order, dist, order_effect, dist_effect)


def _map_effect(before: Ordering, after: Ordering) -> str:
    if before is None or after is None or before == after:
        return "kept"
    if len(after) == len(before) and any(len(a.indices) > len(b.indices) for a, b in zip(after, before)):
        return "extended"
    return "remapped"


def _dist_map_effect(before: Distribution | None, after: Distribution | None) -> str:
    if before is None or before == after:
        return "kept"
    return "eliminated" if after is None else "remapped"


# ---------------------------------------------------------------------------------------------
# One function per relation kind
# ---------------------------------------------------------------------------------------------


def read(ctx: Context) -> Derived:
    # The spec lets a read declare the orderedness and distribution it produces ("Output Properties"),
    # but the proto (substrait-protobuf 0.106) has no field for it: ReadRel has no output_properties
    # and RelCommon.Hint only carries stats, constraints, names and saved computations. So a read is
    # unordered ("defaults to no properties") and its distribution is unknown.
    note = "the proto has no field to declare a read's output properties"
    return Derived((), None, Effect("none", Spec.READ, note), Effect("none", Spec.READ, note))


def filter_(ctx: Context) -> Derived:
    return _kept(ctx, Spec.FILTER, Spec.FILTER)


def sort(ctx: Context) -> Derived:
    p = ctx.input(0)
    return Derived(
        ctx.sort_keys(ctx.node.body.sorts),
        p.distribution,
        Effect("established", Spec.SORT_ORDER),
        Effect("kept", Spec.SORT_DIST),
    )


def top_n(ctx: Context) -> Derived:
    p = ctx.input(0)
    body = ctx.node.body
    if not body.sorts:
        _check_fetch_order(ctx, "Top-N without sort fields")
        return Derived(
            p.orderedness,
            p.distribution,
            Effect("kept", Spec.TOP_N_ORDER, "no sort fields"),
            Effect("kept", Spec.TOP_N_DIST),
        )
    return Derived(
        ctx.sort_keys(body.sorts),
        p.distribution,
        Effect("established", Spec.TOP_N_ORDER),
        Effect("kept", Spec.TOP_N_DIST),
    )


def fetch(ctx: Context) -> Derived:
    body = ctx.node.body
    if body.HasField("count_expr") or body.HasField("offset_expr"):
        _check_fetch_order(ctx, "Fetch")
    derived = _kept(ctx, Spec.FETCH, Spec.FETCH)
    if ctx.input_nodes and ctx.input_nodes[0].kind == "sort":
        note = "a Fetch directly over a Sort is a Top-N: its rows are the first ones of the sort's order"
        derived.order_effect = Effect("kept", Spec.FETCH, note)
    return derived


def _check_fetch_order(ctx: Context, what: str) -> None:
    p = ctx.input(0)
    source = ctx.input_nodes[0] if ctx.input_nodes else None
    if source is None or p.orderedness != () or _single_row(source):
        return
    ctx.finding(
        "fetch-without-order",
        f"this {what} takes rows from input {source.id} ({source.kind}), which has no orderedness, so which "
        "rows it returns is not deterministic; sort the input first",
    )


def _single_row(node: Node | None) -> bool:
    """An aggregate without grouping yields exactly one row: taking rows of it is deterministic."""
    return (
        node is not None and node.kind == "aggregate" and not node.body.groupings and not node.body.grouping_expressions
    )


def project(ctx: Context) -> Derived:
    body = ctx.node.body
    # The same reading as the schema pass: the spec outputs the input then the expressions; the
    # expressions-only convention (when the model picked it) applies unless the project has an emit.
    keeps = project_outputs_input(body, ctx.conventions.project_keeps_input)
    width = ctx.width(0)
    base = width if keeps else 0
    targets: dict[int, list[int]] = {}
    if keeps and width is not None:
        targets = {i: [i] for i in range(width)}
    window = False
    for j, e in enumerate(body.expressions):
        window = window or has_window_function(e)
        i = direct_field(e)
        if i is not None and base is not None:
            targets.setdefault(i, []).append(base + j)
    if keeps and width is None:
        m = FieldMap(lambda i: (i,), True)  # the input width is unknown: new columns cannot be placed
    else:
        m = FieldMap.of(targets, keeps)
    return _through(ctx, m, Spec.PROJECT_ORDER, Spec.PROJECT_DIST, window)


def window(ctx: Context) -> Derived:
    return _kept(ctx, Spec.WINDOW, Spec.WINDOW)


def expand(ctx: Context) -> Derived:
    targets: dict[int, list[int]] = {}
    for j, f in enumerate(ctx.node.body.fields):
        if f.WhichOneof("field_type") == "consistent_field":
            i = direct_field(f.consistent_field)
            if i is not None:
                targets.setdefault(i, []).append(j)
    return _through(ctx, FieldMap.of(targets, cut=True), Spec.EXPAND_ORDER, Spec.EXPAND_DIST)


def aggregate(ctx: Context) -> Derived:
    body: algebra_pb2.AggregateRel = ctx.node.body
    p = ctx.input(0)
    order_effect = Effect("eliminated", Spec.AGGREGATE_ORDER)
    dist, note = _aggregate_distribution(body, p.distribution, ctx.conventions)
    if p.distribution is None:
        effect = "kept"
    else:
        effect = "eliminated" if dist is None else ("kept" if dist == p.distribution else "remapped")
    return Derived((), dist, order_effect, Effect(effect, Spec.AGGREGATE_DIST, note))


def _aggregate_distribution(
    body: algebra_pb2.AggregateRel, dist: Distribution | None, conventions: Conventions
) -> tuple[Distribution | None, str]:
    if dist is None:
        return None, ""
    if dist.kind in ("single", "broadcast"):
        return dist, ""  # no distribution fields: every grouping set contains them all
    if dist.kind == "round_robin":
        return None, "rows dealt round robin are not dealt by value, so the groups are not dealt that way"
    if dist.kind != "hashed":
        return None, "a distribution by buckets of an expression has no fields a grouping set could contain"
    # one column per distinct grouping expression (equal messages share it), as the schema pass reads them
    layout = aggregate_layout(body, conventions)
    fields = [direct_field(body.grouping_expressions[k]) for k in layout.keys]
    targets: dict[int, tuple[int, ...]] = {}
    for f in dist.fields:
        for i in f.indices:
            places = tuple(p for p, k in enumerate(fields) if k == i and all(p in s for s in layout.sets))
            if places:
                targets[i] = places
    moved = FieldMap.of(targets).distribution(dist)
    if moved is None:
        return None, "a distribution field is not a grouping key in every grouping set"
    return moved, ""


def _join_distribution(ctx: Context, type_name: str) -> Distribution | None:
    """ "Distribution is maintained": each output row is where the join met its rows. An input whose
    rows are each in one partition (not a broadcast) and which the join never pads with nulls places
    every output row by its own row, so the output keeps its distribution (the left input's first, its
    fields coming first). Two broadcast inputs give a broadcast. Otherwise it is unknown: a broadcast
    input's rows are in every partition, and an output row's place is its other row's.
    """
    left, right = ctx.input(0).distribution, ctx.input(1).distribution
    layout = join_layout(type_name)
    padded = join_padding(type_name)
    width = ctx.width(0)
    sides = []
    if layout in ("both", "left"):
        sides.append((left, padded[0], FieldMap.shift(0)))
    if layout in ("both", "right"):
        shift = FieldMap.shift(0) if layout == "right" else (FieldMap.shift(width) if width is not None else None)
        sides.append((right, padded[1], shift))
    for dist, pad, shift in sides:
        if dist is not None and dist.kind != "broadcast" and not pad and shift is not None:
            return shift.distribution(dist)
    if left is not None and right is not None and left.kind == right.kind == "broadcast":
        return left
    return None


def _joined(ctx: Context, order_rule: str, dist_rule: str, type_name: str = "JOIN_TYPE_INNER") -> Derived:
    dist = _join_distribution(ctx, type_name)
    had = [p.distribution for p in ctx.inputs[:2] if p.distribution is not None]
    if dist is not None or not had:
        dist_effect = Effect("kept", dist_rule)
    else:
        dist_effect = Effect(
            "eliminated",
            dist_rule,
            "no input places every output row by its own: a broadcast input's rows are in every partition, "
            "and a side the join pads with nulls leaves its unmatched rows where the other side's are",
        )
    return Derived((), dist, Effect("eliminated", order_rule), dist_effect)


def join(ctx: Context) -> Derived:
    return _joined(ctx, Spec.JOIN_ORDER, Spec.JOIN_DIST, join_type_name(ctx.node.body))


def lateral_join(ctx: Context) -> Derived:
    derived = join(ctx)
    note = "a lateral join has no row in the spec: it is read as a join"
    derived.order_effect = replace(derived.order_effect, note=note)
    derived.distribution_effect = replace(
        derived.distribution_effect, note="; ".join(n for n in (note, derived.distribution_effect.note) if n)
    )
    return derived


def cross(ctx: Context) -> Derived:
    return _joined(ctx, Spec.CROSS_ORDER, Spec.CROSS_DIST)


def nested_loop_join(ctx: Context) -> Derived:
    return _joined(ctx, Spec.NLJ_ORDER, Spec.NLJ_DIST, join_type_name(ctx.node.body))


def hash_join(ctx: Context) -> Derived:
    body = ctx.node.body
    type_name = join_type_name(body)
    derived = _joined(ctx, Spec.HASH_JOIN_ORDER, Spec.HASH_JOIN_DIST, type_name)
    if type_name != "JOIN_TYPE_INNER":
        return derived
    # The spec's rule has the right input built and the left probed; build_input = LEFT swaps the roles,
    # and then the probe (right) side's order is the one the output keeps.
    if body.build_input == algebra_pb2.HashJoinRel.BUILD_INPUT_LEFT:
        width = ctx.width(0)
        order = None if width is None else FieldMap.shift(width).order(ctx.input(1).orderedness)
        note = (
            "the spec's rule has the left input probed; build_input is LEFT here, so the right input is "
            "the one probed, and its order is kept (this tool's reading)"
        )
    else:
        order, note = ctx.input(0).orderedness, ""
    derived.order = order
    derived.order_effect = Effect("kept", Spec.HASH_JOIN_ORDER, note)
    return derived


def merge_join(ctx: Context) -> Derived:
    body = ctx.node.body
    keys = list(body.keys)
    for side, k in (("left", 0), ("right", 1)):
        fields = [reference_field(getattr(key, side)) for key in keys]
        order = ctx.input(k).orderedness
        if not _ordered_on(order, fields):
            have = "unknown" if order is None else (", ".join(o.label() for o in order) or "none")
            want = ", ".join("?" if f is None else f"${f}" for f in fields)
            ctx.finding(
                "merge-join-unordered-input",
                f"a merge join needs both inputs sorted on the join keys, but its {side} input "
                f"{ctx.node.inputs[k] if k < len(ctx.node.inputs) else '?'} is not known to be ordered on "
                f"{want} (its orderedness: {have})",
            )
    return _joined(ctx, Spec.MERGE_JOIN_ORDER, Spec.MERGE_JOIN_DIST, join_type_name(body))


def _ordered_on(order: Ordering, fields: list[int | None]) -> bool:
    """Whether the first ``len(fields)`` keys of ``order`` are exactly ``fields``, in any order."""
    if order is None or None in fields or len(order) < len(fields):
        return False
    wanted = set(fields)  # type: ignore[arg-type]
    for key in order[: len(fields)]:
        hit = wanted.intersection(key.indices)
        if not hit:
            return False
        wanted -= hit
    return not wanted


def set_(ctx: Context) -> Derived:
    dists = [p.distribution for p in ctx.inputs]
    first = dists[0] if dists else None
    same = first is not None and all(d is not None and d.same_as(first) for d in dists[1:])
    if same or all(d is None for d in dists):
        dist_effect = Effect("kept", Spec.SET_DIST)
    else:
        dist_effect = Effect("eliminated", Spec.SET_DIST, "the inputs are not distributed the same way")
    return Derived((), first if same else None, Effect("eliminated", Spec.SET_ORDER), dist_effect)


def reference(ctx: Context) -> Derived:
    return _kept(ctx, Spec.REFERENCE, Spec.REFERENCE)


def exchange(ctx: Context) -> Derived:
    body: algebra_pb2.ExchangeRel = ctx.node.body
    kind = body.WhichOneof("exchange_kind")
    count = body.partition_count or None
    dist: Distribution | None
    if count == 1:
        dist = Distribution("single", ctx.node.id, partition_count=1)
    elif kind == "scatter_by_fields":
        parts = []
        for ref in body.scatter_by_fields.fields:
            i = reference_field(ref)
            text = "" if i is not None else ctx.typer.selection(ref, Scope(ctx.info.incoming)).text
            parts.append(PartitionField((i,) if i is not None else (), text))
        dist = Distribution("hashed", ctx.node.id, tuple(parts), partition_count=count)
    elif kind in ("single_target", "multi_target"):
        e = getattr(body, kind).expression
        dist = Distribution(
            "bucketed", ctx.node.id, expression=ctx.text(e), multi=kind == "multi_target", partition_count=count
        )
    elif kind == "broadcast":
        dist = Distribution("broadcast", ctx.node.id, partition_count=count)
    elif kind == "round_robin":
        dist = Distribution("round_robin", ctx.node.id, exact=body.round_robin.exact, partition_count=count)
    else:
        dist = None
    note = "" if kind else "the exchange kind is not set, so the new distribution is unknown"
    return Derived(
        ctx.input(0).orderedness,
        dist,
        Effect("kept", Spec.EXCHANGE_ORDER),
        Effect("overwritten", Spec.EXCHANGE_DIST, note),
    )


def write(ctx: Context) -> Derived:
    if ctx.node.body.output != algebra_pb2.WriteRel.OUTPUT_MODE_MODIFIED_RECORDS:
        return _no_output(Spec.WRITE)(ctx)
    note = "it outputs the records it modified, and the spec does not say which properties they keep"
    return Derived(None, None, Effect("unknown", Spec.WRITE, note), Effect("unknown", Spec.WRITE, note))


def _no_output(rule: str) -> Callable[[Context], Derived]:
    def derive(ctx: Context) -> Derived:
        return Derived((), None, Effect("none", rule), Effect("none", rule))

    return derive


def extension(ctx: Context) -> Derived:
    return Derived(None, None, Effect("unknown", Spec.EXTENSION), Effect("unknown", Spec.EXTENSION))


RULES: dict[str, Callable[[Context], Derived]] = {
    "read": read,
    "filter": filter_,
    "fetch": fetch,
    "aggregate": aggregate,
    "sort": sort,
    "join": join,
    "lateral_join": lateral_join,
    "project": project,
    "set": set_,
    "extension_single": extension,
    "extension_multi": extension,
    "extension_leaf": extension,
    "cross": cross,
    "reference": reference,
    "write": write,
    "ddl": _no_output(Spec.DDL),
    "update": _no_output(Spec.UPDATE),
    "hash_join": hash_join,
    "merge_join": merge_join,
    "nested_loop_join": nested_loop_join,
    "window": window,
    "exchange": exchange,
    "expand": expand,
    "top_n": top_n,
}
