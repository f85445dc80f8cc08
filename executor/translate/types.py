"""Substrait types as Spark SQL types.

One table from the ``Type.kind`` oneof to a builder. Types Spark has no equivalent for raise
``Unsupported`` with the type's name, so a node that needs one says so before running.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType

from pyspark.sql import types as S
from substrait import type_pb2

from viz.coercion import dictionary_values, is_unsigned, variation_names
from viz.types import render
from viz.words import and_list

from ..errors import Unsupported


def _decimal(t: type_pb2.Type.Decimal) -> S.DataType:
    precision = t.precision or 38
    if precision > 38:
        raise Unsupported(f"decimal<{t.precision},{t.scale}>: Spark decimals hold at most 38 digits")
    return S.DecimalType(precision, t.scale)


def _struct(t: type_pb2.Type.Struct) -> S.DataType:
    return S.StructType([S.StructField(f"f{i}", to_spark(m), nullable=True) for i, m in enumerate(t.types)])


def _timestamp(t) -> S.DataType:
    return S.TimestampNTZType()


#: The most digits of a second Spark's TIME keeps (nanoseconds).
TIME_DIGITS = 9


def _time_of_day(t: type_pb2.Type.PrecisionTime) -> S.DataType:
    """Spark's TIME of the type's digits of a second."""
    digits = t.precision
    if digits > TIME_DIGITS:
        raise Unsupported(f"precision_time<{digits}>: Spark's TIME keeps at most {TIME_DIGITS} digits of a second")
    return S.TimeType(digits)


_TABLE: dict[str, Callable[[object], S.DataType]] = {
    "bool": lambda t: S.BooleanType(),
    "i8": lambda t: S.ByteType(),
    "i16": lambda t: S.ShortType(),
    "i32": lambda t: S.IntegerType(),
    "i64": lambda t: S.LongType(),
    "fp32": lambda t: S.FloatType(),
    "fp64": lambda t: S.DoubleType(),
    "string": lambda t: S.StringType(),
    "varchar": lambda t: S.StringType(),
    "fixed_char": lambda t: S.StringType(),
    "binary": lambda t: S.BinaryType(),
    "fixed_binary": lambda t: S.BinaryType(),
    "uuid": lambda t: S.StringType(),
    "date": lambda t: S.DateType(),
    "decimal": _decimal,
    "precision_timestamp": _timestamp,
    "timestamp": _timestamp,
    "precision_timestamp_tz": lambda t: S.TimestampType(),
    "timestamp_tz": lambda t: S.TimestampType(),
    "precision_time": _time_of_day,
    "interval_year": lambda t: S.YearMonthIntervalType(),
    "interval_day": lambda t: S.DayTimeIntervalType(),
    "struct": _struct,
    "list": lambda t: S.ArrayType(to_spark(t.type), containsNull=True),
    "map": lambda t: S.MapType(to_spark(t.key), to_spark(t.value), valueContainsNull=True),
}


#: User-defined types producers declare for engine types Substrait lacks, by declared name (DataFusion
#: writes Arrow's Null and Float16 so, with no extension URN). fp16 values are all exact in Spark's float.
ENGINE_USER_TYPES: dict[str, Callable[[], S.DataType]] = {"null": S.NullType, "fp16": S.FloatType}

#: The plan's user-defined type names by anchor, for the translation under way (set by
#: :func:`plan_user_types` around it, in the thread that translates).
_USER_TYPES: ContextVar[Mapping[int, str]] = ContextVar("substrait_viz_user_types", default=MappingProxyType({}))


#: Spark's type for an unsigned integer of each width: the signed type of twice the width, as Spark reads
#: Parquet's unsigned integers (a u8 reaches 255, past a byte). A u64 stays a bigint: its values past
#: 2^63 are refused where a literal, a cast or a read would bring them.
UNSIGNED_HELD_IN: dict[str, Callable[[], S.DataType]] = {
    "i8": S.ShortType,
    "i16": S.IntegerType,
    "i32": S.LongType,
    "i64": S.LongType,
}

#: The dialect of the plan under translation (set by :func:`plan_user_types`): whose unsigned integers it holds.
_DIALECT: ContextVar[str] = ContextVar("substrait_viz_dialect", default="")


@contextmanager
def plan_user_types(names: Mapping[int, str], dialect: str = "") -> Iterator[None]:
    """Translate with ``names`` (a plan's type anchors to declared names) as the user-defined types, and the
    integers of the unsigned variation of the plan's producer (its ``dialect``) as unsigned."""
    token = _USER_TYPES.set(names)
    spoken = _DIALECT.set(dialect)
    try:
        yield
    finally:
        _DIALECT.reset(spoken)
        _USER_TYPES.reset(token)


def _user_defined(t: type_pb2.Type.UserDefined, user_types: Mapping[int, str]) -> S.DataType:
    name = user_types.get(t.type_reference)
    builder = ENGINE_USER_TYPES.get(name or "")
    if builder is None:
        shown = f"u!{name}" if name else f"user-defined type {t.type_reference} (not declared in the plan)"
        raise Unsupported(f"{shown} has no Spark equivalent (known: {', '.join('u!' + n for n in ENGINE_USER_TYPES)})")
    return builder()


def to_spark(t: type_pb2.Type | None, user_types: Mapping[int, str] | None = None) -> S.DataType:
    """The Spark type for a Substrait type. Raises ``Unsupported`` for types Spark lacks. User-defined
    types are looked up in ``user_types`` (else the plan being translated: :func:`plan_user_types`)."""
    if t is None:
        raise Unsupported("the type is unknown (see the node's diagnostics)")
    kind = t.WhichOneof("kind")
    if kind == "user_defined":
        return _user_defined(t.user_defined, _USER_TYPES.get() if user_types is None else user_types)
    builder = _TABLE.get(kind or "")
    if builder is None:
        raise Unsupported(f"Substrait type `{kind or 'unset'}` has no Spark equivalent")
    if is_unsigned(t, _DIALECT.get()):
        return UNSIGNED_HELD_IN[kind]()
    values = dictionary_values(t, _DIALECT.get())
    if values is not None:  # a dictionary encodes its values: Spark holds them as they are
        return to_spark(values, user_types)
    return builder(getattr(t, kind))


def dialect() -> str:
    """The dialect of the plan under translation ("" outside one)."""
    return _DIALECT.get()


#: What becomes of a time finer than Spark's, said wherever a plan's time is (a result column, a literal, a cast).
MICROSECONDS_KEPT = "Spark keeps microseconds, so the digits below a microsecond are dropped"
#: The type variation of DataFusion's durations on ``interval_day`` (its intervals of days and time have none).
DURATION_VARIATION = 1

#: What a result column of a time finer than Spark's holds: where its finer part went.
FINER_IN_RESULTS = (
    "Spark keeps microseconds; a finer part stops the run where a parquet, ORC or Arrow file holds one and is "
    "said on its node where the plan makes one"
)

#: Kinds whose precision counts digits of a second; Spark keeps microseconds (6).
_SUBSECOND_KINDS = ("precision_timestamp", "precision_timestamp_tz", "interval_day")


def with_member_names(t: S.DataType, names: Iterator[str]) -> S.DataType:
    """``t`` with its structs' members named from the depth-first ``names`` of a plan's NamedStruct (a
    Substrait struct type has none: Spark's translation names them ``f0``, ``f1``...); a member past
    the names keeps its own."""
    if isinstance(t, S.StructType):
        fields = []
        for f in t.fields:
            name = next(names, f.name)
            fields.append(S.StructField(name, with_member_names(f.dataType, names), f.nullable))
        return S.StructType(fields)
    if isinstance(t, S.ArrayType):
        return S.ArrayType(with_member_names(t.elementType, names), t.containsNull)
    if isinstance(t, S.MapType):
        key = with_member_names(t.keyType, names)
        return S.MapType(key, with_member_names(t.valueType, names), t.valueContainsNull)
    return t


def _shape(t: S.DataType) -> str:
    """A Spark type as text without struct member names (the translation names them ``f0``, ``f1``...;
    Spark's functions name them otherwise) and without nullability."""
    if isinstance(t, S.StructType):
        return f"struct<{','.join(_shape(f.dataType) for f in t.fields)}>"
    if isinstance(t, S.ArrayType):
        return f"array<{_shape(t.elementType)}>"
    if isinstance(t, S.MapType):
        return f"map<{_shape(t.keyType)},{_shape(t.valueType)}>"
    return t.simpleString()


def spark_type_or_none(t: type_pb2.Type | None, user_types: Mapping[int, str] | None = None) -> S.DataType | None:
    """:func:`to_spark`, or None where there is no Spark type to check against (no type, or one Spark lacks)."""
    if t is None:
        return None
    try:
        return to_spark(t, user_types)
    except Unsupported:
        return None


_DECIMAL_TEXT = re.compile(r"decimal[<(](\d+),\s*(\d+)[>)]")


def _what_it_means(plan: str, spark: str) -> str:
    """What a difference of two decimal types means for the values (said beside it): a person reading
    the note asks whether the rows can be trusted."""
    a, b = _DECIMAL_TEXT.match(plan), _DECIMAL_TEXT.match(spark)
    if a is None or b is None or a.group(2) != b.group(2):
        return ""
    if int(b.group(1)) < int(a.group(1)):
        return f": the same values, where they have at most {b.group(1)} digits"
    return ": the same values, in a type of more digits"


def finer_time_notes(fields, schema: S.StructType, user_types: Mapping[int, str] | None = None) -> list[str]:
    """A note per type of a result's columns that counts finer than the microseconds Spark keeps (columns
    alike in that said in one note); a run says them after its :func:`type_differences`. ``fields``: the
    node's derived schema (``viz.fields.Field``)."""
    finer: dict[str, list[str]] = {}
    for i, (f, have) in enumerate(zip(fields or (), schema.fields)):
        want = spark_type_or_none(f.type, user_types)
        kind = f.type.WhichOneof("kind") if want is not None else None
        if kind in _SUBSECOND_KINDS and _shape(want) == _shape(have.dataType) and getattr(f.type, kind).precision > 6:
            finer.setdefault(render(f.type, variations=variation_names(_DIALECT.get())), []).append(_label(i, f))
    return [
        f"{_columns(labels)} {'is' if len(labels) == 1 else 'are'} {plan} in the plan: {FINER_IN_RESULTS}"
        for plan, labels in finer.items()
    ]


def type_differences(fields, schema: S.StructType, user_types: Mapping[int, str] | None = None) -> list[str]:
    """A note per Spark type of a result's columns that is not the one the plan's derived type maps to
    (columns alike in that said in one note); a type Spark lacks is said where it is translated."""
    differ: dict[tuple[str, str], list[str]] = {}  # (the plan's type, Spark's) -> the columns
    for i, (f, have) in enumerate(zip(fields or (), schema.fields)):
        want = spark_type_or_none(f.type, user_types)
        if want is not None and _shape(want) != _shape(have.dataType):
            shown = render(f.type, variations=variation_names(_DIALECT.get()))
            differ.setdefault((shown, have.dataType.simpleString()), []).append(_label(i, f))
    return [
        f"{_columns(labels)} {'is' if len(labels) == 1 else 'are'} {plan} in the plan, but Spark's result is {spark}"
        + _what_it_means(plan, spark)
        for (plan, spark), labels in differ.items()
    ]


def _label(i: int, f) -> str:
    return f"{i} ({f.name})" if f.name else str(i)


def _columns(labels: list[str]) -> str:
    return f"{'column' if len(labels) == 1 else 'columns'} {and_list(labels)}"


__all__ = [
    "ENGINE_USER_TYPES",
    "UNSIGNED_HELD_IN",
    "finer_time_notes",
    "plan_user_types",
    "spark_type_or_none",
    "to_spark",
    "type_differences",
]
