"""Relations in words: one sentence builder per relation kind (:data:`DESCRIBE`), each given the
node's :class:`Context` (the model, the node, and how the story names tables and other steps)."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from substrait import algebra_pb2

from ..expressions import direct_field, integer_literal, is_true, reference_field
from ..fields import Field
from ..kinds import emit, kind, project_outputs_input
from ..lineage import column_sources
from ..model import MemoBeside, NodeView, PlanModel
from ..schema import aggregate_layout
from ..words import (
    MAX_ITEMS,
    Expression,
    Words,
    aggregate_words,
    and_list,
    argument_values,
    capped_list,
    conjuncts,
    counted,
    is_column_equality,
    ordinal,
    running,
)
from .names import column_names, is_expression_name, outer_records, root_names, row_sides, spoken_record

#: Column lists show this many names, then "and N more".
MAX_COLUMNS = 6


def as_sentence(text: str) -> str:
    """``text`` as a sentence: its first letter a capital, a full stop at its end."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "…", "?", "!")) else text + "."


@dataclass
class Context:
    model: PlanModel
    node: NodeView
    things: Callable[[str], str | None]  # the table a node's rows come from, when there is one
    combined: Callable[[str], str | None]  # the same, or "combined a and b rows" for a few tables
    step: Callable[[str], str]  # another node as the story calls it: "step 6" (with its id when asked)
    pairing: Callable[[str], str | None]  # rows of several tables: "a and b combined", "the 5 tables combined"
    steps: Callable[[Sequence[str]], str]  # several other nodes: "steps 2, 4 and 6"

    @property
    def body(self):
        return self.node.node.body

    def words(self, fields: Sequence[Field] | None = None, use_incoming: bool = True) -> Words:
        incoming = self.node.info.incoming
        if use_incoming and incoming is not None:
            incoming = self.sides_told_apart(spoken_record(self.model, self.node, incoming))
        return Words(
            self.model,
            incoming if use_incoming else fields,
            outer_records(self.model, self.node.id),
            subquery_step=self.subquery_step,
        )

    def subquery_step(self, rel) -> str | None:
        """A subquery relation of this node as the story names it ("step 9")."""
        sub = self.node.node.subquery_rels.get(id(rel))
        return self.step(sub) if sub is not None else None

    def paired_by(self) -> NodeView | None:
        """The node whose two inputs this node's record is made of: a join itself, or the cross
        product (an inner join without an emit) right under a filter, whose condition then pairs
        them (DataFusion writes its joins so)."""
        node = self.node
        if kind(node.kind).joins and len(node.inputs) == 2:
            return node
        if node.kind != "filter" or not node.inputs:
            return None
        below = self.model.node(node.inputs[0])
        body = below.node.body
        pairs = below.kind in ("cross", "join") and _join_type_of(body) in ("inner", "cross")
        return below if pairs and len(below.inputs) == 2 and emit(body) is None else None

    def segments(self) -> list[tuple[str, int]] | None:
        """The inputs this node's record is made of, one after another, each with its first column:
        a join's two, or, for a filter over a chain of cross products (DataFusion's joins, their keys in
        the filter), every input the chain pairs. None when the record is one input's, or a width is
        not known."""
        pair = self.paired_by()
        if pair is None:
            return None
        inputs = _chain_inputs(self.model, pair.id) if pair.id != self.node.id else list(pair.inputs)
        out, start = [], 0
        for node_id in inputs:
            schema = self.model.node(node_id).schema
            if schema is None:
                return None
            out.append((node_id, start))
            start += len(schema)
        return out

    def sides_told_apart(self, record: Sequence[Field]) -> Sequence[Field]:
        """A join's record (or a filter's over cross products) with each name several inputs have told
        apart, so that "on id is above id" is never said of two columns: by the table it is read
        from ("t0.id"), else by its side ("left id") or, of three inputs or more, by the step that
        makes it ("step 12's rank"). A name one input has twice (a table joined twice below) is told
        apart by its place: "d_date_sk (the 2nd of 3)"."""
        segments = self.segments()
        if segments is None:
            return self._by_place(record)
        if segments[-1][1] >= len(record) or len(segments) < 2:
            return record
        names = [f.name for f in record]
        if len(set(names)) == len(names):
            return record
        starts = [start for _, start in segments[1:]]
        segment = [bisect_right(starts, i) for i in range(len(record))]  # the input each column comes from
        inputs_of: dict[str, set[int]] = {}
        for n, s in zip(names, segment):
            inputs_of.setdefault(n, set()).add(s)
        summaries = [x for node_id, _ in segments for x in column_sources(self.model, node_id)]
        if len(summaries) != len(record):
            return record

        def table_of(i: int) -> str | None:
            [source, *more] = summaries[i].sources or [None]
            return source.table if source is not None and not more and source.column == names[i] else None

        tables = [table_of(i) for i in range(len(record))]
        qualified = [f"{t}.{n}" if t and len(inputs_of[n]) > 1 else n for t, n in zip(tables, names)]
        clash_of: dict[str, set[int]] = {}
        for q, s in zip(qualified, segment):
            clash_of.setdefault(q, set()).add(s)
        told = []
        for i, f in enumerate(record):
            name = qualified[i]
            if len(clash_of[name]) > 1:
                if len(segments) == 2:
                    owner = "right" if segment[i] else "left"
                    # a spoken name ("the number of rows") takes the side as its owner
                    name = f"the {owner} side's {f.name[4:]}" if f.name.startswith("the ") else f"{owner} {f.name}"
                else:  # the step that makes it, where its words say what it is: "step 12's rank"
                    owner = self.step(segments[segment[i]][0])
                    name = f"{owner}'s {f.name[4:].split(' per ')[0] if f.name.startswith('the ') else f.name}"
            told.append(name)
        # a name still said twice: by its table where that tells it apart, else by its place among the
        # columns of that name ("d_date_sk (the 2nd of 3)")
        times = Counter(told)
        per_table = Counter(zip(told, tables))
        seen: Counter = Counter()
        out = []
        for i, (f, name) in enumerate(zip(record, told)):
            if times[name] > 1:
                seen[name] += 1
                if tables[i] and per_table[(name, tables[i])] == 1:
                    name = f"{tables[i]}.{name}"
                else:
                    name = f"{name} (the {ordinal(seen[name])} of {times[name]})"
            out.append(f if name == f.name else f.renamed(name))
        return out

    def _by_place(self, record: Sequence[Field]) -> Sequence[Field]:
        """A record one input makes with a name said twice (two nations joined below, both n_name), each
        told apart by its place: "n_name (the 2nd of 2)"; a record without such a name as it is."""
        times = Counter(f.name for f in record)
        if all(k == 1 for k in times.values()):
            return record
        # only where the step reads two of them: one read alone is said by its name ("product_id")
        read = fields_read(self.node.node.body)
        told = Counter(record[i].name for i in read if i < len(record))
        if not any(times[n] > 1 and k > 1 for n, k in told.items()):
            return record
        seen: Counter = Counter()
        out = []
        for f in record:
            if times[f.name] > 1:
                seen[f.name] += 1
                out.append(f.renamed(f"{f.name} (the {ordinal(seen[f.name])} of {times[f.name]})"))
            else:
                out.append(f)
        return out

    def rows_of(self, node_id: str) -> str:
        return self.things(node_id) or "rows"

    def input(self, k: int) -> str | None:
        return self.node.inputs[k] if k < len(self.node.inputs) else None

    def side(self, k: int) -> str | None:
        """Input ``k`` of a join in words: its table ("orders") or tables ("the combined customer
        and orders rows"), else the step that makes it ("the result of step 44"); None when there is
        no such input."""
        node_id = self.input(k)
        if node_id is None:
            return None
        named = self.combined(node_id)
        if named is None:
            return f"the result of {self.step(node_id)}"
        return f"the {named}" if named.startswith("combined ") else named


