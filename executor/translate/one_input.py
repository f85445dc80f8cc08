"""Relations of one input that filter, order, cut, copy or move its rows: filter, sort, fetch,
top-N, expand and exchange."""

from __future__ import annotations

import functools

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from substrait import algebra_pb2

from viz.expressions import contains_rex
from viz.model import NodeView

from ..errors import ExecutionError, Unsupported
from ..spark.jvm import col
from . import literals
from .context import Translating
from .expr import ExprTranslator

_WINDOW = frozenset({"window_function"})
#: A filter's condition as a column of its own, for the one step that keeps its rows (inputs are named _0, _1...).
_KEPT = "_kept"


def filter_(tr: Translating, node: NodeView) -> DataFrame:
    df, _, ex = tr.incoming(node)
    condition = ex.condition(node.node.body.condition)
    if contains_rex(node.node.body.condition, _WINDOW):  # Spark computes a window in a select, not a where
        return df.withColumn(_KEPT, condition).where(col(_KEPT)).drop(_KEPT)
    return df.where(condition)


def sort(tr: Translating, node: NodeView) -> DataFrame:
    df, _, ex = tr.incoming(node)
    return df.orderBy(*[ex.sort_column(s) for s in node.node.body.sorts])


def _constant(ex: ExprTranslator, e: algebra_pb2.Expression, what: str) -> int | None:
    if e.WhichOneof("rex_type") != "literal":
        raise Unsupported(f"the {what} must be a constant (a literal) to run on Spark")
    v = literals.python_value(e.literal)
    return None if v is None else int(v)


#: The most rows Spark's limit and offset take (a Java int).
SPARK_MAX_ROWS = 2**31 - 1


def _offset_limit(tr: Translating, node: NodeView, df: DataFrame, offset: int | None, count: int | None) -> DataFrame:
    if offset and offset > SPARK_MAX_ROWS:
        raise Unsupported(f"an offset of {offset:,} rows: Spark's offset skips at most {SPARK_MAX_ROWS:,} (a Java int)")
    if offset:
        df = df.offset(offset)
    if count is not None and count > SPARK_MAX_ROWS:  # as producers write "no limit" (a 64-bit maximum)
        tr.warn(
            f"node {node.id}: a limit of {count:,} rows, more than Spark's limit takes ({SPARK_MAX_ROWS:,}): run "
            "without it, which keeps the same rows unless its input has more than that"
        )
    elif count is not None and count >= 0:
        df = df.limit(count)
    return df


def fetch(tr: Translating, node: NodeView) -> DataFrame:
    body = node.node.body
    df, _, ex = tr.incoming(node)
    offset = _constant(ex, body.offset_expr, "fetch offset") if body.HasField("offset_expr") else 0
    count = _constant(ex, body.count_expr, "fetch count") if body.HasField("count_expr") else None
    return _offset_limit(tr, node, df, offset, count)


def top_n(tr: Translating, node: NodeView) -> DataFrame:
    body = node.node.body
    df, n, ex = tr.incoming(node)
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
    return _offset_limit(tr, node, df, offset, count)


def expand(tr: Translating, node: NodeView) -> DataFrame:
    body: algebra_pb2.ExpandRel = node.node.body
    df, _, ex = tr.incoming(node)
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


def exchange(tr: Translating, node: NodeView) -> DataFrame:
    body: algebra_pb2.ExchangeRel = node.node.body
    df, n, ex = tr.incoming(node)
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
