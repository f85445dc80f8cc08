"""Implicit type coercion: the casts an engine inserts before it evaluates a call, or a construct whose
values must share one type, when their types differ.

A Substrait plan says exactly which types a call takes, but producers that write a plan before their
engine's type analysis leave the engine's implicit casts out: DataFusion's producer, given the
unanalyzed logical plan, writes ``lte(decimal<15,2>, fp64)``, which no signature allows and which
DataFusion itself runs as ``decimal<30,15>`` on both sides, where Spark would compare as ``fp64``. This
module is the one place that knows each dialect's rules (``DIALECTS``), so that a run can evaluate such a
call the way the plan's producer's engine would, and say so:

- ``"datafusion"``: DataFusion 55's analyzer (its binary operators, BETWEEN, IN lists, CASE, COALESCE,
  GREATEST/LEAST/NULLIF, ``||``, set operations and VALUES);
- ``"spark"``: Spark 4 with ANSI mode off (the executor's session), what it does implicitly with the same
  call; used when the plan's producer is unknown.

:func:`call_coercion` gives a call's argument casts, :func:`unify` the common type of values that must
share one (CASE branches, COALESCE arguments, an IN list, set-operation inputs, VALUES rows), and
:func:`arithmetic_result` the type an engine gives an arithmetic call once its arguments are cast.
Every rule here was checked against the live engines (``tests/model/test_coercion.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from substrait.type_pb2 import Type

from . import types as T

DIALECTS = ("datafusion", "spark")
#: The constructs :func:`unify` knows; each dialect treats strings beside other kinds differently in each.
CONTEXTS = ("case", "coalesce", "in", "union", "values")

#: How each dialect is named to people.
DIALECT_NAMES = {"datafusion": "DataFusion", "spark": "Spark"}
_COMPARISONS = frozenset({"equal", "not_equal", "lt", "gt", "lte", "gte", "is_distinct_from", "is_not_distinct_from"})
_ARITHMETIC = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "modulus": "%"}
#: Statistics both engines compute over fp64 only: any other number is cast to it first.
_FP64_STATISTICS = frozenset(
    {"std_dev", "stddev", "stddev_samp", "stddev_pop", "variance", "var", "var_samp", "var_pop"}
)
_CONTEXT_WORDS = {
    "case": "CASE branches",
    "coalesce": "COALESCE arguments",
    "in": "an IN list's value and options",
    "union": "set-operation inputs",
    "values": "VALUES rows",
}

#: DataFusion's type variation anchors (its producer writes them without declaring them).
_DF_UNSIGNED = 1  # on i8..i64: UInt8..UInt64
_DF_DECIMAL256 = 1  # on decimal: Decimal256

_DF_DICTIONARY = 1  # on map: Dictionary(key, value), an encoding of the values

#: The type variation that makes an integer unsigned in a producer's plans, by dialect.
UNSIGNED_VARIATION: dict[str, int] = {"datafusion": _DF_UNSIGNED}
#: The type variation that makes a map a dictionary in a producer's plans, by dialect: DataFusion writes its
#: dictionary-encoded columns (a key per row into a list of values) as a map from key to value.
DICTIONARY_VARIATION: dict[str, int] = {"datafusion": _DF_DICTIONARY}


_VARIATION_NAMES: dict[str, dict[tuple[str, int], str]] = {
    dialect: {
        **{(f"i{bits}", variation): f"u{bits}" for bits in (8, 16, 32, 64)},
        **({("map", DICTIONARY_VARIATION[dialect]): "dictionary"} if dialect in DICTIONARY_VARIATION else {}),
    }
    for dialect, variation in UNSIGNED_VARIATION.items()
}


def variation_names(dialect: str | None) -> Mapping[tuple[str, int], str]:
    """How the producer ``dialect``'s type variations are shown (``viz.types.render``): its unsigned
    integers as ``u8``...``u64``, its dictionaries as ``dictionary<key, value>``; empty for a producer whose
    variations are not known here."""
    return _VARIATION_NAMES.get(dialect or "", {})


def dictionary_values(t: Type | None, dialect: str | None) -> Type | None:
    """For one of the producer ``dialect``'s dictionaries (DataFusion's map of its variation 1), the type of
    its values, which is what a row holds (nullable where the dictionary is); None for any other type."""
    variation = DICTIONARY_VARIATION.get(dialect or "")
    if t is None or t.WhichOneof("kind") != "map" or variation is None or t.map.type_variation_reference != variation:
        return None
    nullable = t.map.nullability == Type.NULLABILITY_NULLABLE or bool(T.is_nullable(t.map.value))
    return T.with_nullability(t.map.value, nullable)


def is_unsigned(t: Type | None, dialect: str | None) -> bool:
    """Whether ``t`` is one of the unsigned integers of the producer ``dialect`` (DataFusion's u8...u64)."""
    kind = t.WhichOneof("kind") if t is not None else None
    variation = UNSIGNED_VARIATION.get(dialect or "")
    return kind in _INT_BITS and variation is not None and getattr(t, kind).type_variation_reference == variation


def unsigned_value(kind: str, value: int) -> int:
    """The number an unsigned integer literal of ``kind`` (``i8``...``i64``) holds: DataFusion writes a u8
    or u16 as itself, a u32 or u64 as the signed integer of its bits (4,000,000,000 as -294,967,296)."""
    return value + 2 ** _INT_BITS[kind] if value < 0 and kind in ("i32", "i64") else value


def kept_unsigned(out: Type | None, args: Sequence[Type | None], dialect: str | None) -> Type | None:
    """``out``, a type the extension YAMLs derive (they know no variations), as the unsigned integer of
    an argument of its kind where there is one (``max`` of a u8 is a u8, as the producer's engine types
    it); else ``out`` as it is."""
    kind = out.WhichOneof("kind") if out is not None else None
    source = next((a for a in args if is_unsigned(a, dialect) and a.WhichOneof("kind") == kind), None)
    if source is None or is_unsigned(out, dialect):
        return out
    kept = Type()
    kept.CopyFrom(out)
    getattr(kept, kind).type_variation_reference = getattr(source, kind).type_variation_reference
    return kept


@dataclass(frozen=True)
class Coercion:
    """The casts an engine applies to a call's or a construct's values before it evaluates them."""

    targets: tuple[Type | None, ...]  # one per value argument, in order: the type it is cast to; None = left as it is
    rule: str  # one clause for people, e.g. "DataFusion compares decimal<15,2> with fp64 as decimal<30,15>"


# ---- a value type as the engines see it -------------------------------------------------------


@dataclass(frozen=True)
class _V:
    """A type reduced to what the coercion rules read. ``family`` is one of null, bool, int, float,
    decimal, string, date, timestamp, or the Substrait kind of anything else (no rule covers those)."""

    family: str
    bits: int = 0  # int and float widths
    precision: int = 0  # decimal precision; timestamp fractional digits (0 for Spark, which keeps microseconds)
    scale: int = 0
    unsigned: bool = False  # DataFusion's unsigned integers
    zoned: bool = False  # a timestamp with a time zone
    wide: bool = False  # DataFusion's Decimal256

    @property
    def numeric(self) -> bool:
        return self.family in ("int", "float", "decimal")


_INT_BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}
_TIMESTAMPS = {
    "precision_timestamp": (None, False),
    "precision_timestamp_tz": (None, True),
    "timestamp": (6, False),
    "timestamp_tz": (6, True),
}
_PLAIN = {"bool": "bool", "string": "string", "varchar": "string", "fixed_char": "string", "date": "date"}


