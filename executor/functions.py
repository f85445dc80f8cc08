"""Substrait extension functions as PySpark ``Column`` builders.

A function is resolved by the name before ``:`` (``add:i32_i32`` -> ``add``), then through
``ALIASES`` (names real producers write: DataFusion's ``date_part``, DuckDB's ``~~``, ...), then in
one of three tables (``SCALAR``, ``AGGREGATE``, ``WINDOW``): name -> builder(call, args) -> Column.

Arguments are Spark columns, or ``str`` for an enum argument (``"YEAR"`` for extract), or a Python
callable ``Column -> Column`` for a lambda (``transform``, ``filter``, ``any_match``, ``all_match``).

Where Spark's semantics differ from Substrait's, the builders follow Substrait: integer division
truncates, overflow follows the ``overflow`` option (Spark silently wraps), float division by zero
gives +-inf/NaN (Spark gives null), NaN compares unequal to everything, logarithms of 0 and of
negative numbers follow ``on_log_zero`` / ``on_domain_error``. An option Spark cannot honour adds a
message to ``call.warnings``. When the call's output type is known the result is cast to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait.type_pb2 import Type

from .errors import Unsupported
from .types import to_spark


@dataclass
class Call:
    name: str  # the extension function name as written: "add:i32_i32", "sum", "equal:any_any"
    arg_types: list[Type | None]  # Substrait types of the value arguments (None when unknown)
    output_type: Type | None  # the call's declared output type
    options: dict[str, list[str]]  # FunctionOption name -> preferences
    distinct: bool = False  # aggregate invocation DISTINCT
    warnings: list[str] = field(default_factory=list)
    #: the Python value of each value argument that is a literal (through casts), else NOT_CONSTANT
    constants: list = field(default_factory=list)


NOT_CONSTANT = object()


Builder = Callable[[Call, list], Column]


def base_name(name: str) -> str:
    """``add:i32_i32`` -> ``add`` (lower case; the name before ``:``)."""
    return name.split(":", 1)[0].strip().lower()


# --- helpers ---------------------------------------------------------------------------------

INT_RANGE = {
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
}
FLOATS = ("fp32", "fp64")
WIDE = S.DecimalType(38, 0)


def _kind(t: Type | None) -> str | None:
    return None if t is None else t.WhichOneof("kind")


def _arg_kind(call: Call, i: int = 0) -> str | None:
    return _kind(call.arg_types[i]) if i < len(call.arg_types) else None


_WIDER = ("fp64", "fp32", "decimal", "i64", "i32", "i16", "i8")  # mixed arguments: the first of these wins


def _value_kind(call: Call) -> str | None:
    """The kind the arithmetic works in: that of the typed value arguments when they agree, else the
    declared output's (DataFusion writes ``subtract(i64 1, decimal)`` typed decimal), else the widest."""
    kinds = [_kind(t) for t in call.arg_types if t is not None]
    if kinds and all(k == kinds[0] for k in kinds):
        return kinds[0]
    out = _kind(call.output_type)
    if out is not None or not kinds:
        return out
    return next((k for k in _WIDER if k in kinds), kinds[0])


def _spark_type(t: Type | None) -> S.DataType | None:
    try:
        return to_spark(t) if t is not None else None
    except Unsupported:
        return None


def _option(call: Call, name: str, supported: tuple[str, ...], default: str) -> str:
    """The first preference for option ``name`` that is in ``supported``; ``default`` when none is given.

    When preferences are given but none can be honoured, a warning is added and ``default`` used.
    """
    prefs = [p.strip().upper() for p in call.options.get(name, [])]
    for p in prefs:
        if p in supported:
            return p
    if prefs:
        call.warnings.append(
            f"{base_name(call.name)}: option {name}={'/'.join(prefs)} is not supported on Spark; using {default}"
        )
    return default


def _values(args: list) -> list[Column]:
    """The value (Column) arguments, enum strings left out."""
    return [a for a in args if isinstance(a, Column)]


def _enums(args: list) -> list[str]:
    return [a.upper() for a in args if isinstance(a, str)]


def _big(n: int) -> Column:
    """An exact integer literal of any size (decimal(38,0))."""
    return F.lit(Decimal(n)).cast(WIDE)


def _error(message: str) -> Column:
    return F.raise_error(F.lit(message))


def _fail_if(cond: Column, message: str, value: Column) -> Column:
    return F.when(cond, _error(message)).otherwise(value)


def _int_result(call: Call, name: str, wide: Column, native: Column, kind: str) -> Column:
    """An integer result under the ``overflow`` option: ``wide`` is exact (decimal), ``native`` wraps."""
    mode = _option(call, "overflow", ("SILENT", "SATURATE", "ERROR"), "SILENT")
    target = to_spark(Type(**{kind: getattr(Type, kind.upper())()}))
    if mode == "SILENT":
        return native.cast(target)
    lo, hi = INT_RANGE[kind]
    if mode == "ERROR":
        return _fail_if((wide < lo) | (wide > hi), f"{name}: {kind} overflow", wide).cast(target)
    return F.when(wide > hi, F.lit(hi)).when(wide < lo, F.lit(lo)).otherwise(wide).cast(target)