def fields_read(body) -> set[int]:
    """The fields of its input record a relation's own expressions read (plain references from the
    record's root; not inside its inputs or subqueries)."""
    out: set[int] = set()
    if body is None:
        return out
    stack = [
        v
        for fd, v in body.ListFields()
        if fd.message_type is not None and fd.name not in ("input", "left", "right", "inputs", "common")
    ]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)) or type(item).__name__.startswith("Repeated"):
            stack.extend(item)
            continue
        if isinstance(item, algebra_pb2.Rel):
            continue  # a subquery's relation reads its own record
        if isinstance(item, algebra_pb2.Expression.FieldReference):
            index = direct_field(algebra_pb2.Expression(selection=item))
            if index is not None and item.WhichOneof("root_type") == "root_reference":
                out.add(index)
        for fd, value in item.ListFields():
            if fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
                stack.append(value)
    return out


def read_first(model: PlanModel, node_id: str, width: int) -> list[int]:
    """The positions of a node's ``width`` output columns with those its condition reads first, for a
    filter or a join whose output is its whole record (a filter over 48 columns began S_ADDRESS,
    S_PHONE... where the step is about N_NAME and L_SHIPDATE); in order otherwise."""
    node = model.node(node_id)
    body = node.node.body
    whole = node.kind == "filter" or (node.kind == "join" and row_sides(node.kind, body, 2) == ([0, 1], False))
    if not whole or body is None or emit(body) is not None:
        return list(range(width))
    read = sorted(i for i in fields_read(body) if i < width)
    return read + [i for i in range(width) if i not in set(read)]