def _view(dialect: str, t: Type | None, user_types: Mapping[int, str]) -> _V | None:
    """``t`` as ``dialect`` sees it; None when unknown."""
    if t is None:
        return None
    k = t.WhichOneof("kind")
    if k is None:
        return _V("null")
    body = getattr(t, k)
    datafusion = dialect == "datafusion"
    if k in _INT_BITS:
        return _V("int", bits=_INT_BITS[k], unsigned=is_unsigned(t, dialect))
    if k in ("fp32", "fp64"):
        return _V("float", bits=int(k[2:]))
    if k == "decimal":
        wide = datafusion and body.type_variation_reference == _DF_DECIMAL256
        return _V("decimal", precision=body.precision, scale=body.scale, wide=wide)
    if k in _TIMESTAMPS:
        default, zoned = _TIMESTAMPS[k]
        digits = body.precision if default is None else default
        return _V("timestamp", precision=digits if datafusion else 0, zoned=zoned)
    if k in _PLAIN:
        return _V(_PLAIN[k])
    if T.is_null_type(t, user_types):
        return _V("null")
    if k == "user_defined":
        name = user_types.get(body.type_reference)
        if name == "fp16":  # Spark reads it as its float (executor.translate.types)
            return _V("float", bits=16 if datafusion else 32)
        return _V(f"u!{name or body.type_reference}")
    return _V(k)


def _build(v: _V, nullable: bool) -> Type | None:
    """The Substrait type of ``v`` (None for a kind that is built only from an argument's own type)."""
    n = T.NULLABLE if nullable else T.REQUIRED
    if v.family == "int":
        field, variation = f"i{v.bits}", _DF_UNSIGNED if v.unsigned else 0
        return Type(**{field: getattr(Type, field.upper())(nullability=n, type_variation_reference=variation)})
    if v.family == "float" and v.bits in (32, 64):
        return Type(**{f"fp{v.bits}": getattr(Type, f"FP{v.bits}")(nullability=n)})
    if v.family == "decimal":
        variation = _DF_DECIMAL256 if v.wide else 0
        decimal = Type.Decimal(precision=v.precision, scale=v.scale, nullability=n, type_variation_reference=variation)
        return Type(decimal=decimal)
    if v.family == "string":
        return Type(string=Type.String(nullability=n))
    if v.family == "date":
        return Type(date=Type.Date(nullability=n))
    if v.family == "bool":
        return Type(bool=Type.Boolean(nullability=n))
    if v.family == "timestamp":
        if v.zoned:
            return Type(precision_timestamp_tz=Type.PrecisionTimestampTZ(precision=v.precision, nullability=n))
        return Type(precision_timestamp=Type.PrecisionTimestamp(precision=v.precision, nullability=n))
    return None


