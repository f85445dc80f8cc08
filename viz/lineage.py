"""Column lineage: where a column comes from, down to table columns and literals, and where it is used.

A column is a pair ``(node id, output field index)``. For each node, one rule per relation kind
(:data:`RULES`) says where each of its direct output fields comes from, one step down
(:class:`Origin`: passed through from an input column, computed by an expression that reads some
input columns and literals, read from a table), and which of its incoming fields its conditions and
keys read (:class:`Use`: a filter condition, a join key, a sort key, a grouping key...). The node's
emit is applied after the rule, as for schemas. Expressions are read from the plan's own messages
and named as the schema pass typed them (``NodeInfo.typed``), so the texts are the inspector's.

On top of the per-node facts (computed once per node, memoised beside the model):

- :func:`trace` follows a column down to its sources (a DAG of :class:`Step`), and
  :meth:`Lineage.chains` / :func:`chain_text` write each path as
  ``[1] revenue ← sum(...) ← [5] l_extendedprice of lineitem``;
- :func:`used_by` follows it up: the columns computed from it and the conditions and keys that
  read it (or a column computed from it);
- :func:`column_sources` gives every column of a node its source table columns and literals
  (bottom-up over the whole plan, once), for ``python -m viz inspect --json``.

What cannot be followed is said, not guessed: an extension relation's columns are "unknown"; an
outer reference in a subquery is followed to the enclosing relation's input column it names; a
scalar subquery's value comes from the subquery's first column. A rule that fails on an odd plan
becomes a diagnostic naming the node; the rest of the lineage still follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from substrait import algebra_pb2

from .errors import Diagnostic, PlanError, error
from .expressions import ExpressionTyper, Scope, literal_text
from .graph import Node
from .kinds import JOIN_KINDS, emit, project_outputs_input
from .model import MemoBeside, PlanModel
from .schema import NodeInfo, aggregate_layout, join_type_name

Expression = algebra_pb2.Expression

#: A column: (node id, output field index).
Ref = tuple[str, int]

#: Expression texts in chains are cut to this many characters.
MAX_TEXT = 160
#: At most this many chains (paths from a column to its sources) are listed.
MAX_CHAINS = 40


class LineageError(PlanError):
    """A column that is not in the plan was asked for (an unknown node, or an index out of range)."""


@dataclass(frozen=True)
class Source:
    """A table column a value is read from: ``table`` ("lineitem", "virtual table", "files a.parquet")
    and the column's name and position in the table's base schema."""

    table: str
    column: str
    index: int

    def text(self) -> str:
        return f"[{self.index}] {self.column} of {self.table}"

    def to_json(self) -> dict:
        return {"table": self.table, "column": self.column}


@dataclass(frozen=True)
class Origin:
    """Where one output column of a node comes from, one step down.

    ``kind``: ``"source"`` (read from a table: ``sources``), ``"passes"`` (an input column, unchanged
    or renamed), ``"computed"`` (an expression over ``inputs`` and ``literals``) or ``"unknown"``
    (``how`` says why). ``how`` is the expression in the plan's words, or a short phrase.
    """

    kind: str
    how: str
    inputs: tuple[Ref, ...] = ()
    literals: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    note: str = ""  # e.g. "outer reference to 0.0's input"


@dataclass(frozen=True)
class Use:
    """A condition or key of node ``node`` (``role``: "filter condition", "join key", ...) that
    reads the columns ``inputs``; ``text`` is the expression in the plan's words."""

    node: str
    role: str
    text: str
    inputs: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Step:
    """One column on a lineage path, and where it comes from."""

    node: str
    index: int
    name: str
    origin: Origin

    @property
    def ref(self) -> Ref:
        return (self.node, self.index)

    def column_text(self) -> str:
        return f"[{self.index}] {self.name}"


@dataclass(frozen=True)
class Chain:
    """One path from a column down to where it ends: a table column (``source``), a literal
    (``literal``), or a step that reads nothing further (computed from nothing, or unknown)."""

    steps: tuple[Step, ...]
    source: Source | None = None
    literal: str | None = None


