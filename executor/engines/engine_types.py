"""The types each engine gives a node's columns, beside the plan's and the spec's: nothing is run.

For each node and each column of its output (the model's schema) four types, all spelled as
:func:`viz.types.render` spells Substrait types (``decimal<15,2>?``, ``?`` for nullable), so they
compare as strings:

- ``declared``: the model's schema type, the plan's word (a call's declared ``output_type`` kept);
- ``spec``: the type the spec's extension YAMLs derive, a second reading of the plan in which a call
  takes the YAML's derivation over its declared output type (:func:`viz.schema.derive_schemas` with
  ``spec_types``), so a difference in one call carries on to the nodes above it as it would;
- ``spark``: the schema of the node's DataFrame through our translation (Spark's analysis, no job);
- ``datafusion``: the schema of the DataFrame DataFusion's Substrait consumer makes of the node's
  sub-plan (:meth:`executor.engines.datafusion.DataFusionRunner.schema`, planned, nothing read).

An engine that cannot take a node gives None for its columns and the reason on the node. Tables
the catalog does not bind (or no catalog at all) are read, by both engines, as empty tables with the
read's base schema: types need no rows.

Spark's DataFrames come from one translation per root (every node's DataFrame seen as the walk
makes it, :func:`executor.translate.rel.translate`'s ``observe``); a node the walk did not reach (a
subquery, or below a node that failed) is translated on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from viz.schema import derive_schemas
from viz.types import render

from ..errors import reraise_interrupts
from .arrow_spelling import arrow_type_text

ENGINES = ("spark", "datafusion")
#: How the engines are named to a person.
ENGINE_NAMES = {"spark": "Spark", "datafusion": "DataFusion"}

#: Notes said on a node when its types show what they explain.
STRING_LENGTH_NOTE = "Arrow and Spark strings carry no length: varchar<N> and fixedchar<N> are string there"
SPARK_NULLABILITY_NOTE = (
    "Spark's nullability is its own analysis of the translation (looser or tighter than the plan's in places); "
    "the engine reads the values the same way"
)
SPARK_MICROSECONDS_NOTE = "Spark's timestamps keep microseconds: every precision_timestamp is <6> there"
SPARK_UNSIGNED_NOTE = (
    "Spark has no unsigned integers: it holds a u8 in an i16, a u16 in an i32 and a u32 or u64 in an i64, "
    "as it reads Parquet's"
)
EMPTY_TABLE_NOTE = "table `{table}` is not bound: its types are the read's base schema (an empty table)"


@dataclass(frozen=True)
class ColumnTypes:
    """One output column's type as the plan, the spec and each engine have it (None: not given)."""

    name: str
    declared: str | None
    spec: str | None
    spark: str | None
    datafusion: str | None

    def differs(self) -> tuple[str, ...]:
        """Which of ``spec``, ``spark``, ``datafusion`` give a type other than ``declared`` (a missing
        type on either side is no difference: the reason is on the node)."""
        if self.declared is None:
            return ()
        return tuple(
            source
            for source in ("spec", "spark", "datafusion")
            if getattr(self, source) is not None and getattr(self, source) != self.declared
        )


@dataclass(frozen=True)
class NodeTypes:
    node_id: str
    columns: tuple[ColumnTypes, ...]
    spark_error: str | None = None  # why Spark gives no types here
    datafusion_error: str | None = None  # why DataFusion gives none
    notes: tuple[str, ...] = ()

    def differs(self) -> bool:
        return any(c.differs() for c in self.columns)

    def reasons(self, said: Mapping[str, str] | None = None) -> list[str]:
        """Why an engine gives no types here, and what to know about the types it gives, in words.
        ``said``: why an engine cannot run the node, by engine ("spark", "datafusion"), as the page said
        it already; an error that is the same is then a pointer to it, not said again."""
        out = []
        for engine, error in (("spark", self.spark_error), ("datafusion", self.datafusion_error)):
            if not error:
                continue
            name = ENGINE_NAMES[engine]
            same = (said or {}).get(engine) == error
            out.append(f"{name} gives no types: it cannot run this node (above)" if same else f"{name}: {error}")
        return out + list(self.notes)


