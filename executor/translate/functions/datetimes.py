"""Date and time functions (``functions_datetime.yaml``); ``add`` / ``subtract`` of a date/time and an
interval are in ``arithmetic``, with the numeric ones."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ..types import DURATION_VARIATION, MICROSECONDS_KEPT
from ._common import (
    INT_RANGE,
    NOT_CONSTANT,
    Builder,
    Call,
    _arg_kind,
    _enums,
    _kind,
    _values,
    base_name,
    second_digits,
    untyped_null,
)

_WEEKDAY_MON0 = lambda x: F.call_function("weekday", x)  # noqa: E731  Monday = 0 ... Sunday = 6

_EXTRACT: dict[str, Callable[[Column], Column]] = {
    "YEAR": lambda x: F.year(x),
    "ISO_YEAR": lambda x: F.call_function("extract", F.lit("YEAROFWEEK"), x),
    "US_YEAR": lambda x: F.year(x),
    "QUARTER": lambda x: F.quarter(x),
    "MONTH": lambda x: F.month(x),
    "DAY": lambda x: F.dayofmonth(x),
    "DAY_OF_YEAR": lambda x: F.dayofyear(x),
    "MONDAY_DAY_OF_WEEK": lambda x: _WEEKDAY_MON0(x) + 1,
    "SUNDAY_DAY_OF_WEEK": lambda x: F.dayofweek(x),
    "ISO_WEEK": lambda x: F.weekofyear(x),
    "HOUR": lambda x: F.hour(x),
    "MINUTE": lambda x: F.minute(x),
    "SECOND": lambda x: F.second(x),
    "MILLISECOND": lambda x: (F.call_function("extract", F.lit("SECOND"), x) * 1000).cast("long"),
    "MICROSECOND": lambda x: (F.call_function("extract", F.lit("SECOND"), x) * 1000000).cast("long"),
    "UNIX_TIME": lambda x: F.unix_timestamp(x.cast("timestamp")),
    "SUBSECOND": lambda x: ((F.call_function("extract", F.lit("SECOND"), x) % 1) * 1000000).cast("long"),
}
#: DataFusion's ``date_part('dow', x)``: the component as a string, each as DataFusion 55 computes it (checked
#: against its engine): dow counts from Sunday = 0, isodow from Monday = 1, millisecond and microsecond
#: include the seconds (12.345678 s: 12345 and 12345678), epoch is seconds as a double.
_DATE_PART: dict[str, Callable[[Column], Column]] = {
    "YEAR": _EXTRACT["YEAR"],
    "ISOYEAR": _EXTRACT["ISO_YEAR"],
    "QUARTER": _EXTRACT["QUARTER"],
    "MONTH": _EXTRACT["MONTH"],
    "WEEK": _EXTRACT["ISO_WEEK"],
    "DAY": _EXTRACT["DAY"],
    "DOW": lambda x: F.dayofweek(x) - 1,
    "ISODOW": lambda x: _WEEKDAY_MON0(x) + 1,
    "DOY": _EXTRACT["DAY_OF_YEAR"],
    "HOUR": _EXTRACT["HOUR"],
    "MINUTE": _EXTRACT["MINUTE"],
    "SECOND": _EXTRACT["SECOND"],
    "MILLISECOND": lambda x: (F.call_function("extract", F.lit("SECOND"), x) * 1000).cast("int"),
    "MICROSECOND": lambda x: (F.call_function("extract", F.lit("SECOND"), x) * 1000000).cast("int"),
    "NANOSECOND": lambda x: (F.call_function("extract", F.lit("SECOND"), x) * 1000000000).cast("long"),
    "EPOCH": lambda x: F.call_function("unix_micros", x.cast("timestamp")).cast("double") / 1000000,
}
_ZERO_BASED = {"MONDAY_DAY_OF_WEEK", "SUNDAY_DAY_OF_WEEK", "ISO_WEEK", "MONDAY_WEEK", "SUNDAY_WEEK", "US_WEEK"}


#: The components of an interval Spark's ``extract`` gives: the interval's own field, not a date's.
_INTERVAL_FIELDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
_INTERVALS = ("interval_day", "interval_year", "interval_compound")


DAY_MICROS = 86_400_000_000
#: A duration's unit in microseconds, for DataFusion's ``date_part`` of one.
_DURATION_UNITS = {"WEEK": 7 * DAY_MICROS, "DAY": DAY_MICROS, "HOUR": 3_600_000_000, "MINUTE": 60_000_000}


def interval_micros(value: Column) -> Column:
    """The microseconds a day-time interval spans (Spark has no cast of one to a number)."""
    return F.unix_micros(F.timestamp_micros(F.lit(0)) + value)


def from_finer_units(n: Column, per_micro: int) -> Column:
    """A timestamp from a count ``n`` of units ``per_micro`` to a microsecond since 1970 (nanoseconds:
    1000), the digits below a microsecond dropped (earlier in time before 1970)."""
    n = n.cast("long")
    return F.timestamp_micros(F.call_function("div", n - F.pmod(n, F.lit(per_micro)), F.lit(per_micro)))


def _duration_part(part: object, value: Column) -> Column:
    """DataFusion's ``date_part`` of a duration: the whole units it spans, toward zero (``hour`` of 2 days 7
    hours is 55). Its milli- and microseconds and epoch keep the fraction of a second only while the
    duration's nanoseconds fit in an i32 (within 2.147 s), else they count whole seconds; its nanoseconds
    are the whole seconds' and, within that bound, the whole duration's again, as DataFusion 55 computes them."""
    field = part.upper() if isinstance(part, str) else None
    micros = interval_micros(value)
    seconds = F.call_function("div", micros, F.lit(1_000_000))  # toward zero
    fits = micros.between(-(2**31 // 1000), (2**31 - 1) // 1000)
    if field in _DURATION_UNITS:
        return F.call_function("div", micros, F.lit(_DURATION_UNITS[field]))
    if field == "SECOND":
        return seconds
    if field == "MILLISECOND":
        return F.when(fits, F.call_function("div", micros, F.lit(1_000))).otherwise(seconds * F.lit(1_000))
    if field == "MICROSECOND":
        return F.when(fits, micros).otherwise(seconds * F.lit(1_000_000))
    if field == "NANOSECOND":
        return seconds * F.lit(1_000_000_000) + F.when(fits, micros * F.lit(1_000)).otherwise(F.lit(0))
    if field == "EPOCH":
        return F.when(fits, micros / F.lit(1_000_000)).otherwise(seconds.cast("double"))
    given = repr(part) if isinstance(part, str) else "a component that is not a literal"
    mapped = ", ".join(
        f.lower() for f in (*_DURATION_UNITS, "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH")
    )
    raise Unsupported(f"date_part of {given} of a duration: mapped are {mapped}")


#: The parts of a time of day, by the names of Substrait's extract and DataFusion's date_part, as DataFusion 55
#: takes them (checked against its engine): ``epoch`` is the seconds since midnight, as a double.
_TIME_PARTS: dict[str, Callable[[Column], Column]] = {
    **{p: _DATE_PART[p] for p in ("HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND")},
    "SUBSECOND": _EXTRACT["SUBSECOND"],
    "EPOCH": lambda x: (
        (F.hour(x) * 3600 + F.minute(x) * 60).cast("decimal(20,9)") + F.call_function("extract", F.lit("SECOND"), x)
    ).cast("double"),
}


def _time_part(part, value: Column) -> Column:
    """A part of a time of day (:data:`_TIME_PARTS`); the others (a day, a year) it has none of."""
    fn = _TIME_PARTS.get(part.upper()) if isinstance(part, str) else None
    if fn is None:
        given = repr(part) if isinstance(part, str) else "a part that is not a literal"
        raise Unsupported(f"date_part of {given} of a time of day: its parts are {', '.join(_TIME_PARTS).lower()}")
    return fn(value)


def _extract(call: Call, args: list) -> Column:
    enums = _enums(args)
    vals = _values(args)
    source = call.arg_types[-1] if call.arg_types else None
    part = call.constants[0] if not enums and call.constants else (enums[0] if enums else NOT_CONSTANT)
    if _kind(source) == "precision_time":
        return _time_part(part, vals[-1])
    duration = source is not None and source.WhichOneof("kind") == "interval_day"
    if duration and call.dialect == "datafusion" and source.interval_day.type_variation_reference == DURATION_VARIATION:
        return _duration_part(part, vals[-1])
    if _arg_kind(call, len(call.arg_types) - 1) in _INTERVALS:
        if not isinstance(part, str) or part.upper() not in _INTERVAL_FIELDS:
            given = repr(part) if isinstance(part, str) else "a component that is not a literal"
            raise Unsupported(f"date_part of {given} of an interval: mapped are {', '.join(_INTERVAL_FIELDS).lower()}")
        return F.call_function("extract", F.lit(part.upper()), vals[-1])
    if not enums:  # DataFusion's date_part('year', x): the component as a string literal
        if len(vals) < 2:
            raise Unsupported("date_part/extract needs a component and a value")
        part = call.constants[0] if call.constants else NOT_CONSTANT
        fn = _DATE_PART.get(part.upper()) if isinstance(part, str) else None
        if fn is None:
            given = repr(part) if isinstance(part, str) else "a component that is not a literal"
            raise Unsupported(
                f"date_part of {given}: no Spark mapping checked against DataFusion's; mapped: "
                + ", ".join(p.lower() for p in _DATE_PART)
            )
        return fn(vals[1])
    component = enums[0]
    fn = _EXTRACT.get(component)
    if fn is None:
        raise Unsupported(f"extract component {component}: no Spark mapping; mapped: {', '.join(sorted(_EXTRACT))}")
    out = fn(vals[-1])
    if len(enums) > 1 and enums[1] == "ZERO" and component in _ZERO_BASED:
        out = out - 1
    return out


#: chrono's format codes (DataFusion's to_char and to_date) as Java's datetime patterns.
_CHRONO = {
    "Y": "yyyy",
    "y": "yy",
    "m": "MM",
    "-m": "M",
    "b": "MMM",
    "h": "MMM",
    "B": "MMMM",
    "d": "dd",
    "-d": "d",
    "j": "DDD",
    "-j": "D",
    "H": "HH",
    "-H": "H",
    "I": "hh",
    "-I": "h",
    "M": "mm",
    "-M": "m",
    "S": "ss",
    "-S": "s",
    "p": "a",
    "a": "EEE",
    "A": "EEEE",
    "f": "SSSSSSSSS",
    "3f": "SSS",
    "6f": "SSSSSS",
    "9f": "SSSSSSSSS",
    ".3f": ".SSS",
    ".6f": ".SSSSSS",
    ".9f": ".SSSSSSSSS",
    "z": "xx",
    ":z": "xxx",
    "F": "yyyy-MM-dd",
    "T": "HH:mm:ss",
    "R": "HH:mm",
    "D": "MM/dd/yy",
    "r": "hh:mm:ss a",
}
#: chrono's codes padded with a space (`` 2``), by the Java pattern of the unpadded number.
_SPACE_PADDED = {"e": "d", "k": "H", "l": "h"}
#: chrono's codes of a character.
_CHARACTERS = {"%": "%", "n": "\n", "t": "\t"}
_CODE = re.compile(r"%(-?[A-Za-z%]|\.?[369]f|:z)")
#: chrono's numbers it parses from one digit or two (three for a day of the year); between two codes,
#: Java needs their width.
_ONE_OR_TWO_DIGITS = frozenset({"m", "d", "H", "I", "M", "S", "j"})
#: chrono's codes it parses otherwise than any Java pattern reads, and how.
_NOT_PARSED = {
    "y": "chrono reads 70 to 99 as 1970 to 1999, Java's yy as 2070 to 2099",
    "D": "its %y: chrono reads 70 to 99 as 1970 to 1999, Java's yy as 2070 to 2099",
    "f": "chrono reads a count of nanoseconds, Java a fraction of a second",
    "3f": "chrono reads a count of milliseconds, Java a fraction of a second",
    "6f": "chrono reads a count of microseconds, Java a fraction of a second",
    "9f": "chrono reads a count of nanoseconds, Java a fraction of a second",
    "a": "Spark parses no names of weekdays",
    "A": "Spark parses no names of weekdays",
}


def _chrono_parts(fmt: str, what: str, parsing: bool = False) -> list[tuple[str, str]]:
    """A chrono format as parts of Spark's: ``("pattern", java)``, its text quoted, and (when
    formatting) ``("padded", java)``, a number padded with a space to two characters, which Java's
    patterns cannot say. A code Spark has no equivalent of is refused, not written as text."""
    parts: list[tuple[str, str]] = []
    pattern, text = "", ""

    def quoted() -> str:  # one quoted run: two runs side by side would read as a quote
        return "'" + text.replace("'", "''") + "'" if text else ""

    i, after_code = 0, False
    while i < len(fmt):
        if fmt[i] != "%":
            j = fmt.find("%", i)
            j = len(fmt) if j < 0 else j
            text, i, after_code = text + fmt[i:j], j, False
            continue
        code = _CODE.match(fmt, i)
        name = code.group(1) if code else fmt[i + 1 : i + 2]
        if code is None or not (name in _CHRONO or name in _CHARACTERS or name in _SPACE_PADDED):
            raise Unsupported(f"{what}: the format code %{name} of {fmt!r} has no equivalent in Spark's patterns")
        i = code.end()
        if parsing and name in _NOT_PARSED:
            raise Unsupported(f"{what}: the format code %{name} of {fmt!r} when reading text: {_NOT_PARSED[name]}")
        if name in _CHARACTERS:
            text, after_code = text + _CHARACTERS[name], False
            continue
        pattern, text = pattern + quoted(), ""
        if name in _SPACE_PADDED and not parsing:
            if pattern:
                parts.append(("pattern", pattern))
            parts.append(("padded", _SPACE_PADDED[name]))
            pattern = ""
        else:
            java = _CHRONO.get(name) or _SPACE_PADDED[name]
            if parsing and name in _SPACE_PADDED:
                java = f"[ ]{java}"  # chrono reads the space before a number padded so; an optional one for Java
            following = _CODE.match(fmt, i)
            beside_a_code = after_code or (following is not None and following.group(1) not in _CHARACTERS)
            if parsing and name in _ONE_OR_TWO_DIGITS and not beside_a_code:
                java = _CHRONO[f"-{name}"]  # chrono reads one digit or two; Java's dd two only
            pattern += java
        after_code = True
    pattern += quoted()
    if pattern or not parts:
        parts.append(("pattern", pattern))
    return parts


def _strftime(call: Call, args: list) -> Column:
    """strftime / to_char: chrono's format codes as Java's patterns, its text quoted; a day or an hour
    padded with a space (``%e``) padded here."""
    x, fmt = _values(args)[:2]
    literal = call.constants[1] if len(call.constants) > 1 else None
    if not isinstance(literal, str):
        return F.call_function("date_format", x, _java_format(fmt, "to_char"))
    out = [
        F.call_function("date_format", x, F.lit(java))
        if kind == "pattern"
        else F.lpad(F.call_function("date_format", x, F.lit(java)), 2, " ")
        for kind, java in _chrono_parts(literal, "to_char")
    ]
    return out[0] if len(out) == 1 else F.concat(*out)


#: A stand-in for chrono's ``%%`` while a format given as a column is taken apart.
_PERCENT = "\x01"


def _java_format(fmt: Column, what: str) -> Column:
    """A chrono format given as a column, as Java's pattern: each code of one letter replaced, the text
    around the codes quoted; a code Spark has no equivalent of stops the run and says so."""
    text = F.replace(fmt, F.lit("%%"), F.lit(_PERCENT))
    for code, char in _CHARACTERS.items():
        if code != "%":
            text = F.replace(text, F.lit(f"%{code}"), F.lit(char))
    codes = F.create_map(*[F.lit(x) for code, java in _CHRONO.items() if len(code) == 1 for x in (code, java)])
    unknown = F.raise_error(
        F.concat(
            F.lit(f"{what}: the format "),
            fmt,
            F.lit(" has a code with no equivalent in Spark's patterns (in a format that is not a literal, "),
            F.lit("only codes of one letter other than %e, %k and %l are mapped)"),
        )
    )

    def quoted(t: Column) -> Column:
        inner = F.replace(F.replace(t, F.lit("'"), F.lit("''")), F.lit(_PERCENT), F.lit("%"))
        return F.when(t == "", F.lit("")).otherwise(F.concat(F.lit("'"), inner, F.lit("'")))

    def piece(p: Column) -> Column:
        java = F.call_function("try_element_at", codes, F.substring(p, 2, 1))
        coded = F.concat(F.coalesce(java, unknown), quoted(F.call_function("substring", p, F.lit(3))))
        return F.when(p.startswith("%"), coded).otherwise(quoted(p))

    # each piece a code and the text after it, the first maybe text alone
    return F.array_join(F.transform(F.split(text, "(?=%)"), piece), "")


def _parse_format(call: Call, at: int, fmt: Column, what: str) -> Column:
    """Format argument ``at`` of a parse (to_date, to_timestamp) as Java's pattern."""
    literal = call.constants[at] if len(call.constants) > at else None
    if not isinstance(literal, str):
        return _java_format(fmt, what)
    [(_, java)] = _chrono_parts(literal, what, parsing=True)
    return F.lit(java)