@dataclass(frozen=True)
class Lineage:
    """Where column ``start`` comes from: every column reached going down (``steps``, the start
    first), and the problems met on the way."""

    start: Ref
    steps: Mapping[Ref, Step]
    diagnostics: tuple[Diagnostic, ...] = ()

    def sources(self) -> list[Source]:
        return list(dict.fromkeys(s for step in self.steps.values() for s in step.origin.sources))

    def literals(self) -> list[str]:
        return list(dict.fromkeys(lit for step in self.steps.values() for lit in step.origin.literals))

    def unknown(self) -> list[Step]:
        return [s for s in self.steps.values() if s.origin.kind == "unknown"]

    def nodes(self) -> list[str]:
        """The nodes the path goes through, the start's first."""
        return list(dict.fromkeys(s.node for s in self.steps.values()))

    def edges(self) -> list[tuple[str, str]]:
        """The graph edges the path follows, as (input node, reading node) pairs."""
        out: dict[tuple[str, str], None] = {}
        for step in self.steps.values():
            for node, _ in step.origin.inputs:
                if node != step.node:
                    out[(node, step.node)] = None
        return list(out)

    def chains(self, limit: int = MAX_CHAINS) -> tuple[list[Chain], int]:
        """The paths from the start to each end (depth first, in input order), at most ``limit``,
        and how many more there are (counted up to 10 × ``limit``)."""
        out: list[Chain] = []
        more = 0
        path: list[Step] = []
        on_path: set[Ref] = set()
        stack: list[tuple[Ref, bool]] = [(self.start, False)]  # (column, leaving it)
        while stack:
            ref, leaving = stack.pop()
            if leaving:
                path.pop()
                on_path.discard(ref)
                continue
            step = self.steps.get(ref)
            if step is None or ref in on_path:
                continue
            path.append(step)
            on_path.add(ref)
            stack.append((ref, True))
            ends = [Chain(tuple(path), source=s) for s in step.origin.sources]
            ends += [Chain(tuple(path), literal=lit) for lit in step.origin.literals]
            if not step.origin.inputs and not ends:
                ends.append(Chain(tuple(path)))
            for c in ends:
                if len(out) < limit:
                    out.append(c)
                else:
                    more += 1
            if more > 10 * limit:
                break
            stack.extend((r, False) for r in reversed(step.origin.inputs))
        out.sort(key=lambda c: c.literal is not None)  # the table columns first, then the literals
        return out, more


@dataclass(frozen=True)
class Usage:
    """Where column ``start`` is used going up: the columns computed from it (directly or through
    others; nearest first), and the conditions and keys that read it or one of those columns."""

    start: Ref
    columns: tuple[Step, ...]
    conditions: tuple[Use, ...]

    def nodes(self) -> list[str]:
        return list(dict.fromkeys([*(s.node for s in self.columns), *(u.node for u in self.conditions)]))

    def edges(self) -> list[tuple[str, str]]:
        out: dict[tuple[str, str], None] = {}
        for step in self.columns:
            for node, _ in step.origin.inputs:
                if node != step.node:
                    out[(node, step.node)] = None
        for use in self.conditions:
            for node, _ in use.inputs:
                if node != use.node:
                    out[(node, use.node)] = None
        return list(out)


@dataclass(frozen=True)
class Summary:
    """A column's sources at a glance: the table columns and literals it is computed from, and
    whether some part of it could not be followed."""

    sources: tuple[Source, ...] = ()
    literals: tuple[str, ...] = ()
    unknown: bool = False

    def to_json(self) -> dict:
        out: dict = {"sources": [s.to_json() for s in self.sources]}
        if self.literals:
            out["literals"] = list(self.literals)
        if self.unknown:
            out["unknown"] = True
        return out


# ---------------------------------------------------------------------------------------------
# Reading expressions: which columns and literals an expression reads
# ---------------------------------------------------------------------------------------------

