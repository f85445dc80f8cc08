"""Substrait relations as PySpark DataFrames.

``translate(model, node_id, spark, tables)`` turns a node's subtree into one DataFrame, using only
the DataFrame API (so it runs on Spark Connect too). Every column of every intermediate DataFrame
is named by its position (``_0``, ``_1``, ...; ``_s1_0``... inside a subquery, so a correlated
reference to the enclosing query never meets a column of the same name), which makes index-based
field references, joins of inputs with equal column names and emits unambiguous.

One dispatch table on the relation kind; each entry returns the node's direct output, the emit is
applied afterwards, and results are memoised per node (a ReferenceRel's shared subtree is
translated once per ``translate`` call). A project or global aggregate returns its columns
unselected (:class:`~executor.translate.aggregation.Parts`), so that the aggregate or project over
it takes them into its own step: each DataFrame step costs Spark an analysis of the plan so far.
The plan is read the way the model read it: its ``conventions`` say whether a ProjectRel keeps its
input and whether a multi-set aggregate has the grouping-set column.

This module holds the walk and the dispatch table; the translators of each relation kind live
beside it: :mod:`.reads` (read relations), :mod:`.one_input` (filter, sort, fetch, top-N, expand,
exchange), :mod:`.aggregation` (project, aggregate, window), :mod:`.joins` and
:mod:`.set_operations`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pyspark.errors import PySparkException
from pyspark.sql import DataFrame

from viz.deep import run_deep
from viz.errors import PlanError
from viz.kinds import KINDS, emit
from viz.model import NodeView, PlanModel

from ..errors import ExecutionError, Refused, Unsupported
from ..spark.jvm import activate, col
from ..spark.session import is_connect
from .aggregation import aggregate, project, window
from .casts import float_texts
from .context import Parts
from .expr import ExprTranslator, Record
from .joins import cross, join, keys_join
from .one_input import exchange, expand, fetch, filter_, sort, top_n
from .reads import read
from .set_operations import set_
from .types import plan_user_types, with_member_names


@dataclass
class Translation:
    df: DataFrame  # one column per output field of the node (after emit), named "_0", "_1", ...
    names: list[str]  # the derived schema's names, for labelling
    warnings: list[str] = field(default_factory=list)  # e.g. function options not honoured


Observe = Callable[[str, DataFrame], DataFrame]


def translate(model: PlanModel, node_id: str, spark, tables, observe: Observe | None = None) -> Translation:
    """Translate node ``node_id``'s subtree. Raises ``ExecutionError`` (``Unsupported``, ``Refused``,
    ``TableNotFound``) with a message when it cannot.

    ``observe(node_id, df)``, when given, sees each node's output of the query itself (not of a
    subquery) once, and returns the DataFrame its consumers read (``executor.jobs.profile`` attaches a
    row-count observation there)."""
    if node_id not in model.graph.nodes:
        raise ExecutionError(f"node {node_id} is not in the plan (nodes: {', '.join(list(model.graph.nodes)[:20])})")
    reflected: list[bool] = []

    def work(by_reflection: bool) -> tuple[DataFrame, Translator]:
        activate(spark)  # in run_deep's thread
        tr = Translator(model, spark, tables, observe=observe)
        # in run_deep's thread
        with plan_user_types(model.extensions.types, model.conventions.dialect), float_texts(by_reflection) as made:
            try:
                df = tr.rel(node_id)
                if made() and is_connect(spark):
                    df.schema  # noqa: B018 - Spark Connect analyzes a plan only when asked; a refusal is seen here
            finally:
                reflected.append(made())
            return df, tr

    try:
        try:
            df, tr = run_deep(lambda: work(True))
        except PySparkException:
            if not (reflected and reflected[-1]):
                raise
            # Spark refuses a call by reflection in some places (an aggregate function's argument, a
            # join's condition) and mislays one inside a lambda that it moves below a sort or grouping
            df, tr = run_deep(lambda: work(False))
    except PySparkException as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ExecutionError(f"Spark rejected the translation of node {node_id}: {first[:500]}", node=node_id) from e
    schema = model.node(node_id).schema
    names = [f.name for f in schema] if schema is not None else [c for c in df.columns]
    if schema is not None and any(f.nested for f in schema):
        df = _members_named(df, schema)
    return Translation(df, names, list(dict.fromkeys(tr.warnings)))


def _members_named(df: DataFrame, schema) -> DataFrame:
    """``df`` with the members of its struct columns named as the plan names them (its fields' nested
    names), where Spark's differ."""
    renamed = {
        name: named
        for name, plan_field, spark_field in zip(df.columns, schema, df.schema.fields)
        if (named := with_member_names(spark_field.dataType, iter(plan_field.nested))) != spark_field.dataType
    }
    if not renamed:
        return df
    return df.select(*[col(c).cast(renamed[c]).alias(c) if c in renamed else col(c) for c in df.columns])


class Translator:
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
        if message not in self.warnings:  # several calls of one node can each have the same thing to say
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

    def incoming(self, node: NodeView) -> tuple[DataFrame, int, ExprTranslator]:
        """The node's one input, its width, and the translator of expressions over it."""
        df, n = self.input(node)
        return df, n, self.expressions(node, self.names(n), node.info.incoming, df)

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
        inner = Translator(
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


def _pick(df: DataFrame, pairs: Sequence[tuple[str, str]]) -> DataFrame:
    """``df`` with the columns ``source AS target`` for each pair."""
    return df.select(*[col(a).alias(b) for a, b in pairs])


# ---------------------------------------------------------------------------------------------
# A shared subtree, and relations never run
# ---------------------------------------------------------------------------------------------


def reference(tr: Translator, node: NodeView) -> DataFrame:
    if not node.inputs:
        raise ExecutionError(f"the reference at node {node.id} points at no relation")
    return tr.rel(node.inputs[0])


def refused(tr: Translator, node: NodeView) -> DataFrame:
    raise Refused(f"{node.kind} relations (node {node.id}) change data and are never executed here")


def extension(tr: Translator, node: NodeView) -> DataFrame:
    detail = node.node.body.detail.type_url.split("/")[-1] or "no detail"
    raise Unsupported(f"extension relation `{detail}` (node {node.id}) has no Spark translation")


#: Relations that apply their own emit (the others get ``Translator._emit`` afterwards).
_EMITS_ITSELF = {project, aggregate}

RELATIONS: dict[str, Callable[[Translator, NodeView], DataFrame]] = {
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
