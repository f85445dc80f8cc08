"""Orderedness and distribution of every node, following each relation's "Property Maintenance" row.

For every node the pass derives

* its **orderedness**: the sort keys its output rows are known to follow (``()`` when the output is
  known to be unordered, ``None`` when it cannot be known, e.g. below an extension relation);
* its **distribution**: how its rows are known to be partitioned (hashed on fields, bucketed by an
  expression, broadcast, round robin, a single partition), ``None`` when unknown;
* the **effect** the node has on each (established, kept, remapped, extended, eliminated,
  overwritten, none, unknown) with the sentence of the spec it follows;

and a few findings as diagnostics: a Sort whose order is eliminated before the root, a Fetch over
unordered input, a MergeJoin whose inputs are not known to be ordered on its keys, a root whose
orderedness is unknown although the plan sorts.

Field indices follow the schema pass (and its :class:`~viz.schema.Conventions`). Orderedness is a
prefix property: when a key's field is dropped (by an emit, an Expand, an expressions-only Project)
the known order ends before that key. A sort key that is an expression (not a field) is kept as its
text with no index, and survives only where every field keeps its index.

One dispatch table on the relation kind (:data:`RULES`); each rule returns the node's properties
*before* its emit, and the emit is applied in one place. Results are memoised per node id and
computed bottom-up with an explicit stack, so plans of any depth and shared subtrees cost one walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, NamedTuple, Sequence

from substrait import algebra_pb2

from .errors import Diagnostic, warning
from .extensions import Extensions
from .expressions import ExpressionTyper, Scope, contains_rex, sort_direction
from .fields import Field
from .graph import Node, PlanGraph
from .kinds import emit, project_outputs_input
from .schema import Conventions, NodeInfo, join_type_name

Expression = algebra_pb2.Expression


# ---------------------------------------------------------------------------------------------
# What is derived
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SortKey:
    """One key of an orderedness.

    ``indices`` are every output field that holds the key's value: a Project that copies an ordered
    field by direct reference *extends* the key with the copy's index (either column can then be
    relied on as the sort key, and the order survives an emit that keeps only the copy). ``()`` for
    a key that is an expression, shown by its ``text``.
    """

    indices: tuple[int, ...]
    text: str  # the expression's text for an expression key; "" for a field key
    direction: str  # "ASC NULLS FIRST", "DESC NULLS LAST", "CLUSTERED", "USING fn", ...
    origin: str  # the node that established the order (a Sort, a Top-N)
    name: str = ""  # the name of the first field at this node (set per node)

    @property
    def index(self) -> int | None:
        return self.indices[0] if self.indices else None

    def label(self) -> str:
        if not self.indices:
            return f"{self.text} {self.direction}".strip()
        same = "=".join(f"${i}" for i in self.indices)
        return f"{same}:{self.name} {self.direction}".strip()

    def to_json(self) -> dict:
        return {"index": self.index, "name": self.name if self.indices else self.text, "direction": self.direction}


#: The orderedness of a node: its keys in order; ``()`` known unordered; ``None`` unknown.
Ordering = tuple[SortKey, ...] | None


@dataclass(frozen=True)
class PartitionField:
    """A field rows are hashed on; ``indices`` like :attr:`SortKey.indices`, ``()`` for a nested
    reference shown by its ``text``."""

    indices: tuple[int, ...]
    text: str = ""
    name: str = ""

    def to_json(self) -> dict:
        return {"index": self.indices[0] if self.indices else None, "name": self.name if self.indices else self.text}


@dataclass(frozen=True)
class Distribution:
    """What is known about how rows are partitioned.

    ``kind``: ``hashed`` (on ``fields``, after a scatter Exchange), ``bucketed`` (by ``expression``
    giving one bucket, or a list of buckets when ``multi``), ``broadcast``, ``round_robin``, or
    ``single`` (an Exchange into one partition).
    """

    kind: str
    origin: str  # the node that set it
    fields: tuple[PartitionField, ...] = ()
    expression: str = ""
    multi: bool = False
    exact: bool = False
    partition_count: int | None = None

    def label(self) -> str:
        text = self.kind.replace("_", " ")
        if self.kind == "hashed":
            text += " on " + ", ".join(
                ("=".join(f"${i}" for i in f.indices) + f":{f.name}") if f.indices else f.text for f in self.fields
            )
        elif self.kind == "bucketed":
            text += f" by {'buckets ' if self.multi else ''}{self.expression}"
        elif self.kind == "round_robin" and self.exact:
            text += " (exact)"
        if self.partition_count:
            text += f" into {self.partition_count}"
        return text

    def same_as(self, other: "Distribution") -> bool:
        """The same partitioning, ignoring where it was set and field names."""
        return (
            self.kind == other.kind
            and [f.indices or f.text for f in self.fields] == [f.indices or f.text for f in other.fields]
            and (self.expression, self.multi, self.partition_count) == (other.expression, other.multi, other.partition_count)
        )

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "partition_count": self.partition_count}
        if self.kind == "hashed":
            out["fields"] = [f.to_json() for f in self.fields]
        if self.kind == "bucketed":
            out["expression"] = self.expression
            out["multi"] = self.multi
        if self.kind == "round_robin":
            out["exact"] = self.exact
        return out


#: The effects a node can have on a property.
EFFECTS = ("established", "kept", "remapped", "extended", "eliminated", "overwritten", "none", "unknown")


@dataclass(frozen=True)
class Effect:
    kind: str  # one of EFFECTS
    rule: str  # the spec's sentence this follows
    note: str = ""  # what happened at this node, when there is more to say


@dataclass(frozen=True)
class NodeProperties:
    orderedness: Ordering
    distribution: Distribution | None
    order_effect: Effect
    distribution_effect: Effect

    def to_json(self) -> dict:
        return {
            "orderedness": None if self.orderedness is None else [k.to_json() for k in self.orderedness],
            "distribution": None if self.distribution is None else self.distribution.to_json(),
            "effects": {"orderedness": self.order_effect.kind, "distribution": self.distribution_effect.kind},
        }

    def order_text(self) -> str:
        if self.orderedness is None:
            return "unknown"
        return ", ".join(k.label() for k in self.orderedness) if self.orderedness else "none"

    def distribution_text(self) -> str:
        return "unknown" if self.distribution is None else self.distribution.label()


# ---------------------------------------------------------------------------------------------
# The spec's sentences (logical_relations / physical_relations, "Property Maintenance")
# ---------------------------------------------------------------------------------------------

class Spec:
    READ = (
        "Read: Output Properties: Declaration of orderedness and/or distribution properties this read "
        "produces. Optional, defaults to no properties."
    )
    FILTER = "Filter: Orderedness, Distribution, remapped by emit"
    SORT_ORDER = "Sort: Will update orderedness property to the output of the sort operation."
    SORT_DIST = "Sort: Distribution property only remapped based on emit."
    TOP_N_ORDER = "Top-N: Will update orderedness property to the output of the sort operation."
    TOP_N_DIST = "Top-N: Distribution property only remapped based on emit."
    FETCH = "Fetch: Maintains distribution and orderedness."
    PROJECT_ORDER = (
        "Project: Orderedness: Maintained if no window operations. Extended to include projection fields "
        "if fields are direct references."
    )
    PROJECT_WINDOW = "Project: If window operations are present, no orderedness is maintained."
    PROJECT_DIST = "Project: Distribution maintained, mapped by emit."
    CROSS_ORDER = "Cross Product: Orderedness is empty post operation."
    CROSS_DIST = "Cross Product: Distribution is maintained."
    JOIN_ORDER = "Join: Orderedness is empty post operation. Physical relations may provide better property maintenance."
    JOIN_DIST = "Join: Distribution is maintained."
    SET_ORDER = "Set: Orderedness is not maintained."
    SET_DIST = "Set: Maintains distribution if all inputs have the same ordinal distribution."
    AGGREGATE_ORDER = "Aggregate: No orderedness guaranteed."
    AGGREGATE_DIST = "Aggregate: Maintains distribution if all distribution fields are contained in every grouping set."
    REFERENCE = "Reference: Maintains all properties of the input"
    WRITE = "Write: Output depends on OutputMode (none, or modified records)"
    DDL = "DDL: N/A (no output)"
    UPDATE = "Update: the spec gives no property row; it outputs no properties"
    HASH_JOIN_ORDER = "Hash Equijoin: Orderedness of the left set is maintained in INNER join cases, otherwise it is eliminated."
    HASH_JOIN_DIST = "Hash Equijoin: Distribution is maintained."
    MERGE_JOIN_ORDER = "Merge Equijoin: Orderedness is eliminated."
    MERGE_JOIN_DIST = "Merge Equijoin: Distribution is maintained."
    NLJ_ORDER = "NLJ: Orderedness is eliminated."
    NLJ_DIST = "NLJ: Distribution is maintained."
    EXCHANGE_ORDER = "Exchange: Orderedness is maintained."
    EXCHANGE_DIST = "Exchange: Distribution is overwritten based on configuration."
    WINDOW = "Consistent Partition Window: Maintains distribution and ordering."
    EXPAND_ORDER = "Expand: Ordering can only be maintained down to the level of consistent fields that are kept."
    EXPAND_DIST = "Expand: Distribution is maintained if all the distribution fields are consistent fields with direct references."
    EXTENSION = "Extension relations have no property row in the spec; their properties are unknown to this tool"
    UNSUPPORTED = "this relation kind is not understood; its properties are unknown"
    EMIT = "remapped by emit"


# ---------------------------------------------------------------------------------------------
# Field maps: where each input field ends up
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FieldMap:
    """Where each input field ends up: ``targets(i)`` are the output indices holding input field ``i``.

    ``identity``: every input field keeps its index, so expression keys (which read input fields by
    index) still mean the same thing.
    """

    targets: Callable[[int], tuple[int, ...]]
    identity: bool

    @staticmethod
    def of(targets: Mapping[int, Sequence[int]], identity: bool = False) -> "FieldMap":
        table = {i: tuple(t) for i, t in targets.items()}
        return FieldMap(lambda i: table.get(i, ()), identity)

    @staticmethod
    def shift(by: int) -> "FieldMap":
        """A right input's fields placed after ``by`` left fields."""
        return FieldMap(lambda i: (i + by,), by == 0)

    def _indices(self, indices: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted({t for i in indices for t in self.targets(i)}))

    def order(self, order: Ordering) -> Ordering:
        """The orderedness through this map: a prefix, up to the first key that is dropped."""
        if order is None:
            return None
        out: list[SortKey] = []
        for key in order:
            if key.indices:
                moved = self._indices(key.indices)
                if not moved:
                    break
                out.append(key if moved == key.indices else replace(key, indices=moved))
            elif self.identity:
                out.append(key)
            else:
                break
        return tuple(out)

    def distribution(self, dist: Distribution | None) -> Distribution | None:
        """The distribution through this map; unknown when a hash field is dropped."""
        if dist is None:
            return None
        if dist.kind == "hashed":
            moved: list[PartitionField] = []
            for f in dist.fields:
                if f.indices:
                    indices = self._indices(f.indices)
                    if not indices:
                        return None
                    moved.append(f if indices == f.indices else replace(f, indices=indices))
                elif self.identity:
                    moved.append(f)
                else:
                    return None
            return replace(dist, fields=tuple(moved))
        if dist.kind == "bucketed" and not self.identity:
            return None  # the bucket expression reads fields by their old indices
        return dist