@dataclass
class _Reads:
    inputs: list[Ref] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unknown: bool = False

    def add(self, where: Ref | Source | None) -> None:
        if where is None:
            self.unknown = True
        elif isinstance(where, Source):
            if where not in self.sources:
                self.sources.append(where)
        elif where not in self.inputs:
            self.inputs.append(where)


@dataclass
class _Ctx:
    """What a rule reads: the node, its schema facts, the model, and where problems go."""

    model: PlanModel
    node: Node
    info: NodeInfo
    diagnostics: list[Diagnostic]
    #: keys met inside expressions (a window function's PARTITION BY and ORDER BY): uses of the node
    keys: list[tuple[str, Expression]] = field(default_factory=list)

    @property
    def body(self):
        return self.node.body

    def width(self, k: int = 0) -> int | None:
        if k >= len(self.node.inputs):
            return None
        info = self.model.infos.get(self.node.inputs[k])
        return len(info.schema) if info is not None and info.schema is not None else None

    def input(self, k: int, i: int) -> Ref | None:
        return (self.node.inputs[k], i) if k < len(self.node.inputs) else None

    def incoming(self, i: int) -> Ref | Source | None:
        return _incoming(self.model, self.node, i)

    def reads(self, *exprs) -> _Reads:
        out = _Reads()
        for e in exprs:
            _read_expression(self, e, out)
        return out

    def text(self, e: Expression) -> str:
        typed = self.info.typed_expression(e)
        if typed is None:  # a model whose typed expressions were not kept (a copy): type it again
            typer = ExpressionTyper(self.model.extensions, self.node.id, [], lambda rel: ("?", None))
            typed = typer.expr(e, Scope(self.info.incoming))
        return typed.text

    def role_texts(self, role: str) -> list[str]:
        """The texts the schema pass wrote for this node's expressions of ``role`` ("measure", ...), in order."""
        return [t for r, t in self.info.expressions if r == role]

    def computed(self, how: str, reads: _Reads, plain: bool = False) -> Origin:
        kind = "passes" if plain and len(reads.inputs) + len(reads.sources) == 1 else "computed"
        if not reads.inputs and not reads.sources and reads.unknown:
            return Origin("unknown", how, note="; ".join(reads.notes) or "the columns it reads are unknown")
        return Origin(kind, how, tuple(reads.inputs), tuple(reads.literals), tuple(reads.sources), "; ".join(reads.notes))

    def expression(self, e: Expression, prefix: str = "") -> Origin:
        return self.computed(prefix + self.text(e), self.reads(e), plain=_is_plain_field(e))

    def use(self, role: str, text: str, reads: _Reads) -> Use:
        return Use(self.node.id, role, text, tuple(reads.inputs))

    def passes(self, k: int, width: int | None, how: str = "passes through") -> list[Origin]:
        if width is None:
            return []
        return [Origin("passes", how, ((self.node.inputs[k], i),)) for i in range(width)]


def _is_plain_field(e: Expression) -> bool:
    if e.WhichOneof("rex_type") != "selection":
        return False
    return e.selection.WhichOneof("root_type") in (None, "root_reference", "outer_reference")


def _incoming(model: PlanModel, node: Node, i: int) -> Ref | Source | None:
    """Where field ``i`` of the record node ``node``'s expressions read comes from."""
    if node.kind in JOIN_KINDS:
        if len(node.inputs) < 2:
            return None
        left, right = (model.infos.get(n) for n in node.inputs[:2])
        if left is None or left.schema is None or i < 0:
            return None
        width = len(left.schema)
        if i < width:
            return (node.inputs[0], i)
        if right is None or right.schema is None or i - width >= len(right.schema):
            return None
        return (node.inputs[1], i - width)
    if node.kind in ("read", "update"):
        base = model.infos[node.id].incoming if node.id in model.infos else None
        if base is None or not 0 <= i < len(base):
            return None
        return Source(_table_name(node), base[i].name, i)
    if not node.inputs:
        return None
    below = model.infos.get(node.inputs[0])
    if below is None or below.schema is None or not 0 <= i < len(below.schema):
        return None  # out of range (the schema pass says so) or unknown
    return (node.inputs[0], i)


