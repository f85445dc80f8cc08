"""Joins in words: the rows each side gives, on which keys (said as the same key where they are), and
what a join keeps of rows without a partner."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from substrait import algebra_pb2

from .. import types as T
from ..expressions import and_parts, direct_field, is_true, reference_field
from ..fields import Field
from ..kinds import emit, kind, project_outputs_input
from ..model import MemoBeside, PlanModel
from ..words import (
    MAX_ITEMS,
    Expression,
    and_list,
    argument_values,
    capped_list,
    conjuncts,
    is_column_equality,
)
from .context import Context, as_sentence, join_type, join_type_of, read_condition
from .names import column_names, is_expression_name, root_names, spoken_record

#: How :meth:`Context.side` names the rows another step makes.
_RESULT = "the result of "
#: A side's name that is a phrase of rows already ("step 28's combined … rows": a step's, :func:`_kept_of`).
_STEPS = "step "
_ROWS = ("the ", "those ", _STEPS)
#: Join types that keep one side's rows by whether they have a match in the other.
_KEEPING = ("left_semi", "right_semi", "left_anti", "right_anti")


def _rows_named(name: str) -> str:
    """A join's side as the rows a sentence keeps: "the rows of orders", "the rows of step 8", "the
    combined … rows" (a table's name alone reads wrongly for a singular one: "keeps item that have")."""
    if name.startswith(_RESULT):
        return "the rows of " + name.removeprefix(_RESULT)
    return name if name.startswith(_ROWS) else f"the rows of {name}"


def _other_named(name: str) -> str:
    """A join's side as the rows matched against: a table by its name, a step's result as "the rows
    of step 8"."""
    return "the rows of " + name.removeprefix(_RESULT) if name.startswith(_RESULT) else name


def _all_rows(name: str) -> str:
    """ "every row of orders", "every row of step 8", "all the combined … rows"."""
    if name.startswith(_RESULT):
        return "every row of " + name.removeprefix(_RESULT)
    if name.startswith(_STEPS):
        return f"all of {name}"
    return f"all {name}" if name.startswith(_ROWS) else f"every row of {name}"


@dataclass
class _Reads:
    by_table: dict[str, list[tuple[str, int]]] | None = None


_reads_memo = MemoBeside(_Reads)


def _reads_by_table(model: PlanModel) -> dict[str, list[tuple[str, int]]]:
    """The named-table reads of each root's tables (``0/orders``) with their steps, in the story's order
    (once per model)."""
    memo = _reads_memo(model)
    if memo.by_table is None:
        memo.by_table = {}
        for i, n in enumerate(model.graph.post_order()):
            body = model.node(n).node.body
            if model.node(n).kind == "read" and body is not None and body.WhichOneof("read_type") == "named_table":
                # within one root's relation: the plan's other roots are other queries
                key = f"{n.split('.', 1)[0]}/{'.'.join(body.named_table.names)}"
                memo.by_table.setdefault(key, []).append((n, i))
    return memo.by_table


def table_reads(model: PlanModel, node_id: str, table: str) -> list[tuple[str, int]]:
    """The reads of ``table`` in node ``node_id``'s root, each with its place in the story's order."""
    return _reads_by_table(model).get(f"{node_id.split('.', 1)[0]}/{table}", [])


def _looked_up(c: Context, k: int, name: str) -> str:
    """Input ``k`` of a semi, anti or mark join, the rows looked up, as the sentence names it: by its table
    ("orders") where they are all its rows, else by the step that leaves some out ("the web_sales rows of
    step 21": "a match in web_sales" read as any web sale, not those of the dates step 21 keeps), or where
    the kept rows come from that table too ("the lineitem rows of step 17": "a match in lineitem" of
    lineitem's rows read as always true)."""
    looked_up, kept = c.input(k), c.input(1 - k)
    if looked_up is not None and name.startswith("the combined "):
        return _kept_of(c, looked_up, name)
    if looked_up is None or kept is None or name.startswith(("the ", _RESULT)):
        return name
    leaves_out = _leaves_rows_out(c.model, looked_up)
    if leaves_out is not None:
        return f"the {name} rows of {c.step(leaves_out)}"
    if set(c.tables(looked_up) or ()) & set(c.tables(kept) or ()):
        return f"the {name} rows of {c.step(looked_up)}"
    return name


