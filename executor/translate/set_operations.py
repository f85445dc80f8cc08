"""Set relations as DataFrames: union, intersection and minus, each input cast to the set's column
types where the model read a common type."""

from __future__ import annotations

import functools
from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from substrait import algebra_pb2

from viz import types as T
from viz.model import NodeView

from ..errors import ExecutionError, Unsupported
from ..spark.jvm import col, sql_type
from . import records
from .casts import TEXT_KINDS, producer_cast, producer_text
from .context import Translating
from .types import to_spark


def _null_safe_anti(tr: Translating, left: DataFrame, right: DataFrame, n: int) -> DataFrame:
    other = right.select(*[col(a).alias(f"__r{i}") for i, a in enumerate(tr.names(n))])
    cond = functools.reduce(
        lambda acc, i: acc & col(tr.name(i)).eqNullSafe(col(f"__r{i}")),
        range(1, n),
        col(tr.name(0)).eqNullSafe(col("__r0")),
    )
    return left.join(other, cond, "left_anti")


def _union_all(dfs: list[DataFrame]) -> DataFrame:
    return functools.reduce(DataFrame.unionAll, dfs)


_SET_OPS: dict[str, Callable[[Translating, DataFrame, list[DataFrame], int], DataFrame]] = {
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


def set_(tr: Translating, node: NodeView) -> DataFrame:
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
    types = [f.type for f in node.info.direct or []]
    if op == "SET_OP_UNION_ALL" or not any(records.holds_map(t) for t in types):
        return handler(tr, frames[0], frames[1:], n)
    # Spark deduplicates no map: the maps as their entries, and back (DataFusion compares maps so)
    names = tr.names(n)
    frames = [df.select(*[records.comparable(col(c), t).alias(c) for c, t in zip(names, types)]) for df in frames]
    out = handler(tr, frames[0], frames[1:], n)
    return out.select(*[records.restored(col(c), t).alias(c) for c, t in zip(names, types)])


def _conform_set_input(tr: Translating, node: NodeView, k: int, df: DataFrame, width: int) -> DataFrame:
    """Input ``k`` cast to the set's column types where the model read a common type (set inputs whose
    decimals differ in precision are read as the decimal both fit in; other differences by the plan's
    producer's coercion, which the node's diagnostics name)."""
    out_types = node.info.direct
    in_schema = tr.model.node(node.inputs[k]).schema
    if out_types is None or in_schema is None or len(in_schema) != width or len(out_types) != width:
        return df
    casts = {
        i: (f.type, o.type)
        for i, (f, o) in enumerate(zip(in_schema, out_types))
        if f.type is not None and o.type is not None and not T.same_type_ignoring_nullability(f.type, o.type)
    }
    if not casts:
        return df
    names = tr.names(width)
    datafusion = tr.model.conventions.dialect == "datafusion"

    def cast(c: str, source, target) -> Column:
        # as the producer coerces (a number's text as it writes it, a value that does not fit stops), as
        # an expression's implicit cast is
        if target.WhichOneof("kind") in TEXT_KINDS:
            text = producer_text(col(c), source, datafusion, warn=lambda m: tr.warn(f"node {node.id}: {m}"))
            if text is not None:
                return text
        if records.holds_record(target):  # members keep their names: the plan's struct type has none
            return col(c).cast(sql_type(records.named_after(to_spark(target), df.schema[c].dataType)))
        return producer_cast(col(c), source, target, datafusion)

    return df.select(*[cast(c, *casts[i]).alias(c) if i in casts else col(c) for i, c in enumerate(names)])