def _columns(fields: Sequence[Field] | None, limit: int = MAX_COLUMNS) -> str:
    if not fields:
        return ""
    names = [f.name for f in fields]
    return capped_list(names, limit)


def _column_list(names: Sequence[str]) -> str:
    """ "column a" for one name, "columns a, b and c" for more (capped at :data:`MAX_COLUMNS`); when a
    name is words ("the smallest ps_supplycost"), "2 columns: …", so that the list reads as names. A
    name several columns have is said once, with how many times ("d_year (3 times)", one per date
    table joined: "(3 columns)" read as the count of the whole list)."""
    times = Counter(names)
    said = {2: "twice", 3: "3 times"}
    listed = capped_list(
        [n if times[n] == 1 else f"{n} ({said.get(times[n], f'{times[n]} times')})" for n in times], MAX_COLUMNS
    )
    if any(" " in n for n in names):
        return f"{counted(len(names), 'column')}: {listed}"
    return f"{'column' if len(names) == 1 else 'columns'} {listed}"


def _read(c: Context) -> str:
    r: algebra_pb2.ReadRel = c.body
    which = r.WhichOneof("read_type")
    schema = c.node.schema
    base = c.node.info.incoming
    width = len(base) if base is not None else None
    cols = ""
    if schema is not None:
        shown = _columns(schema)
        if width is not None and r.HasField("projection") and len(schema) != width:
            cols = f" ({len(schema)} of {counted(width, 'column')}: {shown})"
        elif schema:
            cols = f" ({counted(len(schema), 'column')}: {shown})"
    if which == "named_table":
        name = ".".join(r.named_table.names)
        again = _again(c, name)
        if again:
            cols = f" ({again}; {cols[2:]}" if cols else f" ({again})"
        what = f"Reads table {name or '(unnamed)'}{cols}"
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
    sentences = [as_sentence(what)]
    if r.HasField("filter") or r.HasField("best_effort_filter"):
        w = c.words()
        cond = r.filter if r.HasField("filter") else r.best_effort_filter
        things = ".".join(r.named_table.names[-1:]) if which == "named_table" else "rows"
        words = w.condition(cond)
        if r.HasField("filter"):
            sentences.append(as_sentence(f"Keeps only {_rows(things)} {_whose(w, words)} {words}"))
        else:  # the consumer may apply it or not: the rows after the read may still include others
            sentences.append(
                as_sentence(
                    f"May already keep only {_rows(things)} {_whose(w, words)} {words} (a filter the reader is "
                    "free to skip)"
                )
            )
    return " ".join(sentences)


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


def _again(c: Context, table: str) -> str:
    """ "its 2nd read of 3" for a table the plan reads more than once, apart (a self-join's aliases are gone
    from the plan, and the reads' sentences would be alike), in the story's order; "" otherwise."""
    found = _reads_by_table(c.model).get(f"{c.node.id.split('.', 1)[0]}/{table}", [])
    reads, steps = [n for n, _ in found], [i for _, i in found]
    # reads one after another are told as one ("steps 3-4"): nothing to tell apart
    if len(reads) < 2 or c.node.id not in reads or steps[-1] - steps[0] == len(steps) - 1:
        return ""
    return f"its {ordinal(reads.index(c.node.id) + 1)} read of {len(reads)}"


def _whose(w: Words, text: str) -> str:
    """ "whose" when a condition's words start with the name of one of the row's own columns (one
    word: "l_shipdate is ..."), else "where" ("the sum of ...", "'Computers' is not in ...")."""
    first = text.split(" ", 1)[0]
    own = {f.name for f in w.fields or () if " " not in f.name}
    return "whose" if first in own else "where"


def _rows(things: str) -> str:
    """ "the rows of orders" for a table's name (whether its name is singular or plural), "the
    combined ... rows", "rows"."""
    if things == "rows":
        return things
    return f"the {things}" if things.startswith("combined ") else f"the rows of {things}"


def _filter(c: Context) -> str:
    w = c.words()
    cond = c.body.condition
    things = c.rows_of(c.input(0)) if c.input(0) else "rows"
    parts = conjuncts(w, cond)
    keys = [e for e in parts if is_column_equality(w, e)]
    if keys and c.input(0) and _pairs_all(c.model, c.input(0)):
        # the filter that holds the keys of the cross products below it: the matching first, then the rest
        rest = [e for e in parts if not is_column_equality(w, e)]
        combined = c.combined(c.input(0))
        segments = c.segments()
        if combined is not None:
            rows = _rows(combined)
        elif segments is not None:  # results of other steps: "the combined rows of steps 12, 24 and 37"
            rows = f"the combined rows of {c.steps([node_id for node_id, _ in segments])}"
        else:
            rows = "the rows"
        same = _same_names(c, keys)  # a key of one name on both sides, said once
        said = ([_the_same(same)] if any(same) else []) + w.conditions_of(
            [e for e, key in zip(keys, same) if key is None]
        )
        text = as_sentence(f"Keeps {rows} that match on {and_list(said)}")
        if rest:
            words = and_list(w.conditions_of(rest))
            text += " " + as_sentence(f"Of those, keeps the rows {_whose(w, words)} {words}")
        return text
    words = w.condition(cond)
    text = as_sentence(f"Keeps {_rows(things)} {_whose(w, words)} {words}")
    if c.input(0) and _read_filter_words(c, c.input(0)) == words:
        # a producer that filters in the read and again after it (DataFusion): the second time said so
        text = text[:-1] + ", as the read before it already does."
    return text