def direct_field(e: Expression) -> int | None:
    """The index of a plain field reference ``$i`` (no nesting, no outer reference), else None."""
    if e.WhichOneof("rex_type") != "selection":
        return None
    sel = e.selection
    if sel.WhichOneof("root_type") not in (None, "root_reference"):
        return None
    if sel.WhichOneof("reference_type") != "direct_reference":
        return None
    seg = sel.direct_reference
    if seg.WhichOneof("reference_type") != "struct_field" or seg.struct_field.HasField("child"):
        return None
    return seg.struct_field.field


def _reference_field(ref: Expression.FieldReference) -> int | None:
    e = Expression()
    e.selection.CopyFrom(ref)
    return direct_field(e)


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
            keys.append(SortKey((i,) if i is not None else (), "" if i is not None else self.text(s.expr), direction, self.node.id))
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
        short = p.orderedness is not None and order is not None and len(order) < len(p.orderedness)
        note = "an ordered field is not output: the order ends before it" if short else ""
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
        ctx.sort_keys(ctx.node.body.sorts), p.distribution, Effect("established", Spec.SORT_ORDER), Effect("kept", Spec.SORT_DIST)
    )


def top_n(ctx: Context) -> Derived:
    p = ctx.input(0)
    body = ctx.node.body
    if not body.sorts:
        _check_fetch_order(ctx, "Top-N without sort fields")
        return Derived(p.orderedness, p.distribution, Effect("kept", Spec.TOP_N_ORDER, "no sort fields"), Effect("kept", Spec.TOP_N_DIST))
    return Derived(ctx.sort_keys(body.sorts), p.distribution, Effect("established", Spec.TOP_N_ORDER), Effect("kept", Spec.TOP_N_DIST))


