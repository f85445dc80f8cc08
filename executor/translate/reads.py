"""Read relations as DataFrames: named tables, local files and virtual tables, their columns
conformed to the plan's base schema (selected by name or position, cast where that is safe), then
the read's filters and projection mask.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import algebra_pb2

from viz.fields import Field, named_struct_fields
from viz.model import NodeView
from viz.tables import read_fields
from viz.types import render

from ..data.columns import (
    ReadSchema,
    check_columns,
    families_fit,
    narrows,
    plan_columns,
    spark_columns,
    spark_family,
)
from ..errors import ColumnMismatch, ExecutionError, Unsupported
from ..spark.jvm import col, sql_type
from . import literals
from .casts import fits, stops_where_lost
from .context import Translating
from .expr import ExprTranslator, Record, struct_member
from .functions._common import INT_RANGE
from .records import holds_kind
from .types import spark_type_or_none, to_spark, with_member_names


def _family(t: S.DataType) -> str | None:
    return spark_family(t)


def _safe_cast(have: S.DataType, want: S.DataType) -> bool:
    """Whether a file column of type ``have`` may be cast to the plan's ``want`` without surprises."""
    a, b = _family(have), _family(want)
    return a is not None and b is not None and families_fit(a, b)


def _mismatch(
    df: DataFrame,
    base: list[Field],
    what: str,
    table: Sequence[str],
    where: str,
    how: str = "",
    position: bool = False,
    bind_how: str = "Bind it",
    used: frozenset[int] | None = None,
) -> str | None:
    """Why a named table's columns are not the plan's, or None (:func:`executor.data.columns.check_columns`:
    every name of the base schema a column, case-insensitive, of a type of the same family; read by
    ``position``, the first columns in order, as many and of those families). ``how``: where the person
    chooses to read a table by position, with ``{name}`` for the table
    (:attr:`executor.data.catalog.Catalog.by_position_how`); ``bind_how``: how they bind another
    (:attr:`executor.data.catalog.Catalog.bind_how`)."""
    check = check_columns(spark_columns(df.schema), plan_columns(ReadSchema(base, used)))
    if check.ok or (position and check.by_position):
        return None
    plan_cols = ", ".join(f.name for f in base)
    file_cols = ", ".join(c.shown() for c in check.table) or "no columns"
    if position:
        return (
            f"{what} ({where}) {check.problem()}, and it cannot be read by position either: "
            f"{check.why_not_by_position()}. The plan declares {plan_cols}; the table has {file_cols}. Bind a "
            "table with the plan's columns"
        )
    if not check.by_position:  # reading by position is offered only where it would serve
        return (
            f"{what} ({where}) {check.problem()}. The plan declares {plan_cols}; the table has {file_cols}. Read "
            f"by position, it would not serve either: {check.why_not_by_position()}. {bind_how}, to a table "
            "with the plan's columns"
        )
    where_to_choose = how.format(name=table[-1] if table else "?")
    return (
        f"{what} ({where}) {check.problem()}. The plan declares {plan_cols}; the table has {file_cols}. Bind a "
        f"table with the plan's columns, or choose to read this one by position{where_to_choose}"
    )


def _conform(
    tr: Translating,
    df: DataFrame,
    base: list[Field],
    what: str,
    table: Sequence[str] | None = None,
    used: frozenset[int] | None = None,
) -> DataFrame:
    """Select the table's columns for the base schema and cast them to its types where that is safe.

    A named table (``table``: its names) must have the plan's columns, by name (case-insensitive)
    and type family; otherwise it is refused (:class:`ColumnMismatch`) unless the catalog reads it by
    position, the person's explicit choice, and its first columns have the plan's type families in
    order. Only the fields the read uses (``used``, its projection's and filters'; None for all) need be
    there: one it never uses that the table lacks is a null of its type. Local files are read by
    position when their names are not the plan's (a headerless CSV's columns have none)."""
    columns = df.columns
    by_name = {c.lower(): c for c in columns}
    position = table is None or getattr(tr.tables, "reads_by_position", lambda names: False)(table)
    if table is not None:
        where = getattr(tr.tables, "where", lambda names: "")(table)
        why = _mismatch(
            df,
            base,
            what,
            table,
            where or "its source",
            getattr(tr.tables, "by_position_how", ""),
            position,
            getattr(tr.tables, "bind_how", "Bind it"),
            used,
        )
        if why:
            raise ColumnMismatch(why)
        note = getattr(tr.tables, "upload_note", lambda names: None)(table)
        if note:
            tr.warn(f"{what}: {note}")
    named: list[str | None] = [by_name.get(f.name.lower()) for f in base]
    if base and all(named):
        picked = named
    elif table is not None and used is not None and all(named[i] for i in used if i < len(base)):
        picked = named  # by name: a column the read never uses that the table lacks (None) is a null of its type
    elif len(columns) >= len(base):
        picked = columns[: len(base)]
        if len(columns) != len(base):
            tr.warn(
                f"{what}: the plan names columns the table lacks; its first {len(base)} columns are used by position"
            )
    else:
        raise ExecutionError(
            f"{what} has {len(columns)} columns ({', '.join(columns)}), but the plan's base schema needs "
            f"{len(base)} ({', '.join(f.name for f in base)})"
        )
    if table is not None:
        _say_zones(tr, base, picked, getattr(tr.tables, "zones", lambda names: {})(table), what, used)
    types = {f.name: f.dataType for f in df.schema.fields}
    wants = [spark_type_or_none(f.type) for f in base]
    casts: list[tuple[S.DataType, S.DataType] | None] = []  # (the table's type, the plan's)
    for src, want in zip(picked, wants):
        have = types.get(src) if src is not None else None
        ok = want is not None and have is not None and have != want and _safe_cast(have, want)
        casts.append((have, want) if ok else None)
    names = tr.names(len(picked))
    if picked == columns:
        # the table's columns as they are: renamed in one step (each DataFrame step costs Spark an
        # analysis, and each Column some Py4J round trips), then only the casts
        out = df.toDF(*names)
        cast = {n: _cast(col(n), c, src, what) for n, c, src in zip(names, casts, picked) if c is not None}
        return out.withColumns(cast) if cast else out
    cols: list[Column] = []
    for name, src, c, want in zip(names, picked, casts, wants):
        if src is None:
            cols.append(F.lit(None).cast(want if want is not None else S.StringType()).alias(name))
            continue
        ref = col(_quote(src))
        cols.append((ref if c is None else _cast(ref, c, src, what)).alias(name))
    return df.select(*cols)