# ---- building blocks of the rules -------------------------------------------------------------

Pair = Callable[[_V, _V], "_V | None"]

#: The decimal each integer width and float width becomes beside a decimal (both engines).
_INT_DECIMAL = {8: 3, 16: 5, 32: 10, 64: 20}
_FLOAT_DECIMAL = {16: (6, 3), 32: (14, 7), 64: (30, 15)}
_FP64 = _V("float", bits=64)


def _as_decimal(v: _V) -> _V:
    if v.family == "int":
        return _V("decimal", precision=_INT_DECIMAL[v.bits])
    if v.family == "float":
        p, s = _FLOAT_DECIMAL[v.bits]
        return _V("decimal", precision=p, scale=s)
    return v


def _wider_decimal(a: _V, b: _V) -> _V:
    """The decimal both fit in: the larger scale and the more integer digits, at most 38 digits (76
    for DataFusion's Decimal256), the scale kept when the digits are cut."""
    a, b = _as_decimal(a), _as_decimal(b)
    scale = max(a.scale, b.scale)
    digits = max(a.precision - a.scale, b.precision - b.scale)
    wide = a.wide or b.wide
    cap = 76 if wide else 38
    return _V("decimal", precision=min(cap, digits + scale), scale=min(cap, scale), wide=wide)


def _wider_float(a: _V, b: _V) -> _V:
    """An integer beside a float becomes that float (fp32 even for i64); fp32 beside fp64 becomes fp64."""
    return _V("float", bits=max(x.bits for x in (a, b) if x.family == "float"))


def _fp64(a: _V, b: _V) -> _V:
    return _FP64


def _df_int(a: _V, b: _V) -> _V:
    """DataFusion's narrowest integer holding both, unsigned ones included: u64 beside a signed
    integer becomes decimal<20,0>; a smaller unsigned beside a signed one the signed of twice its width."""
    if a.unsigned == b.unsigned:
        return _V("int", bits=max(a.bits, b.bits), unsigned=a.unsigned)
    u, s = (a, b) if a.unsigned else (b, a)
    if u.bits == 64:
        return _V("decimal", precision=20)
    return _V("int", bits=s.bits if u.bits < s.bits else 2 * u.bits)


def _spark_int(a: _V, b: _V) -> _V:
    return _V("int", bits=max(a.bits, b.bits))


def _numeric_one(a: _V, b: _V) -> _V:
    return a if a.numeric else b


def _string(a: _V, b: _V) -> _V:
    return _V("string")


def _df_timestamp_ns(zone_of: str) -> Pair:
    """DataFusion's nanosecond timestamp: with the zone of the timestamp beside a string, none beside a date."""

    def pair(a: _V, b: _V) -> _V:
        zoned = zone_of == "timestamp" and (a.zoned or b.zoned)
        return _V("timestamp", precision=9, zoned=zoned)

    return pair


def _df_timestamps(a: _V, b: _V) -> _V:
    """Two DataFusion timestamps: the finer unit, with a time zone when either has one."""
    return _V("timestamp", precision=max(a.precision, b.precision), zoned=a.zoned or b.zoned)


def _spark_timestamps(a: _V, b: _V) -> _V:
    """Spark keeps microseconds for every timestamp; one with a time zone wins over one without."""
    return _V("timestamp", zoned=a.zoned or b.zoned)


def _the(family: str) -> Pair:
    """The value of ``family`` wins."""
    return lambda a, b: a if a.family == family else b


def _spark_string_decimal(a: _V, b: _V) -> _V:
    """Spark compares a string with a decimal of scale 0 as that decimal, with any other as fp64."""
    d = a if a.family == "decimal" else b
    return d if d.scale == 0 else _FP64


# ---- the tables: family pair -> the common type ---------------------------------------------

_RANK = ("null", "bool", "int", "float", "decimal", "string", "date", "timestamp")


def _key(a: _V, b: _V) -> tuple[str, str]:
    ra = _RANK.index(a.family) if a.family in _RANK else len(_RANK)
    rb = _RANK.index(b.family) if b.family in _RANK else len(_RANK)
    return (a.family, b.family) if ra <= rb else (b.family, a.family)