def _joined_side(c: Context, k: int, name: str | None) -> str | None:
    """Input ``k`` of a join (a semi join's kept rows) as the sentence names it: by its table, or, where the plan reads
    that table more than once, as those rows of the step that leaves some out, else of the input's step
    (TPC-DS q02 joins date_dim twice, to its 2001 weeks and to its 2002 weeks, and "to date_dim" said
    neither)."""
    node_id = c.input(k)
    if node_id is None or name is None or name.startswith(_RESULT):
        return name
    if name.startswith("the combined "):
        return _kept_of(c, node_id, name)
    if name.startswith("the ") or len(table_reads(c.model, node_id, name)) < 2:
        return name
    return f"the {name} rows of {c.step(_leaves_rows_out(c.model, node_id) or node_id)}"


def _kept_of(c: Context, node_id: str, name: str) -> str:
    """Combined rows (``name``, "the combined catalog_sales and item rows") that a semi or anti join below
    has narrowed, through steps that keep every row, as that join's ("step 28's combined catalog_sales and item
    rows"): TPC-DS q14's rows of 1999 to 2001 read as all of them."""
    for _ in range(len(c.model.graph.nodes)):
        node = c.model.node(node_id)
        if node.kind == "join" and join_type(node.node.body) in _KEEPING:
            return f"{c.step(node_id)}'s {name.removeprefix('the ')}"
        if len(node.inputs) != 1 or not (node.kind == "project" or kind(node.kind).keeps_input_rows):
            return name
        if kind(node.kind).drops_rows:
            return name
        node_id = node.inputs[0]
    return name


def _leaves_rows_out(model: PlanModel, node_id: str) -> str | None:
    """The first step at or below ``node_id`` that leaves rows of its table out (a filter, a read's own
    filter, a semi join, a fetch), through the steps that keep every row (a project, a sort); None where
    the rows are all the table's."""
    for _ in range(len(model.graph.nodes)):
        node = model.node(node_id)
        if node.kind == "read":
            return node_id if read_condition(node.node.body) is not None else None
        facts = kind(node.kind)
        if len(node.inputs) != 1 or not (node.kind == "project" or facts.keeps_input_rows):
            return node_id
        if facts.drops_rows and repeats_the_read(model, node_id) is None:
            return node_id
        node_id = node.inputs[0]
    return node_id


def _may_be_unknown(c: Context) -> bool:
    """Whether a mark join's mark can be unknown: its condition can be (its type is nullable, or not known)
    and the producer's mark is null then (not DataFusion's); False without a condition."""
    body = c.body
    if not c.model.conventions.mark_may_be_null:
        return False
    if "expression" not in body.DESCRIPTOR.fields_by_name or not body.HasField("expression"):
        return False
    typed = c.node.info.typed_expression(body.expression)
    return typed is None or typed.type is None or T.is_nullable(typed.type) is not False


