"""The names an analyst reads for a node's columns: the root's name for a column that reaches the
root unchanged, else a computed column's expression in words (:func:`column_names`)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from substrait import algebra_pb2

from ..expressions import direct_field, root_fields
from ..fields import Field
from ..kinds import emit, project_outputs_input
from ..model import MemoBeside, NodeView, PlanModel
from ..schema import GROUPING_ID, AggregateLayout, aggregate_layout, join_layout, join_type_name
from ..words import (
    GROUPING_ID_WORDS,
    Words,
    aggregate_words,
    capped_list,
    ordinal,
)

T = TypeVar("T")


@dataclass
class _Memo:
    columns: dict[str, list[str] | None] = field(default_factory=dict)
    #: The names set operations made, each with the names it says and the number of others it does not.
    united: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)
    root_names: dict[str, list[str | None]] | None = None
    nouns: dict[tuple[str, int], str | None] = field(default_factory=dict)
    made: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


#: This module's memo for a model, kept beside it (not in it) for as long as it lives.
_memo = MemoBeside(_Memo)


def outer_records(model: PlanModel, node_id: str) -> list[Sequence[Field] | None]:
    """The records outer references of this node reach, innermost first: for each subquery
    boundary crossed going up, the record the enclosing node's expressions read."""
    out: list[Sequence[Field] | None] = []
    nodes = model.graph.nodes
    cur = nodes.get(node_id)
    seen = 0
    while cur is not None and seen < 10_000:
        seen += 1
        parent = nodes.get(cur.parent) if cur.parent else None
        if parent is None:
            break
        if cur.is_subquery:
            out.append(model.infos[parent.id].incoming if parent.id in model.infos else None)
        cur = parent
    return out


#: Relations whose output columns are their input's (through their emit), so a name the root gives
#: a column is that column's name below them too.
_PASSING = frozenset({"filter", "sort", "fetch", "project"})


def root_names(model: PlanModel) -> dict[str, list[str | None]]:
    """Per node, the name the plan's root gives each output column that reaches the root unchanged
    (through filters, sorts, fetches and projects, an aggregate's plain keys, a join's sides and a set
    operation's inputs), else None: DataFusion and isthmus name a computed column by its expression
    below the root (``sum(multiply(…``) and only the root says ``revenue``. Top-down from each root;
    memoised."""
    memo = _memo(model)
    if memo.root_names is not None:
        return memo.root_names
    out: dict[str, list[str | None]] = {}
    for root in model.roots:
        schema = model.node(root).schema
        if schema is not None:
            out[root] = [f.name for f in schema]
    # Down from the roots (readers before what they read) through the nodes that pass fields on.
    for node_id in reversed(model.graph.post_order(model.roots, subqueries=False)):
        above = out.get(node_id)
        if above is None:
            continue
        for child, position, name in _passed_names(model, model.node(node_id), above):
            below = model.node(child).schema
            if below is None or not 0 <= position < len(below):
                continue
            names = out.setdefault(child, [None] * len(below))
            if names[position] is None:
                names[position] = name
    memo.root_names = out
    return out


#: Names a producer makes up for an unnamed column (Calcite's ``EXPR$0``).
_GENERATED = re.compile(r"EXPR\$\d+$")


def root_renames(model: PlanModel, root: str) -> list[tuple[str, str]]:
    """(the name below, the root's name) for each column root ``root`` passes on as it is and the plan's
    root names otherwise (``i_brand_id`` as ``brand_id``, the SQL's ``AS``); names made from
    expressions, and names that differ only in case, are not counted."""
    node = model.node(root)
    if node.schema is None:
        return []
    out = []
    for child, position, name in _passed_names(model, node, [f.name for f in node.schema]):
        if node.kind == "set" and child != node.inputs[0]:
            continue  # a set operation's columns bear its first input's names
        below = column_names(model, child) or []
        was = below[position] if 0 <= position < len(below) else None
        if was and was.lower() != name.lower() and not any(map(is_expression_name, (was, name))):
            out.append((was, name))
    return out


