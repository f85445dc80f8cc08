"""Type and render expressions against the record they read.

One visitor, one dispatch table on ``Expression.rex_type`` (:mod:`viz.expressions.typer`). Each
expression yields a :class:`Typed`: its type (``None`` when it cannot be known), its text with field
indices and names (``sum(multiply($1:quantity, $3:price))``) and a short label with names only (used
to name computed columns). Problems (a field out of range, an unknown function anchor, ...) become
diagnostics of the node being derived; typing goes on with an unknown type. Literals' types and texts
are in :mod:`viz.expressions.literals`, readings that need no typing in :mod:`viz.expressions.shapes`.
"""

from .literals import decimal_value, literal_text, literal_type
from .shapes import (
    FRAMELESS,
    and_parts,
    bound_offset,
    case_base,
    contains_rex,
    direct_field,
    field_references,
    integer_literal,
    is_true,
    reference_field,
    root_fields,
    scalar_calls,
    signed_bound,
    sort_direction,
)
from .typer import ExpressionTyper, Scope, Typed

__all__ = [
    "FRAMELESS",
    "and_parts",
    "ExpressionTyper",
    "Scope",
    "Typed",
    "bound_offset",
    "signed_bound",
    "case_base",
    "contains_rex",
    "field_references",
    "root_fields",
    "scalar_calls",
    "decimal_value",
    "direct_field",
    "integer_literal",
    "is_true",
    "literal_text",
    "literal_type",
    "reference_field",
    "sort_direction",
]