def _join_sentence(c: Context, kind: str, on: str, how: str = "", word: str = "on") -> str:
    left, right = c.side(0), c.side(1)
    if left is not None and left == right and left.startswith("the combined "):
        # two sides alike in words ("the combined rows of 4 tables"): told apart by the steps that make them
        left, right = f"{left} from {c.step(c.input(0))}", f"those from {c.step(c.input(1))}"
    l_name, r_name = left or "the left rows", right or "the right rows"
    on_text = f" {word} {on}" if on else ""
    verb = f"Joins{how}"
    if kind not in (*_KEEPING, "left_mark", "right_mark"):
        l_name, r_name = _joined_side(c, 0, l_name), _joined_side(c, 1, r_name)
    if kind in _KEEPING:
        keep, other = (l_name, r_name) if kind.startswith("left") else (r_name, l_name)
        keep = _joined_side(c, 0 if kind.startswith("left") else 1, keep)
        other = _looked_up(c, 1 if kind.startswith("left") else 0, other)
        has = "have a match" if kind.endswith("semi") else "have no match"
        return as_sentence(f"Keeps {_rows_named(keep)} that {has} in {_other_named(other)}{on_text}")
    if kind in ("left_mark", "right_mark"):
        marked, other = (l_name, r_name) if kind == "left_mark" else (r_name, l_name)
        marked = _joined_side(c, 0 if kind == "left_mark" else 1, marked)
        other = _looked_up(c, 1 if kind == "left_mark" else 0, other)
        if marked.startswith(_RESULT) or not marked.startswith(_ROWS):
            each = "each row of " + marked.removeprefix(_RESULT)
        else:
            each = f"each of {marked}"
        # the spec's mark is null, not false, where no pair matches and the condition is null for one of them
        unknown = " (unknown instead of false where no row matches but a null makes the condition unknown for one)"
        return as_sentence(
            f"Marks {each} with whether it has a match in {_other_named(other)}{on_text}"
            + (unknown if _may_be_unknown(c) else "")
        )
    tails = {
        "inner": "keeping only matches",
        "left": f"keeping {_all_rows(l_name)}, with {_other_named(r_name)} where they match",
        "right": f"keeping {_all_rows(r_name)}, with {_other_named(l_name)} where they match",
        "outer": "keeping every row of both sides, matched where possible",
        "left_single": f"keeping {_all_rows(l_name)}, each with at most one match from {_other_named(r_name)}",
        "right_single": f"keeping {_all_rows(r_name)}, each with at most one match from {_other_named(l_name)}",
        "unspecified": "(the join type is not given)",
    }
    tail = tails.get(kind, f"as a {kind.replace('_', ' ')} join")
    target = f"{l_name} to {r_name}" if (left or right) else "its two inputs"
    return as_sentence(f"{verb} {target}{on_text}" + (f" {tail}" if kind == "unspecified" else f", {tail}"))


def project_places(model: PlanModel, node_id: str) -> dict[int, list[int]]:
    """For each of a project's expressions, by its index, its places among the node's output columns, in
    order (none where the emit leaves it out); empty for another relation or an unknown schema."""
    node = model.node(node_id)
    out: dict[int, list[int]] = {}
    if node.schema is None or node.kind != "project":
        return out
    body = node.node.body
    width = len(node.info.incoming or ()) if project_outputs_input(body, model.conventions.project_keeps_input) else 0
    mapping = emit(body)
    for j, m in enumerate(mapping if mapping is not None else range(len(node.schema))):
        if m >= width:
            out.setdefault(m - width, []).append(j)
    return out


def repeats_the_read(model: PlanModel, node_id: str) -> tuple[str, bool] | None:
    """The read whose condition filter ``node_id``'s is, or is a part of (TPC-DS q74's d_year = 2000 of the read's
    d_year IN (2000, 2001) AND d_year = 2000), with whether it is the whole: the read's ``filter``, not a
    ``best_effort_filter``, right below it or below a project over it (its columns that project computes read
    as their expressions: TPC-DS q41's repeat of a page-long condition, one part of it computed once above the
    read), else None. Each of the filter's conjuncts is one of the read's: the same expression, each column it
    reads the read's column of that name and type (words alike are not enough: ``v > 0.1`` as a float and as a
    double read alike)."""
    node = model.node(node_id)
    if node.kind != "filter":
        return None
    below = model.node(node.inputs[0]) if node.inputs else None
    made: dict[int, object] = {}
    if below is not None and below.kind == "project" and len(below.inputs) == 1:
        # the columns the project computes as the expressions that make them, of its input's (the read's)
        # columns; the others are its input's as they are, by name and type
        exprs, incoming = below.node.body.expressions, below.info.incoming
        places = project_places(model, below.id)
        made = {j: _by_columns(exprs[k], incoming) for k, at in places.items() for j in at}
        below = model.node(below.inputs[0])
    if below is None or below.kind != "read" or not below.node.body.HasField("filter"):
        return None
    functions = model.extensions.functions
    ours = [_by_columns(e, node.info.incoming, made) for e in and_parts(node.node.body.condition, functions)]
    theirs = {_by_columns(e, below.info.incoming) for e in and_parts(below.node.body.filter, functions)}
    if not ours or None in ours or not set(ours) <= theirs:
        return None
    return below.id, set(ours) == theirs


