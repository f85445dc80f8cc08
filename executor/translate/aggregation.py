"""Project, aggregate and window relations as DataFrames.

A project or global aggregate returns its columns unselected (:class:`Parts`), so that the aggregate
or project over it takes them into its own step: each DataFrame step costs Spark an analysis of the
plan so far. An aggregate reads a project's expressions in place of its columns when none of them
is evaluated twice, as in the SQL's own plan.
"""

from __future__ import annotations

import functools

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from substrait import algebra_pb2

from viz.expressions import contains_rex, scalar_calls
from viz.model import NodeView
from viz.schema import aggregate_layout

from ..errors import ExecutionError, Unsupported
from ..spark.jvm import col, sql_type
from . import records
from .context import Parts, Translating
from .expr import ExprTranslator, Record, counts_range
from .functions import resolve as resolve_function
from .types import to_spark

#: A window's column for each input record's place in the input's order, for one step (inputs are _0, _1...).
_PLACE = "_place"
#: Expression kinds a project over a global aggregate keeps in a select of its own.
_NOT_FOLDED = frozenset({"subquery", "window_function"})
_SUBQUERY = frozenset({"subquery"})
#: Functions whose value is drawn anew for each row: Spark takes none as an aggregate's argument.
_DRAWN = frozenset({"random", "uuid"})


#: A field reference's roots other than the incoming record.
_NOT_ROOT = frozenset({"outer_reference", "expression", "lambda_parameter_reference"})


def _function_name(tr: Translating, anchor: int) -> str:
    ref = tr.model.extensions.functions.get(anchor)
    return resolve_function(ref.name) if ref is not None else ""


def project(tr: Translating, node: NodeView) -> Parts:
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
        df, n, ex = tr.incoming(node)
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


def _zero_signs(keys: list[Column], types: list, dialect: str) -> dict[int, Column]:
    """The texts the keys that are lists or records holding floats are grouped by beside them, in a
    DataFusion plan (:func:`records.zero_signs`), by position: its engine makes -0.0 and 0.0 inside them
    two groups. Each such key is then taken from its group's rows, as it was: Spark writes a grouped
    -0.0 as 0.0. A map is left to Spark (it groups no map)."""
    texts = {
        p: records.zero_signs(k, t, dialect) for p, (k, t) in enumerate(zip(keys, types)) if not records.holds_map(t)
    }
    return {p: text for p, text in texts.items() if text is not None}


def _distinct(df: DataFrame, keys: dict[int, Column], types: list) -> DataFrame:
    """The distinct rows of ``keys`` (position: column), named ``__k<position>``; a map among them
    deduplicated as its entries (:func:`records.comparable`: Spark deduplicates no map), and back."""
    out = df.select(*[records.comparable(k, t).alias(f"__k{p}") for (p, k), t in zip(keys.items(), types)]).distinct()
    if not any(records.holds_map(t) for t in types):
        return out
    return out.select(*[records.restored(col(f"__k{p}"), t).alias(f"__k{p}") for p, t in zip(keys, types)])


def aggregate(tr: Translating, node: NodeView) -> DataFrame | Parts:
    body: algebra_pb2.AggregateRel = node.node.body
    layout = aggregate_layout(body, tr.model.conventions)
    if layout.bad_references:
        raise ExecutionError(
            f"a grouping refers to grouping expression {layout.bad_references[0]}, but there are "
            f"{len(body.grouping_expressions)}"
        )
    for m in body.measures:
        drawn = sorted({_function_name(tr, f) for f in scalar_calls(m.measure)} & _DRAWN)
        if drawn:
            raise Unsupported(
                f"node {node.id}: an aggregate over {drawn[0]}(), a value drawn anew for each row: Spark aggregates "
                "such a value only once a step below has computed it"
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
        df, _, ex = tr.incoming(node)
    keys = [ex.expr(body.grouping_expressions[r]) for r in layout.keys]
    key_types = [ex.type_of(body.grouping_expressions[r]) for r in layout.keys]
    signs = _zero_signs(keys, key_types, tr.model.conventions.dialect)
    measures = [
        F.lit(0)
        if i in grouping_bits
        else ex.aggregate(m.measure, ex.boolean(m.filter) if m.HasField("filter") else None)
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
        and not signs
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
        grouped = [keys[p].alias(f"__g{p}" if p in signs else f"__k{p}") for p in members]
        grouped += [signs[p].alias(f"__z{p}") for p in members if p in signs]
        kept = [F.first(keys[p]).alias(f"__k{p}") for p in members if p in signs]
        named = [m.alias(f"__m{i}") for i, m in enumerate(measures) if i not in grouping_bits]
        if named and not grouped:
            part = df.select(*named)  # a global aggregate; select also works under outer references
        elif named or kept:
            part = df.groupBy(*grouped).agg(*named, *kept)
        elif grouped:
            part = _distinct(df, {p: keys[p] for p in members}, [key_types[p] for p in members])
        else:  # the empty set, (): one row, over no rows too
            part = df.select(F.count(F.lit(1)).alias("__rows"))
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


def _grouping_arguments(tr: Translating, node: NodeView, body, f, layout) -> list[int] | None:
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


def window(tr: Translating, node: NodeView) -> DataFrame:
    body: algebra_pb2.ConsistentPartitionWindowRel = node.node.body
    df, n, ex = tr.incoming(node)
    ex.float_keys(body.partition_expressions, body.sorts)
    spec = Window.partitionBy(*[ex.expr(p) for p in body.partition_expressions])
    if body.sorts:
        spec = spec.orderBy(*[ex.sort_column(s, ranged=counts_range(body.window_functions)) for s in body.sorts])
    else:
        spec = ex.unordered(spec, body.window_functions)
    added = [ex.over(f, spec, body.sorts) for f in body.window_functions]
    out = [*[col(c) for c in tr.names(n)], *[c.alias(tr.name(n + i)) for i, c in enumerate(added)]]
    if not (node.properties and node.properties.orderedness):
        return df.select(*out)
    # the relation keeps its input's order, which Spark's window (a shuffle by partition) does not: each
    # record's place is taken before and the records put back in it after
    marked = df.withColumn(_PLACE, F.monotonically_increasing_id())
    return marked.select(*out, col(_PLACE)).orderBy(_PLACE).drop(_PLACE)