_TIMESTAMP_KINDS = ("timestamp", "timestamp_tz", "precision_timestamp", "precision_timestamp_tz")


def _say_zones(
    tr: Translating,
    base: list[Field],
    picked: Sequence[str | None],
    zones: dict[str, str],
    what: str,
    used: frozenset[int] | None,
) -> None:
    """A note per timestamp column the read uses whose file stores it with a zone other than UTC: a
    plan's timestamp type keeps no zone, and Spark reads the instants so, where an engine that keeps
    the file's zone takes their dates and times of day in it."""
    for i, (f, src) in enumerate(zip(base, picked)):
        zone = zones.get(src.lower()) if src is not None else None
        kind = f.type.WhichOneof("kind") if f.type is not None else None
        if zone and kind in _TIMESTAMP_KINDS and (used is None or i in used):
            tr.warn(
                f"{what}: column {src}'s file stores its instants with zone {zone}; the plan's {render(f.type)} "
                f"keeps no zone, so the run takes their dates and times of day in UTC, where an engine that "
                f"keeps the file's zone (DataFusion's) takes them in {zone}"
            )


def _cast(ref: Column, types: tuple[S.DataType, S.DataType], src: str, what: str) -> Column:
    """``ref`` cast to the plan's type; where that may change a value (:func:`executor.data.columns.narrows`:
    2.7 read as an int would be 2), a value it would change stops the run and is named, instead of being
    changed without a word."""
    have, want = types
    cast = ref.cast(sql_type(want))
    h, w = have.simpleString(), want.simpleString()
    if not narrows(h, w):
        return cast
    # no null-safe equality (<=>): it reads as a join's domain key in Spark's plan; a cast that gave NULL is
    # a value it could not hold
    changed = ref.isNotNull() & (cast.isNull() | (cast.cast(sql_type(have)) != ref))
    message = F.concat(
        F.lit(f"{what}: column {src} holds "),
        ref.cast("string"),
        F.lit(f", which the plan's type {w} cannot hold as it is (the table's column is {h}). Bind a table whose "),
        F.lit(f"{src} has the plan's type, or values that fit it"),
    )
    return F.when(changed, F.raise_error(message)).otherwise(cast)


def _conformed(
    tr: Translating,
    raw: DataFrame,
    base: list[Field],
    what: str,
    table: Sequence[str],
    used: frozenset[int] | None = None,
) -> DataFrame:
    """:func:`_conform`, kept by the catalog per table, base schema and column prefix: a warm
    session translates a plan over the same tables again without the Py4J round trips of
    renaming and casting every column (about half of a TPC-H translation's)."""
    cached = getattr(tr.tables, "cached", None)
    if cached is None:
        return _conform(tr, raw, base, what, table, used)
    schema = tuple((f.name, f.type.SerializeToString(deterministic=True) if f.type is not None else None) for f in base)

    def make() -> tuple[DataFrame, list[str]]:
        before = len(tr.warnings)
        df = _conform(tr, raw, base, what, table, used)
        return df, tr.warnings[before:]

    key = ("conformed", id(raw), schema, tr.prefix, tr.offset, tuple(sorted(used)) if used is not None else None)
    df, warnings = cached(tr.spark, key, make)
    for w in warnings:
        tr.warn(w)
    return df


def _quote(name: str) -> str:
    """A quoted column name: dots, quotes and backticks are data."""
    return "`" + name.replace("`", "``") + "`"