def _read_filter_words(c: Context, node_id: str) -> str | None:
    """The words of the filter a read must apply (``filter``, not ``best_effort_filter``), else None."""
    node = c.model.node(node_id)
    if node.kind != "read" or not node.node.body.HasField("filter"):
        return None
    return replace(c, node=node).words().condition(node.node.body.filter)


def _pairs_all(model: PlanModel, node_id: str) -> bool:
    """Whether a node pairs every row of one input with every row of the other: a cross product, or
    an inner join without a condition (so DataFusion writes them)."""
    node = model.node(node_id)
    if node.kind == "cross":
        return True
    body = node.node.body
    return (
        node.kind == "join"
        and _join_type(body) == "inner"
        and (not body.HasField("expression") or is_true(body.expression))
    )


def _chain_inputs(model: PlanModel, node_id: str) -> list[str]:
    """The inputs a chain of cross products (and inner joins without a condition or an emit) pairs,
    in the order of their columns; a node that pairs nothing is its own one input."""
    node = model.node(node_id)
    if len(node.inputs) != 2 or emit(node.node.body) is not None or not _pairs_all(model, node_id):
        return [node_id]
    return [x for i in node.inputs for x in _chain_inputs(model, i)]


def _is_plain_field(e: Expression) -> bool:
    """A column as it is, or only cast to another type: kept, not made ("Adds the average x" said of
    DataFusion's cast of the average to a double read as a new value)."""
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    return e.WhichOneof("rex_type") == "selection"


#: A project's new columns said one by one, up to this many (a wider one says how many more).
NEW_COLUMNS = 8


def _project(c: Context) -> str:
    w = c.words()
    exprs = list(c.body.expressions)
    given = _given_names(c.model, c.node.id, len(exprs))
    made = [i for i, e in enumerate(exprs) if not _is_plain_field(e)]
    computed = [f"{given[i]} = {w.expr(exprs[i])}" if given[i] else w.expr(exprs[i]) for i in made]
    names = column_names(c.model, c.node.id) or []
    narrows = emit(c.body) is not None or not c.model.conventions.project_keeps_input
    if not computed:
        if names:
            return as_sentence(f"Keeps {_column_list(names)}")
        return "Passes its input through."
    if len(computed) == 1:
        text = f"Adds column {computed[0]}" if given[made[0]] else f"Adds {computed[0]} as a new column"
    else:
        text = (
            f"Adds {len(computed)} new columns: "
            + "; ".join(computed[:NEW_COLUMNS])
            + (f"; and {len(computed) - NEW_COLUMNS} more" if len(computed) > NEW_COLUMNS else "")
        )
    out = as_sentence(text)
    if narrows and names:
        out += " " + as_sentence(f"Outputs {_column_list(names)}")
    return out


def _join_type(body) -> str:
    enum = body.DESCRIPTOR.fields_by_name["type"].enum_type
    value = enum.values_by_number.get(body.type)
    name = value.name if value is not None else "JOIN_TYPE_UNSPECIFIED"
    return name.replace("JOIN_TYPE_", "").lower()


#: How :meth:`Context.side` names the rows another step makes.
_RESULT = "the result of "


def _rows_named(name: str) -> str:
    """A join's side as the rows a sentence keeps: "the rows of orders", "the rows of step 8", "the
    combined … rows" (a table's name alone reads wrongly for a singular one: "keeps item that have")."""
    if name.startswith(_RESULT):
        return "the rows of " + name.removeprefix(_RESULT)
    return name if name.startswith(("the ", "those ")) else f"the rows of {name}"


def _other_named(name: str) -> str:
    """A join's side as the rows matched against: a table by its name, a step's result as "the rows
    of step 8"."""
    return "the rows of " + name.removeprefix(_RESULT) if name.startswith(_RESULT) else name


def _all_rows(name: str) -> str:
    """ "every row of orders", "every row of step 8", "all the combined … rows"."""
    if name.startswith(_RESULT):
        return "every row of " + name.removeprefix(_RESULT)
    return f"all {name}" if name.startswith(("the ", "those ")) else f"every row of {name}"


