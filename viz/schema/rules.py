"""One schema rule per relation kind (:data:`DERIVE`): each takes the node's :class:`Context` (its
inputs' schemas already derived) and returns its direct output fields, before the emit."""

from __future__ import annotations

import functools
from collections.abc import Callable

from substrait import algebra_pb2, type_pb2

from .. import types as T
from ..errors import error, info, warning
from ..expressions import and_parts, direct_field, integer_literal, is_true
from ..expressions.literals import plain_kind
from ..fields import (
    Field,
    fields_from_named_struct,
    named_struct_fields,
    nested_names_for,
    struct_members,
)
from ..kinds import emit, project_outputs_input
from .context import Context, all_nullable, concat_fields, expect_boolean, typed_field
from .layouts import GROUPING_ID, aggregate_layout, join_padding, join_type_name, project_passed_on


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
            for name, t in zip(names, types):
                why = T.problem(t)
                if why is not None:
                    ctx.diag(error("invalid-type", f"the base schema's {name} is not a valid type: {why}", ctx.node.id))
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
        ctx.diag(
            info("no-base-schema", "the virtual table has no base schema; types come from its first row", ctx.node.id)
        )
    else:
        ctx.diag(error("no-base-schema", "the read has no base schema, so its columns are unknown", ctx.node.id))
        base = None
    ctx.info.incoming = base

    if which == "named_table":
        ctx.info.detail = ".".join(r.named_table.names)
        names = list(r.named_table.names)
        if not names or not all(part.strip() for part in names):
            what = f"a part of the table's name is empty ({names!r})" if names else "the read names no table"
            ctx.diag(
                error("no-table-name", f"{what}; expected a name such as ['orders'] or ['tpch', 'orders']", ctx.node.id)
            )
    elif which == "virtual_table":
        rows = r.virtual_table.expressions
        ctx.info.detail = f"virtual table, {len(rows)} row{'s' if len(rows) != 1 else ''}"
        width = len(base) if base is not None else None
        kinds = [T.kind(f.type) for f in base] if base is not None else []
        for i, row in enumerate(rows):
            for j, e in enumerate(row.fields):
                if (
                    j < len(kinds)
                    and kinds[j] is not None
                    and e.WhichOneof("rex_type") == "literal"
                    and plain_kind(e.literal) == kinds[j]
                ):
                    continue  # a value of its column's parameterless type: nothing to check, and rows run long
                typed = ctx.typer.expr(e, ctx.scope([]))
                if (
                    base is not None
                    and j < len(base)
                    and not T.same_type_ignoring_nullability(typed.type, base[j].type)
                ):
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
                ctx.diag(
                    error(
                        "type-mismatch",
                        f"virtual table row {i} has {len(row.fields)} values for {width} columns",
                        ctx.node.id,
                    )
                )
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

    # the graph says a pushed-down filter under the table's name: else the read looks unfiltered
    if r.HasField("filter"):
        typed = ctx.expr("filter", r.filter, base)
        expect_boolean(ctx, typed, "the read filter")
        ctx.info.condition = f"where {typed.spread()}"
    if r.HasField("best_effort_filter"):
        typed = ctx.expr("best effort filter", r.best_effort_filter, base)
        ctx.info.condition = (
            f"{ctx.info.condition} · " if ctx.info.condition else ""
        ) + f"may drop rows where not {typed.spread()}"
    if r.HasField("projection") and base is not None:
        items = r.projection.select.struct_items
        picked: list[Field] = []
        for item in items:
            if 0 <= item.field < len(base):
                picked.append(
                    _masked_field(ctx, base[item.field], item.child) if item.HasField("child") else base[item.field]
                )
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
        if r.projection.HasField("select"):  # a mask that lists no field selects none (not "all")
            ctx.info.expressions.append(("projection", "no column (the rows only)"))
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
            ctx.diag(
                error(
                    "field-out-of-range",
                    f"projection of {f.name}: member {item.field} is out of range: "
                    f"the struct has {len(members)} members",
                    ctx.node.id,
                )
            )
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
    expect_boolean(ctx, typed, "the filter condition")
    ctx.info.detail = typed.spread()
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
    if not ctx.node.body.sorts:  # logical relations: "One sort field required"
        ctx.diag(error("no-sort-fields", "the sort has no sort field (the spec requires at least one)", ctx.node.id))
    return fields


