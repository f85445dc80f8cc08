"""Substrait relations as PySpark DataFrames.

``translate(model, node_id, spark, tables)`` turns a node's subtree into one DataFrame, using only
the DataFrame API (so it runs on Spark Connect too). Every column of every intermediate DataFrame
is named by its position (``_0``, ``_1``, ...; ``_s1_0``... inside a subquery, so a correlated
reference to the enclosing query never meets a column of the same name), which makes index-based
field references, joins of inputs with equal column names and emits unambiguous.

One dispatch table on the relation kind; each entry returns the node's direct output, the emit is
applied afterwards, and results are memoised per node (a ReferenceRel's shared subtree is
translated once per ``translate`` call). A project or global aggregate returns its columns
unselected (:class:`Parts`), so that the aggregate or project over it takes them into its own
step: each DataFrame step costs Spark an analysis of the plan so far. The plan is read the way the model read it: its
``conventions`` say whether a ProjectRel keeps its input and whether a multi-set aggregate has the
grouping-set column.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import algebra_pb2

from viz import types as T
from viz.deep import run_deep
from viz.errors import PlanError
from viz.expressions import contains_rex
from viz.fields import Field, named_struct_fields
from viz.kinds import KINDS, emit
from viz.model import NodeView, PlanModel
from viz.schema import aggregate_layout, join_type_name

from ..data.columns import check_columns, families_fit, plan_columns, spark_columns, spark_family
from ..errors import ColumnMismatch, ExecutionError, Refused, Unsupported
from ..spark.jvm import col, sql_type
from . import literals
from .expr import ExprTranslator, Record, struct_member
from .functions import resolve as resolve_function
from .functions import supported
from .types import plan_user_types, spark_type_or_none, to_spark


@dataclass
class Translation:
    df: DataFrame  # one column per output field of the node (after emit), named "_0", "_1", ...
    names: list[str]  # the derived schema's names, for labelling
    warnings: list[str] = field(default_factory=list)  # e.g. function options not honoured


Observe = Callable[[str, DataFrame], DataFrame]


@dataclass
class Parts:
    """A node's output as columns over another DataFrame, not selected yet: a project, or a global
    aggregate and the projects over it. A consumer that can take the columns into its own step does
    (each DataFrame step costs Spark an analysis of the whole plan so far); any other gets the select.

    ``origins``: per output, which of the node's expressions it is (outputs with the same origin are
    one expression), or None for an input column or a literal, which may be repeated freely.
    ``star``: how many leading outputs are the input's own columns in order (selected as ``*``).
    """

    df: DataFrame
    columns: list[Column]
    origins: list[int | None]
    over_aggregate: bool = False
    star: int = 0


def translate(model: PlanModel, node_id: str, spark, tables, observe: Observe | None = None) -> Translation:
    """Translate node ``node_id``'s subtree. Raises ``ExecutionError`` (``Unsupported``, ``Refused``,
    ``TableNotFound``) with a message when it cannot.

    ``observe(node_id, df)``, when given, sees each node's output of the query itself (not of a
    subquery) once, and returns the DataFrame its consumers read (``executor.jobs.profile`` attaches a
    row-count observation there)."""
    if node_id not in model.graph.nodes:
        raise ExecutionError(f"node {node_id} is not in the plan (nodes: {', '.join(list(model.graph.nodes)[:20])})")
    tr = _Translator(model, spark, tables, observe=observe)

    def work() -> DataFrame:
        with plan_user_types(model.extensions.types):  # in run_deep's thread, which translates
            return tr.rel(node_id)

    try:
        df = run_deep(work)
    except PySparkException as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ExecutionError(f"Spark rejected the translation of node {node_id}: {first[:500]}", node=node_id) from e
    schema = model.node(node_id).schema
    names = [f.name for f in schema] if schema is not None else [c for c in df.columns]
    return Translation(df, names, list(dict.fromkeys(tr.warnings)))


class _Translator:
    """The translation of one plan at one subquery depth (depth 0 is the query itself)."""

    def __init__(
        self,
        model: PlanModel,
        spark,
        tables,
        depth: int = 0,
        outer: tuple[Record, ...] = (),
        memo: dict | None = None,
        warnings: list[str] | None = None,
        prefix: str | None = None,
        parts: dict | None = None,
        observe: Observe | None = None,
    ) -> None:
        self.model = model
        self.observe = observe if depth == 0 else None
        self.spark = spark
        self.tables = tables
        self.depth = depth
        self.outer = outer
        # Spark resolves a name anywhere below a subquery before it looks outside, so the columns of
        # everything inside a subquery get names the enclosing query never uses.
        self.prefix = prefix or ("_" if depth == 0 else f"_s{depth}_")
        # Column names start at ``prefix{offset}``: not 0 only for a read on a join's right side
        # (:meth:`input_at`), which names its columns where the join puts them.
        self.offset = 0
        self.memo: dict[tuple[str, str, int], DataFrame] = {} if memo is None else memo
        self.warnings: list[str] = [] if warnings is None else warnings
        # Projects and global aggregates not selected yet (:class:`Parts`), by the memo's key. A
        # project over a global aggregate goes into the aggregate's own select: Catalyst decorrelates
        # a correlated scalar subquery into a grouped aggregate and a join only when no Project sits
        # above its Aggregate (it adds a domain join otherwise).
        self.parts: dict[tuple[str, str, int], Parts] = {} if parts is None else parts

    # -- naming ---------------------------------------------------------------------------------
    def name(self, i: int) -> str:
        return f"{self.prefix}{self.offset + i}"

    def names(self, n: int, start: int = 0) -> list[str]:
        return [self.name(start + i) for i in range(n)]

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def width(self, node_id: str, df: DataFrame | None = None) -> int:
        """How many output fields a node has (from the model; from Spark when the model does not know)."""
        schema = self.model.node(node_id).schema
        if schema is not None:
            return len(schema)
        if df is None:
            raise Unsupported(f"the output of node {node_id} is unknown (see its diagnostics)")
        return len(df.columns)

    def expressions(self, node: NodeView, names: Sequence[str], fields, df: DataFrame | None = None) -> ExprTranslator:
        return ExprTranslator(self, node.id, Record.of(names, fields, df), self.outer)

    # -- the walk ---------------------------------------------------------------------------------
    def rel(self, node_id: str) -> DataFrame:
        """The node's output after emit, columns named ``prefix0..`` (from ``prefix{offset}``)."""
        key = (node_id, self.prefix, self.offset)
        if key in self.memo:
            return self.memo[key]
        out = self.parts.get(key) or self._translate(node_id)
        df = self._select(out) if isinstance(out, Parts) else out
        if self.observe is not None:
            df = self.observe(node_id, df)
        self.memo[key] = df
        return df

    def parts_of(self, node_id: str) -> Parts | None:
        """The node's output as :class:`Parts` when it is a project or global aggregate whose select
        is not made yet; else None (and the node's DataFrame is made, for :meth:`rel`). Never when
        each node's output is observed as a DataFrame of its own."""
        key = (node_id, self.prefix, self.offset)
        if self.observe is not None or key in self.memo:
            return None
        if key in self.parts:
            return self.parts[key]
        out = self._translate(node_id)
        if isinstance(out, Parts):
            return out
        self.memo[key] = out
        return None

    def _translate(self, node_id: str) -> DataFrame | Parts:
        node = self.model.node(node_id)
        handler = RELATIONS.get(node.kind)
        if handler is None:
            raise Unsupported(f"relation `{node.kind}` (node {node_id}) is not supported", node=node_id)
        try:
            out = handler(self, node)
        except PlanError as exc:
            if exc.node is None:  # the innermost node it happened at
                exc.node = node_id
            raise
        if isinstance(out, Parts):
            self.parts[(node_id, self.prefix, self.offset)] = out
            return out
        return out if handler in _EMITS_ITSELF else self._emit(node, out)

    def _select(self, parts: Parts) -> DataFrame:
        rest = [c.alias(self.name(parts.star + i)) for i, c in enumerate(parts.columns[parts.star :])]
        if parts.star:
            return parts.df.select(col("*"), *rest) if rest else parts.df
        return parts.df.select(*rest)

    def input(self, node: NodeView, k: int = 0) -> tuple[DataFrame, int]:
        if k >= len(node.inputs):
            raise ExecutionError(f"node {node.id} ({node.kind}) lacks input {k}")
        child = node.inputs[k]
        df = self.rel(child)
        return df, self.width(child, df)

    def input_at(self, node: NodeView, k: int, start: int) -> tuple[DataFrame, int]:
        """Input ``k`` with its columns named from ``name(start)`` on (a join's right side).

        A read names its columns so as it reads them (its conform step renames them anyway); any
        other relation is renamed in one more DataFrame step, and each step costs Spark an analysis.
        A profile observes each node once, under its own names, so it always takes the second way.
        """
        child = node.inputs[k] if k < len(node.inputs) else None  # none: input() says so
        if start and self.observe is None and child is not None and self.model.node(child).kind == "read":
            shifted = copy.copy(self)  # the same memo, warnings and parts: only the names move
            shifted.offset = self.offset + start
            df = shifted.rel(child)
            return df, self.width(child, df)
        parts = self.parts_of(child) if start and child is not None else None
        if parts is not None:  # a project or global aggregate selects under the names it gets here
            names = self.names(len(parts.columns), start)
            return parts.df.select(*[c.alias(name) for c, name in zip(parts.columns, names)]), len(parts.columns)
        df, m = self.input(node, k)
        return df.toDF(*self.names(m, start)), m

    def subquery(
        self, sub_id: str, outer: tuple[Record, ...], prefix: str | None = None
    ) -> tuple[DataFrame, list[str]]:
        """A relation run as a subquery of this one: its DataFrame and its column names."""
        inner = _Translator(
            self.model, self.spark, self.tables, self.depth + 1, outer, self.memo, self.warnings, prefix, self.parts
        )
        df = inner.rel(sub_id)
        return df, inner.names(inner.width(sub_id, df))

    def emit_mapping(self, node: NodeView) -> list[int] | None:
        """The node's emit (output field -> direct output field), checked; None for a direct emit."""
        mapping = emit(node.node.body)
        if mapping is None:
            return None
        direct = node.info.direct
        width = len(direct) if direct is not None else None
        for m in mapping:
            if width is not None and not 0 <= m < width:
                raise ExecutionError(
                    f"node {node.id}: emit maps output field {m}, but the relation produces {width} fields"
                )
        return mapping

    def _emit(self, node: NodeView, df: DataFrame) -> DataFrame:
        mapping = self.emit_mapping(node)
        if mapping is None:
            return df
        return _pick(df, [(self.name(m), self.name(i)) for i, m in enumerate(mapping)])


