"""Plain-language descriptions of a plan's relations, for people who do not read Substrait.

``describe(model, node_id)`` gives one or two short sentences ("Keeps orders whose quantity is above
10", "Joins orders to products on product_id = product_id, keeping only matches", "Sums quantity ×
price per product_id and product_name"); ``describe_plan(model)`` gives every node's sentence,
memoised on the model.

One dispatch table here: relation kind -> describer (``_DESCRIBE``). The expressions inside a
relation are put into words by :mod:`viz.words` (its ``Words``), which names field references from
the record the node's expressions read (``node.info.incoming``). A describer that fails on an odd
plan never stops the rest: the node gets a generic sentence and the failure is kept (see
:func:`describe_failures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from substrait import algebra_pb2

from .expressions import integer_literal, is_true
from .fields import Field
from .kinds import emit, project_outputs_input
from .model import MemoBeside, NodeView, PlanModel
from .schema import aggregate_layout
from .words import (  # Words, literal_words, aggregate_words, MAX_ITEMS and MAX_TEXT are re-exported
    MAX_ITEMS,
    MAX_TEXT,
    Expression,
    Words,
    and_list,
    capped_list,
    conjuncts,
    counted,
    aggregate_words,
    is_column_equality,
    literal_words,
)

#: Column lists show this many names, then "and N more".
MAX_COLUMNS = 6


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "…", "?", "!")) else text + "."


# ---------------------------------------------------------------------------------------------
# Relations in words
# ---------------------------------------------------------------------------------------------

@dataclass
class _Ctx:
    model: PlanModel
    node: NodeView
    things: Callable[[str], str | None]  # the table a node's rows come from, when there is one
    combined: Callable[[str], str | None]  # the same, or "combined a and b rows" for a few tables
    step: Callable[[str], str]  # another node as the story calls it: "step 6" (with its id when asked)

    @property
    def body(self):
        return self.node.node.body

    def words(self, fields: Sequence[Field] | None = None, use_incoming: bool = True) -> Words:
        incoming = self.node.info.incoming
        if use_incoming and incoming is not None:
            incoming = _spoken_record(self.model, self.node, incoming)
        return Words(self.model, incoming if use_incoming else fields, _outer_records(self.model, self.node.id))

    def rows_of(self, node_id: str) -> str:
        return self.things(node_id) or "rows"

    def input(self, k: int) -> str | None:
        return self.node.inputs[k] if k < len(self.node.inputs) else None

    def side(self, k: int) -> str | None:
        """Input ``k`` of a join in words: its tables ("combined customer and orders rows"), else
        the step that makes it ("the result of step 44"); None when there is no such input."""
        node_id = self.input(k)
        if node_id is None:
            return None
        return self.combined(node_id) or f"the result of {self.step(node_id)}"


def _outer_records(model: PlanModel, node_id: str) -> list[Sequence[Field] | None]:
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


def _columns(fields: Sequence[Field] | None, limit: int = MAX_COLUMNS) -> str:
    if not fields:
        return ""
    names = [f.name for f in fields]
    return capped_list(names, limit)


def _read(c: _Ctx) -> str:
    r: algebra_pb2.ReadRel = c.body
    which = r.WhichOneof("read_type")
    schema = c.node.schema
    base = c.node.info.incoming
    width = len(base) if base is not None else None
    cols = ""
    if schema is not None:
        shown = _columns(schema)
        if width is not None and r.HasField("projection") and len(schema) != width:
            cols = f" ({len(schema)} of {width} columns: {shown})"
        elif schema:
            cols = f" ({counted(len(schema), 'column')}: {shown})"
    if which == "named_table":
        what = f"Reads table {'.'.join(r.named_table.names) or '(unnamed)'}{cols}"
    elif which == "local_files":
        items = r.local_files.items
        fmts = {it.WhichOneof("file_format") for it in items} - {None}
        fmt = fmts.pop() + " " if len(fmts) == 1 else ""
        paths = [getattr(it, it.WhichOneof("path_type") or "uri_path") for it in items]
        names = [p.rstrip("/").rsplit("/", 1)[-1] or p for p in paths]
        what = f"Reads {counted(len(items), fmt + 'file')}" + (f" ({capped_list(names, 2)})" if names else "") + cols
    elif which == "virtual_table":
        rows = len(r.virtual_table.expressions) or len(getattr(r.virtual_table, "values", ()))
        what = f"A table of {counted(rows, 'row')} written into the plan{cols}"
    elif which == "extension_table":
        what = f"Reads a custom table ({r.extension_table.detail.type_url.rsplit('/', 1)[-1] or 'extension'}){cols}"
    elif which == "iceberg_table":
        what = f"Reads an Iceberg table{cols}"
    else:
        what = f"Reads a table the plan does not name{cols}"
    sentences = [_sentence(what)]
    if r.HasField("filter") or r.HasField("best_effort_filter"):
        w = c.words()
        cond = r.filter if r.HasField("filter") else r.best_effort_filter
        things = ".".join(r.named_table.names[-1:]) if which == "named_table" else "rows"
        words = w.condition(cond)
        sentences.append(_sentence(f"Keeps only {_rows(things)} {_whose(w, words)} {words}"))
    return " ".join(sentences)


def _whose(w: Words, text: str) -> str:
    """"whose" when a condition's words start with the name of one of the row's own columns (one
    word: "l_shipdate is ..."), else "where" ("the sum of ...", "'Computers' is not in ...")."""
    first = text.split(" ", 1)[0]
    own = {f.name for f in w.fields or () if " " not in f.name}
    return "whose" if first in own else "where"


def _rows(things: str) -> str:
    """"the rows of orders" for a table's name (whether its name is singular or plural), "the
    combined ... rows", "rows"."""
    if things == "rows":
        return things
    return f"the {things}" if things.startswith("combined ") else f"the rows of {things}"


