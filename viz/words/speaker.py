"""What the phrasings of functions and aggregates ask of the one who speaks a node's expressions
(:class:`viz.words.expressions.Words`): its record, and words for an expression, call or condition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from substrait import algebra_pb2

from ..fields import Field
from ..model import PlanModel

Expression = algebra_pb2.Expression


class Speaker(Protocol):
    model: PlanModel
    fields: Sequence[Field] | None
    whole: bool  # said whole, not cut short (a condition)

    def expr(self, e: Expression) -> str: ...

    def function(self, anchor: int) -> str: ...

    def args(self, arguments) -> list[str]: ...

    def predicate(self, e: Expression) -> str: ...

    def condition(self, e: Expression) -> str: ...

    def conditions(self, e: Expression) -> list[str]: ...

    def order_key(self, s) -> str: ...

    def _at(self, rel) -> str: ...
