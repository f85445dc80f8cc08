"""Records (structs) of one shape taken together: Spark's CASE, coalesce and array take records only
when their members' names agree, and the translation names a record literal's members ``f0``, ``f1``..."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import types as S
from substrait import type_pb2

#: Calls whose values must share one type (:func:`one_shape`).
ONE_SHAPE_CALLS = frozenset({"coalesce", "make_array", "array", "nullif", "greatest", "least"})


def holds_record(t: type_pb2.Type | None) -> bool:
    """Whether a Substrait type is or holds a struct (in a list or a map)."""
    kind = t.WhichOneof("kind") if t is not None else None
    if kind == "struct":
        return True
    if kind == "list":
        return holds_record(t.list.type)
    if kind == "map":
        return holds_record(t.map.key) or holds_record(t.map.value)
    return False


def _spark_parts(t: S.DataType, fn: Callable[[S.StructType], S.StructType]) -> S.DataType:
    """``t`` with ``fn`` applied to each record in it, innermost first."""
    if isinstance(t, S.StructType):
        return fn(S.StructType([S.StructField(f.name, _spark_parts(f.dataType, fn), f.nullable) for f in t.fields]))
    if isinstance(t, S.ArrayType):
        return S.ArrayType(_spark_parts(t.elementType, fn), t.containsNull)
    if isinstance(t, S.MapType):
        return S.MapType(_spark_parts(t.keyType, fn), _spark_parts(t.valueType, fn), t.valueContainsNull)
    return t


def _unnamed(t: S.DataType) -> S.DataType:
    """``t`` with every record's members named by position and nullable: its shape."""
    return _nullable(
        _spark_parts(t, lambda r: S.StructType([S.StructField(f"f{i}", f.dataType) for i, f in enumerate(r.fields)]))
    )


def _nullable(t: S.DataType) -> S.DataType:
    """``t`` with every record member, list element and map value nullable (a cast may always widen so)."""
    if isinstance(t, S.StructType):
        return S.StructType([S.StructField(f.name, _nullable(f.dataType), True) for f in t.fields])
    if isinstance(t, S.ArrayType):
        return S.ArrayType(_nullable(t.elementType), True)
    if isinstance(t, S.MapType):
        return S.MapType(t.keyType, _nullable(t.valueType), True)
    return t


def _translation_names(t: S.DataType) -> bool:
    """Whether a record in ``t`` has the translation's own member names (``f0``, ``f1``...)."""
    if isinstance(t, S.StructType):
        own = [f.name for f in t.fields] == [f"f{i}" for i in range(len(t.fields))]
        return own or any(_translation_names(f.dataType) for f in t.fields)
    if isinstance(t, S.ArrayType):
        return _translation_names(t.elementType)
    if isinstance(t, S.MapType):
        return _translation_names(t.keyType) or _translation_names(t.valueType)
    return False


def spark_types(df: DataFrame | None, columns: list[Column]) -> list[S.DataType] | None:
    """The Spark types of ``columns`` over ``df``; None where Spark cannot type them there (no ``df``,
    outer references and the like: a run then says what Spark says)."""
    if df is None:
        return None
    try:
        return [f.dataType for f in df.select(*[c.alias(f"_{i}") for i, c in enumerate(columns)]).schema.fields]
    except Exception:  # noqa: BLE001 - Spark's analysis errors are of many kinds
        return None


def one_shape(df: DataFrame | None, columns: list[Column]) -> list[Column]:
    """Values that must share one type (a CASE's branches, coalesce's or an array's values), records among
    them, each cast to one record type: member by member, under the first names that are the plan's own,
    not the translation's ``f0``, ``f1``... (a record literal's or a typed null's; Spark takes records of
    one shape together only when their members' names agree). As they are without ``df`` to type them in."""
    kinds = spark_types(df, columns)
    if kinds is None:
        return columns
    named = next((k for k in kinds if not _translation_names(k)), kinds[0])
    target = _nullable(named)
    if all(_unnamed(k) == _unnamed(target) for k in kinds) and any(k != kinds[0] for k in kinds):
        return [c.cast(target) for c in columns]
    return columns
