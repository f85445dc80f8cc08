"""Literals: a literal's type by the spec, and its text as the inspector writes it."""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Mapping

from substrait import algebra_pb2, type_pb2

from .. import coercion as C
from .. import types as T

Expression = algebra_pb2.Expression


#: The literal kinds that hold an integer.
INTEGER_LITERALS = ("i8", "i16", "i32", "i64")

_EPOCH = _dt.date(1970, 1, 1)
_EPOCH_DT = _dt.datetime(1970, 1, 1)


#: Literal kinds whose type has no parameters: the literal kind -> (the Type field, its message).
_LITERAL_TYPES = {
    "boolean": ("bool", "Boolean"),
    "i8": ("i8", "I8"),
    "i16": ("i16", "I16"),
    "i32": ("i32", "I32"),
    "i64": ("i64", "I64"),
    "fp32": ("fp32", "FP32"),
    "fp64": ("fp64", "FP64"),
    "string": ("string", "String"),
    "binary": ("binary", "Binary"),
    "date": ("date", "Date"),
    "uuid": ("uuid", "UUID"),
    "interval_year_to_month": ("interval_year", "IntervalYear"),
}


def plain_kind(lit: Expression.Literal) -> str | None:
    """The type kind of a literal whose type has no parameters (``i32``, ``string``); None for the rest."""
    entry = _LITERAL_TYPES.get(lit.WhichOneof("literal_type"))
    return entry[0] if entry is not None else None


def literal_type(lit: Expression.Literal) -> type_pb2.Type | None:
    """The type of a literal, following the spec (``nullable`` applies to all but typed nulls)."""
    which = lit.WhichOneof("literal_type")
    n = T.NULLABLE if lit.nullable else T.REQUIRED
    Ty = type_pb2.Type
    if which in INTEGER_LITERALS:  # its variation too ("applies to all members of union other than the typed null")
        return Ty(
            **{which: getattr(Ty, which.upper())(nullability=n, type_variation_reference=lit.type_variation_reference)}
        )
    if which in _LITERAL_TYPES:
        kind, message = _LITERAL_TYPES[which]
        return Ty(**{kind: getattr(Ty, message)(nullability=n)})
    if which == "null":
        return lit.null if lit.null.WhichOneof("kind") else None
    if which == "interval_day_to_second":
        p = lit.interval_day_to_second.precision
        return Ty(interval_day=Ty.IntervalDay(precision=p, nullability=n))
    if which == "interval_compound":
        p = lit.interval_compound.interval_day_to_second.precision
        return Ty(interval_compound=Ty.IntervalCompound(precision=p, nullability=n))
    if which == "fixed_char":
        return Ty(fixed_char=Ty.FixedChar(length=len(lit.fixed_char), nullability=n))
    if which == "var_char":
        return Ty(varchar=Ty.VarChar(length=lit.var_char.length, nullability=n))
    if which == "fixed_binary":
        return Ty(fixed_binary=Ty.FixedBinary(length=len(lit.fixed_binary), nullability=n))
    if which == "decimal":
        return Ty(decimal=Ty.Decimal(precision=lit.decimal.precision, scale=lit.decimal.scale, nullability=n))
    if which == "precision_time":
        return Ty(precision_time=Ty.PrecisionTime(precision=lit.precision_time.precision, nullability=n))
    if which == "precision_timestamp":
        return Ty(precision_timestamp=Ty.PrecisionTimestamp(precision=lit.precision_timestamp.precision, nullability=n))
    if which == "precision_timestamp_tz":
        return Ty(
            precision_timestamp_tz=Ty.PrecisionTimestampTZ(
                precision=lit.precision_timestamp_tz.precision, nullability=n
            )
        )
    if which == "struct":
        members = [literal_type(f) for f in lit.struct.fields]
        if any(m is None for m in members):
            return None
        return Ty(struct=Ty.Struct(types=members, nullability=n))
    if which == "list":
        if not lit.list.values:
            return None
        inner = literal_type(lit.list.values[0])
        if inner is None:
            return None
        # its elements' one type: nullable where any of them is (DataFusion writes [1, NULL] so)
        if any(T.is_nullable(literal_type(v)) for v in lit.list.values[1:]):
            inner = T.make_nullable(inner)
        return Ty(list=Ty.List(type=inner, nullability=n))
    if which == "empty_list":
        out = Ty(list=lit.empty_list)
        out.list.nullability = n
        return out
    if which == "map":
        if not lit.map.key_values:
            return None
        kv = lit.map.key_values[0]
        k, v = literal_type(kv.key), literal_type(kv.value)
        if k is None or v is None:
            return None
        return Ty(map=Ty.Map(key=k, value=v, nullability=n))
    if which == "empty_map":
        out = Ty(map=lit.empty_map)
        out.map.nullability = n
        return out
    if which == "user_defined":
        return Ty(user_defined=Ty.UserDefined(type_reference=lit.user_defined.type_reference, nullability=n))
    return None