def _join_sentence(c: Context, kind: str, on: str, how: str = "") -> str:
    left, right = c.side(0), c.side(1)
    if left is not None and left == right and left.startswith("the combined "):
        # two sides alike in words ("the combined rows of 4 tables"): told apart by the steps that make them
        left, right = f"{left} from {c.step(c.input(0))}", f"those from {c.step(c.input(1))}"
    l_name, r_name = left or "the left rows", right or "the right rows"
    on_text = f" on {on}" if on else ""
    verb = f"Joins{how}"
    if kind in ("left_semi", "right_semi", "left_anti", "right_anti"):
        keep, other = (l_name, r_name) if kind.startswith("left") else (r_name, l_name)
        has = "have a match" if kind.endswith("semi") else "have no match"
        return as_sentence(f"Keeps {_rows_named(keep)} that {has} in {_other_named(other)}{on_text}")
    if kind in ("left_mark", "right_mark"):
        marked, other = (l_name, r_name) if kind == "left_mark" else (r_name, l_name)
        if marked.startswith(_RESULT) or not marked.startswith(("the ", "those ")):
            each = "each row of " + marked.removeprefix(_RESULT)
        else:
            each = f"each of {marked}"
        return as_sentence(f"Marks {each} with whether it has a match in {_other_named(other)}{on_text}")
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
    return as_sentence(f"{verb} {target}{on_text}, {tail}")


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
        if 0 <= k < count and j < len(names) and names[j] and not is_expression_name(names[j]):
            out[k] = names[j]
    return out


def _post_filter(c: Context) -> str:
    body = c.body
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        w = c.words()
        return " " + as_sentence(f"Then keeps rows where {w.condition(body.post_join_filter)}")
    return ""


#: A key said once: the column's name, and whether a null matches a null (``is_not_distinct_from``).
SameKey = tuple[str, bool]


def _the_same(keys: Sequence[SameKey | None]) -> str:
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
) -> tuple[SameKey, tuple[int, int]] | None:
    """The column ``e`` equates on two inputs of a join (``left.id = right.id``, no cast between
    them; ``starts``: where each input after the first begins in ``record``) and those two inputs'
    places, else None: such a key is said once ("on the same id")."""
    w = c.words()
    if not is_column_equality(w, e):
        return None
    indices = [direct_field(v) for v in argument_values(e.scalar_function)]
    if any(i is None or i >= len(record) for i in indices):
        return None
    a_input, b_input = (bisect_right(starts, i) for i in indices)
    if a_input == b_input:
        return None
    a, b = (record[i].name for i in indices)
    if a != b or " " in a:  # a name in words ("the rank …") is said as it is
        return None
    return (a, w.function(e.scalar_function.function_reference) == "is_not_distinct_from"), (a_input, b_input)


def _same_names(c: Context, conditions: Sequence[algebra_pb2.Expression]) -> list[SameKey | None]:
    """For each condition, the column it equates on two of the inputs the node's record is made of
    (:meth:`Context.segments`), else None. Of three inputs or more, "the same id" is said only where
    the conditions equate every input's id: else it would not say which."""
    segments, incoming = c.segments(), c.node.info.incoming
    if segments is None or incoming is None:
        return [None] * len(conditions)
    record = spoken_record(c.model, c.node, incoming)
    starts = [start for _, start in segments[1:]]
    found = [_same_name(c, e, record, starts) for e in conditions]
    if len(segments) > 2:
        having: dict[str, set[int]] = {}
        for i, f in enumerate(record):
            having.setdefault(f.name, set()).add(bisect_right(starts, i))
        joined: dict[str, set[frozenset[int]]] = {}
        for key in found:
            if key is not None:
                joined.setdefault(key[0][0], set()).add(frozenset(key[1]))
        found = [k if k is None or _connects(having[k[0][0]], joined[k[0][0]]) else None for k in found]
    return [None if k is None else k[0] for k in found]


def _connects(nodes: set[int], edges: set[frozenset[int]]) -> bool:
    """Whether ``edges`` (pairs) join every one of ``nodes`` to every other."""
    reached, todo = set(), [min(nodes)]
    while todo:
        n = todo.pop()
        if n not in reached:
            reached.add(n)
            todo.extend(m for e in edges if n in e for m in e)
    return nodes <= reached


def _on(c: Context, expression: algebra_pb2.Expression) -> str:
    """A join's condition in words: its keys that equate columns of the same name on both sides said
    once ("the same i_item_sk and s_zip"), then every other condition."""
    w = c.words()
    parts = conjuncts(w, expression)
    same = _same_names(c, parts)
    if not any(same):
        return w.condition(expression)
    rest = [e for e, key in zip(parts, same) if key is None]
    return _the_same(same) + (f" where {and_list(w.conditions_of(rest))}" if rest else "")