def _fetch_value(ctx: Context, body, name: str, fields) -> str | None:
    expr_name = f"{name}_expr"
    if body.HasField(expr_name):
        e = getattr(body, expr_name)
        value = integer_literal(e)
        if value is not None and value < 0:
            # algebra.proto: "Evaluating to a negative integer should result in an error" (null means
            # 0 for the offset, ALL for the count; only the legacy count field used -1 for ALL)
            ctx.diag(
                error(
                    "negative-fetch",
                    f"the fetch {name} is {value}: it must not be negative (a null count means all records)",
                    ctx.node.id,
                )
            )
        typed = ctx.expr(name, e, fields)
        if typed.type is not None and T.kind(typed.type) not in ("i8", "i16", "i32", "i64"):
            if not T.is_null_type(typed.type, ctx.ext.types):  # algebra.proto: "evaluates to a non-negative integer"
                ctx.diag(
                    error(
                        "type-mismatch",
                        f"the fetch {name} must be an integer, but is {T.render(typed.type)}",
                        ctx.node.id,
                    )
                )
        return typed.text
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
    keeps_input = project_outputs_input(ctx.node.body, ctx.conventions.project_keeps_input)
    for i, e in enumerate(ctx.node.body.expressions):
        # each expression's place in the output: after the input's fields, or from 0 where they are not output
        index = f"${i}" if not keeps_input else f"${base + i}" if base is not None else f"+{i}"
        typed = ctx.expr(index, e, fields)
        added.append(typed_field(typed, f"expr{i}"))
    ctx.info.detail = f"+{len(added)} column{'s' if len(added) != 1 else ''}"
    if not keeps_input:
        ctx.info.detail = f"{len(added)} column{'s' if len(added) != 1 else ''} (expressions only)"
        return added
    mapping = emit(ctx.node.body)
    if mapping is not None and base is not None:  # what comes out: "+4 columns" read as the input and 4 more
        made = [_project_output(m, base, ctx.node.body.expressions) for m in mapping]
        ctx.info.detail = f"{len(mapping)} out: " + ", ".join(
            f"{made.count(what)} {what}" for what in ("computed", "passed on", "out of range") if what in made
        )
    return concat_fields(fields, added)


def _project_output(index: int, base: int, exprs) -> str:
    """What a project's emitted ``index`` is, over an input of ``base`` columns: "passed on" (an
    expression that only names an input column passes it on too), "computed" or "out of range"."""
    if not 0 <= index < base + len(exprs):
        return "out of range"
    return "computed" if project_passed_on(index, base, exprs) is None else "passed on"


def cross(ctx: Context) -> list[Field] | None:
    ctx.info.incoming = concat_fields(ctx.input(0), ctx.input(1))
    ctx.info.detail = "cross product"
    return ctx.info.incoming


def join_output(ctx: Context, type_name: str) -> list[Field] | None:
    left, right = ctx.input(0), ctx.input(1)
    if type_name == "JOIN_TYPE_UNSPECIFIED":
        ctx.diag(
            error(
                "unspecified-join-type",
                "the join type is unspecified; the output is derived as an inner join",
                ctx.node.id,
            )
        )
    elif type_name.removeprefix("JOIN_TYPE_").isdigit():
        ctx.diag(
            error(
                "unknown-join-type",
                f"join type number {type_name.removeprefix('JOIN_TYPE_')} is not one the spec defines; the output is "
                "derived as an inner join",
                ctx.node.id,
            )
        )
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI"):
        return left
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI"):
        return right
    mark = Field("mark", T.boolean(True))
    if type_name == "JOIN_TYPE_LEFT_MARK":
        return concat_fields(left, [mark])
    if type_name == "JOIN_TYPE_RIGHT_MARK":
        return concat_fields(right, [mark])
    if left is None or right is None:
        return None
    pad_left, pad_right = join_padding(type_name)
    return (all_nullable(left) if pad_left else list(left)) + (all_nullable(right) if pad_right else list(right))


