"""Derive every node's output schema, following each relation's "Direct Output Order" then its emit.

One dispatch table on the relation kind; each entry takes the node's :class:`Context` (its inputs'
schemas already derived) and returns the direct output fields. Results are memoised per node id and
computed bottom-up with an explicit stack, so shared subtrees cost one walk and any depth works.
Expressions are typed and rendered in the same pass (the inspector shows them).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from substrait import algebra_pb2, type_pb2

from . import types as T
from .errors import Diagnostic, error, info, warning
from .expressions import ExpressionTyper, Scope, Typed, integer_literal
from .extensions import Extensions
from .fields import Field, fields_from_named_struct, named_struct_fields, nested_names_for, struct_members
from .graph import Node, PlanGraph
from .kinds import JOIN_KINDS, emit, enhancement_of, output_names, project_outputs_input


@dataclass
class NodeInfo:
    """What the schema pass derived for one node."""

    schema: list[Field] | None  # output after emit; None when it cannot be known
    direct: list[Field] | None  # output before emit
    incoming: list[Field] | None  # the record this node's expressions read
    expressions: list[tuple[str, str]] = field(default_factory=list)  # (role, rendered text)
    detail: str = ""  # key detail for a graph label
    diagnostics: list[Diagnostic] = field(default_factory=list)
    referenced_fields: set[int] = field(default_factory=set)  # indices of ``incoming`` read by expressions
    functions: set[int] = field(default_factory=set)  # function anchors used
    #: the node's expressions as this pass typed them (``ExpressionTyper.typed``): see :meth:`typed_expression`
    typed: dict[int, tuple[Any, Typed]] = field(default_factory=dict, repr=False, compare=False)

    def typed_expression(self, e) -> Typed | None:
        """Expression ``e`` (this very message of the plan) as the schema pass typed it, or None when
        it did not: the executor and the properties pass read types and texts here, not typing again."""
        hit = self.typed.get(id(e))
        return hit[1] if hit is not None and hit[0] is e else None

    def __getstate__(self) -> dict:
        # message identities do not survive a copy: a copy types again where it needs to
        return {**self.__dict__, "typed": {}}


@dataclass
class Context:
    node: Node
    inputs: list[list[Field] | None]
    ext: Extensions
    outer: Sequence[Sequence[Field] | None]
    typer: ExpressionTyper
    info: NodeInfo
    anchors: dict[int, Sequence[Field] | None]
    conventions: "Conventions" = None  # type: ignore[assignment]

    def scope(self, fields: Sequence[Field] | None) -> Scope:
        return Scope(fields, self.outer, [], self.anchors)

    def expr(self, role: str, e: algebra_pb2.Expression, fields: Sequence[Field] | None) -> Typed:
        typed = self.typer.expr(e, self.scope(fields))
        self.info.expressions.append((role, typed.text))
        return typed

    def diag(self, d: Diagnostic) -> None:
        self.info.diagnostics.append(d)

    def input(self, k: int = 0) -> list[Field] | None:
        return self.inputs[k] if k < len(self.inputs) else None


def _concat(*parts: list[Field] | None) -> list[Field] | None:
    out: list[Field] = []
    for p in parts:
        if p is None:
            return None
        out.extend(p)
    return out


def _nullable(fields: list[Field]) -> list[Field]:
    return [f.with_type(T.make_nullable(f.type)) for f in fields]


def _expr_field(typed: Typed, fallback: str) -> Field:
    label = typed.label or fallback
    return Field(label, typed.type, typed.nested or nested_names_for(typed.type))


def _expect_boolean(ctx: Context, typed: Typed, what: str) -> None:
    if typed.type is not None and T.kind(typed.type) != "bool":
        ctx.diag(error("type-mismatch", f"{what} must be boolean, but is {T.render(typed.type)}", ctx.node.id))


# ---------------------------------------------------------------------------------------------
# One function per relation kind
# ---------------------------------------------------------------------------------------------

def read(ctx: Context) -> list[Field] | None:
    r: algebra_pb2.ReadRel = ctx.node.body
    which = r.WhichOneof("read_type")
    base: list[Field] | None
    if r.HasField("base_schema"):
        names = list(r.base_schema.names)
        types = list(r.base_schema.struct.types)
        if names and not types:
            ctx.diag(
                warning(
                    "untyped-base-schema",
                    f"the base schema names {len(names)} columns but gives no types; their types are unknown",
                    ctx.node.id,
                )
            )
            base = [Field(n, None) for n in names]
        else:
            base, exact = fields_from_named_struct(names, types)
            if not exact:
                ctx.diag(
                    warning(
                        "schema-names-mismatch",
                        f"the base schema has {len(names)} names for {len(types)} types "
                        f"(with nested fields it needs {sum(1 + len(f.nested) for f in base)})",
                        ctx.node.id,
                    )
                )
    elif which == "virtual_table" and r.virtual_table.expressions:
        row = r.virtual_table.expressions[0]
        base = []
        for i, e in enumerate(row.fields):
            typed = ctx.typer.expr(e, ctx.scope([]))
            base.append(Field(f"col{i}", typed.type, nested_names_for(typed.type)))
        ctx.diag(info("no-base-schema", "the virtual table has no base schema; types come from its first row", ctx.node.id))
    else:
        ctx.diag(error("no-base-schema", "the read has no base schema, so its columns are unknown", ctx.node.id))
        base = None
    ctx.info.incoming = base

    if which == "named_table":
        ctx.info.detail = ".".join(r.named_table.names)
    elif which == "virtual_table":
        rows = r.virtual_table.expressions
        ctx.info.detail = f"virtual table, {len(rows)} row{'s' if len(rows) != 1 else ''}"
        width = len(base) if base is not None else None
        for i, row in enumerate(rows):
            for j, e in enumerate(row.fields):
                typed = ctx.typer.expr(e, ctx.scope([]))
                if base is not None and j < len(base) and not T.same_type_ignoring_nullability(typed.type, base[j].type):
                    ctx.diag(
                        warning(
                            "type-mismatch",
                            f"virtual table row {i} column {j} is {T.render(typed.type)}, the schema says "
                            f"{T.render(base[j].type)}",
                            ctx.node.id,
                        )
                    )
                elif base is not None and j < len(base) and base[j].nullable is False and _is_null(e):
                    ctx.diag(
                        warning(
                            "null-in-required-column",
                            f"virtual table row {i} column {j} is null, but the schema declares the column "
                            f"{T.render(base[j].type)}, which is required (it holds no nulls)",
                            ctx.node.id,
                        )
                    )
            if width is not None and len(row.fields) != width:
                ctx.diag(error("type-mismatch", f"virtual table row {i} has {len(row.fields)} values for {width} columns", ctx.node.id))
    elif which == "local_files":
        items = r.local_files.items
        paths = [getattr(it, it.WhichOneof("path_type") or "uri_path") for it in items]
        fmt = items[0].WhichOneof("file_format") if items else None
        ctx.info.detail = f"{fmt or 'files'}: {', '.join(paths[:2])}{' …' if len(paths) > 2 else ''}"
    elif which == "extension_table":
        ctx.info.detail = f"extension table {r.extension_table.detail.type_url.split('/')[-1]}"
    elif which == "iceberg_table":
        ctx.info.detail = "iceberg table"
    else:
        ctx.diag(warning("no-read-type", "the read does not say what it reads", ctx.node.id))

    if r.HasField("filter"):
        _expect_boolean(ctx, ctx.expr("filter", r.filter, base), "the read filter")
    if r.HasField("best_effort_filter"):
        ctx.expr("best effort filter", r.best_effort_filter, base)
    if r.HasField("projection") and base is not None:
        items = r.projection.select.struct_items
        picked: list[Field] = []
        for item in items:
            if 0 <= item.field < len(base):
                picked.append(_masked_field(ctx, base[item.field], item.child) if item.HasField("child") else base[item.field])
            else:
                ctx.diag(
                    error(
                        "field-out-of-range",
                        f"projection field {item.field} is out of range: the base schema has {len(base)} "
                        f"fields (0-{len(base) - 1})",
                        ctx.node.id,
                    )
                )
        if items:
            ctx.info.expressions.append(("projection", ", ".join(f"${i.field}" for i in items)))
            return picked
    return base


def _masked_field(ctx: Context, f: Field, select) -> Field:
    """A read's field narrowed by its mask item's child: a struct select keeps the members it lists, in
    its order, each narrowed by its own child ("eliminate the 98" of 100 fields); a list or map select
    keeps the type (it selects elements, and "does not fundamentally alter the structure")."""
    if select.WhichOneof("type") != "struct" or T.kind(f.type) != "struct":
        return f
    members = struct_members(f.type, f.nested)
    kept: list[Field] = []
    for item in select.struct.struct_items:
        if not 0 <= item.field < len(members):
            ctx.diag(error("field-out-of-range", f"projection of {f.name}: member {item.field} is out of range: "
                           f"the struct has {len(members)} members", ctx.node.id))
            continue
        m = members[item.field]
        kept.append(_masked_field(ctx, m, item.child) if item.HasField("child") else m)
    t = type_pb2.Type(struct=type_pb2.Type.Struct(types=[m.type for m in kept], nullability=f.type.struct.nullability))
    return Field(f.name, t, tuple(n for m in kept for n in (m.name, *m.nested)))


def _is_null(e: algebra_pb2.Expression) -> bool:
    """Whether an expression is a null literal."""
    return e.WhichOneof("rex_type") == "literal" and e.literal.WhichOneof("literal_type") == "null"


def passthrough(detail: Callable[[Context], str] | None = None):
    def derive(ctx: Context) -> list[Field] | None:
        if detail is not None:
            ctx.info.detail = detail(ctx)
        return ctx.input(0)

    return derive


def filter_(ctx: Context) -> list[Field] | None:
    fields = ctx.input(0)
    ctx.info.incoming = fields
    typed = ctx.expr("condition", ctx.node.body.condition, fields)
    _expect_boolean(ctx, typed, "the filter condition")
    ctx.info.detail = typed.text
    return fields


def _sorts(ctx: Context, sorts, fields) -> str:
    texts = [ctx.typer.sort_field(s, ctx.scope(fields)) for s in sorts]
    for t in texts:
        ctx.info.expressions.append(("sort", t))
    return ", ".join(texts)


def sort(ctx: Context) -> list[Field] | None:
    fields = ctx.input(0)
    ctx.info.incoming = fields
    ctx.info.detail = _sorts(ctx, ctx.node.body.sorts, fields)
    return fields


def _fetch_value(ctx: Context, body, name: str, fields) -> str | None:
    expr_name = f"{name}_expr"
    if body.HasField(expr_name):
        e = getattr(body, expr_name)
        value = integer_literal(e)
        if value is not None and value < 0:
            # algebra.proto: "Evaluating to a negative integer should result in an error" (null means
            # 0 for the offset, ALL for the count; only the legacy count field used -1 for ALL)
            ctx.diag(error("negative-fetch", f"the fetch {name} is {value}: it must not be negative "
                                             "(a null count means all records)", ctx.node.id))
        return ctx.expr(name, e, fields).text
    return None


def fetch(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    offset = _fetch_value(ctx, body, "offset", fields)
    count = _fetch_value(ctx, body, "count", fields)
    parts = [f"count {count if count is not None else 'all'}"]
    if offset is not None and offset != "0":
        parts.append(f"offset {offset}")
    ctx.info.detail = ", ".join(parts)
    return fields


def top_n(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    keys = _sorts(ctx, body.sorts, fields)
    count = ctx.expr("count", body.count, fields).text if body.HasField("count") else "all"
    offset = ctx.expr("offset", body.offset, fields).text if body.HasField("offset") else None
    ties = " with ties" if body.mode == algebra_pb2.FETCH_MODE_WITH_TIES else ""
    ctx.info.detail = f"top {count}{ties}{f' offset {offset}' if offset not in (None, '0') else ''} by {keys}"
    return fields


def project(ctx: Context) -> list[Field] | None:
    fields = ctx.input(0)
    ctx.info.incoming = fields
    added: list[Field] = []
    base = len(fields) if fields is not None else None
    for i, e in enumerate(ctx.node.body.expressions):
        index = f"${base + i}" if base is not None else f"+{i}"
        typed = ctx.expr(index, e, fields)
        added.append(_expr_field(typed, f"expr{i}"))
    ctx.info.detail = f"+{len(added)} column{'s' if len(added) != 1 else ''}"
    if not project_outputs_input(ctx.node.body, ctx.conventions.project_keeps_input):
        ctx.info.detail = f"{len(added)} column{'s' if len(added) != 1 else ''} (expressions only)"
        return added
    return _concat(fields, added)


def cross(ctx: Context) -> list[Field] | None:
    ctx.info.incoming = _concat(ctx.input(0), ctx.input(1))
    ctx.info.detail = "cross product"
    return ctx.info.incoming


_JOIN_PADDING = {
    "JOIN_TYPE_LEFT": (False, True),
    "JOIN_TYPE_LEFT_SINGLE": (False, True),
    "JOIN_TYPE_RIGHT": (True, False),
    "JOIN_TYPE_RIGHT_SINGLE": (True, False),
    "JOIN_TYPE_OUTER": (True, True),
}


def join_type_name(body) -> str:
    return body.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number[body.type].name


def join_output(ctx: Context, type_name: str) -> list[Field] | None:
    left, right = ctx.input(0), ctx.input(1)
    if type_name == "JOIN_TYPE_UNSPECIFIED":
        ctx.diag(error("unspecified-join-type", "the join type is unspecified; the output is derived as an inner join", ctx.node.id))
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI"):
        return left
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI"):
        return right
    mark = Field("mark", T.boolean(True))
    if type_name == "JOIN_TYPE_LEFT_MARK":
        return _concat(left, [mark])
    if type_name == "JOIN_TYPE_RIGHT_MARK":
        return _concat(right, [mark])
    if left is None or right is None:
        return None
    pad_left, pad_right = _JOIN_PADDING.get(type_name, (False, False))
    return (_nullable(left) if pad_left else list(left)) + (_nullable(right) if pad_right else list(right))


def _short_join(type_name: str) -> str:
    return type_name.replace("JOIN_TYPE_", "").lower()


def join(ctx: Context) -> list[Field] | None:
    """JoinRel, and NestedLoopJoinRel (a join condition, no keys)."""
    body = ctx.node.body
    incoming = _concat(ctx.input(0), ctx.input(1))
    ctx.info.incoming = incoming
    name = join_type_name(body)
    on = ""
    if body.HasField("expression"):
        typed = ctx.expr("on", body.expression, incoming)
        _expect_boolean(ctx, typed, "the join condition")
        on = typed.text
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        _expect_boolean(ctx, ctx.expr("post-join filter", body.post_join_filter, incoming), "the post-join filter")
    ctx.info.detail = f"{_short_join(name)} on {on}" if on else _short_join(name)
    return join_output(ctx, name)


def lateral_join(ctx: Context) -> list[Field] | None:
    return join(ctx)


#: ComparisonJoinKey.SimpleComparisonType -> how a key's comparison reads (UNSPECIFIED and EQ: "=").
_KEY_COMPARISONS = {2: "IS NOT DISTINCT FROM", 3: "MIGHT EQUAL"}


def _keys_join(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    left, right = ctx.input(0), ctx.input(1)
    incoming = _concat(left, right)
    ctx.info.incoming = incoming
    name = join_type_name(body)
    keys = []
    for k in body.keys:
        l = ctx.typer.selection(k.left, ctx.scope(left))
        # Right keys index the right input; record them shifted into the incoming record.
        seen, ctx.typer.referenced_fields = ctx.typer.referenced_fields, set()
        r = ctx.typer.selection(k.right, ctx.scope(right))
        offset = len(left) if left is not None else 0
        ctx.typer.referenced_fields = seen | {offset + i for i in ctx.typer.referenced_fields}
        if k.comparison.WhichOneof("inner_type") == "custom_function_reference":
            anchor = k.comparison.custom_function_reference
            fn = ctx.ext.functions.get(anchor)
            keys.append(f"{fn.name if fn is not None else f'function {anchor}'}({l.text}, {r.text})")
        else:
            keys.append(f"{l.text} {_KEY_COMPARISONS.get(k.comparison.simple, '=')} {r.text}")
    for text in keys:
        ctx.info.expressions.append(("key", text))
    if not keys:
        # algebra.proto: "One or more keys to join on. The relation is invalid if this is empty"
        ctx.diag(error("no-join-keys", "the join has no keys (a hash or merge join needs at least one)", ctx.node.id))
    if body.HasField("post_join_filter"):
        _expect_boolean(ctx, ctx.expr("post-join filter", body.post_join_filter, incoming), "the post-join filter")
    residual = getattr(body, "residual_expression", None)
    if residual is not None and body.HasField("residual_expression"):
        ctx.expr("residual", residual, incoming)
    ctx.info.detail = f"{_short_join(name)} on {' AND '.join(keys)}"
    return join_output(ctx, name)


_SET_OP_NAMES = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number


def set_(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    op = _SET_OP_NAMES[body.op].name if body.op in _SET_OP_NAMES else f"SET_OP_{body.op}"
    ctx.info.detail = op.replace("SET_OP_", "").lower()
    if op == "SET_OP_UNSPECIFIED":
        ctx.diag(error("unspecified-set-op", "the set operation is unspecified", ctx.node.id))
    inputs = ctx.inputs
    if len(inputs) < 2:
        ctx.diag(error("too-few-inputs", f"a set operation needs at least two inputs, it has {len(inputs)}", ctx.node.id))
    if not inputs or inputs[0] is None:
        return None
    primary = list(inputs[0])
    for k, other in enumerate(inputs[1:], start=1):
        if other is not None and len(other) != len(primary):
            ctx.diag(
                error(
                    "type-mismatch",
                    f"set input {k} has {len(other)} columns, the primary input has {len(primary)}",
                    ctx.node.id,
                )
            )
    same_width = [inp for inp in inputs if inp is not None and len(inp) == len(primary)]
    for i, a in enumerate(primary):
        column = [inp[i].type for inp in same_width]
        if all(T.kind(t) == "decimal" for t in column):
            common = functools.reduce(T.common_decimal, column)
            if not all(T.same_type_ignoring_nullability(column[0], t) for t in column):
                ctx.diag(
                    warning(
                        "set-input-cast",
                        f"the set inputs' column {i} is {', '.join(T.render(t) for t in column)}: all are read as "
                        f"{T.render(T.with_nullability(common, False))}",
                        ctx.node.id,
                    )
                )
            primary[i] = a.with_type(common)
            continue
        unified, _ = ctx.typer.unify(column, f"the set inputs' values in column {i}", "union", strict=True)
        if unified is not None and not T.same_type_ignoring_nullability(unified, a.type):
            primary[i] = a.with_type(unified)
    out: list[Field] = []
    for i, f in enumerate(primary):
        nulls = [T.is_nullable(inp[i].type) for inp in inputs if inp is not None and i < len(inp)]
        nulls = [bool(n) for n in nulls]
        first, rest = nulls[0], nulls[1:]
        if op in ("SET_OP_UNION_DISTINCT", "SET_OP_UNION_ALL"):
            nullable = any(nulls)
        elif op == "SET_OP_INTERSECTION_PRIMARY":
            nullable = first and any(rest)
        elif op in ("SET_OP_INTERSECTION_MULTISET", "SET_OP_INTERSECTION_MULTISET_ALL"):
            nullable = all(nulls)
        else:  # minus: same as the primary input
            nullable = first
        out.append(f.with_type(T.with_nullability(f.type, nullable) if f.type is not None else None))
    return out


@dataclass(frozen=True)
class AggregateLayout:
    """Where an AggregateRel's output columns come from (one reading for the model and the executor).

    ``keys`` are the distinct grouping expressions (indices into ``grouping_expressions``) in order of
    first appearance: two grouping expressions whose messages are equal share a column, as the spec
    says. ``sets`` holds, per grouping set, the positions in ``keys`` it groups by. ``grouping_column``
    says which extra column a multi-set aggregate has and where: ``"index"`` (the spec: the i32 index of
    the set, after the measures), ``"datafusion"`` (DataFusion: its ``__grouping_id`` bit mask, after the
    keys; a key's bit is 1 when the set leaves it out, the first key the highest bit) or ``None``.
    """

    keys: tuple[int, ...]
    sets: tuple[frozenset[int], ...]
    grouping_column: str | None
    bad_references: tuple[int, ...] = ()

    @property
    def no_keys(self) -> bool:
        """Whether it groups by nothing (no grouping set, or one that is empty): with measures, a
        global aggregate of exactly one row."""
        return all(not m for m in self.sets) and len(self.sets) <= 1

    def grouping_value(self, set_index: int) -> int:
        """The value of the grouping column for rows of grouping set ``set_index``."""
        if self.grouping_column != "datafusion":
            return set_index
        members, n = self.sets[set_index], len(self.keys)
        return sum(1 << (n - 1 - pos) for pos in range(n) if pos not in members)

    def grouping_type(self) -> type_pb2.Type:
        """The grouping column's type: i32 for the spec; DataFusion's unsigned integer just wide enough
        for one bit per key (written as a signed integer of that width with DataFusion's unsigned
        type variation, 1)."""
        if self.grouping_column != "datafusion":
            return T.i32(False)
        n = len(self.keys)
        kind = "i8" if n < 8 else "i16" if n < 16 else "i32" if n < 32 else "i64"
        out = type_pb2.Type()
        getattr(out, kind).nullability = T.REQUIRED
        getattr(out, kind).type_variation_reference = 1
        return out


def aggregate_layout(body: algebra_pb2.AggregateRel, conventions: "Conventions") -> AggregateLayout:
    canonical: dict[bytes, int] = {}
    position: dict[int, int] = {}  # grouping expression index -> canonical key index
    for i, e in enumerate(body.grouping_expressions):
        position[i] = canonical.setdefault(e.SerializeToString(deterministic=True), i)
    keys: list[int] = []
    sets: list[set[int]] = []
    bad: list[int] = []
    for g in body.groupings:
        members: set[int] = set()
        for r in g.expression_references:
            if r not in position:
                bad.append(r)
                continue
            k = position[r]
            if k not in keys:
                keys.append(k)
            members.add(keys.index(k))
        sets.append(members)
    column = conventions.grouping_column if len(sets) > 1 else None
    return AggregateLayout(tuple(keys), tuple(frozenset(m) for m in sets), column, tuple(bad))


def aggregate(ctx: Context) -> list[Field] | None:
    body: algebra_pb2.AggregateRel = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    typed_keys = [ctx.typer.expr(e, ctx.scope(fields)) for e in body.grouping_expressions]
    layout = aggregate_layout(body, ctx.conventions)
    for r in layout.bad_references:
        ctx.diag(
            error(
                "grouping-out-of-range",
                f"grouping refers to grouping expression {r}, but there are {len(typed_keys)}",
                ctx.node.id,
            )
        )
    out: list[Field] = []
    for pos, r in enumerate(layout.keys):
        typed = typed_keys[r]
        f = _expr_field(typed, f"key{r}")
        if not all(pos in m for m in layout.sets):
            f = f.with_type(T.make_nullable(f.type))
        out.append(f)
        ctx.info.expressions.append(("group by", typed.text))
    if layout.grouping_column == "datafusion":
        out.append(Field("__grouping_id", layout.grouping_type()))
    measures = []
    for i, m in enumerate(body.measures):
        typed = ctx.typer.aggregate_function(m.measure, ctx.scope(fields))
        text = typed.text
        if m.HasField("filter"):
            cond = ctx.typer.expr(m.filter, ctx.scope(fields))
            text += f" FILTER (WHERE {cond.text})"
        ctx.info.expressions.append(("measure", text))
        measures.append(typed.label)
        out.append(_expr_field(typed, f"measure{i}"))
    if layout.grouping_column == "index":
        out.append(Field("grouping_set", layout.grouping_type()))
    if len(layout.sets) > 1:
        sets = ["(" + ", ".join(typed_keys[layout.keys[p]].label for p in sorted(m)) + ")" for m in layout.sets]
        group_text = f"grouping sets {', '.join(sets)}"
    else:
        group_text = ", ".join(typed_keys[r].label for r in layout.keys)
    parts = []
    if group_text:
        parts.append(f"by {group_text}")
    if measures:
        parts.append(", ".join(measures))
    ctx.info.detail = "; ".join(parts)
    if not out:
        ctx.diag(error("empty-aggregate", "the aggregate has no groupings and no measures, so it yields no columns", ctx.node.id))
    return out


def reference(ctx: Context) -> list[Field] | None:
    ctx.info.detail = f"→ relation {ctx.node.body.subtree_ordinal}"
    return ctx.input(0)


def write(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    op = algebra_pb2.WriteRel.WriteOp.Name(body.op).replace("WRITE_OP_", "").lower()
    target = ".".join(body.named_table.names) if body.HasField("named_table") else "extension object"
    ctx.info.detail = f"{op} {target}"
    ctx.info.incoming = ctx.input(0)
    if body.HasField("table_schema") and ctx.input(0) is not None:
        _check_write_input(ctx, ctx.input(0), named_struct_fields(body.table_schema))
    if body.output == algebra_pb2.WriteRel.OUTPUT_MODE_MODIFIED_RECORDS:
        if body.HasField("table_schema"):
            return named_struct_fields(body.table_schema)
        return ctx.input(0)
    return []


def _check_write_input(ctx: Context, given: list[Field], table: list[Field]) -> None:
    """algebra.proto on ``WriteRel.input``: "the schema must match with table_schema"."""
    problems = []
    if len(given) != len(table):
        problems.append(f"the input has {len(given)} columns, the table schema {len(table)}")
    for i, (a, b) in enumerate(zip(given, table)):
        if a.type is None or b.type is None:
            continue
        if not T.same_type_ignoring_nullability(a.type, b.type) or (a.nullable and b.nullable is False):
            problems.append(f"column {i} ({b.name}) is {T.render(a.type)} in the input, {T.render(b.type)} in the table")
    if problems:
        ctx.diag(
            error(
                "write-schema-mismatch",
                "the write's input does not match its table schema, which the spec requires (\"the schema must "
                "match with table_schema\"): " + "; ".join(problems),
                ctx.node.id,
            )
        )


def ddl(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    op = algebra_pb2.DdlRel.DdlOp.Name(body.op).replace("DDL_OP_", "").lower()
    obj = algebra_pb2.DdlRel.DdlObject.Name(body.object).replace("DDL_OBJECT_", "").lower()
    target = ".".join(body.named_object.names) if body.HasField("named_object") else "extension object"
    ctx.info.detail = f"{op} {obj} {target}"
    return []


def update(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    ctx.info.detail = f"update {'.'.join(body.named_table.names)}"
    fields = named_struct_fields(body.table_schema)
    ctx.info.incoming = fields
    if body.HasField("condition"):
        ctx.expr("condition", body.condition, fields)
    for t in body.transformations:
        ctx.expr(f"set ${t.column_target}", t.transformation, fields)
    return fields


def extension(ctx: Context) -> list[Field] | None:
    detail = ctx.node.body.detail.type_url.split("/")[-1] or "no detail"
    ctx.info.detail = f"extension: {detail}"
    ctx.diag(
        info(
            "unknown-schema",
            "an extension relation defines its own output; its schema is unknown to this tool",
            ctx.node.id,
        )
    )
    return None


def window(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    scope = ctx.scope(fields)
    partition = [ctx.typer.expr(p, scope).text for p in body.partition_expressions]
    ctx.info.expressions.extend(("partition by", text) for text in partition)
    order = _sorts(ctx, body.sorts, fields)
    added = []
    for i, f in enumerate(body.window_functions):
        typed = ctx.typer.window_function(f, scope)
        ctx.info.expressions.append(("window", typed.text))
        added.append(_expr_field(typed, f"window{i}"))
    parts = [f"{len(added)} window function{'s' if len(added) != 1 else ''}"]
    if partition:
        parts.append(f"partition by {', '.join(partition)}")
    if order:
        parts.append(f"order by {order}")
    ctx.info.detail = ", ".join(parts)
    return _concat(fields, added)


def exchange(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    kind = body.WhichOneof("exchange_kind") or "unspecified"
    if kind == "scatter_by_fields":
        keys = [ctx.typer.selection(f, ctx.scope(fields)).text for f in body.scatter_by_fields.fields]
        for k in keys:
            ctx.info.expressions.append(("scatter by", k))
        ctx.info.detail = f"scatter by {', '.join(keys)}"
    elif kind in ("single_target", "multi_target"):
        e = getattr(body, kind).expression
        ctx.info.detail = f"{kind.replace('_', ' ')}: {ctx.expr('bucket', e, fields).text}"
    else:
        ctx.info.detail = kind.replace("_", " ")
    if body.partition_count:
        ctx.info.detail += f" into {body.partition_count}"
    return fields


def expand(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    fields = ctx.input(0)
    ctx.info.incoming = fields
    out: list[Field] = []
    duplicates = None
    for i, f in enumerate(body.fields):
        which = f.WhichOneof("field_type")
        if which == "consistent_field":
            typed = ctx.expr(f"${i}", f.consistent_field, fields)
            out.append(_expr_field(typed, f"expr{i}"))
        elif which == "switching_field":
            options = [ctx.typer.expr(d, ctx.scope(fields)) for d in f.switching_field.duplicates]
            ctx.info.expressions.append((f"${i}", " | ".join(o.text for o in options)))
            if duplicates is None:
                duplicates = len(options)
            elif duplicates != len(options):
                ctx.diag(error("type-mismatch", "switching fields have different numbers of duplicates", ctx.node.id))
            known = [o.type for o in options if o.type is not None]
            t = known[0] if known else None
            if t is not None and any(T.is_nullable(k) for k in known):
                t = T.make_nullable(t)
            out.append(Field(options[0].label if options else f"switch{i}", t, nested_names_for(t)))
        else:
            out.append(Field(f"field{i}", None))
    out.append(Field("expand_index", T.i32(False)))
    ctx.info.detail = f"{duplicates or 1} copies of each row"
    return out


DERIVE: dict[str, Callable[[Context], list[Field] | None]] = {
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
    "ddl": ddl,
    "update": update,
    "hash_join": _keys_join,
    "merge_join": _keys_join,
    "nested_loop_join": join,
    "window": window,
    "exchange": exchange,
    "expand": expand,
    "top_n": top_n,
}


# ---------------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------------

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


@dataclass(frozen=True)
class Conventions:
    """How the producer read the spec where real producers differ from it.

    The defaults are the spec. Older producers wrote ProjectRel as if it output only its expressions
    (DuckDB, DataFusion before 2024). For aggregates with several grouping sets, isthmus and older
    DataFusion leave out the grouping-set column, and DataFusion since it wrote Substrait 0.60 puts its
    ``__grouping_id`` bit mask after the keys (``grouping_column``: ``"index"``, the spec; ``None``;
    ``"datafusion"``). :func:`viz.model.analyze_loaded` picks the producer's reading from the plan's
    version, or the reading that fits the plan's root names.
    """

    project_keeps_input: bool = True
    grouping_column: str | None = "index"
    #: whose implicit coercions the plan's calls follow, where their arguments match no signature
    #: (``viz.coercion``: ``"datafusion"``); None when the producer's are not known
    dialect: str | None = None

    def describe(self) -> list[str]:
        out = []
        if self.dialect == "datafusion":
            out.append(
                "calls whose argument types match no signature are run with DataFusion's type coercion (the rules "
                "of DataFusion 55, which this app is checked against; a plan names its Substrait version, not "
                "DataFusion's)"
            )
        if not self.project_keeps_input:
            out.append("ProjectRels output only their expressions (the spec: input fields, then expressions)")
        if self.grouping_column is None:
            out.append(
                "aggregates with several grouping sets have no grouping-set index column (the spec appends an i32)"
            )
        elif self.grouping_column == "datafusion":
            out.append(
                "aggregates with several grouping sets put DataFusion's grouping id (a bit mask of the keys each "
                "set leaves out) after the keys (the spec appends the i32 index of the set after the measures)"
            )
        return out


SPEC = Conventions()


def derive_schemas(graph: PlanGraph, ext: Extensions, conventions: Conventions = SPEC) -> dict[str, NodeInfo]:
    """Derive a :class:`NodeInfo` for every node of ``graph``, inputs before consumers."""
    infos: dict[str, NodeInfo] = {}
    scopes: dict[str, tuple[Sequence[Sequence[Field] | None], dict[int, Sequence[Field] | None]]] = {}
    for node_id in graph.post_order():
        node = graph.nodes[node_id]
        outer, anchors = _scope(graph, node_id, infos, scopes)
        infos[node_id] = _derive_node(node, infos, ext, outer, anchors, conventions)
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
        return _concat(*ins[:2]) if len(ins) >= 2 else None
    if node.kind == "read":
        return named_struct_fields(node.body.base_schema) if node.body.HasField("base_schema") else None
    if node.kind == "update":
        return named_struct_fields(node.body.table_schema)
    return ins[0] if ins else None


def _derive_node(node: Node, infos, ext, outer, anchors, conventions: Conventions = SPEC) -> NodeInfo:
    info_ = NodeInfo(schema=None, direct=None, incoming=None)

    def subquery_schema(rel):
        sub_id = node.subquery_rels.get(id(rel))
        if sub_id is None or sub_id not in infos:
            return ("?", None)
        return (sub_id, infos[sub_id].schema)

    typer = ExpressionTyper(ext, node.id, info_.diagnostics, subquery_schema, conventions.dialect)
    inputs = [infos[i].schema if i in infos else None for i in node.inputs]
    ctx = Context(node, inputs, ext, outer, typer, info_, anchors, conventions)
    derive = DERIVE.get(node.kind)
    if derive is None:
        if node.kind:
            info_.diagnostics.append(
                warning("unsupported-relation", f"relation kind {node.kind} is not understood; its schema is unknown", node.id)
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
        info_.diagnostics.append(warning(
            "enhancement",
            f"an advanced extension enhancement ({enhancement}) changes what this relation means, which this tool "
            "does not know: its output may differ from the one shown", node.id))
    if info_.incoming is None and node.kind not in ("read", "update"):
        info_.incoming = inputs[0] if len(inputs) == 1 else None
    if not info_.referenced_fields:
        info_.referenced_fields = typer.referenced_fields
    info_.functions = typer.used_functions
    info_.typed = typer.typed
    if info_.schema is None and not any(d.severity.value != "info" or d.code == "unknown-schema" for d in info_.diagnostics):
        missing = [i for i, s in zip(node.inputs, inputs) if s is None]
        if missing:
            info_.diagnostics.append(
                info("unknown-input-schema", f"the schema is unknown because input {', '.join(missing)} is unknown", node.id)
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


def _label_roots(graph: PlanGraph, infos: dict[str, NodeInfo]) -> None:
    """Relabel each RelRoot's node with the root names; report a count mismatch."""
    for root_id, names in graph.root_names.items():
        info_ = infos.get(root_id)
        if info_ is None or info_.schema is None or not names:
            continue
        info_.schema = _relabel(info_.schema, names, info_.diagnostics, root_id, "root-names-mismatch", "the root")


def _relabel(fields: list[Field], names: Sequence[str], diagnostics: list[Diagnostic], node_id: str, code: str,
             whose: str) -> list[Field]:
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
