"""Join relations as DataFrames: joins with a condition, joins on equality keys (hash and merge),
cross products, and mark joins (a correlated EXISTS subquery)."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from viz.expressions import root_fields
from viz.model import NodeView
from viz.schema import join_type_name

from ..errors import ExecutionError, Unsupported
from ..spark.jvm import col
from .context import Translating
from .expr import ExprTranslator, Record


def _sides(tr: Translating, node: NodeView) -> tuple[DataFrame, int, DataFrame, int]:
    left, n = tr.input(node, 0)
    right, m = tr.input_at(node, 1, n)
    return left, n, right, m


def cross(tr: Translating, node: NodeView) -> DataFrame:
    left, _, right, _ = _sides(tr, node)
    return left.crossJoin(right)


def _renumber(tr: Translating, df: DataFrame, start: int, count: int, extra: list[Column] = ()) -> DataFrame:
    cols = [col(tr.name(start + i)).alias(tr.name(i)) for i in range(count)]
    cols += [c.alias(tr.name(count + i)) for i, c in enumerate(extra)]
    return df.select(*cols)


#: A join's condition over the columns of its left fields followed by its right (None: no condition).
Condition = Callable[[list[Column]], "Column | None"]


def _mark(
    tr: Translating,
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
    the condition was unknown for some row, false otherwise (SQL's IN semantics; DataFusion's is never
    null). The other input runs as a correlated EXISTS subquery, with the kept side as its outer query."""
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
    if not tr.model.conventions.mark_may_be_null:
        tr.warn(
            f"node {node.id}: DataFusion's mark join, the plan's producer's, marks a row true or false, never "
            "null (the spec's mark is null where the condition was unknown for a row and true for none); so does "
            "the run"
        )
        return _renumber(tr, keep, k_start, k_count, [F.when(hit, F.lit(True)).otherwise(F.lit(False))])
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
    tr: Translating,
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
    reads_right = post is not None and max(root_fields(node.node.body.post_join_filter), default=-1) >= n
    if reads_right and how in ("left_semi", "left_anti"):
        raise Unsupported(
            f"node {node.id}: a post-join filter that reads the right input on a left semi/anti join is not "
            "supported: the join's records are the left input's alone"
        )
    if type_name in ("JOIN_TYPE_LEFT_SINGLE", "JOIN_TYPE_RIGHT_SINGLE"):
        out = _single(node, left, right, cond, how)
    elif cond is None and how == "inner":
        out = left.crossJoin(right)
    else:
        out = left.join(right, cond if cond is not None else F.lit(True), how)
    if post is not None:
        out = out.where(post)
    return out


def _single(node: NodeView, left: DataFrame, right: DataFrame, cond: Column | None, how: str) -> DataFrame:
    """A single join: the outer join, each row of the kept side (the left for ``how`` "left") with its one
    match or nulls. A row with more than one match stops the run: the spec allows one arbitrary match or an
    error, and an arbitrary one would be a row that looks right and differs from run to run."""
    row, matches = "_single_row", "_single_matches"  # dropped at the end of the step (inputs are _0, _1...)
    keep, other = ("left", "right") if how == "left" else ("right", "left")
    if how == "left":
        left = left.withColumn(row, F.monotonically_increasing_id())
    else:
        right = right.withColumn(row, F.monotonically_increasing_id())
    out = left.join(right, cond if cond is not None else F.lit(True), how)
    out = out.withColumn(matches, F.count(F.lit(1)).over(Window.partitionBy(row)))
    stop = F.raise_error(
        F.lit(
            f"a row of the {keep} input matches more than one row of the {other} input in a "
            f"{keep} single join, which returns at most one match per row (the spec: one arbitrary match or an "
            "error; this run stops rather than pick one)"
        )
    )
    return out.where(F.when(F.col(matches) > 1, stop).otherwise(F.lit(True))).drop(row, matches)


def join(tr: Translating, node: NodeView) -> DataFrame:
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


def keys_join(tr: Translating, node: NodeView) -> DataFrame:
    """HashJoinRel and MergeJoinRel: equality keys (left field = right field) and a residual filter."""
    body = node.node.body
    left, n, right, m = _sides(tr, node)
    cond, post = _keys_condition(tr, node, Record.of(tr.names(n + m), node.info.incoming), n)
    condition: Condition = lambda cols: _keys_condition(tr, node, Record(cols, node.info.incoming), n)[0]  # noqa: E731
    return _join(tr, node, join_type_name(body), cond, post, left, n, right, m, condition)


def _keys_condition(tr: Translating, node: NodeView, both: Record, n: int) -> tuple[Column | None, Column | None]:
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