def _join(c: Context) -> str:
    body = c.body
    on = _on(c, body.expression) if body.HasField("expression") else ""
    if _join_type(body) == "inner" and (not on or is_true(body.expression)):
        # DataFusion writes every inner join so, with the keys in a filter above: say what the join
        # itself does, and where its condition is
        return _cross(c) + _post_filter(c)
    return _join_sentence(c, _join_type(body), on) + _post_filter(c)


def _condition_above(c: Context) -> str:
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


def _keys_join(c: Context) -> str:
    body = c.body
    left = c.model.node(c.input(0)).schema if c.input(0) else None
    right = c.model.node(c.input(1)).schema if c.input(1) else None
    if left is not None and right is not None:  # a name both sides have, told apart as in other joins
        told = c.sides_told_apart([*left, *right])
        left, right = told[: len(left)], told[len(left) :]
    wl, wr = c.words().with_fields(left), c.words().with_fields(right)
    # the comparison: 1 equal, 2 a null matching a null (another, or a function, said as "=")
    pairs = [(k.left, k.right, k.comparison.simple) for k in body.keys]
    if not pairs and len(body.left_keys) == len(body.right_keys):  # the deprecated key lists
        pairs = [(a, b, 1) for a, b in zip(body.left_keys, body.right_keys)]
    same = [_same_key(c, a, b, how == 2) if how in (1, 2) else None for a, b, how in pairs]
    keys = [_the_same(same)] if any(same) else []
    for (a, b, how), key in zip(pairs, same):
        if key is None:
            keys.append(f"{wl.selection(a)} {'is the same as' if how == 2 else '='} {wr.selection(b)}")
    how = {"hash_join": " (by hashing)", "merge_join": " (by merging sorted inputs)"}.get(c.node.kind, "")
    return _join_sentence(c, _join_type(body), capped_list(keys, MAX_ITEMS, "more keys"), how) + _post_filter(c)


def _same_key(c: Context, a: Expression.FieldReference, b: Expression.FieldReference, nulls: bool) -> SameKey | None:
    """The column a hash or merge join's key pairs with a column of the same name on the other side
    (``nulls``: a null matching a null), else None."""
    left = column_names(c.model, c.input(0)) if c.input(0) else None
    right = column_names(c.model, c.input(1)) if c.input(1) else None
    i, j = reference_field(a), reference_field(b)
    if left is None or right is None or i is None or j is None or i >= len(left) or j >= len(right):
        return None
    return (left[i], nulls) if left[i] == right[j] and " " not in left[i] else None


def _nested_loop_join(c: Context) -> str:
    body = c.body
    on = _on(c, body.expression) if body.HasField("expression") else ""
    return _join_sentence(c, _join_type(body), on, " (comparing every pair)")


def _lateral_join(c: Context) -> str:
    return _join(c).replace("Joins", "For each left row, joins", 1)


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


def _cross(c: Context) -> str:
    left, right = _every_row(c, 0, so_far=True), _every_row(c, 1)
    if left is None and right is None:
        text = "Pairs every row of one input with every row of the other (a cross product)."
    else:
        text = as_sentence(
            f"Pairs {left or 'every row of one input'} with {right or 'every row of the other'} (a cross product)"
        )
    return text + _condition_above(c)


def _aggregate(c: Context) -> str:
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
        text = aggregate_words(
            w,
            w.function(f.function_reference),
            f.arguments,
            f.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT,
            sorts=f.sorts,
        )
        if m.HasField("filter"):
            text += f" where {w.condition(m.filter)}"
        if i < len(given) and given[i]:
            text += f" (as {given[i]})" if " where " in text else f" as {given[i]}"
        measures.append(text)
    # a condition has its own "and"s: measures with one are said apart, after the groups
    conditional = any(" where " in m for m in measures)
    if not conditional:
        measures = _same_verbs(measures)
    if len(measures) > MAX_MEASURES:
        measures = measures[:MAX_MEASURES] + [f"computes {counted(len(measures) - MAX_MEASURES, 'more total')}"]
    what = "; ".join(measures) if conditional else and_list(measures) if measures else ""
    if len(groupings) > 1:
        sets = ["per " + and_list(g) if g else "over all rows" for g in groupings]
        if measures:
            return as_sentence(
                f"{what}, for {counted(len(groupings), 'grouping')}: "
                + "; ".join(sets[:4])
                + ("; …" if len(sets) > 4 else "")
            )
        return as_sentence(
            f"Lists the distinct groups for {counted(len(groupings), 'grouping')}: " + "; ".join(sets[:4])
        )
    group = groupings[0] if groupings else []
    if not measures:
        if not group:
            return "Produces one empty row."
        # a key in words ("the first 5 characters of ca_zip") takes "value of", or "distinct the" is said
        of = "value of " if len(group) == 1 and " " in group[0] else ""
        return as_sentence(f"Keeps one row per distinct {of}{capped_list(group, MAX_COLUMNS)}")
    if group and conditional:
        return as_sentence(f"Per {capped_list(group, MAX_COLUMNS)}: {what}")
    if group:
        return as_sentence(f"{what} per {capped_list(group, MAX_COLUMNS)}")
    if what == "counts rows":
        return "Counts all rows."
    return as_sentence(f"Over all rows: {what}" if conditional else f"{what} over all rows")