# ---------------------------------------------------------------------------------------------
# Reads
# ---------------------------------------------------------------------------------------------


def _family(t: S.DataType) -> str | None:
    return spark_family(t)


def _safe_cast(have: S.DataType, want: S.DataType) -> bool:
    """Whether a file column of type ``have`` may be cast to the plan's ``want`` without surprises."""
    a, b = _family(have), _family(want)
    return a is not None and b is not None and families_fit(a, b)


def _mismatch(
    df: DataFrame, base: list[Field], what: str, table: Sequence[str], where: str, how: str = "", position: bool = False
) -> str | None:
    """Why a named table's columns are not the plan's, or None (:func:`executor.data.columns.check_columns`:
    every name of the base schema a column, case-insensitive, of a type of the same family; read by
    ``position``, the first columns in order, as many and of those families). ``how``: where the person
    chooses to read a table by position, with ``{name}`` for the table
    (:attr:`executor.data.catalog.Catalog.by_position_how`)."""
    check = check_columns(spark_columns(df.schema), plan_columns(base))
    if check.ok or (position and check.by_position):
        return None
    plan_cols = ", ".join(f.name for f in base)
    file_cols = ", ".join(c.shown() for c in check.table)
    if position:
        return (
            f"{what} ({where}) {check.problem()}, and it cannot be read by position either: "
            f"{check.why_not_by_position()}. The plan reads {plan_cols}; the table has {file_cols}. Bind a "
            "table with the plan's columns"
        )
    where_to_choose = how.format(name=table[-1] if table else "?")
    return (
        f"{what} ({where}) {check.problem()}. The plan reads {plan_cols}; the table has {file_cols}. Bind a "
        f"table with the plan's columns, or choose to read this one by position{where_to_choose}"
    )