def _named(f: Field) -> S.DataType:
    """A base schema field's Spark type, its records' members named as the schema names them."""
    return with_member_names(to_spark(f.type), iter(f.nested))


def _virtual_table(tr: Translating, node: NodeView, r: algebra_pb2.ReadRel, base: list[Field] | None) -> DataFrame:
    rows = list(r.virtual_table.expressions)
    width = len(base) if base is not None else (len(rows[0].fields) if rows else 0)
    names = tr.names(width)
    all_literals = all(e.WhichOneof("rex_type") == "literal" for row in rows for e in row.fields)
    types_known = base is not None and all(f.type is not None for f in base)
    # PySpark cannot make a year-month interval from a Python value: such a table is built as columns
    as_values = types_known and not any(holds_kind(f.type, "interval_year") for f in base)
    if as_values and (all_literals or not rows):
        schema = S.StructType([S.StructField(n, _named(f), True) for n, f in zip(names, base)])
        values = [tuple(literals.python_value(e.literal) for e in row.fields) for row in rows]
        for i, row in enumerate(values):
            for value, f in zip(row, base):
                numeric = f.type.WhichOneof("kind") in (*INT_RANGE, "decimal")
                if numeric and not fits(f.type, value):  # Spark would take it as a null
                    raise ExecutionError(
                        f"node {node.id}: the virtual table's row {i} holds {value}, which its column's "
                        f"{render(f.type)} cannot hold"
                    )
        try:
            return tr.spark.createDataFrame(values, schema)
        except (TypeError, ValueError):
            pass  # a value Spark will not take as the declared type: build the rows as columns
    if not rows:
        raise Unsupported("an empty virtual table without column types cannot be built")
    ex = ExprTranslator(tr, node.id, Record([], []), tr.outer)
    parts = []
    for row in rows:
        cols = [ex.expr(e) for e in row.fields]
        if base is not None and types_known:
            # a value its column's type cannot hold (100 in a decimal(38,37)) stops, as DataFusion's engine does:
            # Spark's cast would make it a null that looks like one
            cols = [
                stops_where_lost(c, c.cast(sql_type(_named(f))), render(f.type), "the virtual table's column type")
                for c, f in zip(cols, base)
            ]
        parts.append(tr.spark.range(1).select(*[c.alias(n) for c, n in zip(cols, names)]))
    return functools.reduce(DataFrame.unionAll, parts)


def read(tr: Translating, node: NodeView) -> DataFrame:
    r: algebra_pb2.ReadRel = node.node.body
    which = r.WhichOneof("read_type")
    base = named_struct_fields(r.base_schema) if r.HasField("base_schema") else None
    if which == "named_table":
        what = f"table `{'.'.join(r.named_table.names)}`"
        raw = tr.tables.named_table(tr.spark, list(r.named_table.names))
        if base is None:
            base = [Field(c, None) for c in raw.columns]
        df = _conformed(tr, raw, base, what, list(r.named_table.names), read_fields(node))
    elif which == "local_files":
        raw = tr.tables.local_files(tr.spark, r.local_files)
        if base is None:
            base = [Field(c, None) for c in raw.columns]
        df = _conform(tr, raw, base, "the local files")
    elif which == "virtual_table":
        df = _virtual_table(tr, node, r, base)
        if base is None:
            base = [Field(f"col{i}", None) for i in range(len(df.columns))]
    else:
        raise Unsupported(
            f"reading `{which or 'nothing'}` is not supported (named tables, local files, virtual tables)"
        )
    names = tr.names(len(base))
    ex = tr.expressions(node, names, base, df)
    for filt in ("best_effort_filter", "filter"):
        if r.HasField(filt):
            df = df.where(ex.condition(getattr(r, filt)))
    # a mask that lists no field selects none: the rows only (DataFusion writes one for SELECT 42 FROM t)
    if r.HasField("projection") and (r.projection.select.struct_items or r.projection.HasField("select")):
        items = list(r.projection.select.struct_items)
        for it in items:
            if not 0 <= it.field < len(base):
                raise ExecutionError(
                    f"projection field {it.field} is out of range: the base schema has {len(base)} fields"
                )
        df = df.select(
            *[
                (
                    _struct_select(col(tr.name(it.field)), it.child.struct, df)
                    if it.child.HasField("struct")
                    else col(tr.name(it.field))
                ).alias(tr.name(i))
                for i, it in enumerate(items)
            ]
        )
    return df


def _struct_select(column: Column, select, df: DataFrame) -> Column:
    """A struct column keeping the members a mask's struct select lists, each narrowed by its own child
    (a null struct stays null)."""
    members = []
    for k, it in enumerate(select.struct_items):
        member = struct_member(column, it.field, df)
        if it.child.HasField("struct"):
            member = _struct_select(member, it.child.struct, df)
        members.append(member.alias(f"f{k}"))
    return F.when(column.isNull(), F.lit(None)).otherwise(F.struct(*members))