def _by_columns(message, fields, made: dict[int, object] | None = None) -> object:
    """``message`` (an expression) as nested tuples, each reference to a column of ``fields`` as that
    column's name and type, or, for a column in ``made``, as the tuples of the expression that makes it;
    None where a column is not known by a name of its own."""
    if fields is None:
        return None
    names = [f.name for f in fields]
    made = made or {}

    def walk(m):
        if isinstance(m, Expression) and m.WhichOneof("rex_type") == "selection" and made:
            i = direct_field(m)  # a column computed below: as the expression that makes it
            if i is not None and i in made:
                if made[i] is None:
                    raise LookupError
                return made[i]
        # a reference without a root type reads the node's record too, as the model reads it
        if isinstance(m, algebra_pb2.Expression.FieldReference) and m.WhichOneof("root_type") in (
            None,
            "root_reference",
        ):
            field = m.direct_reference.struct_field if m.direct_reference.HasField("struct_field") else None
            if field is None or field.field >= len(fields) or names.count(names[field.field]) != 1:
                raise LookupError
            f = fields[field.field]
            typed = f.type.SerializeToString(deterministic=True) if f.type is not None else None
            return ("column", f.name, typed, walk(field.child))
        out = []
        for descriptor, value in m.ListFields():
            if descriptor.type != descriptor.TYPE_MESSAGE:
                out.append((descriptor.name, tuple(value) if descriptor.is_repeated else value))
            elif descriptor.is_repeated:
                out.append((descriptor.name, tuple(walk(v) for v in value)))
            else:
                out.append((descriptor.name, walk(value)))
        return tuple(out)

    try:
        return walk(message)
    except LookupError:
        return None


def given_places(model: PlanModel, node_id: str, count: int) -> dict[int, tuple[int, str]]:
    """For each of a project's ``count`` expressions that the plan's root names (``revenue``), its place
    among the node's output columns and that name, by the expression's index; the others' words say
    what they are."""
    out: dict[int, tuple[int, str]] = {}
    names = root_names(model).get(node_id)
    if not names:
        return out
    for k, places in project_places(model, node_id).items():
        for j in places:
            if k < count and j < len(names) and names[j] and not is_expression_name(names[j]):
                out[k] = (j, names[j])
    return out


def _post_filter(c: Context) -> str:
    body = c.body
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        w = c.words()
        return " " + as_sentence(f"Then keeps rows where {w.condition(body.post_join_filter)}")
    return ""


#: A key said once: the column's name, and whether a null matches a null (``is_not_distinct_from``).
SameKey = tuple[str, bool]


def the_same(keys: Sequence[SameKey | None]) -> str:
    """Keys that pair a column with the other side's column of the same name, each name once: "the
    same a and b", those where a null matches a null said so."""
    plain = list(dict.fromkeys(k[0] for k in keys if k and not k[1]))
    nulls = list(dict.fromkeys(k[0] for k in keys if k and k[1]))
    parts = [f"the same {and_list(plain)}"] if plain else []
    if nulls:
        parts.append(f"the same {and_list(nulls)} (a null matching a null)")
    return " and ".join(parts)