_EXACT = decimal.Context(prec=80)  # a 16-byte unscaled value has at most 39 digits: never rounded


def decimal_value(lit: Expression.Literal.Decimal) -> decimal.Decimal:
    unscaled = int.from_bytes(lit.value, "little", signed=True)
    return decimal.Decimal(unscaled).scaleb(-lit.scale, _EXACT)


def decimal_too_long(lit: Expression.Literal) -> str | None:
    """What is wrong with a decimal literal (or one inside a list, struct or map literal) whose value has
    more digits than its precision allows; None when each fits."""
    which = lit.WhichOneof("literal_type")
    if which == "decimal":
        d = lit.decimal
        digits = len(str(abs(int.from_bytes(d.value, "little", signed=True))))
        if digits > d.precision:
            return (
                f"the decimal literal {decimal_value(d)} has {digits} digits, more than its type "
                f"decimal<{d.precision},{d.scale}> holds"
            )
        return None
    if which == "list":
        inner = list(lit.list.values)
    elif which == "struct":
        inner = list(lit.struct.fields)
    elif which == "map":
        inner = [v for kv in lit.map.key_values for v in (kv.key, kv.value)]
    else:
        return None
    return next((w for w in map(decimal_too_long, inner) if w is not None), None)


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _control(ch: str) -> bool:
    return ord(ch) < 32 or ord(ch) == 127


def has_control(value: str) -> bool:
    """Whether text holds a control character (a newline, a tab), which would break the line it is shown on."""
    return any(map(_control, value))


def string_text(value: str) -> str:
    """A text literal quoted as SQL writes it (``'it''s'``); one holding a control character (a newline, a
    tab) as an escape string (``E'a\\nb'``), so it stays on its line and a tab is not read as spaces."""
    if not has_control(value):
        return "'" + value.replace("'", "''") + "'"
    body = "".join(_ESCAPES.get(ch) or (f"\\x{ord(ch):02x}" if _control(ch) else ch) for ch in value)
    return f"E'{body}'"


def float_text(which: str, value: float) -> str:
    """An fp32 or fp64 as the shortest text that reads back to it (fp32's 0.1 as 0.1, not 0.10000000149...)."""
    if which == "fp32":
        import numpy as np

        return str(np.float32(value))
    return repr(float(value))


def decimal_text(value: decimal.Decimal) -> str:
    """A decimal's digits without an exponent (1E-10 as 0.0000000001)."""
    return f"{value:f}"


def seconds_value(value) -> decimal.Decimal:
    """The seconds of an IntervalDayToSecond, with its fraction (its subseconds at its precision)."""
    return (decimal.Decimal(value.seconds) + decimal.Decimal(value.subseconds).scaleb(-value.precision)).normalize()


