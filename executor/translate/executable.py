"""Which nodes of a plan can run on Spark, decided statically (no Spark session needed).

A node is executable when its whole subtree is: every relation kind, expression kind, literal,
function and type it uses has a translation, and nothing in it writes or changes data. Each node
gets the first reason it (or the first blocked node below it) cannot run.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from google.protobuf.message import Message
from substrait import algebra_pb2, type_pb2

from viz.errors import Severity
from viz.expressions import bound_offset
from viz.fields import named_struct_fields
from viz.kinds import emitted_at, enhancement_of
from viz.lineage import carried_only
from viz.model import PlanModel
from viz.tables import read_fields
from viz.words import counted

from ..errors import ExecutionError
from . import literals
from .expr import SUPPORTED_EXPRESSIONS
from .rel import REFUSED_RELATIONS, SUPPORTED_RELATIONS
from .types import to_spark

Expression = algebra_pb2.Expression

#: Deepest subtree (relations on the longest path) sent to Spark. Spark's analyzer and optimizer recurse
#: once per level: at 10,000 nested relations the JVM overflows its stack, at 1,000 it takes over a minute.
#: Real plans are far shallower (the corpora's deepest TPC-H plan has 21 levels).
MAX_SPARK_RELATION_DEPTH = 500
#: Deepest nesting of expressions in one relation (the corpora's deepest is 6). At 1,000 nested calls
#: Spark's planner overflows its stack.
MAX_SPARK_EXPRESSION_DEPTH = 200


@dataclass(frozen=True)
class Executability:
    ok: bool
    reason: str | None = None  # why not, in the user's terms (None when ok)
    refused: bool = False  # blocked by a write / DDL / update (never executed), not by a gap
    part_of: str | None = None  # set when it reads a column of an enclosing query: the node whose run includes it
    #: why its rows cannot be shown though it runs: it outputs a column of a type the translation lacks,
    #: which no node above needs (a node above that drops the column runs and shows its rows)
    shows: str | None = None

    @property
    def rows_reason(self) -> str | None:
        """Why its rows cannot be had from Spark (it cannot run, or cannot show them); None when they can."""
        return self.reason if not self.ok else self.shows


def _function_reason(model: PlanModel, anchor: int, kinds: tuple[str, ...]) -> str | None:
    ref = model.extensions.functions.get(anchor)
    if ref is None:
        return f"function anchor {anchor} is not declared in the plan's extensions"
    try:
        from . import functions
    except ImportError:  # pragma: no cover - the function mapping is part of the executor
        return "the function mapping is not available"
    reasons = []
    for kind in kinds:
        why = functions.supported(ref.compound_name, kind)
        if why is None:
            return None
        reasons.append(why)
    return reasons[0]


def _type_reason(t: type_pb2.Type, user_types: Mapping[int, str]) -> str | None:
    if t.WhichOneof("kind") is None:
        return None
    try:
        to_spark(t, user_types)
    except ExecutionError as e:
        return str(e)
    return None


def _check_message(model: PlanModel, msg: Message) -> str | None:
    """The first reason an expression-bearing message cannot be translated (Rel fields skipped)."""
    name = msg.DESCRIPTOR.full_name
    checker = _CHECKS.get(name)
    if checker is not None:
        reason = checker(model, msg)
        if reason or name == _LITERAL:  # a literal's check covers the literals it holds
            return reason
    for f, value in msg.ListFields():
        if f.message_type is None or f.message_type.full_name == "substrait.Rel":
            continue
        if f.message_type.full_name == "substrait.Type":
            continue  # types are checked where they are used (casts, literals, reads)
        items = value if f.is_repeated else [value]
        if f.message_type.GetOptions().map_entry:
            continue
        for item in items:
            reason = _check_message(model, item)
            if reason:
                return reason
    return None


def _correlated_reason(model: PlanModel, node_id: str, steps: int) -> tuple[str, str | None]:
    """Why a node whose subtree reads ``steps`` queries out cannot run on its own, and the node whose
    run includes it (None when no enclosing query is that far out: the plan is wrong)."""
    holder = model.graph.enclosing(node_id, steps)
    if holder is None:
        return (
            f"an outer reference steps out {counted(steps, 'subquery boundary', 'subquery boundaries')}, "
            "past every query that holds this node"
        ), None
    return (
        "it reads a column of the query around it (an outer reference: a correlated subquery), so it "
        f"runs only as part of node {holder}"
    ), holder


def _expression(model: PlanModel, e: Expression) -> str | None:
    which = e.WhichOneof("rex_type")
    if which not in SUPPORTED_EXPRESSIONS:
        return f"expression kind `{which or 'unset'}` is not supported"
    return None


def _literal(model: PlanModel, lit: Expression.Literal) -> str | None:
    return literals.supported(lit)


#: What an interval cast to a compound interval is known to be here, without typing the node: a cast to
#: one of these interval types or a literal of one (DataFusion's analyzer writes ``date + 1`` so).
_SIMPLE_INTERVALS = ("interval_day", "interval_year")
_SIMPLE_INTERVAL_LITERALS = ("interval_day_to_second", "interval_year_to_month")


def _cast(model: PlanModel, c: Expression.Cast) -> str | None:
    if c.type.WhichOneof("kind") == "interval_compound":
        source = c.input
        if (source.WhichOneof("rex_type") == "cast" and source.cast.type.WhichOneof("kind") in _SIMPLE_INTERVALS) or (
            source.WhichOneof("rex_type") == "literal"
            and source.literal.WhichOneof("literal_type") in _SIMPLE_INTERVAL_LITERALS
        ):
            return None  # the interval as it is (see ``ExprTranslator.cast``)
    return _type_reason(c.type, model.extensions.types)


def _scalar(model: PlanModel, f) -> str | None:
    return _function_reason(model, f.function_reference, ("scalar",))


#: Aggregation phases run: from the input rows to the result (unspecified reads so too).
_PHASES_RUN = (algebra_pb2.AGGREGATION_PHASE_UNSPECIFIED, algebra_pb2.AGGREGATION_PHASE_INITIAL_TO_RESULT)


def _phase_reason(model: PlanModel, f) -> str | None:
    """Spark computes an aggregate from its input rows to its result, nothing in between."""
    if f.phase in _PHASES_RUN:
        return None
    ref = model.extensions.functions.get(f.function_reference)
    name = ref.name if ref is not None else f"function {f.function_reference}"
    phase = algebra_pb2.AggregationPhase.Name(f.phase).replace("AGGREGATION_PHASE_", "")
    start, _, end = phase.partition("_TO_")
    wants = [
        w
        for w, odd in (
            ("takes intermediate values as its input", start == "INTERMEDIATE"),
            ("returns its intermediate value", end == "INTERMEDIATE"),
        )
        if odd
    ]
    return (
        f"`{name}` runs in phase {phase}: it {' and '.join(wants)}, and the executor runs aggregates "
        "only from their input rows to their result (INITIAL_TO_RESULT)"
    )


def _aggregate(model: PlanModel, f) -> str | None:
    return _phase_reason(model, f) or _function_reason(model, f.function_reference, ("aggregate",))


def _window(model: PlanModel, f) -> str | None:
    return _phase_reason(model, f) or _function_reason(model, f.function_reference, ("window", "aggregate"))


def _field_reference(model: PlanModel, ref: Expression.FieldReference) -> str | None:
    root = ref.WhichOneof("root_type")
    if ref.WhichOneof("reference_type") != "direct_reference":
        return "masked field references are not supported"
    if root == "lambda_parameter_reference":
        return "lambda expressions are not supported"
    if root == "outer_reference" and ref.outer_reference.WhichOneof("outer_reference_type") == "rel_reference":
        return "outer references to a lateral relation are not supported"
    return None


def _set_predicate(model: PlanModel, s: Expression.Subquery.SetPredicate) -> str | None:
    if s.predicate_op != Expression.Subquery.SetPredicate.PREDICATE_OP_EXISTS:
        return "the UNIQUE subquery predicate is not supported (only EXISTS)"
    return None


def _sort_field(model: PlanModel, s: algebra_pb2.SortField) -> str | None:
    if s.WhichOneof("sort_kind") == "comparison_function_reference":
        return "sorting with a comparison function is not supported"
    return None


def _join_key(model: PlanModel, k: algebra_pb2.ComparisonJoinKey) -> str | None:
    if k.comparison.WhichOneof("inner_type") == "custom_function_reference":
        return "a join key with a custom comparison function is not supported"
    return None


def _element_select(model: PlanModel, s) -> str | None:
    # the translation applies a mask's struct selects only: reading the whole list or map would be a
    # wrong answer that looks right
    return "a read's projection selects elements of a list or a map, which the executor does not apply"


def _bound(model: PlanModel, b) -> str | None:
    if bound_offset(b) is None:
        return "a window bound's offset_expr is not an integer literal"
    return None


_LITERAL = "substrait.Expression.Literal"

_CHECKS: dict[str, Callable[[PlanModel, Message], str | None]] = {
    "substrait.Expression": _expression,
    _LITERAL: _literal,
    "substrait.Expression.Cast": _cast,
    "substrait.Expression.ScalarFunction": _scalar,
    "substrait.AggregateFunction": _aggregate,
    "substrait.Expression.WindowFunction": _window,
    "substrait.ConsistentPartitionWindowRel.WindowRelFunction": _window,
    "substrait.Expression.FieldReference": _field_reference,
    "substrait.Expression.Subquery.SetPredicate": _set_predicate,
    "substrait.SortField": _sort_field,
    "substrait.Expression.WindowFunction.Bound.Preceding": _bound,
    "substrait.Expression.WindowFunction.Bound.Following": _bound,
    "substrait.ComparisonJoinKey": _join_key,
    "substrait.Expression.MaskExpression.ListSelect": _element_select,
    "substrait.Expression.MaskExpression.MapSelect": _element_select,
}


def expression_depth(msg: Message, limit: int | None = None) -> int:
    """How deeply expressions nest in ``msg`` (input relations not counted); iterative, and stops
    early once ``limit`` is passed."""
    best = 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        m, depth = stack.pop()
        for f, value in m.ListFields():
            if (
                f.message_type is None
                or f.message_type.full_name in ("substrait.Rel", _LITERAL)  # a literal holds no expression
                or f.message_type.GetOptions().map_entry
            ):
                continue
            expression = f.message_type.full_name == "substrait.Expression"
            deeper = depth + expression
            best = max(best, deeper)
            if limit is not None and best > limit:
                return best
            items = value if f.is_repeated else [value]
            if expression:  # a literal nests nothing further: its level is counted, it is not walked
                items = [item for item in items if item.WhichOneof("rex_type") != "literal"]
            stack.extend((item, deeper) for item in items)
    return best


def plan_error_reason(view) -> str | None:
    """The first error the plan model found on the node: a plan that is wrong there is not run."""
    for d in view.diagnostics:
        if d.severity is Severity.ERROR:
            return f"the plan is wrong at node {view.id} ({d.code}): {d.message}"
    return None


def _own_reason(model: PlanModel, node_id: str, shows: dict[str, str]) -> tuple[str | None, bool]:
    """Why this node alone cannot run (ignoring its inputs), and whether it is a refusal. A read adds to
    ``shows`` the nodes whose rows cannot be shown for a column of it (:func:`_typeless_columns`)."""
    view = model.node(node_id)
    kind = view.kind
    if kind in REFUSED_RELATIONS:
        return f"{kind} relations change data and are never executed here", True
    wrong = plan_error_reason(view)  # first: a relation with no type set is wrong, not an unsupported kind
    if wrong:
        return wrong, False
    if kind not in SUPPORTED_RELATIONS:
        return f"relation `{kind}` is not supported", False
    body = view.node.body
    enhancement = enhancement_of(body)
    if enhancement is not None:
        return (
            f"an advanced extension enhancement ({enhancement}) changes what the relation means, and a "
            "consumer may not ignore it"
        ), False
    if kind == "read":
        which = body.WhichOneof("read_type")
        if which not in ("named_table", "local_files", "virtual_table"):
            return f"reading `{which or 'nothing'}` is not supported", False
        why, carriers = _typeless_columns(model, view)
        if why:
            return why, False
        for carrier, said in carriers.items():
            shows.setdefault(carrier, said)
    for field in ("offset_expr", "count_expr"):
        if kind == "fetch" and body.HasField(field) and getattr(body, field).WhichOneof("rex_type") != "literal":
            return "the fetch count and offset must be constants", False
    if kind == "join" and body.type in (0,):
        return "the join type is unspecified", False
    depth = expression_depth(body, MAX_SPARK_EXPRESSION_DEPTH)
    if depth > MAX_SPARK_EXPRESSION_DEPTH:
        return (
            f"its expressions nest more than {MAX_SPARK_EXPRESSION_DEPTH} levels deep; Spark's planner "
            "cannot take that (it runs out of stack)"
        ), False
    reason = _check_message(model, body)
    return reason, False


def _typeless_columns(model: PlanModel, view) -> tuple[str | None, dict[str, str]]:
    """A read's base-schema columns of a type Spark has no form for: why the read cannot run when the plan
    reads one (a condition, a key or an expression above takes it: Spark could not compute it), else, by
    the id of each node whose output carries one unchanged (the read's, and those it passes through), why
    that node's rows cannot be shown. A column nothing reads or carries (a projection drops it) is no
    matter: Spark reads the file's other columns."""
    body = view.node.body
    used = read_fields(view)
    filtered = set(view.info.referenced_fields)  # its filters' fields (of the base schema, before any emit)
    carriers: dict[str, str] = {}
    fields = named_struct_fields(body.base_schema)
    for i, (t, f) in enumerate(zip(body.base_schema.struct.types, fields)):
        reason = _type_reason(t, model.extensions.types)
        if reason is None or (used is not None and i not in used):
            continue
        what = f"column {f.name} of the base schema: {reason}"
        if used is not None or i in filtered:  # its projection outputs it or its filter reads it
            return what, {}
        for j in emitted_at(body, i):
            carried = carried_only(model, view.id, j) if view.info.schema is not None else None
            if carried is None:
                return what, {}
            for node_id in carried:
                carriers.setdefault(node_id, f"its output holds column {f.name}, read by node {view.id}: {reason}")
    return None, carriers


_known: weakref.WeakKeyDictionary[PlanModel, Mapping[str, Executability]] = weakref.WeakKeyDictionary()


def executability(model: PlanModel) -> Mapping[str, Executability]:
    """Per node id: whether its subtree can run on Spark, and why not. Raises nothing. Worked out
    once per model (it is frozen), however many runs, steps and profiles ask."""
    known = _known.get(model)
    if known is None:
        known = _known[model] = MappingProxyType(_executability(model))
    return known


def _executability(model: PlanModel) -> dict[str, Executability]:
    graph = model.graph
    own: dict[str, tuple[str | None, bool]] = {}
    shows: dict[str, str] = {}  # why a node that runs cannot show its rows: it outputs a column Spark lacks
    reach: dict[str, int] = {}  # subquery boundaries the subtree's outer references step out of it
    for node_id in graph.nodes:
        reach[node_id] = model.node(node_id).info.outer_steps
        try:
            own[node_id] = _own_reason(model, node_id, shows)
        except Exception as e:  # noqa: BLE001 - a static check must never take the app down
            own[node_id] = (f"the node could not be checked: {e}", False)
    out: dict[str, Executability] = {}
    height: dict[str, int] = {}  # relations on the longest path down, the node included
    for sub in graph.post_order():
        node = graph.nodes[sub]
        reach[sub] = max(
            [
                reach[sub],
                *(reach.get(c, 0) for c in node.inputs),
                *(reach.get(c, 0) - 1 for c in node.subqueries),  # resolved one boundary further in
            ]
        )
        reason, refused = own[sub]
        if reason is not None:
            out[sub] = Executability(False, reason, refused)
            continue
        children = graph.children(sub)
        height[sub] = 1 + max((height.get(c, 0) for c in children), default=0)
        for child in children:
            c = out.get(child)
            if c is not None and not c.ok and c.part_of is None:  # reading out is judged by reach
                out[sub] = Executability(
                    False,
                    f"node {child} cannot run: {c.reason}" if not c.reason.startswith("node ") else c.reason,
                    c.refused,
                )
                break
        else:
            if reach[sub] > 0:
                why, holder = _correlated_reason(model, sub, reach[sub])
                out[sub] = Executability(False, why, part_of=holder)
            elif height[sub] > MAX_SPARK_RELATION_DEPTH:
                out[sub] = Executability(
                    False,
                    (
                        f"its subtree is {height[sub]:,} relations deep; at most {MAX_SPARK_RELATION_DEPTH} "
                        "are sent to Spark, whose planner recurses once per level (run a node lower down)"
                    ),
                )
            else:
                out[sub] = Executability(True)
    return {sub: replace(e, shows=shows[sub]) if e.ok and sub in shows else e for sub, e in out.items()}


__all__ = [
    "Executability",
    "executability",
    "expression_depth",
    "MAX_SPARK_RELATION_DEPTH",
    "MAX_SPARK_EXPRESSION_DEPTH",
    "plan_error_reason",
]
