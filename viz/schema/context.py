"""What a schema rule works with: the facts derived for a node (:class:`NodeInfo`), the rule's
:class:`Context`, the producer's :class:`Conventions`, and the field helpers the rules share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from substrait import algebra_pb2

from .. import types as T
from ..errors import Diagnostic, error
from ..expressions import ExpressionTyper, Scope, Typed
from ..extensions import Extensions
from ..fields import Field, nested_names_for
from ..graph import Node


@dataclass
class NodeInfo:
    """What the schema pass derived for one node."""

    schema: list[Field] | None  # output after emit; None when it cannot be known
    direct: list[Field] | None  # output before emit
    incoming: list[Field] | None  # the record this node's expressions read
    expressions: list[tuple[str, str]] = field(default_factory=list)  # (role, rendered text)
    #: role -> (``and`` or ``or``, its conditions) for an expression that joins conditions, those of the
    #: same function nested in it spread out (``Typed.operands``)
    spread: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    detail: str = ""  # key detail for a graph label
    #: a condition the relation applies besides its key detail (a read's pushed-down filter), a line of its own
    condition: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    referenced_fields: set[int] = field(default_factory=set)  # indices of ``incoming`` read by expressions
    functions: set[int] = field(default_factory=set)  # function anchors used
    #: how many subquery boundaries the outer references in its own expressions step out, at most
    #: (0 without any): a node that reads an enclosing query's columns runs only within that query
    outer_steps: int = 0
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
    conventions: Conventions = None  # type: ignore[assignment]

    def scope(self, fields: Sequence[Field] | None) -> Scope:
        return Scope(fields, self.outer, [], self.anchors)

    def expr(self, role: str, e: algebra_pb2.Expression, fields: Sequence[Field] | None) -> Typed:
        typed = self.typer.expr(e, self.scope(fields))
        self.info.expressions.append((role, typed.text))
        if typed.operands:
            self.info.spread[role] = (typed.function, typed.operands)
        return typed

    def diag(self, d: Diagnostic) -> None:
        self.info.diagnostics.append(d)

    def input(self, k: int = 0) -> list[Field] | None:
        return self.inputs[k] if k < len(self.inputs) else None


def concat_fields(*parts: list[Field] | None) -> list[Field] | None:
    """The parts one after another, or None when any is unknown."""
    out: list[Field] = []
    for p in parts:
        if p is None:
            return None
        out.extend(p)
    return out


def all_nullable(fields: list[Field]) -> list[Field]:
    """The fields made nullable (the padded side of an outer join)."""
    return [f.with_type(T.make_nullable(f.type)) for f in fields]


def typed_field(typed: Typed, fallback: str) -> Field:
    """The output field of a typed expression, named ``fallback`` where it has no label."""
    label = typed.label or fallback
    return Field(label, typed.type, typed.nested or nested_names_for(typed.type))


def expect_boolean(ctx: Context, typed: Typed, what: str) -> None:
    """Report ``what`` (a condition) when its type is known and not boolean (a producer's own null type, a
    bare NULL, is a boolean's null)."""
    if typed.type is not None and T.kind(typed.type) != "bool" and not T.is_null_type(typed.type, ctx.ext.types):
        ctx.diag(error("type-mismatch", f"{what} must be boolean, but is {T.render(typed.type)}", ctx.node.id))


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

    @property
    def mark_may_be_null(self) -> bool:
        """Whether a mark join's mark is null where no row matches but the condition was unknown for one
        (the spec); DataFusion's is true or false only, as the EXISTS it plans is."""
        return self.dialect != "datafusion"

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