def join_renames(model: PlanModel, node_id: str) -> list[tuple[str, str]]:
    """(the name an input gives a column, the name this join's output gives it) for each column a join
    passes on under another name: a name both sides have, told apart below the join by the plan's root
    (TPC-DS q68's two ca_city, the left one bought_city from here on). The input's name is told by its side
    where both sides have it ("the left side's ca_city"); names made from expressions are not counted."""
    node = model.node(node_id)
    after = column_names(model, node_id)
    if node.kind not in PAIRING or after is None or len(node.inputs) != 2:
        return []
    inputs = [column_names(model, i) for i in node.inputs]
    if any(names is None for names in inputs):
        return []
    out = []
    for child, position, name in _passed_names(model, node, list(after)):
        k = node.inputs.index(child)
        was = inputs[k][position]
        if was == name or is_expression_name(was) or is_expression_name(name) or " " in name:
            continue
        both = was in inputs[0] and was in inputs[1]
        out.append((f"the {'left' if k == 0 else 'right'} side's {was}" if both else was, name))
    return out


def _passed_names(model: PlanModel, parent: NodeView, above: list[str | None]) -> list[tuple[str, int, str]]:
    """(input, its column, the name) for each of ``parent``'s named output columns that is an input's
    column as it is."""
    inputs = parent.inputs
    widths = [len(model.node(i).schema or ()) if model.node(i).schema is not None else None for i in inputs]
    if not inputs or None in widths:
        return []
    body = parent.node.body
    # the direct output's columns, as (input, position) (None: computed here)
    sources: list[tuple[int, int] | None]
    if parent.kind in _PASSING and len(inputs) == 1:
        sources = [(0, c) for c in range(widths[0])]
        if parent.kind == "project":
            if not project_outputs_input(body, model.conventions.project_keeps_input):
                sources = []  # a producer's project that outputs only its expressions
            sources += [_source(direct_field(e)) for e in body.expressions]
    elif parent.kind == "aggregate" and len(inputs) == 1:
        layout = aggregate_layout(body, model.conventions)
        sources = [_source(direct_field(body.grouping_expressions[r])) for r in layout.keys]
    elif parent.kind == "set":
        return [(i, c, name) for i, w in zip(inputs, widths) for c, name in enumerate(above[:w]) if name]
    elif parent.kind in PAIRING:
        kept, _mark = row_sides(parent.kind, body, len(widths))  # the mark is computed here, not passed
        sources = [(k, c) for k in kept for c in range(widths[k])]
    else:
        return []
    mapping = emit(body)
    passed = []
    for j, m in enumerate(mapping if mapping is not None else range(len(sources))):
        source = sources[m] if 0 <= m < len(sources) else None
        if j < len(above) and above[j] and source is not None:
            passed.append((inputs[source[0]], source[1], above[j]))
    return passed


#: A total's short name, by its aggregate function: what a later step calls another step's total by
#: where the total's words are long ("step 26's sum").
_TOTAL_NOUNS = {
    "sum": "sum",
    "sum0": "sum",
    "avg": "average",
    "mean": "average",
    "min": "minimum",
    "max": "maximum",
    "count": "count",
}


def is_total(function: str) -> bool:
    """Whether the aggregate function named ``function`` gives a total (a sum or a count)."""
    return _TOTAL_NOUNS.get(function) in ("sum", "count")


def total_noun(model: PlanModel, node_id: str, index: int) -> str | None:
    """The short name of node ``node_id``'s column ``index`` where it is an aggregate's total, passed on
    as it is (through filters, projects, joins, and set operations whose inputs all give the same kind
    of total): "sum", "average", "count"; else None. Memoised."""
    memo = _memo(model).nouns
    key = (node_id, index)
    if key not in memo:
        memo[key] = None  # a column that reaches itself again (a recursive plan) has none
        memo[key] = _total_noun(model, model.node(node_id), index)
    return memo[key]