def _holder(model: PlanModel, node: Node, steps: int) -> Node | None:
    """The node ``steps`` subquery boundaries out: whose incoming record an outer reference reads."""
    nodes = model.graph.nodes
    cur: Node | None = node
    crossed = 0
    for _ in range(100_000):
        if cur is None or cur.parent is None:
            return None
        parent = nodes.get(cur.parent)
        if cur.is_subquery:
            crossed += 1
            if crossed == steps:
                return parent
        cur = parent
    return None


def _lateral(model: PlanModel, node: Node, anchor: int) -> Node | None:
    """The lateral join above ``node`` that declares rel anchor ``anchor``."""
    nodes = model.graph.nodes
    cur: Node | None = node
    for _ in range(100_000):
        if cur is None or cur.parent is None:
            return None
        cur = nodes.get(cur.parent)
        if cur is not None and cur.kind == "lateral_join" and cur.body.common.rel_anchor == anchor:
            return cur
    return None


def _selection(ctx: _Ctx, ref: Expression.FieldReference, out: _Reads) -> Expression | None:
    """Record what a field reference reads; returns the expression it is rooted in, if any."""
    root = ref.WhichOneof("root_type")
    if root == "expression":
        return ref.expression
    if root == "lambda_parameter_reference" or ref.WhichOneof("reference_type") != "direct_reference":
        return None
    seg = ref.direct_reference
    if seg.WhichOneof("reference_type") != "struct_field":
        out.unknown = True
        return None
    i = seg.struct_field.field
    if root == "outer_reference":
        outer = ref.outer_reference
        if outer.WhichOneof("outer_reference_type") == "rel_reference":
            lateral = _lateral(ctx.model, ctx.node, outer.rel_reference)
            if lateral is None or not lateral.inputs:
                out.unknown = True
                out.notes.append(f"outer reference $@{outer.rel_reference}.{i}: no lateral join declares that anchor")
                return None
            out.add((lateral.inputs[0], i))
            out.notes.append(f"outer reference to the left input of lateral join {lateral.id}")
            return None
        holder = _holder(ctx.model, ctx.node, outer.steps_out)
        if holder is None:
            out.unknown = True
            out.notes.append(f"outer reference {'^' * max(outer.steps_out, 1)}${i} steps out of every enclosing relation")
            return None
        out.add(_incoming(ctx.model, holder, i))
        note = f"outer reference to the input of {holder.id}"
        if note not in out.notes:
            out.notes.append(note)
        return None
    out.add(ctx.incoming(i))
    return None


def _subquery(ctx: _Ctx, e: Expression.Subquery, out: _Reads) -> list:
    """Record what a subquery expression reads; returns the expressions inside it still to read."""
    which = e.WhichOneof("subquery_type")
    rel, more, columns = None, [], "first"
    if which == "scalar":
        rel = e.scalar.input
    elif which == "in_predicate":
        rel, more, columns = e.in_predicate.haystack, list(e.in_predicate.needles), "all"
    elif which == "set_comparison":
        rel, more = e.set_comparison.right, [e.set_comparison.left]
    elif which == "set_predicate":
        rel, columns = e.set_predicate.tuples, "none"
    sub = ctx.node.subquery_rels.get(id(rel)) if rel is not None else None
    if sub is None:
        out.unknown = True
        out.notes.append("a subquery that is not in the graph")
        return more
    info = ctx.model.infos.get(sub)
    width = len(info.schema) if info is not None and info.schema is not None else 0
    if columns == "first" and width:
        out.add((sub, 0))
    elif columns == "all":
        for k in range(width):
            out.add((sub, k))
    out.notes.append(f"{'exists in ' if columns == 'none' else ''}subquery {sub}")
    return more