def _conform(
    tr: _Translator, df: DataFrame, base: list[Field], what: str, table: Sequence[str] | None = None
) -> DataFrame:
    """Select the table's columns for the base schema and cast them to its types where that is safe.

    A named table (``table``: its names) must have the plan's columns, by name (case-insensitive)
    and type family; otherwise it is refused (:class:`ColumnMismatch`) unless the catalog reads it by
    position, the person's explicit choice, and its first columns have the plan's type families in
    order. Local files are read by position when their names are
    not the plan's (a headerless CSV's columns have none)."""
    columns = df.columns
    by_name = {c.lower(): c for c in columns}
    position = table is None or getattr(tr.tables, "reads_by_position", lambda names: False)(table)
    if table is not None:
        where = getattr(tr.tables, "where", lambda names: "")(table)
        why = _mismatch(
            df, base, what, table, where or "its source", getattr(tr.tables, "by_position_how", ""), position
        )
        if why:
            raise ColumnMismatch(why)
    if base and all(f.name.lower() in by_name for f in base):
        picked = [by_name[f.name.lower()] for f in base]
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
    types = {f.name: f.dataType for f in df.schema.fields}
    casts: list[S.DataType | None] = []
    for src, f in zip(picked, base):
        want, have = spark_type_or_none(f.type), types.get(src)
        if want is None or have is None or have == want or not _safe_cast(have, want):
            want = None
        casts.append(want)
    names = tr.names(len(picked))
    if picked == columns:
        # the table's columns as they are: renamed in one step (each DataFrame step costs Spark an
        # analysis, and each Column some Py4J round trips), then only the casts
        out = df.toDF(*names)
        cast = {n: col(n).cast(sql_type(t)) for n, t in zip(names, casts) if t is not None}
        return out.withColumns(cast) if cast else out
    cols: list[Column] = []
    for name, src, want in zip(names, picked, casts):
        ref = col(_quote(src))
        cols.append((ref if want is None else ref.cast(sql_type(want))).alias(name))
    return df.select(*cols)


def _conformed(tr: _Translator, raw: DataFrame, base: list[Field], what: str, table: Sequence[str]) -> DataFrame:
    """:func:`_conform`, kept by the catalog per table, base schema and column prefix: a warm
    session translates a plan over the same tables again without the Py4J round trips of
    renaming and casting every column (about half of a TPC-H translation's)."""
    cached = getattr(tr.tables, "cached", None)
    if cached is None:
        return _conform(tr, raw, base, what, table)
    schema = tuple((f.name, f.type.SerializeToString(deterministic=True) if f.type is not None else None) for f in base)

    def make() -> tuple[DataFrame, list[str]]:
        before = len(tr.warnings)
        df = _conform(tr, raw, base, what, table)
        return df, tr.warnings[before:]

    df, warnings = cached(tr.spark, ("conformed", id(raw), schema, tr.prefix, tr.offset), make)
    for w in warnings:
        tr.warn(w)
    return df


def _quote(name: str) -> str:
    """A quoted column name: dots, quotes and backticks are data."""
    return "`" + name.replace("`", "``") + "`"


def _pick(df: DataFrame, pairs: Sequence[tuple[str, str]]) -> DataFrame:
    """``df`` with the columns ``source AS target`` for each pair."""
    return df.select(*[col(a).alias(b) for a, b in pairs])


def _virtual_table(tr: _Translator, node: NodeView, r: algebra_pb2.ReadRel, base: list[Field] | None) -> DataFrame:
    rows = list(r.virtual_table.expressions)
    width = len(base) if base is not None else (len(rows[0].fields) if rows else 0)
    names = tr.names(width)
    all_literals = all(e.WhichOneof("rex_type") == "literal" for row in rows for e in row.fields)
    types_known = base is not None and all(f.type is not None for f in base)
    if types_known and (all_literals or not rows):
        schema = S.StructType([S.StructField(n, to_spark(f.type), True) for n, f in zip(names, base)])
        values = [tuple(literals.python_value(e.literal) for e in row.fields) for row in rows]
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
            cols = [c.cast(sql_type(to_spark(f.type))) for c, f in zip(cols, base)]
        parts.append(tr.spark.range(1).select(*[c.alias(n) for c, n in zip(cols, names)]))
    return functools.reduce(DataFrame.unionAll, parts)


def read(tr: _Translator, node: NodeView) -> DataFrame:
    r: algebra_pb2.ReadRel = node.node.body
    which = r.WhichOneof("read_type")
    base = named_struct_fields(r.base_schema) if r.HasField("base_schema") else None
    if which == "named_table":
        what = f"table `{'.'.join(r.named_table.names)}`"
        raw = tr.tables.named_table(tr.spark, list(r.named_table.names))
        if base is None:
            base = [Field(c, None) for c in raw.columns]
        df = _conformed(tr, raw, base, what, list(r.named_table.names))
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
    if r.HasField("projection") and r.projection.select.struct_items:
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


# ---------------------------------------------------------------------------------------------
# One-input relations
# ---------------------------------------------------------------------------------------------