def made_at(model: PlanModel, node_id: str, index: int) -> tuple[str, int]:
    """The node and column where node ``node_id``'s column ``index`` is made: down through the nodes that
    pass it on as it is from one input (a filter, a join's side, a project's plain reference) to the
    read, aggregate or expression that makes it."""
    made = _made(model, node_id)
    return made[index] if 0 <= index < len(made) else (node_id, index)


def recast_field(w: Words, e: algebra_pb2.Expression) -> int | None:
    """The input column ``e`` only casts to a type that keeps its value (DataFusion's ss_quantity as a
    double, made once for an average and a standard deviation); None for any other expression."""
    if e.WhichOneof("rex_type") != "cast":
        return None
    while e.WhichOneof("rex_type") == "cast" and not w.cast_change(e.cast):
        e = e.cast.input
    return direct_field(e)


def holds_value_of(model: PlanModel, node_id: str, index: int) -> tuple[str, int]:
    """Where the value of node ``node_id``'s column ``index`` is made: :func:`made_at`, and on through a
    project's cast that keeps the value (the column and its double hold one value)."""
    made, j = made_at(model, node_id, index)
    node = model.node(made)
    if node.kind != "project" or len(node.inputs) != 1:
        return made, j
    body = node.node.body
    width = len(node.info.incoming or ()) if project_outputs_input(body, model.conventions.project_keeps_input) else 0
    mapping = emit(body)
    m = mapping[j] if mapping is not None and 0 <= j < len(mapping) else j
    if not width <= m < width + len(body.expressions):
        return made, j
    field = recast_field(Words(model, node.info.incoming), body.expressions[m - width])
    return (made, j) if field is None else holds_value_of(model, node.inputs[0], field)


def _made(model: PlanModel, node_id: str) -> list[tuple[str, int]]:
    """:func:`made_at` of each of node ``node_id``'s columns; bottom-up (the graph's post-order), memoised."""
    memo = _memo(model).made
    for cur in model.graph.post_order([node_id], subqueries=False, done=memo):
        width = len(model.node(cur).schema or ())
        made = [(cur, j) for j in range(width)]
        sources: dict[int, list[tuple[str, int]]] = {}
        for child, position, j in _passed_names(model, model.node(cur), [str(j) for j in range(width)]):
            sources.setdefault(int(j), []).append((child, position))
        for j, found in sources.items():
            below = memo.get(found[0][0])
            if len(found) == 1 and below is not None and 0 <= found[0][1] < len(below):
                made[j] = below[found[0][1]]  # a set operation's column is made there, of several inputs
        memo[cur] = made
    return memo.get(node_id, [])


def _total_noun(model: PlanModel, node: NodeView, index: int) -> str | None:
    body = node.node.body
    if node.kind == "aggregate" and len(node.inputs) == 1:
        functions = model.extensions.functions
        refs = [functions.get(m.measure.function_reference) for m in body.measures]
        layout = aggregate_layout(body, model.conventions)
        keys: list[str | None] = [None] * len(layout.keys)
        measures = [None if r is None else _TOTAL_NOUNS.get(r.name) for r in refs]
        nouns = emitted(body, _aggregate_columns(layout, keys, measures))
        return nouns[index] if 0 <= index < len(nouns) else None
    passed = _passed_names(model, node, [None] * index + ["?"])
    said = {total_noun(model, child, position) for child, position, _ in passed}
    return said.pop() if len(said) == 1 else None


def row_sides(kind: str, body, count: int) -> tuple[list[int], bool]:
    """The inputs (by position) whose rows, and columns, a node of ``kind`` outputs, and whether a mark
    column follows them: both sides of a join, one side of a semi, anti or mark join (the other is
    only looked up); every input of any other node."""
    if kind not in PAIRING or count != 2 or body is None or "type" not in body.DESCRIPTOR.fields_by_name:
        return list(range(count)), False
    type_name = join_type_name(body)
    side = join_layout(type_name)
    return ([0, 1] if side == "both" else [0 if side == "left" else 1]), type_name.endswith("_MARK")