def _read_expression(ctx: _Ctx, e, out: _Reads) -> None:
    """Add what ``e`` (an expression, or any message holding expressions) reads to ``out``. Does
    not look inside subqueries' relations (their columns are the subquery's). Iterative."""
    stack: list = [e]
    while stack:
        msg = stack.pop()
        children: list = []
        if isinstance(msg, Expression):
            which = msg.WhichOneof("rex_type")
            if which == "selection":
                inner = _selection(ctx, msg.selection, out)
                if inner is not None:
                    stack.append(inner)
                continue
            if which == "subquery":
                stack.extend(reversed(_subquery(ctx, msg.subquery, out)))
                continue
            if which == "window_function":  # its value comes from its arguments; its window's keys are uses
                f = msg.window_function
                ctx.keys.extend(("partition key", p) for p in f.partitions)
                ctx.keys.extend(("sort key", k.expr) for k in f.sorts)
                stack.extend(reversed([a for a in f.arguments]))
                continue
        if isinstance(msg, Expression.Literal):
            text = literal_text(msg, ctx.model.extensions.types)
            if text not in out.literals:
                out.literals.append(text)
            continue
        if isinstance(msg, Expression.FieldReference):
            inner = _selection(ctx, msg, out)
            if inner is not None:
                stack.append(inner)
            continue
        for fd, value in msg.ListFields():
            if fd.message_type is None or fd.message_type.full_name in ("substrait.Rel", "substrait.Type"):
                continue
            if fd.is_repeated:
                if fd.message_type.GetOptions().map_entry:
                    continue
                children.extend(value)
            else:
                children.append(value)
        stack.extend(reversed(children))


# ---------------------------------------------------------------------------------------------
# One rule per relation kind: the node's direct output columns' origins and its uses
# ---------------------------------------------------------------------------------------------

@dataclass
class _Local:
    direct: list[Origin] | None  # one per direct (before emit) output field; None: unknown
    uses: list[Use] = field(default_factory=list)


def _table_name(node: Node) -> str:
    body = node.body
    if node.kind == "update":
        return ".".join(body.named_table.names) or "the updated table"
    which = body.WhichOneof("read_type")
    if which == "named_table":
        return ".".join(body.named_table.names) or "a table"
    if which == "virtual_table":
        return "virtual table"
    if which == "local_files":
        items = body.local_files.items
        first = getattr(items[0], items[0].WhichOneof("path_type") or "uri_path") if items else ""
        return f"files {first}{' …' if len(items) > 1 else ''}".strip()
    if which == "extension_table":
        return "extension table"
    if which == "iceberg_table":
        return "iceberg table"
    return "an unnamed read"


def read(ctx: _Ctx) -> _Local:
    base = ctx.info.incoming
    if base is None:
        return _Local(None)
    body = ctx.body
    picked = [item.field for item in body.projection.select.struct_items] if body.HasField("projection") else []
    columns = [b for b in picked if 0 <= b < len(base)] if picked else list(range(len(base)))
    table = _table_name(ctx.node)
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
            # the filter reads the table's columns: those this read outputs are its own columns
            own = tuple((ctx.node.id, j) for j, b in enumerate(columns) if any(s.index == b for s in reads.sources))
            uses.append(Use(ctx.node.id, role, ctx.text(e), own))
    return _Local(out, uses)


def _passing(how: str, roles: Callable[[_Ctx], list[Use]] | None = None) -> Callable[[_Ctx], _Local]:
    def rule(ctx: _Ctx) -> _Local:
        return _Local(ctx.passes(0, ctx.width(0), how) if ctx.width(0) is not None else None,
                      roles(ctx) if roles is not None else [])

    return rule


def _sort_uses(ctx: _Ctx, sorts, role: str = "sort key") -> list[Use]:
    return [ctx.use(role, ctx.text(s.expr), ctx.reads(s.expr)) for s in sorts]


def _filter_uses(ctx: _Ctx) -> list[Use]:
    return [ctx.use("filter condition", ctx.text(ctx.body.condition), ctx.reads(ctx.body.condition))]


def _fetch_uses(ctx: _Ctx) -> list[Use]:
    body = ctx.body
    out = []
    for name in ("offset_expr", "count_expr", "offset", "count"):
        if name in body.DESCRIPTOR.fields_by_name and body.DESCRIPTOR.fields_by_name[name].message_type is not None \
                and body.HasField(name):
            e = getattr(body, name)
            reads = ctx.reads(e)
            if reads.inputs:
                out.append(ctx.use("fetch " + name.replace("_expr", ""), ctx.text(e), reads))
    return out


