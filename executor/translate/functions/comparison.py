"""Comparison functions (``functions_comparison.yaml``): NaN compares unequal to everything."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from viz.types import nullable_within, same_type_ignoring_nullability

from ...errors import Unsupported
from .. import records
from ._common import Builder, Call, _nan_safe, _values, months_with_days


def _compare(
    op: Callable[[Column, Column], Column],
    nan_result: bool,
    joined: Callable[[Column, Column], Column] | None = None,
) -> Builder:
    """``op`` as a comparison; ``joined`` takes Spark's answer and the zeros' signs' (:func:`_zero_signs`)
    together where one decides whatever the other says (``=``, ``<>``), else the signs decide a tie."""

    def build(call: Call, args: list) -> Column:
        if months_with_days(call):  # a month is no fixed number of days
            raise Unsupported(
                f"{call.name.split(':')[0]} of an interval of months and one of days or time: Spark orders "
                "neither against the other, and this app does not guess how many days a month is"
            )
        a, b = _comparable(call, args)
        out = op(a, b)
        texts = _zero_signs(call, a, b)
        if texts is not None:  # equal to Spark, the zeros' signs decide (a join still finds = as its key)
            out = joined(out, op(*texts)) if joined is not None else F.when(a == b, op(*texts)).otherwise(out)
        nan = _nan_safe(call, [a, b])
        if nan is None:
            return out
        return F.when(nan & a.isNotNull() & b.isNotNull(), F.lit(nan_result)).otherwise(out)

    return build


def _comparable(call: Call, args: list) -> tuple[Column, Column]:
    """The two values a comparison compares, a map as its entries (:func:`records.comparable`)."""
    a, b = _values(args)[:2]
    types = [*call.arg_types[:2], None, None]
    return records.comparable(a, types[0]), records.comparable(b, types[1])


def _zero_signs(call: Call, a: Column, b: Column) -> tuple[Column, Column] | None:
    """The tie-breaks of two lists or records of one type in a DataFusion plan (:func:`records.zero_signs`),
    or None. Of two types their texts differ in more than a zero's sign (a float's digits beside a
    double's), so Spark's comparison stands."""
    types = [*call.arg_types[:2], None, None]
    if None in types[:2] or not same_type_ignoring_nullability(*(nullable_within(t) for t in types[:2])):
        return None
    ta, tb = (records.zero_signs(v, types[0], call.dialect) for v in (a, b))
    return None if ta is None or tb is None else (ta, tb)


def _alike(call: Call, a: Column, b: Column, eq: Callable[[Column, Column], Column]) -> Column:
    """``eq(a, b)``, and in a DataFusion plan ``eq`` of their tie-breaks too (:func:`_zero_signs`): the
    zeros in lists and records of one sign."""
    texts = _zero_signs(call, a, b)
    return eq(a, b) if texts is None else eq(a, b) & eq(*texts)


def _same(call: Call, args: list) -> Column:
    """IS NOT DISTINCT FROM: equal, or both null (:func:`_alike`)."""
    return _alike(call, *_comparable(call, args), Column.eqNullSafe)


def _between(call: Call, args: list) -> Column:
    x, lo, hi = _values(args)[:3]
    return (x >= lo) & (x <= hi)


def _coalesce(call: Call, args: list) -> Column:
    return F.coalesce(*_values(args))


def _nullif(call: Call, args: list) -> Column:
    """Null where the two are equal as Spark compares them (a map as its entries; in a DataFusion plan,
    -0.0 in a list or record not 0.0), else the first."""
    same = _alike(call, *_comparable(call, args), Column.__eq__)
    return F.when(same, F.lit(None)).otherwise(_values(args)[0])


def _is_nan(call: Call, args: list) -> Column:
    x = _values(args)[0]
    return F.when(x.isNull(), F.lit(None)).otherwise(F.isnan(x))


def _is_finite(call: Call, args: list) -> Column:
    x = _values(args)[0]
    return F.when(x.isNull(), F.lit(None)).otherwise(~F.isnan(x) & (F.abs(x) != float("inf")))


def _is_infinite(call: Call, args: list) -> Column:
    x = _values(args)[0]
    return F.when(x.isNull(), F.lit(None)).otherwise(F.abs(x) == float("inf"))


def _min_max_scalar(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        return F.call_function(fn, *_values(args))

    return build


SCALAR: dict[str, Builder] = {
    "equal": _compare(lambda a, b: a == b, False, Column.__and__),
    "not_equal": _compare(lambda a, b: a != b, True, Column.__or__),
    "lt": _compare(lambda a, b: a < b, False),
    "gt": _compare(lambda a, b: a > b, False),
    "lte": _compare(lambda a, b: a <= b, False),
    "gte": _compare(lambda a, b: a >= b, False),
    "between": _between,
    "is_null": lambda call, args: _values(args)[0].isNull(),
    "is_not_null": lambda call, args: _values(args)[0].isNotNull(),
    "is_nan": _is_nan,
    "is_finite": _is_finite,
    "is_infinite": _is_infinite,
    "is_true": lambda call, args: F.coalesce(_values(args)[0] == True, F.lit(False)),  # noqa: E712
    "is_false": lambda call, args: F.coalesce(_values(args)[0] == False, F.lit(False)),  # noqa: E712
    "is_not_true": lambda call, args: F.coalesce(_values(args)[0] != True, F.lit(True)),  # noqa: E712
    "is_not_false": lambda call, args: F.coalesce(_values(args)[0] != False, F.lit(True)),  # noqa: E712
    "is_distinct_from": lambda call, args: ~_same(call, args),
    "is_not_distinct_from": _same,
    "coalesce": _coalesce,
    # DataFusion's nvl2(x, a, b): a where x is not null, else b
    "nvl2": lambda call, args: F.when(_values(args)[0].isNotNull(), _values(args)[1]).otherwise(_values(args)[2]),
    # SQL's IS [NOT] UNKNOWN of a boolean: whether it is null
    "is_unknown": lambda call, args: _values(args)[0].isNull(),
    "is_not_unknown": lambda call, args: _values(args)[0].isNotNull(),
    "nullif": _nullif,
    "least": _min_max_scalar("least"),
    "greatest": _min_max_scalar("greatest"),
}
