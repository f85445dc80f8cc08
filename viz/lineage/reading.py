"""What a lineage rule reads: its :class:`Context` (the node, its schema facts, the model), and
which columns and literals an expression reads (:class:`Reads`), outer references and subqueries
followed to the columns they name."""

from __future__ import annotations

from dataclasses import dataclass, field

from substrait import algebra_pb2

from ..errors import Diagnostic
from ..expressions import ExpressionTyper, Scope, and_parts, literal_text
from ..graph import Node
from ..kinds import JOIN_KINDS
from ..model import PlanModel
from ..schema import NodeInfo
from .results import Origin, Ref, Source, Use

Expression = algebra_pb2.Expression


@dataclass
class Reads:
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
class Context:
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

    def reads(self, *exprs) -> Reads:
        out = Reads()
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

    def computed(self, how: str, reads: Reads, plain: bool = False) -> Origin:
        kind = "passes" if plain and len(reads.inputs) + len(reads.sources) == 1 else "computed"
        if not reads.inputs and not reads.sources and reads.unknown:
            return Origin("unknown", how, note="; ".join(reads.notes) or "the columns it reads are unknown")
        return Origin(
            kind, how, tuple(reads.inputs), tuple(reads.literals), tuple(reads.sources), "; ".join(reads.notes)
        )

    def expression(self, e: Expression, prefix: str = "") -> Origin:
        return self.computed(prefix + self.text(e), self.reads(e), plain=_is_plain_field(e))

    def use(self, role: str, text: str, reads: Reads) -> Use:
        return Use(self.node.id, role, text, tuple(reads.inputs))

    def condition_uses(self, role: str, e: Expression) -> list[Use]:
        """A condition's uses, one per conjunct of its ``and`` (a column is used by the clause that reads
        it, not by the whole condition)."""
        return [self.use(role, self.text(c), self.reads(c)) for c in and_parts(e, self.model.extensions.functions)]

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
        return Source(table_name(node), base[i].name, i)
    if not node.inputs:
        return None
    below = model.infos.get(node.inputs[0])
    if below is None or below.schema is None or not 0 <= i < len(below.schema):
        return None  # out of range (the schema pass says so) or unknown
    return (node.inputs[0], i)


def _holder(model: PlanModel, node: Node, steps: int) -> Node | None:
    """The node ``steps`` subquery boundaries out: whose incoming record an outer reference reads."""
    holder = model.graph.enclosing(node.id, steps)
    return model.graph.nodes[holder] if holder is not None else None


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


def read_selection(ctx: Context, ref: Expression.FieldReference, out: Reads) -> Expression | None:
    """Record what a field reference reads; returns the expression it is rooted in, if any."""
    root = ref.WhichOneof("root_type")
    if root == "expression":
        return ref.expression
    if root == "lambda_parameter_reference":
        return None
    if ref.WhichOneof("reference_type") != "direct_reference":  # a masked one: which fields it keeps is not traced
        out.unknown = True
        out.notes.append("a masked reference: the fields it selects are not traced")
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
            out.notes.append(
                f"outer reference {'^' * max(outer.steps_out, 1)}${i} steps out of every enclosing relation"
            )
            return None
        out.add(_incoming(ctx.model, holder, i))
        note = f"outer reference to the input of {holder.id}"
        if note not in out.notes:
            out.notes.append(note)
        return None
    out.add(ctx.incoming(i))
    return None


def _subquery(ctx: Context, e: Expression.Subquery, out: Reads) -> list:
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


def _read_expression(ctx: Context, e, out: Reads) -> None:
    """Add what ``e`` (an expression, or any message holding expressions) reads to ``out``. Does
    not look inside subqueries' relations (their columns are the subquery's). Iterative."""
    stack: list = [e]
    while stack:
        msg = stack.pop()
        children: list = []
        if isinstance(msg, Expression):
            which = msg.WhichOneof("rex_type")
            if which == "selection":
                inner = read_selection(ctx, msg.selection, out)
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
            text = literal_text(msg, ctx.model.extensions.types, ctx.model.conventions.dialect)
            if text not in out.literals:
                out.literals.append(text)
            continue
        if isinstance(msg, Expression.FieldReference):
            inner = read_selection(ctx, msg, out)
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


def table_name(node: Node) -> str:
    """How a read (or update) names its table in lineage: its name, or what kind of read it is."""
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
