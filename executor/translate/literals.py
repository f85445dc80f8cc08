"""Substrait literals as Spark columns (and as Python values where a constant is needed).

One dispatch table on the ``Literal.literal_type`` oneof. Scalars become a typed ``lit`` (cast to the
literal's exact Spark type, so ``i8`` stays a byte and ``decimal<10,2>`` keeps its scale); nested
literals are built from their members; a typed null is a null cast to its type.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Callable
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import algebra_pb2

from viz.expressions import decimal_value, literal_type

from ..errors import Unsupported
from ..spark.jvm import date_lit, sql_type
from .types import to_spark

Literal = algebra_pb2.Expression.Literal

_EPOCH = dt.date(1970, 1, 1)
_EPOCH_DT = dt.datetime(1970, 1, 1)


def _micros(value: int, precision: int) -> int:
    """A count of 10^-precision seconds as microseconds (finer precisions are truncated)."""
    if precision >= 6:
        return value // 10 ** (precision - 6)
    return value * 10 ** (6 - precision)


def _shifted(base, delta: dt.timedelta, what: str):
    """``base + delta``, or Unsupported where Python's dates end (year 9999): not an internal error."""
    try:
        return base + delta
    except OverflowError:
        raise Unsupported(f"a {what} beyond the years 1 to 9999, which a literal here holds") from None


def _day(days: int) -> dt.date:
    return _shifted(_EPOCH, dt.timedelta(days=days), "date")


def _stamp(value: int, precision: int) -> dt.datetime:
    return _shifted(_EPOCH_DT, dt.timedelta(microseconds=_micros(value, precision)), "timestamp")


def _timestamp_text(value: int, precision: int) -> str:
    return _stamp(value, precision).isoformat(sep=" ")


def _interval_day(v) -> dt.timedelta:
    return dt.timedelta(days=v.days, seconds=v.seconds, microseconds=_micros(v.subseconds, v.precision))


def interval_parts(lit: Literal) -> tuple[int, int, int] | None:
    """An interval literal's months, days and microseconds, each as its producer wrote it (Arrow's
    month-day-nano interval keeps them apart, and moves a date by each in turn); None for a literal of
    another kind or a null."""
    which = lit.WhichOneof("literal_type")
    if which == "interval_year_to_month":
        return lit.interval_year_to_month.years * 12 + lit.interval_year_to_month.months, 0, 0
    if which == "interval_day_to_second":
        ym, ds = None, lit.interval_day_to_second
    elif which == "interval_compound":
        ym, ds = lit.interval_compound.interval_year_to_month, lit.interval_compound.interval_day_to_second
    else:
        return None
    months = 0 if ym is None else ym.years * 12 + ym.months
    return months, ds.days, ds.seconds * 1_000_000 + _micros(ds.subseconds, ds.precision)


def datafusion_interval_text(lit: Literal) -> str | None:
    """A compound interval literal as DataFusion writes it as text (Arrow's month-day-nano interval:
    ``1 mons 2 days 3 hours 4 mins 5.000000000 secs``, each part only when not zero, ``0 secs`` for none);
    None for a literal of another kind or a null."""
    if lit.WhichOneof("literal_type") != "interval_compound":
        return None
    ym, ds = lit.interval_compound.interval_year_to_month, lit.interval_compound.interval_day_to_second
    nanos = ds.seconds * 10**9 + ds.subseconds * 10 ** (9 - ds.precision) if ds.precision <= 9 else None
    if nanos is None:
        nanos = ds.seconds * 10**9 + int(ds.subseconds / 10 ** (ds.precision - 9))
    parts = []
    months = ym.years * 12 + ym.months
    if months:
        parts.append(f"{months} mons")
    if ds.days:
        parts.append(f"{ds.days} days")
    if nanos:
        # Rust's / and % cut toward zero, so each unit keeps the sign of the whole
        hours, rest = _toward_zero(nanos, 3600 * 10**9)
        minutes, rest = _toward_zero(rest, 60 * 10**9)
        seconds, fraction = _toward_zero(rest, 10**9)
        if hours:
            parts.append(f"{hours} hours")
        if minutes:
            parts.append(f"{minutes} mins")
        if seconds or fraction:
            sign = "-" if seconds < 0 or fraction < 0 else ""
            parts.append(f"{sign}{abs(seconds)}.{abs(fraction):09d} secs")
    return " ".join(parts) or "0 secs"


def _toward_zero(n: int, unit: int) -> tuple[int, int]:
    """``n`` divided by ``unit`` cut toward zero, and what is left (of ``n``'s sign)."""
    q = abs(n) // unit * (1 if n >= 0 else -1)
    return q, n - q * unit