def _filter(c: _Ctx) -> str:
    w = c.words()
    cond = c.body.condition
    things = c.rows_of(c.input(0)) if c.input(0) else "rows"
    parts = conjuncts(w, cond)
    keys = [e for e in parts if is_column_equality(w, e)]
    if keys and c.input(0) and _pairs_all(c.model, c.input(0)):
        # the filter that holds the keys of the cross products below it: the matching first, then the rest
        rest = [e for e in parts if not is_column_equality(w, e)]
        combined = c.combined(c.input(0)) or "rows"
        text = _sentence(f"Keeps {_rows(combined) if combined != 'rows' else 'the rows'} that match on {and_list(w.conditions_of(keys))}")
        if rest:
            words = and_list(w.conditions_of(rest))
            text += " " + _sentence(f"Of those, keeps the rows {_whose(w, words)} {words}")
        return text
    words = w.condition(cond)
    return _sentence(f"Keeps {_rows(things)} {_whose(w, words)} {words}")


def _pairs_all(model: PlanModel, node_id: str) -> bool:
    """Whether a node pairs every row of one input with every row of the other: a cross product, or
    an inner join without a condition (so DataFusion writes them)."""
    node = model.node(node_id)
    if node.kind == "cross":
        return True
    body = node.node.body
    return node.kind == "join" and _join_type(body) == "inner" and (
        not body.HasField("expression") or is_true(body.expression))


def _is_plain_field(e: Expression) -> bool:
    return e.WhichOneof("rex_type") == "selection"


def _project(c: _Ctx) -> str:
    w = c.words()
    exprs = list(c.body.expressions)
    given = _given_names(c.model, c.node.id, len(exprs))
    computed = [f"{given[i]} = {w.expr(e)}" if given[i] else w.expr(e) for i, e in enumerate(exprs) if not _is_plain_field(e)]
    names = column_names(c.model, c.node.id) or []
    narrows = emit(c.body) is not None or not c.model.conventions.project_keeps_input
    if not computed:
        if names:
            return _sentence(f"Keeps columns {capped_list(names, MAX_COLUMNS)}")
        return "Passes its input through."
    if len(computed) == 1:
        named = any(given)
        text = f"Adds column {computed[0]}" if named else f"Adds {computed[0]} as a new column"
    else:
        text = f"Adds {len(computed)} new columns: " + "; ".join(computed[:MAX_ITEMS]) + (
            f"; and {len(computed) - MAX_ITEMS} more" if len(computed) > MAX_ITEMS else ""
        )
    out = _sentence(text)
    if narrows and names:
        out += " " + _sentence(f"Outputs columns {capped_list(names, MAX_COLUMNS)}")
    return out


def _join_type(body) -> str:
    enum = body.DESCRIPTOR.fields_by_name["type"].enum_type
    value = enum.values_by_number.get(body.type)
    name = value.name if value is not None else "JOIN_TYPE_UNSPECIFIED"
    return name.replace("JOIN_TYPE_", "").lower()