@dataclass(frozen=True)
class TypeDifference:
    """A column whose type is not the plan's in the spec or an engine (a row of the plan-wide list)."""

    node_id: str
    index: int
    column: ColumnTypes
    sources: tuple[str, ...]  # which of spec / spark / datafusion differ from declared


def type_differences(types: dict[str, NodeTypes]) -> list[TypeDifference]:
    """Every column of every node whose spec or engine type differs from the declared one, in node order."""
    return [
        TypeDifference(node_id, i, c, c.differs())
        for node_id, nt in types.items()
        for i, c in enumerate(nt.columns)
        if c.differs()
    ]


#: Types an engine has no exact match for, as it stores them (nested ones too): a string's length, a fixed
#: binary's size, a time's or an interval's sub-second precision, a uuid.
_STORED = (
    (re.compile(r"\b(?:varchar|fixedchar)<\d+>"), "string"),
    (re.compile(r"\bfixedbinary<\d+>"), "binary"),
    (re.compile(r"\b(precision_timestamp_tz|precision_timestamp|precision_time|interval_day)<\d+>"), r"\1"),
    (re.compile(r"\buuid\b"), "string"),
)


def _stored(text: str) -> str:
    for pattern, repl in _STORED:
        text = pattern.sub(repl, text)
    return text


def difference_kind(declared: str, theirs: str) -> str:
    """How ``theirs`` differs from ``declared``: in ``"nullability"`` alone (a nested type's fields and
    elements too), in how an engine ``"stores"`` the type alone (a string's length, a precision: see
    :data:`_STORED`), or the ``"type"`` itself (kind, decimal precision and scale, time zone...)."""
    a, b = declared.replace("?", ""), theirs.replace("?", "")
    if a == b:
        return "nullability"
    if _stored(a) == _stored(b):
        return "stores"
    return "type"


@dataclass(frozen=True)
class TypeChange:
    """A type an engine (or the spec) gives otherwise than the plan declares, beyond nullability and a
    how an engine stores it: what a person is shown on the graph, where it starts."""

    node_id: str
    index: int  # the column's field index in the node's output
    column: str
    source: str  # spec / spark / datafusion
    declared: str
    theirs: str

    def text(self) -> str:
        return f"{self.column}: {_SOURCE_WORDS[self.source]} {self.theirs} for the declared {self.declared}"


def grouped(changes: Iterable[TypeChange]) -> list[str]:
    """The changes of one node in short, one line per column and type, the sources that agree together:
    ``[1] Spark and DataFusion: decimal<17,2>? (declared decimal<38,2>?)``."""
    groups: dict[tuple[int, str, str], list[str]] = {}
    for c in changes:
        groups.setdefault((c.index, c.theirs, c.declared), []).append(_SOURCE_WORDS[c.source])
    return [
        f"[{index}] {' and '.join(sources)}: {theirs} (declared {declared})"
        for (index, theirs, declared), sources in groups.items()
    ]


_SOURCE_WORDS = {"spec": "the spec", **ENGINE_NAMES}


def type_changes(
    types: dict[str, NodeTypes], passes: Callable[[str, int], tuple[str, int] | None]
) -> dict[str, list[TypeChange]]:
    """Per node, the type differences (kind ``"type"``) that start there: a column the node passes on
    unchanged from an input column (``passes(node, index)`` gives that column, from the lineage) carries
    the input's difference and is not said again; a column it computes, or one whose type changes on
    the way, is."""

    def pair(c: ColumnTypes, source: str) -> tuple[str, str] | None:
        theirs = getattr(c, source)
        if c.declared is None or theirs is None or difference_kind(c.declared, theirs) != "type":
            return None
        return (c.declared.rstrip("?"), theirs.rstrip("?"))

    out: dict[str, list[TypeChange]] = {}
    for nid, nt in types.items():
        changes = []
        for i, c in enumerate(nt.columns):
            for source in c.differs():
                mine = pair(c, source)
                if mine is None:
                    continue
                below = passes(nid, i)
                carried = below is not None and below[0] in types and below[1] < len(types[below[0]].columns)
                if carried and pair(types[below[0]].columns[below[1]], source) == mine:
                    continue
                changes.append(TypeChange(nid, i, c.name, source, c.declared, getattr(c, source)))
        if changes:
            out[nid] = changes
    return out