def _compound_value(v) -> dt.timedelta:
    """A compound interval without months as the time it spans; one with months has no fixed length."""
    ym = v.interval_year_to_month
    if ym.years or ym.months:
        raise Unsupported("an interval of months has no fixed length in Python")
    return _interval_day(v.interval_day_to_second)


def python_value(lit: Literal) -> Any:
    """The literal as a plain Python value (None for a null); nested literals as lists / dicts /
    tuples. Raises ``Unsupported`` for kinds without a Python equivalent."""
    which = lit.WhichOneof("literal_type")
    handler = _VALUES.get(which or "")
    if handler is None:
        raise Unsupported(f"literal of kind `{which or 'unset'}` is not supported")
    return handler(lit)


_VALUES: dict[str, Callable[[Literal], Any]] = {
    "boolean": lambda l: l.boolean,
    "i8": lambda l: l.i8,
    "i16": lambda l: l.i16,
    "i32": lambda l: l.i32,
    "i64": lambda l: l.i64,
    "fp32": lambda l: l.fp32,
    "fp64": lambda l: l.fp64,
    "string": lambda l: l.string,
    "fixed_char": lambda l: l.fixed_char,
    "var_char": lambda l: l.var_char.value,
    "binary": lambda l: bytes(l.binary),
    "fixed_binary": lambda l: bytes(l.fixed_binary),
    "uuid": lambda l: str(uuid.UUID(bytes=bytes(l.uuid))),
    "date": lambda l: _day(l.date),
    "decimal": lambda l: decimal_value(l.decimal),
    "precision_timestamp": lambda l: _stamp(l.precision_timestamp.value, l.precision_timestamp.precision),
    "precision_timestamp_tz": lambda l: _stamp(
        l.precision_timestamp_tz.value, l.precision_timestamp_tz.precision
    ).replace(tzinfo=dt.UTC),
    "interval_day_to_second": lambda l: _interval_day(l.interval_day_to_second),
    "interval_compound": lambda l: _compound_value(l.interval_compound),
    "null": lambda l: None,
    "list": lambda l: [python_value(v) for v in l.list.values],
    "empty_list": lambda l: [],
    "struct": lambda l: tuple(python_value(f) for f in l.struct.fields),
    "map": lambda l: {python_value(kv.key): python_value(kv.value) for kv in l.map.key_values},
    "empty_map": lambda l: {},
}


# ---------------------------------------------------------------------------------------------
# Columns
# ---------------------------------------------------------------------------------------------


def _natural_type(value: Any) -> S.DataType | None:
    """The Spark type ``F.lit(value)`` makes of a plain Python value (None where it is not one of
    these): a literal of that type needs no cast (each costs Py4J round trips, and it shows in the
    plan Spark optimizes)."""
    if isinstance(value, bool):
        return S.BooleanType()
    if isinstance(value, int):
        return S.IntegerType() if -(2**31) <= value < 2**31 else S.LongType()
    if isinstance(value, float):
        return S.DoubleType()
    if isinstance(value, str):
        return S.StringType()
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return S.DateType()
    return None


def _typed(lit: Literal, value: Any) -> Column:
    t = literal_type(lit)
    if t is None:
        return F.lit(value)
    target = to_spark(t)
    if value is not None and _natural_type(value) == target:
        return F.lit(value)  # a string or fixed_char a string, an i32 an int, a date a date: no cast
    return F.lit(value).cast(sql_type(target))


def _scalar(lit: Literal) -> Column:
    return _typed(lit, python_value(lit))


def date_literal(day: dt.date) -> Column:
    """``day`` as Spark's date literal (``executor.spark.jvm.date_lit``: PySpark's own conversion of a
    Python date fails before 1582)."""
    return date_lit(day)


def _date(lit: Literal) -> Column:
    try:
        return date_literal(_day(lit.date))
    except Unsupported:  # beyond year 9999 (DataFusion folds DATE '9999-12-31' + 1 day so): Spark's date holds it
        return F.call_function("date_from_unix_date", F.lit(lit.date))


def _timestamp(lit: Literal) -> Column:
    v = lit.precision_timestamp
    return F.lit(_timestamp_text(v.value, v.precision)).cast("timestamp_ntz")


def _timestamp_tz(lit: Literal) -> Column:
    v = lit.precision_timestamp_tz
    return F.lit(_timestamp_text(v.value, v.precision) + "Z").cast("timestamp")


def _interval_year(lit: Literal) -> Column:
    v = lit.interval_year_to_month
    return F.make_ym_interval(F.lit(v.years), F.lit(v.months))