_DF_NUMERIC: dict[tuple[str, str], Pair] = {
    ("int", "int"): _df_int,
    ("int", "float"): _wider_float,
    ("float", "float"): _wider_float,
    ("int", "decimal"): _wider_decimal,
    ("float", "decimal"): _wider_decimal,
    ("decimal", "decimal"): _wider_decimal,
    ("date", "timestamp"): _df_timestamp_ns("date"),
    ("timestamp", "timestamp"): _df_timestamps,
}
#: DataFusion's comparisons (binary operators, BETWEEN, IN lists, GREATEST/LEAST/NULLIF): a string
#: beside a number is cast to the number, beside a date or timestamp to it; an integer beside a date to a date.
_DF_COMPARE: dict[tuple[str, str], Pair] = {
    **_DF_NUMERIC,
    ("int", "string"): _numeric_one,
    ("float", "string"): _numeric_one,
    ("decimal", "string"): _numeric_one,
    ("string", "date"): _the("date"),
    ("string", "timestamp"): _df_timestamp_ns("timestamp"),
    ("int", "date"): _the("date"),
}
#: DataFusion's CASE and set operations: as comparisons, but a number beside a string becomes a string.
_DF_CASE = {**_DF_COMPARE, ("int", "string"): _string, ("float", "string"): _string, ("decimal", "string"): _string}
#: DataFusion's COALESCE and VALUES: numbers win over strings; a string or an integer beside a date or a
#: timestamp has no common type with it.
_DF_UNION_RESOLUTION = {
    k: v for k, v in _DF_COMPARE.items() if k not in (("string", "date"), ("string", "timestamp"), ("int", "date"))
}

_SPARK_NUMERIC: dict[tuple[str, str], Pair] = {
    ("int", "int"): _spark_int,
    ("int", "float"): _wider_float,
    ("float", "float"): _wider_float,
    ("int", "decimal"): _wider_decimal,
    ("decimal", "decimal"): _wider_decimal,
    ("float", "decimal"): _fp64,
    ("date", "timestamp"): _the("timestamp"),
    ("timestamp", "timestamp"): _spark_timestamps,
}
#: Spark's binary comparisons: a string is cast to the other side's type, but beside a decimal with a
#: scale both become fp64; a decimal beside a float too.
_SPARK_COMPARE: dict[tuple[str, str], Pair] = {
    **_SPARK_NUMERIC,
    ("int", "string"): _numeric_one,
    ("float", "string"): _numeric_one,
    ("decimal", "string"): _spark_string_decimal,
    ("bool", "string"): _the("bool"),
    ("string", "date"): _the("date"),
    ("string", "timestamp"): _the("timestamp"),
}
#: Spark's CASE, COALESCE, IN lists and set operations (its "wider common type"): any atomic value but a
#: boolean beside a string becomes a string.
_SPARK_WIDER = {
    **_SPARK_NUMERIC,
    ("int", "string"): _string,
    ("float", "string"): _string,
    ("decimal", "string"): _string,
    ("string", "date"): _string,
    ("string", "timestamp"): _string,
}

#: Per dialect and construct, the pair table :func:`unify` folds the values with.
_UNIFY: dict[tuple[str, str], dict[tuple[str, str], Pair]] = {
    ("datafusion", "case"): _DF_CASE,
    ("datafusion", "union"): _DF_CASE,
    ("datafusion", "in"): _DF_COMPARE,
    ("datafusion", "coalesce"): _DF_UNION_RESOLUTION,
    ("datafusion", "values"): _DF_UNION_RESOLUTION,
    ("spark", "case"): _SPARK_WIDER,
    ("spark", "union"): _SPARK_WIDER,
    ("spark", "in"): _SPARK_WIDER,
    ("spark", "coalesce"): _SPARK_WIDER,
    ("spark", "values"): _SPARK_NUMERIC,
}
_COMPARE = {"datafusion": _DF_COMPARE, "spark": _SPARK_COMPARE}
#: GREATEST and LEAST: DataFusion as its comparisons, Spark without promoting to strings.
_EXTREMES = {"datafusion": _DF_COMPARE, "spark": _SPARK_NUMERIC}


def _common(table: Mapping[tuple[str, str], Pair], a: _V, b: _V) -> _V | None:
    if a == b:
        return a
    if a.family == "null":
        return b
    if b.family == "null":
        return a
    rule = table.get(_key(a, b))
    if rule is None:
        return None
    return rule(*((a, b) if _key(a, b) == (a.family, b.family) else (b, a)))


def _fold(table: Mapping[tuple[str, str], Pair], views: Sequence[_V]) -> _V | None:
    out: _V | None = views[0]
    for v in views[1:]:
        out = _common(table, out, v) if out is not None else None
    return out


# ---- arithmetic -------------------------------------------------------------------------------

Arithmetic = tuple[_V, _V, _V]  # the two arguments' targets and the result


def _df_arithmetic(function: str, a: _V, b: _V) -> Arithmetic | None:
    """DataFusion's arithmetic: an integer beside a decimal becomes the decimal of its width, a decimal
    beside a float becomes that float, other numbers their common type (u64 and a signed integer:
    decimal<20,0>, whose sum is then a decimal<21,0>)."""
    if a.family == "null" or b.family == "null":
        other = b if a.family == "null" else a
        a = b = other
    if not (a.numeric and b.numeric):
        return None
    if "decimal" in (a.family, b.family):
        if "float" in (a.family, b.family):
            f = a if a.family == "float" else b
            return f, f, f
        a, b = _as_decimal(a), _as_decimal(b)
        return a, b, _df_decimal_result(function, a, b)
    common = _common(_DF_NUMERIC, a, b)
    if common is None:
        return None
    return common, common, _df_decimal_result(function, common, common) if common.family == "decimal" else common