def _incoming(tr: _Translator, node: NodeView) -> tuple[DataFrame, int, ExprTranslator]:
    df, n = tr.input(node)
    return df, n, tr.expressions(node, tr.names(n), node.info.incoming, df)


def filter_(tr: _Translator, node: NodeView) -> DataFrame:
    df, _, ex = _incoming(tr, node)
    return df.where(ex.condition(node.node.body.condition))


def project(tr: _Translator, node: NodeView) -> Parts:
    """The project and its emit as one select's columns (:class:`Parts`), over a global aggregate in
    the aggregate's own select."""
    body = node.node.body
    below = None
    if node.inputs and not any(contains_rex(e, _NOT_FOLDED) for e in body.expressions):
        below = tr.parts_of(node.inputs[0])
    if below is not None and below.over_aggregate:
        df, n = below.df, len(below.columns)
        ex = ExprTranslator(tr, node.id, Record(below.columns, node.info.incoming), tr.outer)
        inherited = below.origins
    else:
        below = None
        df, n, ex = _incoming(tr, node)
        inherited = [None] * n
    mapping = tr.emit_mapping(node)
    keeps = tr.model.conventions.project_keeps_input or mapping is not None
    if mapping is None:
        mapping = (
            [*range(n), *range(n, n + len(body.expressions))]
            if keeps
            else [n + i for i in range(len(body.expressions))]
        )
    # only the expressions the emit keeps are translated; each output names its source
    added: dict[int, Column] = {}
    cols: list[Column] = []
    origins: list[int | None] = []
    for m in mapping:
        if m < n:
            cols.append(ex.record.columns[m])
            origins.append(inherited[m])
            continue
        if m - n >= len(body.expressions):
            raise ExecutionError(
                f"node {node.id}: emit maps output field {m}, but the project has {n + len(body.expressions)} fields"
            )
        if m - n not in added:
            added[m - n] = ex.expr(body.expressions[m - n])
        cols.append(added[m - n])
        origins.append(None if below is None and _plain(body.expressions[m - n]) else m)
    star = n if below is None and mapping[:n] == list(range(n)) else 0
    return Parts(df, cols, origins, over_aggregate=below is not None, star=star)


def _plain(e: algebra_pb2.Expression) -> bool:
    """Whether an expression is a literal or a field of the incoming record (free to evaluate twice)."""
    which = e.WhichOneof("rex_type")
    if which == "literal":
        return True
    if which != "selection":
        return False
    ref = e.selection
    return (
        ref.WhichOneof("root_type") == "root_reference"
        and ref.WhichOneof("reference_type") == "direct_reference"
        and ref.direct_reference.WhichOneof("reference_type") == "struct_field"
        and not ref.direct_reference.struct_field.HasField("child")
    )


def sort(tr: _Translator, node: NodeView) -> DataFrame:
    df, _, ex = _incoming(tr, node)
    return df.orderBy(*[ex.sort_column(s) for s in node.node.body.sorts])


def _constant(ex: ExprTranslator, e: algebra_pb2.Expression, what: str) -> int | None:
    if e.WhichOneof("rex_type") != "literal":
        raise Unsupported(f"the {what} must be a constant (a literal) to run on Spark")
    v = literals.python_value(e.literal)
    return None if v is None else int(v)


def _offset_limit(df: DataFrame, offset: int | None, count: int | None) -> DataFrame:
    if offset:
        df = df.offset(offset)
    if count is not None and count >= 0:
        df = df.limit(count)
    return df


def fetch(tr: _Translator, node: NodeView) -> DataFrame:
    body = node.node.body
    df, _, ex = _incoming(tr, node)
    offset = _constant(ex, body.offset_expr, "fetch offset") if body.HasField("offset_expr") else 0
    count = _constant(ex, body.count_expr, "fetch count") if body.HasField("count_expr") else None
    return _offset_limit(df, offset, count)


def top_n(tr: _Translator, node: NodeView) -> DataFrame:
    body = node.node.body
    df, n, ex = _incoming(tr, node)
    offset = _constant(ex, body.offset, "top-N offset") if body.HasField("offset") else 0
    count = _constant(ex, body.count, "top-N count") if body.HasField("count") else None
    order = [ex.sort_column(s) for s in body.sorts]
    if body.mode == algebra_pb2.FETCH_MODE_WITH_TIES and order and count:
        # WITH TIES: also the records tied with the last one returned, by the sort fields: those whose
        # rank is at most the rank of the record at position offset + count (all, when there are fewer)
        w = Window.orderBy(*order)
        marked = df.select(
            *[col(c) for c in tr.names(n)], F.row_number().over(w).alias("__pos"), F.rank().over(w).alias("__rank")
        )
        last = F.max(F.when(col("__pos") == (offset or 0) + count, col("__rank"))).over(Window.partitionBy())
        marked = marked.withColumn("__last", last)
        kept = marked.where(
            (col("__pos") > (offset or 0)) & (col("__last").isNull() | (col("__rank") <= col("__last")))
        )
        return kept.orderBy("__pos").select(*[col(c) for c in tr.names(n)])
    if order:
        df = df.orderBy(*order)
    return _offset_limit(df, offset, count)