def _float_rounding(call: Call) -> None:
    """Spark's float arithmetic rounds ties to even (IEEE 754); other modes get a warning."""
    _option(call, "rounding", ("TIE_TO_EVEN",), "TIE_TO_EVEN")


def _nan_safe(call: Call, cols: list[Column]) -> Column | None:
    """For float arguments: a condition that is true when any argument is NaN (Spark's NaN = NaN is true)."""
    floats = [c for i, c in enumerate(cols) if _arg_kind(call, i) in FLOATS]
    if not floats:
        return None
    cond = F.isnan(floats[0])
    for c in floats[1:]:
        cond = cond | F.isnan(c)
    return cond


# --- arithmetic ------------------------------------------------------------------------------


def _binary_int_op(name: str, op: Callable[[Column, Column], Column]) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        kind = _value_kind(call)
        if kind in INT_RANGE:
            return _int_result(call, name, op(a.cast(WIDE), b.cast(WIDE)), op(a, b), kind)
        if kind in FLOATS:
            _float_rounding(call)
        elif kind == "decimal" and "overflow" in call.options:
            mode = _option(call, "overflow", ("SILENT", "ERROR"), "SILENT")
            if mode == "ERROR":  # Spark (non-ANSI) turns a decimal overflow into null
                r = op(a, b)
                return _fail_if(r.isNull() & a.isNotNull() & b.isNotNull(), f"{name}: decimal overflow", r)
        return op(a, b)

    return build


