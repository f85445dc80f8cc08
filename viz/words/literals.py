"""A literal as a reader would write it (10, 'Computers', 1995-03-15)."""

from __future__ import annotations

import datetime as _dt

from substrait import algebra_pb2

from ..expressions import decimal_value, literal_text
from ..expressions.literals import decimal_text, float_text, has_control, seconds_value, string_text, timestamp_text
from .basics import EPOCH, and_list, capped_list, counted, date_words

Expression = algebra_pb2.Expression


#: Literal kinds a reader writes as the plan text does.
_AS_IN_TEXT = frozenset({"boolean", "i8", "i16", "i32", "i64"})


def literal_words(lit: Expression.Literal, dialect: str | None = None) -> str:
    """A literal as a reader would write it: 10, 2.5, 'Computers', 1995-03-15, null; ``dialect``: the plan's
    producer's, whose unsigned integers are written as negative ones (:func:`viz.coercion.unsigned_value`)."""
    which = lit.WhichOneof("literal_type")
    if which is None:
        return "a value"
    if which in _AS_IN_TEXT:
        return literal_text(lit, dialect=dialect)
    value = getattr(lit, which)
    if which in ("fp32", "fp64"):
        return float_text(which, value)
    if which in ("string", "fixed_char", "var_char"):
        text = value.value if which == "var_char" else value
        # as written, its quotes as they are ('it's'); a newline or a tab escaped so the sentence stays whole
        return string_text(text) if has_control(text) else f"'{text}'"
    if which == "date":
        try:
            return date_words(EPOCH + _dt.timedelta(days=value))
        except OverflowError:
            return f"day {value}"
    if which == "decimal":
        try:
            return str(_number(decimal_value(value)))  # 0.1, not its type's 0.1000000000
        except Exception:  # a malformed decimal: say so rather than fail
            return "a decimal"
    if which == "null":
        return "null"
    if which in ("list", "empty_list"):
        values = [literal_words(v, dialect) for v in lit.list.values] if which == "list" else []
        return "the list [" + capped_list(values, 5, "others") + "]" if values else "an empty list"
    if which in ("precision_timestamp", "precision_timestamp_tz"):
        text = timestamp_text(value.value, value.precision)
        return text + " UTC" if which == "precision_timestamp_tz" else text
    if which == "interval_year_to_month":
        return _span([(value.years, "year"), (value.months, "month")], "0 months")
    if which == "interval_day_to_second":
        return _span([(value.days, "day"), *_clock(seconds_value(value))], "0 seconds")
    if which == "interval_compound":
        ym, dts = value.interval_year_to_month, value.interval_day_to_second
        units = [(ym.years, "year"), (ym.months, "month"), (dts.days, "day"), *_clock(seconds_value(dts))]
        return _span(units, "no time")
    return f"a {which.replace('_', ' ')} value"


def _clock(seconds) -> list[tuple]:
    """Seconds as hours, minutes and seconds (5400 as 1 hour and 30 minutes; a day's 86400 as 24 hours,
    not a day, which is not always as long); a negative count as seconds."""
    if seconds < 0:
        return [(seconds, "second")]
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, _ = divmod(rest, 60)
    return [(hours, "hour"), (minutes, "minute"), (seconds - hours * 3600 - minutes * 60, "second")]


def _span(units: list[tuple], none: str) -> str:
    """An interval's parts in words ("1 year and 2.5 seconds"), ``none`` where every part is 0."""
    return and_list([counted(_number(n), unit) for n, unit in units if n]) or none


def _number(n) -> int | str:
    """A count of units as it is said: a whole number as one, a fraction with its digits (1.25)."""
    if n == int(n):
        return int(n)
    text = decimal_text(n)
    return text.rstrip("0").rstrip(".") if "." in text else text  # 0.1, not 0.1000000000 (every digit kept)