def timestamp_text(value: int, precision: int) -> str:
    """A timestamp of ``value`` units of 10^-``precision`` s since 1970 (``1995-03-15 10:20:30.5``), exact."""
    seconds, frac = divmod(value, 10**precision)
    try:
        stamp = _EPOCH_DT + _dt.timedelta(seconds=seconds)
    except OverflowError:
        return str(value)
    text = stamp.isoformat(sep=" ")
    if precision and frac:
        text += "." + str(frac).rjust(precision, "0").rstrip("0")
    return text


def integer_value(lit: Expression.Literal, dialect: str | None = None) -> int:
    """An integer literal's number; of the producer ``dialect``'s unsigned integers, the one it stands for
    (DataFusion's u32 of 4e9, written as a negative i32: :func:`viz.coercion.unsigned_value`)."""
    which = lit.WhichOneof("literal_type")
    value = getattr(lit, which)
    return C.unsigned_value(which, value) if C.is_unsigned(literal_type(lit), dialect) else value


def literal_text(
    lit: Expression.Literal, user_types: Mapping[int, str] | None = None, dialect: str | None = None
) -> str:
    """A literal as plan text: 10, 'it''s', date '1995-03-15', null::i32 (what a node's expressions show);
    ``user_types`` names the plan's user-defined types, ``dialect`` (its producer's) its type variations
    and its unsigned integers' values (DataFusion's u32 of 4e9, written as a negative i32)."""
    which = lit.WhichOneof("literal_type")
    if which is None:
        return "?"
    value = getattr(lit, which)
    if which == "boolean":
        return "true" if value else "false"
    if which in INTEGER_LITERALS:
        return str(integer_value(lit, dialect))
    if which in ("fp32", "fp64"):
        return float_text(which, value)
    if which in ("string", "fixed_char"):
        return string_text(value)
    if which == "var_char":
        return string_text(value.value)
    if which in ("binary", "fixed_binary", "uuid"):
        return "x'" + value.hex() + "'"
    if which == "date":
        try:
            return f"date '{(_EPOCH + _dt.timedelta(days=value)).isoformat()}'"
        except OverflowError:
            return f"date({value})"
    if which == "decimal":
        return decimal_text(decimal_value(value))
    if which == "precision_timestamp":
        return f"timestamp '{timestamp_text(value.value, value.precision)}'"
    if which == "precision_timestamp_tz":
        return f"timestamptz '{timestamp_text(value.value, value.precision)}'"
    if which == "precision_time":
        seconds, frac = divmod(value.value, 10**value.precision)
        return f"time '{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" + (
            f".{str(frac).rjust(value.precision, '0').rstrip('0')}'" if frac else "'"
        )
    if which == "interval_year_to_month":
        return f"interval '{value.years} years {value.months} months'"
    if which == "interval_day_to_second":
        return f"interval '{value.days} days {decimal_text(seconds_value(value))} seconds'"
    if which == "interval_compound":
        ym, ds = value.interval_year_to_month, value.interval_day_to_second
        return (
            f"interval '{ym.years} years {ym.months} months {ds.days} days {decimal_text(seconds_value(ds))} seconds'"
        )
    if which == "null":
        return f"null::{T.render(value, user_types=user_types, variations=C.variation_names(dialect))}"
    if which == "struct":
        return "{" + ", ".join(literal_text(f, user_types, dialect) for f in value.fields) + "}"
    if which == "list":
        return "[" + ", ".join(literal_text(v, user_types, dialect) for v in value.values) + "]"
    if which == "empty_list":
        return "[]"
    if which == "map":
        return (
            "map{"
            + ", ".join(
                f"{literal_text(kv.key, user_types, dialect)}: {literal_text(kv.value, user_types, dialect)}"
                for kv in value.key_values
            )
            + "}"
        )
    if which == "empty_map":
        return "map{}"
    if which == "user_defined":
        return f"u!{(user_types or {}).get(value.type_reference, value.type_reference)}(…)"
    return which