def _divide(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    kind = _value_kind(call)
    zero = _option(call, "on_division_by_zero", ("NULL", "ERROR", "NAN", "LIMIT"), "")
    if kind in INT_RANGE:
        long_a, long_b = a.cast("long"), b.cast("long")
        q = F.call_function("div", long_a, long_b)  # truncates toward zero; null for a zero divisor
        lo, _ = INT_RANGE[kind]
        wide = F.when((long_a == lo) & (long_b == -1), _big(-lo)).otherwise(q.cast(WIDE))
        out = _int_result(call, "divide", wide, q, kind)
        if zero == "ERROR":
            out = _fail_if(b == 0, "divide: division by zero", out)
        return out
    if kind in FLOATS:
        _float_rounding(call)
        ieee = (
            F.when(F.isnan(a) | (a == 0), F.lit(float("nan")))
            .when((a > 0) == (F.signum(b) >= 0), F.lit(float("inf")))
            .otherwise(F.lit(float("-inf")))
        )
        special = {"NULL": F.lit(None), "ERROR": _error("divide: division by zero")}.get(zero, ieee)
        return F.when(b == 0, special).otherwise(a / b)
    out = a / b
    if zero == "ERROR":
        out = _fail_if(b == 0, "divide: division by zero", out)
    return out


def _modulus(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    mode = _option(call, "division_type", ("TRUNCATE", "FLOOR"), "TRUNCATE")
    r = a % b  # Spark: the sign of the dividend (truncated division); null for a zero divisor
    if mode == "FLOOR":
        r = F.when((r != 0) & ((r < 0) != (b < 0)), r + b).otherwise(r)
    if _option(call, "on_domain_error", ("NULL", "ERROR"), "NULL") == "ERROR":
        r = _fail_if(b == 0, "modulus: division by zero", r)
    return r


def _unary_int(name: str, op: Callable[[Column], Column]) -> Builder:
    def build(call: Call, args: list) -> Column:
        (a,) = _values(args)[:1]
        kind = _value_kind(call)
        if kind in INT_RANGE:
            return _int_result(call, name, op(a.cast(WIDE)), op(a), kind)
        return op(a)

    return build


def _bitwise(op: Callable[[Column, Column], Column]) -> Builder:
    """Bitwise operators; decimal<p,0> arguments go through a 64-bit integer (Spark has no wider one)."""

    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        if _value_kind(call) == "decimal":
            lo, hi = INT_RANGE["i64"]
            too_wide = (a < lo) | (a > hi) | (b < lo) | (b > hi)
            message = "bitwise operations on decimals beyond 64 bits are not supported on Spark"
            return _fail_if(too_wide, message, op(a.cast("long"), b.cast("long")))
        return op(a, b)

    return build


def _power(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    kind = _value_kind(call)
    r = F.pow(a.cast("double"), b.cast("double"))
    if kind in INT_RANGE:
        lo, hi = INT_RANGE[kind]
        exact = F.when(F.abs(r) < 2.0**53, r.cast("long"))
        return _int_result(call, "power", r, exact, kind)
    complex_ = _option(call, "complex_number_result", ("NAN", "ERROR"), "NAN")
    if complex_ == "ERROR":
        r = _fail_if((a < 0) & (F.floor(b) != b), "power: complex result", r)
    return r


def _factorial(call: Call, args: list) -> Column:
    (a,) = _values(args)[:1]
    kind = _value_kind(call) or "i64"
    if kind == "decimal":  # the decimal factorial raises on overflow (it has no option)
        call.options.setdefault("overflow", ["ERROR"])
    if kind not in INT_RANGE:
        kind = "i64"
    lo, hi = INT_RANGE[kind]
    # Spark's factorial is defined for 0..20 (null otherwise); 21! does not fit in an i64.
    native = F.factorial(a.cast("int"))
    over = F.when(a > 20, _big(hi + 1)).otherwise(native).cast(WIDE)
    out = _int_result(call, "factorial", over, native, kind)
    return F.when(a < 0, _error("factorial: negative argument")).otherwise(out)


def _domain(call: Call, name: str, value: Column, bad: Column, default: str = "NAN") -> Column:
    """Apply ``on_domain_error`` where ``bad`` holds (NAN / NULL / ERROR)."""
    mode = _option(call, "on_domain_error", ("NAN", "NULL", "NONE", "ERROR"), default)
    special = {
        "NAN": F.lit(float("nan")),
        "NULL": F.lit(None).cast("double"),
        "NONE": F.lit(None).cast("double"),
        "ERROR": _error(f"{name}: argument out of the function's domain"),
    }[mode]
    return F.when(bad, special).otherwise(value)


def _math(name: str, fn: Callable[[Column], Column], bad: Callable[[Column], Column] | None = None) -> Builder:
    def build(call: Call, args: list) -> Column:
        (a,) = _values(args)[:1]
        # The decimal variants have no on_domain_error option: a domain error raises.
        default = "ERROR" if _value_kind(call) == "decimal" else "NAN"
        a = a.cast("double")
        _float_rounding(call)
        out = fn(a)
        return _domain(call, name, out, bad(a), default) if bad is not None else out

    return build


def _log(name: str, fn: Callable[[Column], Column]) -> Builder:
    """ln / log10 / log2 / log1p: Spark gives null for x <= 0; Substrait follows the options."""

    def build(call: Call, args: list) -> Column:
        (a,) = _values(args)[:1]
        x = a.cast("double")
        shifted = x + 1 if name == "log1p" else x
        return _log_result(call, name, fn(x), shifted)

    return build


def _log_result(call: Call, name: str, value: Column, x: Column) -> Column:
    zero = _option(call, "on_log_zero", ("NAN", "ERROR", "MINUS_INFINITY"), "MINUS_INFINITY")
    zero_value = {
        "NAN": F.lit(float("nan")),
        "ERROR": _error(f"{name}: logarithm of zero"),
        "MINUS_INFINITY": F.lit(float("-inf")),
    }[zero]
    out = _domain(call, name, value, x < 0)
    return F.when(x == 0, zero_value).otherwise(out)


def _logb(call: Call, args: list) -> Column:
    base, a = (c.cast("double") for c in _values(args)[:2])
    value = F.ln(a) / F.ln(base)
    return _log_result(call, "logb", F.when(a == float("inf"), F.lit(float("inf"))).otherwise(value), a)


def _atan2(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return F.atan2(a.cast("double"), b.cast("double"))


def _sign(call: Call, args: list) -> Column:
    return F.signum(_values(args)[0])


# --- rounding --------------------------------------------------------------------------------


def _round(call: Call, args: list) -> Column:
    vals = _values(args)
    x, scale = vals[0], (vals[1] if len(vals) > 1 else F.lit(0))
    mode = _option(call, "rounding", ("TIE_AWAY_FROM_ZERO", "TIE_TO_EVEN"), "TIE_AWAY_FROM_ZERO")
    fn = "round" if mode == "TIE_AWAY_FROM_ZERO" else "bround"
    return F.call_function(fn, x, scale)


def _ceil_floor(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        x = _values(args)[0]
        out = F.call_function(fn, x)
        if _value_kind(call) in FLOATS:  # Spark returns a long; Substrait keeps the float type
            return F.when(F.isnan(x) | (F.abs(x) == float("inf")), x).otherwise(out).cast(x_type(call))
        return out

    return build


def x_type(call: Call) -> str:
    return "float" if _value_kind(call) == "fp32" else "double"


# --- comparison ------------------------------------------------------------------------------


def _compare(op: Callable[[Column, Column], Column], nan_result: bool) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        out = op(a, b)
        nan = _nan_safe(call, [a, b])
        if nan is None:
            return out
        return F.when(nan & a.isNotNull() & b.isNotNull(), F.lit(nan_result)).otherwise(out)

    return build


def _between(call: Call, args: list) -> Column:
    x, lo, hi = _values(args)[:3]
    return (x >= lo) & (x <= hi)


def _coalesce(call: Call, args: list) -> Column:
    return F.coalesce(*_values(args))


def _nullif(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return F.when(a == b, F.lit(None)).otherwise(a)


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


# --- boolean ---------------------------------------------------------------------------------


def _fold(op: Callable[[Column, Column], Column], empty: bool) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        if not vals:
            return F.lit(empty)
        out = vals[0]
        for v in vals[1:]:
            out = op(out, v)  # Spark's AND / OR follow SQL's three-valued logic, as Substrait's do
        return out

    return build


def _xor(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return (a & ~b) | (~a & b)


def _and_not(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return a & ~b


# --- strings ---------------------------------------------------------------------------------


def _concat(call: Call, args: list) -> Column:
    vals = _values(args)
    mode = _option(call, "null_handling", ("ACCEPT_NULLS", "IGNORE_NULLS"), "ACCEPT_NULLS")
    if mode == "IGNORE_NULLS":
        return F.concat_ws("", *vals)
    return F.concat(*vals)


def _concat_ws(call: Call, args: list) -> Column:
    sep, *vals = _values(args)
    return F.call_function("concat_ws", sep, *vals)


def _case_insensitive(call: Call) -> bool:
    mode = _option(
        call, "case_sensitivity", ("CASE_SENSITIVE", "CASE_INSENSITIVE", "CASE_INSENSITIVE_ASCII"), "CASE_SENSITIVE"
    )
    return mode != "CASE_SENSITIVE"


def _string_pred(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        if _case_insensitive(call):
            a, b = F.lower(a), F.lower(b)
        return F.call_function(fn, a, b)

    return build


def _like(call: Call, args: list, insensitive: bool = False) -> Column:
    """LIKE; a third argument is the escape character (DataFusion writes one, a null literal when the
    SQL has none). Spark takes the escape only as a one-character literal."""
    vals = _values(args)
    fn = "ilike" if insensitive or _case_insensitive(call) else "like"
    if len(vals) < 3:
        return F.call_function(fn, *vals[:2])
    escape = call.constants[2] if len(call.constants) > 2 else NOT_CONSTANT
    if escape is None:
        return F.call_function(fn, *vals[:2])
    if isinstance(escape, str) and len(escape) == 1:
        return F.call_function(fn, vals[0], vals[1], F.lit(escape))
    given = "an expression" if escape is NOT_CONSTANT else repr(escape)
    raise Unsupported(f"{fn}: Spark takes the escape character only as a one-character literal, not {given}")


def _substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, start = vals[0], vals[1]
    length = vals[2] if len(vals) > 2 else None
    mode = _option(call, "negative_start", ("WRAP_FROM_END", "LEFT_OF_BEGINNING", "ERROR"), "WRAP_FROM_END")
    plain = F.call_function("substring", s, start, length) if length is not None else F.call_function(
        "substring", s, start
    )
    if mode == "WRAP_FROM_END":
        return plain
    if mode == "ERROR":
        return _fail_if(start < 0, "substring: negative start", plain)
    if length is None:
        return F.when(start < 1, s).otherwise(plain)
    kept = F.greatest(length + start - 1, F.lit(0))
    return F.when(start < 1, F.call_function("substring", s, F.lit(1), kept)).otherwise(plain)


def _trim(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        _option(call, "spaces_only", ("FALSE", "F", "TRUE", "T"), "FALSE")
        trim = {"trim": F.trim, "ltrim": F.ltrim, "rtrim": F.rtrim}[fn]
        return trim(vals[0], vals[1]) if len(vals) > 1 else trim(vals[0])

    return build


def _strpos(call: Call, args: list) -> Column:
    s, sub = _values(args)[:2]
    if _case_insensitive(call):
        s, sub = F.lower(s), F.lower(sub)
    return F.call_function("instr", s, sub)


def _replace(call: Call, args: list) -> Column:
    s, search, repl = _values(args)[:3]
    if _case_insensitive(call):
        call.warnings.append("replace: case-insensitive replace is not supported; replaced case-sensitively")
    return F.when(search == "", s).otherwise(F.call_function("replace", s, search, repl))


def _spark_fn(fn: str, arity: int | None = None) -> Builder:
    """A Spark SQL function taking the value arguments as they are."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        return F.call_function(fn, *(vals if arity is None else vals[:arity]))

    return build


def _char_set(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        _option(call, "char_set", ("UTF8",), "UTF8")
        return F.call_function(fn, _values(args)[0])

    return build


def _regex_flags(call: Call) -> str:
    flags = ""
    if _case_insensitive(call):
        flags += "i"
    if _option(call, "multiline", ("MULTILINE_DISABLED", "MULTILINE_ENABLED"), "MULTILINE_DISABLED").endswith("ENABLED"):
        flags += "m"
    if _option(call, "dotall", ("DOTALL_DISABLED", "DOTALL_ENABLED"), "DOTALL_DISABLED").endswith("ENABLED"):
        flags += "s"
    _option(call, "lookaround", ("TRUE", "FALSE"), "TRUE")  # Java regexes support lookaround
    return flags


def _pattern(call: Call, pattern: Column) -> Column:
    flags = _regex_flags(call)
    return F.concat(F.lit(f"(?{flags})"), pattern) if flags else pattern


def _from_position(s: Column, position: Column | None) -> Column:
    return s if position is None else F.call_function("substring", s, position)


def _regexp_match_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    occurrence = vals[3] if len(vals) > 3 else F.lit(1)
    group = vals[4] if len(vals) > 4 else F.lit(0)
    matches = F.call_function("regexp_extract_all", _from_position(s, position), pattern, group.cast("int"))
    return F.call_function("try_element_at", matches, occurrence.cast("int"))


def _regexp_count_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    return F.call_function("regexp_count", _from_position(s, position), pattern)


def _regexp_replace(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    repl = F.regexp_replace(vals[2], F.lit(r"\\(\d)"), F.lit(r"\$$1"))  # backreference \1 -> Java's $1
    position = vals[3] if len(vals) > 3 else F.lit(1)
    out = F.call_function("regexp_replace", s, pattern, repl, position.cast("int"))
    if len(vals) > 4:  # occurrence: 0 = every match (Spark's only mode)
        out = F.when(vals[4] == 0, out).otherwise(_error("regexp_replace: only occurrence 0 (all) is supported"))
    return out


def _regexp_string_split(call: Call, args: list) -> Column:
    s, pattern = _values(args)[:2]
    return F.call_function("split", s, _pattern(call, pattern), F.lit(-1))


def _string_split(call: Call, args: list) -> Column:
    s, sep = _values(args)[:2]
    quoted = F.concat(F.lit("\\Q"), sep, F.lit("\\E"))
    return F.when(sep.isNull(), F.array(s)).otherwise(F.call_function("split", s, quoted, F.lit(-1)))


def _pad(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        return F.call_function(fn, vals[0], vals[1], vals[2] if len(vals) > 2 else F.lit(" "))

    return build


# --- datetime --------------------------------------------------------------------------------

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
_ZERO_BASED = {"MONDAY_DAY_OF_WEEK", "SUNDAY_DAY_OF_WEEK", "ISO_WEEK", "MONDAY_WEEK", "SUNDAY_WEEK", "US_WEEK"}


def _extract(call: Call, args: list) -> Column:
    enums = _enums(args)
    vals = _values(args)
    if not enums:  # DataFusion's date_part('year', x): the component as a string literal
        if len(vals) < 2:
            raise Unsupported("date_part/extract needs a component and a value")
        return F.call_function("date_part", vals[0], vals[1])
    component = enums[0]
    fn = _EXTRACT.get(component)
    if fn is None:
        raise Unsupported(f"extract component {component}: no Spark mapping; mapped: {', '.join(sorted(_EXTRACT))}")
    out = fn(vals[-1])
    if len(enums) > 1 and enums[1] == "ZERO" and component in _ZERO_BASED:
        out = out - 1
    return out


def _add_sub(op: Callable[[Column, Column], Column], name: str) -> Builder:
    """add / subtract: numbers (with the overflow option), or a date/time and an interval."""
    numeric = _binary_int_op(name, op)

    def build(call: Call, args: list) -> Column:
        kinds = {_arg_kind(call, i) for i in range(len(call.arg_types))}
        if kinds & {"date", "precision_timestamp", "precision_timestamp_tz", "timestamp", "timestamp_tz",
                    "interval_day", "interval_year", "interval_compound"}:
            a, b = _values(args)[:2]
            return op(a, b)
        return numeric(call, args)

    return build


_STRFTIME = {
    "%Y": "yyyy", "%m": "MM", "%d": "dd", "%H": "HH", "%M": "mm", "%S": "ss", "%y": "yy", "%b": "MMM",
    "%B": "MMMM", "%a": "EEE", "%A": "EEEE", "%j": "DDD", "%p": "a", "%I": "hh", "%f": "SSSSSS",
    "%z": "xx", "%Z": "z", "%%": "%", "%e": "d", "%F": "yyyy-MM-dd", "%T": "HH:mm:ss", "%D": "MM/dd/yy",
}


def _strftime(call: Call, args: list) -> Column:
    """strftime / to_char: the C-style format codes are rewritten to Java's on the Spark side."""
    x, fmt = _values(args)[:2]
    java = fmt
    for code, pattern in _STRFTIME.items():
        java = F.replace(java, F.lit(code), F.lit(pattern))
    return F.call_function("date_format", x, java)


def _date_trunc(call: Call, args: list) -> Column:
    enums, vals = _enums(args), _values(args)
    unit = F.lit(enums[0]) if enums else vals[0]
    return F.call_function("date_trunc", unit, vals[-1])


# --- lists -----------------------------------------------------------------------------------


def _cardinality(call: Call, args: list) -> Column:
    x = _values(args)[0]
    return F.when(x.isNull(), F.lit(None)).otherwise(F.size(x))


def _sort_list(call: Call, args: list) -> Column:
    x = _values(args)[0]
    mode = _option(
        call, "direction", ("ASC_NULLS_FIRST", "ASC_NULLS_LAST", "DESC_NULLS_FIRST", "DESC_NULLS_LAST"), "ASC_NULLS_LAST"
    )
    sorts = {
        "ASC_NULLS_FIRST": lambda: F.sort_array(x, asc=True),
        "ASC_NULLS_LAST": lambda: F.array_sort(x),
        "DESC_NULLS_FIRST": lambda: F.reverse(F.array_sort(x)),
        "DESC_NULLS_LAST": lambda: F.sort_array(x, asc=False),
    }
    return sorts[mode]()


def _lambda_fn(spark_fn: Callable[[Column, Callable], Column]) -> Builder:
    def build(call: Call, args: list) -> Column:
        lst = _values(args)[0]
        fns = [a for a in args if callable(a) and not isinstance(a, (Column, str))]
        if not fns:
            raise Unsupported(f"{base_name(call.name)} needs a lambda argument")
        return spark_fn(lst, fns[0])

    return build


def _index_in(call: Call, args: list) -> Column:
    needle, haystack = _values(args)[:2]
    pos = F.array_position(haystack, needle)
    return F.when(pos == 0, F.lit(None)).otherwise(pos - 1)


def _array_position(call: Call, args: list) -> Column:
    """DataFusion's array_position(list, element): the 1-based position of element, null when absent."""
    haystack, needle = _values(args)[:2]
    pos = F.array_position(haystack, needle)
    return F.when(pos == 0, F.lit(None)).otherwise(pos)


# --- scalar table ----------------------------------------------------------------------------

SCALAR: dict[str, Builder] = {
    # arithmetic
    "add": _add_sub(lambda a, b: a + b, "add"),
    "subtract": _add_sub(lambda a, b: a - b, "subtract"),
    "multiply": _binary_int_op("multiply", lambda a, b: a * b),
    "divide": _divide,
    "modulus": _modulus,
    "negate": _unary_int("negate", lambda a: -a),
    "abs": _unary_int("abs", lambda a: F.abs(a)),
    "power": _power,
    "sqrt": _math("sqrt", F.sqrt, lambda a: a < 0),
    "exp": _math("exp", F.exp),
    "sin": _math("sin", F.sin),
    "cos": _math("cos", F.cos),
    "tan": _math("tan", F.tan),
    "asin": _math("asin", F.asin, lambda a: F.abs(a) > 1),
    "acos": _math("acos", F.acos, lambda a: F.abs(a) > 1),
    "atan": _math("atan", F.atan),
    "sinh": _math("sinh", F.sinh),
    "cosh": _math("cosh", F.cosh),
    "tanh": _math("tanh", F.tanh),
    "asinh": _math("asinh", F.asinh),
    "acosh": _math("acosh", F.acosh, lambda a: a < 1),
    "atanh": _math("atanh", F.atanh, lambda a: F.abs(a) > 1),
    "atan2": _atan2,
    "radians": _math("radians", F.radians),
    "degrees": _math("degrees", F.degrees),
    "sign": _sign,
    "factorial": _factorial,
    "bitwise_and": _bitwise(lambda a, b: a.bitwiseAND(b)),
    "bitwise_or": _bitwise(lambda a, b: a.bitwiseOR(b)),
    "bitwise_xor": _bitwise(lambda a, b: a.bitwiseXOR(b)),
    "bitwise_not": lambda call, args: F.bitwise_not(_values(args)[0]),
    "shift_left": _spark_fn("shiftleft", 2),
    "shift_right": _spark_fn("shiftright", 2),
    "shift_right_unsigned": _spark_fn("shiftrightunsigned", 2),
    # logarithmic
    "ln": _log("ln", F.ln),
    "log10": _log("log10", F.log10),
    "log2": _log("log2", F.log2),
    "log1p": _log("log1p", F.log1p),
    "logb": _logb,
    # rounding
    "round": _round,
    "ceil": _ceil_floor("ceil"),
    "floor": _ceil_floor("floor"),
    # comparison
    "equal": _compare(lambda a, b: a == b, False),
    "not_equal": _compare(lambda a, b: a != b, True),
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
    "is_distinct_from": lambda call, args: ~_values(args)[0].eqNullSafe(_values(args)[1]),
    "is_not_distinct_from": lambda call, args: _values(args)[0].eqNullSafe(_values(args)[1]),
    "coalesce": _coalesce,
    "nullif": _nullif,
    "least": _min_max_scalar("least"),
    "greatest": _min_max_scalar("greatest"),
    # boolean
    "and": _fold(lambda a, b: a & b, True),
    "or": _fold(lambda a, b: a | b, False),
    "not": lambda call, args: ~_values(args)[0],
    "xor": _xor,
    "and_not": _and_not,
    # string
    "concat": _concat,
    "concat_ws": _concat_ws,
    "like": _like,
    "ilike": lambda call, args: _like(call, args, insensitive=True),
    "substring": _substring,
    "upper": _char_set("upper"),
    "lower": _char_set("lower"),
    "trim": _trim("trim"),
    "ltrim": _trim("ltrim"),
    "rtrim": _trim("rtrim"),
    "starts_with": _string_pred("startswith"),
    "ends_with": _string_pred("endswith"),
    "contains": _string_pred("contains"),
    "strpos": _strpos,
    "replace": _replace,
    "char_length": _spark_fn("char_length", 1),
    "bit_length": _spark_fn("bit_length", 1),
    "octet_length": _spark_fn("octet_length", 1),
    "left": _spark_fn("left", 2),
    "right": _spark_fn("right", 2),
    "lpad": _pad("lpad"),
    "rpad": _pad("rpad"),
    "repeat": _spark_fn("repeat", 2),
    "reverse": _spark_fn("reverse", 1),
    "initcap": _char_set("initcap"),
    "regexp_match_substring": _regexp_match_substring,
    "regexp_count_substring": _regexp_count_substring,
    "regexp_replace": _regexp_replace,
    "regexp_string_split": _regexp_string_split,
    "string_split": _string_split,
    # datetime
    "extract": _extract,
    "add_intervals": lambda call, args: _values(args)[0] + _values(args)[1],
    "strftime": _strftime,
    "date_trunc": _date_trunc,
    # lists
    "cardinality": _cardinality,
    "sort": _sort_list,
    "index_in": _index_in,
    "array_position": _array_position,
    "transform": _lambda_fn(lambda lst, fn: F.transform(lst, fn)),
    "filter": _lambda_fn(lambda lst, fn: F.filter(lst, fn)),
    "any_match": _lambda_fn(lambda lst, fn: F.exists(lst, fn)),
    "all_match": _lambda_fn(lambda lst, fn: F.forall(lst, fn)),
}


# --- aggregates ------------------------------------------------------------------------------


def _one(args: list) -> Column:
    vals = _values(args)
    if not vals:
        raise Unsupported("the aggregate needs an argument")
    return vals[0]


def _sum(call: Call, args: list) -> Column:
    x = _one(args)
    kind = _value_kind(call)
    if call.distinct:
        return F.sum_distinct(x)
    mode = _option(call, "overflow", ("SILENT", "SATURATE", "ERROR"), "SILENT")
    if kind in INT_RANGE and mode != "SILENT":
        wide = F.sum(x.cast(WIDE))
        lo, hi = INT_RANGE["i64"]
        if mode == "ERROR":
            return _fail_if((wide < lo) | (wide > hi), "sum: i64 overflow", wide).cast("long")
        return F.when(wide > hi, F.lit(hi)).when(wide < lo, F.lit(lo)).otherwise(wide).cast("long")
    if kind == "decimal" and mode == "ERROR":
        s = F.sum(x)
        return _fail_if(s.isNull() & (F.count(x) > 0), "sum: decimal overflow", s)
    if kind in FLOATS:
        _float_rounding(call)
    return F.sum(x)


def _distribution(call: Call, args: list) -> str:
    enums = _enums(args)
    if enums and enums[0] in ("SAMPLE", "POPULATION"):
        return enums[0]
    return _option(call, "distribution", ("SAMPLE", "POPULATION"), "SAMPLE")


def _std_var(sample: str, population: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        x = _one(args).cast("double")
        _float_rounding(call)
        fn = sample if _distribution(call, args) == "SAMPLE" else population
        return F.call_function(fn, x)

    return build


def _count(call: Call, args: list) -> Column:
    vals = _values(args)
    if not vals:
        return F.count(F.lit(1))
    if call.distinct:
        return F.count_distinct(*vals)
    return F.count(vals[0])


def _agg(fn: str, distinct_ok: bool = True) -> Builder:
    """A Spark aggregate taking the value arguments; DISTINCT changes nothing when ``distinct_ok``."""

    def build(call: Call, args: list) -> Column:
        if call.distinct and not distinct_ok:
            raise Unsupported(f"{base_name(call.name)}(DISTINCT ...) is not supported on Spark")
        return F.call_function(fn, *_values(args))

    return build


def _avg(call: Call, args: list) -> Column:
    x = _one(args)
    if call.distinct:
        return F.sum_distinct(x) / F.count_distinct(x)
    return F.avg(x)


def _any_value(call: Call, args: list) -> Column:
    ignore = _option(call, "ignore_nulls", ("TRUE", "FALSE"), "TRUE") == "TRUE"
    return F.any_value(_one(args), F.lit(ignore))


def _string_agg(call: Call, args: list) -> Column:
    vals = _values(args)
    sep = vals[1] if len(vals) > 1 else F.lit(",")
    if call.distinct:
        return F.array_join(F.collect_set(vals[0]), sep)
    return F.call_function("listagg", vals[0], sep)


AGGREGATE: dict[str, Builder] = {
    "sum": _sum,
    "sum0": lambda call, args: F.coalesce(_sum(call, args), F.lit(0)),
    "avg": _avg,
    "min": _agg("min"),
    "max": _agg("max"),
    "count": _count,
    "any_value": _any_value,
    "first": _agg("first"),
    "last": _agg("last"),
    "std_dev": _std_var("stddev_samp", "stddev_pop"),
    "variance": _std_var("var_samp", "var_pop"),
    "stddev_pop": _agg("stddev_pop"),  # DataFusion's names for the population forms
    "var_pop": _agg("var_pop"),
    "approx_count_distinct": _agg("approx_count_distinct"),
    "bool_and": _agg("bool_and"),
    "bool_or": _agg("bool_or"),
    "median": _agg("median", distinct_ok=False),
    "mode": _agg("mode"),
    "product": _agg("product", distinct_ok=False),
    "string_agg": _string_agg,
    "list_agg": _agg("collect_list", distinct_ok=False),
    "corr": _agg("corr", distinct_ok=False),
    "covar_samp": _agg("covar_samp", distinct_ok=False),
    "covar_pop": _agg("covar_pop", distinct_ok=False),
}


# --- window functions ------------------------------------------------------------------------


def _offset_fn(fn: str) -> Builder:
    """lag / lead: Spark takes the offset only as an integer constant (producers write it as an i32 or
    i64 literal, possibly cast)."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        x = vals[0]
        offset = call.constants[1] if len(call.constants) > 1 else 1
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise Unsupported(f"{fn}: Spark takes the offset only as an integer constant")
        default = vals[2] if len(vals) > 2 else None
        return (F.lag if fn == "lag" else F.lead)(x, offset, default)

    return build


WINDOW: dict[str, Builder] = {
    "row_number": lambda call, args: F.row_number(),
    "rank": lambda call, args: F.rank(),
    "dense_rank": lambda call, args: F.dense_rank(),
    "percent_rank": lambda call, args: F.percent_rank(),
    "cume_dist": lambda call, args: F.cume_dist(),
    "ntile": lambda call, args: F.call_function("ntile", _values(args)[0]),
    "lag": _offset_fn("lag"),
    "lead": _offset_fn("lead"),
    "first_value": lambda call, args: F.first(_values(args)[0]),
    "last_value": lambda call, args: F.last(_values(args)[0]),
    "nth_value": lambda call, args: F.call_function("nth_value", *_values(args)[:2]),
}


# Names real producers write, resolved to the standard names above.
ALIASES: dict[str, str] = {
    "~~": "like",
    "!~~": "not_like",
    "count_star": "count",
    "sum_no_overflow": "sum",
    "character_length": "char_length",
    "str_concat": "concat",
    "bitwise_shift_left": "shift_left",
    "bitwise_shift_right": "shift_right",
    "length": "char_length",
    "substr": "substring",
    "date_part": "extract",
    "datepart": "extract",
    "btrim": "trim",
    "isnan": "is_nan",
    "approx_distinct": "approx_count_distinct",
    "mod": "modulus",
    "pow": "power",
    "stddev": "std_dev",
    "stddev_samp": "std_dev",
    "var_samp": "variance",
    "var": "variance",
    "to_char": "strftime",
    "starts_with": "starts_with",
    "prefix": "starts_with",
    "suffix": "ends_with",
    "strpos": "strpos",
    "instr": "strpos",
    "position": "strpos",
    "regexp_like": "regexp_like",
    "array_length": "cardinality",
    "list_sort": "sort",
    "neq": "not_equal",
    "eq": "equal",
    "list_position": "array_position",
    "array_indexof": "array_position",
    "list_indexof": "array_position",
}

# Standard names deliberately left unmapped, with the reason (shown by ``supported``).
NOT_MAPPED: dict[str, str] = {
    "regexp_strpos": "Spark has no regex position function with an occurrence argument",
    "regexp_match_substring_all": "not mapped yet",
    "round_temporal": "Spark has no temporal rounding with an origin",
    "round_calendar": "Spark has no calendar rounding",
    "quantile": "Spark's percentile functions take different arguments",
}


def _not_like(call: Call, args: list) -> Column:
    return ~_like(call, args)


SCALAR["not_like"] = _not_like
SCALAR["regexp_like"] = lambda call, args: F.call_function("regexp_like", *_values(args)[:2])

_TABLES: dict[str, dict[str, Builder]] = {"scalar": SCALAR, "aggregate": AGGREGATE, "window": WINDOW}


def resolve(name: str) -> str:
    base = base_name(name)
    return ALIASES.get(base, base)


def supported(name: str, kind: str) -> str | None:
    """None when ``name`` is mapped for ``kind`` ("scalar" | "aggregate" | "window"), else the reason."""
    table = _TABLES.get(kind)
    if table is None:
        return f"unknown function kind `{kind}`"
    resolved = resolve(name)
    if resolved in table or (kind == "window" and resolved in AGGREGATE):
        return None
    if resolved in NOT_MAPPED:
        return f"`{base_name(name)}`: {NOT_MAPPED[resolved]}"
    return f"no Spark mapping for {kind} function `{base_name(name)}`"


def _builder(call: Call, kind: str) -> Builder:
    table = _TABLES[kind]
    resolved = resolve(call.name)
    builder = table.get(resolved)
    if builder is None and kind == "window":
        builder = AGGREGATE.get(resolved)
    if builder is None:
        reason = NOT_MAPPED.get(resolved)
        extra = f" ({reason})" if reason else ""
        raise Unsupported(
            f"no Spark mapping for `{base_name(call.name)}`{extra}; mapped {kind} functions: {', '.join(sorted(table))}"
        )
    return builder


#: Functions whose result is a boolean whatever type a producer declares for it (DuckDB declares
#: comparisons and `and` with the type of their arguments: i64, date, string...).
PREDICATES = frozenset({
    "equal", "not_equal", "lt", "gt", "lte", "gte", "between", "is_null", "is_not_null", "is_nan",
    "is_finite", "is_infinite", "is_true", "is_false", "is_not_true", "is_not_false", "is_distinct_from",
    "is_not_distinct_from", "and", "or", "not", "xor", "and_not", "like", "ilike", "starts_with",
    "ends_with", "contains", "regexp_match", "any_match", "all_match",
})


def _finish(call: Call, col: Column) -> Column:
    target = _spark_type(call.output_type)
    if target is None:
        return col
    if resolve(call.name) in PREDICATES:
        # Spark's predicates are boolean already. A cast to boolean would hide ``a = outer(b)`` from
        # Catalyst's decorrelation (it looks for the bare equality), so a correlated subquery would
        # get a domain join where SQL gets a plain aggregate-and-join.
        if type(target).__name__ != "BooleanType":
            call.warnings.append(
                f"`{base_name(call.name)}` declares a {target.simpleString()} result; a predicate's result is kept boolean"
            )
        return col
    return col.cast(target)


def _build(call: Call, args: list, kind: str) -> Column:
    builder = _builder(call, kind)
    try:
        return _finish(call, builder(call, list(args)))
    except (ValueError, IndexError, TypeError) as exc:
        raise Unsupported(f"`{base_name(call.name)}` with these arguments: {exc}") from None


def scalar(call: Call, args: list) -> Column:
    return _build(call, args, "scalar")


def aggregate(call: Call, args: list) -> Column:
    return _build(call, args, "aggregate")


def window(call: Call, args: list) -> Column:
    return _build(call, args, "window")


__all__ = ["Call", "scalar", "aggregate", "window", "supported", "base_name", "ALIASES", "NOT_MAPPED"]