def _spark_arithmetic(function: str, a: _V, b: _V) -> Arithmetic | None:
    """Spark's arithmetic: an integer beside a decimal becomes the decimal of its width; a decimal beside
    a float, and a string beside a number, become fp64. Integers meet as their wider one for every
    operator: a plan's ``divide`` of integers divides as integers (Spark's ``div``, not its ``/``)."""
    if a.family == "null" or b.family == "null":
        other = b if a.family == "null" else a
        a = b = other
    families = {a.family, b.family}
    if not (a.numeric or b.numeric) or not families <= {"int", "float", "decimal", "string"}:
        return None
    if "string" in families or families == {"float", "decimal"}:
        return _FP64, _FP64, _FP64
    if "decimal" in families:
        a, b = _as_decimal(a), _as_decimal(b)
        return a, b, _spark_decimal_result(function, a, b)
    common = _common(_SPARK_NUMERIC, a, b)
    return (common, common, common) if common is not None else None


_ARITHMETIC_RULES = {"datafusion": _df_arithmetic, "spark": _spark_arithmetic}


def _df_decimal_result(function: str, a: _V, b: _V) -> _V:
    """DataFusion's (Arrow's) decimal arithmetic: digits cut at 38 (76) with the scale kept; a quotient
    has the dividend's scale plus 4."""
    cap = 76 if a.wide or b.wide else 38
    p1, s1, p2, s2 = a.precision, a.scale, b.precision, b.scale
    if function in ("add", "subtract"):
        s = max(s1, s2)
        p = max(p1 - s1, p2 - s2) + s + 1
    elif function == "multiply":
        p, s = p1 + p2 + 1, s1 + s2
    elif function == "divide":
        s = min(cap, s1 + 4)
        p = p1 - s1 + s2 + s
    else:
        s = max(s1, s2)
        p = min(p1 - s1, p2 - s2) + s
    return _V("decimal", precision=min(cap, p), scale=min(cap, s), wide=a.wide or b.wide)


def _spark_decimal_result(function: str, a: _V, b: _V) -> _V:
    """Spark's decimal arithmetic (the spec's decimal formulas): past 38 digits, the scale gives way,
    down to 6, to keep the integer digits."""
    p1, s1, p2, s2 = a.precision, a.scale, b.precision, b.scale
    if function in ("add", "subtract"):
        s = max(s1, s2)
        p = max(p1 - s1, p2 - s2) + s + 1
    elif function == "multiply":
        p, s = p1 + p2 + 1, s1 + s2
    elif function == "divide":
        s = max(6, s1 + p2 + 1)
        p = p1 - s1 + s2 + s
    else:
        s = max(s1, s2)
        p = min(p1 - s1, p2 - s2) + s
    if p > 38:
        s = max(38 - (p - s), min(s, 6))
        p = 38
    return _V("decimal", precision=p, scale=s)


# ---- the entry points -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Args:
    """A call's or a construct's values: their types, as the dialect sees them, and their names."""

    types: Sequence[Type]
    views: Sequence[_V]
    user_types: Mapping[int, str]

    @property
    def names(self) -> list[str]:
        return [self.text(t, v) for t, v in zip(self.types, self.views)]

    def text(self, t: Type, v: _V) -> str:
        if v.family == "null":
            return "null"
        if v.unsigned:
            return f"u{v.bits}"
        if v.wide:
            return f"decimal256<{v.precision},{v.scale}>"
        return T.render(T.with_nullability(t, False), user_types=self.user_types)

    def type_of(self, v: _V) -> Type | None:
        """``v`` as a Substrait type: an argument's own when one has it (its variation and precision kept)."""
        same = next((t for t, av in zip(self.types, self.views) if av == v), None)
        return same if same is not None else _build(v, False)

    def name(self, v: _V) -> str:
        t = self.type_of(v)
        return self.text(t, v) if t is not None else v.family

    def coercion(self, wanted: Sequence[_V], rule: str) -> Coercion | None:
        """Each value's cast (None where it keeps its type), nullable as the value is; None when none is
        cast or a target cannot be written as a Substrait type."""
        targets: list[Type | None] = []
        for t, v, w in zip(self.types, self.views, wanted):
            if v == w:
                targets.append(None)
                continue
            target = self.type_of(w)
            if target is None:
                return None
            nullable = T.is_nullable(t)
            targets.append(T.with_nullability(target, v.family == "null" if nullable is None else nullable))
        if all(t is None for t in targets):
            return None
        return Coercion(tuple(targets), rule)