def _top_n_uses(ctx: _Ctx) -> list[Use]:
    return _sort_uses(ctx, ctx.body.sorts) + _fetch_uses(ctx)


def _exchange_uses(ctx: _Ctx) -> list[Use]:
    body = ctx.body
    which = body.WhichOneof("exchange_kind")
    if which == "scatter_by_fields":
        out = []
        texts = ctx.role_texts("scatter by")
        for n, f in enumerate(body.scatter_by_fields.fields):
            reads = _Reads()
            _selection(ctx, f, reads)
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


def project(ctx: _Ctx) -> _Local:
    body = ctx.body
    added = [ctx.expression(e) for e in body.expressions]
    if not project_outputs_input(body, ctx.model.conventions.project_keeps_input):
        return _Local(added)
    width = ctx.width(0)
    if width is None:
        return _Local(None)
    return _Local(ctx.passes(0, width) + added)


_PADDED = {
    "JOIN_TYPE_LEFT": (False, True),
    "JOIN_TYPE_LEFT_SINGLE": (False, True),
    "JOIN_TYPE_RIGHT": (True, False),
    "JOIN_TYPE_RIGHT_SINGLE": (True, False),
    "JOIN_TYPE_OUTER": (True, True),
}


def _joined(ctx: _Ctx, type_name: str, condition: tuple[str, _Reads] | None) -> list[Origin] | None:
    left, right = ctx.width(0), ctx.width(1)
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI"):
        return ctx.passes(0, left, "from the left input") if left is not None else None
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI"):
        return ctx.passes(1, right, "from the right input") if right is not None else None
    if type_name in ("JOIN_TYPE_LEFT_MARK", "JOIN_TYPE_RIGHT_MARK"):
        k, width = (0, left) if type_name == "JOIN_TYPE_LEFT_MARK" else (1, right)
        if width is None:
            return None
        how, reads = condition if condition is not None else ("true", _Reads())
        mark = Origin("computed", f"mark: whether a row matches on {how}", tuple(reads.inputs), tuple(reads.literals))
        return ctx.passes(k, width, f"from the {'left' if k == 0 else 'right'} input") + [mark]
    if left is None or right is None:
        return None
    pad_left, pad_right = _PADDED.get(type_name, (False, False))
    unmatched = " (null where unmatched)"
    return (ctx.passes(0, left, "from the left input" + (unmatched if pad_left else ""))
            + ctx.passes(1, right, "from the right input" + (unmatched if pad_right else "")))


def join(ctx: _Ctx) -> _Local:
    """JoinRel, NestedLoopJoinRel and LateralJoinRel: a condition over left then right fields."""
    body = ctx.body
    uses, condition = [], None
    if body.HasField("expression"):
        reads = ctx.reads(body.expression)
        condition = (ctx.text(body.expression), reads)
        uses.append(ctx.use("join condition", condition[0], reads))
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        e = body.post_join_filter
        uses.append(ctx.use("post-join filter", ctx.text(e), ctx.reads(e)))
    return _Local(_joined(ctx, join_type_name(body), condition), uses)


def _keys_join(ctx: _Ctx) -> _Local:
    """HashJoinRel and MergeJoinRel: key pairs (left keys read the left input, right keys the right)."""
    body = ctx.body
    texts = ctx.role_texts("key")
    uses = []
    reads_all = _Reads()
    for n, k in enumerate(body.keys):
        reads = _Reads()
        left = _Reads()
        _selection(ctx, k.left, left)  # the left input's own field indices: the same as incoming ones
        reads.inputs.extend(left.inputs)
        if len(ctx.node.inputs) > 1:
            right = k.right
            if right.WhichOneof("reference_type") == "direct_reference" and \
                    right.direct_reference.WhichOneof("reference_type") == "struct_field":
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
    return _Local(_joined(ctx, join_type_name(body), condition), uses)


