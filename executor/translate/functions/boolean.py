"""Boolean functions (``functions_boolean.yaml``); the aggregates ``bool_and`` / ``bool_or`` are in
``aggregates``."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ._common import Builder, Call, _values


def _fold(op: Callable[[Column, Column], Column], empty: bool) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        if not vals:
            return F.lit(empty)
        out = vals[0]
        for v in vals[1:]:
            out = op(out, v)  # Spark's AND / OR follow SQL's three-valued logic, as Substrait's do
        return out

    return build


def _xor(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return (a & ~b) | (~a & b)


def _and_not(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return a & ~b


SCALAR: dict[str, Builder] = {
    "and": _fold(lambda a, b: a & b, True),
    "or": _fold(lambda a, b: a | b, False),
    "not": lambda call, args: ~_values(args)[0],
    "xor": _xor,
    "and_not": _and_not,
}