def _interval_day_col(lit: Literal) -> Column:
    return F.lit(_interval_day(lit.interval_day_to_second))


def _interval_compound(lit: Literal) -> Column:
    """A compound interval (DataFusion writes every interval this way): a year-month interval when it
    has no days or seconds, a day-time interval when it has no months, else Spark's calendar interval
    (``make_interval``), which a date or timestamp adds in the same order: months, then days, then time."""
    v = lit.interval_compound
    ym, ds = v.interval_year_to_month, v.interval_day_to_second
    day_time = _interval_day(ds)
    if not (ym.years or ym.months):
        return F.lit(day_time)
    if not day_time:
        return F.make_ym_interval(F.lit(ym.years), F.lit(ym.months))
    seconds = day_time - dt.timedelta(days=day_time.days)
    return F.make_interval(
        F.lit(ym.years),
        F.lit(ym.months),
        F.lit(0),
        F.lit(day_time.days),
        F.lit(0),
        F.lit(0),
        F.lit(decimal.Decimal(seconds // dt.timedelta(microseconds=1)).scaleb(-6)),  # exact: not through a float
    )


def _null(lit: Literal) -> Column:
    if lit.null.WhichOneof("kind") is None:
        return F.lit(None)
    return F.lit(None).cast(sql_type(to_spark(lit.null)))


def _struct(lit: Literal) -> Column:
    return F.struct(*[literal(f).alias(f"f{i}") for i, f in enumerate(lit.struct.fields)])


def _list(lit: Literal) -> Column:
    return F.array(*[literal(v) for v in lit.list.values])


def _empty(lit: Literal) -> Column:
    t = literal_type(lit)
    builder = F.array() if lit.WhichOneof("literal_type") == "empty_list" else F.create_map()
    return builder.cast(sql_type(to_spark(t))) if t is not None else builder


def _map(lit: Literal) -> Column:
    parts: list[Column] = []
    for kv in lit.map.key_values:
        parts.extend([literal(kv.key), literal(kv.value)])
    return F.create_map(*parts)


def time_text(value: int, precision: int) -> str:
    """A count of 10^-precision seconds since midnight as a time of day's text (``01:02:03.456789``)."""
    seconds, fraction = divmod(value, 10**precision)
    if not 0 <= seconds < 86_400:
        raise Unsupported(f"a time of day of {value} 10^-{precision} seconds, beyond a day, which a literal here holds")
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return text + (f".{fraction:0{precision}d}" if precision else "")


def _time(lit: Literal) -> Column:
    v = lit.precision_time
    return F.lit(time_text(v.value, v.precision)).cast(sql_type(to_spark(literal_type(lit))))


def _user_defined(lit: Literal) -> Column:
    raise Unsupported("user-defined literals are not supported")


_COLUMNS: dict[str, Callable[[Literal], Column]] = {
    **{
        k: _scalar
        for k in (
            "boolean",
            "i8",
            "i16",
            "i32",
            "i64",
            "fp32",
            "fp64",
            "string",
            "fixed_char",
            "var_char",
            "binary",
            "fixed_binary",
            "uuid",
            "decimal",
        )
    },
    "date": _date,
    "precision_timestamp": _timestamp,
    "precision_timestamp_tz": _timestamp_tz,
    "interval_year_to_month": _interval_year,
    "interval_day_to_second": _interval_day_col,
    "interval_compound": _interval_compound,
    "null": _null,
    "struct": _struct,
    "list": _list,
    "empty_list": _empty,
    "map": _map,
    "empty_map": _empty,
    "precision_time": _time,
    "user_defined": _user_defined,
}


def literal(lit: Literal) -> Column:
    """The literal as a Spark column of its exact type. Raises ``Unsupported``."""
    which = lit.WhichOneof("literal_type")
    handler = _COLUMNS.get(which or "")
    if handler is None:
        raise Unsupported(f"literal of kind `{which or 'unset'}` is not supported")
    return handler(lit)


def supported(lit: Literal) -> str | None:
    """None when the literal translates, else why not (static, no Spark)."""
    which = lit.WhichOneof("literal_type") or "unset"
    if which not in _COLUMNS or which == "user_defined":
        return f"literal of kind `{which}` is not supported"
    nested = {
        "struct": lambda: list(lit.struct.fields),
        "list": lambda: list(lit.list.values),
        "map": lambda: [x for kv in lit.map.key_values for x in (kv.key, kv.value)],
    }
    for member in nested.get(which, lambda: [])():
        reason = supported(member)
        if reason:
            return reason
    return None


__all__ = ["date_literal", "literal", "python_value", "supported"]