def _short_join(type_name: str) -> str:
    return type_name.replace("JOIN_TYPE_", "").lower()


#: Join types that pair the rows of both sides (the others keep one side's rows, or mark them).
_PAIRING = frozenset({"JOIN_TYPE_INNER", "JOIN_TYPE_LEFT", "JOIN_TYPE_RIGHT", "JOIN_TYPE_OUTER"})


def join(ctx: Context) -> list[Field] | None:
    """JoinRel, and NestedLoopJoinRel (a join condition, no keys)."""
    body = ctx.node.body
    incoming = concat_fields(ctx.input(0), ctx.input(1))
    ctx.info.incoming = incoming
    name = join_type_name(body)
    on = ""
    if body.HasField("expression"):
        typed = ctx.expr("on", body.expression, incoming)
        expect_boolean(ctx, typed, "the join condition")
        on = typed.spread()
        if name == "JOIN_TYPE_LEFT_ANTI":
            _anti_join_nulls(ctx, body.expression)
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        expect_boolean(ctx, ctx.expr("post-join filter", body.post_join_filter, incoming), "the post-join filter")
    filtered = "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter")
    if on and not is_true(body.expression) or filtered or name not in _PAIRING:
        ctx.info.detail = f"{_short_join(name)} on {on}" if on else _short_join(name)
    elif name == "JOIN_TYPE_INNER":  # "inner" alone reads as a join on keys; it is a CrossRel's meaning
        ctx.info.detail = "cross product"
    else:
        ctx.info.detail = f"{_short_join(name)}, no condition: every pair"
    return join_output(ctx, name)


def _anti_join_nulls(ctx: Context, condition: algebra_pb2.Expression) -> None:
    """A left anti join matching on a right column that may be null keeps a left row that no right row
    equals, also where the right has a null: SQL's NOT EXISTS. SQL's NOT IN keeps no row then, and
    Substrait has no null-aware anti join, so a producer that writes NOT IN as this join (DataFusion's
    optimizer) changes the answer; which one the SQL said cannot be known from the plan: said."""
    left, right = ctx.input(0), ctx.input(1)
    if left is None or right is None:
        return
    for part in and_parts(condition, ctx.ext.functions):
        if part.WhichOneof("rex_type") != "scalar_function":
            continue
        ref = ctx.ext.functions.get(part.scalar_function.function_reference)
        if ref is None or ref.name != "equal":
            continue
        for arg in part.scalar_function.arguments:
            i = direct_field(arg.value) if arg.HasField("value") else None
            if i is not None and len(left) <= i < len(left) + len(right) and T.is_nullable(right[i - len(left)].type):
                ctx.diag(
                    warning(
                        "anti-join-nulls",
                        f"the anti join matches on {right[i - len(left)].name}, which may be null: a left row is "
                        "kept where no right row equals it, as SQL's NOT EXISTS keeps it. Had the SQL said NOT IN, "
                        "a null on the right would keep no row at all; Substrait has no null-aware anti join, so "
                        "a plan of NOT IN made so (DataFusion's optimized form) runs as NOT EXISTS",
                        ctx.node.id,
                    )
                )
                return


def lateral_join(ctx: Context) -> list[Field] | None:
    return join(ctx)


#: ComparisonJoinKey.SimpleComparisonType -> how a key's comparison reads (UNSPECIFIED and EQ: "=").
_KEY_COMPARISONS = {2: "IS NOT DISTINCT FROM", 3: "MIGHT EQUAL"}


def _right_key(ctx: Context, key, left, right, incoming):
    """A right key, which indexes the right input, typed as the field of the incoming record it is (so
    that it reads ``$4:p_product_id = ...``, as a join's condition does, not ``$0`` as the left key's)."""
    simple = key.HasField("direct_reference") and key.direct_reference.HasField("struct_field")
    if left is None or right is None or not simple or not 0 <= key.direct_reference.struct_field.field < len(right):
        # said against the right input itself; its references recorded in the incoming record
        seen, ctx.typer.referenced_fields = ctx.typer.referenced_fields, set()
        typed = ctx.typer.selection(key, ctx.scope(right))
        offset = len(left) if left is not None else 0
        ctx.typer.referenced_fields = seen | {offset + i for i in ctx.typer.referenced_fields}
        return typed
    shifted = type(key)()
    shifted.CopyFrom(key)
    shifted.direct_reference.struct_field.field += len(left)
    return ctx.typer.selection(shifted, ctx.scope(incoming))