def _source(index: int | None) -> tuple[int, int] | None:
    return None if index is None else (0, index)


def is_expression_name(name: str) -> bool:
    """A name a producer made from an expression (``sum(multiply(l_extendedprice, …``), a literal
    (``'customer'``, ``null::i32?``) or for a column the SQL left unnamed (Calcite's ``EXPR$5``), not a
    name someone gave."""
    return "(" in name or name.startswith("'") or "::" in name or _GENERATED.match(name) is not None


def column_names(model: PlanModel, node_id: str) -> list[str] | None:
    """The names an analyst reads for node ``node_id``'s output columns: a column the plan names by
    a name (a table's column, or the root's name for it: ``revenue``) by that name; a computed column
    that a producer names by its expression (``sum(add(add(cr_refunded_cash, …``) by the expression
    in words ("the sum of (cr_refunded_cash + …)"). None when the node's schema is unknown.
    Bottom-up (the graph's post-order), memoised."""
    memo = _memo(model).columns
    for cur in model.graph.post_order([node_id], subqueries=False, done=memo):
        try:
            memo[cur] = _column_names(model, cur, memo)
        except Exception:  # an odd plan: its own names, as the schema has them
            schema = model.node(cur).schema
            memo[cur] = None if schema is None else [f.name for f in schema]
    return memo.get(node_id)


def _column_names(model: PlanModel, node_id: str, memo: dict[str, list[str] | None]) -> list[str] | None:
    node = model.node(node_id)
    if node.schema is None:
        return None
    if node.kind == "set":
        united = _set_names(model, node, memo, _memo(model).united)
        if united is not None:
            return united
    names = [f.name for f in node.schema]
    if node.kind == "aggregate":  # DataFusion's grouping-id column, in words
        names = [GROUPING_ID_WORDS if n == GROUPING_ID else n for n in names]
    twice = {n for n, k in Counter(names).items() if k > 1}
    # an input said otherwise than its schema names it (a union's "ss_qty or cs_qty") is said so here too
    plain_inputs = all(memo.get(i) == [f.name for f in model.node(i).schema or ()] for i in node.inputs)
    if plain_inputs and not twice and not any(is_expression_name(n) for n in names):
        return names
    given = root_names(model).get(node_id) or []
    if twice:  # a name two columns have (a table joined twice): the root's names for them, when it tells them apart
        names = [
            given[i]
            if n in twice
            and i < len(given)
            and given[i]
            and not is_expression_name(given[i])
            and Counter(given)[given[i]] == 1
            else n
            for i, n in enumerate(names)
        ]
    spoken = _spoken(model, node, memo) or []
    out = []
    for i, name in enumerate(names):
        if is_expression_name(name):
            if i < len(given) and given[i] and not is_expression_name(given[i]):
                name = given[i]
            elif i < len(spoken) and spoken[i]:
                name = spoken[i]
        elif not plain_inputs and i < len(spoken) and spoken[i] and not (i < len(given) and given[i] == name):
            name = spoken[i]
        out.append(name)
    return out


#: Inputs' names a set operation's column is said by, at most; more are "x, or its like in N other inputs".
SET_NAMES = 3
#: Three or more alternatives, one longer than this, are said by the first alone ("x (or its like in 2
#: other inputs)"): a union of three expressions in words made a name longer than a sentence holds.
SET_NAME_CHARS = 40