def _args(dialect: str, types: Sequence[Type | None], user_types: Mapping[int, str] | None) -> _Args | None:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
    names = user_types or {}
    views = [_view(dialect, t, names) for t in types]
    if not views or any(v is None for v in views):
        return None
    return _Args(types, views, names)  # type: ignore[arg-type]


def _listing(names: Sequence[str]) -> str:
    distinct = list(dict.fromkeys(names))
    return distinct[0] if len(distinct) == 1 else ", ".join(distinct[:-1]) + " and " + distinct[-1]


def producer_result(
    dialect: str, function: str, args: Sequence[Type | None], *, user_types: Mapping[int, str] | None = None
) -> tuple[Type, str] | None:
    """The type ``dialect``'s engine gives a call where it is not the extension YAMLs' for the same
    arguments, and a clause saying so; None where the YAMLs' stands. DataFusion averages a
    decimal<P,S> as decimal<P+4,S+4> (at most 38 digits; Spark's avg does the same), where the YAMLs'
    avg keeps S places."""
    function = function.split(":", 1)[0].lower()
    values = [t for t in args if t is not None]
    if dialect != "datafusion" or function not in ("avg", "mean") or len(values) != 1:
        return None
    t = values[0]
    if t.WhichOneof("kind") != "decimal":
        return None
    p, s = min(38, t.decimal.precision + 4), min(38, t.decimal.scale + 4)
    out = Type(decimal=Type.Decimal(precision=p, scale=s, nullability=T.NULLABLE))
    rule = (
        f"{DIALECT_NAMES[dialect]} averages a {T.render(t, user_types=user_types)} as {T.render(out)}, the mean "
        f"cut toward zero at {s} digits, where Spark's own avg rounds half up"
    )
    return out, rule


def call_coercion(
    dialect: str, function: str, args: Sequence[Type | None], *, user_types: Mapping[int, str] | None = None
) -> Coercion | None:
    """The casts ``dialect`` applies to the value arguments ``args`` of a call to ``function`` (the
    Substrait name, before any ``:``) before it evaluates it; None when they need none (one type, or one
    unknown) or when the dialect has no rule for them. ``user_types`` (the plan's type anchors to their
    names) lets DataFusion's ``u!null`` and ``u!fp16`` be read.

    Spark evaluates BETWEEN as two comparisons, each coerced by itself: when they cast the value
    differently there is no one target for it, and the result is None (Spark's own BETWEEN does it).
    Spark's NULLIF compares its arguments coerced but returns the first one uncast: None as well."""
    function = function.split(":", 1)[0].lower()
    a = _args(dialect, args, user_types)
    if a is None:
        return None
    who, names, views = DIALECT_NAMES[dialect], a.names, a.views
    if function in _FP64_STATISTICS and len(views) == 1 and views[0].numeric:
        return a.coercion([_FP64], f"{who} computes {function} of {names[0]} over fp64")
    if function in ("avg", "mean") and len(views) == 1 and (views[0].family == "int" or views[0] == _V("float", 32)):
        # the YAMLs' avg of an integer is that integer, of an fp32 an fp32; both engines average them in double
        return a.coercion([_FP64], f"{who} averages an {names[0]} as fp64")
    if dialect == "datafusion" and function in _DF_TEXT_ARGUMENTS:
        text = _df_text_arguments(function, a)
        if text is not None:
            return text
    if function in _COMPARISONS and len(views) == 2:
        nested = _nested_coercion(
            dialect, _COMPARE[dialect], a, lambda common: f"{who} compares {names[0]} with {names[1]} as {common}"
        )
        if nested is not None:
            return nested
    if all(v == views[0] for v in views):
        return None
    if dialect == "datafusion" and function in ("like", "ilike") and {v.family for v in views} == {"string", "null"}:
        return a.coercion([_V("string")] * len(views), f"{who} takes a null in {function.upper()} as text")
    if function in _COMPARISONS and len(views) == 2:
        common = _common(_COMPARE[dialect], *views)
        if common is None:
            return None
        return a.coercion([common] * 2, f"{who} compares {names[0]} with {names[1]} as {a.name(common)}")
    if function == "between" and len(views) == 3:
        return _between(dialect, a)
    if function in _ARITHMETIC and len(views) == 2:
        found = _ARITHMETIC_RULES[dialect](function, *views)
        if found is None:
            return None
        left, right, result = found
        op = _ARITHMETIC[function]
        as_ = a.name(left) if left == right else f"{a.name(left)} {op} {a.name(right)}"
        rule = f"{who} computes {names[0]} {op} {names[1]} as {as_}"
        if not (left == right == result):
            rule += f", giving {a.name(result)}"
        if function == "divide" and result.family == "int":
            rule += " (integer division)"
        return a.coercion([left, right], rule)
    if function == "coalesce":
        return unify(dialect, args, context="coalesce", user_types=user_types)
    # DataFusion's nullif and nvl2 take all their arguments, the tested one too, to one type: nullif's as a
    # comparison's (a number beside text is a number), nvl2's as a CASE's (it is text)
    table = {("nullif", 2): _DF_COMPARE, ("nvl2", 3): _DF_CASE}.get((function, len(views)))
    if dialect != "datafusion":
        table = None
    if function in ("greatest", "least") or table is not None:
        common = _fold(table or _EXTREMES[dialect], views)
        if common is None:
            return None
        rule = f"{who} gives {function.upper()}'s arguments {_listing(names)} the type {a.name(common)}"
        return a.coercion([common] * len(views), rule)
    if function in ("concat", "str_concat"):
        return _concat(dialect, a)
    return None


