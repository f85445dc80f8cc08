"""What every family's builders share: the ``Call``, ``base_name``, the readers of options and
arguments, and the integer / float / error helpers that make Spark follow Substrait's semantics."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait.type_pb2 import Type

from viz.types import is_nullable

from ...errors import Unsupported
from ...spark.jvm import repeatable, sql_type
from ..types import to_spark


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
    #: the literal message of each value argument that is a literal (through casts), else None: what its
    #: Python value leaves out (an interval's days and time apart)
    literals: list = field(default_factory=list)
    #: for each value argument, whether it is an interval Spark holds as a day-time one that moves a date as
    #: DataFusion moves it (no months; days and time of one sign), as far as the plan shows
    moves_by_days: list = field(default_factory=list)
    #: whose meaning the plan's producer gives an option the call leaves out ("datafusion"), None if not known
    dialect: str | None = None
    #: for an aggregate over a window: its window (a Spark WindowSpec), which :meth:`over` puts on each
    #: aggregate a builder makes; None for an aggregate of a relation
    window: object | None = None
    #: whether a builder put the window on its aggregates itself (its result is then no aggregate)
    windowed: bool = False
    #: the Spark types of columns over the call's input (``records.spark_types``), for the few builders that
    #: need them; None where there is no input to type them in
    spark_types: Callable[[list[Column]], list | None] | None = None
    #: whether an argument holds a subquery (its builder then uses no lambda: :func:`lambdas_refused`)
    holds_subquery: bool = False

    def over(self, aggregate: Column) -> Column:
        """``aggregate`` over the call's window, if it has one: a builder whose result combines several
        aggregates (a mean as sum / count, a coalesce of a sum) puts the window on each of them."""
        if self.window is None:
            return aggregate
        self.windowed = True
        return aggregate.over(self.window)

    def given(self, option: str) -> bool:
        """Whether the plan gives the call a preference for ``option``."""
        return bool(self.options.get(option))

    def nullable(self) -> bool:
        """Whether a value argument may be null (or its type is not known)."""
        return any(is_nullable(t) is not False for t in self.arg_types)


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
#: The largest int, Spark's counts and positions (of a list, a text, a window's rows).
INT_MAX = INT_RANGE["i32"][1]
FLOATS = ("fp32", "fp64")
WIDE = "decimal(38,0)"  # exact integer arithmetic beyond i64, as a cast target


def signbit(x: Column) -> Column:
    """Whether a float is negative, -0.0 too (its sign shows only in its text)."""
    return (x < 0) | ((x == 0) & x.cast("string").startswith("-"))


def _kind(t: Type | None) -> str | None:
    return None if t is None else t.WhichOneof("kind")


def _arg_type(call: Call, i: int = 0) -> Type | None:
    return call.arg_types[i] if i < len(call.arg_types) else None


def _arg_kind(call: Call, i: int = 0) -> str | None:
    return _kind(_arg_type(call, i))


def untyped_null(call: Call, i: int, value: Column) -> bool:
    """Whether value argument ``i`` (``value``) is an untyped NULL (DataFusion's null type, a user-defined
    one, held as Spark's NullType), which Spark's functions refuse where they need a type. Spark is asked
    only where the plan's type of it is not known or user-defined."""
    if _arg_kind(call, i) not in (None, "user_defined") or call.spark_types is None:
        return False
    held = call.spark_types([value])
    return bool(held) and isinstance(held[0], S.NullType)


def list_element(t: Type | None) -> Type | None:
    """The element type of a list type; None for any other type."""
    return t.list.type if _kind(t) == "list" else None


def months_with_days(call: Call) -> bool:
    """Whether the call takes an interval of months and one of days and time (or one holding both):
    Spark has no order of such intervals, nor a sum of the two kinds but its calendar interval."""
    kinds = {_arg_kind(call, i) for i in range(len(call.arg_types))}
    return "interval_compound" in kinds or {"interval_year", "interval_day"} <= kinds


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


def holds_struct(t: S.DataType) -> bool:
    """Whether a Spark type is or holds a struct (in a list or a map)."""
    if isinstance(t, S.StructType):
        return True
    if isinstance(t, S.ArrayType):
        return holds_struct(t.elementType)
    if isinstance(t, S.MapType):
        return holds_struct(t.keyType) or holds_struct(t.valueType)
    return False


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


def powi(base: float, exponent: int) -> float:
    """``base`` to a whole ``exponent`` as Rust's ``powi`` computes it (compiler-rt's ``__powidf2``, by
    squaring: 10^37 comes out a unit off 1e37), the factor Arrow scales a float by."""
    result, b = 1.0, abs(exponent)
    while True:
        if b & 1:
            result *= base
        b //= 2
        if b == 0:
            break
        base *= base
    return 1.0 / result if exponent < 0 else result


#: Set while a builder builds a call one of whose arguments holds a subquery: Spark refuses a subquery
#: anywhere inside a lambda, so :func:`once` uses none (the call's other arguments are copied instead).
_NO_LAMBDAS: ContextVar[bool] = ContextVar("no_lambdas", default=False)


@contextmanager
def lambdas_refused(refused: bool = True) -> Iterator[None]:
    """:func:`once` uses no lambda inside this block (when ``refused``)."""
    token = _NO_LAMBDAS.set(_NO_LAMBDAS.get() or refused)
    try:
        yield
    finally:
        _NO_LAMBDAS.reset(token)


def once(value: Column, body: Callable[[Column], Column], folded: bool = True) -> Column:
    """``body(value)`` with ``value`` computed once, however often ``body`` uses it: Spark's plan holds a
    copy of an expression at each use, so builders that each use their argument several times, nested,
    grow the plan multiplicatively and Spark's analysis with it. A lambda's variable stands for
    ``value`` (a column, a literal or a constant is used as it is: :func:`~executor.spark.jvm.repeatable`; so
    is a value holding a subquery, which Spark refuses inside a lambda and computes once anyway).
    ``folded=False`` binds a literal or a constant too, for a body too large to copy even one into."""
    if _NO_LAMBDAS.get() or repeatable(value, or_subquery=True, folded=folded):
        return body(value)
    return F.element_at(F.transform(F.array(value), body), 1)


def second_digits(t: Type) -> int:
    """The digits of a second a timestamp type counts (the old kinds: microseconds)."""
    kind = t.WhichOneof("kind")
    return getattr(t, kind).precision if kind.startswith("precision") else 6


def held_int(n: Column) -> Column:
    """A count or position as Spark's int, held to the int's range (Spark's cast would wrap one beyond it,
    and no text or list holds so many); null stays null (Spark's least and greatest skip it)."""
    return F.when(n.isNotNull(), F.least(F.greatest(n, F.lit(-INT_MAX)), F.lit(INT_MAX))).cast("int")


def held_arg(call: Call, i: int, n: Column) -> Column:
    """Value argument ``i`` (``n``) as :func:`held_int` gives it; a literal within an int's range as it is,
    which Spark takes as an int without more work."""
    value = call.constants[i] if i < len(call.constants) else NOT_CONSTANT
    if isinstance(value, int) and not isinstance(value, bool) and -INT_MAX <= value <= INT_MAX:
        return n
    return held_int(n)


#: How a run stopped by a decimal beyond Spark's precision says so.
BEYOND_38_DIGITS = "decimal overflow (a value of more than 38 digits, which Spark cannot hold)"


def _fail_if(cond: Column, message: str, value: Column) -> Column:
    return F.when(cond, _error(message)).otherwise(value)


def _int_result(call: Call, name: str, wide: Column, native: Column, kind: str) -> Column:
    """An integer result under the ``overflow`` option: ``wide`` is exact (decimal), ``native`` wraps."""
    mode = _option(call, "overflow", ("SILENT", "SATURATE", "ERROR"), "SILENT")
    target = to_spark(Type(**{kind: getattr(Type, kind.upper())()}))
    if mode == "SILENT":
        return native.cast(sql_type(target))
    lo, hi = INT_RANGE[kind]
    if mode == "ERROR":
        return _fail_if((wide < lo) | (wide > hi), f"{name}: {kind} overflow", wide).cast(sql_type(target))
    return F.when(wide > hi, F.lit(hi)).when(wide < lo, F.lit(lo)).otherwise(wide).cast(sql_type(target))


def _toward_zero(q: Column, scale: int) -> Column:
    """A decimal cut to ``scale`` digits after the point toward zero, as DataFusion cuts a quotient."""
    return F.when(q >= 0, F.floor(q, scale)).otherwise(F.ceil(q, scale))


def _spark_bounded(precision: int, scale: int) -> int:
    """The scale Spark gives a decimal result of ``precision`` digits (precision loss allowed, its default):
    beyond 38 digits it keeps the integer digits and cuts the scale, to no fewer than 6 digits."""
    return scale if precision <= 38 else max(38 - (precision - scale), min(scale, 6))


def spark_divide_scale(p1: int, s1: int, p2: int, s2: int) -> int:
    """The scale of Spark's ``decimal(p1,s1) / decimal(p2,s2)``."""
    scale = max(6, s1 + p2 + 1)
    return _spark_bounded(p1 - s1 + s2 + scale, scale)


#: The integer digits of Spark's decimal for each integer kind, as its arithmetic with a decimal widens it.
INT_DECIMAL_DIGITS = {"i8": 3, "i16": 5, "i32": 10, "i64": 20}


def decimal_exact(
    name: str,
    op: Callable[[Column, Column], Column],
    a: Column,
    b: Column,
    left: tuple[int, int],
    right: tuple[int, int],
    result: tuple[int, int],
    warnings: list[str] | None = None,
) -> Column | None:
    """``op(a, b)``, the add, subtract or multiply of decimals of the given (precision, scale), as
    ``decimal(result)`` to the result's last digit; None where Spark's own result keeps every digit.

    Spark rounds a result of more than 38 digits to a coarser scale (``decimal(38,10) - decimal(38,0)`` to 6
    digits), where the plan's producer may keep them all (DataFusion declares ``decimal(38,10)``). Operands
    cast to fewer integer digits give a result of at most 38 digits, which Spark keeps exactly: a sum's
    operands one digit fewer than the result's, a product's in each split between its two operands.
    A row whose operands fit none of them stops the run: rounded elsewhere than the plan says, its value
    would look right. Where no narrowing gives the plan's scale (a sum at 37 places has no room for its
    carry), ``warnings`` gets a sentence that says the last digits may differ."""
    (p1, s1), (p2, s2), (precision, scale) = left, right, result
    product = name == "multiply"
    exact_scale = s1 + s2 if product else max(s1, s2)
    whole = p1 + p2 + 1 if product else exact_scale + max(p1 - s1, p2 - s2) + 1
    own = _spark_bounded(whole, exact_scale)
    if own >= min(scale, exact_scale):
        return None
    room = 37 - exact_scale  # integer digits the operands may have: in all (a product) or each (a sum)
    d1, d2 = p1 - s1, p2 - s2
    if product:  # every split of the room: any two operands whose digits fit in it have one
        splits = [(k, room - k) for k in range(max(0, room - d2), min(d1, room) + 1)]
    else:
        splits = [(min(d1, room), min(d2, room))]
    splits = [(k1, k2) for k1, k2 in splits if min(k1, k2) >= 0 and k1 + s1 > 0 and k2 + s2 > 0]
    if not splits:
        if warnings is not None:
            warnings.append(
                f"{name} of decimal({p1},{s1}) and decimal({p2},{s2}): Spark keeps {own} digits after the point "
                f"(its precision's limit), where the plan's decimal({precision},{scale}) keeps "
                f"{min(scale, exact_scale)}: its last digits may differ from the plan's producer's"
            )
        return None
    declared = f"decimal({precision},{scale})"
    beyond = _error(
        f"{name}: decimal({p1},{s1}) and decimal({p2},{s2}) values too large for Spark to keep every digit of "
        f"the plan's {declared} (it rounds a result of more than 38 digits)"
    )

    def exact(a: Column, b: Column) -> Column:
        out = F.when(a.isNull() | b.isNull(), F.lit(None).cast(declared))
        for k1, k2 in splits:
            fits = (F.abs(a) < F.lit(Decimal(10**k1))) & (F.abs(b) < F.lit(Decimal(10**k2)))
            narrowed = op(a.cast(f"decimal({k1 + s1},{s1})"), b.cast(f"decimal({k2 + s2},{s2})"))
            out = out.when(fits, narrowed.cast(declared))
        return out.otherwise(beyond)

    return once(a, lambda a: once(b, lambda b: exact(a, b)))


def _narrowed(whole: int, s1: int, p2: int, s2: int, wanted: int) -> tuple[int, int] | None:
    """The most integer digits (below ``whole``, the dividend's own) and the scale a dividend may be cast
    to so that Spark's quotient by a ``decimal(p2,s2)`` keeps at least ``wanted`` digits after the point;
    None where none do. Its own scale first; a finer one where the divisor is narrow."""
    for a_scale in dict.fromkeys((s1, max(s1, wanted - p2 - 1))):
        for digits in range(min(whole, 38 - a_scale), 0, -1):
            if spark_divide_scale(digits + a_scale, a_scale, p2, s2) >= wanted:
                return digits, a_scale
    return None


def decimal_quotient(
    a: Column,
    b: Column,
    dividend: tuple[int, int],
    divisor: tuple[int, int],
    result: tuple[int, int],
    truncate: bool,
    warnings: list[str] | None = None,
) -> Column:
    """``a / b`` (decimals of the given (precision, scale)) as ``decimal(result)``.

    Spark rounds its quotient half up at a scale of its own, which for wide operands is coarser than the
    result's (``decimal(38,4) / decimal(38,4)`` keeps 6 digits where DataFusion declares 8, TPC-H q08's
    share). Its scale grows as the dividend's integer digits shrink and its own scale grows, so a dividend
    whose value fits in fewer integer digits is divided at a finer scale. With ``truncate`` (DataFusion
    cuts a quotient toward zero), the cut is made from a quotient with spare digits beyond the result's
    (6 where the dividend is small enough, else 3, else none: a rounding carry through 3 of them is too
    rare to matter). Where a dividend of :data:`PLAIN_DIGITS` integer digits or fewer may get fewer spare
    digits than that (none: Spark's quotient rounded at the plan's last digit; or fewer digits than the
    plan's), ``warnings`` gets a sentence that says from which size on and what may differ."""
    (p1, s1), (p2, s2), (precision, scale) = dividend, divisor, result
    declared = f"decimal({precision},{scale})"

    def cut(q: Column) -> Column:
        return (_toward_zero(q, scale) if truncate else q).cast(declared)

    out = cut(a / b)
    own = spark_divide_scale(p1, s1, p2, s2)
    enough = 3 if truncate else 0  # spare digits that give the plan's last digit
    branches: list[tuple[int, int, Column]] = []  # (the dividend's integer digits, spare digits, quotient)
    rest = own  # the scale the dividends no branch takes are divided at
    for spare in (6, 3, 0) if truncate else (0,):
        if own >= scale + spare:
            break  # Spark's own quotient has as many spare digits
        found = _narrowed(p1 - s1, s1, p2, s2, scale + spare)
        if found is None:
            continue
        whole, a_scale = found
        quotient = cut(a.cast(f"decimal({whole + a_scale},{a_scale})") / b.cast(f"decimal({p2},{s2})"))
        if whole >= p1 - s1:  # every value of the dividend fits: no other branch is needed
            out, rest = quotient, scale + spare
            break
        branches.append((whole, spare, quotient))
    for whole, _, quotient in reversed(branches):
        out = F.when(F.abs(a) < _big(10**whole), quotient).otherwise(out)
    # the integer digits of the dividends divided with enough spare digits (all where the rest are)
    good = p1 if rest >= scale + enough else max((w for w, spare, _ in branches if spare >= enough), default=0)
    if warnings is not None and good < min(PLAIN_DIGITS, p1 - s1):
        weak = sorted({rest, *(scale + spare for _, spare, _ in branches if spare < enough)})
        at = f"{weak[0]} to {weak[-1]}" if len(weak) > 1 else f"{weak[0]}"
        which = f"for a dividend of 10^{good} or more, Spark's quotient" if good else "Spark's quotient"
        cuts = f"cuts it toward zero at {scale}" if truncate else f"has {scale}"
        warnings.append(
            f"decimal({p1},{s1}) ÷ decimal({p2},{s2}): {which} is rounded half up at {at} digits after the point "
            f"(its precision's limit), where the plan's decimal({precision},{scale}) {cuts}: its last digit may "
            "differ from the plan's producer's"
        )
    return out


#: The integer digits of the values a warning considers (those of a bigint): a dividend beyond every exact
#: branch from this size on is too rare to be worth a note on every plan that divides wide decimals.
PLAIN_DIGITS = 18


def _float_rounding(call: Call) -> None:
    """Spark's float arithmetic rounds ties to even (IEEE 754); other modes get a warning."""
    _option(call, "rounding", ("TIE_TO_EVEN",), "TIE_TO_EVEN")


def _nan_safe(call: Call, cols: list[Column]) -> Column | None:
    """For float arguments: a condition that is true when any argument is NaN (Spark's NaN = NaN is true),
    for the spec's reading (NaN compares unequal to everything). None where there is none, and for a
    DataFusion plan: its NaN equals itself and is above every number, as Spark's is."""
    if call.dialect == "datafusion":
        return None
    floats = [c for i, c in enumerate(cols) if _arg_kind(call, i) in FLOATS]
    if not floats:
        return None
    cond = F.isnan(floats[0])
    for c in floats[1:]:
        cond = cond | F.isnan(c)
    return cond


def _spark_fn(fn: str, arity: int | None = None) -> Builder:
    """A Spark SQL function taking the value arguments as they are."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        return F.call_function(fn, *(vals if arity is None else vals[:arity]))

    return build


def literal_pattern(text: Column) -> Column:
    """A regex that matches ``text`` itself: quoted between ``\\Q`` and ``\\E``, a ``\\E`` inside it
    closed, written and reopened."""
    inner = F.replace(text, F.lit("\\E"), F.lit("\\E\\\\E\\Q"))
    return F.concat(F.lit("\\Q"), inner, F.lit("\\E"))