def cross(ctx: _Ctx) -> _Local:
    return _Local(_joined(ctx, "JOIN_TYPE_INNER", None))


def aggregate(ctx: _Ctx) -> _Local:
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
    return _Local(out, uses)


def window(ctx: _Ctx) -> _Local:
    body = ctx.body
    width = ctx.width(0)
    if width is None:
        return _Local(None)
    texts = ctx.role_texts("window")
    added = []
    for i, f in enumerate(body.window_functions):
        text = texts[i] if i < len(texts) else f"window function {i}"
        added.append(ctx.computed(text, ctx.reads(*f.arguments)))
    uses = [ctx.use("partition key", ctx.text(e), ctx.reads(e)) for e in body.partition_expressions]
    uses += _sort_uses(ctx, body.sorts)
    return _Local(ctx.passes(0, width) + added, uses)


_SET_OPS = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number


def set_(ctx: _Ctx) -> _Local:
    body = ctx.body
    widths = [ctx.width(k) for k in range(len(ctx.node.inputs))]
    if not widths or widths[0] is None:
        return _Local(None)
    op = _SET_OPS[body.op].name.replace("SET_OP_", "").lower() if body.op in _SET_OPS else f"set op {body.op}"
    out = []
    for d in range(widths[0]):
        inputs = tuple((n, d) for n, w in zip(ctx.node.inputs, widths) if w is not None and d < w)
        out.append(Origin("passes" if len(inputs) == 1 else "computed", f"{op} of column {d} of each input", inputs))
    return _Local(out)


def expand(ctx: _Ctx) -> _Local:
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
    return _Local(out)


def extension(ctx: _Ctx) -> _Local:
    return _Local(None)


def write(ctx: _Ctx) -> _Local:
    body = ctx.body
    if body.output != algebra_pb2.WriteRel.OUTPUT_MODE_MODIFIED_RECORDS:
        return _Local([])
    return _passing("the written row's column")(ctx)


def ddl(ctx: _Ctx) -> _Local:
    return _Local([])


def update(ctx: _Ctx) -> _Local:
    base = ctx.info.incoming
    if base is None:
        return _Local(None)
    table = _table_name(ctx.node)
    out = [Origin("source", f"column {i} of {table}", sources=(Source(table, f.name, i),)) for i, f in enumerate(base)]
    for t in ctx.body.transformations:
        if 0 <= t.column_target < len(out):
            reads = ctx.reads(t.transformation)
            reads.add(Source(table, base[t.column_target].name, t.column_target))
            out[t.column_target] = ctx.computed(f"set to {ctx.text(t.transformation)}", reads)
    uses = []
    if ctx.body.HasField("condition"):
        uses.append(ctx.use("update condition", ctx.text(ctx.body.condition), ctx.reads(ctx.body.condition)))
    return _Local(out, uses)