def _join_sentence(c: _Ctx, kind: str, on: str, how: str = "") -> str:
    left, right = c.side(0), c.side(1)
    l_name, r_name = left or "the left rows", right or "the right rows"
    on_text = f" on {on}" if on else ""
    verb = f"Joins{how}"
    if kind in ("left_semi", "right_semi", "left_anti", "right_anti"):
        keep, other = (l_name, r_name) if kind.startswith("left") else (r_name, l_name)
        has = "have a match" if kind.endswith("semi") else "have no match"
        return _sentence(f"Keeps {keep} that {has} in {other}{on_text}")
    if kind in ("left_mark", "right_mark"):
        marked, other = (l_name, r_name) if kind == "left_mark" else (r_name, l_name)
        return _sentence(f"Marks each of {marked} with whether it has a match in {other}{on_text}")
    tails = {
        "inner": "keeping only matches",
        "left": f"keeping all {l_name}, with {r_name} where they match",
        "right": f"keeping all {r_name}, with {l_name} where they match",
        "outer": "keeping every row of both sides, matched where possible",
        "left_single": f"keeping all {l_name}, each with at most one match from {r_name}",
        "right_single": f"keeping all {r_name}, each with at most one match from {l_name}",
        "unspecified": "(the join type is not given)",
    }
    tail = tails.get(kind, f"as a {kind.replace('_', ' ')} join")
    target = f"{l_name} to {r_name}" if (left or right) else "its two inputs"
    return _sentence(f"{verb} {target}{on_text}, {tail}")


def _given_names(model: PlanModel, node_id: str, count: int) -> list[str | None]:
    """For each of a project's ``count`` expressions, the name the plan's root gives its column
    (``revenue``), or None: its words then say what it is."""
    node = model.node(node_id)
    out: list[str | None] = [None] * count
    names, schema = root_names(model).get(node_id), node.schema
    if not names or schema is None or node.kind != "project":
        return out
    body = node.node.body
    width = len(node.info.incoming or ()) if project_outputs_input(body, model.conventions.project_keeps_input) else 0
    mapping = emit(body)
    for j, m in enumerate(mapping if mapping is not None else range(len(schema))):
        k = m - width
        if 0 <= k < count and j < len(names) and names[j] and not _is_expression_name(names[j]) \
                and names[j] != schema[j].name:
            out[k] = names[j]
    return out


def _post_filter(c: _Ctx) -> str:
    body = c.body
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        w = c.words()
        return " " + _sentence(f"Then keeps rows where {w.condition(body.post_join_filter)}")
    return ""