def _same_name(
    c: Context, e: algebra_pb2.Expression, record: Sequence[Field], starts: Sequence[int]
) -> tuple[SameKey, tuple[int, int], str] | None:
    """The column ``e`` equates on two inputs of a join (``left.id = right.id``, no cast between
    them; ``starts``: where each input after the first begins in ``record``), those two inputs'
    places and the first side's name in the plan, else None: such a key is said once ("on the same id")."""
    w = c.words()
    if not is_column_equality(w, e):
        return None
    indices = [direct_field(v) for v in argument_values(e.scalar_function)]
    if any(i is None or i >= len(record) for i in indices):
        return None
    a_input, b_input = (bisect_right(starts, i) for i in indices)
    if a_input == b_input:
        return None
    bounds = [0, *starts, len(record)]
    for k, i in ((a_input, indices[0]), (b_input, indices[1])):
        # an input with two columns of that name (TPC-DS q81's two states): "the same ca_state" would not say which
        if sum(f.name == record[i].name for f in record[bounds[k] : bounds[k + 1]]) > 1:
            return None
    raw = c.node.info.incoming
    name = _one_column(
        (record[indices[0]].name, record[indices[1]].name),
        (raw[indices[0]].name, raw[indices[1]].name) if raw is not None and len(starts) > 1 else None,
    )
    if name is None:
        return None
    nulls_match = w.function(e.scalar_function.function_reference) == "is_not_distinct_from"
    return (name, nulls_match), (a_input, b_input), (raw[indices[0]].name if raw is not None else name)


def _one_column(spoken: tuple[str, str], raw: tuple[str, str] | None) -> str | None:
    """The name two join keys are said by when they are one column: one name on both sides, or, given
    their names in the plan (``raw``: a join of three inputs or more), one column under two (the result's
    name for one input, TPC-DS q74's customer_id; the table's for the others, c_customer_id) by the first
    side's; None otherwise, and for a name in words ("the rank …"), said as it is. Of two inputs, one
    renamed ("s_store_id1 = s_store_id", q59) is said as it is: "the same s_store_id1" read as a column
    compared with itself."""
    a, b = spoken
    same = a == b or (raw is not None and raw[0] == raw[1])
    return a if same and " " not in a else None


def same_names(c: Context, conditions: Sequence[algebra_pb2.Expression]) -> list[SameKey | None]:
    """For each condition, the column it equates on two of the inputs the node's record is made of
    (:meth:`Context.segments`), else None. One column is said by one name, the first a condition gives
    it, though an input may call it otherwise (TPC-DS q74's four inputs: the first's ``customer_id`` is
    the others' ``c_customer_id``). Of three inputs or more, "the same id" is said only where the
    conditions equate every input's id: else it would not say which."""
    segments, incoming = c.segments(), c.node.info.incoming
    if segments is None or incoming is None:
        return [None] * len(conditions)
    record = spoken_record(c.model, c.node, incoming)
    starts = [start for _, start in segments[1:]]
    found = [_same_name(c, e, record, starts) for e in conditions]
    said: dict[str, str] = {}  # a column's name in the plan -> the name it is said by
    for key in found:
        if key is not None:
            said.setdefault(key[2], key[0][0])
    if len(segments) > 2:
        having: dict[str, set[int]] = {}
        for i, f in enumerate(incoming):
            having.setdefault(f.name, set()).add(bisect_right(starts, i))
        joined: dict[str, set[frozenset[int]]] = {}
        for key in found:
            if key is not None:
                joined.setdefault(key[2], set()).add(frozenset(key[1]))
        found = [k if k is None or _connects(having[k[2]], joined[k[2]]) else None for k in found]
    return [None if k is None else (said[k[2]], k[0][1]) for k in found]


def _connects(nodes: set[int], edges: set[frozenset[int]]) -> bool:
    """Whether ``edges`` (pairs) join every one of ``nodes`` to every other."""
    reached, todo = set(), [min(nodes)]
    while todo:
        n = todo.pop()
        if n not in reached:
            reached.add(n)
            todo.extend(m for e in edges if n in e for m in e)
    return nodes <= reached


