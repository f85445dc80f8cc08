"""Nested values as Spark takes them: records (structs) of one shape taken together (Spark's CASE, coalesce
and array take records only when their members' names agree, and the translation names a record literal's
members ``f0``, ``f1``...), members found by name where Spark's names would not find them, and maps
compared as their entries (Spark compares no map)."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import type_pb2

from viz.coercion import dictionary_values

from ..errors import Unsupported
from .types import dialect

#: Calls whose values must share one type (:func:`one_shape`).
ONE_SHAPE_CALLS = frozenset({"coalesce", "make_array", "array", "nullif", "greatest", "least"})

#: List calls whose lists and values must hold one element type (:func:`one_element_type`), the role of
#: each value argument: ``l`` a list, ``e`` an element, ``-`` neither; the last role is every later one's.
ONE_ELEMENT_CALLS = {
    "array_concat": "l",
    "array_append": "le",
    "array_prepend": "el",
    "array_resize": "l-e",
    "array_union": "l",
    "array_intersect": "l",
    "array_except": "l",
    "array_has_all": "l",
    "array_has_any": "l",
    "array_replace": "le",
    "array_replace_all": "le",
    "array_replace_n": "lee-",
}


def holds_kind(t: type_pb2.Type | None, kind: str) -> bool:
    """Whether a Substrait type is of ``kind`` or holds one (in a record, a list or a map); a dictionary of
    the plan's producer holds its values."""
    values = dictionary_values(t, dialect())
    if values is not None:
        return holds_kind(values, kind)
    own = t.WhichOneof("kind") if t is not None else None
    if own == kind:
        return True
    if own == "list":
        return holds_kind(t.list.type, kind)
    if own == "map":
        return holds_kind(t.map.key, kind) or holds_kind(t.map.value, kind)
    if own == "struct":
        return any(holds_kind(m, kind) for m in t.struct.types)
    return False


def holds_record(t: type_pb2.Type | None) -> bool:
    """Whether a Substrait type is or holds a struct (in a list or a map)."""
    return holds_kind(t, "struct")


def holds_map(t: type_pb2.Type | None) -> bool:
    """Whether a Substrait type is or holds a map (in a record or a list)."""
    return holds_kind(t, "map")


def run_kind(t: type_pb2.Type | None) -> str | None:
    """The kind of value the run holds for type ``t``: its own, or the values' of a dictionary of the plan's
    producer."""
    values = dictionary_values(t, dialect())
    t = values if values is not None else t
    return t.WhichOneof("kind") if t is not None else None


def floats_inside(t: type_pb2.Type | None) -> bool:
    """Whether a Substrait type is a list, record or map that holds a float."""
    nested = run_kind(t) in ("list", "struct", "map")
    return nested and (holds_kind(t, "fp32") or holds_kind(t, "fp64"))


def zero_signs(value: Column, t: type_pb2.Type | None, dialect: str) -> Column | None:
    """What tells apart two lists or records (of type ``t``) that Spark finds equal, in a DataFusion plan
    (``dialect``): its engine compares, sorts and groups them by their members' bits, -0.0 below 0.0, where
    Spark takes the two zeros as one. Their texts then differ only in a zero's sign ("-0.0" sorts
    before "0.0"), so the text is the tie-break. None where none is needed. Beyond its reach: a map's
    keys (Spark makes a -0.0 key 0.0 as it builds the map), and two values written with the zeros as
    literals (Spark's literals compare by value, so it may take one expression for the other)."""
    if dialect != "datafusion" or not floats_inside(t):
        return None
    return value.cast("string")


def comparable(value: Column, t: type_pb2.Type | None) -> Column:
    """``value`` (of type ``t``) as Spark can compare, sort and deduplicate it: a map as its entries in
    their order (Arrow's map is a list of entries, and DataFusion compares maps so; Spark compares none)."""
    if not holds_map(t):
        return value
    if run_kind(t) == "map" and not (holds_map(t.map.key) or holds_map(t.map.value)):
        return F.map_entries(value)
    raise Unsupported(
        "a map inside a record or a list compared, sorted or deduplicated: Spark compares no map, and only a "
        "map of its own is compared here as its entries"
    )