def fetch(ctx: Context) -> Derived:
    body = ctx.node.body
    if body.HasField("count_expr") or body.HasField("offset_expr"):
        _check_fetch_order(ctx, "Fetch")
    derived = _kept(ctx, Spec.FETCH, Spec.FETCH)
    if ctx.input_nodes and ctx.input_nodes[0].kind == "sort":
        note = "a Fetch directly over a Sort is a Top-N: its rows are the first ones of the sort's order"
        derived.order_effect = Effect("established", Spec.TOP_N_ORDER, note)
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
    return node is not None and node.kind == "aggregate" and not node.body.groupings and not node.body.grouping_expressions


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
    return _through(ctx, FieldMap.of(targets), Spec.EXPAND_ORDER, Spec.EXPAND_DIST)


def aggregate(ctx: Context) -> Derived:
    body: algebra_pb2.AggregateRel = ctx.node.body
    p = ctx.input(0)
    order_effect = Effect("eliminated", Spec.AGGREGATE_ORDER)
    dist, note = _aggregate_distribution(body, p.distribution)
    if p.distribution is None:
        effect = "kept"
    else:
        effect = "eliminated" if dist is None else ("kept" if dist == p.distribution else "remapped")
    return Derived((), dist, order_effect, Effect(effect, Spec.AGGREGATE_DIST, note))