def _set_names(
    model: PlanModel, node: NodeView, memo: dict[str, list[str] | None], united: dict[str, tuple[tuple[str, ...], int]]
) -> list[str] | None:
    """A set operation's columns: the root's name for one, else its inputs' names for it, each once ("ss_qty
    (or cs_qty)" where a union stacks store and catalog sales: its first input's name alone said the other
    rows were store sales). None when an input's names are not known. ``united``: the names set
    operations made, with what each says (a union of unions says one list), kept for the ones above."""
    inputs = [memo.get(i) for i in node.inputs]
    width = len(node.schema or ())
    if not inputs or any(names is None or len(names) != width for names in inputs):
        return None
    given = root_names(model).get(node.id) or []
    out = []
    for j in range(width):
        if j < len(given) and given[j] and not is_expression_name(given[j]):
            out.append(given[j])
            continue
        # the others in brackets: "a = x or y" would read as a condition; a union of unions, one list
        said = [united.get(names[j], ((names[j],), 0)) for names in inputs]
        seen = list(dict.fromkeys(alt for alts, _ in said for alt in alts))
        # a constant after the columns it stands in for: "the sum of 0.00 (or sr_return_amt)" read as a sum of zeros
        seen.sort(key=is_value_name)
        others = len(seen) - 1 + sum(unsaid for _, unsaid in said)
        long = len(seen) > 2 and max(map(len, seen)) > SET_NAME_CHARS
        if len(seen) > 1 and others == len(seen) - 1 and all(map(is_value_name, seen)):
            # a value each input adds (SQL's 'w' AS sale_type, its alias lost): "'s' (or 'w') is 's'" read as true
            name = f"column holding {capped_list(seen, SET_NAMES, 'other values', 'or')}"
            united[name] = (tuple(seen), 0)
        elif others and (len(seen) > SET_NAMES or len(seen) < others + 1 or long):
            name = f"{_gist(seen[0])} (or its like in {others} other input{'s' if others > 1 else ''})"
            united[name] = ((seen[0],), others)
        elif len(seen) > 1:
            # a phrase they share said once: "the sum of ss_ext_sales_price (or cs_ext_sales_price)"
            shared = _shared_phrase(seen)
            rest = [alt[len(shared) :] for alt in seen]
            name = f"{shared}{rest[0]} (or {' or '.join(rest[1:])})"
            united[name] = (tuple(seen), 0)
        else:
            name = seen[0]
        out.append(name)
    return out


def _shared_phrase(names: Sequence[str]) -> str:
    """The phrase every name starts with, up to its last "of" ("the sum of "), else "": "" too where what
    follows it has a bracket or a condition, which may be the phrase's ("the sum of x (0 if null)")."""
    prefix = os.path.commonprefix(list(names))
    at = prefix.rfind(" of ")
    shared = prefix[: at + len(" of ")] if prefix.startswith("the ") and at > 0 else ""
    rests = [n[len(shared) :] for n in names]
    return shared if all(r and "(" not in r and " where " not in r for r in rests) else ""


_VALUE_NAME = re.compile(r"'.*'$|-?\d+(\.\d+)?$")


def is_value_name(name: str) -> bool:
    """Whether a column is named by its value: a text or a number literal, as :class:`viz.words.Words`
    says it ("'s'", "0")."""
    return _VALUE_NAME.match(name) is not None


def _gist(name: str) -> str:
    """A long name in words with a long bracket said by its first term: "the sum of (ss_ext_list_price −
    …) ÷ 2", so that a condition on the column still fits a sentence."""
    if len(name) <= SET_NAME_CHARS:
        return name
    return _LONG_BRACKET.sub(lambda m: f"({m.group(1)} {m.group(2)} …)", name)


_LONG_BRACKET = re.compile(r"\((\S+) ([−+×÷]) [^()]{20,}\)")


#: Relations that output their one input's columns as they are (then their emit).
_SAME_COLUMNS = frozenset({"filter", "sort", "fetch", "top_n", "exchange", "reference"})
PAIRING = frozenset({"join", "cross", "hash_join", "merge_join", "nested_loop_join"})