#: An aggregate's sentence says this many of its measures.
MAX_MEASURES = 6
_MERGED_VERBS = ("sums ", "averages ", "counts ")


def _same_verbs(measures: list[str]) -> list[str]:
    """Measures one after another with the same verb said once: "sums a, b and c"."""
    out: list[list[str]] = []
    for text in measures:
        verb = next((v for v in _MERGED_VERBS if text.startswith(v)), None)
        if verb is not None and out and out[-1][0] == verb:
            out[-1].append(text[len(verb) :])
        else:
            out.append([verb or "", text[len(verb) :] if verb else text])
    return [
        verb + and_list([f"({i})" if " + " in i or " − " in i else i for i in items] if len(items) > 1 else items)
        if verb
        else items[0]
        for verb, *items in out
    ]


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
        if j < len(names) and j < len(schema) and names[j] and not is_expression_name(names[j]):
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
    if len(parts) > 5:  # "then 1 more key" would hide what it could say
        parts = parts[:4] + [f"then {counted(len(parts) - 4, 'more key')}"]
    return ", ".join(parts)


def _sort(c: Context) -> str:
    return as_sentence(f"Sorts by {_sort_words(c.words(), c.body.sorts)}")


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


def _fetch(c: Context) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    if count is None and offset is None:
        return "Keeps all rows."
    if offset is None:
        return as_sentence(f"Keeps {_first(count)}")
    if count is None:
        return as_sentence(f"Skips {_first(offset)} and keeps the rest")
    return as_sentence(f"Skips {_first(offset)} and keeps the next {'row' if count == '1' else count}")


def _first(count: str, first: str = "first") -> str:
    """ "the first row", "the first 10 rows" (a count in words too: "the first n rows")."""
    return f"the {first} row" if count == "1" else f"the {first} {count} rows"


def _top_n(c: Context) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    rows = _first(count, "top") if count else "all rows"
    skip = f", after skipping {offset}" if offset else ""
    return as_sentence(f"Keeps {rows}{skip} sorted by {_sort_words(w, c.body.sorts)}")


_SET_WORDS = {
    "union_all": "Stacks the rows of its {inputs}, keeping duplicates (union all)",
    "union_distinct": "Combines the rows of its {inputs}, dropping duplicates (union)",
    "minus_primary": "Keeps the rows of the first input that appear in none of the other inputs (except)",
    "minus_primary_all": "Keeps the rows of the first input not matched by rows of the other inputs, counting "
    "duplicates (except all)",
    "minus_multiset": "Keeps the rows of the first input except those that appear in all of the other inputs",
    "intersection_primary": "Keeps the rows of the first input that appear in at least one other input",
    "intersection_multiset": "Keeps the rows of the first input that appear in every other input (intersect)",
    "intersection_multiset_all": "Keeps the rows that appear in every input, counting duplicates (intersect all)",
}


def _set(c: Context) -> str:
    op = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number.get(c.body.op)
    name = op.name.replace("SET_OP_", "").lower() if op is not None else "unspecified"
    template = _SET_WORDS.get(name, "Combines the rows of its {inputs} (the set operation is not given)")
    text = as_sentence(template.format(inputs=counted(len(c.node.inputs), "input")))
    # which steps it combines, a reused result named where it is made: in a plan of several results the
    # inputs are otherwise steps that only say "Reuses …"
    made_at = [_made_at(c.model, i) for i in c.node.inputs]
    if not made_at:
        return text
    return f"{text} Its input{':' if len(made_at) == 1 else 's, in order:'} {c.steps(made_at)}."


def _made_at(model: PlanModel, node_id: str) -> str:
    """The node whose rows ``node_id`` gives: a reference's target (followed), else the node itself."""
    seen = set()
    while model.node(node_id).kind == "reference" and model.node(node_id).inputs and node_id not in seen:
        seen.add(node_id)
        node_id = model.node(node_id).inputs[0]
    return node_id