def aggregate(tr: _Translator, node: NodeView) -> DataFrame | Parts:
    body: algebra_pb2.AggregateRel = node.node.body
    layout = aggregate_layout(body, tr.model.conventions)
    if layout.bad_references:
        raise ExecutionError(
            f"a grouping refers to grouping expression {layout.bad_references[0]}, but there are "
            f"{len(body.grouping_expressions)}"
        )
    sets = [sorted(m) for m in layout.sets] or [[]]
    grouping_bits = {i: _grouping_arguments(tr, node, body, m.measure, layout) for i, m in enumerate(body.measures)}
    grouping_bits = {i: bits for i, bits in grouping_bits.items() if bits is not None}
    one_step = (
        bool(body.measures)
        and not grouping_bits
        and (
            layout.no_keys
            or (len(sets) == 1 and sets[0] == list(range(len(layout.keys))) and not layout.grouping_column)
        )
    )
    below = tr.parts_of(node.inputs[0]) if one_step and node.inputs else None
    if below is not None and not below.over_aggregate and _takes(body, layout, below):
        # over a project: its expressions go into the aggregate itself, as in the SQL's own plan
        df = below.df
        ex = ExprTranslator(tr, node.id, Record(below.columns, node.info.incoming, df), tr.outer)
    else:
        df, _, ex = _incoming(tr, node)
    keys = [ex.expr(body.grouping_expressions[r]) for r in layout.keys]
    measures = [
        F.lit(0) if i in grouping_bits else ex.aggregate(m.measure, ex.expr(m.filter) if m.HasField("filter") else None)
        for i, m in enumerate(body.measures)
    ]
    direct = node.info.direct
    if grouping_bits and layout.no_keys:
        raise ExecutionError(f"node {node.id}: GROUPING() needs grouping keys, and this aggregate has none")
    if layout.no_keys and measures:
        # a global aggregate: one select (it also works under outer references), its emit folded in
        mapping = tr.emit_mapping(node)
        picked = list(range(len(measures))) if mapping is None else mapping
        return Parts(df, [measures[m] for m in picked], list(picked), over_aggregate=True)
    if (
        len(sets) == 1
        and sets[0] == list(range(len(keys)))
        and keys
        and measures
        and not layout.grouping_column
        and not grouping_bits
    ):
        # one grouping set of every key, in order (GROUP BY): the aggregate names its own columns,
        # with no select after it (each DataFrame step costs Spark an analysis)
        n = len(keys)
        out = df.groupBy(*[k.alias(tr.name(p)) for p, k in enumerate(keys)]).agg(
            *[m.alias(tr.name(n + i)) for i, m in enumerate(measures)]
        )
        return tr._emit(node, out)
    grouping = to_spark(layout.grouping_type()) if layout.grouping_column else None
    parts = []
    for index, members in enumerate(sets):
        grouped = [keys[p].alias(f"__k{p}") for p in members]
        named = [m.alias(f"__m{i}") for i, m in enumerate(measures) if i not in grouping_bits]
        if named and not grouped:
            part = df.select(*named)  # a global aggregate; select also works under outer references
        elif named:
            part = df.groupBy(*grouped).agg(*named)
        else:
            part = df.select(*grouped).distinct()
        cols = []
        for pos in range(len(keys)):
            if pos in members:
                cols.append(col(f"__k{pos}"))
            else:
                t = direct[pos].type if direct is not None and pos < len(direct) else None
                cols.append(F.lit(None).cast(sql_type(to_spark(t))) if t is not None else F.lit(None))
        grouping_value = F.lit(layout.grouping_value(index)).cast(sql_type(grouping)) if grouping is not None else None
        if layout.grouping_column == "datafusion":
            cols.append(grouping_value)
        for i in range(len(measures)):
            if i in grouping_bits:  # GROUPING(...): which of its keys this set leaves out, a constant per set
                bits = grouping_bits[i]
                value = sum(1 << (len(bits) - 1 - b) for b, p in enumerate(bits) if p not in members)
                cols.append(F.lit(value).cast("int"))
            else:
                cols.append(col(f"__m{i}"))
        if layout.grouping_column == "index":
            cols.append(grouping_value)
        parts.append(part.select(*[c.alias(tr.name(i)) for i, c in enumerate(cols)]))
    return tr._emit(node, functools.reduce(DataFrame.unionAll, parts))


def _takes(body: algebra_pb2.AggregateRel, layout, below: Parts) -> bool:
    """Whether an aggregate may read a project's expressions in place of its columns: each of them
    read at most once (so none is evaluated twice), and no subquery among the aggregate's own."""
    messages = [body.grouping_expressions[r] for r in layout.keys]
    for m in body.measures:
        messages.append(m.measure)
        if m.HasField("filter"):
            messages.append(m.filter)
    if any(contains_rex(m, _SUBQUERY) for m in messages):
        return False
    reads: dict[int, int] = {}
    for field_index, count in _root_fields(messages).items():
        if not 0 <= field_index < len(below.origins):
            return False  # out of range: the translation says so, over the project's own DataFrame
        origin = below.origins[field_index]
        if origin is not None:
            reads[origin] = reads.get(origin, 0) + count
    return all(n <= 1 for n in reads.values())


def _root_fields(messages) -> dict[int, int]:
    """How many times the incoming record's fields are referenced in ``messages`` (not looking inside
    subqueries' relations), by field index."""
    counts: dict[int, int] = {}
    stack = list(messages)
    while stack:
        msg = stack.pop()
        if isinstance(msg, algebra_pb2.Expression.FieldReference) and msg.WhichOneof("root_type") not in _NOT_ROOT:
            if msg.WhichOneof("reference_type") == "direct_reference" and msg.direct_reference.HasField("struct_field"):
                i = msg.direct_reference.struct_field.field
                counts[i] = counts.get(i, 0) + 1
        for fd, value in msg.ListFields():
            if fd.message_type is None or fd.message_type.full_name == "substrait.Rel":
                continue
            if fd.is_repeated:
                if not fd.message_type.GetOptions().map_entry:
                    stack.extend(value)
            else:
                stack.append(value)
    return counts


def _grouping_arguments(tr: _Translator, node: NodeView, body, f, layout) -> list[int] | None:
    """For a ``grouping(...)`` measure: the position among the aggregate's keys of each argument (each
    must be one of the grouping expressions); None for any other measure."""
    ref = tr.model.extensions.functions.get(f.function_reference)
    if ref is None or resolve_function(ref.name) != "grouping":
        return None
    out = []
    for a in f.arguments:
        matches = [p for p, r in enumerate(layout.keys) if body.grouping_expressions[r] == a.value]
        if not matches:
            raise ExecutionError(
                f"node {node.id}: an argument of GROUPING() is not one of the aggregate's grouping expressions"
            )
        out.append(matches[0])
    return out