# ---- spellings ------------------------------------------------------------------------------


def spark_type_text(t, nullable: bool = False) -> str:
    """A Spark type in Substrait's spelling (the inverse of :func:`executor.translate.types.to_spark`:
    Spark's string is ``string`` whatever the plan's varchar length, its timestamps microseconds)."""
    from pyspark.sql import types as S

    mark = "?" if nullable else ""
    simple = {
        S.BooleanType: "boolean",
        S.ByteType: "i8",
        S.ShortType: "i16",
        S.IntegerType: "i32",
        S.LongType: "i64",
        S.FloatType: "fp32",
        S.DoubleType: "fp64",
        S.StringType: "string",
        S.CharType: "string",
        S.VarcharType: "string",
        S.BinaryType: "binary",
        S.DateType: "date",
        S.TimestampNTZType: "precision_timestamp<6>",
        S.TimestampType: "precision_timestamp_tz<6>",
        S.YearMonthIntervalType: "interval_year",
        S.DayTimeIntervalType: "interval_day<6>",
        S.NullType: "u!null",
    }
    for cls, name in simple.items():
        if isinstance(t, cls):
            return name + mark
    if isinstance(t, S.DecimalType):
        return f"decimal<{t.precision},{t.scale}>{mark}"
    if isinstance(t, S.TimeType):
        return f"precision_time<{t.precision}>{mark}"
    if isinstance(t, S.ArrayType):
        return f"list<{spark_type_text(t.elementType, t.containsNull)}>{mark}"
    if isinstance(t, S.MapType):
        return f"map<{spark_type_text(t.keyType)}, {spark_type_text(t.valueType, t.valueContainsNull)}>{mark}"
    if isinstance(t, S.StructType):
        return f"struct<{', '.join(spark_type_text(f.dataType, f.nullable) for f in t.fields)}>{mark}"
    return f"spark:{t.simpleString()}{mark}"


# ---- the engines ----------------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 400 else text[:399] + "…"


class StandInTables:
    """The catalog's tables for the translation; a table it does not bind (or every table, with no
    catalog) as an empty DataFrame of the first read's base schema that names it."""

    def __init__(self, model, catalog) -> None:
        from viz.fields import named_struct_fields

        self.catalog = catalog
        self.bases: dict[tuple[str, ...], list] = {}
        self.empty: set[str] = set()  # the tables read as empty stand-ins, as the plan names them
        self._made: dict[tuple[str, ...], object] = {}
        for node_id in model.graph.nodes:
            node = model.graph.nodes[node_id]
            if node.kind != "read" or node.body.WhichOneof("read_type") != "named_table":
                continue
            key = tuple(n.lower() for n in node.body.named_table.names)
            if key not in self.bases and node.body.HasField("base_schema"):
                self.bases[key] = named_struct_fields(node.body.base_schema)

    def __getattr__(self, name: str):  # the catalog's options (by position, where, cached, ...)
        if name == "catalog" or self.catalog is None:
            raise AttributeError(name)
        return getattr(self.catalog, name)

    def named_table(self, spark, names: Sequence[str]):
        from ..errors import TableNotFound

        if self.catalog is not None:
            try:
                return self.catalog.named_table(spark, names)
            except TableNotFound:
                pass
        key = tuple(n.lower() for n in names)
        if key not in self._made:
            self._made[key] = self._empty(spark, names, self.bases.get(key))
        self.empty.add(".".join(names))
        return self._made[key]

    def _empty(self, spark, names: Sequence[str], base):
        from pyspark.sql import types as S

        from viz.types import is_nullable

        from ..errors import TableNotFound
        from ..translate.types import to_spark

        if base is None or any(f.type is None for f in base):
            raise TableNotFound(f"table `{'.'.join(names)}` is not bound and the plan gives no types for its columns")
        fields = [S.StructField(f.name, to_spark(f.type), is_nullable(f.type) is not False) for f in base]
        return spark.createDataFrame([], S.StructType(fields))

    def local_files(self, spark, local_files):
        from ..errors import Unsupported

        if self.catalog is None:
            raise Unsupported("a LocalFiles read needs data roots (no tables were given)")
        return self.catalog.local_files(spark, local_files)


