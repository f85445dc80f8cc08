"""A literal as a reader would write it (10, 'Computers', 1995-03-15)."""

from __future__ import annotations

import datetime as _dt

from substrait import algebra_pb2

from ..expressions import decimal_value, literal_text
from .basics import EPOCH, and_list, capped_list, counted, date_words

Expression = algebra_pb2.Expression


#: Literal kinds a reader writes as the plan text does.
_AS_IN_TEXT = frozenset({"boolean", "i8", "i16", "i32", "i64"})


def literal_words(lit: Expression.Literal) -> str:
    """A literal as a reader would write it: 10, 2.5, 'Computers', 1995-03-15, null."""
    which = lit.WhichOneof("literal_type")
    if which is None:
        return "a value"
    if which in _AS_IN_TEXT:
        return literal_text(lit)
    value = getattr(lit, which)
    if which in ("fp32", "fp64"):
        return f"{float(value):g}"
    if which in ("string", "fixed_char"):
        return f"'{value}'"
    if which == "var_char":
        return f"'{value.value}'"
    if which == "date":
        try:
            return date_words(EPOCH + _dt.timedelta(days=value))
        except OverflowError:
            return f"day {value}"
    if which == "decimal":
        try:
            return str(decimal_value(value))
        except Exception:  # a malformed decimal: say so rather than fail
            return "a decimal"
    if which == "null":
        return "null"
    if which in ("list", "empty_list"):
        values = [literal_words(v) for v in lit.list.values] if which == "list" else []
        return "the list [" + capped_list(values, 5, "others") + "]" if values else "an empty list"
    if which in ("precision_timestamp", "precision_timestamp_tz"):
        try:
            stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=value.value / 10**value.precision)
            return stamp.isoformat(sep=" ")
        except (OverflowError, ValueError):
            return "a timestamp"
    if which == "interval_year_to_month":
        return _span([(value.years, "year"), (value.months, "month")], "0 months")
    if which == "interval_day_to_second":
        return _span([(value.days, "day"), (value.seconds, "second")], "0 seconds")
    if which == "interval_compound":
        ym, dts = value.interval_year_to_month, value.interval_day_to_second
        units = [(ym.years, "year"), (ym.months, "month"), (dts.days, "day"), (dts.seconds, "second")]
        return _span(units, "no time")
    return f"a {which.replace('_', ' ')} value"


def _span(units: list[tuple[int, str]], none: str) -> str:
    """An interval's parts in words ("1 year and 2 months"), ``none`` where every part is 0."""
    return and_list([counted(n, unit) for n, unit in units if n]) or none