def _spoken(model: PlanModel, node: NodeView, memo: dict[str, list[str] | None]) -> list[str | None] | None:
    """Node's output columns in words, from what computes each (its inputs' names, read from
    ``memo``): a project's expression, an aggregate's key or measure ("the sum of …"); None where
    this cannot be told."""
    inputs = [memo.get(i) for i in node.inputs]
    if any(names is None for names in inputs) or node.schema is None:
        return None
    body = node.node.body
    direct: list[str | None]
    if node.kind in _SAME_COLUMNS and len(inputs) == 1:
        direct = list(inputs[0])
    elif node.kind in ("project", "aggregate") and len(inputs) == 1:
        w = Words(model, renamed(node.info.incoming, inputs[0]), outer_records(model, node.id))
        if node.kind == "project":
            keeps = project_outputs_input(body, model.conventions.project_keeps_input)
            direct = (list(inputs[0]) if keeps else []) + [
                _computed(model, node, w, inputs[0], e) for e in body.expressions
            ]
        else:
            layout = aggregate_layout(body, model.conventions)
            keys = [w.expr(body.grouping_expressions[r]) for r in layout.keys]
            measures = [
                aggregate_words(
                    w,
                    w.function(m.measure.function_reference),
                    m.measure.arguments,
                    m.measure.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT,
                    noun=True,
                    sorts=m.measure.sorts,
                    options=m.measure.options,
                )
                for m in body.measures
            ]
            direct = _aggregate_columns(layout, keys, measures)
    elif node.kind in PAIRING and inputs:
        kept, mark = row_sides(node.kind, body, len(inputs))
        direct = [n for k in kept for n in inputs[k]] + ([None] if mark else [])
    elif node.kind == "set" and inputs:
        direct = list(inputs[0])  # a set operation's columns bear its first input's names
    else:
        return None
    direct = emitted(body, direct)
    return direct if len(direct) == len(node.schema) else None


def placed(name: str, k: int, n: int) -> str:
    """The ``k``-th of ``n`` columns named ``name``: "n_name (the 2nd of 2)"."""
    return f"{name} (the {ordinal(k)} of {n})"


def _computed(model: PlanModel, node: NodeView, w: Words, names: Sequence[str], e: algebra_pb2.Expression) -> str:
    """A project's expression ``e`` in words as a column's name, the columns it reads named by ``names``
    (of its input); two of one name told apart by their places: TPC-DS q02's ratio of two weeks' sums,
    "(the sum … 'Sunday') ÷ (the sum … 'Sunday')", read as a value divided by itself."""
    said = Counter(names[i] for i in root_fields(e) if 0 <= i < len(names))
    if all(k < 2 for k in said.values()):
        return w.expr(e)
    times, seen = Counter(names), Counter()
    told = []
    for n in names:
        seen[n] += 1
        told.append(placed(n, seen[n], times[n]) if said[n] > 1 else n)
    return Words(model, renamed(node.info.incoming, told), outer_records(model, node.id)).expr(e)


def _aggregate_columns(layout: AggregateLayout, keys: list[T | None], measures: list[T | None]) -> list[T | None]:
    """An aggregate's output columns before its emit, each as given for its key or measure: the keys,
    DataFusion's grouping id (None), the measures."""
    return keys + [None] * (layout.grouping_column == "datafusion") + measures


def emitted(body, columns: list[T | None]) -> list[T | None]:
    """A relation's ``columns`` as its emit orders them (None for an index out of range)."""
    mapping = emit(body)
    if mapping is None:
        return columns
    return [columns[m] if 0 <= m < len(columns) else None for m in mapping]


def renamed(fields: Sequence[Field] | None, names: Sequence[str]) -> Sequence[Field] | None:
    """``fields`` named ``names`` (the same fields where the counts differ)."""
    if fields is None or len(fields) != len(names):
        return fields
    return [f if f.name == n else f.renamed(n) for f, n in zip(fields, names)]


def spoken_record(model: PlanModel, node: NodeView, incoming: Sequence[Field]) -> Sequence[Field]:
    """The record a node's expressions read, its columns named as :func:`column_names` names its
    inputs' (the inputs' columns one after another)."""
    names: list[str] = []
    for i in node.inputs:
        own = column_names(model, i)
        if own is None:
            return incoming
        names.extend(own)
    return renamed(incoming, names) or incoming