def _window(c: Context) -> str:
    body = c.body
    w = c.words()
    funcs = [
        running(f, aggregate_words(w, w.function(f.function_reference), f.arguments, False, noun=True))
        for f in body.window_functions
    ]
    text = (
        f"Adds {counted(len(funcs), 'window column')}: {capped_list(funcs, MAX_ITEMS)}"
        if funcs
        else "Adds window columns"
    )
    if body.partition_expressions:
        text += ", per " + w.partitions(body.partition_expressions)
    if body.sorts:
        text += ", in order of " + capped_list([w.order_key(s) for s in body.sorts], MAX_ITEMS)
    return as_sentence(text)


def _exchange(c: Context) -> str:
    body = c.body
    w = c.words()
    kind = body.WhichOneof("exchange_kind")
    count = body.partition_count
    parts = f" into {counted(count, 'partition')}" if count else ""
    if kind == "scatter_by_fields":
        keys = capped_list([w.selection(f) for f in body.scatter_by_fields.fields], MAX_ITEMS)
        return as_sentence(f"Redistributes the rows{parts} by {keys}")
    if kind == "broadcast":
        every = "the one partition" if count == 1 else f"all {count} partitions" if count else "all partitions"
        return as_sentence(f"Copies every row to {every}")
    if kind == "round_robin":
        return as_sentence(f"Deals the rows out in turn{parts}")
    if kind in ("single_target", "multi_target"):
        return as_sentence(
            f"Sends each row to the partition{'s' if kind == 'multi_target' else ''} chosen by "
            f"{w.expr(getattr(body, kind).expression)}"
        )
    return as_sentence(f"Redistributes the rows{parts}")


def _expand(c: Context) -> str:
    dup = max(
        (len(f.switching_field.duplicates) for f in c.body.fields if f.WhichOneof("field_type") == "switching_field"),
        default=1,
    )
    return as_sentence(
        f"Makes {counted(dup, 'copy', 'copies')} of each row, varying some columns (as for grouping sets)"
    )


def _reference(c: Context) -> str:
    target = c.input(0)
    ordinal = c.body.subtree_ordinal
    if target is None:
        return as_sentence(f"Reuses shared relation {ordinal}")
    things = c.things(target)
    from ..render import title

    what = f"the {title(c.model.node(target).kind).lower()} result of {c.step(target)}"
    return as_sentence(f"Reuses {what}" + (f" over {things}" if things else ""))


def _extension(c: Context) -> str:
    detail = c.body.detail.type_url.rsplit("/", 1)[-1] or "no detail"
    return as_sentence(f"A custom step ({detail}) defined by the plan's producer; its meaning is not known here")


def _write(c: Context) -> str:
    body = c.body
    op = (
        algebra_pb2.WriteRel.WriteOp.Name(body.op).replace("WRITE_OP_", "").lower()
        if body.op in algebra_pb2.WriteRel.WriteOp.DESCRIPTOR.values_by_number
        else "unspecified"
    )
    target = ".".join(body.named_table.names) if body.HasField("named_table") else "a custom table"
    verbs = {
        "insert": f"Inserts the rows into table {target}",
        "delete": f"Deletes the matching rows from table {target}",
        "update": f"Updates the matching rows of table {target}",
        "ctas": f"Creates table {target} from the rows",
    }
    return as_sentence(verbs.get(op, f"Writes the rows to table {target}"))


def _ddl(c: Context) -> str:
    body = c.body
    op = (
        algebra_pb2.DdlRel.DdlOp.Name(body.op).replace("DDL_OP_", "").lower().replace("_", " ")
        if body.op in algebra_pb2.DdlRel.DdlOp.DESCRIPTOR.values_by_number
        else "changes"
    )
    obj = (
        algebra_pb2.DdlRel.DdlObject.Name(body.object).replace("DDL_OBJECT_", "").lower()
        if body.object in algebra_pb2.DdlRel.DdlObject.DESCRIPTOR.values_by_number
        else "object"
    )
    target = ".".join(body.named_object.names) if body.HasField("named_object") else "a custom object"
    verb = {
        "create": "Creates",
        "create or replace": "Creates or replaces",
        "alter": "Alters",
        "drop": "Drops",
        "drop if exist": "Drops (if it exists)",
    }.get(op, f"Changes ({op})")
    return as_sentence(f"{verb} {obj} {target}")


def _update(c: Context) -> str:
    body = c.body
    w = c.words()
    names = [f.name for f in c.node.info.incoming or []]
    sets = [
        f"{names[t.column_target] if 0 <= t.column_target < len(names) else f'column {t.column_target}'} to "
        f"{w.expr(t.transformation)}"
        for t in body.transformations
    ]
    text = f"Updates table {'.'.join(body.named_table.names)}"
    if body.HasField("condition"):
        text += f" where {w.condition(body.condition)}"
    if sets:
        text += ", setting " + capped_list(sets, MAX_ITEMS)
    return as_sentence(text)


DESCRIBE: dict[str, Callable[[Context], str]] = {
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