def _on(c: Context, expression: algebra_pb2.Expression) -> tuple[str, str]:
    """A join's condition in words, after the word that leads it: its keys that equate columns of the same
    name on both sides said once ("on the same i_item_sk and s_zip"), then the other keys, then after
    "where" every other condition; a condition without a key after "where" ("where value is above …": "on
    value is above" read as a phrase). A join that keeps rows by whether they match, or keeps them unmatched,
    lists its conditions after "on" alone."""
    w = c.words()
    parts = conjuncts(w, expression)
    same = same_names(c, parts)
    # "where" could read as a filter of the rows such a join keeps, or of the side it looks up
    pairs_only = join_type_of(c.body) in _KEEPING_UNMATCHED
    keys: list[algebra_pb2.Expression] = []
    rest: list[algebra_pb2.Expression] = []
    for e, key in zip(parts, same):
        if key is None:
            (keys if is_column_equality(w, e) else rest).append(e)
    if not any(same):
        if pairs_only or not keys or not rest:
            return ("on" if keys or pairs_only else "where"), w.condition(expression)
        # the keys, then the rest after "where", as after "the same id": "on a = b and c is above d" read as one
        return "on", f"{and_list(w.conditions_of(keys))} where {_rest(w, rest)}"
    on = [the_same(same), *w.conditions_of(keys)]
    if pairs_only:
        return "on", and_list(on + [f"({t})" if t.startswith("either ") else t for t in w.conditions_of(rest)])
    return "on", and_list(on) + (f" where {_rest(w, rest)}" if rest else "")


def _rest(w, conditions: Sequence[algebra_pb2.Expression]) -> str:
    """A join's conditions after its keys, alternatives alone in brackets: the sentence's ", keeping only
    matches" read as the last alternative's."""
    said = w.conditions_of(conditions)
    return f"({said[0]})" if len(said) == 1 and said[0].startswith("either ") else and_list(said)


#: Joins that keep a side's rows without a match, or one side's rows by whether they match: their
#: condition only pairs rows, which a "where" after the sides would read as choosing them ("that have a
#: match in the rows of step 24 on the same ss_store_sk where revenue is …" read as step 24's revenue).
_KEEPING_UNMATCHED = frozenset(
    {"left", "right", "outer", "left_single", "right_single"}
    | {f"{side}_{kind}" for side in ("left", "right") for kind in ("semi", "anti", "mark")}
)


def join(c: Context) -> str:
    body = c.body
    word, on = _on(c, body.expression) if body.HasField("expression") else ("on", "")
    if join_type(body) == "inner" and (not on or is_true(body.expression)):
        # DataFusion writes every inner join so, with the keys in a filter above: say what the join
        # itself does, and where its condition is
        return cross(c) + _post_filter(c)
    return _join_sentence(c, join_type(body), on, word=word) + _post_filter(c)


def _condition_above(c: Context) -> str:
    """Where the condition of a join without one is: the first filter above it, through other joins
    without one (a chain of them is one cross product that filter narrows)."""
    nodes = c.model.graph.nodes
    cur = nodes.get(c.node.node.parent) if c.node.node.parent else None
    while cur is not None and cur.kind in ("join", "cross") and join_type_of(cur.body) in ("inner", "cross"):
        if cur.kind == "join" and cur.body.HasField("expression") and not is_true(cur.body.expression):
            return ""
        cur = nodes.get(cur.parent) if cur.parent else None
    if cur is None or cur.kind != "filter":
        return ""  # "(a cross product)" says it; "It has no join condition." said it twice
    if cur.id != c.node.node.parent:  # said once, by the chain's last join, just under the filter
        return ""
    w = c.words()
    keyed = any(is_column_equality(w, e) for e in conjuncts(w, cur.body.condition))
    return f" The filter at {c.step(cur.id)} " + (
        "keeps the matching pairs." if keyed else "chooses which pairs are kept."
    )