def nulls_high(value: Column, t: S.DataType) -> Column:
    """``value`` (of Spark type ``t``) with the nulls inside a list or record ranked above every value:
    DataFusion sorts a list or record by its members with their nulls where the sort puts nulls (last
    ascending, first descending), where Spark ranks a null member lowest. Each member is paired with
    whether it is null; the value itself stays null where it is."""

    def flagged(x: Column, member: S.DataType) -> Column:
        return F.struct(x.isNull().alias("null"), nulls_high(x, member).alias("value"))

    if isinstance(t, S.ArrayType):
        return F.transform(value, lambda x: flagged(x, t.elementType))
    if isinstance(t, S.StructType):
        members = [flagged(member_at(value, t, i), f.dataType).alias(f"_{i}") for i, f in enumerate(t.fields)]
        return F.when(value.isNull(), F.lit(None)).otherwise(F.struct(*members))
    return value


def restored(value: Column, t: type_pb2.Type | None) -> Column:
    """A value :func:`comparable` gave, as the value of type ``t`` again (a map from its entries)."""
    return F.map_from_entries(value) if run_kind(t) == "map" else value


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


def named_after(target: S.DataType, source: S.DataType) -> S.DataType:
    """``target`` with each record's members named as the record at the same place in ``source`` names
    them, where the two records have as many members (a cast takes members by position)."""
    if isinstance(target, S.StructType) and isinstance(source, S.StructType):
        if len(target.fields) != len(source.fields):
            return target
        return S.StructType(
            [
                S.StructField(s.name, named_after(t.dataType, s.dataType), t.nullable)
                for t, s in zip(target.fields, source.fields)
            ]
        )
    if isinstance(target, S.ArrayType) and isinstance(source, S.ArrayType):
        return S.ArrayType(named_after(target.elementType, source.elementType), target.containsNull)
    if isinstance(target, S.MapType) and isinstance(source, S.MapType):
        key, value = named_after(target.keyType, source.keyType), named_after(target.valueType, source.valueType)
        return S.MapType(key, value, target.valueContainsNull)
    return target


def member(value: Column, record: S.StructType, name: str) -> Column:
    """The member ``name`` of ``value``, a record of type ``record`` (:func:`member_at`)."""
    names = record.names
    return member_at(value, record, names.index(name)) if name in names else value.getField(name)


def member_at(value: Column, record: S.StructType, i: int) -> Column:
    """The ``i``-th member of ``value``, a record of type ``record``: by its name, unless another member's
    name is the same regardless of case (Spark finds a member so), then by its position."""
    name = record.names[i]
    if sum(n.casefold() == name.casefold() for n in record.names) == 1:
        return value.getField(name)
    by_position = S.StructType([S.StructField(f"_{j}", f.dataType, f.nullable) for j, f in enumerate(record.fields)])
    return value.cast(by_position).getField(f"_{i}")


def _one_record_type(kinds: list[S.DataType]) -> S.DataType | None:
    """The one type that values of Spark types ``kinds`` are cast to, member by member, under the first
    names that are the plan's own, not the translation's ``f0``, ``f1``... (a record literal's or a typed
    null's); None where they are of one type already or of records of other shapes."""
    named = next((k for k in kinds if not _translation_names(k)), kinds[0])
    target = _nullable(named)
    if all(_unnamed(k) == _unnamed(target) for k in kinds) and any(k != kinds[0] for k in kinds):
        return target
    return None


def one_shape(df: DataFrame | None, columns: list[Column]) -> list[Column]:
    """Values that must share one type (a CASE's branches, coalesce's or an array's values), records among
    them, each cast to one record type (:func:`_one_record_type`): Spark takes records of one shape together
    only when their members' names agree. As they are without ``df`` to type them in."""
    kinds = spark_types(df, columns)
    target = _one_record_type(kinds) if kinds else None
    return columns if target is None else [c.cast(target) for c in columns]


def one_element_type(df: DataFrame | None, columns: list[Column], roles: str) -> list[Column]:
    """The arguments of a list call whose lists and values must hold one element type (:data:`ONE_ELEMENT_CALLS`
    gives each argument's role): records among them cast to one record type, as :func:`one_shape` casts them."""
    shared = [i for i in range(len(columns)) if _role(roles, i) != "-"]
    as_lists = [columns[i] if _role(roles, i) == "l" else F.array(columns[i]) for i in shared]
    kinds = spark_types(df, as_lists)
    target = _one_record_type(kinds) if kinds and all(isinstance(k, S.ArrayType) for k in kinds) else None
    if target is None:
        return columns
    out = list(columns)
    for i in shared:
        out[i] = columns[i].cast(target if _role(roles, i) == "l" else target.elementType)
    return out


def _role(roles: str, i: int) -> str:
    return roles[min(i, len(roles) - 1)]
