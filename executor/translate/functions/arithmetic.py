"""Arithmetic, logarithmic and rounding functions (``functions_arithmetic.yaml``,
``functions_arithmetic_decimal.yaml``, ``functions_logarithmic.yaml``, ``functions_rounding.yaml``).

``add`` / ``subtract`` also take a date/time and an interval (``functions_datetime.yaml``); the one
builder handles both.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ...spark.jvm import sql_type
from .. import literals
from ._common import (
    BEYOND_38_DIGITS,
    FLOATS,
    INT_DECIMAL_DIGITS,
    INT_RANGE,
    NOT_CONSTANT,
    WIDE,
    Builder,
    Call,
    _arg_kind,
    _big,
    _error,
    _fail_if,
    _float_rounding,
    _int_result,
    _kind,
    _option,
    _spark_fn,
    _toward_zero,
    _value_kind,
    _values,
    decimal_exact,
    decimal_quotient,
    months_with_days,
    once,
    powi,
    second_digits,
    signbit,
)
from .datetimes import DAY_MICROS, floor_to, interval_micros

# --- arithmetic ------------------------------------------------------------------------------


def _binary_int_op(name: str, op: Callable[[Column, Column], Column]) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        kind = _value_kind(call)
        if kind in INT_RANGE:
            return _int_result(call, name, op(a.cast(WIDE), b.cast(WIDE)), op(a, b), kind)
        if kind in FLOATS:
            _float_rounding(call)
        elif kind == "decimal":
            exact = _decimal_exact(call, name, op, a, b)
            if "overflow" in call.options or call.dialect == "datafusion":
                # Spark (non-ANSI) turns a decimal overflow into null; DataFusion's engine keeps a value of more
                # than 38 digits, which Spark cannot hold, so its plans stop there
                mode = _option(
                    call, "overflow", ("SILENT", "ERROR"), "ERROR" if call.dialect == "datafusion" else "SILENT"
                )
                if mode == "ERROR":
                    r = op(a, b) if exact is None else exact
                    out = call.output_type
                    if exact is None and _kind(out) == "decimal":  # Spark's type may hold what the plan's does not
                        r = r.cast(f"decimal({out.decimal.precision},{out.decimal.scale})")
                    return _fail_if(r.isNull() & a.isNotNull() & b.isNotNull(), f"{name}: {BEYOND_38_DIGITS}", r)
            if exact is not None:
                return exact
        return op(a, b)

    return build


def _decimal_exact(call: Call, name: str, op: Callable[[Column, Column], Column], a: Column, b: Column):
    """:func:`decimal_exact` of the call's operands (an integer one as Spark widens it), None where a type
    is not known or Spark's own result keeps every digit the plan's decimal does."""
    out = call.output_type
    if _kind(out) != "decimal":
        return None
    operands = []
    for t in call.arg_types[:2]:
        kind = _kind(t)
        if kind == "decimal":
            operands.append((t.decimal.precision, t.decimal.scale))
        elif kind in INT_DECIMAL_DIGITS:
            operands.append((INT_DECIMAL_DIGITS[kind], 0))
        else:
            return None
    if len(operands) < 2:
        return None
    result = (out.decimal.precision, out.decimal.scale)
    return decimal_exact(name, op, a, b, operands[0], operands[1], result, call.warnings)


def _stops_at_zero(call: Call, kind: str | None) -> bool:
    """Whether a division of integers or decimals by zero without the option's preference stops the run:
    a DataFusion plan's does, as DataFusion does (Spark's own gives null)."""
    return call.dialect == "datafusion" and (kind in INT_RANGE or kind == "decimal")


def _by_zero(name: str, stops: bool) -> str:
    """The message of a run stopped at a division by zero (``stops``: as DataFusion's engine stops)."""
    return f"{name}: division by zero" + (" (DataFusion, the plan's producer, stops there too)" if stops else "")


def _divide(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return once(a, lambda a: once(b, lambda b: _quotient(call, a, b)))  # each kind uses them several times


def _quotient(call: Call, a: Column, b: Column) -> Column:
    kind = _value_kind(call)
    if kind in INT_RANGE and _kind(call.output_type) in FLOATS:  # ibis's true division of integers
        kind, a, b = _kind(call.output_type), a.cast("double"), b.cast("double")
    stops = _stops_at_zero(call, kind)
    zero = _option(call, "on_division_by_zero", ("NULL", "ERROR", "NAN", "LIMIT"), "ERROR" if stops else "")
    if kind in INT_RANGE:
        if call.dialect == "datafusion":  # its engine stops at the smallest integer divided by -1
            call.options.setdefault("overflow", ["ERROR"])
        long_a, long_b = a.cast("long"), b.cast("long")
        q = F.call_function("div", long_a, long_b)  # truncates toward zero; null for a zero divisor
        lo, _ = INT_RANGE[kind]
        wide = F.when((long_a == lo) & (long_b == -1), _big(-lo)).otherwise(q.cast(WIDE))
        out = _int_result(call, "divide", wide, q, kind)
        if zero == "ERROR":
            out = _fail_if(_by_zero_of(a, b), _by_zero("divide", stops), out)
        return out
    if kind in FLOATS:
        _float_rounding(call)
        ieee = (
            F.when(F.isnan(a) | (a == 0), F.lit(float("nan")))
            # a divisor of -0.0 is negative too (its sign shows only in its text)
            .when((a > 0) == ~((b < 0) | b.cast("string").startswith("-")), F.lit(float("inf")))
            .otherwise(F.lit(float("-inf")))
        )
        special = {"NULL": F.lit(None), "ERROR": _error(_by_zero("divide", False))}.get(zero, ieee)
        return F.when(_by_zero_of(a, b), special).otherwise(a / b)
    out = _decimal_divide(call, a, b) if kind == "decimal" else a / b
    if kind == "decimal" and call.dialect == "datafusion":  # a quotient beyond the plan's decimal stops there
        beyond = out.isNull() & a.isNotNull() & b.isNotNull() & (b != 0)
        out = _fail_if(beyond, f"divide: {BEYOND_38_DIGITS}", out)
    if zero == "ERROR":
        out = _fail_if(_by_zero_of(a, b), _by_zero("divide", stops), out)
    return out


def _by_zero_of(a: Column, b: Column) -> Column:
    """Where ``a`` is divided by zero: a null dividend's quotient and remainder are null whatever the divisor."""
    return (b == 0) & a.isNotNull()


def _decimal_divide(call: Call, a: Column, b: Column) -> Column:
    """``a / b`` of decimals to the declared scale (:func:`decimal_quotient`), cut as the plan's producer
    cuts it: DataFusion truncates toward zero (``2 / 3`` is ``0.666666``), Spark rounds half up."""
    out = call.output_type
    if out is None or out.WhichOneof("kind") != "decimal":
        return a / b
    truncate = call.dialect == "datafusion"
    operands = call.arg_types[:2]
    if len(operands) < 2 or any(t is None or t.WhichOneof("kind") != "decimal" for t in operands):
        if not truncate:
            return a / b
        return _toward_zero(a / b, out.decimal.scale).cast(f"decimal({out.decimal.precision},{out.decimal.scale})")
    (p1, s1), (p2, s2) = ((t.decimal.precision, t.decimal.scale) for t in operands)
    result = (out.decimal.precision, out.decimal.scale)
    return decimal_quotient(a, b, (p1, s1), (p2, s2), result, truncate, call.warnings)


def _modulus(call: Call, args: list) -> Column:
    a, b = _values(args)[:2]
    return once(a, lambda a: once(b, lambda b: _remainder(call, a, b)))  # used several times


def _remainder(call: Call, a: Column, b: Column) -> Column:
    mode = _option(call, "division_type", ("TRUNCATE", "FLOOR"), "TRUNCATE")
    r = a % b  # Spark: the sign of the dividend (truncated division); null for a zero divisor
    if _value_kind(call) in FLOATS:  # a float's remainder by zero is NaN, as IEEE's fmod gives it
        r = F.when(_by_zero_of(a, b), F.lit(float("nan"))).otherwise(r)
    if mode == "FLOOR":
        r = F.when((r != 0) & ((r < 0) != (b < 0)), r + b).otherwise(r)
    stops = _stops_at_zero(call, _value_kind(call))
    if _option(call, "on_domain_error", ("NULL", "ERROR"), "ERROR" if stops else "NULL") == "ERROR":
        r = _fail_if(_by_zero_of(a, b), _by_zero("modulus", stops), r)
    return r


def _unary_int(name: str, op: Callable[[Column], Column]) -> Builder:
    """``negate`` / ``abs`` of an integer under the ``overflow`` option; ``abs`` from a DataFusion plan that
    leaves it out stops at the smallest integer, as its engine does (its negation of a column wraps)."""

    def build(call: Call, args: list) -> Column:
        (a,) = _values(args)[:1]
        kind = _value_kind(call)
        if kind in INT_RANGE:
            if call.dialect == "datafusion" and name == "abs":
                call.options.setdefault("overflow", ["ERROR"])
            return _int_result(call, name, op(a.cast(WIDE)), op(a), kind)
        return op(a)

    return build


def _as_i64(x: Column, kind: str | None) -> Column:
    """A bitwise operator's argument as DataFusion casts it: a float or a decimal to a 64-bit integer, its
    fraction cut, stopping where the value does not fit (``1e19``)."""
    if kind not in ("fp32", "fp64", "decimal"):
        return x
    if kind == "decimal":
        below, above = (F.lit(str(v)).cast("decimal(20,0)") for v in (-(2**63) - 1, 2**63))
        outside = (x <= below) | (x >= above)
    else:
        outside = (x < -(2.0**63)) | (x >= 2.0**63) | F.isnan(x)
    return _fail_if(outside, "a bitwise operator's float or decimal does not fit a 64-bit integer", x.cast("long"))


def _bitwise(op: Callable[[Column, Column], Column]) -> Builder:
    """Bitwise operators; decimal<p,0> arguments go through a 64-bit integer (Spark has no wider one)."""

    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        kinds = [_kind(t) for t in call.arg_types[:2]]
        if call.dialect == "datafusion" and any(k in ("fp32", "fp64", "decimal") for k in kinds):
            # DataFusion casts a float or a decimal to a 64-bit integer, toward zero (1.5 ^ 2 is 3), and stops
            # where it does not fit
            return op(*[_as_i64(x, k) for x, k in zip((a, b), kinds)])
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
    if _kind(call.output_type) in ("fp32", "fp64"):  # DataFusion's power(i64, i64) is a float: 10 ^ -2 = 0.01
        kind = _kind(call.output_type)
    if kind in INT_RANGE:
        lo, hi = INT_RANGE[kind]
        exact = F.when(F.abs(r) < 2.0**53, r.cast("long"))
        return _int_result(call, "power", r, exact, kind)
    complex_ = _option(call, "complex_number_result", ("NAN", "ERROR"), "NAN")
    if complex_ == "ERROR":
        r = _fail_if((a < 0) & (F.floor(b) != b), "power: complex result", r)
    if call.dialect == "datafusion":  # its engine stops where Java's pow gives infinity
        r = _fail_if((a == 0) & (b < 0), "power: zero raised to a negative power is undefined", r)
    return r


def _factorial(call: Call, args: list) -> Column:
    (a,) = _values(args)[:1]
    kind = _value_kind(call) or "i64"
    if kind == "decimal":  # the decimal factorial raises on overflow (it has no option)
        call.options.setdefault("overflow", ["ERROR"])
    if kind not in INT_RANGE:
        kind = "i64"
    if call.dialect == "datafusion":  # its engine stops beyond 20!
        call.options.setdefault("overflow", ["ERROR"])
    lo, hi = INT_RANGE[kind]
    # Spark's factorial is defined for 0..20 (null otherwise); 21! does not fit in an i64.
    native = F.factorial(a.cast("int"))
    over = F.when(a > 20, _big(hi + 1)).otherwise(native).cast(WIDE)
    out = _int_result(call, "factorial", over, native, kind)
    return F.when(a < 0, _error("factorial: negative argument")).otherwise(out)


#: Steps of Euclid's algorithm that take any two numbers below 2^64 to their divisor: consecutive
#: Fibonacci numbers take the most, and the 94th is beyond 2^64.
EUCLID_STEPS = 93


def _gcd_of(a: Column, b: Column) -> Column:
    """The greatest common divisor of two integers, exact (decimals: ``abs`` of the smallest i64 fits)."""
    start = F.struct(F.abs(a.cast(WIDE)).alias("a"), F.abs(b.cast(WIDE)).alias("b"))

    def step(acc: Column, _: Column) -> Column:
        rest = F.struct(acc["b"].alias("a"), (acc["a"] % acc["b"]).cast(WIDE).alias("b"))
        return F.when(acc["b"] == 0, acc).otherwise(rest)

    return F.aggregate(F.array_repeat(F.lit(0), EUCLID_STEPS), start, step, lambda acc: acc["a"])


def _gcd(call: Call, args: list) -> Column:
    """DataFusion's ``gcd(a, b)`` of integers: never negative, ``gcd(0, 0)`` is 0; one beyond the i64
    range (only of the smallest i64 with itself or 0) is an error, as its engine gives."""
    a, b = _values(args)[:2]
    g = _gcd_of(a, b)
    out = _fail_if(g > INT_RANGE["i64"][1], "gcd: i64 overflow", g).cast("long")
    return F.when(a.isNull() | b.isNull(), F.lit(None).cast("long")).otherwise(out)


def _lcm(call: Call, args: list) -> Column:
    """DataFusion's ``lcm(a, b)`` of integers: never negative, 0 when either is; one beyond the i64
    range is an error, as its engine gives."""
    a, b = _values(args)[:2]
    # |a| / gcd * |b| is below 2^126, within a decimal(38,0)
    m = (F.abs(a.cast(WIDE)) / _gcd_of(a, b)).cast(WIDE) * F.abs(b.cast(WIDE))
    whole = F.when((a == 0) | (b == 0), _big(0)).otherwise(m.cast(WIDE))
    out = _fail_if(whole > INT_RANGE["i64"][1], "lcm: i64 overflow", whole).cast("long")
    return F.when(a.isNull() | b.isNull(), F.lit(None).cast("long")).otherwise(out)


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


def _math(
    name: str, fn: Callable[[Column], Column], bad: Callable[[Column], Column] | None = None, stops: bool = False
) -> Builder:
    """A float function; ``bad`` says where its argument is out of its domain, ``stops`` that DataFusion's
    engine stops there (for the others it gives NaN)."""

    def build(call: Call, args: list) -> Column:
        (a,) = _values(args)[:1]
        # The decimal variants have no on_domain_error option: a domain error raises.
        stopping = _value_kind(call) == "decimal" or (stops and call.dialect == "datafusion")
        default = "ERROR" if stopping else "NAN"
        a = a.cast("double")
        _float_rounding(call)
        out = fn(a)
        return _domain(call, name, out, bad(a), default) if bad is not None else out

    return build


def _trunc(call: Call, args: list) -> Column:
    """DataFusion's ``trunc(x[, n])``: x cut toward zero to n decimal places (0 when not given), a double."""
    vals = _values(args)
    x = vals[0].cast("double")
    scale = F.pow(F.lit(10.0), vals[1].cast("double")) if len(vals) > 1 else F.lit(1.0)
    moved = x * scale
    # Spark's floor is a long (NaN becomes 0, 1e300 the largest long); a double of 2^52 or more is whole
    whole = F.when(F.abs(moved) >= 2.0**52, moved).otherwise(F.when(moved < 0, F.ceil(moved)).otherwise(F.floor(moved)))
    # a scale of 0 or infinity (10^-400, 10^400): DataFusion's x * 10^n / 10^n is NaN (0 / 0, inf / inf), where
    # Spark's division by 0.0 gives null
    return (
        F.when(x.isNull() | scale.isNull(), F.lit(None).cast("double"))
        .when((scale == 0.0) | (scale == float("inf")), F.lit(float("nan")))
        .when(F.isnan(x) | (F.abs(x) == float("inf")), x)
        .otherwise(_zero_signed(x, whole.cast("double") / scale))
    )


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


#: Each integer kind's width and Spark type.
_BITS = {"i8": (8, "tinyint"), "i16": (16, "smallint"), "i32": (32, "int"), "i64": (64, "bigint")}


def _shift(fn: str) -> Builder:
    """``<<`` / ``>>`` in the declared output type, the count taken modulo its width (Rust's wrapping
    shift; Java's takes it modulo 32 or 64 whatever the type, and Spark works in int or long)."""

    def build(call: Call, args: list) -> Column:
        x, count = _values(args)[:2]
        kind = _kind(call.output_type)
        if kind not in _BITS:
            return F.call_function(fn, x, count)
        bits, spark_type = _BITS[kind]
        wide = "int" if bits == 32 else "long"
        shifted = F.call_function(fn, x.cast(wide), F.pmod(count.cast("long"), F.lit(bits)).cast("int"))
        return shifted.cast(spark_type)  # a narrower type wraps, as Rust's does

    return build


def _drawn(call: Call, value: Column, name: str) -> Column:
    """A value drawn at random (``random()`` in [0, 1), ``uuid()`` a version 4 UUID as text), said to differ
    from any other run's, the plan's producer's included."""
    call.warnings.append(f"{name}(): its values are drawn at random, so each run, and each engine, gives others")
    return value


def _ieee_ln(x: Column) -> Column:
    """The natural logarithm as IEEE floats give it: NaN below zero, minus infinity at zero (Spark's: null)."""
    return F.when(x < 0, F.lit(float("nan"))).when(x == 0, F.lit(float("-inf"))).otherwise(F.ln(x))


def _ieee_quotient(n: Column, d: Column) -> Column:
    """``n / d`` of doubles as IEEE floats give it where ``d`` is a logarithm (never -0.0): infinite or NaN
    for a zero ``d`` (Spark's: null)."""
    by_zero = (
        F.when(F.isnan(n) | (n == 0), F.lit(float("nan")))
        .when(n > 0, F.lit(float("inf")))
        .otherwise(F.lit(float("-inf")))
    )
    return F.when(_by_zero_of(n, d), by_zero).otherwise(n / d)


def _logb(call: Call, args: list) -> Column:
    vals = _values(args)
    if len(vals) == 1:  # DataFusion's log(x): base 10
        if call.dialect != "datafusion":
            raise Unsupported("logb takes a value and a base; this call gives one argument")
        vals = [vals[0], F.lit(10.0)]
    # the YAML's logb(x, base), as DataFusion writes SQL's log(base, x); the spec's test file gives the base first
    a, base = (c.cast("double") for c in vals[:2])
    if call.dialect == "datafusion":  # ln(x) / ln(base) in floats: NaN, infinities, -0.0 where they fall
        return _ieee_quotient(_ieee_ln(a), _ieee_ln(base))
    value = F.ln(a) / F.ln(base)
    return _log_result(call, "logb", F.when(a == float("inf"), F.lit(float("inf"))).otherwise(value), a)


def _atan2(call: Call, args: list) -> Column:
    """``atan2(y, x)`` as IEEE gives it: Spark adds 0.0 to both, so a -0.0 lost its sign (``atan2(-0.0,
    -1.0)`` is -π, not π)."""
    y, x = (c.cast("double") for c in _values(args)[:2])
    pi = F.when(signbit(y), F.lit(-math.pi)).otherwise(F.lit(math.pi))
    on_the_axis = F.when(signbit(x), pi).otherwise(y)  # y is ±0 here
    return F.when((y == 0) & x.isNotNull() & ~F.isnan(x), on_the_axis).otherwise(F.atan2(y, x))


def _sign(call: Call, args: list) -> Column:
    x = _values(args)[0]
    if call.dialect == "datafusion" and _value_kind(call) in FLOATS:  # its signum of -0.0 is 0.0; Java's -0.0
        return F.when(x == 0, F.lit(0.0)).otherwise(F.signum(x))
    return F.signum(x)


def _zero_signed(x: Column, rounded: Column) -> Column:
    """A float rounded to a whole number (or places), its zero of ``x``'s sign as IEEE rounding gives it
    (``ceil(-0.5)`` is -0.0); Spark's rounding through a long or a BigDecimal loses it."""
    return F.when(rounded == 0, x * 0.0).otherwise(rounded)


def _date_moved(call: Call, date: Column, interval: Column, at: int, sign: int) -> Column:
    """DataFusion's date ± interval (argument ``at``), a date: moved by the interval's months (the day held
    to the month's end), then its days, then its time as whole days toward zero, as Arrow moves it
    (Spark's gives a timestamp, whose date is the day before for a time back that is not whole days). An
    interval that is not a literal is Spark's day-time one, its days and time counted together."""
    lit = call.literals[at] if at < len(call.literals) else None
    if lit is not None and lit.WhichOneof("literal_type") == "null":
        return F.lit(None).cast("date")
    parts = None if lit is None else literals.interval_parts(lit)
    if parts is None and not (at < len(call.moves_by_days) and call.moves_by_days[at]):
        # a CASE of intervals is a year-month, a day-time or a calendar interval in Spark, none of which
        # keeps DataFusion's months, days and time apart to move a date by each in turn
        raise Unsupported(
            "a date moved by an interval that is not a literal: Spark's intervals do not keep its months, days "
            "and time apart as DataFusion moves a date by them"
        )
    if parts is None:
        days = F.call_function("div", interval_micros(interval), F.lit(DAY_MICROS))
        return F.date_add(date, (F.lit(sign) * days).cast("int"))
    months, days, micros = parts
    whole_days = abs(micros) // DAY_MICROS * (1 if micros >= 0 else -1)
    moved = F.add_months(date, sign * months) if months else date
    return F.date_add(moved, sign * (days + whole_days))


def _add_sub(op: Callable[[Column, Column], Column], name: str) -> Builder:
    """add / subtract: numbers (with the overflow option), or a date/time and an interval."""
    numeric = _binary_int_op(name, op)
    sign = -1 if name == "subtract" else 1

    def build(call: Call, args: list) -> Column:
        kinds = {_arg_kind(call, i) for i in range(len(call.arg_types))}
        if call.dialect == "datafusion" and _kind(call.output_type) == "date" and len(call.arg_types) == 2:
            first, second = _arg_kind(call, 0), _arg_kind(call, 1)
            a, b = _values(args)[:2]
            if first == "date" and second in ("interval_day", "interval_compound"):
                return _date_moved(call, a, b, 1, sign)
            if second == "date" and first in ("interval_day", "interval_compound") and sign == 1:
                return _date_moved(call, b, a, 0, sign)
        if kinds & {
            "date",
            "precision_timestamp",
            "precision_timestamp_tz",
            "timestamp",
            "timestamp_tz",
            "interval_day",
            "interval_year",
            "interval_compound",
        }:
            if kinds <= {"interval_day", "interval_year", "interval_compound"} and months_with_days(call):
                raise Unsupported(
                    f"{name} of an interval of months and one of days or time: the run has no interval "
                    "type that holds both and can be shown as DataFusion gives it"
                )
            a, b = _values(args)[:2]
            # a date and a number of days (DataFusion's date + 1): Spark's date arithmetic takes an int
            if _arg_kind(call, 0) == "date" and _arg_kind(call, 1) in INT_RANGE:
                b = b.cast("int")
            elif _arg_kind(call, 1) == "date" and _arg_kind(call, 0) in INT_RANGE:
                a = a.cast("int")
            out, digits = call.output_type, 6
            if call.dialect == "datafusion" and _kind(out) in ("precision_timestamp", "precision_timestamp_tz"):
                digits = second_digits(out)
            # a timestamp of seconds or milliseconds stays in its units, as DataFusion keeps it
            return op(a, b) if digits >= 6 else floor_to(op(a, b), 10 ** (6 - digits))
        return numeric(call, args)

    return build


# --- rounding --------------------------------------------------------------------------------


#: Decimal places up to which a power of ten is an exact float.
EXACT_POWERS = 22


def _round(call: Call, args: list) -> Column:
    vals = _values(args)
    x, scale = vals[0], (vals[1] if len(vals) > 1 else F.lit(0))
    mode = _option(call, "rounding", ("TIE_AWAY_FROM_ZERO", "TIE_TO_EVEN"), "TIE_AWAY_FROM_ZERO")
    fn = "round" if mode == "TIE_AWAY_FROM_ZERO" else "bround"
    places = call.constants[1] if len(call.constants) > 1 else 0
    floats = _value_kind(call) in FLOATS
    datafusion = call.dialect == "datafusion" and _value_kind(call) == "fp64"
    if floats and places is NOT_CONSTANT:
        # places from a column (Spark's round takes a constant only): DataFusion's formula below, its powers
        # of ten Rust's powi from a list of them (Java's pow differs in the last bit from 10^23 on)
        def scaled(x: Column, factor: Column) -> Column:
            power = factor.cast(sql_type(x_type(call)))
            rounded = _zero_signed(x, F.call_function(fn, x * power, F.lit(0)) / power)
            return F.when(factor == 0, F.when(x.isNotNull(), F.lit(float("nan")))).otherwise(rounded)

        return once(x, lambda x: once(_powi_ten(scale.cast("long")), lambda factor: scaled(x, factor)))
    if places is NOT_CONSTANT:
        raise Unsupported("round to a number of places that is not a constant, of a number that is not a float")
    if floats and type(places) is int and (0 < places <= EXACT_POWERS or datafusion):
        # Spark rounds a float's shortest text: 1.005, which is 1.00499999999999989..., became 1.01. Scaled
        # by a power of ten and rounded whole, it is what DataFusion and DuckDB compute (1.0); DataFusion's
        # power is Rust's powi, so 10^-5 and 10^300 are its, and 10^309 infinite (the result NaN)
        factor = powi(10.0, places)
        if factor == 0:  # 10^-309 and below: 0 / 0, NaN (Spark's division by zero is null)
            return F.when(x.isNotNull(), F.lit(float("nan")).cast(sql_type(x_type(call))))
        power = F.lit(factor).cast(sql_type(x_type(call)))
        return once(x, lambda x: _zero_signed(x, F.call_function(fn, x * power, F.lit(0)) / power))
    return F.call_function(fn, x, scale)


#: Bits of an exponent :func:`_powi_ten` works through: from 2^9 on, 10^n is infinite (or 0) anyway.
POWI_BITS = 9
#: 10, 10^2, 10^4, 10^8, …: the squares compiler-rt's powi multiplies by, each the float square of the last.
_TEN_SQUARES = [10.0]
for _ in range(POWI_BITS - 1):
    _TEN_SQUARES.append(_TEN_SQUARES[-1] * _TEN_SQUARES[-1])


def _powi_ten(n: Column) -> Column:
    """10^n (n a long column) as Rust's powi computes it (:func:`powi`): the squares of 10 for the bits
    of |n|, multiplied in the same order, the reciprocal for a negative n; null for a null n."""

    def of(n: Column) -> Column:
        magnitude = F.abs(n)
        product = F.lit(1.0)
        for bit, square in enumerate(_TEN_SQUARES):
            # times 1.0 (exact) for a bit not set: the expression grows by one factor a bit, where a CASE
            # holding the product twice doubled it at each bit
            product = product * F.when(F.shiftright(magnitude, bit).bitwiseAND(1) == 1, F.lit(square)).otherwise(1.0)
        whole = F.when(magnitude >= 2**POWI_BITS, F.lit(float("inf"))).otherwise(product)
        return F.when(n < 0, F.lit(1.0) / whole).when(n >= 0, whole)  # null places: null, as DataFusion's

    return once(n, of)  # n is read at each bit


def _float_whole(fn: str, x: Column) -> Column:
    """Spark's ``ceil`` or ``floor`` of a float as a float. It returns a long, which stops at 2^63; a float
    of 2^52 or more is whole already (NaN and the infinities too), and Substrait keeps the float type."""
    return F.when(F.isnan(x) | (F.abs(x) >= 2.0**52), x).otherwise(
        _zero_signed(x, F.call_function(fn, x).cast("double"))
    )


def _ceil_floor(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        x = _values(args)[0]
        if _value_kind(call) in FLOATS:
            return once(x, lambda x: _float_whole(fn, x).cast(sql_type(x_type(call))))
        whole = F.call_function(fn, x)
        out = call.output_type
        if (
            _value_kind(call) == "decimal"
            and out is not None
            and out.WhichOneof("kind") == "decimal"
            and out.decimal.scale
        ):
            # a result the plan's decimal cannot hold (ceil(9.99) in decimal<3,2>) stops, as DataFusion's
            # engine does; the cast to it would give null
            p, s = out.decimal.precision, out.decimal.scale
            beyond = F.abs(whole) >= F.lit(str(10 ** (p - s))).cast("decimal(38,0)")
            return _fail_if(beyond, f"{fn}: the result has more digits than the plan's decimal<{p},{s}> holds", whole)
        return whole

    return build


def x_type(call: Call) -> str:
    return "float" if _value_kind(call) == "fp32" else "double"


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
    "sqrt": _math("sqrt", F.sqrt, lambda a: a < 0, stops=True),
    "cbrt": _math("cbrt", F.cbrt),
    "trunc": _trunc,
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
    "cot": _math("cot", F.cot),  # DataFusion's: 1 / tan(x)
    "pi": lambda call, args: F.pi(),
    "random": lambda call, args: _drawn(call, F.rand(), "random"),
    "uuid": lambda call, args: _drawn(call, F.call_function("uuid"), "uuid"),
    "iszero": lambda call, args: _values(args)[0] == 0,  # DataFusion's: -0.0 too, not NaN
    "nanvl": lambda call, args: F.nanvl(*(v.cast("double") for v in _values(args)[:2])),
    "radians": _math("radians", F.radians),
    "degrees": _math("degrees", F.degrees),
    "sign": _sign,
    "factorial": _factorial,
    "gcd": _gcd,  # DataFusion's
    "lcm": _lcm,
    "bitwise_and": _bitwise(lambda a, b: a.bitwiseAND(b)),
    "bitwise_or": _bitwise(lambda a, b: a.bitwiseOR(b)),
    "bitwise_xor": _bitwise(lambda a, b: a.bitwiseXOR(b)),
    "bitwise_not": lambda call, args: F.bitwise_not(_values(args)[0]),
    "shift_left": _shift("shiftleft"),
    "shift_right": _shift("shiftright"),
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
}
