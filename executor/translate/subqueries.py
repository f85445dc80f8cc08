"""Subquery expressions (scalar, IN, EXISTS, ``op ANY/ALL``) as Spark columns over the subquery's
DataFrame, in SQL's three values, the value and the subquery's column compared as the plan's producer
compares them. Each takes the expression translator (``executor.translate.expr.ExprTranslator``), which
imports this module, first."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from substrait import algebra_pb2

from ..errors import Unsupported
from .casts import float_texts

Expression = algebra_pb2.Expression

_COMPARISONS: dict[int, Callable[[Column, Column], Column]] = {
    1: lambda a, b: a == b,
    2: lambda a, b: a != b,
    3: lambda a, b: a < b,
    4: lambda a, b: a > b,
    5: lambda a, b: a <= b,
    6: lambda a, b: a >= b,
}


def scalar(tr, s: Expression.Subquery.Scalar) -> Column:
    df, names = tr.subquery_frame(s.input)
    # a select of the one column would put a Project above a global aggregate (see executor.translate.aggregation)
    return (df if len(names) == 1 else df.select(names[0])).scalar()


def _against(
    tr,
    message,
    value: Expression,
    column: Column,
    rel: algebra_pb2.Rel,
    df: DataFrame,
    names: list[str],
) -> tuple[Column, DataFrame]:
    """A value and a subquery's one column, cast as the plan's producer compares them (the model's
    coercion of ``message``: the value's target, then the column's), said in the run's notes."""
    coercion = tr.coercion(message)
    if coercion is None:
        return column, df
    node = tr.tr.model.graph.nodes[tr.node_id]
    schema = tr.tr.model.node(node.subquery_rels[id(rel)]).schema
    hay_type = schema[0].type if schema else None
    value_target, hay_target = (tuple(coercion.targets) + (None, None))[:2]
    if value_target is not None:
        column = tr._implicit_cast(column, tr.type_of(value), value_target)
    if hay_target is not None:
        cast = tr._implicit_cast(F.col(names[0]), hay_type, hay_target)
        df = df.select(cast.alias(names[0]), *names[1:])
    if value_target is not None or hay_target is not None:
        tr.tr.warn(
            f"node {tr.node_id}: a value and its subquery's column differ in type: {coercion.rule}, and so does the run"
        )
    return column, df


def in_predicate(tr, s: Expression.Subquery.InPredicate, keeps: bool = False) -> Column:
    """``x IN (subquery)``. As a value (``keeps`` false) it is SQL's: true where a row equals x;
    else null where x is null and there are rows, or where a row is null; else false (Spark's IN
    in a projection gives false for those nulls). ``keeps``: a condition that keeps rows, where
    null and false both drop the row (``ExprTranslator._kept_in``)."""
    df, names = tr.subquery_frame(s.haystack)
    # a float's text from Spark's own expressions: Spark's optimizer makes the value part of a join's
    # condition after its checks, where a call by reflection is never made ready and fails as it runs
    with float_texts(by_reflection=False):
        needles = [tr.expr(n) for n in s.needles]
        if len(needles) == 1:
            needles[0], df = _against(tr, s, s.needles[0], needles[0], s.haystack, df, names)
    if len(needles) == 1:
        # a select of the subquery's one column would cost Spark one more analysis
        hay = df if len(names) == 1 else df.select(names[0])
        return needles[0].isin(hay) if keeps else _in(needles[0], hay, names[0])
    if not keeps:
        tr.tr.warn(
            f"node {tr.node_id}: an IN of {len(needles)} values against a subquery, used as a value: where no "
            "row matches and a comparison is with a null, the run gives false where SQL gives null"
        )
    return F.struct(*needles).isin(df.select(F.struct(*names)))


def _in(x: Column, hay: DataFrame, column: str) -> Column:
    """``x IN hay`` (its one ``column``) in SQL's three values: true where a row equals x; else null where x is
    null and there are rows, or where a row is null; else false (Spark's IN in a projection gives false)."""
    unknown = (x.isNull() & hay.exists()) | hay.where(F.col(column).isNull()).exists()
    return F.when(x.isin(hay), F.lit(True)).when(unknown, F.lit(None).cast("boolean")).otherwise(F.lit(False))


def set_predicate(tr, s: Expression.Subquery.SetPredicate) -> Column:
    if s.predicate_op != Expression.Subquery.SetPredicate.PREDICATE_OP_EXISTS:
        raise Unsupported("the UNIQUE subquery predicate is not supported (only EXISTS)")
    return tr.subquery_frame(s.tuples)[0].exists()


def is_in(s: Expression.Subquery.SetComparison) -> bool:
    """Whether a set comparison is ``x = ANY`` (IN) or ``x <> ALL`` (NOT IN)."""
    Cmp = Expression.Subquery.SetComparison
    is_any = s.reduction_op == Cmp.REDUCTION_OP_ANY
    return s.comparison_op == (Cmp.COMPARISON_OP_EQ if is_any else Cmp.COMPARISON_OP_NE)


def set_comparison(tr, s: Expression.Subquery.SetComparison, keeps: bool = False) -> Column:
    """``x op ANY|ALL (subquery)`` through the subquery's minimum and maximum, in SQL's three values:
    ANY is true where some value makes the comparison true, ALL false where some makes it false;
    otherwise a null among the values (or a null ``x``) leaves it unknown; over no values ANY is false
    and ALL true. ``= ANY`` is IN and ``<> ALL`` NOT IN: Spark's own where ``keeps`` (a condition that
    keeps rows, as :func:`in_predicate`'s), else in SQL's three values."""
    df, names = tr.subquery_frame(s.right)
    c = names[0]
    with float_texts(by_reflection=False):  # as in_predicate's value
        left, df = _against(tr, s, s.left, tr.expr(s.left), s.right, df.select(c), [c])
    op = _COMPARISONS.get(s.comparison_op)
    if op is None:
        raise Unsupported("a set comparison without a comparison operator")
    is_any = s.reduction_op == Expression.Subquery.SetComparison.REDUCTION_OP_ANY
    name = s.comparison_op
    Cmp = Expression.Subquery.SetComparison
    empty = ~df.exists()
    if is_in(s):
        if keeps:
            return left.isin(df) if is_any else empty | ~left.isin(df)
        return _in(left, df, c) if is_any else ~_in(left, df, c)
    lo = df.select(F.min(c)).scalar()
    hi = df.select(F.max(c)).scalar()
    if name in (Cmp.COMPARISON_OP_EQ, Cmp.COMPARISON_OP_NE):
        differs = (lo != left) | (hi != left)  # = ALL fails, <> ANY holds, where a value differs
        decides = differs
    else:
        low_side = name in (Cmp.COMPARISON_OP_LT, Cmp.COMPARISON_OP_LE)  # x < ANY: x < max
        bound = (hi if low_side else lo) if is_any else (lo if low_side else hi)
        decides = op(left, bound) if is_any else ~op(left, bound)
    has_null = df.where(F.col(c).isNull()).exists()
    return (
        F.when(empty, F.lit(not is_any))
        .when(left.isNull(), F.lit(None).cast("boolean"))
        .when(decides, F.lit(is_any))
        .when(has_null, F.lit(None).cast("boolean"))
        .otherwise(F.lit(not is_any))
    )


SUBQUERIES: dict[str, Callable[..., Column]] = {
    "scalar": scalar,
    "in_predicate": in_predicate,
    "set_predicate": set_predicate,
    "set_comparison": set_comparison,
}
