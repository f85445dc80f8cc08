"""What typing an expression yields (:class:`Typed`) and what its field references resolve against
(:class:`Scope`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from substrait import type_pb2

from .. import coercion as C
from ..fields import Field


@dataclass(frozen=True)
class Typed:
    type: type_pb2.Type | None
    text: str
    label: str
    nested: tuple[str, ...] = ()  # depth-first names when the value is a struct with known names
    enum: str | None = None  # the option, for an enumeration argument of a function
    #: for a call whose arguments match no signature (or a CASE / IN list whose values differ in
    #: type): the casts the run applies first, by the plan's producer's rules (see ``viz.coercion``)
    coercion: C.Coercion | None = None
    #: ``and`` / ``or``: the conditions it joins, those of the same function nested in it spread out
    #: (producers nest them two by two: ``and(and(and(a, b), c), d)``)
    operands: tuple[str, ...] = ()
    function: str = ""  # for a call: the function called, which joins the :attr:`operands`
    #: the type the run holds where :attr:`type` (the plan's, as the schema shows it) differs: a predicate
    #: the plan declares of another type is a boolean; the calls that take it are checked with this one
    held: type_pb2.Type | None = None

    def spread(self) -> str:
        """The text with a nested ``and`` / ``or`` spread out, ``and(a, b, c, d)``: the same condition,
        as a graph's key line shows it (the text itself stays as the plan writes it)."""
        if not self.operands:
            return self.text
        return f"{self.function}({', '.join(self.operands)})"


@dataclass
class Scope:
    """What field references resolve against.

    ``fields`` is the incoming record (None when unknown); ``outer[k-1]`` is the record ``k``
    subquery boundaries out; ``lambdas`` the parameter structs of enclosing lambdas, innermost last.
    """

    fields: Sequence[Field] | None
    outer: Sequence[Sequence[Field] | None] = ()
    lambdas: list[type_pb2.Type.Struct] = field(default_factory=list)
    anchors: dict[int, Sequence[Field] | None] = field(default_factory=dict)
