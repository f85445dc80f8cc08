"""One lineage rule per relation kind (:data:`RULES`): where each of the node's direct output
columns comes from, one step down, and which incoming columns its conditions and keys read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from substrait import algebra_pb2

from ..kinds import emitted_at, project_outputs_input
from ..schema import aggregate_layout, join_padding, join_type_name
from .reading import Context, Reads, read_selection, table_name
from .results import Origin, Source, Use

Expression = algebra_pb2.Expression


@dataclass
class RuleResult:
    """What a rule finds for its node: its direct output columns' origins and its uses."""

    direct: list[Origin] | None  # one per direct (before emit) output field; None: unknown
    uses: list[Use] = field(default_factory=list)


def read(ctx: Context) -> RuleResult:
    base = ctx.info.incoming
    if base is None:
        return RuleResult(None)
    body = ctx.body
    picked = [item.field for item in body.projection.select.struct_items] if body.HasField("projection") else []
    columns = [b for b in picked if 0 <= b < len(base)] if picked else list(range(len(base)))
    table = table_name(ctx.node)
    rows = body.virtual_table.expressions if body.WhichOneof("read_type") == "virtual_table" else []
    out = []
    for b in columns:
        values: list[str] = []
        for row in rows[:5]:
            if b < len(row.fields):
                values.extend(ctx.reads(row.fields[b]).literals)
        source = Source(table, base[b].name, b)
        out.append(Origin("source", f"column {b} of {table}", literals=tuple(dict.fromkeys(values)), sources=(source,)))
    uses = []
    for role, name in (("read filter", "filter"), ("best effort filter", "best_effort_filter")):
        if body.HasField(name):
            e = getattr(body, name)
            reads = ctx.reads(e)
            # the filter reads the table's columns: those this read outputs are its own columns, where its emit
            # puts them
            read_here = [j for j, b in enumerate(columns) if any(s.index == b for s in reads.sources)]
            own = tuple((ctx.node.id, o) for j in read_here for o in emitted_at(body, j))
            uses.append(Use(ctx.node.id, role, ctx.text(e), own))
    return RuleResult(out, uses)


def _passing(how: str, roles: Callable[[Context], list[Use]] | None = None) -> Callable[[Context], RuleResult]:
    def rule(ctx: Context) -> RuleResult:
        return RuleResult(
            ctx.passes(0, ctx.width(0), how) if ctx.width(0) is not None else None,
            roles(ctx) if roles is not None else [],
        )

    return rule


def _sort_uses(ctx: Context, sorts, role: str = "sort key") -> list[Use]:
    return [ctx.use(role, ctx.text(s.expr), ctx.reads(s.expr)) for s in sorts]


def _filter_uses(ctx: Context) -> list[Use]:
    return ctx.condition_uses("filter condition", ctx.body.condition)


def _fetch_uses(ctx: Context) -> list[Use]:
    body = ctx.body
    out = []
    for name in ("offset_expr", "count_expr", "offset", "count"):
        if (
            name in body.DESCRIPTOR.fields_by_name
            and body.DESCRIPTOR.fields_by_name[name].message_type is not None
            and body.HasField(name)
        ):
            e = getattr(body, name)
            reads = ctx.reads(e)
            if reads.inputs:
                out.append(ctx.use("fetch " + name.replace("_expr", ""), ctx.text(e), reads))
    return out


def _top_n_uses(ctx: Context) -> list[Use]:
    return _sort_uses(ctx, ctx.body.sorts) + _fetch_uses(ctx)


def _exchange_uses(ctx: Context) -> list[Use]:
    body = ctx.body
    which = body.WhichOneof("exchange_kind")
    if which == "scatter_by_fields":
        out = []
        texts = ctx.role_texts("scatter by")
        for n, f in enumerate(body.scatter_by_fields.fields):
            reads = Reads()
            read_selection(ctx, f, reads)
            out.append(ctx.use("scatter key", texts[n] if n < len(texts) else "?", reads))
        return out
    if which in ("single_target", "multi_target"):
        e = getattr(body, which).expression
        return [ctx.use("bucket", ctx.text(e), ctx.reads(e))]
    return []