def _join(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    on = w.condition(body.expression) if body.HasField("expression") else ""
    if _join_type(body) == "inner" and (not on or is_true(body.expression)):
        # DataFusion writes every inner join so, with the keys in a filter above: say what the join
        # itself does, and where its condition is
        return _cross(c) + _post_filter(c)
    return _join_sentence(c, _join_type(body), on) + _post_filter(c)


def _condition_above(c: _Ctx) -> str:
    """Where the condition of a join without one is: the first filter above it, through other joins
    without one (a chain of them is one cross product that filter narrows)."""
    nodes = c.model.graph.nodes
    cur = nodes.get(c.node.node.parent) if c.node.node.parent else None
    while cur is not None and cur.kind in ("join", "cross") and _join_type_of(cur.body) in ("inner", "cross"):
        if cur.kind == "join" and cur.body.HasField("expression") and not is_true(cur.body.expression):
            return ""
        cur = nodes.get(cur.parent) if cur.parent else None
    if cur is None or cur.kind != "filter":
        return "" if c.node.kind == "cross" else " It has no join condition."
    return f" The filter at {c.step(cur.id)} keeps the matching pairs."


def _join_type_of(body) -> str:
    return _join_type(body) if "type" in body.DESCRIPTOR.fields_by_name else "cross"


def _keys_join(c: _Ctx) -> str:
    body = c.body
    left = c.model.node(c.input(0)).schema if c.input(0) else None
    right = c.model.node(c.input(1)).schema if c.input(1) else None
    wl, wr = c.words().with_fields(left), c.words().with_fields(right)
    keys = []
    for k in body.keys:
        op = "=" if k.comparison.simple != 2 else "is the same as"
        keys.append(f"{wl.selection(k.left)} {op} {wr.selection(k.right)}")
    if not keys and len(body.left_keys) == len(body.right_keys):  # the deprecated key lists
        keys = [f"{wl.selection(a)} = {wr.selection(b)}" for a, b in zip(body.left_keys, body.right_keys)]
    how = {"hash_join": " (by hashing)", "merge_join": " (by merging sorted inputs)"}.get(c.node.kind, "")
    return _join_sentence(c, _join_type(body), capped_list(keys, MAX_ITEMS, "more keys"), how) + _post_filter(c)


def _nested_loop_join(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    on = w.condition(body.expression) if body.HasField("expression") else ""
    return _join_sentence(c, _join_type(body), on, " (comparing every pair)")


def _lateral_join(c: _Ctx) -> str:
    return _join(c).replace("Joins", "For each left row, joins", 1)


def _cross(c: _Ctx) -> str:
    left, right = c.side(0) or "rows", c.side(1) or "rows"
    if left == right == "rows":
        text = "Pairs every row of one input with every row of the other (a cross product)."
    else:
        text = _sentence(f"Pairs every row of {left} with every row of {right} (a cross product)")
    return text + _condition_above(c)


def _aggregate(c: _Ctx) -> str:
    body: algebra_pb2.AggregateRel = c.body
    w = c.words()
    keys = [w.expr(e) for e in body.grouping_expressions]
    groupings: list[list[str]] = []
    for g in body.groupings:
        own = list(getattr(g, "grouping_expressions", ()))  # the deprecated form, in older protos
        if g.expression_references or not own:
            groupings.append([keys[r] if 0 <= r < len(keys) else f"key {r}" for r in g.expression_references])
        else:
            groupings.append([w.expr(e) for e in own])
    measures = []
    given = _measure_names(c.model, c.node.id)
    for i, m in enumerate(body.measures):
        f = m.measure
        text = aggregate_words(w, w.function(f.function_reference), f.arguments,
                               f.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT)
        if i < len(given) and given[i]:
            text += f" as {given[i]}"
        if m.HasField("filter"):
            text += f" (only where {w.condition(m.filter)})"
        measures.append(text)
    measures = _same_verbs(measures)
    if len(measures) > MAX_MEASURES:
        measures = measures[:MAX_MEASURES] + [f"computes {counted(len(measures) - MAX_MEASURES, 'more total')}"]
    what = and_list(measures) if measures else ""
    if len(groupings) > 1:
        sets = ["per " + and_list(g) if g else "over all rows" for g in groupings]
        if measures:
            return _sentence(f"{what}, for {counted(len(groupings), 'grouping')}: " + "; ".join(sets[:4]) + ("; …" if len(sets) > 4 else ""))
        return _sentence(f"Lists the distinct groups for {counted(len(groupings), 'grouping')}: " + "; ".join(sets[:4]))
    group = groupings[0] if groupings else []
    if not measures:
        return _sentence(f"Keeps one row per distinct {capped_list(group, MAX_COLUMNS)}") if group else "Produces one empty row."
    if group:
        return _sentence(f"{what} per {capped_list(group, MAX_COLUMNS)}")
    if what == "counts rows":
        return "Counts all rows."
    return _sentence(f"{what} over all rows")


#: An aggregate's sentence says this many of its measures.
MAX_MEASURES = 6
_MERGED_VERBS = ("sums ", "averages ", "counts ")


def _same_verbs(measures: list[str]) -> list[str]:
    """Measures one after another with the same verb said once: "sums a, b and c"."""
    out: list[list[str]] = []
    for text in measures:
        verb = next((v for v in _MERGED_VERBS if text.startswith(v)), None)
        if verb is not None and out and out[-1][0] == verb:
            out[-1].append(text[len(verb):])
        else:
            out.append([verb or "", text[len(verb):] if verb else text])
    return [verb + and_list([f"({i})" if " + " in i or " − " in i else i for i in items] if len(items) > 1 else items)
            if verb else items[0] for verb, *items in out]


def _measure_names(model: PlanModel, node_id: str) -> list[str | None]:
    """For each of an aggregate's measures, the name the plan's root gives its column (``revenue``),
    or None."""
    node = model.node(node_id)
    body = node.node.body
    names, schema = root_names(model).get(node_id), node.schema
    out: list[str | None] = [None] * len(body.measures)
    if not names or schema is None or emit(body) is not None:
        return out
    layout = aggregate_layout(body, model.conventions)
    first = len(layout.keys) + (1 if layout.grouping_column == "datafusion" else 0)
    for i in range(len(body.measures)):
        j = first + i
        if j < len(names) and j < len(schema) and names[j] and names[j] != schema[j].name \
                and not _is_expression_name(names[j]):
            out[i] = names[j]
    return out


def _sort_words(w: Words, sorts) -> str:
    parts = []
    for i, s in enumerate(sorts):
        text = w.expr(s.expr)
        if s.WhichOneof("sort_kind") == "direction":
            d = s.direction
            if d in (3, 4):  # DESC NULLS FIRST / LAST
                text += ", highest first"
            elif d == 5:
                text += ", grouping equal values together"
        else:
            text += " (by a custom comparison)"
        parts.append(text if i == 0 else f"then {text}")
    if len(parts) > 4:
        parts = parts[:4] + [f"then {len(parts) - 4} more keys"]
    return ", ".join(parts)


def _sort(c: _Ctx) -> str:
    return _sentence(f"Sorts by {_sort_words(c.words(), c.body.sorts)}")


def _count_words(w: Words, body, name: str) -> tuple[str | None, bool]:
    """(the value in words, whether it is a plain number) for fetch/top-n's count or offset."""
    expr_field = f"{name}_expr"
    if expr_field in body.DESCRIPTOR.fields_by_name and body.HasField(expr_field):
        e = getattr(body, expr_field)
    elif name in body.DESCRIPTOR.fields_by_name and body.DESCRIPTOR.fields_by_name[name].message_type is not None:
        if not body.HasField(name):
            return None, True
        e = getattr(body, name)
    elif name in body.DESCRIPTOR.fields_by_name:
        value = getattr(body, name)
        return (str(value), True) if value else (None, True)
    else:
        return None, True
    v = integer_literal(e)
    if v is not None:
        return (None, True) if (v < 0 and name == "count") or (v == 0 and name == "offset") else (str(v), True)
    return w.expr(e), False


def _fetch(c: _Ctx) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    if count is None and offset is None:
        return "Keeps all rows."
    if offset is None:
        return "Keeps the first row." if count == "1" else _sentence(f"Keeps the first {count} rows")
    if count is None:
        return _sentence(f"Skips the first {offset} rows and keeps the rest")
    return _sentence(f"Skips the first {offset} rows and keeps the next {count}")


def _top_n(c: _Ctx) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    rows = f"the top {count} rows" if count else "all rows"
    skip = f", after skipping {offset}" if offset else ""
    return _sentence(f"Keeps {rows}{skip} sorted by {_sort_words(w, c.body.sorts)}")


_SET_WORDS = {
    "union_all": "Stacks the rows of its {n} inputs, keeping duplicates (union all)",
    "union_distinct": "Combines the rows of its {n} inputs, dropping duplicates (union)",
    "minus_primary": "Keeps the rows of the first input that appear in none of the other inputs (except)",
    "minus_primary_all": "Keeps the rows of the first input not matched by rows of the other inputs, counting duplicates (except all)",
    "minus_multiset": "Keeps the rows of the first input except those that appear in all of the other inputs",
    "intersection_primary": "Keeps the rows of the first input that appear in at least one other input",
    "intersection_multiset": "Keeps the rows of the first input that appear in every other input (intersect)",
    "intersection_multiset_all": "Keeps the rows that appear in every input, counting duplicates (intersect all)",
}


def _set(c: _Ctx) -> str:
    op = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number.get(c.body.op)
    name = op.name.replace("SET_OP_", "").lower() if op is not None else "unspecified"
    template = _SET_WORDS.get(name, "Combines the rows of its {n} inputs (the set operation is not given)")
    return _sentence(template.format(n=len(c.node.inputs)))


def _window(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    funcs = [aggregate_words(w, w.function(f.function_reference), f.arguments, False, noun=True) for f in body.window_functions]
    text = f"Adds {counted(len(funcs), 'window column')}: {capped_list(funcs, MAX_ITEMS)}" if funcs else "Adds window columns"
    if body.partition_expressions:
        text += ", per " + capped_list([w.expr(p) for p in body.partition_expressions], MAX_ITEMS)
    if body.sorts:
        text += ", in order of " + capped_list([w.expr(s.expr) for s in body.sorts], MAX_ITEMS)
    return _sentence(text)


def _exchange(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    kind = body.WhichOneof("exchange_kind")
    parts = f" into {body.partition_count} partitions" if body.partition_count else ""
    if kind == "scatter_by_fields":
        keys = capped_list([w.selection(f) for f in body.scatter_by_fields.fields], MAX_ITEMS)
        return _sentence(f"Redistributes the rows{parts} by {keys}")
    if kind == "broadcast":
        return _sentence(f"Copies every row to all partitions{parts}")
    if kind == "round_robin":
        return _sentence(f"Deals the rows out in turn{parts}")
    if kind in ("single_target", "multi_target"):
        return _sentence(f"Sends each row to the partition{'s' if kind == 'multi_target' else ''} chosen by {w.expr(getattr(body, kind).expression)}")
    return _sentence(f"Redistributes the rows{parts}")


def _expand(c: _Ctx) -> str:
    dup = max((len(f.switching_field.duplicates) for f in c.body.fields if f.WhichOneof("field_type") == "switching_field"), default=1)
    return _sentence(f"Makes {counted(dup, 'copy', 'copies')} of each row, varying some columns (as for grouping sets)")


def _reference(c: _Ctx) -> str:
    target = c.input(0)
    ordinal = c.body.subtree_ordinal
    if target is None:
        return _sentence(f"Reuses shared relation {ordinal}")
    things = c.things(target)
    from .render import title

    what = f"the {title(c.model.node(target).kind).lower()} result of {c.step(target)}"
    return _sentence(f"Reuses {what}" + (f" over {things}" if things else ""))


def _extension(c: _Ctx) -> str:
    detail = c.body.detail.type_url.rsplit("/", 1)[-1] or "no detail"
    return _sentence(f"A custom step ({detail}) defined by the plan's producer; its meaning is not known here")


def _write(c: _Ctx) -> str:
    body = c.body
    op = algebra_pb2.WriteRel.WriteOp.Name(body.op).replace("WRITE_OP_", "").lower() if body.op in algebra_pb2.WriteRel.WriteOp.DESCRIPTOR.values_by_number else "unspecified"
    target = ".".join(body.named_table.names) if body.HasField("named_table") else "a custom table"
    verbs = {
        "insert": f"Inserts the rows into table {target}",
        "delete": f"Deletes the matching rows from table {target}",
        "update": f"Updates the matching rows of table {target}",
        "ctas": f"Creates table {target} from the rows",
    }
    return _sentence(verbs.get(op, f"Writes the rows to table {target}"))


def _ddl(c: _Ctx) -> str:
    body = c.body
    op = algebra_pb2.DdlRel.DdlOp.Name(body.op).replace("DDL_OP_", "").lower().replace("_", " ") if body.op in algebra_pb2.DdlRel.DdlOp.DESCRIPTOR.values_by_number else "changes"
    obj = algebra_pb2.DdlRel.DdlObject.Name(body.object).replace("DDL_OBJECT_", "").lower() if body.object in algebra_pb2.DdlRel.DdlObject.DESCRIPTOR.values_by_number else "object"
    target = ".".join(body.named_object.names) if body.HasField("named_object") else "a custom object"
    verb = {"create": "Creates", "create or replace": "Creates or replaces", "alter": "Alters", "drop": "Drops",
            "drop if exist": "Drops (if it exists)"}.get(op, f"Changes ({op})")
    return _sentence(f"{verb} {obj} {target}")


def _update(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    names = [f.name for f in c.node.info.incoming or []]
    sets = [f"{names[t.column_target] if 0 <= t.column_target < len(names) else f'column {t.column_target}'} to {w.expr(t.transformation)}" for t in body.transformations]
    text = f"Updates table {'.'.join(body.named_table.names)}"
    if body.HasField("condition"):
        text += f" where {w.condition(body.condition)}"
    if sets:
        text += ", setting " + capped_list(sets, MAX_ITEMS)
    return _sentence(text)


_DESCRIBE: dict[str, Callable[[_Ctx], str]] = {
    "read": _read,
    "filter": _filter,
    "project": _project,
    "join": _join,
    "lateral_join": _lateral_join,
    "hash_join": _keys_join,
    "merge_join": _keys_join,
    "nested_loop_join": _nested_loop_join,
    "cross": _cross,
    "aggregate": _aggregate,
    "sort": _sort,
    "fetch": _fetch,
    "top_n": _top_n,
    "set": _set,
    "window": _window,
    "exchange": _exchange,
    "expand": _expand,
    "reference": _reference,
    "extension_single": _extension,
    "extension_multi": _extension,
    "extension_leaf": _extension,
    "write": _write,
    "ddl": _ddl,
    "update": _update,
}


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

@dataclass
class _Memo:
    sentences: dict[tuple[bool, str], str] = field(default_factory=dict)  # (ids shown, node id) -> words
    tables: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    columns: dict[str, list[str] | None] = field(default_factory=dict)
    steps: dict[str, int] | None = None
    failures: dict[str, str] = field(default_factory=dict)
    root_names: dict[str, list[str | None]] | None = None


#: Relations whose output columns are their input's (through their emit), so a name the root gives
#: a column is that column's name below them too.
_PASSING = frozenset({"filter", "sort", "fetch", "project"})


def root_names(model: PlanModel) -> dict[str, list[str | None]]:
    """Per node, the name the plan's root gives each output column that reaches the root unchanged
    (through filters, sorts, fetches and projects), else None: DataFusion and isthmus name a computed
    column by its expression below the root (``sum(multiply(…``) and only the root says ``revenue``.
    Top-down from each root; memoised."""
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
        parent = model.node(node_id)
        above = out.get(node_id)
        if above is None or parent.kind not in _PASSING or len(parent.inputs) != 1:
            continue
        child = parent.inputs[0]
        below = model.node(child).schema
        if below is None:
            continue
        body = parent.node.body
        # the direct output's fields, as positions in the input (None: computed here)
        sources: list[int | None] = list(range(len(below)))
        if parent.kind == "project":
            if not project_outputs_input(body, model.conventions.project_keeps_input):
                sources = []  # a producer's project that outputs only its expressions
            sources += [_plain_field_index(e) for e in body.expressions]
        mapping = emit(body)
        names = out.setdefault(child, [None] * len(below))
        for j, m in enumerate(mapping if mapping is not None else range(len(sources))):
            source = sources[m] if 0 <= m < len(sources) else None
            if j < len(above) and source is not None and 0 <= source < len(below) and names[source] is None:
                names[source] = above[j]
    memo.root_names = out
    return out


def _plain_field_index(e: Expression) -> int | None:
    """The input field a plain field reference (``$3``) names, else None."""
    if e.WhichOneof("rex_type") != "selection":
        return None
    ref = e.selection
    if ref.WhichOneof("root_type") not in (None, "root_reference") or ref.WhichOneof("reference_type") != "direct_reference":
        return None
    seg = ref.direct_reference
    if seg.WhichOneof("reference_type") != "struct_field" or seg.struct_field.HasField("child"):
        return None
    return seg.struct_field.field


def _is_expression_name(name: str) -> bool:
    """A name a producer made from an expression (``sum(multiply(l_extendedprice, …``), not a name
    someone gave."""
    return "(" in name


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
    names = [f.name for f in node.schema]
    if not any(_is_expression_name(n) for n in names):
        return names
    given = root_names(model).get(node_id) or []
    spoken = _spoken(model, node, memo) or []
    out = []
    for i, name in enumerate(names):
        if _is_expression_name(name):
            if i < len(given) and given[i] and not _is_expression_name(given[i]):
                name = given[i]
            elif i < len(spoken) and spoken[i]:
                name = spoken[i]
        out.append(name)
    return out


#: Relations that output their one input's columns as they are (then their emit).
_SAME_COLUMNS = frozenset({"filter", "sort", "fetch", "top_n", "exchange", "reference"})
_PAIRING = frozenset({"join", "cross", "hash_join", "merge_join", "nested_loop_join"})


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
        w = Words(model, _renamed(node.info.incoming, inputs[0]), _outer_records(model, node.id))
        if node.kind == "project":
            keeps = project_outputs_input(body, model.conventions.project_keeps_input)
            direct = (list(inputs[0]) if keeps else []) + [w.expr(e) for e in body.expressions]
        else:
            layout = aggregate_layout(body, model.conventions)
            direct = [w.expr(body.grouping_expressions[r]) for r in layout.keys]
            direct += [None] if layout.grouping_column == "datafusion" else []
            direct += [aggregate_words(w, w.function(m.measure.function_reference), m.measure.arguments,
                                       m.measure.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT,
                                       noun=True) for m in body.measures]
    elif node.kind in _PAIRING and inputs:
        direct = [n for names in inputs for n in names]
    else:
        return None
    mapping = emit(body)
    if mapping is not None:
        direct = [direct[m] if 0 <= m < len(direct) else None for m in mapping]
    elif node.kind in _PAIRING and len(direct) != len(node.schema):
        direct = list(inputs[0])  # a semi or anti join: the left side's columns
    return direct if len(direct) == len(node.schema) else None


def _renamed(fields: Sequence[Field] | None, names: Sequence[str]) -> Sequence[Field] | None:
    if fields is None or len(fields) != len(names):
        return fields
    return [f if f.name == n else f.renamed(n) for f, n in zip(fields, names)]


def _spoken_record(model: PlanModel, node: NodeView, incoming: Sequence[Field]) -> Sequence[Field]:
    """The record a node's expressions read, its columns named as :func:`column_names` names its
    inputs' (the inputs' columns one after another)."""
    names: list[str] = []
    for i in node.inputs:
        own = column_names(model, i)
        if own is None:
            return incoming
        names.extend(own)
    return _renamed(incoming, names) or incoming


#: This module's memo for a model, kept beside it (not in it) for as long as it lives.
_memo = MemoBeside(_Memo)


def _tables(model: PlanModel, node_id: str) -> tuple[str, ...] | None:
    """The named tables a node's rows come from, once per read (inputs followed, subqueries not),
    sorted; None when some leaf is not a named table. Bottom-up (the graph's post-order), memoised."""
    memo = _memo(model).tables
    nodes = model.graph.nodes
    for cur in model.graph.post_order([node_id], subqueries=False, done=memo):
        node = nodes[cur]
        if not node.inputs:
            body = node.body
            named = node.kind == "read" and body.WhichOneof("read_type") == "named_table" and body.named_table.names
            memo[cur] = (body.named_table.names[-1],) if named else None
            continue
        parts = [memo.get(i) for i in node.inputs]  # an input still unknown here (a cycle) counts as None
        if any(p is None for p in parts) or node.kind == "aggregate":
            memo[cur] = None  # an aggregate's rows are its groups, not a table's rows
        elif node.kind in _PAIRING or node.kind == "set":
            memo[cur] = tuple(sorted(t for p in parts for t in p))
        else:  # one input, or a reference to a shared one: the same rows
            memo[cur] = parts[0] if len(parts) == 1 else tuple(sorted(set(t for p in parts for t in p)))
    return memo[node_id]


def _things(model: PlanModel, combined: bool = False) -> Callable[[str], str | None]:
    """Names a node's rows by their table ("orders"); with ``combined``, rows of two or three
    tables become "combined orders and customer rows", of more "combined rows of 5 tables" (a
    table read twice counted twice, so a chain of joins counts up). None when there is no such
    name."""

    def things(node_id: str) -> str | None:
        if node_id not in model.graph.nodes:
            return None
        reads = _tables(model, node_id)
        if not reads:
            return None
        tables = sorted(set(reads))
        if len(tables) == 1 and (len(reads) == 1 or not combined):
            return tables[0]
        if combined and len(tables) == len(reads) <= 3:
            return f"combined {and_list(tables)} rows"
        if combined:
            return f"combined rows of {len(reads)} tables"
        return None

    return things


def _step(model: PlanModel, ids: bool) -> Callable[[str], str]:
    """Names another node as the story does: "step 6", its place in :func:`story_order`; with
    ``ids`` its node id too ("step 6 (node 0.0*4)")."""
    memo = _memo(model)
    if memo.steps is None:
        memo.steps = {node_id: i for i, node_id in enumerate(story_order(model), start=1)}
    steps = memo.steps

    def step(node_id: str) -> str:
        number = steps.get(node_id)
        if number is None:
            return f"node {node_id}"
        return f"step {number} (node {node_id})" if ids else f"step {number}"

    return step


def describe(model: PlanModel, node_id: str, ids: bool = False) -> str:
    """One or two plain sentences saying what node ``node_id`` does. Another node is named by its
    step in :func:`story_order` ("the filter at step 6"), with its node id only when ``ids`` (the
    technical marks). Never raises for a node of the model: a describer that fails yields a generic
    sentence (and :func:`describe_failures` lists it)."""
    memo = _memo(model)
    if (ids, node_id) in memo.sentences:
        return memo.sentences[(ids, node_id)]
    node = model.node(node_id)
    describer = _DESCRIBE.get(node.kind)
    text = ""
    if describer is not None:
        try:
            text = describer(_Ctx(model, node, _things(model), _things(model, combined=True), _step(model, ids)))
        except Exception as exc:  # an odd plan must not stop the story: say so generically
            memo.failures[node_id] = f"{type(exc).__name__}: {exc}"
            text = ""
    if not text:
        from .render import title

        inputs = len(node.inputs)
        name = title(node.kind)
        article = "An" if name[:1].lower() in "aeiou" else "A"
        text = _sentence(f"{article} {name} step" + (f" over {counted(inputs, 'input')}" if inputs else ""))
    memo.sentences[(ids, node_id)] = text
    return text


def describe_plan(model: PlanModel, ids: bool = False) -> dict[str, str]:
    """Every node's sentence, by node id (memoised on the model); node ids in them only when ``ids``."""
    return {node_id: describe(model, node_id, ids) for node_id in model.graph.nodes}


def describe_failures(model: PlanModel) -> dict[str, str]:
    """Nodes whose describer failed (and got a generic sentence), with the error: for tests."""
    describe_plan(model)
    return dict(_memo(model).failures)


def story_order(model: PlanModel) -> list[str]:
    """Node ids from the leaves to the roots (inputs before the nodes that read them, subqueries
    before their enclosing node), each once: the order to tell a plan's story in."""
    return model.graph.post_order()


def story_runs(order: Sequence[str], sentences: dict[str, str]) -> list[tuple[int, int]]:
    """The story told without saying one thing twice in a row: ``(start, end)`` index ranges of
    ``order``, each a run of steps one after another whose sentences are the same (two reads of one
    table for a self-join) — one line each."""
    runs: list[tuple[int, int]] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and sentences[order[end]] == sentences[order[start]]:
            end += 1
        runs.append((start, end))
        start = end
    return runs


__all__ = [
    "describe", "describe_plan", "describe_failures", "story_order", "story_runs", "column_names",
    # re-exported from viz.words, where they live now
    "Words", "literal_words", "aggregate_words", "MAX_ITEMS", "MAX_TEXT",
]
