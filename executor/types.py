"""Substrait types as Spark SQL types.

One table from the ``Type.kind`` oneof to a builder. Types Spark has no equivalent for raise
``Unsupported`` with the type's name, so a node that needs one says so before running.
"""

from __future__ import annotations

from typing import Callable

from pyspark.sql import types as S
from substrait import type_pb2

from .errors import Unsupported


def _decimal(t: type_pb2.Type.Decimal) -> S.DataType:
    precision = t.precision or 38
    if precision > 38:
        raise Unsupported(f"decimal<{t.precision},{t.scale}>: Spark decimals hold at most 38 digits")
    return S.DecimalType(precision, t.scale)


def _struct(t: type_pb2.Type.Struct) -> S.DataType:
    return S.StructType(
        [S.StructField(f"f{i}", to_spark(m), nullable=True) for i, m in enumerate(t.types)]
    )


def _timestamp(t) -> S.DataType:
    return S.TimestampNTZType()


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
    "interval_year": lambda t: S.YearMonthIntervalType(),
    "interval_day": lambda t: S.DayTimeIntervalType(),
    "struct": _struct,
    "list": lambda t: S.ArrayType(to_spark(t.type), containsNull=True),
    "map": lambda t: S.MapType(to_spark(t.key), to_spark(t.value), valueContainsNull=True),
}


def to_spark(t: type_pb2.Type | None) -> S.DataType:
    """The Spark type for a Substrait type. Raises ``Unsupported`` for types Spark lacks."""
    if t is None:
        raise Unsupported("the type is unknown (see the node's diagnostics)")
    kind = t.WhichOneof("kind")
    builder = _TABLE.get(kind or "")
    if builder is None:
        raise Unsupported(f"Substrait type `{kind or 'unset'}` has no Spark equivalent")
    return builder(getattr(t, kind))


__all__ = ["to_spark"]