def _aggregate_distribution(body: algebra_pb2.AggregateRel, dist: Distribution | None) -> tuple[Distribution | None, str]:
    if dist is None:
        return None, ""
    if dist.kind in ("single", "broadcast"):
        return dist, ""  # no distribution fields: every grouping set contains them all
    if dist.kind != "hashed":
        return None, f"a {dist.kind.replace('_', ' ')} distribution has no fields a grouping set could contain"
    keys = [direct_field(e) for e in body.grouping_expressions]
    sets = [set(g.expression_references) for g in body.groupings] or [set()]
    order: list[int] = []  # grouping expressions in output order: first appearance across the sets
    for g in body.groupings:
        for r in g.expression_references:
            if r not in order and r < len(keys):
                order.append(r)
    targets: dict[int, tuple[int, ...]] = {}
    for f in dist.fields:
        for i in f.indices:
            refs = [r for r in order if keys[r] == i and all(r in s for s in sets)]
            if refs:
                targets[i] = tuple(order.index(r) for r in refs)
    moved = FieldMap.of(targets).distribution(dist)
    if moved is None:
        return None, "a distribution field is not a grouping key in every grouping set"
    return moved, ""


def _join_layout(type_name: str) -> str:
    """Which inputs' fields the output starts with: "both", "left" or "right" (schema.join_output)."""
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI", "JOIN_TYPE_LEFT_MARK"):
        return "left"
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI", "JOIN_TYPE_RIGHT_MARK"):
        return "right"
    return "both"


def _join_distribution(ctx: Context, layout: str) -> Distribution | None:
    """"Distribution is maintained": the rows stay where the inputs had them.

    The output keeps the distribution of the left input (its fields come first), or of the right
    input when only its fields are output, or when the left one is a broadcast (then each row is
    where its right row is).
    """
    left, right = ctx.input(0).distribution, ctx.input(1).distribution
    if layout == "left":
        return left
    if layout == "right":
        return right
    if left is not None and (left.kind != "broadcast" or right is None):
        return left
    width = ctx.width(0)
    if right is None or width is None:
        return None
    return FieldMap.shift(width).distribution(right)