def _spark_schemas(model, catalog, wanted: Sequence[str], session) -> tuple[dict, dict, set[str]]:
    """Per wanted node: Spark's schema of its translation (a StructType), or why there is none."""
    from ..translate.executable import executability
    from ..translate.rel import translate

    runnable = executability(model)
    tables = StandInTables(model, catalog)
    frames: dict[str, object] = {}
    errors: dict[str, str] = {}

    def observe(node_id: str, df):
        frames.setdefault(node_id, df)
        return df

    for node_id in wanted:
        if node_id in frames or node_id in errors:
            continue
        r = runnable.get(node_id)
        if r is not None and not r.ok:
            errors[node_id] = r.reason
            continue
        try:
            translate(model, node_id, session, tables, observe=observe)
        except Exception as exc:  # noqa: BLE001 - the translation's errors and Spark's analysis: the reason
            if node_id not in frames:
                errors[node_id] = _one_line(exc)
    schemas: dict[str, object] = {}
    for node_id in wanted:
        if node_id in frames:
            try:
                schemas[node_id] = frames[node_id].schema
            except Exception as exc:  # noqa: BLE001 - Spark's analysis (Spark Connect analyses here)
                errors[node_id] = _one_line(exc)
    return schemas, errors, tables.empty


def _datafusion_schemas(model, catalog, wanted: Sequence[str]) -> tuple[dict, dict]:
    from .datafusion import DataFusionRunner

    schemas: dict[str, object] = {}
    errors: dict[str, str] = {}
    try:
        runner = DataFusionRunner(model, catalog)
    except Exception as exc:  # noqa: BLE001 - DataFusion not installed, or its context refused
        return {}, {n: f"DataFusion is not available: {_one_line(exc)}" for n in wanted}
    for node_id in wanted:
        try:
            schemas[node_id] = runner.schema(node_id)
        except Exception as exc:  # noqa: BLE001 - DataFusionCannot, ExecutionError, or anything the consumer raised
            errors[node_id] = _one_line(exc)
        except BaseException as exc:  # pyo3's PanicException is a BaseException
            reraise_interrupts(exc)
            errors[node_id] = f"DataFusion panicked: {_one_line(exc)}"
    return schemas, errors


def _top_down(model, nodes: Iterable[str] | None) -> list[str]:
    """The nodes asked for, consumers before their inputs (so one translation of a root serves its subtree)."""
    order = list(reversed(list(model.graph.post_order())))
    if nodes is None:
        return order
    asked = set(nodes)
    return [n for n in order if n in asked]