def _keys_join(ctx: Context) -> list[Field] | None:
    body = ctx.node.body
    left, right = ctx.input(0), ctx.input(1)
    incoming = concat_fields(left, right)
    ctx.info.incoming = incoming
    name = join_type_name(body)
    keys = []
    for k in body.keys:
        l = ctx.typer.selection(k.left, ctx.scope(left))
        r = _right_key(ctx, k.right, left, right, incoming)
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
        expect_boolean(ctx, ctx.expr("post-join filter", body.post_join_filter, incoming), "the post-join filter")
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
    elif body.op not in _SET_OP_NAMES:
        ctx.diag(
            error(
                "unknown-set-op",
                f"set operation number {body.op} is not one the spec defines (expected one of "
                f"{', '.join(v.name for v in _SET_OP_NAMES.values() if v.number)})",
                ctx.node.id,
            )
        )
    inputs = ctx.inputs
    if len(inputs) < 2:
        ctx.diag(
            error("too-few-inputs", f"a set operation needs at least two inputs, it has {len(inputs)}", ctx.node.id)
        )
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
        f = typed_field(typed, f"key{r}")
        if not all(pos in m for m in layout.sets):
            f = f.with_type(T.make_nullable(f.type))
        out.append(f)
        ctx.info.expressions.append(("group by", typed.text))
    if layout.grouping_column == "datafusion":
        out.append(Field(GROUPING_ID, layout.grouping_type()))
    measures = []
    for i, m in enumerate(body.measures):
        typed = ctx.typer.aggregate_function(m.measure, ctx.scope(fields))
        text = typed.text
        if m.HasField("filter"):
            cond = ctx.typer.expr(m.filter, ctx.scope(fields))
            expect_boolean(ctx, cond, f"measure {i}'s filter")  # "An optional boolean expression"
            text += f" FILTER (WHERE {cond.text})"
        ctx.info.expressions.append(("measure", text))
        measures.append(typed.label)
        out.append(typed_field(typed, f"measure{i}"))
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
        ctx.diag(
            error(
                "empty-aggregate",
                "the aggregate has no groupings and no measures, so it yields no columns",
                ctx.node.id,
            )
        )
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
            problems.append(
                f"column {i} ({b.name}) is {T.render(a.type)} in the input, {T.render(b.type)} in the table"
            )
    if problems:
        ctx.diag(
            error(
                "write-schema-mismatch",
                "the write's input does not match its table schema, which the spec requires (\"the schema must "
                'match with table_schema"): ' + "; ".join(problems),
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
    # each function's OVER clause says the relation's window, as SQL would
    rel_window = [f"PARTITION BY {', '.join(partition)}"] if partition else []
    rel_window += [f"ORDER BY {order}"] if order else []
    for i, f in enumerate(body.window_functions):
        typed = ctx.typer.window_function(f, scope, rel_window)
        ctx.info.expressions.append(("window", typed.text))
        added.append(typed_field(typed, f"window{i}"))
    parts = [f"{len(added)} window function{'s' if len(added) != 1 else ''}"]
    if partition:
        parts.append(f"partition by {', '.join(partition)}")
    if order:
        parts.append(f"order by {order}")
    ctx.info.detail = ", ".join(parts)
    if not added:  # physical relations: "Window Functions ... At least one required"
        ctx.diag(error("no-window-functions", "the window has no window function (the spec requires one)", ctx.node.id))
    return concat_fields(fields, added)


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


def _null_literal(e) -> bool:
    return e.WhichOneof("rex_type") == "literal" and e.literal.WhichOneof("literal_type") == "null"


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
            out.append(typed_field(typed, f"expr{i}"))
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
            # named by the first duplicate that is not a null (a grouping set's key "b", not "null::i64?")
            named = [o for o, d in zip(options, f.switching_field.duplicates) if not _null_literal(d)] or options
            out.append(Field(named[0].label if named else f"switch{i}", t, nested_names_for(t)))
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