filter_ = _passing("passes through", _filter_uses)
sort = _passing("passes through", lambda ctx: _sort_uses(ctx, ctx.body.sorts))
fetch = _passing("passes through", _fetch_uses)
top_n = _passing("passes through", _top_n_uses)
exchange = _passing("passes through", _exchange_uses)
reference = _passing("the shared relation's column")


def project(ctx: Context) -> RuleResult:
    body = ctx.body
    added = [ctx.expression(e) for e in body.expressions]
    if not project_outputs_input(body, ctx.model.conventions.project_keeps_input):
        return RuleResult(added)
    width = ctx.width(0)
    if width is None:
        return RuleResult(None)
    return RuleResult(ctx.passes(0, width) + added)


def _joined(ctx: Context, type_name: str, condition: tuple[str, Reads] | None) -> list[Origin] | None:
    left, right = ctx.width(0), ctx.width(1)
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI"):
        return ctx.passes(0, left, "from the left input") if left is not None else None
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI"):
        return ctx.passes(1, right, "from the right input") if right is not None else None
    if type_name in ("JOIN_TYPE_LEFT_MARK", "JOIN_TYPE_RIGHT_MARK"):
        k, width = (0, left) if type_name == "JOIN_TYPE_LEFT_MARK" else (1, right)
        if width is None:
            return None
        how, reads = condition if condition is not None else ("true", Reads())
        mark = Origin("computed", f"mark: whether a row matches on {how}", tuple(reads.inputs), tuple(reads.literals))
        return ctx.passes(k, width, f"from the {'left' if k == 0 else 'right'} input") + [mark]
    if left is None or right is None:
        return None
    pad_left, pad_right = join_padding(type_name)
    unmatched = " (null where unmatched)"
    return ctx.passes(0, left, "from the left input" + (unmatched if pad_left else "")) + ctx.passes(
        1, right, "from the right input" + (unmatched if pad_right else "")
    )


def join(ctx: Context) -> RuleResult:
    """JoinRel, NestedLoopJoinRel and LateralJoinRel: a condition over left then right fields."""
    body = ctx.body
    uses, condition = [], None
    if body.HasField("expression"):
        reads = ctx.reads(body.expression)
        condition = (ctx.text(body.expression), reads)
        uses.extend(ctx.condition_uses("join condition", body.expression))
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        e = body.post_join_filter
        uses.extend(ctx.condition_uses("post-join filter", e))
    return RuleResult(_joined(ctx, join_type_name(body), condition), uses)


def _keys_join(ctx: Context) -> RuleResult:
    """HashJoinRel and MergeJoinRel: key pairs (left keys read the left input, right keys the right)."""
    body = ctx.body
    texts = ctx.role_texts("key")
    uses = []
    reads_all = Reads()
    for n, k in enumerate(body.keys):
        reads = Reads()
        left = Reads()
        read_selection(ctx, k.left, left)  # the left input's own field indices: the same as incoming ones
        reads.inputs.extend(left.inputs)
        if len(ctx.node.inputs) > 1:
            right = k.right
            if (
                right.WhichOneof("reference_type") == "direct_reference"
                and right.direct_reference.WhichOneof("reference_type") == "struct_field"
            ):
                reads.add((ctx.node.inputs[1], right.direct_reference.struct_field.field))
        text = texts[n] if n < len(texts) else "key"
        uses.append(ctx.use("join key", text, reads))
        for r in reads.inputs:
            reads_all.add(r)
    for name, role in (("post_join_filter", "post-join filter"), ("residual_expression", "residual condition")):
        if name in body.DESCRIPTOR.fields_by_name and body.HasField(name):
            e = getattr(body, name)
            uses.append(ctx.use(role, ctx.text(e), ctx.reads(e)))
    condition = (" AND ".join(texts), reads_all) if texts else None
    return RuleResult(_joined(ctx, join_type_name(body), condition), uses)


def cross(ctx: Context) -> RuleResult:
    return RuleResult(_joined(ctx, "JOIN_TYPE_INNER", None))