def keys_join(c: Context) -> str:
    body = c.body
    left = c.model.node(c.input(0)).schema if c.input(0) else None
    right = c.model.node(c.input(1)).schema if c.input(1) else None
    if left is not None and right is not None:  # a name both sides have, told apart as in other joins
        told = c.sides_told_apart([*left, *right])
        left, right = told[: len(left)], told[len(left) :]
    wl, wr = c.words().with_fields(left), c.words().with_fields(right)
    # the comparison: 1 equal, 2 a null matching a null, a function of the plan's by its name
    pairs = [(k.left, k.right, _comparison_words(c, k.comparison)) for k in body.keys]
    if not pairs and len(body.left_keys) == len(body.right_keys):  # the deprecated key lists
        pairs = [(a, b, _SIMPLE_COMPARISON[1]) for a, b in zip(body.left_keys, body.right_keys)]
    same = [_same_key(c, a, b, how == _SIMPLE_COMPARISON[2]) if how in _SAME else None for a, b, how in pairs]
    keys = [the_same(same)] if any(same) else []
    for (a, b, how), key in zip(pairs, same):
        if key is None:
            keys.append(how.format(a=wl.selection(a), b=wr.selection(b)))
    if "residual_expression" in body.DESCRIPTOR.fields_by_name and body.HasField("residual_expression"):
        keys.append(c.words().condition(body.residual_expression))  # part of what matches, as the keys are
    how = {"hash_join": " (by hashing)", "merge_join": " (by merging sorted inputs)"}.get(c.node.kind, "")
    return _join_sentence(c, join_type(body), capped_list(keys, MAX_ITEMS, "more keys"), how) + _post_filter(c)


#: A key comparison's words, by its simple kind: 1 equal, 2 a null matching a null, 3 "might equal"
#: (``a = b OR isnull(a = b)``, algebra.proto).
_SIMPLE_COMPARISON = {1: "{a} = {b}", 2: "{a} = {b} (a null matching a null)", 3: "{a} = {b} or either is null"}
_SAME = (_SIMPLE_COMPARISON[1], _SIMPLE_COMPARISON[2])


def _comparison_words(c: Context, comparison) -> str:
    """A key comparison as a template of ``{a}`` and ``{b}``, the two keys in words."""
    if comparison.WhichOneof("inner_type") == "custom_function_reference":
        name = c.words().function(comparison.custom_function_reference).replace("{", "{{").replace("}", "}}")
        return "{a} and {b} match by " + name
    return _SIMPLE_COMPARISON.get(comparison.simple, _SIMPLE_COMPARISON[1])


def _same_key(c: Context, a: Expression.FieldReference, b: Expression.FieldReference, nulls: bool) -> SameKey | None:
    """The column a hash or merge join's key pairs with a column of the same name on the other side
    (``nulls``: a null matching a null), else None."""
    left = column_names(c.model, c.input(0)) if c.input(0) else None
    right = column_names(c.model, c.input(1)) if c.input(1) else None
    i, j = reference_field(a), reference_field(b)
    if left is None or right is None or i is None or j is None or i >= len(left) or j >= len(right):
        return None
    name = _one_column((left[i], right[j]), None)  # two inputs: see _one_column
    return (name, nulls) if name is not None else None


def nested_loop_join(c: Context) -> str:
    body = c.body
    word, on = _on(c, body.expression) if body.HasField("expression") else ("on", "")
    return _join_sentence(c, join_type(body), on, " (comparing every pair)", word)


def lateral_join(c: Context) -> str:
    return join(c).replace("Joins", "For each left row, joins", 1)


def _every_row(c: Context, k: int, so_far: bool = False) -> str | None:
    """ "every row of" input ``k`` of a cross product: of its table ("every row of orders"), of the
    tables it combines ("every row of customer and orders combined", "every row of the 4 tables
    combined so far" for the left, the pairs made before), of the step that makes it; None when
    there is no such input."""
    node_id = c.input(k)
    if node_id is None:
        return None
    pairing = c.pairing(node_id)
    if pairing:
        return f"every row of {pairing}" + (" so far" if so_far else "")
    return f"every row of {c.side(k)}"


def cross(c: Context) -> str:
    left, right = _every_row(c, 0, so_far=True), _every_row(c, 1)
    if left is None and right is None:
        text = "Pairs every row of one input with every row of the other (a cross product)."
    else:
        text = as_sentence(
            f"Pairs {left or 'every row of one input'} with {right or 'every row of the other'} (a cross product)"
        )
    return text + _condition_above(c)
