"""Text read as a value of another type the way DataFusion's casts (Arrow's) read it, for a cast in one of
its plans: where Spark's cast takes text DataFusion's does not (a boolean ``'on'`` is one for both, but
``'tru'`` and ``'off'`` only for DataFusion; a double ``'1.5d'`` or an integer after a vertical tab only
for Spark), or reads it otherwise (a timestamp with a zone offset, which DataFusion moves to UTC and
Spark's cast to a timestamp without a zone drops; a date with a time after it, which DataFusion reads as
such a timestamp and keeps its date)."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S

from ..spark.jvm import sql_type

#: The white space Arrow's casts of numbers and booleans take around the text (Rust's ASCII white space,
#: without the vertical tab that Spark's cast also takes).
_SPACE = "[ \\t\\n\\f\\r]*"
_TRUE = f"(?i)^{_SPACE}(t|tr|tru|true|y|ye|yes|on|1){_SPACE}$"
_FALSE = f"(?i)^{_SPACE}(f|fa|fal|fals|false|n|no|off|of|0){_SPACE}$"
_INTEGER = f"^{_SPACE}[+-]?[0-9]+{_SPACE}$"
_FLOAT = f"(?i)^{_SPACE}[+-]?((([0-9]+\\.?[0-9]*)|(\\.[0-9]+))(e[+-]?[0-9]+)?|inf|infinity|nan){_SPACE}$"
#: A decimal's text: no exponent (Java's BigDecimal reads one), any white space around it.
_DECIMAL = "^[+-]?(([0-9]+\\.?[0-9]*)|(\\.[0-9]+))$"
_AROUND = "(?U)^\\s+|\\s+$"
#: A date: a year of four digits, a month and day of one or two, or the eight digits without dashes.
_DATE = "^\\+?([0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|[0-9]{8})$"
_COMPACT_DATE = "^\\+?([0-9]{4})([0-9]{2})([0-9]{2})$"
#: A zone's name after a time (``UTC``, ``Europe/Paris``, ``Etc/GMT+1``, after a space or not), as DataFusion's
#: cast reads one from the IANA names: not an offset after a name (``UTC+1``), which Java reads, nor the
#: three-letter names Java's SHORT_IDS map to a region and the IANA names do not hold (``PST``, ``IST``).
_ZONE_NAME = (
    "(?!(ACT|AET|AGT|ART|AST|BET|BST|CAT|CNT|CST|CTT|EAT|ECT|IET|IST|JST|MIT|NET|NST|PLT|PNT|PRT|PST|SST|VST)$)"
    "[A-Z][A-Za-z0-9_]*(/[A-Za-z0-9_+-]+)*"
)
#: A timestamp: a date, or a date and a time of two-digit hours, minutes and seconds after ``T``, ``t`` or
#: a space, a fraction, a zone ``Z``, an offset (``+02``, ``+0200``, ``+02:00``, after a space too) or a name.
_TIMESTAMP = (
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]| ?[+-][0-9]{2}(:?[0-9]{2})?| ?"
    + _ZONE_NAME
    + ")?)?$"
)

#: A time of day: hours of one or two digits, two-digit minutes, and seconds with up to nine digits of a
#: fraction (Spark's cast also takes one-digit minutes and seconds and white space around it).
_TIME = "^[0-9]{1,2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?$"

_INTEGERS = frozenset({"i8", "i16", "i32", "i64"})
_FLOATS = frozenset({"fp32", "fp64"})
_TIMESTAMPS = frozenset({"timestamp", "precision_timestamp"})
#: The kinds whose text this module reads.
KINDS = frozenset({"bool", "decimal", "date", "precision_time"}) | _INTEGERS | _FLOATS | _TIMESTAMPS


def _prepared(text: Column, kind: str) -> Column:
    """``text`` as the text Spark's cast reads as DataFusion reads it, null where DataFusion reads none."""
    if kind == "bool":
        return F.when(text.rlike(_TRUE), F.lit("true")).when(text.rlike(_FALSE), F.lit("false"))
    if kind in _INTEGERS:
        return F.when(text.rlike(_INTEGER), text)
    if kind in _FLOATS:
        return F.when(text.rlike(_FLOAT), text)
    if kind == "decimal":
        trimmed = F.regexp_replace(text, _AROUND, "")
        return F.when(trimmed.rlike(_DECIMAL), trimmed)
    if kind == "precision_time":
        return F.when(text.rlike(_TIME), text)
    if kind == "date":  # text past ten characters that is no date is read as a timestamp (``read``)
        return F.when(text.rlike(_DATE), F.regexp_replace(text, _COMPACT_DATE, "$1-$2-$3"))
    # Spark's cast reads an upper-case T and Z only
    upper = F.regexp_replace(F.regexp_replace(text, "^(.{10})t", "$1T"), "([0-9])z$", "$1Z")
    return F.when(text.rlike(_TIMESTAMP), upper)


def _instant(text: Column, prepared: Column) -> Column:
    """The instant of a timestamp's ``prepared`` text; null where the text names a zone in which its local time
    is none or two (a clock set forward skips 02:30, one set back has 01:30 twice): DataFusion reads no instant
    there, Spark's cast picks one."""
    instant = prepared.try_cast("timestamp")
    zone = F.regexp_extract(text, f"({_ZONE_NAME})$", 1)
    wall = F.regexp_replace(text, f" ?({_ZONE_NAME})$", "").try_cast("timestamp")
    local = [F.from_utc_timestamp(F.timestamp_add("HOUR", F.lit(h), instant), zone) for h in (0, 1, -1)]
    return F.when(
        (zone == "") | instant.isNull() | ((local[0] == wall) & (local[1] != wall) & (local[2] != wall)), instant
    )


def read(text: Column, kind: str, target: S.DataType) -> Column:
    """The value of ``text`` as a ``kind`` (one of :data:`KINDS`, Spark's type ``target``) as DataFusion's
    cast reads it; null where it reads none. A timestamp's offset moves it to UTC: Spark's cast to a
    timestamp with the session's zone (UTC) reads it, then the wall time is kept."""
    prepared = _prepared(text, kind)
    if kind in _TIMESTAMPS and isinstance(target, S.TimestampNTZType):
        return _instant(text, prepared).cast("timestamp_ntz")
    if kind == "date":  # Arrow reads longer text as a timestamp, moved to UTC, and keeps its date
        instant = _instant(text, F.when(F.length(text) > 10, _prepared(text, "timestamp")))
        return F.coalesce(prepared.try_cast("date"), instant.cast("date"))
    return prepared.try_cast(sql_type(target))