def aggregate(ctx: Context) -> RuleResult:
    body: algebra_pb2.AggregateRel = ctx.body
    layout = aggregate_layout(body, ctx.model.conventions)
    out: list[Origin] = []
    uses: list[Use] = []
    for r in layout.keys:
        e = body.grouping_expressions[r]
        origin = ctx.expression(e, "group by ")
        out.append(origin)
        uses.append(Use(ctx.node.id, "grouping key", ctx.text(e), origin.inputs))
    if layout.grouping_column == "datafusion":
        out.append(Origin("computed", "grouping id: the keys each grouping set leaves out"))
    texts = ctx.role_texts("measure")
    for i, m in enumerate(body.measures):
        text = texts[i] if i < len(texts) else f"measure {i}"
        out.append(ctx.computed(text, ctx.reads(m.measure)))
        if m.HasField("filter"):
            uses.append(ctx.use("measure filter", ctx.text(m.filter), ctx.reads(m.filter)))
    if layout.grouping_column == "index":
        out.append(Origin("computed", "the index of the row's grouping set"))
    return RuleResult(out, uses)


def window(ctx: Context) -> RuleResult:
    body = ctx.body
    width = ctx.width(0)
    if width is None:
        return RuleResult(None)
    texts = ctx.role_texts("window")
    added = []
    for i, f in enumerate(body.window_functions):
        text = texts[i] if i < len(texts) else f"window function {i}"
        added.append(ctx.computed(text, ctx.reads(*f.arguments)))
    uses = [ctx.use("partition key", ctx.text(e), ctx.reads(e)) for e in body.partition_expressions]
    uses += _sort_uses(ctx, body.sorts)
    return RuleResult(ctx.passes(0, width) + added, uses)


_SET_OPS = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number


def set_(ctx: Context) -> RuleResult:
    body = ctx.body
    widths = [ctx.width(k) for k in range(len(ctx.node.inputs))]
    if not widths or widths[0] is None:
        return RuleResult(None)
    op = _SET_OPS[body.op].name.replace("SET_OP_", "").lower() if body.op in _SET_OPS else f"set op {body.op}"
    out = []
    for d in range(widths[0]):
        inputs = tuple((n, d) for n, w in zip(ctx.node.inputs, widths) if w is not None and d < w)
        out.append(Origin("passes" if len(inputs) == 1 else "computed", f"{op} of column {d} of each input", inputs))
    return RuleResult(out)


def expand(ctx: Context) -> RuleResult:
    out: list[Origin] = []
    for f in ctx.body.fields:
        which = f.WhichOneof("field_type")
        if which == "consistent_field":
            out.append(ctx.expression(f.consistent_field))
        elif which == "switching_field":
            duplicates = list(f.switching_field.duplicates)
            text = " | ".join(ctx.text(d) for d in duplicates)
            out.append(ctx.computed(f"one of {text}", ctx.reads(*duplicates)))
        else:
            out.append(Origin("unknown", "an expand field of no kind"))
    out.append(Origin("computed", "which copy of the input row"))
    return RuleResult(out)


def extension(ctx: Context) -> RuleResult:
    return RuleResult(None)


def write(ctx: Context) -> RuleResult:
    body = ctx.body
    if body.output != algebra_pb2.WriteRel.OUTPUT_MODE_MODIFIED_RECORDS:
        return RuleResult([])
    return _passing("the written row's column")(ctx)


def ddl(ctx: Context) -> RuleResult:
    return RuleResult([])


def update(ctx: Context) -> RuleResult:
    base = ctx.info.incoming
    if base is None:
        return RuleResult(None)
    table = table_name(ctx.node)
    out = [Origin("source", f"column {i} of {table}", sources=(Source(table, f.name, i),)) for i, f in enumerate(base)]
    for t in ctx.body.transformations:
        if 0 <= t.column_target < len(out):
            reads = ctx.reads(t.transformation)
            reads.add(Source(table, base[t.column_target].name, t.column_target))
            out[t.column_target] = ctx.computed(f"set to {ctx.text(t.transformation)}", reads)
    uses = []
    if ctx.body.HasField("condition"):
        uses.append(ctx.use("update condition", ctx.text(ctx.body.condition), ctx.reads(ctx.body.condition)))
    return RuleResult(out, uses)


RULES: dict[str, Callable[[Context], RuleResult]] = {
    "read": read,
    "filter": filter_,
    "fetch": fetch,
    "aggregate": aggregate,
    "sort": sort,
    "join": join,
    "lateral_join": join,
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