#: DataFusion's string functions (as its producer names them) that take other values as text, by the positions
#: of their text arguments (None: every one): a number, a date, a time or a boolean there is cast to its text
#: first, as DataFusion writes it (``1e20``, ``2020-01-01T10:00:00``; Spark's own cast writes ``1.0E20``).
#: Its other string functions (upper, btrim, substr, ...) refuse them.
_DF_TEXT_ARGUMENTS: dict[str, tuple[int, ...] | None] = {
    **dict.fromkeys(
        ("character_length", "char_length", "length", "reverse", "translate", "regexp_replace", "regexp_match"), None
    ),
    **dict.fromkeys(("string_agg", "overlay", "find_in_set"), (0, 1)),
    **dict.fromkeys(("left", "right"), (0,)),
    **dict.fromkeys(("lpad", "rpad"), (0, 2)),
    "regexp_count": (0, 1, 3),
    "regexp_instr": (0, 1, 4),
}
_AS_TEXT = ("bool", "int", "float", "decimal", "date", "timestamp")


def _df_text_arguments(function: str, a: _Args) -> Coercion | None:
    positions = _DF_TEXT_ARGUMENTS[function]
    wanted = [
        _V("string") if (positions is None or i in positions) and v.family in _AS_TEXT else v
        for i, v in enumerate(a.views)
    ]
    cast = list(dict.fromkeys(n for n, v, w in zip(a.names, a.views, wanted) if v != w))
    return a.coercion(wanted, f"DataFusion casts {_listing(cast)} to text for {function}") if cast else None


def _between(dialect: str, a: _Args) -> Coercion | None:
    """DataFusion casts all three to the common type of (value, low) and (value, high); Spark compares
    with each bound by itself."""
    table = _COMPARE[dialect]
    x, low, high = a.views
    with_low, with_high = _common(table, x, low), _common(table, x, high)
    if with_low is None or with_high is None:
        return None
    common = _common(table, with_low, with_high) if dialect == "datafusion" else with_low
    if common is None or (dialect == "spark" and with_low != with_high):
        return None
    names = a.names
    rule = f"{DIALECT_NAMES[dialect]} compares {names[0]} with {names[1]} and {names[2]} as {a.name(common)}"
    return a.coercion([common] * 3, rule)


_CONCATENABLE = ("null", "bool", "int", "float", "decimal", "string", "date", "timestamp")


def _concat(dialect: str, a: _Args) -> Coercion | None:
    """``||``: DataFusion casts the other values to string when one is a string; Spark casts every one."""
    if dialect == "datafusion" and not any(v.family == "string" for v in a.views):
        return None
    if any(v.family not in _CONCATENABLE for v in a.views):
        return None
    others = [n for n, v in zip(a.names, a.views) if v.family != "string"]
    rule = f"{DIALECT_NAMES[dialect]} casts {_listing(others)} to string to concatenate"
    return a.coercion([_V("string")] * len(a.views), rule)


_NESTED = ("struct", "list", "map")


def _shape(t: Type) -> str:
    """A type's text without any nullability, at every depth."""
    return T.render(t).replace("?", "")


def _member(dialect: str, table: Mapping[tuple[str, str], Pair], types: Sequence[Type], names) -> Type | None:
    """The common type of the members (or elements, keys, values) at one place of nested values, as
    ``table`` takes two scalars together; nullable where any is; None where they have none."""
    nullable = any(T.is_nullable(t) is not False for t in types)
    if all(_shape(t) == _shape(types[0]) for t in types):
        return T.with_nullability(types[0], nullable)
    nested = _nested_common(dialect, table, types, names)
    if nested is not None:
        return T.with_nullability(nested, nullable)
    a = _args(dialect, types, names)
    common = _fold(table, a.views) if a is not None else None
    if common is None or common.family in _NESTED:
        return None
    target = a.type_of(common)
    return T.with_nullability(target, nullable) if target is not None else None