def engine_types(
    model, catalog=None, *, engines: Sequence[str] = ENGINES, nodes: Iterable[str] | None = None, session=None
) -> dict[str, NodeTypes]:
    """Per node (all, or ``nodes``), in the plan's order: its columns' declared, spec, Spark and
    DataFusion types (see the module). ``engines`` says which engines to ask; ``session``: the Spark
    session (the executor's shared one when not given). Raises nothing: an engine that cannot take a
    node says why on it."""
    wanted = _top_down(model, nodes)
    spec_infos = derive_schemas(model.graph, model.extensions, model.conventions, spec_types=True)
    spark_schemas: dict = {}
    spark_errors: dict[str, str] = {}
    empty: set[str] = set()
    if "spark" in engines:
        try:
            if session is None:
                from ..spark.session import get_session

                session = get_session()
            spark_schemas, spark_errors, empty = _spark_schemas(model, catalog, wanted, session)
        except Exception as exc:  # noqa: BLE001 - no Java, no session: every node says so
            spark_errors = {n: f"Spark is not available: {_one_line(exc)}" for n in wanted}
    df_schemas: dict = {}
    df_errors: dict[str, str] = {}
    if "datafusion" in engines:
        df_schemas, df_errors = _datafusion_schemas(model, catalog, wanted)
    out: dict[str, NodeTypes] = {}
    for node_id in model.graph.nodes:  # the plan's order
        if node_id not in wanted:
            continue
        out[node_id] = _node_types(
            model,
            node_id,
            spec_infos.get(node_id),
            spark_schemas.get(node_id),
            spark_errors.get(node_id) if "spark" in engines else None,
            df_schemas.get(node_id),
            df_errors.get(node_id) if "datafusion" in engines else None,
            empty,
        )
    return out


_UNSIGNED = frozenset({"u8", "u16", "u32", "u64"})


def _node_types(model, node_id, spec_info, spark_schema, spark_error, df_schema, df_error, empty) -> NodeTypes:
    user_types, variations = model.extensions.types, model.type_variations
    fields = list(model.node(node_id).schema or ())
    spec_fields = list(spec_info.schema or ()) if spec_info is not None else []
    notes: list[str] = []
    spark_cols: list[str | None] = [None] * len(fields)
    df_cols: list[str | None] = [None] * len(fields)
    if spark_schema is not None:
        given = [spark_type_text(f.dataType, f.nullable) for f in spark_schema.fields]
        if len(given) != len(fields):
            spark_error = f"Spark's translation has {len(given)} columns where the plan has {len(fields)}"
        else:
            spark_cols = list(given)
    if df_schema is not None:
        given = [arrow_type_text(f.type, f.nullable) for f in df_schema]
        if len(given) != len(fields):
            df_error = f"DataFusion's plan has {len(given)} columns where the plan has {len(fields)}"
        else:
            df_cols = list(given)
    columns = []
    for i, f in enumerate(fields):
        declared = render(f.type, user_types=user_types, variations=variations) if f.type is not None else None
        spec_t = spec_fields[i].type if i < len(spec_fields) else None
        spec = render(spec_t, user_types=user_types, variations=variations) if spec_t is not None else None
        columns.append(ColumnTypes(f.name, declared, spec, spark_cols[i], df_cols[i]))
    for c in columns:
        if c.declared is None:
            continue
        base = c.declared.rstrip("?")
        if base.startswith(("varchar<", "fixedchar<")) and (c.spark or c.datafusion):
            notes.append(STRING_LENGTH_NOTE)
        if c.spark is not None and c.spark != c.declared and c.spark.rstrip("?") == base:
            notes.append(SPARK_NULLABILITY_NOTE)
        if base.startswith("precision_timestamp") and c.spark is not None and c.spark.rstrip("?") != base:
            notes.append(SPARK_MICROSECONDS_NOTE)
        if base in _UNSIGNED and c.spark is not None:
            notes.append(SPARK_UNSIGNED_NOTE)
    node = model.graph.nodes[node_id]
    if node.kind == "read" and node.body.WhichOneof("read_type") == "named_table":
        table = ".".join(node.body.named_table.names)
        if table in empty:
            notes.append(EMPTY_TABLE_NOTE.format(table=table))
    return NodeTypes(
        node_id,
        tuple(columns),
        spark_error=spark_error if spark_schema is None or spark_error else None,
        datafusion_error=df_error if df_schema is None or df_error else None,
        notes=tuple(dict.fromkeys(notes)),
    )


__all__ = [
    "ENGINES",
    "ENGINE_NAMES",
    "StandInTables",
    "ColumnTypes",
    "NodeTypes",
    "TypeChange",
    "TypeDifference",
    "arrow_type_text",
    "difference_kind",
    "grouped",
    "engine_types",
    "spark_type_text",
    "type_changes",
    "type_differences",
]