def window(tr: _Translator, node: NodeView) -> DataFrame:
    body: algebra_pb2.ConsistentPartitionWindowRel = node.node.body
    df, n, ex = _incoming(tr, node)
    spec = Window.partitionBy(*[ex.expr(p) for p in body.partition_expressions])
    if body.sorts:
        spec = spec.orderBy(*[ex.sort_column(s) for s in body.sorts])
    elif any(not _aggregates(tr, f) for f in body.window_functions):
        # Spark ranks only over an ordered window; without sorts every row is a peer of every other
        # (an aggregate's frame is set by its bounds either way)
        spec = spec.orderBy(F.lit(0))
    added = [ex.over(f, spec) for f in body.window_functions]
    return df.select(*[col(c) for c in tr.names(n)], *[c.alias(tr.name(n + i)) for i, c in enumerate(added)])


def _aggregates(tr: _Translator, f) -> bool:
    """Whether a window relation's function is an aggregate (else a ranking or offset function)."""
    ref = tr.model.extensions.functions.get(f.function_reference)
    return ref is not None and supported(ref.compound_name, "aggregate") is None


def expand(tr: _Translator, node: NodeView) -> DataFrame:
    body: algebra_pb2.ExpandRel = node.node.body
    df, _, ex = _incoming(tr, node)
    copies = max([len(f.switching_field.duplicates) for f in body.fields if f.HasField("switching_field")] or [1])
    parts = []
    for d in range(copies):
        cols = []
        for f in body.fields:
            if f.HasField("switching_field"):
                dups = f.switching_field.duplicates
                if len(dups) != copies:
                    raise ExecutionError("the expand's switching fields have different numbers of duplicates")
                cols.append(ex.expr(dups[d]))
            else:
                cols.append(ex.expr(f.consistent_field))
        cols.append(F.lit(d).cast("int"))
        parts.append(df.select(*[c.alias(tr.name(i)) for i, c in enumerate(cols)]))
    return functools.reduce(DataFrame.unionAll, parts)


def exchange(tr: _Translator, node: NodeView) -> DataFrame:
    body: algebra_pb2.ExchangeRel = node.node.body
    df, n, ex = _incoming(tr, node)
    count = body.partition_count
    kind = body.WhichOneof("exchange_kind")
    if kind == "scatter_by_fields":
        cols = [ex.selection(f) for f in body.scatter_by_fields.fields]
        return df.repartition(count, *cols) if count else df.repartition(*cols)
    if kind in ("single_target", "multi_target"):
        tr.warn("an exchange by bucket expression runs as a plain repartition")
    if kind == "broadcast":
        return df
    return df.repartition(count) if count else df


def reference(tr: _Translator, node: NodeView) -> DataFrame:
    if not node.inputs:
        raise ExecutionError(f"the reference at node {node.id} points at no relation")
    return tr.rel(node.inputs[0])


# ---------------------------------------------------------------------------------------------
# Joins and set operations
# ---------------------------------------------------------------------------------------------


def _sides(tr: _Translator, node: NodeView) -> tuple[DataFrame, int, DataFrame, int]:
    left, n = tr.input(node, 0)
    right, m = tr.input_at(node, 1, n)
    return left, n, right, m


def cross(tr: _Translator, node: NodeView) -> DataFrame:
    left, _, right, _ = _sides(tr, node)
    return left.crossJoin(right)


def _renumber(tr: _Translator, df: DataFrame, start: int, count: int, extra: list[Column] = ()) -> DataFrame:
    cols = [col(tr.name(start + i)).alias(tr.name(i)) for i in range(count)]
    cols += [c.alias(tr.name(count + i)) for i, c in enumerate(extra)]
    return df.select(*cols)


#: A join's condition over the columns of its left fields followed by its right (None: no condition).
Condition = Callable[[list[Column]], "Column | None"]


def _mark(
    tr: _Translator,
    node: NodeView,
    keep: DataFrame,
    k_start: int,
    k_count: int,
    probe_index: int,
    n: int,
    m: int,
    condition: Condition,
) -> DataFrame:
    """``keep`` with a mark: true when a row of the other input matches, null when none matches but
    the condition was unknown for some row, false otherwise (SQL's IN semantics). The other input
    runs as a correlated EXISTS subquery, with the kept side as its outer query."""
    keep_is_left = probe_index == 1
    prefix = f"_m{tr.depth}_{node.id.replace('.', '_')}_"
    probe, probe_names = tr.subquery(node.inputs[probe_index], tr.outer, prefix)
    cols: list[Column] = []
    keep_names = tr.names(k_count, k_start)
    for i in range(n + m):
        on_left = i < n
        if on_left == keep_is_left:
            cols.append(col(keep_names[i if on_left else i - n]).outer())
        else:
            cols.append(col(probe_names[i if on_left else i - n]))
    c = condition(cols)
    if c is None:
        mark = F.when(probe.exists(), F.lit(True)).otherwise(F.lit(False))
        return _renumber(tr, keep, k_start, k_count, [mark])
    hit = probe.where(c).exists()
    unknown = probe.where(c.isNull()).exists()
    mark = F.when(hit, F.lit(True)).when(unknown, F.lit(None).cast("boolean")).otherwise(F.lit(False))
    return _renumber(tr, keep, k_start, k_count, [mark])