#: Microseconds in each unit of DataFusion's ``to_timestamp_<unit>``.
_MICROS_IN = {"seconds": 1_000_000, "millis": 1_000, "micros": 1}


def whole_units(ts: Column, micros: int) -> Column:
    """The whole units of ``micros`` microseconds since 1970 of a timestamp, counted toward zero as Arrow
    counts them (before 1970 that is later in time), as a long."""
    return F.call_function("div", F.unix_micros(ts.cast("timestamp")), F.lit(micros))  # toward zero


def cut_to(ts: Column, micros: int) -> Column:
    """A timestamp cut to whole units of ``micros`` microseconds, as Arrow casts a finer timestamp to a
    coarser one (:func:`whole_units`)."""
    return F.timestamp_micros(whole_units(ts, micros) * F.lit(micros))


def floor_to(ts: Column, micros: int) -> Column:
    """A timestamp cut to whole units of ``micros`` microseconds toward the past, as DataFusion keeps a
    coarser timestamp moved by an interval (before 1970 too)."""
    since = F.unix_micros(ts.cast("timestamp"))
    return F.timestamp_micros(since - F.pmod(since, F.lit(micros)))


def _to_temporal(to: str, unit: str = "seconds", cut: bool = False) -> Builder:
    """DataFusion's ``to_date`` / ``to_timestamp`` / ``to_timestamp_<unit>``: text (ISO, or in the C-style
    formats given, tried in order), or a number of days (to_date) or of ``unit`` (the timestamps) since
    1970-01-01; naive timestamps are UTC, the session's zone. ``cut``: the time taken from text is cut to
    whole ``unit``s (``to_timestamp_millis``)."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        kind = _arg_kind(call, 0)
        if untyped_null(call, 0, vals[0]):
            return F.lit(None).cast("date" if to == "date" else "timestamp")
        if to == "date" and kind in ("date", "timestamp", "precision_timestamp"):
            return vals[0].cast("date")  # a timestamp's day, earlier in time before 1970 (as Arrow casts)
        if kind in INT_RANGE and unit == "nanos":  # Spark's timestamps hold microseconds: the rest is dropped
            constant = call.constants[0] if call.constants else NOT_CONSTANT
            if constant is NOT_CONSTANT or (constant is not None and constant % 1000):
                call.warnings.append(f"{base_name(call.name)} of a number of nanoseconds: {MICROSECONDS_KEPT}")
            return from_finer_units(vals[0], 1000)
        if kind in INT_RANGE:
            return F.date_from_unix_date(vals[0]) if to == "date" else F.call_function(f"timestamp_{unit}", vals[0])
        if kind not in ("string", "varchar", "fixed_char"):
            what = kind or "value of unknown type"
            raise Unsupported(f"{base_name(call.name)} of a {what}: only text or a whole number is mapped")
        fn = f"to_{to}"
        if len(vals) == 1:
            # chrono takes a lower-case t between the date and the time too; Spark's cast an upper-case one only
            text = F.regexp_replace(vals[0], r"^(\s*[+-]?\d+-\d{1,2}-\d{1,2})t", "$1T")
            parsed = F.call_function(fn, text)
            if to == "date":  # text with an offset is the day in UTC, as chrono reads it (Spark's to_date drops it)
                parsed = F.coalesce(F.to_date(F.to_timestamp(text)), parsed)
        else:
            formats = enumerate(vals[1:], 1)
            parsed = F.coalesce(*[F.call_function(fn, vals[0], _parse_format(call, i, fmt, fn)) for i, fmt in formats])
        return cut_to(parsed, _MICROS_IN[unit]) if cut and _MICROS_IN[unit] > 1 else parsed

    return build


def _to_unixtime(call: Call, args: list) -> Column:
    """DataFusion's ``to_unixtime(value[, format, ...])``: the whole seconds since 1970 toward zero of a
    timestamp, a date (its midnight) or text read as ``to_timestamp`` reads it; a number as it is."""
    vals = _values(args)
    kind = _arg_kind(call, 0)
    if kind in INT_RANGE:
        return vals[0].cast("long")
    if kind in ("string", "varchar", "fixed_char"):
        ts = _to_temporal("timestamp")(call, args)
    elif kind in ("date", "timestamp", "precision_timestamp", "timestamp_tz", "precision_timestamp_tz"):
        ts = vals[0]
    else:
        raise Unsupported(
            f"to_unixtime of a {kind or 'value of unknown type'}: only times, text and integers are mapped"
        )
    return whole_units(ts, _MICROS_IN["seconds"])


#: The units both DataFusion's date_trunc and Spark's take (Spark's also takes DECADE and others).
_TRUNC_UNITS = ("microsecond", "millisecond", "second", "minute", "hour", "day", "week", "month", "quarter", "year")


#: The units DataFusion's date_trunc takes for a time of day.
_TIME_UNITS = ("microsecond", "millisecond", "second", "minute", "hour")


def _date_trunc(call: Call, args: list) -> Column:
    """``date_trunc(unit, t)``; a literal unit Spark reads otherwise than DataFusion (its DECADE, which
    DataFusion refuses, or a unit Spark's gives null for) is refused by name."""
    enums, vals = _enums(args), _values(args)
    unit = enums[0] if enums else call.constants[0] if call.constants else NOT_CONSTANT
    if _arg_kind(call, len(call.arg_types) - 1) == "precision_time":
        if not isinstance(unit, str) or unit.lower() not in _TIME_UNITS:
            given = repr(unit) if isinstance(unit, str) else "a unit that is not a literal"
            raise Unsupported(f"date_trunc of a time of day to {given}: the units are {', '.join(_TIME_UNITS)}")
        return F.call_function("time_trunc", F.lit(unit.upper()), vals[-1])
    if isinstance(unit, str) and unit.lower() not in _TRUNC_UNITS:
        raise Unsupported(f"date_trunc to {unit!r}: the units are {', '.join(_TRUNC_UNITS)}")
    return F.call_function("date_trunc", F.lit(unit) if isinstance(unit, str) else vals[0], vals[-1])


#: DataFusion's default origin of ``date_bin``'s bins.
_EPOCH = "1970-01-01 00:00:00"


def _date_bin(call: Call, args: list) -> Column:
    """DataFusion's ``date_bin(stride, t[, origin])``: the start of the bin of width ``stride``, counted
    from ``origin``, that holds ``t`` (bins before the origin too). A stride of days and time only, given as
    a literal: one in months has no fixed width."""
    vals = _values(args)
    stride = call.constants[0] if call.constants else NOT_CONSTANT
    if not isinstance(stride, dt.timedelta):
        raise Unsupported("date_bin: only a stride of days and time given as a literal is mapped to Spark")
    micros = abs(stride // dt.timedelta(microseconds=1))
    if not micros:
        return F.raise_error(F.lit("date_bin: the stride must be non-zero"))
    t = vals[1]
    origin = vals[2] if len(vals) > 2 else F.lit(_EPOCH).cast("timestamp_ntz")
    since = F.timestamp_diff("MICROSECOND", origin, t)
    start = since - F.pmod(since, F.lit(micros))
    binned = F.timestamp_add("MICROSECOND", start, origin)
    out = call.output_type
    if _kind(out) in ("precision_timestamp", "precision_timestamp_tz") and second_digits(out) < 6:
        return cut_to(binned, 10 ** (6 - second_digits(out)))  # in the timestamp's own units, as Arrow casts
    return binned


#: Zones a timestamp shows the same as the run's UTC.
_UTC_NAMES = frozenset({"UTC", "Z", "+00:00", "+00", "+0000", "Etc/UTC", "GMT"})


def _from_unixtime(call: Call, args: list) -> Column:
    """DataFusion's ``from_unixtime(seconds[, zone])``: a timestamp; with a zone other than UTC its text and
    parts are the zone's, which the plan's type does not carry: refused."""
    vals = _values(args)
    zone = call.constants[1] if len(call.constants) > 1 else None
    if len(vals) > 1 and zone not in _UTC_NAMES:
        raise Unsupported(
            "from_unixtime in a time zone other than UTC: the plan's timestamp type does not carry the zone its "
            "text and parts are in"
        )
    return F.timestamp_seconds(vals[0])


def _make_date(call: Call, args: list) -> Column:
    """DataFusion's ``make_date(year, month, day)``; a day that is not in the calendar is an error, as
    DataFusion's engine gives (Spark's, with ANSI off, gives null)."""
    year, month, day = (v.cast("int") for v in _values(args)[:3])
    made = F.make_date(year, month, day)
    given = year.isNotNull() & month.isNotNull() & day.isNotNull()
    message = F.concat(F.lit("make_date: no such date: "), F.concat_ws("-", year, month, day))
    return F.when(given & made.isNull(), F.raise_error(message)).otherwise(made)


SCALAR: dict[str, Builder] = {
    "extract": _extract,
    "make_date": _make_date,
    "add_intervals": lambda call, args: _values(args)[0] + _values(args)[1],
    "strftime": _strftime,
    "to_date": _to_temporal("date"),
    "to_timestamp": _to_temporal("timestamp"),
    "to_timestamp_micros": _to_temporal("timestamp", unit="micros"),
    "to_timestamp_nanos": _to_temporal("timestamp", unit="nanos"),
    "to_timestamp_millis": _to_temporal("timestamp", unit="millis", cut=True),
    "to_timestamp_seconds": _to_temporal("timestamp", unit="seconds", cut=True),
    "to_unixtime": _to_unixtime,
    # the time the query starts, the same in every row (DataFusion's, and Spark's)
    "now": lambda call, args: F.current_timestamp(),
    "current_timestamp": lambda call, args: F.current_timestamp(),
    "current_date": lambda call, args: F.current_date(),
    "today": lambda call, args: F.current_date(),
    "from_unixtime": _from_unixtime,
    "date_trunc": _date_trunc,
    "date_bin": _date_bin,
}