def _nested_common(
    dialect: str, table: Mapping[tuple[str, str], Pair], types: Sequence[Type], names: Mapping[int, str]
) -> Type | None:
    """The common type of records, lists or maps of one shape: member by member (element by element), as
    ``table`` takes their scalars together (DataFusion's coercion of nested values); None unless every
    value (nulls aside) is nested alike and each place has a common type."""
    present = [t for t in types if T.kind(t) is not None and not T.is_null_type(t, names)]
    kinds = {T.kind(t) for t in present}
    if len(kinds) != 1 or not kinds <= set(_NESTED):
        return None
    kind = kinds.pop()
    if kind == "struct":
        widths = {len(t.struct.types) for t in present}
        if len(widths) != 1:
            return None
        members = [_member(dialect, table, [t.struct.types[i] for t in present], names) for i in range(widths.pop())]
        if any(m is None for m in members):
            return None
        return Type(struct=Type.Struct(types=members, nullability=T.NULLABLE))
    if kind == "list":
        element = _member(dialect, table, [t.list.type for t in present], names)
        return Type(list=Type.List(type=element, nullability=T.NULLABLE)) if element is not None else None
    key = _member(dialect, table, [t.map.key for t in present], names)
    value = _member(dialect, table, [t.map.value for t in present], names)
    if key is None or value is None:
        return None
    return Type(map=Type.Map(key=key, value=value, nullability=T.NULLABLE))


def _nested_coercion(
    dialect: str, table: Mapping[tuple[str, str], Pair], a: _Args, wording: Callable[[str], str]
) -> Coercion | None:
    """The casts that take nested values to their common type (:func:`_nested_common`), each nullable as
    the value is; None where they share one already or have none. ``wording(type)`` is the rule's clause."""
    if len({_shape(t) for t in a.types if T.kind(t) is not None}) <= 1:
        return None
    common = _nested_common(dialect, table, a.types, a.user_types)
    if common is None:
        return None
    targets = tuple(
        None
        if _shape(t) == _shape(common)
        else T.with_nullability(common, T.is_nullable(t) is not False or v.family == "null")
        for t, v in zip(a.types, a.views)
    )
    if all(t is None for t in targets):
        return None
    return Coercion(targets, wording(T.render(T.with_nullability(common, False), user_types=a.user_types)))


def unify(
    dialect: str,
    types: Sequence[Type | None],
    *,
    context: str = "case",
    has_else: bool = True,
    user_types: Mapping[int, str] | None = None,
) -> Coercion | None:
    """The common type ``dialect`` gives values that must share one, as casts per value (None where a
    value keeps its type); None when they already share one, one is unknown, or the dialect has none.

    ``context`` is the construct (``CONTEXTS``), in whose order ``types`` come: ``"case"`` the THEN
    values then the ELSE value (``has_else``: whether the last one is an ELSE, where DataFusion starts);
    ``"coalesce"`` the arguments; ``"in"`` the value then the options; ``"union"`` one column of each
    input; ``"values"`` one column of each row. A null-typed value takes the others' type."""
    if context not in CONTEXTS:
        raise ValueError(f"unknown context {context!r}; expected one of {', '.join(CONTEXTS)}")
    a = _args(dialect, types, user_types)
    if a is None:
        return None
    words = f"{DIALECT_NAMES[dialect]} gives {_CONTEXT_WORDS[context]} {_listing(a.names)}"
    nested = _nested_coercion(dialect, _UNIFY[(dialect, context)], a, lambda common: f"{words} the type {common}")
    if nested is not None:
        return nested
    if all(v == a.views[0] for v in a.views):
        return None
    order = list(a.views)
    if dialect == "datafusion" and context == "case" and has_else:
        order = order[-1:] + order[:-1]
    if dialect == "spark" and context != "values":
        order.sort(key=lambda v: v.family != "string")  # Spark folds strings first
    common = _fold(_UNIFY[(dialect, context)], order)
    if common is None or common.family == "null":
        return None
    rule = f"{DIALECT_NAMES[dialect]} gives {_CONTEXT_WORDS[context]} {_listing(a.names)} the type {a.name(common)}"
    return a.coercion([common] * len(a.views), rule)


def arithmetic_result(
    dialect: str, function: str, args: Sequence[Type | None], *, user_types: Mapping[int, str] | None = None
) -> Type | None:
    """The type ``dialect`` gives ``function`` (add, subtract, multiply, divide, modulus) of ``args``
    after its coercion: the common number, or for decimals the engine's own precision and scale
    (DataFusion's differ from the spec's for divide, and past 38 digits); nullable when an argument is.
    None when the dialect has no rule for them."""
    function = function.split(":", 1)[0].lower()
    a = _args(dialect, args, user_types)
    if function not in _ARITHMETIC or a is None or len(a.views) != 2:
        return None
    found = _ARITHMETIC_RULES[dialect](function, *a.views)
    if found is None:
        return None
    result = a.type_of(found[2])
    if result is None:
        return None
    return T.with_nullability(result, any(T.is_nullable(t) is not False for t in args))


__all__ = [
    "CONTEXTS",
    "Coercion",
    "DIALECTS",
    "UNSIGNED_VARIATION",
    "DICTIONARY_VARIATION",
    "dictionary_values",
    "arithmetic_result",
    "call_coercion",
    "is_unsigned",
    "kept_unsigned",
    "unify",
    "unsigned_value",
    "variation_names",
]