RULES: dict[str, Callable[[_Ctx], _Local]] = {
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


# ---------------------------------------------------------------------------------------------
# The pass: per node, memoised beside the model
# ---------------------------------------------------------------------------------------------

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
    ctx = _Ctx(model, node, info, diagnostics)
    rule = RULES.get(node.kind)
    local = _Local(None)
    if rule is not None:
        try:
            local = rule(ctx)
            done = 0
            while done < len(ctx.keys):  # keys inside the expressions read (reading them may find more)
                role, e = ctx.keys[done]
                done += 1
                local.uses.append(ctx.use(role, ctx.text(e), ctx.reads(e)))
        except Exception as exc:  # an odd plan must not stop the lineage of the rest
            diagnostics.append(error("lineage-failed", f"the lineage of this {node.kind} could not be followed: "
                                                       f"{type(exc).__name__}: {exc}", node_id))
            local = _Local(None)
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
            columns.append(direct[m] if 0 <= m < len(direct)
                           else Origin("unknown", "unknown", note=f"the emit maps field {m}, which the relation does not produce"))
        if len(columns) != len(schema):
            diagnostics.append(error("lineage-width", f"lineage found {len(columns)} columns, the schema has {len(schema)}", node_id))
            columns = (columns + [Origin("unknown", "unknown", note="no lineage for this column")] * len(schema))[: len(schema)]
    result = NodeLineage(columns, local.uses, diagnostics)
    memo.nodes[node_id] = result
    return result


def _name(model: PlanModel, ref: Ref) -> str:
    info = model.infos.get(ref[0])
    schema = info.schema if info is not None else None
    return schema[ref[1]].name if schema is not None and 0 <= ref[1] < len(schema) else f"field_{ref[1]}"


def _check(model: PlanModel, node_id: str, index: int) -> None:
    if node_id not in model.graph.nodes:
        raise LineageError(f"node {node_id!r} is not in the plan (its nodes: "
                           f"{', '.join(list(model.graph.nodes)[:12])}{' …' if len(model.graph.nodes) > 12 else ''})",
                           node=node_id)
    schema = model.infos[node_id].schema
    if schema is None:
        why = _unknown_why(model, model.graph.nodes[node_id])
        raise LineageError(f"node {node_id}'s columns are unknown, so they have no lineage: {why}", node=node_id)
    if not 0 <= index < len(schema):
        valid = f"0-{len(schema) - 1}" if schema else "none"
        raise LineageError(f"field {index} is out of range: node {node_id} has {len(schema)} fields ({valid})", node=node_id)


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


# ---------------------------------------------------------------------------------------------
# Chains in words
# ---------------------------------------------------------------------------------------------

def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chain_text(chain: Chain) -> str:
    """A chain as the inspector writes it: ``[1] revenue ← sum(...) ← [5] l_extendedprice of lineitem``.

    Each column is ``[index] name``; an expression is written where a column is computed; a column
    that only passes through under the same name is written once (the start's and the table's are
    always written)."""
    tokens: list[tuple[str, str | None]] = []  # (text, the column's name, or None for an expression)

    def mention(text: str, name: str, end: bool = False) -> None:
        if tokens and tokens[-1][1] == name:
            if len(tokens) == 1 and not end:
                return  # the start, passed through under the same name
            if len(tokens) > 1:
                tokens[-1] = (text, name)  # the same column further down: the deeper mention
                return
        tokens.append((text, name))

    for k, step in enumerate(chain.steps):
        if k == 0:
            tokens.append((step.column_text(), step.name))
        elif step.origin.kind != "source" and "(" not in step.name:
            mention(step.column_text(), step.name)  # a column named by its expression is written by that
        o = step.origin
        if o.kind == "computed":
            tokens.append((_cut(o.how), None))
        elif o.kind == "unknown":
            tokens.append((f"unknown: {o.note or o.how}", None))
    if chain.source is not None:
        mention(chain.source.text(), chain.source.column, end=True)
    elif chain.literal is not None:
        tokens.append((f"literal {chain.literal}", None))
    return " ← ".join(t for t, _ in tokens)


def chain_texts(lineage: Lineage, limit: int = MAX_CHAINS) -> list[str]:
    """Every chain of ``lineage`` in words (distinct, at most ``limit``, then a count of the rest)."""
    chains, more = lineage.chains(limit)
    out = list(dict.fromkeys(chain_text(c) for c in chains))
    if more:
        out.append(f"… and {more}{'+' if more > 10 * limit else ''} more paths")
    return out


def use_text(use: Use) -> str:
    """``0.0.1 filter condition: is_null(...)``."""
    return f"{use.node} {use.role}: {_cut(use.text)}"


def step_text(step: Step) -> str:
    """``0.0 [1] revenue: sum(...)`` (how a column above is computed from the one traced)."""
    o = step.origin
    how = "" if o.kind == "passes" else f": {_cut(o.how)}"
    return f"{step.node} {step.column_text()}{how}"


__all__ = [
    "Chain", "Lineage", "LineageError", "NodeLineage", "Origin", "RULES", "Source", "Step", "Summary", "Usage", "Use",
    "chain_text", "chain_texts", "column_sources", "lineage_json", "node_lineage", "step_text",
    "trace", "use_text", "used_by",
]
