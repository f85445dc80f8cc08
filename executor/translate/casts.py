"""Casts as a plan's producer makes them: its implicit coercions (text read as its casts read it, a float
that does not fit is an error), a float's text and a float's decimal as DataFusion writes them, and the
kinds of types the casts tell apart."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import algebra_pb2, type_pb2

from viz.types import render

from ..errors import Unsupported
from ..spark.jvm import sql_type
from . import literals, text_values
from .functions._common import INT_RANGE, once, powi
from .types import to_spark

Expression = algebra_pb2.Expression

TEXT_KINDS = frozenset({"string", "varchar", "fixed_char"})
INT_KINDS = frozenset({"i8", "i16", "i32", "i64"})
ZONED_KINDS = frozenset({"precision_timestamp_tz", "timestamp_tz"})
TIMESTAMP_KINDS = frozenset({"precision_timestamp", "timestamp"}) | ZONED_KINDS
INTERVAL_KINDS = frozenset({"interval_day", "interval_year", "interval_compound"})


#: The zone of an Arrow timestamp type's name (``Timestamp(Microsecond, Some("+05:00"))``).
ARROW_ZONE = re.compile(r'"([^"]+)"')
TEXT_LITERALS = frozenset({"string", "var_char", "fixed_char"})


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


#: Text of a time with a digit other than 0 below a microsecond.
BELOW_A_MICROSECOND = re.compile(r"\.\d{6}0*[1-9]")


def folded_cast(e: Expression.Cast, target) -> Column | None:
    """A cast of a text literal in ISO form (``'1994-01-01'``) to a date, as a date literal: the value
    Spark's cast gives, without the cast and its failure check in every plan that compares dates
    (isthmus writes TPC-H's dates so). None for any other cast."""
    if not isinstance(target, S.DateType) or e.input.WhichOneof("rex_type") != "literal":
        return None
    lit = e.input.literal
    if lit.WhichOneof("literal_type") not in TEXT_LITERALS:
        return None
    text = literals.python_value(lit)
    if not _ISO_DATE.fullmatch(text):
        return None
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:  # 1994-02-30: left to the cast, which fails or gives NULL as the plan says
        return None
    return literals.date_literal(day)


def is_text(e: Expression, type_of: Callable[[Expression], type_pb2.Type | None]) -> bool:
    if e.WhichOneof("rex_type") == "literal":
        return e.literal.WhichOneof("literal_type") in TEXT_LITERALS
    t = type_of(e)
    return t is not None and t.WhichOneof("kind") in TEXT_KINDS


def may_not_fit(target: type_pb2.Type, source: type_pb2.Type | None) -> bool:
    """Whether a number cast to an integer or decimal type may not fit it: from a float, from a wider
    integer, or from a decimal or integer with more whole digits than the target holds."""
    ranges = INT_RANGE
    tk = target.WhichOneof("kind")
    sk = source.WhichOneof("kind") if source is not None else None
    if (tk not in ranges and tk != "decimal") or sk is None:
        return False
    if sk in ("fp32", "fp64"):
        return True
    # the whole digits each type holds every value of: 3 for i8 (127), 19 for i64
    whole = target.decimal.precision - target.decimal.scale if tk == "decimal" else len(str(ranges[tk][1])) - 1
    if sk in ranges:
        return ranges[tk][1] < ranges[sk][1] if tk in ranges else whole < len(str(ranges[sk][1]))
    if sk == "decimal":
        return whole < source.decimal.precision - source.decimal.scale
    return False


def fits(target: type_pb2.Type, value) -> bool:
    """Whether a literal number (or null) fits an integer or decimal type, as a cast that throws needs."""
    import decimal
    import math

    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        return True  # not a number: Spark's cast says
    if isinstance(value, float) and not math.isfinite(value):
        return False
    kind = target.WhichOneof("kind")
    if kind in INT_RANGE:
        lo, hi = INT_RANGE[kind]
        return lo <= int(value) <= hi
    whole = target.decimal.precision - target.decimal.scale
    with decimal.localcontext(prec=120):  # the default 28 digits cannot hold a decimal(38,30) rounded
        try:
            rounded = round(decimal.Decimal(str(value)), target.decimal.scale)
        except decimal.InvalidOperation:  # more digits than even that: far beyond any decimal type
            return False
        return abs(rounded) < decimal.Decimal(10) ** whole


#: While set (to False): a float's text from Spark's own expressions alone. Spark takes a call of a
#: Java method (reflect) for a value that may change from row to row, and refuses it in some places (a
#: join's condition, an aggregate function's argument); a translation refused is made again so.
_BY_REFLECTION: ContextVar[bool] = ContextVar("float_text_by_reflection", default=True)
#: Whether a float's text was made by reflection in this translation (a list: set in the translating thread).
_REFLECTED: ContextVar[list[bool] | None] = ContextVar("float_text_reflected", default=None)

#: The shortest text of a double and of a float, the nearest of those, as Java 19 writes it: Raffaello
#: Giulietti's Schubfach, which every Spark from 3.4 ships in its jackson-core. Java 17's own text has a
#: digit too many or a last digit off for some values (5.974483686777364e17 written ...365e17).
_SHORTEST = {
    "fp64": "com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal",
    "fp32": "com.fasterxml.jackson.core.io.schubfach.FloatToDecimal",
}
_SMALLEST_NORMAL = {"fp64": 2.2250738585072014e-308, "fp32": 1.1754943508222875e-38}


@contextmanager
def float_texts(by_reflection: bool) -> Iterator[Callable[[], bool]]:
    """Within: a float's text made by reflection (``by_reflection``) or from Spark's own expressions;
    yields whether one was made by reflection so far."""
    made: list[bool] = []
    tokens = _BY_REFLECTION.set(by_reflection), _REFLECTED.set(made)
    try:
        yield lambda: bool(made)
    finally:
        _REFLECTED.reset(tokens[1])
        _BY_REFLECTION.reset(tokens[0])


def datafusion_float_text(value: Column, kind: str) -> Column:
    """A float as DataFusion writes it: the fewest digits that read back as the value, the nearest of
    them (ryu's), plainly written from 1e-5 to below 1e16 (``0.00001``, ``12345678.0``), else ``1e-6``,
    ``1.5e16``; a 32-bit float from 1e-6 to below 1e13; ``NaN``, ``inf``, ``-inf``."""
    by_reflection = _BY_REFLECTION.get()
    made = _REFLECTED.get()
    if by_reflection and made is not None:
        made.append(True)
    return once(value, lambda v: _float_text(v, kind, by_reflection))


def _float_text(value: Column, kind: str, by_reflection: bool) -> Column:
    target = "float" if kind == "fp32" else "double"
    least, most = (-6, 12) if kind == "fp32" else (-5, 15)  # the powers of ten written in plain digits
    if by_reflection:
        shortest = F.reflect(F.lit(_SHORTEST[kind]), F.lit("toString"), F.coalesce(value, F.lit(0.0).cast(target)))
    else:
        shortest = F.upper(_shortest_by_expressions(value, kind))
    # Java's choice differs from ryu's only where one digit reads back: it takes the nearest of one or
    # two digits (4.9E-324), ryu the one digit (5e-324), which only a subnormal value other than 0 can have
    one_digit = F.format_string("%.0e", value)  # as DataFusion writes it
    return (
        F.when(value.isNull(), F.lit(None).cast("string"))
        .when(F.isnan(value), F.lit("NaN"))
        .when(value == float("inf"), F.lit("inf"))
        .when(value == float("-inf"), F.lit("-inf"))
        .when(
            (F.abs(value) < F.lit(_SMALLEST_NORMAL[kind]).cast(target))
            & (value != 0)
            & (one_digit.cast(target) == value),
            one_digit,
        )
        .otherwise(once(shortest, lambda text: _datafusion_notation(text, least, most)))
    )


def _datafusion_notation(text: Column, least: int, most: int) -> Column:
    """A float's shortest text, Java's (``1.0E-5``, ``123.45``: plain from 1e-3 to below 1e7) or ``%E``'s
    (``1.50000E+10``), as DataFusion writes it: plain for powers of ten from ``least`` to ``most``
    (``0.00001``), else ``1e-5``, ``1.5e20``."""
    exponent = F.substring_index(text, "E", -1).cast("int")
    sign = F.regexp_extract(text, "^-?", 0)
    # the significant digits, the point after the first: 1.0E-5 is 1, -1.05E10 is 105
    digits = F.regexp_replace(F.regexp_replace(F.substring_index(text, "E", 1), r"[-.]", ""), "0+$", "")
    whole = F.rpad(digits, F.greatest(exponent + 1, F.length(digits)), "0")
    fraction = F.substring(whole, exponent + 2, 400)
    large = F.concat(
        sign, F.substring(whole, 1, exponent + 1), F.lit("."), F.when(fraction == "", F.lit("0")).otherwise(fraction)
    )
    small = F.concat(sign, F.lit("0."), F.repeat(F.lit("0"), -exponent - 1), digits)
    point = F.when(F.length(digits) > 1, F.concat(F.lit("."), F.substring(digits, 2, 400))).otherwise(F.lit(""))
    return (
        F.when(F.instr(text, "E") == 0, text)  # Java's plain text is DataFusion's
        .when((exponent >= 0) & (exponent <= most), large)
        .when((exponent < 0) & (exponent >= least), small)
        .otherwise(F.concat(sign, F.substring(digits, 1, 1), point, F.lit("e"), exponent.cast("string")))
    )


def _shortest_by_expressions(value: Column, kind: str) -> Column:
    """The value in ``%e`` with ryu's digits, from Spark's own expressions (where Spark takes no call by
    reflection): Java 17's ``%e`` to each length, the fewest that reads back, mended where Java's digits
    are not the nearest: a large expression, slow for Spark to plan."""
    target, precisions = ("float", (6, 7, 8, 9)) if kind == "fp32" else ("double", (15, 16, 17))
    # a subnormal value has fewer digits of its own, and its fewest may be fewer than a normal one's least
    text = F.when(
        F.abs(value) < F.lit(_SMALLEST_NORMAL[kind]).cast(target),
        _fewest_digits(value, target, range(1, precisions[-1] + 1)),
    ).otherwise(_fewest_digits(value, target, precisions))
    if kind == "fp64":
        whole = (F.abs(value) >= F.lit(2.0**53)) & (F.abs(value) < F.lit(2.0**63))
        text = F.when(whole, _whole_double_text(value)).otherwise(text)
    if kind == "fp32":
        text = once(text, lambda t: _other_neighbour(value, t, target))
        text = once(text, lambda t: _ties_to_even(value, t, target))
    return text


def _fewest_digits(value: Column, target: str, precisions) -> Column:
    """The value rounded to p digits for the fewest p (of ``precisions``) that reads back as it: ryu's choice."""
    candidates = [F.format_string(f"%.{p - 1}e", value) for p in precisions]
    text = candidates[-1]
    for candidate in reversed(candidates[:-1]):
        text = F.when(candidate.cast(target) == value, candidate).otherwise(text)
    return text


_E_TEXT = r"^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$"  # Java's %e: sign, digit, digits (none at %.0e), exponent


def _whole_double_text(value: Column) -> Column:
    """A double from 2^53 to below 2^63 (a whole number a long holds) in ``%e``, with ryu's digits: the
    fewest that read back, the nearest of them, a tie to the even one. Worked out from the long, since
    Java's text of such a double rounds its last digit up where the digits it dropped are below half
    (5.974483686777364e17 written ...365e17)."""
    # the long bound once: the rest is evaluated for the rare such value only
    return once(F.abs(value).cast("long"), lambda whole: _whole_number_text(value, whole), folded=False)


def _whole_number_text(value: Column, whole: Column) -> Column:
    length = F.length(whole.cast("string"))
    exact = whole.cast("decimal(20,0)")  # rounding up near 2^63 leaves a long
    candidates = []
    for p in (15, 16, 17):
        unit = F.pow(F.lit(10), F.greatest(length - p, F.lit(0))).cast("long")  # of the p-th digit
        rest = whole % unit
        odd = (whole - rest) % (unit * 2) != 0
        up = (rest * 2 > unit) | ((rest * 2 == unit) & odd)
        # the nearest only: where it does not read back, neither does the other, the powers of two here
        # (whose gap below is the narrower) included
        candidates.append(exact - rest + up.cast("int") * unit)
    chosen = candidates[-1]  # the nearest of 17 digits always reads back
    for candidate in reversed(candidates[:-1]):
        chosen = F.when(candidate.cast("double") == F.abs(value), candidate).otherwise(chosen)
    sign = F.when(value < 0, F.lit("-")).otherwise(F.lit(""))
    return once(
        chosen.cast("string"),
        lambda d: F.concat(
            sign, F.substring(d, 1, 1), F.lit("."), F.substring(d, 2, 20), F.lit("e+"), (F.length(d) - 1).cast("string")
        ),
    )


def _other_neighbour(value: Column, text: Column, target: str) -> Column:
    """A 32-bit float's ``text`` with one digit fewer where that reads back as ``value``: Java's ``%e`` rounds
    its own digit string of the widened double, not the value, so the one-fewer candidate tried before
    ``text`` was that string's neighbour, and the value's other neighbour at that length may read back where
    it did not (2^-96: its gap below is the narrower, and 1.2621775e-29 above it does). Then it is the only
    text of that length that does: ryu's."""
    full = F.format_string("%.16e", value)
    digits = F.concat(F.regexp_extract(full, _E_TEXT, 2), F.regexp_extract(full, _E_TEXT, 3))
    fewer = F.length(F.regexp_extract(text, _E_TEXT, 3))  # text's digits but one
    kept = F.substring(digits, 1, fewer)
    # below the string where Java's rounding went up, above where it went down
    other = F.when(F.substring(digits, fewer + 1, 1) >= F.lit("5"), kept).otherwise(
        (kept.cast("decimal(18,0)") + F.lit(1)).cast("string")
    )
    carried = F.length(other) > fewer  # 99...9 and one more
    exponent = F.regexp_extract(full, _E_TEXT, 4).cast("int") + F.when(carried, 1).otherwise(0)
    point = F.when(fewer > 1, F.concat(F.lit("."), F.substring(other, 2, fewer - 1))).otherwise(F.lit(""))
    candidate = F.concat(
        F.regexp_extract(full, _E_TEXT, 1),
        F.substring(other, 1, 1),
        point,
        F.lit("e"),
        F.format_string("%+d", exponent),
    )
    return F.when((fewer > 0) & (candidate.cast(target) == value), candidate).otherwise(text)


def _ties_to_even(value: Column, text: Column, target: str) -> Column:
    """``text`` (``value`` in ``%e``, its last digit rounded half up) one unit lower where ``value`` lies
    exactly halfway between the two and both read back as it: ryu, as DataFusion's text, then takes the
    even one (3563396.25 as a 32-bit float is ``3563396.2``). Java's text of the double a float widens to
    is the float's exact value where that has ten digits or fewer, so the halfway case is seen there."""
    exact = F.regexp_replace(F.format_string("%.16e", value), r"\.?0*e", "e")  # the double's digits, no zeros after
    digits = F.length(F.regexp_extract(text, _E_TEXT, 3)) + 1
    exact_rest = F.regexp_extract(exact, _E_TEXT, 3)
    lower = F.concat(
        F.regexp_extract(exact, _E_TEXT, 1),
        F.regexp_extract(exact, _E_TEXT, 2),
        F.when(digits > 1, F.concat(F.lit("."), F.substring(exact_rest, 1, digits - 1))).otherwise(F.lit("")),
        F.lit("e"),
        F.regexp_extract(exact, _E_TEXT, 4),
    )
    halfway = (
        (F.length(exact_rest) == digits)  # one digit more than the text's, a 5
        & exact_rest.endswith("5")
        & F.regexp_extract(text, r"(\d)e", 1).isin(*"13579")  # the text's last digit odd: it was rounded up
        & (lower.cast(target) == value)
        # a float equal to a text of ten digits or fewer ending in 5 lies between 2^-14 and 2^34: beyond, the
        # widened double's short text (6.20382045e29) is not the float's exact value
        & (F.abs(value) >= F.lit(2.0**-14).cast(target))
        & (F.abs(value) < F.lit(2.0**34).cast(target))
    )
    return F.when(halfway, lower).otherwise(text)


def producer_cast(
    column: Column, source: type_pb2.Type | None, target: type_pb2.Type, datafusion: bool = False
) -> Column:
    """``column`` cast to ``target`` as a producer's implicit coercion does: text that is not a value of
    the target, or a float that does not fit it, is an error there (the session's casts give NULL). A
    DataFusion plan's text is read as its casts read it (``text_values``)."""
    kind, source_kind = target.WhichOneof("kind"), source.WhichOneof("kind") if source is not None else None
    if datafusion and kind in text_values.KINDS and source_kind in TEXT_KINDS:
        out = text_values.read(column, kind, to_spark(target))
    elif kind == "decimal" and source_kind in ("fp32", "fp64"):
        out = float_to_decimal(column, target.decimal.precision, target.decimal.scale)
    elif kind == "date" and source_kind in INT_KINDS:
        return days_to_date(column, source_kind)
    else:
        out = column.cast(sql_type(to_spark(target)))
    # a number that may not fit the decimal stops too where it does not (DataFusion's cast is an error there)
    numeric_to_decimal = kind == "decimal" and source_kind in INT_KINDS | {"decimal"} and may_not_fit(target, source)
    if source is None or source_kind in TEXT_KINDS | {"fp32", "fp64"} or numeric_to_decimal:
        return stops_where_lost(column, out, render(target), "an implicit coercion")
    return out


def days_to_date(value: Column, source_kind: str, stops: bool = True) -> Column:
    """An integer as a date: that many days from 1970-01-01 (a date's value in Substrait and Arrow, and
    DataFusion's cast; Spark casts no integer to a date). A number of days beyond an i32 stops, as
    DataFusion's cast does, or (``stops`` false: a cast that gives null on failure) is null."""
    low, high = INT_RANGE["i32"]
    fits_i32 = source_kind in ("i8", "i16", "i32")
    days = value.cast("int") if fits_i32 else F.when((value >= low) & (value <= high), value.cast("int"))
    out = F.date_from_unix_date(days)
    return out if fits_i32 or not stops else stops_where_lost(value, out, "date", "days beyond an i32")


def producer_text(
    value: Column,
    source: type_pb2.Type | None,
    datafusion: bool,
    literal: Expression.Literal | None = None,
    warn: Callable[[str], None] = lambda message: None,
) -> Column | None:
    """A number or time as text where Spark's own cast writes it otherwise than engines do; None
    where Spark's cast is the text. A decimal in plain digits to its scale (Spark writes a small one
    in scientific notation, ``0E-7``); from a DataFusion plan, a timestamp as DataFusion writes it
    (``2020-01-01T00:00:01.500``: a ``T``, and milliseconds or microseconds as needed), a float
    said where DataFusion's notation differs, and an interval ``literal`` (the value's, if it is one)
    as Arrow writes it; any other interval is refused. ``warn`` says what the run cannot know."""
    kind = source.WhichOneof("kind") if source is not None else None
    if kind in INTERVAL_KINDS:
        return _interval_text(literal, datafusion)
    if kind == "decimal":
        # format_number is exact on decimals (Java's BigDecimal, no rounding at the value's own scale)
        return F.regexp_replace(F.format_number(value, source.decimal.scale), ",", "")
    if not datafusion:
        return None
    if kind == "list":
        return _list_text(value, source.list.type, warn)
    if kind in TIMESTAMP_KINDS:
        micros = F.pmod(F.unix_micros(value.cast("timestamp")), F.lit(1_000_000))  # before 1970 too
        fraction = (
            F.when(micros == 0, F.lit(""))
            .when(micros % 1000 == 0, F.format_string(".%03d", (micros / 1000).cast("long")))
            .otherwise(F.format_string(".%06d", micros))
        )
        if kind not in ZONED_KINDS:
            return F.concat(F.date_format(value, "yyyy-MM-dd'T'HH:mm:ss"), fraction)
        warn(
            "a timestamp with a time zone as text: the plan's type carries no zone, so the run writes it in UTC "
            "(…Z); DataFusion writes it in the zone of the type it was written with"
        )
        return F.concat(F.date_format(value, "yyyy-MM-dd'T'HH:mm:ss"), fraction, F.lit("Z"))
    if kind in ("fp32", "fp64"):
        return datafusion_float_text(value, kind)
    if kind == "precision_time":  # Spark writes the fewest digits of a second, DataFusion 3, 6 or 9
        text = value.cast("string")
        fraction = F.substring_index(text, ".", -1)
        digits = (F.ceil(F.length(fraction) / 3) * 3).cast("int")
        padded = F.call_function("rpad", fraction, digits, F.lit("0"))
        return F.when(F.instr(text, ".") > 0, F.concat(F.substring_index(text, ".", 1), F.lit("."), padded)).otherwise(
            text
        )
    return None


def _list_text(value: Column, element: type_pb2.Type, warn: Callable[[str], None]) -> Column:
    """A list as DataFusion writes it: ``[1, 2, ]``, each item as its own cast writes it, a null as nothing
    (Spark writes ``[1, 2, null]``, ``1.0E20``, a timestamp with a space)."""
    if element.WhichOneof("kind") in ("struct", "map"):
        raise Unsupported(
            "a list of records or maps as text: DataFusion writes them otherwise than Spark, and the run does not "
            "know how"
        )

    def item(x: Column) -> Column:
        text = producer_text(x, element, True, warn=warn)
        return F.coalesce(text if text is not None else x.cast("string"), F.lit(""))

    return F.concat(F.lit("["), F.array_join(F.transform(value, item), ", "), F.lit("]"))


def _interval_text(literal: Expression.Literal | None, datafusion: bool) -> Column:
    """An interval as text (see :func:`producer_text`): Spark writes its own (``INTERVAL '2 00:00:00' DAY TO
    SECOND``), and its day-time interval does not keep a DataFusion interval's days apart from its time
    (``25 hours``), so only a literal's text is known."""
    if literal is not None and literal.WhichOneof("literal_type") == "null":
        return F.lit(None).cast("string")
    text = literals.datafusion_interval_text(literal) if literal is not None else None
    if text is None or not datafusion:
        raise Unsupported(
            "an interval as text, unless it is a literal of a DataFusion plan: Spark writes intervals its own "
            "way, and its day-time interval does not keep days apart from hours"
        )
    return F.lit(text)


def stops_where_lost(value: Column, cast: Column, target: str, why: str) -> Column:
    """``cast``, a cast of ``value`` that gives null where the value is no value of the ``target`` type or
    does not fit it (Spark's legacy casts); there, where ``value`` is not null, the run stops and says so."""
    message = F.concat(F.lit("cannot cast '"), value.cast("string"), F.lit(f"' to {target} ({why})"))
    return F.when(value.isNotNull() & cast.isNull(), F.raise_error(message)).otherwise(cast)


#: Powers of two a long holds; a whole double of up to 53 significant bits is a long times one of them.
_LONG_BITS = 62


def float_to_decimal(value: Column, precision: int, scale: int) -> Column:
    """A float as a decimal(``precision``, ``scale``) as Arrow casts it (DataFusion's engine): the double
    times 10^scale, rounded half away from zero, taken exactly, with the point put back. Spark's cast takes
    the double's shortest text instead, and a double beyond 2^53 is more than that text says
    (105367.67 at 15 places is 105367.669999999991808 in DataFusion, 105367.670000000000000 in Spark).
    Null where the value is not finite or needs more digits than ``precision``."""
    return once(value, lambda value: _float_as_decimal(value, precision, scale))


def _float_as_decimal(value: Column, precision: int, scale: int) -> Column:
    # a whole double: its bits are exact
    return once(
        F.round(value.cast("double") * F.lit(powi(10.0, scale)), 0),
        lambda scaled: _whole_double_as_decimal(value, scaled, precision, scale),
    )


def _whole_double_as_decimal(value: Column, scaled: Column, precision: int, scale: int) -> Column:
    size = F.abs(scaled)
    # scaled = m * 2^k with m a long: 2^k divides a whole double of 53 significant bits exactly
    k = F.greatest(F.lit(0), F.floor(F.log2(size)).cast("int") - _LONG_BITS + 1)
    m = (size / F.pow(F.lit(2.0), k)).cast("long")
    low = F.least(k, F.lit(_LONG_BITS))
    two = F.lit(2.0)  # a power of two up to 2^62 is a whole double, and a long exactly
    whole = (
        m.cast("decimal(38,0)")
        * F.pow(two, low).cast("long").cast("decimal(38,0)")
        * F.pow(two, k - low).cast("long").cast("decimal(38,0)")
    ).cast("decimal(38,0)")
    text = whole.cast("string")
    digits = F.when(F.length(text) > scale, text).otherwise(F.lpad(text, scale + 1, "0"))  # lpad also cuts
    text = F.regexp_replace(digits, rf"(\d{{{scale}}})$", ".$1") if scale else digits
    signed = F.concat(F.when(scaled < 0, F.lit("-")).otherwise(F.lit("")), text)
    finite = value.isNotNull() & ~F.isnan(value) & (F.abs(value) != float("inf"))
    return F.when(finite, signed.cast(f"decimal({precision},{scale})"))