_SPARK_HOW = {
    "JOIN_TYPE_INNER": "inner",
    "JOIN_TYPE_OUTER": "full",
    "JOIN_TYPE_LEFT": "left",
    "JOIN_TYPE_RIGHT": "right",
    "JOIN_TYPE_LEFT_SEMI": "left_semi",
    "JOIN_TYPE_LEFT_ANTI": "left_anti",
    "JOIN_TYPE_LEFT_SINGLE": "left",
    "JOIN_TYPE_RIGHT_SINGLE": "right",
}


def _join(
    tr: _Translator,
    node: NodeView,
    type_name: str,
    cond: Column | None,
    post: Column | None,
    left: DataFrame,
    n: int,
    right: DataFrame,
    m: int,
    condition: Condition,
) -> DataFrame:
    """``cond`` over the two inputs' columns; ``condition`` makes it over other columns (a mark join's)."""
    if type_name in ("JOIN_TYPE_LEFT_SINGLE", "JOIN_TYPE_RIGHT_SINGLE"):
        tr.warn(f"node {node.id}: a single join runs as an outer join; more than one match is not reported as an error")
    if type_name == "JOIN_TYPE_UNSPECIFIED":
        raise ExecutionError(f"node {node.id}: the join type is unspecified")
    if post is not None and type_name in ("JOIN_TYPE_LEFT_MARK", "JOIN_TYPE_RIGHT_MARK"):
        # its output is one side and the mark: no joined record is left for the filter to apply to
        raise Unsupported(f"node {node.id}: a post-join filter on a mark join is not supported")
    if type_name == "JOIN_TYPE_LEFT_MARK":
        return _mark(tr, node, left, 0, n, 1, n, m, condition)
    if type_name == "JOIN_TYPE_RIGHT_MARK":
        return _mark(tr, node, right, n, m, 0, n, m, condition)
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI"):
        how = "left_semi" if type_name == "JOIN_TYPE_RIGHT_SEMI" else "left_anti"
        out = right.join(left, cond if cond is not None else F.lit(True), how)
        if post is not None:
            raise Unsupported("a post-join filter on a right semi/anti join is not supported")
        return _renumber(tr, out, n, m)
    how = _SPARK_HOW.get(type_name)
    if how is None:
        raise Unsupported(f"join type {type_name} is not supported")
    if cond is None and how == "inner":
        out = left.crossJoin(right)
    else:
        out = left.join(right, cond if cond is not None else F.lit(True), how)
    if post is not None:
        out = out.where(post)
    return out


def join(tr: _Translator, node: NodeView) -> DataFrame:
    """JoinRel and NestedLoopJoinRel: a condition over the left fields followed by the right."""
    body = node.node.body
    left, n, right, m = _sides(tr, node)
    ex = tr.expressions(node, tr.names(n + m), node.info.incoming)
    cond = ex.condition(body.expression) if body.HasField("expression") else None
    post = None
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        post = ex.expr(body.post_join_filter)

    def condition(cols: list[Column]) -> Column | None:
        if not body.HasField("expression"):
            return None
        return ExprTranslator(tr, node.id, Record(cols, node.info.incoming), tr.outer).expr(body.expression)

    return _join(tr, node, join_type_name(body), cond, post, left, n, right, m, condition)


def keys_join(tr: _Translator, node: NodeView) -> DataFrame:
    """HashJoinRel and MergeJoinRel: equality keys (left field = right field) and a residual filter."""
    body = node.node.body
    left, n, right, m = _sides(tr, node)
    cond, post = _keys_condition(tr, node, Record.of(tr.names(n + m), node.info.incoming), n)
    condition: Condition = lambda cols: _keys_condition(tr, node, Record(cols, node.info.incoming), n)[0]  # noqa: E731
    return _join(tr, node, join_type_name(body), cond, post, left, n, right, m, condition)


def _keys_condition(tr: _Translator, node: NodeView, both: Record, n: int) -> tuple[Column | None, Column | None]:
    """A hash or merge join's condition (its keys' equalities and its residual expression) and its
    post-join filter, over ``both``: the columns of the left input's ``n`` fields, then the right's."""
    body = node.node.body
    lx = ExprTranslator(tr, node.id, Record(both.columns[:n], tr.model.node(node.inputs[0]).schema), tr.outer)
    rx = ExprTranslator(tr, node.id, Record(both.columns[n:], tr.model.node(node.inputs[1]).schema), tr.outer)
    cond: Column | None = None
    for k in body.keys:
        a, b = lx.selection(k.left), rx.selection(k.right)
        simple = k.comparison.simple if k.comparison.WhichOneof("inner_type") == "simple" else 1
        if k.comparison.WhichOneof("inner_type") == "custom_function_reference":
            raise Unsupported("a join key with a custom comparison function is not supported")
        if simple == 2:  # IS_NOT_DISTINCT_FROM: nulls match nulls
            eq = a.eqNullSafe(b)
        elif simple == 3:  # MIGHT_EQUAL: "a = b OR isnull(a = b)" (algebra.proto)
            eq = (a == b) | (a == b).isNull()
        else:  # EQ ("equal and not null"); UNSPECIFIED read as EQ
            eq = a == b
        cond = eq if cond is None else cond & eq
    ex = ExprTranslator(tr, node.id, both, tr.outer)
    post = None
    for extra in ("residual_expression", "post_join_filter"):
        if extra in body.DESCRIPTOR.fields_by_name and body.HasField(extra):
            e = ex.expr(getattr(body, extra))
            if extra == "residual_expression":
                cond = e if cond is None else cond & e
            else:
                post = e
                break
    return cond, post


def _null_safe_anti(tr: _Translator, left: DataFrame, right: DataFrame, n: int) -> DataFrame:
    other = right.select(*[col(a).alias(f"__r{i}") for i, a in enumerate(tr.names(n))])
    cond = functools.reduce(
        lambda acc, i: acc & col(tr.name(i)).eqNullSafe(col(f"__r{i}")),
        range(1, n),
        col(tr.name(0)).eqNullSafe(col("__r0")),
    )
    return left.join(other, cond, "left_anti")