def _joined(ctx: Context, order_rule: str, dist_rule: str, type_name: str = "JOIN_TYPE_INNER") -> Derived:
    dist = _join_distribution(ctx, _join_layout(type_name))
    return Derived((), dist, Effect("eliminated", order_rule), Effect("kept", dist_rule))


def join(ctx: Context) -> Derived:
    return _joined(ctx, Spec.JOIN_ORDER, Spec.JOIN_DIST, join_type_name(ctx.node.body))


def lateral_join(ctx: Context) -> Derived:
    # No row in the spec for LateralJoin: it is read like Join.
    return join(ctx)


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
    # The spec calls the left input the probe side; build_input = LEFT swaps the roles, and then the
    # probe (right) side's order is the one the output keeps.
    if body.build_input == algebra_pb2.HashJoinRel.BUILD_INPUT_LEFT:
        width = ctx.width(0)
        order = None if width is None else FieldMap.shift(width).order(ctx.input(1).orderedness)
        note = "build_input is LEFT, so the right input is the probe side whose order is kept"
    else:
        order, note = ctx.input(0).orderedness, ""
    derived.order = order
    derived.order_effect = Effect("kept", Spec.HASH_JOIN_ORDER, note)
    return derived


def merge_join(ctx: Context) -> Derived:
    body = ctx.node.body
    keys = list(body.keys)
    for side, k in (("left", 0), ("right", 1)):
        fields = [_reference_field(getattr(key, side)) for key in keys]
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
            i = _reference_field(ref)
            text = "" if i is not None else ctx.typer.selection(ref, Scope(ctx.info.incoming)).text
            parts.append(PartitionField((i,) if i is not None else (), text))
        dist = Distribution("hashed", ctx.node.id, tuple(parts), partition_count=count)
    elif kind in ("single_target", "multi_target"):
        e = getattr(body, kind).expression
        dist = Distribution("bucketed", ctx.node.id, expression=ctx.text(e), multi=kind == "multi_target", partition_count=count)
    elif kind == "broadcast":
        dist = Distribution("broadcast", ctx.node.id, partition_count=count)
    elif kind == "round_robin":
        dist = Distribution("round_robin", ctx.node.id, exact=body.round_robin.exact, partition_count=count)
    else:
        dist = None
    note = "" if kind else "the exchange kind is not set, so the new distribution is unknown"
    return Derived(ctx.input(0).orderedness, dist, Effect("kept", Spec.EXCHANGE_ORDER), Effect("overwritten", Spec.EXCHANGE_DIST, note))


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
    "write": _no_output(Spec.WRITE),
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


# ---------------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------------

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
        short = len(order or ()) < len(derived.order or ())
        order_effect = _emitted(order_effect, "the emit drops an ordered field: the order ends before it" if short else "")
    if dist != derived.distribution:
        lost = dist is None
        note = "the emit drops a distribution field: the distribution is unknown" if lost else ""
        dist_effect = _emitted(dist_effect, note, "eliminated" if lost else "remapped")
    return Derived(order, dist, order_effect, dist_effect)


def _emitted(effect: Effect, note: str, kind: str = "remapped") -> Effect:
    rule = effect.rule if "emit" in effect.rule else f"{effect.rule} ({Spec.EMIT})"
    notes = "; ".join(n for n in (effect.note, note) if n)
    if effect.kind == "kept":
        return Effect(kind, rule, notes)
    return Effect(effect.kind, rule, notes)


def _named(order: Ordering, dist: Distribution | None, schema: list[Field] | None) -> tuple[Ordering, Distribution | None]:
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


def _derive_node(node: Node, model: _Plan, done: dict[str, NodeProperties], conventions: Conventions, findings: list[Diagnostic]) -> NodeProperties:
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


def _check_lost_sorts(node: Node, inputs: list[NodeProperties], direct: Derived, model: _Plan, findings: list[Diagnostic]) -> None:
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


__all__ = [
    "Distribution",
    "Effect",
    "NodeProperties",
    "Ordering",
    "PartitionField",
    "SortKey",
    "derive_properties",
    "RULES",
]
