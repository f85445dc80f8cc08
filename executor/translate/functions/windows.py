"""Window functions (``functions_arithmetic.yaml``'s ``row_number``, ``rank``, ``lag``, ...). An
aggregate over a window is looked up in ``aggregates``."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from viz.types import render

from ...errors import Unsupported
from ._common import INT_MAX, INT_RANGE, NOT_CONSTANT, Builder, Call, _error, _spark_type, _values, held_int


def _offset_fn(fn: str) -> Builder:
    """lag / lead: Spark takes the offset only as an integer constant (producers write it as an i32 or
    i64 literal, possibly cast)."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        x = vals[0]
        offset = call.constants[1] if len(call.constants) > 1 else 1
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise Unsupported(f"{fn}: Spark takes the offset only as an integer constant")
        # Spark's offset is an int; a partition holds fewer rows than that, so one beyond it reads none
        offset = max(-INT_MAX, min(offset, INT_MAX))
        if len(vals) > 2:  # the default as an expression: PySpark's lag takes only a Python value
            return F.call_function(fn, x, F.lit(offset), _default(call, fn, vals[2]))
        return (F.lag if fn == "lag" else F.lead)(x, offset)

    return build


def _default(call: Call, fn: str, default: Column) -> Column:
    """lag's or lead's default in the type of its value, as DataFusion's engine casts it; one that does not
    fit that type (1000 for an i8, 'abc' for an i32) stops the run, as DataFusion's does, where Spark's
    cast wraps it or gives null."""
    from ..casts import fits, stops_where_lost  # casts reads the function table: imported once it is built

    value_type = call.arg_types[0] if call.arg_types else None
    target = _spark_type(value_type)
    if value_type is None or target is None:
        return default
    why, shown = f"{fn}'s default takes the type of its value", render(value_type).rstrip("?")
    constant = call.constants[2] if len(call.constants) > 2 else NOT_CONSTANT
    if constant is not NOT_CONSTANT and value_type.WhichOneof("kind") in (*INT_RANGE, "decimal"):
        if not fits(value_type, constant):
            return _error(f"cannot cast '{constant}' to {shown} ({why})")
    return stops_where_lost(default, default.try_cast(target), shown, why)


def _nth_value(call: Call, args: list) -> Column:
    """``nth_value(x, n)``: the frame's n-th value; DataFusion counts a negative n from the frame's end,
    which Spark's does not take."""
    n = call.constants[1] if len(call.constants) > 1 else None
    if isinstance(n, int) and not isinstance(n, bool) and n < 1:
        raise Unsupported(
            f"nth_value(x, {n}): DataFusion counts from the frame's end, Spark's nth_value only from its start"
        )
    x, offset = _values(args)[:2]
    if isinstance(n, int) and n > INT_MAX:  # beyond any frame: null, as DataFusion gives (Spark's int would wrap)
        offset = F.lit(INT_MAX)
    return F.call_function("nth_value", x, offset)


def _ntile(call: Call, args: list) -> Column:
    """``ntile(n)``: n buckets, n a positive constant (as every engine asks; Spark's error quoted its own
    rewriting of the argument)."""
    n = call.constants[0] if call.constants else None
    if isinstance(n, int) and not isinstance(n, bool) and n < 1:
        raise Unsupported(f"ntile({n}): the number of buckets must be a positive integer")
    return F.call_function("ntile", held_int(_values(args)[0]))


WINDOW: dict[str, Builder] = {
    "row_number": lambda call, args: F.row_number(),
    "rank": lambda call, args: F.rank(),
    "dense_rank": lambda call, args: F.dense_rank(),
    "percent_rank": lambda call, args: F.percent_rank(),
    "cume_dist": lambda call, args: F.cume_dist(),
    # Spark takes an int only; more buckets than a partition's rows give each row its own
    "ntile": lambda call, args: _ntile(call, args),
    "lag": _offset_fn("lag"),
    "lead": _offset_fn("lead"),
    "first_value": lambda call, args: F.first(_values(args)[0]),
    "last_value": lambda call, args: F.last(_values(args)[0]),
    "nth_value": lambda call, args: _nth_value(call, args),
}