def _union_all(dfs: list[DataFrame]) -> DataFrame:
    return functools.reduce(DataFrame.unionAll, dfs)


_SET_OPS: dict[str, Callable[[_Translator, DataFrame, list[DataFrame], int], DataFrame]] = {
    # EXCEPT DISTINCT: distinct primary rows found in no secondary input
    "SET_OP_MINUS_PRIMARY": lambda tr, p, s, n: functools.reduce(DataFrame.subtract, s, p),
    # EXCEPT ALL: max(0, m - sum(n_i)) copies
    "SET_OP_MINUS_PRIMARY_ALL": lambda tr, p, s, n: p.exceptAll(_union_all(s)),
    # primary rows (all copies) except those present in every secondary input
    "SET_OP_MINUS_MULTISET": lambda tr, p, s, n: _null_safe_anti(tr, p, functools.reduce(DataFrame.intersect, s), n),
    # distinct primary rows present in any secondary input
    "SET_OP_INTERSECTION_PRIMARY": lambda tr, p, s, n: p.intersect(_union_all(s)),
    # INTERSECT DISTINCT: distinct primary rows present in every secondary input
    "SET_OP_INTERSECTION_MULTISET": lambda tr, p, s, n: functools.reduce(DataFrame.intersect, s, p),
    # INTERSECT ALL: min(m, n_1, ..., n_k) copies
    "SET_OP_INTERSECTION_MULTISET_ALL": lambda tr, p, s, n: functools.reduce(DataFrame.intersectAll, s, p),
    "SET_OP_UNION_DISTINCT": lambda tr, p, s, n: _union_all([p, *s]).distinct(),
    "SET_OP_UNION_ALL": lambda tr, p, s, n: _union_all([p, *s]),
}

_SET_OP_NAMES = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number


def set_(tr: _Translator, node: NodeView) -> DataFrame:
    body = node.node.body
    op = _SET_OP_NAMES[body.op].name if body.op in _SET_OP_NAMES else f"SET_OP_{body.op}"
    handler = _SET_OPS.get(op)
    if handler is None:
        raise Unsupported(f"set operation {op} is not supported")
    if len(node.inputs) < 2:
        raise ExecutionError(f"node {node.id}: a set operation needs at least two inputs, it has {len(node.inputs)}")
    inputs = [tr.input(node, k) for k in range(len(node.inputs))]
    n = inputs[0][1]
    for k, (_, w) in enumerate(inputs[1:], start=1):
        if w != n:
            raise ExecutionError(f"node {node.id}: set input {k} has {w} columns, the primary input has {n}")
    frames = [_conform_set_input(tr, node, k, df, w) for k, (df, w) in enumerate(inputs)]
    return handler(tr, frames[0], frames[1:], n)


def _conform_set_input(tr: _Translator, node: NodeView, k: int, df: DataFrame, width: int) -> DataFrame:
    """Input ``k`` cast to the set's column types where the model read a common type (set inputs whose
    decimals differ in precision are read as the decimal both fit in; other differences by the plan's
    producer's coercion, which the node's diagnostics name)."""
    out_types = node.info.direct
    in_schema = tr.model.node(node.inputs[k]).schema
    if out_types is None or in_schema is None or len(in_schema) != width or len(out_types) != width:
        return df
    casts = {
        i: to_spark(o.type)
        for i, (f, o) in enumerate(zip(in_schema, out_types))
        if f.type is not None and o.type is not None and not T.same_type_ignoring_nullability(f.type, o.type)
    }
    if not casts:
        return df
    names = tr.names(width)
    return df.select(*[col(c).cast(sql_type(casts[i])).alias(c) if i in casts else col(c) for i, c in enumerate(names)])


# ---------------------------------------------------------------------------------------------
# Never run, or not supported
# ---------------------------------------------------------------------------------------------


def refused(tr: _Translator, node: NodeView) -> DataFrame:
    raise Refused(f"{node.kind} relations (node {node.id}) change data and are never executed from an uploaded plan")


def extension(tr: _Translator, node: NodeView) -> DataFrame:
    detail = node.node.body.detail.type_url.split("/")[-1] or "no detail"
    raise Unsupported(f"extension relation `{detail}` (node {node.id}) has no Spark translation")


#: Relations that apply their own emit (the others get ``_Translator._emit`` afterwards).
_EMITS_ITSELF = {project, aggregate}

#: Expression kinds a project over a global aggregate keeps in a select of its own.
_NOT_FOLDED = frozenset({"subquery", "window_function"})
_SUBQUERY = frozenset({"subquery"})
#: A field reference's roots other than the incoming record.
_NOT_ROOT = frozenset({"outer_reference", "expression", "lambda_parameter_reference"})


RELATIONS: dict[str, Callable[[_Translator, NodeView], DataFrame]] = {
    "read": read,
    "filter": filter_,
    "fetch": fetch,
    "aggregate": aggregate,
    "sort": sort,
    "join": join,
    "lateral_join": join,  # a right input that reads the left row is refused before (executable)
    "project": project,
    "set": set_,
    "extension_single": extension,
    "extension_multi": extension,
    "extension_leaf": extension,
    "cross": cross,
    "reference": reference,
    "write": refused,
    "ddl": refused,
    "update": refused,
    "hash_join": keys_join,
    "merge_join": keys_join,
    "nested_loop_join": join,
    "window": window,
    "exchange": exchange,
    "expand": expand,
    "top_n": top_n,
}

#: Relation kinds that translate (the others raise Unsupported or Refused).
SUPPORTED_RELATIONS = frozenset(k for k, v in RELATIONS.items() if v not in (refused, extension))
REFUSED_RELATIONS = frozenset(k for k, v in KINDS.items() if v.changes)  # the registry says which change data

__all__ = ["Translation", "translate", "RELATIONS", "SUPPORTED_RELATIONS", "REFUSED_RELATIONS"]
